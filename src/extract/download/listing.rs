//! Finding a release: the month or quarter folders a publisher lists, the one asked for (the
//! latest by default), and its files. RFB's share is listed over WebDAV (`PROPFIND`, Depth 1,
//! HTTP Basic `TOKEN:`), its months at the share's root or under `Dados/Cadastros/CNPJ/`; RFB's
//! 2024-25 listing and PGFN's are Apache indexes. A listing that is not what its address
//! promises is an error naming the address and what was expected, never an empty release.

use std::time::Duration;

use url::Url;

use super::{DownloadError, Pick, Remote, is_month, is_quarter};

/// A release found: its month or quarter, the listing it came from, its files.
pub(super) struct Release {
    pub period: String,
    pub files: Vec<Remote>,
}

/// Where the nested share keeps its month folders.
const NESTED: &str = "Dados/Cadastros/CNPJ/";

fn layout(url: &str, problem: impl Into<String>, expected: &str) -> DownloadError {
    DownloadError::Layout { url: url.to_string(), problem: problem.into(), expected: expected.to_string() }
}

fn parse_url(url: &str) -> Result<Url, DownloadError> {
    let parsed =
        Url::parse(url).map_err(|e| layout(url, format!("not a URL ({e})"), "an http(s) address"))?;
    match parsed.scheme() {
        "http" | "https" => Ok(parsed),
        _ => Err(layout(url, "not an http(s) address", "an http(s) address")),
    }
}

/// The folder `pick` names among `folders` (the latest when asked for it).
fn choose(url: &str, what: &'static str, folders: &[String], pick: &Pick) -> Result<String, DownloadError> {
    let chosen = match pick {
        Pick::Latest => folders.iter().max().cloned(),
        Pick::Named(name) => folders.iter().find(|f| *f == name).cloned(),
    };
    chosen.ok_or_else(|| DownloadError::NoRelease {
        url: url.to_string(),
        what,
        asked: match pick {
            Pick::Latest => "at all".into(),
            Pick::Named(n) => n.clone(),
        },
        listed: if folders.is_empty() { "none".into() } else { folders.join(", ") },
    })
}

/// RFB's release at `url`: a share link (`…/s/TOKEN`), else an Apache listing of months.
pub(super) async fn rfb(
    http: &reqwest::Client,
    url: &str,
    pick: &Pick,
    stall: Duration,
) -> Result<Release, DownloadError> {
    let parsed = parse_url(url)?;
    let segments: Vec<&str> =
        parsed.path_segments().map(|s| s.filter(|s| !s.is_empty()).collect()).unwrap_or_default();
    match segments.as_slice() {
        [.., "s", token] => share(http, url, &parsed, token, pick, stall).await,
        _ => apache(http, url, "cnpj", "month folder (YYYY-MM/)", is_month, pick, stall).await,
    }
}

/// PGFN's release at `url`, an Apache listing of quarter folders.
pub(super) async fn pgfn(
    http: &reqwest::Client,
    url: &str,
    pick: &Pick,
    stall: Duration,
) -> Result<Release, DownloadError> {
    apache(http, url, "pgfn", "quarter folders (YYYY_trimestre_NN/)", is_quarter, pick, stall).await
}

/// An answer's status and body, read within `stall`; a refusal or a server that cannot be
/// reached is an error naming `url`.
pub(super) async fn fetch_text(
    request: reqwest::RequestBuilder,
    url: &str,
    stall: Duration,
) -> Result<(u16, String, String), DownloadError> {
    let unreachable =
        |why: String| DownloadError::Unreachable { url: url.to_string(), why, tries: super::transfer::TRIES };
    let mut last = String::new();
    for attempt in 0..super::transfer::TRIES {
        let Some(request) = request.try_clone() else { break };
        let answer = tokio::time::timeout(stall * 4, async {
            let response = request.send().await?;
            let status = response.status().as_u16();
            let kind = response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            Ok::<_, reqwest::Error>((status, kind, response.text().await?))
        })
        .await;
        match answer {
            Ok(Ok((status, ..))) if status == 429 || status >= 500 => last = format!("answered {status}"),
            Ok(Ok(answer)) => return Ok(answer),
            Ok(Err(e)) => last = super::transfer::describe(&e),
            Err(_) => last = format!("no answer within {} s", (stall * 4).as_secs()),
        }
        tokio::time::sleep(super::transfer::backoff(attempt + 1)).await;
    }
    Err(unreachable(last))
}

/// The `href`s of an Apache index, as written, without the sort links.
fn apache_hrefs(html: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("href=\"") {
        rest = &rest[at + 6..];
        let Some(end) = rest.find('"') else { break };
        if !rest.starts_with(['?', '#']) {
            out.push(&rest[..end]);
        }
        rest = &rest[end..];
    }
    out
}

/// The entries of the index at `url`: each href that leads one level below it, as its name
/// (folders keep their `/`); the parent directory and links elsewhere left out.
fn entries_below(url: &Url, html: &str) -> Vec<String> {
    apache_hrefs(html)
        .into_iter()
        .filter_map(|href| {
            let target = url.join(href).ok()?;
            let rest = target.path().strip_prefix(url.path())?;
            let single = rest.trim_end_matches('/');
            (target.host() == url.host() && !single.is_empty() && !single.contains('/'))
                .then(|| rest.to_string())
        })
        .collect()
}

async fn apache_listing(
    http: &reqwest::Client,
    url: &Url,
    stall: Duration,
) -> Result<Vec<String>, DownloadError> {
    let (status, kind, body) = fetch_text(http.get(url.clone()), url.as_str(), stall).await?;
    let expected = "an Apache directory listing (Index of …)";
    if status != 200 {
        return Err(layout(url.as_str(), format!("answered {status}"), expected));
    }
    if !kind.contains("html") && !body.contains("<a href") {
        return Err(layout(url.as_str(), format!("answered {kind:?}, not an HTML listing"), expected));
    }
    Ok(entries_below(url, &body))
}

/// A release under an Apache listing: its `kind` folders, the one picked, its files.
async fn apache(
    http: &reqwest::Client,
    url: &str,
    under: &str,
    kind: &'static str,
    is_release: fn(&str) -> bool,
    pick: &Pick,
    stall: Duration,
) -> Result<Release, DownloadError> {
    let mut base = parse_url(url)?;
    if !base.path().ends_with('/') {
        base.set_path(&format!("{}/", base.path()));
    }
    let hrefs = apache_listing(http, &base, stall).await?;
    let folders: Vec<String> = hrefs
        .iter()
        .filter_map(|h| h.strip_suffix('/'))
        .filter(|f| is_release(f))
        .map(String::from)
        .collect();
    if folders.is_empty() {
        return Err(layout(
            base.as_str(),
            "the listing holds no release folder",
            &format!("a listing of {kind}"),
        ));
    }
    let what = if under == "pgfn" { "quarter" } else { "month" };
    let period = choose(base.as_str(), what, &folders, pick)?;
    let folder = base.join(&format!("{period}/")).map_err(|e| layout(base.as_str(), e.to_string(), kind))?;
    let names: Vec<String> =
        apache_listing(http, &folder, stall).await?.into_iter().filter(|h| !h.ends_with('/')).collect();
    if names.is_empty() {
        return Err(layout(folder.as_str(), "the listing holds no file", "the release's zips"));
    }
    let files = names
        .into_iter()
        .filter_map(|name| {
            let url = folder.join(&name).ok()?;
            Some(Remote {
                url,
                token: None,
                rel: format!("{under}/{period}/{name}"),
                release: period.clone(),
                size: None,
                etag: None,
                last_modified: None,
            })
        })
        .collect();
    Ok(Release { period, files })
}

/// One entry of a WebDAV multistatus.
#[derive(Debug, Default, PartialEq)]
struct DavEntry {
    href: String,
    folder: bool,
    size: Option<u64>,
    etag: Option<String>,
    last_modified: Option<String>,
}

impl DavEntry {
    /// The last segment of its path.
    fn name(&self) -> &str {
        self.href.trim_end_matches('/').rsplit('/').next().unwrap_or("")
    }
}

/// The text of every element named `local` (any namespace prefix) in `xml`.
fn elements<'a>(xml: &'a str, local: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(open) = xml[at..].find('<').map(|i| at + i) {
        let tag_end = match xml[open..].find('>') {
            Some(i) => open + i,
            None => break,
        };
        let tag = &xml[open + 1..tag_end];
        at = tag_end + 1;
        if tag.starts_with(['/', '?', '!']) {
            continue;
        }
        let full = tag.split(|c: char| c.is_whitespace() || c == '/').next().unwrap_or("");
        if full.rsplit(':').next() != Some(local) {
            continue;
        }
        if tag.ends_with('/') {
            out.push("");
            continue;
        }
        let close = format!("</{full}>");
        if let Some(end) = xml[at..].find(&close) {
            out.push(&xml[at..at + end]);
            at += end + close.len();
        }
    }
    out
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn multistatus(xml: &str) -> Vec<DavEntry> {
    elements(xml, "response")
        .into_iter()
        .map(|r| {
            let one = |name: &str| elements(r, name).first().map(|t| unescape(t.trim()));
            DavEntry {
                href: one("href").unwrap_or_default(),
                folder: elements(r, "resourcetype").iter().any(|t| !elements(t, "collection").is_empty()),
                size: one("getcontentlength").and_then(|s| s.parse().ok()),
                etag: one("getetag").filter(|s| !s.is_empty()),
                last_modified: one("getlastmodified").filter(|s| !s.is_empty()),
            }
        })
        .collect()
}

/// `PROPFIND` (Depth 1) of the share's folder `inside`: the entries in it (itself left out).
async fn propfind(
    http: &reqwest::Client,
    webdav: &Url,
    token: &str,
    inside: &str,
    stall: Duration,
) -> Result<Vec<DavEntry>, DownloadError> {
    let url = webdav.join(inside).map_err(|e| layout(webdav.as_str(), e.to_string(), "a WebDAV folder"))?;
    let method = reqwest::Method::from_bytes(b"PROPFIND").unwrap_or(reqwest::Method::GET);
    let request = http.request(method, url.clone()).basic_auth(token, Some("")).header("Depth", "1");
    let (status, kind, body) = fetch_text(request, url.as_str(), stall).await?;
    let expected = "a WebDAV 207 Multi-Status listing of the public share";
    match status {
        207 => {}
        401 | 403 => {
            return Err(layout(
                url.as_str(),
                format!("answered {status}: the share does not know the token {token}"),
                "the token of a public share link (…/index.php/s/TOKEN): check --rfb-url",
            ));
        }
        _ if kind.contains("html") => {
            return Err(layout(url.as_str(), format!("answered {status} with an HTML page"), expected));
        }
        _ => return Err(layout(url.as_str(), format!("answered {status}"), expected)),
    }
    if !body.contains("multistatus") {
        return Err(layout(url.as_str(), format!("answered 207 with {kind:?}, not a multistatus"), expected));
    }
    let own = url.path().trim_end_matches('/').to_string();
    Ok(multistatus(&body).into_iter().filter(|e| e.href.trim_end_matches('/') != own).collect())
}

/// RFB's release in the public share `token` on `link`'s host.
async fn share(
    http: &reqwest::Client,
    link: &str,
    parsed: &Url,
    token: &str,
    pick: &Pick,
    stall: Duration,
) -> Result<Release, DownloadError> {
    let webdav =
        parsed.join("/public.php/webdav/").map_err(|e| layout(link, e.to_string(), "a share link"))?;
    let mut prefix = "";
    let mut entries = propfind(http, &webdav, token, "", stall).await?;
    let months = |entries: &[DavEntry]| -> Vec<String> {
        entries.iter().filter(|e| e.folder && is_month(e.name())).map(|e| e.name().to_string()).collect()
    };
    if months(entries.as_slice()).is_empty() && entries.iter().any(|e| e.folder && e.name() == "Dados") {
        prefix = NESTED;
        entries = propfind(http, &webdav, token, prefix, stall).await?;
    }
    let folders = months(entries.as_slice());
    let listed = webdav.join(prefix).map_or_else(|_| link.to_string(), |u| u.to_string());
    if folders.is_empty() {
        return Err(layout(
            &listed,
            "the share lists no month folder",
            "month folders (YYYY-MM/) at the share's root or under Dados/Cadastros/CNPJ/",
        ));
    }
    let period = choose(&listed, "month", &folders, pick)?;
    let inside = format!("{prefix}{period}/");
    let files: Vec<DavEntry> =
        propfind(http, &webdav, token, &inside, stall).await?.into_iter().filter(|e| !e.folder).collect();
    if files.is_empty() {
        return Err(layout(
            &format!("{listed}{period}/"),
            "the month's folder holds no file",
            "the month's zips",
        ));
    }
    let dav_files = parsed
        .join(&format!("/public.php/dav/files/{token}/{inside}"))
        .map_err(|e| layout(link, e.to_string(), "a share link"))?;
    let files = files
        .into_iter()
        .filter_map(|e| {
            let name = e.name().to_string();
            Some(Remote {
                url: dav_files.join(&name).ok()?,
                token: Some(token.to_string()),
                rel: format!("cnpj/{period}/{name}"),
                release: period.clone(),
                size: e.size,
                etag: e.etag,
                last_modified: e.last_modified,
            })
        })
        .collect();
    Ok(Release { period, files })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_multistatus_gives_each_entry_whatever_its_prefix() {
        let xml = r#"<?xml version="1.0"?><d:multistatus xmlns:d="DAV:"><d:response><d:href>/public.php/webdav/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop></d:propstat></d:response><D:response><D:href>/public.php/webdav/2026-01/Cnaes.zip</D:href><D:propstat><D:prop><D:getcontentlength>22000</D:getcontentlength><D:getetag>&quot;a1&quot;</D:getetag><D:resourcetype/></D:prop></D:propstat></D:response></d:multistatus>"#;
        let entries = multistatus(xml);
        assert_eq!(entries.len(), 2);
        assert!(entries[0].folder);
        assert_eq!(entries[1].name(), "Cnaes.zip");
        assert_eq!(
            (entries[1].size, entries[1].etag.as_deref(), entries[1].folder),
            (Some(22000), Some("\"a1\""), false)
        );
    }

    /// The WebDAV answers of RFB's share as public code that reads it recorded them (shortened
    /// there: tests/fixtures/real/SOURCES.md): each response an entry, the folder told apart,
    /// names and sizes as the answer gives them.
    #[test]
    fn rfbs_webdav_answers_as_public_code_recorded_them_give_each_entry() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real");
        for name in ["rfb_webdav_propfind.xml", "rfb_webdav_propfind_regime.xml"] {
            let xml = std::fs::read_to_string(dir.join(name)).unwrap();
            let entries = multistatus(&xml);
            assert_eq!(entries.len(), xml.matches("<d:response>").count(), "{name}");
            for (entry, href) in entries.iter().zip(xml.split("<d:href>").skip(1)) {
                let href = &href[..href.find("</d:href>").unwrap()];
                assert_eq!(entry.href, href, "{name}");
                assert_eq!(entry.folder, href.ends_with('/'), "{name}: {href}");
            }
        }
        let xml = std::fs::read_to_string(dir.join("rfb_webdav_propfind.xml")).unwrap();
        let entries = multistatus(&xml);
        let cnaes = entries.iter().find(|e| e.name() == "Cnaes.zip").unwrap();
        assert_eq!((cnaes.size, cnaes.folder), (Some(22078), false));
        let empresas = entries.iter().find(|e| e.name() == "Empresas0.zip").unwrap();
        assert_eq!(empresas.size, Some(488_344_875));
    }

    /// RFB's own Apache listings of 2024, saved from its server (tests/fixtures/real/SOURCES.md):
    /// the month folders of the root, and the 37 files of a month.
    #[test]
    fn rfbs_real_listings_of_2024_give_the_month_folders_and_the_months_files() {
        let real = |name: &str| {
            std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real").join(name),
            )
            .unwrap()
        };
        // Saved under /CNPJ/dados_abertos_cnpj/, the path the pages' own links use.
        let root = Url::parse("https://arquivos.receitafederal.gov.br/CNPJ/dados_abertos_cnpj/").unwrap();
        let months = entries_below(&root, &real("rfb_listing_months_2024.html"));
        assert_eq!(months, ["2024-06/", "2024-07/", "2024-08/"]);
        assert!(months.iter().all(|m| is_month(m.trim_end_matches('/'))));
        let files = entries_below(&root.join("2024-08/").unwrap(), &real("rfb_listing_2024-08.html"));
        assert_eq!(files.len(), 37, "{files:?}");
        for part in ["Empresas", "Estabelecimentos", "Socios"] {
            assert_eq!(files.iter().filter(|f| f.starts_with(part)).count(), 10, "{part}0..9");
        }
        assert!(files.iter().all(|f| f.ends_with(".zip")) && files.contains(&"Simples.zip".to_string()));
    }

    #[test]
    fn an_apache_index_gives_its_folders_and_files_not_its_sort_or_parent_links() {
        let html = r#"<a href="?C=N;O=D">Name</a><a href="/dados/cnpj/">Parent Directory</a><a href="2024-08/">2024-08/</a><a href="/dados/cnpj/dados_abertos_cnpj/2024-09/">2024-09/</a><a href="regime_tributario/">x</a><a href="Cnaes.zip">Cnaes.zip</a><a href="https://elsewhere.example/x.zip">x</a>"#;
        let url = Url::parse("https://host.example/dados/cnpj/dados_abertos_cnpj/").unwrap();
        assert_eq!(entries_below(&url, html), ["2024-08/", "2024-09/", "regime_tributario/", "Cnaes.zip"]);
        assert!(is_month("2024-08") && !is_month("regime_tributario") && !is_month("2024-8x"));
        assert!(is_quarter("2026_trimestre_02") && !is_quarter("2026_trimestre_2"));
    }
}
