//! A raw table that stays on disk (`transform::disk`) exported a partition at a time with
//! bounded memory: its files are read one by one and each file's rows go to their partition's
//! buffer; when the buffers hold more than `BUFFERED_ROWS` rows they are spilled, each
//! partition's rows to a file of its own in a scratch directory. A large partition is cut, as
//! its rows are read, into ranges of the column its file is sorted by first (a range of CNPJs,
//! of states), each about `RANGE_ROWS` rows, buffered and spilled apart: at the end each range
//! is put together from its spills and its buffer, sorted, and written after the one before it
//! into its partition's file. So no more than a range's rows are sorted at once, whatever the
//! size of the partition (a third of the debts of 200,000 companies is 440,000 rows), and the
//! files and their rows are the ones `write_raw_table` writes of the whole table in memory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use polars::prelude::*;

use super::manifest::FileEntry;
use super::parquet::{ExportError, FileMetadata, write_parquet_runs};
use super::partition::{
    PARTITION_WRITERS, first_sort_key, partition_columns, partition_dir, partition_rows, polars_err,
    sorted_order, write_partitions, write_raw_table,
};
use crate::transform::disk::DiskTable;
use crate::transform::frames::stacked;

/// Rows held in the buffers before they are spilled: about 100 MiB of credits (a buffered row
/// keeps its file's text buffers too). A year of credits for a portfolio of a few thousand
/// companies never spills.
const BUFFERED_ROWS: usize = 256 * 1024;

/// Rows of a partition sorted at once, about: a partition is cut into ranges of this size.
const RANGE_ROWS: usize = 64 * 1024;

/// A partition's values of the partition columns.
type Key = Vec<Option<String>>;

/// `partition_rows`' key, owned.
fn owned(key: Vec<Option<&str>>) -> Key {
    key.into_iter().map(|v| v.map(str::to_string)).collect()
}

/// Rows of one range of one partition on their way to its file: spilled files first, in
/// order, then buffered frames.
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
    write_buffering(name, table, out, meta, Limits { buffered_rows: BUFFERED_ROWS, range_rows: RANGE_ROWS })
}

/// How many rows wait in the buffers before a spill, and how many a range holds.
#[derive(Clone, Copy)]
struct Limits {
    buffered_rows: usize,
    range_rows: usize,
}

/// `write_raw_on_disk` within `limits`.
fn write_buffering(
    name: &str,
    table: &DiskTable,
    out: &Path,
    meta: &FileMetadata,
    limits: Limits,
) -> Result<Vec<FileEntry>, ExportError> {
    let parts = partition_columns(name);
    let Some(files) = table.files() else {
        // A finished run's export, read back whole (`report --from` of a run writes no raw table).
        let df = table.load().map_err(|e| polars_err(&out.join(name), e))?;
        return write_raw_table(name, &df, out, meta);
    };
    let base = out.join(name);
    let meta = meta.with("fiscal_report.table", name);
    // No partition of a table that fits in one range is cut: its files are not read for bounds.
    let first_key = first_sort_key(table.schema(), parts)
        .filter(|_| table.height().is_none_or(|rows| rows > limits.range_rows));
    let ranges = match &first_key {
        Some(key) => range_bounds(files, parts, key, limits.range_rows).map_err(|e| polars_err(&base, e))?,
        None => BTreeMap::new(),
    };
    let spill = SpillDir(out.join(crate::fsutil::scratch_name(&format!("spill-{name}"))));
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExportError::Io { path, source }
    };
    // By partition, then by range: the order the ranges follow each other in their file.
    let mut pending: BTreeMap<Key, BTreeMap<usize, Pending>> = BTreeMap::new();
    let (mut buffered, mut spills) = (0usize, 0usize);
    for file in files {
        let df = DiskTable::read_file(file).map_err(|e| polars_err(file, e))?;
        for (key, rows) in partition_rows(&df, parts) {
            let part = df.take(&IdxCa::from_vec("row".into(), rows)).map_err(|e| polars_err(file, e))?;
            let key = owned(key);
            let bounds = ranges.get(&key).map(Vec::as_slice).unwrap_or_default();
            let split = split_by_range(part, first_key.as_ref(), bounds).map_err(|e| polars_err(file, e))?;
            let of_partition = pending.entry(key).or_default();
            for (range, rows) in split {
                buffered += rows.height();
                let p = of_partition.entry(range).or_default();
                p.rows += rows.height();
                p.buffered.push(rows);
            }
        }
        if buffered > limits.buffered_rows {
            std::fs::create_dir_all(&spill.0).map_err(io(&spill.0))?;
            for p in pending.values_mut().flat_map(BTreeMap::values_mut).filter(|p| !p.buffered.is_empty()) {
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
    let mut work: Vec<(PathBuf, Vec<Pending>)> = Vec::with_capacity(pending.len());
    for (key, ranges) in pending {
        let values: Vec<Option<&str>> = key.iter().map(Option::as_deref).collect();
        let dir = partition_dir(&base, parts, &values, work.iter().map(|(d, _)| d))?;
        work.push((dir, ranges.into_values().collect()));
    }
    let mut schema = table.schema().as_ref().clone();
    for p in parts {
        schema.shift_remove(p);
    }
    let write =
        |(dir, ranges): (PathBuf, Vec<Pending>)| write_ranges(&dir, ranges, parts, &schema, out, &meta);
    // A large partition is written alone: the writer's row groups and the range being sorted
    // are most of the export's memory, and two of them at once bring nothing on a machine
    // whose cores the writer already uses. (A partition whose first key has one value, a
    // single state or a single debtor, is one range however large it is.) Small partitions,
    // a few files at once.
    let small_rows = limits.buffered_rows / PARTITION_WRITERS;
    let (large, small): (Vec<_>, Vec<_>) =
        work.into_iter().partition(|(_, ranges)| ranges.iter().map(|p| p.rows).sum::<usize>() > small_rows);
    let mut files = write_partitions(&std::sync::Mutex::new(large.into_iter()), 1, write)?;
    files.extend(write_partitions(&std::sync::Mutex::new(small.into_iter()), PARTITION_WRITERS, write)?);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    drop(spill);
    // Every row the typed files hold is in one written file: none lost between the files read
    // and the partitions and ranges they were cut into.
    let written: u64 = files.iter().map(|f| f.rows).sum();
    if let Some(rows) = table.height().filter(|rows| *rows as u64 != written) {
        return Err(ExportError::Verify { path: base, written: rows as u64, read: written });
    }
    Ok(files)
}

/// One partition's file from its ranges, in order: each range read back, sorted and handed
/// to the writer alone.
fn write_ranges(
    dir: &Path,
    ranges: Vec<Pending>,
    parts: &[&str],
    schema: &Schema,
    out: &Path,
    meta: &FileMetadata,
) -> Result<FileEntry, ExportError> {
    let path = dir.join("part-0.parquet");
    let height = ranges.iter().map(|p| p.rows).sum();
    let mut ranges = ranges.into_iter();
    let mut next_run = || -> PolarsResult<Option<DataFrame>> {
        let Some(p) = ranges.next() else { return Ok(None) };
        let mut frames = Vec::with_capacity(p.spilled.len() + p.buffered.len());
        for path in &p.spilled {
            frames.push(DiskTable::read_file(path)?);
            let _ = std::fs::remove_file(path);
        }
        frames.extend(p.buffered);
        let rows = stacked(frames)?.unwrap_or_default();
        let order = sorted_order(&rows, parts)?;
        let rows = rows.drop_many(parts.iter().copied());
        Ok(Some(match order {
            Some(order) => rows.take(&order)?,
            None => rows,
        }))
    };
    write_parquet_runs(schema, height, &mut next_run, &path, out, meta)
}

/// For each partition large enough to be cut, the values of `key` that start its ranges
/// after the first (sorted, distinct), from a sample of its rows: a range then holds the rows
/// whose value is at or past its start and before the next one's; rows with no value go with
/// the last range (they sort last).
fn range_bounds(
    files: &[PathBuf],
    parts: &[&str],
    key: &PlSmallStr,
    range_rows: usize,
) -> PolarsResult<BTreeMap<Key, Vec<String>>> {
    // About 64 values sampled per range: enough for ranges of even size, few to sort.
    let every = (range_rows / 64).max(1);
    let mut sampled: BTreeMap<Key, (usize, Vec<String>)> = BTreeMap::new();
    let projection: Vec<String> = parts.iter().map(|p| p.to_string()).chain([key.to_string()]).collect();
    for file in files {
        let df =
            ParquetReader::new(std::fs::File::open(file)?).with_columns(Some(projection.clone())).finish()?;
        let values: Vec<Option<&str>> = df.column(key)?.str()?.iter().collect();
        for (part, rows) in partition_rows(&df, parts) {
            let (seen, sample) = sampled.entry(owned(part)).or_default();
            for row in rows {
                if *seen % every == 0
                    && let Some(v) = values[row as usize]
                {
                    sample.push(v.to_string());
                }
                *seen += 1;
            }
        }
    }
    Ok(sampled
        .into_iter()
        .map(|(part, (rows, mut sample))| {
            let ranges = rows.div_ceil(range_rows.max(1));
            sample.sort_unstable();
            let mut bounds: Vec<String> =
                (1..ranges).filter_map(|i| sample.get(i * sample.len() / ranges).cloned()).collect();
            bounds.dedup();
            (part, bounds)
        })
        .collect())
}

/// `rows` cut into the ranges of `bounds` (the range of each row and the rows of each, in
/// table order); all of them in range 0 when there are no bounds.
fn split_by_range(
    rows: DataFrame,
    key: Option<&PlSmallStr>,
    bounds: &[String],
) -> PolarsResult<Vec<(usize, DataFrame)>> {
    let Some(key) = key.filter(|_| !bounds.is_empty()) else { return Ok(vec![(0, rows)]) };
    let mut of_range: Vec<Vec<IdxSize>> = vec![Vec::new(); bounds.len() + 1];
    for (row, value) in rows.column(key)?.str()?.iter().enumerate() {
        let range = match value {
            Some(v) => bounds.partition_point(|b| b.as_str() <= v),
            None => bounds.len(),
        };
        of_range[range].push(row as IdxSize);
    }
    let mut out = Vec::new();
    for (range, idx) in of_range.into_iter().enumerate().filter(|(_, idx)| !idx.is_empty()) {
        out.push((range, rows.take(&IdxCa::from_vec("row".into(), idx))?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::Table;
    use crate::transform::disk::disk_table;
    use crate::transform::disk::tests::{Credit, typed_in_memory, typed_segments};

    /// Spilling after every file or never, a partition cut into ranges of one state each (one
    /// with two equal rows, one of rows with no state) or not cut, the files are those of the
    /// table exported from memory: the same paths, rows, bytes and sha256; and no spill is left
    /// behind.
    #[test]
    fn a_table_on_disk_exports_as_the_table_in_memory() {
        let tmp = tempfile::tempdir().unwrap();
        let segments: [&[Credit]; 3] = [
            &[
                ("202608", "SP", "EM COBRANCA", "1,00"),
                ("202609", "SP", "Em cobrança", "2,00"),
                ("202609", "BA", "Suspenso", "2,00"),
            ],
            &[
                ("202609", "SP", "Em cobrança", "3,00"),
                ("202607", "RJ", "Suspenso", "7,00"),
                ("202609", "XX", "Suspenso", "1,00"),
                ("202609", "AC", "Em cobrança", "1,00"),
            ],
            &[
                ("202609", "SP", "Suspenso", "4,50"),
                ("202608", "SP", "Em cobrança", "5,00"),
                ("202609", "BA", "Suspenso", "2,00"),
                ("202609", "RJ", "Suspenso", "9,99"),
            ],
        ];
        let paths = typed_segments(tmp.path(), &segments);
        let (table, _) = disk_table(Table::CreditosAtivos, &paths).unwrap().unwrap();
        let meta = FileMetadata::default().with("fiscal_report.run_id", "t");
        let name = Table::CreditosAtivos.name();
        let memory = tmp.path().join("memory");
        let expected = write_raw_table(name, &typed_in_memory(&segments), &memory, &meta).unwrap();
        assert_eq!(expected.len(), 3, "three partitions: {expected:?}");
        for (buffered_rows, range_rows) in
            [(0, 1), (1, usize::MAX), (usize::MAX, 1), (usize::MAX, usize::MAX)]
        {
            let out = tmp.path().join(format!("disk-{buffered_rows}-{range_rows}"));
            let limits = Limits { buffered_rows, range_rows };
            let files = write_buffering(name, &table, &out, &meta, limits).unwrap();
            assert_eq!(files, expected, "buffering {buffered_rows} rows, ranges of {range_rows}");
            let left: Vec<_> = std::fs::read_dir(&out).unwrap().flatten().map(|e| e.file_name()).collect();
            assert_eq!(left, vec![std::ffi::OsString::from(name)], "only the table is left");
        }
    }
}
