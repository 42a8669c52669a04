//! The HTTP client for the registry service: one request in, one classified outcome out.
//!
//! It owns the wire: the `X-API-Key` header, status-code classification, body size limits and
//! JSON decoding. It does not retry, throttle or paginate; extract and `paginate` do that.

use std::net::IpAddr;
use std::time::{Duration, Instant, SystemTime};

use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};
use serde::de::DeserializeOwned;
use url::Url;

use super::error::ApiError;
use super::ids::Page;
use super::models::{DetailBody, Envelope, ValidationBody};
use super::operation::Operation;
use super::secret::ApiKey;

/// Why a client could not be built from its settings.
#[derive(Debug, thiserror::Error)]
pub enum ClientConfigError {
    #[error("--base-url {0:?} is not a URL: {1}; write it like https://host/ or http://127.0.0.1:8089")]
    BadUrl(String, url::ParseError),
    #[error("--base-url {0:?} must use http or https")]
    BadScheme(String),
    #[error(
        "--base-url {0:?} uses plain http to a host that is not this machine, which would send the API key \
         unencrypted; use https, or pass --allow-insecure-http if you really mean it"
    )]
    InsecureHttp(String),
    #[error("no API key: set REGISTRY_API_KEY or pass --api-key")]
    MissingKey,
    #[error("could not set up the HTTP client: {0}")]
    Http(String),
}

#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub base_url: String,
    pub api_key: ApiKey,
    /// Whole-request timeout, from connect to the last body byte.
    pub timeout: Duration,
    pub allow_insecure_http: bool,
    /// Larger bodies are refused rather than buffered: no list page of 100 records comes near it.
    pub max_body_bytes: u64,
}

impl ClientConfig {
    pub fn new(base_url: impl Into<String>, api_key: ApiKey) -> Self {
        Self {
            base_url: base_url.into(),
            api_key,
            timeout: Duration::from_secs(30),
            allow_insecure_http: false,
            max_body_bytes: 32 * 1024 * 1024,
        }
    }
}

/// A successful response's body and what it cost.
#[derive(Debug)]
pub struct RawBody {
    pub bytes: Vec<u8>,
    pub status: u16,
}

#[derive(Clone)]
pub struct RegistryClient {
    http: reqwest::Client,
    base: Url,
    timeout: Duration,
    max_body_bytes: u64,
    /// The key, to take out of what the service says back (a service echoing it in an error's
    /// detail would put it in the logs and the staging journal).
    key: ApiKey,
}

impl std::fmt::Debug for RegistryClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryClient").field("base", &self.base.as_str()).finish_non_exhaustive()
    }
}

/// What is wrong with sending secrets to `url`, if anything: a scheme other than http(s), or
/// plain http to another machine (unless `allow_insecure_http`). Shared by every client that
/// carries a key or a token: the registry's and the alerts' webhook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportProblem {
    NotHttp,
    InsecureHttp,
}

pub fn transport_problem(url: &Url, allow_insecure_http: bool) -> Option<TransportProblem> {
    match url.scheme() {
        "https" => None,
        "http" if is_loopback_host(url) || allow_insecure_http => None,
        "http" => Some(TransportProblem::InsecureHttp),
        _ => Some(TransportProblem::NotHttp),
    }
}

/// A reqwest client as every outgoing call of ours wants it: rustls with ring, our user agent,
/// the given timeout, and no redirect followed. reqwest strips only the standard credential
/// headers on a cross-host redirect, so a key header (or a webhook's body) would follow a 302
/// anywhere, even to plain http: a 3xx is reported instead.
pub fn http_client_builder(timeout: Duration) -> reqwest::ClientBuilder {
    // Another part of the process may have installed a provider first; either is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .user_agent(concat!("fiscal-report/", env!("CARGO_PKG_VERSION")))
        .timeout(timeout)
        .connect_timeout(Duration::from_secs(10).min(timeout))
        .redirect(reqwest::redirect::Policy::none())
}

fn is_loopback_host(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

impl RegistryClient {
    pub fn new(cfg: &ClientConfig) -> Result<Self, ClientConfigError> {
        let mut base =
            Url::parse(&cfg.base_url).map_err(|e| ClientConfigError::BadUrl(cfg.base_url.clone(), e))?;
        match transport_problem(&base, cfg.allow_insecure_http) {
            None => {}
            Some(TransportProblem::InsecureHttp) => {
                return Err(ClientConfigError::InsecureHttp(cfg.base_url.clone()));
            }
            Some(TransportProblem::NotHttp) => {
                return Err(ClientConfigError::BadScheme(cfg.base_url.clone()));
            }
        }
        if cfg.api_key.is_empty() {
            return Err(ClientConfigError::MissingKey);
        }
        // Paths are joined below the base, so `https://host/api` and `https://host/api/` agree.
        if !base.path().ends_with('/') {
            let p = format!("{}/", base.path());
            base.set_path(&p);
        }
        let mut key = HeaderValue::from_str(cfg.api_key.expose()).map_err(|_| {
            ClientConfigError::Http("the API key has characters not allowed in a header".into())
        })?;
        key.set_sensitive(true);
        let mut headers = HeaderMap::new();
        headers.insert("x-api-key", key);
        headers.insert(reqwest::header::ACCEPT, HeaderValue::from_static("application/json"));
        // The service describes no redirects (`docs/service-api.md` §5, §7): a 3xx is reported
        // with its Location (see `http_client_builder`).
        let http = http_client_builder(cfg.timeout)
            .default_headers(headers)
            .pool_max_idle_per_host(256)
            .build()
            .map_err(|e| ClientConfigError::Http(e.to_string()))?;
        Ok(Self {
            http,
            base,
            timeout: cfg.timeout,
            max_body_bytes: cfg.max_body_bytes,
            key: cfg.api_key.clone(),
        })
    }

    pub fn base_url(&self) -> &Url {
        &self.base
    }

    fn url_for(&self, op: &Operation, page: Option<Page>) -> Result<Url, ApiError> {
        let rel = op.path();
        let mut url = self.base.join(rel.trim_start_matches('/')).map_err(|e| ApiError::Connection {
            path: rel.clone(),
            reason: format!("cannot build the URL: {e}"),
        })?;
        {
            let mut q = url.query_pairs_mut();
            for (k, v) in op.query(page) {
                q.append_pair(k, &v);
            }
        }
        if url.query() == Some("") {
            url.set_query(None);
        }
        Ok(url)
    }

    /// Sends one request and returns the body of a 2xx answer; every other outcome is an `ApiError`.
    pub async fn get_raw(&self, op: &Operation, page: Option<Page>) -> Result<RawBody, ApiError> {
        let url = self.url_for(op, page)?;
        self.get_url(url).await
    }

    /// Like `get_raw` for a path and query given as text (`/v1/...?limite=0`): lets tests and
    /// `fiscal-report get --raw` send what client-side validation would refuse.
    pub async fn get_path(&self, path_and_query: &str) -> Result<RawBody, ApiError> {
        let url =
            self.base.join(path_and_query.trim_start_matches('/')).map_err(|e| ApiError::Connection {
                path: path_and_query.to_string(),
                reason: format!("cannot build the URL: {e}"),
            })?;
        self.get_url(url).await
    }

    async fn get_url(&self, url: Url) -> Result<RawBody, ApiError> {
        let path = match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_string(),
        };
        let started = Instant::now();
        let result = self.http.get(url).send().await;
        let resp = match result {
            Ok(r) => r,
            Err(e) => return Err(self.transport_error(&path, &e)),
        };
        let status = resp.status().as_u16();
        let retry_after = parse_retry_after(resp.headers());
        if (300..400).contains(&status) {
            let location = resp
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("(no Location header)")
                .to_string();
            return Err(ApiError::Redirected { status, path, location });
        }
        if let Some(len) = resp.content_length()
            && len > self.max_body_bytes
        {
            return Err(ApiError::BodyTooLarge { path, limit_mib: self.max_body_bytes / (1024 * 1024) });
        }
        let bytes = self.read_body(resp, &path).await?;
        tracing::debug!(
            target: "fiscal_report::http",
            path = %path,
            status,
            bytes = bytes.len(),
            ms = started.elapsed().as_millis() as u64,
            "response"
        );
        if (200..300).contains(&status) {
            return Ok(RawBody { bytes, status });
        }
        Err(self.without_key(classify_error(status, &path, &bytes, retry_after)))
    }

    /// `e` with the key, wherever the service's words hold it, shown as `<redacted>`.
    fn without_key(&self, e: ApiError) -> ApiError {
        let Some(key) = Some(self.key.expose()).filter(|k| !k.trim().is_empty()) else {
            return e;
        };
        let clean = |text: String| if text.contains(key) { text.replace(key, "<redacted>") } else { text };
        match e {
            ApiError::KeyRejected { status, detail } => {
                ApiError::KeyRejected { status, detail: clean(detail) }
            }
            ApiError::NotFound { path, detail } => ApiError::NotFound { path, detail: clean(detail) },
            ApiError::Refused { status, detail } => ApiError::Refused { status, detail: clean(detail) },
            ApiError::Server { status, path, detail, retry_after } => {
                ApiError::Server { status, path, detail: clean(detail), retry_after }
            }
            ApiError::Validation { status, issues } => ApiError::Validation {
                status,
                issues: issues
                    .into_iter()
                    .map(|mut i| {
                        i.msg = clean(i.msg);
                        if i.input.to_string().contains(key) {
                            i.input = serde_json::Value::String("<redacted>".into());
                        }
                        i
                    })
                    .collect(),
            },
            other => other,
        }
    }

    async fn read_body(&self, mut resp: reqwest::Response, path: &str) -> Result<Vec<u8>, ApiError> {
        let mut buf =
            Vec::with_capacity(resp.content_length().unwrap_or(8 * 1024).min(self.max_body_bytes) as usize);
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    if (buf.len() + chunk.len()) as u64 > self.max_body_bytes {
                        return Err(ApiError::BodyTooLarge {
                            path: path.to_string(),
                            limit_mib: self.max_body_bytes / (1024 * 1024),
                        });
                    }
                    buf.extend_from_slice(&chunk);
                }
                Ok(None) => return Ok(buf),
                Err(e) if e.is_timeout() => {
                    return Err(ApiError::Timeout { path: path.to_string(), after: self.timeout });
                }
                Err(e) => {
                    return Err(ApiError::CutOffBody { path: path.to_string(), reason: error_chain(&e) });
                }
            }
        }
    }

    fn transport_error(&self, path: &str, e: &reqwest::Error) -> ApiError {
        if e.is_timeout() {
            ApiError::Timeout { path: path.to_string(), after: self.timeout }
        } else {
            ApiError::Connection { path: path.to_string(), reason: error_chain(e) }
        }
    }

    /// One record (operations 1, 8, 13).
    pub async fn get_one<T: DeserializeOwned>(&self, op: &Operation) -> Result<T, ApiError> {
        let body = self.get_raw(op, None).await?;
        decode(&body.bytes, &op.path())
    }

    /// One page of a list operation.
    pub async fn get_page<T: DeserializeOwned>(
        &self,
        op: &Operation,
        page: Page,
    ) -> Result<Envelope<T>, ApiError> {
        let body = self.get_raw(op, Some(page)).await?;
        decode(&body.bytes, &op.path())
    }
}

/// Fields `docs/service-api.md` §2 types as integers; every other scalar field is a string.
const INTEGER_FIELDS: [&str; 6] =
    ["limite", "offset", "total", "quantidade_parcelas", "parte_arquivo", "input"];

/// Turns numbers and booleans into their text wherever `docs/service-api.md` §2 expects a string, so a
/// service that sends `1234.5` for `"1234.5"` is read, not rejected. Integer fields keep their
/// numbers.
fn coerce_scalars(v: &mut serde_json::Value, key: Option<&str>) {
    use serde_json::Value;
    match v {
        Value::Object(m) => m.iter_mut().for_each(|(k, x)| coerce_scalars(x, Some(k))),
        Value::Array(a) => a.iter_mut().for_each(|x| coerce_scalars(x, key)),
        Value::Number(_) | Value::Bool(_) if !key.is_some_and(|k| INTEGER_FIELDS.contains(&k)) => {
            *v = Value::String(v.to_string());
        }
        _ => {}
    }
}

/// Decodes a success body, telling a cut-off body from one that is not the expected JSON.
pub fn decode<T: DeserializeOwned>(bytes: &[u8], path: &str) -> Result<T, ApiError> {
    let first = match serde_json::from_slice(bytes) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    if first.is_eof() {
        return Err(ApiError::CutOffBody {
            path: path.to_string(),
            reason: format!("JSON ends early ({first})"),
        });
    }
    // Valid JSON of a looser shape than `docs/service-api.md` §2 gives: try again with scalars as text.
    if first.is_data()
        && let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(bytes)
    {
        coerce_scalars(&mut value, None);
        if let Ok(v) = serde_json::from_value(value) {
            return Ok(v);
        }
    }
    Err(ApiError::InvalidBody { path: path.to_string(), reason: first.to_string(), excerpt: excerpt(bytes) })
}

fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(120)]);
    text.chars().filter(|c| !c.is_control()).collect()
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        src = inner.source();
    }
    s
}

/// `Retry-After` as seconds or an HTTP date (RFC 9110 10.2.3).
pub fn parse_retry_after(headers: &HeaderMap) -> Option<Duration> {
    let v = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(v).ok()?;
    Some(when.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO))
}

/// Maps a non-2xx answer to its error, whatever the body holds (JSON of either shape, or not).
pub fn classify_error(status: u16, path: &str, body: &[u8], retry_after: Option<Duration>) -> ApiError {
    let validation = serde_json::from_slice::<ValidationBody>(body).ok();
    let detail = serde_json::from_slice::<DetailBody>(body)
        .map(|d| d.detail)
        .unwrap_or_else(|_| if body.is_empty() { "(empty body)".to_string() } else { excerpt(body) });
    match status {
        401 | 403 => ApiError::KeyRejected { status, detail },
        404 => ApiError::NotFound { path: path.to_string(), detail },
        429 => ApiError::RateLimited { retry_after },
        500..=599 => {
            let retry_after = retry_after.filter(|_| status == 503);
            ApiError::Server { status, path: path.to_string(), detail, retry_after }
        }
        _ => match validation {
            Some(v) => ApiError::Validation { status, issues: v.detail },
            None => ApiError::Refused { status, detail },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_the_service_echoes_is_taken_out_of_its_words() {
        let key = ApiKey::new("super-secret-key-123");
        let client = RegistryClient::new(&ClientConfig::new("http://127.0.0.1:1", key)).unwrap();
        let body = br#"{"detail":"key super-secret-key-123 is not valid"}"#;
        let e = client.without_key(classify_error(401, "/x", body, None)).to_string();
        assert!(e.contains("key <redacted> is not valid") && !e.contains("super-secret"), "{e}");
        let body = br#"{"detail":[{"loc":["query"],"msg":"bad super-secret-key-123","type":"x","input":"super-secret-key-123"}]}"#;
        let e = client.without_key(classify_error(422, "/x", body, None));
        assert!(!format!("{e} {e:?}").contains("super-secret"), "{e:?}");
    }

    #[test]
    fn classifies_every_status_and_body_shape() {
        let v = br#"{"detail":[{"loc":["query","limite"],"msg":"too big","type":"less_than_equal","input":"101","ctx":{"le":100}}]}"#;
        match classify_error(422, "/x", v, None) {
            ApiError::Validation { issues, .. } => assert_eq!(issues[0].location(), "query.limite"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            classify_error(401, "/x", br#"{"detail":"no"}"#, None),
            ApiError::KeyRejected { .. }
        ));
        assert!(matches!(classify_error(403, "/x", b"<html>", None), ApiError::KeyRejected { .. }));
        assert!(matches!(classify_error(404, "/x", b"", None), ApiError::NotFound { .. }));
        assert!(matches!(classify_error(400, "/x", b"oops", None), ApiError::Refused { status: 400, .. }));
        assert!(matches!(classify_error(503, "/x", b"<html>", None), ApiError::Server { status: 503, .. }));
        let wait = Some(Duration::from_secs(7));
        let e = classify_error(503, "/x", b"", wait);
        assert!(e.is_refusal() && e.retry_after() == wait, "a 503 is a refusal with its wait: {e:?}");
        let e = classify_error(500, "/x", b"", wait);
        assert!(!e.is_refusal() && e.retry_after().is_none(), "a 500 is a fault: {e:?}");
        let e = classify_error(429, "/x", b"", Some(Duration::from_secs(3)));
        assert_eq!(e.retry_after(), Some(Duration::from_secs(3)));
        assert!(e.is_retryable());
    }

    #[test]
    fn decode_tells_cut_off_from_garbage() {
        #[derive(serde::Deserialize, Debug)]
        struct X {
            #[allow(dead_code)]
            a: u8,
        }
        assert!(matches!(decode::<X>(br#"{"a": 1"#, "/p"), Err(ApiError::CutOffBody { .. })));
        assert!(matches!(decode::<X>(b"<html></html>", "/p"), Err(ApiError::InvalidBody { .. })));
    }

    #[test]
    fn retry_after_seconds_and_date() {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(parse_retry_after(&h), Some(Duration::from_secs(7)));
        let later = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(30));
        h.insert(RETRY_AFTER, HeaderValue::from_str(&later).unwrap());
        let d = parse_retry_after(&h).unwrap();
        assert!(d > Duration::from_secs(25) && d <= Duration::from_secs(30), "{d:?}");
    }

    #[test]
    fn plain_http_only_to_loopback() {
        let key = ApiKey::new("k");
        assert!(RegistryClient::new(&ClientConfig::new("http://127.0.0.1:1", key.clone())).is_ok());
        assert!(RegistryClient::new(&ClientConfig::new("http://localhost:1", key.clone())).is_ok());
        let e = RegistryClient::new(&ClientConfig::new("http://example.org", key.clone())).unwrap_err();
        assert!(matches!(e, ClientConfigError::InsecureHttp(_)));
        let mut cfg = ClientConfig::new("http://example.org", key.clone());
        cfg.allow_insecure_http = true;
        assert!(RegistryClient::new(&cfg).is_ok());
        assert!(matches!(
            RegistryClient::new(&ClientConfig::new("not a url", key)).unwrap_err(),
            ClientConfigError::BadUrl(..)
        ));
    }
}
