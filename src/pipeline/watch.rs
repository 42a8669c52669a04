//! The watch rules and where their alerts go, for `run`, `merge` and `report --from`: read and
//! checked before anything is fetched; at the end of the run, the new and resolved alerts
//! posted and the run's exit status given.

use std::path::Path;

use anyhow::Result;

use crate::config::WatchSettings;
use crate::deliver::webhook::Webhook;
use crate::exit::ExitStatus;
use crate::monitor::alerts::Severidade;
use crate::monitor::lifecycle::{Estado, TrackedAlert, count_by_state};
use crate::monitor::rules::Rules;

/// The watch rules and where their alerts go: read and checked before anything is fetched,
/// so a broken rules file costs nothing.
#[derive(Debug, Default)]
pub(super) struct Watch {
    pub(super) rules: Option<(String, Rules)>,
    webhook: Option<Webhook>,
    /// `--fail-on-alert[=SEVERIDADE]`: the least severity of a new alert that makes the run
    /// exit 9 (`baixa`, any alert, when the flag is bare).
    fail_on_alert: Option<Severidade>,
}

impl Watch {
    pub(super) fn load(args: &WatchSettings) -> Result<Self> {
        let rules = match &args.rules {
            Some(path) => Some((path.display().to_string(), Rules::load(path)?)),
            None => None,
        };
        let webhook = match &args.notify_webhook {
            Some(url) => Some(Webhook::new(url, args.webhook_token.clone())?),
            None => None,
        };
        let fail_on_alert = args.fail_on_alert.as_deref().map(|s| Severidade::parse(s).unwrap_or_default());
        Ok(Self { rules, webhook, fail_on_alert })
    }

    /// The demo's: the example rules, built in, no webhook (`pipeline::demo`).
    pub(super) fn example() -> Result<Self> {
        let path = Path::new("regras/exemplo.toml");
        let rules = Rules::parse(super::demo::EXAMPLE_RULES, path)?;
        Ok(Self { rules: Some((path.display().to_string(), rules)), ..Self::default() })
    }

    /// The checked rules, when `--rules` was given.
    pub(super) fn rules(&self) -> Option<&Rules> {
        self.rules.as_ref().map(|(_, r)| r)
    }

    /// After the outputs are written: posts the new and resolved alerts to the webhook (only
    /// when there are some: an alert still open is not sent again), then gives the run's exit
    /// status: `done` unless `--fail-on-alert` and new alerts (or updates their rules re-send) of
    /// at least its severity; a PDF that could not be printed is
    /// said last, once everything else is done.
    pub(super) async fn conclude(&self, outputs: Outputs, done: ExitStatus) -> Result<ExitStatus> {
        let Outputs { alerts, pdf, .. } = outputs;
        let status = self.conclude_alerts(&alerts, done).await?;
        match pdf {
            // Exit 11 only says "PDF missing": a status that asks for more (failed tasks,
            // alerts) keeps its code, and the PDF's line is still said.
            Some(problem) if status == ExitStatus::Ok => Err(problem.into()),
            Some(problem) => {
                crate::say!("{problem}");
                Ok(status)
            }
            None => Ok(status),
        }
    }

    async fn conclude_alerts(&self, alerts: &[TrackedAlert], done: ExitStatus) -> Result<ExitStatus> {
        if let Some(hook) = &self.webhook
            && let Some(posted) = hook.notify(alerts).await?
        {
            crate::say!(
                "posted {posted} alert(s) (new, updated and resolved) to the webhook at {}",
                hook.host()
            );
        }
        let counts = count_by_state(alerts);
        let of = |e: Estado| counts.get(e.name()).copied().unwrap_or(0);
        if let Some((path, _)) = &self.rules
            && !alerts.is_empty()
        {
            crate::say!(
                "the rules in {path}: {} new alert(s), {} still open, {} resolved: see alertas.jsonl",
                of(Estado::Nova),
                of(Estado::Aberta),
                of(Estado::Resolvida)
            );
            // A re-render's alerts of the run it re-renders were that run's to send and page for.
            let carried = alerts.iter().filter(|a| a.carried_from_run).count();
            if carried > 0 {
                crate::say!("{carried} of them as the run that wrote them judged them (not sent again)");
            }
            let pages = |least: Severidade| {
                alerts.iter().any(|a| {
                    a.is_sent() && a.estado != Estado::Resolvida && a.alerta.severidade.at_least(least)
                })
            };
            if self.fail_on_alert.is_some_and(pages) && done == ExitStatus::Ok {
                return Ok(ExitStatus::Alerts);
            }
        }
        Ok(done)
    }
}

/// What the later stages leave for the end of a run: the alerts the watch rules raised, why
/// report.pdf could not be printed (when `--pdf` was asked and the browser was missing or
/// failed), and the report's digest for the e-mail.
#[derive(Debug, Default)]
pub(super) struct Outputs {
    pub alerts: Vec<TrackedAlert>,
    pub pdf: Option<crate::report::pdf::PdfError>,
    /// What a message about the report repeats of it (the e-mail), once the report is rendered.
    pub digest: Option<crate::report::digest::Digest>,
}
