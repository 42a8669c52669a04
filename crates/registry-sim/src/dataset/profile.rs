//! The company profile of operation 1: `empresa`, the requested establishment, `simples`,
//! the source map and per-table summaries (`resumos`), plus a deterministic snapshot
//! fingerprint. It only assembles records other modules generate.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::Dataset;
use super::company::Core;
use super::debts::{dividas, parcelamentos, transacoes};
use super::registry::{empresa_simples, estabelecimento};
use super::rng::{entity_rng, heavy_cents, per_mille, stream};
use super::text::money_dot;
use super::truth::{MoneyTruth, debt_truth_of};
use registry_api::ids::{Categoria, Cnpj};
use registry_api::models::{CompanyProfile, Resumo};

fn resumo(href: String, total: usize, cents: i64) -> Resumo {
    Resumo { href: Some(href), total: Some(total as i64), valor_total: Some(money_dot(cents)) }
}

/// Share of companies (per mille) whose debt summary disagrees with the debt list.
const LAGGING_SUMMARY_PER_MILLE: u32 = 40;

/// The summary a published list and its summary disagree by, for about 4% of companies: the
/// `dividas_pgfn_<categoria>` summary of their first categoria still counts one inscription
/// (of these cents) the list no longer shows, as a summary computed at another time would.
/// The same companies in every month, so a reconciliation finds them run after run.
pub(super) fn lagging_summary(ds: &Dataset, core: &Core) -> Option<(Categoria, i64)> {
    let mut rng = entity_rng(ds.seed, stream::SUMMARY, core.index as u64);
    if !per_mille(&mut rng, LAGGING_SUMMARY_PER_MILLE) {
        return None;
    }
    let position = core.debts.iter().position(|n| *n > 0).unwrap_or(0);
    Some((Categoria::ALL[position], heavy_cents(&mut rng, 600, 40)))
}

/// `resumos` keys: `dividas_pgfn_<categoria>` (x3), `parcelamentos_rfb`, `transacoes_rfb`;
/// `valor_total` is the dot-decimal sum of the records whose amount is readable, but for
/// the one summary of a `lagging_summary` company.
///
/// `snapshot_fingerprint` is a digest of everything operations 1 and 5-7 and the partners list
/// return for the CNPJ at the as-of month, so it changes exactly when any of that data changed.
pub(super) fn profile(ds: &Dataset, core: &Core, cnpj: &Cnpj, ordem: u32) -> CompanyProfile {
    let (empresa, simples) = empresa_simples(ds, core);
    let estabelecimento = estabelecimento(ds, core, ordem);
    let mut digest = Sha256::new();
    feed(&mut digest, &empresa);
    feed(&mut digest, &estabelecimento);
    feed(&mut digest, &simples);
    for partner in super::registry::socios(ds, core) {
        feed(&mut digest, &partner);
    }
    let mut resumos = BTreeMap::new();
    let lagging = lagging_summary(ds, core);
    for c in Categoria::ALL {
        let rows = dividas(ds, core, c);
        for r in &rows {
            feed(&mut digest, &r.priced.item);
        }
        let t = debt_truth_of(&rows);
        let (extra_records, extra_cents) = match lagging {
            Some((lagging, cents)) if lagging == c => (1, cents),
            _ => (0, 0),
        };
        resumos.insert(
            format!("dividas_pgfn_{}", c.as_str()),
            resumo(
                format!("/v1/cnpjs/{cnpj}/dividas-pgfn?categoria={}", c.as_str()),
                t.records + extra_records,
                t.ajuizado_sim_cents + t.ajuizado_nao_cents + extra_cents,
            ),
        );
    }
    let plans = parcelamentos(ds, core);
    for r in &plans {
        feed(&mut digest, &r.item);
    }
    let p = MoneyTruth::of(&plans);
    resumos.insert(
        "parcelamentos_rfb".to_string(),
        resumo(format!("/v1/cnpjs/{cnpj}/parcelamentos-rfb"), p.records, p.saldo_devedor_cents),
    );
    let deals = transacoes(ds, core);
    for r in &deals {
        feed(&mut digest, &r.item);
    }
    let t = MoneyTruth::of(&deals);
    resumos.insert(
        "transacoes_rfb".to_string(),
        resumo(format!("/v1/cnpjs/{cnpj}/transacoes-rfb"), t.records, t.saldo_devedor_cents),
    );
    digest.update(format!("fiscal-report-sim|{}|{:016x}|{cnpj}", ds.seed, ds.scale.to_bits()).as_bytes());
    CompanyProfile {
        cnpj: Some(cnpj.as_str().to_string()),
        empresa: Some(empresa),
        estabelecimento: Some(estabelecimento),
        simples: Some(simples),
        fontes: Some(ds.fontes()),
        resumos: Some(resumos),
        snapshot_fingerprint: Some(hex::encode(digest.finalize())),
    }
}

/// Adds a record to the fingerprint. The models are plain structs of strings and numbers, so
/// serialising them cannot fail.
fn feed(digest: &mut Sha256, record: &impl serde::Serialize) {
    digest.update(serde_json::to_vec(record).unwrap_or_default());
}
