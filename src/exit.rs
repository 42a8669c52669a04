//! The process exit codes (documented in README, stable for schedulers) and the one place
//! that turns an error chain into the code and the words a person reads.

use crate::api::{ApiError, ClientConfigError, InvalidInput};
use crate::extract::portfolio::PortfolioError;
use crate::extract::runner::FetchError;
use crate::extract::staging::StagingError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Ok = 0,
    /// Bad flags, config, portfolio file or other input: fix the input.
    BadInput = 2,
    /// The service refused the API key.
    KeyRejected = 3,
    /// The run finished, but some tasks failed after their retries: alert and `--resume`.
    PartialFailure = 4,
    /// A lookup (`get`) found no such record.
    NotFound = 5,
    /// The service could not be reached or kept failing.
    ServiceUnavailable = 6,
    /// Interrupted (Ctrl-C / SIGTERM); `--resume` continues.
    Interrupted = 130,
    /// A bug: please report it.
    Internal = 70,
}

/// An error that already knows its exit status (raised by the stages for run-level outcomes).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Classified {
    pub status: ExitStatus,
    pub message: String,
}

impl Classified {
    pub fn new(status: ExitStatus, message: impl Into<String>) -> Self {
        Self { status, message: message.into() }
    }
}

/// The exit status for an error chain: the first cause that says what kind of failure it is.
pub fn classify(err: &anyhow::Error) -> ExitStatus {
    for cause in err.chain() {
        if let Some(c) = cause.downcast_ref::<Classified>() {
            return c.status;
        }
        if let Some(api) = cause.downcast_ref::<ApiError>() {
            return match api {
                ApiError::InvalidInput(_) | ApiError::Validation { .. } | ApiError::Refused { .. } => {
                    ExitStatus::BadInput
                }
                ApiError::KeyRejected { .. } => ExitStatus::KeyRejected,
                ApiError::NotFound { .. } => ExitStatus::NotFound,
                _ => ExitStatus::ServiceUnavailable,
            };
        }
        let staging =
            cause.downcast_ref::<StagingError>().or_else(|| match cause.downcast_ref::<FetchError>() {
                Some(FetchError::Staging(e)) => Some(e),
                _ => None,
            });
        if let Some(FetchError::KeyRejected(_)) = cause.downcast_ref::<FetchError>() {
            return ExitStatus::KeyRejected;
        }
        if let Some(e) = staging {
            return match e {
                StagingError::Locked { .. }
                | StagingError::ExistingRun { .. }
                | StagingError::PlanMismatch { .. } => ExitStatus::BadInput,
                StagingError::Io { .. } => ExitStatus::BadInput,
                StagingError::Parquet { .. } => ExitStatus::Internal,
            };
        }
        if cause.downcast_ref::<InvalidInput>().is_some()
            || cause.downcast_ref::<ClientConfigError>().is_some()
            || cause.downcast_ref::<crate::config::ConfigError>().is_some()
            || cause.downcast_ref::<PortfolioError>().is_some()
        {
            return ExitStatus::BadInput;
        }
    }
    ExitStatus::Internal
}

/// The message printed for an error: the whole chain, one cause per line.
pub fn render(err: &anyhow::Error) -> String {
    let mut out = format!("error: {err}");
    for cause in err.chain().skip(1) {
        out.push_str(&format!("\n  caused by: {cause}"));
    }
    if classify(err) == ExitStatus::Internal {
        out.push_str(
            "\n\nThis looks like a bug in fiscal-report. Please file an issue with this message and the command you ran.",
        );
    }
    out
}
