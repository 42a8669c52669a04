//! What can go wrong talking to the registry service, classified so callers can decide:
//! retry (rate limited, server fault, timeout, reset, cut-off body), record and go on (not
//! found), or stop (key rejected, request refused as invalid).
//!
//! Texts never contain the API key: the key travels in a header, which no variant holds.

use std::time::Duration;

use super::ids::InvalidInput;
use super::models::ValidationIssue;

/// The environment variable that carries the key; named in the "key rejected" message.
pub const API_KEY_ENV: &str = "REGISTRY_API_KEY";

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("invalid request, not sent: {0}")]
    InvalidInput(#[from] InvalidInput),

    #[error(
        "the service rejected the API key (HTTP {status}: {detail}); set {API_KEY_ENV} or pass --api-key with a valid key"
    )]
    KeyRejected { status: u16, detail: String },

    #[error("not found (HTTP 404) at {path}: {detail}")]
    NotFound { path: String, detail: String },

    #[error("the service refused the request as invalid (HTTP {status}): {}", render_issues(.issues))]
    Validation { status: u16, issues: Vec<ValidationIssue> },

    #[error("the service refused the request (HTTP {status}): {detail}")]
    Refused { status: u16, detail: String },

    #[error(
        "the service redirected {path} (HTTP {status}) to {location}; redirects are not followed, so the key \
         is never sent to another address: set --base-url to the address that answers"
    )]
    Redirected { status: u16, path: String, location: String },

    #[error("rate limited (HTTP 429){}", .retry_after.map(|d| format!(", Retry-After {}s", d.as_secs())).unwrap_or_default())]
    RateLimited { retry_after: Option<Duration> },

    /// `retry_after`: a 503's Retry-After (RFC 9110 section 10.2.3), which gateways send with
    /// their rate limit too.
    #[error("server error (HTTP {status}) at {path}: {detail}")]
    Server { status: u16, path: String, detail: String, retry_after: Option<Duration> },

    #[error("timed out after {}s waiting for {path}", .after.as_secs_f32())]
    Timeout { path: String, after: Duration },

    #[error("connection failed for {path}: {reason}")]
    Connection { path: String, reason: String },

    #[error("the response body for {path} was cut off: {reason}")]
    CutOffBody { path: String, reason: String },

    #[error("the response body for {path} is not the expected JSON ({reason}); it starts with {excerpt:?}")]
    InvalidBody { path: String, reason: String, excerpt: String },

    #[error("the response body for {path} is larger than the {limit_mib} MiB limit")]
    BodyTooLarge { path: String, limit_mib: u64 },

    #[error("{what}: the list could not be read whole: {detail}")]
    IncompleteList { what: String, detail: String },
}

fn render_issues(issues: &[ValidationIssue]) -> String {
    if issues.is_empty() {
        return "no details given".to_string();
    }
    issues.iter().map(|i| format!("{}: {}", i.location(), i.msg)).collect::<Vec<_>>().join("; ")
}

impl ApiError {
    /// Faults worth another attempt: the service or the network may do better next time.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. }
                | Self::Server { .. }
                | Self::Timeout { .. }
                | Self::Connection { .. }
                | Self::CutOffBody { .. }
                | Self::InvalidBody { .. }
                | Self::IncompleteList { .. }
        )
    }

    /// A refusal: 429, or 503, which gateways answer for their rate limit too. It says to come
    /// back later, not that the service failed.
    pub fn is_refusal(&self) -> bool {
        matches!(self, Self::RateLimited { .. } | Self::Server { status: 503, .. })
    }

    /// The wait the service asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::RateLimited { retry_after } | Self::Server { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// A short label for accounting: `429`, `500`, `timeout`, `reset`, ...
    pub fn label(&self) -> String {
        match self {
            Self::InvalidInput(_) => "invalid-input".into(),
            Self::KeyRejected { status, .. }
            | Self::Validation { status, .. }
            | Self::Refused { status, .. }
            | Self::Redirected { status, .. }
            | Self::Server { status, .. } => status.to_string(),
            Self::NotFound { .. } => "404".into(),
            Self::RateLimited { .. } => "429".into(),
            Self::Timeout { .. } => "timeout".into(),
            Self::Connection { .. } => "connection".into(),
            Self::CutOffBody { .. } => "cut-off-body".into(),
            Self::InvalidBody { .. } => "invalid-body".into(),
            Self::BodyTooLarge { .. } => "body-too-large".into(),
            Self::IncompleteList { .. } => "incomplete-list".into(),
        }
    }
}
