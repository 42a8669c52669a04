//! The company profile of operation 1: `empresa`, the requested establishment, `simples`,
//! the source map and per-table summaries (`resumos`), plus a deterministic snapshot
//! fingerprint. It only assembles records other modules generate.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::Dataset;
use super::company::Core;
use super::debts::{parcelamentos, transacoes};
use super::registry::{empresa_simples, estabelecimento};
use super::text::money_dot;
use super::truth::{MoneyTruth, debt_truth};
use crate::api::ids::{Categoria, Cnpj};
use crate::api::models::{CompanyProfile, Resumo};

fn resumo(href: String, total: usize, cents: i64) -> Resumo {
    Resumo { href: Some(href), total: Some(total as i64), valor_total: Some(money_dot(cents)) }
}

/// `resumos` keys: `dividas_pgfn_<categoria>` (x3), `parcelamentos_rfb`, `transacoes_rfb`;
/// `valor_total` is the dot-decimal sum of the records whose amount is readable.
pub(super) fn profile(ds: &Dataset, core: &Core, cnpj: &Cnpj, ordem: u32) -> CompanyProfile {
    let (empresa, simples) = empresa_simples(ds, core);
    let mut resumos = BTreeMap::new();
    for c in Categoria::ALL {
        let t = debt_truth(ds, core, c);
        resumos.insert(
            format!("dividas_pgfn_{}", c.as_str()),
            resumo(
                format!("/v1/cnpjs/{cnpj}/dividas-pgfn?categoria={}", c.as_str()),
                t.records,
                t.ajuizado_sim_cents + t.ajuizado_nao_cents,
            ),
        );
    }
    let p = MoneyTruth::of(&parcelamentos(ds, core));
    resumos.insert(
        "parcelamentos_rfb".to_string(),
        resumo(format!("/v1/cnpjs/{cnpj}/parcelamentos-rfb"), p.records, p.saldo_devedor_cents),
    );
    let t = MoneyTruth::of(&transacoes(ds, core));
    resumos.insert(
        "transacoes_rfb".to_string(),
        resumo(format!("/v1/cnpjs/{cnpj}/transacoes-rfb"), t.records, t.saldo_devedor_cents),
    );
    let material =
        format!("fiscal-report-sim|{}|{:016x}|{cnpj}|{}", ds.seed, ds.scale.to_bits(), ds.latest_month());
    CompanyProfile {
        cnpj: Some(cnpj.as_str().to_string()),
        empresa: Some(empresa),
        estabelecimento: Some(estabelecimento(ds, core, ordem)),
        simples: Some(simples),
        fontes: Some(ds.fontes()),
        resumos: Some(resumos),
        snapshot_fingerprint: Some(hex::encode(Sha256::digest(material.as_bytes()))),
    }
}
