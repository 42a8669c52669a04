//! Durable staging of fetched records under `DIR/.staging`: Parquet segments (arrow-rs, every
//! column the wire text as-is) and a journal of commits.
//!
//! A commit is one journal line naming the segments it wrote and the tasks it finished. The
//! segments are renamed into place and synced before the line is written, so after a crash a
//! complete line means complete data; segments no complete line names are deleted on resume.
//! A task's records are committed together or not at all. Parsing the text into typed values
//! is the transform stage's job.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use arrow::array::{ArrayRef, RecordBatch, StringBuilder};
use arrow::datatypes::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use serde::{Deserialize, Serialize};

use super::record::for_each_field;

use crate::api::models::{
    CompanyProfile, CreditoAtivo, DividaPgfn, Empresa, Estabelecimento, ParcelamentoRfb, Simples,
    TransacaoRfb,
};

/// The raw tables a fetch stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Table {
    CreditosAtivos,
    Empresas,
    DividasPgfn,
    ParcelamentosRfb,
    TransacoesRfb,
}

impl Table {
    pub const ALL: [Table; 5] = [
        Self::CreditosAtivos,
        Self::Empresas,
        Self::DividasPgfn,
        Self::ParcelamentosRfb,
        Self::TransacoesRfb,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::CreditosAtivos => "creditos_ativos",
            Self::Empresas => "empresas",
            Self::DividasPgfn => "dividas_pgfn",
            Self::ParcelamentosRfb => "parcelamentos_rfb",
            Self::TransacoesRfb => "transacoes_rfb",
        }
    }

    /// Staged columns: the wire fields (derived from the models, so they cannot drift) plus
    /// the context a record needs once it leaves its request.
    pub fn columns(self) -> &'static [String] {
        static CACHE: [OnceLock<Vec<String>>; 5] = [const { OnceLock::new() }; 5];
        CACHE[self as usize].get_or_init(|| {
            fn keys<T: Serialize + Default>() -> Vec<String> {
                let mut v = Vec::new();
                for_each_field(&T::default(), &mut |k, _| v.push(k.to_string()));
                v.sort();
                v
            }
            let ctx = |mut v: Vec<String>, extra: &[&str]| {
                v.extend(extra.iter().map(|s| (*s).to_string()));
                v
            };
            match self {
                Self::CreditosAtivos => keys::<CreditoAtivo>(),
                Self::Empresas => profile_columns(),
                Self::DividasPgfn => ctx(keys::<DividaPgfn>(), &["cnpj_consultado", "categoria"]),
                Self::ParcelamentosRfb => ctx(keys::<ParcelamentoRfb>(), &["cnpj_consultado"]),
                Self::TransacoesRfb => ctx(keys::<TransacaoRfb>(), &["cnpj_consultado"]),
            }
        })
    }

    fn column_index(self, name: &str) -> Option<usize> {
        self.columns().iter().position(|c| c == name)
    }
}

/// One staged row: the text of each of its table's `columns()`, in that order.
pub type Row = Vec<Option<String>>;

/// A staged row by column name: how rows are read back and compared.
pub type RowMap = BTreeMap<String, Option<String>>;

/// `row` by column name.
pub fn row_map(table: Table, row: &Row) -> RowMap {
    table.columns().iter().cloned().zip(row.iter().cloned()).collect()
}

/// For each field of `T` in declaration order, its column in `table` (computed once per table).
fn field_positions<T: Serialize + Default>(table: Table) -> &'static [Option<usize>] {
    static CACHE: [OnceLock<Vec<Option<usize>>>; 5] = [const { OnceLock::new() }; 5];
    CACHE[table as usize].get_or_init(|| {
        let mut v = Vec::new();
        for_each_field(&T::default(), &mut |k, _| v.push(table.column_index(k)));
        v
    })
}

/// Stages a wire record of `table` (one model type per table), plus context columns.
pub fn flat_row<T: Serialize + Default>(table: Table, rec: &T, extra: &[(&str, &str)]) -> Row {
    let positions = field_positions::<T>(table);
    let mut row: Row = vec![None; table.columns().len()];
    let mut i = 0usize;
    for_each_field(rec, &mut |_, v| {
        if let Some(Some(p)) = positions.get(i) {
            row[*p] = v;
        }
        i += 1;
    });
    for (k, v) in extra {
        if let Some(p) = table.column_index(k) {
            row[p] = Some((*v).to_string());
        }
    }
    row
}

const PROFILE_PARTS: [&str; 3] = ["empresa", "estabelecimento", "simples"];

fn profile_columns() -> Vec<String> {
    let full = CompanyProfile {
        empresa: Some(Empresa::default()),
        estabelecimento: Some(Estabelecimento::default()),
        simples: Some(Simples::default()),
        ..CompanyProfile::default()
    };
    let mut cols: Vec<String> = profile_map(&full, "").into_keys().collect();
    cols.sort();
    cols
}

/// The profile flattened: `empresa_*`, `estabelecimento_*`, `simples_*`, maps as JSON text.
fn profile_map(p: &CompanyProfile, cnpj_consultado: &str) -> RowMap {
    fn text_of(v: serde_json::Value) -> Option<String> {
        match v {
            serde_json::Value::Null => None,
            serde_json::Value::String(s) => Some(s),
            other => Some(other.to_string()),
        }
    }
    let mut row = RowMap::new();
    row.insert("cnpj_consultado".into(), Some(cnpj_consultado.to_string()));
    if let Ok(serde_json::Value::Object(m)) = serde_json::to_value(p) {
        for (k, v) in m {
            match (PROFILE_PARTS.contains(&k.as_str()), v) {
                (true, serde_json::Value::Object(inner)) => {
                    for (ik, iv) in inner {
                        row.insert(format!("{k}_{ik}"), text_of(iv));
                    }
                }
                (true, _) => {}
                (false, v) => {
                    row.insert(k, text_of(v));
                }
            }
        }
    }
    row
}

/// Stages a company profile (one per company: the map's cost does not matter here).
pub fn profile_row(p: &CompanyProfile, cnpj_consultado: &str) -> Row {
    let mut map = profile_map(p, cnpj_consultado);
    Table::Empresas.columns().iter().map(|c| map.remove(c).flatten()).collect()
}

/// The outcome of one task, as the journal keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Done,
    NotFound,
    Failed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskEntry {
    pub task: String,
    pub status: TaskStatus,
    #[serde(default)]
    pub records: BTreeMap<Table, u64>,
    #[serde(default)]
    pub pages: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Source status and version the service reported, keyed by source or operation.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fontes: BTreeMap<String, crate::api::models::Fonte>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Commit {
    commit: u64,
    segments: Vec<String>,
    tasks: Vec<TaskEntry>,
}

#[derive(Debug, thiserror::Error)]
pub enum StagingError {
    #[error(
        "cannot write {path}: {source}; make room on that disk (or choose another --out) and run again with \
         --resume: everything committed so far is kept"
    )]
    Io { path: PathBuf, source: std::io::Error },
    #[error(
        "another fiscal-report run is using {dir} (its lock file is held); wait for it to finish or choose another --out"
    )]
    Locked { dir: PathBuf },
    #[error(
        "{dir} already holds a run's staged data; pass --resume to continue it, or choose another --out (or delete {dir}/.staging)"
    )]
    ExistingRun { dir: PathBuf },
    #[error("cannot --resume in {dir}: it holds a run with other parameters ({what}); use another --out")]
    PlanMismatch { dir: PathBuf, what: String },
    #[error("writing a Parquet segment {path}: {message}")]
    Parquet { path: PathBuf, message: String },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StagingError + '_ {
    move |source| StagingError::Io { path: path.to_path_buf(), source }
}

/// Takes `lock` for `out` without waiting: a run already holding it is refused, never queued
/// behind.
fn take_lock(lock: &File, lock_path: &Path, out: &Path, shared: bool) -> Result<(), StagingError> {
    let taken = if shared { lock.try_lock_shared() } else { lock.try_lock() };
    match taken {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => Err(StagingError::Locked { dir: out.to_path_buf() }),
        Err(std::fs::TryLockError::Error(e)) => Err(io_err(lock_path)(e)),
    }
}

/// A finished fetch's staging held against writers while it is read; released on drop.
#[derive(Debug)]
pub struct ReadLock {
    _lock: File,
}

/// A finished fetch's staging, read without changing it (for `merge` and `report --from`).
pub struct StagedFetch {
    pub dir: PathBuf,
    pub tasks: BTreeMap<String, TaskEntry>,
    pub segments: BTreeSet<String>,
}

impl StagedFetch {
    /// Takes `out/.staging/lock` so that no `--resume` commits there until the `ReadLock` is
    /// dropped. Shared: readers do not exclude each other, only writers. Creates and changes
    /// nothing, so a staging that has no lock file (or no `.staging`) is a `NotFound` I/O error.
    pub fn lock_for_reading(out: &Path) -> Result<ReadLock, StagingError> {
        let lock_path = out.join(".staging").join("lock");
        let lock = File::open(&lock_path).map_err(io_err(&lock_path))?;
        take_lock(&lock, &lock_path, out, true)?;
        Ok(ReadLock { _lock: lock })
    }

    pub fn read(out: &Path) -> Result<Self, StagingError> {
        let dir = out.join(".staging");
        let journal = read_journal(&dir.join("journal.jsonl"))?;
        Ok(Self { dir, tasks: journal.tasks, segments: journal.segments })
    }

    pub fn segment_paths(&self, table: Table) -> Vec<PathBuf> {
        let prefix = format!("{}-", table.name());
        self.segments.iter().filter(|s| s.starts_with(&prefix)).map(|s| self.dir.join(s)).collect()
    }
}

/// What the complete commits of a journal add up to.
#[derive(Default)]
struct Journal {
    /// Final state of every task (later commits win).
    tasks: BTreeMap<String, TaskEntry>,
    segments: BTreeSet<String>,
    next_commit: u64,
    /// Bytes of complete commit lines: where a torn tail starts.
    valid_len: u64,
}

/// Reads a journal. A commit counts only when its whole line, newline included, is on disk: a
/// line cut by a crash (even one missing just its newline) and anything after it never happened.
fn read_journal(path: &Path) -> Result<Journal, StagingError> {
    let mut j = Journal::default();
    let text = match std::fs::read(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(j),
        Err(e) => return Err(StagingError::Io { path: path.to_path_buf(), source: e }),
    };
    for line in text.split_inclusive(|b| *b == b'\n') {
        let Some(body) = line.strip_suffix(b"\n") else { break };
        let Ok(commit) = serde_json::from_slice::<Commit>(body) else { break };
        j.valid_len += line.len() as u64;
        j.next_commit = j.next_commit.max(commit.commit + 1);
        j.segments.extend(commit.segments);
        for t in commit.tasks {
            j.tasks.insert(t.task.clone(), t);
        }
    }
    Ok(j)
}

/// The `.staging` directory of one output DIR, locked for this process.
pub struct Staging {
    out: PathBuf,
    _lock: File,
    next_commit: u64,
    /// What complete commits hold so far: the same view `StagedFetch::read` gives.
    staged: StagedFetch,
}

impl Staging {
    pub fn out_dir(&self) -> &Path {
        &self.out
    }

    pub fn dir(&self) -> &Path {
        &self.staged.dir
    }

    /// Opens (and locks) `out/.staging`. A fresh run refuses a DIR that already holds staged
    /// data; a resume requires one with the same plan.
    pub fn open<P: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(
        out: &Path,
        plan: &P,
        resume: bool,
    ) -> Result<Self, StagingError> {
        let dir = out.join(".staging");
        std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let lock_path = dir.join("lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_err(&lock_path))?;
        // An advisory lock (std's, flock on Unix) so two runs never interleave their staging;
        // the OS drops it if this process dies, so a killed run never leaves a stale lock.
        take_lock(&lock, &lock_path, out, false)?;
        let plan_path = dir.join("plan.json");
        let journal = dir.join("journal.jsonl");
        let has_data = journal.exists() || plan_path.exists();
        if has_data && !resume {
            return Err(StagingError::ExistingRun { dir: out.to_path_buf() });
        }
        if plan_path.exists() {
            let text = std::fs::read_to_string(&plan_path).map_err(io_err(&plan_path))?;
            let stored: Option<P> = serde_json::from_str(&text).ok();
            if stored.as_ref() != Some(plan) {
                return Err(StagingError::PlanMismatch {
                    dir: out.to_path_buf(),
                    what: "months, states, portfolio, shard or service differ from the interrupted run"
                        .into(),
                });
            }
        } else {
            let bytes = serde_json::to_vec_pretty(plan).map_err(|e| StagingError::Io {
                path: plan_path.clone(),
                source: std::io::Error::other(e),
            })?;
            crate::fsutil::write_atomic(&plan_path, &bytes).map_err(io_err(&plan_path))?;
        }
        let staged = StagedFetch { dir, tasks: BTreeMap::new(), segments: BTreeSet::new() };
        let mut s = Self { out: out.to_path_buf(), _lock: lock, next_commit: 0, staged };
        s.load_journal()?;
        s.remove_orphans()?;
        Ok(s)
    }

    fn load_journal(&mut self) -> Result<(), StagingError> {
        let path = self.staged.dir.join("journal.jsonl");
        if !path.exists() {
            return Ok(());
        }
        let journal = read_journal(&path)?;
        (self.staged.tasks, self.staged.segments, self.next_commit) =
            (journal.tasks, journal.segments, journal.next_commit);
        // Drop a torn tail so the next commit starts on a fresh line.
        let f = OpenOptions::new().write(true).open(&path).map_err(io_err(&path))?;
        f.set_len(journal.valid_len).map_err(io_err(&path))?;
        Ok(())
    }

    fn remove_orphans(&self) -> Result<(), StagingError> {
        for entry in std::fs::read_dir(&self.staged.dir).map_err(io_err(&self.staged.dir))? {
            let entry = entry.map_err(io_err(&self.staged.dir))?;
            let name = entry.file_name().to_string_lossy().to_string();
            let is_segment = name.ends_with(".parquet") || name.contains(".parquet.tmp");
            if is_segment && !self.staged.segments.contains(&name) {
                std::fs::remove_file(entry.path()).map_err(io_err(&entry.path()))?;
            }
        }
        Ok(())
    }

    /// Tasks that need no fetching again: finished or known not to exist.
    pub fn settled(&self) -> BTreeSet<String> {
        self.staged
            .tasks
            .values()
            .filter(|t| t.status != TaskStatus::Failed)
            .map(|t| t.task.clone())
            .collect()
    }

    pub fn task_entries(&self) -> impl Iterator<Item = &TaskEntry> {
        self.staged.tasks.values()
    }

    /// Committed segment files of `table`, in commit order.
    pub fn segment_paths(&self, table: Table) -> Vec<PathBuf> {
        self.staged.segment_paths(table)
    }

    /// What the complete commits so far hold, as a reader of this directory would see it.
    pub fn staged(&self) -> &StagedFetch {
        &self.staged
    }

    /// Writes one commit: the rows as one segment per table, then the journal line.
    pub fn commit(
        &mut self,
        rows: BTreeMap<Table, Vec<Row>>,
        tasks: Vec<TaskEntry>,
    ) -> Result<(), StagingError> {
        if tasks.is_empty() {
            return Ok(());
        }
        let n = self.next_commit;
        let mut names = Vec::new();
        for (table, rows) in rows.iter().filter(|(_, r)| !r.is_empty()) {
            let name = format!("{}-{n:06}.parquet", table.name());
            write_segment(&self.staged.dir.join(&name), *table, rows)?;
            names.push(name);
        }
        sync_dir(&self.staged.dir)?;
        let line = serde_json::to_vec(&Commit { commit: n, segments: names.clone(), tasks: tasks.clone() })
            .map_err(|e| StagingError::Io {
            path: self.staged.dir.join("journal.jsonl"),
            source: std::io::Error::other(e),
        })?;
        let path = self.staged.dir.join("journal.jsonl");
        let mut j = OpenOptions::new().create(true).append(true).open(&path).map_err(io_err(&path))?;
        j.write_all(&line)
            .and_then(|()| j.write_all(b"\n"))
            .and_then(|()| j.sync_data())
            .map_err(io_err(&path))?;
        self.next_commit += 1;
        self.staged.segments.extend(names);
        for t in tasks {
            self.staged.tasks.insert(t.task.clone(), t);
        }
        Ok(())
    }
}

fn sync_dir(dir: &Path) -> Result<(), StagingError> {
    // Directory fsync makes the renames durable; not all platforms allow opening a dir.
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

fn write_segment(path: &Path, table: Table, rows: &[Row]) -> Result<(), StagingError> {
    let columns = table.columns();
    let schema = Arc::new(Schema::new(
        columns.iter().map(|c| Field::new(c, DataType::Utf8, true)).collect::<Vec<_>>(),
    ));
    let arrays: Vec<ArrayRef> = (0..columns.len())
        .map(|i| {
            let mut b = StringBuilder::with_capacity(rows.len(), rows.len() * 16);
            for r in rows {
                b.append_option(r.get(i).and_then(|v| v.as_deref()));
            }
            Arc::new(b.finish()) as ArrayRef
        })
        .collect();
    let perr = |e: &dyn std::fmt::Display| StagingError::Parquet {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    // A full disk or a lost mount reaches us inside the writer's error: report it as the I/O
    // failure it is (the user's to fix), not as a Parquet problem (ours).
    let werr = |e: parquet::errors::ParquetError| match e {
        parquet::errors::ParquetError::External(inner) => match inner.downcast::<std::io::Error>() {
            Ok(io) => StagingError::Io { path: path.to_path_buf(), source: *io },
            Err(other) => perr(&other),
        },
        other => perr(&other),
    };
    let batch = RecordBatch::try_new(schema.clone(), arrays).map_err(|e| perr(&e))?;
    let tmp = path.with_extension("parquet.tmp");
    let file = File::create(&tmp).map_err(io_err(&tmp))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).map_err(|e| perr(&e))?))
        .build();
    let mut w = ArrowWriter::try_new(file, schema, Some(props)).map_err(werr)?;
    w.write(&batch).map_err(werr)?;
    let file = w.into_inner().map_err(werr)?;
    file.sync_all().map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))?;
    Ok(())
}

/// Reads staged rows back with arrow-rs: the independent reader tests and tools use.
pub fn read_segment(path: &Path) -> Result<Vec<RowMap>, StagingError> {
    use arrow::array::{Array, AsArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let perr = |e: &dyn std::fmt::Display| StagingError::Parquet {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let file = File::open(path).map_err(io_err(path))?;
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| perr(&e))?
        .build()
        .map_err(|e| perr(&e))?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| perr(&e))?;
        let schema = batch.schema();
        for i in 0..batch.num_rows() {
            let mut row = RowMap::new();
            for (f, col) in schema.fields().iter().zip(batch.columns()) {
                let Some(s) = col.as_string_opt::<i32>() else { continue };
                row.insert(f.name().clone(), (!s.is_null(i)).then(|| s.value(i).to_string()));
            }
            rows.push(row);
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct P(u32);

    fn row(v: &str) -> Row {
        flat_row(
            Table::CreditosAtivos,
            &CreditoAtivo { uf: Some(v.into()), valor_total: Some("1,00".into()), ..Default::default() },
            &[],
        )
    }

    fn done(task: &str) -> TaskEntry {
        TaskEntry {
            task: task.into(),
            status: TaskStatus::Done,
            records: BTreeMap::new(),
            pages: 1,
            error: None,
            fontes: BTreeMap::new(),
            warnings: vec![],
        }
    }

    #[test]
    fn commits_survive_reopen_and_torn_tails_are_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        {
            let mut s = Staging::open(tmp.path(), &P(1), false).unwrap();
            s.commit(BTreeMap::from([(Table::CreditosAtivos, vec![row("SP"), row("RJ")])]), vec![done("a")])
                .unwrap();
            // Another process cannot take the lock meanwhile.
            assert!(matches!(Staging::open(tmp.path(), &P(1), true), Err(StagingError::Locked { .. })));
        }
        // A crash: an orphan segment and a torn journal line.
        let dir = tmp.path().join(".staging");
        std::fs::write(dir.join("creditos_ativos-000009.parquet"), b"junk").unwrap();
        let mut j = OpenOptions::new().append(true).open(dir.join("journal.jsonl")).unwrap();
        j.write_all(b"{\"commit\":1,\"segm").unwrap();
        drop(j);
        assert!(matches!(Staging::open(tmp.path(), &P(1), false), Err(StagingError::ExistingRun { .. })));
        assert!(matches!(Staging::open(tmp.path(), &P(2), true), Err(StagingError::PlanMismatch { .. })));
        let mut s = Staging::open(tmp.path(), &P(1), true).unwrap();
        assert_eq!(s.settled(), BTreeSet::from(["a".to_string()]));
        assert!(!dir.join("creditos_ativos-000009.parquet").exists());
        s.commit(BTreeMap::from([(Table::CreditosAtivos, vec![row("MG")])]), vec![done("b")]).unwrap();
        let rows: Vec<RowMap> =
            s.segment_paths(Table::CreditosAtivos).iter().flat_map(|p| read_segment(p).unwrap()).collect();
        let ufs: Vec<_> = rows.iter().map(|r| r["uf"].clone().unwrap()).collect();
        assert_eq!(ufs, ["SP", "RJ", "MG"]);
    }

    #[test]
    fn a_commit_missing_its_newline_never_happened() {
        let tmp = tempfile::tempdir().unwrap();
        {
            let mut s = Staging::open(tmp.path(), &P(1), false).unwrap();
            s.commit(BTreeMap::from([(Table::CreditosAtivos, vec![row("SP")])]), vec![done("a")]).unwrap();
        }
        // A crash after writing a whole commit's JSON but before its newline.
        let dir = tmp.path().join(".staging");
        let journal = dir.join("journal.jsonl");
        let mut text = std::fs::read_to_string(&journal).unwrap();
        let torn = text.trim_end().replace("\"commit\":0", "\"commit\":1").replace("\"a\"", "\"b\"");
        let torn = torn.replace("creditos_ativos-000000", "creditos_ativos-000001");
        std::fs::copy(dir.join("creditos_ativos-000000.parquet"), dir.join("creditos_ativos-000001.parquet"))
            .unwrap();
        text.push_str(&torn);
        std::fs::write(&journal, text).unwrap();
        let s = Staging::open(tmp.path(), &P(1), true).unwrap();
        assert_eq!(s.settled(), BTreeSet::from(["a".to_string()]), "b is fetched again");
        assert!(!dir.join("creditos_ativos-000001.parquet").exists(), "its segment is an orphan");
        assert!(std::fs::read_to_string(&journal).unwrap().ends_with('\n'));
        assert_eq!(StagedFetch::read(tmp.path()).unwrap().tasks.len(), 1, "readers agree");
    }

    #[test]
    fn readers_and_writers_exclude_each_other() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = StagedFetch::lock_for_reading(tmp.path());
        let not_found = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
        assert!(
            matches!(&missing, Err(StagingError::Io { source, .. }) if not_found(source)),
            "no staging is not an empty one"
        );
        assert!(!tmp.path().join(".staging").exists(), "a reader creates nothing");
        let writer = Staging::open(tmp.path(), &P(1), false).unwrap();
        assert!(matches!(StagedFetch::lock_for_reading(tmp.path()), Err(StagingError::Locked { .. })));
        drop(writer);
        let a = StagedFetch::lock_for_reading(tmp.path()).unwrap();
        let b = StagedFetch::lock_for_reading(tmp.path()).unwrap();
        assert!(matches!(Staging::open(tmp.path(), &P(1), true), Err(StagingError::Locked { .. })));
        drop((a, b));
        assert!(Staging::open(tmp.path(), &P(1), true).is_ok());
    }

    #[test]
    fn profile_columns_cover_every_part() {
        let cols = Table::Empresas.columns();
        assert!(cols.contains(&"empresa_razao_social".to_string()));
        assert!(cols.contains(&"estabelecimento_cnae_fiscal_principal".to_string()));
        assert!(cols.contains(&"simples_opcao_pelo_simples".to_string()));
        assert!(cols.contains(&"fontes".to_string()) && cols.contains(&"cnpj_consultado".to_string()));
    }
}
