//! The embedded registry over a release of the publishers' files (`run --open-data`): the
//! same routes and envelopes, answered from the records the files held for the portfolio. A
//! dataset the files do not carry (instalment plans, settlements, credits, works, rural
//! properties) is an empty list whose `fonte` says `ausente`, so the run and its report say
//! which sections could not be filled and why, instead of failing.

use axum::http::StatusCode;
use axum::response::Response;

use super::respond::{detail, envelope, json_response, not_found};
use registry_api::models::{CreditoAtivo, Fonte, Obra, ParcelamentoRfb, TransacaoRfb};
use registry_api::published::Published;
use registry_api::{Categoria, Cnpj};

/// Whether the files carry what `path` asks (`/v1/...`): a company's profile, establishments,
/// partners and debts. With a service beside the files, it answers the rest.
pub fn carries(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/v1/cnpjs/") else { return false };
    match rest.split_once('/') {
        None => !rest.is_empty(),
        Some((_, list)) => matches!(list, "estabelecimentos" | "socios" | "dividas-pgfn"),
    }
}

/// The list routes of a company.
#[derive(Clone, Copy)]
pub(super) enum List {
    Estabelecimentos,
    Obras,
    Socios,
    Dividas(Categoria),
    Parcelamentos,
    Transacoes,
}

fn fonte(p: &Published, key: &str) -> Fonte {
    p.fontes.get(key).cloned().unwrap_or_else(|| Fonte { status: Some("ausente".into()), versao: None })
}

/// A row the published models could not take: cannot happen (their fields are all optional
/// text), answered as the service answers what it cannot serve.
fn unreadable(e: &serde_json::Error) -> Response {
    detail(StatusCode::INTERNAL_SERVER_ERROR, &format!("a published row could not be served: {e}"))
}

/// Operation 1.
pub(super) fn profile(p: &Published, cnpj: &Cnpj) -> Response {
    match p.profile(cnpj) {
        Ok(Some(profile)) => json_response(StatusCode::OK, &profile),
        Ok(None) => not_found(),
        Err(e) => unreadable(&e),
    }
}

/// Operations 2 to 7 for `cnpj`: its records, or an empty list for what the files lack.
pub(super) fn company_list(p: &Published, list: List, cnpj: &Cnpj, limite: usize, offset: usize) -> Response {
    macro_rules! serve {
        ($items:expr, $src:expr) => {
            match $items {
                Ok(Some(items)) => envelope(&items, items.len(), limite, offset, fonte(p, $src)),
                Ok(None) => not_found(),
                Err(e) => unreadable(&e),
            }
        };
    }
    let known = p.knows(cnpj);
    match list {
        List::Estabelecimentos => serve!(p.estabelecimentos_of(cnpj), "cnpj"),
        List::Socios => serve!(p.socios_of(cnpj), "cnpj"),
        List::Dividas(categoria) => serve!(p.dividas_of(cnpj, categoria), "pgfn"),
        List::Obras => serve!(Ok(known.then(Vec::<Obra>::new)), "cno"),
        List::Parcelamentos => serve!(Ok(known.then(Vec::<ParcelamentoRfb>::new)), "rfb"),
        List::Transacoes => serve!(Ok(known.then(Vec::<TransacaoRfb>::new)), "rfb"),
    }
}

/// Operation 13: no published file carries the aggregated credits.
pub(super) fn credits(p: &Published, limite: usize, offset: usize) -> Response {
    envelope::<CreditoAtivo>(&[], 0, limite, offset, fonte(p, "rfb"))
}
