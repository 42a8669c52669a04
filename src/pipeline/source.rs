//! Where a command's data comes from, for every command that asks the service: the real
//! service at `--base-url`, or, without one, the embedded registry started inside this process
//! on a loopback port with a random key (synthetic demo data, and a demo portfolio with it); or
//! the publishers' files (`--open-data`), read here for the portfolio and handed to the fetch
//! as read.

use std::net::SocketAddr;

use anyhow::{Context, Result};

use crate::api::{ApiKey, ClientConfig, Cnpj, RegistryClient};
use crate::config::{RunConfig, SourceSettings};
use crate::exit::{Classified, ExitStatus};
use crate::simulator::{self, FaultConfig, RegistryConfig};

/// Companies in the demo portfolio of a run on the embedded registry.
pub(crate) const DEMO_PORTFOLIO_SIZE: usize = 200;

/// A key for the embedded registry of this process only: random so that nothing else on the
/// machine can use that server by guessing it.
pub(crate) fn random_key() -> String {
    use rand::{Rng, SeedableRng};
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(nanos ^ (u64::from(std::process::id()) << 32));
    (0..32).map(|_| char::from(b"0123456789abcdef"[rng.random_range(0..16usize)])).collect()
}

/// An open source: a client for it and, for the embedded registry, the server (stopped when
/// this is dropped) and its demo portfolio.
pub(crate) struct Source {
    pub client: RegistryClient,
    /// The base URL, or `embedded`: what the plan and the manifest record.
    pub base_url: String,
    pub demo_portfolio: Option<Vec<Cnpj>>,
    /// The newest month the source has, where it says (the embedded registry's dataset ends
    /// at a fixed month): `--ano-mes latest` counts back from it rather than from the clock.
    pub newest_month: Option<crate::api::AnoMes>,
    _registry: Option<simulator::RunningRegistry>,
}

/// The embedded registry's state for `cfg`; an `--as-of` outside its months is bad input.
pub(crate) async fn embedded_state(cfg: &RegistryConfig) -> Result<std::sync::Arc<simulator::ServerState>> {
    simulator::build_state(cfg)
        .await
        .map_err(|why| Classified::new(ExitStatus::BadInput, format!("--as-of: {why}")).into())
}

/// What a fetch reads: its records, the label the plan and the manifest record for them, and
/// the service behind them, held open for what the run asks after the fetch (none over the
/// files alone).
pub(crate) struct Opened {
    pub records: crate::extract::Records,
    pub label: String,
    pub service: Option<Source>,
}

/// The fetch's source: the service (`--base-url`, else the embedded registry), or with a
/// release (`--open-data`) the records its files held for the portfolio, handed over as read:
/// no request, no page, no JSON. With `--base-url` as well, that service answers what the files
/// do not carry.
pub(crate) async fn open_records(
    settings: &SourceSettings,
    release: Option<&mut crate::extract::open_data::Release>,
    pool: impl Fn(&Source) -> crate::extract::PageFetcher,
    accounting: std::sync::Arc<crate::extract::accounting::Accounting>,
) -> Result<Opened> {
    use crate::extract::Records;
    let Some(release) = release else {
        let service = open(settings).await?;
        let records = Records::service(pool(&service));
        return Ok(Opened { records, label: service.base_url.clone(), service: Some(service) });
    };
    let files = std::mem::take(&mut release.published);
    let service = match &settings.base_url {
        Some(_) => Some(open(settings).await?),
        None => None,
    };
    let label =
        service.as_ref().map_or_else(|| "open-data".to_string(), |s| format!("open-data + {}", s.base_url));
    let records = Records::files(files, service.as_ref().map(pool), accounting);
    Ok(Opened { records, label, service })
}

pub(crate) async fn open(settings: &SourceSettings) -> Result<Source> {
    if let Some(url) = &settings.base_url {
        let key = settings.api_key.clone().unwrap_or_else(|| ApiKey::new(""));
        let mut cc = ClientConfig::new(url.clone(), key);
        cc.timeout = settings.timeout;
        cc.allow_insecure_http = settings.allow_insecure_http;
        return Ok(Source {
            client: RegistryClient::new(&cc)?,
            base_url: url.clone(),
            demo_portfolio: None,
            newest_month: None,
            _registry: None,
        });
    }
    let key = ApiKey::new(random_key());
    let reg_cfg = RegistryConfig {
        seed: RegistryConfig::DEFAULT_SEED,
        scale: settings.demo_scale,
        api_key: key.clone(),
        faults: FaultConfig::default(),
        as_of: settings.as_of,
    };
    let state = embedded_state(&reg_cfg).await?;
    let registry = simulator::start(state, SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .context("starting the embedded registry")?;
    crate::say!(
        "no --base-url: using the embedded registry at {} (synthetic DEMO data, seed {}, scale {}, as of {}); \
         everything written is marked as demo data",
        registry.base_url(),
        reg_cfg.seed,
        reg_cfg.scale,
        registry.dataset().latest_month()
    );
    let mut cc = ClientConfig::new(registry.base_url(), key);
    cc.timeout = settings.timeout;
    let demo = registry.dataset().demo_portfolio(DEMO_PORTFOLIO_SIZE);
    Ok(Source {
        client: RegistryClient::new(&cc)?,
        base_url: "embedded".to_string(),
        demo_portfolio: Some(demo),
        newest_month: Some(registry.dataset().latest_month()),
        _registry: Some(registry),
    })
}

/// `--open-data DIR`: the portfolio's records read from the publishers' files (off the async
/// threads: reading a release is decompression-bound), or `None` without it.
pub(super) async fn read_open_data(
    cfg: &RunConfig,
    portfolio: Option<&crate::extract::portfolio::Portfolio>,
) -> Result<Option<crate::extract::open_data::Release>> {
    let Some(dir) = cfg.open_data.clone() else { return Ok(None) };
    let Some(portfolio) = portfolio else {
        return Err(Classified::new(
            ExitStatus::BadInput,
            "--open-data reads the files for a portfolio: give it with --cnpjs FILE",
        )
        .into());
    };
    let (cnpjs, partial) = (portfolio.cnpjs.clone(), cfg.partial);
    let started = std::time::Instant::now();
    let release = tokio::task::spawn_blocking(move || {
        let cents = crate::transform::parse::published_cents;
        crate::extract::open_data::read_release(&dir, &cnpjs, partial, cents)
    })
    .await
    .context("reading the open-data files")??;
    let kept: u64 = release.files.iter().map(|f| f.rows_kept).sum();
    let read: u64 = release.files.iter().map(|f| f.rows_read).sum();
    tracing::info!(
        "open data: {} files, {read} rows read, {kept} kept for the portfolio in {:.1} s; missing: {}",
        release.files.len(),
        started.elapsed().as_secs_f64(),
        if release.missing.is_empty() {
            "none".to_string()
        } else {
            release.missing.iter().cloned().collect::<Vec<_>>().join(", ")
        }
    );
    Ok(Some(release))
}

/// Waits, off the async threads, for the tax regime files `read_release` is still reading
/// (`Release::regimes_reading`): the manifest names them and the typing takes their rows.
pub(super) async fn finish_regimes(release: Option<&mut crate::extract::open_data::Release>) -> Result<()> {
    let Some(release) = release else { return Ok(()) };
    let Some(reading) = release.regimes_reading.take() else { return Ok(()) };
    let joined =
        tokio::task::spawn_blocking(move || reading.join()).await.context("reading the tax regime files")?;
    release.regimes = joined.unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
    Ok(())
}
