//! `run --email-to`: once every output is written (and uploaded), the report mailed, once per
//! month and output folder. The manifest keeps what was sent and to whom (`email`); a re-run
//! of a month already mailed sends nothing unless `--email-again`. A message the server would
//! not take is the run's last word: exit 12, every output written.

use anyhow::Result;

use super::fetched::Fetched;
use crate::deliver::mail::{MailSettings, Report, send};
use crate::exit::OutputError;
use crate::report::digest::Digest;

/// Mails the report of `fetched` as `settings` say, unless its month was already mailed from
/// this folder; `folder_url` is where `--out` put the outputs when that is a bucket.
pub(super) async fn mail_report(
    settings: Option<&MailSettings>,
    fetched: &mut Fetched,
    digest: Option<&Digest>,
    folder_url: Option<String>,
) -> Result<()> {
    let (Some(settings), Some(digest)) = (settings, digest) else { return Ok(()) };
    let manifest = &fetched.manifest;
    let month = manifest.plan.months.last().cloned().unwrap_or_default();
    let label = crate::report::format::month(&month, crate::report::Locale::PtBr);
    if let Some(sent) = manifest.email.as_ref().filter(|e| e.mes == month && !settings.again) {
        crate::say!(
            "the report of {label} was mailed on {} to {}: not sent again (--email-again sends it)",
            sent.enviado_em,
            sent.para.join(", ")
        );
        return Ok(());
    }
    let report = Report {
        out: &fetched.out,
        files: &manifest.files,
        digest,
        month: &month,
        run_id: manifest.run_id.as_deref(),
        folder_url,
    };
    let note = send(settings, &report).await?;
    crate::say!(
        "mailed the report of {label} to {} through {} ({})",
        note.para.join(", "),
        settings.server.shown(),
        if note.anexos.is_empty() { "no attachment".to_string() } else { note.anexos.join(", ") }
    );
    fetched.manifest.email = Some(note);
    fetched.manifest.write(&fetched.out).map_err(|e| {
        OutputError::wrap(
            fetched.out.join("manifest.json"),
            "free space on that disk (or fix its permissions); the report was mailed, and a re-run of this \
             month would mail it again",
            e,
        )
    })?;
    Ok(())
}
