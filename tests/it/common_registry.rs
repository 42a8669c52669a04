// Shared by the integration tests (a module of the one integration-test binary).
#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::Arc;

use fiscal_report::api::{ApiKey, ClientConfig, RegistryClient};
use fiscal_report::simulator::{self, Dataset, FaultConfig, RegistryConfig, RunningRegistry};

pub(crate) const SEED: u64 = 7;
pub(crate) const SCALE: f64 = 0.05;
pub(crate) const KEY: &str = "test-key-0123456789";

pub(crate) async fn registry_with(faults: FaultConfig) -> RunningRegistry {
    let cfg = RegistryConfig { seed: SEED, scale: SCALE, api_key: ApiKey::new(KEY), faults, as_of: None };
    let state = simulator::build_state(&cfg).await.expect("the latest month is always in the dataset");
    simulator::start(state, SocketAddr::from(([127, 0, 0, 1], 0))).await.expect("bind loopback")
}

pub(crate) async fn registry() -> RunningRegistry {
    registry_with(FaultConfig::default()).await
}

pub(crate) fn client(reg: &RunningRegistry, key: &str) -> RegistryClient {
    RegistryClient::new(&ClientConfig::new(reg.base_url(), ApiKey::new(key))).expect("client")
}

pub(crate) fn dataset() -> Arc<Dataset> {
    Arc::new(Dataset::generate(SEED, SCALE))
}

/// A plain HTTP client (no key header), for requests our client would not send.
pub(crate) fn plain_http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}
