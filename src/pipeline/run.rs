//! `fiscal-report run`: the whole job, its settings resolved. The fetch stage; typed frames; with `--store`, the new
//! snapshot assembled from the fetch and the store; the aggregates (with the changes since the
//! previous snapshot); with `--store`, the snapshot and its changes committed; then Parquet,
//! manifest and report over that snapshot, and the same summary as `fetch`.

use anyhow::Result;
use futures::future::join_all;

use super::analysis::Analysis;
use super::commit::analyze_and_commit;
use super::fetch::{fetch_stage, summarize};
use super::fetched::{FetchStage, Fetched};
use super::outputs::{RawTables, export_report};
use super::watch::Watch;
use crate::api::Cnpj;
use crate::config::RunSettings;
use crate::exit::ExitStatus;
use crate::extract::dossier_records::fetch_dossier;
use crate::transform::staged::frames_from_staging;

pub(crate) async fn run(mut settings: RunSettings, quiet: bool) -> Result<ExitStatus> {
    // The rules file is checked before anything is fetched, the demo's month before included.
    let mut watch = Watch::load(&settings.report.watch)?;
    // `--download`: the release completed into the --open-data folder, then read as any.
    if let Some(request) = settings.download.take() {
        let done = crate::extract::download::download(&request).await?;
        crate::logging::say(&done.summary(&request.to));
    }
    // The plain demo runs the month before first, into a store of its own, to compare with,
    // and then watches with the example rules.
    let mut compared_with = None;
    if let Some(before) = super::demo::month_before(&settings)? {
        let outcome = run_resolved(before.settings, Watch::default(), quiet, None).await;
        compared_with = Some(before.then.on(outcome, &mut settings)?);
        watch = Watch::example()?;
    }
    run_resolved(settings, watch, quiet, compared_with).await
}

/// The run with its settings resolved and its rules read; `compared_with`, the month before the
/// demo's, when it is the demo on the store that month was committed to.
async fn run_resolved(
    settings: RunSettings,
    watch: Watch,
    quiet: bool,
    compared_with: Option<crate::api::AnoMes>,
) -> Result<ExitStatus> {
    // The demo's own portfolio, or one given (by flag, variable or config file).
    let portfolio_given = settings.fetch.cnpjs.is_some();
    // Read once, before the fetch; queries that cannot be read are said where they are run, after
    // the fetch (its records are staged for `report --from` once they are fixed).
    let queries = super::analysis::report_queries(&settings.report);
    let on_store = settings.fetch.store.is_some();
    let early_queries = queries.as_ref().ok().cloned();
    let (on_credits, early) = super::early_credits::begin_on_credits(on_store, early_queries).unzip();
    // The report's templates compiled while the service answers; taken by the render.
    let options = settings.report.folders.report_options();
    // Where a bucket `--out` puts the outputs, for the e-mail's link.
    let folder_url = settings
        .fetch
        .out
        .as_deref()
        .filter(|o| crate::bucket::is_remote(o))
        .map(|o| o.display().to_string());
    let templates = std::thread::Builder::new()
        .name("templates".into())
        .spawn(move || crate::report::compile_ahead(&options))
        .ok();
    let mut fetched = match fetch_stage(settings.fetch, quiet, on_credits).await? {
        FetchStage::Fetched(fetched) => fetched,
        FetchStage::Interrupted => return Ok(ExitStatus::Interrupted),
        FetchStage::AlreadyStored => return Ok(ExitStatus::Ok),
    };
    fetched.manifest.demo_comparacao = compared_with.map(|m| m.to_string());
    // The demo shows everything the job makes: whole economic groups and the dossiers of its
    // ten largest exposures. Both read the source again; without them the files' rows go now.
    let demo = fetched.manifest.demo && !portfolio_given;
    let expand = settings.expand_groups.unwrap_or(demo);
    let dossiers = settings.dossies.unwrap_or(if demo { DEMO_DOSSIERS } else { 0 });
    fetched.forget_files_unless(expand || dossiers > 0);
    let started = std::time::Instant::now();
    let early = early.map(super::early_credits::Pending::wait).unwrap_or_default();
    let frames = frames_from_staging(&fetched.outcome, fetched.typer.take(), early.credits)?;
    fetched.forget_entries_unless_stored();
    // The credits' queries' results and files go with the credits they were made of.
    let (early_results, begun) = match frames.credits_typed_early {
        true => (early.results, early.files.into_iter().collect()),
        // Files of credits the run did not take: their scratch folder goes now.
        false => {
            drop(early.files);
            Default::default()
        }
    };
    fetched.manifest.time_stage("transform", started);
    fetched.stop_if_requested("the analysis")?;
    let report = &settings.report;
    let (frames, mut analysis) =
        analyze_and_commit(&mut fetched, frames, queries, expand, watch.rules(), early_results).await?;
    add_history(&mut fetched, &mut analysis, report).await?;
    if dossiers > 0 {
        add_dossiers(&mut fetched, &mut analysis, dossiers).await?;
    }
    if fetched.manifest.store.is_none() {
        fetched.stop_if_requested("writing the outputs")?;
    } else if crate::shutdown::requested() {
        // Past the commit the store holds this run's snapshot: the outputs that go with it are
        // finished first (seconds, not the fetch's minutes).
        tracing::warn!("stop requested after the store commit: finishing the outputs first");
    }
    // Compiled by now (it began before the fetch); a render without it compiles its own.
    if let Some(t) = templates {
        let _ = t.join();
    }
    let outputs = export_report(
        frames,
        analysis,
        &mut fetched.manifest,
        &fetched.out,
        report,
        &watch,
        RawTables::Write(begun),
    )?;
    super::fetch::publish(&fetched).await?;
    let done = summarize(&fetched)?;
    // Mailed after every output is written; a failure is said once the alerts are posted.
    let mailed =
        super::mail::mail_report(settings.email.as_ref(), &mut fetched, outputs.digest.as_ref(), folder_url)
            .await;
    let status = watch.conclude(outputs, done).await?;
    mailed.map(|()| status)
}

/// With a store, the portfolio's series over every snapshot, read after the commit: they end
/// with this run's own.
async fn add_history(
    fetched: &mut Fetched,
    analysis: &mut Analysis,
    report: &crate::config::ReportSettings,
) -> Result<()> {
    if let Some(run) = &fetched.store {
        let started = std::time::Instant::now();
        let history_queries = crate::analyze::load_history_queries(report.folders.queries.as_deref())?;
        let (store, snapshots) = (&run.store, run.store.snapshots());
        analysis.history = super::series::portfolio_history(
            &store.reader(),
            &snapshots,
            &analysis.queries,
            &history_queries,
        )
        .await?;
        fetched.manifest.time_stage("historico", started);
    }
    Ok(())
}

/// The dossiers of the `n` largest exposures: their records fetched (one that cannot be costs
/// that dossier only, and its link), and with a store their exposure history.
async fn add_dossiers(fetched: &mut Fetched, analysis: &mut Analysis, n: usize) -> Result<()> {
    let started = std::time::Instant::now();
    let cnpjs = largest_exposures(&analysis.aggregates, n);
    // A dossier that cannot be fetched costs that dossier only (and its link), not the run.
    let sent = fetched.requests_sent();
    let fetched_dossiers = join_all(cnpjs.iter().map(|c| fetch_dossier(&fetched.fetcher, c))).await;
    fetched.note_requests_since("dossies", sent);
    for (cnpj, result) in cnpjs.iter().zip(fetched_dossiers) {
        match result {
            Ok(records) => analysis.dossiers.push(records),
            Err(e) => {
                tracing::warn!("no dossier for {cnpj}: {e}");
                fetched.manifest.fetch.warnings.push(format!("no dossier for {cnpj}: {e}"));
            }
        }
    }
    let cnpjs: Vec<Cnpj> = analysis.dossiers.iter().map(|d| d.cnpj.clone()).collect();
    // Read after the commit: the history ends with this run's own snapshot. The series
    // already hold it; the store is read again only when an analyst's series lack it.
    if let Some(run) = &fetched.store {
        let from_series =
            analysis.history.as_ref().and_then(|h| super::series::exposure_history_from(h, &cnpjs));
        analysis.dossier_history = Some(match from_series {
            Some(history) => history,
            None => {
                let store = &run.store;
                super::series::exposure_history(
                    &store.reader(),
                    &store.snapshots(),
                    &cnpjs,
                    &analysis.queries,
                )
                .await?
            }
        });
    }
    fetched.manifest.time_stage("dossies", started);
    Ok(())
}

/// Dossiers the demo run writes when `--dossies` is not given.
const DEMO_DOSSIERS: usize = 10;

/// The `n` companies with the largest exposure (`carteira_exposicao`) that owe something:
/// their dossiers are the ones an analyst opens first. Ties go to the smaller CNPJ.
fn largest_exposures(aggs: &crate::analyze::Aggregates, n: usize) -> Vec<Cnpj> {
    use crate::analyze::cells::{dec, text};
    let Some(df) = aggs.get("carteira_exposicao") else { return Vec::new() };
    let mut owing: Vec<(rust_decimal::Decimal, String)> = (0..df.height())
        .filter_map(|i| Some((dec(df, "exposicao_total", i)?, text(df, "cnpj", i)?)))
        .filter(|(total, _)| *total > rust_decimal::Decimal::ZERO)
        .collect();
    owing.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    owing.into_iter().filter_map(|(_, c)| Cnpj::parse(&c).ok()).take(n).collect()
}
