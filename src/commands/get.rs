//! `fiscal-report get`: one operation's JSON, for ad-hoc lookups.

use std::io::Write;
use std::net::SocketAddr;

use anyhow::Result;

use crate::api::paginate::walk_pages;
use crate::api::{ApiKey, ClientConfig, Operation, OperationArgs, OperationKind, Page, RegistryClient};
use crate::cli::{GetArgs, ServiceArgs};
use crate::exit::{Classified, ExitStatus};
use crate::simulator::{self, FaultConfig, RegistryConfig};

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
            let key = ApiKey::new(super::random_key());
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

pub async fn get(args: GetArgs) -> Result<ExitStatus> {
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
