//! The process's peak resident memory so far (Linux `VmHWM`), for the log lines of the stages,
//! tables and queries: which one raised the peak is what a run at scale needs to know. It
//! measures only; nothing here decides anything.

/// Peak resident memory so far in MiB; `None` where `/proc/self/status` does not say.
pub fn peak_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.trim().trim_end_matches("kB").trim();
    Some(kib.parse::<u64>().ok()? / 1024)
}

/// ` (process peak so far N MiB)` for a log line, or nothing where the peak is not known.
pub fn peak_note() -> String {
    peak_mib().map(|mib| format!(" (process peak so far {mib} MiB)")).unwrap_or_default()
}
