//! `run --email-to`: the finished run's report mailed by SMTP (lettre, through rustls), once
//! per month: a pt-BR summary as text and HTML (`message`) with report.pdf or report.html and
//! report.xlsx attached, byte for byte the files written, and a link in place of what does not
//! fit under the size cap.
//!
//! The server is a lettre URL (`smtp://user@host:587?tls=required`, `smtps://user@host:465`,
//! `smtp://host:25`); its password comes from the environment or a file, never the URL or a
//! flag, and no message of ours names it: the server is said as `scheme://host:port`.

pub(crate) mod message;

use std::path::Path;
use std::time::Duration;

use backon::Retryable;
use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use crate::export::manifest::{EmailNote, FileEntry};
use crate::report::digest::Digest;
use message::Carried;

/// How long one try may wait on the server.
const TIMEOUT: Duration = Duration::from_secs(30);
/// The size cap when none is given, in MB (10^6 bytes): what most mail servers accept.
pub(crate) const DEFAULT_CAP_MB: u64 = 20;

#[derive(Debug, thiserror::Error)]
pub(crate) enum MailError {
    #[error(
        "the report could not be e-mailed through {server}: {reason}; every output is written, and the \
         next run of this month mails it (or run again with --email-again)"
    )]
    Send { server: String, reason: String },
    #[error(
        "the report was mailed to {}, but {server} refused {}; every output is written: correct \
         the address and run again, and only those not yet mailed this month get it",
        delivered.join(", "),
        refused.join("; ")
    )]
    Refused { server: String, delivered: Vec<String>, refused: Vec<String> },
    #[error("the e-mail could not be made: {0}")]
    Build(String),
    #[error("cannot read {path} to attach it: {source}")]
    Read { path: String, source: std::io::Error },
}

impl crate::exit::HasExitStatus for MailError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        match self {
            Self::Send { .. } | Self::Refused { .. } => crate::exit::ExitStatus::EmailFailed,
            Self::Read { source, .. } => crate::exit::io_status(source),
            Self::Build(_) => crate::exit::ExitStatus::Internal,
        }
    }
}

/// The SMTP server: lettre's URL without a password, and the user in it.
#[derive(Clone)]
pub(crate) struct SmtpServer {
    url: url::Url,
}

impl std::fmt::Debug for SmtpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpServer").field("server", &self.shown()).finish_non_exhaustive()
    }
}

impl SmtpServer {
    /// Checks a lettre URL: `smtp` or `smtps`, a host, no password in it.
    pub(crate) fn parse(raw: &str) -> Result<Self, String> {
        let url = url::Url::parse(raw.trim()).map_err(|e| format!("it is not a URL ({e})"))?;
        if !matches!(url.scheme(), "smtp" | "smtps") {
            return Err(format!(
                "scheme {}: is not smtp or smtps; write it like smtp://user@host:587?tls=required",
                url.scheme()
            ));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err("it names no host".into());
        }
        if url.password().is_some() {
            return Err("it carries a password (user:pass@), which would show wherever the URL is named; \
                 give the URL without it and the password in FISCAL_REPORT_SMTP_PASSWORD or smtp_password_file"
                .into());
        }
        let tls = url.query_pairs().find(|(k, _)| k == "tls").map(|(_, v)| v.to_string());
        if let Some(tls) = tls.filter(|t| !matches!(t.as_str(), "required" | "opportunistic")) {
            return Err(format!("tls={tls}: write tls=required (STARTTLS) or use smtps:// (implicit TLS)"));
        }
        Ok(Self { url })
    }

    /// The user in the URL, if any, percent-decoded (`relatorios%40x.com` is `relatorios@x.com`;
    /// a `+` stays a `+`).
    pub(crate) fn user(&self) -> Option<String> {
        let user = self.url.username();
        (!user.is_empty())
            .then(|| percent_encoding::percent_decode_str(user).decode_utf8_lossy().into_owned())
    }

    /// `smtp://host:port`: what messages may say of the server.
    pub(crate) fn shown(&self) -> String {
        let port = self.url.port().map(|p| format!(":{p}")).unwrap_or_default();
        format!("{}://{}{port}", self.url.scheme(), self.url.host_str().unwrap_or_default())
    }
}

/// A password: never shown by `Debug`.
#[derive(Clone)]
pub(crate) struct Secret(String);

impl Secret {
    pub(crate) fn new(s: String) -> Self {
        Self(s)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// One of the report's files the message may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Pdf,
    Html,
    Xlsx,
}

impl Kind {
    fn file(self) -> &'static str {
        match self {
            Self::Pdf => "report.pdf",
            Self::Html => "report.html",
            Self::Xlsx => "report.xlsx",
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Self::Pdf => "application/pdf",
            Self::Html => "text/html; charset=utf-8",
            Self::Xlsx => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        }
    }
}

/// `--email-attach`: the files chosen, or by default report.pdf when made, else report.html,
/// and report.xlsx.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Attach {
    #[default]
    Default,
    Chosen(Vec<Kind>),
}

impl Attach {
    /// `none`, `all`, or a comma list of `pdf`, `html`, `xlsx`.
    pub(crate) fn parse(raw: &str) -> Result<Self, String> {
        let mut kinds = Vec::new();
        for part in raw.split(',').map(|p| p.trim().to_ascii_lowercase()).filter(|p| !p.is_empty()) {
            let more: &[Kind] = match part.as_str() {
                "none" => &[],
                "all" => &[Kind::Pdf, Kind::Html, Kind::Xlsx],
                "pdf" => &[Kind::Pdf],
                "html" => &[Kind::Html],
                "xlsx" => &[Kind::Xlsx],
                other => return Err(format!("{other:?} is none of none, pdf, html, xlsx, all")),
            };
            kinds.extend(more.iter().filter(|k| !kinds.contains(*k)).copied().collect::<Vec<_>>());
        }
        Ok(Self::Chosen(kinds))
    }

    /// The files to attach, in order, of those the run wrote (`made`).
    fn files(&self, made: &[FileEntry]) -> Vec<Kind> {
        let has = |k: Kind| made.iter().any(|f| f.path == k.file());
        let wanted = match self {
            Self::Default if has(Kind::Pdf) => vec![Kind::Pdf, Kind::Xlsx],
            Self::Default => vec![Kind::Html, Kind::Xlsx],
            Self::Chosen(kinds) => kinds.clone(),
        };
        wanted.into_iter().filter(|k| has(*k)).collect()
    }
}

/// Everything `run --email-to` takes, checked by the settings.
#[derive(Debug, Clone)]
pub(crate) struct MailSettings {
    pub to: Vec<Mailbox>,
    pub from: Mailbox,
    pub server: SmtpServer,
    pub password: Option<Secret>,
    /// Where the report can be read (`--report-url`): linked in the message.
    pub report_url: Option<String>,
    pub attach: Attach,
    /// Attachments above this many MB in all are sent as a link instead.
    pub cap_mb: u64,
    /// `--email-again`: mail a month already mailed.
    pub again: bool,
}

/// A comma list of addresses (`a@x, Nome <b@y>`), each checked.
pub(crate) fn parse_addresses(raw: &str) -> Result<Vec<Mailbox>, String> {
    let mut out = Vec::new();
    for part in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        out.push(parse_address(part)?);
    }
    if out.is_empty() {
        return Err("no address given".into());
    }
    Ok(out)
}

pub(crate) fn parse_address(raw: &str) -> Result<Mailbox, String> {
    raw.trim().parse::<Mailbox>().map_err(|e| format!("{raw:?} is not an e-mail address ({e})"))
}

/// The finished report a message is about.
pub(crate) struct Report<'a> {
    pub out: &'a Path,
    /// The files the run wrote (the manifest's).
    pub files: &'a [FileEntry],
    pub digest: &'a Digest,
    /// The month reported (AAAAMM).
    pub month: &'a str,
    pub run_id: Option<&'a str>,
    /// Where the run's folder can be read when `--report-url` is not given (a bucket).
    pub folder_url: Option<String>,
}

/// Mails `report` as `settings` say to `recipients` (retrying as `retry` does) and returns what
/// was sent, and to whom: a recipient the server refuses does not keep the others from theirs
/// (`EmailNote::recusados`). An error when nobody got it.
pub(crate) async fn send(
    settings: &MailSettings,
    report: &Report<'_>,
    recipients: &[Mailbox],
) -> Result<EmailNote, MailError> {
    let cap = settings.cap_mb.saturating_mul(1_000_000);
    let link =
        settings.report_url.clone().or_else(|| report.folder_url.as_ref().map(|f| beside(f, "report.html")));
    let mut carried = Carried { link: link.clone(), cap_mb: settings.cap_mb, ..Carried::default() };
    let mut parts = Vec::new();
    let mut size = 0u64;
    for kind in settings.attach.files(report.files) {
        let path = report.out.join(kind.file());
        let bytes = std::fs::read(&path)
            .map_err(|source| MailError::Read { path: path.display().to_string(), source })?;
        if size + bytes.len() as u64 > cap {
            carried.left_out.push((kind.file().to_string(), link.as_deref().map(|l| beside(l, kind.file()))));
            continue;
        }
        size += bytes.len() as u64;
        let content_type =
            ContentType::parse(kind.content_type()).map_err(|e| MailError::Build(e.to_string()))?;
        parts.push(Attachment::new(kind.file().to_string()).body(bytes, content_type));
        carried.attached.push(kind.file().to_string());
    }
    let composed = message::compose(report.digest, report.month, &carried);
    let mut builder = Message::builder().from(settings.from.clone()).subject(composed.subject.clone());
    for to in &settings.to {
        builder = builder.to(to.clone());
    }
    let mut body =
        MultiPart::mixed().multipart(MultiPart::alternative_plain_html(composed.text, composed.html));
    for part in parts {
        body = body.singlepart(part);
    }
    let email = builder.multipart(body).map_err(|e| MailError::Build(e.to_string()))?;
    let delivered = deliver(settings, &email, recipients).await?;
    Ok(EmailNote {
        mes: report.month.to_string(),
        run_id: report.run_id.map(str::to_string),
        enviado_em: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        para: delivered.to,
        assunto: composed.subject,
        anexos: carried.attached,
        nao_anexados: carried.left_out.into_iter().map(|(f, _)| f).collect(),
        recusados: delivered.refused,
    })
}

/// Who has the message, and each recipient the server refused, with what it said.
struct Delivered {
    to: Vec<String>,
    refused: Vec<String>,
}

/// `file` in the folder of `url` (the report's own URL, or the folder's).
fn beside(url: &str, file: &str) -> String {
    match url.rsplit_once('/') {
        Some((folder, last)) if last.contains('.') => format!("{folder}/{file}"),
        _ => format!("{}/{file}", url.trim_end_matches('/')),
    }
}

/// Sends `email` through the server, with the password when the URL names a user: one message
/// to all of `recipients`. A server refuses that whole transaction for one bad recipient, and one
/// typo in the list must not keep the report from the others, so when a recipient is refused
/// each is sent its own envelope. A failure that is no recipient's (the server, the login)
/// stops it, as it would for all.
async fn deliver(
    settings: &MailSettings,
    email: &Message,
    recipients: &[Mailbox],
) -> Result<Delivered, MailError> {
    let server = settings.server.shown();
    let fail = |reason: String| MailError::Send { server: server.clone(), reason };
    let mut transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(settings.server.url.as_str())
        .map_err(|e| fail(e.to_string()))?
        .timeout(Some(TIMEOUT));
    if let (Some(user), Some(password)) = (settings.server.user(), &settings.password) {
        transport = transport.credentials(Credentials::new(user, password.0.clone()));
    }
    let transport = transport.build();
    let raw = email.formatted();
    let send_to = |to: Vec<lettre::Address>| {
        let (transport, raw) = (&transport, &raw);
        async move {
            let envelope = lettre::address::Envelope::new(Some(settings.from.email.clone()), to)
                .map_err(|e| MailError::Build(e.to_string()))?;
            let send = || async { transport.send_raw(&envelope, raw).await };
            // A refusal is the server's answer, not a fault: asking again gets the same.
            Ok::<_, MailError>(send.retry(super::retry::pauses()).when(|e| !e.is_permanent()).await)
        }
    };
    let all: Vec<lettre::Address> = recipients.iter().map(|m| m.email.clone()).collect();
    match send_to(all).await? {
        Ok(_) => {
            return Ok(Delivered {
                to: recipients.iter().map(|m| m.email.to_string()).collect(),
                refused: vec![],
            });
        }
        Err(e) if refuses_the_recipient(&e) && recipients.len() > 1 => {
            tracing::warn!("a recipient was refused ({}): sending to each apart", said(&e, settings));
        }
        Err(e) => return Err(fail(why(&e, settings))),
    }
    let mut delivered = Delivered { to: Vec::new(), refused: Vec::new() };
    for to in recipients {
        match send_to(vec![to.email.clone()]).await? {
            Ok(_) => delivered.to.push(to.email.to_string()),
            Err(e) if refuses_the_recipient(&e) => {
                delivered.refused.push(format!("{} ({})", to.email, said(&e, settings)));
            }
            Err(e) => return Err(fail(why(&e, settings))),
        }
    }
    if delivered.to.is_empty() {
        return Err(fail(format!("it refused every recipient: {}", delivered.refused.join("; "))));
    }
    Ok(delivered)
}

/// A permanent 55x answer: a mailbox refused (550 unknown, 551, 552 full, 553 bad address).
fn refuses_the_recipient(e: &lettre::transport::smtp::Error) -> bool {
    e.is_permanent() && e.status().is_some_and(|c| c.to_string().starts_with("55"))
}

/// The server's words, the password masked if it ever echoes it.
fn said(e: &lettre::transport::smtp::Error, settings: &MailSettings) -> String {
    let said = e.to_string();
    match &settings.password {
        Some(p) if !p.0.is_empty() => said.replace(&p.0, "***"),
        _ => said,
    }
}

/// What the server said, in words that name a refused recipient or login and never the password.
fn why(e: &lettre::transport::smtp::Error, settings: &MailSettings) -> String {
    let said = said(e, settings);
    let refused: Vec<String> = settings
        .to
        .iter()
        .map(|m| m.email.to_string())
        .filter(|a| said.to_ascii_lowercase().contains(&a.to_ascii_lowercase()))
        .collect();
    let code = e.status().map(|c| c.to_string()).unwrap_or_default();
    let after = format!("after {} tries", super::retry::ATTEMPTS);
    if !refused.is_empty() {
        format!("the server refused the recipient {} ({said}), {after}", refused.join(", "))
    } else if code == "535" || code == "534" || code == "530" {
        let user = settings.server.user().unwrap_or_default();
        format!(
            "the server refused the login of {user:?} ({said}), {after}; check FISCAL_REPORT_SMTP_PASSWORD \
             or smtp_password_file"
        )
    } else if e.is_permanent() && code.starts_with("55") {
        let all: Vec<String> = settings.to.iter().map(|m| m.email.to_string()).collect();
        format!("the server refused a recipient among {} ({said}), {after}", all.join(", "))
    } else {
        format!("{said}, {after}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_is_checked_and_shown_without_its_user_or_a_password() {
        let s = SmtpServer::parse("smtp://relatorios%40x.com@mail.example:587?tls=required").unwrap();
        assert_eq!(s.shown(), "smtp://mail.example:587");
        assert_eq!(s.user().as_deref(), Some("relatorios@x.com"));
        assert!(format!("{s:?}").contains("mail.example") && !format!("{s:?}").contains("relatorios"));
        let e = SmtpServer::parse("smtps://u:s3cret@mail.example").unwrap_err();
        assert!(e.contains("password") && !e.contains("s3cret"), "{e}");
        assert!(SmtpServer::parse("http://mail.example").is_err());
        assert!(SmtpServer::parse("smtp://mail.example?tls=maybe").is_err());
        assert_eq!(format!("{:?}", Secret::new("s3cret".into())), "Secret(***)");
    }

    #[test]
    fn attachments_by_default_and_as_chosen() {
        let made = |names: &[&str]| -> Vec<FileEntry> {
            names.iter().map(|n| FileEntry::of_content(n, 0, b"x")).collect()
        };
        let no_pdf = made(&["report.html", "report.xlsx", "report.md"]);
        assert_eq!(Attach::Default.files(&no_pdf), [Kind::Html, Kind::Xlsx]);
        let pdf = made(&["report.html", "report.pdf", "report.xlsx"]);
        assert_eq!(Attach::Default.files(&pdf), [Kind::Pdf, Kind::Xlsx]);
        assert_eq!(Attach::parse("all").unwrap().files(&no_pdf), [Kind::Html, Kind::Xlsx]);
        assert_eq!(Attach::parse("none").unwrap().files(&pdf), Vec::<Kind>::new());
        assert_eq!(Attach::parse("xlsx, pdf").unwrap().files(&pdf), [Kind::Xlsx, Kind::Pdf]);
        assert!(Attach::parse("zip").is_err());
        assert_eq!(
            beside("https://r.example/2026-09/report.html", "report.pdf"),
            "https://r.example/2026-09/report.pdf"
        );
        assert_eq!(beside("s3://b/runs/2026-09/", "report.html"), "s3://b/runs/2026-09/report.html");
    }
}
