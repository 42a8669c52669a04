//! The in-flight limit: TCP Vegas (Brakmo and Peterson, 1995) once per round trip as Linux's
//! `tcp_vegas`, with Netflix concurrency-limits' `VegasLimit` thresholds and BBR's ProbeRTT.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The first in-flight limit. Higher: a fast service is reached sooner, a rate limit met harder.
pub(super) const INITIAL_LIMIT: usize = 16;
/// Vegas' alpha (x log10 limit): a shorter queue grows the limit. Lower: idle workers more often.
const QUEUE_LOW: f64 = 3.0;
/// Vegas' beta (x log10 limit): a longer queue shrinks the limit. Higher: a longer queue first.
const QUEUE_HIGH: f64 = 6.0;
/// Round trips between re-probes below the ceiling. Fewer: a latency rise followed sooner, more half rounds.
const PROBE_EVERY: u32 = 30;

/// The in-flight limit; `no_load`: the quickest round trip per operation since the last re-probe;
/// `resume`: the limit after one; this round's start, sum and count of no_load / rtt, most out;
/// `moved`: the limit moved at this round's start, so its answers were sent under the old one.
#[derive(Debug)]
pub(super) struct Vegas {
    pub(super) limit: usize,
    pub(super) ceiling: usize,
    no_load: HashMap<&'static str, Duration>,
    resume: Option<usize>,
    pub(super) slow_start: bool,
    moved: bool,
    rounds: u32,
    began: Instant,
    sum: f64,
    count: u32,
    most: usize,
}

impl Vegas {
    pub(super) fn new(ceiling: usize, began: Instant) -> Self {
        let (limit, no_load, resume, slow_start) = (INITIAL_LIMIT.min(ceiling), HashMap::new(), None, true);
        let (moved, rounds, sum, count, most) = (false, 0, 0.0, 0, 0);
        Self { limit, ceiling, no_load, resume, slow_start, moved, rounds, began, sum, count, most }
    }

    /// The answer, at `now`, of a request of `op` sent at `sent` with `in_flight` out.
    pub(super) fn answer(
        &mut self,
        now: Instant,
        op: &'static str,
        sent: Instant,
        rtt: Duration,
        in_flight: usize,
    ) {
        // Re-probing, only a request sent at the lowered limit tells what no load is.
        if !rtt.is_zero() && (self.resume.is_none() || in_flight <= self.limit) {
            let quickest = self.no_load.entry(op).or_insert(rtt);
            *quickest = (*quickest).min(rtt);
        }
        let Some(&no_load) = self.no_load.get(op).filter(|_| !rtt.is_zero()) else { return };
        if self.resume.is_none() {
            (self.sum, self.count) = (self.sum + no_load.as_secs_f64() / rtt.as_secs_f64(), self.count + 1);
            self.most = self.most.max(in_flight);
        }
        // A round ends with the answer of the first request sent after it began (tcp_vegas'
        // beg_snd_nxt), and is judged once enough were out to show a queue.
        let few = self.resume.is_none() && self.most * 2 < self.limit;
        if sent < self.began || few {
            return;
        }
        let served = if self.count == 0 { 1.0 } else { self.sum / f64::from(self.count) };
        (self.began, self.sum, self.count, self.most) = (now, 0.0, 0, 0);
        let before = self.limit;
        if let Some(limit) = self.resume.take() {
            self.limit = limit;
        } else if std::mem::take(&mut self.moved) {
            // Vegas judges a move only on requests sent under it: the next round.
            return;
        } else if self.rounds.is_multiple_of(PROBE_EVERY) && self.rounds > 0 && self.limit < self.ceiling {
            (self.resume, self.limit) = (Some(self.limit), (self.limit / 2).max(1));
            self.no_load.clear();
        } else if let Some(next) = self.next(served) {
            self.limit = (next.round() as usize).clamp(1, self.ceiling);
        }
        self.rounds += u32::from(self.resume.is_none());
        self.moved = self.limit != before;
    }

    /// Vegas' rule on the queue `limit x (1 - served)`; none to hold.
    fn next(&mut self, served: f64) -> Option<f64> {
        let (l, log) = (self.limit as f64, (self.limit as f64).log10().floor().max(1.0));
        let queue = (l * (1.0 - served)).ceil();
        if self.slow_start && queue < QUEUE_LOW * log {
            return Some(2.0 * l);
        }
        self.slow_start &= queue < QUEUE_LOW * log;
        match queue {
            q if q <= log => Some(l + QUEUE_HIGH * log),
            q if q < QUEUE_LOW * log => Some(l + log),
            q if q <= QUEUE_HIGH * log => None,
            _ => Some(l * served + QUEUE_LOW * log),
        }
    }
}

#[cfg(test)]
mod tests {
    //! Properties, on a simulated clock: no test sleeps.
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    use super::*;

    const MS: u64 = 1_000;

    /// A closed loop of requests against a service with `workers` (none: as many as come) serving
    /// each for `service_us(now)` µs, the rest waiting in line. Returns (µs, limit) at each answer.
    fn closed_loop(
        workers: Option<usize>,
        ceiling: usize,
        until_us: u64,
        service_us: impl Fn(u64) -> u64,
    ) -> Vec<(u64, usize)> {
        let t0 = Instant::now();
        let mut vegas = Vegas::new(ceiling, t0);
        let mut free = vec![0u64; workers.unwrap_or(0)];
        let mut out = BinaryHeap::new();
        let (mut trace, mut now, mut in_flight) = (Vec::new(), 0u64, 0usize);
        loop {
            while in_flight < vegas.limit {
                in_flight += 1;
                let busy = service_us(now);
                let done = match free.iter_mut().min() {
                    Some(worker) => {
                        *worker = (*worker).max(now) + busy;
                        *worker
                    }
                    None => now + busy,
                };
                out.push(Reverse((done, now, in_flight)));
            }
            let Some(Reverse((done, sent, at_send))) = out.pop() else { break };
            if done > until_us {
                break;
            }
            (now, in_flight) = (done, in_flight - 1);
            let at = |us: u64| t0 + Duration::from_micros(us);
            vegas.answer(at(now), "op", at(sent), Duration::from_micros(done - sent), at_send);
            trace.push((now, vegas.limit));
        }
        trace
    }

    fn limits(trace: &[(u64, usize)], from_us: u64, to_us: u64) -> Vec<usize> {
        trace.iter().filter(|(t, _)| (from_us..to_us).contains(t)).map(|(_, l)| *l).collect()
    }

    fn share(values: &[usize], keep: impl Fn(usize) -> bool) -> f64 {
        values.iter().filter(|v| keep(**v)).count() as f64 / values.len().max(1) as f64
    }

    #[test]
    fn the_limit_reaches_a_capacity_within_a_few_round_trips_and_stays_near_it() {
        for workers in [8, 24, 32] {
            let trace = closed_loop(Some(workers), 64, 6_000 * MS, |_| 50 * MS);
            let near = |l: usize| (workers..=workers + 2 * QUEUE_HIGH as usize).contains(&l);
            let first = trace.iter().find(|(_, l)| near(*l)).map(|(t, _)| *t);
            assert!(first.is_some_and(|t| t <= 5 * 50 * MS), "{workers} workers: near at {first:?} µs");
            // Settled: mostly near the capacity (a re-probe halves the limit for a round trip).
            let mut settled = limits(&trace, 1_000 * MS, 6_000 * MS);
            settled.sort_unstable();
            let middle = settled.get(settled.len().saturating_sub(1) / 2).copied();
            assert!(middle.is_some_and(near), "{workers} workers: settled around {middle:?}");
            let around = |l: usize| (workers / 2..=workers + 2 * QUEUE_HIGH as usize).contains(&l);
            assert!(
                share(&settled, around) > 0.8,
                "{workers} workers: {} settled near, middle {middle:?}",
                share(&settled, around)
            );
        }
        // No capacity short of the ceiling: the ceiling, in slow start's few round trips.
        let trace = closed_loop(None, 64, 1_000 * MS, |_| 50 * MS);
        assert!(trace.iter().any(|(t, l)| *l == 64 && *t <= 3 * 50 * MS));
    }

    #[test]
    fn the_limit_follows_a_step_of_the_services_own_latency_up_and_down() {
        // 50 ms until 5 s, 100 ms until 15 s, 50 ms again: no queue at any time, only latency.
        let latency = |t: u64| if (5_000 * MS..15_000 * MS).contains(&t) { 100 * MS } else { 50 * MS };
        let trace = closed_loop(None, 64, 25_000 * MS, latency);
        assert!(limits(&trace, 3_000 * MS, 5_000 * MS).iter().all(|l| *l >= 32), "before");
        // Up: read as a queue at first; the re-probe learns the new no-load round trip, and the
        // limit is back near the ceiling within PROBE_EVERY round trips and some more.
        let after_up = limits(&trace, (5_000 + (u64::from(PROBE_EVERY) + 30) * 100) * MS, 15_000 * MS);
        assert!(share(&after_up, |l| l >= 58) > 0.9, "{after_up:?}");
        // Down: no queue is read, the limit stays up (a re-probe halves it for a round trip).
        let after_down = limits(&trace, 15_000 * MS, 25_000 * MS);
        assert!(after_down.iter().all(|l| *l >= 32) && share(&after_down, |l| l >= 58) > 0.9);
    }
}
