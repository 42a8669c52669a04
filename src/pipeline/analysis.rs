//! The analyze stage of a run: the queries loaded from the analyst's folder (or the built-in
//! ones), run over the run's frames with the previous snapshot beside them when a store has one.

use anyhow::Result;

use crate::analyze::{Aggregates, EarlyResults, Query, load_queries, run_queries_after};
use crate::config::ReportSettings;
use crate::export::manifest::Manifest;
use crate::monitor::lifecycle::TrackedAlert;
use crate::store::snapshot::PreviousSnapshot;
use crate::transform::Frames;

/// The analyze stage's output: the queries run and their results.
pub(super) struct Analysis {
    pub queries: Vec<Query>,
    pub aggregates: Aggregates,
    /// `run --dossies N`: the records of the companies whose dossiers the report links to.
    pub dossiers: Vec<crate::extract::dossier_records::DossierRecords>,
    /// With a store: their exposure at every snapshot of it.
    pub dossier_history: Option<crate::report::dossier_page::ExposureHistory>,
    /// With a store: the series over every snapshot of it (`queries/historico/*.sql`).
    pub history: Option<Aggregates>,
    /// With a store: the watch rules' alerts judged against the previous snapshot's (new, still
    /// open, resolved), as committed; without one, the rules are applied at the export.
    pub alerts: Option<Vec<TrackedAlert>>,
}

/// Runs the queries over `frames`, with the previous snapshot beside them when a store has one;
/// the manifest records how long it took.
pub(super) fn analyze(
    frames: &mut Frames,
    previous: Option<&PreviousSnapshot>,
    args: &ReportSettings,
    manifest: &mut Manifest,
) -> Result<Analysis> {
    analyze_with(frames, previous, report_queries(args)?, EarlyResults::default(), manifest)
}

/// The queries `args` name (`--queries`, else `./queries`, else the built-in ones).
pub(super) fn report_queries(args: &ReportSettings) -> Result<Vec<crate::analyze::Query>> {
    Ok(load_queries(args.folders.queries.as_deref())?)
}

/// `analyze` with the queries already loaded, and the results of those `early` ran on the
/// credits while the fetch went on.
pub(super) fn analyze_with(
    frames: &mut Frames,
    previous: Option<&PreviousSnapshot>,
    queries: Vec<crate::analyze::Query>,
    early: EarlyResults,
    manifest: &mut Manifest,
) -> Result<Analysis> {
    let started = std::time::Instant::now();
    crate::transform::economic_groups::attach_groups(frames, None)?;
    crate::transform::listas::attach_listas(frames, None)?;
    crate::transform::regime::attach_regimes(frames, None)?;
    crate::transform::nacional::attach_national(frames, None)?;
    let aggregates = run_queries_after(frames, previous, &queries, early)?;
    manifest.time_stage("analyze", started);
    Ok(Analysis {
        queries,
        aggregates,
        dossiers: Vec::new(),
        dossier_history: None,
        history: None,
        alerts: None,
    })
}
