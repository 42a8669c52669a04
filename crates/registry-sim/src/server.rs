//! The HTTP face of the embedded registry: the 14 routes of `docs/service-api.md` §4.2 over a
//! `Dataset`, with the service's envelope, error bodies (§7), key check (§5), rate limit and injected
//! faults.
//!
//! It decides status codes and bodies; the records themselves come from `dataset`.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::dataset::Dataset;
use super::faults::{Fault, FaultPlan};
use super::respond::{detail, envelope, json_response, not_found, page_response, unprocessable};
use super::validate::Checks;
use registry_api::{ApiKey, Cnpj};

pub struct ServerState {
    pub dataset: Arc<Dataset>,
    pub key: ApiKey,
    pub faults: FaultPlan,
    /// Requests answered, by outcome: lets tests compare the client's accounting with ours.
    pub counters: Counters,
    /// The company whose debts are the real published rows of `--real-debts`, if any.
    pub real_debtor: Option<Cnpj>,
}

#[derive(Debug, Default)]
pub struct Counters {
    pub requests: AtomicU64,
    pub rate_limited: AtomicU64,
    pub faults: AtomicU64,
}

type Shared = Arc<ServerState>;

fn query_map(raw: Option<String>) -> BTreeMap<String, String> {
    raw.map(|q| url::form_urlencoded::parse(q.as_bytes()).into_owned().collect()).unwrap_or_default()
}

/// A nullable filter: absent, empty or the literal `null` all mean "no filter".
fn filter(q: &BTreeMap<String, String>, name: &str) -> Option<String> {
    q.get(name).map(|s| s.trim().to_string()).filter(|s| !s.is_empty() && s != "null")
}

/// Which company list a route serves.
#[derive(Clone, Copy)]
enum CompanyList {
    Estabelecimentos,
    Obras,
    Socios,
    Dividas,
    Parcelamentos,
    Transacoes,
}

async fn company_profile(State(s): State<Shared>, Path(cnpj): Path<String>) -> Response {
    let mut checks = Checks::default();
    checks.digits("cnpj", &cnpj, 14);
    if !checks.issues.is_empty() {
        return unprocessable(checks);
    }
    match Cnpj::parse(&cnpj).ok().and_then(|c| s.dataset.profile(&c)) {
        Some(mut p) => {
            s.faults.sources().profile(&mut p);
            json_response(StatusCode::OK, &p)
        }
        None => not_found(),
    }
}

async fn company_list(s: Shared, list: CompanyList, cnpj: String, raw: Option<String>) -> Response {
    let q = query_map(raw);
    let mut checks = Checks::default();
    checks.digits("cnpj", &cnpj, 14);
    let categoria = matches!(list, CompanyList::Dividas)
        .then(|| checks.categoria(q.get("categoria").map(String::as_str)));
    let (limite, offset) =
        checks.page(q.get("limite").map(String::as_str), q.get("offset").map(String::as_str));
    if !checks.issues.is_empty() {
        return unprocessable(checks);
    }
    let Ok(cnpj) = Cnpj::parse_published(&cnpj) else { return not_found() };
    let d = &s.dataset;
    let sources = s.faults.sources();
    macro_rules! serve {
        ($items:expr, $src:expr) => {
            match $items {
                Some(items) => {
                    envelope(&items, items.len(), limite, offset, sources.fonte($src, d.fonte_for($src)))
                }
                None => not_found(),
            }
        };
    }
    // The records that date their release say the overridden one too.
    macro_rules! dated {
        ($items:expr, $set:ident) => {
            $items.map(|mut items| {
                sources.$set(&mut items);
                items
            })
        };
    }
    match list {
        CompanyList::Estabelecimentos => serve!(dated!(d.estabelecimentos(&cnpj), estabelecimentos), "cnpj"),
        CompanyList::Obras => serve!(d.obras(&cnpj), "cno"),
        CompanyList::Socios => serve!(dated!(d.socios(&cnpj), socios), "cnpj"),
        CompanyList::Dividas => {
            let categoria = categoria.unwrap_or(registry_api::Categoria::NaoPrevidenciario);
            let real = s.faults.real_debts(categoria).filter(|_| s.real_debtor.as_ref() == Some(&cnpj));
            let items = match real {
                Some(items) => Some(items.clone()),
                None => d.dividas(&cnpj, categoria),
            };
            serve!(dated!(items, dividas), "pgfn")
        }
        CompanyList::Parcelamentos => serve!(d.parcelamentos(&cnpj), "rfb"),
        CompanyList::Transacoes => serve!(d.transacoes(&cnpj), "rfb"),
    }
}

/// Which work list a route serves.
#[derive(Clone, Copy)]
enum WorkList {
    Vinculos,
    Cnaes,
    Areas,
}

async fn work(State(s): State<Shared>, Path(cno): Path<String>) -> Response {
    let mut checks = Checks::default();
    checks.digits("cno", &cno, 12);
    if !checks.issues.is_empty() {
        return unprocessable(checks);
    }
    s.dataset.obra(&cno).map(|o| json_response(StatusCode::OK, &o)).unwrap_or_else(not_found)
}

async fn work_list(s: Shared, list: WorkList, cno: String, raw: Option<String>) -> Response {
    let q = query_map(raw);
    let mut checks = Checks::default();
    checks.digits("cno", &cno, 12);
    let (limite, offset) =
        checks.page(q.get("limite").map(String::as_str), q.get("offset").map(String::as_str));
    if !checks.issues.is_empty() {
        return unprocessable(checks);
    }
    let d = &s.dataset;
    let fonte = s.faults.sources().fonte("cno", d.fonte_for("cno"));
    match list {
        WorkList::Vinculos => d.vinculos(&cno).map(|i| envelope(&i, i.len(), limite, offset, fonte)),
        WorkList::Cnaes => d.cnaes(&cno).map(|i| envelope(&i, i.len(), limite, offset, fonte)),
        WorkList::Areas => d.areas(&cno).map(|i| envelope(&i, i.len(), limite, offset, fonte)),
    }
    .unwrap_or_else(not_found)
}

async fn properties(State(s): State<Shared>, RawQuery(raw): RawQuery) -> Response {
    let q = query_map(raw);
    let mut checks = Checks::default();
    let (limite, offset) =
        checks.page(q.get("limite").map(String::as_str), q.get("offset").map(String::as_str));
    if !checks.issues.is_empty() {
        return unprocessable(checks);
    }
    let items = s.dataset.imoveis(filter(&q, "uf").as_deref(), filter(&q, "municipio").as_deref());
    envelope(
        &items,
        items.len(),
        limite,
        offset,
        s.faults.sources().fonte("cafir", s.dataset.fonte_for("cafir")),
    )
}

async fn property(State(s): State<Shared>, Path(nirf): Path<String>) -> Response {
    let mut checks = Checks::default();
    checks.digits("nirf", &nirf, 8);
    if !checks.issues.is_empty() {
        return unprocessable(checks);
    }
    s.dataset.imovel(&nirf).map(|p| json_response(StatusCode::OK, &p)).unwrap_or_else(not_found)
}

async fn credits(State(s): State<Shared>, RawQuery(raw): RawQuery) -> Response {
    let q = query_map(raw);
    let mut checks = Checks::default();
    let ano_mes = checks.ano_mes(filter(&q, "ano_mes").as_deref());
    let (limite, offset) =
        checks.page(q.get("limite").map(String::as_str), q.get("offset").map(String::as_str));
    if !checks.issues.is_empty() {
        return unprocessable(checks);
    }
    let uf = filter(&q, "uf");
    let d = &s.dataset;
    let total = d.creditos_total(uf.as_deref(), ano_mes);
    let items = d.creditos_page(uf.as_deref(), ano_mes, offset, limite);
    page_response(items, total, limite, offset, s.faults.sources().fonte("rfb", d.fonte_for("rfb")))
}

/// Key check, rate limit, queue (with `--capacity`), latency and faults, in the order a real
/// gateway and its workers apply them. The
/// answer is made while the latency runs and sent when it is over: a service `--latency-ms`
/// away answers that long after the request, its own work included.
async fn gate(State(s): State<Shared>, req: Request, next: Next) -> Response {
    let arrived = std::time::Instant::now();
    s.counters.requests.fetch_add(1, Ordering::Relaxed);
    let key_ok = req.headers().get("x-api-key").map(|v| v.as_bytes() == s.key.expose().as_bytes());
    match key_ok {
        None => return detail(StatusCode::UNAUTHORIZED, "Not authenticated: send the X-API-Key header"),
        Some(false) => return detail(StatusCode::UNAUTHORIZED, "Invalid API key"),
        Some(true) => {}
    }
    if let Some(wait) = s.faults.over_rate_limit() {
        s.counters.rate_limited.fetch_add(1, Ordering::Relaxed);
        return too_many(wait.as_secs_f64().ceil().max(1.0) as u64);
    }
    // With a finite capacity the request queues for a worker first: its service time (the
    // latency) starts when one takes it, so the answer comes later the longer the queue.
    let worker = s.faults.worker().await;
    let served = if worker.is_some() { std::time::Instant::now() } else { arrived };
    let answer = answer(&s, req, next).await;
    s.faults.wait_latency(served).await;
    drop(worker);
    answer
}

/// The answer to a request past the key check and the rate limit: the route's, or the fault
/// drawn for it.
async fn answer(s: &ServerState, req: Request, next: Next) -> Response {
    let fault = s.faults.draw();
    if fault.is_some() {
        s.counters.faults.fetch_add(1, Ordering::Relaxed);
    }
    match fault {
        None => match s.faults.shape_change() {
            None => next.run(req).await,
            Some((add, drop)) => reshaped(next.run(req).await, add, drop).await,
        },
        Some(Fault::ServerError(code)) => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            if code == 503 {
                // Gateways answer 503 with HTML, not JSON: the client must cope with both.
                (status, "<html><body><h1>503 Service Unavailable</h1></body></html>").into_response()
            } else {
                detail(status, "Internal Server Error")
            }
        }
        Some(Fault::TooManyRequests) => too_many(1),
        Some(Fault::DropConnection) => {
            let stream = futures::stream::once(async {
                Err::<Bytes, std::io::Error>(std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "dropped",
                ))
            });
            Response::new(Body::from_stream(stream))
        }
        Some(Fault::ShortPage) => {
            let resp = next.run(req).await;
            let (mut parts, body) = resp.into_parts();
            let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
            // Only a list page with records can run short; anything else goes out as it was.
            let shortened = serde_json::from_slice::<serde_json::Value>(&bytes).ok().and_then(|mut v| {
                let itens = v.get_mut("itens")?.as_array_mut()?;
                if itens.is_empty() {
                    return None;
                }
                itens.truncate(itens.len() / 2);
                serde_json::to_vec(&v).ok()
            });
            match shortened {
                Some(b) => {
                    parts.headers.remove(header::CONTENT_LENGTH);
                    Response::from_parts(parts, Body::from(b))
                }
                None => Response::from_parts(parts, Body::from(bytes)),
            }
        }
        Some(fault @ (Fault::CutOffStream | Fault::TruncatedJson)) => {
            let resp = next.run(req).await;
            let (parts, body) = resp.into_parts();
            let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
            let half = bytes.slice(..bytes.len() / 2);
            if fault == Fault::TruncatedJson {
                // Framing intact, JSON cut: a proxy that truncated the payload.
                return Response::from_parts(parts, Body::from(half));
            }
            let stream = futures::stream::iter([
                Ok::<Bytes, std::io::Error>(half),
                Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "cut off")),
            ]);
            let mut parts = parts;
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from_stream(stream))
        }
    }
}

/// A successful answer whose records gained the field `add` and lost the field `drop`: a
/// service that changed its shape. Error bodies go out as they were.
async fn reshaped(resp: Response, add: Option<&str>, drop: Option<&str>) -> Response {
    if resp.status() != StatusCode::OK {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
    let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    let change = |record: &mut serde_json::Value| {
        if let Some(map) = record.as_object_mut() {
            if let Some(name) = add {
                map.insert(name.to_string(), serde_json::Value::String("valor novo".into()));
            }
            if let Some(name) = drop {
                map.remove(name);
            }
        }
    };
    match value.get_mut("itens").and_then(|i| i.as_array_mut()) {
        Some(items) => items.iter_mut().for_each(change),
        None => change(&mut value),
    }
    match serde_json::to_vec(&value) {
        Ok(b) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(b))
        }
        Err(_) => Response::from_parts(parts, Body::from(bytes)),
    }
}

fn too_many(retry_after_secs: u64) -> Response {
    let mut r = detail(StatusCode::TOO_MANY_REQUESTS, "Too Many Requests");
    if let Ok(v) = HeaderValue::from_str(&retry_after_secs.to_string()) {
        r.headers_mut().insert(header::RETRY_AFTER, v);
    }
    r
}

pub fn router(state: Shared) -> Router {
    let cl = |list: CompanyList| {
        move |State(s): State<Shared>, Path(cnpj): Path<String>, RawQuery(raw): RawQuery| {
            company_list(s, list, cnpj, raw)
        }
    };
    let wl = |list: WorkList| {
        move |State(s): State<Shared>, Path(cno): Path<String>, RawQuery(raw): RawQuery| {
            work_list(s, list, cno, raw)
        }
    };
    Router::new()
        .route("/v1/cnpjs/{cnpj}", get(company_profile))
        .route("/v1/cnpjs/{cnpj}/estabelecimentos", get(cl(CompanyList::Estabelecimentos)))
        .route("/v1/cnpjs/{cnpj}/obras-cno", get(cl(CompanyList::Obras)))
        .route("/v1/cnpjs/{cnpj}/socios", get(cl(CompanyList::Socios)))
        .route("/v1/cnpjs/{cnpj}/dividas-pgfn", get(cl(CompanyList::Dividas)))
        .route("/v1/cnpjs/{cnpj}/parcelamentos-rfb", get(cl(CompanyList::Parcelamentos)))
        .route("/v1/cnpjs/{cnpj}/transacoes-rfb", get(cl(CompanyList::Transacoes)))
        .route("/v1/cnos/{cno}", get(work))
        .route("/v1/cnos/{cno}/vinculos", get(wl(WorkList::Vinculos)))
        .route("/v1/cnos/{cno}/cnaes", get(wl(WorkList::Cnaes)))
        .route("/v1/cnos/{cno}/areas", get(wl(WorkList::Areas)))
        .route("/v1/cafir/imoveis", get(properties))
        .route("/v1/cafir/imoveis/{nirf}", get(property))
        .route("/v1/rfb/creditos-ativos", get(credits))
        .fallback(|| async { not_found() })
        .layer(middleware::from_fn_with_state(state.clone(), gate))
        .with_state(state)
}

/// Serves until `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Shared,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router(state).into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await
}
