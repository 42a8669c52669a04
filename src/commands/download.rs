//! `fiscal-report download --to DIR`: the publishers' latest release fetched into DIR
//! (`extract::download`); its settings resolved here, its outcome said on stderr.

use anyhow::Result;

use crate::cli::DownloadArgs;
use crate::exit::ExitStatus;

pub(super) async fn download(args: DownloadArgs) -> Result<ExitStatus> {
    let request = crate::config::resolve_download(&args)?;
    let done = crate::extract::download::download(&request).await?;
    crate::logging::say(&done.summary(&request.to));
    Ok(ExitStatus::Ok)
}
