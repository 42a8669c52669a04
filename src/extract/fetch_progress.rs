//! Progress for people: indicatif bars when stderr is a terminal, otherwise one log line every
//! few seconds (schedulers capture stderr into files, where redrawn bars are noise).

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::accounting::Accounting;

pub(crate) struct Progress {
    stop: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Progress {
    pub(crate) fn start(total_tasks: u64, acct: Arc<Accounting>, quiet: bool) -> Self {
        let (stop, mut rx) = tokio::sync::watch::channel(false);
        let interactive = std::io::stderr().is_terminal() && !quiet;
        let task = tokio::spawn(async move {
            let started = Instant::now();
            let bar = interactive.then(|| {
                let b = ProgressBar::with_draw_target(Some(total_tasks), ProgressDrawTarget::stderr());
                b.set_style(
                    ProgressStyle::with_template(
                        "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} tasks, ETA {eta} {msg}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                b
            });
            // Log lines (a warning, `-v`) are written past the bar, not into it.
            let _drawn = bar.as_ref().map(crate::progress::drawing);
            let every = if interactive { Duration::from_millis(200) } else { Duration::from_secs(5) };
            loop {
                let done = tokio::select! {
                    _ = tokio::time::sleep(every) => false,
                    _ = rx.changed() => true,
                };
                let line = status_line(&acct, started.elapsed());
                let tasks = acct.tasks_done.load(Ordering::Relaxed);
                match &bar {
                    Some(b) => {
                        b.set_position(tasks);
                        b.set_message(line);
                    }
                    None if !quiet && !done => {
                        let eta = eta(started.elapsed(), tasks, total_tasks);
                        tracing::info!("fetch: {tasks}/{total_tasks} tasks, {line}{eta}")
                    }
                    None => {}
                }
                if done {
                    if let Some(b) = &bar {
                        b.finish_and_clear();
                    }
                    break;
                }
            }
        });
        Self { stop, task }
    }

    pub(crate) async fn finish(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}

/// `, ETA 12 s` from the share of tasks done so far (tasks differ in size, so a rough guide),
/// or nothing before the first task is done.
fn eta(elapsed: Duration, done: u64, total: u64) -> String {
    if done == 0 || done >= total {
        return String::new();
    }
    let left = elapsed.as_secs_f64() * (total - done) as f64 / done as f64;
    format!(", ETA {left:.0} s")
}

fn status_line(a: &Accounting, elapsed: Duration) -> String {
    let req = a.requests.load(Ordering::Relaxed);
    let rate = req as f64 / elapsed.as_secs_f64().max(0.001);
    let pace = match a.pace_rps.load(Ordering::Relaxed) {
        0 => String::new(),
        r => format!(", paced {r}/s"),
    };
    format!(
        "{req} requests ({rate:.0}/s), {} in flight at most (of {}){pace}, {} records ({} typed), {} retries, {} rate-limited, {} failed tasks",
        a.in_flight_limit.load(Ordering::Relaxed),
        a.in_flight_ceiling.load(Ordering::Relaxed),
        a.records.load(Ordering::Relaxed),
        a.typed.load(Ordering::Relaxed),
        a.retries.load(Ordering::Relaxed),
        a.rate_limited.load(Ordering::Relaxed),
        a.failed_tasks.load(Ordering::Relaxed)
    )
}
