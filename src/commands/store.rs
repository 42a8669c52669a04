//! `fiscal-report store info DIR`: what a store holds (versions, snapshots, rows, last run);
//! `store series DIR`: the series over its snapshots, the portfolio's or one company's;
//! `store timeline DIR --cnpj`: one company's changes over its snapshots (`pipeline::timeline`).

use anyhow::Result;

use crate::analyze::{default_queries_dir, load_history_queries, load_queries};
use crate::api::Cnpj;
use crate::cli::{SeriesArgs, StoreArgs, StoreCommand, StoreFormat, TimelineArgs};
use crate::exit::{Classified, ExitStatus};
use crate::export::series::{self, write_series};
use crate::pipeline::series::{COMPANY_SERIES, only_company};

pub(super) async fn store(args: StoreArgs) -> Result<ExitStatus> {
    match args.command {
        StoreCommand::Info { dir } => {
            print!("{}", crate::store::info::describe(&dir).await?);
            Ok(ExitStatus::Ok)
        }
        StoreCommand::Series(args) => print_series(args).await,
        StoreCommand::Timeline(args) => print_timeline(args).await,
    }
}

/// One company's timeline; for a terminal, the columns a person reads.
async fn print_timeline(args: TimelineArgs) -> Result<ExitStatus> {
    let cnpj = parse_cnpj(&args.cnpj)?;
    let format = output_format(args.format, args.out.as_deref())?;
    let queries = default_queries_dir(args.queries.as_deref());
    let df = crate::pipeline::timeline::company_timeline(&args.dir, &cnpj, queries.as_deref()).await?;
    let df = match format {
        series::SeriesFormat::Table => {
            df.select(["data", "mudanca", "chave", "valor_anterior", "valor_novo", "snapshot"])?
        }
        _ => df,
    };
    write_series(&df, format, args.out.as_deref())?;
    Ok(ExitStatus::Ok)
}

/// The portfolio's series (`serie_carteira`), or one company's (`serie_exposicao_empresa`).
async fn print_series(args: SeriesArgs) -> Result<ExitStatus> {
    let cnpj = args.cnpj.as_deref().map(parse_cnpj).transpose()?;
    let format = output_format(args.format, args.out.as_deref())?;
    let dir = default_queries_dir(args.queries.as_deref());
    let queries = load_queries(dir.as_deref())?;
    let history_queries = load_history_queries(dir.as_deref())?;
    let (reader, snapshots) = crate::store::StoreReader::committed(&args.dir).await?;
    if snapshots.is_empty() {
        return Err(Classified::new(
            ExitStatus::BadInput,
            format!(
                "the store {} holds no snapshot yet: run `fiscal-report run --store {}` first",
                args.dir.display(),
                args.dir.display()
            ),
        )
        .into());
    }
    let history = crate::pipeline::series::portfolio_history(&reader, &snapshots, &queries, &history_queries)
        .await?
        .ok_or_else(|| {
            Classified::new(
                ExitStatus::BadInput,
                "the queries have no carteira_exposicao (query 14): the series follow its exposure; \
                 point --queries at a folder that has it",
            )
        })?;
    let table = if cnpj.is_some() { COMPANY_SERIES } else { PORTFOLIO_SERIES };
    let df = history.get(table).ok_or_else(|| {
        Classified::new(
            ExitStatus::BadInput,
            format!(
                "the series' queries have no {table}; point --queries at a folder whose historico/ has it"
            ),
        )
    })?;
    let df = match &cnpj {
        None => df.clone(),
        Some(c) => {
            let one = only_company(df, c.as_str())?;
            if one.height() == 0 {
                return Err(Classified::new(
                    ExitStatus::NotFound,
                    format!("{c} is in no snapshot of the store {}", args.dir.display()),
                )
                .into());
            }
            one
        }
    };
    write_series(&df, format, args.out.as_deref())?;
    Ok(ExitStatus::Ok)
}

/// `--format`, with `--format parquet` refused without `--out` before the store is read.
fn output_format(format: StoreFormat, out: Option<&std::path::Path>) -> Result<series::SeriesFormat> {
    if format == StoreFormat::Parquet && out.is_none() {
        return Err(
            Classified::new(ExitStatus::BadInput, "--format parquet needs a file: add --out FILE").into()
        );
    }
    Ok(match format {
        StoreFormat::Table => series::SeriesFormat::Table,
        StoreFormat::Csv => series::SeriesFormat::Csv,
        StoreFormat::Json => series::SeriesFormat::Json,
        StoreFormat::Parquet => series::SeriesFormat::Parquet,
    })
}

/// The history's table `store series` prints for the portfolio (one company's: `COMPANY_SERIES`).
const PORTFOLIO_SERIES: &str = "serie_carteira";

fn parse_cnpj(raw: &str) -> Result<Cnpj> {
    Cnpj::parse(raw).map_err(|e| {
        Classified::new(
            ExitStatus::BadInput,
            format!("--cnpj: {e}; write it masked (12.345.678/0001-95) or as 14 digits"),
        )
        .into()
    })
}
