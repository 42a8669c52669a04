//! The portfolio's history, with a store: its exposure at every snapshot (a chart and a table)
//! and its companies per estimated tax standing at every snapshot, from the series' queries
//! (`queries/historico/`).

use super::super::cells::{dec, float, int, text};
use super::super::charts::line_chart;
use super::model::*;
use super::{description_of, rows, s, title_of};
use crate::analyze::Aggregates;
use crate::report::format::Locale;
use crate::report::strings::Strings;

/// None when the series' queries lack the exposure series (an analyst's folder without it).
pub fn history(series: &Aggregates, locale: Locale, t: &Strings) -> Option<History> {
    let (q, df) = series.results.iter().find(|(q, _)| q.table == "serie_exposicao_carteira")?;
    let snapshots: Vec<String> = rows(df).filter_map(|i| text(df, "snapshot", i)).collect();
    let column = |name: &str| rows(df).map(|i| dec(df, name, i)).collect::<Vec<_>>();
    let lines = [
        (t.get("historico_serie_total"), column("exposicao_total")),
        (t.get("divida_nao_previdenciaria"), column("nao_previdenciario")),
        (t.get("divida_previdenciaria"), column("previdenciario")),
        (t.get("fgts"), column("fgts")),
        (t.get("coluna_divida_ajuizada"), column("divida_ajuizada")),
    ];
    let points = rows(df)
        .map(|i| ExposurePoint {
            snapshot: text(df, "snapshot", i).unwrap_or_default(),
            companies: int(df, "empresas_encontradas", i),
            owing: int(df, "com_divida", i),
            nao_previdenciario: s(dec(df, "nao_previdenciario", i)),
            previdenciario: s(dec(df, "previdenciario", i)),
            fgts: s(dec(df, "fgts", i)),
            exposure: super::portfolio::exposure(df, i),
        })
        .collect();
    Some(History {
        title: title_of(q, locale),
        description: description_of(q, locale),
        chart: (snapshots.len() > 1).then(|| line_chart(&snapshots, &lines)),
        points,
        standing: standing_series(series, locale),
        national: national_history(series, locale, t),
    })
}

/// How many rises and how many falls each dimension shows.
const NATIONAL_MOVERS_EACH_WAY: usize = 5;

/// PGFN's release at each snapshot that read it; `None` when no snapshot did.
fn national_history(series: &Aggregates, locale: Locale, t: &Strings) -> Option<NationalHistory> {
    let (q, df) = series.results.iter().find(|(q, _)| q.table == "divida_nacional_por_trimestre")?;
    if df.height() == 0 {
        return None;
    }
    let snapshots: Vec<String> = rows(df).filter_map(|i| text(df, "snapshot", i)).collect();
    let total = rows(df).map(|i| dec(df, "valor_total", i)).collect::<Vec<_>>();
    let points = rows(df)
        .map(|i| NationalPoint {
            snapshot: text(df, "snapshot", i).unwrap_or_default(),
            inscricoes: int(df, "inscricoes", i),
            total: s(dec(df, "valor_total", i)),
            empresas: s(dec(df, "valor_pj", i)),
            pessoas: s(dec(df, "valor_pf", i)),
            change: s(dec(df, "variacao", i)),
            change_pct: float(df, "variacao_pct", i),
        })
        .collect();
    let moves = series.results.iter().find(|(q, _)| q.table == "divida_nacional_maiores_variacoes");
    let movers = moves
        .map(|(_, m)| {
            [("uf", t.get("rotulo_uf")), ("cnae_secao", t.get("rotulo_secao"))]
                .into_iter()
                .map(|(dimension, key_label)| NationalMovers {
                    key_label,
                    rows: national_moves(m, dimension),
                })
                .filter(|g| !g.rows.is_empty())
                .collect()
        })
        .unwrap_or_default();
    Some(NationalHistory {
        title: title_of(q, locale),
        description: description_of(q, locale),
        chart: (snapshots.len() > 1).then(|| line_chart(&snapshots, &[(t.get("serie_brasil"), total)])),
        points,
        movers_title: moves.map(|(q, _)| title_of(q, locale)).unwrap_or_default(),
        movers_description: moves.map(|(q, _)| description_of(q, locale)).unwrap_or_default(),
        movers,
    })
}

/// The largest rises, then the largest falls, of one dimension (the query orders them by change).
fn national_moves(df: &polars::prelude::DataFrame, dimension: &str) -> Vec<NationalMove> {
    let of = |i: usize| NationalMove {
        key: text(df, "chave", i).unwrap_or_default(),
        before: s(dec(df, "valor_anterior", i)),
        after: s(dec(df, "valor_atual", i)),
        change: s(dec(df, "variacao", i)),
        change_pct: float(df, "variacao_pct", i),
    };
    let ours: Vec<usize> =
        rows(df).filter(|i| text(df, "dimensao", *i).as_deref() == Some(dimension)).collect();
    let change = |i: &usize| dec(df, "variacao", *i).unwrap_or_default();
    let rises = ours.iter().filter(|i| change(i).is_sign_positive() && !change(i).is_zero());
    let falls = ours.iter().rev().filter(|i| change(i).is_sign_negative() && !change(i).is_zero());
    let mut falls: Vec<&usize> = falls.take(NATIONAL_MOVERS_EACH_WAY).collect();
    falls.reverse();
    rises.take(NATIONAL_MOVERS_EACH_WAY).chain(falls).map(|i| of(*i)).collect()
}

fn standing_series(series: &Aggregates, locale: Locale) -> Option<StandingSeries> {
    let (q, df) = series.results.iter().find(|(q, _)| q.table == "serie_situacao_fiscal")?;
    Some(StandingSeries {
        title: title_of(q, locale),
        description: description_of(q, locale),
        rows: rows(df)
            .map(|i| StandingPoint {
                snapshot: text(df, "snapshot", i).unwrap_or_default(),
                none: int(df, "sem_inscricoes", i),
                suspended: int(df, "positiva_com_efeitos_de_negativa", i),
                irregular: int(df, "irregular", i),
                companies: int(df, "empresas", i),
            })
            .collect(),
    })
}
