//! Finished outputs to object storage (`run --out s3://bucket/prefix`, `gs://`, `az://`). The
//! run works in a local directory as it always does (staging, `--resume`, every output), then
//! every file its manifest names is uploaded as one object each (one PUT: a reader sees it whole
//! or not at all) and the manifest last, so a reader that finds the manifest finds every object
//! it names, with the size and sha256 it says. Staging stays local: `--resume` continues from
//! it on the machine that ran, and the bucket only ever holds finished runs.
//!
//! It owns the upload and what its failures mean; what is written is the other stages'
//! business. Credentials come from each cloud's standard environment variables (object_store's
//! `from_env`: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`,
//! ...) and never appear in a message or a file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload, RetryConfig};

use crate::exit::{ExitStatus, HasExitStatus};

/// Objects uploaded at once.
const UPLOADS_IN_FLIGHT: usize = 8;

#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error("--out {url}: {reason}; write s3://BUCKET/PREFIX, gs://BUCKET/PREFIX or az://CONTAINER/PREFIX")]
    BadUrl { url: String, reason: String },
    #[error(
        "the bucket {bucket} does not exist (or is not visible with these credentials); create it and run the \
         same command with --resume (nothing is fetched again), or fix the bucket name in --out. The run's \
         outputs are kept in {local}"
    )]
    MissingBucket { bucket: String, local: PathBuf },
    #[error(
        "the bucket {bucket} refused the upload (permission or credentials): {message}; check the credentials in \
         the environment (for S3: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) and their rights on the bucket, then \
         run the same command with --resume (nothing is fetched again). The run's outputs are kept in {local}"
    )]
    Refused { bucket: String, message: String, local: PathBuf },
    #[error(
        "uploading to {bucket} failed after retries: {message}; check the endpoint and the network, then run the \
         same command with --resume: nothing is fetched again. The run's outputs are kept in {local}"
    )]
    Unreachable { bucket: String, message: String, local: PathBuf },
    #[error("reading {path} to upload it: {source}")]
    Read { path: PathBuf, source: std::io::Error },
}

impl HasExitStatus for RemoteError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            Self::BadUrl { .. } | Self::MissingBucket { .. } | Self::Refused { .. } => ExitStatus::BadInput,
            Self::Unreachable { .. } => ExitStatus::ServiceUnavailable,
            Self::Read { .. } => ExitStatus::Internal,
        }
    }
}

/// Where a run's finished outputs go: a bucket and a prefix in it.
pub struct RemoteOut {
    /// As given (no credentials can be in it: they come from the environment).
    pub url: String,
    pub bucket: String,
    prefix: ObjectPath,
    store: Arc<dyn ObjectStore>,
}

impl std::fmt::Debug for RemoteOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteOut").field("url", &self.url).finish_non_exhaustive()
    }
}

/// The URL schemes `--out` takes for object storage (each one of `RemoteOut::parse`'s clients).
const SCHEMES: [&str; 5] = ["s3", "s3a", "gs", "az", "abfs"];

/// Whether `out` names object storage rather than a local directory.
pub fn is_remote(out: &Path) -> bool {
    out.to_str().and_then(|s| s.split_once("://")).is_some_and(|(scheme, _)| SCHEMES.contains(&scheme))
}

impl RemoteOut {
    /// The bucket and prefix of `url`, with a client configured from the environment. Nothing
    /// is sent yet: a missing bucket or a refused credential shows at the upload.
    pub fn parse(url: &str) -> Result<Self, RemoteError> {
        let bad = |reason: String| RemoteError::BadUrl { url: url.to_string(), reason };
        let parsed = url::Url::parse(url).map_err(|e| bad(e.to_string()))?;
        let bucket =
            parsed.host_str().filter(|b| !b.is_empty()).ok_or_else(|| bad("it names no bucket".into()))?;
        let prefix = ObjectPath::parse(parsed.path().trim_matches('/')).map_err(|e| bad(e.to_string()))?;
        if prefix.as_ref().is_empty() {
            return Err(bad("it names no prefix: give the run its own folder in the bucket".into()));
        }
        // Bounded so an unreachable endpoint fails within the run's patience, not object_store's 3 minutes.
        let retry =
            RetryConfig { max_retries: 4, retry_timeout: Duration::from_secs(30), ..Default::default() };
        let store: Arc<dyn ObjectStore> = match parsed.scheme() {
            "s3" | "s3a" => Arc::new(
                object_store::aws::AmazonS3Builder::from_env()
                    .with_url(url)
                    .with_retry(retry)
                    .build()
                    .map_err(|e| bad(e.to_string()))?,
            ),
            "gs" => Arc::new(
                object_store::gcp::GoogleCloudStorageBuilder::from_env()
                    .with_url(url)
                    .with_retry(retry)
                    .build()
                    .map_err(|e| bad(e.to_string()))?,
            ),
            "az" | "abfs" => Arc::new(
                object_store::azure::MicrosoftAzureBuilder::from_env()
                    .with_url(url)
                    .with_retry(retry)
                    .build()
                    .map_err(|e| bad(e.to_string()))?,
            ),
            other => return Err(bad(format!("{other}:// is not an object store this job writes to"))),
        };
        Ok(Self { url: url.to_string(), bucket: bucket.to_string(), prefix, store })
    }

    /// The local directory the run works in before the upload: one per URL, under `root`, so
    /// the same command run again (`--resume`) finds its staging.
    pub fn work_dir(&self, root: &Path) -> PathBuf {
        let mut dir = root.join(&self.bucket);
        for part in self.prefix.parts() {
            dir.push(part.as_ref());
        }
        dir
    }

    /// Uploads every file `manifest` names from `local`, then the manifest itself; returns the
    /// number of objects and bytes.
    pub async fn publish(
        &self,
        local: &Path,
        manifest: &crate::export::manifest::Manifest,
    ) -> Result<(usize, u64), RemoteError> {
        let put = |rel: String| async move {
            let path = local.join(&rel);
            let bytes = tokio::fs::read(&path).await.map_err(|source| RemoteError::Read { path, source })?;
            let n = bytes.len() as u64;
            let key = rel.split('/').fold(self.prefix.clone(), |p, part| p.clone().join(part));
            self.store.put(&key, PutPayload::from(bytes)).await.map_err(|e| self.classify(e, local))?;
            Ok::<u64, RemoteError>(n)
        };
        let mut sent = futures::stream::iter(manifest.files.iter().map(|f| put(f.path.clone())))
            .buffer_unordered(UPLOADS_IN_FLIGHT);
        let (mut objects, mut bytes) = (0usize, 0u64);
        let abort_after: Option<usize> =
            std::env::var("FISCAL_REPORT_TEST_ABORT_AFTER_UPLOADS").ok().and_then(|v| v.parse().ok());
        while let Some(r) = sent.next().await {
            bytes += r?;
            objects += 1;
            if abort_after == Some(objects) {
                // Fault injection for the crash test: die as a SIGKILL would, uploads in flight.
                std::process::abort();
            }
        }
        // Last: its presence says every object it names is there.
        bytes += put("manifest.json".to_string()).await?;
        Ok((objects + 1, bytes))
    }

    fn classify(&self, e: object_store::Error, local: &Path) -> RemoteError {
        let (bucket, local) = (self.bucket.clone(), local.to_path_buf());
        // The service's own words, short: an S3 error body is a page of XML.
        let message: String = e.to_string().chars().take(300).collect();
        match e {
            object_store::Error::NotFound { .. } => RemoteError::MissingBucket { bucket, local },
            object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. } => {
                RemoteError::Refused { bucket, message, local }
            }
            _ if message.contains("NoSuchBucket") => RemoteError::MissingBucket { bucket, local },
            _ if message.contains("AccessDenied")
                || message.contains("SignatureDoesNotMatch")
                || message.contains("InvalidAccessKeyId") =>
            {
                RemoteError::Refused { bucket, message, local }
            }
            _ => RemoteError::Unreachable { bucket, message, local },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_a_bucket_and_a_prefix() {
        assert!(is_remote(Path::new("s3://b/p")) && !is_remote(Path::new("output/s3")));
        let r = RemoteOut::parse("s3://my-bucket/runs/2026-09").unwrap();
        assert_eq!(r.bucket, "my-bucket");
        assert_eq!(r.work_dir(Path::new("w")), Path::new("w/my-bucket/runs/2026-09"));
        assert!(RemoteOut::parse("s3://my-bucket").is_err(), "a prefix is required");
        assert!(RemoteOut::parse("ftp://x/y").is_err());
    }
}
