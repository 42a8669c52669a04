//! `fiscal-report report --from DIR`: the aggregates, their Parquet and the report again from a
//! finished run's directory, without fetching.

use std::path::Path;

use anyhow::{Context, Result};

use super::outputs::{RawTables, export_report};
use super::watch::Watch;
use crate::config::ReportSettings;
use crate::exit::{Classified, ExitStatus};
use crate::export::remote::{RemoteOut, is_remote, work_root};

/// `fiscal-report report --from DIR` (or `s3://…`: the run is downloaded, checked against its
/// manifest, re-rendered in a local copy and uploaded back, manifest last).
pub(crate) async fn report_from(
    from: &Path,
    report: &ReportSettings,
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
    report: &ReportSettings,
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
        check_raw_tables(&manifest, dir)?;
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
    let outputs = rerender(frames, &mut manifest, dir, report, &watch, raw).await?;
    crate::say!("re-rendered the aggregates and the report in {}", dir.display());
    watch.conclude(outputs, ExitStatus::Ok).await
}

/// The raw tables a re-render reads, as the run wrote them: each file its manifest lists under
/// them there, of the size it says. A copy cut short would otherwise read as a broken Parquet
/// file (exit 70, "looks like a bug"); its size says it at once, where a digest of every
/// table would cost a read of the run.
fn check_raw_tables(manifest: &crate::export::manifest::Manifest, dir: &Path) -> Result<()> {
    let raw: std::collections::BTreeSet<&str> = crate::tables::Table::ALL.iter().map(|t| t.name()).collect();
    for entry in &manifest.files {
        if !entry.path.split('/').next().is_some_and(|top| raw.contains(top)) {
            continue;
        }
        let path = dir.join(&entry.path);
        let found = match std::fs::metadata(&path) {
            Ok(m) if m.len() == entry.bytes => continue,
            Ok(m) => format!("{} bytes", m.len()),
            Err(e) => e.to_string(),
        };
        return Err(Classified::new(
            ExitStatus::BadInput,
            format!(
                "{} is not as the run wrote it ({found}; its manifest says {} bytes): restore the run's copy \
                 of it, or run again; nothing in {} was changed",
                path.display(),
                entry.bytes,
                dir.display()
            ),
        )
        .into());
    }
    Ok(())
}

/// The aggregates, the Parquet and the report of `frames` again, in `dir`. A run that committed
/// to a store is re-rendered against that store as the run left it: the previous snapshot (the
/// changes), its alerts (the lifecycle) and the series, as the run had them. Without one, the
/// alerts the run wrote keep the states it gave them (`monitor::rerender`). The run's alerts
/// are read before anything in `dir` is written, and are not sent again.
async fn rerender(
    mut frames: crate::transform::Frames,
    manifest: &mut crate::export::manifest::Manifest,
    dir: &Path,
    report: &ReportSettings,
    watch: &Watch,
    raw: RawTables,
) -> Result<super::watch::Outputs> {
    let run_alerts = match watch.rules() {
        Some(_) => read_run_alerts(dir)?,
        None => None,
    };
    let store = match &manifest.store {
        Some(note) => store_as_run_left_it(note).await?,
        None => None,
    };
    let previous = store.as_ref().and_then(|s| s.previous.as_ref());
    let mut analysis = super::analysis::analyze(&mut frames, previous, report, manifest)?;
    if let Some(rules) = watch.rules() {
        analysis.alerts = match (&store, run_alerts) {
            (Some(store), run) => {
                let (aggregates, snapshot) = (&analysis.aggregates, &store.snapshot);
                let judged =
                    super::commit::judge_alerts(Some(rules), aggregates, &frames, previous, snapshot)?;
                Some(crate::monitor::rerender::carried_where_run_had(judged, &run.unwrap_or_default()))
            }
            (None, Some(run)) => {
                let fired = rules.evaluate(&analysis.aggregates);
                Some(crate::monitor::rerender::rerendered(rules, fired, run))
            }
            (None, None) => None,
        };
    }
    if let Some(store) = &store {
        let started = std::time::Instant::now();
        let history_queries = crate::analyze::load_history_queries(report.folders.queries.as_deref())?;
        let queries = &analysis.queries;
        analysis.history =
            super::series::portfolio_history(&store.reader, &store.snapshots, queries, &history_queries)
                .await?;
        manifest.time_stage("historico", started);
    }
    export_report(frames, analysis, manifest, dir, report, watch, raw)
}

/// The alerts the run wrote in `dir` (`None`: it wrote none).
fn read_run_alerts(dir: &Path) -> Result<Option<Vec<crate::monitor::lifecycle::TrackedAlert>>> {
    crate::export::alerts_file::read_alerts(dir).map_err(|e| {
        Classified::caused_by(
            ExitStatus::BadInput,
            format!(
                "the alerts {} holds cannot be read; fix the file (or its permissions). Removed, its alerts \
                 are judged anew: new ones are posted and page again",
                dir.join(crate::export::alerts_file::ALERTS_FILE).display()
            ),
            e,
        )
        .into()
    })
}

/// The store a run committed to, as that run left it.
struct RunStore {
    reader: crate::store::StoreReader,
    /// The snapshots committed up to the run's version, the run's own among them.
    snapshots: std::collections::BTreeSet<String>,
    snapshot: String,
    /// The one before it, with its alerts.
    previous: Option<crate::store::snapshot::PreviousSnapshot>,
}

/// The store the run committed to, as it left it. `None`, said, when it is not there (moved,
/// or another store in its place) or refuses this machine (credentials): the re-render then has
/// no previous snapshot. Any other failure (unreachable, damaged) stops the re-render before
/// anything in the run's directory is written.
async fn store_as_run_left_it(note: &crate::export::manifest::StoreNote) -> Result<Option<RunStore>> {
    use crate::store::StoreError;
    let at = Path::new(&note.dir);
    let read = async {
        let Some((reader, snapshots)) =
            crate::store::StoreReader::as_committed_by(at, note.version, &note.run_id).await?
        else {
            return Ok(None);
        };
        let previous = crate::store::snapshot::previous_snapshot(&reader, &note.snapshot, &snapshots).await?;
        Ok::<_, StoreError>(Some(RunStore { reader, snapshots, snapshot: note.snapshot.clone(), previous }))
    };
    let why = match read.await {
        Ok(Some(store)) => return Ok(Some(store)),
        Ok(None) => format!("run {} did not commit version {} there", note.run_id, note.version),
        Err(e @ (StoreError::NoStore { .. } | StoreError::BucketRefused { .. })) => e.to_string(),
        Err(e) => {
            return Err(anyhow::Error::new(e).context(format!(
                "reading the store {} the run committed to (nothing in the run's directory was changed)",
                note.dir
            )));
        }
    };
    // Said even under --quiet: the report written differs from the run's.
    crate::say!(
        "the store {} cannot be read ({why}): re-rendered without the previous snapshot, so without \
         the changes and the series; the alerts keep the states the run gave them",
        note.dir
    );
    Ok(None)
}
