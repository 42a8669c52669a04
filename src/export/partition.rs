//! How a raw table is cut into hive partitions (`k=v/` folders, by what its users filter on)
//! and in which order its rows are written: deterministic, whatever the fetch's timing. Used by
//! the exporter of held tables (`tables`) and of tables kept on disk (`spill`), and by a run
//! that begins a table's files while its fetch still runs (`BegunTable`, in a hidden
//! `.<table>.begun-<pid>` folder beside the table until the export finishes them).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use polars::prelude::*;

use super::manifest::FileEntry;
use super::parquet::{
    ExportError, FileMetadata, Unfinished, begin_parquet_in_order, partition_segment, write_parquet,
    write_parquet_in_order,
};
use crate::tables::Table;

/// The folder of the previous snapshot's copies of the tables, `anterior/<table>/`: apart, so
/// that no folder of a run starts with another table's name (`read_parquet('dividas_pgfn*')`
/// reads one table).
pub const PREVIOUS_DIR: &str = "anterior";

/// Where a table's files go under the run's folder: `<table>/`, or `anterior/<table>/` for the
/// previous snapshot's copy the queries read as `<table>_anterior`.
pub fn folder_of(table: &str) -> PathBuf {
    match table.strip_suffix("_anterior") {
        Some(base) => Path::new(PREVIOUS_DIR).join(base),
        None => PathBuf::from(table),
    }
}

/// Partition columns of each raw table (dropped from the files, as hive layout expects). The
/// previous snapshot's copy of a table (`<table>_anterior`) is laid out as the table.
pub fn partition_columns(table: &str) -> &'static [&'static str] {
    let table = table.strip_suffix("_anterior").unwrap_or(table);
    // By month only: a month of one state is a few thousand rows, and 27 files a month cost
    // every reader more opening files than reading rows (bench/results/export-layout.md). `uf`
    // stays in the files, which are sorted by it.
    if table == Table::CreditosAtivos.name() {
        &["ano_mes"]
    } else if table == Table::DividasPgfn.name() {
        &["categoria"]
    } else {
        &[]
    }
}

/// A raw table's own identifying columns, in the order rows are sorted by (after the
/// partition columns): whichever of them the table has.
const PREFERRED_KEYS: [&str; 13] = [
    "ano_mes",
    "uf",
    "cnpj",
    "categoria",
    "cnae_secao_cod",
    "grupo_tributo",
    "natureza_juridica",
    "situacao",
    "tipo_contribuinte",
    "numero_inscricao",
    "processo",
    "adesao_deferimento",
    "valor_total",
];

/// Sort keys that make a raw table's row order independent of fetch timing. The partition
/// columns lead, so each partition is one contiguous run of rows (written as one file); then
/// the table's identifying columns; then, only when some rows tie on all of those, every other
/// column, so equal keys still sort one way. (Sorting on every column row-encodes every string
/// of the table: most of the export's time when the identifying columns already suffice.)
fn order_columns(df: &DataFrame, partitions: &[&str]) -> Vec<PlSmallStr> {
    let mut keys = identifying_keys(partitions, |c| df.get_column_index(c).is_some());
    let unique = !keys.is_empty()
        && df.select(keys.iter().cloned()).and_then(|d| d.is_duplicated()).is_ok_and(|dup| !dup.any());
    if unique {
        return keys;
    }
    for c in df.get_column_names() {
        if !keys.contains(c) && !matches!(df.column(c).map(|c| c.dtype().clone()), Ok(DataType::Decimal(..)))
        {
            keys.push(c.clone());
        }
    }
    keys
}

/// The partition columns, then whichever of `PREFERRED_KEYS` the table `has`.
fn identifying_keys(partitions: &[&str], has: impl Fn(&str) -> bool) -> Vec<PlSmallStr> {
    let mut keys: Vec<PlSmallStr> = partitions.iter().map(|c| PlSmallStr::from(*c)).collect();
    for c in PREFERRED_KEYS.iter().filter(|c| has(c)) {
        if !keys.iter().any(|k| k == c) {
            keys.push(PlSmallStr::from(*c));
        }
    }
    keys
}

pub(super) fn polars_err(path: &Path, e: PolarsError) -> ExportError {
    ExportError::Parquet { path: path.to_path_buf(), message: e.to_string() }
}

/// Writes one raw table under `out/<table>/[k=v/...]part-0.parquet`.
pub fn write_raw_table(
    name: &str,
    df: &DataFrame,
    out: &Path,
    meta: &FileMetadata,
) -> Result<Vec<FileEntry>, ExportError> {
    let base = out.join(folder_of(name));
    let parts = partition_columns(name);
    let meta = meta.with("fiscal_report.table", name);
    if df.height() == 0 {
        let mut df = df.clone();
        return Ok(vec![write_parquet(&mut df, &base.join("part-0.parquet"), out, &meta)?]);
    }
    if parts.is_empty() {
        return Ok(vec![write_partition(df.clone(), parts, &base, out, &meta)?]);
    }
    // Each partition is taken out and sorted alone, so a writer copies one partition, never
    // the whole table. The order is the one a sort of the whole table by partition first
    // would give: rows keep their table order into the partition, and ties broken by more
    // columns only where the partition has ties change nothing where it has none.
    let runs = partitions_of(df, parts, &base)?;
    let runs = std::sync::Mutex::new(runs.into_iter());
    write_partitions(&runs, PARTITION_WRITERS, |(rows, dir)| {
        let part = df.take(&rows).map_err(|e| polars_err(&dir, e))?;
        write_partition(part, parts, &dir, out, &meta)
    })
}

/// A raw table's partition files with their rows written and their footers not
/// (`Unfinished`), in a scratch folder beside the table's: begun while the fetch still runs,
/// put in place by `finish` once the run's metadata is known. The files are the ones
/// `write_raw_table` writes of the same table. Dropped unfinished, its scratch folder goes.
pub struct BegunTable {
    name: &'static str,
    rows: usize,
    scratch: PathBuf,
    files: Vec<Unfinished>,
}

impl BegunTable {
    /// The table it holds, which the export matches it to.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The rows it was begun with: the export takes it only for a frame of as many.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Each file's footer written with `meta`, and the files moved into `out/<table>/` (which
    /// the export has emptied of an earlier run's files first).
    pub fn finish(mut self, out: &Path, meta: &FileMetadata) -> Result<Vec<FileEntry>, ExportError> {
        let meta = meta.with("fiscal_report.table", self.name);
        let files = std::sync::Mutex::new(std::mem::take(&mut self.files).into_iter());
        write_partitions(&files, PARTITION_WRITERS, |file| file.finish(out, &meta))
    }
}

impl Drop for BegunTable {
    fn drop(&mut self) {
        // Closed first: a folder of open files cannot be removed everywhere.
        self.files.clear();
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

/// `write_raw_table` of `df` but for the files' footers (`BegunTable`); `None` when the table
/// is not one cut into partitions with rows to sort (it is written whole by the export).
pub fn begin_raw_table(
    name: &'static str,
    df: &DataFrame,
    out: &Path,
) -> Result<Option<BegunTable>, ExportError> {
    let parts = partition_columns(name);
    if parts.is_empty() || df.height() == 0 {
        return Ok(None);
    }
    remove_scratch(out, &[name]);
    let scratch = out.join(format!(".{name}.begun-{}", std::process::id()));
    let base = out.join(name);
    let runs = partitions_of(df, parts, &base)?;
    let mut table = BegunTable { name, rows: df.height(), scratch, files: Vec::with_capacity(runs.len()) };
    let runs = std::sync::Mutex::new(runs.into_iter());
    let begun = in_parallel(&runs, BEGIN_WRITERS, |(rows, dir)| {
        // Ctrl-C: the process is about to end, and would cut this work short wherever it was.
        if crate::shutdown::requested() {
            return Ok(None);
        }
        let part = df.take(&rows).map_err(|e| polars_err(&dir, e))?;
        let Some(order) = sorted_order(&part, parts).map_err(|e| polars_err(&dir, e))? else {
            return Ok(None);
        };
        let part = part.drop_many(parts.iter().copied());
        let tmp = table.scratch.join(dir.strip_prefix(&base).unwrap_or(&dir));
        std::fs::create_dir_all(&tmp).map_err(|source| ExportError::Io { path: tmp.clone(), source })?;
        begin_parquet_in_order(&part, &order, tmp.join("part-0.parquet"), &dir.join("part-0.parquet"))
            .map(Some)
    })?;
    for file in begun {
        // A partition without a row order is written whole by the export, as the table.
        let Some(file) = file else { return Ok(None) };
        table.files.push(file);
    }
    table.files.sort_by(|a, b| a.path().cmp(b.path()));
    Ok(Some(table))
}

/// Partition files begun at once while the fetch runs (each encoded on its own thread,
/// `begin_parquet_in_order`): the fetch's decoding needs the cores too.
const BEGIN_WRITERS: usize = 2;

/// The scratch folders of the tables `names` that earlier runs in `out` left behind (stopped
/// before their export, or killed while they began them): one listing of `out` for them all.
pub(super) fn remove_scratch(out: &Path, names: &[&str]) {
    let prefixes: Vec<String> = names.iter().map(|name| format!(".{name}.begun-")).collect();
    for e in std::fs::read_dir(out).into_iter().flatten().flatten() {
        let file = e.file_name();
        let file = file.to_string_lossy();
        if prefixes.iter().any(|p| file.starts_with(p.as_str())) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// Each partition of `df`: its rows (in table order) and its folder under `base`.
fn partitions_of(df: &DataFrame, parts: &[&str], base: &Path) -> Result<Vec<(IdxCa, PathBuf)>, ExportError> {
    let mut runs: Vec<(IdxCa, PathBuf)> = Vec::new();
    for (key, rows) in partition_rows(df, parts) {
        let dir = partition_dir(base, parts, &key, runs.iter().map(|(_, d)| d))?;
        runs.push((IdxCa::from_vec("row".into(), rows), dir));
    }
    Ok(runs)
}

/// The rows of each partition of `df` (by the values of its `parts` columns), in table order.
pub(super) fn partition_rows<'a>(
    df: &'a DataFrame,
    parts: &[&str],
) -> BTreeMap<Vec<Option<&'a str>>, Vec<IdxSize>> {
    // The keys are read once, as whole columns: a row-by-row lookup costs a walk over the
    // column's chunks each time, seconds on a table assembled from many segments.
    let key_columns: Vec<Vec<Option<&str>>> = parts
        .iter()
        .map(|c| match df.column(c).map(|col| col.str()) {
            Ok(Ok(s)) => s.iter().collect(),
            _ => vec![None; df.height()],
        })
        .collect();
    let key_of = |row: usize| key_columns.iter().map(|col| col[row]).collect::<Vec<_>>();
    let mut rows_of: BTreeMap<Vec<Option<&str>>, Vec<IdxSize>> = BTreeMap::new();
    let mut start = 0usize;
    // Rows arrive in runs of one key (a task's pages): one map lookup per run.
    while start < df.height() {
        let mut end = start + 1;
        while end < df.height() && key_columns.iter().all(|col| col[start] == col[end]) {
            end += 1;
        }
        rows_of.entry(key_of(start)).or_default().extend(start as IdxSize..end as IdxSize);
        start = end;
    }
    rows_of
}

/// The directory of the partition `key` under `base`; refused when one of `taken` has it.
pub(super) fn partition_dir<'a>(
    base: &Path,
    parts: &[&str],
    key: &[Option<&str>],
    mut taken: impl Iterator<Item = &'a PathBuf>,
) -> Result<PathBuf, ExportError> {
    let mut dir = base.to_path_buf();
    for (c, value) in parts.iter().zip(key) {
        dir = dir.join(partition_segment(c, *value));
    }
    // One file per partition: a second write would replace the first one's rows.
    if taken.any(|d| *d == dir) {
        return Err(ExportError::Parquet {
            path: dir,
            message: "two partitions have the same directory name".into(),
        });
    }
    Ok(dir)
}

/// One partition's rows sorted, without the partition columns, as `dir/part-0.parquet`. Only
/// the sort keys are sorted (with each row's place); the rows are gathered in that order a
/// row group at a time as they are written.
pub(super) fn write_partition(
    part: DataFrame,
    parts: &[&str],
    dir: &Path,
    out: &Path,
    meta: &FileMetadata,
) -> Result<FileEntry, ExportError> {
    let path = dir.join("part-0.parquet");
    let Some(order) = sorted_order(&part, parts).map_err(|e| polars_err(dir, e))? else {
        let mut part = part.drop_many(parts.iter().copied());
        return write_parquet(&mut part, &path, out, meta);
    };
    let part = part.drop_many(parts.iter().copied());
    write_parquet_in_order(&part, &order, &path, out, meta)
}

/// The places of `part`'s rows in its file's order (`order_columns`, ties kept in table
/// order, nulls last); `None` when the rows have no column to sort by.
pub(super) fn sorted_order(part: &DataFrame, parts: &[&str]) -> PolarsResult<Option<IdxCa>> {
    let keys = order_columns(part, parts);
    if keys.is_empty() {
        return Ok(None);
    }
    let rows: PlSmallStr = "__fiscal_report_row".into();
    let sorted = part
        .select(keys.iter().cloned())?
        .with_row_index(rows.clone(), None)?
        .sort(keys, SortMultipleOptions::default().with_maintain_order(true).with_nulls_last(true))?;
    Ok(Some(sorted.column(&rows)?.idx()?.clone()))
}

/// The column a partition's rows are sorted by first (after the partition columns), when it
/// holds text: the export of a large partition cuts it into ranges of that column's values.
pub(super) fn first_sort_key(schema: &Schema, parts: &[&str]) -> Option<PlSmallStr> {
    let key = identifying_keys(parts, |c| schema.get(c).is_some()).into_iter().nth(parts.len())?;
    (schema.get(&key) == Some(&DataType::String)).then_some(key)
}

/// Runs `write` on each of `work` on a few threads at once: each file is small (a year of
/// credits is 324 of them), so waiting on its flush to disk, not compressing it, is most of
/// its cost. The entries come back in path order.
pub(super) fn write_partitions<T: Send>(
    work: &std::sync::Mutex<impl Iterator<Item = T> + Send>,
    writers: usize,
    write: impl Fn(T) -> Result<FileEntry, ExportError> + Sync,
) -> Result<Vec<FileEntry>, ExportError> {
    let mut files = in_parallel(work, writers, write)?;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// `write` on each of `work`, on `writers` threads at once; what they give, in no set order.
pub(super) fn in_parallel<T: Send, R: Send>(
    work: &std::sync::Mutex<impl Iterator<Item = T> + Send>,
    writers: usize,
    write: impl Fn(T) -> Result<R, ExportError> + Sync,
) -> Result<Vec<R>, ExportError> {
    let write_next = || -> Result<Vec<R>, ExportError> {
        let mut written = Vec::new();
        loop {
            let next = work.lock().unwrap_or_else(std::sync::PoisonError::into_inner).next();
            let Some(item) = next else { return Ok(written) };
            written.push(write(item)?);
        }
    };
    let results: Vec<Result<Vec<R>, ExportError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..writers).map(|_| scope.spawn(write_next)).collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    let mut done = Vec::new();
    for r in results {
        done.extend(r?);
    }
    Ok(done)
}

/// Partition files written at once.
pub(super) const PARTITION_WRITERS: usize = 4;
