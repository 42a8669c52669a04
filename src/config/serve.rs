//! `serve`'s settings: the embedded registry its flags describe (seed, scale, key, faults,
//! overrides, `--as-of`) and the address to serve on, each flag checked, a bad one refused
//! naming the flag, the rule and the fix (exit 2).

use std::net::SocketAddr;

use anyhow::Result;

use crate::api::models::DividaPgfn;
use crate::api::{ApiKey, Categoria};
use crate::cli::ServeArgs;
use crate::exit::{Classified, ExitStatus};
use crate::simulator::{self, FaultConfig, RegistryConfig};

/// The registry `args` describe and the address to serve it on, each flag checked.
pub(crate) fn registry_config(args: &ServeArgs) -> Result<(RegistryConfig, SocketAddr)> {
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
