//! The mirror's listings: an Apache directory index (PGFN; RFB 2024-25) and a Nextcloud
//! share's WebDAV `207 Multi-Status`, with what each real server puts in them, and the HTML
//! page a wrong address answers with.

use std::fmt::Write;
use std::path::Path;
use std::time::UNIX_EPOCH;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::MirrorState;
use super::{Facts, facts};

/// What a name becomes in an href: every byte but ASCII letters, digits and `-._~`
/// percent-encoded, as Nextcloud and Apache write names with spaces or accents.
fn encoded(name: &str) -> String {
    const KEEP: &percent_encoding::AsciiSet =
        &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');
    percent_encoding::utf8_percent_encode(name, KEEP).to_string()
}

/// A folder's children, folders first, each by name, sorted, with its facts.
async fn children(s: &MirrorState, dir: &Path) -> Vec<(String, bool, Facts)> {
    let mut out = Vec::new();
    if s.faults.empty_listings {
        return out;
    }
    let Ok(mut entries) = tokio::fs::read_dir(dir).await else { return out };
    while let Ok(Some(entry)) = entries.next_entry().await {
        let (Ok(meta), Some(name)) = (entry.metadata().await, entry.file_name().to_str().map(String::from))
        else {
            continue;
        };
        out.push((name, meta.is_dir(), facts(&meta)));
    }
    out.sort_by(|a, b| (!a.1, &a.0).cmp(&(!b.1, &b.0)));
    out
}

/// `YYYY-MM-DD HH:MM` of an HTTP date's instant, as Apache's index shows it.
fn apache_date(http_date: &str) -> String {
    let secs = httpdate::parse_http_date(http_date)
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}", rest / 3600, rest % 3600 / 60)
}

/// A size as Apache's index shows it: `22K`, `1.2M`.
fn apache_size(len: u64) -> String {
    match len {
        n if n < 1024 => format!("{n}"),
        n if n < 1024 * 1024 => format!("{}K", n.div_ceil(1024)),
        n if n < 1024 * 1024 * 1024 => format!("{:.1}M", n as f64 / (1024.0 * 1024.0)),
        n => format!("{:.1}G", n as f64 / (1024.0 * 1024.0 * 1024.0)),
    }
}

/// Apache's `Index of` page for `url_path`.
pub(super) async fn apache(s: &MirrorState, url_path: &str, dir: &Path) -> Response {
    let title = url_path.trim_end_matches('/');
    let mut html = format!(
        "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 3.2 Final//EN\">\n<html>\n <head>\n  <title>Index of \
         {title}</title>\n </head>\n <body>\n<h1>Index of {title}</h1>\n  <table>\n   <tr><th valign=\"top\"><img \
         src=\"/icons/blank.gif\" alt=\"[ICO]\"></th><th><a href=\"?C=N;O=D\">Name</a></th><th><a \
         href=\"?C=M;O=A\">Last modified</a></th><th><a href=\"?C=S;O=A\">Size</a></th><th><a \
         href=\"?C=D;O=A\">Description</a></th></tr>\n   <tr><th colspan=\"5\"><hr></th></tr>\n<tr><td \
         valign=\"top\"><img src=\"/icons/back.gif\" alt=\"[PARENTDIR]\"></td><td><a href=\"/\">Parent \
         Directory</a></td><td>&nbsp;</td><td align=\"right\">  - </td><td>&nbsp;</td></tr>\n"
    );
    for (name, is_dir, f) in children(s, dir).await {
        let (icon, href, size) = if is_dir {
            ("folder.gif", format!("{}/", encoded(&name)), "  - ".to_string())
        } else {
            ("compressed.gif", encoded(&name), apache_size(f.len))
        };
        let _ = writeln!(
            html,
            "<tr><td valign=\"top\"><img src=\"/icons/{icon}\" alt=\"[   ]\"></td><td><a \
             href=\"{href}\">{href}</a></td><td align=\"right\">{}  </td><td align=\"right\">{size}</td><td>&nbsp;</td></tr>",
            apache_date(&f.last_modified)
        );
    }
    html.push_str("   <tr><th colspan=\"5\"><hr></th></tr>\n</table>\n</body></html>\n");
    ([(header::CONTENT_TYPE, "text/html;charset=UTF-8")], html).into_response()
}

/// One `d:response` of a multistatus.
fn dav_response(out: &mut String, href: &str, is_dir: bool, f: &Facts) {
    let kind = if is_dir { "<d:resourcetype><d:collection/></d:resourcetype>" } else { "<d:resourcetype/>" };
    let length = if is_dir {
        format!("<d:quota-used-bytes>{}</d:quota-used-bytes>", f.len)
    } else {
        format!(
            "<d:getcontentlength>{}</d:getcontentlength><d:getcontenttype>application/zip</d:getcontenttype>",
            f.len
        )
    };
    let etag = f.etag.replace('"', "&quot;");
    let _ = write!(
        out,
        "<d:response><d:href>{href}</d:href><d:propstat><d:prop><d:getlastmodified>{}</d:getlastmodified>{length}\
         {kind}<d:getetag>{etag}</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>",
        f.last_modified
    );
}

fn multistatus(body: String) -> Response {
    let xml = format!(
        "<?xml version=\"1.0\"?>\n<d:multistatus xmlns:d=\"DAV:\" xmlns:s=\"http://sabredav.org/ns\" \
         xmlns:oc=\"http://owncloud.org/ns\" xmlns:nc=\"http://nextcloud.org/ns\">{body}</d:multistatus>\n"
    );
    let status = StatusCode::from_u16(207).unwrap_or(StatusCode::OK);
    (status, [(header::CONTENT_TYPE, "application/xml; charset=utf-8")], xml).into_response()
}

fn folder_href(url_path: &str) -> String {
    if url_path.ends_with('/') { url_path.to_string() } else { format!("{url_path}/") }
}

/// `PROPFIND` (Depth: 1) on `url_path`, the share's folder or file at `under_root`.
pub(super) async fn propfind(s: &MirrorState, url_path: &str, under_root: &str) -> Response {
    let disk = s.root.join(under_root);
    let Ok(meta) = tokio::fs::metadata(&disk).await else { return StatusCode::NOT_FOUND.into_response() };
    let mut body = String::new();
    if meta.is_file() {
        dav_response(&mut body, url_path, false, &facts(&meta));
        return multistatus(body);
    }
    let href = folder_href(url_path);
    dav_response(&mut body, &href, true, &facts(&meta));
    for (name, is_dir, f) in children(s, &disk).await {
        let name = encoded(&name);
        let child = if is_dir { format!("{href}{name}/") } else { format!("{href}{name}") };
        dav_response(&mut body, &child, is_dir, &f);
    }
    multistatus(body)
}

/// `PROPFIND` on a folder the nested share shows above its months (`""`, `Dados/`,
/// `Dados/Cadastros/`): itself and the one folder inside.
pub(super) fn propfind_virtual(url_path: &str, folder: &str) -> Response {
    let href = folder_href(url_path);
    let below = super::NESTED_FOLDERS[folder.len()..].split('/').next().unwrap_or("");
    let f = Facts { len: 0, etag: "\"0\"".into(), last_modified: httpdate::fmt_http_date(UNIX_EPOCH) };
    let mut body = String::new();
    dav_response(&mut body, &href, true, &f);
    dav_response(&mut body, &format!("{href}{below}/"), true, &f);
    multistatus(body)
}

/// What a web server answers at an address that is a page, not a WebDAV folder.
pub(super) fn login_page() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=UTF-8")],
        "<!DOCTYPE html>\n<html><head><title>Nextcloud</title></head><body><form \
         method=\"post\" name=\"login\"></form></body></html>\n",
    )
        .into_response()
}
