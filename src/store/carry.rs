//! A release of the publishers' files that does not renew a dataset the store holds (a PGFN
//! system or an RFB table missing, or missing parts, read with `--partial`) is never read as
//! "every record of it ended": the previous snapshot's records of that dataset are carried into
//! the new one, so the changes between the two show none for it. Carried inscriptions keep
//! the quarter they were published in (`dataset_trimester`), which marks them as not renewed;
//! the manifest names every dataset carried.
//!
//! - A PGFN system (`pgfn_fgts`, ...): its inscriptions, for the snapshot's companies.
//! - `rfb_socios`: the partners of the companies this release gave none (their part is missing).
//! - `rfb_empresas`, `rfb_estabelecimentos`, `rfb_simples`: the `empresas` columns the table
//!   gives (by the schema's source names), for the companies it left every one of them empty;
//!   and the whole `empresas` row of a company of the portfolio the release does not know.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use polars::prelude::*;

use super::StoreError;
use crate::tables::Table;
use crate::transform::Frames;

/// The previous snapshot's company tables, by name.
type Previous = BTreeMap<&'static str, DataFrame>;

pub(super) fn frame_err(table: &str) -> impl Fn(PolarsError) -> StoreError + '_ {
    move |e| StoreError::Delta { table: table.to_string(), message: e.to_string() }
}

/// Rows of `df` whose `cnpj` is in `keep`.
pub(super) fn only_companies(
    df: DataFrame,
    keep: &BTreeSet<String>,
    table: &str,
) -> Result<DataFrame, StoreError> {
    let cnpj = df.column("cnpj").and_then(|c| c.str().cloned()).map_err(frame_err(table))?;
    let mask: BooleanChunked = cnpj.iter().map(|c| c.is_some_and(|c| keep.contains(c))).collect();
    df.filter(&mask).map_err(frame_err(table))
}

/// The records of `previous` of each dataset in `not_renewed`: the `empresas` columns filled in
/// `fresh`, and the list tables' rows returned, to be added to `fresh` as carried rows are.
pub(super) fn not_renewed(
    fresh: &mut Frames,
    previous: &Previous,
    not_renewed: &BTreeSet<String>,
    asked: &BTreeSet<String>,
) -> Result<Vec<(Table, DataFrame)>, StoreError> {
    let mut companies = cnpjs(fresh.tables.get(Table::Empresas.name()));
    let mut rows = Vec::new();
    // A company of the portfolio the release does not know (its parts missing) keeps its
    // register, rather than leave the portfolio.
    if not_renewed.iter().any(|d| d.starts_with("rfb_")) {
        let unknown: BTreeSet<String> = asked.difference(&companies).cloned().collect();
        let kept = only(previous.get(Table::Empresas.name()).cloned(), &unknown, Table::Empresas)?;
        companies.extend(cnpjs(Some(&kept)));
        rows.push((Table::Empresas, kept));
    }
    for dataset in not_renewed {
        if let Some(system) = dataset.strip_prefix("pgfn_") {
            let of_system = previous_rows(previous, Table::DividasPgfn, |df| {
                let categoria = df.column("categoria")?.str()?.clone();
                Ok(categoria.iter().map(|c| c == Some(system)).collect())
            })?;
            rows.push((Table::DividasPgfn, only(of_system, &companies, Table::DividasPgfn)?));
        } else if dataset == "rfb_socios" {
            let given = cnpjs(fresh.tables.get(Table::Socios.name()));
            let without: BTreeSet<String> = companies.difference(&given).cloned().collect();
            let all = previous.get(Table::Socios.name()).cloned();
            rows.push((Table::Socios, only(all, &without, Table::Socios)?));
        } else if let Some(prefix) = empresas_prefix(dataset) {
            fill_empresas(fresh, previous, prefix)?;
        }
    }
    Ok(rows)
}

/// The source-name prefix of the `empresas` columns an RFB table gives.
fn empresas_prefix(dataset: &str) -> Option<&'static str> {
    match dataset {
        "rfb_empresas" => Some("empresa_"),
        "rfb_estabelecimentos" => Some("estabelecimento_"),
        "rfb_simples" => Some("simples_"),
        _ => None,
    }
}

/// The `cnpj` values of a table (none when it is absent).
fn cnpjs(df: Option<&DataFrame>) -> BTreeSet<String> {
    let Some(cnpj) = df.and_then(|df| df.column("cnpj").ok()).and_then(|c| c.str().ok()) else {
        return BTreeSet::new();
    };
    cnpj.iter().flatten().map(str::to_string).collect()
}

/// The rows of `table` in `previous` that `keep` selects (an empty frame when it has none).
fn previous_rows(
    previous: &Previous,
    table: Table,
    keep: impl Fn(&DataFrame) -> PolarsResult<BooleanChunked>,
) -> Result<Option<DataFrame>, StoreError> {
    let Some(df) = previous.get(table.name()) else { return Ok(None) };
    let mask = keep(df).map_err(frame_err(table.name()))?;
    df.filter(&mask).map(Some).map_err(frame_err(table.name()))
}

/// `only_companies` of `df`, empty when the previous snapshot has no such table.
fn only(df: Option<DataFrame>, keep: &BTreeSet<String>, table: Table) -> Result<DataFrame, StoreError> {
    df.map(|df| only_companies(df, keep, table.name())).transpose().map(Option::unwrap_or_default)
}

/// Fills the `empresas` columns whose source starts with `prefix` from `previous`, for the
/// companies this release gave none of them (every one empty: their part is missing).
fn fill_empresas(fresh: &mut Frames, previous: &Previous, prefix: &str) -> Result<(), StoreError> {
    let (table, name) = (Table::Empresas, Table::Empresas.name());
    let columns: Vec<&str> = crate::transform::schema::columns(Table::Empresas)
        .iter()
        .filter(|c| c.source.starts_with(prefix))
        .map(|c| c.name)
        .collect();
    let (Some(df), Some(before)) = (fresh.tables.get_mut(name), previous.get(name)) else {
        return Ok(());
    };
    let at: HashMap<String, IdxSize> = before
        .column("cnpj")
        .and_then(|c| c.str().cloned())
        .map_err(frame_err(table.name()))?
        .iter()
        .enumerate()
        .filter_map(|(i, c)| Some((c?.to_string(), i as IdxSize)))
        .collect();
    let cnpj = df.column("cnpj").and_then(|c| c.str().cloned()).map_err(frame_err(table.name()))?;
    let mut empty = BooleanChunked::full("".into(), true, df.height());
    for column in columns.iter().filter_map(|c| df.column(c).ok()) {
        empty = &empty & &column.is_null();
    }
    // For each row, the previous snapshot's row of its company when this release left it empty.
    let from: IdxCa = cnpj
        .iter()
        .zip(empty.iter())
        .map(|(c, empty)| c.filter(|_| empty == Some(true)).and_then(|c| at.get(c).copied()))
        .collect();
    let keep_fresh: BooleanChunked = from.iter().map(|i| i.is_none()).collect();
    // With each its text as published when it did not parse (`<column>_raw`).
    let raw: Vec<String> = columns.iter().map(|c| format!("{c}_raw")).collect();
    for column in columns.iter().copied().chain(raw.iter().map(String::as_str)) {
        let (Ok(now), Ok(then)) = (df.column(column), before.column(column)) else { continue };
        let then = then.take(&from).map_err(frame_err(table.name()))?;
        let merged = now.zip_with(&keep_fresh, &then).map_err(frame_err(table.name()))?;
        df.with_column(merged).map_err(frame_err(table.name()))?;
    }
    Ok(())
}
