//! The report's view model: every figure the templates show, built from the aggregate frames.
//! Money travels as exact decimal text and is formatted by the templates' helpers; a section
//! whose query is missing is simply absent.

pub(crate) mod changes;
mod credits;
mod history;
mod model;
mod portfolio;
mod run;
pub(crate) mod sancoes;
mod sources;

use polars::prelude::DataFrame;
use rust_decimal::Decimal;

use super::cells::{CellKind, kind_of, text};
use crate::analyze::{Aggregates, Placement, Query};
use crate::codes::CodeTables;
use crate::export::manifest::Manifest;
use crate::report::format::Locale;
use crate::report::strings::Strings;
use crate::transform::Frames;
use credits::{breakdown, crosstab, headline, movers, national_chart, series_chart, tiles};
pub use history::history;
pub use model::*;
use portfolio::portfolio;
use run::{incomplete, partial_release, run_info, shard_part};
pub use sancoes::{Sancoes, SancoesGroup, SancoesRow};
pub use sources::{SourceRow, Sources, sources};

fn s(d: Option<Decimal>) -> Option<String> {
    d.map(|d| d.to_string())
}

fn rows(df: &DataFrame) -> std::ops::Range<usize> {
    0..df.height()
}

fn appendix(aggs: &Aggregates, locale: Locale) -> Vec<AppendixTable> {
    const MAX_ROWS: usize = 200;
    aggs.results
        .iter()
        .filter(|(q, _)| !matches!(q.placement, Placement::Section | Placement::Hidden))
        .map(|(q, df)| {
            let cols: Vec<(String, CellKind)> =
                df.columns().iter().map(|c| (c.name().to_string(), kind_of(c.dtype()))).collect();
            AppendixTable {
                table: q.table.clone(),
                title: title_of(q, locale),
                description: description_of(q, locale),
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

/// A query's title in the report's language.
pub(crate) fn title_of(q: &Query, locale: Locale) -> String {
    match locale {
        Locale::PtBr => q.title.clone(),
        Locale::En => q.title_en.clone(),
    }
}

/// What a query's table shows, for an analyst, in the report's language.
pub(crate) fn description_of(q: &Query, locale: Locale) -> String {
    match locale {
        Locale::PtBr => q.descricao.clone(),
        Locale::En => q.description.clone(),
    }
}

/// The view with the built-in words of `locale`.
pub fn build_view(
    frames: &Frames,
    aggs: &Aggregates,
    manifest: &Manifest,
    run_id: &str,
    locale: Locale,
) -> ReportView {
    let codes = CodeTables::load(None).unwrap_or_default();
    build_view_with(frames, aggs, &codes, manifest, run_id, locale, &Strings::builtin(locale))
}

/// Gives each row of `breakdown` the name of its code, if it has one. The names' column shows
/// always (a code table: an unknown code keeps no name and shows as itself), or only when a
/// row has a name (the states, named only for `NA` and `EX`).
fn with_names(
    breakdown: Option<Breakdown>,
    name: impl Fn(&str) -> Option<String>,
    always_show: bool,
) -> Option<Breakdown> {
    breakdown.map(|mut b| {
        for r in &mut b.rows {
            r.label = name(&r.key);
        }
        b.has_label = always_show || b.rows.iter().any(|r| r.label.is_some());
        b
    })
}

pub fn build_view_with(
    frames: &Frames,
    aggs: &Aggregates,
    codes: &CodeTables,
    manifest: &Manifest,
    run_id: &str,
    locale: Locale,
    t: &Strings,
) -> ReportView {
    let by_uf = with_names(
        breakdown(aggs, "creditos_por_uf", "uf", None, t.get("rotulo_uf"), locale),
        |code| crate::transform::parse::uf_outside_states_label(code).map(String::from),
        false,
    );
    // Drawn only when a month holds a value: what tells whether the run has credit figures.
    let trend_national = national_chart(aggs, t.get("serie_brasil"));
    ReportView {
        t: t.clone(),
        demo: manifest.demo,
        demo_comparacao: manifest.demo_comparacao.as_deref().map(|m| crate::report::format::month(m, locale)),
        incomplete: incomplete(manifest, aggs),
        partial_release: partial_release(manifest),
        shard_part: shard_part(manifest),
        locale,
        lang: if locale == Locale::PtBr { "pt-BR" } else { "en" },
        headline: headline(aggs),
        alert_highlights: None,
        sanctions: sancoes::sanctions(aggs, frames, locale, t),
        credits_read: trend_national.is_some(),
        national_debt: credits::national_debt(
            aggs,
            manifest.open_data.as_ref().and_then(|n| n.period.quarter.clone()),
            t,
            locale,
        ),
        trend_national,
        trend_states: aggs.get("creditos_por_uf_mes").and_then(|df| series_chart(df, "uf", 5, None)),
        tiles: tiles(&by_uf),
        by_uf,
        by_cnae: breakdown(
            aggs,
            "creditos_por_cnae_secao",
            "cnae_secao_cod",
            Some("cnae_secao_descr"),
            t.get("rotulo_secao"),
            locale,
        ),
        by_grupo: breakdown(
            aggs,
            "creditos_por_grupo_tributo",
            "grupo_tributo",
            None,
            t.get("rotulo_grupo_tributo"),
            locale,
        ),
        by_situacao: breakdown(
            aggs,
            "creditos_por_situacao",
            "situacao",
            None,
            t.get("rotulo_situacao"),
            locale,
        ),
        by_tipo: breakdown(
            aggs,
            "creditos_por_tipo_contribuinte",
            "tipo_contribuinte",
            None,
            t.get("rotulo_tipo_contribuinte"),
            locale,
        ),
        by_natureza: with_names(
            breakdown(
                aggs,
                "creditos_por_natureza_juridica",
                "natureza_juridica",
                None,
                t.get("rotulo_natureza_juridica"),
                locale,
            ),
            |code| codes.name("natureza_juridica", code).map(String::from),
            true,
        ),
        trend_cnae: aggs
            .get("serie_cnae_secao")
            .and_then(|df| series_chart(df, "cnae_secao_cod", 5, Some("cnae_secao_descr"))),
        trend_grupo: aggs
            .get("serie_grupo_tributo")
            .and_then(|df| series_chart(df, "grupo_tributo", 5, None)),
        crosstab: crosstab(aggs, "cruzamento_uf_grupo", locale),
        movers_up: movers(aggs, "maiores_altas"),
        movers_down: movers(aggs, "maiores_quedas"),
        portfolio: portfolio(aggs, frames, locale),
        changes: changes::changes(aggs, codes),
        sources: sources(&manifest.periodos(), t).with_unread(manifest, t),
        run: run_info(manifest, frames, run_id, locale, t),
        appendix: appendix(aggs, locale),
        script: None,
        history: None,
    }
}
