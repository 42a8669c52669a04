//! The subcommands, one file each: each reads its settings, calls the pipeline and turns the
//! outcome into an exit status. This is the top of the library's layers: nothing below uses it. Output for people goes to stderr; data (JSON of `get`) goes to stdout.

mod dossie;
mod download;
pub mod error;
mod fetch;
mod get;
mod merge;
mod report;
mod run;
mod serve;
mod store;

use anyhow::Result;

use crate::cli::{Cli, Command};
use crate::exit::ExitStatus;

/// docs/cli.md, made from the command-line definitions (`tests/it/docs_cli.rs` checks it). From
/// here, the top layer, not the crate's root: the root stays below every module it names.
pub use crate::config::cli_reference;

/// Runs one parsed command.
pub async fn run(cli: Cli) -> Result<ExitStatus> {
    crate::progress::init(cli.quiet);
    crate::test_hooks::panic_if_asked();
    match cli.command {
        Command::Serve(args) => serve::serve(args).await,
        Command::Get(args) => get::get(args).await,
        Command::Run(args) => run::run(*args, cli.quiet).await,
        Command::Fetch(args) => fetch::fetch(args, cli.quiet).await,
        Command::Merge(args) => merge::merge(args).await,
        Command::Store(args) => store::store(args).await,
        Command::Dossie(args) => dossie::dossie(args).await,
        Command::Report(args) => report::report(args).await,
        Command::Download(args) => download::download(args).await,
    }
}

/// `--schema-contract` of `merge` and `report --from`, read.
fn contract(value: Option<&str>) -> Result<Option<crate::config::SchemaContract>> {
    value
        .map(|v| {
            crate::config::SchemaContract::parse(v).map_err(|rule| {
                crate::exit::Classified::new(ExitStatus::BadInput, format!("--schema-contract {v:?}: {rule}"))
                    .into()
            })
        })
        .transpose()
}
