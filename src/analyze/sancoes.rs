//! The portfolio's records on the public lists (`sancoes`) beside the previous snapshot's
//! (`sancoes_anterior`), for the changes' query. A run that read no list (its `listas` empty: a
//! month whose folder holds none) does not mean every company left every list: its `sancoes`
//! are the previous snapshot's, for the companies still in the portfolio, as the store carries
//! a publisher's dataset a release does not renew.

use std::collections::BTreeSet;

use polars::prelude::*;

use crate::store::snapshot::{PreviousSnapshot, SANCOES_TABLE};
use crate::transform::Frames;
use crate::transform::frames::CARTEIRA;
use crate::transform::listas::LISTAS;

/// The ways `queries/27_sancoes.sql` says a list reaches a company (`sancoes.vinculo`),
/// closest first: what the watch rules name and the report groups by.
pub(crate) const VINCULOS: [&str; 5] = ["cnpj", "raiz", "socio", "socio_possivel", "grupo"];

/// The previous snapshot's `sancoes`, in this run's columns.
pub(crate) const SANCOES_ANTERIOR: &str = "sancoes_anterior";

/// Whether `frames` hold no list record (no list was read this run).
pub(crate) fn no_list_read(frames: &Frames) -> bool {
    frames.get(LISTAS).is_none_or(|df| df.height() == 0)
}

/// This snapshot's `sancoes` (`now`, as the query made it, or the previous snapshot's carried
/// when no list was read) and the previous snapshot's, both in `now`'s columns. A previous
/// snapshot that does not keep them at all (a store written before they were kept) reads as
/// this one's: no list changes, rather than every company entering every list.
pub(super) fn with_previous(
    now: DataFrame,
    frames: &Frames,
    previous: Option<&PreviousSnapshot>,
) -> PolarsResult<(DataFrame, DataFrame)> {
    let Some(before) = super::previous_of(&now, previous, SANCOES_TABLE)? else {
        return Ok((now.clone(), now));
    };
    if !no_list_read(frames) || before.height() == 0 {
        return Ok((now, before));
    }
    let portfolio: BTreeSet<String> = match frames.scan(CARTEIRA) {
        Some(scan) => {
            let df = scan?.select([col("cnpj")]).collect()?;
            df.column("cnpj")?.str()?.iter().flatten().map(str::to_string).collect()
        }
        None => BTreeSet::new(),
    };
    let mask: BooleanChunked =
        before.column("cnpj")?.str()?.iter().map(|c| c.is_some_and(|c| portfolio.contains(c))).collect();
    let carried = before.filter(&mask)?;
    Ok((carried, before))
}
