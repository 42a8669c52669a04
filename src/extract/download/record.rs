//! `DIR/download.json`: what the download put in the folder, file by file (its URL, size,
//! sha256, ETag, Last-Modified, when it was fetched, the release it belongs to), and the
//! release's month and quarter. A file recorded with the size and ETag (or Last-Modified) its
//! server still states, and present with that size, is complete: it is not sent again.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::Remote;

pub(super) const FILE: &str = "download.json";

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Record {
    /// RFB's month of the last download (`YYYY-MM`).
    pub rfb_month: Option<String>,
    /// PGFN's quarter of the last download (`YYYY_trimestre_NN`).
    pub pgfn_quarter: Option<String>,
    /// Each file, by its path under the folder.
    pub files: BTreeMap<String, FileRecord>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct FileRecord {
    pub url: String,
    /// The month or quarter it belongs to.
    pub release: String,
    pub size: u64,
    pub sha256: String,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// RFC 3339, UTC.
    pub fetched_at: String,
}

/// The folder's record as written, or why it cannot be read; `Ok(None)` when there is none.
fn read(dir: &Path) -> Result<Option<Record>, serde_json::Error> {
    let Ok(text) = std::fs::read_to_string(dir.join(FILE)) else { return Ok(None) };
    serde_json::from_str(&text).map(Some)
}

/// The folder's record; none yet (or one that cannot be read) is an empty one, so every file
/// is checked against its server again.
pub(super) fn load(dir: &Path) -> Record {
    read(dir)
        .unwrap_or_else(|e| {
            tracing::warn!("{}: {e}; every file is checked again", dir.join(FILE).display());
            None
        })
        .unwrap_or_default()
}

/// The release a download last went for in `dir` (its RFB month and PGFN quarter, as its
/// `download.json` names them), or `None` for a folder no download manages. A run reads that
/// release: the folders of older ones are kept (`--keep`), not read.
pub(crate) fn current_release(dir: &Path) -> Option<(String, String)> {
    let record = read(dir).ok()??;
    Some((record.rfb_month?, record.pgfn_quarter?))
}

/// The files `dir`'s download record names under `folder/` (`listas/20261130_CEIS.zip`); none
/// without a record.
pub(crate) fn recorded_under(dir: &Path, folder: &str) -> Vec<String> {
    let prefix = format!("{folder}/");
    let files = read(dir).ok().flatten().map(|r| r.files).unwrap_or_default();
    files.into_keys().filter(|rel| rel.starts_with(&prefix)).collect()
}

/// Written whole to a temporary name, then renamed: a reader never sees half a record.
pub(super) fn save(dir: &Path, record: &Record) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(record).map_err(std::io::Error::other)?;
    let tmp = dir.join(format!("{FILE}.tmp"));
    std::fs::write(&tmp, text + "\n")?;
    std::fs::rename(tmp, dir.join(FILE))
}

impl Record {
    /// `remote` is at `dest` whole, as recorded, and its server states the same version.
    pub(super) fn complete(&self, remote: &Remote, dest: &Path) -> bool {
        let Some(had) = self.files.get(&remote.rel) else { return false };
        let same_version = match (&remote.etag, &remote.last_modified) {
            (Some(etag), _) if had.etag.as_ref() == Some(etag) => true,
            (None, Some(modified)) => had.last_modified.as_ref() == Some(modified),
            _ => false,
        };
        same_version
            && remote.size == Some(had.size)
            && std::fs::metadata(dest).is_ok_and(|m| m.is_file() && m.len() == had.size)
    }

    pub(super) fn insert(&mut self, remote: &Remote, size: u64, sha256: String) {
        self.files.insert(
            remote.rel.clone(),
            FileRecord {
                url: remote.url.to_string(),
                release: remote.release.clone(),
                size,
                sha256,
                etag: remote.etag.clone(),
                last_modified: remote.last_modified.clone(),
                fetched_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            },
        );
    }
}
