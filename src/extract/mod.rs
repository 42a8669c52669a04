//! The fetch stage: plans the requests for credits and company portfolios, runs them through
//! one polite, retrying pool, and stages every record durably so a run can resume.
//!
//! It hands a `FetchOutcome` (the staged data and its accounting) to the next stage and knows
//! nothing of what that stage does with it.

pub mod accounting;
pub(crate) mod control;
pub(crate) mod dossier_records;
pub(crate) mod download;
pub(crate) mod fetch_progress;
pub(crate) mod incremental;
pub(crate) mod open_data;
pub(crate) mod partner_companies;
pub(crate) mod plan;
pub(crate) mod pool;
pub(crate) mod portfolio;
pub(crate) mod records;
pub mod runner;
pub mod staging;

pub use plan::{PlanSpec, Task, plan_tasks};
pub use pool::{PageFetcher, RetryPolicy};
pub use records::Records;
pub use runner::{CreditsStaged, FetchJob, FetchOutcome, FetchSummary, SegmentSink, run_fetch};
