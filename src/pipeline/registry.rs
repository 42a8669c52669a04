//! `serve`'s jobs with the embedded registry: serve it until stopped, or write what tests,
//! benches and analysts read of it: its dataset as the publishers' files, its ground truth, a
//! portfolio of its companies; or serve those files as the publishers do (the mirror).

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::exit::{Classified, ExitStatus};
use crate::simulator::{self, RegistryConfig};

/// What `serve` does with the registry.
pub(crate) enum RegistryJob {
    /// Serve it on this address until Ctrl-C or SIGTERM.
    Serve(SocketAddr),
    /// `--write-open-data DIR`.
    WriteOpenData(PathBuf),
    /// `--dump-truth FILE`.
    DumpTruth(PathBuf),
    /// `--dump-portfolio FILE`, of `size` companies; with `changing`, that share of them
    /// changed since the month before.
    DumpPortfolio { path: PathBuf, size: usize, changing: Option<f64> },
}

/// The registry `cfg` describes, put to `job`.
pub(crate) async fn run_registry(cfg: &RegistryConfig, job: RegistryJob) -> Result<()> {
    let state = super::source::embedded_state(cfg).await?;
    match job {
        RegistryJob::WriteOpenData(dir) => write_release(&state.dataset, &dir).await,
        RegistryJob::DumpTruth(path) => dump_truth(cfg, &state.dataset, &path),
        RegistryJob::DumpPortfolio { path, size, changing } => {
            dump_portfolio(cfg, &state.dataset, (&path, size, changing))
        }
        RegistryJob::Serve(addr) => serve_until_stopped(cfg, state, addr).await,
    }
}

/// `--write-open-data DIR`: the dataset as the publishers' files.
async fn write_release(dataset: &std::sync::Arc<simulator::Dataset>, dir: &Path) -> Result<()> {
    let (ds, target) = (dataset.clone(), dir.to_path_buf());
    let written = tokio::task::spawn_blocking(move || simulator::open_data::write_open_data(&ds, &target))
        .await
        .context("writing the open-data files")?
        .with_context(|| format!("writing the open-data files to {}", dir.display()))?;
    crate::say!(
        "wrote {} companies and {} debt rows as {} open-data files under {}",
        written.companies,
        written.debt_rows,
        written.files.len(),
        dir.display()
    );
    Ok(())
}

/// `--dump-truth FILE`: the dataset's ground truth as JSON.
fn dump_truth(cfg: &RegistryConfig, dataset: &simulator::Dataset, path: &Path) -> Result<()> {
    let truth = dataset.truth();
    let json = serde_json::to_vec_pretty(&truth)?;
    crate::fsutil::write_atomic(path, &json)
        .with_context(|| format!("writing the ground truth to {}", path.display()))?;
    crate::say!(
        "wrote the ground truth of seed {} scale {} as of {} to {}",
        cfg.seed,
        cfg.scale,
        truth.as_of,
        path.display()
    );
    Ok(())
}

/// `--dump-portfolio FILE`: a ready portfolio of the dataset's companies.
fn dump_portfolio(
    cfg: &RegistryConfig,
    dataset: &simulator::Dataset,
    (path, size, changing): (&Path, usize, Option<f64>),
) -> Result<()> {
    let portfolio = match changing {
        None => dataset.demo_portfolio(size),
        Some(share) => changing_portfolio((cfg.seed, cfg.scale), dataset, size, share)?,
    };
    let cnpjs: Vec<String> = portfolio.iter().map(|c| c.masked()).collect();
    let text = format!("cnpj\n{}\n", cnpjs.join("\n"));
    crate::fsutil::write_atomic(path, text.as_bytes())
        .with_context(|| format!("writing the portfolio to {}", path.display()))?;
    crate::say!("wrote {} CNPJs of seed {} scale {} to {}", cnpjs.len(), cfg.seed, cfg.scale, path.display());
    Ok(())
}

/// The registry on `addr` until Ctrl-C or SIGTERM.
async fn serve_until_stopped(
    cfg: &RegistryConfig,
    state: std::sync::Arc<simulator::ServerState>,
    addr: SocketAddr,
) -> Result<()> {
    let registry = simulator::start(state, addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    // One line on stdout, so scripts and tests that asked for port 0 can read the address.
    println!("listening on {}", registry.base_url());
    let _ = std::io::stdout().flush();
    crate::say!(
        "embedded registry: seed {} scale {}, {} companies, months {}..{} (as of the last); Ctrl-C stops",
        cfg.seed,
        cfg.scale,
        registry.dataset().company_count(),
        registry.dataset().months().first().map(|m| m.to_string()).unwrap_or_default(),
        registry.dataset().latest_month()
    );
    crate::shutdown::wait_for_signal().await;
    registry.stop().await;
    Ok(())
}

/// `--dump-portfolio --portfolio-changing SHARE`: the as-of month against the month before it.
fn changing_portfolio(
    (seed, scale): (u64, f64),
    dataset: &simulator::Dataset,
    size: usize,
    share: f64,
) -> Result<Vec<crate::api::Cnpj>> {
    let bad =
        |why: &str| Classified::new(ExitStatus::BadInput, format!("--portfolio-changing {share}: {why}"));
    if !(0.0..=1.0).contains(&share) {
        return Err(bad("it must be between 0 and 1").into());
    }
    let month = dataset.latest_month();
    let previous = month
        .plus_months(-1)
        .filter(|m| dataset.months().contains(m))
        .ok_or_else(|| bad(&format!("{month} is the dataset's first month; pick a later --as-of")))?;
    let before = simulator::Dataset::generate(seed, scale).as_of(previous).map_err(|e| bad(&e))?;
    Ok(dataset.changing_portfolio(&before, size, share))
}

/// `--mirror DIR`: the release folder served as the publishers serve theirs, until a signal.
pub(crate) async fn serve_mirror(dir: &std::path::Path, faults: &[String], addr: SocketAddr) -> Result<()> {
    use simulator::mirror::{MirrorFaults, SHARE_TOKEN};
    let mirror = simulator::mirror::start(dir, MirrorFaults::named(faults), addr)
        .await
        .map_err(|e| Classified::new(ExitStatus::BadInput, format!("--addr {addr}: cannot listen: {e}")))?;
    // On stdout, for scripts that asked for port 0: the two addresses `download` takes.
    println!("rfb-url {}", mirror.share_link(SHARE_TOKEN));
    println!("pgfn-url {}/", mirror.base_url());
    let _ = std::io::stdout().flush();
    crate::say!("publishers' mirror of {} on {}; Ctrl-C stops", dir.display(), mirror.base_url());
    crate::shutdown::wait_for_signal().await;
    // What it sent, counted on the server's side: a bench's truth for the bytes a download cost.
    let counters = &mirror.state.counters;
    crate::say!("mirror: sent {} file bytes in {} requests", counters.bytes_sent(), counters.requests());
    Ok(())
}
