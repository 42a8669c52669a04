//! The portfolio section: exposure by state and CNAE section, the largest companies, and the
//! companies not found.

use std::collections::BTreeMap;

use polars::prelude::DataFrame;

use super::super::cells::{dec, float, int, text};
use super::model::*;
use super::{rows, s};
use crate::analyze::Aggregates;
use crate::report::format::Locale;
use crate::transform::Frames;
use crate::transform::parse::{cnae_section_name, uf_outside_states_label};

/// The exposure columns every portfolio query shares, of row `i`.
pub(super) fn exposure(df: &DataFrame, i: usize) -> Exposure {
    Exposure {
        filed: s(dec(df, "divida_ajuizada", i)),
        not_filed: s(dec(df, "divida_nao_ajuizada", i)),
        instalments: s(dec(df, "parcelamentos_saldo", i)),
        transactions: s(dec(df, "transacoes_saldo", i)),
        total: s(dec(df, "exposicao_total", i)),
    }
}

pub(super) fn portfolio_rows(
    df: &DataFrame,
    key: &str,
    name: fn(&str) -> Option<&'static str>,
) -> (Vec<PortfolioRow>, Option<PortfolioRow>) {
    let mut out = Vec::new();
    let mut total = None;
    for i in rows(df) {
        let k = text(df, key, i).unwrap_or_else(|| "—".into());
        let r = PortfolioRow {
            name: name(&k).map(String::from),
            key: k,
            companies: int(df, "empresas", i),
            exposure: exposure(df, i),
        };
        if r.key == "TOTAL" { total = Some(r) } else { out.push(r) }
    }
    (out, total)
}

pub(super) fn portfolio(aggs: &Aggregates, frames: &Frames, locale: Locale) -> Option<Portfolio> {
    let resumo = aggs.get("carteira_resumo")?;
    let mut summary = BTreeMap::new();
    for c in resumo.columns() {
        let name = c.name().to_string();
        let v = match c.dtype() {
            polars::prelude::DataType::Decimal(..) => s(dec(resumo, &name, 0)).map(serde_json::Value::String),
            dt if dt.is_float() => float(resumo, &name, 0).map(|f| serde_json::json!(f)),
            _ => int(resumo, &name, 0).map(|n| serde_json::json!(n)),
        };
        summary.insert(name, v.unwrap_or(serde_json::Value::Null));
    }
    let (by_uf, by_uf_total) = aggs
        .get("carteira_por_uf")
        .map(|d| portfolio_rows(d, "uf", uf_outside_states_label))
        .unwrap_or_default();
    let (by_cnae, by_cnae_total) = aggs
        .get("carteira_por_cnae_secao")
        .map(|d| portfolio_rows(d, "cnae_secao", cnae_section_name))
        .unwrap_or_default();
    let (by_regime, by_regime_total) =
        aggs.get("carteira_por_regime").map(|d| portfolio_rows(d, "regime", |_| None)).unwrap_or_default();
    let regime_read =
        frames.get(crate::transform::regime::REGIME_TRIBUTARIO).is_some_and(|df| df.height() > 0);
    let top = aggs.get("carteira_maiores").map(company_rows).unwrap_or_default();
    let companies =
        aggs.results.iter().find(|(q, _)| q.table == "carteira_empresas").map(|(q, df)| CompanyTable {
            title: super::title_of(q, locale),
            description: super::description_of(q, locale),
            table: q.table.clone(),
            rows: company_rows(df),
            rows_html: None,
        });
    let not_found = frames
        .get(crate::transform::CARTEIRA)
        .map(|df| {
            let mut v: Vec<String> = rows(df)
                .filter(|i| text(df, "situacao", *i).as_deref() == Some("nao_encontrada"))
                .filter_map(|i| text(df, "cnpj", i))
                .collect();
            v.sort();
            v
        })
        .unwrap_or_default();
    let groups_df = aggs.get("grupos_exposicao");
    let groups = groups_df
        .map(|df| {
            rows(df)
                .take(GROUPS_SHOWN)
                .map(|i| EconomicGroup {
                    rank: i + 1,
                    grupo: text(df, "grupo", i).unwrap_or_default(),
                    nome: text(df, "grupo_nome", i),
                    companies: int(df, "empresas", i),
                    in_portfolio: int(df, "empresas_na_carteira", i),
                    with_data: int(df, "empresas_com_dados", i),
                    exposure_portfolio: s(dec(df, "exposicao_carteira", i)),
                    exposure_group: s(dec(df, "exposicao_grupo", i)),
                })
                .collect()
        })
        .unwrap_or_default();
    Some(Portfolio {
        summary,
        by_uf,
        by_uf_total,
        by_cnae,
        by_cnae_total,
        by_regime,
        by_regime_total,
        regime_read,
        top,
        companies,
        not_found,
        groups,
        groups_total: groups_df.map_or(0, DataFrame::height),
        has_groups: groups_df.is_some(),
    })
}

/// One row per company of `df` (`carteira_maiores`, `carteira_empresas`), ranked as given.
fn company_rows(df: &DataFrame) -> Vec<TopCompany> {
    rows(df)
        .map(|i| TopCompany {
            rank: i + 1,
            cnpj: text(df, "cnpj", i).unwrap_or_default(),
            razao_social: text(df, "razao_social", i),
            uf: text(df, "uf", i),
            cnae_secao: text(df, "cnae_secao", i),
            cnae_secao_descr: text(df, "cnae_secao", i).and_then(|l| cnae_section_name(&l)).map(String::from),
            exposure: exposure(df, i),
            as_principal: s(dec(df, "divida_principal", i)),
            as_co_debtor: s(dec(df, "divida_corresponsavel", i)),
            situacao: text(df, "situacao_fiscal_estimada", i),
            dossier: false,
        })
        .collect()
}

/// Groups the report lists; the Parquet and the workbook have them all.
const GROUPS_SHOWN: usize = 20;
