//! The process exit codes (documented in README, stable for schedulers) and the one place
//! that turns an error chain into the code and the words a person reads.

use std::path::PathBuf;

use crate::api::{ApiError, ClientConfigError, InvalidInput};
use crate::export::ExportError;
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

/// A file or directory a command must write could not be written: a full disk, a read-only
/// mount, a permission, a path that is a file. The person running it can fix that and a bug
/// report would not help, so it exits as bad input (as staging write failures do).
#[derive(Debug, thiserror::Error)]
#[error("cannot write {path}; {fix}")]
pub struct OutputError {
    pub path: PathBuf,
    /// What to do about it, in the terms of the command that failed.
    pub fix: String,
    #[source]
    pub source: std::io::Error,
}

impl OutputError {
    /// `source` as an output problem at `path`, unless it is a bug in disguise: the writers
    /// carry a serialisation failure as `io::Error::other`, and no disk space fixes that.
    pub fn wrap(path: impl Into<PathBuf>, fix: impl Into<String>, source: std::io::Error) -> anyhow::Error {
        let path = path.into();
        if source.get_ref().is_some_and(|inner| inner.is::<serde_json::Error>()) {
            return anyhow::Error::new(source).context(format!("serialising {}", path.display()));
        }
        Self { path, fix: fix.into(), source }.into()
    }
}

/// Failures of the machine around us rather than of our code. A backstop for writers whose
/// errors reach `classify` bare (e.g. the manifest rewrite after a report).
fn environmental(kind: std::io::ErrorKind) -> bool {
    use std::io::ErrorKind as K;
    matches!(
        kind,
        K::StorageFull | K::QuotaExceeded | K::ReadOnlyFilesystem | K::PermissionDenied | K::FileTooLarge
    )
}

/// The exit status for an error chain: the first cause that says what kind of failure it is.
pub fn classify(err: &anyhow::Error) -> ExitStatus {
    for cause in err.chain() {
        if let Some(c) = cause.downcast_ref::<Classified>() {
            return c.status;
        }
        if let Some(api) = cause.downcast_ref::<ApiError>() {
            return match api {
                ApiError::InvalidInput(_)
                | ApiError::Validation { .. }
                | ApiError::Refused { .. }
                | ApiError::Redirected { .. } => ExitStatus::BadInput,
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
        if cause.downcast_ref::<OutputError>().is_some()
            || matches!(cause.downcast_ref::<ExportError>(), Some(ExportError::Io { .. }))
        {
            return ExitStatus::BadInput;
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && environmental(io.kind())
        {
            return ExitStatus::BadInput;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_errors_are_bad_input_and_serialisation_errors_are_bugs() {
        let full = OutputError::wrap(
            "/out/manifest.json",
            "free space on that disk",
            std::io::Error::from(std::io::ErrorKind::StorageFull),
        );
        assert_eq!(classify(&full), ExitStatus::BadInput);
        let text = render(&full);
        assert!(text.contains("/out/manifest.json") && text.contains("free space"), "{text}");
        assert!(!text.contains("bug in fiscal-report"), "{text}");

        let bare = anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::ReadOnlyFilesystem))
            .context("writing the manifest");
        assert_eq!(classify(&bare), ExitStatus::BadInput);

        let Err(bad_json) = serde_json::from_str::<u32>("x") else { panic!("\"x\" is not a number") };
        let ours = OutputError::wrap("/out/manifest.json", "free space", std::io::Error::other(bad_json));
        assert_eq!(classify(&ours), ExitStatus::Internal);
    }
}
