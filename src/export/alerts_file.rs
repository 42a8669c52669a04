//! `alertas.jsonl`: one JSON object per alert of the run (new, still open or resolved) (written, empty, whenever
//! rules were given, so a scheduler can always read it), listed in the manifest.

use std::path::Path;

use super::manifest::FileEntry;
use crate::monitor::alerts::to_jsonl;
use crate::monitor::lifecycle::TrackedAlert;
use crate::monitor::rerender::from_jsonl;

pub(crate) const ALERTS_FILE: &str = "alertas.jsonl";

/// Writes `alerts` into `out` (atomically) and returns its manifest entry.
pub(crate) fn write_alerts(out: &Path, alerts: &[TrackedAlert]) -> std::io::Result<FileEntry> {
    let text = to_jsonl(alerts);
    crate::fsutil::write_atomic(&out.join(ALERTS_FILE), text.as_bytes())?;
    Ok(FileEntry::of_content(ALERTS_FILE, alerts.len() as u64, text.as_bytes()))
}

/// Removes an `alertas.jsonl` an earlier run left in `out`, when this one had no rules: no file
/// may stay that the manifest does not name.
pub(crate) fn remove_stale_alerts(out: &Path) {
    let _ = std::fs::remove_file(out.join(ALERTS_FILE));
}

/// The alerts a finished run wrote into `out` (`None` when it wrote none: it had no rules). A
/// line that cannot be read is left out, and said.
pub(crate) fn read_alerts(out: &Path) -> std::io::Result<Option<Vec<TrackedAlert>>> {
    let path = out.join(ALERTS_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let (alerts, unread) = from_jsonl(&text);
    if unread > 0 {
        tracing::warn!(
            "{unread} line(s) of {} could not be read: their alerts are judged anew (one judged new is \
             posted and pages again)",
            path.display()
        );
    }
    Ok(Some(alerts))
}
