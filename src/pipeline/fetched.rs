//! What the fetch stage hands the stages after it: the staged fetch with its manifest, the
//! pool it ran through and, on a store, what the new snapshot needs. Shared by the commands
//! that fetch (`fetch`, `run`) and the snapshot they commit (`snapshot`).

use std::path::PathBuf;
use std::sync::Arc;

use crate::exit::{Classified, ExitStatus};
use crate::export::manifest::Manifest;
use crate::export::remote::RemoteOut;
use crate::extract::incremental::RecordsPolicy;
use crate::extract::{FetchOutcome, Records};
use crate::store::snapshot::{SnapshotPlan, StoreReads};
use crate::store::{Store, StoreError};
use crate::transform::pretype::SegmentTyper;
use tokio::task::JoinHandle;

/// A fetch that finished: what it staged, its manifest (written) and where.
pub(super) struct Fetched {
    pub outcome: FetchOutcome,
    pub manifest: Manifest,
    pub out: PathBuf,
    /// With `--store`: the store (locked) and what the new snapshot needs.
    pub store: Option<StoreRun>,
    /// The service, held so the embedded registry stays up for what the run asks after the
    /// fetch (dossiers, partner companies) through `fetcher`; none over the files alone.
    pub _source: Option<super::source::Source>,
    /// With `--out s3://…`: where the finished outputs go (`out` is then the local work dir).
    pub remote: Option<RemoteOut>,
    /// Typing the segments as they were committed, when a later stage reads them (taken by
    /// the first `frames_from_staging`).
    pub typer: Option<SegmentTyper>,
    /// The source the fetch read: `--expand-groups` and the dossiers read it too (through the
    /// service's pool, with its retries, rate limit and accounting, or the release's files).
    pub fetcher: Arc<Records>,
    /// With `--open-data`: the public lists its folder holds (taken by the analysis).
    pub listas: Option<crate::extract::open_data::listas::Listas>,
    /// With `--open-data` or `--regime-dir`: the portfolio's rows of RFB's tax regime files
    /// (taken by the analysis).
    pub regimes: Option<crate::extract::open_data::regime::Regimes>,
    /// With `--open-data`: the release's national debt (taken by the analysis).
    pub national: Option<crate::extract::open_data::national::National>,
}

/// A run on a store: the store, how the fetch decided each company's lists (with what the store
/// knew before it), and the snapshot's plan.
pub(super) struct StoreRun {
    pub store: Store,
    pub records: Arc<RecordsPolicy>,
    pub plan: SnapshotPlan,
    /// What the snapshot needs from the store, read while the fetch ran (taken by the run).
    pub reads: Option<JoinHandle<Result<StoreReads, StoreError>>>,
}

/// How the fetch stage ended.
pub(super) enum FetchStage {
    Fetched(Box<Fetched>),
    /// Ctrl-C or SIGTERM: what was committed is staged and the person was told how to resume.
    Interrupted,
    /// `--open-data` on a store that holds the release already: nothing to fetch or commit.
    AlreadyStored,
}

impl Fetched {
    /// Ctrl-C or SIGTERM after the fetch: the run stops before `next` (nothing committed,
    /// everything fetched staged) and says how to finish without fetching again.
    pub(super) fn stop_if_requested(&self, next: &str) -> anyhow::Result<()> {
        if !crate::shutdown::requested() {
            return Ok(());
        }
        Err(Classified::new(
            ExitStatus::Interrupted,
            format!(
                "stopped (Ctrl-C or SIGTERM) before {next}: everything fetched is staged in {out} and nothing was \
                 committed; run the same command with --resume --out {out} to finish without fetching again",
                out = self.out.display()
            ),
        )
        .into())
    }

    /// Lets go of the files' rows when the rest of the run will not read them again (no
    /// economic groups to expand, no dossier). The fetch's tasks are done by now, so the
    /// source is held here alone; were it not, the rows would stay, as before.
    pub(super) fn forget_files_unless(&mut self, read_again: bool) {
        if read_again {
            return;
        }
        match Arc::get_mut(&mut self.fetcher) {
            Some(records) => records.forget_files(),
            None => tracing::debug!("the files' rows are kept: the source is still shared"),
        }
    }

    /// Lets go of the fetch's task entries once the frames are built, unless a store will
    /// assemble its snapshot from them: the summary was taken at the end of the fetch, and
    /// nothing later reads them.
    pub(super) fn forget_entries_unless_stored(&mut self) {
        if self.store.is_none() {
            self.outcome.staging.forget_entries();
        }
    }

    /// Requests the pool has sent so far, this run.
    pub(super) fn requests_sent(&self) -> u64 {
        self.fetcher.accounting().requests.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Records in the manifest the requests sent for `what` since the pool had sent `before`.
    pub(super) fn note_requests_since(&mut self, what: &str, before: u64) {
        let now = self.requests_sent();
        *self.manifest.requests_after_fetch.entry(what.to_string()).or_default() +=
            now.saturating_sub(before);
    }
}
