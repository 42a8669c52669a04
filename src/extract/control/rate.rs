//! The send rate: from the first refusal, told from a stray by the requests then in flight,
//! slow start (RFC 5681) and then CUBIC (RFC 9438), cut once per recovery (RFC 6582) to what got
//! through (Westwood+), past the climb back only when refusals grow with the rate.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The share of the rate a cut keeps (RFC 9438). Lower: a limit left sooner, more of it wasted.
const BETA: f64 = 0.7;
/// The climb back to a cut rate (RFC 9438's K). Longer: fewer probes past a limit, slower growth.
const RECOVERY: Duration = Duration::from_secs(2);
/// A cut's worth of requests, 1 / (1 - BETA): fewer tell nothing of a rate.
const CUT_WORTH: u32 = (1.0 / (1.0 - BETA)) as u32 + 1;
/// Standard errors by which refusals past the climb must outnumber those during it to cut.
/// Higher: fewer cuts on stray refusals, more refusals at a limit first.
const SURE: f64 = 2.0;
/// The period rate limits count in: what got through is measured over it, and slow start
/// doubles the rate once per it.
const SECOND: Duration = Duration::from_secs(1);

/// Requests sent since the cut, during the climb back (the dip) or after it (the probe).
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    sent: u32,
    refused: u32,
    through: u32,
    since: Option<Instant>,
}

/// Requests sent, let through and refused since the run began.
#[derive(Debug, Default, Clone, Copy)]
struct Totals {
    sent: u64,
    through: u64,
    refused: u64,
}

/// The requests in flight at the first refusal (`out`), how many came back, how many refused.
#[derive(Debug, Default, Clone, Copy)]
struct Judging {
    out: u64,
    back: u64,
    refused: u64,
}

/// The send rate, none until the first refusal: at `w_max` `back` after the `cut` (RFC 9438's W_max
/// and K), never under `floor`, one request per the latest Retry-After.
#[derive(Debug, Default)]
pub(super) struct Rate {
    w_max: f64,
    pub(super) cut: Option<Instant>,
    back: Duration,
    floor: f64,
    dip: Tally,
    probe: Tally,
    /// Answers let through in the last `SECOND` (Westwood+'s estimate of what a limit lets by).
    passes: VecDeque<Instant>,
    /// Slow start: from the first cut to the next, the rate doubles each `SECOND`.
    doubling: bool,
    totals: Totals,
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

    fn tally(&mut self, sent: Instant) -> &mut Tally {
        match self.cut {
            Some(cut) if sent < cut + self.back => &mut self.dip,
            _ => &mut self.probe,
        }
    }

    /// A request leaves (before the first cut too: the cut starts the tallies again).
    pub(super) fn sent(&mut self, at: Instant) {
        self.totals.sent += 1;
        self.began = self.began.or(Some(at));
        let tally = self.tally(at);
        (tally.sent, tally.since) = (tally.sent + 1, tally.since.or(Some(at)));
    }

    /// A request sent at `sent` got past any rate limit (answered, or a fault).
    pub(super) fn passed(&mut self, now: Instant, sent: Instant) {
        self.totals.through += 1;
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
        if self.cut.is_some_and(|cut| sent >= cut) {
            self.tally(sent).through += 1;
        }
    }

    /// A request sent at `sent` was refused.
    pub(super) fn refused(&mut self, now: Instant, sent: Instant, retry_after: Option<Duration>) {
        self.floor = retry_after.filter(|d| !d.is_zero()).map_or(self.floor, |d| 1.0 / d.as_secs_f64());
        self.totals.refused += 1;
        self.judge(now, sent, true);
        // The first refusal cuts; one of a request sent before the last cut is that cut's.
        let measured = self.measured();
        let Some(cut) = self.cut else {
            let Totals { sent: sent_all, through, refused } = self.totals;
            self.restart(now, measured, Duration::ZERO);
            let out = sent_all.saturating_sub(through + refused);
            (self.doubling, self.judging) = (true, Some(Judging { out, ..Judging::default() }));
            // With none out, all but this one got through: a stray.
            if out == 0 {
                self.judge(now, sent, false);
            }
            return;
        };
        if sent < cut {
            return;
        }
        if self.doubling {
            // As Reno's slow start ends (RFC 5681): from half the rate that met the limit.
            return self.restart(now, self.at(sent).unwrap_or(measured) / 2.0, Duration::ZERO);
        }
        self.tally(sent).refused += 1;
        let (dip, probe) = (self.dip, self.probe);
        let (through, refused) = (dip.through + probe.through, dip.refused + probe.refused);
        let rate = self.at(now).unwrap_or(measured);
        let fast = rate * f64::from(through + 1) / f64::from(through + refused + 1);
        // No cut climbing back, nor past the climb unless its refused share is surely above the
        // climb's: a limit's refusals grow with the rate, strays' do not (a two-proportion test).
        let (n0, n1) = (f64::from(dip.sent.max(1)), f64::from(probe.sent.max(1)));
        let (p0, p1) = (f64::from(dip.refused) / n0, f64::from(probe.refused) / n1);
        let noise = (p0 * (1.0 - p0) * (1.0 / n0 + 1.0 / n1)).sqrt();
        let hold = now < cut + self.back || p1 <= p0 + SURE * noise;
        // To what got through since, with a cut's worth of answers in (1 / (1 - BETA)); else, or
        // when most are refused, at once to the share let through.
        let got = (probe.through >= CUT_WORTH).then_some(probe.since).flatten();
        let got = got.map(|t| f64::from(probe.through) / now.saturating_duration_since(t).as_secs_f64());
        match got.filter(|r| r.is_finite()) {
            _ if refused >= through.max(CUT_WORTH) => self.restart(now, fast, Duration::ZERO),
            _ if hold => {}
            Some(got) => self.restart(now, got.min(rate), RECOVERY),
            None => self.restart(now, fast, Duration::ZERO),
        }
    }

    /// Tells a limit's first refusal from a stray once the requests then in flight are back. At
    /// least a cut's share of them (1 - BETA) refused: the limit is met, and slow start goes on.
    /// Fewer: it was a stray, and the pace is what got through since the run began.
    fn judge(&mut self, now: Instant, sent: Instant, refused: bool) {
        let (Some(cut), Some(j)) = (self.cut, self.judging.as_mut()) else { return };
        if sent < cut {
            (j.back, j.refused) = (j.back + 1, j.refused + u64::from(refused));
        }
        if j.back < j.out {
            return;
        }
        let stray = j.out == 0 || (j.refused as f64) < (1.0 - BETA) * j.back as f64;
        self.judging = None;
        if stray {
            let since = self.began.map(|b| now.saturating_duration_since(b).as_secs_f64());
            let through = match since.filter(|s| *s > 0.0) {
                Some(since) => self.totals.through as f64 / since,
                None => self.measured(),
            };
            self.restart(now, through, Duration::ZERO);
        }
    }

    /// A new cut: the pace at `w_max` `back` from now; the tallies start again.
    fn restart(&mut self, now: Instant, w_max: f64, back: Duration) {
        (self.w_max, self.cut, self.back) = (w_max.max(self.floor), Some(now), back);
        (self.dip, self.probe, self.doubling) = (Tally::default(), Tally::default(), false);
    }
}

#[cfg(test)]
mod tests {
    //! Properties, on a simulated clock: no test sleeps.
    use std::collections::VecDeque;

    use super::super::tests::window;
    use super::*;

    /// Requests leave at the pace, at most `natural` a second (our own work), for `secs`;
    /// `service(t)` refuses one sent at `t` (with its Retry-After) or answers it `latency` later.
    /// Returns the rate and each send as (time, refused).
    fn drive(
        secs: f64,
        latency: f64,
        natural: f64,
        mut service: impl FnMut(f64) -> Option<Option<Duration>>,
    ) -> (Rate, Vec<(f64, bool)>) {
        let t0 = Instant::now();
        let at = |t: f64| t0 + Duration::from_secs_f64(t);
        let (mut rate, mut pending, mut log) = (Rate::default(), VecDeque::new(), Vec::new());
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
        let mut x = 7u64;
        let mut stray = move || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((x >> 11) as f64 / (1u64 << 53) as f64) < 0.086
        };
        let (_, log) = drive(60.0, 0.01, 400.0, |_| stray().then_some(Some(Duration::from_secs(1))));
        let (_, served) = window(&log, 5.0, 60.0);
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
        (11..20).for_each(|n| limit.refused(ms(31), ms(n), None));
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
        let (rate, log) = drive(5.0, 0.01, 2_000.0, |_| Some(Some(Duration::from_millis(10))));
        let t0 = Instant::now();
        assert!(rate.at(t0 + Duration::from_secs(5)).is_some_and(|r| r >= 100.0));
        assert!(log.len() >= 400, "{} sent in 5 s", log.len());
    }
}
