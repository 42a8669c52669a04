//! The report's view model: every figure the templates show, built from the aggregate frames.
//! Money travels as exact decimal text and is formatted by the templates' helpers; a section
//! whose query is missing is simply absent.

use std::collections::BTreeMap;

use polars::prelude::DataFrame;
use rust_decimal::Decimal;
use serde::Serialize;

use super::cells::{CellKind, dec, float, int, kind_of, text};
use super::charts::{LineChart, TILE_GRID, bar_percent, heat, line_chart};
use crate::analyze::Aggregates;
use crate::cli::Locale;
use crate::export::manifest::Manifest;
use crate::transform::Frames;

/// Aggregates the report's own sections use; any other query goes to the appendix.
pub const KNOWN: [&str; 18] = [
    "creditos_total_mensal",
    "creditos_por_uf_mes",
    "creditos_por_uf",
    "creditos_por_cnae_secao",
    "creditos_por_grupo_tributo",
    "creditos_por_situacao",
    "creditos_por_tipo_contribuinte",
    "creditos_por_natureza_juridica",
    "serie_cnae_secao",
    "serie_grupo_tributo",
    "cruzamento_uf_grupo",
    "maiores_altas",
    "maiores_quedas",
    "carteira_exposicao",
    "carteira_por_uf",
    "carteira_por_cnae_secao",
    "carteira_maiores",
    "carteira_resumo",
];

fn s(d: Option<Decimal>) -> Option<String> {
    d.map(|d| d.to_string())
}

#[derive(Debug, Clone, Serialize)]
pub struct Headline {
    pub month: String,
    pub total: Option<String>,
    pub change_month: Option<String>,
    pub change_month_pct: Option<f64>,
    pub change_year: Option<String>,
    pub change_year_pct: Option<f64>,
    pub ufs: Option<i64>,
    pub companies: Option<i64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BreakdownRow {
    pub key: String,
    pub label: Option<String>,
    pub value: Option<String>,
    pub share_pct: Option<f64>,
    pub change: Option<String>,
    pub change_pct: Option<f64>,
    pub bar_pct: f64,
    /// Bar length in chart units.
    pub bar_w: f64,
    pub bar_y: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Breakdown {
    pub title: String,
    pub answers: String,
    pub key_label: String,
    pub has_label: bool,
    pub rows: Vec<BreakdownRow>,
    pub total: Option<BreakdownRow>,
    pub chart_height: f64,
    /// Width of the label column of the bar chart, from the longest key.
    pub label_w: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Tile {
    pub uf: String,
    pub x: f64,
    pub y: f64,
    pub change_pct: Option<f64>,
    pub class: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CrossCell {
    pub value: Option<String>,
    pub heat: u8,
}

#[derive(Debug, Clone, Serialize)]
pub struct CrossRow {
    pub uf: String,
    pub cells: Vec<CrossCell>,
    pub total: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CrossTab {
    pub title: String,
    pub groups: Vec<String>,
    pub rows: Vec<CrossRow>,
    pub totals: CrossRow,
}

#[derive(Debug, Clone, Serialize)]
pub struct Mover {
    pub uf: String,
    pub cnae_secao: String,
    pub grupo_tributo: String,
    pub before: Option<String>,
    pub now: Option<String>,
    pub change: Option<String>,
    pub change_pct: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PortfolioRow {
    pub key: String,
    pub companies: Option<i64>,
    pub filed: Option<String>,
    pub not_filed: Option<String>,
    pub instalments: Option<String>,
    pub transactions: Option<String>,
    pub total: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TopCompany {
    pub rank: usize,
    pub cnpj: String,
    pub razao_social: Option<String>,
    pub uf: Option<String>,
    pub cnae_secao: Option<String>,
    pub filed: Option<String>,
    pub not_filed: Option<String>,
    pub instalments: Option<String>,
    pub transactions: Option<String>,
    pub total: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Portfolio {
    pub summary: BTreeMap<String, serde_json::Value>,
    pub by_uf: Vec<PortfolioRow>,
    pub by_uf_total: Option<PortfolioRow>,
    pub by_cnae: Vec<PortfolioRow>,
    pub by_cnae_total: Option<PortfolioRow>,
    pub top: Vec<TopCompany>,
    pub not_found: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct QualityRow {
    pub table: String,
    pub column: String,
    pub failures: u64,
    pub examples: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RequestRow {
    pub operation: String,
    pub outcomes: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunInfo {
    pub run_id: String,
    pub generated_at: String,
    pub version: String,
    pub source: String,
    pub first_month: String,
    pub last_month: String,
    pub month_count: usize,
    pub ufs: String,
    pub portfolio_size: usize,
    pub shard: String,
    pub fontes: Vec<(String, String, String)>,
    pub requests: u64,
    pub retries: u64,
    pub rate_limited: u64,
    pub failed_tasks: usize,
    pub wall_seconds: String,
    pub by_operation: Vec<RequestRow>,
    pub quality: Vec<QualityRow>,
    pub warnings: Vec<String>,
    pub warnings_more: usize,
}

/// Why some figures are incomplete: tasks that failed after their retries and portfolio
/// companies whose lookup failed. Absent when nothing failed, so the banner shows only then.
#[derive(Debug, Clone, Serialize)]
pub struct Incomplete {
    pub failed_tasks: usize,
    pub failed_companies: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct AppendixCell {
    pub value: Option<String>,
    pub kind: CellKind,
}

#[derive(Debug, Clone, Serialize)]
pub struct AppendixTable {
    pub table: String,
    pub title: String,
    pub answers: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<AppendixCell>>,
    pub truncated: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReportView {
    pub demo: bool,
    pub incomplete: Option<Incomplete>,
    pub locale: Locale,
    pub lang: &'static str,
    pub headline: Option<Headline>,
    pub trend_national: Option<LineChart>,
    pub trend_states: Option<LineChart>,
    pub by_uf: Option<Breakdown>,
    pub tiles: Vec<Tile>,
    pub by_cnae: Option<Breakdown>,
    pub by_grupo: Option<Breakdown>,
    pub by_situacao: Option<Breakdown>,
    pub by_tipo: Option<Breakdown>,
    pub by_natureza: Option<Breakdown>,
    pub trend_cnae: Option<LineChart>,
    pub trend_grupo: Option<LineChart>,
    pub crosstab: Option<CrossTab>,
    pub movers_up: Vec<Mover>,
    pub movers_down: Vec<Mover>,
    pub portfolio: Option<Portfolio>,
    pub run: RunInfo,
    pub appendix: Vec<AppendixTable>,
}

fn rows(df: &DataFrame) -> std::ops::Range<usize> {
    0..df.height()
}

fn headline(aggs: &Aggregates) -> Option<Headline> {
    let df = aggs.get("creditos_total_mensal")?;
    let last = df.height().checked_sub(1)?;
    let companies = aggs.get("carteira_resumo").and_then(|r| int(r, "encontradas", 0));
    Some(Headline {
        month: text(df, "ano_mes", last)?,
        total: s(dec(df, "valor_total", last)),
        change_month: s(dec(df, "variacao_mes", last)),
        change_month_pct: float(df, "variacao_mes_pct", last),
        change_year: s(dec(df, "variacao_ano", last)),
        change_year_pct: float(df, "variacao_ano_pct", last),
        ufs: int(df, "ufs", last),
        companies,
    })
}

fn breakdown(
    aggs: &Aggregates,
    table: &str,
    key: &str,
    label: Option<&str>,
    key_label: &str,
) -> Option<Breakdown> {
    let (q, df) = aggs.results.iter().find(|(q, _)| q.table == table)?;
    let mut out = Vec::new();
    let mut total = None;
    let max = rows(df)
        .filter(|i| text(df, key, *i).as_deref() != Some("TOTAL"))
        .filter_map(|i| dec(df, "valor_total", i))
        .map(|d| d.abs())
        .max()
        .unwrap_or_default();
    for i in rows(df) {
        let k = text(df, key, i).unwrap_or_else(|| "—".into());
        let row = BreakdownRow {
            label: label.and_then(|l| text(df, l, i)),
            value: s(dec(df, "valor_total", i)),
            share_pct: float(df, "participacao_pct", i),
            change: s(dec(df, "variacao_mes", i)),
            change_pct: float(df, "variacao_mes_pct", i),
            bar_pct: bar_percent(dec(df, "valor_total", i), max),
            bar_w: bar_percent(dec(df, "valor_total", i), max),
            bar_y: 22.0 * out.len() as f64,
            key: k.clone(),
        };
        if k == "TOTAL" { total = Some(row) } else { out.push(row) }
    }
    // Bars fill what the labels leave of the 420-unit chart; about 6.2 units per character.
    let label_w =
        (out.iter().map(|r| r.key.chars().count()).max().unwrap_or(2) as f64 * 6.2 + 8.0).clamp(30.0, 200.0);
    let bar_area = 420.0 - label_w - 4.0;
    for r in &mut out {
        r.bar_w = (r.bar_pct / 100.0 * bar_area).round();
    }
    Some(Breakdown {
        label_w,
        title: q.title.clone(),
        answers: q.answers.clone(),
        key_label: key_label.into(),
        has_label: label.is_some(),
        chart_height: 22.0 * out.len() as f64,
        rows: out,
        total,
    })
}

fn tiles(by_uf: &Option<Breakdown>) -> Vec<Tile> {
    let Some(b) = by_uf else { return vec![] };
    TILE_GRID
        .iter()
        .map(|(uf, c, r)| {
            let change = b.rows.iter().find(|row| row.key == *uf).and_then(|row| row.change_pct);
            let class = match change {
                None => "none",
                Some(p) if p >= 2.0 => "up2",
                Some(p) if p > 0.0 => "up1",
                Some(p) if p <= -2.0 => "down2",
                Some(p) if p < 0.0 => "down1",
                Some(_) => "flat",
            };
            Tile {
                uf: (*uf).into(),
                x: f64::from(*c) * 58.0,
                y: f64::from(*r) * 46.0,
                change_pct: change,
                class: class.into(),
            }
        })
        .collect()
}

/// Series of `value` by month for each `key`, keeping the `limit` largest keys of the last month.
fn series_chart(df: &DataFrame, key: &str, limit: usize, label: Option<&str>) -> Option<LineChart> {
    let mut months: Vec<String> = rows(df).filter_map(|i| text(df, "ano_mes", i)).collect();
    months.sort();
    months.dedup();
    let last = months.last()?.clone();
    let mut values: BTreeMap<String, BTreeMap<String, Decimal>> = BTreeMap::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    for i in rows(df) {
        let (Some(k), Some(m), Some(v)) =
            (text(df, key, i), text(df, "ano_mes", i), dec(df, "valor_total", i))
        else {
            continue;
        };
        if let Some(n) = label.and_then(|l| text(df, l, i)) {
            names.insert(k.clone(), format!("{k} {n}"));
        }
        values.entry(k).or_default().insert(m, v);
    }
    let mut keys: Vec<(String, Decimal)> =
        values.iter().map(|(k, m)| (k.clone(), m.get(&last).copied().unwrap_or_default())).collect();
    keys.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let series: Vec<(String, Vec<Option<Decimal>>)> = keys
        .iter()
        .take(limit)
        .map(|(k, _)| {
            let by_month = &values[k];
            (
                names.get(k).cloned().unwrap_or_else(|| k.clone()),
                months.iter().map(|m| by_month.get(m).copied()).collect(),
            )
        })
        .collect();
    Some(line_chart(&months, &series))
}

fn national_chart(aggs: &Aggregates) -> Option<LineChart> {
    let df = aggs.get("creditos_total_mensal")?;
    let months: Vec<String> = rows(df).filter_map(|i| text(df, "ano_mes", i)).collect();
    let values = rows(df).map(|i| dec(df, "valor_total", i)).collect();
    Some(line_chart(&months, &[("Brasil".into(), values)]))
}

fn crosstab(aggs: &Aggregates) -> Option<CrossTab> {
    let (q, df) = aggs.results.iter().find(|(q, _)| q.table == "cruzamento_uf_grupo")?;
    let mut cells: BTreeMap<(String, String), Decimal> = BTreeMap::new();
    for i in rows(df) {
        if let (Some(u), Some(g), Some(v)) =
            (text(df, "uf", i), text(df, "grupo_tributo", i), dec(df, "valor_total", i))
        {
            cells.insert((u, g), v);
        }
    }
    let total_of = |u: &str, g: &str| cells.get(&(u.to_string(), g.to_string())).copied();
    let mut groups: Vec<String> =
        cells.keys().filter(|(u, g)| u == "TOTAL" && g != "TOTAL").map(|(_, g)| g.clone()).collect();
    groups.sort_by(|a, b| total_of("TOTAL", b).cmp(&total_of("TOTAL", a)).then(a.cmp(b)));
    let mut ufs: Vec<String> =
        cells.keys().filter(|(u, g)| u != "TOTAL" && g == "TOTAL").map(|(u, _)| u.clone()).collect();
    ufs.sort_by(|a, b| total_of(b, "TOTAL").cmp(&total_of(a, "TOTAL")).then(a.cmp(b)));
    let max = cells
        .iter()
        .filter(|((u, g), _)| u != "TOTAL" && g != "TOTAL")
        .map(|(_, v)| v.abs())
        .max()
        .unwrap_or_default();
    let row = |u: &str| CrossRow {
        uf: u.to_string(),
        cells: groups
            .iter()
            .map(|g| {
                let v = total_of(u, g);
                CrossCell { value: s(v), heat: if u == "TOTAL" { 0 } else { heat(v, max) } }
            })
            .collect(),
        total: s(total_of(u, "TOTAL")),
    };
    Some(CrossTab {
        title: q.title.clone(),
        rows: ufs.iter().map(|u| row(u)).collect(),
        totals: row("TOTAL"),
        groups,
    })
}

fn movers(aggs: &Aggregates, table: &str) -> Vec<Mover> {
    let Some(df) = aggs.get(table) else { return vec![] };
    rows(df)
        .map(|i| Mover {
            uf: text(df, "uf", i).unwrap_or_default(),
            cnae_secao: text(df, "cnae_secao_cod", i).unwrap_or_default(),
            grupo_tributo: text(df, "grupo_tributo", i).unwrap_or_default(),
            before: s(dec(df, "valor_mes_anterior", i)),
            now: s(dec(df, "valor_total", i)),
            change: s(dec(df, "variacao", i)),
            change_pct: float(df, "variacao_pct", i),
        })
        .collect()
}

fn portfolio_rows(df: &DataFrame, key: &str) -> (Vec<PortfolioRow>, Option<PortfolioRow>) {
    let mut out = Vec::new();
    let mut total = None;
    for i in rows(df) {
        let r = PortfolioRow {
            key: text(df, key, i).unwrap_or_else(|| "—".into()),
            companies: int(df, "empresas", i),
            filed: s(dec(df, "divida_ajuizada", i)),
            not_filed: s(dec(df, "divida_nao_ajuizada", i)),
            instalments: s(dec(df, "parcelamentos_saldo", i)),
            transactions: s(dec(df, "transacoes_saldo", i)),
            total: s(dec(df, "exposicao_total", i)),
        };
        if r.key == "TOTAL" { total = Some(r) } else { out.push(r) }
    }
    (out, total)
}

fn portfolio(aggs: &Aggregates, frames: &Frames) -> Option<Portfolio> {
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
    let (by_uf, by_uf_total) =
        aggs.get("carteira_por_uf").map(|d| portfolio_rows(d, "uf")).unwrap_or_default();
    let (by_cnae, by_cnae_total) =
        aggs.get("carteira_por_cnae_secao").map(|d| portfolio_rows(d, "cnae_secao")).unwrap_or_default();
    let top = aggs
        .get("carteira_maiores")
        .map(|df| {
            rows(df)
                .map(|i| TopCompany {
                    rank: i + 1,
                    cnpj: text(df, "cnpj", i).unwrap_or_default(),
                    razao_social: text(df, "razao_social", i),
                    uf: text(df, "uf", i),
                    cnae_secao: text(df, "cnae_secao", i),
                    filed: s(dec(df, "divida_ajuizada", i)),
                    not_filed: s(dec(df, "divida_nao_ajuizada", i)),
                    instalments: s(dec(df, "parcelamentos_saldo", i)),
                    transactions: s(dec(df, "transacoes_saldo", i)),
                    total: s(dec(df, "exposicao_total", i)),
                })
                .collect()
        })
        .unwrap_or_default();
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
    Some(Portfolio { summary, by_uf, by_uf_total, by_cnae, by_cnae_total, top, not_found })
}

fn incomplete(manifest: &Manifest, aggs: &Aggregates) -> Option<Incomplete> {
    let failed_tasks = manifest.fetch.tasks_failed.len();
    let failed_companies =
        aggs.get("carteira_resumo").and_then(|r| int(r, "com_falha", 0)).unwrap_or(0).max(0);
    (failed_tasks > 0 || failed_companies > 0).then_some(Incomplete { failed_tasks, failed_companies })
}

fn run_info(manifest: &Manifest, frames: &Frames, run_id: &str, locale: Locale) -> RunInfo {
    let f = &manifest.fetch;
    const SHOWN: usize = 20;
    RunInfo {
        run_id: run_id.to_string(),
        generated_at: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
        version: manifest.version.clone(),
        source: if manifest.demo {
            "registro embutido (dados de demonstração)".into()
        } else {
            manifest.plan.base_url.clone()
        },
        first_month: manifest.plan.months.first().cloned().unwrap_or_default(),
        last_month: manifest.plan.months.last().cloned().unwrap_or_default(),
        month_count: manifest.plan.months.len(),
        ufs: if manifest.plan.ufs.len() == 27 { "todas as 27".into() } else { manifest.plan.ufs.join(", ") },
        portfolio_size: manifest.plan.portfolio_size,
        shard: format!("{}/{}", manifest.plan.shard.index, manifest.plan.shard.count),
        fontes: f
            .fontes
            .iter()
            .map(|(k, v)| {
                (k.clone(), v.status.clone().unwrap_or_default(), v.versao.clone().unwrap_or_default())
            })
            .collect(),
        requests: f.requests.requests,
        retries: f.requests.retries,
        rate_limited: f.requests.rate_limited,
        failed_tasks: f.tasks_failed.len(),
        wall_seconds: super::format::number(
            Decimal::from_f64_retain(f.wall_seconds).unwrap_or_default(),
            1,
            locale,
        ),
        by_operation: f
            .requests
            .by_operation
            .iter()
            .map(|(op, outcomes)| RequestRow {
                operation: op.clone(),
                outcomes: outcomes.iter().map(|(k, n)| format!("{k}: {n}")).collect::<Vec<_>>().join(", "),
            })
            .collect(),
        quality: frames
            .quality
            .iter()
            .map(|q| QualityRow {
                table: q.table.clone(),
                column: q.column.clone(),
                failures: q.failures,
                examples: q.examples.clone(),
            })
            .collect(),
        warnings: f.warnings.iter().take(SHOWN).cloned().collect(),
        warnings_more: f.warnings.len().saturating_sub(SHOWN),
    }
}

fn appendix(aggs: &Aggregates) -> Vec<AppendixTable> {
    const MAX_ROWS: usize = 200;
    aggs.results
        .iter()
        .filter(|(q, _)| !KNOWN.contains(&q.table.as_str()))
        .map(|(q, df)| {
            let cols: Vec<(String, CellKind)> =
                df.columns().iter().map(|c| (c.name().to_string(), kind_of(c.dtype()))).collect();
            AppendixTable {
                table: q.table.clone(),
                title: q.title.clone(),
                answers: q.answers.clone(),
                columns: cols.iter().map(|(n, _)| n.clone()).collect(),
                rows: rows(df)
                    .take(MAX_ROWS)
                    .map(|i| {
                        cols.iter().map(|(n, k)| AppendixCell { value: text(df, n, i), kind: *k }).collect()
                    })
                    .collect(),
                truncated: df.height().saturating_sub(MAX_ROWS),
            }
        })
        .collect()
}

pub fn build_view(
    frames: &Frames,
    aggs: &Aggregates,
    manifest: &Manifest,
    run_id: &str,
    locale: Locale,
) -> ReportView {
    let by_uf = breakdown(aggs, "creditos_por_uf", "uf", None, "UF");
    ReportView {
        demo: manifest.demo,
        incomplete: incomplete(manifest, aggs),
        locale,
        lang: if locale == Locale::PtBr { "pt-BR" } else { "en" },
        headline: headline(aggs),
        trend_national: national_chart(aggs),
        trend_states: aggs.get("creditos_por_uf_mes").and_then(|df| series_chart(df, "uf", 5, None)),
        tiles: tiles(&by_uf),
        by_uf,
        by_cnae: breakdown(
            aggs,
            "creditos_por_cnae_secao",
            "cnae_secao_cod",
            Some("cnae_secao_descr"),
            "Seção",
        ),
        by_grupo: breakdown(aggs, "creditos_por_grupo_tributo", "grupo_tributo", None, "Grupo de tributo"),
        by_situacao: breakdown(aggs, "creditos_por_situacao", "situacao", None, "Situação"),
        by_tipo: breakdown(aggs, "creditos_por_tipo_contribuinte", "tipo_contribuinte", None, "Tipo"),
        by_natureza: breakdown(
            aggs,
            "creditos_por_natureza_juridica",
            "natureza_juridica",
            None,
            "Natureza jurídica",
        ),
        trend_cnae: aggs
            .get("serie_cnae_secao")
            .and_then(|df| series_chart(df, "cnae_secao_cod", 5, Some("cnae_secao_descr"))),
        trend_grupo: aggs
            .get("serie_grupo_tributo")
            .and_then(|df| series_chart(df, "grupo_tributo", 5, None)),
        crosstab: crosstab(aggs),
        movers_up: movers(aggs, "maiores_altas"),
        movers_down: movers(aggs, "maiores_quedas"),
        portfolio: portfolio(aggs, frames),
        run: run_info(manifest, frames, run_id, locale),
        appendix: appendix(aggs),
    }
}
