//! `--keep N`: once a release is whole, the folder keeps the last N months of RFB and the last
//! N quarters of PGFN (the release just downloaded always among them) and removes older ones,
//! with their entries in `download.json`. Only folders named as a release is named are touched.

use std::path::Path;

use super::{DownloadError, Record, is_month, is_quarter, write_error};

/// Removes the releases older than the last `n` under `to`: their folders, relative to `to`.
pub(super) fn older_than_last(
    to: &Path,
    n: usize,
    record: &mut Record,
) -> Result<Vec<String>, DownloadError> {
    let mut removed = Vec::new();
    let publishers = [
        ("cnpj", record.rfb_month.clone(), is_month as fn(&str) -> bool),
        ("pgfn", record.pgfn_quarter.clone(), is_quarter),
    ];
    for (publisher, current, is_release) in publishers {
        for old in to_remove(&releases(&to.join(publisher), is_release), current.as_deref(), n) {
            let rel = format!("{publisher}/{old}");
            let dir = to.join(&rel);
            std::fs::remove_dir_all(&dir).map_err(write_error(&dir))?;
            record.files.retain(|path, _| !path.starts_with(&format!("{rel}/")));
            tracing::info!(release = %rel, "removed: older than the last {n} kept");
            removed.push(rel);
        }
    }
    Ok(removed)
}

/// The releases to remove of `all` (sorted, oldest first): all but the `n` kept, which are the
/// current one and the newest others.
fn to_remove(all: &[String], current: Option<&str>, n: usize) -> Vec<String> {
    let mut kept: Vec<&String> = all.iter().filter(|r| Some(r.as_str()) == current).collect();
    for r in all.iter().rev() {
        if kept.len() >= n {
            break;
        }
        if !kept.contains(&r) {
            kept.push(r);
        }
    }
    all.iter().filter(|r| !kept.contains(r)).cloned().collect()
}

/// The release folders under `dir`, by name (which sorts them by date), oldest first.
fn releases(dir: &Path, is_release: fn(&str) -> bool) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| is_release(name))
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn the_current_release_and_the_newest_others_are_kept() {
        let all = names(&["2026-01", "2026-02", "2026-03", "2026-04"]);
        assert_eq!(to_remove(&all, Some("2026-04"), 2), names(&["2026-01", "2026-02"]));
        // An older month asked for by name is kept, with the newest other.
        assert_eq!(to_remove(&all, Some("2026-02"), 2), names(&["2026-01", "2026-03"]));
        assert_eq!(to_remove(&all, Some("2026-04"), 9), Vec::<String>::new());
    }

    #[test]
    fn only_folders_named_as_releases_are_releases() {
        assert!(is_month("2026-09") && !is_month("2026-9") && !is_month("dados"));
        assert!(is_quarter("2025_trimestre_04") && !is_quarter("2025_trimestre_05"));
        let tmp = tempfile::tempdir().unwrap();
        for d in ["2026-08", "2026-09", "notas"] {
            std::fs::create_dir_all(tmp.path().join("cnpj").join(d)).unwrap();
        }
        let mut record = Record { rfb_month: Some("2026-09".into()), ..Record::default() };
        let removed = older_than_last(tmp.path(), 1, &mut record).unwrap();
        assert_eq!(removed, names(&["cnpj/2026-08"]));
        assert!(tmp.path().join("cnpj/notas").is_dir() && tmp.path().join("cnpj/2026-09").is_dir());
    }
}
