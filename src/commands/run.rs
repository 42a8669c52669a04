//! `fiscal-report run`: the whole job. The fetch stage, then (with `--store`) the new snapshot
//! committed to the store, then the stages after it (typed frames, aggregates, Parquet, manifest,
//! report) over that snapshot, then the same summary as `fetch`.

use anyhow::Result;

use super::fetch::{FetchStage, Fetched, fetch_stage, summarize};
use super::finish::{RawTables, analyze_export_report};
use crate::cli::RunArgs;
use crate::exit::ExitStatus;
use crate::store::snapshot::commit_snapshot;
use crate::transform::Frames;
use crate::transform::staged::frames_from_staging;

pub async fn run(args: RunArgs, quiet: bool) -> Result<ExitStatus> {
    let mut fetched = match fetch_stage(&args.fetch, quiet).await? {
        FetchStage::Fetched(fetched) => fetched,
        FetchStage::Interrupted => return Ok(ExitStatus::Interrupted),
    };
    let mut frames = frames_from_staging(&fetched.outcome)?;
    if fetched.store.is_some() {
        frames = commit_to_store(&mut fetched, frames).await?;
    }
    analyze_export_report(frames, &mut fetched.manifest, &fetched.out, &args.report, RawTables::Write)?;
    summarize(&fetched)
}

/// Commits the fetch's snapshot (with what it carries from the store) and returns its frames;
/// the manifest names the store version. A run with failed tasks commits nothing: its snapshot
/// would miss companies, and `--resume` completes it first.
pub(super) async fn commit_to_store(fetched: &mut Fetched, frames: Frames) -> Result<Frames> {
    let Some(run) = fetched.store.as_mut() else { return Ok(frames) };
    if !fetched.outcome.summary.tasks_failed.is_empty() {
        return Ok(frames);
    }
    let entries: Vec<_> = fetched.outcome.staging.task_entries().collect();
    let (frames, record) =
        commit_snapshot(&mut run.store, frames, &entries, &run.lists.known, &run.plan).await?;
    fetched.manifest.store = Some(crate::export::manifest::StoreNote {
        dir: run.store.root().display().to_string(),
        run_id: record.run_id.clone(),
        version: record.version,
        snapshot: record.snapshot.clone(),
        credit_months_fetched: record.credit_months_fetched.clone(),
        company_lists: record.company_lists.clone(),
    });
    Ok(frames)
}
