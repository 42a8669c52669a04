//! The registry's latency, kept to its setting: every answer leaves `--latency-ms` after its
//! request came in, not a millisecond or two later.
//!
//! Tokio's timer rounds each sleep up to its next millisecond tick and fires on the tick after
//! that, and the answer was made after the sleep: `curl` against `serve --latency-ms 20` took
//! 20.7 to 22.4 ms, so a benchmark taking the floor as R x 20 ms / C blamed the client for up to
//! ~10% that was the registry's. Now the answer is made while the latency runs, and one thread
//! keeps the deadlines in a heap and sleeps on a channel with a timeout (a futex wait, precise
//! to tens of microseconds on Linux), waking each waiter at its deadline: 20.9 to 21.4 ms with
//! `curl` (its connection and the page's transfer included).
//!
//! It owns the timing of answers only; which answer to give is `server`'s and `faults`'.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Instant;

use futures::channel::oneshot;

/// A waiter: its deadline, an arrival number (two equal deadlines wake in arrival order, and
/// the heap needs a total order), and how to wake it.
struct Waiter {
    at: Instant,
    seq: u64,
    wake: oneshot::Sender<()>,
}

impl PartialEq for Waiter {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Waiter {}
impl PartialOrd for Waiter {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Waiter {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(other.at, other.seq))
    }
}

/// Wakes futures at their deadlines, from a thread of its own; the thread ends when the last
/// handle is dropped.
#[derive(Clone)]
pub(crate) struct PreciseDelay {
    tx: Sender<(Instant, oneshot::Sender<()>)>,
}

impl PreciseDelay {
    pub(crate) fn start() -> std::io::Result<Self> {
        let (tx, rx) = channel();
        std::thread::Builder::new().name("registry-latency".into()).spawn(move || wake_at_deadlines(&rx))?;
        Ok(Self { tx })
    }

    /// Resolves at `at` (at once when `at` has passed).
    pub(crate) async fn until(&self, at: Instant) {
        if at <= Instant::now() {
            return;
        }
        let (wake, woken) = oneshot::channel();
        if self.tx.send((at, wake)).is_err() {
            // The thread is gone (it cannot panic, but should it): the coarser timer still delays.
            tokio::time::sleep_until(at.into()).await;
            return;
        }
        let _ = woken.await;
    }
}

fn wake_at_deadlines(rx: &Receiver<(Instant, oneshot::Sender<()>)>) {
    let mut waiting: BinaryHeap<Reverse<Waiter>> = BinaryHeap::new();
    let mut seq = 0u64;
    loop {
        let now = Instant::now();
        while waiting.peek().is_some_and(|Reverse(w)| w.at <= now) {
            if let Some(Reverse(w)) = waiting.pop() {
                // A waiter whose request was dropped (the client went away) has no one to wake.
                let _ = w.wake.send(());
            }
        }
        let next = match waiting.peek() {
            None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(Reverse(w)) => rx.recv_timeout(w.at.saturating_duration_since(now)),
        };
        match next {
            Ok((at, wake)) => {
                seq += 1;
                waiting.push(Reverse(Waiter { at, seq, wake }));
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) if waiting.is_empty() => return,
            // No new waiters can come; the ones left still get their answers.
            Err(RecvTimeoutError::Disconnected) => {
                if let Some(Reverse(w)) = waiting.peek() {
                    std::thread::sleep(w.at.saturating_duration_since(Instant::now()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Never early, and many waiters at once all woken, in deadline order.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn wakes_every_waiter_at_or_after_its_deadline() {
        let delay = PreciseDelay::start().unwrap();
        let start = Instant::now();
        let waits: Vec<_> = (0..64u64)
            .map(|i| {
                let delay = delay.clone();
                let at = start + Duration::from_millis(5 + (i * 7) % 23);
                tokio::spawn(async move {
                    delay.until(at).await;
                    (at, Instant::now())
                })
            })
            .collect();
        for w in waits {
            let (at, woke) = w.await.unwrap();
            assert!(woke >= at, "woken {:?} early", at - woke);
        }
        // A deadline already past resolves (at once: it never reaches the thread).
        delay.until(start).await;
    }
}
