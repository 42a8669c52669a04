//! The monitor stage: what the analysis found that someone should act on. It reads the
//! aggregates (the changes since the previous snapshot, the estimated tax standing, the
//! service's summaries checked against the records) and turns them into data-quality counts
//! and, with a rules file, alerts.
//!
//! Alerts have a lifecycle (`lifecycle`): new, open while their condition holds (`judge`),
//! resolved. A re-render of a run keeps the states the run gave them (`rerender`).
//!
//! What the changes are is decided in `queries/` (SQL an analyst can read); this stage only
//! applies the analyst's rules to them. Writing the alerts out and showing them is for the
//! export and report stages; sending them, for the deliver stage.

pub(crate) mod alerts;
pub(crate) mod judge;
pub(crate) mod lifecycle;
pub(crate) mod listas;
pub(crate) mod reconciliation;
pub(crate) mod rerender;
pub(crate) mod rules;
