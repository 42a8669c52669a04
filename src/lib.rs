//! fiscal-report: monthly fiscal reports and Parquet datasets from the business-registry API.
//!
//! Data flows one way: cli -> commands -> extract -> transform -> (store) -> analyze -> monitor ->
//! export -> report -> deliver.
//! `commands` reads each subcommand's settings and maps its outcome to an exit status;
//! `pipeline` wires the stages for it; a stage takes the previous stage's output and knows
//! nothing of the later ones; `tables` (the raw tables' names and rows), `periods`
//! (each source's reference period), `api` and `exit` sit below them all. `api` (the service's
//! interface) and `simulator` (the embedded registry, which uses `api` alone) are crates of their
//! own, `crates/registry-api` and `crates/registry-sim`. `tests/it/layers.rs` holds these rules.

pub mod analyze;
/// The service's interface (crates/registry-api), under the name the stages use.
pub use registry_api as api;
pub(crate) mod bucket;
pub(crate) mod builtin;
pub mod cli;
pub mod codes;
pub mod commands;
pub(crate) mod config;
pub(crate) mod deliver;
pub(crate) mod environment;
pub mod exit;
pub mod export;
pub mod extract;
pub(crate) mod fsutil;
pub mod logging;
pub(crate) mod memory;
pub(crate) mod monitor;
pub(crate) mod periods;
pub(crate) mod pipeline;
pub(crate) mod progress;
pub mod report;
pub(crate) mod shutdown;
/// The embedded registry (crates/registry-sim), under the name the commands and tests use.
pub use registry_sim as simulator;
pub(crate) mod stack;
pub mod store;
pub mod tables;
pub(crate) mod test_hooks;
pub mod transform;
