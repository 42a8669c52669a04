//! The run's own facts: what was asked, what it cost, what failed, and the data-quality counts.

use rust_decimal::Decimal;

use super::super::cells::int;
use super::model::*;
use crate::analyze::Aggregates;
use crate::export::manifest::Manifest;
use crate::report::format::Locale;
use crate::report::strings::Strings;
use crate::transform::Frames;

pub(super) fn incomplete(manifest: &Manifest, aggs: &Aggregates) -> Option<Incomplete> {
    let failed_tasks = manifest.fetch.tasks_failed.len();
    let failed_companies =
        aggs.get("carteira_resumo").and_then(|r| int(r, "com_falha", 0)).unwrap_or(0).max(0);
    (failed_tasks > 0 || failed_companies > 0).then_some(Incomplete { failed_tasks, failed_companies })
}

/// A release read with `--partial`: the files a whole release has that it lacked or held
/// broken, by name (else, on a store, the files of the datasets it did not renew), and the
/// snapshot their records were carried from.
pub(super) fn partial_release(manifest: &Manifest) -> Option<PartialRelease> {
    let note = manifest.open_data.as_ref()?;
    let files: Vec<String> = if note.gaps.is_empty() {
        note.carried.keys().map(|d| crate::extract::open_data::files_of(d)).collect()
    } else {
        note.gaps.iter().map(|g| g.file.rsplit('/').next().unwrap_or(&g.file).to_string()).collect()
    };
    let carried_from = note.carried.values().next().cloned();
    (!files.is_empty()).then_some(PartialRelease { files, carried_from })
}

/// A part of a split run (`--shard K/N`, N > 1): its report covers only that part.
pub(super) fn shard_part(manifest: &Manifest) -> Option<ShardPart> {
    let shard = &manifest.plan.shard;
    (shard.count > 1).then(|| ShardPart { part: shard.index + 1, of: shard.count })
}

pub(super) fn run_info(
    manifest: &Manifest,
    frames: &Frames,
    run_id: &str,
    locale: Locale,
    t: &Strings,
) -> RunInfo {
    let f = &manifest.fetch;
    const SHOWN: usize = 20;
    RunInfo {
        run_id: run_id.to_string(),
        generated_at: chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
        version: manifest.version.clone(),
        source: if manifest.demo { t.get("fonte_embutida") } else { manifest.plan.base_url.clone() },
        first_month: manifest.plan.months.first().cloned().unwrap_or_default(),
        last_month: manifest.plan.months.last().cloned().unwrap_or_default(),
        month_count: manifest.plan.months.len(),
        ufs: if manifest.plan.ufs.len() == 27 { t.get("todas_as_ufs") } else { manifest.plan.ufs.join(", ") },
        portfolio_size: manifest.plan.portfolio_size,
        portfolio_skipped: manifest.carteira.as_ref().map_or(0, |c| c.linhas_ignoradas.len()),
        shard: format!("{}/{}", manifest.plan.shard.index, manifest.plan.shard.count),
        fontes: f
            .fontes
            .iter()
            .map(|(k, v)| {
                (k.clone(), v.status.clone().unwrap_or_default(), v.versao.clone().unwrap_or_default())
            })
            .collect(),
        requests: f.requests.requests,
        retries: f.requests.retries,
        rate_limited: f.requests.rate_limited,
        failed_tasks: f.tasks_failed.len(),
        wall_seconds: super::super::format::number(
            Decimal::from_f64_retain(f.wall_seconds).unwrap_or_default(),
            1,
            locale,
        ),
        by_operation: f
            .requests
            .by_operation
            .iter()
            .map(|(op, outcomes)| RequestRow {
                operation: op.clone(),
                outcomes: outcomes.iter().map(|(k, n)| format!("{k}: {n}")).collect::<Vec<_>>().join(", "),
            })
            .collect(),
        quality: frames
            .quality_in_order()
            .into_iter()
            .map(|q| QualityRow {
                table: q.table.clone(),
                column: q.column.clone(),
                failures: q.failures,
                placeholders: q.placeholders,
                examples: q.examples.clone(),
            })
            .collect(),
        schema_drift: f
            .requests
            .drifted()
            .flat_map(|(op, d)| {
                let row = move |(field, n): (&String, &u64), added: bool| DriftRow {
                    operation: op.clone(),
                    field: field.clone(),
                    added,
                    records: *n,
                    of_records: d.records,
                };
                d.unknown_fields
                    .iter()
                    .map(move |e| row(e, true))
                    .chain(d.missing_fields.iter().map(move |e| row(e, false)))
            })
            .collect(),
        warnings: f.warnings.iter().take(SHOWN).cloned().collect(),
        warnings_more: f.warnings.len().saturating_sub(SHOWN),
    }
}
