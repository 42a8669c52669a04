//! A run's typed tables (`Frames`): gathered from the staged segments (typed while the fetch
//! ran, or here by `typing`), with the portfolio's outcome and the data-quality counts; the
//! tables too large to hold stay on disk (`disk`).
//!
//! Every value either converts exactly or becomes null with its text kept in `<column>_raw`
//! and counted in the `data_quality` frame: never a crash, never a silent zero (`typing`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use polars::prelude::*;

use super::disk::DiskTable;
use super::typing::{QualityCount, TransformError, note_example, read_staged, staged_frame, type_table};
use super::vocabulary::{respell_vocabulary, spellings_agree};
use crate::tables::Table;

/// Name of the table of portfolio companies and whether the service knew them.
pub const CARTEIRA: &str = "carteira";

/// How a portfolio company fared in the fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompanyStatus {
    Found,
    NotFound,
    Failed,
}

impl CompanyStatus {
    pub fn label(self) -> &'static str {
        match self {
            Self::Found => "encontrada",
            Self::NotFound => "nao_encontrada",
            Self::Failed => "falhou",
        }
    }
}

/// The typed tables of one run, by table name; the transform stage's output.
#[derive(Default)]
pub struct Frames {
    /// The tables held in memory.
    pub tables: BTreeMap<&'static str, DataFrame>,
    /// The tables that stay on disk (`disk::read_where_used`), scanned where they are read.
    pub disk: BTreeMap<&'static str, DiskTable>,
    pub quality: Vec<QualityCount>,
    /// The credits are those typed while the fetch ran (`HeldCredits`): what was made of
    /// them then is what would be made of them now.
    pub credits_typed_early: bool,
}

impl Frames {
    /// A table held in memory (a table on disk is read through `scan`).
    pub fn get(&self, name: &str) -> Option<&DataFrame> {
        self.tables.get(name)
    }

    /// Whether the run has the table, in memory or on disk.
    pub fn contains(&self, name: &str) -> bool {
        self.tables.contains_key(name) || self.disk.contains_key(name)
    }

    /// Every table's name, in memory or on disk, in name order.
    pub fn names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self.tables.keys().chain(self.disk.keys()).copied().collect();
        names.sort_unstable();
        names
    }

    /// A lazy read of a table, wherever it is held.
    pub fn scan(&self, name: &str) -> Option<PolarsResult<LazyFrame>> {
        match (self.tables.get(name), self.disk.get(name)) {
            (Some(df), _) => Some(Ok(df.clone().lazy())),
            (None, Some(t)) => Some(t.scan()),
            (None, None) => None,
        }
    }

    /// A table's columns and types, as an empty frame.
    pub fn empty_like(&self, name: &str) -> Option<DataFrame> {
        match (self.tables.get(name), self.disk.get(name)) {
            (Some(df), _) => Some(df.clear()),
            (None, Some(t)) => Some(DataFrame::empty_with_arc_schema(t.schema().clone())),
            (None, None) => None,
        }
    }

    /// Reads the tables on disk that `wanted` names into memory, for the stages that change
    /// tables whole (a store run carries rows in and commits them); the others stay on disk.
    pub fn load_disk(&mut self, wanted: impl Fn(&str) -> bool) -> PolarsResult<()> {
        for (name, table) in std::mem::take(&mut self.disk) {
            if wanted(name) {
                self.tables.insert(name, table.load()?);
            } else {
                self.disk.insert(name, table);
            }
        }
        Ok(())
    }

    /// Adds counts of more rows of the same tables (one entry per table and column, examples
    /// kept to the three smallest distinct).
    pub fn add_quality(&mut self, more: Vec<QualityCount>) {
        for m in more {
            match self.quality.iter_mut().find(|q| q.table == m.table && q.column == m.column) {
                Some(q) => {
                    q.failures += m.failures;
                    q.placeholders += m.placeholders;
                    for e in &m.examples {
                        note_example(&mut q.examples, e);
                    }
                }
                None => self.quality.push(m),
            }
        }
    }

    /// The quality counts in one order whatever order they came in (a run types its tables as
    /// they arrive, a re-render reads them back by name): the tables in their own order, then
    /// the rest, each by column. The `data_quality` table and the report both list them so.
    pub fn quality_in_order(&self) -> Vec<&QualityCount> {
        let rank =
            |t: &str| crate::tables::Table::ALL.iter().position(|k| k.name() == t).unwrap_or(usize::MAX);
        let mut q: Vec<&QualityCount> = self.quality.iter().collect();
        q.sort_by(|a, b| (rank(&a.table), &a.table, &a.column).cmp(&(rank(&b.table), &b.table, &b.column)));
        q
    }

    /// The `data_quality` table: one row per (table, column) that had failures.
    pub fn data_quality(&self) -> PolarsResult<DataFrame> {
        let q = self.quality_in_order();
        DataFrame::new(
            q.len(),
            vec![
                Column::new("tabela".into(), q.iter().map(|c| c.table.clone()).collect::<Vec<_>>()),
                Column::new("coluna".into(), q.iter().map(|c| c.column.clone()).collect::<Vec<_>>()),
                Column::new("falhas".into(), q.iter().map(|c| c.failures as i64).collect::<Vec<_>>()),
                Column::new(
                    "marcadores_sem_informacao".into(),
                    q.iter().map(|c| c.placeholders as i64).collect::<Vec<_>>(),
                ),
                Column::new("exemplos".into(), q.iter().map(|c| c.examples.join(" | ")).collect::<Vec<_>>()),
            ],
        )
    }
}

/// Typed frames of `tables` from rows that never went through a staging file (a dossier's
/// records, the partner companies of `--expand-groups`): the same typing as a monthly run's,
/// an empty frame for a table without rows.
pub fn frames_from_rows(
    rows: &BTreeMap<Table, Vec<crate::tables::Row>>,
    tables: &[Table],
) -> Result<Frames, TransformError> {
    let mut frames = Frames::default();
    for table in tables {
        let staged = staged_frame(*table, rows.get(table).map(Vec::as_slice).unwrap_or(&[]))
            .map_err(|source| TransformError::Frame { table: table.name(), source })?;
        let (df, q) = type_table(*table, &staged)?;
        frames.tables.insert(table.name(), df);
        frames.quality.extend(q);
    }
    Ok(frames)
}

/// The `carteira` frame: every portfolio CNPJ and how the fetch found it.
pub fn portfolio_frame(companies: &[(String, CompanyStatus)]) -> PolarsResult<DataFrame> {
    DataFrame::new(
        companies.len(),
        vec![
            Column::new("cnpj".into(), companies.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>()),
            Column::new("situacao".into(), companies.iter().map(|(_, s)| s.label()).collect::<Vec<_>>()),
        ],
    )
}

/// Rows the staged segments at `paths` hold together, from their files' footers (as many as
/// there can be when one cannot be read: the table's own read reports why).
fn staged_rows<'a>(paths: impl IntoIterator<Item = &'a PathBuf>) -> usize {
    let footer_rows = |path: &PathBuf| -> Option<usize> {
        ParquetReader::new(std::fs::File::open(path).ok()?).num_rows().ok()
    };
    paths.into_iter().try_fold(0usize, |sum, path| Some(sum + footer_rows(path)?)).unwrap_or(usize::MAX)
}

/// `frames` one under the other (not copied into one chunk), or `None` when there are none.
pub fn stacked(frames: Vec<DataFrame>) -> PolarsResult<Option<DataFrame>> {
    let mut frames = frames.into_iter();
    let Some(mut acc) = frames.next() else { return Ok(None) };
    for df in frames {
        acc.vstack_mut_owned(df)?;
    }
    Ok(Some(acc))
}

/// The credits typed and held in memory while the fetch still ran (`held_credits`), for
/// `build_frames` to take instead of typing them again.
pub struct HeldCredits {
    df: DataFrame,
    quality: Vec<QualityCount>,
    /// The segments it was typed from: taken only when the fetch staged no other.
    paths: Vec<PathBuf>,
}

impl HeldCredits {
    /// The typed credits, for what reads them before the other tables are typed.
    pub fn frame(&self) -> &DataFrame {
        &self.df
    }
}

/// The credits from their staged segments, typed and held in memory as `build_frames` would
/// hold them, or `None` when they are too many to hold (a table on disk is built there).
pub fn held_credits(paths: Vec<PathBuf>) -> Result<Option<HeldCredits>, TransformError> {
    if staged_rows(&paths) > super::disk::held_whole_rows() {
        return Ok(None);
    }
    let typed = typed_in_memory(Table::CreditosAtivos, &paths, true)?;
    Ok(Some(HeldCredits { df: typed.df, quality: typed.quality, paths }))
}

/// One table typed and held in memory, with what its typing counted and, for `empresas`, its
/// profiles' summaries.
struct InMemory {
    df: DataFrame,
    quality: Vec<QualityCount>,
    resumos: Option<DataFrame>,
}

/// `table` from its segments, in memory: each segment read typed when the fetch typed it
/// (`pretype`), else typed here; the vocabulary spelled over all rows; credits and debts in one
/// chunk. `with_resumos`: keep the profiles' summaries (else they stay on disk).
fn typed_in_memory(table: Table, paths: &[PathBuf], with_resumos: bool) -> Result<InMemory, TransformError> {
    use super::pretype::TypedSegment;
    let err = |source| TransformError::Frame { table: table.name(), source };
    let (mut typed, mut resumos) = (Vec::with_capacity(paths.len().max(1)), Vec::new());
    let (mut published, mut quality) = (Vec::with_capacity(paths.len().max(1)), Vec::new());
    let mut add = |chunk: TypedSegment| {
        quality.extend(chunk.quality);
        typed.push(chunk.typed);
        published.push(chunk.vocabulary);
        resumos.extend(chunk.resumos.filter(|_| with_resumos));
    };
    for path in paths {
        add(match TypedSegment::load(path, with_resumos) {
            Some(chunk) => chunk,
            None => TypedSegment::of(table, read_staged(table, std::slice::from_ref(path))?)?,
        });
    }
    if paths.is_empty() {
        add(TypedSegment::of(table, staged_frame(table, &[]).map_err(err)?)?);
    }
    let several = typed.len() > 1;
    let mut df = stacked(typed).map_err(err)?.unwrap_or_default();
    let resumos = stacked(resumos)
        .map_err(|source| TransformError::Frame { table: super::resumos::RESUMOS, source })?;
    if several && !spellings_agree(table, &published) {
        // Each segment chose its vocabulary spellings alone: choose them over all rows.
        respell_vocabulary(table, &mut df).map_err(err)?;
    }
    if super::disk::ON_DISK.contains(&table) {
        // Read by every credit query and sorted by the export: one chunk is worth its copy
        // (0.1 s of the later stages for 15 months of credits).
        df.rechunk_mut();
    }
    // The other tables are left in one chunk per segment: a copy into one chunk would hold
    // the table twice for a moment, and nothing reads these small tables faster for it.
    Ok(InMemory { df, quality, resumos })
}

/// All tables, from the staged segment files of each and the portfolio's outcome. A segment
/// typed while the fetch ran is read typed (`pretype`); the others are read and typed here,
/// one by one, the same way. `credits`, typed while the fetch ran, are taken as they are when
/// the run holds its credits in memory and they were typed from the segments it staged.
pub fn build_frames(
    segments: &BTreeMap<Table, Vec<PathBuf>>,
    companies: &[(String, CompanyStatus)],
    credits: Option<HeldCredits>,
) -> Result<Frames, TransformError> {
    let mut frames = Frames::default();
    let stage = crate::progress::begin("transform", "tables", Table::ALL.len() as u64);
    // A small run's credits and debts are held in memory like the other tables: each query
    // and the export would otherwise decode the same files again.
    let staged_credits = segments.get(&Table::CreditosAtivos).map(Vec::as_slice).unwrap_or(&[]);
    let credits = credits.filter(|c| c.paths == staged_credits);
    // Credits typed early are counted as typed, not from their hundreds of files' footers.
    let rows = super::disk::ON_DISK.iter().fold(0usize, |sum, t| {
        let rows = match &credits {
            Some(c) if *t == Table::CreditosAtivos => c.df.height(),
            _ => staged_rows(segments.get(t).into_iter().flatten()),
        };
        sum.saturating_add(rows)
    });
    let held = rows <= super::disk::held_whole_rows();
    if held && rows > 0 {
        tracing::debug!("tables on disk held in memory: {rows} rows");
    }
    let mut credits = credits.filter(|_| held);
    for table in Table::ALL {
        let paths = segments.get(&table).map(Vec::as_slice).unwrap_or(&[]);
        if !held
            && super::disk::ON_DISK.contains(&table)
            && let Some((on_disk, quality)) = super::disk::disk_table(table, paths)?
        {
            tracing::debug!(
                "{}: {} rows in {} files, read where used{}",
                table.name(),
                on_disk.height().unwrap_or_default(),
                paths.len(),
                crate::memory::peak_note()
            );
            frames.add_quality(quality);
            frames.disk.insert(table.name(), on_disk);
            crate::progress::step(table.name());
            continue;
        }
        // The profiles' summaries stay on disk when every segment's typing wrote them there.
        let resumos_on_disk =
            if !held && table == Table::Empresas { super::disk::resumos_table(paths) } else { None };
        let early = if table == Table::CreditosAtivos { credits.take() } else { None };
        let typed = match early {
            Some(c) => {
                frames.credits_typed_early = true;
                InMemory { df: c.df, quality: c.quality, resumos: None }
            }
            None => typed_in_memory(table, paths, resumos_on_disk.is_none())?,
        };
        frames.add_quality(typed.quality);
        let df = typed.df;
        tracing::debug!(
            "{}: {} rows, {} MiB by Polars' estimate{}",
            table.name(),
            df.height(),
            df.estimated_size() >> 20,
            crate::memory::peak_note()
        );
        frames.tables.insert(table.name(), df);
        if let Some(r) = resumos_on_disk {
            tracing::debug!(
                "{}: {} rows, read where used{}",
                super::resumos::RESUMOS,
                r.height().unwrap_or_default(),
                crate::memory::peak_note()
            );
            frames.disk.insert(super::resumos::RESUMOS, r);
        } else if let Some(r) = typed.resumos {
            frames.tables.insert(super::resumos::RESUMOS, r);
        }
        crate::progress::step(table.name());
    }
    let carteira =
        portfolio_frame(companies).map_err(|source| TransformError::Frame { table: CARTEIRA, source })?;
    frames.tables.insert(CARTEIRA, carteira);
    drop(stage);
    Ok(frames)
}
