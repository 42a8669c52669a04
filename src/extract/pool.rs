//! The one bounded pool every request of a fetch goes through: an adaptive in-flight limit
//! that halves while 429s arrive and creeps back after, an optional requests-per-second cap,
//! and retries with full-jitter backoff that honour Retry-After.
//!
//! It fetches single pages and records; walking a list is `api::paginate`, deciding what to
//! fetch is `plan`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use backon::{BackoffBuilder, Retryable};
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::de::DeserializeOwned;
use tokio::sync::Semaphore;

use super::accounting::Accounting;
use crate::api::client::decode;
use crate::api::models::Envelope;
use crate::api::shape::ShapeLog;
use crate::api::{ApiError, Operation, Page, RegistryClient};

/// Retry settings: per request and per run.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Attempts per request counting only faults (5xx, resets, cut or invalid bodies).
    pub max_attempts: usize,
    /// 429 answers one request may meet on top of those: a rate limit is waited out, not
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
        let step = self.cfg.base.saturating_mul(1u32 << self.attempt.min(20)).min(self.cfg.cap);
        self.attempt += 1;
        Some(step.mul_f64(self.rng.random::<f64>()))
    }
}

static JITTER_SEQ: AtomicU64 = AtomicU64::new(0);

impl BackoffBuilder for FullJitter {
    type Backoff = FullJitterIter;
    fn build(self) -> Self::Backoff {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let seed = nanos ^ JITTER_SEQ.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
        FullJitterIter { cfg: self, attempt: 0, rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

/// In-flight limit that backs off multiplicatively on 429 and recovers additively.
///
/// Invariant: the semaphore's permits, idle and held, number `current + debt` (exactly once
/// every update in progress has finished). Each change of `current` is one atomic step, and
/// the permits added or retired are derived from that step alone, so concurrent 429s and
/// successes cannot lose an update and let the limit drift past `max`.
#[derive(Debug)]
pub struct AdaptiveLimit {
    sem: Arc<Semaphore>,
    max: usize,
    current: AtomicUsize,
    /// Permits to retire as they come back (a decrease larger than the idle permits).
    debt: AtomicUsize,
    successes: AtomicUsize,
    last_decrease: std::sync::Mutex<Option<Instant>>,
}

impl AdaptiveLimit {
    pub fn new(max: usize) -> Self {
        let max = max.max(1);
        Self {
            sem: Arc::new(Semaphore::new(max)),
            max,
            current: AtomicUsize::new(max),
            debt: AtomicUsize::new(0),
            successes: AtomicUsize::new(0),
            last_decrease: std::sync::Mutex::new(None),
        }
    }

    pub fn current(&self) -> usize {
        self.current.load(Ordering::Relaxed)
    }

    async fn acquire(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        self.sem.clone().acquire_owned().await.ok()
    }

    fn release(&self, permit: tokio::sync::OwnedSemaphorePermit) {
        let retired =
            self.debt.fetch_update(Ordering::AcqRel, Ordering::Acquire, |d| d.checked_sub(1)).is_ok();
        if retired {
            permit.forget();
        }
    }

    fn on_rate_limited(&self) {
        let mut last = self.last_decrease.lock().unwrap_or_else(|p| p.into_inner());
        // One burst of 429s is one signal: decrease at most once per half second.
        if last.is_some_and(|t| t.elapsed() < Duration::from_millis(500)) {
            return;
        }
        *last = Some(Instant::now());
        // Halve: a real rate limit is far below what we can send, and only a deep cut gets
        // under it quickly.
        let halve = |c: usize| (c / 2).max(1);
        let cut_once = |c: usize| Some(halve(c)).filter(|n| *n < c);
        let Ok(cur) = self.current.fetch_update(Ordering::AcqRel, Ordering::Acquire, cut_once) else {
            return;
        };
        let new = halve(cur);
        let cut = cur - new;
        let forgotten = self.sem.forget_permits(cut);
        self.debt.fetch_add(cut - forgotten, Ordering::AcqRel);
        tracing::debug!(from = cur, to = new, "rate limited: fewer requests in flight");
    }

    fn on_success(&self) {
        let cur = self.current();
        if cur >= self.max {
            return;
        }
        // Hold the lower limit a while after a 429: climbing straight back invites the next one.
        let last = *self.last_decrease.lock().unwrap_or_else(|p| p.into_inner());
        if last.is_some_and(|t| t.elapsed() < Duration::from_millis(500)) {
            return;
        }
        // Additive increase: one more permit after `cur` successes in a row, about one per round
        // trip. Counting and resetting in one step lets only one caller claim each round.
        let count = |s: usize| Some(if s + 1 >= cur { 0 } else { s + 1 });
        let before = self.successes.fetch_update(Ordering::Relaxed, Ordering::Relaxed, count);
        if !before.is_ok_and(|s| s + 1 >= cur) {
            return;
        }
        // `max` is checked in the same step as the increase: a 429 or another success may have
        // moved `current` since it was read above.
        let grow = |c: usize| (c < self.max).then_some(c + 1);
        let grew = self.current.fetch_update(Ordering::AcqRel, Ordering::Acquire, grow);
        if grew.is_ok()
            && self.debt.fetch_update(Ordering::AcqRel, Ordering::Acquire, |d| d.checked_sub(1)).is_err()
        {
            self.sem.add_permits(1);
        }
    }
}

/// Fetches pages and records through the shared pool, with retries and accounting.
pub struct PageFetcher {
    client: RegistryClient,
    limit: AdaptiveLimit,
    rate: Option<DefaultDirectRateLimiter>,
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
        let rate = max_rps
            .and_then(std::num::NonZeroU32::new)
            .map(|n| RateLimiter::direct(Quota::per_second(n).allow_burst(std::num::NonZeroU32::MIN)));
        Self { client, limit: AdaptiveLimit::new(concurrency), rate, policy, accounting }
    }

    pub fn in_flight_limit(&self) -> usize {
        self.limit.current()
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
        let permit = self.limit.acquire().await;
        if let Some(rate) = &self.rate {
            rate.until_ready().await;
        }
        let result = self.client.get_raw(op, page).await;
        // The body is in: the slot goes to the next request while this one is decoded (CPU
        // work that would otherwise keep fewer requests in flight than asked).
        if let Some(p) = permit {
            self.limit.release(p);
        }
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
        match &outcome {
            Err(ApiError::RateLimited { .. }) => self.limit.on_rate_limited(),
            Ok(_) => self.limit.on_success(),
            Err(_) => {}
        }
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
        // Counted apart: under a busy rate limit, a request's 429s are not its faults.
        let (faults, rate_limited) = (std::cell::Cell::new(0usize), std::cell::Cell::new(0usize));
        (|| self.attempt::<T>(op, page, shapes))
            .retry(backoff)
            .when(|e: &ApiError| {
                if matches!(e, ApiError::RateLimited { .. }) {
                    rate_limited.set(rate_limited.get() + 1);
                    return rate_limited.get() <= self.policy.max_rate_limited;
                }
                faults.set(faults.get() + 1);
                e.is_retryable() && faults.get() <= faults_allowed && self.budget_left()
            })
            .adjust(|e: &ApiError, d: Option<Duration>| match (e.retry_after(), d) {
                // The service's word beats our guess, within reason; a finished budget stays finished.
                (Some(ra), Some(_)) => Some(ra.min(cap)),
                (_, d) => d,
            })
            .notify(|e: &ApiError, d: Duration| {
                self.accounting.retries.fetch_add(1, Ordering::Relaxed);
                if matches!(e, ApiError::RateLimited { .. }) {
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

    #[tokio::test]
    async fn adaptive_limit_halves_and_recovers() {
        let l = AdaptiveLimit::new(16);
        let held: Vec<_> = futures::future::join_all((0..16).map(|_| l.acquire())).await;
        l.on_rate_limited();
        assert_eq!(l.current(), 8);
        for p in held.into_iter().flatten() {
            l.release(p);
        }
        assert_eq!(l.sem.available_permits(), 8, "the 8 retired permits do not come back");
        for _ in 0..8 {
            l.on_success();
        }
        assert_eq!(l.current(), 8, "no growth right after a 429");
        *l.last_decrease.lock().unwrap() = Some(Instant::now() - Duration::from_secs(2));
        for _ in 0..8 {
            l.on_success();
        }
        assert_eq!(l.current(), 9);
        assert_eq!(l.sem.available_permits(), 9);
    }

    #[test]
    fn concurrent_429s_and_successes_keep_permits_equal_to_the_limit() {
        const MAX: usize = 16;
        let l = AdaptiveLimit::new(MAX);
        let long_ago = || Some(Instant::now() - Duration::from_secs(2));
        // Some requests in flight, so a cut runs into debt as well as forgetting idle permits.
        let held: Vec<_> = (0..6).filter_map(|_| l.sem.clone().try_acquire_owned().ok()).collect();
        assert_eq!(held.len(), 6);
        std::thread::scope(|scope| {
            for _ in 0..3 {
                scope.spawn(|| {
                    for _ in 0..20_000 {
                        l.on_success();
                        assert!(l.current() <= MAX, "the limit went past --concurrency");
                    }
                });
            }
            scope.spawn(|| {
                for _ in 0..300 {
                    // Skip the hold time, so cuts land between the successes' reads and writes.
                    *l.last_decrease.lock().unwrap() = long_ago();
                    l.on_rate_limited();
                    *l.last_decrease.lock().unwrap() = long_ago();
                    std::thread::yield_now();
                }
            });
        });
        for p in held {
            l.release(p);
        }
        let (current, debt) = (l.current(), l.debt.load(Ordering::Acquire));
        assert!((1..=MAX).contains(&current), "current = {current}");
        assert_eq!(l.sem.available_permits(), current + debt, "permits = current + debt");
        // Nothing is in flight: climbing back ends at --concurrency, never above.
        for _ in 0..MAX * MAX {
            l.on_success();
        }
        assert_eq!(l.current(), MAX);
        assert_eq!(l.sem.available_permits(), MAX + l.debt.load(Ordering::Acquire));
        assert_eq!(l.debt.load(Ordering::Acquire), 0);
    }
}
