//! `run`'s e-mail settings (`--email-to` and what goes with it), resolved once from the config
//! file, the environment and the flags (each later one wins) and checked into the deliver
//! stage's `MailSettings`. The SMTP password is read from `FISCAL_REPORT_SMTP_PASSWORD` or the
//! file `smtp_password_file` names, never from a flag, and no message here shows it.

use std::path::PathBuf;

use super::{ConfigError, Settings, env_parsed, env_switch, env_var, invalid, pick};
use crate::cli::EmailArgs;
use crate::deliver::mail::{self, Attach, MailSettings, Secret, SmtpServer};

/// The e-mail settings, `None` when no recipient is given.
pub(super) fn resolve(args: &EmailArgs, file: &Settings) -> Result<Option<MailSettings>, ConfigError> {
    let Some(to) = pick(args.email_to.clone(), env_var("email_to"), file.email_to.clone()) else {
        return Ok(None);
    };
    let recipients =
        mail::parse_addresses(&to.value).map_err(|r| invalid("email_to", &to.value, to.source, r))?;
    let missing = |setting: &'static str, fix: &str| {
        invalid(setting, "", "none of the flags, the environment or the config file", fix.to_string())
    };
    let url = pick(args.smtp_url.clone(), env_var("smtp_url"), file.smtp_url.clone()).ok_or_else(|| {
        missing("smtp_url", "--email-to needs the mail server: --smtp-url smtp://user@host:587?tls=required")
    })?;
    // The URL as it may be shown: without what sits before an `@`.
    let shown = super::without_userinfo(&url.value);
    let server = SmtpServer::parse(&url.value).map_err(|r| invalid("smtp_url", &shown, url.source, r))?;
    let from =
        pick(args.email_from.clone(), env_var("email_from"), file.email_from.clone()).ok_or_else(|| {
            missing("email_from", "--email-to needs a sender: --email-from relatorios@example.com")
        })?;
    let from =
        mail::parse_address(&from.value).map_err(|r| invalid("email_from", &from.value, from.source, r))?;
    let password = password(args, file)?;
    if server.user().is_some() && password.is_none() {
        return Err(invalid(
            "smtp_url",
            &shown,
            url.source,
            "it names a user but no password was given: set FISCAL_REPORT_SMTP_PASSWORD or smtp_password_file \
             (a relay that takes no login: give the URL without a user)",
        ));
    }
    Ok(Some(MailSettings {
        to: recipients,
        from,
        server,
        password,
        report_url: report_url(args, file)?,
        attach: attach(args, file)?,
        cap_mb: cap_mb(args, file)?,
        again: args.email_again || env_switch("email_again")?.unwrap_or(false),
    }))
}

/// The password: `FISCAL_REPORT_SMTP_PASSWORD`, else the file `smtp_password_file` names (its
/// last line end dropped).
fn password(args: &EmailArgs, file: &Settings) -> Result<Option<Secret>, ConfigError> {
    if let Some(p) = env_var("smtp_password") {
        return Ok(Some(Secret::new(p)));
    }
    let path = pick(
        args.smtp_password_file.clone(),
        env_var("smtp_password_file").map(PathBuf::from),
        file.smtp_password_file.clone(),
    );
    let Some(path) = path else { return Ok(None) };
    let text = std::fs::read_to_string(&path.value)
        .map_err(|source| ConfigError::Read { path: path.value.clone(), source })?;
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\r').unwrap_or(text);
    Ok(Some(Secret::new(text.to_string())))
}

fn report_url(args: &EmailArgs, file: &Settings) -> Result<Option<String>, ConfigError> {
    let Some(u) = pick(args.report_url.clone(), env_var("report_url"), file.report_url.clone()) else {
        return Ok(None);
    };
    match url::Url::parse(u.value.trim()) {
        Ok(parsed) if matches!(parsed.scheme(), "https" | "http" | "s3" | "gs" | "az") => Ok(Some(u.value)),
        _ => Err(invalid(
            "report_url",
            &u.value,
            u.source,
            "write the report's address, like https://host/2026-09/report.html",
        )),
    }
}

fn attach(args: &EmailArgs, file: &Settings) -> Result<Attach, ConfigError> {
    match pick(args.email_attach.clone(), env_var("email_attach"), file.email_attach.clone()) {
        Some(a) => Attach::parse(&a.value).map_err(|r| invalid("email_attach", &a.value, a.source, r)),
        None => Ok(Attach::Default),
    }
}

fn cap_mb(args: &EmailArgs, file: &Settings) -> Result<u64, ConfigError> {
    let cap = pick(args.email_max_mb, env_parsed("email_max_mb")?, file.email_max_mb);
    if let Some(c) = cap
        && !(1..=1000).contains(&c.value)
    {
        return Err(invalid("email_max_mb", c.value, c.source, "it must be between 1 and 1000 MB"));
    }
    Ok(cap.map_or(mail::DEFAULT_CAP_MB, |c| c.value))
}
