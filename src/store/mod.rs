//! The persistent store (`--store DIR`): one Delta Lake table per dataset table, a snapshot per
//! run, every earlier state readable. It owns the store's layout, its lock and the commit
//! protocol; it does not fetch (extract decides what to fetch from what it reports) nor type.
//!
//! Layout of DIR:
//! - `fiscal_report_store.json`: the layout version; a newer one is refused, not misread.
//! - `<table>/`: Delta tables. The company tables (`empresas`, `dividas_pgfn`,
//!   `parcelamentos_rfb`, `transacoes_rfb`, `socios`), the tables derived from them (`mudancas`,
//!   `situacao_fiscal_estimada`, `sancoes`: who was on which public list, `regime_carteira`: each
//!   company's tax regime, `alertas`: the watch
//!   rules' alerts and where each stands) and
//!   `controle_empresas` (what the next run compares with) are partitioned by `snapshot` (AAAAMM);
//!   `creditos_ativos` by `ano_mes`.
//! - `runs/NNNNNN.json`: one per store version, written after every table committed. A store
//!   version is the set of table versions its run record names; a table version past it (a run
//!   killed between two table commits) is rolled back on the next open by a restore commit.
//! - `.lock`: held (an OS file lock, released when the process dies) while a run uses the store.

mod carry;
pub(crate) mod delta;
pub(crate) mod info;
pub(crate) mod root;
pub(crate) mod snapshot;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::api::AnoMes;
use crate::exit::{ExitStatus, HasExitStatus};
use crate::extract::incremental::{KnownCompany, ResumoSeen};
use delta::TableRef;
use root::StoreLock;
pub use root::StoreRoot;

/// The layout this binary writes and reads.
pub const LAYOUT: u32 = 1;
/// The oldest layout it reads: layout 1 is the first a release wrote; a later layout that can
/// still read older stores keeps this where it is.
pub const FIRST_LAYOUT: u32 = 1;
const LAYOUT_FILE: &str = "fiscal_report_store.json";

/// Whether the local folder `dir` holds a fiscal-report store (its layout file).
pub fn is_local_store(dir: &Path) -> bool {
    dir.join(LAYOUT_FILE).is_file()
}

/// The tables, in commit order (`controle_empresas` last: a store whose control table moved
/// has every data table moved).
pub const TABLES: [&str; 13] = [
    "creditos_ativos",
    "empresas",
    "dividas_pgfn",
    "parcelamentos_rfb",
    "transacoes_rfb",
    "socios",
    "mudancas",
    "situacao_fiscal_estimada",
    "sancoes",
    "regime_carteira",
    "alertas",
    "divida_ativa_nacional",
    "controle_empresas",
];

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "the store {dir} is in use by another run (its lock is held); wait for that run to finish, \
         or give this one another --store"
    )]
    Busy { dir: PathBuf },
    #[error(
        "the store {dir} was written with layout {found}, newer than this fiscal-report knows ({LAYOUT}); \
         use a newer fiscal-report, or give another --store"
    )]
    NewerLayout { dir: PathBuf, found: u32 },
    #[error(
        "the store {dir} says layout {found}, older than any this fiscal-report reads ({FIRST_LAYOUT} to \
         {LAYOUT}): it was not written by a fiscal-report release; give another --store"
    )]
    OlderLayout { dir: PathBuf, found: u32 },
    #[error(
        "{dir} is not a fiscal-report store (it has files but no {LAYOUT_FILE}); give an empty or new \
         directory, or the store of an earlier run"
    )]
    NotAStore { dir: PathBuf },
    #[error(
        "there is no store at {dir}: give the folder the monthly runs' --store named (a run with \
         --store DIR creates it)"
    )]
    NoStore { dir: PathBuf },
    #[error("store file {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("store table {table}: {message}")]
    Delta { table: String, message: String },
    #[error(
        "--store {url}: {message}; write s3://BUCKET/PREFIX, gs://BUCKET/PREFIX or az://CONTAINER/PREFIX"
    )]
    BucketUrl { url: String, message: String },
    #[error(
        "the store {url} is in use by another run (its lock object {url}/.lock says: {holder}); wait for that \
         run to finish, or give this one another --store. If no run is using it (one was killed), delete \
         {url}/.lock and run again: the store rolls back whatever the killed run half-committed"
    )]
    BucketBusy { url: String, holder: String },
    #[error(
        "the store's bucket refused the request ({url}): {message}; check that the bucket exists and the \
         credentials in the environment (for S3: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) and their rights on it"
    )]
    BucketRefused { url: String, message: String },
    #[error(
        "reaching the store {url} failed after retries: {message}; check the endpoint and the network, then run again"
    )]
    BucketUnreachable { url: String, message: String },
    #[error("store file {path} cannot be read: {message}; the store is left as it is")]
    Corrupt { path: PathBuf, message: String },
    #[error(
        "stopped (Ctrl-C or SIGTERM) during the commit of snapshot {snapshot}, after {written} of its tables: \
         the store keeps its version before this run (the tables written are rolled back when it is next opened)"
    )]
    Interrupted { snapshot: String, written: usize },
}

impl StoreError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        Self::Io { path: path.to_path_buf(), source }
    }
}

impl HasExitStatus for StoreError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::Busy { .. } | Self::BucketBusy { .. } => ExitStatus::StoreBusy,
            Self::NewerLayout { .. }
            | Self::OlderLayout { .. }
            | Self::NotAStore { .. }
            | Self::NoStore { .. }
            | Self::Corrupt { .. }
            | Self::BucketUrl { .. }
            | Self::BucketRefused { .. } => ExitStatus::BadInput,
            Self::BucketUnreachable { .. } => ExitStatus::ServiceUnavailable,
            Self::Io { source, .. } => crate::exit::io_status(source),
            Self::Delta { .. } => ExitStatus::Internal,
            Self::Interrupted { .. } => ExitStatus::Interrupted,
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct LayoutFile {
    layout: u32,
    tool: String,
}

/// One store version: a committed run (or the roll-back of an interrupted one).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub version: u64,
    /// `run`, or `restore` for the roll-back of a run killed mid-commit.
    pub kind: String,
    pub run_id: String,
    /// The reference month of the company tables' snapshot.
    pub snapshot: String,
    pub committed_at: String,
    /// States and months of the run's credits; the months fetched (the rest came from the store).
    pub ufs: Vec<String>,
    pub months: Vec<String>,
    pub credit_months_fetched: Vec<String>,
    /// Table -> its Delta version in this store version.
    pub tables: BTreeMap<String, u64>,
    /// Companies by what happened to their records (`inalterada`, `nova`, `fingerprint`, ...).
    pub company_records: BTreeMap<String, u64>,
    pub requests: u64,
    /// The lists every company of this snapshot holds (`extract::plan::company_record_names`);
    /// empty in records written before partners were fetched, and in those an older binary
    /// writes on this store: the next run then trusts no company's lists to be complete.
    /// Written `lists`, as the store has always kept it.
    #[serde(default, rename = "lists", skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<String>,
    /// A snapshot of the publishers' files (`--open-data`): the datasets it holds, renewed by
    /// its release or carried from the snapshot before (`pgfn_fgts`, `rfb_socios`, ...). The
    /// next release that does not renew one of them carries it again, never reads it as ended.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub open_data: BTreeSet<String>,
}

/// An open store, locked for this process.
pub struct Store {
    root: StoreRoot,
    runs: Vec<RunRecord>,
    _lock: StoreLock,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("root", &self.root).field("versions", &self.runs.len()).finish()
    }
}

/// Table `name` of the store at `root`: credits are partitioned by month, every other table
/// by snapshot.
pub fn table(root: &StoreRoot, name: &'static str) -> TableRef {
    let partition = if name == "creditos_ativos" { "ano_mes" } else { "snapshot" };
    TableRef { name, root: root.clone(), partition }
}

/// One store version's tables, for reading (see `Store::reader`).
#[derive(Debug, Clone)]
pub struct StoreReader {
    root: StoreRoot,
    versions: BTreeMap<String, u64>,
}

impl StoreReader {
    /// The last committed version of the store at `location` and its snapshots, read without
    /// taking the lock (a run may be committing; this sees the version before it), for commands
    /// that only read (`store series`).
    pub async fn committed(location: &Path) -> Result<(StoreReader, BTreeSet<String>), StoreError> {
        let root = StoreRoot::new(location)?;
        check_layout(&root, false).await?;
        let runs = read_runs(&root).await?;
        let snapshots = snapshots_of(&runs);
        let versions = runs.last().map(|r| r.tables.clone()).unwrap_or_default();
        Ok((StoreReader { root, versions }, snapshots))
    }

    /// The store at `location` as the run `run_id` left it when it committed `version`: its
    /// tables at that version and the snapshots committed up to it, read without the lock. For
    /// `report --from`, which re-renders that run's outputs; `None` when that run did not commit
    /// that version there (another store at the same place).
    pub async fn as_committed_by(
        location: &Path,
        version: u64,
        run_id: &str,
    ) -> Result<Option<(StoreReader, BTreeSet<String>)>, StoreError> {
        let root = StoreRoot::new(location)?;
        check_layout(&root, false).await?;
        let mut runs = read_runs(&root).await?;
        let committed = |r: &RunRecord| r.version == version && r.kind == "run" && r.run_id == run_id;
        let Some(at) = runs.iter().position(committed) else {
            return Ok(None);
        };
        runs.truncate(at + 1);
        let versions = runs[at].tables.clone();
        Ok(Some((StoreReader { root, versions }, snapshots_of(&runs))))
    }

    /// Whether this store version has table `name` at all.
    pub fn holds(&self, name: &str) -> bool {
        self.versions.contains_key(name)
    }

    /// Rows of `name`'s partitions `values`; `None` when there are none.
    pub async fn read(
        &self,
        name: &'static str,
        values: &BTreeSet<String>,
    ) -> Result<Option<polars::prelude::DataFrame>, StoreError> {
        match self.versions.get(name) {
            Some(v) if !values.is_empty() => table(&self.root, name).read(*v, values).await,
            _ => Ok(None),
        }
    }
}

/// The snapshots `runs` committed, each once (a restore record commits none).
fn snapshots_of(runs: &[RunRecord]) -> BTreeSet<String> {
    runs.iter().filter(|r| r.kind == "run" && !r.snapshot.is_empty()).map(|r| r.snapshot.clone()).collect()
}

/// Whether the snapshot of `record` holds every list this binary fetches for a company.
fn holds_every_record_kind(record: &RunRecord) -> bool {
    crate::extract::plan::company_record_names().iter().all(|l| record.records.contains(l))
}

/// The run records of `root`, oldest first (none for a new store).
pub async fn read_runs(root: &StoreRoot) -> Result<Vec<RunRecord>, StoreError> {
    let mut names: Vec<String> =
        root.list("runs").await?.into_iter().filter(|n| n.ends_with(".json")).collect();
    names.sort();
    let mut runs = Vec::with_capacity(names.len());
    for name in names {
        let rel = format!("runs/{name}");
        let Some(bytes) = root.read(&rel).await? else { continue };
        let r: RunRecord = serde_json::from_slice(&bytes)
            .map_err(|e| StoreError::Corrupt { path: root.path_of(&rel), message: e.to_string() })?;
        runs.push(r);
    }
    Ok(runs)
}

/// Checks the layout file of `root` (writing it for a new store). A command that only reads
/// (`create` false) is refused a local folder that does not exist, by name.
async fn check_layout(root: &StoreRoot, create: bool) -> Result<(), StoreError> {
    if let StoreRoot::Local(dir) = root
        && !create
        && !dir.is_dir()
    {
        return Err(StoreError::NoStore { dir: dir.clone() });
    }
    match root.read(LAYOUT_FILE).await? {
        Some(bytes) => {
            let l: LayoutFile = serde_json::from_slice(&bytes).map_err(|e| StoreError::Corrupt {
                path: root.path_of(LAYOUT_FILE),
                message: e.to_string(),
            })?;
            if l.layout > LAYOUT {
                return Err(StoreError::NewerLayout { dir: root.path_of(""), found: l.layout });
            }
            if l.layout < FIRST_LAYOUT {
                return Err(StoreError::OlderLayout { dir: root.path_of(""), found: l.layout });
            }
            Ok(())
        }
        None => {
            if root.holds_other_than(".lock").await? {
                return Err(StoreError::NotAStore { dir: root.path_of("") });
            }
            if create {
                let l = LayoutFile { layout: LAYOUT, tool: "fiscal-report".into() };
                root.write(LAYOUT_FILE, serde_json::to_vec_pretty(&l).unwrap_or_default()).await?;
            }
            Ok(())
        }
    }
}

impl Store {
    /// Opens (or creates) the store at `root` for a run: takes its lock, checks its layout and
    /// rolls back any table a killed run committed past the last store version.
    pub async fn open(location: &Path) -> Result<Store, StoreError> {
        let root = StoreRoot::new(location)?;
        let lock = root.lock().await?;
        check_layout(&root, true).await?;
        let runs = read_runs(&root).await?;
        let mut store = Store { root, runs, _lock: lock };
        store.roll_back_interrupted().await?;
        Ok(store)
    }

    pub fn root(&self) -> &StoreRoot {
        &self.root
    }

    /// The current store version's record (`None` for a new store).
    pub fn last(&self) -> Option<&RunRecord> {
        self.runs.last()
    }

    /// The snapshots the runs committed, each once.
    pub fn snapshots(&self) -> BTreeSet<String> {
        snapshots_of(&self.runs)
    }

    /// The store version of the last run's data (0: none). A restore record, the roll-back of a
    /// run killed mid-commit, holds the same data as the run before it, so it does not count: a
    /// `--resume` of the killed run still builds on what it planned on.
    pub fn data_version(&self) -> u64 {
        self.runs.iter().rev().find(|r| r.kind == "run").map_or(0, |r| r.version)
    }

    fn table_version(&self, name: &str) -> Option<u64> {
        self.last().and_then(|r| r.tables.get(name).copied())
    }

    async fn roll_back_interrupted(&mut self) -> Result<(), StoreError> {
        let mut moved = BTreeMap::new();
        for name in TABLES {
            let t = table(&self.root, name);
            let Some(latest) = t.latest_version().await? else { continue };
            // A table created by a first run that never committed holds only version 0 (its
            // empty creation); anything after the recorded version belongs to a killed run.
            let current = self.table_version(name).unwrap_or(0);
            if latest > current {
                let v = t.restore(current).await?;
                tracing::warn!(
                    "store {}: table {name} had version {latest} from an interrupted run; restored version {current} as {v}",
                    self.root
                );
                moved.insert(name.to_string(), v);
            }
        }
        if moved.is_empty() {
            return Ok(());
        }
        let mut record = self.last().cloned().unwrap_or_default();
        record.tables.extend(moved);
        record.kind = "restore".into();
        record.committed_at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        self.append(record).await.map(drop)
    }

    /// Writes `record` as the next store version (the moment a run is committed) and returns
    /// it numbered.
    async fn append(&mut self, mut record: RunRecord) -> Result<RunRecord, StoreError> {
        record.version = self.last().map_or(1, |r| r.version + 1);
        let rel = format!("runs/{:06}.json", record.version);
        self.root.write(&rel, serde_json::to_vec_pretty(&record).unwrap_or_default()).await?;
        self.runs.push(record.clone());
        Ok(record)
    }

    /// Partition values of `name` in the current version, with row counts.
    pub async fn partitions(&self, name: &'static str) -> Result<BTreeMap<String, u64>, StoreError> {
        match self.table_version(name) {
            Some(v) => table(&self.root, name).partitions(v).await,
            None => Ok(BTreeMap::new()),
        }
    }

    /// Rows of `name`'s partitions `values` in the current version.
    pub async fn read(
        &self,
        name: &'static str,
        values: &BTreeSet<String>,
    ) -> Result<Option<polars::prelude::DataFrame>, StoreError> {
        self.reader().read(name, values).await
    }

    /// The current version's tables, readable apart from the store (by a task running while
    /// the fetch waits on the network); it sees this version whatever is committed later.
    pub fn reader(&self) -> StoreReader {
        StoreReader {
            root: self.root.clone(),
            versions: self.last().map(|r| r.tables.clone()).unwrap_or_default(),
        }
    }

    /// What the current snapshot holds about each company (for the fetch's decisions).
    pub async fn known_companies(&self) -> Result<HashMap<String, KnownCompany>, StoreError> {
        let Some(last) = self.last().filter(|r| !r.snapshot.is_empty()) else { return Ok(HashMap::new()) };
        // A snapshot that does not say it holds every list this binary fetches (one written
        // before partners were fetched, or by an older binary since) knows no company whole:
        // every company's lists are fetched again, so none is carried incomplete.
        if !holds_every_record_kind(last) {
            return Ok(HashMap::new());
        }
        let bad = |m: String| StoreError::Delta { table: "controle_empresas".into(), message: m };
        let Some(df) = self.read("controle_empresas", &BTreeSet::from([last.snapshot.clone()])).await? else {
            return Ok(HashMap::new());
        };
        let col = |n: &str| df.column(n).and_then(|c| c.str().cloned()).map_err(|e| bad(e.to_string()));
        let (cnpj, fp, resumos, fetched) =
            (col("cnpj")?, col("snapshot_fingerprint")?, col("resumos")?, col("listas_buscadas_em")?);
        let mut out = HashMap::with_capacity(df.height());
        for i in 0..df.height() {
            let (Some(c), Some(f)) = (cnpj.get(i), fetched.get(i)) else { continue };
            let Ok(records_fetched) = AnoMes::parse(f) else { continue };
            let resumos: BTreeMap<String, ResumoSeen> =
                resumos.get(i).and_then(|r| serde_json::from_str(r).ok()).unwrap_or_default();
            out.insert(
                c.to_string(),
                KnownCompany { fingerprint: fp.get(i).map(str::to_string), resumos, records_fetched },
            );
        }
        Ok(out)
    }
}
