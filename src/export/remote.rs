//! Finished runs to and from object storage (`s3://bucket/prefix`, `gs://`, `az://`). A run
//! works in a local directory as it always does (staging, `--resume`, every output), then every
//! file its manifest names is uploaded as one object each (one PUT: a reader sees it whole or
//! not at all) and the manifest last, so a reader that finds the manifest finds every object it
//! names, with the size and sha256 it says. Staging stays local: `--resume` continues from it
//! on the machine that ran, and the bucket only ever holds finished runs (a fetch's finished
//! staging is one: `merge` and `report --from` download it, checking every object against the
//! manifest, and work on the copy).
//!
//! It owns the transfers and what their failures mean; what is written is the other stages'
//! business. Credentials come from each cloud's standard environment variables (object_store's
//! `from_env`: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`,
//! ...) and never appear in a message or a file.

use std::path::{Path, PathBuf};

use futures::StreamExt;
use object_store::{ObjectStoreExt, PutPayload};

use crate::bucket::{Failure, Prefix};
use crate::exit::{ExitStatus, HasExitStatus};
use crate::export::manifest::{FileEntry, Manifest};

/// Objects sent or fetched at once.
const TRANSFERS_IN_FLIGHT: usize = 8;

#[derive(Debug, thiserror::Error)]
pub(crate) enum RemoteError {
    #[error("{url}: {reason}; write s3://BUCKET/PREFIX, gs://BUCKET/PREFIX or az://CONTAINER/PREFIX")]
    BadUrl { url: String, reason: String },
    #[error(
        "the bucket {bucket} does not exist (or is not visible with these credentials); create it, or fix the \
         bucket name in the URL{then}"
    )]
    MissingBucket { bucket: String, then: String },
    #[error(
        "the bucket {bucket} refused the request (permission or credentials): {message}; check the credentials \
         in the environment (for S3: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) and their rights on the bucket{then}"
    )]
    Refused { bucket: String, message: String, then: String },
    #[error("reaching {bucket} failed after retries: {message}; check the endpoint and the network{then}")]
    Unreachable { bucket: String, message: String, then: String },
    #[error(
        "{url} holds no finished run (there is no {url}/manifest.json): pass the --out of a finished `run` or \
         `fetch`, or wait for it to finish (its manifest is uploaded last)"
    )]
    NoRun { url: String },
    #[error("{url} already holds a run (its manifest.json is there); write to a new prefix")]
    HoldsRun { url: String },
    #[error(
        "{url}/{path} does not match its manifest ({reason}): the prefix was changed after its run wrote it; \
         run that run again into a new prefix"
    )]
    Damaged { url: String, path: String, reason: String },
    #[error("reading {path} to upload it: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error(
        "writing {path} (a downloaded copy): {source}; free disk space or set FISCAL_REPORT_WORK_DIR elsewhere"
    )]
    Write { path: PathBuf, source: std::io::Error },
}

impl HasExitStatus for RemoteError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::BadUrl { .. }
            | Self::MissingBucket { .. }
            | Self::Refused { .. }
            | Self::NoRun { .. }
            | Self::HoldsRun { .. }
            | Self::Damaged { .. } => ExitStatus::BadInput,
            Self::Unreachable { .. } => ExitStatus::ServiceUnavailable,
            Self::Read { .. } => ExitStatus::Internal,
            Self::Write { source, .. } => crate::exit::io_status(source),
        }
    }
}

/// The local directory under which runs to object storage work and downloads land:
/// `FISCAL_REPORT_WORK_DIR`, else `.fiscal-report-work` in the working directory.
pub(crate) fn work_root() -> PathBuf {
    crate::environment::work_dir().unwrap_or_else(|| PathBuf::from(".fiscal-report-work"))
}

/// Where a run's finished outputs go, or a finished run is read from: a folder in a bucket.
pub(crate) struct RemoteOut {
    at: Prefix,
}

impl std::fmt::Debug for RemoteOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteOut").field("url", &self.at.url).finish_non_exhaustive()
    }
}

pub(crate) use crate::bucket::is_remote;

/// A downloaded copy of a run, removed when dropped (the run stays in the bucket).
#[derive(Debug)]
pub(crate) struct LocalCopy {
    pub dir: PathBuf,
}

impl Drop for LocalCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl RemoteOut {
    /// The folder `url` names, with a client configured from the environment. Nothing is sent
    /// yet: a missing bucket or a refused credential shows at the first request.
    pub(crate) fn parse(url: &str) -> Result<Self, RemoteError> {
        let at = Prefix::open(url).map_err(|reason| RemoteError::BadUrl { url: url.to_string(), reason })?;
        Ok(Self { at })
    }

    /// The URL as given, for messages.
    pub(crate) fn url(&self) -> &str {
        &self.at.url
    }

    /// The local directory the run works in before the upload: one per URL, under `root`, so
    /// the same command run again (`--resume`) finds its staging.
    pub(crate) fn work_dir(&self, root: &Path) -> PathBuf {
        let mut dir = root.join(&self.at.bucket);
        for part in self.at.path.parts() {
            dir.push(part.as_ref());
        }
        dir
    }

    /// The local directory a copy of this URL's run is downloaded to: apart from `work_dir`
    /// (which may hold an unfinished run to this URL waiting for its `--resume`), and this
    /// process's own, so two commands reading the same URL at once keep their own copies.
    fn download_dir(&self, root: &Path) -> PathBuf {
        self.work_dir(&root.join(".downloads").join(std::process::id().to_string()))
    }

    /// Whether a run's manifest is already at this URL.
    pub(crate) async fn holds_run(&self) -> Result<bool, RemoteError> {
        match self.at.store.head(&self.at.key("manifest.json")).await {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(self.classify(&e, String::new())),
        }
    }

    /// Downloads the run at this URL into a copy of this process's own under `root`: its
    /// manifest, then every object it names, each checked against the manifest's size and
    /// sha256; the manifest is written last, so a copy cut short is never taken for a whole one.
    pub(crate) async fn download(&self, root: &Path) -> Result<LocalCopy, RemoteError> {
        let local = self.download_dir(root);
        let manifest_bytes = match self.at.store.get(&self.at.key("manifest.json")).await {
            Ok(r) => r.bytes().await.map_err(|e| self.classify(&e, String::new()))?,
            Err(e) => {
                return Err(match self.classify(&e, String::new()) {
                    RemoteError::MissingBucket { .. } => RemoteError::NoRun { url: self.at.url.clone() },
                    other => other,
                });
            }
        };
        let manifest: Manifest =
            serde_json::from_slice(&manifest_bytes).map_err(|e| RemoteError::Damaged {
                url: self.at.url.clone(),
                path: "manifest.json".into(),
                reason: e.to_string(),
            })?;
        let write_err = |path: &Path| {
            let path = path.to_path_buf();
            move |source| RemoteError::Write { path, source }
        };
        match std::fs::remove_dir_all(&local) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(write_err(&local)(e)),
            _ => {}
        }
        // From here on, whatever happens, the copy goes when it is dropped.
        let copy = LocalCopy { dir: local };
        let dir = &copy.dir;
        let get = |entry: FileEntry| async move {
            let missing = |e| match e {
                object_store::Error::NotFound { .. } => RemoteError::Damaged {
                    url: self.at.url.clone(),
                    path: entry.path.clone(),
                    reason: "the object is missing".into(),
                },
                e => self.classify(&e, String::new()),
            };
            let key = self.at.key(&entry.path);
            let bytes = self.at.store.get(&key).await.map_err(missing)?.bytes().await.map_err(missing)?;
            let found = FileEntry::of_content(&entry.path, entry.rows, &bytes);
            if found.bytes != entry.bytes || found.sha256 != entry.sha256 {
                return Err(RemoteError::Damaged {
                    url: self.at.url.clone(),
                    path: entry.path.clone(),
                    reason: format!("{} bytes, sha256 {}", found.bytes, found.sha256),
                });
            }
            let path = dir.join(&entry.path);
            if let Some(dir) = path.parent() {
                tokio::fs::create_dir_all(dir).await.map_err(write_err(dir))?;
            }
            tokio::fs::write(&path, &bytes).await.map_err(write_err(&path))
        };
        let mut got =
            futures::stream::iter(manifest.files.into_iter().map(get)).buffer_unordered(TRANSFERS_IN_FLIGHT);
        while let Some(r) = got.next().await {
            r?;
        }
        drop(got);
        let path = copy.dir.join("manifest.json");
        crate::fsutil::write_atomic(&path, &manifest_bytes).map_err(write_err(&path))?;
        Ok(copy)
    }

    /// Uploads each of `files` (paths relative to `local`) as one object, and returns their
    /// entries: the size and sha256 of what was sent, read once.
    pub(crate) async fn upload(
        &self,
        local: &Path,
        files: Vec<String>,
    ) -> Result<Vec<FileEntry>, RemoteError> {
        let put = |rel: String| async move {
            let path = local.join(&rel);
            let bytes = tokio::fs::read(&path).await.map_err(|source| RemoteError::Read { path, source })?;
            let entry = FileEntry::of_content(&rel, 0, &bytes);
            self.at
                .store
                .put(&self.at.key(&rel), PutPayload::from(bytes))
                .await
                .map_err(|e| self.classify(&e, resume_hint(local)))?;
            Ok::<FileEntry, RemoteError>(entry)
        };
        let mut sent =
            futures::stream::iter(files.into_iter().map(put)).buffer_unordered(TRANSFERS_IN_FLIGHT);
        let abort_after = crate::test_hooks::abort_after_uploads();
        let mut entries = Vec::new();
        while let Some(r) = sent.next().await {
            entries.push(r?);
            if abort_after == Some(entries.len()) {
                // Fault injection for the crash test: die as a SIGKILL would, uploads in flight.
                std::process::abort();
            }
        }
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(entries)
    }

    /// Uploads `local/manifest.json` once the files it names (`sent`) are up: last, its
    /// presence says every object it names is there. Returns the objects and bytes sent in all.
    pub(crate) async fn upload_manifest(
        &self,
        local: &Path,
        sent: &[FileEntry],
    ) -> Result<(usize, u64), RemoteError> {
        let manifest = self.upload(local, vec!["manifest.json".into()]).await?;
        let bytes = sent.iter().chain(&manifest).map(|e| e.bytes).sum();
        Ok((sent.len() + manifest.len(), bytes))
    }

    /// Uploads every file the manifest in `local` names, then the manifest itself (the one on
    /// disk, untouched); returns that manifest and the number of objects and bytes sent.
    pub(crate) async fn publish(&self, local: &Path) -> Result<(Manifest, usize, u64), RemoteError> {
        let path = local.join("manifest.json");
        let manifest = Manifest::read(local).map_err(|source| RemoteError::Read { path, source })?;
        let sent = self.upload(local, manifest.files.iter().map(|f| f.path.clone()).collect()).await?;
        let (objects, bytes) = self.upload_manifest(local, &sent).await?;
        Ok((manifest, objects, bytes))
    }

    /// What `e` means for this bucket; `then` is what to do after the fix (empty when running
    /// the same command again is all there is to it).
    fn classify(&self, e: &object_store::Error, then: String) -> RemoteError {
        let bucket = self.at.bucket.clone();
        match crate::bucket::failure(e) {
            (Failure::Missing, _) => RemoteError::MissingBucket { bucket, then },
            (Failure::Refused, message) => RemoteError::Refused { bucket, message, then },
            (Failure::Unreachable, message) => RemoteError::Unreachable { bucket, message, then },
        }
    }
}

/// What to do after fixing a failed upload: the outputs wait in `local`.
fn resume_hint(local: &Path) -> String {
    format!(
        ", then run the same command with --resume (nothing is fetched again). The run's outputs are kept in {}",
        local.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_works_in_a_directory_named_after_its_url() {
        let r = RemoteOut::parse("s3://my-bucket/runs/2026-09").unwrap();
        assert_eq!(r.url(), "s3://my-bucket/runs/2026-09");
        assert_eq!(r.work_dir(Path::new("w")), Path::new("w/my-bucket/runs/2026-09"));
        let own =
            Path::new("w/.downloads").join(std::process::id().to_string()).join("my-bucket/runs/2026-09");
        assert_eq!(r.download_dir(Path::new("w")), own);
        assert!(RemoteOut::parse("s3://my-bucket").is_err(), "a prefix is required");
    }
}
