//! The portfolio's history, with a store: its exposure at every snapshot (a chart and a table)
//! and its companies per estimated tax standing at every snapshot, from the series' queries
//! (`queries/historico/`).

use super::super::cells::{dec, int, text};
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
    })
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
