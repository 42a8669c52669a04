//! report.xlsx opened the way analysts and data scientists open it (openpyxl, pandas) and
//! checked cell by cell against the exported Parquet, in both report languages.

use std::path::Path;

use crate::common_bin::*;

/// The words and formats a language's strings file declares for the workbook.
fn declared(lang: &str) -> toml::Table {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join(format!("templates/strings/{lang}.toml"))).unwrap().parse().unwrap()
}

/// Every aggregate's sheet of `out/report.xlsx` equals its Parquet, cell by cell.
pub(crate) fn check(out: &Path, lang: &str) {
    let t = declared(lang);
    let s = |k: &str| t[k].as_str().unwrap().to_string();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = std::process::Command::new("python3")
        .arg(root.join("tests/interop/check_workbook.py"))
        .arg(out)
        .args([
            s("planilha_resumo"),
            s("planilha_carteira"),
            s("planilha_formato_moeda"),
            s("planilha_formato_data"),
            s("planilha_formato_mes"),
            s("planilha_sancoes"),
            s("planilha_socios_pep"),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    let last = stdout.lines().last().unwrap_or_default();
    assert!(last.ends_with(" 0 failed"), "{stdout}");
    // Every aggregate was compared, and with rows in it.
    let sheets: usize = last.split(' ').next().unwrap().parse().unwrap();
    let aggregates = std::fs::read_dir(out.join("aggregates")).unwrap().count();
    assert_eq!(sheets, aggregates, "{last}");
}

#[test]
fn every_aggregate_in_the_workbook_equals_its_parquet_to_the_cent() {
    if !python_with("openpyxl, pandas, pyarrow") {
        return;
    }
    let run = crate::aggregates_truth::run();
    check(&run.out, "pt-BR");
}

#[test]
fn the_english_workbook_has_its_own_words_and_formats() {
    if !python_with("openpyxl, pandas, pyarrow") {
        return;
    }
    let run = crate::aggregates_truth::run();
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("out");
    copy_dir(&run.out, &copy);
    let o = bin().args(["--quiet", "report", "--locale", "en", "--from"]).arg(&copy).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    check(&copy, "en");
}
