//! The embedded registry: a local server faithful to `docs/service-api.md`, over a deterministic
//! synthetic dataset.
//! It is the default data source of a first run and the ground truth of the tests.
//!
//! It shares only `api` models and identifiers with the rest of the crate.

pub mod dataset;
mod delay;
pub mod faults;
pub mod mirror;
pub mod open_data;
pub mod real;
mod respond;
pub mod server;
pub mod sources;
pub mod validate;

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use dataset::{Dataset, GroupTruth};
pub use faults::FaultConfig;
pub use server::{Counters, ServerState};

use registry_api::ApiKey;

/// Everything `fiscal-report serve` takes.
#[derive(Debug, Clone)]
pub struct RegistryConfig {
    pub seed: u64,
    pub scale: f64,
    pub api_key: ApiKey,
    pub faults: FaultConfig,
    /// The month the data stands at; `None` is the dataset's latest.
    pub as_of: Option<registry_api::AnoMes>,
}

impl RegistryConfig {
    pub const DEFAULT_SEED: u64 = 20_240_101;
}

/// A registry serving on a loopback port until dropped or `stop`ped.
pub struct RunningRegistry {
    pub addr: SocketAddr,
    pub state: Arc<ServerState>,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl RunningRegistry {
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn dataset(&self) -> &Dataset {
        &self.state.dataset
    }

    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.task.take() {
            let _ = t.await;
        }
    }
}

impl Drop for RunningRegistry {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Builds the dataset (off the async threads: it takes a moment at scale 1) and the state.
/// Fails only for an `as_of` outside the dataset's months, with a message saying which exist.
pub async fn build_state(cfg: &RegistryConfig) -> Result<Arc<ServerState>, String> {
    let (seed, scale) = (cfg.seed, cfg.scale);
    let dataset = tokio::task::spawn_blocking(move || Dataset::generate(seed, scale))
        .await
        .unwrap_or_else(|_| Dataset::generate(seed, scale));
    let dataset = match cfg.as_of {
        Some(month) => dataset.as_of(month)?,
        None => dataset,
    };
    Ok(state_for(Arc::new(dataset), cfg))
}

pub fn state_for(dataset: Arc<Dataset>, cfg: &RegistryConfig) -> Arc<ServerState> {
    Arc::new(ServerState {
        key: cfg.api_key.clone(),
        faults: faults::FaultPlan::new(cfg.faults.clone(), cfg.seed),
        counters: Counters::default(),
        real_debtor: (!cfg.faults.real_debts.is_empty())
            .then(|| dataset.demo_portfolio(1).into_iter().next())
            .flatten(),
        dataset,
    })
}

/// Starts serving `state` on `addr` (port 0 picks a free one) in a background task.
pub async fn start(state: Arc<ServerState>, addr: SocketAddr) -> std::io::Result<RunningRegistry> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(server::serve(listener, state.clone(), async {
        let _ = rx.await;
    }));
    Ok(RunningRegistry { addr, state, shutdown: Some(tx), task: Some(task) })
}
