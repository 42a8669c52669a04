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
pub const SCHEMES: [&str; 5] = ["s3", "s3a", "gs", "az", "abfs"];

/// Whether `location` names object storage rather than a local path.
pub fn is_remote(location: &Path) -> bool {
    location.to_str().and_then(|s| s.split_once("://")).is_some_and(|(scheme, _)| SCHEMES.contains(&scheme))
}

/// A bucket URL, checked: a scheme of `SCHEMES`, a bucket and a non-empty prefix (a run or a
/// store owns its folder; the bucket's root is nobody's).
pub fn parse(text: &str) -> Result<(Url, String, ObjectPath), String> {
    let url = Url::parse(text).map_err(|e| e.to_string())?;
    if !SCHEMES.contains(&url.scheme()) {
        return Err(format!("{}:// is not an object store this job writes to", url.scheme()));
    }
    let bucket = url.host_str().filter(|b| !b.is_empty()).ok_or("it names no bucket")?.to_string();
    let prefix = ObjectPath::parse(url.path().trim_matches('/')).map_err(|e| e.to_string())?;
    if prefix.as_ref().is_empty() {
        return Err("it names no prefix: give it its own folder in the bucket".into());
    }
    Ok((url, bucket, prefix))
}

/// A client for the bucket of `url` (paths in it are from the bucket's root).
pub fn client(url: &Url) -> Result<Arc<dyn ObjectStore>, String> {
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
pub fn register_with_delta() {
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
        let (_, bucket, prefix) = parse("s3://my-bucket/runs/2026-09/").unwrap();
        assert_eq!((bucket.as_str(), prefix.as_ref()), ("my-bucket", "runs/2026-09"));
        assert!(parse("s3://my-bucket").unwrap_err().contains("no prefix"));
        assert!(parse("ftp://x/y").unwrap_err().contains("ftp://"));
    }
}
