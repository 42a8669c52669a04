//! Runs a planned fetch: every task through the shared `PageFetcher`, finished tasks handed to
//! a staging writer thread that commits them in batches, Ctrl-C and a rejected key stopping
//! cleanly with everything finished so far kept.
//!
//! It decides what one task fetches and what its outcome means (done, not found, failed);
//! how a request is retried is `pool`'s, how records reach disk is `staging`'s.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde::Serialize;

use super::accounting::{Accounting, AccountingSummary};
use super::fetch_progress::Progress;
use super::incremental::{RecordsPolicy, RecordsReason, resumos_seen};
use super::plan::{CompanyRecords, CompanyTask, CreditTask, Task};
use super::pool::PageFetcher;
use super::records::{Paged, Records};
use super::staging::{CommittedSegment, Staging, StagingError, TaskEntry, TaskStatus};
use crate::api::models::{CreditoAtivo, DividaPgfn, Fonte, ParcelamentoRfb, Socio, TransacaoRfb};
use crate::api::paginate::{Walk, walk_pages};
use crate::api::shape::ShapeLog;
use crate::api::{AnoMes, ApiError, Operation, Page};
use crate::periods::PeriodsSeen;
use crate::tables::{Row, Table, flat_row, profile_row};

/// Pages of one list fetched at once. As many as the pool can hold: at the end of a run one
/// long list may be all that is left, and it should fill the pool alone. The pool bounds the
/// total in flight whatever this is.
const PAGE_FAN_OUT: usize = 512;

/// What a fetch produced; the input of the transform stage.
pub struct FetchOutcome {
    pub staging: Staging,
    pub summary: FetchSummary,
}

/// The fetch's accounting, as the manifest records it.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct FetchSummary {
    pub tasks_planned: usize,
    pub tasks_resumed: usize,
    pub tasks_done: usize,
    pub tasks_failed: Vec<FailedTask>,
    pub companies_not_found: Vec<String>,
    pub records: BTreeMap<String, u64>,
    pub requests: AccountingSummary,
    pub fontes: BTreeMap<String, Fonte>,
    /// The period fields the records carried (`dataset_trimester`, `dataset_month`, `ano_mes`):
    /// staged table -> every distinct value, as sent.
    #[serde(default, rename = "periodos_nos_registros", skip_serializing_if = "BTreeMap::is_empty")]
    pub periodos: PeriodsSeen,
    pub warnings: Vec<String>,
    pub wall_seconds: f64,
    pub interrupted: bool,
    /// With a store: companies by what happened to their records (`inalterada` = carried from
    /// the store, else why they were fetched).
    #[serde(default, rename = "company_lists", skip_serializing_if = "BTreeMap::is_empty")]
    pub company_records: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct FailedTask {
    pub task: String,
    pub error: String,
    /// The service refused the request as invalid: asking again gives the same answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(transparent)]
    Staging(#[from] StagingError),
    #[error("{0}")]
    KeyRejected(ApiError),
    #[error("the staging writer stopped unexpectedly: {0}")]
    Writer(String),
}

impl crate::exit::HasExitStatus for FetchError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        match self {
            Self::Staging(e) => e.exit_status(),
            Self::KeyRejected(_) => crate::exit::ExitStatus::KeyRejected,
            Self::Writer(_) => crate::exit::ExitStatus::Internal,
        }
    }
}

pub(super) enum TaskOutput {
    /// The rows and the task's journal entry (its task key and record counts are filled in
    /// by the loop that stages it).
    Done {
        rows: BTreeMap<Table, Vec<Row>>,
        entry: TaskEntry,
    },
    NotFound,
    Failed(ApiError),
}

fn add_rows(rows: &mut BTreeMap<Table, Vec<Row>>, table: Table, new: impl IntoIterator<Item = Row>) {
    rows.entry(table).or_default().extend(new);
}

async fn walk<T: serde::de::DeserializeOwned>(
    f: &PageFetcher,
    op: &Operation,
    shapes: &ShapeLog,
) -> Result<Walk<T>, ApiError> {
    walk_pages(op.kind().name(), PAGE_FAN_OUT, |p: Page| f.page_checked::<T>(op, p, shapes)).await
}

async fn credit_task(f: Option<&PageFetcher>, t: &CreditTask) -> TaskOutput {
    let op = Operation::CreditosAtivos { uf: Some(t.uf.clone()), ano_mes: Some(t.ano_mes) };
    // Never planned without a service: the files carry no credits.
    let Some(f) = f else {
        return TaskOutput::Failed(ApiError::NotFound {
            path: op.path(),
            detail: "no service to ask: the publishers' files carry no aggregated credits".to_string(),
        });
    };
    let shapes = ShapeLog::default();
    match walk::<CreditoAtivo>(f, &op, &shapes).await {
        Ok(w) => {
            let mut rows = BTreeMap::new();
            add_rows(
                &mut rows,
                Table::CreditosAtivos,
                w.items.iter().map(|r| flat_row(Table::CreditosAtivos, r, &[])),
            );
            let fontes =
                w.fonte.map(|fo| (op.kind().name().to_string(), fo)).into_iter().collect::<BTreeMap<_, _>>();
            let entry = TaskEntry {
                pages: u64::from(w.pages),
                fontes: fontes.into(),
                periodos: periods_seen(&rows).into(),
                warnings: w.warnings,
                shapes: shapes.into_inner(),
                ..TaskEntry::new(t.key(), TaskStatus::Done)
            };
            TaskOutput::Done { rows, entry }
        }
        Err(e) => TaskOutput::Failed(e),
    }
}

pub(super) async fn company_task(
    f: &Records,
    t: &CompanyTask,
    records_policy: Option<&RecordsPolicy>,
) -> TaskOutput {
    let cnpj = t.cnpj.as_str();
    let shapes = ShapeLog::default();
    let profile = match f.profile(&t.cnpj, Some(&shapes)).await {
        Ok(p) => p,
        Err(ApiError::NotFound { .. }) => return TaskOutput::NotFound,
        Err(e) => return TaskOutput::Failed(e),
    };
    let mut rows = BTreeMap::new();
    let mut fontes: BTreeMap<String, Fonte> = profile.fontes.clone().unwrap_or_default();
    add_rows(&mut rows, Table::Empresas, [profile_row(&profile, cnpj)]);
    let resumos = if records_policy.is_some() { resumos_seen(&profile) } else { BTreeMap::new() };
    let reason = records_policy.map(|p| p.decide(cnpj, profile.snapshot_fingerprint.as_deref(), &resumos));
    let record_lists = if reason == Some(RecordsReason::Carried) {
        Vec::new()
    } else {
        futures::future::join_all(CompanyTask::RECORDS.iter().map(|l| company_list(f, t, *l, &shapes))).await
    };
    // The profile's page, where a page was asked for it.
    let (mut pages, mut warnings) = (u64::from(f.pool().is_some()), Vec::new());
    for result in record_lists {
        match result {
            Ok((table, list_rows, w_pages, fonte, w_warnings, op_name)) => {
                add_rows(&mut rows, table, list_rows);
                pages += w_pages;
                warnings.extend(w_warnings);
                if let Some(fo) = fonte {
                    fontes.insert(op_name.to_string(), fo);
                }
            }
            Err(e) => return TaskOutput::Failed(e),
        }
    }
    let entry = TaskEntry {
        pages,
        fontes: fontes.into(),
        periodos: periods_seen(&rows).into(),
        warnings,
        shapes: shapes.into_inner(),
        records_reason: reason,
        resumos,
        ..TaskEntry::new(t.key(), TaskStatus::Done)
    };
    TaskOutput::Done { rows, entry }
}

/// The distinct values of the period fields of `rows` (`Table::period_columns`), by table:
/// what the service said each record's release is.
fn periods_seen(rows: &BTreeMap<Table, Vec<Row>>) -> PeriodsSeen {
    let mut seen = PeriodsSeen::new();
    for (table, rows) in rows {
        for column in table.period_columns() {
            for v in rows.iter().filter_map(|r| crate::tables::value(*table, r, column)) {
                if !seen.get(table.name()).is_some_and(|s| s.contains(v)) {
                    seen.entry(table.name().to_string()).or_default().insert(v.to_string());
                }
            }
        }
    }
    seen
}

type ListResult = (Table, Vec<Row>, u64, Option<Fonte>, Vec<String>, &'static str);

/// One list of a company, walked to its end and staged as `table` rows with `context`.
async fn staged_list<T: Paged + serde::Serialize + Default>(
    f: &Records,
    op: Operation,
    table: Table,
    context: &[(&str, &str)],
    shapes: &ShapeLog,
) -> Result<ListResult, ApiError> {
    let mut warnings = Vec::new();
    let w = match f.list::<T>(&op, PAGE_FAN_OUT, Some(shapes)).await {
        // A 404 on a list of a company whose profile exists means "nothing here", not a failure.
        Err(ApiError::NotFound { .. }) => {
            warnings.push(format!("{op}: 404 for a company whose profile exists; read as empty"));
            Walk { items: vec![], fonte: None, total: 0, pages: 1, warnings: vec![] }
        }
        other => other?,
    };
    let rows = w.items.iter().map(|r| flat_row(table, r, context)).collect();
    warnings.extend(w.warnings);
    Ok((table, rows, u64::from(w.pages), w.fonte, warnings, op.kind().name()))
}

async fn company_list(
    f: &Records,
    t: &CompanyTask,
    list: CompanyRecords,
    shapes: &ShapeLog,
) -> Result<ListResult, ApiError> {
    let cnpj = t.cnpj.clone();
    let ctx = [("cnpj_consultado", t.cnpj.as_str())];
    match list {
        CompanyRecords::Dividas(cat) => {
            let ctx = [ctx[0], ("categoria", cat.as_str())];
            staged_list::<DividaPgfn>(f, Operation::DividasPgfn(cnpj, cat), Table::DividasPgfn, &ctx, shapes)
                .await
        }
        CompanyRecords::Parcelamentos => {
            let op = Operation::ParcelamentosRfb(cnpj);
            staged_list::<ParcelamentoRfb>(f, op, Table::ParcelamentosRfb, &ctx, shapes).await
        }
        CompanyRecords::Transacoes => {
            staged_list::<TransacaoRfb>(f, Operation::TransacoesRfb(cnpj), Table::TransacoesRfb, &ctx, shapes)
                .await
        }
        CompanyRecords::Socios => {
            staged_list::<Socio>(f, Operation::Socios(cnpj), Table::Socios, &ctx, shapes).await
        }
    }
}

async fn run_task(f: &Records, task: Task, records_policy: Option<&RecordsPolicy>) -> (String, TaskOutput) {
    let out = match &task {
        Task::Credit(t) => credit_task(f.pool(), t).await,
        Task::Company(t) => company_task(f, t, records_policy).await,
    };
    (task.key(), out)
}

/// `--ano-mes latest`: the `n` months ending with the newest the service has credits for,
/// probed back from `newest` (a source that knows its newest month, as the embedded registry
/// does, so the demo works whatever the date) or else from this month, at most 36 months back.
pub async fn latest_months(f: &PageFetcher, n: u32, newest: Option<AnoMes>) -> Result<Vec<AnoMes>, ApiError> {
    let Some(start) = newest.or_else(this_month) else { return Ok(vec![]) };
    let probe = Page { limite: 1, offset: 0 };
    for back in 0..36 {
        let Some(m) = start.plus_months(-back) else { break };
        let op = Operation::CreditosAtivos { uf: None, ano_mes: Some(m) };
        let env = f.page::<CreditoAtivo>(&op, probe).await?;
        if env.paginacao.and_then(|p| p.total).unwrap_or(0) > 0 || !env.itens.is_empty() {
            let from = m.plus_months(-(n as i32 - 1)).unwrap_or(m);
            return Ok(super::plan::month_range(from, m));
        }
    }
    Ok(vec![])
}

/// This month, by the clock; `FISCAL_REPORT_TODAY=AAAA-MM-DD` sets the day instead (to
/// reproduce a run of another day, and for tests of `latest` on any date).
pub fn this_month() -> Option<AnoMes> {
    let today = crate::environment::today()
        .and_then(|d| chrono::NaiveDate::parse_from_str(d.trim(), "%Y-%m-%d").ok())
        .unwrap_or_else(|| chrono::Utc::now().date_naive());
    AnoMes::new(chrono::Datelike::year(&today) as u16, chrono::Datelike::month(&today) as u8)
}

/// Settings of one fetch.
pub struct FetchJob {
    pub tasks: Vec<Task>,
    pub quiet: bool,
    /// Finished tasks are committed in batches of about this many rows...
    pub commit_rows: usize,
    /// ...or after a tenth of the fetch so far, at least `COMMIT_EVERY_LEAST` and at most this
    /// long (unless this is shorter than that least), whichever comes first.
    pub commit_every: Duration,
    /// With a store: how each company's lists are decided (`None`: always fetched).
    pub records_policy: Option<Arc<RecordsPolicy>>,
    /// Given every segment once it is committed (durable), with its rows: the later stages
    /// type them while the fetch goes on. Called on the writer thread, so it should only hand
    /// them on.
    pub on_commit: Option<SegmentSink>,
    /// Given the credits' segments (this fetch's and an earlier attempt's) once every credit
    /// task of the plan is committed, after `on_commit` has had them: the later stages can
    /// begin on the credits while the companies are still fetched. Called on the writer thread.
    pub on_credits_staged: Option<CreditsStaged>,
}

/// Where committed segments go (see `FetchJob::on_commit`).
pub type SegmentSink = Box<dyn FnMut(CommittedSegment) + Send>;

/// Where the credits' segments go once they are all staged (see `FetchJob::on_credits_staged`).
pub type CreditsStaged = Box<dyn FnOnce(Vec<std::path::PathBuf>) + Send>;

/// What the writer thread does besides committing: hand on each committed segment, and the
/// credits' segments once the last of `credits_left` credit tasks is committed.
struct Handoff {
    on_commit: Option<SegmentSink>,
    credits_left: usize,
    on_credits: Option<CreditsStaged>,
}

impl Handoff {
    fn committed(&mut self, staging: &Staging, segments: Vec<CommittedSegment>, credit_tasks: usize) {
        if let Some(sink) = self.on_commit.as_mut() {
            segments.into_iter().for_each(sink);
        }
        self.credits_left = self.credits_left.saturating_sub(credit_tasks);
        self.credits_if_staged(staging);
    }

    /// Whether committing `credit_tasks` more would stage the last credit task someone waits for.
    fn completes(&self, credit_tasks: usize) -> bool {
        self.on_credits.is_some() && credit_tasks > 0 && credit_tasks >= self.credits_left
    }

    fn credits_if_staged(&mut self, staging: &Staging) {
        if self.credits_left == 0
            && let Some(f) = self.on_credits.take()
        {
            f(staging.segment_paths(Table::CreditosAtivos));
        }
    }
}

/// The shortest time between two commits. What the last commit holds is typed after the
/// fetch ends, so a commit every 2 s left up to 2 s of records to type then (60 ms of a 0.7 s
/// fetch of 300 companies); the interval grows with the fetch (a tenth of it), so that past
/// its first 20 s a run makes its segment files as before (about 20 more in all).
const COMMIT_EVERY_LEAST: Duration = Duration::from_millis(250);

/// The time between two commits when the fetch has run `elapsed`: a tenth of that, at least
/// `COMMIT_EVERY_LEAST` and at most `most` (the least winning when `most` is shorter).
fn commit_interval(elapsed: Duration, most: Duration) -> Duration {
    (elapsed / 10).clamp(COMMIT_EVERY_LEAST, most.max(COMMIT_EVERY_LEAST))
}

/// A finished task on its way to the writer.
type Finished = (TaskEntry, BTreeMap<Table, Vec<Row>>);

/// Finished tasks the writer may have waiting: with the publishers' files the tasks finish
/// faster than their rows are committed and typed, and the queue is what the process holds
/// meanwhile (a 500,000-company run grew to 3.5 GiB where the typing fell behind).
const WRITER_QUEUE: usize = 4096;

fn writer_thread(
    mut staging: Staging,
    mut rx: tokio::sync::mpsc::Receiver<Finished>,
    commit_rows: usize,
    commit_every: Duration,
    mut handoff: Handoff,
    runtime: tokio::runtime::Handle,
) -> Result<Staging, StagingError> {
    // A fetch with no credit task left (none planned, or all staged before a resume).
    handoff.credits_if_staged(&staging);
    let mut rows: BTreeMap<Table, Vec<Row>> = BTreeMap::new();
    let mut entries = Vec::new();
    let (mut buffered, mut credit_tasks) = (0usize, 0usize);
    let started = Instant::now();
    let mut last = started;
    loop {
        let every = commit_interval(started.elapsed(), commit_every);
        let wait = every.saturating_sub(last.elapsed()).max(Duration::from_millis(10));
        // On a blocking thread of the runtime: waiting here holds up no task.
        let msg = runtime.block_on(async { tokio::time::timeout(wait, rx.recv()).await });
        let closed = matches!(msg, Ok(None));
        if let Ok(Some((entry, new))) = msg {
            for (t, r) in new {
                buffered += r.len();
                rows.entry(t).or_default().extend(r);
            }
            credit_tasks += usize::from(CreditTask::is_key(&entry.task));
            entries.push(entry);
        }
        // The last credit task is committed at once: the later stages are waiting for it.
        if closed || buffered >= commit_rows || last.elapsed() >= every || handoff.completes(credit_tasks) {
            let committed = staging.commit(std::mem::take(&mut rows), std::mem::take(&mut entries))?;
            handoff.committed(&staging, committed, credit_tasks);
            (buffered, credit_tasks) = (0, 0);
            last = Instant::now();
        }
        if closed {
            return Ok(staging);
        }
    }
}

/// A task run on the runtime's worker threads, cancelled when dropped. Each task decodes and
/// flattens its own pages: driven from the one future that collects them, every page of the
/// fetch was decoded on one thread, and a burst of answers held back the requests meant to
/// follow them (with 16 in flight at 20 ms, each round trip took ~21 ms where 20 would do).
/// Dropping the collecting stream (Ctrl-C, a rejected key) aborts what is in flight: each task
/// stops at its next await (a page being decoded is finished first), and nothing it fetched
/// after that reaches the writer, which only the collecting loop feeds.
struct OnWorkers<T>(tokio::task::JoinHandle<T>);

impl<T: Send + 'static> OnWorkers<T> {
    fn spawn(task: impl std::future::Future<Output = T> + Send + 'static) -> Self {
        Self(tokio::spawn(task))
    }
}

impl<T> Drop for OnWorkers<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl<T> std::future::Future for OnWorkers<T> {
    type Output = T;

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<T> {
        std::pin::Pin::new(&mut self.0).poll(cx).map(|joined| match joined {
            Ok(out) => out,
            // A task's panic is the fetch's, as it was when the task ran in this future.
            Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            // Only a runtime shutting down cancels a task this handle has not aborted.
            Err(e) => panic!("a fetch task was cancelled by the runtime: {e}"),
        })
    }
}

/// Runs `job` against `staging`, committing as it goes.
pub async fn run_fetch(
    fetcher: Arc<Records>,
    staging: Staging,
    job: FetchJob,
) -> Result<FetchOutcome, FetchError> {
    let started = Instant::now();
    let acct: Arc<Accounting> = fetcher.accounting().clone();
    let settled = staging.settled();
    let planned = job.tasks.len();
    let todo: Vec<Task> = job.tasks.into_iter().filter(|t| !settled.contains(&t.key())).collect();
    let resumed = planned - todo.len();
    if resumed > 0 {
        tracing::info!("resuming: {resumed} of {planned} tasks already staged, {} to fetch", todo.len());
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<Finished>(WRITER_QUEUE);
    let (commit_rows, commit_every) = (job.commit_rows, job.commit_every);
    let handoff = Handoff {
        on_commit: job.on_commit,
        credits_left: todo.iter().filter(|t| CreditTask::is_key(&t.key())).count(),
        on_credits: job.on_credits_staged,
    };
    let runtime = tokio::runtime::Handle::current();
    let writer = tokio::task::spawn_blocking(move || {
        writer_thread(staging, rx, commit_rows, commit_every, handoff, runtime)
    });
    let progress = Progress::start(todo.len() as u64, acct.clone(), job.quiet);

    // More tasks than slots: a task waits on its first page before it fans out.
    let parallel_tasks = (fetcher.in_flight_ceiling() * 4).max(8);
    let f = fetcher.clone();
    let policy = job.records_policy.clone();
    let mut results = futures::stream::iter(todo)
        .map(move |t| {
            let (f, policy) = (f.clone(), policy.clone());
            OnWorkers::spawn(async move { run_task(&f, t, policy.as_deref()).await })
        })
        .buffer_unordered(parallel_tasks);
    let mut interrupted = false;
    let mut key_rejected = None;
    let mut writer_gone = false;
    let signal = crate::shutdown::wait_for_signal();
    tokio::pin!(signal);
    loop {
        let next = tokio::select! {
            n = results.next() => n,
            _ = &mut signal => { interrupted = true; None }
        };
        let Some((key, out)) = next else { break };
        acct.tasks_done.fetch_add(1, Ordering::Relaxed);
        let (entry, rows) = match out {
            TaskOutput::Done { rows, mut entry } => {
                entry.records = rows.iter().map(|(t, r)| (*t, r.len() as u64)).collect();
                acct.records.fetch_add(entry.records.values().sum::<u64>(), Ordering::Relaxed);
                for w in &entry.warnings {
                    tracing::warn!("{w}");
                }
                (entry, rows)
            }
            TaskOutput::NotFound => (TaskEntry::new(key, TaskStatus::NotFound), BTreeMap::new()),
            TaskOutput::Failed(e @ ApiError::KeyRejected { .. }) => {
                key_rejected = Some(e);
                break;
            }
            TaskOutput::Failed(e) => {
                acct.failed_tasks.fetch_add(1, Ordering::Relaxed);
                tracing::warn!("task {key} failed after retries: {e}");
                let entry = TaskEntry {
                    error: Some(e.to_string()),
                    // What the exit codes call bad input (a 422, another 4xx refusal, a
                    // redirect): the same request gets the same answer.
                    refused: crate::exit::HasExitStatus::exit_status(&e) == crate::exit::ExitStatus::BadInput,
                    ..TaskEntry::new(key, TaskStatus::Failed)
                };
                (entry, BTreeMap::new())
            }
        };
        if tx.send((entry, rows)).await.is_err() {
            writer_gone = true;
            break;
        }
    }
    // Dropping the stream cancels whatever is still in flight; only finished tasks were sent.
    drop(results);
    drop(tx);
    progress.finish().await;
    let staging = match writer.await {
        Ok(r) => r?,
        Err(e) => return Err(FetchError::Writer(e.to_string())),
    };
    if writer_gone {
        return Err(FetchError::Writer("it closed its channel early".into()));
    }
    if let Some(e) = key_rejected {
        return Err(FetchError::KeyRejected(e));
    }
    let summary = summarize(&staging, planned, resumed, &acct, started.elapsed(), interrupted);
    Ok(FetchOutcome { staging, summary })
}

/// The summary over every task the staging holds (this attempt and earlier ones).
fn summarize(
    staging: &Staging,
    planned: usize,
    resumed: usize,
    acct: &Accounting,
    wall: Duration,
    interrupted: bool,
) -> FetchSummary {
    let mut held = tally(staging.task_entries());
    // The shape of the staged records, from the journal: a task fetched by an earlier,
    // interrupted run counts once, and one that failed does not count.
    let requests = AccountingSummary { schema: std::mem::take(&mut held.requests.schema), ..acct.summary() };
    FetchSummary {
        tasks_planned: planned,
        tasks_resumed: resumed,
        requests,
        wall_seconds: wall.as_secs_f64(),
        interrupted,
        ..held
    }
}

/// Tasks by outcome, records per table, sources and warnings, counted over journal entries;
/// the parts of a summary that the journal alone decides (`merge` checks manifests with it).
pub fn tally<'a>(entries: impl IntoIterator<Item = &'a TaskEntry>) -> FetchSummary {
    let mut s = FetchSummary {
        tasks_planned: 0,
        tasks_resumed: 0,
        tasks_done: 0,
        tasks_failed: vec![],
        companies_not_found: vec![],
        records: BTreeMap::new(),
        requests: Default::default(),
        fontes: BTreeMap::new(),
        periodos: PeriodsSeen::new(),
        warnings: vec![],
        wall_seconds: 0.0,
        interrupted: false,
        company_records: BTreeMap::new(),
    };
    for e in entries {
        if let Some(reason) = e.records_reason {
            *s.company_records.entry(reason.name().to_string()).or_default() += 1;
        }
        match e.status {
            TaskStatus::Done => s.tasks_done += 1,
            TaskStatus::NotFound => {
                s.companies_not_found.push(e.task.trim_start_matches("empresa/").to_string());
            }
            TaskStatus::Failed => s.tasks_failed.push(FailedTask {
                task: e.task.clone(),
                error: e.error.clone().unwrap_or_default(),
                refused: e.refused,
            }),
        }
        for (t, n) in &e.records {
            *s.records.entry(t.name().to_string()).or_default() += n;
        }
        for (k, v) in e.fontes.iter() {
            s.fontes.entry(k.clone()).or_insert_with(|| v.clone());
        }
        add_periods(&mut s.periodos, &e.periodos);
        for (op, drift) in &e.shapes {
            s.requests.schema.entry(op.clone()).or_default().add(drift);
        }
        s.warnings.extend(e.warnings.iter().cloned());
    }
    s
}

/// Adds the periods of `more` to `total` (each value once).
pub fn add_periods(total: &mut PeriodsSeen, more: &PeriodsSeen) {
    for (table, values) in more {
        total.entry(table.clone()).or_default().extend(values.iter().cloned());
    }
}

/// Where `run`/`fetch` write when `--out` is not given.
pub fn default_out_dir(months: &[AnoMes]) -> PathBuf {
    let period = match (months.first(), months.last()) {
        (Some(a), Some(b)) if a == b => a.to_string(),
        (Some(a), Some(b)) => format!("{a}-{b}"),
        _ => "empty".to_string(),
    };
    PathBuf::from("output").join(period)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_tasks_panic_is_the_collectors_and_a_dropped_task_stops() {
        // The panic reaches whoever awaits the task, with its own message.
        let awaiting = tokio::spawn(OnWorkers::spawn(async { panic!("page 3 did not decode") }));
        let err = awaiting.await.expect_err("the panic went through");
        let payload = err.into_panic();
        let message = payload.downcast_ref::<&str>().copied().unwrap_or_default();
        assert_eq!(message, "page 3 did not decode");

        // Dropped (the collecting stream gone), the task stops at its next await.
        let reached = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let r = reached.clone();
        let task = OnWorkers::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            r.store(true, std::sync::atomic::Ordering::SeqCst);
        });
        tokio::time::sleep(Duration::from_millis(10)).await;
        drop(task);
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert!(!reached.load(std::sync::atomic::Ordering::SeqCst), "the dropped task went on");
    }

    #[test]
    fn commits_come_every_tenth_of_the_fetch_between_a_quarter_second_and_the_setting() {
        let secs = Duration::from_secs;
        let most = secs(2);
        assert_eq!(commit_interval(secs(1), most), COMMIT_EVERY_LEAST, "a short fetch commits often");
        assert_eq!(commit_interval(secs(10), most), secs(1));
        assert_eq!(commit_interval(secs(3600), most), most, "an hour's fetch as before");
        assert_eq!(commit_interval(secs(3600), Duration::ZERO), COMMIT_EVERY_LEAST);
    }
}
