//! `fiscal-report run`: the whole job (`pipeline::run`).

use anyhow::Result;

use crate::cli::RunArgs;
use crate::exit::ExitStatus;

pub async fn run(args: RunArgs, quiet: bool) -> Result<ExitStatus> {
    crate::pipeline::run::run(args, quiet).await
}
