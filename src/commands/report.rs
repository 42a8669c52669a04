//! `fiscal-report report --from DIR`: the aggregates, their Parquet and the report again from a
//! finished run's directory, without fetching (`pipeline::rerender`).

use anyhow::Result;

use crate::cli::ReportFromArgs;
use crate::config::ReportSettings;
use crate::exit::ExitStatus;

pub(super) async fn report(args: ReportFromArgs) -> Result<ExitStatus> {
    let contract = super::contract(args.schema_contract.as_deref())?;
    let report = ReportSettings::resolve(&args.report, None)?;
    crate::pipeline::rerender::report_from(&args.from, &report, contract).await
}
