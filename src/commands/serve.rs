//! `fiscal-report serve`: its flags checked (`config::registry_config`), then the embedded
//! registry as a server, or its files, ground truth and demo portfolio written, or the
//! publishers' mirror (`pipeline::registry`).

use std::net::SocketAddr;

use anyhow::Result;

use crate::cli::ServeArgs;
use crate::config::registry_config;
use crate::exit::ExitStatus;
use crate::pipeline::registry::{RegistryJob, serve_mirror};

pub(super) async fn serve(args: ServeArgs) -> Result<ExitStatus> {
    let (cfg, addr) = registry_config(&args)?;
    if let Some(dir) = &args.mirror {
        serve_mirror(dir, &args.mirror_fault, addr).await?;
        return Ok(ExitStatus::Ok);
    }
    crate::pipeline::registry::run_registry(&cfg, job(args, addr)).await?;
    Ok(ExitStatus::Ok)
}

/// What the flags ask of the registry: one of the files, else to serve it.
fn job(args: ServeArgs, addr: SocketAddr) -> RegistryJob {
    if let Some(dir) = args.write_open_data {
        RegistryJob::WriteOpenData(dir)
    } else if let Some(path) = args.dump_truth {
        RegistryJob::DumpTruth(path)
    } else if let Some(path) = args.dump_portfolio {
        RegistryJob::DumpPortfolio { path, size: args.portfolio_size, changing: args.portfolio_changing }
    } else {
        RegistryJob::Serve(addr)
    }
}
