//! Progress of the stages after the fetch (transform, analyze, export, report) for people: the
//! stage, its steps done of its steps (tables typed, queries run, tables written, reports
//! rendered) and an ETA from their pace so far. An indicatif bar when stderr is a terminal;
//! otherwise a log line when a step ends 5 s or more after the last line (a scheduler's log
//! file gets a heartbeat, not a redrawn bar); nothing with `--quiet`. The fetch's own display
//! (network and typing) is `extract::fetch_progress`.
//!
//! The stages report their steps here, wherever they are, rather than carrying a handle
//! through every call: one process runs one command, whose stages follow one another. It
//! only shows; nothing here decides anything.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How progress is shown, set once per process by `init` (nothing is shown before it).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Bar,
    Log,
}

struct Display {
    mode: Mode,
    stage: Option<Stage>,
    /// Another bar on the screen (the fetch's), hidden like a stage's while a line is logged.
    other: Option<ProgressBar>,
}

struct Stage {
    name: &'static str,
    unit: &'static str,
    total: u64,
    done: u64,
    started: Instant,
    last_line: Instant,
    bar: Option<ProgressBar>,
}

static DISPLAY: Mutex<Option<Display>> = Mutex::new(None);

/// Between two log lines of a stage's progress, at least.
const LOG_EVERY: Duration = Duration::from_secs(5);

/// Shows the later stages' progress from now on (not with `quiet`).
pub(crate) fn init(quiet: bool) {
    let mode = match (quiet, std::io::stderr().is_terminal()) {
        (true, _) => return,
        (false, true) => Mode::Bar,
        (false, false) => Mode::Log,
    };
    *lock() = Some(Display { mode, stage: None, other: None });
}

/// How progress is shown: `None` with `--quiet` (or before `init`), `Some(true)` as bars on a
/// terminal, `Some(false)` as log lines. For the parts that draw their own display.
pub(crate) fn bars() -> Option<bool> {
    lock().as_ref().map(|d| d.mode == Mode::Bar)
}

fn lock() -> std::sync::MutexGuard<'static, Option<Display>> {
    DISPLAY.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `name` begins, with `total` steps of `unit` ("queries"); the stage before it ends. The
/// stage ends when the returned guard is dropped, on an early return or error too, so that no
/// bar is left drawn under an error message.
#[must_use = "the stage ends when this is dropped"]
pub(crate) fn begin(name: &'static str, unit: &'static str, total: u64) -> StageGuard {
    let mut display = lock();
    let Some(d) = display.as_mut() else { return StageGuard(()) };
    if let Some(bar) = d.stage.take().and_then(|s| s.bar) {
        bar.finish_and_clear();
    }
    let bar = (d.mode == Mode::Bar).then(|| {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{spinner}} {name} [{{elapsed_precise}}] {{bar:30}} {{pos}}/{{len}} {unit}, ETA {{eta}} {{msg}}"
            ))
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    let now = Instant::now();
    d.stage = Some(Stage { name, unit, total, done: 0, started: now, last_line: now, bar });
    StageGuard(())
}

/// The current stage, until dropped.
pub(crate) struct StageGuard(());

impl Drop for StageGuard {
    fn drop(&mut self) {
        let mut display = lock();
        if let Some(bar) = display.as_mut().and_then(|d| d.stage.take()).and_then(|s| s.bar) {
            bar.finish_and_clear();
        }
    }
}

/// One step of the current stage is done; `what` names it (the query, the table).
pub(crate) fn step(what: &str) {
    advance(what, 1);
}

/// `n` more steps of the current stage are done (MiB read, say); `what` names where it is.
pub(crate) fn advance(what: &str, n: u64) {
    let line = {
        let mut display = lock();
        let Some(stage) = display.as_mut().and_then(|d| d.stage.as_mut()) else { return };
        stage.done = (stage.done + n).min(stage.total);
        match &stage.bar {
            Some(bar) => {
                bar.set_position(stage.done);
                bar.set_message(what.to_string());
                None
            }
            None if stage.last_line.elapsed() >= LOG_EVERY && stage.done < stage.total => {
                stage.last_line = Instant::now();
                let eta = eta(stage.started.elapsed(), stage.done, stage.total)
                    .map(|s| format!(", ETA {s:.0} s"))
                    .unwrap_or_default();
                Some(format!(
                    "{}: {}/{} {} ({what} done){eta}",
                    stage.name, stage.done, stage.total, stage.unit
                ))
            }
            None => None,
        }
    };
    // Logged with the lock released: writing a log line takes it (`suspend`).
    if let Some(line) = line {
        tracing::info!("{line}");
    }
}

/// `bar`, drawn by another part of the program (the fetch's display), is on the screen until
/// the guard is dropped: log lines are written past it as past a stage's bar.
#[must_use = "the bar is forgotten when this is dropped"]
pub(crate) fn drawing(bar: &ProgressBar) -> DrawingGuard {
    if let Some(d) = lock().as_mut() {
        d.other = Some(bar.clone());
    }
    DrawingGuard(())
}

/// A bar `drawing` was told of, until dropped.
pub(crate) struct DrawingGuard(());

impl Drop for DrawingGuard {
    fn drop(&mut self) {
        if let Some(d) = lock().as_mut() {
            d.other = None;
        }
    }
}

/// Runs `write` (a log line going to stderr) with the bar on the screen hidden, so that the
/// line is not drawn into the bar and the bar is drawn again below it.
pub(crate) fn suspend<R>(write: impl FnOnce() -> R) -> R {
    let bar = lock()
        .as_ref()
        .and_then(|d| d.stage.as_ref().and_then(|s| s.bar.clone()).or_else(|| d.other.clone()));
    match bar {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

/// Seconds left at the pace so far: steps differ in cost, so a guide, not a promise. None
/// before the first step or after the last.
fn eta(elapsed: Duration, done: u64, total: u64) -> Option<f64> {
    (done > 0 && done < total).then(|| elapsed.as_secs_f64() * (total - done) as f64 / done as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eta_follows_the_pace_of_the_steps_done() {
        assert_eq!(eta(Duration::from_secs(4), 0, 10), None, "nothing to go on yet");
        assert_eq!(eta(Duration::from_secs(4), 2, 10), Some(16.0));
        assert_eq!(eta(Duration::from_secs(4), 10, 10), None, "done");
    }
}
