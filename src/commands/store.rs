//! `fiscal-report store info DIR`: what a store holds (versions, snapshots, rows, last run).

use anyhow::Result;

use crate::cli::{StoreArgs, StoreCommand};
use crate::exit::ExitStatus;

pub async fn store(args: StoreArgs) -> Result<ExitStatus> {
    match args.command {
        StoreCommand::Info { dir } => {
            print!("{}", crate::store::info::describe(&dir).await?);
            Ok(ExitStatus::Ok)
        }
    }
}
