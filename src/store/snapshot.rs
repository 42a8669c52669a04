//! A run's new snapshot: what it fetched plus what it carried from the store (the lists of
//! unchanged companies, the credit months not fetched again), assembled with the previous
//! snapshot beside it, then committed with the tables derived from both (the changes) as one
//! store version. The frames are the ones committed, so the run's report and Parquet are made
//! from the store's new version.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use polars::prelude::*;

use super::carry::{frame_err, only_companies};
use super::{RunRecord, Store, StoreError, StoreReader, TABLES, table};
use crate::api::AnoMes;
use crate::extract::incremental::{KnownCompany, RecordsReason};
use crate::extract::staging::{TaskEntry, TaskStatus};
use crate::tables::Table;
use crate::transform::Frames;
use crate::transform::typing::quality_of_rejected_text;
use crate::transform::vocabulary::respell_vocabulary;

/// What the run was asked and did, beside its frames.
#[derive(Debug, Clone)]
pub(crate) struct SnapshotPlan {
    pub snapshot: AnoMes,
    pub months: Vec<AnoMes>,
    pub ufs: Vec<String>,
    pub credit_months_fetched: Vec<AnoMes>,
    pub run_id: String,
    /// From the fetch's summary: requests sent, companies by what happened to their records.
    pub requests: u64,
    pub company_records: BTreeMap<String, u64>,
    /// From the publishers' files: the datasets the snapshot holds, and of them the ones its
    /// release did not renew, carried from the previous snapshot (`store::carry`).
    pub open_data: BTreeSet<String>,
    pub not_renewed: BTreeSet<String>,
}

const LIST_TABLES: [Table; 4] =
    [Table::DividasPgfn, Table::ParcelamentosRfb, Table::TransacoesRfb, Table::Socios];
/// Tables the analysis derives from the snapshot (and the previous one): query results of the
/// same name, committed with the snapshot.
pub(crate) const DERIVED_TABLES: [&str; 4] =
    ["mudancas", "situacao_fiscal_estimada", SANCOES_TABLE, REGIME_TABLE];
/// The portfolio's records on the public lists (`queries/27_sancoes.sql`): kept per snapshot
/// so the next one's changes say who entered and left each list.
pub(crate) const SANCOES_TABLE: &str = "sancoes";
/// The portfolio's tax regimes (`queries/21_regime_carteira.sql`): kept per snapshot so the
/// next one's changes say who changed regime.
pub(crate) const REGIME_TABLE: &str = "regime_carteira";
/// The watch rules' alerts of each snapshot, committed with it (made by the monitor stage).
pub(crate) const ALERTS_TABLE: &str = "alertas";

/// The company tables of a snapshot: carried, compared with the previous snapshot's.
pub(crate) const COMPANY_TABLES: [Table; 5] =
    [Table::Empresas, Table::DividasPgfn, Table::ParcelamentosRfb, Table::TransacoesRfb, Table::Socios];

/// Adds rows carried from the store to `table`'s fresh frame (in its column order), with their
/// data-quality counts, and spells the table's vocabularies again over all its rows.
fn carry(fresh: &mut Frames, table: Table, mut carried: DataFrame) -> Result<(), StoreError> {
    let name = table.name();
    let Some(f) = fresh.tables.get_mut(name) else { return Ok(()) };
    let names: Vec<PlSmallStr> = f.get_column_names().into_iter().cloned().collect();
    // Rows of a snapshot written before the table gained a column: it is empty in them.
    super::delta::conform(&mut carried, f.schema()).map_err(frame_err(name))?;
    f.vstack_mut_owned(carried.select(names).map_err(frame_err(name))?).map_err(frame_err(name))?;
    respell_vocabulary(table, f).map_err(frame_err(name))?;
    fresh.add_quality(quality_of_rejected_text(table, &carried).map_err(frame_err(name))?);
    Ok(())
}

/// A new snapshot assembled and not yet committed: its frames (what the run reports) and the
/// previous snapshot's, for the changes between them.
pub(crate) struct Assembled {
    pub frames: Frames,
    pub previous: Option<PreviousSnapshot>,
    fresh_credits: DataFrame,
    control: DataFrame,
}

/// The company tables of the snapshot before this run's (an earlier month), as the store holds
/// them, and its `sancoes` (under that name); what the changes are measured against.
pub struct PreviousSnapshot {
    /// This run's snapshot, and the one compared with.
    pub current: String,
    pub snapshot: String,
    pub tables: BTreeMap<&'static str, DataFrame>,
    /// The alerts of that snapshot (`alertas`), the open ones of which this run judges.
    pub alerts: Option<DataFrame>,
}

/// What the store gives a new snapshot that is known before the fetch: the last snapshot's
/// lists (whose unchanged companies are carried), the credit months not fetched again, and the
/// previous snapshot's company tables. Read while the fetch waits on the network.
pub(crate) struct StoreReads {
    last_records: BTreeMap<&'static str, DataFrame>,
    kept_credits: Option<DataFrame>,
    previous: Option<PreviousSnapshot>,
}

/// The store's reads under way. Dropped unused (an error before the snapshot, a release already
/// stored) they are waited for: cut at the runtime's shutdown mid-read, delta's executor thread
/// panics, and a refused run would end on "internal error".
pub(crate) struct PendingReads(Option<tokio::task::JoinHandle<Result<StoreReads, StoreError>>>);

impl Drop for PendingReads {
    fn drop(&mut self) {
        let Some(reads) = self.0.take().filter(|r| !r.is_finished()) else { return };
        let runtime = tokio::runtime::Handle::current();
        if runtime.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread {
            tokio::task::block_in_place(|| {
                let _ = runtime.block_on(reads);
            });
        }
    }
}

impl PendingReads {
    /// The reads, to await where the snapshot is assembled.
    pub(crate) fn into_handle(mut self) -> Option<tokio::task::JoinHandle<Result<StoreReads, StoreError>>> {
        self.0.take()
    }
}

/// Starts reading what `assemble_snapshot` needs from the store for a run at `snapshot` over
/// `months` that fetches the credits of `credit_months`; `carry_records` is false under `--full`,
/// when no company's lists are carried.
pub(crate) fn read_ahead(
    store: &Store,
    snapshot: AnoMes,
    months: &[AnoMes],
    credit_months: &[AnoMes],
    carry_records: bool,
) -> PendingReads {
    let reader = store.reader();
    let snapshot = snapshot.to_string();
    let last = store.last().map(|r| r.snapshot.clone()).filter(|s| !s.is_empty() && carry_records);
    let snapshots = store.snapshots();
    let fetched: BTreeSet<String> = credit_months.iter().map(ToString::to_string).collect();
    let kept: BTreeSet<String> =
        months.iter().map(ToString::to_string).filter(|m| !fetched.contains(m)).collect();
    PendingReads(Some(tokio::spawn(async move {
        let mut tables = ReadOnce::new(&reader);
        let mut last_records = BTreeMap::new();
        for t in LIST_TABLES {
            let Some(at) = &last else { break };
            if let Some(df) = tables.at(t.name(), at).await? {
                last_records.insert(t.name(), df);
            }
        }
        let previous = previous_of(&mut tables, &snapshot, &snapshots).await?;
        let kept_credits = reader.read(Table::CreditosAtivos.name(), &kept).await?;
        Ok(StoreReads { last_records, kept_credits, previous })
    })))
}

/// The store's tables at one snapshot each, each (table, snapshot) read once: most runs follow
/// the previous month's, whose snapshot is both the one carried from and the one compared with.
struct ReadOnce<'a> {
    reader: &'a StoreReader,
    read: BTreeMap<(&'static str, String), Option<DataFrame>>,
}

impl<'a> ReadOnce<'a> {
    fn new(reader: &'a StoreReader) -> Self {
        Self { reader, read: BTreeMap::new() }
    }

    /// `table`'s rows of `snapshot` (`None` when the store has no such table).
    async fn at(&mut self, table: &'static str, snapshot: &str) -> Result<Option<DataFrame>, StoreError> {
        let key = (table, snapshot.to_string());
        if let Some(df) = self.read.get(&key) {
            return Ok(df.clone());
        }
        let df = self.reader.read(table, &BTreeSet::from([key.1.clone()])).await?;
        self.read.insert(key, df.clone());
        Ok(df)
    }
}

/// The snapshot before `current` among `snapshots`, as `reader` holds it: what the changes and
/// the alerts of `current` were judged against (`None` for a store's first snapshot). For a
/// re-render of a run; a run reads it with the rest of `read_ahead`.
pub(crate) async fn previous_snapshot(
    reader: &StoreReader,
    current: &str,
    snapshots: &BTreeSet<String>,
) -> Result<Option<PreviousSnapshot>, StoreError> {
    previous_of(&mut ReadOnce::new(reader), current, snapshots).await
}

/// `previous_snapshot` through `tables`. A rerun in the same month compares with the month
/// before, not with itself.
async fn previous_of(
    tables: &mut ReadOnce<'_>,
    current: &str,
    snapshots: &BTreeSet<String>,
) -> Result<Option<PreviousSnapshot>, StoreError> {
    let Some(previous) = snapshots.iter().filter(|s| s.as_str() < current).max().cloned() else {
        return Ok(None);
    };
    let mut company = BTreeMap::new();
    for t in COMPANY_TABLES {
        if let Some(mut df) = tables.at(t.name(), &previous).await? {
            let _ = df.drop_in_place("snapshot");
            company.insert(t.name(), df);
        }
    }
    // A store that keeps the lists' records (or the regimes) but holds none for that snapshot:
    // none were listed (empty, no columns). A store written before they were kept has no such
    // entry.
    for name in [SANCOES_TABLE, REGIME_TABLE] {
        match tables.at(name, &previous).await? {
            Some(mut df) => {
                let _ = df.drop_in_place("snapshot");
                company.insert(name, df);
            }
            None if tables.reader.holds(name) => {
                company.insert(name, DataFrame::empty());
            }
            None => {}
        }
    }
    let alerts = tables.at(ALERTS_TABLE, &previous).await?;
    Ok(Some(PreviousSnapshot { current: current.to_string(), snapshot: previous, tables: company, alerts }))
}

/// Builds the new snapshot from `fresh` (typed from this run's staging) and what was read from
/// the store: the lists of unchanged companies and the credit months not fetched again are
/// carried in.
pub(crate) fn assemble_snapshot(
    reads: StoreReads,
    mut fresh: Frames,
    entries: &[&TaskEntry],
    known: &HashMap<String, KnownCompany>,
    plan: &SnapshotPlan,
) -> Result<Assembled, StoreError> {
    let StoreReads { mut last_records, kept_credits, previous } = reads;
    // A store version is committed whole, with rows carried in: its tables are read into
    // memory (the profiles' summaries, which it does not keep, stay on disk).
    fresh.load_disk(|name| super::TABLES.contains(&name)).map_err(frame_err("the typed tables"))?;
    let snapshot = plan.snapshot.to_string();
    let carried: BTreeSet<String> = entries
        .iter()
        .filter(|e| e.records_reason == Some(RecordsReason::Carried))
        .filter_map(|e| e.task.strip_prefix("empresa/").map(str::to_string))
        .collect();
    if !carried.is_empty() {
        for t in LIST_TABLES {
            let Some(df) = last_records.remove(t.name()) else { continue };
            carry(&mut fresh, t, only_companies(df, &carried, t.name())?)?;
        }
    }
    if let Some(previous) = previous.as_ref().filter(|_| !plan.not_renewed.is_empty()) {
        let asked: BTreeSet<String> =
            entries.iter().filter_map(|e| e.task.strip_prefix("empresa/").map(str::to_string)).collect();
        for (t, rows) in super::carry::not_renewed(&mut fresh, &previous.tables, &plan.not_renewed, &asked)? {
            carry(&mut fresh, t, rows)?;
        }
    }
    let fresh_credits = fresh.tables.get(Table::CreditosAtivos.name()).cloned().unwrap_or_default();
    if let Some(df) = kept_credits {
        carry(&mut fresh, Table::CreditosAtivos, df)?;
    }
    let control = control_frame(&fresh, entries, known, &snapshot).map_err(frame_err("controle_empresas"))?;
    Ok(Assembled { frames: fresh, previous, fresh_credits, control })
}

/// Commits `assembled` and the tables derived from it (`derived`: the changes and the estimated
/// standing, partitioned by `snapshot` like the company tables) as one store version,
/// and returns the snapshot's frames and the new version.
pub(crate) async fn commit_snapshot(
    store: &mut Store,
    assembled: Assembled,
    derived: &BTreeMap<&'static str, DataFrame>,
    plan: &SnapshotPlan,
) -> Result<(Frames, RunRecord), StoreError> {
    let Assembled { frames, fresh_credits, control, .. } = assembled;
    let snapshot = plan.snapshot.to_string();
    let fetched: BTreeSet<String> = plan.credit_months_fetched.iter().map(ToString::to_string).collect();
    // A table this run leaves alone keeps the version it had.
    let mut versions = store.last().map(|r| r.tables.clone()).unwrap_or_default();
    let abort_after = crate::test_hooks::abort_after_table_commits();
    let this_snapshot = BTreeSet::from([snapshot.clone()]);
    for (i, name) in TABLES.into_iter().enumerate() {
        stop_if_requested(&snapshot, i)?;
        let t = table(store.root(), name);
        // Sets the partition column (replacing a derived table's own, which holds the same).
        let with_snapshot = |df: &DataFrame| -> Result<DataFrame, StoreError> {
            let mut df = df.clone();
            let n = df.height();
            df.with_column(Column::new("snapshot".into(), vec![snapshot.as_str(); n]))
                .map_err(frame_err(name))?;
            Ok(df)
        };
        let rows = match name {
            "controle_empresas" => Some(&control),
            _ => frames.tables.get(name).or_else(|| derived.get(name)),
        };
        let version = match (name, rows) {
            ("creditos_ativos", _) => t.replace(&fresh_credits, &fetched).await?,
            (_, Some(df)) => t.replace(&with_snapshot(df)?, &this_snapshot).await?,
            // A derived table whose query the analyst took away: the table keeps what it had.
            (_, None) => continue,
        };
        versions.insert(name.to_string(), version);
        tracing::debug!("store: table {name} written as its version {version}");
        if abort_after == Some(i + 1) {
            // Fault injection for the crash-safety test: die as a SIGKILL would, mid-commit.
            std::process::abort();
        }
        pause_for_tests().await;
    }
    // The last point to stop: once the run record is written, the snapshot is committed.
    stop_if_requested(&snapshot, TABLES.len())?;
    let record = store
        .append(RunRecord {
            kind: "run".into(),
            run_id: plan.run_id.clone(),
            snapshot,
            committed_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            ufs: plan.ufs.clone(),
            months: plan.months.iter().map(ToString::to_string).collect(),
            credit_months_fetched: fetched.into_iter().collect(),
            tables: versions,
            company_records: plan.company_records.clone(),
            requests: plan.requests,
            // Carried or fetched, every company of the snapshot has every list.
            records: crate::extract::plan::company_record_names(),
            open_data: plan.open_data.clone(),
            ..RunRecord::default()
        })
        .await?;
    Ok((frames, record))
}

/// Ctrl-C or SIGTERM during the commit: stop before the next table (or the run record). The
/// tables written so far hold versions past the store's last record, which the next opening
/// of the store rolls back, so the store keeps its version before this run.
fn stop_if_requested(snapshot: &str, written: usize) -> Result<(), StoreError> {
    if crate::shutdown::requested() {
        return Err(StoreError::Interrupted { snapshot: snapshot.to_string(), written });
    }
    Ok(())
}

/// A pause after each table when a test asks for one (`test_hooks::commit_pause`), so it can
/// signal the process while the commit is under way.
async fn pause_for_tests() {
    if let Some(pause) = crate::test_hooks::commit_pause() {
        tokio::time::sleep(pause).await;
    }
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
        let (Some(c), Some(reason)) = (e.task.strip_prefix("empresa/"), e.records_reason) else { continue };
        let records_fetched = match reason {
            RecordsReason::Carried => {
                known.get(c).map_or_else(|| snapshot.to_string(), |k| k.records_fetched.to_string())
            }
            _ => snapshot.to_string(),
        };
        cnpj.push(c.to_string());
        fp.push(fingerprints.get(c).cloned());
        resumos.push(serde_json::to_string(&e.resumos).unwrap_or_default());
        fetched.push(records_fetched);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `table`'s typed frame of `rows` rows, every field empty but `cnpj`.
    fn typed(table: Table, rows: usize) -> DataFrame {
        let columns: Vec<Column> = table
            .columns()
            .iter()
            .map(|c| {
                let value = (c == "cnpj_consultado").then_some("33683111000107");
                Column::new(c.as_str().into(), vec![value; rows])
            })
            .collect();
        let staged = DataFrame::new(rows, columns).unwrap();
        crate::transform::typing::type_table(table, &staged).unwrap().0
    }

    #[test]
    fn rows_of_a_snapshot_written_before_a_column_was_added_are_carried_with_it_empty() {
        let mut fresh = Frames::default();
        fresh.tables.insert(Table::DividasPgfn.name(), typed(Table::DividasPgfn, 0));
        // The store's rows, written before dividas_pgfn had the debtor's state.
        let mut old = typed(Table::DividasPgfn, 2);
        for c in ["uf_devedor", "uf_devedor_raw"] {
            old = old.drop(c).unwrap();
        }
        carry(&mut fresh, Table::DividasPgfn, old).unwrap();
        let df = &fresh.tables[Table::DividasPgfn.name()];
        assert_eq!(df.height(), 2);
        assert_eq!(df.column("uf_devedor").unwrap().null_count(), 2);
        assert_eq!(df.column("cnpj").unwrap().str().unwrap().get(0), Some("33683111000107"));
    }
}
