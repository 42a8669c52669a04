//! Three shards fetched apart and merged equal one unsharded run: the raw tables, every
//! aggregate and the report's figures. A missing shard or a shard of another run is refused.

use crate::common_bin;

use std::path::{Path, PathBuf};

use common_bin::*;
use fiscal_report::simulator::Dataset;
use polars::prelude::*;

const KEY: &str = "merge-key";

fn fetch_args(srv: &ServeProcess, portfolio: &Path, out: &Path, months: &str) -> Vec<String> {
    let mut a: Vec<String> =
        ["--quiet", "--base-url", &srv.base_url, "--uf", "SP,RJ,AC", "--ano-mes", months]
            .iter()
            .map(|s| s.to_string())
            .collect();
    a.extend(["--cnpjs".into(), portfolio.display().to_string(), "--out".into(), out.display().to_string()]);
    a
}

fn ok(args: &[String], cmd: &str) {
    let mut all = vec![cmd.to_string()];
    all.extend(args.iter().filter(|a| *a != "--quiet").cloned());
    let o = bin().arg("--quiet").args(&all).env("REGISTRY_API_KEY", KEY).output().unwrap();
    assert!(o.status.success(), "{cmd}: {}", String::from_utf8_lossy(&o.stderr));
}

fn read(p: &Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(p).unwrap()).finish().unwrap()
}

fn report_figures(dir: &Path) -> String {
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    md.lines()
        .filter(|l| {
            !l.contains("UTC")
                && !l.contains("Execução")
                && !l.contains("Requisições")
                && !l.contains("shard")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every aggregate and every raw table of the runs in `a` and `b` are equal, row for row.
pub(crate) fn assert_same_outputs(a: &Path, b: &Path) {
    let mut aggregates = 0;
    for e in std::fs::read_dir(a.join("aggregates")).unwrap().flatten() {
        let (x, y) = (read(&e.path()), read(&b.join("aggregates").join(e.file_name())));
        assert!(x.equals_missing(&y), "{:?} differs", e.file_name());
        aggregates += 1;
    }
    assert!(aggregates >= 18);
    for table in [
        "creditos_ativos",
        "empresas",
        "dividas_pgfn",
        "parcelamentos_rfb",
        "transacoes_rfb",
        "socios",
        "carteira",
    ] {
        let x = fiscal_report::export::tables::read_exported_table(a, table).unwrap();
        let y = fiscal_report::export::tables::read_exported_table(b, table).unwrap();
        assert_eq!(x.height(), y.height(), "{table}");
        assert!(x.equals_missing(&y), "{table} differs");
    }
}

#[test]
fn merged_shards_equal_one_run_and_mismatches_are_refused() {
    let srv = ServeProcess::start(KEY, 13, 0.05, &[]);
    let d = Dataset::generate(13, 0.05);
    let dir = tempfile::tempdir().unwrap();
    let portfolio = dir.path().join("p.txt");
    let mut cnpjs: Vec<String> = d.demo_portfolio(25).iter().map(|c| c.to_string()).collect();
    cnpjs.push("99.999.999/0001-91".into());
    std::fs::write(&portfolio, cnpjs.join("\n")).unwrap();

    let whole = dir.path().join("whole");
    ok(&fetch_args(&srv, &portfolio, &whole, "202607:202609"), "run");
    let shards: Vec<PathBuf> = (0..3).map(|k| dir.path().join(format!("shard{k}"))).collect();
    for (k, s) in shards.iter().enumerate() {
        let mut a = fetch_args(&srv, &portfolio, s, "202607:202609");
        a.extend(["--shard".into(), format!("{k}/3")]);
        ok(&a, "fetch");
    }
    let merged = dir.path().join("merged");
    let o = bin().arg("merge").arg(&merged).args(&shards).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    assert_same_outputs(&whole, &merged);
    assert_eq!(report_figures(&whole), report_figures(&merged));

    // A merge killed after its analysis (SIGKILL: nothing runs after it) is done again by the
    // same command into the same folder, and gives the same outputs.
    let killed = dir.path().join("killed");
    let mut c = bin();
    c.args(["-v", "merge"]).arg(&killed).args(&shards).stdout(std::process::Stdio::null());
    kill_when_stderr_says(c.stderr(std::process::Stdio::piped()).spawn().unwrap(), "analyze: done");
    let o = bin().arg("merge").arg(&killed).args(&shards).output().unwrap();
    assert!(o.status.success(), "the merge again: {}", String::from_utf8_lossy(&o.stderr));
    assert_same_outputs(&whole, &killed);
    assert_eq!(report_figures(&whole), report_figures(&killed));

    // A folder holding someone's files is not merged into: they stay.
    let theirs = dir.path().join("theirs");
    std::fs::create_dir_all(theirs.join("empresas")).unwrap();
    std::fs::write(theirs.join("empresas/keep.txt"), b"mine").unwrap();
    let o = bin().arg("merge").arg(&theirs).args(&shards).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not empty and holds no fiscal-report run"));
    assert_eq!(std::fs::read(theirs.join("empresas/keep.txt")).unwrap(), b"mine");

    // A missing shard is named; a shard of another run is refused.
    let o = bin().arg("merge").arg(dir.path().join("m2")).arg(&shards[0]).arg(&shards[2]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing shard(s) 1 of 3"));
    let other = dir.path().join("other");
    let mut a = fetch_args(&srv, &portfolio, &other, "202608:202609");
    a.extend(["--shard".into(), "1/3".into()]);
    ok(&a, "fetch");
    let o = bin()
        .arg("merge")
        .arg(dir.path().join("m3"))
        .args([&shards[0], &other, &shards[2]])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("another run"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_parts_report_says_it_is_one_part_and_the_merged_report_does_not() {
    let srv = ServeProcess::start(KEY, 13, 0.05, &[]);
    let d = Dataset::generate(13, 0.05);
    let dir = tempfile::tempdir().unwrap();
    let portfolio = dir.path().join("p.txt");
    let cnpjs: Vec<String> = d.demo_portfolio(6).iter().map(|c| c.to_string()).collect();
    std::fs::write(&portfolio, cnpjs.join("\n")).unwrap();
    let parts: Vec<PathBuf> = (0..2).map(|k| dir.path().join(format!("part{k}"))).collect();
    for (k, p) in parts.iter().enumerate() {
        let mut a = fetch_args(&srv, &portfolio, p, "202609");
        a.extend(["--shard".into(), format!("{k}/2")]);
        ok(&a, "run");
        let md = std::fs::read_to_string(p.join("report.md")).unwrap();
        let html = std::fs::read_to_string(p.join("report.html")).unwrap();
        let banner = format!("PARTE {} DE 2", k + 1);
        assert!(md.contains(&format!("**{banner}**")) && html.contains(&banner), "{md}");
        assert!(md.contains("`fiscal-report merge`"), "{md}");
    }
    // As the banner says: the parts' folders merged make the whole portfolio's report.
    let merged = dir.path().join("merged");
    let o = bin().arg("merge").arg(&merged).args(&parts).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = std::fs::read_to_string(merged.join("report.md")).unwrap();
    assert!(!md.contains("PARTE "), "{md}");
}
