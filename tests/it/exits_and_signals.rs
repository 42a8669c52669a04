//! The exit codes a scheduler acts on, reached the way they arise: 4 (tasks that failed after
//! their retries, and the `--resume` that completes them), 130 (Ctrl-C or SIGTERM in the
//! middle of a fetch, and the `--resume` that loses nothing; SIGTERM as the store commit begins
//! and inside it, and the `--resume` that commits what a whole run commits), and a kill in the
//! middle of a store commit, which leaves the store readable for the next run. Expected records come from
//! the dataset's own lists, not from what the client staged.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use crate::common_bin::*;
use crate::common_fetch::staged_rows;
use fiscal_report::api::{Categoria, Cnpj};
use fiscal_report::simulator::{Dataset, RegistryConfig};
use fiscal_report::tables::Table;

const KEY: &str = "exits-key";

/// A proxy to `upstream` that answers 500 to every request naming the CNPJ in `failing` while
/// it holds one: a service that keeps failing for one company, then recovers.
fn failing_proxy(upstream: String, failing: Arc<Mutex<Option<String>>>) -> String {
    proxy_answering(upstream, failing, 500, r#"{"detail":"down"}"#)
}

/// A proxy to `upstream` that answers `status` with `body` to every request naming the CNPJ in
/// `failing` while it holds one, and passes every other request on.
fn proxy_answering(
    upstream: String,
    failing: Arc<Mutex<Option<String>>>,
    status: u16,
    body: &'static str,
) -> String {
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async move {
            let http = plain_http();
            let app = axum::Router::new().fallback(move |req: axum::extract::Request| {
                let (http, upstream, failing) = (http.clone(), upstream.clone(), failing.clone());
                async move {
                    let path = req.uri().path_and_query().map(|p| p.to_string()).unwrap_or_default();
                    let fails = failing.lock().unwrap().as_ref().is_some_and(|c| path.contains(c.as_str()));
                    if fails {
                        let json = [(axum::http::header::CONTENT_TYPE, "application/json")];
                        return (StatusCode::from_u16(status).unwrap(), json, body).into_response();
                    }
                    let mut forward = http.get(format!("{upstream}{path}"));
                    if let Some(key) = req.headers().get("x-api-key") {
                        forward = forward.header("x-api-key", key.as_bytes());
                    }
                    let answer = forward.send().await.unwrap();
                    let status = StatusCode::from_u16(answer.status().as_u16()).unwrap();
                    (status, answer.bytes().await.unwrap()).into_response()
                }
            });
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    url
}

/// Debt records of `cnpjs` in the dataset, all three categorias: what a complete fetch stages.
fn debts_in_dataset(d: &Dataset, cnpjs: &[Cnpj]) -> usize {
    cnpjs
        .iter()
        .map(|c| Categoria::ALL.iter().map(|k| d.dividas(c, *k).map_or(0, |v| v.len())).sum::<usize>())
        .sum()
}

fn portfolio_file(dir: &Path, cnpjs: &[Cnpj]) -> std::path::PathBuf {
    let file = dir.join("carteira.txt");
    std::fs::write(&file, cnpjs.iter().map(|c| c.as_str()).collect::<Vec<_>>().join("\n")).unwrap();
    file
}

#[test]
fn tasks_that_keep_failing_exit_4_and_the_resume_fetches_only_those() {
    let tmp = tempfile::tempdir().unwrap();
    let seed = RegistryConfig::DEFAULT_SEED;
    let srv = ServeProcess::start(KEY, seed, 0.05, &[]);
    let d = Dataset::generate(seed, 0.05);
    let cnpjs = d.demo_portfolio(12);
    // A company with debts, so its records are missed for certain while it fails.
    let failing_cnpj =
        cnpjs.iter().find(|c| debts_in_dataset(&d, std::slice::from_ref(c)) > 0).unwrap().clone();
    let failing = Arc::new(Mutex::new(Some(failing_cnpj.as_str().to_string())));
    let proxy = failing_proxy(srv.base_url.clone(), failing.clone());
    let (file, out) = (portfolio_file(tmp.path(), &cnpjs), tmp.path().join("out"));
    let fetch = |extra: &[&str]| {
        bin()
            .args(["--quiet", "fetch", "--uf", "SP", "--ano-mes", "202609", "--base-url", &proxy, "--cnpjs"])
            .arg(&file)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .env("REGISTRY_API_KEY", KEY)
            .env("FISCAL_REPORT_TEST_RETRY_DELAY_MS", "5")
            .output()
            .unwrap()
    };
    let o = fetch(&[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("--resume"), "the message says how to finish: {stderr}");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let failed = m["fetch"]["tasks_failed"].as_array().unwrap();
    assert_eq!(failed.len(), 1, "one company's task failed: {failed:?}");
    assert!(failed[0].to_string().contains(failing_cnpj.as_str()), "{failed:?}");
    let debts = |out: &Path| staged_rows(out).get(&Table::DividasPgfn).map_or(0, Vec::len);
    let others: Vec<Cnpj> = cnpjs.iter().filter(|c| **c != failing_cnpj).cloned().collect();
    assert_eq!(debts(&out), debts_in_dataset(&d, &others), "every other company's debts are staged");

    // The service recovers: the resume asks again for that company only, and the staging is whole.
    *failing.lock().unwrap() = None;
    let o = fetch(&["--resume"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["fetch"]["tasks_failed"].as_array().map(Vec::len), Some(0), "{}", m["fetch"]);
    assert_eq!(debts(&out), debts_in_dataset(&d, &cnpjs), "the resumed staging holds every debt once");
}

/// Sends `signal` to `child` once its fetch has committed to the staging at least once.
fn signal_after_first_staging_commit(child: &mut std::process::Child, out: &Path, signal: &str) {
    wait_for_first_staging_commit(child, out);
    let sent =
        std::process::Command::new("kill").args(["-s", signal, &child.id().to_string()]).status().unwrap();
    assert!(sent.success(), "kill -s {signal}");
}

/// `fetch` of SP's credits for 202609 and the portfolio in `file` from `srv` into `out`, its
/// stderr piped: the run the signal tests stop.
fn slow_fetch(srv: &ServeProcess, file: &Path, out: &Path, extra: &[&str]) -> std::process::Command {
    let mut c = bin();
    c.args(["fetch", "--uf", "SP", "--ano-mes", "202609", "--base-url", &srv.base_url, "--cnpjs"])
        .arg(file)
        .arg("--out")
        .arg(out)
        .args(extra)
        .env("REGISTRY_API_KEY", KEY)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

#[test]
fn sigterm_or_ctrl_c_mid_fetch_exits_130_and_the_resume_loses_nothing() {
    let seed = RegistryConfig::DEFAULT_SEED;
    // Slow enough that the fetch is still running when the signal comes.
    let srv = ServeProcess::start(KEY, seed, 0.5, &["--latency-ms", "20"]);
    let d = Dataset::generate(seed, 0.5);
    let cnpjs = d.demo_portfolio(150);
    for signal in ["TERM", "INT"] {
        let tmp = tempfile::tempdir().unwrap();
        let (file, out) = (portfolio_file(tmp.path(), &cnpjs), tmp.path().join("out"));
        let fetch = |extra: &[&str]| slow_fetch(&srv, &file, &out, extra);
        let mut child = fetch(&["--concurrency", "2"]).spawn().unwrap();
        signal_after_first_staging_commit(&mut child, &out, signal);
        let o = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "SIG{signal}: {stderr}");
        assert!(stderr.contains("--resume"), "SIG{signal}: the message says how to go on: {stderr}");
        let staged = staged_rows(&out).get(&Table::DividasPgfn).map_or(0, Vec::len);
        assert!(staged < debts_in_dataset(&d, &cnpjs), "SIG{signal}: stopped before the end");

        let o = fetch(&["--resume", "--quiet"]).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let staged = staged_rows(&out);
        assert_eq!(
            staged.get(&Table::DividasPgfn).map_or(0, Vec::len),
            debts_in_dataset(&d, &cnpjs),
            "SIG{signal}: every debt staged once after the resume"
        );
        let profiles = cnpjs.iter().filter(|c| d.profile(c).is_some()).count();
        assert_eq!(
            staged.get(&Table::Empresas).map_or(0, Vec::len),
            profiles,
            "SIG{signal}: every company once"
        );
    }
}

/// `run -v` of SP's credits and the portfolio in `file` from `srv` on `store`, into `out`, its
/// stderr piped: the run the store-commit tests stop.
fn store_run(srv: &ServeProcess, file: &Path, store: &Path, out: &Path) -> std::process::Command {
    let mut c = bin();
    c.args(["-v", "run", "--uf", "SP", "--base-url", &srv.base_url, "--cnpjs"])
        .arg(file)
        .arg("--store")
        .arg(store)
        .arg("--out")
        .arg(out)
        .env("REGISTRY_API_KEY", KEY)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

/// `n` companies of the demo's portfolio in a file of `dir`, and `dir/store` holding the
/// embedded registry's 202608 for them (one run, its output in `dir/m`): the store the next
/// month's run is stopped on. The file's path and the store's.
fn store_at_202608(dir: &Path, n: usize) -> (PathBuf, PathBuf) {
    let seed = RegistryConfig::DEFAULT_SEED;
    let file = portfolio_file(dir, &Dataset::generate(seed, 0.2).demo_portfolio(n));
    let store = dir.join("store");
    let m = ServeProcess::start(KEY, seed, 0.2, &["--as-of", "202608"]);
    let o = store_run(&m, &file, &store, &dir.join("m")).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (file, store)
}

#[test]
fn a_kill_in_the_middle_of_a_store_commit_leaves_a_store_the_next_run_completes() {
    let tmp = tempfile::tempdir().unwrap();
    let seed = RegistryConfig::DEFAULT_SEED;
    let (file, store) = store_at_202608(tmp.path(), 60);
    let run = |srv: &ServeProcess, out: &str| store_run(srv, &file, &store, &tmp.path().join(out));

    // The next month's run, killed (SIGKILL: no handler runs) as its analysis ends and its
    // commit begins.
    let m1 = ServeProcess::start(KEY, seed, 0.2, &[]);
    kill_when_stderr_says(run(&m1, "m1").spawn().unwrap(), "analyze: done");

    // The store opens (a table committed past the last run record is rolled back), and the
    // month's run again completes its snapshot over it.
    let info = bin().args(["store", "info"]).arg(&store).output().unwrap();
    assert!(info.status.success(), "{}", String::from_utf8_lossy(&info.stderr));
    let o = run(&m1, "m1-again").output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("snapshot 202609"), "{stderr}");
    let info = String::from_utf8_lossy(&bin().args(["store", "info"]).arg(&store).output().unwrap().stdout)
        .to_string();
    assert!(info.contains("202608") && info.contains("202609"), "both months are in the store: {info}");
}

/// Each table's rows by partition, as `store info` prints them (store and Delta versions left
/// out: a rolled-back commit adds versions without changing what the store holds).
fn rows_by_partition(store: &Path) -> Vec<(String, String)> {
    let o = bin().args(["store", "info"]).arg(store).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    let mut rows = Vec::new();
    let mut table = String::new();
    for line in text.lines() {
        // The versions list above the tables is indented too: only a table's lines count.
        if let Some(partitions) = line.strip_prefix("    ").filter(|_| !table.is_empty()) {
            rows.push((table.clone(), partitions.to_string()));
        } else if let Some(head) = line.strip_prefix("  ").filter(|h| h.contains("(Delta version")) {
            table = head.split_whitespace().next().unwrap_or("").to_string();
        }
    }
    assert!(!rows.is_empty(), "store info shows no table: {text}");
    rows
}

fn copy_dir(from: &Path, to: &Path) {
    let ok = std::process::Command::new("cp").arg("-r").arg(from).arg(to).status().unwrap();
    assert!(ok.success(), "cp -r {}", from.display());
}

#[test]
fn sigterm_before_or_during_the_store_commit_exits_130_and_the_resume_commits_the_same_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let seed = RegistryConfig::DEFAULT_SEED;
    let (file, before) = store_at_202608(tmp.path(), 60);
    let run =
        |srv: &ServeProcess, store: &Path, out: &str| store_run(srv, &file, store, &tmp.path().join(out));
    let m1 = ServeProcess::start(KEY, seed, 0.2, &[]);
    // The truth: the next month's run, not interrupted, on a copy of the store.
    let whole = tmp.path().join("store-whole");
    copy_dir(&before, &whole);
    let o = run(&m1, &whole, "m1-whole").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_ne!(rows_by_partition(&whole), rows_by_partition(&before), "the month added a snapshot");

    // Stopped as the analysis ends (the commit not begun), and after the commit's first table
    // (the commit made slow so the signal lands inside it).
    for (case, said, pause) in [("before", "analyze: done", "0"), ("during", "store: table", "400")] {
        let store = tmp.path().join(format!("store-{case}"));
        copy_dir(&before, &store);
        let out = format!("m1-{case}");
        let mut c = run(&m1, &store, &out);
        c.env("FISCAL_REPORT_TEST_COMMIT_PAUSE_MS", pause);
        let (code, stderr) = signal_when_stderr_says(c.spawn().unwrap(), said, "TERM");
        assert_eq!(code, Some(130), "{case} the commit: {stderr}");
        assert!(stderr.contains("--resume"), "{case}: the message says how to finish: {stderr}");
        if case == "during" {
            assert!(
                stderr.contains("rolled back"),
                "{case}: the message says what the store holds: {stderr}"
            );
        }
        assert_eq!(rows_by_partition(&store), rows_by_partition(&before), "{case}: the store as it was");

        let o = run(&m1, &store, &out).arg("--resume").output().unwrap();
        assert!(o.status.success(), "{case}: {}", String::from_utf8_lossy(&o.stderr));
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(tmp.path().join(&out).join("manifest.json")).unwrap())
                .unwrap();
        let (planned, resumed) = (&manifest["fetch"]["tasks_planned"], &manifest["fetch"]["tasks_resumed"]);
        assert!(
            planned.as_u64() > Some(0) && planned == resumed,
            "{case}: nothing fetched again: {manifest}"
        );
        assert_eq!(
            rows_by_partition(&store),
            rows_by_partition(&whole),
            "{case}: the snapshot a whole run commits"
        );
    }
}

#[test]
fn a_second_ctrl_c_inside_the_store_commit_stops_at_once_and_the_next_run_commits_it() {
    let tmp = tempfile::tempdir().unwrap();
    let seed = RegistryConfig::DEFAULT_SEED;
    let (file, store) = store_at_202608(tmp.path(), 20);
    let run = |srv: &ServeProcess, out: &str| store_run(srv, &file, &store, &tmp.path().join(out));

    // The first signal inside the commit (held: a pause after each table), the second once
    // the run said it read the first: the first stop waits for the table's end, the second does
    // not. Each signal waits on what the run reports, never on a clock: the pause is an hour,
    // so no machine's load can end it before the second signal lands (at 1.5 s it once did,
    // and a 10 s pause still failed once under load); only the second signal ends the run.
    let m1 = ServeProcess::start(KEY, seed, 0.2, &[]);
    let mut c = run(&m1, "m1");
    c.env("FISCAL_REPORT_TEST_COMMIT_PAUSE_MS", "3600000");
    let steps = [("store: table", "INT"), ("stop requested", "INT")];
    let child = c.spawn().unwrap();
    // Should the second signal not end the run, the test fails in two minutes, not an hour.
    let (done, watch) = std::sync::mpsc::channel::<()>();
    let pid = child.id().to_string();
    let guard = std::thread::spawn(move || {
        if watch.recv_timeout(std::time::Duration::from_secs(120)).is_err() {
            let _ = std::process::Command::new("kill").args(["-s", "KILL", &pid]).status();
        }
    });
    let (code, stderr) = signal_at_each(child, &steps);
    let _ = done.send(());
    guard.join().unwrap();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("second stop signal"), "the second signal is named: {stderr}");

    // The store opens (the half-written version rolled back), and the resume commits the month.
    let o = run(&m1, "m1").arg("--resume").output().unwrap();
    let resumed = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && resumed.contains("snapshot 202609"), "{resumed}");
    let info = String::from_utf8_lossy(&bin().args(["store", "info"]).arg(&store).output().unwrap().stdout)
        .to_string();
    assert!(info.contains("202608") && info.contains("202609"), "both months are in the store: {info}");
}

#[test]
fn a_stop_before_the_outputs_of_a_run_without_a_store_exits_130_and_presents_nothing() {
    let seed = RegistryConfig::DEFAULT_SEED;
    let srv = ServeProcess::start(KEY, seed, 0.05, &[]);
    let cnpjs = Dataset::generate(seed, 0.05).demo_portfolio(10);
    let tmp = tempfile::tempdir().unwrap();
    let (file, out) = (portfolio_file(tmp.path(), &cnpjs), tmp.path().join("out"));
    let run = |extra: &[&str]| {
        let mut c = bin();
        c.args(["-v", "run", "--uf", "SP", "--ano-mes", "202609", "--base-url", &srv.base_url, "--cnpjs"])
            .arg(&file)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .env("REGISTRY_API_KEY", KEY)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        c
    };
    // Signalled as the typing ends: it lands before the analysis or during it, and either way
    // the run stops before its outputs.
    let (code, stderr) = signal_when_stderr_says(run(&[]).spawn().unwrap(), "transform: done", "TERM");
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("--resume"), "the message says how to finish: {stderr}");
    for partial in ["report.html", "report.md", "report.xlsx"] {
        assert!(!out.join(partial).exists(), "{partial} written by a stopped run");
    }
    let o = run(&["--resume"]).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("report.html").is_file(), "the resumed run writes the report");
}

#[test]
fn a_request_the_service_refuses_as_invalid_exits_2_naming_what_it_said() {
    let tmp = tempfile::tempdir().unwrap();
    let seed = RegistryConfig::DEFAULT_SEED;
    let srv = ServeProcess::start(KEY, seed, 0.05, &[]);
    let cnpjs = Dataset::generate(seed, 0.05).demo_portfolio(6);
    let refused = cnpjs[2].as_str().to_string();
    // FastAPI's body for a 422, as the service answers one.
    let body = r#"{"detail":[{"type":"value_error","loc":["path","cnpj"],"msg":"CNPJ recusado pelo teste","input":"x"}]}"#;
    let proxy = proxy_answering(srv.base_url.clone(), Arc::new(Mutex::new(Some(refused.clone()))), 422, body);
    let (file, out) = (portfolio_file(tmp.path(), &cnpjs), tmp.path().join("out"));
    let o = bin()
        .args(["--quiet", "run", "--uf", "AC", "--ano-mes", "202609", "--base-url", &proxy, "--cnpjs"])
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .env("REGISTRY_API_KEY", KEY)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("CNPJ recusado pelo teste") && stderr.contains("path.cnpj"), "{stderr}");
    assert!(!stderr.contains("bug in fiscal-report"), "{stderr}");
    // What was fetched is written, under a banner that says it is not whole.
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("DADOS INCOMPLETOS"), "the report says it lacks the refused company");
}
