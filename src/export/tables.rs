//! Where each table goes: raw tables hive-partitioned by what their users filter on, the
//! aggregates one file each, all rows in a deterministic order.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use polars::prelude::*;

use super::manifest::FileEntry;
use super::parquet::{ExportError, FileMetadata, partition_segment, write_parquet, write_parquet_in_order};
use crate::analyze::Aggregates;
use crate::codes::CodeTables;
use crate::exit::{Classified, ExitStatus};
use crate::tables::Table;
use crate::transform::{CARTEIRA, Frames, QualityCount, RESUMOS};

/// Partition columns of each raw table (dropped from the files, as hive layout expects).
pub fn partition_columns(table: &str) -> &'static [&'static str] {
    match table {
        // By month only: a month of one state is a few thousand rows, and 27 files a month
        // cost every reader more opening files than reading rows (bench/results/export-layout.md).
        // `uf` stays in the files, which are sorted by it.
        "creditos_ativos" => &["ano_mes"],
        "dividas_pgfn" => &["categoria"],
        _ => &[],
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
    let base = out.join(name);
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
    let mut runs: Vec<(IdxCa, PathBuf)> = Vec::new();
    for (key, rows) in partition_rows(df, parts) {
        let dir = partition_dir(&base, parts, &key, runs.iter().map(|(_, d)| d))?;
        runs.push((IdxCa::from_vec("row".into(), rows), dir));
    }
    let runs = std::sync::Mutex::new(runs.into_iter());
    write_partitions(&runs, PARTITION_WRITERS, |(rows, dir)| {
        let part = df.take(&rows).map_err(|e| polars_err(&dir, e))?;
        write_partition(part, parts, &dir, out, &meta)
    })
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
    let write_next = || -> Result<Vec<FileEntry>, ExportError> {
        let mut written = Vec::new();
        loop {
            let next = work.lock().unwrap_or_else(std::sync::PoisonError::into_inner).next();
            let Some(item) = next else { return Ok(written) };
            written.push(write(item)?);
        }
    };
    let results: Vec<Result<Vec<FileEntry>, ExportError>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..writers).map(|_| scope.spawn(write_next)).collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    let mut files = Vec::new();
    for r in results {
        files.extend(r?);
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// Partition files written at once.
pub(super) const PARTITION_WRITERS: usize = 4;

/// Writes every raw table of `frames`.
pub fn write_raw(frames: &Frames, out: &Path, meta: &FileMetadata) -> Result<Vec<FileEntry>, ExportError> {
    let mut files = Vec::new();
    for name in frames.names() {
        let dir = out.join(name);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|source| ExportError::Io { path: dir.clone(), source })?;
        }
        match (frames.tables.get(name), frames.disk.get(name)) {
            (Some(df), _) => files.extend(write_raw_table(name, df, out, meta)?),
            (None, Some(table)) => files.extend(super::spill::write_raw_on_disk(name, table, out, meta)?),
            (None, None) => {}
        }
        tracing::debug!("{name} written{}", crate::memory::peak_note());
        crate::progress::step(name);
    }
    Ok(files)
}

/// Deletes the Parquet files of `dir` that this run did not write (`written`, relative to
/// `out`: a query or a code table taken away), so that no file lingers without a manifest entry.
fn remove_unlisted(out: &Path, dir: &Path, written: &[FileEntry]) {
    let written: BTreeSet<PathBuf> = written.iter().map(|f| out.join(&f.path)).collect();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "parquet") && !written.contains(&p) {
            let _ = std::fs::remove_file(&p);
        }
    }
}

/// The dossiers' typed tables, `dossies/<table>.parquet` (the companies with a dossier only).
pub fn write_dossier_tables(
    tables: Vec<(&'static str, DataFrame)>,
    out: &Path,
    meta: &FileMetadata,
) -> Result<Vec<FileEntry>, ExportError> {
    let dir = out.join(crate::export::DOSSIER_DIR);
    let mut files = Vec::new();
    for (name, mut df) in tables {
        let path = dir.join(format!("{name}.parquet"));
        files.push(write_parquet(
            &mut df,
            &path,
            out,
            &meta.with("fiscal_report.table", format!("dossies/{name}")),
        )?);
    }
    Ok(files)
}

/// The code tables as small dimension tables, `dimensoes/<table>.parquet` (`codigo`, `nome`),
/// so a reader of the Parquet can join a code column to its official name.
pub fn write_dimensions(
    codes: &CodeTables,
    out: &Path,
    meta: &FileMetadata,
) -> Result<Vec<FileEntry>, ExportError> {
    let dir = out.join("dimensoes");
    let mut files = Vec::new();
    for (name, table) in codes.tables() {
        let mut df = DataFrame::new(
            table.len(),
            vec![
                Column::new("codigo".into(), table.keys().map(String::as_str).collect::<Vec<_>>()),
                Column::new("nome".into(), table.values().map(String::as_str).collect::<Vec<_>>()),
            ],
        )
        .map_err(|e| ExportError::Parquet { path: dir.join(name), message: e.to_string() })?;
        let path = dir.join(format!("{name}.parquet"));
        let m = meta
            .with("fiscal_report.table", format!("dimensoes/{name}"))
            .with("fiscal_report.codes", &codes.origin);
        files.push(write_parquet(&mut df, &path, out, &m)?);
    }
    // A table no longer in the folder (a smaller --codes) must not linger unlisted.
    remove_unlisted(out, &dir, &files);
    Ok(files)
}

/// Writes each aggregate to `out/aggregates/<table>.parquet`, the data-quality table beside
/// them, and removes aggregate files no query produced this time.
pub fn write_aggregates(
    aggs: &Aggregates,
    quality: &DataFrame,
    out: &Path,
    meta: &FileMetadata,
) -> Result<Vec<FileEntry>, ExportError> {
    let dir = out.join("aggregates");
    let mut files = Vec::new();
    for (q, df) in &aggs.results {
        let mut df = df.clone();
        let path = dir.join(format!("{}.parquet", q.table));
        let m = meta.with("fiscal_report.query", &q.name).with("fiscal_report.query_sha256", &q.sha256);
        files.push(write_parquet(&mut df, &path, out, &m)?);
    }
    let mut dq = quality.clone();
    let path = dir.join("data_quality.parquet");
    files.push(write_parquet(&mut dq, &path, out, &meta.with("fiscal_report.table", "data_quality"))?);
    remove_unlisted(out, &dir, &files);
    Ok(files)
}

// ---------------------------------------------------------------------------------------------
// Reading back what was written
// ---------------------------------------------------------------------------------------------

fn parquet_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            parquet_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "parquet") {
            out.push(p);
        }
    }
}

/// One exported raw table, with its partition columns put back (as strings: `ano_mes` is a
/// code, not a number). Polars' hive scan reads the files in parallel and decodes the
/// percent-encoded partition values the exporter writes.
pub fn read_exported_table(dir: &Path, table: &str) -> anyhow::Result<DataFrame> {
    let root = dir.join(table);
    scan_exported_table(dir, table)?.collect().map_err(|e| anyhow::anyhow!("reading {}: {e}", root.display()))
}

/// `read_exported_table` as a lazy scan.
pub fn scan_exported_table(dir: &Path, table: &str) -> anyhow::Result<LazyFrame> {
    let root = dir.join(table);
    let mut files = Vec::new();
    parquet_files(&root, &mut files);
    if files.is_empty() {
        return Err(Classified::new(
            ExitStatus::BadInput,
            format!("{} holds no Parquet for table {table}; was the run finished?", root.display()),
        )
        .into());
    }
    // The partition keys are read from the paths, not from `partition_columns`: a run written
    // before `creditos_ativos` was partitioned by month only has `uf=` directories too.
    let parts = path_partition_keys(&root, &files[0]);
    let mut args = ScanArgsParquet { glob: true, ..Default::default() };
    args.hive_options = if parts.is_empty() {
        HiveOptions::new_disabled()
    } else {
        let schema: Schema = parts.iter().map(|p| Field::new(p.as_str().into(), DataType::String)).collect();
        HiveOptions {
            enabled: Some(true),
            hive_start_idx: 0,
            schema: Some(std::sync::Arc::new(schema)),
            try_parse_dates: false,
        }
    };
    let pattern = format!("{}/**/*.parquet", root.display());
    LazyFrame::scan_parquet(PlRefPath::new(pattern), args)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", root.display()))
}

/// The hive keys (`k` of each `k=v` directory) between `root` and `file`.
fn path_partition_keys(root: &Path, file: &Path) -> Vec<String> {
    let Ok(relative) = file.strip_prefix(root) else { return Vec::new() };
    let Some(dirs) = relative.parent() else { return Vec::new() };
    dirs.components()
        .filter_map(|c| c.as_os_str().to_str()?.split_once('=').map(|(k, _)| k.to_string()))
        .collect()
}

/// Typed frames rebuilt from a run's exported Parquet (for `report --from`).
pub fn frames_from_export(dir: &Path) -> anyhow::Result<Frames> {
    let (mut tables, mut disk) = (BTreeMap::new(), BTreeMap::new());
    let mut quality = Vec::new();
    use crate::transform::groups::{GRUPOS_ECONOMICOS, SOCIAS_EXPOSICAO};
    let names: Vec<&'static str> = Table::ALL
        .iter()
        .map(|t| t.name())
        .chain([RESUMOS, CARTEIRA, GRUPOS_ECONOMICOS, SOCIAS_EXPOSICAO])
        .collect();
    // Absent from run dirs written before partners were fetched (the groups are then made
    // again from what is there), or from runs without `--expand-groups`.
    let optional = [Table::Socios.name(), GRUPOS_ECONOMICOS, SOCIAS_EXPOSICAO];
    for name in names {
        if optional.contains(&name) && !dir.join(name).is_dir() {
            continue;
        }
        let scanned = crate::transform::disk::read_where_used(name);
        // `df` holds the rows whose texts are counted below: the whole table, or for a table
        // scanned where used only its rows that kept a rejected text.
        let (df, on_disk) = if scanned {
            let scan = scan_exported_table(dir, name)?;
            let table = crate::transform::disk::DiskTable::exported(scan.clone())
                .map_err(|e| anyhow::anyhow!("reading {}: {e}", dir.join(name).display()))?;
            let raw: Vec<Expr> =
                table.schema().iter_names().filter(|c| c.ends_with("_raw")).map(|c| col(c.clone())).collect();
            let kept = raw.iter().map(|c| c.clone().is_not_null()).reduce(|a, b| a.or(b));
            let rejected = match kept {
                Some(kept) => scan.select(raw).filter(kept).collect(),
                None => Ok(DataFrame::empty()),
            };
            let rejected =
                rejected.map_err(|e| anyhow::anyhow!("reading {}: {e}", dir.join(name).display()))?;
            (rejected, Some(table))
        } else {
            (read_exported_table(dir, name)?, None)
        };
        // A value that failed to parse kept its text in `<column>_raw`: count those again.
        for col in df.columns() {
            let Some(base) = col.name().strip_suffix("_raw") else { continue };
            let Ok(s) = col.str() else { continue };
            let failures = (s.len() - s.null_count()) as u64;
            if failures > 0 {
                let mut examples: Vec<String> = Vec::new();
                for v in s.iter().flatten() {
                    if examples.len() == 3 {
                        break;
                    }
                    if !examples.iter().any(|e| e == v) {
                        examples.push(v.to_string());
                    }
                }
                quality.push(QualityCount {
                    table: name.to_string(),
                    column: base.to_string(),
                    failures,
                    placeholders: 0,
                    examples,
                });
            }
        }
        if let Some(table) = on_disk {
            disk.insert(name, table);
        } else {
            tables.insert(name, df);
        }
    }
    add_placeholder_counts(dir, &mut quality);
    Ok(Frames { tables, disk, quality })
}

/// Placeholders leave no trace in the exported tables (they read as null): take their counts
/// from the run's own `data_quality` table, when it has them.
fn add_placeholder_counts(dir: &Path, quality: &mut Vec<QualityCount>) {
    let path = dir.join("aggregates").join("data_quality.parquet");
    let Ok(file) = std::fs::File::open(&path) else { return };
    let Ok(df) = ParquetReader::new(file).finish() else { return };
    let (Ok(tables), Ok(columns), Ok(counts)) =
        (df.column("tabela"), df.column("coluna"), df.column("marcadores_sem_informacao"))
    else {
        return;
    };
    let (Ok(tables), Ok(columns), Ok(counts)) = (tables.str(), columns.str(), counts.i64()) else { return };
    for ((table, column), n) in tables.iter().zip(columns.iter()).zip(counts.iter()) {
        let (Some(table), Some(column), Some(n)) = (table, column, n) else { continue };
        if n <= 0 {
            continue;
        }
        match quality.iter_mut().find(|q| q.table == table && q.column == column) {
            Some(q) => q.placeholders = n as u64,
            None => quality.push(QualityCount {
                table: table.to_string(),
                column: column.to_string(),
                failures: 0,
                placeholders: n as u64,
                examples: Vec::new(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_partitions_become_one_file_each() {
        let df = DataFrame::new(
            4,
            vec![
                Column::new("cnpj".into(), ["1", "1", "2", "2"]),
                Column::new("categoria".into(), ["fgts", "previdenciario", "fgts", "previdenciario"]),
                Column::new("n".into(), [1i64, 2, 3, 4]),
            ],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let files = write_raw_table("dividas_pgfn", &df, dir.path(), &FileMetadata::default()).unwrap();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "dividas_pgfn/categoria=fgts/part-0.parquet",
                "dividas_pgfn/categoria=previdenciario/part-0.parquet"
            ]
        );
        assert_eq!(files.iter().map(|f| f.rows).sum::<u64>(), 4);
    }

    #[test]
    fn partition_values_round_trip_through_export_and_scan() {
        let df = DataFrame::new(
            3,
            vec![
                Column::new("ano_mes".into(), ["202401", "202401", "202402"]),
                Column::new("uf".into(), [Some("../x y"), Some("SP"), None]),
                Column::new("v".into(), [1i64, 2, 3]),
            ],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let meta = FileMetadata::default();
        write_raw_table("creditos_ativos", &df, dir.path(), &meta).unwrap();
        let back = read_exported_table(dir.path(), "creditos_ativos").unwrap();
        let back = back.sort(["v"], Default::default()).unwrap();
        let uf: Vec<Option<&str>> = back.column("uf").unwrap().str().unwrap().iter().collect();
        assert_eq!(uf, vec![Some("../x y"), Some("SP"), None]);
        assert_eq!(back.column("ano_mes").unwrap().dtype(), &DataType::String);
    }

    /// A run written when credits were cut by month and state (`uf=` directories, the state
    /// in no file) reads back with its states, decoded, as strings.
    #[test]
    fn a_run_cut_by_month_and_state_reads_back_with_its_states() {
        let dir = tempfile::tempdir().unwrap();
        for (n, uf) in [Some("../x y"), Some("SP"), None].into_iter().enumerate() {
            let part = dir.path().join("creditos_ativos/ano_mes=202401").join(partition_segment("uf", uf));
            std::fs::create_dir_all(&part).unwrap();
            let mut df = DataFrame::new(1, vec![Column::new("v".into(), [n as i64])]).unwrap();
            ParquetWriter::new(std::fs::File::create(part.join("part-0.parquet")).unwrap())
                .finish(&mut df)
                .unwrap();
        }
        let back = read_exported_table(dir.path(), "creditos_ativos").unwrap();
        let back = back.sort(["v"], Default::default()).unwrap();
        let uf: Vec<Option<&str>> = back.column("uf").unwrap().str().unwrap().iter().collect();
        assert_eq!(uf, vec![Some("../x y"), Some("SP"), None]);
        assert_eq!(back.column("ano_mes").unwrap().str().unwrap().get(0), Some("202401"));
    }
}
