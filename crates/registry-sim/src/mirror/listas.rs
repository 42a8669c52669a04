//! The public lists as their publishers serve them, from the mirror folder's `listas/`:
//! - CGU's Portal da Transparência: a page per list, `/download-de-dados/ceis`, naming its days
//!   in `arquivos.push({"ano":…,"mes":…,"dia":…})`; a day's address,
//!   `/download-de-dados/ceis/YYYYMMDD`, redirecting (302) to its zip on the file host. Like the
//!   real portal it answers 405 to a client that does not introduce itself as a browser
//!   (`Mozilla/…`).
//! - CGU's file host, `[/PortalDaTransparencia]/saida/<list>/YYYYMMDD_<NAME>.zip`: the zip, or
//!   403 (`AccessDenied`, as its storage answers) for a day it does not hold.
//! - The lists published as one file (the labour ministry's, IBAMA's), at any path ending in
//!   their names.

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use registry_api::listas::Lista;

use super::MirrorState;

/// Where a list's request leads.
pub(super) enum ListaTarget {
    /// The list's page (`ceis`, `cnep`, `cepim`, `acordos-leniencia`).
    Page(String),
    /// A day's address of a list: `(list, YYYYMMDD)`.
    Day(String, String),
    /// A file of `listas/`, by name.
    File(String),
    /// A zip on CGU's file host: `(list, file name)`.
    Hosted(String, String),
}

pub(super) const PORTAL: &str = "/download-de-dados/";
/// Where a day's address redirects (the portal's files are on a download host of their own).
pub(super) const SAIDA: &str = "/saida/";
/// The path CGU's file host keeps `saida/` under.
const HOST_PREFIX: &str = "/PortalDaTransparencia";

pub(super) fn target(path: &str) -> Option<ListaTarget> {
    if let Some(rest) = path.strip_prefix(PORTAL) {
        return Some(match rest.trim_end_matches('/').split_once('/') {
            Some((list, day)) => ListaTarget::Day(list.to_string(), day.to_string()),
            None => ListaTarget::Page(rest.trim_end_matches('/').to_string()),
        });
    }
    if let Some(rest) = path.strip_prefix(HOST_PREFIX).unwrap_or(path).strip_prefix(SAIDA) {
        let (list, name) = rest.split_once('/').unwrap_or((rest, ""));
        return Some(ListaTarget::Hosted(list.to_string(), name.to_string()));
    }
    let name = path.rsplit('/').next()?;
    let single = Lista::of_name(name).is_some_and(|l| l.definicao().endereco().is_some());
    single.then(|| ListaTarget::File(name.to_string()))
}

/// The zips of `list` (its CGU folder) in `listas/`: `(day, file name)`, oldest first; a
/// monthly list's "day" is its month (`YYYYMM`). A zip is the list's when `api::listas` names
/// it so and CGU's stamp dates it.
fn days(s: &MirrorState, list: &str) -> Vec<(String, String)> {
    let Some(wanted) = Lista::of_cgu_folder(list) else { return Vec::new() };
    let mut out: Vec<(String, String)> = std::fs::read_dir(s.root.join("listas"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".zip") && Lista::of_name(name) == Some(wanted))
        .filter_map(|name| Some((registry_api::listas::cgu_stamp(&name)?.to_string(), name)))
        .collect();
    out.sort();
    out
}

/// Whether the request introduces itself as a browser does.
fn browser(headers: &HeaderMap) -> bool {
    headers.get(header::USER_AGENT).and_then(|v| v.to_str().ok()).is_some_and(|ua| ua.starts_with("Mozilla/"))
}

/// What the file host's storage answers for a key it does not hold, or for a client it refuses.
fn access_denied() -> Response {
    (
        StatusCode::FORBIDDEN,
        [(header::CONTENT_TYPE, "application/xml")],
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>",
    )
        .into_response()
}

/// The list's page or a day's redirect, or a refusal; `None` for a file (the caller serves it).
pub(super) fn answer(s: &MirrorState, headers: &HeaderMap, target: &ListaTarget) -> Option<Response> {
    if let ListaTarget::Hosted(list, name) = target {
        let held = days(s, list).iter().any(|(_, n)| n == name);
        return (!held || headers.get(header::USER_AGENT).is_none()).then(access_denied);
    }
    if !matches!(target, ListaTarget::File(_)) && !browser(headers) {
        return Some((StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed").into_response());
    }
    match target {
        ListaTarget::Page(list) => {
            let pushes: String = days(s, list)
                .iter()
                .map(|(d, _)| {
                    // A monthly list's files are named by month: its entries say no day.
                    let day = d.get(6..).map(|day| format!("\"dia\":\"{day}\","));
                    format!(
                        "arquivos.push({{\"ano\":\"{}\",\"mes\":\"{}\",{}\"origem\":\"{list}\"}});\n",
                        &d[..4],
                        &d[4..6],
                        day.unwrap_or_default()
                    )
                })
                .collect();
            let page = format!(
                "<!DOCTYPE html><html lang=\"pt-br\"><head><title>Portal da Transparência - Download de dados</title></head>\
                 <body><h1>Download de dados</h1><script>\nvar arquivos = [];\n{pushes}</script></body></html>"
            );
            Some(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response())
        }
        ListaTarget::Day(list, day) => Some(match days(s, list).into_iter().find(|(d, _)| d == day) {
            Some((_, name)) => {
                (StatusCode::FOUND, [(header::LOCATION, format!("{SAIDA}{list}/{name}"))]).into_response()
            }
            None => StatusCode::NOT_FOUND.into_response(),
        }),
        ListaTarget::File(_) | ListaTarget::Hosted(..) => None,
    }
}
