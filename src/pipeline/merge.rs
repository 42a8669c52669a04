//! `fiscal-report merge OUT SHARD_DIR...`: the outputs of `--shard K/N` fetches become one
//! dataset, one manifest and one report, as if one process had fetched everything.
//!
//! It refuses shards of different runs (months, states, portfolio, service) or of different
//! shard counts, names missing shards by number, and never mixes into a directory that already
//! holds a run. Fetching is not its business: it reads what the shards staged, each under its
//! staging lock and only when the shard's manifest agrees with its journal.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::outputs::{RawTables, analyze_export_report};
use super::watch::Watch;
use crate::config::ReportSettings;
use crate::exit::{Classified, ExitStatus, OutputError};
use crate::export::manifest::Manifest;
use crate::export::remote::{RemoteError, RemoteOut, is_remote, work_root};
use crate::extract::runner::{FailedTask, tally};
use crate::extract::staging::{ReadLock, StagedFetch, StagingError};
use crate::extract::{FetchSummary, PlanSpec};
use crate::transform::staged::frames_from_staged;

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
    for (op, drift) in &r.schema {
        t.schema.entry(op.clone()).or_default().add(drift);
    }
    for (k, v) in &s.fontes {
        total.fontes.entry(k.clone()).or_insert_with(|| v.clone());
    }
    crate::extract::runner::add_periods(&mut total.periodos, &s.periodos);
    total.warnings.extend(s.warnings.iter().cloned());
    // The shards ran side by side: the merged fetch took as long as the slowest.
    total.wall_seconds = total.wall_seconds.max(s.wall_seconds);
}

/// Keeps any `--resume` of the shard in `dir` from committing while merge reads it. A shard
/// whose fetch is still running is refused rather than waited for: it may run for hours.
fn lock_shard(dir: &Path) -> Result<ReadLock> {
    StagedFetch::lock_for_reading(dir).map_err(|e| match e {
        StagingError::Locked { .. } => bad(format!(
            "another fiscal-report run is using the shard in {} (its staging lock is held); \
             wait for that fetch to finish, then merge",
            dir.display()
        )),
        StagingError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => bad(format!(
            "{} is not a shard: it has no staged records ({} is missing); \
             pass the --out of each `fetch --shard K/N`",
            dir.display(),
            dir.join(".staging").join("lock").display()
        )),
        other => {
            let what = format!("locking the staged records of {}", dir.display());
            anyhow::Error::new(other).context(what)
        }
    })
}

/// Where a shard's manifest and its journal disagree. The manifest is written after the fetch
/// it describes, so a `--resume` killed part-way leaves the manifest of the attempt before it
/// next to a journal that has moved on; merging either view would misreport the run.
fn journal_mismatches(manifest: &FetchSummary, staged: &StagedFetch) -> Vec<String> {
    let held = tally(staged.tasks.values());
    let mut out = Vec::new();
    let tables: BTreeSet<&String> = held.records.keys().chain(manifest.records.keys()).collect();
    for table in tables {
        let said = manifest.records.get(table).copied().unwrap_or(0);
        let staged = held.records.get(table).copied().unwrap_or(0);
        if said != staged {
            out.push(format!("{table}: {said} records in manifest.json, {staged} staged"));
        }
    }
    let names = |f: &[FailedTask]| f.iter().map(|t| t.task.clone()).collect::<BTreeSet<_>>();
    let (said_failed, failed) = (names(&manifest.tasks_failed), names(&held.tasks_failed));
    if said_failed != failed {
        out.push(format!("failed tasks: {} in manifest.json, {} staged", said_failed.len(), failed.len()));
    }
    if manifest.tasks_done != held.tasks_done {
        out.push(format!(
            "finished tasks: {} in manifest.json, {} staged",
            manifest.tasks_done, held.tasks_done
        ));
    }
    out
}

/// `merge OUT SHARD...`, each of them a directory or an object-storage URL: shards in a bucket
/// are downloaded (checked against their manifests) and merged here; an OUT in a bucket is
/// written in a local work dir and uploaded, manifest last.
pub(crate) async fn merge(
    out: &Path,
    shards: &[PathBuf],
    report: &ReportSettings,
    contract: Option<crate::config::SchemaContract>,
) -> Result<ExitStatus> {
    let root = work_root();
    let mut local_shards = Vec::with_capacity(shards.len());
    // Each downloaded copy goes when this is dropped, whichever way the merge ends.
    let mut copies = Vec::new();
    for shard in shards {
        if !is_remote(shard) {
            local_shards.push(shard.clone());
            continue;
        }
        let copy = RemoteOut::parse(&shard.to_string_lossy())?.download(&root).await?;
        local_shards.push(copy.dir.clone());
        copies.push(copy);
    }
    let remote_out = match out.to_str().filter(|_| is_remote(out)) {
        Some(url) => {
            let remote = RemoteOut::parse(url)?;
            if remote.holds_run().await? {
                return Err(RemoteError::HoldsRun { url: remote.url().to_string() }.into());
            }
            let dir = remote.work_dir(&root);
            if dir.join(".staging").exists() {
                return Err(bad(format!(
                    "{} holds an unfinished run to {} (its staging, waiting for --resume); finish that run \
                     with --resume, or delete {} and merge again",
                    dir.display(),
                    remote.url(),
                    dir.display()
                )));
            }
            // What a merge left there before its upload failed: made again from the shards.
            let _ = std::fs::remove_dir_all(&dir);
            Some((remote, dir))
        }
        None => None,
    };
    let local_out = remote_out.as_ref().map_or(out, |(_, dir)| dir.as_path());
    let merged = merge_local(local_out, &local_shards, report, contract).await;
    drop(copies);
    let Some((remote, dir)) = remote_out else { return merged };
    // A merge with failed tasks wrote its outputs too: they go up, and its status stands.
    let wrote = match &merged {
        Ok(_) => true,
        // The error `merge_local` raises once its outputs are written.
        Err(e) => e.downcast_ref::<Classified>().is_some_and(|c| c.status == ExitStatus::PartialFailure),
    };
    if wrote {
        let (_, objects, bytes) = remote.publish(&dir).await?;
        let _ = std::fs::remove_dir_all(&dir);
        super::fetch::uploaded(&remote, objects, bytes);
    }
    merged
}

async fn merge_local(
    out: &Path,
    shards: &[PathBuf],
    report: &ReportSettings,
    contract: Option<crate::config::SchemaContract>,
) -> Result<ExitStatus> {
    if shards.is_empty() {
        return Err(bad("merge needs the shard directories: fiscal-report merge OUT SHARD_DIR...".into()));
    }
    if out.join("manifest.json").exists() || out.join(".staging").exists() {
        return Err(bad(format!("{} already holds a run; merge into a new directory", out.display())));
    }
    // The merge writes the run's folders (empresas/, aggregates/, ...) over what they held.
    crate::extract::staging::refuse_others_folder(out)?;
    let watch = Watch::load(&report.watch)?;
    // Held until the merge is written: the frames may read the segments lazily.
    let (locks, manifests) = read_shard_manifests(shards, contract)?;
    let count = check_every_shard_once(&manifests)?;
    let (staged, summary) = read_staged_shards(&manifests)?;
    let started = std::time::Instant::now();
    let frames = frames_from_staged(&staged)?;
    let mut plan = manifests[0].1.plan.clone();
    plan.shard.index = 0;
    plan.shard.count = 1;
    let mut fetch = summary.unwrap_or_else(|| manifests[0].1.fetch.clone());
    fetch.tasks_failed.sort_by(|a: &FailedTask, b| a.task.cmp(&b.task));
    fetch.companies_not_found.sort();
    let mut manifest = Manifest::for_fetch(&plan, &fetch);
    manifest.time_stage("transform", started);
    std::fs::create_dir_all(out).map_err(|e| {
        OutputError::wrap(
            out,
            "check that the path is a directory you may write to and that its disk has room, \
             or merge into another OUT directory",
            e,
        )
    })?;
    let outputs =
        analyze_export_report(frames, &mut manifest, out, report, &watch, RawTables::Write(Vec::new()))?;
    drop(locks);
    crate::say!(
        "merged {count} shards: {} records, {} requests -> {}",
        fetch.records.values().sum::<u64>(),
        fetch.requests.requests,
        out.display()
    );
    if !fetch.tasks_failed.is_empty() {
        watch.conclude(outputs, ExitStatus::PartialFailure).await?;
        return Err(Classified::new(
            ExitStatus::PartialFailure,
            format!("{} tasks failed in the shards (listed in {}/manifest.json); rerun those shards with --resume", fetch.tasks_failed.len(), out.display()),
        )
        .into());
    }
    watch.conclude(outputs, ExitStatus::Ok).await
}

/// A shard's directory and its manifest.
type Shard = (PathBuf, Manifest);

/// Each shard locked (before its manifest is read: a running `--resume` rewrites it under
/// this lock) and its manifest, which must be a finished fetch's under `contract`.
fn read_shard_manifests(
    shards: &[PathBuf],
    contract: Option<crate::config::SchemaContract>,
) -> Result<(Vec<ReadLock>, Vec<Shard>)> {
    let mut locks = Vec::with_capacity(shards.len());
    let mut manifests = Vec::new();
    for dir in shards {
        locks.push(lock_shard(dir)?);
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
        super::fetch::check_contract(&m, contract, dir)?;
        manifests.push((dir.clone(), m));
    }
    Ok((locks, manifests))
}

/// The shards are of one run, each given once, none missing; returns their count.
fn check_every_shard_once(manifests: &[Shard]) -> Result<u32> {
    let first = run_identity(&manifests[0].1.plan);
    let count = manifests[0].1.plan.shard.count;
    let mut seen: BTreeMap<u32, PathBuf> = BTreeMap::new();
    for (dir, m) in manifests {
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
    Ok(count)
}

/// Each shard's staged records, checked against its manifest, and the shards' fetch summaries
/// added up.
fn read_staged_shards(manifests: &[Shard]) -> Result<(Vec<StagedFetch>, Option<FetchSummary>)> {
    let mut staged = Vec::new();
    let mut summary: Option<FetchSummary> = None;
    for (dir, m) in manifests {
        let shard = StagedFetch::read(dir)
            .with_context(|| format!("reading the staged records of {}", dir.display()))?;
        let mismatches = journal_mismatches(&m.fetch, &shard);
        if !mismatches.is_empty() {
            return Err(bad(format!(
                "shard {} in {}: its manifest.json does not match its staged records ({}); \
                 a later fetch there probably stopped part-way. \
                 Run that shard's fetch again with --resume until it finishes, then merge",
                m.plan.shard.index,
                dir.display(),
                mismatches.join("; ")
            )));
        }
        staged.push(shard);
        match &mut summary {
            None => summary = Some(m.fetch.clone()),
            Some(t) => add_summary(t, &m.fetch),
        }
    }
    Ok((staged, summary))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::staging::{Staging, TaskEntry, TaskStatus};
    use crate::tables::Table;

    fn entry(task: &str, status: TaskStatus, records: u64) -> TaskEntry {
        TaskEntry {
            records: BTreeMap::from([(Table::CreditosAtivos, records)]),
            pages: 1,
            ..TaskEntry::new(task, status)
        }
    }

    fn summary(done: usize, failed: &[&str], records: u64) -> FetchSummary {
        FetchSummary {
            tasks_planned: 3,
            tasks_resumed: 0,
            tasks_done: done,
            tasks_failed: failed
                .iter()
                .map(|t| FailedTask { task: (*t).to_string(), error: "503".into(), refused: false })
                .collect(),
            companies_not_found: vec![],
            records: BTreeMap::from([("creditos_ativos".to_string(), records)]),
            requests: Default::default(),
            fontes: BTreeMap::new(),
            periodos: Default::default(),
            warnings: vec![],
            wall_seconds: 1.0,
            interrupted: false,
            company_records: BTreeMap::new(),
        }
    }

    #[test]
    fn a_manifest_behind_its_journal_is_caught() {
        let staged = StagedFetch {
            dir: PathBuf::from("shard1/.staging"),
            tasks: [
                entry("creditos/SP/202401", TaskStatus::Done, 10),
                entry("creditos/RJ/202401", TaskStatus::Done, 5),
                entry("creditos/AC/202401", TaskStatus::Failed, 0),
            ]
            .into_iter()
            .map(|e| (e.task.clone(), e))
            .collect(),
            segments: BTreeSet::new(),
        };
        let agrees = journal_mismatches(&summary(2, &["creditos/AC/202401"], 15), &staged);
        assert!(agrees.is_empty(), "{agrees:?}");
        // The manifest of an earlier attempt, in which RJ had failed; a later --resume fetched
        // RJ and was killed before it wrote its own.
        let behind =
            journal_mismatches(&summary(1, &["creditos/AC/202401", "creditos/RJ/202401"], 10), &staged);
        assert_eq!(behind.len(), 3, "{behind:?}");
        assert!(behind[0].contains("creditos_ativos: 10 records in manifest.json, 15 staged"), "{behind:?}");
    }

    #[test]
    fn a_shard_still_being_fetched_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let writer = Staging::open(tmp.path(), &1u32, false).unwrap();
        let Some(err) = lock_shard(tmp.path()).err() else { panic!("merge read a shard another run holds") };
        assert_eq!(crate::commands::error::classify(&err), ExitStatus::BadInput);
        let text = err.to_string();
        let dir = tmp.path().display().to_string();
        assert!(text.contains("another fiscal-report run") && text.contains(&dir), "{text}");
        drop(writer);
        assert!(lock_shard(tmp.path()).is_ok());

        let empty = tempfile::tempdir().unwrap();
        let Some(err) = lock_shard(empty.path()).err() else {
            panic!("a directory without staging is no shard")
        };
        assert_eq!(crate::commands::error::classify(&err), ExitStatus::BadInput);
        assert!(err.to_string().contains("is not a shard"), "{err}");
    }
}
