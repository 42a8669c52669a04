//! The download's progress for people: on a terminal, a bar for the whole release (bytes, speed,
//! ETA) over a bar per file in transfer; elsewhere (cron, a scheduler's log) a line every 5 s
//! with the same figures; nothing with `--quiet`. The bytes counted are those on disk, so a
//! restarted file moves the figures back. It only shows; nothing here decides anything.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::Remote;

/// Between two log lines, at least.
const LOG_EVERY: Duration = Duration::from_secs(5);
const MB: f64 = 1e6;

pub(super) struct Progress {
    bars: Option<(MultiProgress, ProgressBar)>,
    /// Log lines instead of bars (stderr no terminal, no `--quiet`).
    lines: bool,
    _drawn: Option<crate::progress::DrawingGuard>,
    state: Mutex<State>,
}

struct State {
    /// Each file's size and bytes on disk, by its path under the folder.
    files: HashMap<String, (u64, u64)>,
    started: Instant,
    last_line: Instant,
    /// Bytes on disk when the download started: not this run's work, for the speed.
    at_start: u64,
}

impl State {
    fn totals(&self) -> (u64, u64) {
        self.files.values().fold((0, 0), |(size, have), (s, h)| (size + s, have + h))
    }
}

/// One file's share of the display.
pub(super) struct FileBar<'a> {
    progress: &'a Progress,
    rel: String,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// The display for `files` (sizes a listing does not give arrive with each file's HEAD).
    pub(super) fn start(files: &[Remote]) -> Self {
        let sizes = files.iter().map(|f| (f.rel.clone(), (f.size.unwrap_or(0), 0))).collect();
        let now = Instant::now();
        let state = Mutex::new(State { files: sizes, started: now, last_line: now, at_start: 0 });
        let mode = crate::progress::bars();
        let bars = (mode == Some(true)).then(|| {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let total = multi.add(ProgressBar::new(0));
            total
                .set_style(style("release {bar:30} {bytes}/{total_bytes}, {bytes_per_sec}, ETA {eta} {msg}"));
            total.enable_steady_tick(Duration::from_millis(200));
            (multi, total)
        });
        let _drawn = bars.as_ref().map(|(_, total)| crate::progress::drawing(total));
        Self { bars, lines: mode == Some(false), _drawn, state }
    }

    /// `rel` was complete already: counted done, with no bar.
    pub(super) fn complete(&self, rel: &str, size: u64) {
        let mut state = self.lock();
        state.files.insert(rel.to_string(), (size, size));
        state.at_start += size;
        drop(state);
        self.show("");
    }

    /// `rel` (`size` bytes, `have` of them on disk) begins its transfer.
    pub(super) fn file(&self, rel: &str, size: u64, have: u64) -> FileBar<'_> {
        let mut state = self.lock();
        state.files.insert(rel.to_string(), (size, have));
        state.at_start += have;
        drop(state);
        let bar = self.bars.as_ref().map(|(multi, _)| {
            let bar = multi.add(ProgressBar::new(size));
            bar.set_style(style("  {bar:30} {bytes}/{total_bytes} {bytes_per_sec} {msg}"));
            bar.set_message(rel.rsplit('/').next().unwrap_or(rel).to_string());
            bar.set_position(have);
            bar
        });
        FileBar { progress: self, rel: rel.to_string(), bar }
    }

    /// The bars taken off the screen.
    pub(super) fn finish(&self) {
        if let Some((multi, total)) = &self.bars {
            total.finish_and_clear();
            let _ = multi.clear();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The whole release's figures: on its bar, or in a log line when one is due.
    fn show(&self, at: &str) {
        let line = {
            let mut state = self.lock();
            let (size, have) = state.totals();
            if let Some((_, total)) = &self.bars {
                total.set_length(size);
                total.set_position(have);
                return;
            }
            if !self.lines || state.last_line.elapsed() < LOG_EVERY || have >= size {
                return;
            }
            state.last_line = Instant::now();
            line(have, size, have.saturating_sub(state.at_start), state.started.elapsed(), at)
        };
        tracing::info!("{line}");
    }
}

impl FileBar<'_> {
    /// The file holds `at` bytes on disk now.
    pub(super) fn at(&self, at: u64) {
        if let Some(f) = self.progress.lock().files.get_mut(&self.rel) {
            f.1 = at;
        }
        if let Some(bar) = &self.bar {
            bar.set_position(at);
        }
        self.progress.show(&self.rel);
    }
}

impl Drop for FileBar<'_> {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar())
}

/// `download: 12.0 of 48.0 MB (25%), 3.0 MB/s, ETA 12 s (cnpj/2026-09/Empresas0.zip)`: the speed
/// from this run's bytes, the ETA from that speed.
fn line(have: u64, size: u64, this_run: u64, elapsed: Duration, at: &str) -> String {
    let speed = this_run as f64 / elapsed.as_secs_f64().max(1e-3);
    let eta = match speed > 0.0 {
        true => format!(", ETA {:.0} s", size.saturating_sub(have) as f64 / speed),
        false => String::new(),
    };
    format!(
        "download: {:.1} of {:.1} MB ({:.0}%), {:.1} MB/s{eta} ({at})",
        have as f64 / MB,
        size as f64 / MB,
        100.0 * have as f64 / size.max(1) as f64,
        speed / MB,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_gives_the_share_the_speed_of_this_run_and_the_eta() {
        let l = line(30_000_000, 120_000_000, 20_000_000, Duration::from_secs(10), "pgfn/x.zip");
        assert_eq!(l, "download: 30.0 of 120.0 MB (25%), 2.0 MB/s, ETA 45 s (pgfn/x.zip)");
        assert!(!line(0, 10, 0, Duration::from_secs(1), "a").contains("ETA"), "no pace yet, no ETA");
    }
}
