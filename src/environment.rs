//! Every environment variable the program reads itself, read here and nowhere else (the test
//! hooks are `test_hooks`'s; the report flags' own variables, `FISCAL_REPORT_RULES` and the
//! like, are clap's `env =` in `cli`; the cloud credentials are object_store's). Each is listed, with
//! what it does, in the table of docs/operating.md ("Environment variables").
//!
//! This module only reads: what a value means, and what to say of a bad one, is the caller's.

use std::ffi::OsString;
use std::path::PathBuf;

/// `FISCAL_REPORT_<NAME>` (the setting's name upper-cased), when set and not empty: a fetch
/// setting between the config file and the flag (`config`).
pub fn setting(name: &str) -> Option<String> {
    std::env::var(format!("FISCAL_REPORT_{}", name.to_ascii_uppercase())).ok().filter(|v| !v.is_empty())
}

/// `FISCAL_REPORT_TODAY` (`AAAA-MM-DD`): the day to take for today, to reproduce a run of
/// another day.
pub fn today() -> Option<String> {
    std::env::var("FISCAL_REPORT_TODAY").ok()
}

/// `FISCAL_REPORT_HELD_ROWS`: the rows above which a table stays on disk.
pub fn held_rows() -> Option<String> {
    std::env::var("FISCAL_REPORT_HELD_ROWS").ok()
}

/// `FISCAL_REPORT_WORK_DIR`: where runs to object storage work.
pub fn work_dir() -> Option<PathBuf> {
    std::env::var_os("FISCAL_REPORT_WORK_DIR").map(PathBuf::from)
}

/// `PATH`, where a browser is looked for.
pub fn search_path() -> OsString {
    std::env::var_os("PATH").unwrap_or_default()
}

/// `HOSTNAME`, naming this machine in a store's lock.
pub fn host_name() -> Option<String> {
    std::env::var("HOSTNAME").ok()
}
