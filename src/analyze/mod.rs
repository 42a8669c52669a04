//! The analyze stage: runs every `queries/*.sql` file with Polars SQL over the typed tables.
//! One file is one aggregate; its header comment says what it answers.
//!
//! It owns finding, reading and running the queries. What the SQL computes lives in the files,
//! where analysts can read and edit it; how results are written or shown is for later stages.

pub mod cells;
mod early_results;
pub(crate) mod regime;
pub(crate) mod sancoes;
mod waves;

pub use early_results::{EarlyResults, run_credit_queries};

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use polars::prelude::*;
use polars::sql::SQLContext;

use crate::store::snapshot::{COMPANY_TABLES, PreviousSnapshot, REGIME_TABLE, SANCOES_TABLE};
use crate::tables::Table;
use crate::transform::Frames;
use crate::transform::disk::{collect_streaming, held_whole_rows};
use crate::transform::economic_groups::{INSCRICOES_DA_CARTEIRA, SOCIAS_EXPOSICAO, no_inscriptions};

#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    #[error("cannot read the queries directory {dir}: {source}")]
    ReadDir { dir: PathBuf, source: std::io::Error },
    #[error("cannot read query file {path}: {source}")]
    ReadFile { path: PathBuf, source: std::io::Error },
    #[error(
        "the queries directory {dir} holds no .sql file; point --queries at the folder with the .sql files"
    )]
    Empty { dir: PathBuf },
    #[error(
        "query {file} failed: {message}\n  The query must be SQL that Polars SQL, DuckDB and Spark all run; tables: {tables}"
    )]
    Query { file: String, message: String, tables: String },
    #[error("cannot read the typed {table} table: {message}")]
    Read { table: String, message: String },
    #[error("cannot compare with the previous snapshot's {table}: {message}")]
    Previous { table: String, message: String },
    #[error(
        "query {file}: `-- report: {value}` is not a placement; write `-- report: section` (a section of the \
         report shows it), `appendix` (the default) or `none` (not shown)"
    )]
    Placement { file: String, value: String },
    #[error(
        "queries {first} and {second} both make the table {table} (a query's table is its file name without \
         the leading number); rename one of them{reserved}"
    )]
    SameTable { first: String, second: String, table: String, reserved: &'static str },
}

/// The failures here are in the queries folder a person chose or wrote (a folder that cannot
/// be read, no `.sql` file, SQL that does not run), but for the store's previous rows.
impl crate::exit::HasExitStatus for AnalyzeError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        match self {
            // The store's own rows that did not take this run's types: not the analyst's input.
            Self::Previous { .. } => crate::exit::ExitStatus::Internal,
            // The typed tables this run wrote: not the analyst's input either.
            Self::Read { .. } => crate::exit::ExitStatus::Internal,
            _ => crate::exit::ExitStatus::BadInput,
        }
    }
}

/// The keys of a query file's header (documented in the README).
const HEADER_KEYS: [&str; 6] = ["titulo", "title", "descricao", "description", "answers", "report"];

/// One aggregate: a `.sql` file and what its header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The file name without `.sql`, e.g. `14_carteira_exposicao`.
    pub name: String,
    /// The aggregate's table name: the name without its ordering prefix (`carteira_exposicao`).
    /// Later queries can read it; the export writes it under this name.
    pub table: String,
    /// The pt-BR title the report shows: `-- titulo:`, else `-- title:` (files written before
    /// titles came in two languages), else the name.
    pub title: String,
    /// The English title: `-- title:` when the file also has `-- titulo:`, else `title`.
    pub title_en: String,
    /// `-- descricao:` line(s): what the table shows, for an analyst, in pt-BR. Files without
    /// one fall back to `answers`.
    pub descricao: String,
    /// `-- description:` line(s): the same in English, else `descricao`.
    pub description: String,
    /// `-- answers:` line(s): the question the aggregate answers, for engineers.
    pub answers: String,
    pub sql: String,
    /// Every word of the SQL that could name a table (`waves::names_in`), read once: the
    /// waves, the early run and the choice of engine all ask.
    pub names: HashSet<String>,
    /// sha256 of the SQL text, recorded in the Parquet metadata and the manifest.
    pub sha256: String,
    /// Where it came from: a path, or `built-in`.
    pub origin: String,
    /// `-- report:` line: where the report shows it.
    pub placement: Placement,
}

/// Where the report shows an aggregate: the `-- report:` line of its query file's header.
/// The file says it, so a new query needs no list kept in step anywhere else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Placement {
    /// `section`: one of the report's own sections shows it; the appendix does not repeat it.
    Section,
    /// `appendix`, or no `-- report:` line: a table of its own in the report's appendix.
    #[default]
    Appendix,
    /// `none`: a table later queries read; exported, not shown.
    Hidden,
    /// Any other value: refused by `load_queries`, naming the file.
    Unrecognised(String),
}

impl Placement {
    fn parse(value: &str) -> Self {
        match value.trim() {
            "section" => Self::Section,
            "appendix" => Self::Appendix,
            "none" => Self::Hidden,
            other => Self::Unrecognised(other.to_string()),
        }
    }
}

impl Query {
    pub fn parse(name: &str, sql: &str, origin: &str) -> Self {
        use sha2::Digest;
        // Each key's lines; a continuation line (indented, no `key:`) extends the last key.
        let mut fields: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        let mut last: Option<&str> = None;
        let mut placement = Placement::default();
        for line in sql.lines().map(str::trim).take_while(|l| l.starts_with("--") || l.is_empty()) {
            let after_dashes = line.trim_start_matches('-');
            let indented = after_dashes.starts_with("  ");
            let body = after_dashes.trim();
            let keyed = HEADER_KEYS.iter().find_map(|k| {
                body.strip_prefix(k).and_then(|rest| rest.strip_prefix(':')).map(|v| (*k, v.trim()))
            });
            match keyed {
                Some(("report", value)) => {
                    placement = Placement::parse(value);
                    last = None;
                }
                Some((key, value)) => {
                    fields.entry(key).or_default().push(value.to_string());
                    last = Some(key);
                }
                // Engineer notes after the header (`-- Feeds the headline cards.`) are not part of
                // it: only an indented line continues the field above.
                None if body.is_empty() || !indented => last = None,
                None => {
                    if let Some(key) = last {
                        fields.entry(key).or_default().push(body.to_string());
                    }
                }
            }
        }
        let field = |k: &str| fields.get(k).map(|v| v.join(" ")).filter(|v| !v.is_empty());
        let table = name.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches('_');
        let answers = field("answers").unwrap_or_default();
        let (title, title_en) = match (field("titulo"), field("title")) {
            (Some(pt), en) => (pt.clone(), en.unwrap_or(pt)),
            (None, Some(t)) => (t.clone(), t),
            (None, None) => (name.replace('_', " "), name.replace('_', " ")),
        };
        let descricao = field("descricao").unwrap_or_else(|| answers.clone());
        Self {
            name: name.to_string(),
            table: if table.is_empty() { name.to_string() } else { table.to_string() },
            title,
            title_en,
            description: field("description").unwrap_or_else(|| descricao.clone()),
            descricao,
            answers,
            sql: sql.to_string(),
            names: waves::names_in(sql),
            sha256: hex::encode(sha2::Sha256::digest(sql.as_bytes())),
            origin: origin.to_string(),
            placement,
        }
    }
}

/// The queries in `dir` (every `*.sql`, by file name), or the built-in set when `dir` is None.
pub fn load_queries(dir: Option<&Path>) -> Result<Vec<Query>, AnalyzeError> {
    let Some(dir) = dir else {
        return crate::builtin::QUERIES
            .iter()
            .map(|(name, sql)| checked(Query::parse(name, sql, "built-in")))
            .collect();
    };
    let files = crate::fsutil::files_with_extension(dir, "sql")
        .map_err(|source| AnalyzeError::ReadDir { dir: dir.to_path_buf(), source })?;
    if files.is_empty() {
        return Err(AnalyzeError::Empty { dir: dir.to_path_buf() });
    }
    let queries = files
        .iter()
        .map(|(name, p)| {
            let sql = std::fs::read_to_string(p)
                .map_err(|source| AnalyzeError::ReadFile { path: p.clone(), source })?;
            checked(Query::parse(name, &sql, &p.display().to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    one_query_a_table(&queries)?;
    Ok(queries)
}

/// Each table made by one query only, and none named as the data-quality table beside them:
/// two files of one name in `aggregates/` would leave one of them, and a manifest naming both.
fn one_query_a_table(queries: &[Query]) -> Result<(), AnalyzeError> {
    let mut seen: BTreeMap<&str, &Query> = BTreeMap::new();
    for q in queries {
        if q.table == DATA_QUALITY {
            return Err(AnalyzeError::SameTable {
                first: q.origin.clone(),
                second: "the run's data-quality table".into(),
                table: q.table.clone(),
                reserved: ": data_quality is the run's own",
            });
        }
        if let Some(first) = seen.insert(&q.table, q) {
            return Err(AnalyzeError::SameTable {
                first: first.origin.clone(),
                second: q.origin.clone(),
                table: q.table.clone(),
                reserved: "",
            });
        }
    }
    Ok(())
}

/// The data-quality table, which every run writes beside the aggregates.
const DATA_QUALITY: &str = "data_quality";

/// The series over every snapshot of a store (`historico/*.sql` beside the queries: `DIR/historico`
/// when `dir` has one, else the built-in set). They read `carteira_exposicao_por_retrato` and
/// `situacao_fiscal_estimada_por_retrato`, each row with its `snapshot`.
pub fn load_history_queries(dir: Option<&Path>) -> Result<Vec<Query>, AnalyzeError> {
    match dir.map(|d| d.join(HISTORY_DIR)).filter(|d| d.is_dir()) {
        Some(dir) => load_queries(Some(&dir)),
        None => crate::builtin::HISTORY_QUERIES
            .iter()
            .map(|(name, sql)| checked(Query::parse(name, sql, "built-in")))
            .collect(),
    }
}

/// The folder of the series' queries inside a queries folder.
pub const HISTORY_DIR: &str = "historico";

/// `query`, unless its header holds a value no reader understands.
fn checked(query: Query) -> Result<Query, AnalyzeError> {
    match &query.placement {
        Placement::Unrecognised(value) => {
            Err(AnalyzeError::Placement { file: query.origin.clone(), value: value.clone() })
        }
        _ => Ok(query),
    }
}

/// The queries directory to use: `--queries DIR`, else `./queries` when present, else built-in.
pub fn default_queries_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    crate::fsutil::explicit_or_local(explicit, "queries")
}

/// Every aggregate of a run, in query-file order; the analyze stage's output.
pub struct Aggregates {
    pub results: Vec<(Query, DataFrame)>,
    /// The snapshot these were compared with (`comparacao`), when there was one.
    pub previous_snapshot: Option<String>,
    /// The tables the queries read that are neither a table of the frames nor a query's result:
    /// the previous snapshot's (`<table>_anterior`, `comparacao`), the inscriptions already
    /// counted (`inscricoes_da_carteira`) and, without `--expand-groups`, the partner companies'
    /// empty exposure (`socias_exposicao`). The export writes them beside the raw tables, so
    /// another engine running the same files reads what these queries read.
    pub inputs: BTreeMap<String, DataFrame>,
}

impl Aggregates {
    /// The result of the query whose table name is `table` (e.g. `creditos_por_uf`).
    pub fn get(&self, table: &str) -> Option<&DataFrame> {
        self.results.iter().find(|(q, _)| q.table == table).map(|(_, df)| df)
    }
}

/// Runs every query over `frames`, in order; each result is then readable by later queries
/// under its table name. With no previous snapshot the comparing tables are empty.
pub fn run_queries(frames: &Frames, queries: &[Query]) -> Result<Aggregates, AnalyzeError> {
    run_queries_with(frames, None, queries)
}

/// `run_queries` with the snapshot before this one beside the frames: each compared table's
/// previous rows as `<table>_anterior` (in this run's columns and types), and `comparacao`,
/// one row (`snapshot`, `snapshot_anterior`) when there is a previous snapshot and none when
/// there is not, so that a query joining it yields no changes on a first run.
pub fn run_queries_with(
    frames: &Frames,
    previous: Option<&PreviousSnapshot>,
    queries: &[Query],
) -> Result<Aggregates, AnalyzeError> {
    run_queries_after(frames, previous, queries, EarlyResults::default())
}

/// `run_queries_with`, taking the results of `early` its queries can use (`EarlyResults`).
pub fn run_queries_after(
    frames: &Frames,
    previous: Option<&PreviousSnapshot>,
    queries: &[Query],
    early: EarlyResults,
) -> Result<Aggregates, AnalyzeError> {
    crate::stack::deep(|| run_queries_here(frames, previous, queries, early))
}

fn run_queries_here(
    frames: &Frames,
    previous: Option<&PreviousSnapshot>,
    queries: &[Query],
    early: EarlyResults,
) -> Result<Aggregates, AnalyzeError> {
    // The tables on disk are scanned by every query that reads them: each query reads only
    // the columns it names, and no table is held whole.
    let mut tables: BTreeMap<String, LazyFrame> = BTreeMap::new();
    for name in frames.names() {
        let Some(scan) = frames.scan(name) else { continue };
        let lf = scan.map_err(|e| AnalyzeError::Read { table: name.to_string(), message: e.to_string() })?;
        tables.insert(name.to_string(), lf);
    }
    if let Ok(dq) = frames.data_quality() {
        tables.insert("data_quality".to_string(), dq.lazy());
    }
    let mut inputs: BTreeMap<String, DataFrame> = BTreeMap::new();
    if !tables.contains_key(INSCRICOES_DA_CARTEIRA) {
        inputs.insert(INSCRICOES_DA_CARTEIRA.to_string(), no_inscriptions());
    }
    // The tables a query streams over: those on disk, and those too large to run over at once
    // on every core (a store run holds its credits and debts, and the previous snapshot's, in
    // memory).
    let small = held_whole_rows();
    let mut streamed: HashSet<String> = frames
        .names()
        .into_iter()
        .filter(|name| frames.get(name).is_none_or(|df| df.height() > small))
        .map(str::to_string)
        .collect();
    for name in COMPANY_TABLES.map(Table::name) {
        let Some(now) = frames.empty_like(name) else { continue };
        let now = &now;
        let before =
            previous.and_then(|p| p.tables.get(name)).map_or_else(|| Ok(now.clear()), |b| conform(b, now));
        let before =
            before.map_err(|e| AnalyzeError::Previous { table: name.to_string(), message: e.to_string() })?;
        if before.height() > small {
            streamed.insert(format!("{name}_anterior"));
        }
        inputs.insert(format!("{name}_anterior"), before);
    }
    let (now, before): (Vec<String>, Vec<String>) =
        previous.map(|p| (vec![p.current.clone()], vec![p.snapshot.clone()])).unwrap_or_default();
    let comparacao = DataFrame::new(
        now.len(),
        vec![Column::new("snapshot".into(), now), Column::new("snapshot_anterior".into(), before)],
    )
    .map_err(|e| AnalyzeError::Previous { table: "comparacao".into(), message: e.to_string() })?;
    inputs.insert("comparacao".to_string(), comparacao);
    tables.extend(inputs.iter().map(|(name, df)| (name.clone(), df.clone().lazy())));
    // A query waits only for the queries whose tables it names: the others of its wave run
    // beside it, one per core (26 small queries, each mostly planning, ran one after another).
    let stage = crate::progress::begin("analyze", "queries", queries.len() as u64);
    // Results ready from the fetch's time join the tables in their own wave, as if run there.
    let mut early = early.usable(queries, &tables);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut done: Vec<Option<DataFrame>> = vec![None; queries.len()];
    for wave in waves::waves(queries, &[(SOCIAS_EXPOSICAO, CARTEIRA_EXPOSICAO)]) {
        let order = waves::longest_first(&wave, queries);
        let mut ready: Vec<Option<DataFrame>> = vec![None; queries.len()];
        for i in &order {
            ready[*i] = early[*i].take();
        }
        let run = |i: usize| match &ready[i] {
            Some(df) => {
                crate::progress::step(&queries[i].name);
                Ok(df.clone())
            }
            None => run_query(&tables, &streamed, &queries[i]),
        };
        // A query streaming over a table on disk already works on every core: two at once held
        // a fifth more memory for a tenth less time (bench/results/analyze-vs-duckdb.md). They
        // run one after another beside the others, which run one per remaining core (one per
        // core when none streams).
        let (streaming, in_memory): (Vec<usize>, Vec<usize>) = order
            .into_iter()
            .partition(|i| ready[*i].is_none() && queries[*i].names.iter().any(|n| streamed.contains(n)));
        let beside = if streaming.is_empty() { threads } else { threads.saturating_sub(1).max(1) };
        let (ran_streaming, ran_in_memory) = std::thread::scope(|s| {
            let others = s.spawn(|| crate::stack::deep_each(in_memory.len(), beside, |k| run(in_memory[k])));
            let streamed_ones = crate::stack::deep_each(streaming.len(), 1, |k| run(streaming[k]));
            (streamed_ones, others.join())
        });
        let ran_in_memory = ran_in_memory.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        // Taken in file order: of two failing queries, the first file's error is reported.
        let mut ran: Vec<_> = streaming
            .into_iter()
            .zip(ran_streaming)
            .chain(in_memory.into_iter().zip(ran_in_memory))
            .collect();
        ran.sort_by_key(|(i, _)| *i);
        for (i, df) in ran {
            let (q, df) = (&queries[i], df?);
            // Without `--expand-groups` no partner company was fetched: the economic-groups
            // query reads their exposure as an empty table of the portfolio exposure's columns.
            if q.table == CARTEIRA_EXPOSICAO && !tables.contains_key(SOCIAS_EXPOSICAO) {
                tables.insert(SOCIAS_EXPOSICAO.to_string(), df.clear().lazy());
                inputs.insert(SOCIAS_EXPOSICAO.to_string(), df.clear());
            }
            // The changes compare the lists' records and the regimes with the previous snapshot's.
            let df = match compared_with_previous(&q.table) {
                Some((anterior, with_previous)) => {
                    let (now, before) = with_previous(df, frames, previous).map_err(|e| {
                        AnalyzeError::Previous { table: q.table.clone(), message: e.to_string() }
                    })?;
                    tables.insert(anterior.to_string(), before.clone().lazy());
                    inputs.insert(anterior.to_string(), before);
                    now
                }
                None => df,
            };
            tables.insert(q.table.clone(), df.clone().lazy());
            done[i] = Some(df);
        }
    }
    let results = queries.iter().cloned().zip(done).filter_map(|(q, df)| Some((q, df?))).collect();
    drop(stage);
    Ok(Aggregates { results, previous_snapshot: previous.map(|p| p.snapshot.clone()), inputs })
}

/// The portfolio exposure's table: the partner companies' exposure takes its columns.
const CARTEIRA_EXPOSICAO: &str = "carteira_exposicao";

/// One query's result over `tables` (the typed tables and the results of the waves before).
/// A query naming a table of `streamed` (on disk, or larger than a small run holds) runs in
/// Polars' streaming engine, which reads it a batch at a time; one over small tables in
/// memory runs in the in-memory engine, which starts sooner (over 300 companies: the
/// portfolio queries 63 ms of CPU against 105 ms, the changes' query 19 ms against 37 ms).
fn run_query(
    tables: &BTreeMap<String, LazyFrame>,
    streamed: &HashSet<String>,
    q: &Query,
) -> Result<DataFrame, AnalyzeError> {
    let mut ctx = SQLContext::new();
    for (name, lf) in tables {
        ctx.register(name, lf.clone());
    }
    let streams = q.names.iter().any(|name| streamed.contains(name));
    let collect = |plan: LazyFrame| if streams { collect_streaming(plan) } else { plan.collect() };
    let df = ctx.execute(&q.sql).and_then(collect).map_err(|e| AnalyzeError::Query {
        file: q.origin.clone(),
        message: e.to_string(),
        tables: tables.keys().cloned().collect::<Vec<_>>().join(", "),
    })?;
    tracing::debug!("query {}: {} rows{}", q.name, df.height(), crate::memory::peak_note());
    crate::progress::step(&q.name);
    Ok(df)
}

/// How a query result is set beside the previous snapshot's (this snapshot's result, the
/// previous one's).
type WithPrevious = fn(DataFrame, &Frames, Option<&PreviousSnapshot>) -> PolarsResult<(DataFrame, DataFrame)>;

/// The query results the store keeps per snapshot for the changes to compare: the name the
/// previous snapshot's goes by, and how the two are made.
fn compared_with_previous(table: &str) -> Option<(&'static str, WithPrevious)> {
    match table {
        SANCOES_TABLE => Some((sancoes::SANCOES_ANTERIOR, sancoes::with_previous)),
        REGIME_TABLE => Some((regime::REGIME_ANTERIOR, regime::with_previous)),
        _ => None,
    }
}

/// The previous snapshot's `table` in `now`'s columns: empty without a previous snapshot, and
/// `None` when that snapshot does not keep the table at all (a store written before it did).
fn previous_of(
    now: &DataFrame,
    previous: Option<&PreviousSnapshot>,
    table: &str,
) -> PolarsResult<Option<DataFrame>> {
    match previous.map(|p| p.tables.get(table)) {
        Some(Some(before)) => conform(before, now).map(Some),
        Some(None) => Ok(None),
        None => Ok(Some(now.clear())),
    }
}

/// `previous` in the columns and types of `like`: a column the older snapshot did not have is
/// null, so queries see one schema whatever the store's age.
fn conform(previous: &DataFrame, like: &DataFrame) -> PolarsResult<DataFrame> {
    let columns = like
        .columns()
        .iter()
        .map(|c| match previous.column(c.name()) {
            Ok(p) => p.cast(c.dtype()),
            Err(_) => Ok(Column::full_null(c.name().clone(), previous.height(), c.dtype())),
        })
        .collect::<PolarsResult<Vec<_>>>()?;
    DataFrame::new(previous.height(), columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn of_two_queries_of_a_wave_that_fail_the_first_files_error_is_reported() {
        // The second file's SQL is the longer: it starts first.
        let qs = [
            Query::parse("01_a", "SELECT * FROM nenhuma", "01_a.sql"),
            Query::parse("02_b", "SELECT * FROM outra_que_tambem_nao_existe", "02_b.sql"),
        ];
        assert_eq!(waves::longest_first(&[0, 1], &qs), [1, 0]);
        match run_queries(&Frames::default(), &qs) {
            Err(AnalyzeError::Query { file, .. }) => assert_eq!(file, "01_a.sql"),
            other => panic!("{:?}", other.err()),
        }
    }

    #[test]
    fn header_comments_give_title_and_question() {
        let q = Query::parse(
            "x",
            "-- title: Créditos por UF\n-- answers: How big is each state's stock\n--   of credits?\nSELECT 1",
            "t",
        );
        assert_eq!(q.title, "Créditos por UF");
        assert_eq!(q.answers, "How big is each state's stock of credits?");
        assert_eq!(Query::parse("14_carteira_exposicao", "", "t").table, "carteira_exposicao");
    }

    #[test]
    fn every_file_in_queries_is_built_in_and_identical() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("queries");
        let on_disk = load_queries(Some(&dir)).unwrap();
        let built_in = load_queries(None).unwrap();
        let names = |v: &[Query]| v.iter().map(|q| (q.name.clone(), q.sha256.clone())).collect::<Vec<_>>();
        assert_eq!(names(&on_disk), names(&built_in), "regenerate src/analyze/embedded.rs's list");
    }

    /// Two files that make one table, or a file named as the data-quality table, are refused
    /// with both named; the exit is the person's to fix.
    #[test]
    fn two_queries_of_one_table_are_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("01_exposicao.sql"), "SELECT 1 AS a").unwrap();
        std::fs::write(dir.path().join("07_exposicao.sql"), "SELECT 2 AS a").unwrap();
        let e = load_queries(Some(dir.path())).unwrap_err();
        let said = e.to_string();
        assert!(said.contains("01_exposicao.sql") && said.contains("07_exposicao.sql"), "{said}");
        assert!(said.contains("table exposicao"), "{said}");
        use crate::exit::HasExitStatus;
        assert_eq!(e.exit_status(), crate::exit::ExitStatus::BadInput);

        std::fs::remove_file(dir.path().join("07_exposicao.sql")).unwrap();
        assert_eq!(load_queries(Some(dir.path())).unwrap().len(), 1);
        std::fs::write(dir.path().join("09_data_quality.sql"), "SELECT 1 AS a").unwrap();
        let said = load_queries(Some(dir.path())).unwrap_err().to_string();
        assert!(
            said.contains("09_data_quality.sql") && said.contains("data_quality is the run's own"),
            "{said}"
        );
    }
}
