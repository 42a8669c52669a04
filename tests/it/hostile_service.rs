//! A service that misbehaves on purpose, one way per scenario, driven through the real client
//! and paginator: every case has a defined outcome (a record read, a warning, or a typed error),
//! never a panic, an endless loop or a list saved short.
//!
//! Scenarios are chosen by `ano_mes` on the credits list and by the CNO on the work lookup.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use fiscal_report::api::models::{CreditoAtivo, Envelope, Obra};
use fiscal_report::api::paginate::walk_pages;
use fiscal_report::api::{AnoMes, ApiError, ApiKey, ClientConfig, Cno, Operation, Page, RegistryClient};

fn json(status: u16, body: String) -> Response {
    let mut r = (StatusCode::from_u16(status).unwrap(), body).into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
    r
}

fn item(i: u64) -> String {
    format!(r#"{{"ano_mes":"202401","uf":"SP","valor_total":"{i},00","cnae_secao_cod":"C"}}"#)
}

fn page(items: &[String], total: i64, offset: u64) -> String {
    format!(
        r#"{{"fonte":{{"status":"ok","versao":"x"}},"itens":[{}],"paginacao":{{"limite":100,"offset":{offset},"total":{total}}}}}"#,
        items.join(",")
    )
}

async fn credits(RawQuery(q): RawQuery) -> Response {
    let q = q.unwrap_or_default();
    let get =
        |k: &str| q.split('&').find_map(|kv| kv.strip_prefix(&format!("{k}="))).unwrap_or("").to_string();
    let offset: u64 = get("offset").parse().unwrap_or(0);
    let n = |count: u64| (offset..offset + count).map(item).collect::<Vec<_>>();
    match get("ano_mes").as_str() {
        // A record with fields missing, null, numeric, and unknown extras.
        "202401" => json(
            200,
            page(
                &[
                    r#"{"uf":null,"valor_total":1234.5,"ano_mes":202401,"extra":{"a":[1]}}"#.into(),
                    "{}".into(),
                ],
                2,
                0,
            ),
        ),
        // An empty page that claims records.
        "202402" => json(200, page(&[], 500, offset)),
        // A total that grows while we read.
        "202403" => json(
            200,
            page(&n(if offset < 200 { 100 } else { 50 }), if offset == 0 { 250 } else { 9_000 }, offset),
        ),
        // A first page longer than limite; the later ones as they should be.
        "202404" => json(200, page(&n(if offset == 0 { 150 } else { 100.min(250 - offset) }), 250, offset)),
        "202405" => json(200, "{\"fonte\": {\"status\": \"ok\"}, \"itens\": [ {\"uf\": ".into()),
        "202406" => json(200, "not json at all".into()),
        "202407" => (StatusCode::OK, "<html><body>maintenance</body></html>").into_response(),
        "202408" => json(200, format!("{{\"itens\":[],\"padding\":\"{}\"}}", "x".repeat(3 * 1024 * 1024))),
        "202409" => {
            // A body that trickles in far slower than the client's timeout allows.
            let stream = futures::stream::unfold(0u32, |i| async move {
                if i > 20 {
                    return None;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
                Some((Ok::<Bytes, std::io::Error>(Bytes::from_static(b" ")), i + 1))
            });
            Response::new(Body::from_stream(stream))
        }
        "202410" => {
            let stream = futures::stream::iter([
                Ok::<Bytes, std::io::Error>(Bytes::from_static(b"{\"itens\": [")),
                Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "gone")),
            ]);
            Response::new(Body::from_stream(stream))
        }
        _ => json(200, page(&[], 0, offset)),
    }
}

/// `/v1/cnos/{cno}`: CNO `0000000SSSJx` answers status SSS, with a JSON body when J = 1.
async fn work(Path(cno): Path<String>) -> Response {
    let status: u16 = cno[7..10].parse().unwrap_or(200);
    let with_json = &cno[10..11] == "1";
    if status == 200 {
        return json(200, r#"{"cno":"000000020010","nome":"OBRA"}"#.into());
    }
    let body = if !with_json {
        "<html>error</html>".to_string()
    } else if status == 422 {
        r#"{"detail":[{"loc":["path","cno"],"msg":"bad","type":"x","input":"1","ctx":{}}]}"#.to_string()
    } else {
        r#"{"detail":"nope"}"#.to_string()
    };
    let mut r = (StatusCode::from_u16(status).unwrap(), body).into_response();
    if status == 429 {
        r.headers_mut().insert(header::RETRY_AFTER, "7".parse().unwrap());
    }
    r
}

async fn start() -> (String, tokio::task::JoinHandle<()>) {
    let app = Router::new().route("/v1/rfb/creditos-ativos", get(credits)).route("/v1/cnos/{cno}", get(work));
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), task)
}

fn client(base: &str) -> RegistryClient {
    let mut cfg = ClientConfig::new(base, ApiKey::new("k"));
    cfg.timeout = Duration::from_secs(1);
    cfg.max_body_bytes = 1024 * 1024;
    RegistryClient::new(&cfg).unwrap()
}

fn credits_op(m: &str) -> Operation {
    Operation::CreditosAtivos { uf: None, ano_mes: Some(AnoMes::parse(m).unwrap()) }
}

async fn walk(
    c: &RegistryClient,
    m: &str,
) -> Result<fiscal_report::api::paginate::Walk<CreditoAtivo>, ApiError> {
    let op = credits_op(m);
    walk_pages("creditos", 4, |p| c.get_page::<CreditoAtivo>(&op, p)).await
}

#[tokio::test]
async fn odd_records_are_read_not_rejected() {
    let (base, _t) = start().await;
    let w = walk(&client(&base), "202401").await.unwrap();
    assert_eq!(w.items.len(), 2);
    assert_eq!(w.items[0].uf, None, "null where a string is expected");
    assert_eq!(
        w.items[0].valor_total.as_deref(),
        Some("1234.5"),
        "a number where a string is expected keeps its text"
    );
    assert_eq!(w.items[0].ano_mes.as_deref(), Some("202401"));
    assert_eq!(w.items[1], CreditoAtivo::default(), "every field missing");
}

#[tokio::test]
async fn inconsistent_pagination_fails_the_list_instead_of_saving_it_short() {
    let (base, _t) = start().await;
    let c = client(&base);
    // An empty page that claims 500 records, however often it is asked.
    let e = walk(&c, "202402").await.unwrap_err();
    assert!(matches!(e, ApiError::IncompleteList { .. }) && e.is_retryable(), "{e}");
    assert!(e.to_string().contains("held 0 records where paginacao.total is 500"), "{e}");
    // A total that grows while we read, on every walk.
    let e = walk(&c, "202403").await.unwrap_err();
    assert!(e.to_string().contains("changed from 250 to 9000"), "{e}");
    // A first page longer than limite is only a warning: nothing is lost or duplicated.
    let w = walk(&c, "202404").await.unwrap();
    let values: Vec<String> = w.items.iter().map(|i| i.valor_total.clone().unwrap()).collect();
    assert_eq!(
        values,
        (0..250).map(|i| format!("{i},00")).collect::<Vec<_>>(),
        "the extra 50 were dropped, none duplicated"
    );
    assert!(w.warnings.iter().any(|m| m.contains("held 150 records for limite 100")), "{:?}", w.warnings);
}

#[tokio::test]
async fn broken_bodies_are_typed_retryable_errors() {
    let (base, _t) = start().await;
    let c = client(&base);
    let first = Page::first();
    let e = |m: &'static str| {
        let c = c.clone();
        async move { c.get_page::<CreditoAtivo>(&credits_op(m), first).await.unwrap_err() }
    };
    assert!(matches!(e("202405").await, ApiError::CutOffBody { .. }), "JSON that ends early");
    let err = e("202406").await;
    assert!(matches!(err, ApiError::InvalidBody { .. }) && err.to_string().contains("not json"), "{err}");
    assert!(matches!(e("202407").await, ApiError::InvalidBody { .. }), "HTML instead of JSON");
    assert!(matches!(e("202408").await, ApiError::BodyTooLarge { limit_mib: 1, .. }), "a huge body");
    assert!(matches!(e("202409").await, ApiError::Timeout { .. }), "a slow trickle");
    // Dropped right after the headers: the client sees a cut-off body or a reset, both retryable.
    assert!(
        matches!(e("202410").await, ApiError::CutOffBody { .. } | ApiError::Connection { .. }),
        "dropped mid-body"
    );
    for m in ["202405", "202406", "202407", "202409", "202410"] {
        assert!(e(m).await.is_retryable(), "{m}");
    }
    assert!(!e("202408").await.is_retryable(), "a huge body will be huge again");
}

#[tokio::test]
async fn every_status_with_and_without_a_json_body() {
    let (base, _t) = start().await;
    let c = client(&base);
    for status in [401u16, 403, 404, 422, 429, 500, 503] {
        for json_body in [true, false] {
            let cno = Cno::parse(&format!("0000000{status}{}0", u8::from(json_body))).unwrap();
            let err = c.get_one::<Obra>(&Operation::Obra(cno)).await.unwrap_err();
            let ok = match (status, &err) {
                (401 | 403, ApiError::KeyRejected { .. }) => true,
                (404, ApiError::NotFound { .. }) => true,
                (422, ApiError::Validation { issues, .. }) => json_body && issues[0].location() == "path.cno",
                (422, ApiError::Refused { .. }) => !json_body,
                (429, ApiError::RateLimited { retry_after }) => *retry_after == Some(Duration::from_secs(7)),
                (500 | 503, ApiError::Server { .. }) => true,
                _ => false,
            };
            assert!(ok, "HTTP {status} (json body: {json_body}) gave {err:?}");
            assert!(!err.to_string().is_empty());
        }
    }
    let one: Obra = c.get_one(&Operation::Obra(Cno::parse("000000020010").unwrap())).await.unwrap();
    assert_eq!(one.nome.as_deref(), Some("OBRA"));
}

#[test]
fn model_decoding_never_panics_on_arbitrary_json() {
    use proptest::prelude::*;
    let json = proptest::collection::vec(
        prop_oneof![
            Just("{".to_string()),
            Just("}".to_string()),
            Just("\"itens\":".to_string()),
            Just("\"paginacao\":{\"total\":".to_string()),
            Just("[".to_string()),
            Just("]".to_string()),
            Just(",".to_string()),
            Just("null".to_string()),
            "-?[0-9]{1,20}(\\.[0-9]{1,5})?".prop_map(|s| s),
            "\"[a-z_]{0,12}\"".prop_map(|s| s),
            ":".prop_map(|s: String| s),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat());
    // 3,000 cases in CI; PROPTEST_CASES runs it longer on demand, as it does the parser properties.
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000);
    proptest!(ProptestConfig::with_cases(cases), |(text in json)| {
        let _ = fiscal_report::api::client::decode::<Envelope<CreditoAtivo>>(text.as_bytes(), "/p");
        let _ = fiscal_report::api::client::decode::<fiscal_report::api::models::CompanyProfile>(text.as_bytes(), "/p");
    });
}

#[tokio::test]
async fn a_redirect_is_reported_and_the_key_never_follows_it() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    // The decoy stands for any other host: it counts every request that reaches it.
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    let decoy = Router::new().fallback(move || {
        let counter = counter.clone();
        async move {
            counter.fetch_add(1, Ordering::SeqCst);
            json(200, r#"{"cno":"000000020010","nome":"DECOY"}"#.into())
        }
    });
    let decoy_listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
    let decoy_addr = decoy_listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(decoy_listener, decoy).await;
    });
    let location = format!("http://{decoy_addr}/v1/cnos/000000020010");
    for status in [StatusCode::MOVED_PERMANENTLY, StatusCode::FOUND, StatusCode::TEMPORARY_REDIRECT] {
        let to = location.clone();
        let app = Router::new().route(
            "/v1/cnos/{cno}",
            get(move || {
                let to = to.clone();
                async move { (status, [(header::LOCATION, to)]).into_response() }
            }),
        );
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        let err = client(&base).get_one::<Obra>(&Operation::Obra(Cno::parse("000000020010").unwrap())).await;
        match err {
            Err(ApiError::Redirected { status: s, ref location, .. }) => {
                assert_eq!(s, status.as_u16());
                assert_eq!(location, &format!("http://{decoy_addr}/v1/cnos/000000020010"));
            }
            other => panic!("HTTP {status} gave {other:?}"),
        }
        let text = err.unwrap_err().to_string();
        assert!(text.contains("--base-url") && !text.contains("DECOY"), "{text}");
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0, "a request (with its key) reached the other address");
}

#[tokio::test]
async fn a_request_waits_out_many_429s_but_few_faults() {
    use fiscal_report::extract::accounting::Accounting;
    use fiscal_report::extract::{PageFetcher, RetryPolicy};
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    let (base, _t) = start().await;
    let policy = RetryPolicy {
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(2),
        // The test service asks for 7 s; waiting that long would only slow the test.
        max_retry_after: Duration::from_millis(2),
        ..RetryPolicy::default()
    };
    let sent = |status: &str| {
        let (base, policy) = (base.clone(), policy.clone());
        let cno = Cno::parse(&format!("0000000{status}10")).unwrap();
        async move {
            let f = PageFetcher::new(client(&base), 4, None, policy, Arc::new(Accounting::default()));
            let e = f.one::<Obra>(&Operation::Obra(cno)).await.unwrap_err();
            (e, f.accounting.requests.load(Ordering::Relaxed) as usize)
        }
    };
    let (e, n) = sent("429").await;
    assert!(matches!(e, ApiError::RateLimited { .. }), "{e}");
    assert_eq!(
        n,
        1 + policy.max_rate_limited,
        "a rate limit is waited out {} times",
        policy.max_rate_limited
    );
    let (e, n) = sent("500").await;
    assert!(matches!(e, ApiError::Server { status: 500, .. }), "{e}");
    assert_eq!(n, policy.max_attempts, "faults end a request after max_attempts");
    let (_, n) = sent("404").await;
    assert_eq!(n, 1, "a 404 is an answer, not a fault");
}
