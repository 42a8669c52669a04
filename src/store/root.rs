//! Where a store lives: a local directory or a bucket prefix (`--store s3://bucket/prefix`,
//! `gs://`, `az://`). It owns the store's plain files (layout, run records, lock), reads the
//! tables' data files, and gives each Delta table its URL; the tables' commits are delta-rs's.
//!
//! A local store is locked with an OS file lock (released when the process dies). A bucket has
//! no such thing: its lock is a `.lock` object created only if absent (one writer wins), naming
//! who holds it, and deleted when the run ends; one left by a killed run is named in the error
//! with how to remove it. The lock keeps two runs from interleaving their table commits; each
//! commit is atomic on its own either way (put-if-absent, see `crate::bucket`).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStoreExt, PutMode, PutOptions, PutPayload};

use crate::bucket::{Failure, Prefix};

use super::StoreError;

/// The store's location.
#[derive(Clone)]
pub enum StoreRoot {
    Local(PathBuf),
    Bucket(Arc<Prefix>),
}

impl std::fmt::Display for StoreRoot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Local(dir) => write!(f, "{}", dir.display()),
            Self::Bucket(b) => f.write_str(&b.url),
        }
    }
}

impl std::fmt::Debug for StoreRoot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StoreRoot({self})")
    }
}

impl StoreRoot {
    /// Where the store is, from any folder: a local directory made absolute (a run's manifest
    /// names its store for a re-render that may start elsewhere), or the bucket's URL.
    pub fn from_anywhere(&self) -> String {
        match self {
            Self::Local(dir) => {
                std::path::absolute(dir).unwrap_or_else(|_| dir.clone()).display().to_string()
            }
            Self::Bucket(b) => b.url.clone(),
        }
    }

    /// `--store`'s value: a directory, or a bucket URL.
    pub fn new(location: &Path) -> Result<Self, StoreError> {
        if !crate::bucket::is_remote(location) {
            return Ok(Self::Local(location.to_path_buf()));
        }
        let text = location.to_string_lossy();
        let at = Prefix::open(&text)
            .map_err(|message| StoreError::BucketUrl { url: text.to_string(), message })?;
        crate::bucket::register_with_delta();
        Ok(Self::Bucket(Arc::new(at)))
    }

    /// A path of the store, for messages: the local path, or the object's URL.
    pub fn path_of(&self, rel: &str) -> PathBuf {
        match self {
            Self::Local(dir) => dir.join(rel),
            Self::Bucket(b) => PathBuf::from(format!("{}/{rel}", b.url)),
        }
    }

    /// The URL of table `name` (a directory URL: delta-rs joins paths onto it).
    pub fn table_url(&self, name: &str) -> Result<url::Url, StoreError> {
        match self {
            Self::Local(dir) => {
                let abs = std::path::absolute(dir.join(name)).map_err(|e| StoreError::io(dir, e))?;
                url::Url::from_directory_path(&abs).map_err(|()| StoreError::Delta {
                    table: name.to_string(),
                    message: format!("{} is not a usable path", abs.display()),
                })
            }
            Self::Bucket(b) => b
                .dir_url
                .join(&format!("{name}/"))
                .map_err(|e| StoreError::Delta { table: name.to_string(), message: e.to_string() }),
        }
    }

    /// The bytes of `rel`, `None` when it does not exist.
    pub async fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, StoreError> {
        match self {
            Self::Local(dir) => match std::fs::read(dir.join(rel)) {
                Ok(b) => Ok(Some(b)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(StoreError::io(&dir.join(rel), e)),
            },
            Self::Bucket(b) => match b.store.get(&b.key(rel)).await {
                Ok(r) => Ok(Some(r.bytes().await.map_err(|e| bucket_error(b, &e))?.to_vec())),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(bucket_error(b, &e)),
            },
        }
    }

    /// Writes `rel` whole: a reader sees the old content or the new one, never a part.
    pub async fn write(&self, rel: &str, bytes: Vec<u8>) -> Result<(), StoreError> {
        match self {
            Self::Local(dir) => {
                let path = dir.join(rel);
                crate::fsutil::write_atomic(&path, &bytes).map_err(|e| StoreError::io(&path, e))
            }
            Self::Bucket(b) => b
                .store
                .put(&b.key(rel), PutPayload::from(bytes))
                .await
                .map(drop)
                .map_err(|e| bucket_error(b, &e)),
        }
    }

    /// The names of the files directly in `rel_dir` (none when it does not exist).
    pub async fn list(&self, rel_dir: &str) -> Result<Vec<String>, StoreError> {
        match self {
            Self::Local(dir) => {
                let path = dir.join(rel_dir);
                match std::fs::read_dir(&path) {
                    Ok(entries) => Ok(entries
                        .filter_map(Result::ok)
                        .filter(|e| e.path().is_file())
                        .map(|e| e.file_name().to_string_lossy().to_string())
                        .collect()),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
                    Err(e) => Err(StoreError::io(&path, e)),
                }
            }
            Self::Bucket(b) => {
                let listed = b
                    .store
                    .list_with_delimiter(Some(&b.key(rel_dir)))
                    .await
                    .map_err(|e| bucket_error(b, &e))?;
                Ok(listed.objects.iter().filter_map(|o| o.location.filename().map(str::to_string)).collect())
            }
        }
    }

    /// Whether anything but `except` is at the store's root (a folder that is not a store).
    pub async fn holds_other_than(&self, except: &str) -> Result<bool, StoreError> {
        match self {
            Self::Local(dir) => Ok(std::fs::read_dir(dir)
                .map_err(|e| StoreError::io(dir, e))?
                .filter_map(Result::ok)
                .any(|e| e.file_name() != except)),
            Self::Bucket(b) => {
                let listed =
                    b.store.list_with_delimiter(Some(&b.path)).await.map_err(|e| bucket_error(b, &e))?;
                Ok(!listed.common_prefixes.is_empty()
                    || listed.objects.iter().any(|o| o.location.filename() != Some(except)))
            }
        }
    }

    /// Whether `rel_dir` holds anything (a table's `_delta_log`).
    pub async fn has_dir(&self, rel_dir: &str) -> Result<bool, StoreError> {
        match self {
            Self::Local(dir) => Ok(dir.join(rel_dir).is_dir()),
            Self::Bucket(b) => {
                let key = b.key(rel_dir);
                let first = b.store.list(Some(&key)).try_next().await.map_err(|e| bucket_error(b, &e))?;
                Ok(first.is_some())
            }
        }
    }

    /// Takes the store's lock for this process.
    pub async fn lock(&self) -> Result<StoreLock, StoreError> {
        match self {
            Self::Local(root) => {
                std::fs::create_dir_all(root).map_err(|e| StoreError::io(root, e))?;
                let lock_path = root.join(".lock");
                let lock = File::options()
                    .create(true)
                    .truncate(false)
                    .write(true)
                    .open(&lock_path)
                    .map_err(|e| StoreError::io(&lock_path, e))?;
                match lock.try_lock() {
                    Ok(()) => Ok(StoreLock::File(lock)),
                    Err(std::fs::TryLockError::WouldBlock) => Err(StoreError::Busy { dir: root.clone() }),
                    Err(std::fs::TryLockError::Error(e)) => Err(StoreError::io(&lock_path, e)),
                }
            }
            Self::Bucket(b) => {
                let holder = serde_json::json!({
                    "host": hostname(),
                    "pid": std::process::id(),
                    "since": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                });
                let opts = PutOptions { mode: PutMode::Create, ..Default::default() };
                let key = b.key(".lock");
                match b.store.put_opts(&key, PutPayload::from(holder.to_string().into_bytes()), opts).await {
                    Ok(_) => Ok(StoreLock::Bucket { root: b.clone(), key }),
                    Err(object_store::Error::AlreadyExists { .. }) => {
                        let held = match b.store.get(&key).await {
                            Ok(r) => r
                                .bytes()
                                .await
                                .map(|x| String::from_utf8_lossy(&x).to_string())
                                .unwrap_or_default(),
                            Err(_) => String::new(),
                        };
                        Err(StoreError::BucketBusy { url: b.url.clone(), holder: held })
                    }
                    Err(e) => Err(bucket_error(b, &e)),
                }
            }
        }
    }
}

fn hostname() -> String {
    crate::environment::host_name()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok().map(|h| h.trim().to_string()))
        .unwrap_or_else(|| "?".into())
}

/// What `e`, met on the store's bucket, means.
fn bucket_error(at: &Prefix, e: &object_store::Error) -> StoreError {
    let url = at.url.clone();
    match crate::bucket::failure(e) {
        (Failure::Missing | Failure::Refused, message) => StoreError::BucketRefused { url, message },
        (Failure::Unreachable, message) => StoreError::BucketUnreachable { url, message },
    }
}

/// The store's lock, held while it lives.
pub enum StoreLock {
    File(#[allow(dead_code)] File),
    Bucket { root: Arc<Prefix>, key: ObjectPath },
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        let Self::Bucket { root, key } = self else { return };
        // Dropped from async code (the end of a command): the delete must finish before the
        // process exits, so it blocks this worker while another drives the I/O.
        let Ok(handle) = tokio::runtime::Handle::try_current() else { return };
        if handle.runtime_flavor() != tokio::runtime::RuntimeFlavor::MultiThread {
            tracing::warn!(
                "the store lock {}/.lock was left in place; delete it before the next run",
                root.url
            );
            return;
        }
        let (store, key) = (root.store.clone(), key.clone());
        if let Err(e) = tokio::task::block_in_place(|| handle.block_on(store.delete(&key))) {
            tracing::warn!(
                "could not delete the store lock {}/.lock ({e}); delete it before the next run",
                root.url
            );
        }
    }
}
