//! The transform stage: staged raw records become typed Polars frames (exact money, real
//! dates, codes with their leading zeros). The parsers live in `parse`, the table schemas in
//! `schema`.

pub mod disk;
pub(crate) mod dossier_tables;
pub(crate) mod economic_groups;
pub mod frames;
pub(crate) mod listas;
pub(crate) mod nacional;
pub mod parse;
pub(crate) mod pretype;
pub(crate) mod regime;
pub(crate) mod resumos;
pub(crate) mod schema;
pub(crate) mod staged;
pub mod typing;
pub(crate) mod vocabulary;

pub use frames::{CARTEIRA, CompanyStatus, Frames, build_frames};
pub use resumos::RESUMOS;
pub use typing::{QualityCount, TransformError};
