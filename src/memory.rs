//! The process's peak resident memory so far (Linux `VmHWM`), for the log lines of the stages,
//! tables and queries: which one raised the peak is what a run at scale needs to know. It
//! measures only; nothing here decides anything.

/// Peak resident memory so far in MiB; `None` where `/proc/self/status` does not say.
pub(crate) fn peak_mib() -> Option<u64> {
    status_mib("VmHWM:")
}

/// Resident memory now in MiB (what the allocator holds, in use or freed and not yet returned).
pub(crate) fn resident_mib() -> Option<u64> {
    status_mib("VmRSS:")
}

fn status_mib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib = status.lines().find_map(|l| l.strip_prefix(field))?.trim().trim_end_matches("kB").trim();
    Some(kib.parse::<u64>().ok()? / 1024)
}

/// ` (resident N MiB, process peak so far M MiB)` for a log line, or nothing where the
/// figures are not known.
pub(crate) fn peak_note() -> String {
    match (resident_mib(), peak_mib()) {
        (Some(now), Some(peak)) => format!(" (resident {now} MiB, process peak so far {peak} MiB)"),
        _ => String::new(),
    }
}
