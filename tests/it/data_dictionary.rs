//! docs/data-dictionary.md is generated from the code and must match it; its Python loading
//! snippets must run against a demo run's output.
//!
//!     UPDATE_DOCS=1 cargo test --test it data_dictionary     # regenerate after a schema change

use crate::common_bin;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common_bin::*;
use fiscal_report::analyze::load_queries;
use fiscal_report::export::dictionary::data_dictionary;
use fiscal_report::simulator::{Dataset, RegistryConfig};

fn demo_run() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, 0.05);
        let cnpjs: Vec<String> = d.demo_portfolio(30).iter().map(|c| c.to_string()).collect();
        demo_run_into(&dir, &cnpjs, &["--demo-scale", "0.05", "--ano-mes", "202608:202609", "--uf", "SP,AC"])
    })
}

/// The first non-null value of every column of every raw table of the demo run.
fn examples(run: &Path) -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    for table in
        ["creditos_ativos", "empresas", "dividas_pgfn", "parcelamentos_rfb", "transacoes_rfb", "resumos"]
    {
        let df = fiscal_report::export::tables::read_exported_table(run, table).unwrap();
        for col in df.columns() {
            let found = (0..df.height()).find_map(|i| {
                fiscal_report::report::cells::text(&df, col.name(), i).filter(|v| !v.trim().is_empty())
            });
            if let Some(v) = found {
                out.insert((table.to_string(), col.name().to_string()), v.trim().chars().take(40).collect());
            }
        }
    }
    out
}

#[test]
fn the_committed_dictionary_matches_the_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let queries = load_queries(Some(&root.join("queries"))).unwrap();
    let history = fiscal_report::analyze::load_history_queries(Some(&root.join("queries"))).unwrap();
    let text = data_dictionary(&queries, &history, &examples(demo_run()));
    let path = root.join("docs/data-dictionary.md");
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "docs/data-dictionary.md is stale: run `UPDATE_DOCS=1 cargo test --test it data_dictionary`"
    );
}

#[test]
fn the_python_loading_snippets_run_against_a_demo_run() {
    if !super::common_bin::python_with("pandas, pyarrow, duckdb, polars") {
        return;
    }
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data-dictionary.md"))
        .unwrap();
    let blocks: Vec<&str> = doc.split("```python\n").skip(1).filter_map(|b| b.split("```").next()).collect();
    assert!(blocks.len() >= 3, "pandas, polars and DuckDB snippets");
    for block in blocks {
        let script = format!("RUN = {:?}\n{block}\nprint('ok')\n", demo_run().display().to_string());
        let o = std::process::Command::new("python3").args(["-c", &script]).output().unwrap();
        assert!(o.status.success(), "snippet failed:\n{block}\n{}", String::from_utf8_lossy(&o.stderr));
    }
}
