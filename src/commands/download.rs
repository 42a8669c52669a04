//! `fiscal-report download --to DIR`: the publishers' latest release fetched into DIR
//! (`extract::download`); its settings resolved here, its outcome said on stderr.

use anyhow::Result;

use crate::cli::DownloadArgs;
use crate::exit::ExitStatus;

pub async fn download(args: DownloadArgs) -> Result<ExitStatus> {
    let request = crate::config::resolve_download(&args)?;
    let done = crate::extract::download::download(&request).await?;
    crate::logging::say(&format!(
        "RFB {} and PGFN {} are in {}: {} files, {} fetched now ({:.1} MB received)",
        done.rfb_month,
        done.pgfn_quarter,
        request.to.display(),
        done.files,
        done.fetched,
        done.received as f64 / 1e6,
    ));
    Ok(ExitStatus::Ok)
}
