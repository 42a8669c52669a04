//! The export stage: Parquet files (raw tables hive-partitioned, aggregates one file each) and
//! `manifest.json`. It writes what earlier stages produced and decides nothing about content.

pub mod alerts;
pub mod dictionary;
pub mod manifest;
pub mod parquet;
pub mod tables;

pub use parquet::{ExportError, FileMetadata};
