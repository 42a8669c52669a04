//! The public lists as their publishers serve them, from the mirror folder's `listas/`: CGU's
//! Portal da Transparência (a page per list, `/download-de-dados/ceis`, naming its days in
//! `arquivos.push({"ano":…,"mes":…,"dia":…})`; a day's address, `/download-de-dados/ceis/
//! YYYYMMDD`, redirecting (302) to its zip `YYYYMMDD_CEIS.zip`; no answer without a
//! User-Agent, as the real site refuses those), and the labour ministry's and IBAMA's single
//! files, at any path ending in their names.

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::MirrorState;

/// Where a list's request leads.
pub(super) enum ListTarget {
    /// The list's page (`ceis`, `cnep`, `cepim`, `acordos-leniencia`).
    Page(String),
    /// A day's address of a list: `(list, YYYYMMDD)`.
    Day(String, String),
    /// A file of `listas/`, by name.
    File(String),
}

pub(super) const PORTAL: &str = "/download-de-dados/";
/// Where a day's address redirects (the portal's files are on a download host of their own).
pub(super) const SAIDA: &str = "/saida/";
pub(super) const SINGLE_FILES: [&str; 2] = ["cadastro_de_empregadores.csv", "termo_de_embargo.csv"];

pub(super) fn target(path: &str) -> Option<ListTarget> {
    if let Some(rest) = path.strip_prefix(PORTAL) {
        return Some(match rest.trim_end_matches('/').split_once('/') {
            Some((list, day)) => ListTarget::Day(list.to_string(), day.to_string()),
            None => ListTarget::Page(rest.trim_end_matches('/').to_string()),
        });
    }
    if let Some(rest) = path.strip_prefix(SAIDA) {
        return rest.rsplit('/').next().map(|name| ListTarget::File(name.to_string()));
    }
    let name = path.rsplit('/').next()?;
    SINGLE_FILES.contains(&name).then(|| ListTarget::File(name.to_string()))
}

/// What a list's zips are named after the day: `CEIS`, `CNEP`, `CEPIM`, or the agreements'.
fn stem_matches(list: &str, stem: &str) -> bool {
    let stem = stem.to_ascii_uppercase();
    match list {
        "acordos-leniencia" => stem.contains("ACORDO") || stem.contains("LENIENCIA"),
        other => stem == other.to_ascii_uppercase(),
    }
}

/// The zips of `list` in `listas/`: `(day, file name)`, oldest first.
fn days(s: &MirrorState, list: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(s.root.join("listas"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter_map(|name| {
            let (day, rest) = name.split_once('_')?;
            let stem = rest.strip_suffix(".zip")?;
            (day.len() == 8 && day.bytes().all(|b| b.is_ascii_digit()) && stem_matches(list, stem))
                .then(|| (day.to_string(), name.clone()))
        })
        .collect();
    out.sort();
    out
}

/// The list's page or a day's redirect; `None` for a file (the caller serves it).
pub(super) fn answer(s: &MirrorState, headers: &HeaderMap, target: &ListTarget) -> Option<Response> {
    if headers.get(header::USER_AGENT).is_none() {
        return Some((StatusCode::FORBIDDEN, "Acesso negado").into_response());
    }
    match target {
        ListTarget::Page(list) => {
            let pushes: String = days(s, list)
                .iter()
                .map(|(d, _)| {
                    format!(
                        "arquivos.push({{\"ano\":\"{}\",\"mes\":\"{}\",\"dia\":\"{}\",\"origem\":\"{list}\"}});\n",
                        &d[..4],
                        &d[4..6],
                        &d[6..]
                    )
                })
                .collect();
            let page = format!(
                "<!DOCTYPE html><html lang=\"pt-br\"><head><title>Portal da Transparência - Download de dados</title></head>\
                 <body><h1>Download de dados</h1><script>\nvar arquivos = [];\n{pushes}</script></body></html>"
            );
            Some(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response())
        }
        ListTarget::Day(list, day) => Some(match days(s, list).into_iter().find(|(d, _)| d == day) {
            Some((_, name)) => {
                (StatusCode::FOUND, [(header::LOCATION, format!("{SAIDA}{list}/{name}"))]).into_response()
            }
            None => StatusCode::NOT_FOUND.into_response(),
        }),
        ListTarget::File(_) => None,
    }
}
