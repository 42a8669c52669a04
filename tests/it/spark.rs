//! The Spark job of deploy/spark/ on a real `spark-submit --master local[2]`, one submit per test
//! (the JVM's start is most of its time): over the demo run, every `aggregates/*.parquet` equal
//! cell for cell to Spark's result of the same query; over a store of three months, every
//! `historico/*.parquet` of the last run equal to Spark's result of the same series, read from
//! the store's Delta tables. tests/interop/check_spark_job.py submits and compares (pyarrow).

use std::path::Path;
use std::process::Command;

use fiscal_report::api::AnoMes;
use fiscal_report::simulator::{Dataset, RegistryConfig};

use crate::common_bin::{bin, python_with, skip};

/// spark-submit, Java and the Python packages the comparison reads with; else the test skips
/// (under CI it fails: `.ci/run` installs them).
fn spark_here() -> bool {
    for (tool, arg) in [("spark-submit", "--version"), ("java", "-version")] {
        if !Command::new(tool).arg(arg).output().is_ok_and(|o| o.status.success()) {
            skip(&format!("{tool} (.ci/run installs default-jre-headless and pyspark)"));
            return false;
        }
    }
    python_with("pyspark, pyarrow")
}

/// The `.parquet` files of `dir` by name, but `data_quality` (no query makes it).
fn results_in(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            e.path().extension().is_some_and(|x| x == "parquet") && e.file_name() != "data_quality.parquet"
        })
        .count()
}

fn sql_files_in(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "sql"))
        .count()
}

/// `check_spark_job.py args`; its output, once it says all `want` results are equal.
fn spark_check(args: &[&std::ffi::OsStr], want: usize) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = Command::new("python3")
        .arg(root.join("tests/interop/check_spark_job.py"))
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    let last = stdout.lines().last().unwrap_or_default();
    assert_eq!(last, format!("{want} of {want} results equal"), "{stdout}");
    eprintln!("{stdout}");
    stdout
}

#[test]
fn spark_recomputes_every_aggregate_of_the_demo_run() {
    if !spark_here() {
        return;
    }
    let run = crate::query_views::demo_run();
    let queries = Path::new(env!("CARGO_MANIFEST_DIR")).join("queries");
    // As many results as query files, each with its aggregate on disk.
    let want = sql_files_in(&queries);
    assert_eq!(results_in(&run.join("aggregates")), want, "an aggregate per query");
    spark_check(&["run".as_ref(), run.as_os_str(), queries.as_os_str()], want);
}

#[test]
fn spark_recomputes_every_series_of_a_three_month_store() {
    if !spark_here() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (store, portfolio) = (tmp.path().join("store"), tmp.path().join("carteira.txt"));
    let newest = Dataset::newest_month();
    let cnpjs: Vec<String> = Dataset::generate(RegistryConfig::DEFAULT_SEED, 0.05)
        .demo_portfolio(30)
        .iter()
        .map(|c| c.to_string())
        .collect();
    std::fs::write(&portfolio, cnpjs.join("\n")).unwrap();
    let months: Vec<AnoMes> = (0..3).rev().map(|k| newest.plus_months(-k).unwrap()).collect();
    // The first month over the service, the next two over the embedded dataset's releases of
    // PGFN's and RFB's files, so the national series have two quarters to compare.
    for (i, month) in months.iter().enumerate() {
        let m = month.to_string();
        let mut run = bin();
        run.args(["--quiet", "run", "--dossies", "0", "--store"]).arg(&store);
        if i == 0 {
            run.args(["--demo-scale", "0.05", "--uf", "SP", "--as-of", &m, "--ano-mes", &m]);
        } else {
            let release = tmp.path().join("releases").join(&m);
            let o = bin()
                .args(["serve", "--scale", "0.05", "--as-of", &m, "--write-open-data"])
                .arg(&release)
                .output();
            let o = o.unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            run.arg("--open-data").arg(&release);
        }
        let o = run.arg("--cnpjs").arg(&portfolio).arg("--out").arg(tmp.path().join(&m)).output().unwrap();
        assert!(o.status.success(), "{m}: {}", String::from_utf8_lossy(&o.stderr));
    }
    let last = tmp.path().join(months[2].to_string());
    let queries = Path::new(env!("CARGO_MANIFEST_DIR")).join("queries");
    let want = sql_files_in(&queries.join("historico"));
    assert_eq!(results_in(&last.join("historico")), want, "a series per query of historico/");
    let out =
        spark_check(&["store".as_ref(), store.as_os_str(), last.as_os_str(), queries.as_os_str()], want);
    // The series of the three snapshots, not of one: the portfolio's has a row per snapshot.
    let portfolio_series =
        out.lines().find(|l| l.starts_with("ok   serie_exposicao_carteira:")).unwrap_or_default();
    assert!(portfolio_series.contains(": 3 rows"), "{out}");
    // The national series over the two snapshots read from the files, and their moves.
    let national =
        out.lines().find(|l| l.starts_with("ok   divida_nacional_por_trimestre:")).unwrap_or_default();
    assert!(national.contains(": 2 rows"), "{out}");
    let moves =
        out.lines().find(|l| l.starts_with("ok   divida_nacional_maiores_variacoes:")).unwrap_or_default();
    assert!(!moves.contains(": 0 rows"), "{out}");
}
