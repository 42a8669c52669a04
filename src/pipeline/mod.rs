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
pub mod demo;
pub mod dossie;
mod early_credits;
pub mod fetch;
mod fetched;
mod mail;
pub mod merge;
mod outputs;
pub mod registry;
pub mod rerender;
pub mod run;
pub mod series;
pub mod source;
mod store_plan;
pub mod timeline;
mod watch;
