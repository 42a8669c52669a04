//! fiscal-report: monthly fiscal reports and Parquet datasets from the business-registry API.
//!
//! Data flows one way: cli -> commands -> extract -> transform -> (store) -> analyze -> monitor ->
//! export -> report.
//! `commands` wires the stages for each subcommand; a stage takes the previous stage's output
//! and knows nothing of the later ones; `tables` (the raw tables' names and rows), `periods`
//! (each source's reference period), `api` and `exit` sit below them all. The `simulator` is
//! the embedded registry and shares only `api` models with the rest. `tests/it/layers.rs` holds
//! these rules.

pub mod analyze;
pub mod api;
pub mod bucket;
pub mod builtin;
pub mod cli;
pub mod codes;
pub mod commands;
pub mod config;
pub mod exit;
pub mod export;
pub mod extract;
pub mod fsutil;
pub mod logging;
pub mod memory;
pub mod monitor;
pub mod periods;
pub mod progress;
pub mod report;
pub mod shutdown;
pub mod simulator;
pub mod stack;
pub mod store;
pub mod tables;
pub mod transform;
