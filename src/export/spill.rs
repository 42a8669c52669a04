//! A raw table that stays on disk (`transform::disk`) exported a partition at a time with
//! bounded memory: its files are read one by one and each file's rows go to their partition's
//! buffer; when the buffers hold more than `BUFFERED_ROWS` rows they are spilled, each
//! partition's rows to a file of its own in a scratch directory; at the end each partition is
//! put together from its spills and its buffer, sorted and written as `write_raw_table` writes
//! it. The files and their rows are the ones a whole table in memory gives.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use polars::prelude::*;

use super::manifest::FileEntry;
use super::parquet::{ExportError, FileMetadata};
use super::tables::{
    PARTITION_WRITERS, partition_columns, partition_dir, partition_rows, polars_err, write_partition,
    write_partitions, write_raw_table,
};
use crate::transform::disk::DiskTable;
use crate::transform::frames::stacked;

/// Rows held in the partitions' buffers before they are spilled: about 100 MiB of credits (a
/// buffered row keeps its file's text buffers too). A year of credits for a portfolio of a few
/// thousand companies never spills.
const BUFFERED_ROWS: usize = 256 * 1024;

/// A partition's values of the partition columns.
type Key = Vec<Option<String>>;

/// Rows of one partition on their way to its file: spilled files first, in order, then buffered
/// frames.
#[derive(Default)]
struct Pending {
    spilled: Vec<PathBuf>,
    buffered: Vec<DataFrame>,
    rows: usize,
}

/// The scratch directory of the spills, removed when the export of the table ends.
struct SpillDir(PathBuf);

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes the raw table `name`, held on disk as `table`, under `out/<name>/<k=v/...>/part-0.parquet`.
pub(super) fn write_raw_on_disk(
    name: &str,
    table: &DiskTable,
    out: &Path,
    meta: &FileMetadata,
) -> Result<Vec<FileEntry>, ExportError> {
    write_buffering(name, table, out, meta, BUFFERED_ROWS)
}

/// `write_raw_on_disk`, spilling when more than `buffered_rows` rows wait.
fn write_buffering(
    name: &str,
    table: &DiskTable,
    out: &Path,
    meta: &FileMetadata,
    buffered_rows: usize,
) -> Result<Vec<FileEntry>, ExportError> {
    let parts = partition_columns(name);
    let Some(files) = table.files().filter(|_| !parts.is_empty()) else {
        // One file for the table (one sort of all its rows), or a finished run's export.
        let df = table.load().map_err(|e| polars_err(&out.join(name), e))?;
        return write_raw_table(name, &df, out, meta);
    };
    let base = out.join(name);
    let meta = meta.with("fiscal_report.table", name);
    let spill = SpillDir(out.join(format!(".spill-{name}-{}", crate::fsutil::process_unique())));
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExportError::Io { path, source }
    };
    let mut pending: BTreeMap<Key, Pending> = BTreeMap::new();
    let (mut buffered, mut spills) = (0usize, 0usize);
    for file in files {
        let df = DiskTable::read_file(file).map_err(|e| polars_err(file, e))?;
        for (key, rows) in partition_rows(&df, parts) {
            let part = df.take(&IdxCa::from_vec("row".into(), rows)).map_err(|e| polars_err(file, e))?;
            buffered += part.height();
            let key: Key = key.into_iter().map(|v| v.map(str::to_string)).collect();
            let p = pending.entry(key).or_default();
            p.rows += part.height();
            p.buffered.push(part);
        }
        if buffered > buffered_rows {
            std::fs::create_dir_all(&spill.0).map_err(io(&spill.0))?;
            for p in pending.values_mut().filter(|p| !p.buffered.is_empty()) {
                let path = spill.0.join(format!("{spills:06}.parquet"));
                spills += 1;
                let mut df = stacked(std::mem::take(&mut p.buffered))
                    .map_err(|e| polars_err(&path, e))?
                    .unwrap_or_default();
                let mut bytes = Vec::new();
                // Fast over small: read back once, by this process, moments later.
                ParquetWriter::new(&mut bytes)
                    .with_compression(ParquetCompression::Lz4Raw)
                    .finish(&mut df)
                    .map_err(|e| polars_err(&path, e))?;
                std::fs::write(&path, bytes).map_err(io(&path))?;
                p.spilled.push(path);
            }
            buffered = 0;
        }
    }
    let mut work: Vec<(PathBuf, Pending)> = Vec::with_capacity(pending.len());
    for (key, p) in pending {
        let key: Vec<Option<&str>> = key.iter().map(Option::as_deref).collect();
        let dir = partition_dir(&base, parts, &key, work.iter().map(|(d, _)| d))?;
        work.push((dir, p));
    }
    // A partition is sorted whole: the large ones (a third of the debts each) one at a time,
    // so that no more than about a buffer's worth of rows is sorted at once.
    let (large, small): (Vec<_>, Vec<_>) =
        work.into_iter().partition(|(_, p)| p.rows > buffered_rows / PARTITION_WRITERS);
    let write = |(dir, p): (PathBuf, Pending)| {
        let mut frames = Vec::with_capacity(p.spilled.len() + p.buffered.len());
        for path in &p.spilled {
            frames.push(DiskTable::read_file(path).map_err(|e| polars_err(path, e))?);
            let _ = std::fs::remove_file(path);
        }
        frames.extend(p.buffered);
        // Not copied into one chunk: the sort that follows gathers the rows anyway.
        let part = stacked(frames).map_err(|e| polars_err(&dir, e))?.unwrap_or_default();
        write_partition(part, parts, &dir, out, &meta)
    };
    let mut files = write_partitions(&std::sync::Mutex::new(large.into_iter()), 1, write)?;
    files.extend(write_partitions(&std::sync::Mutex::new(small.into_iter()), PARTITION_WRITERS, write)?);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    drop(spill);
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::Table;
    use crate::transform::disk::disk_table;
    use crate::transform::disk::tests::{Credit, typed_in_memory, typed_segments};

    /// Spilling after every file or never, the files are those of the table exported from
    /// memory: the same paths, rows, bytes and sha256; and no spill is left behind.
    #[test]
    fn a_table_on_disk_exports_as_the_table_in_memory() {
        let tmp = tempfile::tempdir().unwrap();
        let segments: [&[Credit]; 3] = [
            &[("202608", "SP", "EM COBRANCA", "1,00"), ("202609", "SP", "Em cobrança", "2,00")],
            &[("202609", "SP", "Em cobrança", "3,00"), ("202607", "RJ", "Suspenso", "7,00")],
            &[("202609", "SP", "Suspenso", "4,50"), ("202608", "SP", "Em cobrança", "5,00")],
        ];
        let paths = typed_segments(tmp.path(), &segments);
        let (table, _) = disk_table(Table::CreditosAtivos, &paths).unwrap().unwrap();
        let meta = FileMetadata::default().with("fiscal_report.run_id", "t");
        let name = Table::CreditosAtivos.name();
        let memory = tmp.path().join("memory");
        let expected = write_raw_table(name, &typed_in_memory(&segments), &memory, &meta).unwrap();
        assert_eq!(expected.len(), 3, "three partitions: {expected:?}");
        for buffered_rows in [0, 1, usize::MAX] {
            let out = tmp.path().join(format!("disk-{buffered_rows}"));
            let files = write_buffering(name, &table, &out, &meta, buffered_rows).unwrap();
            assert_eq!(files, expected, "buffering {buffered_rows} rows");
            let left: Vec<_> = std::fs::read_dir(&out).unwrap().flatten().map(|e| e.file_name()).collect();
            assert_eq!(left, vec![std::ffi::OsString::from(name)], "only the table is left");
        }
    }
}
