//! Typed frames from what a fetch staged: the segments of every table and each company's
//! outcome, from one fetch or from the shards of one run.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Result;

use super::frames::HeldCredits;
use super::pretype::SegmentTyper;
use super::{CompanyStatus, Frames, build_frames};
use crate::extract::FetchOutcome;
use crate::extract::staging::{StagedFetch, TaskStatus};
use crate::tables::Table;

/// Typed frames from the staged records of one or more finished fetches (shards of one run).
pub(crate) fn frames_from_staged(fetches: &[StagedFetch]) -> Result<Frames> {
    frames_with_credits(fetches, None)
}

fn frames_with_credits(fetches: &[StagedFetch], credits: Option<HeldCredits>) -> Result<Frames> {
    let mut segments: BTreeMap<Table, Vec<PathBuf>> = BTreeMap::new();
    let mut companies: BTreeMap<String, CompanyStatus> = BTreeMap::new();
    for staged in fetches {
        for t in Table::ALL {
            segments.entry(t).or_default().extend(staged.segment_paths(t));
        }
        for e in staged.tasks.values() {
            if let Some(cnpj) = e.task.strip_prefix("empresa/") {
                companies.insert(cnpj.to_string(), company_status(e.status));
            }
        }
    }
    let companies: Vec<(String, CompanyStatus)> = companies.into_iter().collect();
    Ok(build_frames(&segments, &companies, credits)?)
}

fn company_status(s: TaskStatus) -> CompanyStatus {
    match s {
        TaskStatus::Done => CompanyStatus::Found,
        TaskStatus::NotFound => CompanyStatus::NotFound,
        TaskStatus::Failed => CompanyStatus::Failed,
    }
}

/// Typed frames from a finished fetch's staging, once `typer` has typed the segments this
/// fetch committed (those it did not get to are typed here). `credits`: typed while the fetch
/// ran, once it had staged them all (`build_frames` says when they are taken).
pub(crate) fn frames_from_staging(
    outcome: &FetchOutcome,
    typer: Option<SegmentTyper>,
    credits: Option<HeldCredits>,
) -> Result<Frames> {
    if let Some(t) = typer {
        t.finish();
    }
    frames_with_credits(std::slice::from_ref(outcome.staging.staged()), credits)
}
