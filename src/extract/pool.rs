//! The one bounded pool every request of a fetch goes through: the in-flight limit and the
//! pace the service's answers teach (`control`), under `--concurrency` and `--max-rps`, and
//! retries with full-jitter backoff that honour Retry-After.
//!
//! It fetches single pages and records; walking a list is `api::paginate`, deciding what to
//! fetch is `plan`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use backon::{BackoffBuilder, Retryable};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::de::DeserializeOwned;

use super::accounting::Accounting;
use super::control::{Control, Outcome as Seen};
use crate::api::client::decode;
use crate::api::models::Envelope;
use crate::api::shape::ShapeLog;
use crate::api::{ApiError, Operation, Page, RegistryClient};

/// Retry settings: per request and per run.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Attempts per request counting only faults (5xx but 503, resets, cut or invalid bodies).
    pub max_attempts: usize,
    /// Refusals (429, 503) one request may meet on top of those: a rate limit is waited out, not
    /// counted as a fault, but a service that never lets a request through still ends it.
    pub max_rate_limited: usize,
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// Longest Retry-After we wait; a longer one is cut to this.
    pub max_retry_after: Duration,
    /// Retries after failures allowed per run: this many plus half the requests sent so far.
    /// Waits the service asked for (429) do not count: they are pacing, bounded per request.
    pub run_budget_base: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 10,
            max_rate_limited: 30,
            base_delay: Duration::from_millis(50),
            max_delay: Duration::from_secs(10),
            max_retry_after: Duration::from_secs(30),
            run_budget_base: 1_000,
        }
    }
}

impl RetryPolicy {
    /// The default, with the tests' cap on the wait between tries where one is set
    /// (`test_hooks::retry_delay_cap`).
    pub fn for_run() -> Self {
        let mut policy = Self::default();
        if let Some(cap) = crate::test_hooks::retry_delay_cap() {
            policy.base_delay = policy.base_delay.min(cap);
            policy.max_delay = cap;
        }
        policy
    }
}

/// "Full jitter" (a random wait between 0 and the capped exponential step): it spreads the
/// retries of many concurrent workers best (AWS architecture blog, "Exponential Backoff And
/// Jitter"). backon's own jitter adds to the step instead.
#[derive(Debug, Clone)]
struct FullJitter {
    base: Duration,
    cap: Duration,
    times: usize,
}

struct FullJitterIter {
    cfg: FullJitter,
    attempt: u32,
    rng: ChaCha8Rng,
}

impl Iterator for FullJitterIter {
    type Item = Duration;
    fn next(&mut self) -> Option<Duration> {
        if self.attempt as usize >= self.cfg.times {
            return None;
        }
        let step = exponential_step(self.cfg.base, self.cfg.cap, self.attempt);
        self.attempt += 1;
        Some(step.mul_f64(self.rng.random::<f64>()))
    }
}

/// Try `attempt`'s (0-based) ceiling: `base` doubling, at most `cap`.
fn exponential_step(base: Duration, cap: Duration, attempt: u32) -> Duration {
    base.saturating_mul(1u32 << attempt.min(20)).min(cap)
}

/// One full-jitter wait (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015): a
/// uniform draw below try `attempt`'s (0-based) ceiling. For the fetches that count their own
/// tries, as the release download does, outside this pool's retry loop.
pub(crate) fn full_jitter_wait(base: Duration, cap: Duration, attempt: u32) -> Duration {
    exponential_step(base, cap, attempt).mul_f64(jitter_rng().random::<f64>())
}

static JITTER_SEQ: AtomicU64 = AtomicU64::new(0);

/// A generator seeded apart for each caller, so tasks that failed together do not wait alike.
fn jitter_rng() -> ChaCha8Rng {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    ChaCha8Rng::seed_from_u64(nanos ^ JITTER_SEQ.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed))
}

impl BackoffBuilder for FullJitter {
    type Backoff = FullJitterIter;
    fn build(self) -> Self::Backoff {
        FullJitterIter { cfg: self, attempt: 0, rng: jitter_rng() }
    }
}

/// Fetches pages and records through the shared pool, with retries and accounting.
pub struct PageFetcher {
    client: RegistryClient,
    control: Control,
    policy: RetryPolicy,
    pub accounting: Arc<Accounting>,
}

impl PageFetcher {
    pub fn new(
        client: RegistryClient,
        concurrency: usize,
        max_rps: Option<u32>,
        policy: RetryPolicy,
        accounting: Arc<Accounting>,
    ) -> Self {
        let control = Control::new(concurrency, max_rps);
        let (limit, ceiling) = control.limit();
        accounting.in_flight_ceiling.store(ceiling as u64, Ordering::Relaxed);
        accounting.note_limit(limit as u64);
        Self { client, control, policy, accounting }
    }

    /// The most requests it may ever have in flight (`--concurrency`): callers size their own
    /// parallelism to it, since the limit moves.
    pub fn in_flight_ceiling(&self) -> usize {
        self.control.limit().1
    }

    /// After an answer moved the limit or the pace: what the progress line and the manifest show.
    fn note_limits(&self, (limit, pace): (usize, Option<f64>)) {
        self.accounting.note_limit(limit as u64);
        let pace = pace.map_or(0, |r| r.round().max(1.0) as u64);
        self.accounting.pace_rps.store(pace, Ordering::Relaxed);
    }

    fn budget_left(&self) -> bool {
        let a = &self.accounting;
        let sent = a.requests.load(Ordering::Relaxed);
        let failures =
            a.retries.load(Ordering::Relaxed).saturating_sub(a.rate_limit_waits.load(Ordering::Relaxed));
        failures < self.policy.run_budget_base + sent / 2
    }

    /// One attempt: wait for a slot (and the rate cap), send, decode, account.
    async fn attempt<T: DeserializeOwned>(
        &self,
        op: &Operation,
        page: Option<Page>,
        shapes: Option<&ShapeLog>,
    ) -> Result<T, ApiError> {
        let ticket = self.control.acquire().await;
        let result = self.client.get_raw(op, page).await;
        // The body is in: the place goes to the next request while this one is decoded (CPU
        // work that would otherwise keep fewer requests in flight than asked).
        let sample = self.control.release(ticket);
        let name = op.kind().name();
        let outcome = match result {
            Ok(body) => {
                let decoded = decode::<T>(&body.bytes, &op.path());
                let label = match &decoded {
                    Ok(_) => {
                        // Only a task's own requests are checked: the `latest` probes stage nothing.
                        if let Some(log) = shapes
                            && let Some(drift) = crate::api::shape::probe(op.kind(), &body.bytes)
                        {
                            log.record(name, &drift);
                        }
                        body.status.to_string()
                    }
                    Err(e) => e.label(),
                };
                self.accounting.record_request(name, &label, body.bytes.len() as u64);
                decoded
            }
            Err(e) => {
                self.accounting.record_request(name, &e.label(), 0);
                Err(e)
            }
        };
        let seen = match &outcome {
            Ok(_) => Seen::Answered,
            // The service's wait, within the same reason as a single request's.
            Err(e) if e.is_refusal() => {
                Seen::Refused { retry_after: e.retry_after().map(|d| d.min(self.policy.max_retry_after)) }
            }
            // Past any rate limit, whatever it was: a fault spent the service's allowance as an
            // answer does. Its round trip tells nothing of a queue.
            Err(_) => Seen::Fault,
        };
        self.note_limits(self.control.observe(name, sample, seen));
        outcome
    }

    async fn with_retries<T: DeserializeOwned>(
        &self,
        op: &Operation,
        page: Option<Page>,
        shapes: Option<&ShapeLog>,
    ) -> Result<T, ApiError> {
        let faults_allowed = self.policy.max_attempts.saturating_sub(1);
        let backoff = FullJitter {
            base: self.policy.base_delay,
            cap: self.policy.max_delay,
            times: faults_allowed + self.policy.max_rate_limited,
        };
        let cap = self.policy.max_retry_after;
        // Counted apart: under a busy rate limit, a request's 429s are not its faults. Atomics,
        // not cells: the fetch's tasks move between worker threads.
        let (faults, rate_limited) = (AtomicUsize::new(0), AtomicUsize::new(0));
        (|| self.attempt::<T>(op, page, shapes))
            .retry(backoff)
            .when(|e: &ApiError| {
                if e.is_refusal() {
                    let refused = rate_limited.fetch_add(1, Ordering::Relaxed) + 1;
                    return refused <= self.policy.max_rate_limited;
                }
                let failed = faults.fetch_add(1, Ordering::Relaxed) + 1;
                e.is_retryable() && failed <= faults_allowed && self.budget_left()
            })
            .adjust(|e: &ApiError, d: Option<Duration>| match (e.retry_after(), d) {
                // The service's word beats our guess, within reason; a finished budget stays finished.
                (Some(ra), Some(_)) => Some(ra.min(cap)),
                (_, d) => d,
            })
            .notify(|e: &ApiError, d: Duration| {
                self.accounting.retries.fetch_add(1, Ordering::Relaxed);
                if e.is_refusal() {
                    self.accounting.rate_limit_waits.fetch_add(1, Ordering::Relaxed);
                }
                tracing::debug!(op = %op, error = %e, wait_ms = d.as_millis() as u64, "retrying");
            })
            .await
    }

    pub async fn one<T: DeserializeOwned>(&self, op: &Operation) -> Result<T, ApiError> {
        self.with_retries(op, None, None).await
    }

    /// A lookup whose record's shape goes into `shapes`.
    pub async fn one_checked<T: DeserializeOwned>(
        &self,
        op: &Operation,
        shapes: &ShapeLog,
    ) -> Result<T, ApiError> {
        self.with_retries(op, None, Some(shapes)).await
    }

    /// A page whose records' shape goes into `shapes`.
    pub async fn page_checked<T: DeserializeOwned>(
        &self,
        op: &Operation,
        page: Page,
        shapes: &ShapeLog,
    ) -> Result<Envelope<T>, ApiError> {
        self.with_retries(op, Some(page), Some(shapes)).await
    }

    pub async fn page<T: DeserializeOwned>(
        &self,
        op: &Operation,
        page: Page,
    ) -> Result<Envelope<T>, ApiError> {
        self.with_retries(op, Some(page), None).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_jitter_stays_under_the_capped_step() {
        let b = FullJitter { base: Duration::from_millis(100), cap: Duration::from_secs(1), times: 6 };
        let waits: Vec<Duration> = b.build().collect();
        assert_eq!(waits.len(), 6);
        for (i, w) in waits.iter().enumerate() {
            let step = Duration::from_millis(100 * (1 << i)).min(Duration::from_secs(1));
            assert!(*w <= step, "attempt {i}: {w:?} > {step:?}");
        }
    }
}
