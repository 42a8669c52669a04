//! The fetch on a `--store`: what the store decides before anything is fetched (the months
//! whose credits to fetch again, how each company's lists are decided, the reads of the
//! previous snapshot started beside the fetch), and what it refuses (an output folder over the
//! store, a release older than its latest snapshot, one that does not renew what it holds).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

use anyhow::Result;

use super::fetched::StoreRun;
use crate::api::AnoMes;
use crate::config::RunConfig;
use crate::exit::{Classified, ExitStatus};
use crate::extract::FetchOutcome;
use crate::extract::incremental::RecordsPolicy;
use crate::extract::plan::uf_set;
use crate::store::Store;
use crate::store::snapshot::{PendingReads, SnapshotPlan, read_ahead};

/// With a store: the store (locked), how each company's lists are decided, and the months
/// whose credits this run fetches (the newest `--refresh-months` and those it lacks).
pub(super) struct Incremental {
    pub(super) store: Store,
    pub(super) records: Arc<RecordsPolicy>,
    pub(super) credit_months: Vec<AnoMes>,
    reads: PendingReads,
}

impl Incremental {
    pub(super) async fn plan(
        cfg: &RunConfig,
        months: &[AnoMes],
        snapshot: AnoMes,
    ) -> Result<Option<Incremental>> {
        let Some(dir) = &cfg.store else { return Ok(None) };
        let store = Store::open(dir).await?;
        // Months held for another set of states would leave this run's states out.
        let ufs: Vec<String> = cfg.ufs.iter().map(ToString::to_string).collect();
        let same_states = store.last().is_some_and(|r| uf_set(&r.ufs) == uf_set(&ufs));
        let held = if cfg.full || !same_states {
            Default::default()
        } else {
            store.partitions("creditos_ativos").await?
        };
        let refresh_from = months.len().saturating_sub(cfg.refresh_months as usize);
        let credit_months: Vec<AnoMes> = months
            .iter()
            .enumerate()
            .filter(|(i, m)| *i >= refresh_from || !held.contains_key(&m.to_string()))
            .map(|(_, m)| *m)
            .collect();
        let known = if cfg.full { HashMap::new() } else { store.known_companies().await? };
        let policy = Arc::new(RecordsPolicy { known, snapshot, max_age: cfg.max_age_months, full: cfg.full });
        let reads = read_ahead(&store, snapshot, months, &credit_months, !cfg.full);
        Ok(Some(Incremental { store, records: policy, credit_months, reads }))
    }

    /// What the snapshot of a finished fetch needs: the store, the lists' policy, the reads
    /// under way and the snapshot's plan.
    pub(super) fn into_run(
        self,
        snapshot: AnoMes,
        months: &[AnoMes],
        cfg: &RunConfig,
        outcome: &FetchOutcome,
        release: Option<&crate::extract::open_data::Release>,
    ) -> StoreRun {
        let not_renewed: BTreeSet<String> =
            release.map(|r| r.carried.keys().cloned().collect()).unwrap_or_default();
        let open_data = release.map(|r| r.renewed.union(&not_renewed).cloned().collect()).unwrap_or_default();
        StoreRun {
            store: self.store,
            records: self.records,
            reads: self.reads.into_handle(),
            plan: SnapshotPlan {
                snapshot,
                months: months.to_vec(),
                ufs: cfg.ufs.iter().map(ToString::to_string).collect(),
                credit_months_fetched: self.credit_months,
                run_id: super::outputs::new_run_id(),
                requests: outcome.summary.requests.requests,
                company_records: outcome.summary.company_records.clone(),
                open_data,
                not_renewed,
            },
        }
    }
}

/// `--out` and a local `--store` in one folder, or one inside the other: the export replaces
/// the folders it writes (`empresas/`, `dividas_pgfn/`, ...), which are the store's tables.
pub(super) fn refuse_out_over_store(out: &Path, store: Option<&Path>) -> Result<()> {
    let Some(store) = store.filter(|s| !crate::export::remote::is_remote(s)) else { return Ok(()) };
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (a, b) = (absolute(out), absolute(store));
    if a.starts_with(&b) || b.starts_with(&a) {
        return Err(Classified::new(
            ExitStatus::BadInput,
            format!(
                "--out {} and --store {} overlap: a run replaces the folders it writes in --out, and the \
                 store's tables would go with them; give the run's output and the store separate folders",
                out.display(),
                store.display()
            ),
        )
        .into());
    }
    Ok(())
}

/// `--open-data` on a store keeps one snapshot per release, in the order they were published:
/// a release already there is skipped (`true`), an older one than the store's latest refused.
pub(super) fn release_already_stored(store: &Store, release: AnoMes) -> Result<bool> {
    let release = release.to_string();
    let latest = store.snapshots().into_iter().max();
    match latest {
        Some(latest) if latest == release => {
            crate::say!("the release of {release} is already in the store {}: nothing to do", store.root());
            Ok(true)
        }
        Some(latest) if latest > release => Err(Classified::new(
            ExitStatus::BadInput,
            format!(
                "the release of {release} is older than the store's latest snapshot, {latest}: a store keeps \
                 releases in the order they were published; load the older ones into a new store first, \
                 then the newer ones"
            ),
        )
        .into()),
        _ => Ok(false),
    }
}

/// The datasets the store's last snapshot holds from the publishers' files that `release` does
/// not renew, each with that snapshot: carried from it under `--partial` (`store::carry`), else
/// refused, since read as they are every record of them would look ended.
pub(super) fn not_renewed(
    release: &crate::extract::open_data::Release,
    store: &Store,
    partial: bool,
    dir: Option<&Path>,
) -> Result<BTreeMap<String, String>> {
    let Some(last) = store.last().filter(|r| !r.snapshot.is_empty()) else { return Ok(BTreeMap::new()) };
    // A record that lists none (written before records listed them, or by a run over the
    // service) is of a snapshot that holds every dataset.
    let every = crate::extract::open_data::all_datasets();
    let held = if last.open_data.is_empty() { &every } else { &last.open_data };
    let missing: Vec<&String> = held.difference(&release.renewed).collect();
    if missing.is_empty() {
        return Ok(BTreeMap::new());
    }
    let names = missing.iter().map(|d| d.as_str()).collect::<Vec<_>>().join(", ");
    let files = missing.iter().map(|d| crate::extract::open_data::files_of(d)).collect::<Vec<_>>().join(", ");
    let snapshot = &last.snapshot;
    if !partial {
        let dir = dir.map_or_else(String::new, |d| d.display().to_string());
        return Err(Classified::new(
            ExitStatus::BadInput,
            format!(
                "the store's snapshot {snapshot} holds {names} from the publishers' files, which the release in \
                 {dir} does not renew (no {files}): read as it is, every record of them would look ended. \
                 Download those files into that folder, or give --partial to carry their records from \
                 {snapshot}, marked as not renewed"
            ),
        )
        .into());
    }
    tracing::warn!(
        "{names} not renewed by this release (no {files}): carried from the store's snapshot {snapshot}"
    );
    Ok(missing.into_iter().map(|d| (d.clone(), last.snapshot.clone())).collect())
}
