//! `fiscal-report run` and `fetch` end to end: settle the configuration, pick the data source
//! (the real service, or the embedded registry for a first run), fetch, then hand each
//! stage's output to the next, and turn the outcome into an exit status.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::api::{ApiKey, ClientConfig, Cnpj, RegistryClient};
use crate::cli::{FetchArgs, ReportArgs};
use crate::config::RunConfig;
use crate::exit::{Classified, ExitStatus, OutputError};
use crate::extract::accounting::Accounting;
use crate::extract::plan::portfolio_hash;
use crate::extract::runner::{FetchError, default_out_dir, resolve_months};
use crate::extract::staging::Staging;
use crate::extract::{FetchJob, PageFetcher, PlanSpec, RetryPolicy, plan_tasks, portfolio, run_fetch};
use crate::simulator::{self, FaultConfig, RegistryConfig};

/// Companies in the demo portfolio of a run on the embedded registry.
pub const DEMO_PORTFOLIO_SIZE: usize = 200;

/// A key for the embedded registry of this process only: random so that nothing else on the
/// machine can use that server by guessing it.
pub fn random_key() -> String {
    use rand::{Rng, SeedableRng};
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(nanos ^ (u64::from(std::process::id()) << 32));
    (0..32).map(|_| char::from(b"0123456789abcdef"[rng.random_range(0..16usize)])).collect()
}

struct Source {
    client: RegistryClient,
    base_url: String,
    demo_portfolio: Option<Vec<Cnpj>>,
    _registry: Option<simulator::RunningRegistry>,
}

async fn open_source(cfg: &RunConfig) -> Result<Source> {
    let timeout = Duration::from_secs(cfg.timeout_secs);
    if let Some(url) = &cfg.base_url {
        let key = cfg.api_key.clone().unwrap_or_else(|| ApiKey::new(""));
        let mut cc = ClientConfig::new(url.clone(), key);
        cc.timeout = timeout;
        cc.allow_insecure_http = cfg.allow_insecure_http;
        return Ok(Source {
            client: RegistryClient::new(&cc)?,
            base_url: url.clone(),
            demo_portfolio: None,
            _registry: None,
        });
    }
    let key = ApiKey::new(random_key());
    let reg_cfg = RegistryConfig {
        seed: RegistryConfig::DEFAULT_SEED,
        scale: cfg.demo_scale,
        api_key: key.clone(),
        faults: FaultConfig::default(),
    };
    let state = simulator::build_state(&reg_cfg).await;
    let registry = simulator::start(state, SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .context("starting the embedded registry")?;
    eprintln!(
        "no --base-url: using the embedded registry at {} (synthetic DEMO data, seed {}, scale {}); \
         everything written is marked as demo data",
        registry.base_url(),
        reg_cfg.seed,
        reg_cfg.scale
    );
    let mut cc = ClientConfig::new(registry.base_url(), key);
    cc.timeout = timeout;
    let demo = registry.dataset().demo_portfolio(DEMO_PORTFOLIO_SIZE);
    Ok(Source {
        client: RegistryClient::new(&cc)?,
        base_url: "embedded".to_string(),
        demo_portfolio: Some(demo),
        _registry: Some(registry),
    })
}

pub async fn run_job(args: FetchArgs, report: Option<ReportArgs>, quiet: bool) -> Result<ExitStatus> {
    let cfg = RunConfig::resolve(&args)?;
    let portfolio = match &cfg.cnpjs {
        Some(path) => {
            let p = portfolio::read_portfolio(path, cfg.strict)?;
            for issue in &p.issues {
                tracing::warn!(
                    "{}, line {}: skipped {:?}: {}",
                    path.display(),
                    issue.line,
                    issue.input,
                    issue.reason
                );
            }
            if p.duplicates > 0 {
                tracing::info!("{}: {} duplicate CNPJs dropped", path.display(), p.duplicates);
            }
            Some(p)
        }
        None => None,
    };
    let source = open_source(&cfg).await?;
    let demo = source.demo_portfolio.is_some();
    let cnpjs: Vec<Cnpj> = match (&portfolio, &source.demo_portfolio) {
        (Some(p), _) => p.cnpjs.clone(),
        (None, Some(d)) => d.clone(),
        (None, None) => Vec::new(),
    };
    let accounting = Arc::new(Accounting::default());
    let fetcher = Arc::new(PageFetcher::new(
        source.client.clone(),
        cfg.concurrency,
        cfg.max_rps,
        RetryPolicy::default(),
        accounting.clone(),
    ));
    let months = resolve_months(&fetcher, &cfg.months).await.map_err(|e| match e {
        e @ crate::api::ApiError::KeyRejected { .. } => anyhow::Error::new(e),
        e => anyhow::Error::new(e).context("finding the months to fetch"),
    })?;
    if months.is_empty() {
        return Err(Classified::new(
            ExitStatus::ServiceUnavailable,
            "the service reported no month with credits in the last 3 years",
        )
        .into());
    }
    let out = cfg.out.clone().unwrap_or_else(|| default_out_dir(&months));
    let spec = PlanSpec {
        base_url: source.base_url.clone(),
        months: months.iter().map(ToString::to_string).collect(),
        ufs: cfg.ufs.iter().map(ToString::to_string).collect(),
        portfolio_sha256: portfolio_hash(&cnpjs),
        portfolio_size: cnpjs.len(),
        shard: cfg.shard,
        demo,
    };
    let staging = Staging::open(&out, &spec, cfg.resume)?;
    let tasks = plan_tasks(&cfg.ufs, &months, &cnpjs, cfg.shard);
    tracing::info!(
        "fetching {} months x {} states and {} companies into {} ({} tasks{})",
        months.len(),
        cfg.ufs.len(),
        cnpjs.len(),
        out.display(),
        tasks.len(),
        if cfg.shard.count > 1 {
            format!(", shard {}/{}", cfg.shard.index, cfg.shard.count)
        } else {
            String::new()
        }
    );
    let job = FetchJob { tasks, quiet, commit_rows: 50_000, commit_every: Duration::from_secs(2) };
    let outcome = match run_fetch(fetcher, staging, job).await {
        Ok(o) => o,
        Err(FetchError::KeyRejected(e)) => return Err(e.into()),
        Err(e) => return Err(e.into()),
    };
    let mut manifest = crate::export::manifest::Manifest::for_fetch(&spec, &outcome.summary);
    manifest.write(&out).map_err(|e| {
        OutputError::wrap(
            out.join("manifest.json"),
            format!(
                "free space on that disk (or fix its permissions), \
                 then run the same command with --resume --out {}: \
                 everything fetched is staged and is not fetched again",
                out.display()
            ),
            e,
        )
    })?;
    let s = &outcome.summary;
    if s.interrupted {
        eprintln!(
            "interrupted: {} tasks are staged in {}; run the same command with --resume{} to fetch only what is missing",
            s.tasks_done,
            out.display(),
            if cfg.out.is_none() { format!(" --out {}", out.display()) } else { String::new() }
        );
        return Ok(ExitStatus::Interrupted);
    }
    if let Some(report) = &report
        && !s.interrupted
    {
        let frames = crate::transform::staged::frames_from_staging(&outcome)?;
        super::finish::analyze_export_report(
            frames,
            &mut manifest,
            &out,
            report,
            super::finish::RawTables::Write,
        )?;
    }
    eprintln!(
        "fetched {} records in {:.1}s: {} requests, {} retries, {} rate-limited, {} companies not found, {} failed tasks -> {}",
        s.records.values().sum::<u64>(),
        s.wall_seconds,
        s.requests.requests,
        s.requests.retries,
        s.requests.rate_limited,
        s.companies_not_found.len(),
        s.tasks_failed.len(),
        out.display()
    );
    if !s.tasks_failed.is_empty() {
        for f in s.tasks_failed.iter().take(10) {
            eprintln!("  failed: {}: {}", f.task, f.error);
        }
        return Err(Classified::new(
            ExitStatus::PartialFailure,
            format!(
                "{} tasks failed after their retries (listed in {}/manifest.json); everything else is staged: \
                 run again with --resume --out {} to retry only those",
                s.tasks_failed.len(),
                out.display(),
                out.display()
            ),
        )
        .into());
    }
    Ok(ExitStatus::Ok)
}
