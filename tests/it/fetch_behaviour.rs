//! The fetch stage against the embedded registry's fault switches: nothing lost or duplicated
//! under faults, polite under a rate limit, resumable after SIGKILL, shardable, and no request
//! more than needed.

use crate::common_bin;
use crate::common_fetch;

use std::path::{Path, PathBuf};
use std::process::Command;

use common_bin::*;
use common_fetch::*;
use fiscal_report::api::{AnoMes, Cnpj};
use fiscal_report::export::manifest::Manifest;
use fiscal_report::simulator::Dataset;

const KEY: &str = "fetch-test-key";
const SEED: u64 = 11;
const SCALE: f64 = 0.05;
const UFS: [&str; 3] = ["SP", "RJ", "AC"];

struct Setup {
    dataset: Dataset,
    dir: tempfile::TempDir,
    portfolio: PathBuf,
    cnpjs: Vec<Cnpj>,
    unknown: Cnpj,
    months: Vec<AnoMes>,
}

fn setup(companies: usize) -> Setup {
    let dataset = Dataset::generate(SEED, SCALE);
    let dir = tempfile::tempdir().unwrap();
    let mut cnpjs = dataset.demo_portfolio(companies);
    let unknown = (0..1000u64)
        .filter_map(|i| Cnpj::from_base(&format!("{:08}0001", 98_765_000 + i)))
        .find(|c| dataset.company_index(c).is_none())
        .unwrap();
    cnpjs.push(unknown.clone());
    let portfolio = dir.path().join("carteira.csv");
    let mut text = String::from("nome;cnpj\n");
    for c in &cnpjs {
        text.push_str(&format!("empresa;{}\n", c.masked()));
    }
    std::fs::write(&portfolio, text).unwrap();
    let months = vec![AnoMes::parse("202607").unwrap(), AnoMes::parse("202608").unwrap()];
    Setup { dataset, dir, portfolio, cnpjs, unknown, months }
}

fn fetch_cmd(s: &Setup, srv: &ServeProcess, out: &Path, extra: &[&str]) -> Command {
    let mut c = bin();
    c.args([
        "--quiet",
        "fetch",
        "--base-url",
        &srv.base_url,
        "--uf",
        &UFS.join(","),
        "--ano-mes",
        "202607:202608",
    ])
    .arg("--cnpjs")
    .arg(&s.portfolio)
    .arg("--out")
    .arg(out)
    .args(extra)
    .env("REGISTRY_API_KEY", KEY);
    c
}

fn run_ok(mut c: Command) -> std::process::Output {
    let out = c.output().unwrap();
    assert!(out.status.success(), "exit {:?}: {}", out.status.code(), String::from_utf8_lossy(&out.stderr));
    out
}

fn expected(s: &Setup) -> std::collections::BTreeMap<fiscal_report::tables::Table, Vec<String>> {
    expected_rows(&s.dataset, &UFS, &s.months, &s.cnpjs)
}

#[test]
fn faults_lose_nothing_and_duplicate_nothing() {
    let s = setup(25);
    let srv = ServeProcess::start(KEY, SEED, SCALE, &["--fault-rate", "0.2", "--latency-ms", "5"]);
    let out = s.dir.path().join("out");
    run_ok(fetch_cmd(&s, &srv, &out, &[]));
    assert_same_records(&staged_rows(&out), &expected(&s));
    let m = Manifest::read(&out).unwrap();
    assert!(m.fetch.requests.retries > 0, "faults were injected, so some requests were retried");
    assert!(m.fetch.tasks_failed.is_empty());
    assert_eq!(m.fetch.companies_not_found, vec![s.unknown.to_string()]);
}

#[test]
fn a_rate_limited_service_gets_a_bounded_number_of_429s() {
    let s = setup(25);
    let srv = ServeProcess::start(KEY, SEED, SCALE, &["--rate-limit", "150"]);
    let out = s.dir.path().join("out");
    run_ok(fetch_cmd(&s, &srv, &out, &["--concurrency", "32"]));
    assert_same_records(&staged_rows(&out), &expected(&s));
    let m = Manifest::read(&out).unwrap();
    let r = &m.fetch.requests;
    assert!(m.fetch.tasks_failed.is_empty());
    // The client slows down instead of hammering: 429s stay a small share of the traffic.
    assert!(
        r.rate_limited * 4 < r.requests,
        "{} of {} requests were rate limited",
        r.rate_limited,
        r.requests
    );
}

#[test]
fn a_fault_free_fetch_sends_the_minimum_number_of_requests() {
    let s = setup(25);
    let srv = ServeProcess::start(KEY, SEED, SCALE, &[]);
    let out = s.dir.path().join("out");
    run_ok(fetch_cmd(&s, &srv, &out, &[]));
    let m = Manifest::read(&out).unwrap();
    assert_eq!(m.fetch.requests.requests, minimum_requests(&s.dataset, &UFS, &s.months, &s.cnpjs));
    assert_eq!(m.fetch.requests.retries, 0);
    // A fetch's output is a complete input for the later stages.
    run_ok({
        let mut c = bin();
        c.args(["--quiet", "report", "--from"]).arg(&out);
        c
    });
    assert!(out.join("report.html").exists() && out.join("aggregates/carteira_resumo.parquet").exists());
    assert!(out.join("creditos_ativos").is_dir(), "the raw tables were exported");

    // `latest`: the same, plus one probe per month from this one back to the latest published.
    // The day is set, so the count does not depend on when the test runs.
    let out = s.dir.path().join("latest");
    let mut c = bin();
    c.args(["--quiet", "fetch", "--base-url", &srv.base_url, "--uf", "AC", "--ano-mes", "latest", "--out"])
        .arg(&out)
        .arg("--cnpjs")
        .arg(&s.portfolio)
        .env("REGISTRY_API_KEY", KEY)
        .env("FISCAL_REPORT_TODAY", "2026-11-25");
    run_ok(c);
    let m = Manifest::read(&out).unwrap();
    let latest = s.dataset.latest_month();
    let months: Vec<AnoMes> = (0..13).rev().map(|k| latest.plus_months(-k).unwrap()).collect();
    assert_eq!(m.plan.months, months.iter().map(ToString::to_string).collect::<Vec<_>>());
    let now = AnoMes::new(2026, 11).unwrap();
    let probes = (now.index() - latest.index() + 1) as u64;
    assert_eq!(m.fetch.requests.requests, minimum_requests(&s.dataset, &["AC"], &months, &s.cnpjs) + probes);
}

#[test]
fn sigkill_then_resume_gives_the_records_of_a_clean_run() {
    let s = setup(40);
    let srv = ServeProcess::start(KEY, SEED, SCALE, &["--latency-ms", "50"]);
    let out = s.dir.path().join("out");
    // About 300 requests at 50 ms, two at a time: several seconds, with a commit every 2 s.
    let child = fetch_cmd(&s, &srv, &out, &["--concurrency", "2"]).spawn().unwrap();
    kill_after_first_staging_commit(child, &out);
    // A second run without --resume refuses to mix with the first.
    let o = fetch_cmd(&s, &srv, &out, &[]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--resume"));
    run_ok(fetch_cmd(&s, &srv, &out, &["--resume", "--concurrency", "16"]));
    assert_same_records(&staged_rows(&out), &expected(&s));
    let m = Manifest::read(&out).unwrap();
    assert!(m.fetch.tasks_resumed > 0, "the resumed run skipped what was already staged");
}

#[test]
fn three_shards_together_equal_one_run() {
    let s = setup(25);
    let srv = ServeProcess::start(KEY, SEED, SCALE, &[]);
    let mut union: std::collections::BTreeMap<_, Vec<String>> = Default::default();
    for k in 0..3 {
        let out = s.dir.path().join(format!("shard{k}"));
        run_ok(fetch_cmd(&s, &srv, &out, &["--shard", &format!("{k}/3")]));
        for (t, rows) in staged_rows(&out) {
            union.entry(t).or_default().extend(rows);
        }
    }
    for v in union.values_mut() {
        v.sort();
    }
    assert_same_records(&union, &expected(&s));
}

#[test]
fn a_rejected_key_stops_at_once_with_its_exit_code() {
    let s = setup(5);
    let srv = ServeProcess::start(KEY, SEED, SCALE, &[]);
    let out = s.dir.path().join("out");
    let mut c = fetch_cmd(&s, &srv, &out, &[]);
    c.env("REGISTRY_API_KEY", "not-the-key");
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("REGISTRY_API_KEY"));
}
