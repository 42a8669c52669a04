//! The staging journal: one JSON line per commit, naming the segments it wrote and the tasks it
//! finished. A commit counts only when its whole line is on disk.

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::StagingError;
use crate::api::models::Fonte;
use crate::periods::PeriodsSeen;
use crate::tables::Table;

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
    /// A failed task the service refused as invalid (a 422, another refused 4xx, a redirect):
    /// no retry changes that answer, so the run says what to fix instead of "retry later".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
    /// Source status and version the service reported, keyed by source or operation.
    #[serde(default, skip_serializing_if = "Fontes::is_empty")]
    pub fontes: Fontes,
    /// The period fields of the task's records (debts' quarter, registry month, credit month).
    #[serde(default, skip_serializing_if = "Seen::is_empty")]
    pub periodos: Seen,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Operation -> how the task's records compared with the models (schema drift).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub shapes: BTreeMap<String, crate::api::shape::ShapeDrift>,
    /// With a store: why the company's lists were fetched, or that they were carried.
    #[serde(default, rename = "lists", skip_serializing_if = "Option::is_none")]
    pub records_reason: Option<crate::extract::incremental::RecordsReason>,
    /// With a store: the profile's `resumos`, kept for the next run's comparison.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resumos: BTreeMap<String, crate::extract::incremental::ResumoSeen>,
}

impl TaskEntry {
    /// An entry with only its task and status; the rest empty.
    pub fn new(task: impl Into<String>, status: TaskStatus) -> Self {
        Self {
            task: task.into(),
            status,
            records: BTreeMap::new(),
            pages: 0,
            error: None,
            refused: false,
            fontes: Fontes::default(),
            periodos: Seen::default(),
            warnings: Vec::new(),
            shapes: BTreeMap::new(),
            records_reason: None,
            resumos: BTreeMap::new(),
        }
    }
}

/// A task's `fontes`. The tasks of a run report the same few maps, so entries that report the
/// same one share it: at 200,000 companies a map of its own for each took 1.7 KB a task, a
/// third of the memory the fetch held.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fontes(Arc<BTreeMap<String, Fonte>>);

/// Distinct maps shared so far; bounded, so a service whose versions change with every answer
/// costs a map per task again rather than an ever-growing pool.
static SHARED_FONTES: Mutex<BTreeSet<Arc<BTreeMap<String, Fonte>>>> = Mutex::new(BTreeSet::new());
const SHARED_MAX: usize = 256;

/// `value` shared with an equal one already in `pool`, or added to it while it has room.
fn interned<T: Ord>(pool: &Mutex<BTreeSet<Arc<T>>>, value: T) -> Arc<T> {
    let mut shared = pool.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(same) = shared.get(&value) {
        return same.clone();
    }
    let value = Arc::new(value);
    if shared.len() < SHARED_MAX {
        shared.insert(value.clone());
    }
    value
}

impl From<BTreeMap<String, Fonte>> for Fontes {
    fn from(map: BTreeMap<String, Fonte>) -> Self {
        Self(interned(&SHARED_FONTES, map))
    }
}

impl Fontes {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::ops::Deref for Fontes {
    type Target = BTreeMap<String, Fonte>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl Serialize for Fontes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Fontes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        BTreeMap::deserialize(d).map(Self::from)
    }
}

/// A task's record periods (`PeriodsSeen`), shared between tasks like `Fontes`: every company
/// of a run reports the same quarter and month.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seen(Arc<PeriodsSeen>);

static SHARED_SEEN: Mutex<BTreeSet<Arc<PeriodsSeen>>> = Mutex::new(BTreeSet::new());

impl From<PeriodsSeen> for Seen {
    fn from(map: PeriodsSeen) -> Self {
        Self(interned(&SHARED_SEEN, map))
    }
}

impl Seen {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::ops::Deref for Seen {
    type Target = PeriodsSeen;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl Serialize for Seen {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Seen {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        PeriodsSeen::deserialize(d).map(Self::from)
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Commit {
    pub(super) commit: u64,
    pub(super) segments: Vec<String>,
    pub(super) tasks: Vec<TaskEntry>,
}

/// What the complete commits of a journal add up to.
#[derive(Default)]
pub(super) struct Journal {
    /// Final state of every task (later commits win).
    pub(super) tasks: BTreeMap<String, TaskEntry>,
    pub(super) segments: BTreeSet<String>,
    pub(super) next_commit: u64,
    /// Bytes of complete commit lines: where a torn tail starts.
    pub(super) valid_len: u64,
}

/// Reads a journal. A commit counts only when its whole line, newline included, is on disk: a
/// line cut by a crash (even one missing just its newline) and anything after it never happened.
pub(super) fn read_journal(path: &Path) -> Result<Journal, StagingError> {
    let mut j = Journal::default();
    read_commits(path, |commit: Commit, line_len| {
        j.valid_len += line_len;
        j.next_commit = j.next_commit.max(commit.commit + 1);
        j.segments.extend(commit.segments);
        for t in commit.tasks {
            j.tasks.insert(t.task.clone(), t);
        }
    })?;
    Ok(j)
}

/// The segments of a journal's complete commits and the final status of each task, without
/// keeping the rest of the entries (at 200,000 companies the entries take ~300 MB; building the
/// frames needs the companies' outcomes only). Each line is read whole, as `read_journal`
/// reads it, so both take the same lines for complete commits.
pub(super) fn read_outline(
    path: &Path,
) -> Result<(BTreeSet<String>, BTreeMap<String, TaskStatus>), StagingError> {
    let (mut segments, mut tasks) = (BTreeSet::new(), BTreeMap::new());
    read_commits(path, |commit: Commit, _| {
        segments.extend(commit.segments);
        for t in commit.tasks {
            tasks.insert(t.task, t.status);
        }
    })?;
    Ok((segments, tasks))
}

/// Calls `each` with every complete commit line of the journal at `path`, read as `C`, and the
/// line's length; stops at the first line that is cut or does not read.
fn read_commits<C: serde::de::DeserializeOwned>(
    path: &Path,
    mut each: impl FnMut(C, u64),
) -> Result<(), StagingError> {
    let io = |source| StagingError::Io { path: path.to_path_buf(), source };
    // Line by line: at 200,000 companies the journal is 139 MB of text.
    let mut file = match std::fs::File::open(path) {
        Ok(f) => std::io::BufReader::with_capacity(1 << 20, f),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(e)),
    };
    let mut line = Vec::new();
    loop {
        line.clear();
        if file.read_until(b'\n', &mut line).map_err(io)? == 0 {
            break;
        }
        let Some(body) = line.strip_suffix(b"\n") else { break };
        let Ok(commit) = serde_json::from_slice::<C>(body) else { break };
        each(commit, line.len() as u64);
    }
    Ok(())
}
