//! `report.pdf`: report.html as it prints, by a headless Chromium or Chrome. The layout for
//! paper (A4, a title page, page numbers, nothing cut across pages) is the templates' print
//! CSS, so the PDF stays the HTML the analyst already reads.
//!
//! The browser is optional at run time: found on PATH (or `--browser`), and when it is missing
//! or fails, everything else is already written and the run ends with its own exit code and
//! one line saying what to do. No pure-Rust renderer draws this HTML's SVG charts and tables
//! faithfully; a browser does, and it is the one most analysts' machines and images have.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::export::manifest::FileEntry;

pub(crate) const PDF_FILE: &str = "report.pdf";
/// The programs looked for on PATH, in this order.
const BROWSERS: [&str; 5] =
    ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"];
/// A report prints in a few seconds; a browser stuck past this is killed.
const PRINT_TIMEOUT: Duration = Duration::from_secs(180);

#[derive(Debug, thiserror::Error)]
pub(crate) enum PdfError {
    #[error(
        "report.pdf not written: no Chromium or Chrome on PATH (looked for {}); install one (Debian: \
         apt-get install chromium) or point --browser / FISCAL_REPORT_BROWSER at it, or drop --pdf. \
         Everything else is written",
        BROWSERS.join(", ")
    )]
    NoBrowser,
    #[error(
        "report.pdf not written: {browser} failed ({reason}); check that it starts headless on this \
         machine, or drop --pdf. Everything else is written"
    )]
    Failed { browser: String, reason: String },
    #[error(
        "report.pdf not written: cannot write {path}: {source}; free space on that disk, then run `report --from` with --pdf"
    )]
    Write { path: PathBuf, source: std::io::Error },
}

impl crate::exit::HasExitStatus for PdfError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        crate::exit::ExitStatus::PdfUnavailable
    }
}

/// The browser to print with: `explicit`, else the first of [`BROWSERS`] on PATH.
pub(crate) fn find_browser(explicit: Option<&Path>) -> Result<PathBuf, PdfError> {
    if let Some(p) = explicit {
        return Ok(p.to_path_buf());
    }
    let path = crate::environment::search_path();
    std::env::split_paths(&path)
        .flat_map(|dir| BROWSERS.iter().map(move |b| dir.join(b)))
        .find(|candidate| candidate.is_file())
        .ok_or(PdfError::NoBrowser)
}

/// Prints `out/report.html` to `out/report.pdf` (a temporary name renamed, so a reader never
/// sees half a file) and returns its manifest entry.
pub(crate) fn print_pdf(out: &Path, browser: &Path) -> Result<FileEntry, PdfError> {
    let failed = |reason: String| PdfError::Failed { browser: browser.display().to_string(), reason };
    let html = std::path::absolute(out.join("report.html")).map_err(|e| failed(e.to_string()))?;
    let tmp = out.join(format!(".{PDF_FILE}.tmp-{}", std::process::id()));
    // A fresh, private profile each time (a browser refuses to share one).
    let profile =
        std::env::temp_dir().join(format!("fiscal-report-browser-{}-{}", std::process::id(), nanos_now()));
    let result = run_browser(browser, &html, &tmp, &profile);
    let _ = std::fs::remove_dir_all(&profile);
    let printed = result.map_err(failed).and_then(|()| {
        let bytes = std::fs::read(&tmp).map_err(|e| failed(format!("no PDF came out: {e}")))?;
        if !bytes.starts_with(b"%PDF-") {
            return Err(failed("what came out is not a PDF".into()));
        }
        let path = out.join(PDF_FILE);
        std::fs::rename(&tmp, &path).map_err(|source| PdfError::Write { path, source })?;
        Ok(FileEntry::of_content(PDF_FILE, 0, &bytes))
    });
    // Whatever went wrong, no half-printed file stays behind.
    if printed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    printed
}

fn run_browser(browser: &Path, html: &Path, pdf: &Path, profile: &Path) -> Result<(), String> {
    let mut child = Command::new(browser)
        .args([
            "--headless",
            // The page is our own file under a Content-Security-Policy that allows no script and
            // no request; the sandbox also refuses to start as root, as in many containers.
            "--no-sandbox",
            "--disable-gpu",
            "--no-pdf-header-footer",
            // Nothing but the file: no update checks, sync or lookups on a closed network.
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-extensions",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--print-to-pdf={}", pdf.display()))
        .arg(
            url::Url::from_file_path(html)
                .map_err(|()| format!("{} is not an absolute path", html.display()))?
                .as_str(),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start it: {e}"))?;
    let deadline = Instant::now() + PRINT_TIMEOUT;
    loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) if status.success() => return Ok(()),
            Some(status) => return Err(format!("it exited with {status}")),
            None if Instant::now() > deadline => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no PDF after {} s", PRINT_TIMEOUT.as_secs()));
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

/// Without `--pdf`, a report.pdf of an earlier render of this folder would show old figures
/// beside new ones: it goes (the manifest never lists it then).
pub(crate) fn remove_stale_pdf(out: &Path) {
    let _ = std::fs::remove_file(out.join(PDF_FILE));
}

/// The clock's nanoseconds, to tell one print's profile folder from the next.
fn nanos_now() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}
