//! The credit-stock sections: the headline, the breakdowns, the tile map, the trend charts, the
//! cross-tab and the largest movers.

use std::collections::BTreeMap;

use polars::prelude::DataFrame;
use rust_decimal::Decimal;

use super::super::cells::{dec, float, int, text};
use super::super::charts::{LineChart, TILE_GRID, bar_percent, heat, line_chart};
use super::model::*;
use super::{description_of, rows, s, title_of};
use crate::analyze::Aggregates;
use crate::report::format::Locale;

pub(super) fn headline(aggs: &Aggregates) -> Option<Headline> {
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

pub(super) fn breakdown(
    aggs: &Aggregates,
    table: &str,
    key: &str,
    label: Option<&str>,
    key_label: String,
    locale: Locale,
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
        title: title_of(q, locale),
        description: description_of(q, locale),
        key_label,
        has_label: label.is_some(),
        has_change: df.column("variacao_mes").is_ok(),
        chart_height: 22.0 * out.len() as f64,
        rows: out,
        total,
    })
}

pub(super) fn tiles(by_uf: &Option<Breakdown>) -> Vec<Tile> {
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
pub(super) fn series_chart(
    df: &DataFrame,
    key: &str,
    limit: usize,
    label: Option<&str>,
) -> Option<LineChart> {
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

/// "Dívida ativa da União no país" (`divida_nacional_por_uf`): on a run over the files, PGFN's
/// whole release by state, its total and what companies and people owe, then by tax group, CNAE
/// section and legal nature; `None` without it.
pub(super) fn national_debt(
    aggs: &Aggregates,
    quarter: Option<String>,
    t: &crate::report::strings::Strings,
    locale: Locale,
) -> Option<NationalDebt> {
    const TABLE: &str = "divida_nacional_por_uf";
    let df = aggs.get(TABLE)?;
    let at = rows(df).find(|i| text(df, "uf", *i).as_deref() == Some("TOTAL"))?;
    Some(NationalDebt {
        quarter: quarter.unwrap_or_default(),
        inscricoes: int(df, "inscricoes", at).unwrap_or(0),
        total: s(dec(df, "valor_total", at)),
        empresas: s(dec(df, "valor_pj", at)),
        pessoas: s(dec(df, "valor_pf", at)),
        by_uf: breakdown(aggs, TABLE, "uf", None, t.get("rotulo_uf"), locale)?,
        by_grupo: breakdown(
            aggs,
            "divida_nacional_por_grupo_tributo",
            "grupo_tributo",
            None,
            t.get("rotulo_grupo_tributo"),
            locale,
        ),
        by_secao: breakdown(
            aggs,
            "divida_nacional_por_cnae_secao",
            "cnae_secao",
            Some("cnae_secao_descricao"),
            t.get("rotulo_secao"),
            locale,
        ),
        by_natureza: breakdown(
            aggs,
            "divida_nacional_por_natureza_juridica",
            "natureza_grupo",
            Some("natureza_grupo_descricao"),
            t.get("rotulo_natureza_juridica"),
            locale,
        ),
        crosstab: crosstab(aggs, "divida_nacional_uf_grupo", locale),
    })
}

/// The national total month by month; `None` without a month holding a value.
pub(super) fn national_chart(aggs: &Aggregates, series_name: String) -> Option<LineChart> {
    let df = aggs.get("creditos_total_mensal")?;
    if !rows(df).any(|i| dec(df, "valor_total", i).is_some()) {
        return None;
    }
    let months: Vec<String> = rows(df).filter_map(|i| text(df, "ano_mes", i)).collect();
    let values = rows(df).map(|i| dec(df, "valor_total", i)).collect();
    Some(line_chart(&months, &[(series_name, values)]))
}

/// The state x tax group table of `table` (rows `uf`, `grupo_tributo`, `valor_total`, with the
/// TOTAL rows of both margins): the service's `cruzamento_uf_grupo` or the release's
/// `divida_nacional_uf_grupo`.
pub(super) fn crosstab(aggs: &Aggregates, table: &str, locale: Locale) -> Option<CrossTab> {
    let (q, df) = aggs.results.iter().find(|(q, _)| q.table == table).filter(|(_, df)| df.height() > 0)?;
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
        title: title_of(q, locale),
        description: description_of(q, locale),
        rows: ufs.iter().map(|u| row(u)).collect(),
        totals: row("TOTAL"),
        groups,
    })
}

pub(super) fn movers(aggs: &Aggregates, table: &str) -> Vec<Mover> {
    let Some(df) = aggs.get(table) else { return vec![] };
    rows(df)
        .map(|i| Mover {
            uf: text(df, "uf", i).unwrap_or_default(),
            cnae_secao: text(df, "cnae_secao_cod", i).unwrap_or_default(),
            cnae_secao_descr: text(df, "cnae_secao_cod", i)
                .and_then(|l| crate::transform::parse::cnae_section_name(&l))
                .map(String::from),
            grupo_tributo: text(df, "grupo_tributo", i).unwrap_or_default(),
            before: s(dec(df, "valor_mes_anterior", i)),
            now: s(dec(df, "valor_total", i)),
            change: s(dec(df, "variacao", i)),
            change_pct: float(df, "variacao_pct", i),
        })
        .collect()
}
