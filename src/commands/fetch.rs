//! `fiscal-report fetch`: the fetch stage alone (`pipeline::fetch`), and with a store the
//! snapshot committed.

use anyhow::Result;

use crate::cli::FetchArgs;
use crate::config::RunConfig;
use crate::exit::ExitStatus;

pub(super) async fn fetch(args: FetchArgs, quiet: bool) -> Result<ExitStatus> {
    crate::pipeline::fetch::fetch(RunConfig::resolve(&args)?, quiet).await
}
