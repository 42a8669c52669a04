//! The integration tests, as one binary: each module is an area, the `common_*` modules are the
//! shared helpers. One binary links Polars once instead of once per test file.
//!
//!     cargo test --test it                       # all of them
//!     cargo test --test it fetch_behaviour::     # one area

mod common_bin;
mod common_fetch;
mod common_registry;

mod aggregates_truth;
mod alert_lifecycle;
mod alerts;
mod api_operations;
mod bad_inputs;
mod changes;
mod cli_serve_get;
mod data_dictionary;
mod debts_counted_once;
mod demo;
mod deploy_examples;
mod docs_cli;
mod docs_links;
mod dossier;
mod download;
mod download_schedule;
mod email;
mod exit_codes;
mod exits_and_signals;
mod fetch_behaviour;
mod full_disk;
mod groups;
mod history;
mod hostile_service;
mod layers;
mod listas_monthly;
mod merge_shards;
mod object_storage;
mod open_data;
mod queries_truth;
mod queries_truth_credits;
mod query_semantics;
mod query_views;
mod real_data;
mod regime;
mod report_explore;
mod report_language;
mod report_pdf;
mod report_render;
mod sancoes;
mod sancoes_report;
mod schema_drift;
mod soak;
mod sources_dates;
mod spark;
mod store;
mod timeline;
mod truth_table;
mod typed_staging;
mod wire_types;
mod workbook;
