//! A run's new snapshot: what it fetched plus what it carried from the store (the lists of
//! unchanged companies, the credit months not fetched again), committed as one store version.
//! The frames it returns are the ones committed, so the run's report and Parquet are made from
//! the store's new version.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use polars::prelude::*;

use super::{RunRecord, Store, StoreError, TABLES, table};
use crate::api::AnoMes;
use crate::extract::incremental::{KnownCompany, ListsReason};
use crate::extract::staging::{TaskEntry, TaskStatus};
use crate::tables::Table;
use crate::transform::Frames;
use crate::transform::frames::{quality_of_rejected_text, respell_vocabulary};

/// What the run was asked and did, beside its frames.
#[derive(Debug, Clone)]
pub struct SnapshotPlan {
    pub snapshot: AnoMes,
    pub months: Vec<AnoMes>,
    pub ufs: Vec<String>,
    pub credit_months_fetched: Vec<AnoMes>,
    pub run_id: String,
    /// From the fetch's summary: requests sent, companies by what happened to their lists.
    pub requests: u64,
    pub company_lists: BTreeMap<String, u64>,
}

const LIST_TABLES: [Table; 3] = [Table::DividasPgfn, Table::ParcelamentosRfb, Table::TransacoesRfb];

fn frame_err(table: &str) -> impl Fn(PolarsError) -> StoreError + '_ {
    move |e| StoreError::Delta { table: table.to_string(), message: e.to_string() }
}

/// Adds rows carried from the store to `table`'s fresh frame (in its column order), with their
/// data-quality counts, and spells the table's vocabularies again over all its rows.
fn carry(fresh: &mut Frames, table: Table, carried: DataFrame) -> Result<(), StoreError> {
    let name = table.name();
    fresh.add_quality(quality_of_rejected_text(table, &carried).map_err(frame_err(name))?);
    let Some(f) = fresh.tables.get_mut(name) else { return Ok(()) };
    let names: Vec<PlSmallStr> = f.get_column_names().into_iter().cloned().collect();
    f.vstack_mut_owned(carried.select(names).map_err(frame_err(name))?).map_err(frame_err(name))?;
    respell_vocabulary(table, f).map_err(frame_err(name))
}

/// Rows of `df` whose `cnpj` is in `keep`.
fn only_companies(df: DataFrame, keep: &BTreeSet<String>, table: &str) -> Result<DataFrame, StoreError> {
    let cnpj = df.column("cnpj").and_then(|c| c.str().cloned()).map_err(frame_err(table))?;
    let mask: BooleanChunked = cnpj.iter().map(|c| c.is_some_and(|c| keep.contains(c))).collect();
    df.filter(&mask).map_err(frame_err(table))
}

/// Builds the new snapshot from `fresh` (typed from this run's staging) and the store, commits
/// it, and returns the snapshot's frames and the new store version.
pub async fn commit_snapshot(
    store: &mut Store,
    mut fresh: Frames,
    entries: &[&TaskEntry],
    known: &HashMap<String, KnownCompany>,
    plan: &SnapshotPlan,
) -> Result<(Frames, RunRecord), StoreError> {
    let snapshot = plan.snapshot.to_string();
    let previous = store.last().map(|r| r.snapshot.clone()).filter(|s| !s.is_empty());
    let carried: BTreeSet<String> = entries
        .iter()
        .filter(|e| e.lists == Some(ListsReason::Carried))
        .filter_map(|e| e.task.strip_prefix("empresa/").map(str::to_string))
        .collect();

    // Lists of unchanged companies, from the previous snapshot.
    if let (Some(prev), false) = (&previous, carried.is_empty()) {
        for t in LIST_TABLES {
            let Some(df) = store.read(t.name(), &BTreeSet::from([prev.clone()])).await? else { continue };
            carry(&mut fresh, t, only_companies(df, &carried, t.name())?)?;
        }
    }
    // Credit months not fetched again.
    let fetched: BTreeSet<String> = plan.credit_months_fetched.iter().map(ToString::to_string).collect();
    let kept: BTreeSet<String> =
        plan.months.iter().map(ToString::to_string).filter(|m| !fetched.contains(m)).collect();
    let fresh_credits = fresh.tables.get(Table::CreditosAtivos.name()).cloned().unwrap_or_default();
    if let Some(df) = store.read(Table::CreditosAtivos.name(), &kept).await? {
        carry(&mut fresh, Table::CreditosAtivos, df)?;
    }

    let control = control_frame(&fresh, entries, known, &snapshot).map_err(frame_err("controle_empresas"))?;
    let mut versions = BTreeMap::new();
    let abort_after: Option<usize> =
        std::env::var("FISCAL_REPORT_TEST_ABORT_AFTER_TABLE_COMMITS").ok().and_then(|v| v.parse().ok());
    for (i, name) in TABLES.into_iter().enumerate() {
        let t = table(store.root(), name);
        let version = if name == "creditos_ativos" {
            t.replace(&fresh_credits, &fetched).await?
        } else {
            let mut df =
                if name == "controle_empresas" { control.clone() } else { fresh.tables[name].clone() };
            let n = df.height();
            df.with_column(Column::new("snapshot".into(), vec![snapshot.as_str(); n]))
                .map_err(frame_err(name))?;
            t.replace(&df, &BTreeSet::from([snapshot.clone()])).await?
        };
        versions.insert(name.to_string(), version);
        if abort_after == Some(i + 1) {
            // Fault injection for the crash-safety test: die as a SIGKILL would, mid-commit.
            std::process::abort();
        }
    }
    let record = store.append(RunRecord {
        kind: "run".into(),
        run_id: plan.run_id.clone(),
        snapshot,
        committed_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        ufs: plan.ufs.clone(),
        months: plan.months.iter().map(ToString::to_string).collect(),
        credit_months_fetched: fetched.into_iter().collect(),
        tables: versions,
        company_lists: plan.company_lists.clone(),
        requests: plan.requests,
        ..RunRecord::default()
    })?;
    Ok((fresh, record))
}

/// `controle_empresas` rows of this snapshot: each found company's fingerprint and `resumos`
/// as the service sent them, when its lists were last fetched and why.
fn control_frame(
    frames: &Frames,
    entries: &[&TaskEntry],
    known: &HashMap<String, KnownCompany>,
    snapshot: &str,
) -> PolarsResult<DataFrame> {
    let empresas = frames.tables.get(Table::Empresas.name()).cloned().unwrap_or_default();
    let fingerprints: HashMap<String, String> =
        match (empresas.column("cnpj"), empresas.column("snapshot_fingerprint")) {
            (Ok(c), Ok(f)) => c
                .str()?
                .iter()
                .zip(f.str()?.iter())
                .filter_map(|(c, f)| Some((c?.to_string(), f?.to_string())))
                .collect(),
            _ => HashMap::new(),
        };
    let (mut cnpj, mut fp, mut resumos, mut fetched, mut motivo) = (vec![], vec![], vec![], vec![], vec![]);
    for e in entries.iter().filter(|e| e.status == TaskStatus::Done) {
        let (Some(c), Some(reason)) = (e.task.strip_prefix("empresa/"), e.lists) else { continue };
        let lists_fetched = match reason {
            ListsReason::Carried => {
                known.get(c).map_or_else(|| snapshot.to_string(), |k| k.lists_fetched.to_string())
            }
            _ => snapshot.to_string(),
        };
        cnpj.push(c.to_string());
        fp.push(fingerprints.get(c).cloned());
        resumos.push(serde_json::to_string(&e.resumos).unwrap_or_default());
        fetched.push(lists_fetched);
        motivo.push(reason.name().to_string());
    }
    DataFrame::new(
        cnpj.len(),
        vec![
            Column::new("cnpj".into(), cnpj),
            Column::new("snapshot_fingerprint".into(), fp),
            Column::new("resumos".into(), resumos),
            Column::new("listas_buscadas_em".into(), fetched),
            Column::new("motivo".into(), motivo),
        ],
    )
}
