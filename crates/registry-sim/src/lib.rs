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
mod published;
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
        published: None,
    })
}

/// The state of a registry answering from a release's files (`run --open-data`) for the
/// companies it holds; the synthetic dataset beside it is the smallest one and answers nothing
/// the routes of a run ask.
pub fn state_for_published(
    published: registry_api::published::Published,
    key: registry_api::ApiKey,
) -> Arc<ServerState> {
    let cfg = RegistryConfig {
        seed: RegistryConfig::DEFAULT_SEED,
        scale: 0.0,
        api_key: key,
        faults: FaultConfig::default(),
        as_of: None,
    };
    Arc::new(ServerState {
        key: cfg.api_key.clone(),
        faults: faults::FaultPlan::new(cfg.faults.clone(), cfg.seed),
        counters: Counters::default(),
        real_debtor: None,
        dataset: Arc::new(Dataset::generate(cfg.seed, cfg.scale)),
        published: Some(Arc::new(published)),
    })
}

/// The registry answering inside this process, through its own routes, key check and
/// envelopes, with no socket between: what `run --open-data` fetches through.
pub struct InProcess {
    router: axum::Router,
    key: axum::http::HeaderValue,
    /// Over a release's files: the paths of what the files carry.
    published: bool,
}

impl InProcess {
    pub fn new(state: Arc<ServerState>) -> Result<Self, String> {
        let key = axum::http::HeaderValue::from_str(state.key.expose())
            .map_err(|_| "the key has characters not allowed in a header".to_string())?;
        let published = state.published.is_some();
        Ok(Self { router: server::router(state), key, published })
    }
}

impl registry_api::client::InProcessService for InProcess {
    fn get(
        &self,
        path_and_query: String,
    ) -> futures::future::BoxFuture<'static, registry_api::client::InProcessAnswer> {
        use tower::ServiceExt;
        let (router, key) = (self.router.clone(), self.key.clone());
        Box::pin(async move {
            let answer = |status: u16, body: Vec<u8>| registry_api::client::InProcessAnswer {
                status,
                retry_after: None,
                body,
            };
            let request = axum::http::Request::get(&path_and_query)
                .header("x-api-key", key)
                .body(axum::body::Body::empty());
            let Ok(request) = request else {
                return answer(400, format!("not a request path: {path_and_query}").into_bytes());
            };
            let response = match router.oneshot(request).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            let status = response.status().as_u16();
            let retry_after = registry_api::client::parse_retry_after(response.headers());
            match axum::body::to_bytes(response.into_body(), usize::MAX).await {
                Ok(body) => {
                    registry_api::client::InProcessAnswer { status, retry_after, body: body.to_vec() }
                }
                Err(e) => answer(500, e.to_string().into_bytes()),
            }
        })
    }

    fn answers(&self, path: &str) -> bool {
        !self.published || published::carries(path)
    }
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
