//! What a message about the report says of it (`deliver`'s e-mail): the highlights, what changed
//! in the portfolio and the new alerts, taken from the report's view model as it was rendered.
//! No figure is computed again: the message and the report cannot disagree.

use super::view::changes::Changes;
use super::view::{AlertHighlights, Headline, ReportView};

/// The parts of a rendered report's view that a message repeats.
#[derive(Debug, Clone, Default)]
pub struct Digest {
    /// Synthetic data (the embedded registry): every message says so.
    pub demo: bool,
    pub headline: Option<Headline>,
    /// "O que mudou na carteira", with the alerts grouped per company; `None` without the query.
    pub changes: Option<Changes>,
    /// The live alerts by severity; `None` without watch rules.
    pub alerts: Option<AlertHighlights>,
}

impl Digest {
    pub fn of(view: &ReportView) -> Self {
        Self {
            demo: view.demo,
            headline: view.headline.clone(),
            changes: view.changes.clone(),
            alerts: view.alert_highlights.clone(),
        }
    }

    /// The alerts new this run (`None` without watch rules).
    pub fn new_alerts(&self) -> Option<usize> {
        let changes = self.changes.as_ref().filter(|c| c.rules);
        match (changes, &self.alerts) {
            (Some(c), _) => Some(c.alerts_new),
            (None, Some(_)) => Some(0),
            (None, None) => None,
        }
    }
}
