//! How many requests a fetch sends per second, learned from the service's refusals: it
//! publishes no rate limit.
//!
//! `Pacer`: requests per second. Unpaced until the service refuses one; then a shared pause
//! for the Retry-After it asked, and a pace just under the rate that was getting through,
//! held a while under the rate refused (the first burst's word, swelled by a bucket's
//! allowance, is taken lower) and raised slowly after (additive increase,
//! multiplicative decrease on the rate, as TCP does on its window). A stray 429 (fewer than
//! 6 of the latest 10 answers refused, under 15% of the last second's and 8% of the last 5
//! seconds', no run of 12 making 15% of the answers since its first, not followed by 3 refusals
//! of requests sent after it, most of those sent, before any of them is answered) is only the
//! refused request's to wait out. `--max-rps` is a hard cap.
//!
//! Why not a crate: see `limit`; the pool tells a refusal from a fault itself.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::limit::{HOLD, locked};

#[derive(Debug)]
struct PaceState {
    /// Requests per second allowed; `None` before the first refusal.
    rate: Option<f64>,
    /// The rate the last refusal came at.
    refused_at: Option<f64>,
    /// Whether that rate was measured between two bursts (the first is swelled by the
    /// allowance a token bucket starts with).
    refused_at_measured: bool,
    last_refusal: Option<Instant>,
    last_raise: Instant,
    /// The next free moment to send.
    next: Instant,
    /// No request leaves before this (the Retry-After the service asked for).
    pause_until: Instant,
    /// The latest outcomes (true: refused), at most `LATEST`; and those of the last
    /// `RECENT`, with their time.
    latest: VecDeque<bool>,
    recent: VecDeque<(Instant, bool)>,
    /// Answers since the last burst of refusals, to requests sent since; and the latest such
    /// request's send time.
    answers_since_refusal: u64,
    latest_sent_answered: Option<Instant>,
    /// The end of the last pause: the rate getting through is measured from there.
    resumed: Instant,
    /// Pauses so far: a request that slept through one is paced again.
    pauses: u64,
    /// A refusal's probe (see `PROBES`): open from a 429 until a request sent after it is
    /// answered.
    probe: Option<Probe>,
}

/// The requests sent since a 429 came, and how many of them were refused.
#[derive(Debug, Clone, Copy)]
struct Probe {
    came: Instant,
    sent: usize,
    refused: usize,
}

/// Requests per second: a shared pace learned from refusals (see the module's description).
#[derive(Debug)]
pub struct Pacer {
    cap: Option<f64>,
    state: Mutex<PaceState>,
}

/// After a refusal the pace stays under the rate refused this long before it probes past it.
const PLATEAU: Duration = Duration::from_secs(20);
/// The window the rate getting through is measured over.
const WINDOW: Duration = Duration::from_secs(1);
/// The latest outcomes looked at for a burst of refusals, and how many of them refused make
/// one: with 4.3% of answers stray 429s (the soak's), 6 of 10 comes by chance once in 1.5
/// million answers; 4 of 8 came once in 9,600 (two or three false bursts a soak). Far over a
/// limit most answers are refused: either says so within a dozen.
const LATEST: usize = 10;
const FAR_OVER: usize = 6;

/// The share of the rate that got through before the first burst the pace starts at: that
/// rate is swelled by the allowance a token bucket starts with (0.9 of the rest's).
const FIRST_WORD_SHARE: f64 = 0.85;

/// The fewest answers a rate is told from.
const MIN_ANSWERS: f64 = 10.0;

/// How far back a steady share of refusals is looked for, and the share.
const RECENT: Duration = Duration::from_secs(5);
const STEADY_SHARE: f64 = 0.08;
/// The fewest refusals a steady share is told from. The latest outcomes start again at each
/// burst; counted from there, the soak's stray 429s (4.3%) reach 8% of the answers with 10
/// refusals at least once in 15 bursts, with 20 once in 140.
const STEADY_FEWEST: usize = 20;
/// The same over the last second: a larger share, fewer refusals.
const LATELY_SHARE: f64 = 0.15;
const LATELY_FEWEST: usize = 10;
/// A run of refusals: the latest this many make `LATELY_SHARE` of the answers since the first
/// of them (within the last second). A pace a fifth over a limit refuses a fifth of its answers
/// from the moment the bucket runs dry, but the last second's share counts the answers before
/// that too: at 124/s against 100/s, 200 ms, it took ~20 refusals where this takes 12. With the
/// soak's 4.3% stray 429s, 12 in at most 80 answers comes by chance about once in 4,000 runs.
const RUN_FEWEST: usize = 12;
/// The requests sent after a refusal came that, refused before any of them is answered and
/// making most of those sent since, make a burst: they met the service after it had refused,
/// so the allowance is spent. Far over a limit
/// this says so after three refusals, where the shares wait for a dozen while the answers to
/// requests already in flight keep coming: at 100/s, 50 and 200 ms, refused 0.7-1.1% -> 0.3-0.6%.
/// (At 5 ms most of a first burst is of requests sent before its first 429 was read: no rule
/// can spare those.) Most of those sent: a gateway's stray 429 comes back at once while an
/// answer takes a round trip, so at 200 ms and 100/s some 20 requests leave before the first
/// answer to one of them, and 3 stray 429s among them (4.3% each, the soak's share) come once
/// in 20; 3 in a row, once in 12,000.
const PROBES: usize = 3;

fn note_recent(recent: &mut VecDeque<(Instant, bool)>, now: Instant, refused: bool) {
    recent.push_back((now, refused));
    while recent.front().is_some_and(|(t, _)| now.duration_since(*t) > RECENT) {
        recent.pop_front();
    }
}

/// Whether the latest `RUN_FEWEST` refusals, all within the last second, make at least
/// `LATELY_SHARE` of the answers since the first of them.
fn run_of_refusals(recent: &VecDeque<(Instant, bool)>, now: Instant) -> bool {
    let mut refused = 0;
    for (answers, (t, r)) in recent.iter().rev().enumerate() {
        if now.duration_since(*t) > WINDOW {
            return false;
        }
        refused += usize::from(*r);
        if refused == RUN_FEWEST {
            return refused as f64 >= LATELY_SHARE * (answers + 1) as f64;
        }
    }
    false
}

/// Counts a refusal against the probe: whether `PROBES` requests sent after a refusal came,
/// most of those sent since, have now been refused with none answered. A refusal with no probe
/// open starts one.
fn refused_since_a_refusal(probe: &mut Option<Probe>, sent: Instant, now: Instant) -> bool {
    match probe {
        Some(p) if sent >= p.came => {
            p.refused += 1;
            p.refused >= PROBES && 2 * p.refused > p.sent
        }
        // Sent before the probe's refusal came: in flight then, it says nothing new.
        Some(_) => false,
        None => {
            *probe = Some(Probe { came: now, sent: 0, refused: 0 });
            false
        }
    }
}

fn note_outcome(latest: &mut VecDeque<bool>, refused: bool) {
    if latest.len() == LATEST {
        latest.pop_front();
    }
    latest.push_back(refused);
}

impl Pacer {
    /// `max_rps`: the hard cap (`--max-rps`), if any.
    pub fn new(max_rps: Option<u32>) -> Self {
        let now = Instant::now();
        Self {
            cap: max_rps.map(f64::from),
            state: Mutex::new(PaceState {
                rate: None,
                refused_at: None,
                refused_at_measured: false,
                last_refusal: None,
                last_raise: now,
                next: now,
                pause_until: now,
                latest: VecDeque::new(),
                recent: VecDeque::new(),
                answers_since_refusal: 0,
                latest_sent_answered: None,
                resumed: now,
                pauses: 0,
                probe: None,
            }),
        }
    }

    /// The pace now (requests per second), when there is one.
    pub fn rate(&self) -> Option<f64> {
        self.pace_of(&locked(&self.state))
    }

    /// The learned pace under the hard cap (`--max-rps`), either alone when the other is unset.
    fn pace_of(&self, s: &PaceState) -> Option<f64> {
        match (s.rate, self.cap) {
            (Some(r), Some(c)) => Some(r.min(c)),
            (r, c) => r.or(c),
        }
    }

    /// Answers per second the service let through. Between two bursts of refusals (each met
    /// with the service's allowance used up) it is what got through in between, over the time
    /// between, pauses included: a token bucket's rate exactly, however large its burst. The
    /// time ends at the latest answered request's send time, not now: the answers to those
    /// still in flight are not in yet (at 200 ms, the rate read 7% under without). Before
    /// the second, the last second's answers (the time paused left out), which a burst swells.
    fn rate_getting_through(&self, s: &PaceState, now: Instant) -> Option<f64> {
        let (counted, seconds) = match s.last_refusal {
            Some(last) if now.duration_since(last) >= HOLD => {
                let until = s.latest_sent_answered.unwrap_or(now);
                (s.answers_since_refusal as f64, until.duration_since(last).as_secs_f64().max(0.2))
            }
            _ => {
                let since = now.checked_sub(WINDOW).map_or(s.resumed, |w| w.max(s.resumed)).min(now);
                // Before the first burst `recent` holds every outcome of the last 5 seconds.
                let counted = s.recent.iter().filter(|(t, refused)| *t >= since && !refused).count() as f64;
                (counted, now.duration_since(since).as_secs_f64().max(0.2))
            }
        };
        // Too few answers to tell a rate (a service refusing everything for a while): no word.
        (counted >= MIN_ANSWERS).then(|| counted / seconds)
    }

    /// Waits for this request's moment to leave. A pause that began while it waited (a 429
    /// meanwhile) sends it after the pause, paced anew: a moment reserved before the refusal
    /// would otherwise go out into the same refusals.
    /// `least_gap`: a spacing the in-flight limit asks for besides the pace (`send_gap`).
    pub async fn wait_turn(&self, least_gap: Option<Duration>) {
        loop {
            let (at, pauses) = {
                let mut s = locked(&self.state);
                let now = Instant::now();
                let at = now.max(s.next).max(s.pause_until);
                let gap = match self.pace_of(&s) {
                    Some(r) if r > 0.0 => Duration::from_secs_f64(1.0 / r),
                    _ => Duration::ZERO,
                };
                s.next = at + gap.max(least_gap.unwrap_or_default());
                (at, s.pauses)
            };
            if at > Instant::now() {
                tokio::time::sleep_until(at.into()).await;
            }
            let mut s = locked(&self.state);
            if s.pauses == pauses || Instant::now() >= s.pause_until {
                // Leaving now: one more the open probe's refusals are weighed against.
                if let Some(p) = s.probe.as_mut() {
                    p.sent += 1;
                }
                return;
            }
        }
    }

    /// A request the rate limit let through (an answer or a fault): counted, and now and then
    /// the pace goes up.
    ///
    /// Between two bursts the rate is told from the requests sent after the first: the
    /// answers to those in flight at it came through on the allowance spent before (counted,
    /// they read a limit of 100/s as 115/s, and the pace climbed over it).
    pub fn on_answer(&self, sent: Instant) {
        let mut s = locked(&self.state);
        let now = Instant::now();
        note_outcome(&mut s.latest, false);
        note_recent(&mut s.recent, now, false);
        if s.probe.is_some_and(|p| sent >= p.came) {
            s.probe = None;
        }
        if s.last_refusal.is_none_or(|burst| sent >= burst) {
            s.answers_since_refusal += 1;
            s.latest_sent_answered = s.latest_sent_answered.max(Some(sent));
        }
        let Some(rate) = s.rate else { return };
        if now.duration_since(s.last_raise) < WINDOW {
            return;
        }
        s.last_raise = now;
        // 2% a second up to just under the rate refused; past the plateau, 1% a second beyond.
        let under = s.refused_at.map(|r| r * 0.97);
        let calm = s.last_refusal.is_none_or(|t| now.duration_since(t) > PLATEAU);
        s.rate = Some(match under {
            Some(u) if rate < u => (rate * 1.02).min(u),
            _ if calm => rate * 1.01,
            _ => rate,
        });
    }

    /// A 429 asking to wait `retry_after`. When refusals are more than a stray few (6 of
    /// the latest `LATEST` answers, 8% of the last 5 seconds', 15% of the last second's, a
    /// run of `RUN_FEWEST` making 15% of the answers since its first, or `PROBES` requests
    /// sent after a refusal all refused), the service is over its
    /// rate: everyone waits the Retry-After, and the pace drops under the rate that was getting
    /// through (once per burst). Returns whether it was taken so. A stray 429 (a gateway's
    /// hiccup) is the refused request's alone to wait out.
    ///
    /// A request sent before the last burst began says nothing new: its refusal is that
    /// burst's. (Counted, the refusals of the requests in flight at a burst, and of their
    /// retries after the pause, made the next burst at once: in the soak, four bursts and four
    /// seconds' pause in the fetch's first five seconds.)
    pub fn on_refused(&self, sent: Instant, retry_after: Option<Duration>) -> bool {
        let mut s = locked(&self.state);
        let now = Instant::now();
        if s.last_refusal.is_some_and(|burst| sent < burst) {
            return false;
        }
        note_outcome(&mut s.latest, true);
        note_recent(&mut s.recent, now, true);
        // Far over a rate limit most requests are refused: 6 of the latest 10 say so at once.
        // A little over it, a steady share is: 8% of the last 5 seconds' answers, twenty
        // refusals at least. (A share of one second, with three refusals, met 30% faults' stray
        // 429s by chance, and each false alarm cut the pace: it fell to 8 a second. Fifteen
        // per cent and ten refusals come by chance once in 8,000 seconds at 67 answers a
        // second, less often the faster.)
        let latest_refused = s.latest.iter().filter(|r| **r).count();
        let far_over = latest_refused >= FAR_OVER;
        let refused = s.recent.iter().filter(|(_, r)| *r).count();
        let steadily_over =
            refused >= STEADY_FEWEST && refused as f64 >= STEADY_SHARE * s.recent.len() as f64;
        // Over by a fifth or so, the last second's share says so sooner than five seconds' can
        // (a pace 25% over a 100/s limit refused 46 requests before the 5-second share caught
        // it).
        let second = s.recent.iter().filter(|(t, _)| now.duration_since(*t) <= WINDOW);
        let (answered, refused_now) = second.fold((0, 0), |(a, r), (_, x)| (a + 1, r + usize::from(*x)));
        let lately_over =
            refused_now >= LATELY_FEWEST && refused_now as f64 >= LATELY_SHARE * answered as f64;
        let probed = refused_since_a_refusal(&mut s.probe, sent, now);
        if probed {
            // Told: what comes next is a new probe's.
            s.probe = None;
        }
        if !far_over && !steadily_over && !lately_over && !run_of_refusals(&s.recent, now) && !probed {
            return false;
        }
        let first_of_burst = s.last_refusal.is_none_or(|t| now.duration_since(t) >= HOLD);
        if first_of_burst {
            let through = self.rate_getting_through(&s, now);
            let measured = s.last_refusal.is_some();
            s.last_refusal = Some(now);
            s.answers_since_refusal = 0;
            s.latest_sent_answered = None;
            // What tells the next burst comes from the requests sent after this one.
            s.latest.clear();
            s.recent.clear();
            s.probe = None;
            // No word on the rate: the pause alone (a pace learned from nothing would crawl).
            let Some(through) = through else {
                return self.pause(&mut s, now, retry_after);
            };
            // What got through is the best word on the service's rate (less than the pace, when
            // the pace was refused): the pace goes under it and climbs back to just under it.
            // One burst never takes the pace below half of the last word measured between two
            // bursts (a stray burst of 429s, while the pace was right, must not send it
            // spiralling down). The first word is no such floor: swelled by a bucket's
            // allowance (515/s read against 100/s at 5 ms), half of it held the pace 25% over
            // the limit for 8 seconds, and 50 of a run's 78 refusals came then.
            let floor = s.refused_at.filter(|_| s.refused_at_measured).map_or(1.0, |r| r * 0.5);
            let estimate = s.rate.unwrap_or(through).min(through).max(floor);
            s.refused_at = Some(estimate);
            s.refused_at_measured = measured;
            // A first word, swelled, is taken down further: 0.9 of 119/s was still 7% over.
            let under = if measured { 0.9 } else { FIRST_WORD_SHARE };
            s.rate = Some((estimate * under).max(1.0));
            tracing::debug!(through, estimate, floor, pace = s.rate, "refusal burst: paced");
        }
        self.pause(&mut s, now, retry_after)
    }

    /// Every request waits until `retry_after` from now.
    fn pause(&self, s: &mut PaceState, now: Instant, retry_after: Option<Duration>) -> bool {
        if let Some(wait) = retry_after {
            s.pause_until = s.pause_until.max(now + wait);
            s.resumed = s.pause_until;
            s.pauses += 1;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_refusal_paces_under_the_rate_that_got_through_and_pauses_everyone() {
        let p = Pacer::new(None);
        assert_eq!(p.rate(), None, "unpaced until refused");
        // 200 answers in the last second (the fetch started long before).
        locked(&p.state).resumed -= Duration::from_secs(5);
        for _ in 0..200 {
            p.on_answer(Instant::now());
        }
        // Stray refusals (fewer than 6 of the latest 10 answers) leave the pace alone.
        assert!(!p.on_refused(Instant::now(), Some(Duration::from_millis(300))));
        assert!(!p.on_refused(Instant::now(), Some(Duration::from_millis(300))));
        assert_eq!(p.rate(), None);
        for _ in 0..20 {
            p.on_refused(Instant::now(), Some(Duration::from_millis(300)));
        }
        // 0.85 of the ~200 a second that got through: a first word, which a bucket swells.
        let rate = p.rate().unwrap();
        assert!((160.0..=175.0).contains(&rate), "{rate}");
        let started = Instant::now();
        p.wait_turn(None).await;
        assert!(started.elapsed() >= Duration::from_millis(290), "the Retry-After is waited");
        // A service refusing everything gives no word on its rate: paused, not paced.
        let refusing = Pacer::new(None);
        for _ in 0..20 {
            refusing.on_refused(Instant::now(), Some(Duration::from_millis(1)));
        }
        assert_eq!(refusing.rate(), None);
        let capped = Pacer::new(Some(50));
        assert_eq!(capped.rate(), Some(50.0), "--max-rps caps from the start");
    }

    /// Moves the pacer's clock: everything it remembers happened `by` earlier.
    fn age(p: &Pacer, by: Duration) {
        let mut s = locked(&p.state);
        s.last_raise -= by;
        s.resumed -= by;
        s.last_refusal = s.last_refusal.map(|t| t - by);
        s.pause_until -= by;
        s.recent.iter_mut().for_each(|(t, _)| *t -= by);
    }

    /// A burst of refusals: `answers` in the last second, then the limit's 429s.
    fn paced_after_a_burst(answers: usize) -> Pacer {
        let p = Pacer::new(None);
        locked(&p.state).resumed -= Duration::from_secs(5);
        for _ in 0..answers {
            p.on_answer(Instant::now());
        }
        for _ in 0..LATEST {
            p.on_refused(Instant::now(), Some(Duration::from_millis(1)));
        }
        p
    }

    /// Two seconds on, 190 answers to requests sent since the last burst (the latest 0.1 s
    /// ago: 100 a second), then a burst of refusals.
    fn burst_two_seconds_on(p: &Pacer) {
        age(p, Duration::from_secs(2));
        for _ in 0..190 {
            p.on_answer(Instant::now() - Duration::from_millis(100));
        }
        for _ in 0..LATEST {
            p.on_refused(Instant::now(), Some(Duration::from_millis(1)));
        }
    }

    #[tokio::test]
    async fn refusals_of_requests_sent_before_a_burst_are_that_bursts() {
        let p = paced_after_a_burst(200);
        let before = Instant::now();
        let pace = p.rate().unwrap();
        age(&p, Duration::from_secs(1));
        // The requests in flight at the burst come back refused after its hold: no new burst.
        for _ in 0..LATEST {
            assert!(!p.on_refused(before - Duration::from_secs(2), Some(Duration::from_millis(1))));
        }
        assert_eq!(p.rate(), Some(pace));
        // Refusals of requests sent since are a new burst.
        let after: Vec<bool> =
            (0..LATEST).map(|_| p.on_refused(Instant::now(), Some(Duration::from_millis(1)))).collect();
        assert!(after.contains(&true), "{after:?}");
    }

    #[tokio::test]
    async fn a_sixth_of_a_seconds_answers_refused_is_a_burst_however_spread() {
        let p = paced_after_a_burst(200);
        age(&p, Duration::from_secs(1));
        // One refusal in six answers: never 6 of the latest 10, never 20 refusals; the tenth
        // makes 10 refused in the last second, over 15% of its answers.
        let mut taken = Vec::new();
        for _ in 0..10 {
            for _ in 0..5 {
                p.on_answer(Instant::now());
            }
            taken.push(p.on_refused(Instant::now(), Some(Duration::from_millis(1))));
        }
        assert_eq!(taken.iter().position(|t| *t), Some(9), "{taken:?}");
    }

    #[tokio::test]
    async fn a_run_of_refusals_after_a_second_of_answers_is_a_burst() {
        let p = paced_after_a_burst(200);
        age(&p, Duration::from_secs(1));
        // A second's answers, then the bucket runs dry: one refusal in five answers. The last
        // second's share would wait for ~60 refusals; the twelfth makes a run of them.
        for _ in 0..100 {
            p.on_answer(Instant::now());
        }
        let mut taken = Vec::new();
        for _ in 0..20 {
            for _ in 0..4 {
                p.on_answer(Instant::now());
            }
            taken.push(p.on_refused(Instant::now(), Some(Duration::from_millis(1))));
        }
        assert_eq!(taken.iter().position(|t| *t), Some(RUN_FEWEST - 1), "{taken:?}");
        // Stray refusals, one in twenty answers, make no run.
        let q = paced_after_a_burst(200);
        age(&q, Duration::from_secs(1));
        let strays: Vec<bool> = (0..30)
            .map(|_| {
                (0..19).for_each(|_| q.on_answer(Instant::now()));
                q.on_refused(Instant::now(), Some(Duration::from_millis(1)))
            })
            .collect();
        assert!(!strays.contains(&true), "{strays:?}");
    }

    /// A pacer with 100 answers in the last second.
    fn answered() -> Pacer {
        let p = Pacer::new(None);
        locked(&p.state).resumed -= Duration::from_secs(5);
        (0..100).for_each(|_| p.on_answer(Instant::now()));
        p
    }

    #[tokio::test]
    async fn requests_sent_after_a_refusal_all_refused_are_a_burst_at_once() {
        // Far over a limit at 5 ms: the answers to requests in flight when the allowance ran
        // out keep coming, so no share of refusals is reached for a dozen.
        let p = answered();
        let before = Instant::now() - Duration::from_millis(5);
        assert!(!p.on_refused(before, Some(Duration::from_secs(1))), "one refusal is a stray");
        // In flight before it came: refused or answered, they say nothing of the probe.
        assert!(!p.on_refused(before, Some(Duration::from_secs(1))));
        (0..20).for_each(|_| p.on_answer(before));
        let mut taken = Vec::new();
        for _ in 0..PROBES {
            p.wait_turn(None).await;
            taken.push(p.on_refused(Instant::now(), Some(Duration::from_millis(1))));
        }
        assert_eq!(taken, [false, false, true], "the third sent since refused makes the burst");
        assert!(p.rate().is_some());
        // A stray: a request sent after it is answered, and the probe is over.
        let q = answered();
        assert!(!q.on_refused(Instant::now(), Some(Duration::from_secs(1))));
        q.wait_turn(None).await;
        assert!(!q.on_refused(Instant::now(), Some(Duration::from_secs(1))));
        q.on_answer(Instant::now());
        (0..60).for_each(|_| q.on_answer(Instant::now()));
        assert!(!q.on_refused(Instant::now(), Some(Duration::from_secs(1))), "a new probe");
        q.wait_turn(None).await;
        assert!(!q.on_refused(Instant::now(), Some(Duration::from_secs(1))));
        assert_eq!(q.rate(), None);
    }

    #[tokio::test]
    async fn three_stray_refusals_among_many_requests_sent_are_no_burst() {
        // A gateway's stray 429s come back at once, answers a round trip later: at 200 ms and
        // 100/s, 20 requests leave after a stray before the first of them is answered.
        let p = answered();
        assert!(!p.on_refused(Instant::now(), Some(Duration::from_secs(1))));
        for _ in 0..20 {
            p.wait_turn(None).await;
        }
        let taken: Vec<bool> =
            (0..PROBES).map(|_| p.on_refused(Instant::now(), Some(Duration::from_secs(1)))).collect();
        assert_eq!(taken, [false, false, false], "3 of 20 sent is no burst");
        assert_eq!(p.rate(), None);
    }

    #[tokio::test]
    async fn the_word_before_the_first_burst_is_no_floor_for_the_next() {
        // 500 answers in the last second before the first burst: a bucket's allowance swells it.
        let p = paced_after_a_burst(500);
        assert!(p.rate().unwrap() > 400.0);
        // Two seconds on, 190 requests sent since it got through, the latest sent 0.1 s ago:
        // 100 a second. The next burst paces under that, not under half the swelled word.
        burst_two_seconds_on(&p);
        let pace = p.rate().unwrap();
        assert!((89.0..=91.0).contains(&pace), "{pace}");
    }
}
