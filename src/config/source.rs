//! What it takes to open a data source: the service's address, key and timeout, or the
//! embedded registry's size and month.

use std::time::Duration;

use super::RunConfig;
use crate::api::ApiKey;

/// What it takes to open a source (`pipeline::source`).
#[derive(Debug, Clone)]
pub(crate) struct SourceSettings {
    /// The real service; `None` starts the embedded registry.
    pub base_url: Option<String>,
    pub api_key: Option<ApiKey>,
    pub allow_insecure_http: bool,
    pub timeout: Duration,
    /// Size of the embedded registry's dataset (1.0 is the demo).
    pub demo_scale: f64,
    /// The month the embedded registry's data stands at (`None`: its latest).
    pub as_of: Option<crate::api::AnoMes>,
}

impl SourceSettings {
    pub(crate) fn from_run_config(cfg: &RunConfig) -> Self {
        Self {
            base_url: cfg.base_url.clone(),
            api_key: cfg.api_key.clone(),
            allow_insecure_http: cfg.allow_insecure_http,
            timeout: Duration::from_secs(cfg.timeout_secs),
            demo_scale: cfg.demo_scale,
            as_of: cfg.as_of,
        }
    }

    /// For the look-ups (`get`, `dossie`): the service flags alone, the demo dataset otherwise.
    pub(crate) fn from_service_args(args: &crate::cli::ServiceArgs) -> Self {
        Self {
            base_url: args.base_url.clone(),
            api_key: args.api_key.clone().map(ApiKey::new),
            allow_insecure_http: args.allow_insecure_http,
            timeout: Duration::from_secs(args.timeout_secs.unwrap_or(30)),
            demo_scale: 1.0,
            as_of: None,
        }
    }
}
