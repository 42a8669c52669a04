//! The outputs of `run`, `merge` and `report --from` once the analysis is done: Parquet, the
//! alerts, the report and its dossiers, the PDF, and the manifest last. `run` with a store
//! commits between the analysis and these (the changes the analysis found are part of the store
//! version).

use std::path::Path;

use anyhow::{Context, Result};

use super::analysis::{Analysis, analyze};
use super::watch::{Outputs, Watch};
use crate::analyze::{Aggregates, Query};
use crate::codes::CodeTables;
use crate::config::ReportSettings;
use crate::exit::OutputError;
use crate::export::manifest::{AlertsNote, FileEntry, Manifest};
use crate::export::partition::BegunTable;
use crate::export::tables::{write_aggregates, write_dimensions, write_query_inputs, write_raw};
use crate::export::{DOSSIER_DIR, FileMetadata};
use crate::monitor::alerts::{count_by_rule, count_by_severity};
use crate::monitor::lifecycle::{TrackedAlert, all_new, count_by_state};
use crate::transform::Frames;

/// A run id that sorts by time: `20261121T233000Z-1a2b3c4d`.
pub(super) fn new_run_id() -> String {
    let now = chrono::Utc::now();
    format!("{}-{}", now.format("%Y%m%dT%H%M%SZ"), &super::source::random_key()[..8])
}

/// Which raw tables `analyze_export_report` writes.
pub(super) enum RawTables {
    /// A fresh run: write them (those begun while the fetch ran are finished).
    Write(Vec<BegunTable>),
    /// `report --from`: they are the input; keep them and their manifest entries.
    Keep,
}

/// Aggregates, Parquet, manifest and report for `frames`, written into `out`.
pub(super) fn analyze_export_report(
    frames: Frames,
    manifest: &mut Manifest,
    out: &Path,
    args: &ReportSettings,
    watch: &Watch,
    raw: RawTables,
) -> Result<Outputs> {
    let mut frames = frames;
    let analysis = analyze(&mut frames, None, args, manifest)?;
    export_report(frames, analysis, manifest, out, args, watch, raw)
}

/// Parquet, alerts, manifest and report for `frames` and their `analysis`, written into
/// `out`; returns the alerts the watch rules raised and whether the PDF was printed.
pub(super) fn export_report(
    mut frames: Frames,
    analysis: Analysis,
    manifest: &mut Manifest,
    out: &Path,
    args: &ReportSettings,
    watch: &Watch,
    raw: RawTables,
) -> Result<Outputs> {
    let Analysis { queries, aggregates, dossiers, dossier_history, history, alerts } = analysis;
    let started = std::time::Instant::now();
    let raw_tables = if matches!(raw, RawTables::Write(_)) { frames.names().len() } else { 0 };
    // The raw tables, then the aggregates, the code tables and the dossiers' tables.
    let stage = crate::progress::begin("export", "tables", raw_tables as u64 + 3);
    let codes = CodeTables::load(args.folders.codes.as_deref())?
        .with_release(&out.join(crate::codes::RELEASE_DIR))?;
    let run_id = run_id_of(&raw, manifest);
    let meta = file_metadata(manifest, &run_id);
    let fresh = matches!(raw, RawTables::Write(_));
    let mut files = raw_table_files(raw, &frames, manifest, out, &meta, history.is_some())?;
    // The report links the dossiers this run writes and, on a re-render, those it kept.
    let linked: std::collections::BTreeSet<String> = dossiers
        .iter()
        .map(|d| d.cnpj.as_str().to_string())
        .chain(files.iter().filter_map(|f| kept_dossier_page(&f.path)))
        .collect();
    frames.add_quality(crate::monitor::reconciliation::summary_disagreements(&aggregates));
    let dossier_tables = if dossiers.is_empty() {
        Vec::new()
    } else {
        let (tables, quality) = crate::transform::dossier_tables::dossier_frames(&dossiers)?;
        frames.add_quality(quality);
        tables
    };
    let quality = frames.data_quality()?;
    files.extend(write_derived_tables(&aggregates, &quality, &codes, dossier_tables, out, &meta)?);
    files.extend(write_history(history.as_ref(), fresh, out, &meta)?);
    let alerts = raise_alerts(watch, &aggregates, alerts, out, manifest, &mut files)?;
    // The bar goes before the stage's own line is logged.
    drop(stage);
    manifest.time_stage("export", started);
    let started = std::time::Instant::now();
    // report.html, report.md, report.xlsx, then the dossiers' pages.
    let stage = crate::progress::begin("report", "files", 4);
    let inputs = crate::report::ReportInputs {
        frames: &frames,
        aggregates: &aggregates,
        quality: &quality,
        alerts: alerts.as_deref(),
        dossiers: &linked,
        codes: &codes,
        manifest,
        run_id: &run_id,
        history: history.as_ref(),
    };
    let judged = crate::report::dossier_page::Judged {
        // Only the dossiers show it, company by company.
        timeline: if dossiers.is_empty() {
            None
        } else {
            crate::report::dossier_page::timeline_of(history.as_ref(), &codes, args.folders.locale)
        },
        standings: crate::report::dossier_page::standings_since(&aggregates, history.as_ref()),
        history: dossier_history,
        sancoes: aggregates
            .get("sancoes")
            .filter(|df| df.height() > 0 || crate::report::view::sancoes::listas_read(&frames))
            .cloned(),
        regimes: frames
            .get(crate::transform::regime::REGIME_TRIBUTARIO)
            .filter(|df| df.height() > 0)
            .cloned(),
    };
    let (rendered, digest) = render_report(&inputs, &dossiers, &judged, args, out)?;
    files.extend(rendered);
    drop(stage);
    manifest.time_stage("report", started);
    let pdf = print_pdf_if_asked(args, out, manifest, &mut files);
    write_run_manifest(manifest, files, run_id, &queries, out)?;
    Ok(Outputs { alerts: alerts.unwrap_or_default(), pdf, digest: Some(digest) })
}

/// A run that committed to a store gives its outputs the id its store version carries.
fn run_id_of(raw: &RawTables, manifest: &Manifest) -> String {
    match (raw, &manifest.store) {
        (RawTables::Write(_), Some(store)) => store.run_id.clone(),
        _ => new_run_id(),
    }
}

/// What every Parquet file of the run says about where it came from.
fn file_metadata(manifest: &Manifest, run_id: &str) -> FileMetadata {
    let fontes = serde_json::to_string(&manifest.fetch.fontes).unwrap_or_default();
    FileMetadata::default()
        .with("fiscal_report.version", env!("CARGO_PKG_VERSION"))
        .with("fiscal_report.run_id", run_id)
        .with("fiscal_report.demo", manifest.demo.to_string())
        .with("fiscal_report.fontes", fontes)
}

/// The raw tables' files: written, or on a re-render the entries the manifest has for them (and
/// for the series, unless the re-render writes them again: `series_written`).
fn raw_table_files(
    raw: RawTables,
    frames: &Frames,
    manifest: &Manifest,
    out: &Path,
    meta: &FileMetadata,
    series_written: bool,
) -> Result<Vec<FileEntry>> {
    Ok(match raw {
        RawTables::Write(begun) => write_raw(frames, begun, out, meta).context("writing the raw tables")?,
        // The raw tables' entries stay, and the dossiers' (pages and tables: a re-render does
        // not fetch them again); everything made from the raw tables is made again.
        RawTables::Keep => manifest
            .files
            .iter()
            .filter(|f| {
                f.path.split('/').next().is_some_and(|top| {
                    frames.contains(top)
                        || top == DOSSIER_DIR
                        || (top == crate::export::tables::HISTORY_DIR && !series_written)
                })
            })
            .cloned()
            .collect(),
    })
}

/// The aggregates (with the data-quality table), the code tables and the dossiers' tables.
fn write_derived_tables(
    aggregates: &Aggregates,
    quality: &polars::prelude::DataFrame,
    codes: &CodeTables,
    dossier_tables: crate::transform::dossier_tables::DossierTables,
    out: &Path,
    meta: &FileMetadata,
) -> Result<Vec<FileEntry>> {
    let mut files = write_aggregates(aggregates, quality, out, meta).context("writing the aggregates")?;
    files.extend(write_query_inputs(aggregates, out, meta).context("writing the queries' other tables")?);
    crate::progress::step("aggregates");
    files.extend(write_dimensions(codes, out, meta).context("writing the code tables")?);
    crate::progress::step("dimensoes");
    files.extend(
        crate::export::tables::write_dossier_tables(dossier_tables, out, meta)
            .context("writing the dossiers' tables")?,
    );
    crate::progress::step("dossies");
    Ok(files)
}

/// The series of a run on a store, and of a re-render of one (`report --from`) that could read
/// that store. A re-render without them keeps the files the run wrote; a fresh run without a
/// store leaves none of an earlier run's behind.
fn write_history(
    history: Option<&Aggregates>,
    fresh: bool,
    out: &Path,
    meta: &FileMetadata,
) -> Result<Vec<FileEntry>> {
    match (history, fresh) {
        (Some(h), _) => Ok(crate::export::tables::write_history(h, out, meta).context("writing the series")?),
        (None, true) => {
            crate::export::tables::remove_history(out);
            Ok(Vec::new())
        }
        (None, false) => Ok(Vec::new()),
    }
}

/// With watch rules: their alerts (`tracked` when a store judged them against the open ones,
/// else all new), written to `alertas.jsonl` and counted in the manifest. Without: an earlier
/// run's alerts file removed.
fn raise_alerts(
    watch: &Watch,
    aggregates: &Aggregates,
    tracked: Option<Vec<TrackedAlert>>,
    out: &Path,
    manifest: &mut Manifest,
    files: &mut Vec<FileEntry>,
) -> Result<Option<Vec<TrackedAlert>>> {
    let Some((path, rules)) = &watch.rules else {
        crate::export::alerts_file::remove_stale_alerts(out);
        manifest.alertas = None;
        return Ok(None);
    };
    let alerts = tracked.unwrap_or_else(|| {
        let fired = rules.evaluate(aggregates);
        let snapshot = fired.iter().find_map(|a| a.snapshot.clone()).unwrap_or_default();
        all_new(fired, &snapshot)
    });
    files.push(crate::export::alerts_file::write_alerts(out, &alerts).map_err(|e| {
        OutputError::wrap(
            out.join(crate::export::alerts_file::ALERTS_FILE),
            "free space on that disk (or fix its permissions), then run again",
            e,
        )
    })?);
    let por_regra = count_by_rule(alerts.iter().map(|a| &a.alerta))
        .into_iter()
        .map(|(r, n)| (r.to_string(), n))
        .collect();
    let por_estado = count_by_state(&alerts).into_iter().map(|(e, n)| (e.to_string(), n)).collect();
    let por_severidade = count_by_severity(alerts.iter().map(|a| &a.alerta))
        .into_iter()
        .map(|(s, n)| (s.to_string(), n))
        .collect();
    manifest.alertas =
        Some(AlertsNote { regras: path.clone(), total: alerts.len(), por_regra, por_estado, por_severidade });
    Ok(Some(alerts))
}

/// report.html, report.md and report.xlsx, then the dossiers' pages; and what a message about
/// the report repeats of it.
fn render_report(
    inputs: &crate::report::ReportInputs<'_>,
    dossiers: &[crate::extract::dossier_records::DossierRecords],
    judged: &crate::report::dossier_page::Judged,
    args: &ReportSettings,
    out: &Path,
) -> Result<(Vec<FileEntry>, crate::report::digest::Digest)> {
    let (mut files, digest) = crate::report::render_reports(inputs, &args.folders.report_options(), out)?;
    let source = (!inputs.manifest.demo).then_some(inputs.manifest.plan.base_url.as_str());
    files.extend(crate::report::dossier_page::render_dossiers(
        dossiers,
        judged,
        inputs.codes,
        &args.folders.report_options(),
        source,
        inputs.manifest.demo,
        out,
    )?);
    crate::progress::step("dossies");
    Ok((files, digest))
}

/// The PDF last: a missing browser must not cost any other output (the manifest included).
/// An earlier report.pdf would show old figures beside the new ones: it goes first. Returns
/// the problem when `--pdf` could not be printed.
fn print_pdf_if_asked(
    args: &ReportSettings,
    out: &Path,
    manifest: &mut Manifest,
    files: &mut Vec<FileEntry>,
) -> Option<crate::report::pdf::PdfError> {
    crate::report::pdf::remove_stale_pdf(out);
    if !args.pdf {
        return None;
    }
    let started = std::time::Instant::now();
    let printed = crate::report::pdf::find_browser(args.browser.as_deref())
        .and_then(|browser| crate::report::pdf::print_pdf(out, &browser));
    manifest.time_stage("pdf", started);
    match printed {
        Ok(entry) => {
            files.push(entry);
            None
        }
        Err(problem) => Some(problem),
    }
}

/// The manifest last, naming every file the run wrote.
fn write_run_manifest(
    manifest: &mut Manifest,
    mut files: Vec<FileEntry>,
    run_id: String,
    queries: &[Query],
    out: &Path,
) -> Result<()> {
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
/// The CNPJ of a kept dossier page's manifest path (`dossies/<cnpj>.html`).
fn kept_dossier_page(path: &str) -> Option<String> {
    let page = path.strip_prefix(DOSSIER_DIR)?.strip_prefix('/')?.strip_suffix(".html")?;
    page.bytes().all(|b| b.is_ascii_digit()).then(|| page.to_string())
}
