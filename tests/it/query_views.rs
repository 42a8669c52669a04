//! Every table a query reads is one another engine can see: for each file of `queries/` and
//! `queries/historico/`, the names after FROM and JOIN (less the file's own CTEs) are tables the
//! demo run wrote (the top-level folders of its manifest's Parquet files, as the Spark job reads
//! them) or an earlier file's result. A series of `historico/` also reads monthly results at
//! every snapshot (`<result>_por_retrato`): those the Spark job's store mode builds from a store
//! (`EXPOSURE` and `STORED_RESULTS` in deploy/spark/fiscal_report_queries.py).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::common_bin::bin;

/// The plain demo (`run --out DIR`: the month before into a store of its own, then its own
/// month on that store), run once for the tests here and in `spark`.
pub(crate) fn demo_run() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = tempfile::tempdir().unwrap().keep().join("out");
        let o = bin().args(["--quiet", "run", "--dossies", "0", "--out"]).arg(&out).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        out
    })
}

/// Folders of a run that hold no table a query reads (the Spark job's `NOT_RAW`).
const NOT_TABLES: [&str; 5] = ["aggregates", "aggregates_spark", "dossies", "historico", "dimensoes"];

/// The tables of `run`: the top-level folder of each Parquet file its manifest names.
fn exported_tables(run: &Path) -> BTreeSet<String> {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("manifest.json")).unwrap()).unwrap();
    let files = manifest["files"].as_array().unwrap();
    files
        .iter()
        .filter_map(|f| f["path"].as_str())
        .filter(|p| p.ends_with(".parquet"))
        .filter_map(|p| p.split_once('/'))
        .filter(|(top, _)| !NOT_TABLES.contains(top) && !top.starts_with('.'))
        // The previous snapshot's copies: `anterior/<table>/`, read as `<table>_anterior`.
        .map(|(top, rest)| match (top, rest.split_once('/')) {
            ("anterior", Some((table, _))) => format!("{table}_anterior"),
            _ => top.to_string(),
        })
        .collect()
}

/// The words and single punctuation marks of `sql`, lower-cased, without comments and string
/// literals.
fn tokens(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '-' && chars.peek() == Some(&'-') {
            chars.by_ref().find(|&c| c == '\n');
        } else if c == '\'' {
            // '' inside a literal is a quote: the literal goes on.
            while let Some(c) = chars.next() {
                if c == '\'' && chars.next_if_eq(&'\'').is_none() {
                    break;
                }
            }
        } else if c.is_alphanumeric() || c == '_' {
            let mut word = c.to_lowercase().to_string();
            while let Some(c) = chars.next_if(|c| c.is_alphanumeric() || *c == '_') {
                word.extend(c.to_lowercase());
            }
            out.push(word);
        } else if !c.is_whitespace() {
            out.push(c.to_string());
        }
    }
    out
}

/// Functions whose arguments hold a FROM that reads no table (`EXTRACT(YEAR FROM d)`).
const FROM_IN_ARGUMENTS: [&str; 4] = ["extract", "trim", "substring", "position"];

/// The tables `sql` reads: each name after FROM or JOIN that is not one of its CTEs.
fn tables_read(sql: &str) -> BTreeSet<String> {
    let t = tokens(sql);
    let word = |i: usize| t.get(i).map(String::as_str).unwrap_or("");
    let is_name = |s: &str| s.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_');
    let mut ctes = BTreeSet::new();
    let mut read = BTreeSet::new();
    // Open parentheses, each true when it opens a function's arguments that may say FROM.
    let mut parens: Vec<bool> = Vec::new();
    for i in 0..t.len() {
        match word(i) {
            "(" => parens.push(i > 0 && FROM_IN_ARGUMENTS.contains(&word(i - 1))),
            ")" => drop(parens.pop()),
            "with" | "," if is_name(word(i + 1)) && word(i + 2) == "as" && word(i + 3) == "(" => {
                ctes.insert(word(i + 1).to_string());
            }
            "from" | "join" if !parens.last().copied().unwrap_or(false) && is_name(word(i + 1)) => {
                read.insert(word(i + 1).to_string());
            }
            _ => {}
        }
    }
    read.retain(|name| !ctes.contains(name));
    read
}

/// The tables of `dir/*.sql`, in name order, that are neither in `known` nor an earlier file's
/// result: (file, table) each.
fn unseen_tables(dir: &Path, known: &BTreeSet<String>) -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no query in {}", dir.display());
    let mut known = known.clone();
    let mut unseen = Vec::new();
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        for table in tables_read(&std::fs::read_to_string(&file).unwrap()) {
            if !known.contains(&table) {
                unseen.push((name.clone(), table));
            }
        }
        let stem = name.trim_end_matches(".sql");
        known.insert(stem.split_once('_').map_or(stem, |(_, table)| table).to_string());
    }
    unseen
}

/// The monthly results the Spark job's store mode stacks over every snapshot, as the series
/// read them (`<result>_por_retrato`): its `EXPOSURE` and `STORED_RESULTS`.
fn series_inputs_spark_builds() -> BTreeSet<String> {
    let job = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/spark/fiscal_report_queries.py"),
    )
    .unwrap();
    let line = |name: &str| {
        job.lines()
            .find_map(|l| l.strip_prefix(&format!("{name} = ")))
            .unwrap_or_else(|| panic!("no {name} in the job"))
    };
    let quoted = |s: &str| -> Vec<String> { s.split('"').skip(1).step_by(2).map(str::to_string).collect() };
    quoted(line("EXPOSURE"))
        .into_iter()
        .chain(quoted(line("STORED_RESULTS")))
        .chain(quoted(line("NATIONAL")))
        .map(|r| format!("{r}_por_retrato"))
        .collect()
}

fn queries() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("queries")
}

#[test]
fn every_table_a_query_reads_is_a_file_of_the_run_or_an_earlier_result() {
    let run = demo_run();
    let exported = exported_tables(run);
    // The run's own tables are there (a manifest read wrong would find none and fail below).
    for table in ["creditos_ativos", "dividas_pgfn", "empresas", "carteira"] {
        assert!(exported.contains(table), "{table} is not among {exported:?}");
    }
    assert_eq!(unseen_tables(&queries(), &exported), Vec::<(String, String)>::new());
    // No folder of the run starts with another's name and `_`: `dividas_pgfn*` is one table.
    let folders: Vec<String> = std::fs::read_dir(run)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    for a in &folders {
        let clash: Vec<&String> = folders.iter().filter(|b| b.starts_with(&format!("{a}_"))).collect();
        assert!(clash.is_empty(), "{a} and {clash:?} in {folders:?}");
    }
    assert!(folders.contains(&"anterior".to_string()), "the previous snapshot's copies: {folders:?}");
    // Every monthly query read something: the listing is not empty by accident.
    let read: BTreeSet<String> = std::fs::read_dir(queries())
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "sql"))
        .flat_map(|e| tables_read(&std::fs::read_to_string(e.path()).unwrap()))
        .collect();
    for view in ["inscricoes_da_carteira", "comparacao", "empresas_anterior", "socias_exposicao"] {
        assert!(read.contains(view), "no query reads {view} any more: {read:?}");
    }
}

#[test]
fn every_table_a_series_reads_is_a_result_at_every_snapshot_the_spark_job_builds() {
    let known = series_inputs_spark_builds();
    assert_eq!(known.len(), 4, "{known:?}");
    assert_eq!(unseen_tables(&queries().join("historico"), &known), Vec::<(String, String)>::new());
}

#[test]
fn a_query_reading_a_table_no_one_writes_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(queries()).unwrap().flatten().filter(|e| e.path().is_file()) {
        std::fs::copy(e.path(), tmp.path().join(e.file_name())).unwrap();
    }
    std::fs::write(
        tmp.path().join("27_vista.sql"),
        "-- from vista_num_comentario\nWITH v AS (SELECT cnpj FROM carteira_exposicao)\n\
         SELECT v.cnpj, EXTRACT(YEAR FROM d.data) AS ano, 'join x' AS t FROM v JOIN vista_inexistente d ON d.cnpj = v.cnpj",
    )
    .unwrap();
    let known = BTreeSet::from_iter(
        ["creditos_ativos", "dividas_pgfn", "empresas", "parcelamentos_rfb", "transacoes_rfb", "carteira"]
            .map(String::from),
    );
    let unseen = unseen_tables(tmp.path(), &known);
    let ours: Vec<&(String, String)> = unseen.iter().filter(|(f, _)| f == "27_vista.sql").collect();
    assert_eq!(ours, [&("27_vista.sql".to_string(), "vista_inexistente".to_string())]);
}
