//! The run's snapshot after the fetch: with a store, assembled from the fetch and the store;
//! the economic groups expanded when asked; the aggregates (with the changes since the previous
//! snapshot) and the watch rules' alerts judged against the open ones; then, with a store, the
//! snapshot, its changes and its alerts committed as one store version.
//! Shared by `fetch --store` and `run`.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use polars::prelude::DataFrame;

use super::analysis::{Analysis, analyze_with};
use super::fetched::Fetched;
use super::series::{EXPOSURE_QUERY, only};
use crate::analyze::{EarlyResults, Query};
use crate::monitor::lifecycle::{self, TrackedAlert};
use crate::monitor::rules::Rules;
use crate::store::snapshot::{
    ALERTS_TABLE, Assembled, DERIVED_TABLES, PreviousSnapshot, SANCOES_TABLE, assemble_snapshot,
    commit_snapshot,
};
use crate::transform::Frames;

/// The analysis of the run's snapshot with the run's `queries`; with a store, the snapshot is first assembled from the
/// fetch and the store, and committed after the analysis with the changes it found.
pub(super) async fn analyze_and_commit(
    fetched: &mut Fetched,
    mut frames: Frames,
    queries: Result<Vec<Query>>,
    expand_groups: bool,
    rules: Option<&Rules>,
    early: EarlyResults,
) -> Result<(Frames, Analysis)> {
    // Read before the fetch, said here when they could not be: the expansion prices the partner
    // companies with the run's own exposure query.
    let queries = queries?;
    crate::transform::listas::attach_listas(&mut frames, fetched.listas.take().as_ref())?;
    crate::transform::regime::attach_regimes(&mut frames, fetched.regimes.take().as_ref())?;
    crate::transform::nacional::attach_national(&mut frames, fetched.national.take().as_ref())?;
    match assemble(fetched, frames).await? {
        Ok(mut assembled) => {
            if expand_groups {
                expand_or_warn(fetched, &mut assembled.frames, &queries).await?;
            }
            let previous = assembled.previous.as_ref();
            // The snapshot's credits are the store's and this fetch's together: nothing ran early.
            let mut analysis = analyze_with(
                &mut assembled.frames,
                previous,
                queries,
                EarlyResults::default(),
                &mut fetched.manifest,
            )?;
            note_listas_carried(fetched, &assembled, &analysis);
            analysis.alerts = Some(track_alerts(fetched, rules, &analysis.aggregates, &assembled)?);
            fetched.stop_if_requested("the store commit")?;
            let started = std::time::Instant::now();
            let frames = commit_to_store(fetched, assembled, &analysis).await.with_context(|| {
                format!(
                    "the snapshot was not committed; run the same command with --resume --out {} to finish \
                     it without fetching again",
                    fetched.out.display()
                )
            })?;
            fetched.manifest.time_stage("store", started);
            Ok((frames, analysis))
        }
        Err(mut frames) => {
            if expand_groups {
                expand_or_warn(fetched, &mut frames, &queries).await?;
            }
            let analysis = analyze_with(&mut frames, None, queries, early, &mut fetched.manifest)?;
            Ok((frames, analysis))
        }
    }
}

/// `expand_into`, whose failure costs the expansion only: the portfolio was fetched, and its
/// snapshot, aggregates and report go on with the groups its own partners lists give. Only a
/// rejected key stops the run, as it stops a fetch.
async fn expand_or_warn(fetched: &mut Fetched, frames: &mut Frames, queries: &[Query]) -> Result<()> {
    match expand_into(fetched, frames, queries).await {
        Ok(()) => Ok(()),
        Err(e)
            if e.downcast_ref::<crate::api::ApiError>()
                .is_some_and(|a| matches!(a, crate::api::ApiError::KeyRejected { .. })) =>
        {
            Err(e)
        }
        Err(e) => {
            let w = format!(
                "economic groups not expanded: {e:#}; the groups count the portfolio's companies only"
            );
            tracing::warn!("{w}");
            fetched.manifest.fetch.warnings.push(w);
            frames.tables.remove(crate::transform::economic_groups::SOCIAS_EXPOSICAO);
            Ok(())
        }
    }
}

/// `--expand-groups`: fetches the partner companies the snapshot's partners lists name (after
/// the store carried in the partners of unchanged companies), and adds to `frames` their
/// exposure (the run's own portfolio-exposure query over their records) and their place in the
/// economic groups.
async fn expand_into(fetched: &mut Fetched, frames: &mut Frames, queries: &[Query]) -> Result<()> {
    use crate::transform::economic_groups::{
        INSCRICOES_DA_CARTEIRA, SOCIAS_EXPOSICAO, attach_groups, company_roots, partner_companies,
        portfolio_inscriptions,
    };
    let started = std::time::Instant::now();
    let known = company_roots(frames)?;
    let first = partner_companies(frames, &known)?;
    let asked = first.len();
    let sent = fetched.requests_sent();
    let expansion = crate::extract::partner_companies::expand_groups(&fetched.fetcher, first, known).await;
    fetched.note_requests_since("grupos", sent);
    let expansion = expansion?;
    for (cnpj, e) in &expansion.failed {
        let w = format!("partner company {cnpj} not fetched for its economic group: {e}");
        tracing::warn!("{w}");
        fetched.manifest.fetch.warnings.push(w);
    }
    let mut partners =
        crate::transform::frames::frames_from_rows(&expansion.rows, &crate::store::snapshot::COMPANY_TABLES)?;
    partners.tables.insert(INSCRICOES_DA_CARTEIRA, portfolio_inscriptions(frames)?);
    let exposure = crate::analyze::run_queries(&partners, &only(queries, &[EXPOSURE_QUERY]))?;
    if let Some(df) = exposure.get(EXPOSURE_QUERY) {
        frames.tables.insert(SOCIAS_EXPOSICAO, df.clone());
    }
    attach_groups(frames, Some(&partners))?;
    tracing::info!(
        "economic groups: {} partner companies fetched ({} named by the portfolio; {} not found, {} failed)",
        expansion.found,
        asked,
        expansion.not_found,
        expansion.failed.len()
    );
    fetched.manifest.time_stage("grupos", started);
    Ok(())
}

/// With a store, the new snapshot assembled from the fetch and the store; without one (or
/// after failed tasks, when nothing is committed: the snapshot would miss companies, and
/// `--resume` completes it first), the fetched frames back.
async fn assemble(fetched: &mut Fetched, frames: Frames) -> Result<Result<Assembled, Frames>> {
    let failed = !fetched.outcome.summary.tasks_failed.is_empty();
    let Some(run) = fetched.store.as_mut().filter(|_| !failed) else { return Ok(Err(frames)) };
    let Some(reads) = run.reads.take() else { return Ok(Err(frames)) };
    let reads = reads.await.context("reading the store")??;
    let entries: Vec<_> = fetched.outcome.staging.task_entries().collect();
    Ok(Ok(assemble_snapshot(reads, frames, &entries, &run.records.known, &run.plan)?))
}

/// A run that read no public list keeps the previous snapshot's records of them
/// (`analyze::sancoes`): the manifest and the log say so.
fn note_listas_carried(fetched: &mut Fetched, assembled: &Assembled, analysis: &Analysis) {
    let kept = analysis.aggregates.get(SANCOES_TABLE).map_or(0, DataFrame::height);
    if kept == 0 || !crate::analyze::sancoes::no_list_read(&assembled.frames) {
        return;
    }
    let before = assembled.previous.as_ref().map(|p| p.snapshot.as_str()).unwrap_or_default();
    let w = format!(
        "no public list was read: the {kept} list records of snapshot {before} are kept (sancoes), not \
         read as the companies leaving the lists"
    );
    tracing::warn!("{w}");
    fetched.manifest.fetch.warnings.push(w);
}

/// The watch rules' alerts of this snapshot, with where each stands: the ones the rules fire now
/// against the ones of the previous snapshot (kept in the store), judged on this snapshot.
fn track_alerts(
    fetched: &Fetched,
    rules: Option<&Rules>,
    aggregates: &crate::analyze::Aggregates,
    assembled: &Assembled,
) -> Result<Vec<TrackedAlert>> {
    let snapshot = fetched.store.as_ref().map(|r| r.plan.snapshot.to_string()).unwrap_or_default();
    judge_alerts(rules, aggregates, &assembled.frames, assembled.previous.as_ref(), &snapshot)
}

/// The alerts of `snapshot` (its `frames` and their `aggregates`): what the rules fire now,
/// against the alerts of the `previous` snapshot (`lifecycle::track`).
pub(super) fn judge_alerts(
    rules: Option<&Rules>,
    aggregates: &crate::analyze::Aggregates,
    frames: &Frames,
    previous: Option<&PreviousSnapshot>,
    snapshot: &str,
) -> Result<Vec<TrackedAlert>> {
    let before = match previous.and_then(|p| p.alerts.as_ref()) {
        Some(df) => lifecycle::from_frame(df).context("reading the previous snapshot's alerts")?,
        None => Vec::new(),
    };
    let fired = rules.map(|r| r.evaluate(aggregates)).unwrap_or_default();
    // The conditions are read only when needed: most runs have no alert open.
    let now = if crate::monitor::judge::needs_conditions(&fired, &before) {
        crate::monitor::judge::Holding::read(aggregates, frames).context("judging the open alerts")?
    } else {
        crate::monitor::judge::Holding::unread(aggregates)
    };
    Ok(crate::monitor::judge::track(rules, fired, before, &now, snapshot))
}

/// Commits the assembled snapshot and the changes the analysis found, and returns the
/// snapshot's frames; the manifest names the store version.
async fn commit_to_store(fetched: &mut Fetched, assembled: Assembled, analysis: &Analysis) -> Result<Frames> {
    let Some(run) = fetched.store.as_mut() else { return Ok(assembled.frames) };
    let derived: BTreeMap<&'static str, DataFrame> = DERIVED_TABLES
        .into_iter()
        .filter_map(|name| analysis.aggregates.get(name).map(|df| (name, df.clone())))
        .chain(
            analysis
                .alerts
                .as_deref()
                .map(|a| lifecycle::to_frame(a).map(|df| (ALERTS_TABLE, df)))
                .transpose()?,
        )
        .collect();
    let (frames, record) = commit_snapshot(&mut run.store, assembled, &derived, &run.plan).await?;
    fetched.manifest.store = Some(crate::export::manifest::StoreNote {
        dir: run.store.root().from_anywhere(),
        run_id: record.run_id.clone(),
        version: record.version,
        snapshot: record.snapshot.clone(),
        credit_months_fetched: record.credit_months_fetched.clone(),
        company_records: record.company_records.clone(),
    });
    Ok(frames)
}
