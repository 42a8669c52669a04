//! The one place that turns an error into what a person reads and the code a scheduler sees:
//! it walks the cause chain and asks the first typed error it knows which status it means.
//! The decisions themselves live beside each error type (`HasExitStatus`).

use crate::analyze::AnalyzeError;
use crate::api::{ApiError, ClientConfigError, InvalidInput};
use crate::codes::CodesError;
use crate::config::ConfigError;
use crate::exit::{Classified, ExitStatus, HasExitStatus, OutputError, environmental};
use crate::export::ExportError;
use crate::extract::portfolio::PortfolioError;
use crate::extract::runner::FetchError;
use crate::extract::staging::StagingError;
use crate::report::ReportError;
use crate::transform::TransformError;

/// The status `cause` means, when it is one of the crate's typed errors.
fn status_of(cause: &(dyn std::error::Error + 'static)) -> Option<ExitStatus> {
    macro_rules! first_typed {
        ($($t:ty),+ $(,)?) => {
            $(if let Some(e) = cause.downcast_ref::<$t>() {
                return Some(e.exit_status());
            })+
        };
    }
    first_typed!(
        Classified,
        OutputError,
        ApiError,
        InvalidInput,
        ClientConfigError,
        ConfigError,
        CodesError,
        PortfolioError,
        FetchError,
        StagingError,
        TransformError,
        AnalyzeError,
        ExportError,
        ReportError,
        crate::store::StoreError,
        crate::monitor::rules::RulesError,
        crate::deliver::webhook::WebhookError,
        crate::deliver::mail::MailError,
        crate::export::workbook::WorkbookError,
        crate::report::pdf::PdfError,
        crate::export::remote::RemoteError,
        crate::extract::open_data::OpenDataError,
        crate::extract::download::DownloadError,
    );
    // A bare I/O error decides only when the machine refused (a full disk, a permission);
    // otherwise a deeper cause may know better.
    match cause.downcast_ref::<std::io::Error>() {
        Some(io) if environmental(io.kind()) => Some(ExitStatus::BadInput),
        _ => None,
    }
}

/// The exit status for an error chain: the first cause that says what kind of failure it is;
/// a chain none of whose causes does is a bug.
pub fn classify(err: &anyhow::Error) -> ExitStatus {
    err.chain().find_map(status_of).unwrap_or(ExitStatus::Internal)
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
