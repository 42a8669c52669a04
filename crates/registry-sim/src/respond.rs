//! The embedded registry's bodies as the service writes them (`docs/service-api.md` §4.1, §7):
//! a page in its envelope, and the error bodies. Used by the routes over the dataset (`server`)
//! and over published files (`published`).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::validate::Checks;
use registry_api::models::{DetailBody, Envelope, Fonte, Paginacao, ValidationBody};

/// `body` as JSON with `status`.
pub(super) fn json_response(status: StatusCode, body: &impl Serialize) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => {
            let mut r = (status, bytes).into_response();
            r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            r
        }
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

pub(super) fn detail(status: StatusCode, text: &str) -> Response {
    json_response(status, &DetailBody { detail: text.to_string() })
}

pub(super) fn not_found() -> Response {
    detail(StatusCode::NOT_FOUND, "Not Found")
}

pub(super) fn unprocessable(checks: Checks) -> Response {
    json_response(StatusCode::UNPROCESSABLE_ENTITY, &ValidationBody { detail: checks.issues })
}

/// Page `offset..offset + limite` of `items` in the service's envelope.
pub(super) fn envelope<T: Serialize + Clone>(
    items: &[T],
    total: usize,
    limite: usize,
    offset: usize,
    fonte: Fonte,
) -> Response {
    let start = offset.min(items.len());
    let end = (start + limite).min(items.len());
    page_response(items[start..end].to_vec(), total, limite, offset, fonte)
}

pub(super) fn page_response<T: Serialize>(
    itens: Vec<T>,
    total: usize,
    limite: usize,
    offset: usize,
    fonte: Fonte,
) -> Response {
    let env = Envelope {
        fonte: Some(fonte),
        itens,
        paginacao: Some(Paginacao {
            limite: Some(limite as i64),
            offset: Some(offset as i64),
            total: Some(total as i64),
        }),
    };
    json_response(StatusCode::OK, &env)
}
