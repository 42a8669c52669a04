//! `fiscal-report run`: the whole job (`pipeline::run`), its settings resolved once.

use anyhow::Result;

use crate::cli::RunArgs;
use crate::config::RunSettings;
use crate::exit::ExitStatus;

pub(super) async fn run(args: RunArgs, quiet: bool) -> Result<ExitStatus> {
    crate::pipeline::run::run(RunSettings::resolve(&args)?, quiet).await
}
