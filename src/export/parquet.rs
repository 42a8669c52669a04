//! Writes frames as Parquet that pyarrow, pandas, DuckDB and Spark read as-is: zstd, column
//! statistics, bounded row groups, key-value metadata, and a temporary name renamed into place
//! so no reader ever sees half a file. Each written file is read back with arrow-rs (an
//! independent reader) for the manifest's row count. A file can also be begun (its rows
//! written) and finished later (`Unfinished`: its footer, with metadata known only then).

use std::fs::File;
use std::path::{Path, PathBuf};

use polars::io::parquet::write::BatchedWriter;
use polars::prelude::*;
use sha2::{Digest, Sha256};

use super::manifest::FileEntry;

/// Rows per row group: small enough for predicate pushdown, large enough for compression.
const ROW_GROUP_ROWS: usize = 128 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(
        "cannot write {path}: {source}; free space on that disk (or fix its permissions), then run again \
         (`report --from` on the output directory redoes only the stages after the fetch)"
    )]
    Io { path: PathBuf, source: std::io::Error },
    #[error("writing Parquet {path}: {message}")]
    Parquet { path: PathBuf, message: String },
    #[error("{path} reads back with {read} rows where {written} were written")]
    Verify { path: PathBuf, written: u64, read: u64 },
    #[error("{what} cannot be written to standard output; {fix}")]
    Refused { what: String, fix: String },
}

impl crate::exit::HasExitStatus for ExportError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        use crate::exit::ExitStatus;
        match self {
            // A file that cannot be written is the person's to fix (room, permissions).
            Self::Io { .. } | Self::Refused { .. } => ExitStatus::BadInput,
            Self::Parquet { .. } | Self::Verify { .. } => ExitStatus::Internal,
        }
    }
}

/// Key-value metadata written into every file.
#[derive(Debug, Clone, Default)]
pub struct FileMetadata {
    pub pairs: Vec<(String, String)>,
}

impl FileMetadata {
    pub fn with(&self, key: &str, value: impl Into<String>) -> Self {
        let mut m = self.clone();
        m.pairs.push((key.to_string(), value.into()));
        m
    }
}

/// The Parquet writer reports a failed write only in its error's text ("underlying IO error:
/// No space left on device (os error 28)"); std's "(os error N)" there gives the kind back, so
/// a full disk stays a full disk (exit 2) instead of looking like a bug.
fn os_error_in(text: &str) -> Option<std::io::Error> {
    let (_, after) = text.rsplit_once("(os error ")?;
    let code: i32 = after.split(')').next()?.parse().ok()?;
    Some(std::io::Error::from_raw_os_error(code))
}

/// Writes `df` to `path` atomically and returns its manifest entry (path relative to `root`).
pub(crate) fn write_parquet(
    df: &mut DataFrame,
    path: &Path,
    root: &Path,
    meta: &FileMetadata,
) -> Result<FileEntry, ExportError> {
    write_rows(df, path, root, meta)
}

/// `write_parquet` of `df`'s rows in `order` (every row once), gathered a row group at a time:
/// the file of `df` sorted, without a sorted copy of `df` (a third of the debts at 200,000
/// companies is ~300 MB).
pub(crate) fn write_parquet_in_order(
    df: &DataFrame,
    order: &IdxCa,
    path: &Path,
    root: &Path,
    meta: &FileMetadata,
) -> Result<FileEntry, ExportError> {
    let mut next_group = row_groups_in_order(df, order);
    write_parquet_runs(df.schema(), order.len(), &mut next_group, path, root, meta)
}

/// `write_parquet` of `height` rows that `next_run` gives a run at a time, each run following
/// the previous one in the file (a partition sorted a key range at a time), with `schema`. The
/// row groups are cut every `ROW_GROUP_ROWS` rows whatever the runs' lengths, so the file is
/// the one `write_parquet_in_order` writes of the same rows in the same order.
pub(crate) fn write_parquet_runs(
    schema: &Schema,
    height: usize,
    next_run: &mut dyn FnMut() -> PolarsResult<Option<DataFrame>>,
    path: &Path,
    root: &Path,
    meta: &FileMetadata,
) -> Result<FileEntry, ExportError> {
    let tmp = temporary_beside(path, root)?;
    begin_parquet_runs(schema, height, next_run, tmp, path, ColumnEncoding::Parallel)?.finish(root, meta)
}

/// `write_parquet_in_order` but for the footer: the rows are written to `tmp` now, and the
/// file is finished (footer with its metadata, then moved to `path`) by `Unfinished::finish`.
pub(crate) fn begin_parquet_in_order(
    df: &DataFrame,
    order: &IdxCa,
    tmp: PathBuf,
    path: &Path,
) -> Result<Unfinished, ExportError> {
    let mut next_group = row_groups_in_order(df, order);
    // One thread per file: a file begun while the fetch runs leaves the fetch the other core.
    begin_parquet_runs(df.schema(), order.len(), &mut next_group, tmp, path, ColumnEncoding::OneThread)
}

/// How a file's columns are encoded; the bytes are the same either way (the columns are
/// written in order).
#[derive(Clone, Copy)]
enum ColumnEncoding {
    /// On Polars' threads, the columns at once.
    Parallel,
    /// On the writing thread.
    OneThread,
}

/// `df`'s rows in `order`, a row group at a time.
fn row_groups_in_order<'a>(
    df: &'a DataFrame,
    order: &'a IdxCa,
) -> impl FnMut() -> PolarsResult<Option<DataFrame>> + 'a {
    let mut start = 0;
    move || {
        if start >= order.len() {
            return Ok(None);
        }
        let len = ROW_GROUP_ROWS.min(order.len() - start);
        let group = df.take(&order.slice(start as i64, len))?;
        start += len;
        Ok(Some(group))
    }
}

/// A Parquet file whose rows are written and whose footer is not yet. The footer holds the
/// key-value metadata, and a run that writes its credits while the fetch still runs knows that
/// metadata (the sources' versions, which the companies' answers complete) only at the end.
pub(crate) struct Unfinished {
    writer: BatchedWriter<SharedSink>,
    sink: SharedSink,
    tmp: PathBuf,
    path: PathBuf,
    height: usize,
}

impl Unfinished {
    /// Where the file goes once finished.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Writes the footer with `meta` (after Arrow's schema, as Polars' own writer puts it), then
    /// flushes, syncs, reads it back and moves it into place as `write_parquet` does.
    pub(crate) fn finish(self, root: &Path, meta: &FileMetadata) -> Result<FileEntry, ExportError> {
        let Unfinished { writer, sink, tmp, path, height } = self;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| ExportError::Io { path: path.clone(), source })?;
        }
        let ended = {
            let mut file = writer.get_writer().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let mut pairs = vec![polars_parquet::write::schema_to_metadata_key(file.schema())];
            pairs.extend(
                meta.pairs
                    .iter()
                    .map(|(k, v)| polars_parquet::write::KeyValue { key: k.clone(), value: Some(v.clone()) }),
            );
            file.end(Some(pairs)).map(drop).map_err(|e| write_error(&path, e))
        };
        // The writer's handle on the file goes with it: the file is this one's alone again.
        drop(writer);
        let file = match std::sync::Arc::try_unwrap(sink.0) {
            Ok(m) => m.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner),
            Err(_) => unreachable!("the Parquet writer, the file's only other holder, was dropped"),
        };
        settle(file, ended, &tmp, &path, root, height)
    }
}

/// `begin_parquet_in_order` of rows given in runs (`write_parquet_runs`).
fn begin_parquet_runs(
    schema: &Schema,
    height: usize,
    next_run: &mut dyn FnMut() -> PolarsResult<Option<DataFrame>>,
    tmp: PathBuf,
    path: &Path,
    encoding: ColumnEncoding,
) -> Result<Unfinished, ExportError> {
    let sink = SharedSink(std::sync::Arc::new(std::sync::Mutex::new(open_sink(&tmp, path)?)));
    let begun = parquet_writer(sink.clone())
        .set_parallel(matches!(encoding, ColumnEncoding::Parallel))
        .batched(schema)
        .and_then(|mut batched| write_runs(&mut batched, next_run).map(|()| batched));
    match begun {
        Ok(writer) => Ok(Unfinished { writer, sink, tmp, path: path.to_path_buf(), height }),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(write_error(path, e))
        }
    }
}

/// Writes the runs into row groups of `ROW_GROUP_ROWS` rows (the last one shorter), where the
/// whole frame's writer splits rows into groups of equal size: the same rows in the same order,
/// in row groups cut elsewhere past 128k rows.
fn write_runs<W: std::io::Write>(
    batched: &mut BatchedWriter<W>,
    next_run: &mut dyn FnMut() -> PolarsResult<Option<DataFrame>>,
) -> PolarsResult<()> {
    // The rows of the last run not yet in a row group (a slice of it: no copy).
    let mut carried: Option<DataFrame> = None;
    while let Some(run) = next_run()? {
        let mut rows = match carried.take() {
            Some(mut c) => {
                c.vstack_mut_owned(run)?;
                c
            }
            None => run,
        };
        while rows.height() >= ROW_GROUP_ROWS {
            batched.write_batch(&one_chunk(rows.slice(0, ROW_GROUP_ROWS)))?;
            rows = rows.slice(ROW_GROUP_ROWS as i64, rows.height() - ROW_GROUP_ROWS);
        }
        carried = Some(rows);
    }
    if let Some(rows) = carried.filter(|r| r.height() > 0) {
        batched.write_batch(&one_chunk(rows))?;
    }
    Ok(())
}

/// The writer makes a row group of each chunk: a group spanning two runs is copied into one.
fn one_chunk(mut df: DataFrame) -> DataFrame {
    df.rechunk_mut();
    df
}

/// The settings every file is written with (its key-value metadata apart).
fn parquet_writer<W: std::io::Write>(sink: W) -> ParquetWriter<W> {
    ParquetWriter::new(sink)
        .with_compression(ParquetCompression::Zstd(None))
        .with_statistics(StatisticsOptions::default())
        .with_row_group_size(Some(ROW_GROUP_ROWS))
}

/// The temporary name `path` is written under, beside it (so the move into place is a rename
/// within one directory, which no reader sees half done; a file begun early waits in a scratch
/// folder of the same output folder, one file system, and is renamed from there).
fn temporary_beside(path: &Path, root: &Path) -> Result<PathBuf, ExportError> {
    let dir = path.parent().unwrap_or(root);
    std::fs::create_dir_all(dir).map_err(|source| ExportError::Io { path: path.to_path_buf(), source })?;
    Ok(dir.join(format!(
        ".{}.tmp-{}",
        path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
        std::process::id()
    )))
}

/// A new file at `tmp`, buffered and hashed as it is written.
fn open_sink(tmp: &Path, path: &Path) -> Result<Sink, ExportError> {
    // Buffered: the writer sends each page and thrift header as its own small write, a
    // system call apiece without a buffer (seconds over the files of a year of credits, when
    // they were cut by state too).
    let file = File::create(tmp).map_err(|source| ExportError::Io { path: path.to_path_buf(), source })?;
    // Hashed and counted as it is written, so the file is not read again for its sha256.
    Ok(HashingWriter {
        inner: std::io::BufWriter::with_capacity(1 << 20, file),
        hash: Sha256::new(),
        bytes: 0,
    })
}

/// A failed write of `path`: a full disk or a lost mount is the machine's, not ours, and stays
/// an I/O error.
fn write_error(path: &Path, e: PolarsError) -> ExportError {
    let io = |source| ExportError::Io { path: path.to_path_buf(), source };
    match &e {
        PolarsError::IO { error, .. } => io(std::io::Error::new(error.kind(), error.to_string())),
        _ => os_error_in(&e.to_string())
            .map_or_else(|| ExportError::Parquet { path: path.to_path_buf(), message: e.to_string() }, io),
    }
}

fn write_rows(
    df: &mut DataFrame,
    path: &Path,
    root: &Path,
    meta: &FileMetadata,
) -> Result<FileEntry, ExportError> {
    let height = df.height();
    let tmp = temporary_beside(path, root)?;
    let mut file = open_sink(&tmp, path)?;
    let written = parquet_writer(&mut file)
        .with_key_value_metadata(Some(KeyValueMetadata::from_static(meta.pairs.clone())))
        .finish(df)
        .map(drop)
        .map_err(|e| write_error(path, e));
    settle(file, written, &tmp, path, root, height)
}

/// The file written (`written` says whether it all went well) at `tmp` flushed and synced to
/// disk, its footer read back, and moved to `path`; on any failure `tmp` is removed.
fn settle(
    file: Sink,
    written: Result<(), ExportError>,
    tmp: &Path,
    path: &Path,
    root: &Path,
    height: usize,
) -> Result<FileEntry, ExportError> {
    let io = |source| ExportError::Io { path: path.to_path_buf(), source };
    let HashingWriter { inner, hash, bytes } = file;
    let synced = written.and_then(|()| {
        inner.into_inner().map_err(|e| io(e.into_error())).and_then(|f| f.sync_all().map_err(io))
    });
    if let Err(e) = synced {
        let _ = std::fs::remove_file(tmp);
        return Err(e);
    }
    // The footer read back by an independent reader (arrow-rs): the rows it says are there.
    let read = read_row_count(tmp)
        .map_err(|e| ExportError::Parquet { path: path.to_path_buf(), message: e.to_string() })?;
    if read != height as u64 {
        let _ = std::fs::remove_file(tmp);
        return Err(ExportError::Verify { path: path.to_path_buf(), written: height as u64, read });
    }
    std::fs::rename(tmp, path).map_err(io)?;
    let rel = path.strip_prefix(root).unwrap_or(path).to_string_lossy().replace('\\', "/");
    Ok(FileEntry { path: rel, rows: read, bytes, sha256: hex::encode(hash.finalize()) })
}

/// What a file is written through: buffered, hashed and counted.
type Sink = HashingWriter<std::io::BufWriter<File>>;

/// A `Sink` shared with the Parquet writer of an `Unfinished` file, so that the file can be
/// taken back once its footer is written (Polars' batched writer keeps the writer it is given).
#[derive(Clone)]
struct SharedSink(std::sync::Arc<std::sync::Mutex<Sink>>);

impl std::io::Write for SharedSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).flush()
    }
}

/// A writer that hashes and counts what passes through it.
struct HashingWriter<W> {
    inner: W,
    hash: Sha256,
    bytes: u64,
}

impl<W: std::io::Write> std::io::Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Row count from the footer, read with arrow-rs' parquet crate rather than Polars.
pub(crate) fn read_row_count(path: &Path) -> Result<u64, parquet::errors::ParquetError> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let file = File::open(path).map_err(|e| parquet::errors::ParquetError::External(Box::new(e)))?;
    let reader = SerializedFileReader::new(file)?;
    Ok(reader.metadata().file_metadata().num_rows().max(0) as u64)
}

/// A hive partition path segment `key=value` that cannot leave its directory: anything but
/// letters, digits, `-` and `_` is percent-encoded, whatever the service sent.
pub(crate) fn partition_segment(key: &str, value: Option<&str>) -> String {
    /// Everything but ASCII letters, digits, `-` and `_` is escaped: no `.` or `/` can make a
    /// value a path of its own.
    const KEPT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'_');
    match value {
        None => format!("{key}=__HIVE_DEFAULT_PARTITION__"),
        Some(v) => format!("{key}={}", percent_encoding::utf8_percent_encode(v, KEPT)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_values_cannot_escape() {
        assert_eq!(partition_segment("uf", Some("SP")), "uf=SP");
        assert_eq!(partition_segment("uf", Some("../x")), "uf=%2E%2E%2Fx");
        assert_eq!(partition_segment("uf", None), "uf=__HIVE_DEFAULT_PARTITION__");
    }

    #[test]
    fn writes_atomically_and_verifies() {
        let dir = tempfile::tempdir().unwrap();
        let mut df = DataFrame::new(2, vec![Column::new("a".into(), [1i64, 2])]).unwrap();
        let p = dir.path().join("x/t.parquet");
        let e = write_parquet(&mut df, &p, dir.path(), &FileMetadata::default().with("k", "v")).unwrap();
        assert_eq!((e.path.as_str(), e.rows), ("x/t.parquet", 2));
        assert_eq!(std::fs::read_dir(dir.path().join("x")).unwrap().count(), 1, "no temporary file left");
    }

    /// Rows handed over in runs of any length make the file that the same rows in one order
    /// make, byte for byte: row groups are cut every `ROW_GROUP_ROWS` rows either way.
    #[test]
    fn runs_of_any_length_write_the_file_of_one_order() {
        let n = 2 * ROW_GROUP_ROWS + 1000;
        let key: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % n as i64).collect();
        let text: Vec<String> = key.iter().map(|k| format!("v{}", k % 1000)).collect();
        let df =
            DataFrame::new(n, vec![Column::new("k".into(), key), Column::new("t".into(), text)]).unwrap();
        let order = df.column("k").unwrap().as_materialized_series().arg_sort(Default::default());
        let dir = tempfile::tempdir().unwrap();
        let meta = FileMetadata::default();
        let whole =
            write_parquet_in_order(&df, &order, &dir.path().join("a.parquet"), dir.path(), &meta).unwrap();
        let sorted = df.take(&order).unwrap();
        let mut start = 0;
        let mut lengths = [1, 70_000, ROW_GROUP_ROWS, 3, 200_000].into_iter().cycle();
        let mut next_run = || -> PolarsResult<Option<DataFrame>> {
            if start >= n {
                return Ok(None);
            }
            let len = lengths.next().unwrap().min(n - start);
            start += len;
            Ok(Some(sorted.slice((start - len) as i64, len)))
        };
        let runs = write_parquet_runs(
            df.schema(),
            n,
            &mut next_run,
            &dir.path().join("b.parquet"),
            dir.path(),
            &meta,
        )
        .unwrap();
        assert_eq!((runs.rows, runs.bytes, &runs.sha256), (whole.rows, whole.bytes, &whole.sha256));
    }

    /// The footer written by hand after the rows (`Unfinished::finish`) is the one Polars' own
    /// writer puts after the same rows: the same file, byte for byte, with the same metadata.
    #[test]
    fn a_file_finished_later_is_the_file_polars_writes_at_once() {
        let n = 5_000usize;
        let key: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % n as i64).collect();
        let text: Vec<Option<String>> =
            key.iter().map(|k| (k % 7 != 0).then(|| format!("v{}", k % 100))).collect();
        let df =
            DataFrame::new(n, vec![Column::new("k".into(), key), Column::new("t".into(), text)]).unwrap();
        let order = df.column("k").unwrap().as_materialized_series().arg_sort(Default::default());
        let dir = tempfile::tempdir().unwrap();
        let meta = FileMetadata::default().with("fiscal_report.fontes", "{}").with("k", "v");
        let mut sorted = df.take(&order).unwrap();
        let at_once = write_parquet(&mut sorted, &dir.path().join("a.parquet"), dir.path(), &meta).unwrap();
        let later =
            begin_parquet_in_order(&df, &order, dir.path().join(".b.tmp"), &dir.path().join("b.parquet"))
                .unwrap()
                .finish(dir.path(), &meta)
                .unwrap();
        assert_eq!((later.rows, later.bytes, &later.sha256), (at_once.rows, at_once.bytes, &at_once.sha256));
        assert_eq!(
            std::fs::read(dir.path().join("a.parquet")).unwrap(),
            std::fs::read(dir.path().join("b.parquet")).unwrap()
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_full_disk_while_writing_stays_an_io_error() {
        // The temporary file is made to be /dev/full, whose every write fails with ENOSPC.
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join(format!(".t.parquet.tmp-{}", std::process::id()));
        std::os::unix::fs::symlink("/dev/full", &tmp).unwrap();
        let mut df = DataFrame::new(1, vec![Column::new("a".into(), [1i64])]).unwrap();
        let p = dir.path().join("t.parquet");
        match write_parquet(&mut df, &p, dir.path(), &FileMetadata::default()) {
            Err(ExportError::Io { source, .. }) => assert_eq!(source.kind(), std::io::ErrorKind::StorageFull),
            other => panic!("{other:?}"),
        }
        assert!(!p.exists());
    }
}
