//! `fiscal-report merge OUT SHARD_DIR...`: the outputs of `--shard K/N` fetches become one
//! dataset, one manifest and one report, as if one process had fetched everything.
//!
//! It refuses shards of different runs (months, states, portfolio, service) or of different
//! shard counts, names missing shards by number, and never mixes into a directory that already
//! holds a run. Fetching is not its business: it reads what the shards staged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::cli::ReportArgs;
use crate::exit::{Classified, ExitStatus};
use crate::export::manifest::Manifest;
use crate::extract::runner::FailedTask;
use crate::extract::staging::StagedFetch;
use crate::extract::{FetchSummary, PlanSpec};
use crate::stages::{RawTables, analyze_export_report, frames_from_staged};

fn bad(msg: String) -> anyhow::Error {
    Classified::new(ExitStatus::BadInput, msg).into()
}

/// The plan without its shard: what every shard of one run shares.
fn run_identity(p: &PlanSpec) -> PlanSpec {
    let mut p = p.clone();
    p.shard.index = 0;
    p
}

fn add_summary(total: &mut FetchSummary, s: &FetchSummary) {
    total.tasks_planned += s.tasks_planned;
    total.tasks_resumed += s.tasks_resumed;
    total.tasks_done += s.tasks_done;
    total.tasks_failed.extend(s.tasks_failed.iter().cloned());
    total.companies_not_found.extend(s.companies_not_found.iter().cloned());
    for (k, v) in &s.records {
        *total.records.entry(k.clone()).or_default() += v;
    }
    let (r, t) = (&s.requests, &mut total.requests);
    t.requests += r.requests;
    t.retries += r.retries;
    t.failed_tasks += r.failed_tasks;
    t.bytes += r.bytes;
    t.records += r.records;
    t.rate_limited += r.rate_limited;
    for (op, outcomes) in &r.by_operation {
        for (o, n) in outcomes {
            *t.by_operation.entry(op.clone()).or_default().entry(o.clone()).or_default() += n;
        }
    }
    for (k, v) in &s.fontes {
        total.fontes.entry(k.clone()).or_insert_with(|| v.clone());
    }
    total.warnings.extend(s.warnings.iter().cloned());
    // The shards ran side by side: the merged fetch took as long as the slowest.
    total.wall_seconds = total.wall_seconds.max(s.wall_seconds);
}

pub fn merge(out: &Path, shards: &[PathBuf], report: &ReportArgs) -> Result<ExitStatus> {
    if shards.is_empty() {
        return Err(bad("merge needs the shard directories: fiscal-report merge OUT SHARD_DIR...".into()));
    }
    if out.join("manifest.json").exists() || out.join(".staging").exists() {
        return Err(bad(format!("{} already holds a run; merge into a new directory", out.display())));
    }
    let mut manifests = Vec::new();
    for dir in shards {
        let m = Manifest::read(dir).map_err(|e| {
            bad(format!("{} is not a finished shard (cannot read its manifest.json: {e}); pass the --out of each `fetch --shard K/N`", dir.display()))
        })?;
        if m.fetch.interrupted {
            return Err(bad(format!(
                "shard {} in {} was interrupted; finish it with --resume first",
                m.plan.shard.index,
                dir.display()
            )));
        }
        manifests.push((dir.clone(), m));
    }
    let first = run_identity(&manifests[0].1.plan);
    let count = manifests[0].1.plan.shard.count;
    let mut seen: BTreeMap<u32, PathBuf> = BTreeMap::new();
    for (dir, m) in &manifests {
        if run_identity(&m.plan) != first {
            return Err(bad(format!(
                "{} is a shard of another run (its months, states, portfolio, service or shard count differ from {})",
                dir.display(),
                manifests[0].0.display()
            )));
        }
        if let Some(other) = seen.insert(m.plan.shard.index, dir.clone()) {
            return Err(bad(format!(
                "shard {} is given twice: {} and {}",
                m.plan.shard.index,
                other.display(),
                dir.display()
            )));
        }
    }
    let missing: Vec<String> = (0..count).filter(|k| !seen.contains_key(k)).map(|k| k.to_string()).collect();
    if !missing.is_empty() {
        return Err(bad(format!(
            "missing shard(s) {} of {count}; merge needs every shard 0..{}",
            missing.join(", "),
            count - 1
        )));
    }

    let mut staged = Vec::new();
    let mut summary: Option<FetchSummary> = None;
    for (dir, m) in &manifests {
        staged.push(
            StagedFetch::read(dir)
                .with_context(|| format!("reading the staged records of {}", dir.display()))?,
        );
        match &mut summary {
            None => summary = Some(m.fetch.clone()),
            Some(t) => add_summary(t, &m.fetch),
        }
    }
    let frames = frames_from_staged(&staged)?;
    let mut plan = manifests[0].1.plan.clone();
    plan.shard.index = 0;
    plan.shard.count = 1;
    let mut fetch = summary.unwrap_or_else(|| manifests[0].1.fetch.clone());
    fetch.tasks_failed.sort_by(|a: &FailedTask, b| a.task.cmp(&b.task));
    fetch.companies_not_found.sort();
    let mut manifest = Manifest::for_fetch(&plan, &fetch);
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    analyze_export_report(frames, &mut manifest, out, report, RawTables::Write)?;
    eprintln!(
        "merged {count} shards: {} records, {} requests -> {}",
        fetch.records.values().sum::<u64>(),
        fetch.requests.requests,
        out.display()
    );
    if !fetch.tasks_failed.is_empty() {
        return Err(Classified::new(
            ExitStatus::PartialFailure,
            format!("{} tasks failed in the shards (listed in {}/manifest.json); rerun those shards with --resume", fetch.tasks_failed.len(), out.display()),
        )
        .into());
    }
    Ok(ExitStatus::Ok)
}
