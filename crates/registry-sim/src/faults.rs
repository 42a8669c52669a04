//! Fault injection and rate limiting for the embedded registry: what the extraction stage must
//! survive (5xx, 429 with Retry-After, dropped connections, cut-off bodies, short pages) on demand.
//!
//! Faults are drawn from a seeded stream, so a given request sequence meets the same faults.
//! It decides which fault to inject; `server` turns the decision into bytes on the wire.

use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::Duration;

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The switches of `fiscal-report serve`.
#[derive(Debug, Clone, Default)]
pub struct FaultConfig {
    /// Added to every answer.
    pub latency: Duration,
    /// Share of requests (0..=1) that meet a fault.
    pub fault_rate: f64,
    /// Requests per second beyond which the server answers 429.
    pub rate_limit: Option<u32>,
    /// Requests served at once; the others wait in a queue (so latency grows with load), as a
    /// server with that many workers. `None`: every request is served as it comes.
    pub capacity: Option<usize>,
    /// Schema drift: every record served gains this field (with a text value).
    pub add_field: Option<String>,
    /// Schema drift: every record served loses this field.
    pub drop_field: Option<String>,
    /// Sources whose answers say another release or status (`--fonte-versao`, `--fonte-status`).
    pub sources: super::sources::SourceOverrides,
    /// Real published debts that replace the synthetic ones of the demo portfolio's first
    /// company, per categoria.
    pub real_debts: Vec<(registry_api::Categoria, Vec<registry_api::models::DividaPgfn>)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    ServerError(u16),
    TooManyRequests,
    DropConnection,
    CutOffStream,
    TruncatedJson,
    /// A well-formed 200 list page holding half its records: a replica that lags, say.
    ShortPage,
}

pub struct FaultPlan {
    cfg: FaultConfig,
    rng: Mutex<ChaCha8Rng>,
    limiter: Option<DefaultDirectRateLimiter>,
    /// Keeps `latency` to the setting; none when there is no latency (or its thread could not
    /// start: then tokio's coarser timer delays).
    delay: Option<super::delay::PreciseDelay>,
    /// The workers of a finite capacity: a request holds one from the queue to its answer.
    workers: Option<std::sync::Arc<tokio::sync::Semaphore>>,
}

impl FaultPlan {
    pub fn new(cfg: FaultConfig, seed: u64) -> Self {
        let limiter = cfg
            .rate_limit
            .and_then(NonZeroU32::new)
            .map(|n| RateLimiter::direct(Quota::per_second(n).allow_burst(n)));
        let delay = (!cfg.latency.is_zero()).then(super::delay::PreciseDelay::start).and_then(Result::ok);
        let workers = cfg.capacity.map(|n| std::sync::Arc::new(tokio::sync::Semaphore::new(n.max(1))));
        let rng = Mutex::new(ChaCha8Rng::seed_from_u64(seed ^ 0x6661_756c_7473));
        Self { cfg, rng, limiter, delay, workers }
    }

    /// Waits for a free worker (at once without a capacity); the request is served, and its
    /// latency runs, while the permit is held.
    pub async fn worker(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        self.workers.as_ref()?.clone().acquire_owned().await.ok()
    }

    /// Waits until `latency` after `arrived`, the moment the request came in.
    pub async fn wait_latency(&self, arrived: std::time::Instant) {
        let at = arrived + self.cfg.latency;
        match &self.delay {
            Some(delay) => delay.until(at).await,
            None if !self.cfg.latency.is_zero() => tokio::time::sleep_until(at.into()).await,
            None => {}
        }
    }

    /// The real debts of `categoria`, if any were given.
    pub fn real_debts(
        &self,
        categoria: registry_api::Categoria,
    ) -> Option<&Vec<registry_api::models::DividaPgfn>> {
        self.cfg.real_debts.iter().find(|(c, _)| *c == categoria).map(|(_, d)| d)
    }

    /// The field every record gains and the one it loses, when the service's shape drifts.
    pub fn shape_change(&self) -> Option<(Option<&str>, Option<&str>)> {
        let (add, drop) = (self.cfg.add_field.as_deref(), self.cfg.drop_field.as_deref());
        (add.is_some() || drop.is_some()).then_some((add, drop))
    }

    /// The releases and statuses the answers report in place of the dataset's.
    pub fn sources(&self) -> &super::sources::SourceOverrides {
        &self.cfg.sources
    }

    /// `Some(wait)` when this request is over the rate limit.
    pub fn over_rate_limit(&self) -> Option<Duration> {
        let limiter = self.limiter.as_ref()?;
        limiter.check().err().map(|not_until| {
            not_until.wait_time_from(governor::clock::Clock::now(&governor::clock::DefaultClock::default()))
        })
    }

    pub fn draw(&self) -> Option<Fault> {
        if self.cfg.fault_rate <= 0.0 {
            return None;
        }
        let mut rng = self.rng.lock().unwrap_or_else(|p| p.into_inner());
        if !rng.random_bool(self.cfg.fault_rate.clamp(0.0, 1.0)) {
            return None;
        }
        Some(match rng.random_range(0..7u8) {
            0 => Fault::ServerError(500),
            1 => Fault::ServerError(503),
            2 => Fault::TooManyRequests,
            3 => Fault::DropConnection,
            4 => Fault::CutOffStream,
            5 => Fault::TruncatedJson,
            _ => Fault::ShortPage,
        })
    }
}
