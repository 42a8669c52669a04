//! `run` without a store begins on the credits as soon as the fetch has staged them all (the
//! plan fetches them first): they are typed and the queries that read only them are run while
//! the companies are still fetched, so that after the last response only the companies' share of
//! the work is left. What comes of it is the same as typing and querying the credits after the
//! fetch: the same segments typed the same way, taken only where the run holds its credits in
//! memory and staged no other credit segment, and each query's result checked to read nothing
//! the credits alone lack (`analyze::EarlyResults`).
//!
//! Their Parquet files are begun there too (`export::partition::BegunTable`): rows written,
//! footers left for the export, which knows the run's metadata (the sources' versions the
//! companies' answers complete).
//!
//! With a store the snapshot's credits are the store's and this fetch's together: nothing
//! begins early.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use super::fetch::OnCredits;
use crate::analyze::{EarlyResults, Query, run_credit_queries};
use crate::export::partition::{BegunTable, begin_raw_table};
use crate::extract::CreditsStaged;
use crate::tables::Table;
use crate::transform::frames::{HeldCredits, held_credits};

/// What was made of the credits while the fetch went on.
#[derive(Default)]
pub(super) struct EarlyCredits {
    pub credits: Option<HeldCredits>,
    pub results: EarlyResults,
    /// The credits' raw Parquet files, but for their footers.
    pub files: Option<BegunTable>,
}

/// Where the early work's outcome arrives.
pub(super) struct Pending(mpsc::Receiver<EarlyCredits>);

impl Pending {
    /// The credits' early work, waited for when it began (nothing when the fetch never staged
    /// every credit task, or the work could not be done: the later stages then do it).
    pub(super) fn wait(self) -> EarlyCredits {
        let waited = Instant::now();
        let early = self.0.recv().unwrap_or_default();
        if !early.results.is_empty() {
            tracing::debug!(
                "credits' early work waited for {:.2} s after the fetch",
                waited.elapsed().as_secs_f64()
            );
        }
        early
    }
}

/// The callback the fetch calls with the credits' segments (their files begun in the run's
/// output folder), and where its work arrives; `None` with a store.
pub(super) fn begin_on_credits(store: bool, queries: Option<Vec<Query>>) -> Option<(OnCredits, Pending)> {
    let queries = queries.filter(|_| !store)?;
    let (tx, rx) = mpsc::channel();
    let on_staged: OnCredits = Box::new(move |out: &Path| -> CreditsStaged {
        let out = out.to_path_buf();
        Box::new(move |paths: Vec<PathBuf>| {
            let spawned = std::thread::Builder::new()
                .name("credits".into())
                .spawn(move || drop(tx.send(credits_work(paths, &queries, &out))));
            if let Err(e) = spawned {
                tracing::debug!("the credits wait for the fetch's end: no thread for them ({e})");
            }
        })
    });
    Some((on_staged, Pending(rx)))
}

/// The credits typed in memory, the queries that read only them, then their files begun;
/// nothing when they are too many to hold or cannot be typed here (the transform stage types
/// them, and says why).
fn credits_work(paths: Vec<PathBuf>, queries: &[Query], out: &Path) -> EarlyCredits {
    let started = Instant::now();
    let credits = match held_credits(paths) {
        Ok(Some(credits)) => credits,
        Ok(None) => return EarlyCredits::default(),
        Err(e) => {
            tracing::debug!("the credits are typed after the fetch: {e}");
            return EarlyCredits::default();
        }
    };
    let results = run_credit_queries(credits.frame(), queries);
    tracing::debug!(
        "credits typed ({} rows) and {} queries run while the fetch went on, in {:.2} s",
        credits.frame().height(),
        results.len(),
        started.elapsed().as_secs_f64()
    );
    let begun = Instant::now();
    let files = match begin_raw_table(Table::CreditosAtivos.name(), credits.frame(), out) {
        Ok(files) => files,
        Err(e) => {
            tracing::debug!("the credits' files are written after the fetch: {e}");
            None
        }
    };
    if let Some(f) = &files {
        tracing::debug!(
            "the credits' files begun ({} rows) in {:.2} s",
            f.rows(),
            begun.elapsed().as_secs_f64()
        );
    }
    EarlyCredits { credits: Some(credits), results, files }
}
