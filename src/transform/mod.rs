//! The transform stage: staged raw records become typed Polars frames (exact money, real
//! dates, codes with their leading zeros). The parsers live in `parse`, the table schemas in
//! `schema`.

pub mod disk;
pub mod dossier_tables;
pub mod economic_groups;
pub mod frames;
pub mod parse;
pub mod pretype;
pub mod resumos;
pub mod schema;
pub mod staged;
pub mod typing;
pub mod vocabulary;

pub use frames::{CARTEIRA, CompanyStatus, Frames, build_frames};
pub use resumos::RESUMOS;
pub use typing::{QualityCount, TransformError};
