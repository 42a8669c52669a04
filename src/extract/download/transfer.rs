//! Moving a file's bytes politely, each handed to its checks as it arrives (`verify`):
//! `NAME.part` resumed with Range (a 416, a 200 to a Range
//! request and a Content-Range that does not match each restart it cleanly), a transfer with no
//! byte for the stall time cut and resumed, retries that count only when no byte arrived,
//! Retry-After honoured on 429 and 503, and few transfers at once to a host, fewer after
//! repeated stalls.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header;
use tokio::io::AsyncWriteExt;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::progress::FileBar;
use super::verify::Checking;
use super::{Access, DownloadError, Remote, write_error};

/// Tries in a row that received no byte before a file, or a listing, is given up.
pub(super) const TRIES: u32 = 8;

/// The wait before try `n` (1-based) after one that got nothing: a full-jitter draw below 0.5 s
/// doubling, at most 2 min, as the service fetch waits, so stalled downloads do not retry in step.
pub(super) fn backoff(n: u32) -> Duration {
    crate::extract::pool::full_jitter_wait(
        Duration::from_millis(500),
        Duration::from_secs(120),
        n.saturating_sub(1),
    )
}

/// The client: our User-Agent, no redirect followed, no overall time limit (a release's file
/// takes as long as it takes; stalls are watched byte by byte).
pub(super) fn client() -> reqwest::Client {
    crate::api::client::http_client_builder(Duration::from_secs(7 * 24 * 3600))
        .build()
        .unwrap_or_else(|_| reqwest::Client::new())
}

/// What CGU's servers are told the client is: the form crawlers use (`Mozilla/5.0
/// (compatible; …)`), which they accept, with this program's true name in it.
pub(super) const BROWSER_AGENT: &str =
    concat!("Mozilla/5.0 (compatible; fiscal-report/", env!("CARGO_PKG_VERSION"), ")");

/// `request` with what `access` asks added: the share's token, or a browser's introduction.
pub(super) fn with_access(request: reqwest::RequestBuilder, access: &Access) -> reqwest::RequestBuilder {
    match access {
        Access::Plain => request,
        Access::Share(token) => request.basic_auth(token, Some("")),
        Access::Browser { referer } => {
            request.header(header::USER_AGENT, BROWSER_AGENT).header(header::REFERER, referer.as_str())
        }
    }
}

/// A transport error said plainly: reqwest's own text, and its cause's.
pub(super) fn describe(e: &reqwest::Error) -> String {
    match std::error::Error::source(e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    crate::api::client::parse_retry_after(response.headers()).map(|d| d.min(Duration::from_secs(300)))
}

fn header_text(response: &reqwest::Response, name: header::HeaderName) -> Option<String> {
    response.headers().get(name).and_then(|v| v.to_str().ok()).map(String::from)
}

fn content_length(response: &reqwest::Response) -> Option<u64> {
    header_text(response, header::CONTENT_LENGTH).and_then(|v| v.trim().parse().ok())
}

/// What a HEAD's answer says of `remote`: its size, ETag and Last-Modified.
pub(super) fn take_facts(remote: &mut Remote, response: &reqwest::Response) {
    remote.size = content_length(response);
    remote.etag = header_text(response, header::ETAG);
    remote.last_modified = header_text(response, header::LAST_MODIFIED);
}

/// `bytes A-B/T` as (A, T).
fn content_range(response: &reqwest::Response) -> Option<(u64, u64)> {
    let text = header_text(response, header::CONTENT_RANGE)?;
    let (range, total) = text.strip_prefix("bytes ")?.split_once('/')?;
    let (start, _) = range.split_once('-')?;
    Some((start.trim().parse().ok()?, total.trim().parse().ok()?))
}

/// One host's transfers at once: a few, one fewer after every second stall, down to one.
struct Gate {
    permits: Arc<Semaphore>,
    limit: AtomicUsize,
    stalls: AtomicUsize,
}

/// What one try of a transfer came to.
enum Try {
    /// Bytes received (maybe none), and why it stopped short, if it did.
    Got(u64, Option<String>),
    /// Refused for now: wait this long (Retry-After, else the backoff).
    Wait(Option<Duration>, String),
}

pub(super) struct Transfer<'a> {
    http: &'a reqwest::Client,
    stall: Duration,
    per_host: usize,
    gates: Mutex<HashMap<String, Arc<Gate>>>,
}

impl<'a> Transfer<'a> {
    pub(super) fn new(http: &'a reqwest::Client, stall: Duration, per_host: usize) -> Self {
        Self { http, stall, per_host: per_host.max(1), gates: Mutex::new(HashMap::new()) }
    }

    fn gate(&self, url: &url::Url) -> Arc<Gate> {
        let host = format!("{}:{}", url.host_str().unwrap_or(""), url.port_or_known_default().unwrap_or(0));
        let mut gates = self.gates.lock().unwrap_or_else(|p| p.into_inner());
        gates
            .entry(host)
            .or_insert_with(|| {
                Arc::new(Gate {
                    permits: Arc::new(Semaphore::new(self.per_host)),
                    limit: AtomicUsize::new(self.per_host),
                    stalls: AtomicUsize::new(0),
                })
            })
            .clone()
    }

    async fn permit(&self, url: &url::Url) -> Option<OwnedSemaphorePermit> {
        self.gate(url).permits.clone().acquire_owned().await.ok()
    }

    /// A stall on `url`'s host: every second one takes a transfer slot away, down to one.
    fn stalled(&self, url: &url::Url) {
        let gate = self.gate(url);
        let stalls = gate.stalls.fetch_add(1, Ordering::Relaxed) + 1;
        if stalls.is_multiple_of(2) && gate.limit.load(Ordering::Relaxed) > 1 {
            gate.limit.fetch_sub(1, Ordering::Relaxed);
            tracing::info!(
                host = url.host_str().unwrap_or(""),
                "repeated stalls: one transfer fewer at once"
            );
            let permits = gate.permits.clone();
            tokio::spawn(async move {
                if let Ok(p) = permits.acquire_owned().await {
                    p.forget();
                }
            });
        }
    }

    fn request(&self, method: reqwest::Method, remote: &Remote) -> reqwest::RequestBuilder {
        with_access(self.http.request(method, remote.url.clone()), &remote.access)
    }

    /// The file's size, ETag and Last-Modified from a HEAD (an Apache listing gives no exact size).
    pub(super) async fn head(&self, remote: &mut Remote) -> Result<(), DownloadError> {
        let mut last = String::new();
        for n in 1..=TRIES {
            let permit = self.permit(&remote.url).await;
            let answer =
                tokio::time::timeout(self.stall, self.request(reqwest::Method::HEAD, remote).send()).await;
            drop(permit);
            let wait = match answer {
                Ok(Ok(r)) if r.status().is_success() => {
                    if content_length(&r).is_none() {
                        return Err(DownloadError::Layout {
                            url: remote.url.to_string(),
                            problem: "HEAD answered with no Content-Length".into(),
                            expected: "the file's size".into(),
                        });
                    }
                    take_facts(remote, &r);
                    return Ok(());
                }
                Ok(Ok(r)) if r.status().as_u16() == 429 || r.status().is_server_error() => {
                    last = format!("answered {}", r.status().as_u16());
                    retry_after(&r)
                }
                Ok(Ok(r)) => return Err(gone(remote, r.status().as_u16())),
                Ok(Err(e)) => {
                    last = describe(&e);
                    None
                }
                Err(_) => {
                    last = format!("no answer within {} s", self.stall.as_secs());
                    None
                }
            };
            tokio::time::sleep(wait.unwrap_or_else(|| backoff(n))).await;
        }
        Err(DownloadError::Unreachable { url: remote.url.to_string(), why: last, tries: TRIES })
    }

    /// `remote` into `part` until it holds `size` bytes: the bytes received.
    /// `checking` is given every byte of `part` in order, made anew (and fed what `part` holds)
    /// when it has not seen exactly that.
    pub(super) async fn fetch(
        &self,
        remote: &Remote,
        part: &Path,
        size: u64,
        bar: &FileBar<'_>,
        checking: &mut Option<Checking>,
    ) -> Result<u64, DownloadError> {
        let (mut received, mut empty_tries) = (0, 0);
        loop {
            let have = std::fs::metadata(part).map_or(0, |m| m.len());
            if have == size {
                return Ok(received);
            }
            if have > size {
                truncate(part)?;
                continue;
            }
            let checks = match &mut *checking {
                Some(seen) if seen.fed() == have => seen,
                slot => {
                    let fresh = slot.insert(Checking::start(remote.name()));
                    fresh.feed_prefix(part, have).await.map_err(write_error(part))?;
                    fresh
                }
            };
            let permit = self.permit(&remote.url).await;
            let outcome = self.try_once(remote, part, have, size, bar, checks).await?;
            drop(permit);
            let (got, why, wait) = match outcome {
                Try::Got(n, why) => (n, why, None),
                Try::Wait(wait, why) => (0, Some(why), wait),
            };
            received += got;
            if got > 0 {
                empty_tries = 0;
                if let Some(why) = why {
                    tracing::info!(file = %remote.rel, at = have + got, "{why}: resuming");
                }
                continue;
            }
            empty_tries += 1;
            let why = why.unwrap_or_else(|| "the answer ended with no byte".into());
            if empty_tries >= TRIES {
                return Err(DownloadError::Unreachable { url: remote.url.to_string(), why, tries: TRIES });
            }
            tracing::info!(file = %remote.rel, tries = empty_tries, "{why}: trying again");
            tokio::time::sleep(wait.unwrap_or_else(|| backoff(empty_tries))).await;
        }
    }

    /// One request for the rest of the file, its body appended to `part` (or written anew).
    async fn try_once(
        &self,
        remote: &Remote,
        part: &Path,
        have: u64,
        size: u64,
        bar: &FileBar<'_>,
        checking: &mut Checking,
    ) -> Result<Try, DownloadError> {
        let mut request = self.request(reqwest::Method::GET, remote);
        if have > 0 {
            request = request.header(header::RANGE, format!("bytes={have}-"));
        }
        let mut response = match tokio::time::timeout(self.stall, request.send()).await {
            Err(_) => {
                self.stalled(&remote.url);
                return Ok(Try::Got(0, Some(format!("no answer within {} s", self.stall.as_secs()))));
            }
            Ok(Err(e)) => return Ok(Try::Got(0, Some(describe(&e)))),
            Ok(Ok(r)) => r,
        };
        let status = response.status().as_u16();
        let restart = match status {
            200 => {
                if let Some(length) = content_length(&response).filter(|l| *l != size) {
                    return Err(DownloadError::Check {
                        file: remote.rel.clone(),
                        url: remote.url.to_string(),
                        what: format!(
                            "the server sends {length} bytes (Content-Length), its listing says {size}"
                        ),
                    });
                }
                // A server that ignored the Range: the whole file again, from its first byte.
                have > 0
            }
            206 => match content_range(&response) {
                Some((start, total)) if start == have && total == size => false,
                other => {
                    truncate(part)?;
                    return Ok(Try::Got(
                        0,
                        Some(format!("Content-Range {other:?} does not continue byte {have} of {size}")),
                    ));
                }
            },
            416 => {
                truncate(part)?;
                return Ok(Try::Got(0, Some(format!("416 for a Range from byte {have} of {size}"))));
            }
            429 | 503 => return Ok(Try::Wait(retry_after(&response), format!("answered {status}"))),
            s if s >= 500 => return Ok(Try::Wait(None, format!("answered {s}"))),
            s => return Err(gone(remote, s)),
        };
        let mut file = if restart {
            tokio::fs::File::create(part).await
        } else {
            tokio::fs::OpenOptions::new().create(true).append(true).open(part).await
        }
        .map_err(write_error(part))?;
        let start = if restart { 0 } else { have };
        if restart {
            *checking = Checking::start(remote.name());
        }
        let mut got = 0u64;
        let stopped = loop {
            match tokio::time::timeout(self.stall, response.chunk()).await {
                Err(_) => {
                    self.stalled(&remote.url);
                    break Some(format!("no byte for {} s", self.stall.as_secs()));
                }
                Ok(Err(e)) => break Some(describe(&e)),
                Ok(Ok(None)) => break None,
                Ok(Ok(Some(bytes))) => {
                    if start + got + bytes.len() as u64 > size {
                        drop(file);
                        truncate(part)?;
                        return Ok(Try::Got(
                            0,
                            Some(format!("the server sent more than the {size} bytes listed")),
                        ));
                    }
                    file.write_all(&bytes).await.map_err(write_error(part))?;
                    got += bytes.len() as u64;
                    bar.at(start + got);
                    checking.feed(bytes).await;
                }
            }
        };
        file.flush().await.map_err(write_error(part))?;
        Ok(Try::Got(got, stopped))
    }
}

/// A file the listing named that its server refuses or no longer has.
fn gone(remote: &Remote, status: u16) -> DownloadError {
    DownloadError::Layout {
        url: remote.url.to_string(),
        problem: format!("answered {status}"),
        expected: "the file its listing names".into(),
    }
}

fn truncate(part: &Path) -> Result<(), DownloadError> {
    match std::fs::File::create(part) {
        Ok(_) => Ok(()),
        Err(e) => Err(write_error(part)(e)),
    }
}
