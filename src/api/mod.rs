//! Typed client for the 14 operations of the registry service: models, identifiers, errors,
//! pagination. Shared with the embedded registry, which serves these same models.

pub mod client;
pub mod error;
pub mod ids;
pub mod models;
pub mod operation;
pub mod paginate;
pub mod published;
pub mod secret;
pub mod shape;

pub use client::{ClientConfig, ClientConfigError, RegistryClient};
pub use error::{API_KEY_ENV, ApiError};
pub use ids::{AnoMes, Categoria, Cno, Cnpj, InvalidInput, Nirf, Page, UFS, Uf};
pub use operation::{Operation, OperationArgs, OperationKind};
pub use secret::ApiKey;
