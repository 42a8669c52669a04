//! The fetch stage of `fetch` and `run`: open the data source, fetch every task into the
//! staging, write the manifest, and say what happened; for `fetch` alone, the snapshot
//! committed on a store and the staging published.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};

use super::fetched::{FetchStage, Fetched};
use super::source::read_open_data;
use super::store_plan::{Incremental, not_renewed, refuse_out_over_store, release_already_stored};
use crate::api::{AnoMes, Cnpj};
use crate::config::{MonthSelection, RunConfig, SchemaContract, SourceSettings};
use crate::exit::{Classified, ExitStatus, OutputError};
use crate::export::manifest::Manifest;
use crate::export::remote::{RemoteOut, is_remote, work_root};
use crate::extract::accounting::Accounting;
use crate::extract::incremental::RecordsReason;
use crate::extract::plan::IncrementalSpec;
use crate::extract::plan::portfolio_hash;
use crate::extract::runner::{FetchError, default_out_dir, latest_months};
use crate::extract::staging::Staging;
use crate::extract::{
    CreditsStaged, FetchJob, FetchOutcome, PageFetcher, PlanSpec, RetryPolicy, plan_tasks, portfolio,
    run_fetch,
};
use crate::transform::pretype::SegmentTyper;

/// `fiscal-report fetch`: the fetch stage alone.
pub(crate) async fn fetch(cfg: RunConfig, quiet: bool) -> Result<ExitStatus> {
    match fetch_stage(cfg, quiet, None).await? {
        FetchStage::Fetched(mut fetched) => {
            // With a store, `fetch` commits the new snapshot too, with its changes (the default
            // queries'); it leaves the report to `run`.
            if fetched.store.is_some() {
                let frames = crate::transform::staged::frames_from_staging(
                    &fetched.outcome,
                    fetched.typer.take(),
                    None,
                )?;
                super::commit::analyze_and_commit(
                    &mut fetched,
                    frames,
                    super::analysis::report_queries(&Default::default()),
                    false,
                    None,
                    Default::default(),
                )
                .await?;
                fetched.manifest.write(&fetched.out)?;
            }
            // Typed copies of every segment, before the fetch says it is done (and uploads).
            if let Some(typer) = fetched.typer.take() {
                typer.finish();
            }
            if fetched.remote.is_some() {
                publish_staging(&mut fetched).await?;
            }
            summarize(&fetched)
        }
        FetchStage::Interrupted => Ok(ExitStatus::Interrupted),
        FetchStage::AlreadyStored => Ok(ExitStatus::Ok),
    }
}

/// `fetch --out s3://…`: the finished staging is the fetch's output (what `merge` and `report
/// --from` read). Every staged file is uploaded, read once for its upload and its entry; then
/// the manifest, naming them all, goes last.
async fn publish_staging(fetched: &mut Fetched) -> Result<()> {
    let Some(remote) = &fetched.remote else { return Ok(()) };
    let mut files = Vec::new();
    let mut pending = vec![fetched.out.join(".staging")];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path.strip_prefix(&fetched.out)?.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    fetched.manifest.files = remote.upload(&fetched.out, files).await?;
    fetched.manifest.write(&fetched.out)?;
    let (objects, bytes) = remote.upload_manifest(&fetched.out, &fetched.manifest.files).await?;
    uploaded(remote, objects, bytes);
    remove_work_dir(fetched, &fetched.manifest);
    Ok(())
}

/// Uploads the finished run in the work dir to its URL, manifest last, then removes the work
/// dir unless tasks failed (a `--resume` there fetches only those, and uploads again).
pub(super) async fn publish(fetched: &Fetched) -> Result<()> {
    let Some(remote) = &fetched.remote else { return Ok(()) };
    let (manifest, objects, bytes) = remote.publish(&fetched.out).await?;
    uploaded(remote, objects, bytes);
    remove_work_dir(fetched, &manifest);
    Ok(())
}

fn remove_work_dir(fetched: &Fetched, manifest: &Manifest) {
    // The bucket holds the run now; the work dir would only stop the next run of this URL.
    if manifest.fetch.tasks_failed.is_empty()
        && let Err(e) = std::fs::remove_dir_all(&fetched.out)
    {
        tracing::warn!("could not remove the work dir {}: {e}", fetched.out.display());
    }
}

/// Says what went up to `remote`: a line for people, the bytes in the log.
pub(super) fn uploaded(remote: &RemoteOut, objects: usize, bytes: u64) {
    tracing::info!("uploaded {objects} objects ({bytes} bytes) to {}", remote.url());
    crate::say!("uploaded {objects} objects to {}", remote.url());
}

/// The portfolio's companies (`--cnpjs`), else the embedded registry's demo portfolio; none,
/// said, against a real service without `--cnpjs`.
fn companies_to_fetch(portfolio: Option<&portfolio::Portfolio>, demo: Option<&[Cnpj]>) -> Vec<Cnpj> {
    match (portfolio, demo) {
        (Some(p), _) => p.cnpjs.clone(),
        (None, Some(d)) => d.to_vec(),
        (None, None) => {
            tracing::warn!(
                "no --cnpjs: this run covers the aggregated credits only, no portfolio's companies"
            );
            Vec::new()
        }
    }
}

/// What the answers' shapes and months say: a field drifted, a month asked for with no credit.
fn say_what_came_back(s: &crate::extract::runner::FetchSummary, credits_asked: bool, months: &[AnoMes]) {
    for (operation, drift) in s.requests.drifted() {
        tracing::warn!("{}", describe_drift(operation, drift));
    }
    if credits_asked && s.tasks_failed.is_empty() {
        say_months_without_credits(months, s);
    }
}

/// Months asked for that came back without a single credit in any state: the service has
/// none for them (a month past its newest, or before its first), and the report's credit
/// sections leave them out.
fn say_months_without_credits(months: &[AnoMes], s: &crate::extract::runner::FetchSummary) {
    let seen = s.periodos.get(crate::tables::Table::CreditosAtivos.name());
    let empty: Vec<String> = months
        .iter()
        .map(ToString::to_string)
        .filter(|m| !seen.is_some_and(|seen| seen.contains(m)))
        .collect();
    if !empty.is_empty() {
        tracing::warn!(
            "no credits came back for {} in any state asked for: the service has none for {}; the report's \
             credit sections leave {} out (--ano-mes latest asks for the months it has)",
            empty.join(", "),
            if empty.len() == 1 { "that month" } else { "those months" },
            if empty.len() == 1 { "it" } else { "them" },
        );
    }
}

/// What to do with the credits' staged segments once the fetch has staged them all, made for
/// the run's output folder (known once the fetch has resolved its months).
pub(super) type OnCredits = Box<dyn FnOnce(&std::path::Path) -> CreditsStaged + Send>;

/// Fetches what `args` ask; with `--out s3://…` into a local work dir the caller publishes
/// from when it has finished (`publish`). Records are typed as their segments are committed,
/// for whichever command reads them next (`run`, `merge`, `report --from`).
pub(super) async fn fetch_stage(
    mut cfg: RunConfig,
    quiet: bool,
    on_credits_staged: Option<OnCredits>,
) -> Result<FetchStage> {
    let remote = work_dir_for_remote(&mut cfg)?;
    // The publishers' files carry alphanumeric CNPJs; the service does not take them.
    let alphanumeric = cfg.open_data.is_some();
    let portfolio =
        cfg.cnpjs.as_deref().map(|path| read_portfolio(path, cfg.strict, alphanumeric)).transpose()?;
    let mut release = read_open_data(&cfg, portfolio.as_ref()).await?;
    let mut listas_dir = match release {
        Some(_) => None,
        None => read_listas_dir(cfg.listas_dir.as_deref())?,
    };
    refuse_unread_when_strict(&cfg, release.as_ref(), listas_dir.as_ref())?;
    let settings = SourceSettings::from_run_config(&cfg);
    let accounting = Arc::new(Accounting::default());
    let pool = |source: &super::source::Source| {
        PageFetcher::new(
            source.client.clone(),
            cfg.concurrency,
            cfg.max_rps,
            RetryPolicy::for_run(),
            accounting.clone(),
        )
    };
    let opened = super::source::open_records(&settings, release.as_mut(), pool, accounting.clone()).await?;
    let (source, fetcher) = (opened.service, Arc::new(opened.records));
    let cnpjs =
        companies_to_fetch(portfolio.as_ref(), source.as_ref().and_then(|s| s.demo_portfolio.as_deref()));
    let regime_dir = match release {
        Some(_) => None,
        None => read_regime_dir(cfg.regime_dir.as_deref(), &cnpjs)?,
    };
    let newest_month = source.as_ref().and_then(|s| s.newest_month);
    let months = months_to_fetch(&cfg, release.as_ref(), fetcher.pool(), newest_month).await?;
    let out = cfg.out.clone().unwrap_or_else(|| default_out_dir(&months));
    refuse_out_over_store(&out, cfg.store.as_deref())?;
    // The run's reference month: its newest (`months_to_fetch` gives at least one).
    let snapshot = months[months.len() - 1];
    let incremental = Incremental::plan(&cfg, &months, snapshot).await?;
    if let (Some(_), Some(i)) = (&release, &incremental)
        && release_already_stored(&i.store, snapshot)?
    {
        return Ok(FetchStage::AlreadyStored);
    }
    if let (Some(r), Some(i)) = (release.as_mut(), &incremental) {
        r.carried = not_renewed(r, &i.store, cfg.partial, cfg.open_data.as_deref())?;
    }
    let credit_months: &[AnoMes] = incremental.as_ref().map_or(&months, |i| &i.credit_months);
    // The published files carry no aggregated credits: nothing to ask for them, unless a
    // service stands beside the files.
    let files_alone = release.is_some() && cfg.base_url.is_none();
    let credit_ufs: &[crate::api::Uf] = if files_alone { &[] } else { &cfg.ufs };
    let spec = PlanSpec {
        base_url: opened.label,
        months: months.iter().map(ToString::to_string).collect(),
        ufs: credit_ufs.iter().map(ToString::to_string).collect(),
        portfolio_sha256: portfolio_hash(&cnpjs),
        portfolio_size: cnpjs.len(),
        shard: cfg.shard,
        demo: source.as_ref().is_some_and(|s| s.demo_portfolio.is_some()),
        incremental: incremental.as_ref().map(|i| IncrementalSpec {
            store_version: i.store.data_version(),
            credit_months: credit_months.iter().map(ToString::to_string).collect(),
        }),
        records: crate::extract::plan::company_record_names(),
    };
    if !cfg.resume && finished_run(&out) {
        Staging::clear_finished(&out)?;
        crate::say!("{} holds a finished run: this run replaces it", out.display());
    }
    let staging = Staging::open(&out, &spec, cfg.resume)?;
    if let Some(r) = &release {
        let dir = out.join(crate::codes::RELEASE_DIR);
        crate::extract::open_data::write_code_tables(r, &dir)
            .map_err(|e| OutputError::wrap(dir, "free space on that disk, or fix its permissions", e))?;
    }
    let tasks = plan_tasks(credit_ufs, credit_months, &cnpjs, cfg.shard);
    say_what_is_fetched(&cfg, months.len(), cnpjs.len(), &out, tasks.len());
    let typer = Some(SegmentTyper::start(accounting.clone()).context("starting the typing thread")?);
    let job = FetchJob {
        tasks,
        quiet,
        commit_rows: 50_000,
        commit_every: Duration::from_secs(2),
        records_policy: incremental.as_ref().map(|i| i.records.clone()),
        on_commit: typer.as_ref().map(SegmentTyper::sink),
        // The credits' segments once they are typed too.
        on_credits_staged: typer.as_ref().zip(on_credits_staged).map(|(t, f)| t.after_typed(f(&out))),
    };
    let outcome = match run_fetch(fetcher.clone(), staging, job).await {
        Ok(o) => o,
        // The service's own error, so the message names the key and not the fetch.
        Err(FetchError::KeyRejected(e)) => return Err(e.into()),
        Err(e) => return Err(e.into()),
    };
    let portfolio_note = portfolio.as_ref().zip(cfg.cnpjs.as_deref()).map(|(p, path)| p.note(path));
    super::source::finish_regimes(release.as_mut()).await?;
    let read =
        Read { release: release.as_ref(), listas_dir: listas_dir.as_ref(), regime_dir: regime_dir.as_ref() };
    let manifest = write_fetch_manifest(&spec, &outcome, &cfg, read, portfolio_note, &out)?;
    let s = &outcome.summary;
    if s.interrupted {
        crate::say!(
            "interrupted: {} tasks are staged in {}; run the same command with --resume{} to fetch only what is missing",
            s.tasks_done,
            out.display(),
            if cfg.out.is_none() { format!(" --out {}", out.display()) } else { String::new() }
        );
        return Ok(FetchStage::Interrupted);
    }
    say_what_came_back(s, !credit_ufs.is_empty(), credit_months);
    check_contract(&manifest, Some(cfg.schema_contract), &out)?;
    let store = incremental.map(|i| i.into_run(snapshot, &months, &cfg, &outcome, release.as_ref()));
    Ok(FetchStage::Fetched(Box::new(Fetched {
        outcome,
        manifest,
        out,
        store,
        _source: source,
        fetcher,
        remote,
        typer,
        national: release.as_mut().map(|r| std::mem::take(&mut r.national)),
        regimes: match release.as_mut() {
            Some(r) => Some(std::mem::take(&mut r.regimes)),
            None => regime_dir,
        },
        listas: match release.as_mut() {
            Some(r) => Some(std::mem::take(&mut r.listas)),
            None => listas_dir.take(),
        },
    })))
}

/// `--strict`: a file of the folder no reader takes, or a list expected there and missing,
/// stops the run before anything is fetched (exit 2), naming each.
fn refuse_unread_when_strict(
    cfg: &RunConfig,
    release: Option<&crate::extract::open_data::Release>,
    listas_dir: Option<&crate::extract::open_data::listas::Listas>,
) -> Result<()> {
    let (dir, unread, missing) = match (release, listas_dir) {
        (Some(r), _) => (cfg.open_data.as_deref(), r.unread(), &r.listas.missing),
        (None, Some(l)) => (cfg.listas_dir.as_deref(), l.unread.clone(), &l.missing),
        (None, None) => return Ok(()),
    };
    if !cfg.strict || (unread.is_empty() && missing.is_empty()) {
        return Ok(());
    }
    let mut problems = Vec::new();
    if !unread.is_empty() {
        problems.push(format!(
            "no reader takes {} (the readers take {}): move it out of the folder",
            unread.join(", "),
            crate::extract::open_data::READERS_TAKE
        ));
    }
    for (list, why) in missing {
        problems.push(format!(
            "the list {} was expected, {}, but no file of it is there: run `download --listas` again",
            list.codigo(),
            why.says()
        ));
    }
    let dir = dir.map_or_else(String::new, |d| format!("{}: ", d.display()));
    let message = format!("{dir}--strict: {}; or run without --strict", problems.join("; "));
    Err(Classified::new(ExitStatus::BadInput, message).into())
}

/// `--listas-dir DIR`: the public lists for a run over a service; `None` without it.
fn read_listas_dir(
    dir: Option<&std::path::Path>,
) -> Result<Option<crate::extract::open_data::listas::Listas>> {
    let Some(dir) = dir else { return Ok(None) };
    let listas = crate::extract::open_data::read_listas_dir(dir)?;
    tracing::info!(
        "public lists: {} files, {} records from {}",
        listas.files.len(),
        listas.records.len(),
        dir.display()
    );
    Ok(Some(listas))
}

/// `--regime-dir DIR`: RFB's tax regime files for a run over a service, the rows of `cnpjs`'
/// companies; `None` without it.
fn read_regime_dir(
    dir: Option<&std::path::Path>,
    cnpjs: &[crate::api::Cnpj],
) -> Result<Option<crate::extract::open_data::regime::Regimes>> {
    let Some(dir) = dir else { return Ok(None) };
    let regimes = crate::extract::open_data::read_regime_dir(dir, cnpjs)?;
    tracing::info!(
        "tax regimes: {} files, {} rows of the portfolio's companies from {}",
        regimes.files.len(),
        regimes.records.len(),
        dir.display()
    );
    Ok(Some(regimes))
}

/// Whether `out` holds a run that finished: its manifest says nothing failed nor was
/// interrupted, and its report was written. A run stopped before that keeps its staging for
/// `--resume`.
fn finished_run(out: &Path) -> bool {
    Manifest::read(out).is_ok_and(|m| {
        !m.fetch.interrupted
            && m.fetch.tasks_failed.is_empty()
            && m.stages.iter().any(|s| s.stage == "report")
    })
}

/// Object storage: the run works in a local directory of its own (`cfg.out` then names it),
/// uploaded when finished.
fn work_dir_for_remote(cfg: &mut RunConfig) -> Result<Option<RemoteOut>> {
    let Some(url) = cfg.out.as_deref().filter(|o| is_remote(o)) else { return Ok(None) };
    let remote = RemoteOut::parse(&url.to_string_lossy())?;
    cfg.out = Some(remote.work_dir(&work_root()));
    Ok(Some(remote))
}

/// The portfolio file, its skipped lines and dropped duplicates said.
fn read_portfolio(path: &std::path::Path, strict: bool, alphanumeric: bool) -> Result<portfolio::Portfolio> {
    let p = portfolio::read_portfolio(path, strict, alphanumeric)?;
    for issue in &p.issues {
        tracing::warn!(
            "{}, line {}: skipped {:?}: {}",
            path.display(),
            issue.line,
            issue.input,
            issue.reason
        );
    }
    if p.duplicates > 0 {
        tracing::info!("{}: {} duplicate CNPJs dropped", path.display(), p.duplicates);
    }
    Ok(p)
}

/// The months the run covers, oldest first and never none: a release's own month, or those
/// `--ano-mes` names (`latest` asks the service which months have credits).
async fn months_to_fetch(
    cfg: &RunConfig,
    release: Option<&crate::extract::open_data::Release>,
    fetcher: Option<&PageFetcher>,
    newest_month: Option<AnoMes>,
) -> Result<Vec<AnoMes>> {
    let months = match (&cfg.months, release, fetcher) {
        (MonthSelection::Range(from, to), _, _) => crate::extract::plan::month_range(*from, *to),
        // A release has no credits to probe: it stands for its own month.
        (MonthSelection::Latest(_), Some(r), _) => vec![r.month().ok_or_else(|| {
            Classified::new(
                ExitStatus::BadInput,
                "the open-data files say no release month (the publishers' folders are named like \
                 2024_trimestre_01/ and 2024-05/): keep those folder names, or give the month with --ano-mes AAAAMM",
            )
        })?],
        (MonthSelection::Latest(n), None, Some(f)) => {
            latest_months(f, *n, newest_month).await.map_err(|e| match e {
                e @ crate::api::ApiError::KeyRejected { .. } => anyhow::Error::new(e),
                e => anyhow::Error::new(e).context("finding the months to fetch"),
            })?
        }
        // Without a release there is always a service.
        (MonthSelection::Latest(_), None, None) => Vec::new(),
    };
    if months.is_empty() {
        return Err(Classified::new(
            ExitStatus::ServiceUnavailable,
            "the service reported no month with credits in the last 3 years",
        )
        .into());
    }
    Ok(months)
}

fn say_what_is_fetched(
    cfg: &RunConfig,
    months: usize,
    companies: usize,
    out: &std::path::Path,
    tasks: usize,
) {
    tracing::info!(
        "fetching {months} months x {} states and {companies} companies into {} ({tasks} tasks{})",
        cfg.ufs.len(),
        out.display(),
        if cfg.shard.count > 1 {
            format!(", shard {}/{}", cfg.shard.index, cfg.shard.count)
        } else {
            String::new()
        }
    );
}

/// What the run read from folders: the release, or the lists of `--listas-dir` and the tax
/// regimes of `--regime-dir`.
#[derive(Clone, Copy)]
struct Read<'a> {
    release: Option<&'a crate::extract::open_data::Release>,
    listas_dir: Option<&'a crate::extract::open_data::listas::Listas>,
    regime_dir: Option<&'a crate::extract::open_data::regime::Regimes>,
}

/// The fetch's manifest, written before anything reads the staging: a full disk says how to
/// resume.
fn write_fetch_manifest(
    spec: &PlanSpec,
    outcome: &FetchOutcome,
    cfg: &RunConfig,
    read: Read<'_>,
    carteira: Option<portfolio::PortfolioNote>,
    out: &std::path::Path,
) -> Result<Manifest> {
    // What the folder's report was last mailed as: kept, so a re-run of that month does not
    // mail it again (`pipeline::mail`).
    let mailed = Manifest::read(out).ok().and_then(|m| m.email);
    let list_date = crate::transform::listas::list_date;
    let mut manifest = Manifest::for_fetch(spec, &outcome.summary);
    manifest.email = mailed;
    manifest.carteira = carteira;
    manifest.open_data = read.release.zip(cfg.open_data.as_deref()).map(|(r, dir)| r.note(dir, list_date));
    manifest.listas_dir = read
        .listas_dir
        .zip(cfg.listas_dir.as_deref())
        .map(|(l, dir)| crate::extract::open_data::ListasDirNote::of(dir, l, list_date));
    manifest.regime_dir = read
        .regime_dir
        .zip(cfg.regime_dir.as_deref())
        .map(|(r, dir)| crate::extract::open_data::RegimeDirNote::of(dir, r));
    // Written only for freeze: evolve is what a manifest without it means.
    manifest.schema_contract =
        (cfg.schema_contract == SchemaContract::Freeze).then_some(SchemaContract::Freeze);
    manifest.write(out).map_err(|e| {
        OutputError::wrap(
            out.join("manifest.json"),
            format!(
                "free space on that disk (or fix its permissions), \
                 then run the same command with --resume --out {}: \
                 everything fetched is staged and is not fetched again",
                out.display()
            ),
            e,
        )
    })?;
    Ok(manifest)
}

/// Refuses to go on with data of a changed shape when the contract is freeze: the one given
/// (`run`, `fetch`, or `--schema-contract` on `merge` and `report --from`), else the one the
/// fetch that staged `dir` ran under.
pub(super) fn check_contract(
    manifest: &Manifest,
    given: Option<SchemaContract>,
    dir: &std::path::Path,
) -> Result<()> {
    let recorded = manifest.schema_contract.unwrap_or_default();
    if given.unwrap_or(recorded) != SchemaContract::Freeze {
        return Ok(());
    }
    let what: Vec<String> = manifest.fetch.requests.drifted().map(|(op, d)| describe_drift(op, d)).collect();
    if what.is_empty() {
        return Ok(());
    }
    Err(Classified::new(
        ExitStatus::SchemaDrift,
        format!(
            "the service's data shape changed and the schema contract is freeze, so nothing was \
             exported: {}. Check docs/service-api.md against the service; to take the new shape, \
             run the same command with --schema-contract evolve (a fetch or run also with --resume \
             --out {}: the records already staged there are not fetched again)",
            what.join("; "),
            dir.display()
        ),
    )
    .into())
}

/// One operation's drift in a line a person reads.
fn describe_drift(operation: &str, d: &crate::api::shape::ShapeDrift) -> String {
    let list = |m: &std::collections::BTreeMap<String, u64>| {
        m.iter().map(|(f, n)| format!("{f} ({n})")).collect::<Vec<_>>().join(", ")
    };
    let mut parts = Vec::new();
    if !d.unknown_fields.is_empty() {
        parts.push(format!("fields the models do not know: {}", list(&d.unknown_fields)));
    }
    if !d.missing_fields.is_empty() {
        parts.push(format!("fields not sent: {}", list(&d.missing_fields)));
    }
    format!("{operation}: of {} records, {}", d.records, parts.join("; "))
}

pub(super) fn summarize(fetched: &Fetched) -> Result<ExitStatus> {
    let (s, out) = (&fetched.outcome.summary, &fetched.out);
    crate::say!(
        "fetched {} records in {:.1}s: {} requests, {} retries, {} rate-limited, {} companies not found, {} failed tasks -> {}",
        s.records.values().sum::<u64>(),
        s.wall_seconds,
        s.requests.requests,
        s.requests.retries,
        s.requests.rate_limited,
        s.companies_not_found.len(),
        s.tasks_failed.len(),
        out.display()
    );
    if !s.company_records.is_empty() {
        let carried = s.company_records.get(RecordsReason::Carried.name()).copied().unwrap_or(0);
        let why: Vec<String> = RecordsReason::ALL
            .iter()
            .filter(|r| **r != RecordsReason::Carried)
            .filter_map(|r| s.company_records.get(r.name()).map(|n| format!("{} {n}", r.name())))
            .collect();
        crate::say!(
            "companies: {carried} unchanged (their records carried from the store), {} fetched again ({})",
            s.company_records.values().sum::<u64>() - carried,
            if why.is_empty() { "none".to_string() } else { why.join(", ") }
        );
    }
    // Set only once the snapshot is committed (a run with failed tasks commits nothing).
    if let Some(note) = &fetched.manifest.store {
        crate::say!(
            "store {}: version {} committed, snapshot {} (credits: {} of {} months fetched, the rest from the store)",
            note.dir,
            note.version,
            note.snapshot,
            note.credit_months_fetched.len(),
            fetched.manifest.plan.months.len()
        );
    }
    if !s.tasks_failed.is_empty() {
        for f in s.tasks_failed.iter().take(10) {
            crate::say!("  failed: {}: {}", f.task, f.error);
        }
        // A request the service refused as invalid gets the same answer however often it is
        // asked: what to fix, not "retry later".
        let refused: Vec<_> = s.tasks_failed.iter().filter(|f| f.refused).collect();
        if let Some(first) = refused.first() {
            return Err(Classified::new(
                ExitStatus::BadInput,
                format!(
                    "the service refused {} request(s) as invalid, which asking again does not change \
                     (first: {}: {}); everything else is staged in {}. Check what the service said against \
                     docs/service-api.md; once the input is fixed, run again with --resume --out {} to ask \
                     only those again",
                    refused.len(),
                    first.task,
                    first.error,
                    out.display(),
                    out.display()
                ),
            )
            .into());
        }
        // Not one answer: the service is down or unreachable, not a few tasks unlucky.
        if s.tasks_done == 0 && s.companies_not_found.is_empty() {
            return Err(Classified::new(
                ExitStatus::ServiceUnavailable,
                format!(
                    "all {} tasks failed after their retries: the service could not be reached or kept \
                     failing, and nothing was fetched; retry later with --resume --out {}",
                    s.tasks_failed.len(),
                    out.display()
                ),
            )
            .into());
        }
        return Err(Classified::new(
            ExitStatus::PartialFailure,
            format!(
                "{} tasks failed after their retries (listed in {}/manifest.json); everything else is staged: \
                 run again with --resume --out {} to retry only those",
                s.tasks_failed.len(),
                out.display(),
                out.display()
            ),
        )
        .into());
    }
    Ok(ExitStatus::Ok)
}
