//! The public lists' files, fetched beside the release with `--lists`: CGU's CEIS, CNEP, CEPIM
//! and Acordos de Leniência from Portal da Transparência (the latest day the list's page names
//! in `arquivos.push({"ano":…,"mes":…,"dia":…})`, whose address redirects to its zip
//! `YYYYMMDD_CEIS.zip`), the labour ministry's Cadastro de Empregadores and IBAMA's embargoes,
//! each a file at a fixed address. They land in `listas/`, one day of each: a list is
//! republished whole, so an older day's file is removed once the new one is checked.

use std::path::Path;
use std::time::Duration;

use url::Url;

use super::{DownloadError, Record, Remote, write_error};

/// Portal da Transparência's download pages, one a list below it.
pub const CGU_URL: &str = "https://portaldatransparencia.gov.br/download-de-dados/";
/// The labour ministry's Cadastro de Empregadores ("lista suja").
pub const MTE_URL: &str = "https://www.gov.br/trabalho-e-emprego/pt-br/assuntos/inspecao-do-trabalho/areas-de-atuacao/cadastro_de_empregadores.csv";
/// IBAMA's embargoes (the file its open-data catalogue names since May 2026).
pub const IBAMA_URL: &str = "https://stibamadadosabertosprd.blob.core.windows.net/dados-abertos/dados/TERMOS_DE_EMBARGO/TERMO_EMBARGO/termo_de_embargo.csv";
/// CGU's lists, as the portal's addresses name them.
pub const CGU_LISTS: [&str; 4] = ["ceis", "cnep", "cepim", "acordos-leniencia"];
/// The folder under the download's where the lists land.
pub const FOLDER: &str = "listas";

/// Where the lists are fetched from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListSources {
    pub cgu_url: String,
    pub mte_url: String,
    pub ibama_url: String,
}

/// Every list's file, found: CGU's at their latest day, the others at their addresses.
pub(super) async fn files(
    http: &reqwest::Client,
    sources: &ListSources,
    stall: Duration,
) -> Result<Vec<Remote>, DownloadError> {
    let mut out = Vec::new();
    for list in CGU_LISTS {
        out.push(cgu(http, &sources.cgu_url, list, stall).await?);
    }
    for url in [&sources.mte_url, &sources.ibama_url] {
        out.push(single(url)?);
    }
    Ok(out)
}

fn layout(url: &str, problem: impl Into<String>, expected: &str) -> DownloadError {
    DownloadError::Layout { url: url.to_string(), problem: problem.into(), expected: expected.to_string() }
}

fn parse(url: &str) -> Result<Url, DownloadError> {
    Url::parse(url).map_err(|e| layout(url, format!("not an address ({e})"), "an http(s) address"))
}

/// `list`'s zip of the latest day its page at `base` names, found through the day's redirect.
async fn cgu(
    http: &reqwest::Client,
    base: &str,
    list: &str,
    stall: Duration,
) -> Result<Remote, DownloadError> {
    let base = if base.ends_with('/') { base.to_string() } else { format!("{base}/") };
    let page = parse(&base)?.join(list).map_err(|e| layout(&base, e.to_string(), "a base address"))?;
    let expected = "Portal da Transparência's download page, naming its days in arquivos.push({\"ano\":…})";
    let (status, _, body) = super::listing::fetch_text(http.get(page.clone()), page.as_str(), stall).await?;
    if status != 200 {
        return Err(layout(page.as_str(), format!("answered {status}"), expected));
    }
    let Some(day) = latest_day(&body) else {
        return Err(layout(page.as_str(), "the page names no day", expected));
    };
    let day_url = parse(&format!("{page}/{day}"))?;
    let zip = redirected(http, &day_url, stall).await?;
    let name = zip.path_segments().and_then(|mut s| s.next_back()).unwrap_or_default().to_string();
    if !name.to_ascii_lowercase().ends_with(".zip") {
        return Err(layout(day_url.as_str(), format!("leads to {zip}"), "a redirect to the day's zip"));
    }
    Ok(Remote {
        url: zip,
        token: None,
        rel: format!("{FOLDER}/{name}"),
        release: day,
        size: None,
        etag: None,
        last_modified: None,
    })
}

/// Where the day's address leads: the client follows no redirect, so its Location is read here
/// (a day served in place leads to itself).
async fn redirected(http: &reqwest::Client, day: &Url, stall: Duration) -> Result<Url, DownloadError> {
    let mut last = String::new();
    for attempt in 1..=super::transfer::TRIES {
        match tokio::time::timeout(stall, http.head(day.clone()).send()).await {
            Ok(Ok(r)) if r.status().is_redirection() => {
                let location = r.headers().get(reqwest::header::LOCATION).and_then(|v| v.to_str().ok());
                return match location.and_then(|l| day.join(l).ok()) {
                    Some(target) => Ok(target),
                    None => Err(layout(
                        day.as_str(),
                        "a redirect with no Location",
                        "a redirect to the day's zip",
                    )),
                };
            }
            Ok(Ok(r)) if r.status().is_success() => return Ok(day.clone()),
            Ok(Ok(r)) if r.status().as_u16() == 429 || r.status().is_server_error() => {
                last = format!("answered {}", r.status().as_u16());
            }
            Ok(Ok(r)) => {
                return Err(layout(
                    day.as_str(),
                    format!("answered {}", r.status().as_u16()),
                    "the day's zip",
                ));
            }
            Ok(Err(e)) => last = super::transfer::describe(&e),
            Err(_) => last = format!("no answer within {} s", stall.as_secs()),
        }
        tokio::time::sleep(super::transfer::backoff(attempt)).await;
    }
    Err(DownloadError::Unreachable { url: day.to_string(), why: last, tries: super::transfer::TRIES })
}

/// A list published as one file at `url`.
fn single(url: &str) -> Result<Remote, DownloadError> {
    let parsed = parse(url)?;
    let name = parsed.path_segments().and_then(|mut s| s.next_back()).unwrap_or_default().to_string();
    if name.is_empty() {
        return Err(layout(url, "names no file", "the list's file, like …/cadastro_de_empregadores.csv"));
    }
    Ok(Remote {
        url: parsed,
        token: None,
        rel: format!("{FOLDER}/{name}"),
        release: "latest".into(),
        size: None,
        etag: None,
        last_modified: None,
    })
}

/// The latest day (`YYYYMMDD`) a portal page names: the largest of its `arquivos.push({…})`.
fn latest_day(page: &str) -> Option<String> {
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
            let (y, m, d) = (field("ano")?, field("mes")?, field("dia")?);
            ((1..=12).contains(&m) && (1..=31).contains(&d)).then(|| format!("{y:04}{m:02}{d:02}"))
        })
        .max()
}

/// A dated list file's day and the rest of its name: `20261130_CEIS.zip` -> (`20261130`,
/// `CEIS.zip`); `None` for a file no day names (the MTE's, IBAMA's).
fn dated(name: &str) -> Option<(&str, &str)> {
    name.split_once('_').filter(|(day, _)| day.len() == 8 && day.bytes().all(|b| b.is_ascii_digit()))
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
        assert_eq!(latest_day(page).as_deref(), Some("20261201"));
        assert_eq!(latest_day("<html>nada</html>"), None);
        assert_eq!(latest_day(r#"arquivos.push({"ano":"2026","mes":"13","dia":"01"})"#), None);
    }
}
