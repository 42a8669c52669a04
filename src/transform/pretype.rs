//! Typing while the fetch goes on: each segment the fetch commits is typed on a thread of its
//! own as soon as it is durable and written beside it, typed, in `.staging/typed/`, so that when
//! the last response arrives only the last commit's segments are left to type, and the typed
//! rows wait on disk rather than in memory.
//!
//! It owns that thread and the typed files; how rows are typed is `frames`' business, which
//! segments make up the run is the staging journal's. A typed file is derived data: only
//! committed segments are typed, a typed file counts only once its sidecar (written last) is
//! there and names this binary's typing, and a segment without one (a kill before it was typed,
//! a fetch that typed nothing) is typed from its text when the frames are built. So the
//! journal's guarantees and `--resume` are what they were.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

use polars::prelude::*;

use super::typing::{QualityCount, TransformError, staged_frame, type_table};
use super::vocabulary::{PublishedVocabulary, published_vocabulary};
use crate::extract::SegmentSink;
use crate::extract::staging::CommittedSegment;
use crate::tables::Table;

/// Bumped whenever typing changes what a staged row becomes: typed files of another layout are
/// typed again from their text (a `--resume` across an upgrade).
const TYPED_LAYOUT: u32 = 1;

/// One segment typed: its frame, what did not parse, and for `empresas` its profiles'
/// summaries (`resumos`, read from the text).
pub(crate) struct TypedSegment {
    pub typed: DataFrame,
    pub quality: Vec<QualityCount>,
    pub resumos: Option<DataFrame>,
    /// The published texts its vocabulary spellings were chosen from (`None` from a typed copy
    /// written before they were kept: the table is then respelled over all its rows).
    pub vocabulary: Option<PublishedVocabulary>,
}

/// A typed segment's file, as its sidecar describes it (`TypedSegment::whole_file`).
pub(crate) struct TypedFile {
    pub path: PathBuf,
    pub rows: usize,
    pub quality: Vec<QualityCount>,
    pub vocabulary: Option<PublishedVocabulary>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Sidecar {
    layout: u32,
    version: String,
    rows: usize,
    quality: Vec<QualityCount>,
    resumos_rows: Option<usize>,
    #[serde(default)]
    vocabulary: Option<PublishedVocabulary>,
}

impl Sidecar {
    /// The sidecar at `path`, when it is there and names this binary's typing.
    fn of_this_typing(path: &Path) -> Option<Self> {
        let note: Self = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        (note.layout == TYPED_LAYOUT && note.version == env!("CARGO_PKG_VERSION")).then_some(note)
    }
}

impl TypedSegment {
    /// Types one segment's staged text frame.
    pub(crate) fn of(table: Table, text: DataFrame) -> Result<Self, TransformError> {
        let (typed, mut quality) = type_table(table, &text)?;
        let resumos = if table == Table::Empresas {
            let (df, q) = super::resumos::resumos_frame(&text)?;
            quality.extend(q);
            Some(df)
        } else {
            None
        };
        let vocabulary = Some(
            published_vocabulary(table, &typed)
                .map_err(|source| TransformError::Frame { table: table.name(), source })?,
        );
        Ok(Self { typed, quality, resumos, vocabulary })
    }

    /// The typed files of the staged segment `segment`.
    fn paths(segment: &Path) -> (PathBuf, PathBuf, PathBuf) {
        let dir = segment.parent().unwrap_or(Path::new(".")).join("typed");
        let name = segment.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let stem = name.trim_end_matches(".parquet");
        (dir.join(&name), dir.join(format!("{stem}.resumos.parquet")), dir.join(format!("{stem}.json")))
    }

    /// Writes this segment's typed files, the sidecar last.
    pub(super) fn save(mut self, segment: &Path) -> std::io::Result<()> {
        let (typed, resumos, sidecar) = Self::paths(segment);
        write_frame(&typed, &mut self.typed)?;
        let resumos_rows = match &mut self.resumos {
            Some(df) => {
                write_frame(&resumos, df)?;
                Some(df.height())
            }
            None => None,
        };
        let note = Sidecar {
            layout: TYPED_LAYOUT,
            version: env!("CARGO_PKG_VERSION").into(),
            rows: self.typed.height(),
            quality: self.quality,
            resumos_rows,
            vocabulary: self.vocabulary,
        };
        crate::fsutil::write_atomic(&sidecar, &serde_json::to_vec(&note).map_err(std::io::Error::other)?)
    }

    /// The typed file of `segment` and what its typing counted and chose its spellings from,
    /// without reading its rows: when the sidecar names this binary's typing and the file's
    /// footer the rows it says.
    pub(super) fn whole_file(segment: &Path) -> Option<TypedFile> {
        let (typed, _, sidecar) = Self::paths(segment);
        let note = Sidecar::of_this_typing(&sidecar)?;
        let rows = ParquetReader::new(std::fs::File::open(&typed).ok()?).num_rows().ok()?;
        (rows == note.rows).then_some(TypedFile {
            path: typed,
            rows,
            quality: note.quality,
            vocabulary: note.vocabulary,
        })
    }

    /// The typed `resumos` file of an `empresas` segment and its rows, without reading them:
    /// when the sidecar names this binary's typing and the file's footer the rows it says.
    pub(super) fn resumos_file(segment: &Path) -> Option<(PathBuf, usize)> {
        let (_, resumos, sidecar) = Self::paths(segment);
        let n = Sidecar::of_this_typing(&sidecar)?.resumos_rows?;
        let rows = ParquetReader::new(std::fs::File::open(&resumos).ok()?).num_rows().ok()?;
        (rows == n).then_some((resumos, rows))
    }

    /// The typed files of `segment`, when they are whole and of this binary's typing; the
    /// summaries only `with_resumos` (they may be read where used instead).
    pub(crate) fn load(segment: &Path, with_resumos: bool) -> Option<Self> {
        let (typed, resumos, sidecar) = Self::paths(segment);
        let note = Sidecar::of_this_typing(&sidecar)?;
        let read = |p: &Path| ParquetReader::new(std::fs::File::open(p).ok()?).finish().ok();
        let df = read(&typed).filter(|df| df.height() == note.rows)?;
        let resumos = match note.resumos_rows.filter(|_| with_resumos) {
            Some(n) => Some(read(&resumos).filter(|df| df.height() == n)?),
            None => None,
        };
        Some(Self { typed: df, quality: note.quality, resumos, vocabulary: note.vocabulary })
    }
}

pub(super) fn write_frame(path: &Path, df: &mut DataFrame) -> std::io::Result<()> {
    // Fast over small: read back once, on this machine, right after the fetch.
    let mut bytes = Vec::new();
    ParquetWriter::new(&mut bytes)
        .with_compression(ParquetCompression::Lz4Raw)
        .finish(df)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    crate::fsutil::write_atomic(path, &bytes)
}

/// Committed segments waiting to be typed, with their rows, before the fetch's writer waits
/// for the typing: where typing is the slower, the rows wait in the fetch's queue, which is
/// bounded too, and the tasks wait for room in it.
const TYPING_QUEUE: usize = 4;

/// The typing thread and the way segments reach it.
pub(crate) struct SegmentTyper {
    tx: mpsc::SyncSender<Job>,
    worker: JoinHandle<()>,
}

/// What the typing thread is given, in order.
enum Job {
    Segment(CommittedSegment),
    /// Called once the segments sent before it are typed.
    Then(Box<dyn FnOnce() + Send>),
}

impl SegmentTyper {
    /// Starts the thread; it counts the records it types in `acct.typed` (for the progress
    /// display).
    pub(crate) fn start(
        acct: std::sync::Arc<crate::extract::accounting::Accounting>,
    ) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::sync_channel::<Job>(TYPING_QUEUE);
        let worker = std::thread::Builder::new().name("typing".into()).spawn(move || {
            for job in rx {
                match job {
                    Job::Segment(segment) => type_and_save(segment, &acct),
                    Job::Then(f) => f(),
                }
            }
        })?;
        Ok(Self { tx, worker })
    }

    /// What the fetch calls with each committed segment.
    pub(crate) fn sink(&self) -> SegmentSink {
        let tx = self.tx.clone();
        Box::new(move |segment| drop(tx.send(Job::Segment(segment))))
    }

    /// `f`, to be called with what it is given once the segments sent before it are typed
    /// (on the typing thread: `f` should only hand its work on).
    pub(crate) fn after_typed<T: Send + 'static>(
        &self,
        f: impl FnOnce(T) + Send + 'static,
    ) -> Box<dyn FnOnce(T) + Send> {
        let tx = self.tx.clone();
        Box::new(move |value| drop(tx.send(Job::Then(Box::new(move || f(value))))))
    }

    /// Waits for the segments sent so far to be typed.
    pub(crate) fn finish(self) {
        let Self { tx, worker } = self;
        drop(tx);
        let _ = worker.join();
    }
}

/// One committed segment typed and saved beside it. A segment not typed here is typed from its
/// text when the frames are built, where an error in it is reported.
fn type_and_save(segment: CommittedSegment, acct: &crate::extract::accounting::Accounting) {
    let typed = staged_frame(segment.table, &segment.rows)
        .map_err(|source| TransformError::Frame { table: segment.table.name(), source })
        .and_then(|text| {
            drop(segment.rows);
            TypedSegment::of(segment.table, text)
        });
    let rows = typed.as_ref().map_or(0, |t| t.typed.height() as u64);
    match typed.map(|t| t.save(&segment.path)) {
        Ok(Ok(())) => {
            acct.typed.fetch_add(rows, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(Err(e)) => tracing::debug!("typed copy of {} not kept: {e}", segment.path.display()),
        Err(e) => tracing::debug!("{} left to type after the fetch: {e}", segment.path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(values: &[&str]) -> crate::tables::Row {
        values.iter().map(|v| Some(v.to_string())).collect()
    }

    /// Where the typing falls behind, what is handed to it waits for room once its queue is
    /// full, rather than piling up in memory.
    #[test]
    fn the_typing_queue_holds_so_many_and_then_the_sender_waits() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let typer = SegmentTyper::start(std::sync::Arc::default()).unwrap();
        let (release, held) = mpsc::channel::<()>();
        let (busy, is_busy) = mpsc::channel::<()>();
        typer.after_typed(move |()| {
            busy.send(()).unwrap();
            held.recv().unwrap();
        })(());
        is_busy.recv().unwrap();
        let sent = std::sync::Arc::new(AtomicUsize::new(0));
        let more = TYPING_QUEUE + 2;
        let senders: Vec<_> = (0..more).map(|_| typer.after_typed(|()| {})).collect();
        let counted = sent.clone();
        let sender = std::thread::spawn(move || {
            for send in senders {
                send(());
                counted.fetch_add(1, Ordering::SeqCst);
            }
        });
        // The queue fills (at once, but a busy machine may start the thread late)...
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while sent.load(Ordering::SeqCst) < TYPING_QUEUE && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        // ...and stays full while the typing thread is held.
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert_eq!(sent.load(Ordering::SeqCst), TYPING_QUEUE, "the queue is full and the sender waits");
        release.send(()).unwrap();
        sender.join().unwrap();
        assert_eq!(sent.load(Ordering::SeqCst), more);
        typer.finish();
    }

    /// A segment typed on the thread and read back is the segment typed from its text: rows,
    /// types, values and data-quality counts; a sidecar of another layout is not trusted.
    #[test]
    fn a_typed_copy_reads_back_as_the_text_types() {
        let tmp = tempfile::tempdir().unwrap();
        let segment = tmp.path().join("dividas_pgfn-000003.parquet");
        let table = Table::DividasPgfn;
        let width = table.columns().len();
        let mut a = vec!["x"; width];
        let mut b = vec!["y"; width];
        for (i, name) in table.columns().iter().enumerate() {
            if name.as_str().contains("valor") {
                a[i] = "1.234,56";
                b[i] = "not money";
            }
        }
        let rows = vec![row(&a), row(&b)];
        let direct = TypedSegment::of(table, staged_frame(table, &rows).unwrap()).unwrap();
        TypedSegment::of(table, staged_frame(table, &rows).unwrap()).unwrap().save(&segment).unwrap();
        let loaded = TypedSegment::load(&segment, true).expect("the typed copy");
        assert!(loaded.typed.equals_missing(&direct.typed));
        assert_eq!(loaded.typed.schema(), direct.typed.schema());
        assert_eq!(loaded.quality, direct.quality);
        assert!(direct.quality.iter().any(|q| q.failures > 0), "the bad amount is counted");

        let (_, _, sidecar) = TypedSegment::paths(&segment);
        let text = std::fs::read_to_string(&sidecar).unwrap().replace("\"layout\":1", "\"layout\":0");
        std::fs::write(&sidecar, text).unwrap();
        assert!(TypedSegment::load(&segment, true).is_none(), "another layout's typing is typed again");
        std::fs::remove_file(&sidecar).unwrap();
        assert!(TypedSegment::load(&segment, true).is_none(), "no sidecar, no typed copy");
    }
}
