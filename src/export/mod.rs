//! The export stage: Parquet files (raw tables hive-partitioned, aggregates one file each), the
//! Excel workbook and `manifest.json`. It writes what earlier stages produced and decides
//! nothing about content.

pub(crate) mod alerts_file;
pub mod dictionary;
pub mod manifest;
pub(crate) mod parquet;
pub mod partition;
pub(crate) mod remote;
pub(crate) mod series;
mod spill;
pub mod tables;
pub(crate) mod workbook;

pub use parquet::{ExportError, FileMetadata};

/// The dossiers' folder inside an output directory: `<cnpj>.html|md` and the typed tables.
pub const DOSSIER_DIR: &str = "dossies";
