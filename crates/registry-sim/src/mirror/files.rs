//! The mirror's answers for a file: HEAD, GET and Range (206, 416) with ETag and
//! Last-Modified, the faults drawn for each GET, and the bytes sent counted as they go.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use futures::stream::BoxStream;

use super::{MirrorCounters, MirrorState, facts, listing};

/// How much of its answer a GET sends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Send {
    Whole,
    /// Half, then the connection is reset.
    Cut,
    /// A quarter, then nothing while the connection stays open.
    Stall,
}

const CHUNK: usize = 64 * 1024;

/// A directory's Apache listing (not for the share's file paths), or a file.
pub(super) async fn file_or_listing(
    s: &Arc<MirrorState>,
    method: &Method,
    headers: &HeaderMap,
    url_path: &str,
    under_root: &str,
) -> Response {
    let disk = s.root.join(under_root);
    match tokio::fs::metadata(&disk).await {
        Ok(meta)
            if meta.is_dir()
                && !super::TOKEN_ROOTS.iter().chain(&["/public.php/"]).any(|r| url_path.starts_with(r)) =>
        {
            listing::apache(s, url_path, &disk).await
        }
        Ok(meta) if meta.is_file() => file(s, method, headers, under_root, &disk, &meta).await,
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

/// `bytes=A-` or `bytes=A-B`; `None` for anything else (answered whole, as Apache does).
fn range(headers: &HeaderMap) -> Option<(u64, Option<u64>)> {
    let spec = headers.get(header::RANGE)?.to_str().ok()?.strip_prefix("bytes=")?;
    let (a, b) = spec.split_once('-')?;
    let a = a.trim().parse().ok()?;
    let b = if b.trim().is_empty() { None } else { Some(b.trim().parse().ok()?) };
    Some((a, b))
}

async fn file(
    s: &Arc<MirrorState>,
    method: &Method,
    headers: &HeaderMap,
    key: &str,
    disk: &Path,
    meta: &std::fs::Metadata,
) -> Response {
    let f = facts(meta);
    let with_headers = |status: StatusCode| {
        Response::builder()
            .status(status)
            .header(header::ETAG, &f.etag)
            .header(header::LAST_MODIFIED, &f.last_modified)
            .header(header::ACCEPT_RANGES, "bytes")
            .header(header::CONTENT_TYPE, "application/zip")
    };
    if method == Method::HEAD {
        return with_headers(StatusCode::OK)
            .header(header::CONTENT_LENGTH, f.len)
            .body(Body::empty())
            .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response());
    }
    let faults = &s.faults;
    if s.counters.unavailable.fetch_add(1, Ordering::Relaxed) < faults.unavailable {
        return (StatusCode::SERVICE_UNAVAILABLE, [(header::RETRY_AFTER, "1")], "Service Unavailable")
            .into_response();
    }
    let nth_get = MirrorCounters::next(&s.counters.gets, key);
    let mut asked = range(headers);
    if asked.is_some() && faults.ignore_range && MirrorCounters::next(&s.counters.ranges, key) == 1 {
        asked = None;
    }
    let (status, start, end) = match asked {
        None => (StatusCode::OK, 0, f.len),
        Some((a, _)) if a >= f.len => {
            return (
                StatusCode::RANGE_NOT_SATISFIABLE,
                [(header::CONTENT_RANGE, format!("bytes */{}", f.len))],
            )
                .into_response();
        }
        Some((a, b)) => (StatusCode::PARTIAL_CONTENT, a, b.map_or(f.len, |b| (b + 1).min(f.len))),
    };
    let Ok(mut data) = tokio::fs::read(disk).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let name = key.rsplit('/').next().unwrap_or(key);
    if faults.bad_crc.as_deref() == Some(name) {
        spoil_crcs(&mut data);
    }
    let data = Bytes::from(data).slice(start as usize..end as usize);
    let send = if faults.cut && nth_get == 1 {
        Send::Cut
    } else if faults.stall && s.counters.stalled.fetch_add(1, Ordering::Relaxed) == 0 {
        Send::Stall
    } else {
        Send::Whole
    };
    let mut response = with_headers(status).header(header::CONTENT_LENGTH, end - start);
    if status == StatusCode::PARTIAL_CONTENT {
        response = response.header(header::CONTENT_RANGE, format!("bytes {start}-{}/{}", end - 1, f.len));
    }
    response
        .body(body(s.clone(), key.to_string(), data, send))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// `data` sent in chunks, each counted as it goes, as much of it as `send` says.
fn body(s: Arc<MirrorState>, key: String, data: Bytes, send: Send) -> Body {
    let stop = match send {
        Send::Whole => data.len(),
        Send::Cut => data.len() / 2,
        Send::Stall => data.len() / 4,
    };
    let chunks: Vec<Bytes> =
        (0..stop).step_by(CHUNK).map(|at| data.slice(at..(at + CHUNK).min(stop))).collect();
    let pace = s.faults.pace.filter(|p| *p > 0);
    let counted = futures::stream::iter(chunks).then(move |chunk| {
        let s = s.clone();
        let key = key.clone();
        async move {
            if let Some(per_second) = pace {
                tokio::time::sleep(Duration::from_secs_f64(chunk.len() as f64 / per_second as f64)).await;
            }
            s.counters.add_sent(&key, chunk.len() as u64);
            Ok::<Bytes, std::io::Error>(chunk)
        }
    });
    let tail: BoxStream<'static, Result<Bytes, std::io::Error>> = match send {
        Send::Whole => futures::stream::empty().boxed(),
        Send::Cut => futures::stream::once(async {
            Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "cut by the mirror"))
        })
        .boxed(),
        Send::Stall => futures::stream::pending().boxed(),
    };
    Body::from_stream(counted.chain(tail))
}

/// The CRC-32 the zip's directory states for each entry made wrong, the data left as it was:
/// an archive whose entries no longer match their checksums.
fn spoil_crcs(zip: &mut [u8]) {
    // A central directory header: its signature, then the CRC-32 at byte 16.
    const SIGNATURE: &[u8] = b"PK\x01\x02";
    let mut i = 0;
    while let Some(found) = zip[i..].windows(4).position(|w| w == SIGNATURE) {
        if let Some(byte) = zip.get_mut(i + found + 16) {
            *byte ^= 0xff;
        }
        i += found + 4;
    }
}
