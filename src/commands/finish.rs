//! The stages after the fetch, in order, for `run`, `merge` and `report --from`: typed frames ->
//! aggregates -> Parquet + manifest -> report. `run` with a store commits between the analysis
//! and the export (the changes the analysis found are part of the store version).

use std::path::Path;

use anyhow::{Context, Result};

use crate::analyze::{Aggregates, Query, default_queries_dir, load_queries, run_queries_with};
use crate::cli::ReportArgs;
use crate::codes::{CodeTables, default_codes_dir};
use crate::exit::OutputError;
use crate::export::FileMetadata;
use crate::export::manifest::Manifest;
use crate::export::tables::{write_aggregates, write_dimensions, write_raw};
use crate::store::snapshot::PreviousSnapshot;
use crate::transform::Frames;

/// A run id that sorts by time: `20261121T233000Z-1a2b3c4d`.
pub fn new_run_id() -> String {
    let now = chrono::Utc::now();
    format!("{}-{}", now.format("%Y%m%dT%H%M%SZ"), &super::source::random_key()[..8])
}

/// Which raw tables `analyze_export_report` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawTables {
    /// A fresh run: write them.
    Write,
    /// `report --from`: they are the input; keep them and their manifest entries.
    Keep,
}

/// The analyze stage's output: the queries run and their results.
pub struct Analysis {
    pub queries: Vec<Query>,
    pub aggregates: Aggregates,
}

/// Runs the queries over `frames`, with the previous snapshot beside them when a store has one.
pub fn analyze(frames: &Frames, previous: Option<&PreviousSnapshot>, args: &ReportArgs) -> Result<Analysis> {
    let queries = load_queries(default_queries_dir(args.queries.as_deref()).as_deref())?;
    let aggregates = run_queries_with(frames, previous, &queries)?;
    Ok(Analysis { queries, aggregates })
}

/// Aggregates, Parquet, manifest and report for `frames`, written into `out`.
pub fn analyze_export_report(
    frames: Frames,
    manifest: &mut Manifest,
    out: &Path,
    args: &ReportArgs,
    raw: RawTables,
) -> Result<()> {
    let analysis = analyze(&frames, None, args)?;
    export_report(frames, analysis, manifest, out, args, raw)
}

/// Parquet, manifest and report for `frames` and their `analysis`, written into `out`.
pub fn export_report(
    frames: Frames,
    analysis: Analysis,
    manifest: &mut Manifest,
    out: &Path,
    args: &ReportArgs,
    raw: RawTables,
) -> Result<()> {
    let Analysis { queries, aggregates } = analysis;
    let codes = CodeTables::load(default_codes_dir(args.codes.as_deref()).as_deref())?;
    // A run that committed to a store gives its outputs the id its store version carries.
    let run_id = match (raw, &manifest.store) {
        (RawTables::Write, Some(store)) => store.run_id.clone(),
        _ => new_run_id(),
    };
    let fontes = serde_json::to_string(&manifest.fetch.fontes).unwrap_or_default();
    let meta = FileMetadata::default()
        .with("fiscal_report.version", env!("CARGO_PKG_VERSION"))
        .with("fiscal_report.run_id", &run_id)
        .with("fiscal_report.demo", manifest.demo.to_string())
        .with("fiscal_report.fontes", fontes);
    let mut files = match raw {
        RawTables::Write => write_raw(&frames, out, &meta).context("writing the raw tables")?,
        // The raw tables' entries stay; everything made from them is made again below.
        RawTables::Keep => manifest
            .files
            .iter()
            .filter(|f| f.path.split('/').next().is_some_and(|top| frames.tables.contains_key(top)))
            .cloned()
            .collect(),
    };
    let quality = frames.data_quality()?;
    files.extend(write_aggregates(&aggregates, &quality, out, &meta).context("writing the aggregates")?);
    files.extend(write_dimensions(&codes, out, &meta).context("writing the code tables")?);
    let rendered = crate::report::render_reports(
        &frames,
        &aggregates,
        &codes,
        manifest,
        &run_id,
        &args.report_options(),
        out,
    )?;
    files.extend(rendered);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    manifest.run_id = Some(run_id);
    manifest.files = files;
    manifest.queries = queries.iter().map(|q| (q.table.clone(), q.sha256.clone())).collect();
    manifest.write(out).map_err(|e| {
        OutputError::wrap(
            out.join("manifest.json"),
            "free space on that disk (or fix its permissions), then run `report --from` on it: \
             the exported tables are kept",
            e,
        )
    })?;
    Ok(())
}
