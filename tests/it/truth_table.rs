//! The table of `docs/query-truths.md` read as a promise: every query file of `queries/` and
//! `queries/historico/` has a row, every file a row names exists, and every test a row names
//! (`module::function`, or `module::*` for a whole module) is a test of this binary.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Each text between backticks in `cell`.
fn quoted(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// The table's rows: (query file, the tests its second column names).
fn rows(doc: &str) -> Vec<(String, Vec<String>)> {
    doc.lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            let query = quoted(cells[0]).first().map(|q| q.to_string()).unwrap_or_default();
            let tests = cells.get(1).map_or_else(Vec::new, |c| {
                quoted(c).into_iter().filter(|t| is_test_name(t)).map(str::to_string).collect()
            });
            (query, tests)
        })
        .collect()
}

/// `module::function` or `module::*`, lower-case names only: the form the table gives tests in.
fn is_test_name(t: &str) -> bool {
    let Some((module, function)) = t.split_once("::") else { return false };
    let name = |s: &str| {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    };
    name(module) && (function == "*" || name(function))
}

/// Why `name` is not a test of this binary, if it is not.
fn missing(name: &str) -> Option<String> {
    let (module, function) = name.split_once("::")?;
    let file = root().join(format!("tests/it/{module}.rs"));
    let Ok(source) = std::fs::read_to_string(&file) else {
        return Some(format!("{name}: tests/it/{module}.rs does not exist"));
    };
    if !std::fs::read_to_string(root().join("tests/it/main.rs")).unwrap().contains(&format!("mod {module};"))
    {
        return Some(format!("{name}: tests/it/main.rs does not declare mod {module}"));
    }
    let is_test = |f: &str| {
        let at = source.find(&format!("fn {f}("));
        at.is_some_and(|at| source[..at].trim_end().ends_with("#[test]"))
    };
    (function != "*" && !is_test(function))
        .then(|| format!("{name}: no #[test] fn {function} in {}", file.display()))
}

fn query_files(dir: &Path, prefix: &str) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".sql"))
        .map(|n| format!("{prefix}{n}"))
        .collect()
}

fn problems(doc: &str) -> Vec<String> {
    let rows = rows(doc);
    let listed: BTreeSet<String> = rows.iter().map(|(q, _)| q.clone()).collect();
    let mut files = query_files(&root().join("queries"), "");
    files.extend(query_files(&root().join("queries/historico"), "historico/"));
    let mut out = Vec::new();
    out.extend(files.difference(&listed).map(|q| format!("{q}: a query file with no row")));
    out.extend(listed.difference(&files).map(|q| format!("{q}: a row for no query file")));
    for (query, tests) in &rows {
        if tests.is_empty() {
            out.push(format!("{query}: its row names no test"));
        }
        out.extend(tests.iter().filter_map(|t| missing(t)));
    }
    out
}

#[test]
fn every_query_has_a_row_and_every_test_named_exists() {
    let doc = std::fs::read_to_string(root().join("docs/query-truths.md")).unwrap();
    assert!(rows(&doc).len() >= 30, "the table was not read: {} rows", rows(&doc).len());
    let found = problems(&doc);
    assert!(found.is_empty(), "docs/query-truths.md does not hold:\n{}", found.join("\n"));
}

#[test]
fn a_misnamed_test_or_a_missing_row_is_found() {
    let doc = std::fs::read_to_string(root().join("docs/query-truths.md")).unwrap();
    let renamed = doc.replacen("history::twelve_monthly_runs", "history::twelve_monthly_run", 1);
    assert!(
        problems(&renamed).iter().any(|p| p.contains("no #[test] fn twelve_monthly_run_give")),
        "{:?}",
        problems(&renamed)
    );
    let unknown_module = doc.replacen("`timeline::", "`timelines::", 1);
    assert!(problems(&unknown_module).iter().any(|p| p.contains("tests/it/timelines.rs does not exist")));
    let without: String = doc.lines().filter(|l| !l.starts_with("| `22_")).collect::<Vec<_>>().join("\n");
    assert!(problems(&without).contains(&"22_conciliacao_resumos.sql: a query file with no row".to_string()));
}
