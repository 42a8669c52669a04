//! Finding a release: the month or quarter folders a publisher lists, the one asked for (the
//! latest by default), and its files. RFB's share is listed over WebDAV (`PROPFIND`, Depth 1)
//! through any of the three roots public code uses ([`share_of`]), its months at the share's
//! root or under `Dados/Cadastros/CNPJ/`, the answers read with quick-xml and their names
//! percent-decoded; RFB's 2024-25 listing and PGFN's are Apache indexes. A listing that is not what its address
//! promises is an error naming the address and what was expected, never an empty release.

use std::time::Duration;

use url::Url;

use super::{Access, DownloadError, Pick, REGIME_FOLDER, Remote, is_month, is_quarter};

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
    match share_of(&parsed)? {
        Some(found) => share(http, &found, pick, stall).await,
        None => apache(http, url, "cnpj", "month folder (YYYY-MM/)", is_month, pick, stall).await,
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

/// RFB's tax regime files at `url`: a public share holding them at its folder (since 2026) or
/// an Apache listing of them (2024-25's `dados/cnpj/regime_tributario/`), each saved under
/// `regime_tributario/` by its decoded name. A folder holding none of them is an error naming
/// the address: the run was asked for them.
pub(super) async fn regime(
    http: &reqwest::Client,
    url: &str,
    stall: Duration,
) -> Result<Vec<Remote>, DownloadError> {
    let parsed = parse_url(url)?;
    let expected = "RFB's tax regime zips (entidades-lucro-real.zip, ..., or Lucro Real.zip, ...)";
    let is_regime = |name: &str| {
        name.to_lowercase().ends_with(".zip") && crate::api::regime::Arquivo::of_name(name).is_some()
    };
    let remote = |url: Url, access: Access, name: &str| {
        Remote::listed(url, access, format!("{REGIME_FOLDER}/{name}"), REGIME_FOLDER.to_string())
    };
    let files: Vec<Remote> = match share_of(&parsed)? {
        Some(found) => {
            let folder = Share::folder(&found.files_root, &found.start);
            propfind(http, &found, &found.start, stall)
                .await?
                .into_iter()
                .filter(|e| !e.folder && is_regime(&e.name()))
                .filter_map(|e| {
                    let name = e.name();
                    let mut url = folder.clone();
                    url.path_segments_mut().ok()?.pop_if_empty().push(&name);
                    let mut r = remote(url, found.access(), &name);
                    (r.size, r.etag, r.last_modified) = (e.size, e.etag, e.last_modified);
                    Some(r)
                })
                .collect()
        }
        None => {
            let mut base = parsed.clone();
            if !base.path().ends_with('/') {
                base.set_path(&format!("{}/", base.path()));
            }
            apache_listing(http, &base, stall)
                .await?
                .into_iter()
                .filter(|h| is_regime(&decoded(h)))
                .filter_map(|h| Some(remote(base.join(&h).ok()?, Access::Plain, &decoded(&h))))
                .collect()
        }
    };
    if files.is_empty() {
        return Err(layout(url, "it holds none of RFB's tax regime files", expected));
    }
    Ok(files)
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
            Some(Remote::listed(
                url,
                Access::Plain,
                format!("{under}/{period}/{}", decoded(&name)),
                period.clone(),
            ))
        })
        .collect();
    Ok(Release { period, files })
}

/// One entry of a WebDAV multistatus.
#[derive(Debug, Default, PartialEq)]
struct DavEntry {
    /// As the answer writes it: a path (or an address), percent-encoded.
    href: String,
    folder: bool,
    size: Option<u64>,
    etag: Option<String>,
    last_modified: Option<String>,
}

/// `text` percent-decoded (a name that is not UTF-8 once decoded keeps its replacement marks).
fn decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text).decode_utf8_lossy().into_owned()
}

impl DavEntry {
    /// Its path, decoded, without a trailing `/`: an href may be a whole address.
    fn path(&self) -> String {
        let path = match Url::parse(&self.href) {
            Ok(url) => url.path().to_string(),
            Err(_) => self.href.clone(),
        };
        decoded(path.trim_end_matches('/'))
    }

    /// The last segment of its path, decoded: `Lucro%20Real.zip` is `Lucro Real.zip`.
    fn name(&self) -> String {
        self.path().rsplit('/').next().unwrap_or("").to_string()
    }
}

/// The entries of a WebDAV multistatus, read with quick-xml: each `response`'s href, whether it
/// is a collection, its size, ETag and Last-Modified, whatever prefix the answer gives the
/// `DAV:` namespace. A property a server reports missing comes as an empty element and is left
/// unset.
fn multistatus(xml: &str) -> Result<Vec<DavEntry>, String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let (mut out, mut entry, mut text) = (Vec::new(), None::<DavEntry>, String::new());
    let bad = |e: &dyn std::fmt::Display| format!("not well-formed XML ({e})");
    loop {
        match reader.read_event().map_err(|e| bad(&e))? {
            Event::Start(e) => {
                match e.local_name().as_ref() {
                    b"response" => entry = Some(DavEntry::default()),
                    b"collection" => entry.iter_mut().for_each(|en| en.folder = true),
                    _ => {}
                }
                text.clear();
            }
            Event::Empty(e) if e.local_name().as_ref() == b"collection" => {
                entry.iter_mut().for_each(|en| en.folder = true);
            }
            Event::Text(t) => text.push_str(&t.xml_content().map_err(|e| bad(&e))?),
            Event::CData(t) => text.push_str(&t.decode().map_err(|e| bad(&e))?),
            Event::GeneralRef(r) => {
                let name = r.decode().map_err(|e| bad(&e))?;
                text.push_str(&quick_xml::escape::unescape(&format!("&{name};")).map_err(|e| bad(&e))?);
            }
            Event::End(e) => {
                let value = text.trim().to_string();
                match (e.local_name().as_ref(), entry.as_mut()) {
                    (b"response", _) => out.extend(entry.take()),
                    (b"href", Some(en)) => en.href = value,
                    (b"getcontentlength", Some(en)) => en.size = value.parse().ok(),
                    (b"getetag", Some(en)) => en.etag = Some(value).filter(|v| !v.is_empty()),
                    (b"getlastmodified", Some(en)) => {
                        en.last_modified = Some(value).filter(|v| !v.is_empty())
                    }
                    _ => {}
                }
                text.clear();
            }
            Event::Eof => return Ok(out),
            _ => {}
        }
    }
}

/// A public Nextcloud share as WebDAV reaches it: where its folders are listed and its files
/// fetched, and whether the token goes as HTTP Basic `TOKEN:`.
#[derive(Debug, PartialEq)]
struct Share {
    token: String,
    list_root: Url,
    files_root: Url,
    basic: bool,
    /// The folder inside the share the address points at (`""`: its root).
    start: String,
}

/// The share `url` names, in each form public code reaches RFB's by:
/// - the link a person sees, `…/index.php/s/TOKEN`: listed at `/public.php/webdav/` with
///   HTTP Basic, its files at `/public.php/dav/files/TOKEN/`;
/// - `/public.php/webdav/` with the token as the address's user (`https://TOKEN@host/…`);
/// - `/public.php/dav/files/TOKEN/` and `/remote.php/dav/public-files/TOKEN/`, the token in
///   the path.
///
/// `None` for an address of none of these forms (an Apache listing).
fn share_of(url: &Url) -> Result<Option<Share>, DownloadError> {
    let segments: Vec<String> =
        url.path_segments().map(|s| s.filter(|s| !s.is_empty()).map(decoded).collect()).unwrap_or_default();
    let words: Vec<&str> = segments.iter().map(String::as_str).collect();
    let mut origin = url.clone();
    let _ = (origin.set_username(""), origin.set_password(None));
    origin.set_query(None);
    origin.set_fragment(None);
    origin.set_path("/");
    let at = |parts: &[&str]| Share::folder(&origin, &parts.join("/"));
    let rest = |from: usize| -> String { words[from..].iter().map(|s| format!("{s}/")).collect() };
    for i in 0..words.len() {
        let share = match &words[i..] {
            ["s", token] => {
                let before = words[..i].strip_suffix(&["index.php"]).unwrap_or(&words[..i]);
                Share {
                    token: token.to_string(),
                    list_root: at(&[before, &["public.php", "webdav"]].concat()),
                    files_root: at(&[before, &["public.php", "dav", "files", token]].concat()),
                    basic: true,
                    start: String::new(),
                }
            }
            ["public.php", "webdav", ..] => {
                if url.username().is_empty() {
                    return Err(layout(
                        url.as_str(),
                        "a WebDAV root with no token",
                        "the share's token as the address's user: https://TOKEN@host/public.php/webdav/",
                    ));
                }
                let root = at(&words[..i + 2]);
                Share {
                    token: decoded(url.username()),
                    list_root: root.clone(),
                    files_root: root,
                    basic: true,
                    start: rest(i + 2),
                }
            }
            ["public.php", "dav", "files", token, ..] | ["remote.php", "dav", "public-files", token, ..] => {
                let root = at(&words[..i + 4]);
                Share {
                    token: token.to_string(),
                    list_root: root.clone(),
                    files_root: root,
                    basic: false,
                    start: rest(i + 4),
                }
            }
            _ => continue,
        };
        return Ok(Some(share));
    }
    Ok(None)
}

impl Share {
    /// The address of `inside`, a folder path of the share (each segment ending in `/`), under
    /// `root`, its names percent-encoded.
    fn folder(root: &Url, inside: &str) -> Url {
        let mut url = root.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(inside.split('/').filter(|s| !s.is_empty())).push("");
        }
        url
    }

    fn access(&self) -> Access {
        if self.basic { Access::Share(self.token.clone()) } else { Access::Plain }
    }
}

/// `PROPFIND` (Depth 1) of the share's folder `inside`: the entries in it (itself left out).
async fn propfind(
    http: &reqwest::Client,
    share: &Share,
    inside: &str,
    stall: Duration,
) -> Result<Vec<DavEntry>, DownloadError> {
    let url = Share::folder(&share.list_root, inside);
    let method = reqwest::Method::from_bytes(b"PROPFIND").unwrap_or(reqwest::Method::GET);
    let request = super::transfer::with_access(http.request(method, url.clone()), &share.access());
    let (status, kind, body) = fetch_text(request.header("Depth", "1"), url.as_str(), stall).await?;
    let expected = "a WebDAV 207 Multi-Status listing of the public share";
    match status {
        207 => {}
        401 | 403 | 404 if !kind.contains("html") => {
            return Err(layout(
                url.as_str(),
                format!("answered {status}: the share does not know the token {}", share.token),
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
    let entries = multistatus(&body).map_err(|problem| layout(url.as_str(), problem, expected))?;
    let own = decoded(url.path().trim_end_matches('/'));
    Ok(entries.into_iter().filter(|e| e.path() != own).collect())
}

/// RFB's release in the public share: its month folders at the address's folder, or under
/// `Dados/Cadastros/CNPJ/` there.
async fn share(
    http: &reqwest::Client,
    share: &Share,
    pick: &Pick,
    stall: Duration,
) -> Result<Release, DownloadError> {
    let mut prefix = share.start.clone();
    let mut entries = propfind(http, share, &prefix, stall).await?;
    let months = |entries: &[DavEntry]| -> Vec<String> {
        entries.iter().filter(|e| e.folder && is_month(&e.name())).map(DavEntry::name).collect()
    };
    if months(entries.as_slice()).is_empty() && entries.iter().any(|e| e.folder && e.name() == "Dados") {
        prefix = format!("{prefix}{NESTED}");
        entries = propfind(http, share, &prefix, stall).await?;
    }
    let folders = months(entries.as_slice());
    let listed = Share::folder(&share.list_root, &prefix).to_string();
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
        propfind(http, share, &inside, stall).await?.into_iter().filter(|e| !e.folder).collect();
    if files.is_empty() {
        return Err(layout(
            &format!("{listed}{period}/"),
            "the month's folder holds no file",
            "the month's zips",
        ));
    }
    let folder = Share::folder(&share.files_root, &inside);
    let files = files
        .into_iter()
        .filter_map(|e| {
            let name = e.name();
            let mut url = folder.clone();
            url.path_segments_mut().ok()?.pop_if_empty().push(&name);
            let mut remote =
                Remote::listed(url, share.access(), format!("cnpj/{period}/{name}"), period.clone());
            (remote.size, remote.etag, remote.last_modified) = (e.size, e.etag, e.last_modified);
            Some(remote)
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
        let entries = multistatus(xml).unwrap();
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
            let entries = multistatus(&xml).unwrap();
            assert_eq!(entries.len(), xml.matches("<d:response>").count(), "{name}");
            for (entry, href) in entries.iter().zip(xml.split("<d:href>").skip(1)) {
                let href = &href[..href.find("</d:href>").unwrap()];
                assert_eq!(entry.href, href, "{name}");
                assert_eq!(entry.folder, href.ends_with('/'), "{name}: {href}");
            }
        }
        let xml = std::fs::read_to_string(dir.join("rfb_webdav_propfind.xml")).unwrap();
        let entries = multistatus(&xml).unwrap();
        let cnaes = entries.iter().find(|e| e.name() == "Cnaes.zip").unwrap();
        assert_eq!((cnaes.size, cnaes.folder), (Some(22078), false));
        let empresas = entries.iter().find(|e| e.name() == "Empresas0.zip").unwrap();
        assert_eq!(empresas.size, Some(488_344_875));
    }

    #[test]
    fn each_webdav_root_public_code_uses_names_the_share_and_where_its_files_are() {
        let share = |url: &str| share_of(&Url::parse(url).unwrap()).unwrap().unwrap();
        let link = share("https://arquivos.example/index.php/s/TOK");
        assert_eq!(link.list_root.as_str(), "https://arquivos.example/public.php/webdav/");
        assert_eq!(link.files_root.as_str(), "https://arquivos.example/public.php/dav/files/TOK/");
        assert!(link.basic && link.token == "TOK" && link.start.is_empty());
        let webdav = share("https://TOK@arquivos.example/public.php/webdav/");
        assert_eq!(
            (webdav.list_root.as_str(), webdav.files_root.as_str()),
            ("https://arquivos.example/public.php/webdav/", "https://arquivos.example/public.php/webdav/")
        );
        assert!(webdav.basic && webdav.token == "TOK");
        for root in ["public.php/dav/files/TOK/", "remote.php/dav/public-files/TOK/"] {
            let found = share(&format!("https://arquivos.example/{root}Dados/Cadastros/"));
            assert_eq!(found.list_root.as_str(), format!("https://arquivos.example/{root}"));
            assert_eq!(
                (found.token.as_str(), found.basic, found.start.as_str()),
                ("TOK", false, "Dados/Cadastros/")
            );
        }
        assert!(share_of(&Url::parse("https://arquivos.example/public.php/webdav/").unwrap()).is_err());
        assert!(share_of(&Url::parse("https://arquivos.example/dados/cnpj/").unwrap()).unwrap().is_none());
    }

    #[test]
    fn a_percent_encoded_href_gives_its_name_decoded_and_the_file_address_encodes_it_again() {
        let xml = r#"<d:multistatus xmlns:d="DAV:"><d:response><d:href>/public.php/dav/files/T/regime/Lucro%20Real.zip</d:href><d:propstat><d:prop><d:getcontentlength>7</d:getcontentlength><d:getetag>&quot;e&amp;1&quot;</d:getetag><d:resourcetype/></d:prop></d:propstat><d:propstat><d:prop><d:quota-used-bytes/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat></d:response></d:multistatus>"#;
        let entries = multistatus(xml).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].name(), "Lucro Real.zip");
        assert_eq!(entries[0].etag.as_deref(), Some("\"e&1\""));
        let mut url =
            Share::folder(&Url::parse("https://h.example/public.php/dav/files/T/").unwrap(), "regime/");
        url.path_segments_mut().unwrap().pop_if_empty().push(&entries[0].name());
        assert_eq!(url.as_str(), "https://h.example/public.php/dav/files/T/regime/Lucro%20Real.zip");
        assert!(multistatus("<d:multistatus><d:response></d:multistatus>").is_err());
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

    /// RFB's 2025 listing of its regime files (tests/fixtures/real/SOURCES.md): names with
    /// spaces and accents, percent-encoded in the links, each decoded to the name it is saved by.
    #[test]
    fn rfbs_real_regime_listing_gives_its_files_by_their_decoded_names() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/real/rfb_listing_regime_tributario_2025.html");
        let html = std::fs::read_to_string(path).unwrap();
        let root =
            Url::parse("https://arquivos.receitafederal.gov.br/dados/cnpj/regime_tributario/").unwrap();
        let names: Vec<String> = entries_below(&root, &html).iter().map(|e| decoded(e)).collect();
        assert_eq!(
            names,
            [
                "Dicionário de Dados dos Regimes Tributários.zip",
                "Imunes e Isentas.zip",
                "Leiaute dos Arquivos.odt",
                "Lucro Arbitrado.zip",
                "Lucro Presumido.zip",
                "Lucro Real.zip"
            ]
        );
        let real = root.join(&entries_below(&root, &html)[5]).unwrap();
        assert_eq!(real.path(), "/dados/cnpj/regime_tributario/Lucro%20Real.zip", "fetched as linked");
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
