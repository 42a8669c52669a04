//! The soak run (on demand, several minutes): the embedded registry with 30% faults, a rate
//! limit and latency; 2,000 companies and 24 months of credits for all 27 states, fetched with no
//! flag. Every record must equal the ground truth, and at most 1% of the requests may be refused
//! by the rate limit; the figures go to bench/results/soak.md.
//!
//!     cargo test --test it soak -- --ignored --nocapture       (add --release for a release binary)

use crate::common_bin;
use crate::common_fetch;

use common_bin::*;
use common_fetch::*;
use fiscal_report::api::{AnoMes, ApiKey, UFS};
use fiscal_report::export::manifest::Manifest;
use fiscal_report::simulator::{self, Dataset, FaultConfig, RegistryConfig};
use wait_timeout::ChildExt;

#[test]
#[ignore = "several minutes; run on demand"]
fn soak_with_faults_rate_limit_and_latency_loses_nothing() {
    let (seed, scale, companies) = (5, 0.4, 2000);
    let (fault_rate, rate_limit, latency) = ("0.3", "400", "10");
    // In this process, so its counters tell the rate limit's refusals from the 429s drawn as
    // faults (the client cannot: both are 429s with Retry-After).
    let rt = tokio::runtime::Runtime::new().unwrap();
    let faults = FaultConfig {
        fault_rate: 0.3,
        rate_limit: Some(400),
        latency: std::time::Duration::from_millis(10),
        ..FaultConfig::default()
    };
    let cfg = RegistryConfig { seed, scale, api_key: ApiKey::new("soak"), faults, as_of: None };
    let srv = rt.block_on(async {
        let state = simulator::build_state(&cfg).await.unwrap();
        simulator::start(state, std::net::SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap()
    });
    let d = Dataset::generate(seed, scale);
    let cnpjs = d.demo_portfolio(companies);
    assert_eq!(cnpjs.len(), companies);
    let dir = tempfile::tempdir().unwrap();
    let portfolio = dir.path().join("p.txt");
    std::fs::write(&portfolio, cnpjs.iter().map(|c| c.to_string()).collect::<Vec<_>>().join("\n")).unwrap();
    let out = dir.path().join("out");
    let started = std::time::Instant::now();
    // Its progress (a line each 5 s, with the pace) goes to a file, read whether it ends or hangs.
    let log = dir.path().join("fetch.log");
    let mut fetch = bin()
        .args(["fetch", "--base-url", &srv.base_url(), "--uf", "all", "--ano-mes", "202410:202609"])
        .arg("--cnpjs")
        .arg(&portfolio)
        .arg("--out")
        .arg(&out)
        .env("REGISTRY_API_KEY", "soak")
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let status = fetch.wait_timeout(std::time::Duration::from_secs(600)).unwrap();
    let wall = started.elapsed().as_secs_f64();
    if status.is_none() {
        fetch.kill().unwrap();
    }
    let stderr = std::fs::read_to_string(&log).unwrap_or_default();
    let status =
        status.unwrap_or_else(|| panic!("the fetch ran 10 minutes (a run takes about 1):\n{stderr}"));
    assert!(status.success(), "{stderr}");
    let months: Vec<AnoMes> =
        (0..24).map(|k| AnoMes::parse("202410").unwrap().plus_months(k).unwrap()).collect();
    let want = expected_rows(&d, &UFS, &months, &cnpjs);
    let got = staged_rows(&out);
    assert_same_records(&got, &want);
    let m = Manifest::read(&out).unwrap();
    let r = &m.fetch.requests;
    let records: usize = got.values().map(Vec::len).sum();
    let minimum = minimum_requests(&d, &UFS, &months, &cnpjs);
    let served = &srv.state.counters;
    let refused_by_limit = served.rate_limited.load(std::sync::atomic::Ordering::Relaxed);
    let share = refused_by_limit as f64 * 100.0 / r.requests as f64;
    let text = format!(
        "# Soak run\n\nMeasured {} on {} cores ({} build).\n\n\
         Embedded registry: seed {seed}, scale {scale}, `--fault-rate {fault_rate} --rate-limit {rate_limit} --latency-ms {latency}`.\n\
         Fetch: 27 states x 24 months of credits and {companies} companies, no flag (the adaptive limit, ceiling 64).\n\n\
         | figure | value |\n|---|--:|\n\
         | records fetched, all equal to the ground truth | {records} |\n\
         | records lost or duplicated | 0 |\n\
         | requests sent | {} |\n| minimum requests without faults | {minimum} |\n\
         | retries after an error answer | {} |\n\
         | short pages asked again (a 200 with too few records) | {} |\n\
         | 429 answers (faults drawn and the rate limit's) | {} |\n\
         | refused by the rate limit (the registry's count) | {refused_by_limit} ({share:.2} %) |\n| failed tasks | {} |\n| wall time, seconds | {wall:.1} |\n\n\
         Reproduce: `cargo test --test it soak -- --ignored --nocapture`.\n",
        chrono::Utc::now().format("%Y-%m-%d"),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        if cfg!(debug_assertions) { "debug" } else { "release" },
        r.requests,
        r.retries,
        // Every request beyond the minimum is an error retry or a short page asked again.
        r.requests.saturating_sub(minimum + r.retries),
        r.rate_limited,
        m.fetch.tasks_failed.len(),
    );
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/results/soak.md");
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    let history = old.find("\nThe runs before").map_or("", |i| &old[i..]);
    std::fs::write(&path, format!("{text}{history}")).unwrap();
    println!("{text}");
    assert!(share <= 1.0, "{share:.2} % of the requests refused by the rate limit (target: 1 %)");
}
