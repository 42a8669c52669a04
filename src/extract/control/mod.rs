//! How hard the fetch pushes, learned while it runs (the service publishes neither its capacity nor
//! its rate limit); the architecture guide's "How hard the fetch pushes" explains it. In flight: TCP
//! Vegas (Brakmo and Peterson, IEEE JSAC 13(8), 1995) once per round trip as Linux's `tcp_vegas`,
//! with Netflix concurrency-limits' `VegasLimit` thresholds and BBR's ProbeRTT. Per second: from
//! the first refusal (429, 503), told from a stray by the requests then in flight, slow start
//! (RFC 5681) and then CUBIC (RFC 9438) on the send rate, cut once per recovery (RFC 6582) when
//! Page's CUSUM finds more refusals than the strays', to what got through since a limit was last
//! met (Westwood+). Paced at most `PACING_GAIN x limit / srtt` (`tcp_pacing_ss_ratio`).
//! Why no crate does it: in Cargo.toml, beside `governor`.

mod rate;
mod vegas;

use std::sync::{Arc, Mutex, MutexGuard, atomic::AtomicUsize, atomic::Ordering};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use rate::Rate;
use vegas::Vegas;

/// At most this x limit / srtt a second. Lower: a growing limit's new requests spread over longer.
const PACING_GAIN: f64 = 2.0;
/// tokio's timer resolution: a turn this close is now; the shortest round trip.
const TICK: Duration = Duration::from_millis(1);

/// Locks a mutex, whatever a panicking holder left (each update is computed, then written).
fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// An answer (a round trip to learn from), a fault (5xx but 503, a cut body: past any limit), or
/// a refusal (429, 503: a limit's, or a stray).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Answered,
    Fault,
    Refused { retry_after: Option<Duration> },
}

/// A place in flight, from `acquire` (the turn to leave included) to `release`.
#[derive(Debug)]
pub(crate) struct Ticket {
    permit: Option<OwnedSemaphorePermit>,
    sample: Sample,
}

/// A request's round trip, from `release` to `observe`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sample {
    sent: Instant,
    rtt: Duration,
    in_flight: usize,
}

/// Requests in flight and per second. The semaphore's permits, idle and held: `limit + debt`.
#[derive(Debug)]
pub(crate) struct Control {
    sem: Arc<Semaphore>,
    max_rps: Option<f64>,
    in_flight: AtomicUsize,
    state: Mutex<State>,
}

impl Control {
    /// `ceiling`: `--concurrency`; `max_rps`: `--max-rps`.
    pub(crate) fn new(ceiling: usize, max_rps: Option<u32>) -> Self {
        let (now, max_rps) = (Instant::now(), max_rps.map(f64::from).filter(|r| *r > 0.0));
        let (vegas, rate) = (Vegas::new(ceiling.max(1), now), Rate::default());
        let sem = Arc::new(Semaphore::new(vegas.limit));
        let state = Mutex::new(State { vegas, rate, debt: 0, srtt: None, next: now });
        Self { sem, max_rps, in_flight: AtomicUsize::new(0), state }
    }

    /// The in-flight limit now and its ceiling (`--concurrency`).
    pub(crate) fn limit(&self) -> (usize, usize) {
        let s = locked(&self.state);
        (s.vegas.limit, s.vegas.ceiling)
    }

    /// Waits for a place in flight, then for the turn to leave (a cut while asleep puts it later).
    pub(crate) async fn acquire(&self) -> Ticket {
        let permit = self.sem.clone().acquire_owned().await.ok();
        let sent = loop {
            let turn = locked(&self.state).turn(Instant::now(), self.max_rps);
            match turn {
                Ok(sent) => break sent,
                Err(at) => tokio::time::sleep_until(at.into()).await,
            }
        };
        let in_flight = self.in_flight.fetch_add(1, Ordering::AcqRel) + 1;
        Ticket { permit, sample: Sample { sent, rtt: Duration::ZERO, in_flight } }
    }

    /// Gives the place back once the body is in: decoding is not the service's time.
    pub(crate) fn release(&self, ticket: Ticket) -> Sample {
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
        let mut s = locked(&self.state);
        if let Some(permit) = ticket.permit.filter(|_| s.debt > 0) {
            s.debt -= 1;
            permit.forget();
        }
        Sample { rtt: ticket.sample.sent.elapsed(), ..ticket.sample }
    }

    /// What came of a request of `operation`. Returns the in-flight limit and the pace after it.
    pub(crate) fn observe(
        &self,
        operation: &'static str,
        sample: Sample,
        outcome: Outcome,
    ) -> (usize, Option<f64>) {
        let (mut s, now) = (locked(&self.state), Instant::now());
        let before = s.vegas.limit;
        s.observe(now, operation, sample, outcome);
        self.follow(&mut s, before);
        (s.vegas.limit, s.taught(now, self.max_rps))
    }

    /// Adds or retires permits after the limit moved from `before`.
    fn follow(&self, s: &mut State, before: usize) {
        let after = s.vegas.limit;
        if after > before {
            let paid = (after - before).min(s.debt);
            s.debt -= paid;
            self.sem.add_permits(after - before - paid);
        } else if after < before {
            s.debt += (before - after) - self.sem.forget_permits(before - after);
        }
    }
}

#[derive(Debug)]
struct State {
    vegas: Vegas,
    rate: Rate,
    /// Permits to retire as they come back (a cut larger than the idle ones).
    debt: usize,
    /// The answers' smoothed round trip (RFC 6298, gain 1/8), and the earliest next turn.
    srtt: Option<Duration>,
    next: Instant,
}

impl State {
    /// The pace the refusals taught, under `--max-rps`; none while neither applies.
    fn taught(&self, now: Instant, max_rps: Option<f64>) -> Option<f64> {
        [self.rate.at(now), max_rps].into_iter().flatten().reduce(f64::min)
    }

    /// Requests a second now: the lowest of the taught pace and the window's.
    fn pace(&self, now: Instant, max_rps: Option<f64>) -> Option<f64> {
        let window = self.srtt.map(|d| PACING_GAIN * self.vegas.limit as f64 / d.max(TICK).as_secs_f64());
        [self.taught(now, max_rps), window].into_iter().flatten().reduce(f64::min)
    }

    /// What came, at `now`, of a request of `op`.
    fn observe(&mut self, now: Instant, op: &'static str, sample: Sample, outcome: Outcome) {
        match outcome {
            Outcome::Answered => {
                self.srtt =
                    Some(self.srtt.map_or(sample.rtt, |d| d.mul_f64(0.875) + sample.rtt.mul_f64(0.125)));
                self.vegas.answer(now, op, sample.sent, sample.rtt, sample.in_flight);
                self.rate.passed(now, sample.sent);
            }
            Outcome::Fault => self.rate.passed(now, sample.sent),
            Outcome::Refused { retry_after } => {
                // A refusal ends slow start, as a loss does (RFC 5681).
                self.vegas.slow_start = false;
                let cut = self.rate.refused(now, sample.sent, retry_after);
                // A cut's first request waits its gap: the limit has just been found empty.
                if let Some(rate) = self.rate.at(now).filter(|_| cut) {
                    self.next = self.next.max(now + Duration::from_secs_f64(1.0 / rate));
                }
            }
        }
    }

    /// `Ok(now)`: the turn taken; `Err(when)` to ask again. It makes up a tick's worth, no burst.
    fn turn(&mut self, now: Instant, max_rps: Option<f64>) -> Result<Instant, Instant> {
        if self.next > now + TICK {
            return Err(self.next);
        }
        let gap = self.pace(now, max_rps).map_or(Duration::ZERO, |r| Duration::from_secs_f64(1.0 / r));
        self.next = self.next.max(now.checked_sub(TICK).unwrap_or(now)) + gap;
        self.rate.sent(now);
        Ok(now)
    }
}

#[cfg(test)]
mod tests {
    //! The whole control on a simulated clock, as the pool drives it: no test sleeps.
    use std::cell::Cell;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    use super::vegas::INITIAL_LIMIT;
    use super::*;

    /// Refused share and answers a second of the sends in [from, to).
    pub(super) fn window(log: &[(f64, bool)], from: f64, to: f64) -> (f64, f64) {
        let sends: Vec<bool> = log.iter().filter(|(t, _)| (from..to).contains(t)).map(|(_, r)| *r).collect();
        let refused = sends.iter().filter(|r| **r).count() as f64;
        (refused / sends.len().max(1) as f64, (sends.len() as f64 - refused) / (to - from))
    }

    /// Draws whether each request is a stray refusal: `share` of them at random, from `seed`
    /// (Knuth's MMIX linear congruential generator).
    pub(super) fn strays(seed: u64, share: f64) -> impl FnMut() -> bool {
        let mut x = seed;
        move || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((x >> 11) as f64 / (1u64 << 53) as f64) < share
        }
    }

    /// nginx's `limit_req` of `rate` a second with `burst` and `nodelay`: whether a request
    /// arriving at `t` s is let through (its excess, one request each, drains at `rate`).
    fn limit_req(rate: f64, burst: f64) -> impl FnMut(f64) -> bool {
        let (mut excess, mut last) = (0.0_f64, 0.0);
        move |t| {
            let next = (excess - (t - last) * rate).max(0.0) + 1.0;
            let through = next <= burst + 1.0;
            if through {
                (excess, last) = (next, t);
            }
            through
        }
    }

    /// The pool's whole control against a gateway, with requests always waiting, for `secs`:
    /// an answer comes back `answer` s after it left, a refusal `refusal` s. Each send as
    /// (time, refused).
    fn through_gateway(
        secs: f64,
        answer: f64,
        refusal: f64,
        mut admit: impl FnMut(f64) -> bool,
    ) -> Vec<(f64, bool)> {
        let mut s = Control::new(64, None).state.into_inner().unwrap_or_else(|p| p.into_inner());
        let t0 = s.next;
        let (at, us) = (|us: u64| t0 + Duration::from_micros(us), |secs: f64| (secs * 1e6) as u64);
        let (mut flight, mut log, mut now) = (BinaryHeap::new(), Vec::new(), 0u64);
        while now < us(secs) {
            let mut next_send = None;
            while flight.len() < s.vegas.limit {
                match s.turn(at(now), None) {
                    Ok(_) => {
                        let through = admit(now as f64 / 1e6);
                        let done = now + us(if through { answer } else { refusal }).max(1);
                        flight.push(Reverse((done, now, flight.len() + 1, through)));
                        log.push((now as f64 / 1e6, !through));
                    }
                    Err(when) => {
                        next_send = Some(now + (when.duration_since(at(now)).as_micros() as u64).max(1));
                        break;
                    }
                }
            }
            let Some(&Reverse((done, ..))) = flight.peek() else {
                now = next_send.unwrap_or(now + 1);
                continue;
            };
            now = next_send.map_or(done, |n| n.min(done));
            while let Some(Reverse((done, sent, in_flight, through))) =
                flight.peek().copied().filter(|f| f.0.0 <= now)
            {
                flight.pop();
                let sample = Sample { sent: at(sent), rtt: Duration::from_micros(done - sent), in_flight };
                let outcome =
                    if through { Outcome::Answered } else { Outcome::Refused { retry_after: None } };
                s.observe(at(done), "op", sample, outcome);
            }
        }
        log
    }

    #[test]
    fn behind_a_gateway_the_first_refusals_end_the_burst_and_few_follow() {
        // nginx's limit_req as bench/gateway.sh sets it, on loopback and across a WAN.
        for (answer, refusal) in [(0.001, 0.0003), (0.05, 0.05)] {
            for (rate, burst) in [(30.0, 10.0), (80.0, 20.0), (200.0, 50.0), (80.0, 0.0)] {
                let cell = format!("{rate}/s, burst {burst}, answers in {answer} s");
                let log = through_gateway(60.0, answer, refusal, limit_req(rate, burst));
                // The first refusals end the burst: no more than the first requests in flight.
                let first = log.iter().filter(|(t, refused)| *t < 1.0 && *refused).count();
                assert!(first <= 3 * INITIAL_LIMIT, "{cell}: {first} refused in the first second");
                let (refused, served) = window(&log, 0.0, 60.0);
                assert!(refused <= 0.03, "{cell}: {:.2} % refused", refused * 100.0);
                // Without a burst the climb after the first refusals is slower: each probe past
                // the rate is refused at once.
                let least = if burst > 0.0 { 0.95 } else { 0.7 };
                assert!(served >= least * rate, "{cell}: {served:.1} served a second");
            }
        }
    }

    #[test]
    fn a_limit_among_stray_refusals_is_followed_and_the_strays_let_be() {
        // The soak's service: a limit of 400 a second, then 8.6 % of what it lets by refused at
        // random (the registry's own 429 and 503 faults).
        for seed in [7u64, 11, 13] {
            let (mut stray, mut limit, limited) =
                (strays(seed, 0.086), limit_req(400.0, 400.0), Cell::new(0));
            let admit = |t: f64| {
                let stray = stray();
                let through = limit(t);
                limited.set(limited.get() + u32::from(!through));
                through && !stray
            };
            let log = through_gateway(60.0, 0.01, 0.01, admit);
            let (refused, served) = window(&log, 0.0, 60.0);
            assert!(refused <= 0.086 + 0.025, "seed {seed}: {:.2} % refused", refused * 100.0);
            assert!(served >= 0.85 * 400.0 * (1.0 - 0.086), "seed {seed}: {served:.1} served a second");
            // The limit's own refusals: at most 1 %, as the soak asks.
            let by_limit = f64::from(limited.get()) / log.len() as f64;
            assert!(by_limit <= 0.01, "seed {seed}: {:.2} % refused by the limit", by_limit * 100.0);
        }
    }

    #[test]
    fn requests_leave_paced_by_the_window_and_capped_by_max_rps() {
        let mut s = Control::new(64, None).state.into_inner().unwrap_or_else(|p| p.into_inner());
        let t0 = s.next;
        s.vegas.limit = 64;
        s.srtt = Some(Duration::from_millis(128));
        // 2 x 64 / 128 ms = 1,000 a second: turns 1 ms apart, at most a tick's worth made up.
        let mut now = t0;
        let mut taken = 0;
        while now < t0 + Duration::from_millis(100) {
            match s.turn(now, None) {
                Ok(_) => taken += 1,
                Err(at) => now = at.max(now + Duration::from_micros(100)),
            }
        }
        assert!((95..=105).contains(&taken), "{taken} turns in 100 ms");
        let capped = Control::new(64, Some(50));
        let taught = locked(&capped.state).taught(Instant::now(), capped.max_rps);
        assert_eq!(taught, Some(50.0), "--max-rps caps from the start");
    }

    #[tokio::test]
    async fn a_lower_limit_retires_permits_as_they_come_back() {
        let c = Control::new(16, None);
        assert_eq!(c.limit(), (16, 16));
        let held: Vec<Ticket> = futures::future::join_all((0..16).map(|_| c.acquire())).await;
        {
            let mut s = locked(&c.state);
            s.vegas.limit = 8;
            c.follow(&mut s, 16);
        }
        for ticket in held {
            c.release(ticket);
        }
        assert_eq!(c.sem.available_permits(), 8, "the retired permits do not come back");
        assert_eq!(locked(&c.state).debt, 0);
    }
}
