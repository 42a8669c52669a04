//! Hooks the integration tests use to reach states a real run meets only by accident: a crash
//! in the middle of a commit or an upload, a signal while a commit is under way, a bug, a
//! service that keeps failing without waiting out real backoffs. Each is an environment
//! variable named `FISCAL_REPORT_TEST_*`, read here and nowhere else, and listed in
//! CONTRIBUTING.md. None is set in production; unset, each hook does nothing.

use std::time::Duration;

fn number<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// `FISCAL_REPORT_TEST_ABORT_AFTER_UPLOADS=N`: the upload to object storage aborts the process
/// (as a SIGKILL would) after N files.
pub(crate) fn abort_after_uploads() -> Option<usize> {
    number("FISCAL_REPORT_TEST_ABORT_AFTER_UPLOADS")
}

/// `FISCAL_REPORT_TEST_ABORT_AFTER_TABLE_COMMITS=N`: the store's commit aborts the process after
/// N tables.
pub(crate) fn abort_after_table_commits() -> Option<usize> {
    number("FISCAL_REPORT_TEST_ABORT_AFTER_TABLE_COMMITS")
}

/// `FISCAL_REPORT_TEST_COMMIT_PAUSE_MS=MS`: a pause after each table of the store's commit, so a
/// test can signal the process while the commit is under way.
pub(crate) fn commit_pause() -> Option<Duration> {
    number("FISCAL_REPORT_TEST_COMMIT_PAUSE_MS").map(Duration::from_millis)
}

/// `FISCAL_REPORT_TEST_RETRY_DELAY_MS=MS`: the longest wait between two tries of a failed
/// request, so a test of a service that keeps failing takes well under a second instead of the
/// ten real backoffs (about 11 s). Waits a 429's Retry-After asks for are not touched.
pub(crate) fn retry_delay_cap() -> Option<Duration> {
    number("FISCAL_REPORT_TEST_RETRY_DELAY_MS").map(Duration::from_millis)
}

/// `FISCAL_REPORT_TEST_PANIC=1`: the command panics as it starts, so a test can see a bug end
/// as one (exit 70, the message asking for an issue) from the binary itself.
pub(crate) fn panic_if_asked() {
    if std::env::var_os("FISCAL_REPORT_TEST_PANIC").is_some_and(|v| !v.is_empty()) {
        panic!("FISCAL_REPORT_TEST_PANIC is set: a bug on purpose, for the exit-code tests");
    }
}

/// `PROPTEST_CASES=N`: how many cases a property test of the crate's own tests tries
/// (`default` unset), as proptest itself reads it for its default configuration.
#[cfg(test)]
pub(crate) fn proptest_cases(default: u32) -> u32 {
    number("PROPTEST_CASES").unwrap_or(default)
}
