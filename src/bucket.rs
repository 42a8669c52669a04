//! Object-storage clients (`s3://`, `gs://`, `az://`) for the outputs and the store, configured
//! from each cloud's standard environment variables (object_store's `from_env`:
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL`, ...), and
//! the registration that lets delta-rs open tables at such URLs through the same clients.
//!
//! It owns how a URL becomes a client; what is read or written, and what a failure means to
//! the person, is its callers' business. Credentials never leave the client: no message here
//! holds more than the URL as given.

use std::path::Path;
use std::sync::{Arc, Once};
use std::time::Duration;

use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, RetryConfig};
use url::Url;

/// The URL schemes taken for object storage (each one of `client`'s builders).
pub(crate) const SCHEMES: [&str; 5] = ["s3", "s3a", "gs", "az", "abfs"];

/// Whether `location` names object storage rather than a local path.
pub(crate) fn is_remote(location: &Path) -> bool {
    location.to_str().and_then(|s| s.split_once("://")).is_some_and(|(scheme, _)| SCHEMES.contains(&scheme))
}

/// A folder in a bucket (a run's or a store's), with a client for its bucket.
pub struct Prefix {
    /// As given, without a trailing slash (credentials are never in it: they come from the
    /// environment).
    pub url: String,
    pub bucket: String,
    /// The folder's path from the bucket's root.
    pub path: ObjectPath,
    /// The folder as a directory URL (`s3://bucket/path/`), for delta-rs to join table names on.
    pub dir_url: Url,
    pub store: Arc<dyn ObjectStore>,
}

impl Prefix {
    /// The folder `text` names, checked: a scheme of `SCHEMES`, a bucket and a non-empty path (a
    /// run or a store owns its folder; the bucket's root is nobody's). Nothing is sent yet.
    pub fn open(text: &str) -> Result<Self, String> {
        let url = text.trim_end_matches('/').to_string();
        let mut dir_url = Url::parse(&url).map_err(|e| e.to_string())?;
        if !SCHEMES.contains(&dir_url.scheme()) {
            return Err(format!("{}:// is not an object store this job writes to", dir_url.scheme()));
        }
        let bucket = dir_url.host_str().filter(|b| !b.is_empty()).ok_or("it names no bucket")?.to_string();
        let path = ObjectPath::parse(dir_url.path().trim_matches('/')).map_err(|e| e.to_string())?;
        if path.as_ref().is_empty() {
            return Err("it names no prefix: give it its own folder in the bucket".into());
        }
        dir_url.set_path(&format!("{path}/"));
        let store = client(&dir_url)?;
        Ok(Self { url, bucket, path, dir_url, store })
    }

    /// The key of `rel` (a `/`-separated path inside the folder).
    pub fn key(&self, rel: &str) -> ObjectPath {
        rel.split('/').filter(|p| !p.is_empty()).fold(self.path.clone(), |p, part| p.join(part))
    }
}

/// What an object-store error means for the person who gave the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// No such bucket (or object).
    Missing,
    /// Credentials or rights.
    Refused,
    /// Anything else, after the client's retries: the endpoint or the network.
    Unreachable,
}

/// `e` classified, with the service's own words kept short (an S3 error body is a page of XML).
pub(crate) fn failure(e: &object_store::Error) -> (Failure, String) {
    let message: String = e.to_string().chars().take(300).collect();
    let kind = match e {
        object_store::Error::NotFound { .. } => Failure::Missing,
        object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. } => {
            Failure::Refused
        }
        _ if message.contains("NoSuchBucket") => Failure::Missing,
        _ if ["AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId"]
            .iter()
            .any(|m| message.contains(m)) =>
        {
            Failure::Refused
        }
        _ => Failure::Unreachable,
    };
    (kind, message)
}

/// A client for the bucket of `url` (paths in it are from the bucket's root).
fn client(url: &Url) -> Result<Arc<dyn ObjectStore>, String> {
    // Bounded so an unreachable endpoint fails within a run's patience, not object_store's
    // default 3 minutes; backoff between the attempts is object_store's.
    let retry = RetryConfig { max_retries: 4, retry_timeout: Duration::from_secs(30), ..Default::default() };
    let err = |e: object_store::Error| e.to_string();
    Ok(match url.scheme() {
        "s3" | "s3a" => Arc::new(
            object_store::aws::AmazonS3Builder::from_env()
                .with_url(url.as_str())
                .with_retry(retry)
                .build()
                .map_err(err)?,
        ),
        "gs" => Arc::new(
            object_store::gcp::GoogleCloudStorageBuilder::from_env()
                .with_url(url.as_str())
                .with_retry(retry)
                .build()
                .map_err(err)?,
        ),
        "az" | "abfs" => Arc::new(
            object_store::azure::MicrosoftAzureBuilder::from_env()
                .with_url(url.as_str())
                .with_retry(retry)
                .build()
                .map_err(err)?,
        ),
        other => return Err(format!("{other}:// is not an object store this job writes to")),
    })
}

/// Lets delta-rs open tables at `SCHEMES` URLs with `client`'s clients, without delta-rs's own
/// cloud crates (the AWS one alone pulls the AWS SDK and DynamoDB locking into the build).
/// Commits use delta-rs's default log store: each commit is one put-if-absent of its JSON
/// file, which S3 (since 2024, `If-None-Match`), GCS and Azure do atomically, so two writers
/// can never both commit a version. Idempotent.
pub(crate) fn register_with_delta() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for scheme in SCHEMES {
            let Ok(key) = Url::parse(&format!("{scheme}://")) else { continue };
            deltalake::logstore::object_store_factories().insert(key.clone(), Arc::new(BucketStores));
            deltalake::logstore::logstore_factories().insert(key, Arc::new(PutIfAbsentLogs));
        }
    });
}

struct BucketStores;

impl deltalake::logstore::ObjectStoreFactory for BucketStores {
    fn parse_url_opts(
        &self,
        url: &Url,
        _config: &deltalake::logstore::StorageConfig,
    ) -> deltalake::DeltaResult<(deltalake::logstore::ObjectStoreRef, ObjectPath)> {
        let store = client(url).map_err(deltalake::DeltaTableError::generic)?;
        let path = ObjectPath::from_url_path(url.path()).map_err(deltalake::DeltaTableError::generic)?;
        Ok((store, path))
    }
}

struct PutIfAbsentLogs;

impl deltalake::logstore::LogStoreFactory for PutIfAbsentLogs {
    fn with_options(
        &self,
        prefixed_store: deltalake::logstore::ObjectStoreRef,
        root_store: deltalake::logstore::ObjectStoreRef,
        location: &Url,
        options: &deltalake::logstore::StorageConfig,
    ) -> deltalake::DeltaResult<Arc<dyn deltalake::logstore::LogStore>> {
        Ok(deltalake::logstore::default_logstore(prefixed_store, root_store, location, options))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_a_scheme_a_bucket_and_a_prefix() {
        assert!(is_remote(Path::new("s3://b/p")) && !is_remote(Path::new("output/s3")));
        let p = Prefix::open("s3://my-bucket/runs/2026-09/").unwrap();
        assert_eq!(
            (p.url.as_str(), p.bucket.as_str(), p.path.as_ref()),
            ("s3://my-bucket/runs/2026-09", "my-bucket", "runs/2026-09")
        );
        assert_eq!(p.dir_url.as_str(), "s3://my-bucket/runs/2026-09/");
        assert_eq!(p.key("a/b.parquet").as_ref(), "runs/2026-09/a/b.parquet");
        assert!(Prefix::open("s3://my-bucket").err().unwrap().contains("no prefix"));
        assert!(Prefix::open("ftp://x/y").err().unwrap().contains("ftp://"));
    }
}
