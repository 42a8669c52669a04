//! The section "O que mudou na carteira": the changes since the previous snapshot (counts by
//! kind, the largest exposure increases and decreases, court filings, regularity changes), the
//! alerts of the watch rules, and each company's changes in the appendix, linked from the rows.

use std::collections::BTreeMap;

use polars::prelude::DataFrame;
use rust_decimal::Decimal;

use super::super::cells::{dec, float, text};
use super::rows;
use crate::analyze::Aggregates;
use crate::codes::CodeTables;
use crate::monitor::alerts::Severidade;
use crate::monitor::lifecycle::{Estado, TrackedAlert};
use crate::report::format::Locale;
use crate::report::strings::Strings;
use crate::tables::Table;

/// Rows in each top list.
const TOP: usize = 10;
/// Companies detailed in the appendix (the Parquet has them all).
const DETAILED: usize = 300;

#[derive(Debug, Clone, serde::Serialize)]
pub struct Changes {
    /// False on a first run (no previous snapshot): the section says so in one line.
    pub compared: bool,
    pub snapshot_anterior: Option<String>,
    pub total: usize,
    pub companies: usize,
    pub by_kind: Vec<KindCount>,
    pub increases: Vec<ExposureMove>,
    pub decreases: Vec<ExposureMove>,
    pub court_filings: Vec<ChangeRow>,
    pub regularity: Vec<ChangeRow>,
    /// Whether `--rules` was given (no rules: no alerts block at all).
    pub rules: bool,
    /// Alerts of the run, and by state: new this run, open since an earlier one (not sent
    /// again), resolved this run.
    pub alerts: usize,
    pub alerts_new: usize,
    pub alerts_open: usize,
    pub alerts_resolved: usize,
    /// The alerts of each state grouped by company, the companies ranked by their most severe
    /// alert and then the money at stake.
    pub companies_new: Vec<AlertCompany>,
    pub companies_open: Vec<AlertCompany>,
    pub companies_resolved: Vec<AlertCompany>,
    pub detail: Vec<CompanyChanges>,
    pub detail_omitted: usize,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct KindCount {
    pub kind: String,
    pub count: usize,
    /// Net change in R$ the kind brought to the portfolio's exposure (when it moves money).
    pub variacao: Option<String>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct ExposureMove {
    pub cnpj: String,
    pub razao_social: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
    pub change: Option<String>,
    pub change_pct: Option<f64>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct ChangeRow {
    pub cnpj: String,
    pub razao_social: Option<String>,
    pub kind: String,
    pub key: Option<String>,
    pub before: Option<String>,
    pub after: Option<String>,
    /// True when before/after are amounts in R$ (formatted as money).
    pub money: bool,
    pub change: Option<String>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct CompanyChanges {
    pub cnpj: String,
    pub razao_social: Option<String>,
    pub rows: Vec<ChangeRow>,
}

/// One company's alerts in one state: who it is, its most severe alert's severity, and each
/// rule that holds with its triggers.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AlertCompany {
    pub cnpj: String,
    pub razao_social: Option<String>,
    /// The watchlists holding it, joined.
    pub watchlists: String,
    /// The most severe of its alerts, in words (`alta`, ...), and its code.
    pub severidade: String,
    pub severidade_codigo: &'static str,
    pub alerts: Vec<AlertRow>,
}

/// One alert: a rule that holds for the company, and what set it off.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AlertRow {
    pub regra: String,
    pub severidade: String,
    pub severidade_codigo: &'static str,
    /// The money at stake (the sum of its triggers' amounts), when any.
    pub at_stake: Option<String>,
    /// The snapshots (AAAAMM) it opened and was resolved; why it was.
    pub aberta_em: String,
    pub resolvida_em: Option<String>,
    pub motivo: Option<String>,
    /// New triggers on an open alert ("+3 inscrições").
    pub atualizacao: Option<String>,
    pub triggers: Vec<TriggerRow>,
}

/// One trigger of an alert.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TriggerRow {
    /// What matched, in words an analyst reads (kind of change and record).
    pub detalhe: String,
    pub change: Option<String>,
    pub change_pct: Option<f64>,
    /// The date the files give the event, as the report writes dates.
    pub data: Option<String>,
}

/// The code table whose names a change of `kind` shows beside its codes.
fn code_table(kind: &str) -> Option<&'static str> {
    use crate::monitor::rules::{MAIN_CNAE, PARTNER_REQUALIFIED, SITUATION};
    match kind {
        SITUATION => Some("situacao_cadastral"),
        "natureza jurídica alterada" => Some("natureza_juridica"),
        "porte alterado" => Some("porte_empresa"),
        MAIN_CNAE => Some("cnae"),
        PARTNER_REQUALIFIED => Some("qualificacao_socio"),
        _ => None,
    }
}

/// A change's value with the names of its codes beside them: `2062 Sociedade Empresária
/// Limitada`. A situation with its reason, as `queries/28_mudancas.sql` writes it
/// (`08 (motivo 01)`), names both. A code the tables do not know stays as it is.
pub(crate) fn with_code_names(codes: &CodeTables, kind: &str, value: String) -> String {
    let Some(table) = code_table(kind) else { return value };
    let name = |table: &str, code: &str| match codes.name(table, code) {
        Some(n) => format!("{code} {n}"),
        None => code.to_string(),
    };
    match value.strip_suffix(')').and_then(|v| v.split_once(" (motivo ")) {
        Some((code, motivo)) => {
            format!("{} (motivo {})", name(table, code), name("motivo_situacao_cadastral", motivo))
        }
        None => name(table, &value),
    }
}

fn change_rows(df: &DataFrame, codes: &CodeTables) -> Vec<ChangeRow> {
    rows(df)
        .map(|i| {
            let table = text(df, "tabela", i).unwrap_or_default();
            let (before, after) = (text(df, "valor_anterior", i), text(df, "valor_novo", i));
            let is_amount = |v: &Option<String>| v.as_deref().is_none_or(|v| v.parse::<Decimal>().is_ok());
            let kind = text(df, "mudanca", i).unwrap_or_default();
            ChangeRow {
                cnpj: text(df, "cnpj", i).unwrap_or_default(),
                razao_social: text(df, "razao_social", i),
                money: crate::report::format::change_in_money(&table, &kind)
                    && is_amount(&before)
                    && is_amount(&after),
                key: text(df, "chave", i)
                    .filter(|_| table != Table::Empresas.name() && table != "situacao_fiscal_estimada"),
                before: before.map(|v| with_code_names(codes, &kind, v)),
                after: after.map(|v| with_code_names(codes, &kind, v)),
                kind,
                change: dec(df, "variacao", i).map(|d| d.to_string()),
            }
        })
        .collect()
}

fn exposure_moves(df: &DataFrame, want_increase: bool) -> Vec<ExposureMove> {
    let mut moves: Vec<(Decimal, ExposureMove)> = rows(df)
        .filter_map(|i| {
            let change = dec(df, "variacao", i)?;
            let wanted = if want_increase { change > Decimal::ZERO } else { change < Decimal::ZERO };
            wanted.then(|| {
                (
                    change,
                    ExposureMove {
                        cnpj: text(df, "cnpj", i).unwrap_or_default(),
                        razao_social: text(df, "razao_social", i),
                        before: dec(df, "exposicao_anterior", i).map(|d| d.to_string()),
                        after: dec(df, "exposicao_atual", i).map(|d| d.to_string()),
                        change: Some(change.to_string()),
                        change_pct: float(df, "variacao_percentual", i),
                    },
                )
            })
        })
        .collect();
    moves.sort_by(|a, b| {
        if want_increase { b.0.cmp(&a.0) } else { a.0.cmp(&b.0) }.then(a.1.cnpj.cmp(&b.1.cnpj))
    });
    moves.into_iter().take(TOP).map(|(_, m)| m).collect()
}

/// A date of the files (AAAA-MM-DD) as the report writes it: 05/02/2026 in pt-BR.
fn date(d: &str, locale: Locale) -> String {
    match (locale, d.get(..4), d.get(5..7), d.get(8..10)) {
        (Locale::PtBr, Some(y), Some(m), Some(day)) => format!("{day}/{m}/{y}"),
        _ => d.to_string(),
    }
}

fn alert_row(t: &TrackedAlert, locale: Locale, words: &Strings) -> AlertRow {
    let a = &t.alerta;
    let triggers = a
        .gatilhos
        .iter()
        .map(|g| {
            let money = |k: &str| {
                let d = g.value(k).and_then(|v| v.parse::<Decimal>().ok()).unwrap_or_default();
                crate::report::format::money(d, locale)
            };
            let detalhe = match (g.value("mudanca"), g.value("chave")) {
                (Some(kind), Some(key)) if key != a.cnpj => format!("{kind}: {key}"),
                (Some(kind), _) => kind.to_string(),
                // The exposure's growth: from what to what.
                (None, _) => format!(
                    "{} {} → {}",
                    words.get("alerta_exposicao"),
                    money("exposicao_anterior"),
                    money("exposicao_atual")
                ),
            };
            TriggerRow {
                detalhe,
                change: g.valor.clone(),
                change_pct: g.valores.get("variacao_percentual").and_then(serde_json::Value::as_f64),
                data: g.data.as_deref().map(|d| date(d, locale)),
            }
        })
        .collect();
    let stake = a.at_stake();
    AlertRow {
        regra: a.regra.clone(),
        severidade: severity_words(a.severidade, words),
        severidade_codigo: a.severidade.name(),
        at_stake: (!stake.is_zero()).then(|| stake.to_string()),
        aberta_em: t.aberta_em.clone(),
        resolvida_em: t.resolvida_em.clone(),
        motivo: t.motivo.clone(),
        atualizacao: t.atualizacao.clone(),
        triggers,
    }
}

/// A severity in the report's words.
pub(super) fn severity_words(s: Severidade, words: &Strings) -> String {
    words.get(&format!("severidade_{}", s.name()))
}

/// The alerts of one state grouped by company: the companies ranked by their most severe alert,
/// then the money at stake over their alerts; each company's alerts in the run's order.
fn by_company(tracked: &[&TrackedAlert], locale: Locale, words: &Strings) -> Vec<AlertCompany> {
    let mut groups: Vec<(Severidade, Decimal, AlertCompany)> = Vec::new();
    for t in tracked {
        let a = &t.alerta;
        let at = match groups.iter().position(|g| g.2.cnpj == a.cnpj) {
            Some(at) => at,
            None => {
                groups.push((
                    a.severidade,
                    Decimal::ZERO,
                    AlertCompany {
                        cnpj: a.cnpj.clone(),
                        razao_social: a.razao_social.clone(),
                        watchlists: a.watchlists.join(", "),
                        severidade: String::new(),
                        severidade_codigo: "",
                        alerts: Vec::new(),
                    },
                ));
                groups.len() - 1
            }
        };
        let g = &mut groups[at];
        g.0 = g.0.min(a.severidade);
        g.1 += a.at_stake();
        g.2.alerts.push(alert_row(t, locale, words));
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cnpj.cmp(&b.2.cnpj)));
    groups
        .into_iter()
        .map(|(s, _, mut c)| {
            c.severidade = severity_words(s, words);
            c.severidade_codigo = s.name();
            c
        })
        .collect()
}

/// Sets the alerts of `changes` (`None`: no rules were given), counted and grouped by state.
pub(super) fn set_alerts(
    changes: &mut Changes,
    alerts: Option<&[TrackedAlert]>,
    locale: Locale,
    words: &Strings,
) {
    changes.rules = alerts.is_some();
    let all = alerts.unwrap_or_default();
    let of = |e: Estado| all.iter().filter(|a| a.estado == e).collect::<Vec<_>>();
    let (new, open, resolved) = (of(Estado::Nova), of(Estado::Aberta), of(Estado::Resolvida));
    (changes.alerts, changes.alerts_new, changes.alerts_open, changes.alerts_resolved) =
        (all.len(), new.len(), open.len(), resolved.len());
    changes.companies_new = by_company(&new, locale, words);
    changes.companies_open = by_company(&open, locale, words);
    changes.companies_resolved = by_company(&resolved, locale, words);
}

/// The section, without alerts (`set_alerts` adds them).
pub(super) fn changes(aggs: &Aggregates, codes: &CodeTables) -> Option<Changes> {
    let mudancas = aggs.get("mudancas")?;
    let all = change_rows(mudancas, codes);
    let mut by_kind: BTreeMap<String, (usize, Option<Decimal>)> = BTreeMap::new();
    let mut by_company: BTreeMap<String, CompanyChanges> = BTreeMap::new();
    for r in &all {
        let k = by_kind.entry(r.kind.clone()).or_default();
        k.0 += 1;
        if let Some(c) = r.change.as_deref().and_then(|c| c.parse::<Decimal>().ok()) {
            k.1 = Some(k.1.unwrap_or_default() + c);
        }
        by_company
            .entry(r.cnpj.clone())
            .or_insert_with(|| CompanyChanges {
                cnpj: r.cnpj.clone(),
                razao_social: r.razao_social.clone(),
                rows: vec![],
            })
            .rows
            .push(r.clone());
    }
    let mut by_kind: Vec<KindCount> = by_kind
        .into_iter()
        .map(|(kind, (count, v))| KindCount { kind, count, variacao: v.map(|d| d.to_string()) })
        .collect();
    by_kind.sort_by(|a, b| b.count.cmp(&a.count).then(a.kind.cmp(&b.kind)));
    let pick = |f: &dyn Fn(&ChangeRow) -> bool| all.iter().filter(|r| f(r)).cloned().collect::<Vec<_>>();
    let exposure = aggs.get("variacao_exposicao");
    let companies = by_company.len();
    let detail: Vec<CompanyChanges> = by_company.into_values().collect();
    Some(Changes {
        compared: aggs.previous_snapshot.is_some(),
        snapshot_anterior: aggs.previous_snapshot.clone(),
        total: all.len(),
        companies,
        by_kind,
        increases: exposure.map(|df| exposure_moves(df, true)).unwrap_or_default(),
        decreases: exposure.map(|df| exposure_moves(df, false)).unwrap_or_default(),
        court_filings: pick(&|r| r.kind == "inscrição ajuizada"),
        regularity: pick(&|r| r.kind.starts_with("situação fiscal estimada")),
        rules: false,
        alerts: 0,
        alerts_new: 0,
        alerts_open: 0,
        alerts_resolved: 0,
        companies_new: Vec::new(),
        companies_open: Vec::new(),
        companies_resolved: Vec::new(),
        detail_omitted: detail.len().saturating_sub(DETAILED),
        detail: detail.into_iter().take(DETAILED).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_names_its_codes_and_a_situation_its_reason() {
        let codes = CodeTables::load(None).unwrap();
        let named = |kind: &str, v: &str| with_code_names(&codes, kind, v.to_string());
        assert_eq!(named("porte alterado", "03"), "03 EMPRESA DE PEQUENO PORTE");
        assert_eq!(
            named("situação cadastral alterada", "08 (motivo 01)"),
            "08 BAIXADA (motivo 01 EXTINCAO POR ENCERRAMENTO LIQUIDACAO VOLUNTARIA)"
        );
        assert_eq!(named("situação cadastral alterada", "02"), "02 ATIVA");
        // Unknown codes and kinds without a table stay as they are.
        assert_eq!(named("porte alterado", "77"), "77");
        assert_eq!(named("CEP da sede alterado", "01310100"), "01310100");
    }
}
