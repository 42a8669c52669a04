//! How many requests a fetch keeps in flight, found while it runs: the service publishes
//! neither its capacity nor its rate limit (the rate is `pace`'s).
//!
//! - `InFlightLimit`: requests in flight, adapted by TCP Vegas' rule (Brakmo and Peterson,
//!   "TCP Vegas: End to End Congestion Avoidance on a Global Internet", 1995; as Netflix's
//!   concurrency-limits `VegasLimit` applies it to requests): from the median answer of each
//!   round trip against the quickest seen for its operation it estimates how many requests wait
//!   in the queue, grows the limit while that queue is short and shrinks it when it is long;
//!   until a queue shows two round trips in a row it doubles once a round trip (Vegas' slow start).
//!   Refusals the pacer (`pace`) takes as the rate limit's halve it and a fault (5xx, cut
//!   connection) takes a tenth off, at most once per half second. `--concurrency` is its ceiling.
//!
//! Why not a crate: the adaptive limiters on crates.io (tower-acc, tower-resilience-adaptive)
//! are Tower middleware that hold a slot for a whole call; this pool gives the slot back when
//! the body is in, before decoding, and tells a refusal from a fault itself.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A decrease is one signal per this long: one burst of 429s or faults is one event.
pub(super) const HOLD: Duration = Duration::from_millis(500);
/// The first limit: the fixed number the fetch used before it adapted (so it is never pushier
/// than that at first), and small enough that a rate limit met early refuses few requests;
/// Vegas doubles it within two round trips when the service has room. (From 8, the third
/// round trip cost 0.17 s of a 7.7 s floor at 200 ms.)
const INITIAL: usize = 16;

/// The most answers a window holds (`LimitState::window`): more than a round trip brings at
/// the largest ceilings anyone sets.
const WINDOW_MOST: usize = 4096;

/// Locks a mutex, whatever a panicking holder left (the values stay consistent: each update is
/// computed first and written in one step).
pub(super) fn locked<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The middle value (the lower of the two middle ones); 1 (no delay) for none.
fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 1.0;
    }
    let mid = (values.len() - 1) / 2;
    *values.select_nth_unstable_by(mid, f64::total_cmp).1
}

/// A slot of the in-flight limit, with what its answer needs to be judged.
pub struct Slot {
    permit: Option<OwnedSemaphorePermit>,
    sent: Instant,
    in_flight: usize,
}

impl Slot {
    /// The request leaves now (after its pacing wait): its round trip counts from here.
    pub fn sending(&mut self) {
        self.sent = Instant::now();
    }

    /// When the request left.
    pub fn sent(&self) -> Instant {
        self.sent
    }
}

#[derive(Debug)]
struct LimitState {
    current: usize,
    /// Permits to retire as they come back (a decrease larger than the idle permits).
    debt: usize,
    /// The quickest round trip seen per operation: the service with no queue.
    no_load: HashMap<&'static str, Duration>,
    last_decrease: Option<Instant>,
    /// Doubling once a round trip until a queue shows twice in a row (or a refusal or fault), as
    /// TCP Vegas' slow start does: from 16 to 64 in two round trips, not six.
    slow_start: bool,
    /// In slow start, the last window showed a queue: the doubling holds for a round trip, and
    /// a second queue in a row ends it. A run's first round trip reads slow (the process
    /// starting, its connections opening: 53.5 ms at 50 ms with no queue at the service) and
    /// ended the doubling at 32; Vegas' steps then took four round trips to 64. A real queue
    /// is still there a round trip later, and holding costs no throughput: the service is
    /// already full.
    queue_once: bool,
    /// The answers since the limit last moved: each one's quickest / this round trip, and the
    /// most in flight. The limit moves once per window of about one round trip: moved at every
    /// answer, it overshot by a round trip's worth of answers, then undershot.
    ///
    /// The window's median says whether answers wait: a queue at the service, or our own CPU
    /// busy decoding (at 5 ms, where more in flight brings nothing but a larger first burst of
    /// refusals against a rate limit), delays most of them. A few held up behind their
    /// neighbours' decoding (a round trip's answers come back together) do not move it; their
    /// mean did, by 2 to 3 ms at 50 ms. (Linux's `tcp_vegas` takes the minimum against such
    /// noise; with the minimum the limit went to 64 at 5 ms, and a first burst of refusals at
    /// 100/s from 20 to 45.)
    window: Window,
    /// After a doubling, its new requests leave spread over half a round trip: until then,
    /// at least this long apart (see `send_gap`).
    spread: Option<(Instant, Duration)>,
}

#[derive(Debug)]
struct Window {
    started: Instant,
    served: Vec<f64>,
    most_in_flight: usize,
}

impl Window {
    fn new() -> Self {
        Self { started: Instant::now(), served: Vec::new(), most_in_flight: 0 }
    }
}

/// Requests in flight, adapted to the service (see the module's description).
///
/// Invariant: the semaphore's permits, idle and held, number `current + debt`.
#[derive(Debug)]
pub struct InFlightLimit {
    sem: Arc<Semaphore>,
    ceiling: usize,
    in_flight: AtomicUsize,
    state: Mutex<LimitState>,
}

impl InFlightLimit {
    pub fn new(ceiling: usize) -> Self {
        let ceiling = ceiling.max(1);
        let current = INITIAL.min(ceiling);
        Self {
            sem: Arc::new(Semaphore::new(current)),
            ceiling,
            in_flight: AtomicUsize::new(0),
            state: Mutex::new(LimitState {
                current,
                debt: 0,
                no_load: HashMap::new(),
                last_decrease: None,
                slow_start: true,
                queue_once: false,
                window: Window::new(),
                spread: None,
            }),
        }
    }

    /// The least time between two requests leaving, for a round trip after a doubling of the
    /// limit: at once, the permits it added went out together, and against a rate limit's
    /// last tokens 14 to 20 of them were refused in the same millisecond (at 200 ms, 32 -> 64).
    /// Spread, the first few refused say so before the others leave.
    pub fn send_gap(&self) -> Option<Duration> {
        let s = locked(&self.state);
        s.spread.filter(|(until, _)| Instant::now() < *until).map(|(_, gap)| gap)
    }

    pub fn current(&self) -> usize {
        locked(&self.state).current
    }

    pub fn ceiling(&self) -> usize {
        self.ceiling
    }

    pub async fn acquire(&self) -> Slot {
        let permit = self.sem.clone().acquire_owned().await.ok();
        let in_flight = self.in_flight.fetch_add(1, Ordering::AcqRel) + 1;
        Slot { permit, sent: Instant::now(), in_flight }
    }

    /// Gives the slot back; returns how long the request took.
    pub fn release(&self, slot: Slot) -> (Duration, usize) {
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
        let took = slot.sent.elapsed();
        if let Some(permit) = slot.permit {
            let mut s = locked(&self.state);
            if s.debt > 0 {
                s.debt -= 1;
                permit.forget();
            }
        }
        (took, slot.in_flight)
    }

    /// An answer of `operation` that took `rtt` with `in_flight` requests out when it left.
    pub fn on_answer(&self, operation: &'static str, rtt: Duration, in_flight: usize) {
        if rtt.is_zero() {
            return;
        }
        let mut s = locked(&self.state);
        let no_load = *s.no_load.entry(operation).and_modify(|d| *d = (*d).min(rtt)).or_insert(rtt);
        let w = &mut s.window;
        // With too few out the window stays open (below): its oldest answers go, so that it
        // holds a bounded number and judges by recent ones.
        if w.served.len() == WINDOW_MOST {
            w.served.drain(..WINDOW_MOST / 2);
        }
        w.served.push(no_load.as_secs_f64() / rtt.as_secs_f64());
        w.most_in_flight = w.most_in_flight.max(in_flight);
        // One round trip (the quickest seen), at least 5 ms and at most a second.
        let quickest = s.no_load.values().min().copied().unwrap_or(rtt);
        let round = quickest.clamp(Duration::from_millis(5), Duration::from_secs(1));
        if s.window.started.elapsed() < round {
            return;
        }
        let limit = s.current;
        // Too few out to tell anything of the service's queue (the fetch is not sending enough):
        // the window goes on until enough are. (Closed here, the first answer of a run, its
        // request sent alone, cost the first doubling a whole round trip.)
        if s.window.most_in_flight * 2 < limit {
            return;
        }
        let mut w = std::mem::replace(&mut s.window, Window::new());
        let l = limit as f64;
        let log = l.log10().max(1.0);
        let served = median(&mut w.served);
        let queue = (l * (1.0 - served)).ceil();
        tracing::debug!(limit, answers = w.served.len(), served, queue, ?quickest, "in-flight window");
        if s.slow_start {
            // Out of slow start at the second queue in a row, to what the service got through without one
            // (the limit x quickest / this round trip) and a short queue over it: the doubling
            // has overshot by up to twice, and Vegas' steps of log(limit) would take a dozen
            // round trips to come down.
            let no_queue = queue <= log;
            if !no_queue && !s.queue_once {
                s.queue_once = true;
                return;
            }
            s.queue_once = false;
            let next = if no_queue { 2.0 * l } else { l * served + 3.0 * log };
            s.slow_start = no_queue;
            self.set(&mut s, next.round() as usize);
            if s.current > limit {
                s.spread = Some((Instant::now() + round, round / (2 * s.current as u32)));
            }
            return;
        }
        let next = if queue <= log {
            l + 6.0 * log
        } else if queue < 3.0 * log {
            l + log
        } else if queue > 6.0 * log {
            l - log
        } else {
            return;
        };
        self.set(&mut s, next.round() as usize);
    }

    /// A 429: half the limit.
    pub fn on_refused(&self) {
        self.decrease(0.5);
    }

    /// A 5xx or a broken answer: a tenth off (a faulty service may well not be a full one).
    pub fn on_fault(&self) {
        self.decrease(0.9);
    }

    fn decrease(&self, factor: f64) {
        let mut s = locked(&self.state);
        if s.last_decrease.is_some_and(|t| t.elapsed() < HOLD) {
            return;
        }
        s.last_decrease = Some(Instant::now());
        s.slow_start = false;
        s.queue_once = false;
        // The spread was for a doubling's new requests: after a cut there are none to spread.
        s.spread = None;
        let next = (s.current as f64 * factor).floor() as usize;
        self.set(&mut s, next);
    }

    /// Moves the limit to `next` (within 1 and the ceiling), adding or retiring permits.
    fn set(&self, s: &mut LimitState, next: usize) {
        let next = next.clamp(1, self.ceiling);
        let cur = s.current;
        if next > cur {
            let mut add = next - cur;
            let paid = add.min(s.debt);
            s.debt -= paid;
            add -= paid;
            self.sem.add_permits(add);
        } else if next < cur {
            let cut = cur - next;
            let forgotten = self.sem.forget_permits(cut);
            s.debt += cut - forgotten;
        } else {
            return;
        }
        s.current = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An answer at the end of a window (as if a round trip had gone by).
    fn answer(l: &InFlightLimit, rtt: Duration, in_flight: usize) {
        opened_long_ago(l);
        l.on_answer("op", rtt, in_flight);
    }

    /// The window began 2 s ago: the next answer may close it.
    fn opened_long_ago(l: &InFlightLimit) {
        locked(&l.state).window.started -= Duration::from_secs(2);
    }

    #[tokio::test]
    async fn the_limit_grows_without_a_queue_and_shrinks_with_one() {
        let l = InFlightLimit::new(64);
        assert_eq!(l.current(), INITIAL);
        let quick = Duration::from_millis(50);
        // No queue (every answer as quick as the quickest): the limit climbs to the ceiling.
        for _ in 0..100 {
            let n = l.current();
            answer(&l, quick, n);
        }
        assert_eq!(l.current(), 64);
        // Answers twice as slow with the limit out: half of it is queueing; it comes down.
        for _ in 0..50 {
            let n = l.current();
            answer(&l, quick * 2, n);
        }
        assert!(l.current() < 64, "{}", l.current());
        // Answers within one round trip move the limit once.
        let before = l.current();
        for _ in 0..10 {
            l.on_answer("op", quick * 2, before);
        }
        assert!(before - l.current() <= 2, "{before} -> {}", l.current());
        // Too few in flight says nothing.
        locked(&l.state).window = Window::new();
        let before = l.current();
        answer(&l, quick * 10, 1);
        assert_eq!(l.current(), before);
    }

    #[tokio::test]
    async fn delays_of_some_answers_are_no_queue_but_delays_of_all_are() {
        let l = InFlightLimit::new(64);
        let quick = Duration::from_millis(50);
        // The first round trip: most answers as quick as the quickest, 7 of 16 held up 10 to 16
        // ms on our side (decoding their neighbours). Their mean read a queue and ended the
        // doubling at 16.
        for i in 0..15u64 {
            let held = if i % 2 == 1 { Duration::from_millis(10 + i / 2) } else { Duration::ZERO };
            l.on_answer("op", quick + held, 16);
        }
        answer(&l, quick, 16);
        assert_eq!(l.current(), 32, "noise on some answers is no queue");
        // A capacity of 32 met at 64: every answer waits as long again.
        answer(&l, quick, 32);
        assert_eq!(l.current(), 64);
        for _ in 0..2 {
            for _ in 0..16 {
                l.on_answer("op", quick * 2, 64);
            }
            answer(&l, quick * 2, 64);
        }
        assert!((32..=40).contains(&l.current()), "{}", l.current());
    }

    #[tokio::test]
    async fn a_window_left_open_by_too_few_out_holds_its_latest_answers() {
        let l = InFlightLimit::new(64);
        opened_long_ago(&l);
        for _ in 0..3 * WINDOW_MOST {
            l.on_answer("op", Duration::from_millis(300), 1);
        }
        // A request alone each time: the window stays open, but what it holds is bounded.
        let held = locked(&l.state).window.served.len();
        assert!((WINDOW_MOST / 2..=WINDOW_MOST).contains(&held), "{held}");
        assert_eq!(l.current(), INITIAL);
    }

    #[tokio::test]
    async fn an_answer_sent_with_too_few_out_does_not_put_off_the_first_doubling() {
        let l = InFlightLimit::new(64);
        let quick = Duration::from_millis(200);
        // The run's first request left alone: its answer tells nothing of a queue.
        answer(&l, quick, 1);
        assert_eq!(l.current(), INITIAL);
        // The next answer, of a request sent with the first limit out, a moment later.
        l.on_answer("op", quick, INITIAL);
        assert_eq!(l.current(), 2 * INITIAL, "the window of the lone answer was still open");
    }

    #[tokio::test]
    async fn a_doublings_new_requests_leave_spread_over_half_a_round_trip() {
        let l = InFlightLimit::new(64);
        assert_eq!(l.send_gap(), None, "nothing to spread before the first doubling");
        let quick = Duration::from_millis(200);
        answer(&l, quick, l.current());
        assert_eq!(l.current(), 32);
        // 32 requests a round trip, over half of it: 200 ms / 64 apart.
        assert_eq!(l.send_gap(), Some(Duration::from_micros(3_125)));
        // A round trip on, they have left.
        if let Some((until, _)) = locked(&l.state).spread.as_mut() {
            *until -= quick;
        }
        assert_eq!(l.send_gap(), None);
        // A cut ends a doubling's spread at once.
        answer(&l, quick, l.current());
        assert!(l.send_gap().is_some());
        l.on_refused();
        assert_eq!(l.send_gap(), None, "no doubling's requests left to spread after a cut");
    }

    #[tokio::test]
    async fn the_limit_doubles_until_a_lasting_queue_then_drops_to_what_was_served() {
        let l = InFlightLimit::new(64);
        let quick = Duration::from_millis(50);
        let mut seen = vec![l.current()];
        for _ in 0..3 {
            answer(&l, quick, l.current());
            seen.push(l.current());
        }
        assert_eq!(seen, [16, 32, 64, 64]);
        // A capacity of 32 met at 64: answers twice as slow. The limit holds a round trip (a
        // first queue may be the run starting), then goes to about 32, not 64 less a log at a
        // time.
        answer(&l, quick * 2, 64);
        assert_eq!(l.current(), 64, "one queue holds the doubling");
        answer(&l, quick * 2, 64);
        let after = l.current();
        assert!((32..=40).contains(&after), "{after}");
        // Past the slow start, no queue adds Vegas' step, no longer a doubling.
        answer(&l, quick, after);
        assert!(l.current() < after * 2 && l.current() > after, "{after} -> {}", l.current());
        // A refusal ends the slow start too.
        let r = InFlightLimit::new(64);
        r.on_refused();
        assert_eq!(r.current(), 8);
        answer(&r, quick, 8);
        assert_eq!(r.current(), 14, "Vegas' step (8 + 6 x log10 floored at 1), not a doubling");
        // One round trip read slow (the run starting), the next not: the doubling goes on.
        let s = InFlightLimit::new(64);
        answer(&s, quick, 16);
        answer(&s, quick + quick / 10, 32);
        assert_eq!(s.current(), 32);
        answer(&s, quick, 32);
        assert_eq!(s.current(), 64);
    }

    #[tokio::test]
    async fn a_refusal_halves_the_limit_and_the_permits_follow() {
        let l = InFlightLimit::new(16);
        for _ in 0..20 {
            answer(&l, Duration::from_millis(5), 16);
        }
        assert_eq!(l.current(), 16);
        let held: Vec<Slot> = futures::future::join_all((0..16).map(|_| l.acquire())).await;
        l.on_refused();
        assert_eq!(l.current(), 8);
        l.on_refused();
        assert_eq!(l.current(), 8, "one burst of refusals is one signal");
        for s in held {
            l.release(s);
        }
        assert_eq!(l.sem.available_permits(), 8, "the retired permits do not come back");
        assert_eq!(locked(&l.state).debt, 0);
    }
}
