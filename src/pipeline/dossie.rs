//! `fiscal-report dossie CNPJ...`: one dossier per company, fetched whole from the service (the
//! embedded registry without --base-url) and rendered into DIR/dossies/.

use anyhow::Result;
use futures::future::join_all;

use super::series::{TIMELINE, exposure_history, only};
use crate::analyze::{load_queries, run_queries_with};
use crate::api::{ApiError, Cnpj};
use crate::codes::CodeTables;
use crate::config::DossieSettings;
use crate::exit::{Classified, ExitStatus};
use crate::extract::dossier_records::fetch_dossier;

/// The queries that judge a company's estimated tax standing (the second reads the first).
const STANDING_QUERIES: [&str; 2] = ["situacao_fiscal_por_retrato", "situacao_fiscal_estimada"];

/// Requests in flight for `dossie` (a handful of companies, each with a dozen short lists).
const DOSSIER_CONCURRENCY: usize = 8;

pub(crate) async fn dossie(settings: DossieSettings) -> Result<ExitStatus> {
    let DossieSettings { cnpjs, out, source, folders, store } = settings;
    // The analyst's folders are read before anything is fetched: a broken one costs nothing.
    let codes = CodeTables::load(folders.codes.as_deref())?;
    let queries = load_queries(folders.queries.as_deref())?;
    let demo = source.base_url.is_none();
    let source = super::source::open(&source).await?;
    // The monthly fetch's pool: retries with backoff, 429s waited out (no --max-rps here).
    let fetcher = crate::extract::Records::service(crate::extract::PageFetcher::new(
        source.client.clone(),
        DOSSIER_CONCURRENCY,
        None,
        crate::extract::RetryPolicy::for_run(),
        std::sync::Arc::default(),
    ));
    // A CNPJ the service does not know costs its own dossier, not the others'.
    let mut records = Vec::new();
    let mut unknown = Vec::new();
    for (cnpj, result) in cnpjs.iter().zip(join_all(cnpjs.iter().map(|c| fetch_dossier(&fetcher, c))).await) {
        match result {
            Ok(r) => records.push(r),
            Err(ApiError::NotFound { .. }) => unknown.push(cnpj.masked()),
            Err(e) => return Err(e.into()),
        }
    }
    if records.is_empty() {
        return Err(Classified::new(
            ExitStatus::NotFound,
            format!(
                "the service knows none of {}: no dossier written; check the numbers",
                unknown.join(", ")
            ),
        )
        .into());
    }
    let cnpjs: Vec<Cnpj> = records.iter().map(|r| r.cnpj.clone()).collect();
    let options = folders.report_options();
    let label = (!demo).then_some(source.base_url.as_str());
    let (tables, quality) = crate::transform::dossier_tables::dossier_frames(&records)?;
    for q in &quality {
        tracing::warn!(
            "{}.{}: {} values could not be read (e.g. {:?})",
            q.table,
            q.column,
            q.failures,
            q.examples
        );
    }
    let meta = crate::export::FileMetadata::default()
        .with("fiscal_report.version", env!("CARGO_PKG_VERSION"))
        .with("fiscal_report.demo", demo.to_string());
    crate::export::tables::write_dossier_tables(tables, &out, &meta)?;
    // The standing is the queries' judgement, run on these companies as on a monthly run.
    let standing = run_queries_with(
        &crate::transform::dossier_tables::standing_frames(&records)?,
        None,
        &only(&queries, &STANDING_QUERIES),
    )?;
    let (history, timeline, sancoes) = match &store {
        Some(root) => {
            let store = crate::store::Store::open(root).await?;
            let (reader, snapshots) = (store.reader(), store.snapshots());
            let history = exposure_history(&reader, &snapshots, &cnpjs, &queries).await?;
            let query = only(&crate::analyze::load_history_queries(folders.queries.as_deref())?, &[TIMELINE]);
            let timelines = super::timeline::timelines(&reader, &snapshots, &query).await?;
            (
                Some(history),
                crate::report::dossier_page::timeline_of(Some(&timelines), &codes, folders.locale),
                latest_sancoes(&reader, &snapshots).await?,
            )
        }
        None => (None, None, None),
    };
    let judged = crate::report::dossier_page::Judged {
        standings: crate::report::dossier_page::standings(&standing),
        history,
        timeline,
        sancoes,
        // `dossie` asks the service, which has no regime: only a run over the files shows it.
        regimes: None,
    };
    let written =
        crate::report::dossier_page::render_dossiers(&records, &judged, &codes, &options, label, demo, &out)?;
    crate::say!("{} dossiers -> {}", written.len() / 2, out.join(crate::export::DOSSIER_DIR).display());
    if unknown.is_empty() {
        return Ok(ExitStatus::Ok);
    }
    crate::say!("no dossier for {}: the service does not know them (exit 5)", unknown.join(", "));
    Ok(ExitStatus::NotFound)
}

/// The public-list records of the store's latest snapshot (`sancoes`, as the monthly run
/// matched them), for each dossier to show its company's; `None` when the snapshot holds none
/// (its run may have read no list), so a dossier never claims its company is on none. The lists themselves are read by
/// `run` (`--open-data`, `--listas-dir`), which this command does not repeat.
async fn latest_sancoes(
    reader: &crate::store::StoreReader,
    snapshots: &std::collections::BTreeSet<String>,
) -> Result<Option<polars::prelude::DataFrame>> {
    let table = crate::store::snapshot::SANCOES_TABLE;
    let Some(latest) = snapshots.last() else { return Ok(None) };
    if !reader.holds(table) {
        return Ok(None);
    }
    let at = std::collections::BTreeSet::from([latest.clone()]);
    Ok(reader.read(table, &at).await?.filter(|df| df.height() > 0))
}
