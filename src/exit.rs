//! The process exit codes (documented in the README, stable for schedulers) and the trait by
//! which every typed error says which one it means, where that error is defined.
//!
//! This module sits at the bottom of the layers: every stage implements [`HasExitStatus`] for
//! its own errors, and `commands::error` walks an error's cause chain to find the first one
//! that says. It imports nothing from the rest of the crate; it decides too what the service
//! interface's errors (crates/registry-api, which knows nothing of the process) mean.

use std::path::PathBuf;

use registry_api::{ApiError, ClientConfigError, InvalidInput};

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
    /// `--schema-contract freeze` and the service's data shape changed: nothing was exported.
    SchemaDrift = 7,
    /// The `--store` is in use by another run: retry when that run has finished.
    StoreBusy = 8,
    /// `--fail-on-alert` and the watch rules raised alerts: the run's outputs are complete.
    Alerts = 9,
    /// The alerts could not be posted to `--notify-webhook`; outputs and `alertas.jsonl` are written.
    NotifyFailed = 10,
    /// `--pdf` and report.pdf could not be printed (no browser, or it failed); every other output is written.
    PdfUnavailable = 11,
    /// `--email-to` and the report could not be mailed (after 3 tries); every output is written.
    EmailFailed = 12,
    /// `download`: a file failed its check (size or zip CRC) after its retries; it was not kept.
    DownloadFailed = 13,
    /// Interrupted (Ctrl-C / SIGTERM); `--resume` continues.
    Interrupted = 130,
    /// A bug: please report it.
    Internal = 70,
}

/// An error that knows which exit status it means. Implemented beside each error type, so the
/// decision is made where the failure is understood.
pub trait HasExitStatus {
    fn exit_status(&self) -> ExitStatus;
}

/// A run-level outcome raised by a command (a refused flag, failed tasks), with the status it
/// means and, where there is one, the error behind it (kept, so the chain still names it).
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Classified {
    pub status: ExitStatus,
    pub message: String,
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Classified {
    pub fn new(status: ExitStatus, message: impl Into<String>) -> Self {
        Self { status, message: message.into(), source: None }
    }

    /// `message` with `source` as its cause.
    pub fn caused_by(
        status: ExitStatus,
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self { status, message: message.into(), source: Some(Box::new(source)) }
    }
}

impl HasExitStatus for Classified {
    fn exit_status(&self) -> ExitStatus {
        self.status
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

impl HasExitStatus for OutputError {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::BadInput
    }
}

/// Failures of the machine around us rather than of our code: a full disk, a quota, a
/// read-only mount, a permission, a file where a folder was given (`--store afile`). The person
/// running the job fixes those, so they are bad input wherever they arise.
pub fn environmental(kind: std::io::ErrorKind) -> bool {
    use std::io::ErrorKind as K;
    matches!(
        kind,
        K::StorageFull
            | K::QuotaExceeded
            | K::ReadOnlyFilesystem
            | K::PermissionDenied
            | K::FileTooLarge
            | K::AlreadyExists
            | K::NotADirectory
            | K::IsADirectory
    )
}

/// The status an I/O failure of writing an output means: the person's to fix when the machine
/// refused it, a bug otherwise.
pub fn io_status(e: &std::io::Error) -> ExitStatus {
    if environmental(e.kind()) { ExitStatus::BadInput } else { ExitStatus::Internal }
}

impl HasExitStatus for std::io::Error {
    fn exit_status(&self) -> ExitStatus {
        io_status(self)
    }
}

// The service interface's errors (crates/registry-api knows nothing of the process): what each
// means for the run is decided here, at the application's edge.

impl HasExitStatus for ClientConfigError {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::BadInput
    }
}

impl HasExitStatus for ApiError {
    fn exit_status(&self) -> ExitStatus {
        match self {
            ApiError::InvalidInput(_)
            | ApiError::Validation { .. }
            | ApiError::Refused { .. }
            | ApiError::Redirected { .. } => ExitStatus::BadInput,
            ApiError::KeyRejected { .. } => ExitStatus::KeyRejected,
            ApiError::NotFound { .. } => ExitStatus::NotFound,
            _ => ExitStatus::ServiceUnavailable,
        }
    }
}

impl HasExitStatus for InvalidInput {
    fn exit_status(&self) -> ExitStatus {
        ExitStatus::BadInput
    }
}
