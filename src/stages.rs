//! The stages after the fetch, in order: staged records -> typed frames -> aggregates ->
//! Parquet + manifest -> report. Also the way back in for `report --from DIR`: the frames
//! rebuilt from the Parquet a run exported.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use polars::prelude::*;

use crate::analyze::{default_queries_dir, load_queries, run_queries};
use crate::cli::ReportArgs;
use crate::exit::{Classified, ExitStatus};
use crate::export::FileMetadata;
use crate::export::manifest::Manifest;
use crate::export::tables::{partition_columns, write_aggregates, write_raw};
use crate::extract::FetchOutcome;
use crate::extract::staging::{StagedFetch, Table, TaskStatus};
use crate::transform::{CARTEIRA, CompanyStatus, Frames, QualityCount, build_frames};

/// Typed frames from the staged records of one or more finished fetches (shards of one run).
pub fn frames_from_staged(fetches: &[StagedFetch]) -> Result<Frames> {
    let mut segments: BTreeMap<Table, Vec<PathBuf>> = BTreeMap::new();
    let mut companies: BTreeMap<String, CompanyStatus> = BTreeMap::new();
    for staged in fetches {
        for t in Table::ALL {
            segments.entry(t).or_default().extend(staged.segment_paths(t));
        }
        for e in staged.tasks.values() {
            if let Some(cnpj) = e.task.strip_prefix("empresa/") {
                companies.insert(cnpj.to_string(), company_status(e.status));
            }
        }
    }
    let companies: Vec<(String, CompanyStatus)> = companies.into_iter().collect();
    Ok(build_frames(&segments, &companies)?)
}

fn company_status(s: TaskStatus) -> CompanyStatus {
    match s {
        TaskStatus::Done => CompanyStatus::Found,
        TaskStatus::NotFound => CompanyStatus::NotFound,
        TaskStatus::Failed => CompanyStatus::Failed,
    }
}

/// Typed frames from a finished fetch's staging.
pub fn frames_from_staging(outcome: &FetchOutcome) -> Result<Frames> {
    frames_from_staged(std::slice::from_ref(outcome.staging.staged()))
}

fn parquet_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            parquet_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "parquet") {
            out.push(p);
        }
    }
}

/// One exported raw table, with its partition columns put back (as strings: `ano_mes` is a
/// code, not a number). Polars' hive scan reads the files in parallel and decodes the
/// percent-encoded partition values the exporter writes.
pub fn read_exported_table(dir: &Path, table: &str) -> Result<DataFrame> {
    let root = dir.join(table);
    let mut files = Vec::new();
    parquet_files(&root, &mut files);
    if files.is_empty() {
        return Err(Classified::new(
            ExitStatus::BadInput,
            format!("{} holds no Parquet for table {table}; was the run finished?", root.display()),
        )
        .into());
    }
    let parts = partition_columns(table);
    let mut args = ScanArgsParquet { glob: true, ..Default::default() };
    args.hive_options = if parts.is_empty() {
        HiveOptions::new_disabled()
    } else {
        let schema: Schema = parts.iter().map(|p| Field::new((*p).into(), DataType::String)).collect();
        HiveOptions {
            enabled: Some(true),
            hive_start_idx: 0,
            schema: Some(std::sync::Arc::new(schema)),
            try_parse_dates: false,
        }
    };
    let pattern = format!("{}/**/*.parquet", root.display());
    let df = LazyFrame::scan_parquet(PlRefPath::new(pattern), args)
        .and_then(LazyFrame::collect)
        .map_err(|e| anyhow::anyhow!("reading {}: {e}", root.display()))?;
    Ok(df)
}

/// Typed frames rebuilt from a run's exported Parquet (for `report --from`).
pub fn frames_from_export(dir: &Path) -> Result<Frames> {
    let mut tables = BTreeMap::new();
    let mut quality = Vec::new();
    let names: Vec<&'static str> = Table::ALL.iter().map(|t| t.name()).chain([CARTEIRA]).collect();
    for name in names {
        let df = read_exported_table(dir, name)?;
        // A value that failed to parse kept its text in `<column>_raw`: count those again.
        for col in df.columns() {
            let Some(base) = col.name().strip_suffix("_raw") else { continue };
            let Ok(s) = col.str() else { continue };
            let failures = (s.len() - s.null_count()) as u64;
            if failures > 0 {
                let mut examples: Vec<String> = Vec::new();
                for v in s.iter().flatten() {
                    if examples.len() == 3 {
                        break;
                    }
                    if !examples.iter().any(|e| e == v) {
                        examples.push(v.to_string());
                    }
                }
                quality.push(QualityCount {
                    table: name.to_string(),
                    column: base.to_string(),
                    failures,
                    examples,
                });
            }
        }
        tables.insert(name, df);
    }
    Ok(Frames { tables, quality })
}

/// A run id that sorts by time: `20261121T233000Z-1a2b3c4d`.
pub fn new_run_id() -> String {
    let now = chrono::Utc::now();
    format!("{}-{}", now.format("%Y%m%dT%H%M%SZ"), &crate::pipeline::random_key()[..8])
}

/// Which raw tables `analyze_export_report` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawTables {
    /// A fresh run: write them.
    Write,
    /// `report --from`: they are the input; keep them and their manifest entries.
    Keep,
}

/// Aggregates, Parquet, manifest and report for `frames`, written into `out`.
pub fn analyze_export_report(
    frames: Frames,
    manifest: &mut Manifest,
    out: &Path,
    args: &ReportArgs,
    raw: RawTables,
) -> Result<()> {
    let queries = load_queries(default_queries_dir(args.queries.as_deref()).as_deref())
        .map_err(|e| Classified::new(ExitStatus::BadInput, e.to_string()))?;
    let aggregates =
        run_queries(&frames, &queries).map_err(|e| Classified::new(ExitStatus::BadInput, e.to_string()))?;
    let run_id = new_run_id();
    let fontes = serde_json::to_string(&manifest.fetch.fontes).unwrap_or_default();
    let meta = FileMetadata::default()
        .with("fiscal_report.version", env!("CARGO_PKG_VERSION"))
        .with("fiscal_report.run_id", &run_id)
        .with("fiscal_report.demo", manifest.demo.to_string())
        .with("fiscal_report.fontes", fontes);
    let mut files = match raw {
        RawTables::Write => write_raw(&frames, out, &meta).context("writing the raw tables")?,
        RawTables::Keep => manifest
            .files
            .iter()
            .filter(|f| !f.path.starts_with("aggregates/") && !f.path.starts_with("report."))
            .cloned()
            .collect(),
    };
    let quality = frames.data_quality()?;
    files.extend(write_aggregates(&aggregates, &quality, out, &meta).context("writing the aggregates")?);
    let rendered = crate::report::render_reports(&frames, &aggregates, manifest, &run_id, args, out)
        .map_err(|e| Classified::new(ExitStatus::BadInput, e.to_string()))?;
    files.extend(rendered);
    files.sort_by(|a, b| a.path.cmp(&b.path));
    manifest.run_id = Some(run_id);
    manifest.files = files;
    manifest.queries = queries.iter().map(|q| (q.table.clone(), q.sha256.clone())).collect();
    manifest.write(out).map_err(|e| {
        crate::exit::OutputError::wrap(
            out.join("manifest.json"),
            "free space on that disk (or fix its permissions), then run `report --from` on it: \
             the exported tables are kept",
            e,
        )
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_values_round_trip_through_export_and_scan() {
        let df = DataFrame::new(
            3,
            vec![
                Column::new("ano_mes".into(), ["202401", "202401", "202402"]),
                Column::new("uf".into(), [Some("../x y"), Some("SP"), None]),
                Column::new("v".into(), [1i64, 2, 3]),
            ],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let meta = FileMetadata::default();
        crate::export::tables::write_raw_table("creditos_ativos", &df, dir.path(), &meta).unwrap();
        let back = read_exported_table(dir.path(), "creditos_ativos").unwrap();
        let back = back.sort(["v"], Default::default()).unwrap();
        let uf: Vec<Option<&str>> = back.column("uf").unwrap().str().unwrap().iter().collect();
        assert_eq!(uf, vec![Some("../x y"), Some("SP"), None]);
        assert_eq!(back.column("ano_mes").unwrap().dtype(), &DataType::String);
    }
}
