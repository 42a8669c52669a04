//! Counts of what a fetch did: requests by operation and outcome, retries, failures, bytes,
//! records. Shared by all workers; read by progress and written to the manifest.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use crate::api::shape::ShapeDrift;

#[derive(Debug, Default)]
pub struct Accounting {
    pub requests: AtomicU64,
    pub retries: AtomicU64,
    /// Retries that were waits the service asked for (429), not failures.
    pub rate_limit_waits: AtomicU64,
    pub failed_tasks: AtomicU64,
    pub bytes: AtomicU64,
    pub records: AtomicU64,
    pub rate_limited: AtomicU64,
    pub tasks_done: AtomicU64,
    /// Records typed so far while the fetch goes on (the typing half; `records` is the
    /// network's): the progress display shows how far behind the network typing is.
    pub typed: AtomicU64,
    /// (operation, outcome) -> requests; outcome is the status code or a fault label.
    by_outcome: Mutex<BTreeMap<(String, String), u64>>,
}

/// The manifest's view of the accounting.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize, PartialEq)]
pub struct AccountingSummary {
    pub requests: u64,
    pub retries: u64,
    pub failed_tasks: u64,
    pub bytes: u64,
    pub records: u64,
    pub rate_limited: u64,
    /// operation -> outcome -> count
    pub by_operation: BTreeMap<String, BTreeMap<String, u64>>,
    /// operation -> the staged records of finished tasks and the fields they had that the
    /// models do not know, or lacked (schema drift); summed from the journal.
    #[serde(default)]
    pub schema: BTreeMap<String, ShapeDrift>,
}

impl AccountingSummary {
    /// The operations whose records did not have the shape the models expect.
    pub fn drifted(&self) -> impl Iterator<Item = (&String, &ShapeDrift)> {
        self.schema.iter().filter(|(_, d)| d.drifted())
    }
}

impl Accounting {
    pub fn record_request(&self, operation: &str, outcome: &str, bytes: u64) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        if outcome == "429" {
            self.rate_limited.fetch_add(1, Ordering::Relaxed);
        }
        let mut map = self.by_outcome.lock().unwrap_or_else(|p| p.into_inner());
        *map.entry((operation.to_string(), outcome.to_string())).or_default() += 1;
    }

    pub fn summary(&self) -> AccountingSummary {
        let mut by_operation: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        let map = self.by_outcome.lock().unwrap_or_else(|p| p.into_inner());
        for ((op, outcome), n) in map.iter() {
            by_operation.entry(op.clone()).or_default().insert(outcome.clone(), *n);
        }
        AccountingSummary {
            requests: self.requests.load(Ordering::Relaxed),
            retries: self.retries.load(Ordering::Relaxed),
            failed_tasks: self.failed_tasks.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
            records: self.records.load(Ordering::Relaxed),
            rate_limited: self.rate_limited.load(Ordering::Relaxed),
            by_operation,
            // Filled from the journal's task entries by the runner, not by the live counters.
            schema: BTreeMap::new(),
        }
    }
}
