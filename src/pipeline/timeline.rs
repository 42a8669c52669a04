//! `store timeline`: one company's changes over every snapshot of a store, oldest first, as
//! `queries/historico/06_linha_do_tempo.sql` lists them from the store's `mudancas`.

use std::path::Path;

use anyhow::Result;
use polars::prelude::*;

use super::series::{CHANGES_BY_SNAPSHOT, TIMELINE, changes_by_snapshot, only, only_company};
use crate::api::Cnpj;
use crate::exit::{Classified, ExitStatus};
use crate::store::StoreReader;
use crate::transform::Frames;

/// The timeline of `cnpj` in the store at `dir`, with the history queries of `queries` (the
/// folder decided by the settings; `None`: the built-in ones). Exit 5 for a company in no
/// snapshot; a company in some with no change has an empty timeline.
pub(crate) async fn company_timeline(dir: &Path, cnpj: &Cnpj, queries: Option<&Path>) -> Result<DataFrame> {
    let query = only(&crate::analyze::load_history_queries(queries)?, &[TIMELINE]);
    if query.is_empty() {
        return Err(Classified::new(
            ExitStatus::BadInput,
            format!(
                "the series' queries have no {TIMELINE}; point --queries at a folder whose historico/ has it"
            ),
        )
        .into());
    }
    let (reader, snapshots) = StoreReader::committed(dir).await?;
    let all = timelines(&reader, &snapshots, &query).await?;
    let theirs = match all.get(TIMELINE) {
        Some(df) => only_company(df, cnpj.as_str())?,
        None => DataFrame::empty(),
    };
    // No change at all: a company in some snapshot has an empty timeline, one in none is refused.
    if theirs.height() == 0 && !in_some_snapshot(&reader, &snapshots, cnpj).await? {
        return Err(Classified::new(
            ExitStatus::NotFound,
            format!("{cnpj} is in no snapshot of the store {}", dir.display()),
        )
        .into());
    }
    Ok(theirs)
}

/// Every company's timeline in the store (`query`: the timeline's, alone).
pub(crate) async fn timelines(
    reader: &StoreReader,
    snapshots: &std::collections::BTreeSet<String>,
    query: &[crate::analyze::Query],
) -> Result<crate::analyze::Aggregates> {
    let mut frames = Frames::default();
    frames.tables.insert(CHANGES_BY_SNAPSHOT, changes_by_snapshot(reader, snapshots).await?);
    Ok(crate::analyze::run_queries(&frames, query)?)
}

/// Whether any snapshot of the store holds `cnpj`'s register row.
async fn in_some_snapshot(
    reader: &StoreReader,
    snapshots: &std::collections::BTreeSet<String>,
    cnpj: &Cnpj,
) -> Result<bool> {
    let Some(empresas) = reader.read(crate::tables::Table::Empresas.name(), snapshots).await? else {
        return Ok(false);
    };
    Ok(empresas.column("cnpj")?.str()?.iter().any(|c| c == Some(cnpj.as_str())))
}
