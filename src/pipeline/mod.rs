//! The run's wiring: the stages in order for each command that runs them. `run` fetches, types,
//! assembles and commits the snapshot, analyzes, watches, exports and renders; `fetch` stops
//! after the fetch (and the commit on a store); `merge` and `report --from` start from what a
//! fetch staged or a run wrote; `dossie` fetches and renders a few companies' dossiers.
//!
//! It sits between the commands (which read the settings and map the outcome to an exit
//! status) and the stages, which it calls in the order the data flows and which know nothing
//! of it.

mod analysis;
mod commit;
pub(crate) mod demo;
pub(crate) mod dossie;
mod early_credits;
pub(crate) mod fetch;
mod fetched;
mod mail;
pub(crate) mod merge;
mod outputs;
pub(crate) mod registry;
pub(crate) mod rerender;
pub(crate) mod run;
pub(crate) mod series;
pub(crate) mod source;
mod store_plan;
pub(crate) mod timeline;
mod watch;
