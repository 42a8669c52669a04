//! The publishers' mirror: a release's files, as `open_data` writes them (`pgfn/<quarter>/`,
//! `cnpj/<month>/`), served the way PGFN and RFB serve theirs, so the download can be tested
//! without the internet:
//! - PGFN: an Apache listing of quarter folders (`YYYY_trimestre_NN/`) at the root;
//! - RFB 2024-25: an Apache listing of month folders under `/dados/cnpj/dados_abertos_cnpj/`;
//! - RFB since 2026: a Nextcloud public share, listed (`PROPFIND`) and served (GET, HEAD) at
//!   each of its three WebDAV roots: `/public.php/webdav/` (HTTP Basic `TOKEN:`),
//!   `/public.php/dav/files/TOKEN/` and `/remote.php/dav/public-files/TOKEN/`, names
//!   percent-encoded in its answers and decoded in requests; [`SHARE_TOKEN`] holds the month
//!   folders at its root, [`NESTED_TOKEN`] under `Dados/Cadastros/CNPJ/`, [`REGIME_TOKEN`] the
//!   tax regime files (`regime_tributario/`) at its root.
//!
//! - the public lists, from the folder's `listas/`: CGU's Portal da Transparência pages and
//!   day redirects (`/download-de-dados/ceis/YYYYMMDD` -> `YYYYMMDD_CEIS.zip`), the labour
//!   ministry's and IBAMA's files (`lists`).
//!
//! Files answer HEAD and Range with ETag and Last-Modified, and meet the faults the publishers'
//! users report ([`MirrorFaults`]). It counts the file bytes it sends, by file.
//!
//! It decides paths and faults; `listing` writes the listings, `files` the files' answers.

mod files;
mod listas;
mod listing;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tokio::sync::oneshot;

/// The share whose month folders sit at its root.
pub const SHARE_TOKEN: &str = "YggdBLfdninEJX9";
/// The share whose month folders sit under [`NESTED_FOLDERS`].
pub const NESTED_TOKEN: &str = "gn672Ad4CF8N6TK";
/// Where [`NESTED_TOKEN`]'s share keeps its month folders.
pub const NESTED_FOLDERS: &str = "Dados/Cadastros/CNPJ/";
/// The share of RFB's tax regime files (`regime_tributario/` of the folder), at its root.
pub const REGIME_TOKEN: &str = "MPPfFit7g7zdA8C";
/// The 2024-25 Apache listing of RFB's months.
pub const RFB_LISTING: &str = "/dados/cnpj/dados_abertos_cnpj/";

/// The faults the mirror injects; none by default.
#[derive(Debug, Clone, Default)]
pub struct MirrorFaults {
    /// The first GET of each file sends half of what it answers, then resets the connection.
    pub cut: bool,
    /// One GET (the first one not cut) sends a quarter of what it answers, then nothing more
    /// while the connection stays open.
    pub stall: bool,
    /// The first N GETs of files are answered 503 with `Retry-After: 1`.
    pub unavailable: u32,
    /// The first Range request of each file is answered 200 with the whole file.
    pub ignore_range: bool,
    /// The file of this name is served with a wrong CRC in its zip's directory.
    pub bad_crc: Option<String>,
    /// PROPFIND is answered 200 with an HTML page, as a web page at a wrong address is.
    pub html_webdav: bool,
    /// Every listing lists nothing.
    pub empty_listings: bool,
    /// Each answer's body is sent at this many bytes per second at most (a slow server), so a
    /// test can stop a download part-way.
    pub pace: Option<u64>,
}

impl MirrorFaults {
    /// The faults `serve --mirror-fault` names: `cut`, `stall`, `503` (the first three GETs)
    /// and `ignore-range`.
    pub const NAMES: [&'static str; 4] = ["cut", "stall", "503", "ignore-range"];

    /// The faults `names` (of [`Self::NAMES`]) ask for; a name not there asks for nothing.
    pub fn named(names: &[String]) -> Self {
        let has = |f: &str| names.iter().any(|g| g == f);
        Self {
            cut: has("cut"),
            stall: has("stall"),
            unavailable: if has("503") { 3 } else { 0 },
            ignore_range: has("ignore-range"),
            ..Self::default()
        }
    }
}

/// What the mirror sent, for the tests to compare with what the download says it fetched.
#[derive(Debug, Default)]
pub struct MirrorCounters {
    /// File body bytes sent (HEAD and listings not counted), by path under the root.
    sent: Mutex<BTreeMap<String, u64>>,
    /// GETs of files, by path under the root.
    gets: Mutex<BTreeMap<String, u32>>,
    /// Range requests, by path under the root.
    ranges: Mutex<BTreeMap<String, u32>>,
    unavailable: AtomicU32,
    stalled: AtomicU32,
    requests: AtomicU64,
}

impl MirrorCounters {
    /// File body bytes sent in all.
    pub fn bytes_sent(&self) -> u64 {
        self.sent.lock().map(|m| m.values().sum()).unwrap_or(0)
    }

    /// File body bytes sent, by path under the root (`cnpj/2026-09/Empresas0.zip`).
    pub fn bytes_by_file(&self) -> BTreeMap<String, u64> {
        self.sent.lock().map(|m| m.clone()).unwrap_or_default()
    }

    /// Requests of any kind.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    fn add_sent(&self, file: &str, n: u64) {
        if let Ok(mut m) = self.sent.lock() {
            *m.entry(file.to_string()).or_default() += n;
        }
    }

    fn next(map: &Mutex<BTreeMap<String, u32>>, file: &str) -> u32 {
        map.lock()
            .map(|mut m| {
                let n = m.entry(file.to_string()).or_default();
                *n += 1;
                *n
            })
            .unwrap_or(1)
    }
}

pub struct MirrorState {
    pub root: PathBuf,
    pub faults: MirrorFaults,
    pub counters: MirrorCounters,
}

/// A mirror serving on a loopback port until dropped.
pub struct RunningMirror {
    pub addr: SocketAddr,
    pub state: Arc<MirrorState>,
    shutdown: Option<oneshot::Sender<()>>,
}

impl RunningMirror {
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The share link a person sees for `token`.
    pub fn share_link(&self, token: &str) -> String {
        format!("{}/index.php/s/{token}", self.base_url())
    }
}

impl Drop for RunningMirror {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Serves the release under `root` on `addr` (port 0 picks a free one) in a background task.
pub async fn start(root: &Path, faults: MirrorFaults, addr: SocketAddr) -> std::io::Result<RunningMirror> {
    let state =
        Arc::new(MirrorState { root: root.to_path_buf(), faults, counters: MirrorCounters::default() });
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let (tx, rx) = oneshot::channel::<()>();
    let app = Router::new().fallback(answer).with_state(state.clone());
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = rx.await;
            })
            .await
    });
    Ok(RunningMirror { addr, state, shutdown: Some(tx) })
}

/// What a listing and a file's headers say of a file.
struct Facts {
    len: u64,
    etag: String,
    last_modified: String,
}

fn facts(meta: &std::fs::Metadata) -> Facts {
    let modified = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
    let secs = modified.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    Facts {
        len: meta.len(),
        etag: format!("\"{:x}-{secs:x}\"", meta.len()),
        last_modified: httpdate::fmt_http_date(modified),
    }
}

type Shared = Arc<MirrorState>;

/// Where a request's path leads.
enum Target {
    /// An Apache listing or file: the path under the root.
    Apache(String),
    /// The share at one of its WebDAV roots: its token (`None`: the request's HTTP Basic user
    /// carries it) and the path inside it.
    Dav { token: Option<String>, inside: String },
    /// A public list's page, day or file (`lists`).
    Lista(listas::ListaTarget),
}

/// The share's WebDAV roots that carry the token in the path.
const TOKEN_ROOTS: [&str; 2] = ["/public.php/dav/files/", "/remote.php/dav/public-files/"];

/// Where `raw`, a request's path as sent (percent-encoded), leads.
fn target(raw: &str) -> Option<Target> {
    let path = percent_encoding::percent_decode_str(raw).decode_utf8().ok()?;
    if path.split('/').any(|s| s == ".." || s == ".") {
        return None;
    }
    if let Some(rest) = path.strip_prefix("/public.php/webdav") {
        return Some(Target::Dav { token: None, inside: rest.trim_start_matches('/').to_string() });
    }
    for root in TOKEN_ROOTS {
        if let Some(rest) = path.strip_prefix(root) {
            let (token, inside) = rest.split_once('/').unwrap_or((rest, ""));
            return Some(Target::Dav { token: Some(token.to_string()), inside: inside.to_string() });
        }
    }
    if let Some(list) = listas::target(&path) {
        return Some(Target::Lista(list));
    }
    if let Some(rest) = path.strip_prefix(RFB_LISTING) {
        return Some(Target::Apache(format!("cnpj/{rest}")));
    }
    Some(Target::Apache(format!("pgfn/{}", path.trim_start_matches('/'))))
}

/// The token of an HTTP Basic `Authorization` (the user; Nextcloud's share has no password).
fn basic_user(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let encoded = value.strip_prefix("Basic ")?;
    use base64::Engine;
    let decoded = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
    let text = String::from_utf8(decoded).ok()?;
    Some(text.split_once(':').map_or(text.as_str(), |(user, _)| user).to_string())
}

/// The path under the root of `inside`, a path of `token`'s share; `Err` is the share's
/// virtual folder (`Dados/`, `Dados/Cadastros/`) the nested share shows above its months.
fn share_path(token: &str, inside: &str) -> Option<Result<String, String>> {
    match token {
        SHARE_TOKEN => Some(Ok(format!("cnpj/{inside}"))),
        REGIME_TOKEN => Some(Ok(format!("regime_tributario/{inside}"))),
        NESTED_TOKEN => match inside.strip_prefix(NESTED_FOLDERS) {
            Some(rest) => Some(Ok(format!("cnpj/{rest}"))),
            None if NESTED_FOLDERS.starts_with(inside) => Some(Err(inside.to_string())),
            None => None,
        },
        _ => None,
    }
}

fn unauthorized() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Basic realm=\"Nextcloud\", charset=\"UTF-8\"")],
        "<?xml version=\"1.0\"?><d:error xmlns:d=\"DAV:\"><s:message xmlns:s=\"http://sabredav.org/ns\">No public access to this resource.</s:message></d:error>",
    )
        .into_response()
}

async fn answer(State(s): State<Shared>, req: Request) -> Response {
    s.counters.requests.fetch_add(1, Ordering::Relaxed);
    let path = req.uri().path().to_string();
    let (method, headers) = (req.method().clone(), req.headers().clone());
    let Some(target) = target(&path) else { return StatusCode::NOT_FOUND.into_response() };
    match target {
        Target::Dav { token, inside } => {
            let token = token.or_else(|| basic_user(&headers));
            let at = token.as_deref().and_then(|t| share_path(t, &inside));
            match (method.as_str(), at) {
                ("PROPFIND", _) if s.faults.html_webdav => listing::login_page(),
                ("PROPFIND", None) => unauthorized(),
                ("PROPFIND", Some(Ok(under_root))) => listing::propfind(&s, &path, &under_root).await,
                ("PROPFIND", Some(Err(folder))) => listing::propfind_virtual(&path, &folder),
                ("GET" | "HEAD", Some(Ok(under_root))) => {
                    files::file_or_listing(&s, &method, &headers, &path, &under_root).await
                }
                ("GET" | "HEAD", _) => StatusCode::NOT_FOUND.into_response(),
                _ => StatusCode::METHOD_NOT_ALLOWED.into_response(),
            }
        }
        Target::Apache(under_root) if method == Method::GET || method == Method::HEAD => {
            files::file_or_listing(&s, &method, &headers, &path, &under_root).await
        }
        Target::Apache(_) => StatusCode::METHOD_NOT_ALLOWED.into_response(),
        Target::Lista(list) => match (listas::answer(&s, &headers, &list), list) {
            (Some(response), _) => response,
            (None, listas::ListaTarget::File(name) | listas::ListaTarget::Hosted(_, name)) => {
                files::file_or_listing(&s, &method, &headers, &path, &format!("listas/{name}")).await
            }
            (None, _) => StatusCode::NOT_FOUND.into_response(),
        },
    }
}
