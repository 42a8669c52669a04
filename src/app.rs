//! Runs one parsed command: the glue between the CLI and the stages. Output for people goes to
//! stderr; data (JSON of `get`) goes to stdout.

use std::io::Write;
use std::net::SocketAddr;

use anyhow::{Context, Result};

use crate::api::paginate::walk_pages;
use crate::api::{ApiKey, ClientConfig, Operation, OperationArgs, OperationKind, Page, RegistryClient};
use crate::cli::{Cli, Command, GetArgs, ServeArgs, ServiceArgs};
use crate::exit::{Classified, ExitStatus};
use crate::simulator::{self, FaultConfig, RegistryConfig};

pub async fn run(cli: Cli) -> Result<ExitStatus> {
    match cli.command {
        Command::Serve(args) => serve(args).await,
        Command::Get(args) => get(args).await,
        Command::Run(args) => crate::pipeline::run_job(args.fetch, Some(args.report), cli.quiet).await,
        Command::Fetch(args) => crate::pipeline::run_job(args, None, cli.quiet).await,
        Command::Merge(args) => crate::merge::merge(&args.out, &args.shards, &args.report),
        Command::Report(args) => crate::pipeline::report_from(&args.from, &args.report),
    }
}

async fn serve(args: ServeArgs) -> Result<ExitStatus> {
    if !(args.scale > 0.0 && args.scale <= 64.0) {
        return Err(Classified::new(
            ExitStatus::BadInput,
            format!("--scale {}: it must be above 0 and at most 64", args.scale),
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
        api_key: ApiKey::new(args.api_key),
        faults: FaultConfig {
            latency: std::time::Duration::from_millis(args.latency_ms),
            fault_rate: args.fault_rate,
            rate_limit: args.rate_limit,
        },
    };
    let state = simulator::build_state(&cfg).await;
    if let Some(path) = &args.dump_truth {
        let truth = state.dataset.truth();
        let json = serde_json::to_vec_pretty(&truth)?;
        crate::fsutil::write_atomic(path, &json)
            .with_context(|| format!("writing the ground truth to {}", path.display()))?;
        eprintln!("wrote the ground truth of seed {} scale {} to {}", args.seed, args.scale, path.display());
        return Ok(ExitStatus::Ok);
    }
    if let Some(path) = &args.dump_portfolio {
        let cnpjs: Vec<String> =
            state.dataset.demo_portfolio(args.portfolio_size).iter().map(|c| c.masked()).collect();
        let text = format!("cnpj\n{}\n", cnpjs.join("\n"));
        crate::fsutil::write_atomic(path, text.as_bytes())
            .with_context(|| format!("writing the portfolio to {}", path.display()))?;
        eprintln!(
            "wrote {} CNPJs of seed {} scale {} to {}",
            cnpjs.len(),
            args.seed,
            args.scale,
            path.display()
        );
        return Ok(ExitStatus::Ok);
    }
    let registry = simulator::start(state, addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    // One line on stdout, so scripts and tests that asked for port 0 can read the address.
    println!("listening on {}", registry.base_url());
    let _ = std::io::stdout().flush();
    eprintln!(
        "embedded registry: seed {} scale {}, {} companies, months {}..{}; Ctrl-C stops",
        args.seed,
        args.scale,
        registry.dataset().company_count(),
        registry.dataset().months().first().map(|m| m.to_string()).unwrap_or_default(),
        registry.dataset().latest_month()
    );
    crate::shutdown::wait_for_signal().await;
    registry.stop().await;
    Ok(ExitStatus::Ok)
}

/// A client for `svc`, or for an embedded registry started here when no base URL is given.
async fn client_for(svc: &ServiceArgs) -> Result<(RegistryClient, Option<simulator::RunningRegistry>)> {
    let timeout = std::time::Duration::from_secs(svc.timeout_secs.unwrap_or(30));
    match &svc.base_url {
        Some(url) => {
            let key = svc.api_key.clone().unwrap_or_default();
            let mut cfg = ClientConfig::new(url.clone(), ApiKey::new(key));
            cfg.allow_insecure_http = svc.allow_insecure_http;
            cfg.timeout = timeout;
            Ok((RegistryClient::new(&cfg)?, None))
        }
        None => {
            let key = ApiKey::new(crate::pipeline::random_key());
            let reg_cfg = RegistryConfig {
                seed: RegistryConfig::DEFAULT_SEED,
                scale: 1.0,
                api_key: key.clone(),
                faults: FaultConfig::default(),
            };
            let state = simulator::build_state(&reg_cfg).await;
            let reg = simulator::start(state, SocketAddr::from(([127, 0, 0, 1], 0))).await?;
            eprintln!("no --base-url: asking the embedded registry (demo data) at {}", reg.base_url());
            let mut cfg = ClientConfig::new(reg.base_url(), key);
            cfg.timeout = timeout;
            Ok((RegistryClient::new(&cfg)?, Some(reg)))
        }
    }
}

async fn get(args: GetArgs) -> Result<ExitStatus> {
    let kind = OperationKind::from_name(&args.operation).ok_or_else(|| {
        let names: Vec<&str> = OperationKind::ALL.iter().map(|k| k.name()).collect();
        Classified::new(
            ExitStatus::BadInput,
            format!("unknown operation {:?}; choose one of: {}", args.operation, names.join(", ")),
        )
    })?;
    let op = Operation::build(
        kind,
        &OperationArgs {
            id: args.id.clone(),
            categoria: args.categoria.clone(),
            uf: args.uf.clone(),
            municipio: args.municipio.clone(),
            ano_mes: args.ano_mes.clone(),
        },
    )?;
    let page = if kind.is_list() {
        Some(Page::new(args.limite.unwrap_or(20), args.offset.unwrap_or(0))?)
    } else {
        None
    };
    let (client, _registry) = client_for(&args.service).await?;
    let value: serde_json::Value = if args.all && kind.is_list() {
        let walk = walk_pages(kind.name(), 8, |p| {
            let (client, op) = (&client, &op);
            async move { client.get_page::<serde_json::Value>(op, p).await }
        })
        .await?;
        for w in &walk.warnings {
            tracing::warn!("{w}");
        }
        serde_json::json!({
            "fonte": walk.fonte,
            "itens": walk.items,
            "paginacao": { "limite": Page::MAX_LIMITE, "offset": 0, "total": walk.total },
        })
    } else {
        let body = client.get_raw(&op, page).await?;
        crate::api::client::decode(&body.bytes, &op.path())?
    };
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, &value)?;
    writeln!(out)?;
    Ok(ExitStatus::Ok)
}
