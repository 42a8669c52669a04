//! Where each table goes: raw tables hive-partitioned by what their users filter on (how a
//! table is cut and ordered: `partition`; one too large to hold: `spill`), the aggregates one
//! file each; and the exported tables read back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use polars::prelude::*;

use super::manifest::FileEntry;
use super::parquet::{ExportError, FileMetadata, write_parquet};
use super::partition::{BegunTable, PARTITION_WRITERS, in_parallel, write_partitions, write_raw_table};
use crate::analyze::Aggregates;
use crate::codes::CodeTables;
use crate::exit::{Classified, ExitStatus};
use crate::tables::Table;
use crate::transform::typing::note_example;
use crate::transform::{CARTEIRA, Frames, QualityCount, RESUMOS};

/// Writes every raw table of `frames`; a table `begun` holds (its files written while the
/// fetch ran) gets its footers and goes into place. The caller vouches that it was begun from
/// the very frame `frames` holds (`run` passes it only when the credits typed early are the
/// ones the run kept); its row count is checked here, not its rows.
pub fn write_raw(
    frames: &Frames,
    begun: Vec<BegunTable>,
    out: &Path,
    meta: &FileMetadata,
) -> Result<Vec<FileEntry>, ExportError> {
    let mut begun: BTreeMap<&str, BegunTable> = begun.into_iter().map(|b| (b.name(), b)).collect();
    let names = frames.names();
    let work: Vec<(usize, &str, Option<BegunTable>)> =
        names.iter().enumerate().map(|(i, name)| (i, *name, begun.remove(name))).collect();
    // A few tables at once: most are small, a file or a few each, and waiting on their flush
    // to disk was most of the 0.05 s they took one after another (300 companies). A table on
    // disk is written alone: each holds a partition's rows in memory at a time, and two at
    // once would double the peak a large run keeps flat.
    let writers = if frames.disk.is_empty() { TABLE_WRITERS } else { 1 };
    let work = std::sync::Mutex::new(work.into_iter());
    let mut written = in_parallel(&work, writers, |(i, name, begun)| {
        Ok((i, write_raw_one(frames, name, begun, out, meta)))
    })?;
    // Of two tables that failed, the first by name is the one reported, as one after another.
    written.sort_by_key(|(i, _)| *i);
    let mut files = Vec::new();
    for (_, table) in written {
        files.extend(table?);
    }
    // What an earlier run killed while it began a table's files left behind.
    drop(begun);
    super::partition::remove_scratch(out, &names);
    Ok(files)
}

/// Raw tables written at once (besides each one's partition writers).
const TABLE_WRITERS: usize = 3;

/// One raw table of `frames`, into `out/<name>/` (what was there goes first).
fn write_raw_one(
    frames: &Frames,
    name: &str,
    begun: Option<BegunTable>,
    out: &Path,
    meta: &FileMetadata,
) -> Result<Vec<FileEntry>, ExportError> {
    let dir = out.join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(|source| ExportError::Io { path: dir.clone(), source })?;
    }
    let files = match (frames.tables.get(name), frames.disk.get(name)) {
        (Some(df), _) => match begun.filter(|b| b.rows() == df.height()) {
            Some(table) => table.finish(out, meta)?,
            None => write_raw_table(name, df, out, meta)?,
        },
        (None, Some(table)) => super::spill::write_raw_on_disk(name, table, out, meta)?,
        (None, None) => Vec::new(),
    };
    tracing::debug!("{name} written{}", crate::memory::peak_note());
    crate::progress::step(name);
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

/// The series over the store's snapshots (`queries/historico/*.sql`), `historico/<table>.parquet`.
pub fn write_history(
    history: &Aggregates,
    out: &Path,
    meta: &FileMetadata,
) -> Result<Vec<FileEntry>, ExportError> {
    let dir = out.join(HISTORY_DIR);
    let mut files = Vec::new();
    for (q, df) in &history.results {
        let path = dir.join(format!("{}.parquet", q.table));
        let m = meta.with("fiscal_report.query", &q.name).with("fiscal_report.query_sha256", &q.sha256);
        files.push(write_parquet(&mut df.clone(), &path, out, &m)?);
    }
    remove_unlisted(out, &dir, &files);
    Ok(files)
}

/// The series of an earlier run in this folder, gone with the run that made them (a run
/// without a store has none).
pub fn remove_history(out: &Path) {
    remove_unlisted(out, &out.join(HISTORY_DIR), &[]);
}

/// The folder of the series' files in a run's output.
pub const HISTORY_DIR: &str = "historico";

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
    let work = std::sync::Mutex::new(codes.tables());
    let files = write_partitions(&work, PARTITION_WRITERS, |(name, table)| {
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
        write_parquet(&mut df, &path, out, &m)
    })?;
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
    let quality_file =
        (dir.join("data_quality.parquet"), quality, meta.with("fiscal_report.table", "data_quality"));
    let files = aggs.results.iter().map(|(q, df)| {
        let m = meta.with("fiscal_report.query", &q.name).with("fiscal_report.query_sha256", &q.sha256);
        (dir.join(format!("{}.parquet", q.table)), df, m)
    });
    // A few at a time: each is small, and waiting on its flush to disk is most of its cost.
    let work = std::sync::Mutex::new(files.chain(std::iter::once(quality_file)));
    let files = write_partitions(&work, PARTITION_WRITERS, |(path, df, m)| {
        write_parquet(&mut df.clone(), &path, out, &m)
    })?;
    remove_unlisted(out, &dir, &files);
    Ok(files)
}

/// Writes each table the analysis made for its queries (`Aggregates::inputs`: the previous
/// snapshot's, `comparacao`, ...) to `out/<name>/` (`out/anterior/<table>/` for a previous
/// snapshot's copy), laid out as a raw table, so that every view a query reads is a file another
/// engine can read. A copy an older version left at `out/<table>_anterior/` goes.
pub fn write_query_inputs(
    aggs: &Aggregates,
    out: &Path,
    meta: &FileMetadata,
) -> Result<Vec<FileEntry>, ExportError> {
    let mut files = Vec::new();
    for (name, df) in &aggs.inputs {
        for dir in [out.join(super::partition::folder_of(name)), out.join(name)] {
            if dir.exists() {
                std::fs::remove_dir_all(&dir)
                    .map_err(|source| ExportError::Io { path: dir.clone(), source })?;
            }
        }
        files.extend(write_raw_table(name, df, out, meta)?);
    }
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
    // A partition key is read as a category, then given to the queries as text: as text at once,
    // Polars 0.55 builds a string per row and a grouping on the month holds twice the memory
    // (bench/results/analyze-vs-duckdb.md).
    let category = DataType::from_categories(Categories::global());
    args.hive_options = if parts.is_empty() {
        HiveOptions::new_disabled()
    } else {
        let schema: Schema = parts.iter().map(|p| Field::new(p.as_str().into(), category.clone())).collect();
        HiveOptions {
            enabled: Some(true),
            hive_start_idx: 0,
            schema: Some(std::sync::Arc::new(schema)),
            try_parse_dates: false,
        }
    };
    let pattern = format!("{}/**/*.parquet", root.display());
    let scan = LazyFrame::scan_parquet(PlRefPath::new(pattern), args)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", root.display()))?;
    Ok(scan.with_columns(parts.iter().map(|p| col(p.as_str()).cast(DataType::String)).collect::<Vec<_>>()))
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
    use crate::transform::economic_groups::{GRUPOS_ECONOMICOS, SOCIAS_EXPOSICAO};
    use crate::transform::listas::LISTAS;
    use crate::transform::nacional::DIVIDA_ATIVA_NACIONAL;
    use crate::transform::regime::REGIME_TRIBUTARIO;
    let names: Vec<&'static str> = Table::ALL
        .iter()
        .map(|t| t.name())
        .chain([RESUMOS, CARTEIRA, GRUPOS_ECONOMICOS, SOCIAS_EXPOSICAO, LISTAS, DIVIDA_ATIVA_NACIONAL])
        .chain([REGIME_TRIBUTARIO])
        .collect();
    // Absent from run dirs written before partners were fetched (the groups are then made
    // again from what is there), or from runs without `--expand-groups`; the public lists
    // and the tax regimes from run dirs written before they were read (made again empty).
    let optional = [
        Table::Socios.name(),
        GRUPOS_ECONOMICOS,
        SOCIAS_EXPOSICAO,
        LISTAS,
        DIVIDA_ATIVA_NACIONAL,
        REGIME_TRIBUTARIO,
    ];
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
                s.iter().flatten().for_each(|v| note_example(&mut examples, v));
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
    Ok(Frames { tables, disk, quality, ..Default::default() })
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
    use crate::export::parquet::partition_segment;

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

    /// The credits' files begun while the fetch runs and finished at the export are, byte for
    /// byte, the files the export writes of the same rows with the same metadata (known only
    /// at the export); they replace an earlier run's table and leave no scratch folder.
    #[test]
    fn a_table_begun_before_its_metadata_is_known_is_the_table_written_at_once() {
        let n = 3_000usize;
        let months: Vec<&str> = (0..n).map(|i| ["202402", "202401", "202403"][i * 7 % 3]).collect();
        let ufs: Vec<&str> = (0..n).map(|i| ["SP", "RJ", "MG", "BA"][i * 5 % 4]).collect();
        let grupo: Vec<String> = (0..n).map(|i| format!("g{}", i * 13 % 17)).collect();
        let v: Vec<i64> = (0..n as i64).map(|i| i * 7919 % 1000).collect();
        let df = DataFrame::new(
            n,
            vec![
                Column::new("ano_mes".into(), months),
                Column::new("uf".into(), ufs),
                Column::new("grupo_tributo".into(), grupo),
                Column::new("v".into(), v),
            ],
        )
        .unwrap();
        let name = Table::CreditosAtivos.name();
        let meta = FileMetadata::default().with("fiscal_report.fontes", "{\"rfb\":\"2026-09\"}");
        let at_once = tempfile::tempdir().unwrap();
        let expected = write_raw_table(name, &df, at_once.path(), &meta).unwrap();

        let begun_dir = tempfile::tempdir().unwrap();
        let out = begun_dir.path();
        let stale = out.join(name).join("ano_mes=202312");
        std::fs::create_dir_all(&stale).unwrap();
        std::fs::write(stale.join("part-0.parquet"), b"an earlier run's").unwrap();
        let begun = crate::export::partition::begin_raw_table(name, &df, out).unwrap().expect("begun");
        // What a run killed while it began its files left behind.
        let killed = out.join(format!(".{name}.begun-4194304/ano_mes=202401"));
        std::fs::create_dir_all(&killed).unwrap();
        std::fs::write(killed.join("part-0.parquet"), b"half a file").unwrap();
        // Until the export, the earlier run's table is untouched.
        assert!(stale.join("part-0.parquet").exists());
        let mut frames = Frames::default();
        frames.tables.insert(name, df.clone());
        let files = write_raw(&frames, vec![begun], out, &meta).unwrap();

        let entry = |f: &FileEntry| (f.path.clone(), f.rows, f.bytes, f.sha256.clone());
        assert_eq!(
            files.iter().map(entry).collect::<Vec<_>>(),
            expected.iter().map(entry).collect::<Vec<_>>()
        );
        assert_eq!(files.len(), 3);
        assert!(!stale.exists(), "the earlier run's partition is gone");
        let left: Vec<String> = std::fs::read_dir(out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(left, [name], "no scratch folder left");
        // The metadata known at the end is in the footer, read by arrow-rs.
        use parquet::file::reader::{FileReader, SerializedFileReader};
        let file = std::fs::File::open(out.join(&files[0].path)).unwrap();
        let reader = SerializedFileReader::new(file).unwrap();
        let kv = reader.metadata().file_metadata().key_value_metadata().cloned().unwrap_or_default();
        let value = |k: &str| kv.iter().find(|p| p.key == k).and_then(|p| p.value.clone());
        assert_eq!(value("fiscal_report.fontes").as_deref(), Some("{\"rfb\":\"2026-09\"}"));
        assert_eq!(value("fiscal_report.table").as_deref(), Some(name));
        assert!(value("ARROW:schema").is_some());

        // Dropped unfinished (a run that stopped before its export), it leaves nothing behind.
        let dropped = tempfile::tempdir().unwrap();
        drop(crate::export::partition::begin_raw_table(name, &df, dropped.path()).unwrap());
        assert_eq!(std::fs::read_dir(dropped.path()).unwrap().count(), 0);
    }
}
