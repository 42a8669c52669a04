//! `--notify-webhook URL`: one JSON message per run with its new and resolved alerts (and the
//! updates their rules re-send), ranked, each with its triggers; posted only when there are
//! some (an alert still open was sent the run it opened: it is counted, not listed).
//!
//! The URL is treated as a secret (chat webhooks carry their token in the path): it is checked
//! like the registry's base URL (https, or http to this machine only), redirects are not
//! followed, and messages name only its scheme and host. An optional bearer token comes from
//! `FISCAL_REPORT_WEBHOOK_TOKEN`. The body holds the alerts, never a key.

use std::time::Duration;

use backon::Retryable;
use serde::Serialize;
use url::Url;

use crate::api::client::{TransportProblem, http_client_builder, transport_problem};
use crate::monitor::alerts::{count_by_rule, count_by_severity};
use crate::monitor::lifecycle::{Estado, TrackedAlert, count_by_state};

/// Alerts listed in the body; the rest are counted (all are in `alertas.jsonl`).
const LISTED: usize = 50;
const TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, thiserror::Error)]
pub(crate) enum WebhookError {
    #[error(
        "--notify-webhook is not a usable URL ({reason}); give the full https:// address of the receiver"
    )]
    BadUrl { reason: String },
    #[error(
        "--notify-webhook to {host} is plain http to another machine; use https (http is allowed to this \
         machine only)"
    )]
    InsecureHttp { host: String },
    #[error(
        "posting the alerts to the webhook at {host} failed: {reason}; the alerts are in alertas.jsonl, \
         and the run's outputs are written"
    )]
    Post { host: String, reason: String },
}

impl crate::exit::HasExitStatus for WebhookError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        match self {
            Self::Post { .. } => crate::exit::ExitStatus::NotifyFailed,
            _ => crate::exit::ExitStatus::BadInput,
        }
    }
}

/// A checked webhook: where to post and the optional token. Neither shows in `Debug`.
#[derive(Clone)]
pub(crate) struct Webhook {
    url: Url,
    token: Option<String>,
}

impl std::fmt::Debug for Webhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Webhook").field("host", &self.host()).finish_non_exhaustive()
    }
}

/// The JSON body posted.
#[derive(Debug, Serialize)]
struct Summary<'a> {
    fonte: &'static str,
    snapshot: Option<&'a str>,
    snapshot_anterior: Option<&'a str>,
    /// The alerts sent: new, resolved, and the updates their rules re-send.
    total_alertas: usize,
    novos: usize,
    resolvidos: usize,
    /// Open since an earlier run: not sent again, unless an update its rule re-sends.
    ainda_abertos: usize,
    atualizados: usize,
    por_regra: std::collections::BTreeMap<&'a str, usize>,
    por_severidade: std::collections::BTreeMap<&'static str, usize>,
    /// The alerts sent in one text, one line each, in order: for a chat that shows `texto`.
    texto: String,
    /// The alerts sent, in order (new, updated, resolved; the most severe and the most money
    /// at stake first), each with its triggers.
    alertas: Vec<&'a TrackedAlert>,
    alertas_omitidos: usize,
}

/// One line of the message's text: severity, company, rule, how many triggers and the money.
fn line(a: &TrackedAlert) -> String {
    let who = a.alerta.razao_social.as_deref().unwrap_or(a.alerta.cnpj.as_str());
    let n = a.alerta.gatilhos.len();
    let stake = a.alerta.at_stake();
    let money = if stake.is_zero() { String::new() } else { format!(", R$ {stake}") };
    let update = a.atualizacao.as_deref().map(|u| format!(" ({u})")).unwrap_or_default();
    format!(
        "[{}] {} {who} ({}): {} — {n} gatilho(s){money}{update}",
        a.alerta.severidade.name(),
        a.estado.name(),
        a.alerta.cnpj,
        a.alerta.regra
    )
}

impl Webhook {
    /// Checks `url` (before anything is fetched).
    pub(crate) fn new(url: &str, token: Option<String>) -> Result<Self, WebhookError> {
        let parsed = Url::parse(url.trim()).map_err(|e| WebhookError::BadUrl { reason: e.to_string() })?;
        let host = parsed.host_str().unwrap_or_default().to_string();
        match transport_problem(&parsed, false) {
            None => {}
            Some(TransportProblem::InsecureHttp) => return Err(WebhookError::InsecureHttp { host }),
            Some(TransportProblem::NotHttp) => {
                let reason = format!("scheme {}: is not http(s)", parsed.scheme());
                return Err(WebhookError::BadUrl { reason });
            }
        }
        if host.is_empty() {
            return Err(WebhookError::BadUrl { reason: "no host".into() });
        }
        Ok(Self { url: parsed, token: token.filter(|t| !t.trim().is_empty()) })
    }

    /// `scheme://host[:port]`: what messages may say of the URL.
    pub(crate) fn host(&self) -> String {
        let port = self.url.port().map(|p| format!(":{p}")).unwrap_or_default();
        format!("{}://{}{port}", self.url.scheme(), self.url.host_str().unwrap_or_default())
    }

    /// Posts the summary of the new and resolved `alerts` (but those a re-render carries from
    /// its run, which that run sent), and returns how many it carried; does nothing when there
    /// are none. The counts are of all of them. Retries a failed connection or a 5xx/429 answer twice,
    /// with a pause (backon, as the registry client's).
    pub(crate) async fn notify(&self, alerts: &[TrackedAlert]) -> Result<Option<usize>, WebhookError> {
        let sent: Vec<&TrackedAlert> = alerts.iter().filter(|a| a.is_sent()).collect();
        if sent.is_empty() {
            return Ok(None);
        }
        let counts = count_by_state(alerts);
        let count = |e: Estado| counts.get(e.name()).copied().unwrap_or(0);
        let body = Summary {
            fonte: "fiscal-report",
            snapshot: alerts.iter().find_map(|a| a.alerta.snapshot.as_deref()),
            snapshot_anterior: alerts.iter().find_map(|a| a.alerta.snapshot_anterior.as_deref()),
            total_alertas: sent.len(),
            novos: count(Estado::Nova),
            resolvidos: count(Estado::Resolvida),
            ainda_abertos: count(Estado::Aberta),
            atualizados: sent.iter().filter(|a| a.estado == Estado::Aberta).count(),
            por_regra: count_by_rule(sent.iter().map(|a| &a.alerta)),
            por_severidade: count_by_severity(sent.iter().map(|a| &a.alerta)),
            texto: sent.iter().take(LISTED).map(|a| line(a)).collect::<Vec<_>>().join("\n"),
            alertas_omitidos: sent.len().saturating_sub(LISTED),
            alertas: sent.iter().take(LISTED).copied().collect(),
        };
        let post_err = |reason: String| WebhookError::Post { host: self.host(), reason };
        // A redirect could carry the token (and the alerts) elsewhere: it is reported instead.
        let client = http_client_builder(TIMEOUT).build().map_err(|e| post_err(e.to_string()))?;
        let post = || async {
            let mut request = client.post(self.url.clone()).json(&body);
            if let Some(token) = &self.token {
                request = request.bearer_auth(token);
            }
            match request.send().await {
                Ok(r) if r.status().is_success() => Ok(()),
                Ok(r) => Err(Failed {
                    reason: format!("HTTP {}", r.status().as_u16()),
                    retry: r.status().is_server_error() || r.status().as_u16() == 429,
                }),
                // Without the URL: reqwest's error text would print it, token and all.
                Err(e) => Err(Failed { reason: connection_problem(&e), retry: true }),
            }
        };
        post.retry(super::retry::pauses())
            .when(|f: &Failed| f.retry)
            .await
            .map_err(|f| post_err(f.reason))?;
        Ok(Some(body.total_alertas))
    }
}

/// A post that did not succeed: why (without the URL), and whether another try may help.
struct Failed {
    reason: String,
    retry: bool,
}

/// What went wrong with a request, in words that do not repeat the URL.
fn connection_problem(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "no answer in time".into()
    } else if e.is_connect() {
        "cannot connect".into()
    } else {
        "the request failed".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_only_to_this_machine_and_the_url_never_shows() {
        assert!(Webhook::new("http://127.0.0.1:9/hook", None).is_ok());
        assert!(matches!(
            Webhook::new("http://hooks.example.com/x", None),
            Err(WebhookError::InsecureHttp { .. })
        ));
        assert!(matches!(Webhook::new("ftp://h/x", None), Err(WebhookError::BadUrl { .. })));
        let w = Webhook::new("https://hooks.example.com/services/T0/B0/SECRET", Some("tok".into())).unwrap();
        let shown = format!("{w:?} {}", w.host());
        assert!(!shown.contains("SECRET") && !shown.contains("tok"), "{shown}");
    }
}
