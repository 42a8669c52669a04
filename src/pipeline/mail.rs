//! `run --email-to`: once every output is written (and uploaded), the report mailed, once per
//! month and output folder. The manifest keeps what was sent and to whom (`email`); a re-run
//! of a month already mailed sends nothing unless `--email-again`, and only to those who did not
//! get it yet (a recipient added, or one the server refused, corrected). A message the server
//! would not take, for anyone or for one recipient, is the run's last word: exit 12, every output
//! written, the others mailed.

use anyhow::Result;

use super::fetched::Fetched;
use crate::deliver::mail::{MailError, MailSettings, Report, send};
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
    // Those this folder already mailed this month's report to (none with --email-again).
    let earlier = manifest.email.as_ref().filter(|e| e.mes == month && !settings.again);
    let mailed: Vec<String> = earlier.map(|e| e.para.clone()).unwrap_or_default();
    let pending: Vec<_> =
        settings.to.iter().filter(|m| !mailed.contains(&m.email.to_string())).cloned().collect();
    if let Some(sent) = earlier {
        if pending.is_empty() {
            crate::say!(
                "the report of {label} was mailed on {} to {}: not sent again (--email-again sends it)",
                sent.enviado_em,
                sent.para.join(", ")
            );
            return Ok(());
        }
        crate::say!(
            "the report of {label} was mailed on {} to {}; now to the others",
            sent.enviado_em,
            sent.para.join(", ")
        );
    }
    let report = Report {
        out: &fetched.out,
        files: &manifest.files,
        digest,
        month: &month,
        run_id: manifest.run_id.as_deref(),
        folder_url,
    };
    let mut note = send(settings, &report, &pending).await?;
    crate::say!(
        "mailed the report of {label} to {} through {} ({})",
        note.para.join(", "),
        settings.server.shown(),
        if note.anexos.is_empty() { "no attachment".to_string() } else { note.anexos.join(", ") }
    );
    let (this_time, refused) = (note.para.clone(), note.recusados.clone());
    note.para = mailed.into_iter().chain(this_time.iter().cloned()).collect();
    fetched.manifest.email = Some(note);
    fetched.manifest.write(&fetched.out).map_err(|e| {
        OutputError::wrap(
            fetched.out.join("manifest.json"),
            "free space on that disk (or fix its permissions); the report was mailed, and a re-run of this \
             month would mail it again",
            e,
        )
    })?;
    if !refused.is_empty() {
        let server = settings.server.shown();
        return Err(MailError::Refused { server, delivered: this_time, refused }.into());
    }
    Ok(())
}
