//! The send rate: from the first refusal, told from a stray by the requests then in flight,
//! slow start (RFC 5681) and then CUBIC (RFC 9438), cut once per recovery (RFC 6582) when Page's
//! CUSUM (Biometrika 41, 1954) finds more refusals than the strays', to what got through since
//! the last such cut (a token bucket's rate, Westwood+).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The share of the rate a cut keeps (RFC 9438); a rate 1 / BETA of a limit has 1 - BETA refused,
/// the change the CUSUM looks for. Lower: a limit left sooner, more of it wasted.
const BETA: f64 = 0.7;
/// The climb back to a cut rate (RFC 9438's K). Longer: fewer probes past a limit, slower growth.
const RECOVERY: Duration = Duration::from_secs(2);
/// The evidence (a log-likelihood ratio) of refusals above the strays' share that cuts. Higher:
/// fewer cuts on strays (at 8.6 % strays, one in about 30,000 requests), more refusals at a
/// limit first.
const ALARM: f64 = 8.0;
/// A cut's worth of outcomes, 1 / (1 - BETA): fewer tell nothing of a rate.
const CUT_WORTH: u32 = (1.0 / (1.0 - BETA)) as u32 + 1;
/// The period rate limits count in: what got through is measured over it, and slow start
/// doubles the rate once per it.
const SECOND: Duration = Duration::from_secs(1);

/// Outcomes: how many came back, how many of them refused.
#[derive(Debug, Default, Clone, Copy)]
struct Count {
    back: u32,
    refused: u32,
}

impl Count {
    fn add(&mut self, refused: bool) {
        (self.back, self.refused) = (self.back + 1, self.refused + u32::from(refused));
    }

    fn through(&self) -> f64 {
        f64::from(self.back - self.refused)
    }
}

/// What the last cut went to.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Basis {
    /// A guess: the first refusal's, slow start's end, a stray's.
    #[default]
    Guess,
    /// The CUSUM's, to an estimate: a limit was found empty then, so what gets through from there on
    /// is its rate.
    Limit,
    /// The CUSUM's, to what got through since the one before, over at least a `SECOND`: a limit's
    /// rate, so its climb back meets only strays.
    Rate,
}

/// The requests in flight at the first refusal (`out`): the outcomes of all of them, and of those
/// sent after the refused one, `from` on (those sent before may have found a limit not yet empty).
#[derive(Debug, Clone, Copy)]
struct Judging {
    from: Instant,
    out: u32,
    all: Count,
    after: Count,
}

/// The send rate, none until the first refusal: at `w_max` `back` after the `cut` (RFC 9438's W_max
/// and K), never under `floor`, one request per the latest Retry-After.
#[derive(Debug, Default)]
pub(super) struct Rate {
    w_max: f64,
    cut: Option<Instant>,
    back: Duration,
    floor: f64,
    /// The outcomes of the last climb back that ended without a cut, or with one to a `Rate`:
    /// the strays' share.
    strays: Count,
    /// The outcomes since the cut, and those of its climb back.
    since_cut: Count,
    climb: Count,
    basis: Basis,
    /// Page's CUSUM of refusals above the strays' share, and the outcomes since it left zero.
    evidence: f64,
    change: Count,
    /// Answers let through in the last `SECOND`.
    passes: VecDeque<Instant>,
    /// Slow start: from the first cut to the next, the rate doubles each `SECOND`.
    doubling: bool,
    /// Requests sent since the run began, and their outcomes.
    sent: u32,
    outcomes: Count,
    /// From the first refusal until the requests then in flight are back.
    judging: Option<Judging>,
    /// When the first request left.
    began: Option<Instant>,
}

impl Rate {
    /// In slow start, `w_max` doubled each `SECOND` since the cut; else RFC 9438's
    /// W_max (1 + C (t - K)^3), C: back from `BETA` in `RECOVERY`. One per `RECOVERY` at least.
    pub(super) fn at(&self, now: Instant) -> Option<f64> {
        let t = now.saturating_duration_since(self.cut?).as_secs_f64() - self.back.as_secs_f64();
        let c = (1.0 - BETA) / RECOVERY.as_secs_f64().powi(3);
        let w = match self.doubling {
            true => self.w_max * 2f64.powf(t.max(0.0) / SECOND.as_secs_f64()),
            false => self.w_max * (1.0 + c * t.powi(3)),
        };
        Some(w.max(self.floor).max(1.0 / RECOVERY.as_secs_f64()))
    }

    /// What got through in the last `SECOND`, a second's worth.
    fn measured(&self) -> f64 {
        self.passes.len() as f64 / SECOND.as_secs_f64()
    }

    /// A request leaves.
    pub(super) fn sent(&mut self, at: Instant) {
        self.sent += 1;
        self.began = self.began.or(Some(at));
    }

    /// A request sent at `sent` got past any rate limit (answered, or a fault).
    pub(super) fn passed(&mut self, now: Instant, sent: Instant) {
        self.outcomes.add(false);
        self.judge(now, sent, false);
        self.passes.push_back(now);
        while self.passes.front().is_some_and(|t| now.saturating_duration_since(*t) > SECOND) {
            self.passes.pop_front();
        }
        // In slow start the rate is never under what got through in the last second.
        let measured = self.measured();
        if self.doubling && self.at(now).is_some_and(|r| r < measured) {
            (self.w_max, self.cut) = (measured, Some(now));
        }
        self.weigh(now, sent, false);
    }

    /// A request sent at `sent` was refused. Returns whether the rate was cut.
    pub(super) fn refused(&mut self, now: Instant, sent: Instant, retry_after: Option<Duration>) -> bool {
        let before = self.cut;
        self.floor = retry_after.filter(|d| !d.is_zero()).map_or(self.floor, |d| 1.0 / d.as_secs_f64());
        self.outcomes.add(true);
        self.judge(now, sent, true);
        let Some(cut) = self.cut else {
            let out = self.sent.saturating_sub(self.outcomes.back);
            // With none out, all but this one got through: a stray.
            if out == 0 {
                self.stray(now, Count::default());
                return true;
            }
            // What got through in the last second; before any did, a second's worth of those out.
            self.restart(now, self.measured().max(f64::from(out) / SECOND.as_secs_f64()), Duration::ZERO);
            let judging = Judging { from: sent, out, all: Count::default(), after: Count::default() };
            (self.doubling, self.judging) = (true, Some(judging));
            return true;
        };
        // As Reno's slow start ends (RFC 5681): from half the rate that met the limit.
        match self.doubling && sent >= cut {
            true => self.restart(now, self.at(sent).unwrap_or(0.0) / 2.0, RECOVERY),
            false => self.weigh(now, sent, true),
        }
        self.cut != before
    }

    /// Page's CUSUM on the outcomes of requests sent since the cut (a refusal of one sent before
    /// is that cut's): the strays' share against it plus a cut's share of the rest.
    fn weigh(&mut self, now: Instant, sent: Instant, refused: bool) {
        let Some(cut) = self.cut.filter(|cut| sent >= *cut && !self.doubling) else { return };
        self.since_cut.add(refused);
        if sent < cut + self.back {
            self.climb.add(refused);
        } else {
            self.trust_climb();
        }
        // Before a climb back ended uncut (0 / 0), a stray share as high as a cut's.
        let p0 = (f64::from(self.strays.refused) / f64::from(self.strays.back)).min(1.0 - BETA);
        let p1 = p0 + (1.0 - BETA) * (1.0 - p0);
        let llr = if refused { (p1 / p0).ln() } else { ((1.0 - p1) / (1.0 - p0)).ln() };
        self.evidence = (self.evidence + llr).max(0.0);
        if self.evidence <= 0.0 {
            return self.change = Count::default();
        }
        self.change.add(refused);
        if self.evidence >= ALARM {
            self.alarm(now, sent.saturating_duration_since(cut), self.at(sent).unwrap_or(0.0));
        }
    }

    /// A limit met: the rate is what got through since the last limit was met, a `SECOND` ago or
    /// more (a token bucket lets its rate by between two moments it is empty); before, the share
    /// let through since the change of the rate that met it, with a cut's worth of outcomes in;
    /// else that rate.
    fn alarm(&mut self, now: Instant, since: Duration, rate: f64) {
        let since = since.as_secs_f64();
        let worth = f64::from(CUT_WORTH);
        let known =
            self.basis != Basis::Guess && self.since_cut.through() >= worth && since >= SECOND.as_secs_f64();
        let w_max = match (known, self.change.back >= CUT_WORTH) {
            (true, _) => self.since_cut.through() / since,
            (false, true) => {
                let share = self.change.through().max(1.0) / f64::from(self.change.back);
                let span = self.began.map_or(SECOND, |b| now.saturating_duration_since(b).min(SECOND));
                (rate * share).min(self.passes.len() as f64 / span.as_secs_f64())
            }
            (false, false) => rate,
        };
        self.restart(now, w_max.min(rate), RECOVERY);
        self.basis = if known { Basis::Rate } else { Basis::Limit };
    }

    /// Tells a limit's first refusal from a stray once the requests then in flight are back. At
    /// least a cut's share (1 - BETA) of it and those sent after it (else all then out) refused:
    /// the limit is met, and slow start goes on. Fewer: a stray.
    fn judge(&mut self, now: Instant, sent: Instant, refused: bool) {
        let (Some(cut), Some(j)) = (self.cut, self.judging.as_mut()) else { return };
        if sent < cut {
            j.all.add(refused);
        }
        if (j.from..cut).contains(&sent) {
            j.after.add(refused);
        }
        let Judging { out, all, after, .. } = *j;
        if all.back < out {
            return;
        }
        self.judging = None;
        let seen = if after.back > 0 { after } else { all };
        if f64::from(seen.refused + 1) < (1.0 - BETA) * f64::from(seen.back + 1) {
            self.stray(now, seen);
        }
    }

    /// The first refusal was a stray: the pace is what got through since the run began, and the
    /// first tally of the strays is it and those it was judged by (`seen`).
    fn stray(&mut self, now: Instant, seen: Count) {
        let since = self.began.map_or(0.0, |b| now.saturating_duration_since(b).as_secs_f64());
        let through = if since > 0.0 { self.outcomes.through() / since } else { self.measured() };
        self.restart(now, through, Duration::ZERO);
        self.strays = Count { back: seen.back + 1, refused: seen.refused + 1 };
    }

    /// The climb back is over, and under a limit: its refused share is the strays'.
    fn trust_climb(&mut self) {
        if self.climb.back > 0 {
            self.strays = std::mem::take(&mut self.climb);
        }
    }

    /// A new cut: the pace at `w_max` `back` from now; the evidence starts again. A climb back
    /// to a `Rate` that this cut ends counts for the strays' share too: else once it read 0,
    /// every stray would cut, and no climb with a stray in it would ever count.
    fn restart(&mut self, now: Instant, w_max: f64, back: Duration) {
        let w_max = w_max.max(self.floor).max(1.0 / RECOVERY.as_secs_f64());
        if self.basis == Basis::Rate {
            self.trust_climb();
        }
        (self.w_max, self.cut, self.back, self.basis) = (w_max, Some(now), back, Basis::Guess);
        (self.since_cut, self.climb) = (Count::default(), Count::default());
        (self.evidence, self.change, self.doubling) = (0.0, Count::default(), false);
    }
}

#[cfg(test)]
mod tests {
    //! Properties, on a simulated clock: no test sleeps.
    use std::collections::VecDeque;

    use super::super::tests::{strays, window};
    use super::*;

    /// Requests leave at the pace, at most `natural` a second (our own work), for `secs`;
    /// `service(t)` refuses one sent at `t` (with its Retry-After) or answers it `latency` later.
    /// Returns the rate and each send as (time, refused).
    fn drive(
        rate: Rate,
        secs: f64,
        latency: f64,
        natural: f64,
        mut service: impl FnMut(f64) -> Option<Option<Duration>>,
    ) -> (Rate, Vec<(f64, bool)>) {
        let t0 = Instant::now();
        let at = |t: f64| t0 + Duration::from_secs_f64(t);
        let (mut rate, mut pending, mut log) = (rate, VecDeque::new(), Vec::new());
        let mut t = 0.0;
        while t < secs {
            while let Some((_, sent)) = pending.front().copied().filter(|(done, _)| *done <= t) {
                pending.pop_front();
                rate.passed(at(t), at(sent));
            }
            rate.sent(at(t));
            let refused = match service(t) {
                None => {
                    pending.push_back((t + latency, t));
                    false
                }
                Some(retry_after) => {
                    rate.refused(at(t), at(t), retry_after);
                    true
                }
            };
            log.push((t, refused));
            t += 1.0 / rate.at(at(t)).map_or(natural, |r| r.min(natural));
        }
        (rate, log)
    }

    #[test]
    fn stray_refusals_do_not_bring_the_rate_down() {
        // No limit; 8.6 % of requests refused at random (the soak's 429s and 503s drawn as faults).
        let mut stray = strays(7, 0.086);
        let (_, log) =
            drive(Rate::default(), 60.0, 0.01, 400.0, |_| stray().then_some(Some(Duration::from_secs(1))));
        let (_, served) = window(&log, 5.0, 60.0);
        assert!(served >= 0.85 * 400.0 * (1.0 - 0.086), "{served:.1} served a second");
    }

    #[test]
    fn a_climb_back_with_no_stray_in_it_does_not_make_every_stray_cut() {
        // A low pace after a cut, and a climb back of 15 requests with no stray in it: the strays'
        // share reads 0, so the next stray is taken for a limit. No limit; 8.6 % strays.
        let t0 = Instant::now();
        let mut rate = Rate::default();
        rate.sent(t0);
        rate.restart(t0, 13.0, RECOVERY);
        rate.strays = Count { back: 15, refused: 0 };
        let mut stray = strays(11, 0.086);
        let (_, log) = drive(rate, 60.0, 0.01, 400.0, |_| stray().then_some(Some(Duration::from_secs(1))));
        // The strays' share is learned again, and the pace climbs back to what the service serves.
        let (_, served) = window(&log, 40.0, 60.0);
        assert!(served >= 0.85 * 400.0 * (1.0 - 0.086), "{served:.1} served a second");
    }

    #[test]
    fn a_first_refusal_is_judged_by_the_requests_then_in_flight() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        // 20 sent, 10 let through, then one refused: 9 are still out.
        let start = || {
            let mut rate = Rate::default();
            (0..20).for_each(|n| rate.sent(ms(n)));
            (0..10).for_each(|n| rate.passed(ms(20 + n), ms(n)));
            rate.refused(ms(30), ms(10), None);
            rate
        };
        // A burst's end: the 9 come back refused. The pace is what got through in the last
        // second, and those refusals, of requests sent before the cut, do not cut again.
        let mut limit = start();
        let cut = limit.cut;
        assert!(limit.at(ms(30)).is_some_and(|r| r <= 10.0), "{:?}", limit.at(ms(30)));
        (11..20).for_each(|n| {
            limit.refused(ms(31), ms(n), None);
        });
        assert_eq!(limit.cut, cut);
        assert!(limit.doubling, "slow start goes on");
        // A stray: the 9 come back answered. The pace is what got through: 19 in 31 ms.
        let mut stray = start();
        (11..20).for_each(|n| stray.passed(ms(31), ms(n)));
        assert!(!stray.doubling && stray.at(ms(31)).is_some_and(|r| r > 500.0), "{:?}", stray.at(ms(31)));
    }

    #[test]
    fn a_service_refusing_everything_is_waited_out_not_crawled_at() {
        // Every request refused, each asking 10 ms: the rate halves at each, but not below 100 a second.
        let (rate, log) =
            drive(Rate::default(), 5.0, 0.01, 2_000.0, |_| Some(Some(Duration::from_millis(10))));
        let t0 = Instant::now();
        assert!(rate.at(t0 + Duration::from_secs(5)).is_some_and(|r| r >= 100.0));
        assert!(log.len() >= 400, "{} sent in 5 s", log.len());
    }
}
