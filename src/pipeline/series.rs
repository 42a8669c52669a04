//! The series over every snapshot of a store: each snapshot's rows read back and put through
//! the monthly report's exposure query, stacked with their snapshot beside the store's estimated
//! standings and changes, then `queries/historico/*.sql` over them. `run` with a store reports them; `store
//! series` prints or writes them. Also each dossier company's exposure at every snapshot.

use std::collections::BTreeSet;

use anyhow::Result;
use polars::prelude::*;

use crate::analyze::{Aggregates, Query, run_queries, run_queries_with};
use crate::api::Cnpj;
use crate::store::StoreReader;
use crate::tables::Table;
use crate::transform::Frames;
use crate::transform::nacional::DIVIDA_ATIVA_NACIONAL;

/// The stacked tables the series' queries read.
pub(crate) const EXPOSURE_BY_SNAPSHOT: &str = "carteira_exposicao_por_retrato";
pub(crate) const STANDING_BY_SNAPSHOT: &str = "situacao_fiscal_estimada_por_retrato";
pub(crate) const CHANGES_BY_SNAPSHOT: &str = "mudancas_por_retrato";
pub(crate) const NATIONAL_BY_SNAPSHOT: &str = "divida_ativa_nacional_por_retrato";
/// The store's table of each snapshot's estimated standings (query 20, committed with it).
const STANDING_TABLE: &str = "situacao_fiscal_estimada";
/// The store's table of each snapshot's changes (query 28, committed with it).
const CHANGES_TABLE: &str = "mudancas";
/// The timeline over every snapshot (`queries/historico/06_linha_do_tempo.sql`): `store
/// timeline` prints it, the dossiers show each company's.
pub(crate) const TIMELINE: &str = "linha_do_tempo";

/// The series of every snapshot in `snapshots`; None when the queries lack the exposure query
/// (an analyst's folder without it has no exposure to follow).
pub(crate) async fn portfolio_history(
    reader: &StoreReader,
    snapshots: &BTreeSet<String>,
    queries: &[Query],
    history_queries: &[Query],
) -> Result<Option<Aggregates>> {
    let exposure_query = only(queries, &[EXPOSURE_QUERY]);
    if exposure_query.is_empty() || snapshots.is_empty() {
        return Ok(None);
    }
    let mut frames = Frames::default();
    frames
        .tables
        .insert(EXPOSURE_BY_SNAPSHOT, exposure_by_snapshot(reader, snapshots, &exposure_query).await?);
    frames.tables.insert(STANDING_BY_SNAPSHOT, standing_by_snapshot(reader, snapshots).await?);
    frames.tables.insert(CHANGES_BY_SNAPSHOT, changes_by_snapshot(reader, snapshots).await?);
    frames.tables.insert(NATIONAL_BY_SNAPSHOT, national_by_snapshot(reader, snapshots).await?);
    Ok(Some(run_queries(&frames, history_queries)?))
}

/// The exposure query's rows of each snapshot, oldest first, `snapshot` as the first column.
async fn exposure_by_snapshot(
    reader: &StoreReader,
    snapshots: &BTreeSet<String>,
    exposure_query: &[Query],
) -> Result<DataFrame> {
    let mut stacked: Option<DataFrame> = None;
    for snapshot in snapshots {
        let frames = snapshot_frames(reader, snapshot, None).await?;
        let aggs = run_queries_with(&frames, None, exposure_query)?;
        let Some(df) = aggs.get(EXPOSURE_QUERY) else { continue };
        let df = with_snapshot(df, snapshot)?;
        stacked = Some(match stacked {
            None => df,
            Some(mut all) => {
                all.vstack_mut_owned(df)?;
                all
            }
        });
    }
    stacked.ok_or_else(|| anyhow::anyhow!("the store has no snapshot to read"))
}

/// `df` with a first column `snapshot` holding `snapshot` on every row.
fn with_snapshot(df: &DataFrame, snapshot: &str) -> Result<DataFrame> {
    let mut columns = vec![Column::new("snapshot".into(), vec![snapshot; df.height()])];
    columns.extend(df.columns().iter().cloned());
    Ok(DataFrame::new(df.height(), columns)?)
}

/// The store's estimated standings of every snapshot (its `snapshot` column kept).
async fn standing_by_snapshot(reader: &StoreReader, snapshots: &BTreeSet<String>) -> Result<DataFrame> {
    match reader.read(STANDING_TABLE, snapshots).await? {
        Some(df) => Ok(df),
        None => Ok(DataFrame::new(
            0,
            vec![
                Column::new_empty("snapshot".into(), &DataType::String),
                Column::new_empty("cnpj".into(), &DataType::String),
                Column::new_empty("situacao_fiscal_estimada".into(), &DataType::String),
            ],
        )?),
    }
}

/// The store's national debt cells (`divida_ativa_nacional`) of every snapshot that holds some
/// (one per release of PGFN's files loaded), each with its `snapshot` and `snapshot_anterior`:
/// the previous snapshot holding some, null for the first. A snapshot of a run over the service
/// holds none and is skipped, so the quarters follow one another.
async fn national_by_snapshot(reader: &StoreReader, snapshots: &BTreeSet<String>) -> Result<DataFrame> {
    let mut df = match reader.read(DIVIDA_ATIVA_NACIONAL, snapshots).await? {
        Some(df) => df,
        None => {
            let mut df = crate::transform::nacional::national_frame(&Default::default())?;
            df.with_column(Column::new_empty("snapshot".into(), &DataType::String))?;
            df
        }
    };
    let held: Vec<Option<String>> =
        df.column("snapshot")?.str()?.iter().map(|s| s.map(str::to_string)).collect();
    let ordered: BTreeSet<&str> = held.iter().flatten().map(String::as_str).collect();
    let before: std::collections::HashMap<&str, &str> =
        ordered.iter().zip(ordered.iter().skip(1)).map(|(p, s)| (*s, *p)).collect();
    let previous: Vec<Option<&str>> =
        held.iter().map(|s| s.as_deref().and_then(|s| before.get(s).copied())).collect();
    let previous = Column::new("snapshot_anterior".into(), previous);
    df.with_column(previous)?;
    Ok(df)
}

/// The store's changes of every snapshot, in the columns of today's `mudancas`: a store
/// written before `data_evento` was (or with no change yet) reads as having none.
pub(super) async fn changes_by_snapshot(
    reader: &StoreReader,
    snapshots: &BTreeSet<String>,
) -> Result<DataFrame> {
    let text = ["snapshot", "snapshot_anterior", "cnpj", "razao_social", "mudanca", "tabela", "chave"];
    let mut df = match reader.read(CHANGES_TABLE, snapshots).await? {
        Some(df) => df,
        None => DataFrame::empty(),
    };
    let height = df.height();
    for name in text.into_iter().chain(["valor_anterior", "valor_novo"]) {
        if df.column(name).is_err() {
            df.with_column(Column::full_null(name.into(), height, &DataType::String))?;
        }
    }
    if df.column("variacao").is_err() {
        df.with_column(Column::full_null("variacao".into(), height, &DataType::Decimal(18, 2)))?;
    }
    if df.column("data_evento").is_err() {
        df.with_column(Column::full_null("data_evento".into(), height, &DataType::Date))?;
    }
    Ok(df)
}

/// Each dossier company's exposure at every snapshot of the store, oldest first: the store's
/// rows of each snapshot for these companies only, through the same exposure query as the
/// monthly report (`14_carteira_exposicao`), so the history and the report agree.
pub(super) async fn exposure_history(
    reader: &crate::store::StoreReader,
    snapshots: &std::collections::BTreeSet<String>,
    cnpjs: &[Cnpj],
    queries: &[Query],
) -> Result<crate::report::dossier_page::ExposureHistory> {
    let queries = only(queries, &[EXPOSURE_QUERY]);
    let wanted: std::collections::BTreeSet<&str> = cnpjs.iter().map(Cnpj::as_str).collect();
    let mut history = crate::report::dossier_page::ExposureHistory::new();
    for snapshot in snapshots {
        let frames = snapshot_frames(reader, snapshot, Some(&wanted)).await?;
        let aggs = run_queries_with(&frames, None, &queries)?;
        let Some(df) = aggs.get(EXPOSURE_QUERY) else { continue };
        for i in 0..df.height() {
            let (Some(cnpj), Some(total)) = (
                crate::analyze::cells::text(df, "cnpj", i),
                crate::analyze::cells::dec(df, "exposicao_total", i),
            ) else {
                continue;
            };
            history.entry(cnpj).or_default().push((snapshot.clone(), total));
        }
    }
    Ok(history)
}

/// The dossier companies' exposure at every snapshot, taken from the series a run already
/// computed (`serie_exposicao_empresa`) instead of reading the store again; None when the
/// series' queries lack that table.
pub(super) fn exposure_history_from(
    series: &Aggregates,
    cnpjs: &[Cnpj],
) -> Option<crate::report::dossier_page::ExposureHistory> {
    use crate::analyze::cells::{dec, text};
    let df = series.get(COMPANY_SERIES)?;
    let wanted: BTreeSet<&str> = cnpjs.iter().map(Cnpj::as_str).collect();
    let mut history = crate::report::dossier_page::ExposureHistory::new();
    for i in 0..df.height() {
        let (Some(cnpj), Some(snapshot), Some(total)) =
            (text(df, "cnpj", i), text(df, "snapshot", i), dec(df, "exposicao_total", i))
        else {
            continue;
        };
        if wanted.contains(cnpj.as_str()) {
            history.entry(cnpj).or_default().push((snapshot, total));
        }
    }
    // Oldest first, as the dossier draws it (the query orders by company and snapshot).
    for points in history.values_mut() {
        points.sort_by(|a, b| a.0.cmp(&b.0));
    }
    Some(history)
}

/// The series `store series --cnpj` prints, and the dossiers' history is read from.
pub(crate) const COMPANY_SERIES: &str = "serie_exposicao_empresa";

/// One snapshot's company tables as the exposure query reads them (the profile and the three
/// money lists, not the partners); with `only`, those companies' rows alone.
pub(super) async fn snapshot_frames(
    reader: &StoreReader,
    snapshot: &str,
    only: Option<&BTreeSet<&str>>,
) -> Result<Frames> {
    let one = BTreeSet::from([snapshot.to_string()]);
    let mut tables = std::collections::BTreeMap::new();
    let tables_needed = crate::store::snapshot::COMPANY_TABLES.into_iter().filter(|t| *t != Table::Socios);
    for table in tables_needed {
        let df = match reader.read(table.name(), &one).await? {
            Some(df) => {
                let df = match only {
                    Some(wanted) => {
                        let keep: BooleanChunked = df
                            .column("cnpj")?
                            .str()?
                            .iter()
                            .map(|c| c.is_some_and(|c| wanted.contains(c)))
                            .collect();
                        df.filter(&keep)?
                    }
                    None => df,
                };
                df.drop("snapshot")?
            }
            // A snapshot without rows of a table (no plan in the whole portfolio, say) is that
            // table empty, not a snapshot to skip.
            None => empty_table(table)?,
        };
        tables.insert(table.name(), df);
    }
    Ok(Frames { tables, ..Default::default() })
}

/// `table` with its typed columns and no rows.
fn empty_table(table: Table) -> Result<DataFrame> {
    let staged = crate::transform::typing::staged_frame(table, &[])?;
    Ok(crate::transform::typing::type_table(table, &staged)?.0)
}

/// The rows of `df` (a table with a `cnpj` column) of the company `cnpj`.
pub(crate) fn only_company(df: &DataFrame, cnpj: &str) -> PolarsResult<DataFrame> {
    let keep: BooleanChunked = df.column("cnpj")?.str()?.iter().map(|c| c == Some(cnpj)).collect();
    df.filter(&keep)
}

/// The queries of `all` named `tables` (the analyst's edited copies when --queries gave them).
pub(super) fn only(all: &[Query], tables: &[&str]) -> Vec<Query> {
    all.iter().filter(|q| tables.contains(&q.table.as_str())).cloned().collect()
}

/// The query whose `exposicao_total` the history follows.
pub(super) const EXPOSURE_QUERY: &str = "carteira_exposicao";
