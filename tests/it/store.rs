//! `--store`: a first run at month M, an incremental run at M+1 and a repeat at M+1 against the
//! embedded registry moving through months; the store's versions read by the `deltalake`
//! package and Polars must equal full runs (no store) at the same moments, record for record,
//! and the incremental run's aggregates must equal the full run's. A run killed mid-commit
//! or in its fetch leaves the store readable at its previous version, and its `--resume` completes
//! it. A fault-free incremental run sends exactly the requests its changes need, counted here
//! from the dataset.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::common_bin::{bin, kill_after_first_staging_commit, python_with};

fn run(out: &Path, extra: &[&str]) -> String {
    let o = bin()
        .args(["run", "--quiet", "--uf", "SP,RJ", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .expect("run the binary");
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{extra:?}: {stderr}");
    stderr
}

/// Full runs (no store) at 202608 (`full_m`) and 202609 (`full_m1`): what the store's versions
/// are compared with, made once for every test here.
pub(crate) fn full_runs() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        run(&d.path().join("full_m"), &["--as-of", "202608"]);
        run(&d.path().join("full_m1"), &[]);
        d
    })
    .path()
}

/// The public lists and tax regime files the full runs read, as flags: they are the plain demo,
/// which writes the dataset's lists and regimes of its month beside its outputs (`.demo-listas`,
/// `.demo-regime`; 202609's, `full_m1` ran last). A store run compared with `full_m1` reads these
/// with `--listas-dir` and `--regime-dir`, so both read the same files.
pub(crate) fn full_run_files() -> Vec<String> {
    let listas = full_runs().join(".demo-listas");
    assert!(listas.join("listas").is_dir(), "the demo wrote no lists in {}", listas.display());
    let regime = full_runs().join(".demo-regime");
    assert!(regime.join("regime_tributario").is_dir(), "the demo wrote no regimes in {}", regime.display());
    let dir = |d: std::path::PathBuf| d.to_str().unwrap().to_string();
    vec!["--listas-dir".into(), dir(listas), "--regime-dir".into(), dir(regime)]
}

/// Runs tests/interop/check_store.py on `store` for each (Delta version or `latest`, snapshot,
/// full run) and asserts that its `checks` checks all pass.
pub(crate) fn check_store(store: &Path, moments: &[(&str, &str, PathBuf)], checks: usize) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut c = std::process::Command::new("python3");
    c.arg(root.join("tests/interop/check_store.py")).arg(store);
    for (v, s, full) in moments {
        c.arg(v).arg(s).arg(full);
    }
    let o = c.output().unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains(&format!("{checks} checks, 0 failed")), "{stdout}");
}

/// Version 1 of `store` is the truth at M and its latest version the truth at M+1 (read by
/// the `deltalake` package and Polars, where CI has them).
fn check_store_holds_m_then_m1(store: &Path) {
    if !python_with("deltalake, polars") {
        return;
    }
    let full = full_runs();
    check_store(
        store,
        &[("1", "202608", full.join("full_m")), ("latest", "202609", full.join("full_m1"))],
        20,
    );
}

fn store_info(store: &Path) -> String {
    let o = bin().args(["store", "info"]).arg(store).output().unwrap();
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// A store holding one full run at M (202608), in a new temporary folder: a copy of one made
/// once for every test here, so each test changes its own.
fn store_at_m() -> (tempfile::TempDir, PathBuf) {
    static MADE: OnceLock<tempfile::TempDir> = OnceLock::new();
    let made = MADE.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        let store = d.path().join("store");
        run(&d.path().join("m"), &["--as-of", "202608", "--store", store.to_str().unwrap()]);
        d
    });
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    let copied =
        std::process::Command::new("cp").arg("-r").arg(made.path().join("store")).arg(&store).status();
    assert!(copied.unwrap().success(), "cp -r the store at M");
    (tmp, store)
}

fn manifest(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap()
}

pub(crate) fn sorted_frame(path: &Path) -> polars::prelude::DataFrame {
    use polars::prelude::*;
    let df = ParquetReader::new(std::fs::File::open(path).unwrap()).finish().unwrap();
    let mut names: Vec<PlSmallStr> = df.get_column_names().into_iter().cloned().collect();
    names.sort();
    let df = df.select(names.clone()).unwrap();
    df.sort(names, SortMultipleOptions::default()).unwrap()
}

#[test]
fn incremental_runs_equal_full_runs_and_every_version_stays_readable() {
    let (tmp, store) = store_at_m();
    let (t, store_arg) = (tmp.path(), store.to_str().unwrap());
    let files = full_run_files();
    let with_files: Vec<&str> =
        ["--store", store_arg].into_iter().chain(files.iter().map(String::as_str)).collect();
    let second = run(&t.join("m1"), &with_files);
    assert!(second.contains("unchanged (their records carried from the store)"), "{second}");
    let full = full_runs();

    // The incremental run fetched 2 months of credits (the refreshed ones) and only the lists of
    // companies whose signals moved; its manifest says so.
    let manifest = manifest(&t.join("m1"));
    let note = &manifest["store"];
    assert_eq!(note["version"], 2);
    assert_eq!(note["credit_months_fetched"].as_array().unwrap().len(), 2);
    let lists = note["company_records"].as_object().unwrap();
    let carried = lists["inalterada"].as_u64().unwrap();
    assert!(carried > 100 && lists.values().map(|v| v.as_u64().unwrap()).sum::<u64>() == 200, "{lists:?}");

    // Its aggregates and data quality equal the full run's; the changes since the previous
    // snapshot are the store's own (a run without one has none: tests/it/changes.rs).
    for entry in std::fs::read_dir(full.join("full_m1/aggregates")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_owned();
        let other = t.join("m1/aggregates").join(&name);
        // These compare with the previous snapshot, which only the store run has.
        let compares =
            ["mudancas.parquet", "variacao_exposicao.parquet", "situacao_fiscal_por_retrato.parquet"];
        if path.extension().is_some_and(|e| e == "parquet") && !compares.iter().any(|c| name == *c) {
            assert_eq!(sorted_frame(&path), sorted_frame(&other), "{name:?}");
        }
    }

    // A third run at the same moment changes no data.
    run(&t.join("m1_again"), &with_files);

    if !python_with("deltalake, polars") {
        return;
    }
    // Version 1 is the truth at M, version 2 and (idempotent) version 3 the truth at M+1.
    let (m, m1) = (full.join("full_m"), full.join("full_m1"));
    check_store(&store, &[("1", "202608", m), ("2", "202609", m1.clone()), ("3", "202609", m1)], 30);

    let info = store_info(&store);
    assert!(
        info.contains("versions (3)") && info.contains("snapshot=202608: 200, snapshot=202609: 200"),
        "{info}"
    );
}

#[test]
fn a_run_killed_between_table_commits_is_rolled_back_and_its_resume_completes_the_snapshot() {
    let (tmp, store) = store_at_m();
    let (t, store_arg) = (tmp.path(), store.to_str().unwrap());
    // Dies as a SIGKILL would after 3 of the 6 tables committed (credits, empresas, dividas).
    let killed = bin()
        .args(["run", "--quiet", "--uf", "SP,RJ", "--store", store_arg, "--out"])
        .arg(t.join("m1"))
        .env("FISCAL_REPORT_TEST_ABORT_AFTER_TABLE_COMMITS", "3")
        .output()
        .unwrap();
    assert!(!killed.status.success(), "the run was to die mid-commit");
    let info = store_info(&store);
    assert!(info.contains("versions (1)"), "the killed run committed no store version: {info}");

    // The next run on the store rolls the three tables back; the resume fetches nothing again.
    let resumed = run(&t.join("m1"), &["--store", store_arg, "--resume"]);
    assert!(resumed.contains("version 3 committed, snapshot 202609"), "{resumed}");
    let info = store_info(&store);
    assert!(info.contains("versions (3)") && info.contains(" restore "), "{info}");

    check_store_holds_m_then_m1(&store);
}

#[test]
fn a_second_run_on_a_store_in_use_exits_8() {
    let tmp = tempfile::tempdir().unwrap();
    let store = tmp.path().join("store");
    std::fs::create_dir_all(&store).unwrap();
    let lock =
        std::fs::File::options().create(true).truncate(false).write(true).open(store.join(".lock")).unwrap();
    lock.try_lock().expect("nothing else holds a new store's lock");
    let o = bin()
        .args(["run", "--quiet", "--uf", "AC", "--store"])
        .arg(&store)
        .arg("--out")
        .arg(tmp.path().join("out"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(8), "{err}");
    assert!(err.contains("in use by another run"), "{err}");
}

#[test]
fn a_finished_run_is_replaced_and_a_refused_one_ends_on_its_reason_not_a_crash() {
    let (tmp, store) = store_at_m();
    let out = tmp.path().join("out");
    let again = |extra: &[&str]| {
        bin()
            .args(["run", "--quiet", "--uf", "SP,RJ", "--store"])
            .arg(&store)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let run_id = || manifest(&out)["run_id"].as_str().map(str::to_string);
    assert!(again(&[]).status.success());
    let first = run_id();
    // The same command again: the folder's run finished, so this one replaces it.
    let o = again(&[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_ne!(run_id(), first, "a new run wrote the folder");
    // A resume of another plan is refused once the store's reads are under way: its reason, no
    // panic of the store's reader.
    let o = again(&["--resume", "--uf", "SP"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains("internal error") && !err.contains("panicked"), "{err}");
}

#[test]
fn a_store_of_a_newer_or_older_layout_or_a_foreign_folder_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "newer",
            "fiscal_report_store.json",
            r#"{"layout": 99, "tool": "fiscal-report"}"#,
            &["layout 99", "newer fiscal-report"][..],
        ),
        (
            "older",
            "fiscal_report_store.json",
            r#"{"layout": 0, "tool": "fiscal-report"}"#,
            &["layout 0", "older than any this fiscal-report reads"][..],
        ),
        ("foreign", "notes.txt", "mine", &["not a fiscal-report store"][..]),
    ];
    for (dir, file, content, says) in cases {
        let store = tmp.path().join(dir);
        std::fs::create_dir_all(&store).unwrap();
        std::fs::write(store.join(file), content).unwrap();
        let o = bin().args(["run", "--quiet", "--uf", "AC", "--store"]).arg(&store).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(says.iter().all(|w| err.contains(w)), "{err}");
    }
}

/// What a fault-free incremental run at `m1` on a store holding `m` must send, by operation,
/// worked out from the dataset itself: a profile per company; the five lists, page by page, of
/// each company that is new or whose fingerprint or `resumos` moved; the pages of the refreshed
/// credit months; and the `latest` probes, one per month from the registry's newest month back
/// to `m1`.
fn expected_incremental_requests(
    portfolio: &[fiscal_report::api::Cnpj],
    ufs: &[&str],
    m: fiscal_report::api::AnoMes,
    m1: fiscal_report::api::AnoMes,
    refreshed: &[fiscal_report::api::AnoMes],
) -> std::collections::BTreeMap<&'static str, u64> {
    use fiscal_report::api::paginate::pages_for;
    use fiscal_report::api::{Categoria, Page};
    use fiscal_report::simulator::{Dataset, RegistryConfig};

    let at = |month| Dataset::generate(RegistryConfig::DEFAULT_SEED, 1.0).as_of(month).unwrap();
    let (before, after) = (at(m), at(m1));
    let pages = |n: usize| pages_for(n as u64, Page::MAX_LIMITE);
    let mut want = std::collections::BTreeMap::new();
    want.insert("empresa", portfolio.len() as u64);
    for c in portfolio {
        if after.changed_since(&before, c) != Some(true) {
            continue;
        }
        let dividas: u64 =
            Categoria::ALL.iter().map(|cat| pages(after.dividas(c, *cat).unwrap().len())).sum();
        *want.entry("dividas-pgfn").or_default() += dividas;
        *want.entry("parcelamentos-rfb").or_default() += pages(after.parcelamentos(c).unwrap().len());
        *want.entry("transacoes-rfb").or_default() += pages(after.transacoes(c).unwrap().len());
        *want.entry("socios").or_default() += pages(after.socios(c).unwrap().len());
    }
    let credit_pages: u64 = refreshed
        .iter()
        .flat_map(|month| ufs.iter().map(|uf| pages(after.creditos_total(Some(uf), Some(*month)))))
        .sum();
    // On the embedded registry `latest` probes back from its newest month (the as-of month).
    let newest = after.latest_month();
    let probes = (0..).take_while(|back| newest.plus_months(-back).unwrap() >= m1).count() as u64;
    want.insert("creditos-ativos", credit_pages + probes);
    want
}

#[test]
fn a_fault_free_incremental_run_sends_exactly_the_requests_its_changes_need() {
    use fiscal_report::api::AnoMes;
    use fiscal_report::simulator::{Dataset, RegistryConfig};

    let (tmp, store) = store_at_m();
    let (t, store_arg) = (tmp.path(), store.to_str().unwrap());
    run(&t.join("m1"), &["--as-of", "202609", "--store", store_arg]);

    let (m, m1) = (AnoMes::new(2026, 8).unwrap(), AnoMes::new(2026, 9).unwrap());
    let portfolio =
        Dataset::generate(RegistryConfig::DEFAULT_SEED, 1.0).as_of(m1).unwrap().demo_portfolio(200);
    let want = expected_incremental_requests(&portfolio, &["SP", "RJ"], m, m1, &[m, m1]);

    let manifest = manifest(&t.join("m1"));
    let sent = &manifest["fetch"]["requests"];
    let got: std::collections::BTreeMap<&str, u64> = sent["by_operation"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(op, outcomes)| {
            (op.as_str(), outcomes.as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum())
        })
        .collect();
    assert_eq!(got, want, "requests by operation");
    assert_eq!(sent["requests"].as_u64().unwrap(), want.values().sum::<u64>());
    assert_eq!(sent["retries"], 0);
    // The changed companies are a minority: the count is not one of a full fetch.
    assert!(want["parcelamentos-rfb"] < 100, "{want:?}");
}

#[test]
fn a_run_killed_during_its_fetch_leaves_the_store_as_it_was_and_its_resume_completes_it() {
    use fiscal_report::simulator::{Dataset, RegistryConfig};

    let (tmp, store) = store_at_m();
    let (t, store_arg) = (tmp.path(), store.to_str().unwrap());

    // Month M+1 from a slow registry (the same dataset as the embedded one), so that the fetch
    // is still running when it is killed.
    let key = "store-kill-key";
    let seed = RegistryConfig::DEFAULT_SEED;
    let srv = super::common_bin::ServeProcess::start(key, seed, 1.0, &["--latency-ms", "20"]);
    let portfolio = t.join("carteira.csv");
    let cnpjs = Dataset::generate(seed, 1.0).demo_portfolio(200);
    let lines: Vec<String> = cnpjs.iter().map(|c| format!("empresa;{}", c.masked())).collect();
    std::fs::write(&portfolio, format!("nome;cnpj\n{}\n", lines.join("\n"))).unwrap();
    let out = t.join("m1");
    let slow_run = |extra: &[&str]| {
        let mut c = bin();
        c.args(["run", "--quiet", "--uf", "SP,RJ", "--base-url", &srv.base_url, "--store", store_arg])
            .arg("--cnpjs")
            .arg(&portfolio)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .env("REGISTRY_API_KEY", key);
        c
    };
    let child = slow_run(&["--concurrency", "2"]).spawn().unwrap();
    kill_after_first_staging_commit(child, &out);
    let info = store_info(&store);
    assert!(info.contains("versions (1)"), "a run killed in its fetch committed nothing: {info}");

    let o = slow_run(&["--resume", "--concurrency", "16"]).output().unwrap();
    let resumed = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && resumed.contains("version 2 committed, snapshot 202609"), "{resumed}");
    let manifest = manifest(&out);
    assert!(manifest["fetch"]["tasks_resumed"].as_u64().unwrap() > 0, "the resume fetched everything again");

    check_store_holds_m_then_m1(&store);
}

/// A snapshot whose run record does not name every list this binary fetches (written before
/// partners were fetched, or by an older binary since) carries no company's lists: the next
/// run fetches every company's lists again rather than carry them incomplete.
#[test]
fn a_snapshot_that_does_not_name_its_lists_carries_none() {
    let (tmp, store) = store_at_m();
    let record = store.join("runs/000001.json");
    let mut json: serde_json::Value = serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert!(json["lists"].as_array().is_some_and(|l| l.iter().any(|x| x == "socios")), "{json}");
    json.as_object_mut().unwrap().remove("lists");
    std::fs::write(&record, serde_json::to_vec_pretty(&json).unwrap()).unwrap();

    run(&tmp.path().join("m1"), &["--store", store.to_str().unwrap()]);
    let lists = manifest(&tmp.path().join("m1"))["store"]["company_records"].clone();
    let carried = lists.get("inalterada").and_then(serde_json::Value::as_u64).unwrap_or(0);
    assert_eq!(carried, 0, "{lists}");
    assert_eq!(lists.as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum::<u64>(), 200, "{lists}");
}

/// A run given its store by a relative path names it whole in its manifest: a re-render started
/// from another folder finds the store, and its report compares with the previous snapshot.
#[test]
fn a_store_given_by_a_relative_path_is_found_by_a_rerender_started_elsewhere() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    for (month, out) in [("202608", "m"), ("202609", "m1")] {
        let o = bin()
            .current_dir(t)
            .args(["run", "--quiet", "--uf", "SP", "--as-of", month, "--store", "store", "--out", out])
            .output()
            .unwrap();
        assert!(o.status.success(), "{month}: {}", String::from_utf8_lossy(&o.stderr));
    }
    let noted = manifest(&t.join("m1"))["store"]["dir"].as_str().unwrap().to_string();
    assert_eq!(Path::new(&noted), t.join("store"), "the manifest names the store from anywhere");
    let elsewhere = tempfile::tempdir().unwrap();
    let o =
        bin().current_dir(elsewhere.path()).args(["report", "--from"]).arg(t.join("m1")).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && !err.contains("cannot be read"), "{err}");
    let md = std::fs::read_to_string(t.join("m1").join("report.md")).unwrap();
    assert!(md.contains("desde o retrato anterior, de ago/2026"), "the re-render compares with 202608");
}
