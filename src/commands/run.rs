//! `fiscal-report run`: the whole job. The fetch stage, then the stages after it (typed
//! frames, aggregates, Parquet, manifest, report), then the same summary as `fetch`.

use anyhow::Result;

use super::fetch::{FetchStage, fetch_stage, summarize};
use super::finish::{RawTables, analyze_export_report};
use crate::cli::RunArgs;
use crate::exit::ExitStatus;
use crate::transform::staged::frames_from_staging;

pub async fn run(args: RunArgs, quiet: bool) -> Result<ExitStatus> {
    let mut fetched = match fetch_stage(&args.fetch, quiet).await? {
        FetchStage::Fetched(fetched) => fetched,
        FetchStage::Interrupted => return Ok(ExitStatus::Interrupted),
    };
    let frames = frames_from_staging(&fetched.outcome)?;
    analyze_export_report(frames, &mut fetched.manifest, &fetched.out, &args.report, RawTables::Write)?;
    summarize(&fetched)
}
