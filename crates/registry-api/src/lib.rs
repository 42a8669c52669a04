//! The registry service's interface (`docs/service-api.md`): the typed client of its 14
//! operations, their models, identifiers, errors, pagination and shape checks. Shared with the
//! embedded registry (`registry-sim`), which serves these same models. It knows nothing of the
//! process that uses it: what an error means for a run's exit code is the application's call.

pub mod client;
pub mod cnae;
pub mod error;
pub mod forms;
pub mod ids;
pub mod listas;
pub mod models;
pub mod operation;
pub mod paginate;
pub mod published;
pub mod regime;
pub mod secret;
pub mod shape;

pub use client::{ClientConfig, ClientConfigError, RegistryClient};
pub use error::{API_KEY_ENV, ApiError};
pub use ids::{AnoMes, Categoria, Cno, Cnpj, InvalidInput, Nirf, Page, UFS, Uf};
pub use operation::{Operation, OperationArgs, OperationKind};
pub use secret::ApiKey;
