//! `fiscal-report report --from DIR`: the aggregates, their Parquet and the report again from a
//! finished run's directory, without fetching.

use std::path::Path;

use anyhow::{Context, Result};

use super::finish::{RawTables, Watch, analyze_export_report};
use crate::cli::ReportArgs;
use crate::exit::{Classified, ExitStatus};

/// `fiscal-report report --from DIR`: everything after the fetch, from the Parquet in DIR.
pub async fn report_from(
    dir: &Path,
    report: &ReportArgs,
    contract: Option<crate::config::SchemaContract>,
) -> Result<ExitStatus> {
    let watch = Watch::load(&report.watch)?;
    // A `--resume` running in this directory would change what is read and written here,
    // the manifest first: take the lock before reading anything.
    let _lock = match crate::extract::staging::StagedFetch::lock_for_reading(dir) {
        Ok(lock) => Some(lock),
        Err(crate::extract::staging::StagingError::Locked { .. }) => {
            return Err(Classified::new(
                ExitStatus::BadInput,
                format!(
                    "another fiscal-report run is using {} (its staging lock is held); \
                     wait for it to finish, then run report --from again",
                    dir.display()
                ),
            )
            .into());
        }
        // No staging kept (a copied or cleaned-up run): nothing can be resuming into it.
        Err(_) => None,
    };
    let mut manifest = crate::export::manifest::Manifest::read(dir).map_err(|e| {
        Classified::caused_by(
            ExitStatus::BadInput,
            format!(
                "{} is not a finished run's directory (its manifest.json cannot be read); pass the --out of a run",
                dir.display()
            ),
            e,
        )
    })?;
    super::fetch::check_contract(&manifest, contract, dir)?;
    // A `fetch` leaves staged records only; a `run` has exported the raw tables too.
    // This command's own stages replace the ones of the run that made DIR.
    manifest.stages.clear();
    let started = std::time::Instant::now();
    let exported = dir.join("creditos_ativos").is_dir();
    let (frames, raw) = if exported {
        (crate::export::tables::frames_from_export(dir)?, RawTables::Keep)
    } else {
        let staged = crate::extract::staging::StagedFetch::read(dir)
            .with_context(|| format!("reading the staged records of {}", dir.display()))?;
        (crate::transform::staged::frames_from_staged(std::slice::from_ref(&staged))?, RawTables::Write)
    };
    manifest.time_stage("transform", started);
    let outputs = analyze_export_report(frames, &mut manifest, dir, report, &watch, raw)?;
    eprintln!("re-rendered the aggregates and the report in {}", dir.display());
    watch.conclude(outputs, ExitStatus::Ok).await
}
