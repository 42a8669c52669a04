//! The typed tables that stay on disk: `creditos_ativos` and `dividas_pgfn` grow with the data
//! (4.2 and 1.3 million rows at 200,000 companies) while no later stage needs either whole:
//! the queries scan them and the export copies them a partition at a time. Held in memory they
//! were most of the later stages' peak.
//!
//! It owns which tables stay on disk, the files that hold one (the typed staging segments, or a
//! respelled copy of those whose vocabulary spellings the whole table chooses otherwise) and
//! how they are scanned. How rows are typed is `frames`'s and `pretype`'s; how a table is
//! exported is the export's; a store run reads them into memory first (`Frames::load_disk`),
//! and a small run holds them there from the start (`HELD_WHOLE_ROWS`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use polars::prelude::*;

use super::pretype::{TypedSegment, write_frame};
use super::schema::{Kind, columns};
use super::typing::{QualityCount, TransformError};
use super::vocabulary::{spelled_column, spellings_agree, vocabulary_spellings};
use crate::tables::Table;

/// The tables kept on disk after the transform: the ones whose rows grow with the data.
pub const ON_DISK: [Table; 2] = [Table::CreditosAtivos, Table::DividasPgfn];

/// Rows of credits and debts up to which they are held in memory instead (about 150 MiB of
/// credits): the queries then decode them once, not once each, and the export sorts them
/// without a spill (0.2 s of a 0.9 s `report --from` for 150 companies and 15 months of
/// credits, 422,665 rows; 2,000 companies and 12 months are about 360,000). At 20,000 companies
/// (1.3 million) they stay on disk, and the later stages' memory stays flat.
pub const HELD_WHOLE_ROWS: usize = 512 * 1024;

/// `HELD_WHOLE_ROWS`, or `FISCAL_REPORT_HELD_ROWS` when set (0 keeps credits and debts on disk,
/// as a large portfolio's run does).
pub fn held_whole_rows() -> usize {
    const VAR: &str = "FISCAL_REPORT_HELD_ROWS";
    match crate::environment::held_rows() {
        None => HELD_WHOLE_ROWS,
        Some(v) => v.trim().parse().unwrap_or_else(|_| {
            tracing::warn!(
                "{VAR}={v:?} is not a number of rows; using {HELD_WHOLE_ROWS} (unset it, or give e.g. 0)"
            );
            HELD_WHOLE_ROWS
        }),
    }
}

/// Whether the table `name` is read where used rather than held in memory: the tables of
/// `ON_DISK`, and `resumos` (five summaries a company, a million rows at 200,000 companies,
/// read by one query only).
pub fn read_where_used(name: &str) -> bool {
    ON_DISK.iter().any(|t| t.name() == name) || name == super::resumos::RESUMOS
}

/// One typed table as Parquet files of one schema, read by a lazy scan.
#[derive(Clone)]
pub struct DiskTable {
    held: Held,
    schema: SchemaRef,
    /// Where respelled copies were written; removed when the last holder of the table is gone.
    _scratch: Option<Arc<ScratchDir>>,
}

#[derive(Clone)]
enum Held {
    /// Typed segment files, each holding whole rows, and how many rows they hold together.
    Files(Vec<PathBuf>, usize),
    /// A finished run's exported table (`report --from`): hive-partitioned, so its partition
    /// columns are in its paths; the scan puts them back.
    Exported(Box<LazyFrame>),
}

impl DiskTable {
    /// A finished run's exported table, read by `scan` (which puts its partition columns back).
    pub fn exported(mut scan: LazyFrame) -> PolarsResult<Self> {
        let schema = scan.collect_schema()?;
        Ok(Self { held: Held::Exported(Box::new(scan)), schema, _scratch: None })
    }

    /// The files, in the order the table's rows are in, when each holds whole rows (not for
    /// an exported table, whose files lack their partition columns).
    pub fn files(&self) -> Option<&[PathBuf]> {
        match &self.held {
            Held::Files(files, _) => Some(files),
            Held::Exported(_) => None,
        }
    }

    /// Its rows, as the typed files' sidecars count them (an exported table is not counted).
    pub fn height(&self) -> Option<usize> {
        match &self.held {
            Held::Files(_, rows) => Some(*rows),
            Held::Exported(_) => None,
        }
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// A lazy scan of every row, in file order.
    pub fn scan(&self) -> PolarsResult<LazyFrame> {
        match &self.held {
            Held::Files(files, _) => scan_files(files, Some(self.schema.clone())),
            Held::Exported(scan) => Ok(scan.as_ref().clone()),
        }
    }

    /// The whole table in memory, as one chunk.
    pub fn load(&self) -> PolarsResult<DataFrame> {
        let mut df = self.scan()?.collect()?;
        df.rechunk_mut();
        Ok(df)
    }

    /// One file's rows.
    pub fn read_file(path: &Path) -> PolarsResult<DataFrame> {
        ParquetReader::new(std::fs::File::open(path)?).finish()
    }
}

/// A plan's result from Polars' streaming engine, which reads a table on disk a batch at a
/// time, so that the plan holds its widest intermediate result rather than the tables it
/// reads; a plan that engine refuses runs in memory, whose error (if it has one too) is the one
/// reported.
pub fn collect_streaming(plan: LazyFrame) -> PolarsResult<DataFrame> {
    match plan.clone().collect_with_engine(Engine::Streaming) {
        // One plan gives one frame (several come only from a plan of several sinks).
        Ok(result) => Ok(result.unwrap_single()),
        Err(e) => {
            tracing::debug!("a plan ran in memory: the streaming engine said {e}");
            plan.collect()
        }
    }
}

fn scan_files(files: &[PathBuf], schema: Option<SchemaRef>) -> PolarsResult<LazyFrame> {
    let paths = files.iter().map(|p| PlRefPath::new(p.to_string_lossy().as_ref())).collect();
    let args = ScanArgsParquet {
        schema,
        // Paths as they are: a run directory's name may hold `*` or `k=v` by chance.
        glob: false,
        hive_options: HiveOptions::new_disabled(),
        ..Default::default()
    };
    LazyFrame::scan_parquet_files(paths, args)
}

/// A directory of this process's, removed when dropped.
struct ScratchDir(PathBuf);

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `table` on disk from its staged segments: the typed copy of each (typing, and saving, those
/// the fetch left untyped) and the data-quality counts of their typing. `None` when the table
/// has no rows or a typed copy cannot be saved: the caller then types it in memory.
pub fn disk_table(
    table: Table,
    segments: &[PathBuf],
) -> Result<Option<(DiskTable, Vec<QualityCount>)>, TransformError> {
    let err = |source| TransformError::Frame { table: table.name(), source };
    let (mut files, mut rows, mut quality) = (Vec::with_capacity(segments.len()), 0, Vec::new());
    let mut published = Vec::with_capacity(segments.len());
    for segment in segments {
        let whole = match TypedSegment::whole_file(segment) {
            Some(whole) => whole,
            None => {
                let text = super::typing::read_staged(table, std::slice::from_ref(segment))?;
                if TypedSegment::of(table, text)?.save(segment).is_err() {
                    return Ok(None);
                }
                match TypedSegment::whole_file(segment) {
                    Some(whole) => whole,
                    None => return Ok(None),
                }
            }
        };
        files.push(whole.path);
        rows += whole.rows;
        quality.extend(whole.quality);
        published.push(whole.vocabulary);
    }
    if rows == 0 {
        return Ok(None);
    }
    let schema = scan_files(&files, None).and_then(|mut lf| lf.collect_schema()).map_err(err)?;
    // A respelled copy that cannot be written (a full disk, a read-only shard) costs the
    // table's place on disk only: the caller types it in memory, as before tables stayed there.
    // When every segment's spellings are those of the whole table, no file is read for them.
    let respelled =
        if spellings_agree(table, &published) { Ok(None) } else { respell(table, &mut files, &schema) };
    let scratch = match respelled {
        Ok(scratch) => scratch,
        Err(e) => {
            tracing::debug!("{} typed in memory: its respelled copy was not written: {e}", table.name());
            return Ok(None);
        }
    };
    Ok(Some((DiskTable { held: Held::Files(files, rows), schema, _scratch: scratch }, quality)))
}

/// `resumos` on disk: the typed summaries the typing of each `empresas` segment wrote beside
/// it, when every segment has them (else `None`: the caller reads them with the profiles).
/// Summaries have no vocabulary columns, so no file is respelled.
pub fn resumos_table(segments: &[PathBuf]) -> Option<DiskTable> {
    let (mut files, mut rows) = (Vec::with_capacity(segments.len()), 0);
    for segment in segments {
        let (file, n) = TypedSegment::resumos_file(segment)?;
        if n > 0 {
            files.push(file);
            rows += n;
        }
    }
    if rows == 0 {
        return None;
    }
    let schema = scan_files(&files, None).and_then(|mut lf| lf.collect_schema()).ok()?;
    Some(DiskTable { held: Held::Files(files, rows), schema, _scratch: None })
}

/// Each segment chose its vocabulary spellings from its own rows; the table chooses them from
/// all of them (as typing it whole would). A file whose spellings differ from the table's is
/// copied, respelled, into a scratch directory beside it, and replaced by the copy in `files`.
fn respell(table: Table, files: &mut [PathBuf], schema: &SchemaRef) -> PolarsResult<Option<Arc<ScratchDir>>> {
    let vocab: Vec<&str> = columns(table).iter().filter(|c| c.kind == Kind::Vocab).map(|c| c.name).collect();
    if files.len() < 2 || vocab.is_empty() {
        return Ok(None);
    }
    // The published texts of every vocabulary column: a few dozen distinct values each.
    let mut published = Vec::with_capacity(vocab.len());
    for name in &vocab {
        let original = format!("{name}_original");
        let distinct = collect_streaming(
            scan_files(files, Some(schema.clone()))?.select([col(original.as_str()).unique()]),
        )?;
        published.push(distinct.column(&original)?.str()?.clone());
    }
    let spellings: Vec<_> = published.iter().map(vocabulary_spellings).collect();
    let mut scratch: Option<Arc<ScratchDir>> = None;
    for (n, file) in files.iter_mut().enumerate() {
        let projection: Vec<String> =
            vocab.iter().flat_map(|v| [v.to_string(), format!("{v}_original")]).collect();
        let part =
            ParquetReader::new(std::fs::File::open(&*file)?).with_columns(Some(projection)).finish()?;
        let mut respelled = Vec::new();
        for (name, spelling) in vocab.iter().zip(&spellings) {
            let original = part.column(&format!("{name}_original"))?.str()?;
            let column = spelled_column((*name).into(), original, spelling);
            if !column.as_materialized_series().equals_missing(part.column(name)?.as_materialized_series()) {
                respelled.push(column);
            }
        }
        if respelled.is_empty() {
            continue;
        }
        let dir = match &scratch {
            Some(dir) => dir.0.clone(),
            None => {
                let dir = file
                    .parent()
                    .unwrap_or(Path::new("."))
                    .join(crate::fsutil::scratch_name(&format!("respelled-{}", table.name())));
                std::fs::create_dir_all(&dir)?;
                scratch = Some(Arc::new(ScratchDir(dir.clone())));
                dir
            }
        };
        let mut df = DiskTable::read_file(file)?;
        for column in respelled {
            df.with_column(column)?;
        }
        let copy = dir.join(format!("{n:06}.parquet"));
        write_frame(&copy, &mut df).map_err(|e| PolarsError::IO { error: Arc::new(e), msg: None })?;
        *file = copy;
    }
    Ok(scratch)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::transform::typing::{staged_frame, type_table};
    use crate::transform::vocabulary::respell_vocabulary;

    /// A credit row as the service writes it: (ano_mes, uf, situacao, valor_total).
    pub(crate) type Credit = (&'static str, &'static str, &'static str, &'static str);

    fn staged_rows(rows: &[Credit]) -> Vec<crate::tables::Row> {
        let columns = Table::CreditosAtivos.columns();
        rows.iter()
            .map(|(ano_mes, uf, situacao, valor)| {
                columns
                    .iter()
                    .map(|c| {
                        Some(match c.as_str() {
                            "ano_mes" => ano_mes.to_string(),
                            "uf" => uf.to_string(),
                            "situacao" => situacao.to_string(),
                            "valor_total" => valor.to_string(),
                            "cnae_secao_cod" => "C".to_string(),
                            "cnae_secao_descr" => "Indústrias de transformação".to_string(),
                            // Distinct per amount: equal keys would leave the export's order
                            // to the tie-breaking columns.
                            "natureza_juridica" => valor.replace(',', ""),
                            _ => "x".to_string(),
                        })
                    })
                    .collect()
            })
            .collect()
    }

    /// Saves each of `segments` as a typed staging segment in `dir` and returns their paths.
    pub(crate) fn typed_segments(dir: &Path, segments: &[&[Credit]]) -> Vec<PathBuf> {
        segments
            .iter()
            .enumerate()
            .map(|(n, rows)| {
                let path = dir.join(format!("creditos_ativos-{n:06}.parquet"));
                let text = staged_frame(Table::CreditosAtivos, &staged_rows(rows)).unwrap();
                TypedSegment::of(Table::CreditosAtivos, text).unwrap().save(&path).unwrap();
                path
            })
            .collect()
    }

    /// The same rows typed in memory, as one table (what the frames held before).
    pub(crate) fn typed_in_memory(segments: &[&[Credit]]) -> DataFrame {
        let all: Vec<Credit> = segments.iter().flat_map(|s| s.iter().copied()).collect();
        let text = staged_frame(Table::CreditosAtivos, &staged_rows(&all)).unwrap();
        let (mut df, _) = type_table(Table::CreditosAtivos, &text).unwrap();
        respell_vocabulary(Table::CreditosAtivos, &mut df).unwrap();
        df
    }

    /// Segments that each saw one spelling of a status read back with the spelling the whole
    /// table chooses (the one in mixed case), equal to the table typed in memory; the respelled
    /// copy is gone with the table, the typed segments stay.
    #[test]
    fn a_table_on_disk_reads_as_the_table_typed_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let segments: [&[Credit]; 3] = [
            &[("202608", "SP", "PARCELADO", "1,00"), ("202608", "RJ", "PARCELADO", "2,00")],
            &[("202609", "SP", "Parcelado", "3,00")],
            &[("202609", "MG", "Parcelado", "4,50"), ("202609", "MG", "Suspenso", "5,00")],
        ];
        let paths = typed_segments(tmp.path(), &segments);
        let (table, quality) = disk_table(Table::CreditosAtivos, &paths).unwrap().expect("rows on disk");
        assert!(quality.is_empty());
        assert_eq!(table.height(), Some(5));
        let respelled: Vec<_> =
            table.files().unwrap().iter().filter(|f| f.parent() != Some(&tmp.path().join("typed"))).collect();
        assert_eq!(respelled.len(), 1, "only the first segment spelled the status otherwise: {respelled:?}");
        let loaded = table.load().unwrap();
        let whole = typed_in_memory(&segments);
        for c in whole.columns() {
            let l = loaded.column(c.name()).unwrap();
            assert!(
                l.as_materialized_series().equals_missing(c.as_materialized_series()),
                "column {}: {l:?} where typing the table whole gives {c:?}",
                c.name()
            );
        }
        assert_eq!(loaded.get_column_names(), whole.get_column_names());
        assert_eq!(loaded.column("situacao").unwrap().str().unwrap().get(0), Some("Parcelado"));
        let scratch = respelled[0].parent().unwrap().to_path_buf();
        assert!(scratch.is_dir());
        drop(table);
        assert!(!scratch.exists(), "the respelled copy outlived its table");
        assert!(paths.iter().all(|p| TypedSegment::whole_file(p).is_some()), "typed segments kept");
    }

    /// A segment the fetch left untyped is typed and saved; a table without rows stays in memory.
    #[test]
    fn untyped_segments_are_typed_and_empty_tables_stay_in_memory() {
        let tmp = tempfile::tempdir().unwrap();
        let segment = tmp.path().join("creditos_ativos-000000.parquet");
        let rows = staged_rows(&[("202609", "SP", "Em cobrança", "não é dinheiro")]);
        let mut text = staged_frame(Table::CreditosAtivos, &rows).unwrap();
        ParquetWriter::new(std::fs::File::create(&segment).unwrap()).finish(&mut text).unwrap();
        let (table, quality) =
            disk_table(Table::CreditosAtivos, std::slice::from_ref(&segment)).unwrap().unwrap();
        assert_eq!(table.height(), Some(1));
        assert_eq!(quality.iter().map(|q| q.failures).sum::<u64>(), 1, "the bad amount is counted");
        assert!(TypedSegment::whole_file(&segment).is_some());
        assert!(disk_table(Table::CreditosAtivos, &[]).unwrap().is_none());
    }
}
