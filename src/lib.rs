//! fiscal-report: monthly fiscal reports and Parquet datasets from the business-registry API.
//!
//! Data flows one way: cli -> extract -> transform -> analyze -> export -> report. The
//! `simulator` is the embedded registry and shares only `api` models with the rest.

pub mod analyze;
pub mod api;
pub mod builtin;
pub mod cli;
pub mod commands;
pub mod config;
pub mod exit;
pub mod export;
pub mod extract;
pub mod fsutil;
pub mod logging;
pub mod report;
pub mod shutdown;
pub mod simulator;
pub mod tables;
pub mod transform;
