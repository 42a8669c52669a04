//! `fiscal-report report --from DIR`: the aggregates, their Parquet and the report again from a
//! finished run's directory, without fetching.

use std::path::Path;

use anyhow::{Context, Result};

use super::finish::{RawTables, Watch, analyze, export_report};
use crate::cli::ReportArgs;
use crate::exit::{Classified, ExitStatus};
use crate::export::remote::{RemoteOut, is_remote, work_root};

/// `fiscal-report report --from DIR` (or `s3://…`: the run is downloaded, checked against its
/// manifest, re-rendered in a local copy and uploaded back, manifest last).
pub async fn report_from(
    from: &Path,
    report: &ReportArgs,
    contract: Option<crate::config::SchemaContract>,
) -> Result<ExitStatus> {
    let Some(url) = from.to_str().filter(|_| is_remote(from)) else {
        return report_from_dir(from, report, contract).await;
    };
    let remote = RemoteOut::parse(url)?;
    // Nothing is lost when this fails part-way: the run stays in the bucket as it was, and the
    // copy goes when `copy` is dropped.
    let copy = remote.download(&work_root()).await?;
    let status = report_from_dir(&copy.dir, report, contract).await?;
    let (_, objects, bytes) = remote.publish(&copy.dir).await?;
    super::fetch::uploaded(&remote, objects, bytes);
    Ok(status)
}

/// Everything after the fetch, from the Parquet (or the staged records) in DIR.
async fn report_from_dir(
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
        let staged = crate::extract::staging::StagedFetch::read_outline(dir)
            .with_context(|| format!("reading the staged records of {}", dir.display()))?;
        tracing::debug!("staging journal read: {} tasks{}", staged.tasks.len(), crate::memory::peak_note());
        (
            crate::transform::staged::frames_from_staged(std::slice::from_ref(&staged))?,
            RawTables::Write(Vec::new()),
        )
    };
    manifest.time_stage("transform", started);
    let outputs = rerender(frames, &mut manifest, dir, report, &watch, raw)?;
    eprintln!("re-rendered the aggregates and the report in {}", dir.display());
    watch.conclude(outputs, ExitStatus::Ok).await
}

/// The aggregates, the Parquet and the report of `frames` again, in `dir`. With rules, the
/// alerts the run wrote keep the states it gave them (`monitor::rerender`): read before
/// anything in `dir` is written.
fn rerender(
    mut frames: crate::transform::Frames,
    manifest: &mut crate::export::manifest::Manifest,
    dir: &Path,
    report: &ReportArgs,
    watch: &Watch,
    raw: RawTables,
) -> Result<super::finish::Outputs> {
    let run_alerts = match watch.rules() {
        Some(_) => crate::export::alerts::read_alerts(dir).map_err(|e| {
            Classified::caused_by(
                ExitStatus::BadInput,
                format!(
                    "the alerts {} holds cannot be read; fix its permissions, or remove the file to judge every alert anew",
                    dir.join(crate::export::alerts::ALERTS_FILE).display()
                ),
                e,
            )
        })?,
        None => None,
    };
    let mut analysis = analyze(&mut frames, None, report, manifest)?;
    if let (Some(rules), Some(run)) = (watch.rules(), run_alerts) {
        let fired = rules.evaluate(&analysis.aggregates);
        analysis.alerts = Some(crate::monitor::rerender::rerendered(rules, fired, run));
    }
    export_report(frames, analysis, manifest, dir, report, watch, raw)
}
