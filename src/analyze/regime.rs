//! The portfolio's tax regimes (`regime_carteira`) beside the previous snapshot's
//! (`regime_carteira_anterior`), for the changes' query. A run that read no regime file (a
//! month whose folder holds none: RFB publishes them once a year, apart from the monthly CNPJ
//! files) does not mean every company lost its ECF: the companies the previous snapshot has
//! keep its ECF columns, as the store carries a publisher's dataset a release does not renew,
//! while their Simples and MEI options are this run's.

use polars::prelude::*;

use crate::store::snapshot::{PreviousSnapshot, REGIME_TABLE};
use crate::transform::Frames;
use crate::transform::regime::REGIME_TRIBUTARIO;

/// The previous snapshot's `regime_carteira`, in this run's columns.
pub(crate) const REGIME_ANTERIOR: &str = "regime_carteira_anterior";

/// Whether `frames` hold no row of the regime files (none was read this run).
pub(crate) fn no_regime_read(frames: &Frames) -> bool {
    frames.get(REGIME_TRIBUTARIO).is_none_or(|df| df.height() == 0)
}

/// The columns a run without regime files carries from the previous snapshot.
const ECF_COLUMNS: [&str; 3] = ["regime_ecf", "ano_ecf", "anos_ecf"];

/// This snapshot's `regime_carteira` (`now`, as the query made it, or, when no regime file was
/// read, with the previous snapshot's ECF columns for the companies it has) and the previous
/// snapshot's, both in `now`'s columns. A previous snapshot that does not keep them
/// at all (a store written before they were kept) reads as this one's: no regime changes.
pub(super) fn with_previous(
    now: DataFrame,
    frames: &Frames,
    previous: Option<&PreviousSnapshot>,
) -> PolarsResult<(DataFrame, DataFrame)> {
    let Some(before) = super::previous_of(&now, previous, REGIME_TABLE)? else {
        return Ok((now.clone(), now));
    };
    if !no_regime_read(frames) || before.height() == 0 {
        return Ok((now, before));
    }
    Ok((with_ecf_of(&now, &before)?, before))
}

/// `now` with the ECF columns of `before` (for the companies it has) and each company's regime
/// made again from them as `queries/21_regime_carteira.sql` makes it: this run's MEI or Simples
/// Nacional, else the ECF's form, else "Não informado".
fn with_ecf_of(now: &DataFrame, before: &DataFrame) -> PolarsResult<DataFrame> {
    let order: Vec<PlSmallStr> = now.get_column_names().into_iter().cloned().collect();
    let ecf = before.select(["cnpj"].into_iter().chain(ECF_COLUMNS))?;
    let simples = col("regime").eq(lit("MEI")).or(col("regime").eq(lit("Simples Nacional")));
    now.clone()
        .lazy()
        .drop(by_name(ECF_COLUMNS, true, false))
        .join(ecf.lazy(), [col("cnpj")], [col("cnpj")], JoinArgs::new(JoinType::Left))
        .with_columns([
            when(simples)
                .then(col("regime"))
                .otherwise(coalesce(&[col("regime_ecf"), lit("Não informado")]))
                .alias("regime"),
            col("anos_ecf").fill_null(lit(0)).alias("anos_ecf"),
        ])
        .select(order.into_iter().map(col).collect::<Vec<_>>())
        .collect()
}
