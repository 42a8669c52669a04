//! The public lists' files, fetched beside the release with `--listas`: CGU's CEIS, CNEP, CEPIM
//! and Acordos de Leniência, the labour ministry's Cadastro de Empregadores and IBAMA's
//! embargoes. They land in `listas/`, one day of each: a list is republished whole, so an older
//! day's file is removed once the new one is checked.
//!
//! CGU's zips sit on its file host, `…/PortalDaTransparencia/saida/<list>/YYYYMMDD_<NAME>.zip`,
//! which answers 403 for a day not (yet) published: the latest is found by asking for today's
//! and stepping back a day at a time, at most [`WALK_BACK_DAYS`]. Should the host fail or hold
//! none, the portal's page is the fallback: the latest day it names in
//! `arquivos.push({"ano":…,"mes":…,"dia":…})`, whose address redirects to the zip. Both
//! servers refuse clients that do not look like a browser, so CGU is asked with
//! [`super::transfer::BROWSER_AGENT`] and the list's page as Referer. The labour ministry's and IBAMA's lists are
//! each a file at a fixed address.

use std::path::Path;
use std::time::Duration;

use chrono::NaiveDate;
use url::Url;

use super::{Access, DownloadError, Record, Remote, write_error};
use crate::api::listas::{Cadencia, Definicao, LISTAS, Lista, Publicacao};

/// Portal da Transparência's download pages, one a list below it.
pub(crate) const CGU_URL: &str = "https://portaldatransparencia.gov.br/download-de-dados/";
/// CGU's file host, a folder a list below it.
pub(crate) const CGU_FILES_URL: &str =
    "https://dadosabertos-download.cgu.gov.br/PortalDaTransparencia/saida/";
/// How far back from today the file host is asked for a list's day. CGU publishes every day;
/// ten days outlast the longest holiday (Carnaval) with room to spare.
pub(super) const WALK_BACK_DAYS: u32 = 10;
/// How far back from this month the file host is asked for a monthly list (PEP). CGU
/// publishes a month's register during the next; three months outlast a late one.
pub(super) const WALK_BACK_MONTHS: u32 = 3;
/// The folder under the download's where the lists land.
pub(crate) const FOLDER: &str = "listas";

/// Where the lists are fetched from: CGU's portal and file host for its lists, and each list
/// published as one file at its address (`api::listas`' unless a setting moved it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListaSources {
    pub cgu_url: String,
    pub cgu_files_url: String,
    /// The addresses a setting gave (`mte_url`, `ibama_url`), over the definitions'.
    pub moved: Vec<(Lista, String)>,
}

impl ListaSources {
    /// Where a list published as one file is: where a setting moved it, else its definition's
    /// address.
    fn address(&self, definition: &Definicao) -> Option<&str> {
        let moved = self.moved.iter().find(|(l, _)| *l == definition.lista).map(|(_, url)| url.as_str());
        moved.or(definition.endereco())
    }
}

/// Every list's file, found: CGU's at their latest day up to `today`, the others at their
/// addresses.
pub(super) async fn files(
    http: &reqwest::Client,
    sources: &ListaSources,
    today: NaiveDate,
    stall: Duration,
) -> Result<Vec<Remote>, DownloadError> {
    let mut out = Vec::new();
    for definition in &LISTAS {
        out.push(match definition.publicacao {
            Publicacao::Cgu { pasta, arquivo, cadencia, .. } => {
                cgu_lista(http, sources, (pasta, arquivo, cadencia), today, stall).await?
            }
            Publicacao::Endereco { .. } => single(sources.address(definition).unwrap_or_default())?,
        });
    }
    Ok(out)
}

fn layout(url: &str, problem: impl Into<String>, expected: &str) -> DownloadError {
    DownloadError::Layout { url: url.to_string(), problem: problem.into(), expected: expected.to_string() }
}

fn parse(url: &str) -> Result<Url, DownloadError> {
    Url::parse(url).map_err(|e| layout(url, format!("not an address ({e})"), "an http(s) address"))
}

/// Today in Brasília, where CGU's days are named.
pub(crate) fn brasilia_today() -> NaiveDate {
    (chrono::Utc::now() - chrono::Duration::hours(3)).date_naive()
}

fn folder(base: &str) -> String {
    if base.ends_with('/') { base.to_string() } else { format!("{base}/") }
}

/// The list's page on the portal: the Referer CGU's servers expect, and the fallback.
fn page(sources: &ListaSources, list: &str) -> Result<Url, DownloadError> {
    let base = folder(&sources.cgu_url);
    parse(&base)?.join(list).map_err(|e| layout(&base, e.to_string(), "a base address"))
}

/// A CGU list's zip of its latest day (or month): from the file host, else from the portal's
/// page.
async fn cgu_lista(
    http: &reqwest::Client,
    sources: &ListaSources,
    (list, name, cadence): (&str, &str, Cadencia),
    today: NaiveDate,
    stall: Duration,
) -> Result<Remote, DownloadError> {
    let page = page(sources, list)?;
    let access = Access::Browser { referer: page.to_string() };
    let stamps = stamps(cadence, today);
    let host = match on_file_host(http, &sources.cgu_files_url, (list, name), &access, &stamps, stall).await {
        Ok(Some(remote)) => return Ok(remote),
        Ok(None) => format!("holds no {name} zip of {} to {}", stamps[stamps.len() - 1], stamps[0]),
        Err(e) => e.to_string(),
    };
    tracing::warn!(list, "CGU's file host {host}: trying the portal's page");
    on_portal(http, &page, cadence, access, stall).await
}

/// The stamps a list's zips may carry, newest first: today's and each day before it, at most
/// [`WALK_BACK_DAYS`]; for a monthly list this month's and the months before it, at most
/// [`WALK_BACK_MONTHS`].
fn stamps(cadence: Cadencia, today: NaiveDate) -> Vec<String> {
    match cadence {
        Cadencia::Diaria => today
            .iter_days()
            .rev()
            .take(WALK_BACK_DAYS as usize)
            .map(|d| d.format("%Y%m%d").to_string())
            .collect(),
        Cadencia::Mensal => (0..WALK_BACK_MONTHS)
            .filter_map(|back| today.checked_sub_months(chrono::Months::new(back)))
            .map(|d| d.format("%Y%m").to_string())
            .collect(),
    }
}

/// The list's zip on the file host at `base`, of the newest of `stamps` it holds; `None` when
/// every one answers 403 or 404, as an unpublished day does.
async fn on_file_host(
    http: &reqwest::Client,
    base: &str,
    (list, name): (&str, &str),
    access: &Access,
    stamps: &[String],
    stall: Duration,
) -> Result<Option<Remote>, DownloadError> {
    let base = folder(base);
    let dir = parse(&base)?
        .join(&format!("{list}/"))
        .map_err(|e| layout(&base, e.to_string(), "a base address"))?;
    for stamp in stamps {
        let stamp = stamp.clone();
        let file = format!("{stamp}_{name}.zip");
        let url = dir.join(&file).map_err(|e| layout(dir.as_str(), e.to_string(), "a folder address"))?;
        let mut remote = Remote::listed(url, access.clone(), format!("{FOLDER}/{file}"), stamp);
        let answer = head(http, &remote.url, access, stall).await?;
        match answer.status().as_u16() {
            200..=299 => {
                super::transfer::take_facts(&mut remote, &answer);
                return Ok(Some(remote));
            }
            403 | 404 => tracing::debug!(file = %remote.url, "not published: the day before"),
            status => {
                return Err(layout(
                    remote.url.as_str(),
                    format!("answered {status}"),
                    "the day's zip, or 403",
                ));
            }
        }
    }
    Ok(None)
}

/// `list`'s zip of the latest day its `page` names, found through the day's redirect.
async fn on_portal(
    http: &reqwest::Client,
    page: &Url,
    cadence: Cadencia,
    access: Access,
    stall: Duration,
) -> Result<Remote, DownloadError> {
    let expected = "Portal da Transparência's download page, naming its days in arquivos.push({\"ano\":…})";
    let request = http.get(page.clone()).header(reqwest::header::USER_AGENT, super::transfer::BROWSER_AGENT);
    let (status, _, body) = super::listing::fetch_text(request, page.as_str(), stall).await?;
    if status != 200 {
        return Err(layout(page.as_str(), format!("answered {status}"), expected));
    }
    let Some(day) = latest_stamp(&body, cadence) else {
        return Err(layout(page.as_str(), "the page names no day", expected));
    };
    let day_url = parse(&format!("{page}/{day}"))?;
    let zip = redirected(http, &day_url, &access, stall).await?;
    let name = zip.path_segments().and_then(|mut s| s.next_back()).unwrap_or_default().to_string();
    if !name.to_ascii_lowercase().ends_with(".zip") {
        return Err(layout(day_url.as_str(), format!("leads to {zip}"), "a redirect to the day's zip"));
    }
    Ok(Remote::listed(zip, access, format!("{FOLDER}/{name}"), day))
}

/// Where the day's address leads: the client follows no redirect, so its Location is read here
/// (a day served in place leads to itself).
async fn redirected(
    http: &reqwest::Client,
    day: &Url,
    access: &Access,
    stall: Duration,
) -> Result<Url, DownloadError> {
    let answer = head(http, day, access, stall).await?;
    let status = answer.status();
    if status.is_success() {
        return Ok(day.clone());
    }
    if !status.is_redirection() {
        return Err(layout(day.as_str(), format!("answered {}", status.as_u16()), "the day's zip"));
    }
    let location = answer.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok());
    location
        .and_then(|l| day.join(l).ok())
        .ok_or_else(|| layout(day.as_str(), "a redirect with no Location", "a redirect to the day's zip"))
}

/// A HEAD of `url`, as `access` asks, retried while the server is busy (429, 5xx) or silent;
/// any other answer is returned as it is.
async fn head(
    http: &reqwest::Client,
    url: &Url,
    access: &Access,
    stall: Duration,
) -> Result<reqwest::Response, DownloadError> {
    let mut last = String::new();
    for attempt in 1..=super::transfer::TRIES {
        let request = super::transfer::with_access(http.head(url.clone()), access);
        match tokio::time::timeout(stall, request.send()).await {
            Ok(Ok(r)) if r.status().as_u16() == 429 || r.status().is_server_error() => {
                last = format!("answered {}", r.status().as_u16());
            }
            Ok(Ok(r)) => return Ok(r),
            Ok(Err(e)) => last = super::transfer::describe(&e),
            Err(_) => last = format!("no answer within {} s", stall.as_secs()),
        }
        tokio::time::sleep(super::transfer::backoff(attempt)).await;
    }
    Err(DownloadError::Unreachable { url: url.to_string(), why: last, tries: super::transfer::TRIES })
}

/// A list published as one file at `url`.
fn single(url: &str) -> Result<Remote, DownloadError> {
    let parsed = parse(url)?;
    let name = parsed.path_segments().and_then(|mut s| s.next_back()).unwrap_or_default().to_string();
    if name.is_empty() {
        return Err(layout(url, "names no file", "the list's file, like …/cadastro_de_empregadores.csv"));
    }
    Ok(Remote::listed(parsed, Access::Plain, format!("{FOLDER}/{name}"), "latest".into()))
}

/// The latest stamp a portal page names: the largest of its `arquivos.push({…})`, as a day
/// (`YYYYMMDD`) for a daily list, a month (`YYYYMM`, `dia` not needed) for a monthly one.
fn latest_stamp(page: &str, cadence: Cadencia) -> Option<String> {
    page.split("arquivos.push(")
        .skip(1)
        .filter_map(|call| {
            let call = call.split(')').next()?;
            let field = |key: &str| -> Option<u32> {
                let after = call.split(&format!("\"{key}\"")).nth(1)?;
                let digits: String = after
                    .trim_start_matches([':', ' ', '"'])
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                digits.parse().ok()
            };
            let (y, m) = (field("ano")?, field("mes")?);
            if cadence == Cadencia::Mensal {
                return (1..=12).contains(&m).then(|| format!("{y:04}{m:02}"));
            }
            let d = field("dia")?;
            ((1..=12).contains(&m) && (1..=31).contains(&d)).then(|| format!("{y:04}{m:02}{d:02}"))
        })
        .max()
}

/// A dated list file's stamp and the rest of its name: `20261130_CEIS.zip` -> (`20261130`,
/// `CEIS.zip`), `202610_PEP.zip` -> (`202610`, `PEP.zip`); `None` for a file no stamp names
/// (the MTE's, IBAMA's).
fn dated(name: &str) -> Option<(&str, &str)> {
    let stamp = crate::api::listas::cgu_stamp(name)?;
    Some((stamp, &name[stamp.len() + 1..]))
}

/// Each dated list's files of other days than the one just fetched (`fetched`, paths under the
/// folder), removed with their records: one day of each list is in the folder.
pub(super) fn older_days(to: &Path, fetched: &[String], record: &mut Record) -> Result<(), DownloadError> {
    let dir = to.join(FOLDER);
    for rel in fetched {
        let Some((day, stem)) = rel.rsplit('/').next().and_then(dated) else { continue };
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if dated(&name).is_some_and(|(d, s)| s == stem && d != day) {
                std::fs::remove_file(entry.path()).map_err(write_error(&entry.path()))?;
                record.files.remove(&format!("{FOLDER}/{name}"));
                tracing::info!(file = %name, "an older day of a list: removed");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_day_is_the_largest_the_page_pushes_quoted_or_not() {
        let page = r#"<script>arquivos.push({"ano":"2026","mes":"11","dia":"29","origem":"ceis"});
            arquivos.push({"ano":2026,"mes":12,"dia":1});
            arquivos.push({"ano":"2025","mes":"12","dia":"31"});</script>"#;
        assert_eq!(latest_stamp(page, Cadencia::Diaria).as_deref(), Some("20261201"));
        assert_eq!(latest_stamp("<html>nada</html>", Cadencia::Diaria), None);
        assert_eq!(
            latest_stamp(r#"arquivos.push({"ano":"2026","mes":"13","dia":"01"})"#, Cadencia::Diaria),
            None
        );
        let monthly = r#"arquivos.push({"ano":"2026","mes":"09","origem":"pep"});
            arquivos.push({"ano":"2026","mes":"10","origem":"pep"});"#;
        assert_eq!(latest_stamp(monthly, Cadencia::Mensal).as_deref(), Some("202610"));
        assert_eq!(latest_stamp(monthly, Cadencia::Diaria), None, "a day is needed of a daily list");
    }
}
