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
    /// The in-flight limit now, its ceiling (`--concurrency`) and the pace (requests per
    /// second, 0 while unpaced), for the progress line.
    pub in_flight_limit: AtomicU64,
    pub in_flight_ceiling: AtomicU64,
    pub pace_rps: AtomicU64,
    /// (operation, outcome) -> requests; outcome is the status code or a fault label.
    by_outcome: Mutex<BTreeMap<(String, String), u64>>,
    /// The limit over time, for the manifest.
    limit_trace: Mutex<LimitTrace>,
}

/// The in-flight limit's moves: a point when it changed by an eighth or more since the last.
#[derive(Debug, Default)]
struct LimitTrace {
    started: Option<std::time::Instant>,
    points: Vec<(f64, u64)>,
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
    /// The in-flight limit over the fetch: (seconds since its first request, limit), a point
    /// at each change of an eighth or more; and its ceiling (`--concurrency`).
    #[serde(default)]
    pub in_flight_limit: Vec<(f64, u64)>,
    #[serde(default)]
    pub in_flight_ceiling: u64,
    /// The requests-per-second pace the refusals taught it, at the end (none: never refused).
    #[serde(default)]
    pub pace_rps: Option<f64>,
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

    /// The limit is `limit` now: noted when it moved an eighth or more since the last point.
    pub fn note_limit(&self, limit: u64) {
        if self.in_flight_limit.swap(limit, Ordering::Relaxed) == limit {
            return;
        }
        let mut t = self.limit_trace.lock().unwrap_or_else(|p| p.into_inner());
        let started = *t.started.get_or_insert_with(std::time::Instant::now);
        let last = t.points.last().map(|p| p.1);
        if last.is_none_or(|l| limit.abs_diff(l) * 8 >= l.max(1) || limit == 1) {
            let at = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;
            t.points.push((at, limit));
        }
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
            in_flight_limit: self.limit_trace.lock().unwrap_or_else(|p| p.into_inner()).points.clone(),
            in_flight_ceiling: self.in_flight_ceiling.load(Ordering::Relaxed),
            pace_rps: Some(self.pace_rps.load(Ordering::Relaxed) as f64).filter(|r| *r > 0.0),
            by_operation,
            // Filled from the journal's task entries by the runner, not by the live counters.
            schema: BTreeMap::new(),
        }
    }
}
