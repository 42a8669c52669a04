//! `fiscal-report merge OUT SHARD_DIR...`: the shards of one run merged into one dataset, one
//! manifest and one report (`pipeline::merge`).

use anyhow::Result;

use crate::cli::MergeArgs;
use crate::config::ReportSettings;
use crate::exit::ExitStatus;

pub(super) async fn merge(args: MergeArgs) -> Result<ExitStatus> {
    let contract = super::contract(args.schema_contract.as_deref())?;
    let report = ReportSettings::resolve(&args.report, None)?;
    crate::pipeline::merge::merge(&args.out, &args.shards, &report, contract).await
}
