//! `fiscal-report serve`: the embedded registry as a server, or its ground truth and demo
//! portfolio written to files.

use std::io::Write;
use std::net::SocketAddr;

use anyhow::{Context, Result};

use crate::api::models::DividaPgfn;
use crate::api::{ApiKey, Categoria};
use crate::cli::ServeArgs;
use crate::exit::{Classified, ExitStatus};
use crate::simulator::{self, FaultConfig, RegistryConfig};

pub async fn serve(args: ServeArgs) -> Result<ExitStatus> {
    let (cfg, addr) = registry_config(&args)?;
    let state = crate::pipeline::source::embedded_state(&cfg).await?;
    if let Some(dir) = &args.write_open_data {
        write_release(&state.dataset, dir).await?;
    } else if let Some(path) = &args.dump_truth {
        dump_truth(&args, &state.dataset, path)?;
    } else if let Some(path) = &args.dump_portfolio {
        dump_portfolio(&args, &state.dataset, path)?;
    } else {
        serve_until_stopped(&args, state, addr).await?;
    }
    Ok(ExitStatus::Ok)
}

/// The registry `args` describe and the address to serve it on, each flag checked.
fn registry_config(args: &ServeArgs) -> Result<(RegistryConfig, SocketAddr)> {
    // Served, a dataset's credits sit in memory (64: ~1 GB); written as a release, a company is
    // made and written one at a time, up to the dataset's 5 million companies (1000).
    let max_scale = if args.write_open_data.is_some() { 1000.0 } else { 64.0 };
    if !(args.scale > 0.0 && args.scale <= max_scale) {
        return Err(Classified::new(
            ExitStatus::BadInput,
            format!("--scale {}: it must be above 0 and at most {max_scale}", args.scale),
        )
        .into());
    }
    if !(0.0..=1.0).contains(&args.fault_rate) {
        return Err(Classified::new(
            ExitStatus::BadInput,
            format!("--fault-rate {}: it must be between 0 and 1", args.fault_rate),
        )
        .into());
    }
    let addr: SocketAddr = args.addr.parse().map_err(|_| {
        Classified::new(
            ExitStatus::BadInput,
            format!("--addr {:?}: not an address; write it like 127.0.0.1:8089", args.addr),
        )
    })?;
    let cfg = RegistryConfig {
        seed: args.seed,
        scale: args.scale,
        api_key: ApiKey::new(args.api_key.clone()),
        faults: FaultConfig {
            latency: std::time::Duration::from_millis(args.latency_ms),
            fault_rate: args.fault_rate,
            rate_limit: args.rate_limit,
            capacity: args.capacity.map(|n| n as usize),
            add_field: args.add_field.clone(),
            drop_field: args.drop_field.clone(),
            sources: simulator::sources::SourceOverrides::parse(&args.fonte_versao, &args.fonte_status)
                .map_err(|why| Classified::new(ExitStatus::BadInput, why))?,
            real_debts: real_debts(&args.real_debts)?,
        },
        as_of: match &args.as_of {
            Some(m) => Some(crate::api::AnoMes::parse(m).map_err(|e| {
                Classified::new(
                    ExitStatus::BadInput,
                    format!("--as-of {m:?}: {}; write it as AAAAMM", e.rule),
                )
            })?),
            None => None,
        },
    };
    Ok((cfg, addr))
}

/// `--write-open-data DIR`: the dataset as the publishers' files.
async fn write_release(dataset: &std::sync::Arc<simulator::Dataset>, dir: &std::path::Path) -> Result<()> {
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
fn dump_truth(args: &ServeArgs, dataset: &simulator::Dataset, path: &std::path::Path) -> Result<()> {
    let truth = dataset.truth();
    let json = serde_json::to_vec_pretty(&truth)?;
    crate::fsutil::write_atomic(path, &json)
        .with_context(|| format!("writing the ground truth to {}", path.display()))?;
    crate::say!(
        "wrote the ground truth of seed {} scale {} as of {} to {}",
        args.seed,
        args.scale,
        truth.as_of,
        path.display()
    );
    Ok(())
}

/// `--dump-portfolio FILE`: a ready portfolio of the dataset's companies.
fn dump_portfolio(args: &ServeArgs, dataset: &simulator::Dataset, path: &std::path::Path) -> Result<()> {
    let portfolio = match args.portfolio_changing {
        None => dataset.demo_portfolio(args.portfolio_size),
        Some(share) => changing_portfolio((args.seed, args.scale), dataset, args.portfolio_size, share)?,
    };
    let cnpjs: Vec<String> = portfolio.iter().map(|c| c.masked()).collect();
    let text = format!("cnpj\n{}\n", cnpjs.join("\n"));
    crate::fsutil::write_atomic(path, text.as_bytes())
        .with_context(|| format!("writing the portfolio to {}", path.display()))?;
    crate::say!(
        "wrote {} CNPJs of seed {} scale {} to {}",
        cnpjs.len(),
        args.seed,
        args.scale,
        path.display()
    );
    Ok(())
}

/// The registry on `addr` until Ctrl-C or SIGTERM.
async fn serve_until_stopped(
    args: &ServeArgs,
    state: std::sync::Arc<simulator::ServerState>,
    addr: SocketAddr,
) -> Result<()> {
    let registry = simulator::start(state, addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    // One line on stdout, so scripts and tests that asked for port 0 can read the address.
    println!("listening on {}", registry.base_url());
    let _ = std::io::stdout().flush();
    crate::say!(
        "embedded registry: seed {} scale {}, {} companies, months {}..{} (as of the last); Ctrl-C stops",
        args.seed,
        args.scale,
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

/// `--real-debts CATEGORIA=FILE` values, read.
fn real_debts(values: &[String]) -> Result<Vec<(Categoria, Vec<DividaPgfn>)>> {
    values
        .iter()
        .map(|v| {
            let bad = |why: String| {
                Classified::new(
                    ExitStatus::BadInput,
                    format!("--real-debts {v:?}: {why}; write it as fgts=FILE"),
                )
            };
            let (cat, file) = v.split_once('=').ok_or_else(|| bad("it has no '='".into()))?;
            let categoria = Categoria::parse(cat).map_err(|e| bad(e.to_string()))?;
            let rows = simulator::real::read_pgfn_csv(std::path::Path::new(file))
                .map_err(|e| bad(format!("cannot read {file}: {e}")))?;
            Ok((categoria, rows))
        })
        .collect()
}
