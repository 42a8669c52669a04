//! Durable staging of fetched records under `DIR/.staging`: Parquet segments (arrow-rs, every
//! column the wire text as-is) and a journal of commits.
//!
//! A commit is one journal line naming the segments it wrote and the tasks it finished. The
//! segments are renamed into place and synced before the line is written, so after a crash a
//! complete line means complete data; segments no complete line names are deleted on resume.
//! A task's records are committed together or not at all. Parsing the text into typed values
//! is the transform stage's job.

mod journal;
mod segment;

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use journal::{Commit, read_journal};
pub use journal::{TaskEntry, TaskStatus};
pub use segment::read_segment;
use segment::{sync_dir, write_segment};

use crate::tables::{Row, Table};

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
    #[error(
        "{dir} is not empty and holds no fiscal-report run: a run replaces the folders it writes there \
         (empresas/, aggregates/, ...), which would delete what they hold; choose a new or empty folder"
    )]
    NotARunFolder { dir: PathBuf },
    #[error("writing a Parquet segment {path}: {message}")]
    Parquet { path: PathBuf, message: String },
}

impl crate::exit::HasExitStatus for StagingError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        use crate::exit::ExitStatus;
        match self {
            // A lock held, a directory in use, a disk that refused: the person's to fix.
            Self::Locked { .. }
            | Self::ExistingRun { .. }
            | Self::PlanMismatch { .. }
            | Self::NotARunFolder { .. }
            | Self::Io { .. } => ExitStatus::BadInput,
            Self::Parquet { .. } => ExitStatus::Internal,
        }
    }
}

/// Which of a plan's settings differ from the stored one's (`stored`, its JSON), said for a
/// person: `base_url "http://h/" where the interrupted run had "http://h"`.
fn plan_difference<P: Serialize>(stored: &str, plan: &P) -> String {
    let (Ok(serde_json::Value::Object(before)), Ok(serde_json::Value::Object(now))) =
        (serde_json::from_str::<serde_json::Value>(stored), serde_json::to_value(plan))
    else {
        return "months, states, portfolio, shard or service differ from the interrupted run".into();
    };
    let shown = |v: Option<&serde_json::Value>| {
        let text = v.map_or("nothing".to_string(), ToString::to_string);
        if text.chars().count() > 80 {
            format!("{}…", text.chars().take(80).collect::<String>())
        } else {
            text
        }
    };
    let differ: Vec<String> = now
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v))
        .map(|(k, v)| {
            format!("{k} {} where the interrupted run had {}", shown(Some(v)), shown(before.get(k)))
        })
        .collect();
    if differ.is_empty() {
        "the interrupted run's plan was written by another version".into()
    } else {
        differ.join("; ")
    }
}

/// A fresh run's (or merge's) folder must be new, empty (a mounted volume's `lost+found` aside)
/// or a run's own (its staging or its manifest): the export replaces the folders it writes, and
/// the store or a person's files there would go with them.
pub fn refuse_others_folder(out: &Path) -> Result<(), StagingError> {
    // A folder that cannot be listed (missing, or a file) is said when it is created.
    let Ok(entries) = std::fs::read_dir(out) else { return Ok(()) };
    let names: Vec<std::ffi::OsString> = entries.flatten().map(|e| e.file_name()).collect();
    let ours = names.iter().any(|n| n == ".staging" || n == "manifest.json");
    let others = names.iter().any(|n| n != "lost+found");
    if others && !ours {
        return Err(StagingError::NotARunFolder { dir: out.to_path_buf() });
    }
    Ok(())
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

/// The scratch directories of the stages after the fetch that a killed process left in `out`
/// (its spills) and in `out/.staging/typed` (respelled copies): for a holder of the lock alone.
fn remove_left_scratch(out: &Path) {
    crate::fsutil::remove_scratch(out);
    crate::fsutil::remove_scratch(&out.join(".staging").join("typed"));
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
    /// dropped. Shared: readers do not exclude each other, only writers. Creates nothing, so a
    /// staging that has no lock file (or no `.staging`) is a `NotFound` I/O error; when no
    /// other process holds the lock, the scratch directories a killed reader left go first.
    pub fn lock_for_reading(out: &Path) -> Result<ReadLock, StagingError> {
        let lock_path = out.join(".staging").join("lock");
        let lock = File::open(&lock_path).map_err(io_err(&lock_path))?;
        if lock.try_lock().is_ok() {
            remove_left_scratch(out);
            let _ = lock.unlock();
        }
        take_lock(&lock, &lock_path, out, true)?;
        Ok(ReadLock { _lock: lock })
    }

    pub fn read(out: &Path) -> Result<Self, StagingError> {
        let dir = out.join(".staging");
        let journal = read_journal(&dir.join("journal.jsonl"))?;
        Ok(Self { dir, tasks: journal.tasks, segments: journal.segments })
    }

    /// `read`, each task's entry holding its task and status only: what building the frames
    /// needs, in a fraction of the memory (not for a fetch's summary or a store's decisions).
    pub fn read_outline(out: &Path) -> Result<Self, StagingError> {
        let dir = out.join(".staging");
        let (segments, statuses) = journal::read_outline(&dir.join("journal.jsonl"))?;
        let tasks =
            statuses.into_iter().map(|(task, status)| (task.clone(), TaskEntry::new(task, status))).collect();
        Ok(Self { dir, tasks, segments })
    }

    pub fn segment_paths(&self, table: Table) -> Vec<PathBuf> {
        let prefix = format!("{}-", table.name());
        self.segments.iter().filter(|s| s.starts_with(&prefix)).map(|s| self.dir.join(s)).collect()
    }
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

    /// Clears the staging of a finished run in `out` (the caller knows it finished), under its
    /// lock, so that a new run of the folder starts afresh: its outputs stay until the new run
    /// writes its own. Another run holding the folder is refused as `open` refuses it.
    pub fn clear_finished(out: &Path) -> Result<(), StagingError> {
        let dir = out.join(".staging");
        let lock_path = dir.join("lock");
        let Ok(lock) = OpenOptions::new().create(false).write(true).open(&lock_path) else { return Ok(()) };
        take_lock(&lock, &lock_path, out, false)?;
        for entry in std::fs::read_dir(&dir).map_err(io_err(&dir))? {
            let entry = entry.map_err(io_err(&dir))?;
            let path = entry.path();
            if entry.file_name() == "lock" {
                continue;
            }
            let removed =
                if path.is_dir() { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
            removed.map_err(io_err(&path))?;
        }
        Ok(())
    }

    /// Opens (and locks) `out/.staging`. A fresh run refuses a DIR that already holds staged
    /// data; a resume requires one with the same plan.
    pub fn open<P: Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>(
        out: &Path,
        plan: &P,
        resume: bool,
    ) -> Result<Self, StagingError> {
        if !resume {
            refuse_others_folder(out)?;
        }
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
                    what: plan_difference(&text, plan),
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
        remove_left_scratch(out);
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

    /// Lets go of the tasks' entries, for a caller that has built what it needed from them
    /// (the fetch's summary, the frames' companies): at 500,000 companies they hold 240 MiB.
    /// The journal on disk keeps them; `task_entries` gives none after this.
    pub fn forget_entries(&mut self) {
        self.staged.tasks = BTreeMap::new();
    }

    /// Committed segment files of `table`, in commit order.
    pub fn segment_paths(&self, table: Table) -> Vec<PathBuf> {
        self.staged.segment_paths(table)
    }

    /// What the complete commits so far hold, as a reader of this directory would see it.
    pub fn staged(&self) -> &StagedFetch {
        &self.staged
    }

    /// Writes one commit: the rows as one segment per table, then the journal line. Hands the
    /// rows back with the segment each went to, for whoever types them while the fetch goes on.
    pub fn commit(
        &mut self,
        rows: BTreeMap<Table, Vec<Row>>,
        tasks: Vec<TaskEntry>,
    ) -> Result<Vec<CommittedSegment>, StagingError> {
        if tasks.is_empty() {
            return Ok(Vec::new());
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
        self.staged.segments.extend(names.iter().cloned());
        for t in tasks {
            self.staged.tasks.insert(t.task.clone(), t);
        }
        let dir = &self.staged.dir;
        // `names` followed the same non-empty tables in the same order.
        Ok(rows
            .into_iter()
            .filter(|(_, r)| !r.is_empty())
            .zip(names)
            .map(|((table, rows), name)| CommittedSegment { path: dir.join(name), table, rows })
            .collect())
    }
}

/// A segment a commit made durable, with the rows it holds.
#[derive(Debug)]
pub struct CommittedSegment {
    pub table: Table,
    pub path: PathBuf,
    pub rows: Vec<Row>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::models::CreditoAtivo;
    use crate::tables::{RowMap, flat_row};

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
        TaskEntry { pages: 1, ..TaskEntry::new(task, TaskStatus::Done) }
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
        {
            // A finished run's staging cleared: a new run of the folder opens it afresh, with
            // another plan too; while another run holds the folder, it is not cleared.
            let copy = tempfile::tempdir().unwrap();
            let held = Staging::open(copy.path(), &P(1), false).unwrap();
            assert!(matches!(Staging::clear_finished(copy.path()), Err(StagingError::Locked { .. })));
            drop(held);
            Staging::clear_finished(copy.path()).unwrap();
            assert!(Staging::open(copy.path(), &P(2), false).is_ok());
        }
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
