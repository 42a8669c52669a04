//! `download`: the publishers' releases fetched by the job itself, from the embedded registry's
//! release served by the publishers' mirror on loopback in RFB's and PGFN's layouts. Through cut
//! bodies, a stall, 503s and an ignored Range the latest month and quarter arrive byte for byte
//! as served, nothing of the older ones is fetched, `run --open-data` reads them, and a second
//! download sends next to nothing; a bad CRC fails with exit 13 and keeps no file; layouts not
//! understood are refused naming the address. The truth is the files the mirror serves, read
//! from its folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::common_bin::*;
use fiscal_report::simulator::mirror::{
    self, MirrorFaults, NESTED_TOKEN, REGIME_TOKEN, RFB_LISTING, RunningMirror, SHARE_TOKEN,
};
use fiscal_report::simulator::{Dataset, RegistryConfig, open_data};

pub(crate) const SCALE: f64 = 0.05;

/// The mirror's folder: the dataset's release of its latest month and of a month a quarter
/// before, as `serve --write-open-data` writes them.
pub(crate) fn served() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let latest = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
        let months = latest.months().to_vec();
        let older = months[months.len() - 4];
        let before = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE).as_of(older).unwrap();
        open_data::write_open_data(&before, &dir).unwrap();
        open_data::write_open_data(&latest, &dir).unwrap();
        dir
    })
}

/// The newest folder of `publisher` in the mirror's folder, and the others.
pub(crate) fn folders(publisher: &str) -> (String, Vec<String>) {
    let mut names: Vec<String> = std::fs::read_dir(served().join(publisher))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let latest = names.pop().unwrap();
    assert!(!names.is_empty(), "the mirror serves an older {publisher} release too");
    (latest, names)
}

/// The latest release's files as served: path under the folder -> bytes.
pub(crate) fn latest_release() -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for publisher in ["cnpj", "pgfn"] {
        let (latest, _) = folders(publisher);
        for file in files_below(&served().join(publisher).join(&latest)) {
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            out.insert(format!("{publisher}/{latest}/{name}"), std::fs::read(&file).unwrap());
        }
    }
    assert!(out.len() > 30, "RFB's parts and PGFN's three zips: {}", out.len());
    out
}

/// A mirror with `faults` on a runtime of its own (kept alive beside it).
pub(crate) fn mirror(faults: MirrorFaults) -> (tokio::runtime::Runtime, RunningMirror) {
    mirror_of(served(), faults)
}

/// A mirror of the folder `root` with `faults`, on a runtime of its own.
pub(crate) fn mirror_of(root: &Path, faults: MirrorFaults) -> (tokio::runtime::Runtime, RunningMirror) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let m = rt.block_on(mirror::start(root, faults, "127.0.0.1:0".parse().unwrap())).unwrap();
    (rt, m)
}

pub(crate) fn download(to: &Path, rfb_url: &str, pgfn_url: &str, extra: &[&str]) -> (Option<i32>, String) {
    let o = bin()
        .args(["download", "--to"])
        .arg(to)
        .args(["--rfb-url", rfb_url, "--pgfn-url", pgfn_url, "--stall-secs", "1"])
        .args(extra)
        .output()
        .unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// `to` holds exactly `release`, byte for byte (besides download.json), and no `.part`.
pub(crate) fn holds_exactly(to: &Path, release: &BTreeMap<String, Vec<u8>>) {
    let mut found = BTreeMap::new();
    for file in files_below(to) {
        let rel = file.strip_prefix(to).unwrap().to_string_lossy().replace('\\', "/");
        if rel != "download.json" {
            found.insert(rel, std::fs::read(&file).unwrap());
        }
    }
    let names = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(&found), names(release), "the files in {}", to.display());
    for (rel, bytes) in release {
        assert!(found[rel] == *bytes, "{rel} differs from the served file");
    }
}

#[test]
fn through_cuts_a_stall_503s_and_an_ignored_range_the_latest_release_arrives_whole_and_is_not_sent_again() {
    let release = latest_release();
    let size: u64 = release.values().map(|b| b.len() as u64).sum();
    let faults =
        MirrorFaults { cut: true, stall: true, unavailable: 3, ignore_range: true, ..Default::default() };
    let (_rt, m) = mirror(faults);
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join("dados");
    let (code, err) = download(&to, &m.share_link(SHARE_TOKEN), &format!("{}/", m.base_url()), &[]);
    assert_eq!(code, Some(0), "{err}");
    holds_exactly(&to, &release);

    // The faults were met: every file's first answer was cut, so more than the release was sent.
    let sent = m.state.counters.bytes_sent();
    assert!(sent > size, "sent {sent} for a release of {size}: the cuts and the ignored Range cost bytes");
    let (_, older_months) = folders("cnpj");
    let (_, older_quarters) = folders("pgfn");
    for file in m.state.counters.bytes_by_file().keys() {
        for older in older_months.iter().chain(&older_quarters) {
            assert!(!file.contains(older.as_str()), "{file} of an older release was fetched");
        }
    }

    // The record names each file as served.
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(to.join("download.json")).unwrap()).unwrap();
    assert_eq!(record["rfb_month"], folders("cnpj").0.as_str());
    assert_eq!(record["pgfn_quarter"], folders("pgfn").0.as_str());
    for (rel, bytes) in &release {
        let entry = &record["files"][rel];
        assert_eq!(entry["size"], bytes.len() as u64, "{rel}");
        assert_eq!(entry["sha256"], hex::encode(Sha256::digest(bytes)), "{rel}");
        assert!(entry["url"].as_str().unwrap().ends_with(rel.rsplit('/').next().unwrap()), "{rel}");
        assert!(entry["etag"].is_string() && entry["last_modified"].is_string(), "{rel}");
    }

    // The run reads what arrived.
    let cnpjs: Vec<String> = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE)
        .demo_portfolio(20)
        .iter()
        .map(ToString::to_string)
        .collect();
    std::fs::write(tmp.path().join("carteira.txt"), cnpjs.join("\n")).unwrap();
    let o = bin()
        .args(["--quiet", "run", "--open-data"])
        .arg(&to)
        .arg("--cnpjs")
        .arg(tmp.path().join("carteira.txt"))
        .arg("--out")
        .arg(tmp.path().join("run"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // A second download sends under 1 % of the release again.
    let (code, err) = download(&to, &m.share_link(SHARE_TOKEN), &format!("{}/", m.base_url()), &[]);
    assert_eq!(code, Some(0), "{err}");
    let again = m.state.counters.bytes_sent() - sent;
    assert!(again * 100 < size, "the second download sent {again} bytes of a {size}-byte release");
    holds_exactly(&to, &release);
}

#[test]
fn a_file_with_a_bad_crc_fails_the_download_with_exit_13_naming_it_and_is_not_kept() {
    let faults = MirrorFaults { bad_crc: Some("Simples.zip".into()), ..Default::default() };
    let (_rt, m) = mirror(faults);
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join("dados");
    let (code, err) = download(&to, &m.share_link(SHARE_TOKEN), &format!("{}/", m.base_url()), &[]);
    assert_eq!(code, Some(13), "{err}");
    assert!(err.contains("Simples.zip") && err.contains("CRC"), "{err}");
    assert!(err.contains(&format!("{}/public.php/dav/files/{SHARE_TOKEN}/", m.base_url())), "the URL: {err}");
    let (month, _) = folders("cnpj");
    let left: Vec<PathBuf> =
        files_below(&to).into_iter().filter(|p| p.to_string_lossy().contains("Simples.zip")).collect();
    assert!(left.is_empty(), "no Simples.zip, finished or not, is left: {left:?}");
    // The files that passed their check are there and recorded.
    assert!(to.join("cnpj").join(&month).join("Empresas0.zip").is_file());
}

/// RFB's share reached through each WebDAV root public code uses, as the real Nextcloud serves
/// them: the same files as through the link a person sees.
#[test]
fn each_webdav_root_of_the_share_gives_the_same_files() {
    let release = latest_release();
    let (_rt, m) = mirror(MirrorFaults::default());
    let tmp = tempfile::tempdir().unwrap();
    let (base, pgfn) = (m.base_url(), format!("{}/", m.base_url()));
    let host = base.trim_start_matches("http://");
    let roots = [
        format!("http://{SHARE_TOKEN}@{host}/public.php/webdav/"),
        format!("{base}/public.php/dav/files/{SHARE_TOKEN}/"),
        format!("{base}/remote.php/dav/public-files/{NESTED_TOKEN}/"),
        format!("{base}/remote.php/dav/public-files/{NESTED_TOKEN}/Dados/Cadastros/CNPJ/"),
    ];
    for (n, root) in roots.iter().enumerate() {
        let to = tmp.path().join(format!("root{n}"));
        let (code, err) = download(&to, root, &pgfn, &[]);
        assert_eq!(code, Some(0), "{root}: {err}");
        holds_exactly(&to, &release);
        let record: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(to.join("download.json")).unwrap()).unwrap();
        let urls: Vec<&str> = record["files"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(rel, _)| rel.starts_with("cnpj/"))
            .map(|(_, f)| f["url"].as_str().unwrap())
            .collect();
        let root_path = root.split(host).nth(1).unwrap().split("Dados/").next().unwrap();
        assert!(urls.iter().all(|u| u.contains(root_path)), "{root}: fetched through its root: {urls:?}");
    }
    // The token must be somewhere: a bare WebDAV root is refused, naming what it lacks.
    let (code, err) = download(&tmp.path().join("bare"), &format!("{base}/public.php/webdav/"), &pgfn, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("TOKEN@host"), "{err}");
}

#[test]
fn the_2024_25_apache_layout_and_the_nested_share_give_the_same_files() {
    let release = latest_release();
    let (_rt, m) = mirror(MirrorFaults::default());
    let tmp = tempfile::tempdir().unwrap();
    let pgfn = format!("{}/", m.base_url());
    let apache = tmp.path().join("apache");
    let (code, err) = download(&apache, &format!("{}{RFB_LISTING}", m.base_url()), &pgfn, &[]);
    assert_eq!(code, Some(0), "{err}");
    holds_exactly(&apache, &release);
    let nested = tmp.path().join("nested");
    let (code, err) = download(&nested, &m.share_link(NESTED_TOKEN), &pgfn, &[]);
    assert_eq!(code, Some(0), "{err}");
    holds_exactly(&nested, &release);

    // An older month and quarter by name: theirs, and only theirs.
    let ((_, months), (_, quarters)) = (folders("cnpj"), folders("pgfn"));
    let (month, quarter) = (months.last().unwrap(), quarters.last().unwrap());
    let older = tmp.path().join("older");
    let (code, err) = download(
        &older,
        &m.share_link(NESTED_TOKEN),
        &pgfn,
        &["--rfb-month", month.as_str(), "--pgfn-quarter", quarter.as_str()],
    );
    assert_eq!(code, Some(0), "{err}");
    let served_older = files_below(&served().join("cnpj").join(month)).len()
        + files_below(&served().join("pgfn").join(quarter)).len();
    let got = files_below(&older).into_iter().filter(|p| !p.ends_with("download.json")).collect::<Vec<_>>();
    assert_eq!(got.len(), served_older, "{got:?}");
    assert!(
        got.iter().all(|p| p.to_string_lossy().contains(month.as_str())
            || p.to_string_lossy().contains(quarter.as_str()))
    );
}

/// A download refused with exit 2 whose message holds each of `says`, with nothing written.
fn refused(to: &Path, outcome: (Option<i32>, String), says: &[&str]) {
    let (code, err) = outcome;
    assert_eq!(code, Some(2), "{err}");
    for s in says {
        assert!(err.contains(s), "{s:?} in: {err}");
    }
    assert!(files_below(to).is_empty(), "nothing is written: {:?}", files_below(to));
}

#[test]
fn layouts_not_understood_are_refused_naming_the_address_and_what_was_expected() {
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join("dados");

    let (_rt, m) = mirror(MirrorFaults { html_webdav: true, ..Default::default() });
    let webdav = format!("{}/public.php/webdav/", m.base_url());
    let pgfn = format!("{}/", m.base_url());
    refused(&to, download(&to, &m.share_link(SHARE_TOKEN), &pgfn, &[]), &[webdav.as_str(), "HTML", "WebDAV"]);

    let (_rt, m) = mirror(MirrorFaults { empty_listings: true, ..Default::default() });
    let listing = format!("{}{RFB_LISTING}", m.base_url());
    refused(
        &to,
        download(&to, &listing, &format!("{}/", m.base_url()), &[]),
        &[listing.as_str(), "no release folder", "YYYY-MM"],
    );

    let (_rt, m) = mirror(MirrorFaults::default());
    refused(
        &to,
        download(&to, &m.share_link("wrongToken123"), &format!("{}/", m.base_url()), &[]),
        &[format!("{}/public.php/webdav/", m.base_url()).as_str(), "401", "wrongToken123", "--rfb-url"],
    );
}

/// Today in Brasília, where CGU names its days, `back` days ago, as `YYYYMMDD`.
fn cgu_day(back: i64) -> String {
    let today = (chrono::Utc::now() - chrono::Duration::hours(3)).date_naive();
    (today - chrono::Duration::days(back)).format("%Y%m%d").to_string()
}

/// A mirror folder with the release (the served one's, linked) and the public lists in
/// `listas/`: CGU's four lists published `latest` days ago, CEIS a day before that too, and the
/// two single files.
fn served_with_lists(latest: i64) -> PathBuf {
    let dir = tempfile::tempdir().unwrap().keep();
    for publisher in ["cnpj", "pgfn"] {
        std::os::unix::fs::symlink(served().join(publisher), dir.join(publisher)).unwrap();
    }
    let listas = dir.join("listas");
    std::fs::create_dir_all(&listas).unwrap();
    let zip = |name: &str, csv: &str| {
        let mut w = zip::ZipWriter::new(std::fs::File::create(listas.join(name)).unwrap());
        w.start_file(csv, zip::write::SimpleFileOptions::default()).unwrap();
        std::io::Write::write_all(&mut w, format!("\"CADASTRO\";\"{csv}\"\r\n").repeat(500).as_bytes())
            .unwrap();
        w.finish().unwrap();
    };
    let (day, before) = (cgu_day(latest), cgu_day(latest + 1));
    zip(&format!("{before}_CEIS.zip"), &format!("{before}_CEIS.csv"));
    for stem in CGU_STEMS {
        zip(&format!("{day}_{stem}.zip"), &format!("{day}_{stem}.csv"));
    }
    // PEP is published a month at a time: `YYYYMM_PEP.zip`.
    let month = &day[..6];
    zip(&format!("{month}_PEP.zip"), &format!("{month}_PEP.csv"));
    std::fs::write(listas.join("cadastro_de_empregadores.csv"), "ID;Ano da ação fiscal\r\n".repeat(300))
        .unwrap();
    std::fs::write(listas.join("termo_de_embargo.csv"), "\u{feff}SEQ_TAD;NUM_TAD\n".repeat(300)).unwrap();
    dir
}

/// The names CGU's file host gives its lists' zips after the day.
const CGU_STEMS: [&str; 4] = ["CEIS", "CNEP", "CEPIM", "AcordosLeniencia"];

/// `download --listas` into `to` from the mirror `m` over `root`, CGU's portal at `portal`: the
/// exit code and stderr.
fn download_lists(m: &RunningMirror, to: &Path, portal: &str) -> (Option<i32>, String) {
    let base = m.base_url();
    let lists = [
        "--listas",
        "--cgu-url",
        portal,
        "--cgu-files-url",
        &format!("{base}/PortalDaTransparencia/saida/"),
        "--mte-url",
        &format!(
            "{base}/trabalho-e-emprego/pt-br/assuntos/inspecao-do-trabalho/areas-de-atuacao/cadastro_de_empregadores.csv"
        ),
        "--ibama-url",
        &format!("{base}/dados-abertos/dados/TERMOS_DE_EMBARGO/TERMO_EMBARGO/termo_de_embargo.csv"),
    ];
    download(to, &m.share_link(SHARE_TOKEN), &format!("{base}/"), &lists)
}

/// `to`'s `listas/` holds the lists of `day` and the two single files, each as `root` serves it.
fn holds_the_lists_of(to: &Path, root: &Path, day: &str) {
    let mut expected: Vec<String> = CGU_STEMS.map(|s| format!("{day}_{s}.zip")).into();
    expected.extend(["cadastro_de_empregadores.csv".into(), "termo_de_embargo.csv".into()]);
    expected.push(format!("{}_PEP.zip", &day[..6]));
    expected.sort();
    let mut found: Vec<String> = std::fs::read_dir(to.join("listas"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(found, expected, "the latest day of each list, and nothing older");
    for name in &expected {
        let (got, served) = (
            std::fs::read(to.join("listas").join(name)).unwrap(),
            std::fs::read(root.join("listas").join(name)).unwrap(),
        );
        assert!(got == served, "{name} differs from the served file");
    }
}

/// The status a GET of `url` is answered with, sent with `agent` as User-Agent (none: none).
fn status_of(rt: &tokio::runtime::Runtime, url: &str, agent: Option<&str>) -> u16 {
    let mut request = reqwest::Client::new().get(url);
    if let Some(agent) = agent {
        request = request.header("User-Agent", agent);
    }
    rt.block_on(async { request.send().await.unwrap().status().as_u16() })
}

#[test]
fn the_public_lists_arrive_from_cgus_file_host_stepping_back_over_unpublished_days() {
    // Published two days ago: today and yesterday answer 403, as the file host does.
    let root = served_with_lists(2);
    let (rt, m) = mirror_of(&root, MirrorFaults::default());
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join("dados");
    // A day kept from an earlier download: replaced by the latest.
    std::fs::create_dir_all(to.join("listas")).unwrap();
    std::fs::write(to.join("listas").join(format!("{}_CEIS.zip", cgu_day(6))), b"an older day").unwrap();
    // The portal is not reachable at all: every CGU list comes from the file host.
    let (code, err) = download_lists(&m, &to, "http://127.0.0.1:9/download-de-dados/");
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("with 7 public lists"), "{err}");
    let day = cgu_day(2);
    holds_the_lists_of(&to, &root, &day);
    let sent = m.state.counters.bytes_by_file();
    assert!(!sent.keys().any(|k| k.contains(&cgu_day(3))), "the older day was not fetched: {sent:?}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(to.join("download.json")).unwrap()).unwrap();
    let ceis = &record["files"][format!("listas/{day}_CEIS.zip")];
    let url = ceis["url"].as_str().unwrap();
    assert!(url.ends_with(&format!("/PortalDaTransparencia/saida/ceis/{day}_CEIS.zip")), "{ceis}");
    assert_eq!(ceis["release"].as_str(), Some(day.as_str()));
    assert!(record["files"].get(format!("listas/{}_CEIS.zip", cgu_day(6))).is_none());

    // The file host answers 403 for a day it does not hold, and for a client with no name.
    let status = |url: String, agent: Option<&str>| status_of(&rt, &url, agent);
    let hosted = |d: &str| format!("{}/PortalDaTransparencia/saida/ceis/{d}_CEIS.zip", m.base_url());
    assert_eq!(status(hosted(&cgu_day(0)), Some("curl/8.5.0")), 403);
    assert_eq!(status(hosted(&day), None), 403);
    assert_eq!(status(hosted(&day), Some("curl/8.5.0")), 200);
}

#[test]
fn with_no_recent_day_on_the_file_host_the_lists_come_through_the_portal_which_refuses_non_browsers() {
    // Published longer ago than the file host is asked back: the portal's page names the day.
    let root = served_with_lists(15);
    let (rt, m) = mirror_of(&root, MirrorFaults::default());
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join("dados");
    let (code, err) = download_lists(&m, &to, &format!("{}/download-de-dados/", m.base_url()));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("trying the portal's page"), "the fallback is said: {err}");
    holds_the_lists_of(&to, &root, &cgu_day(15));

    // The portal answers 405 to a client that does not introduce itself as a browser, as the
    // real one does, and its page to one that does.
    let page = format!("{}/download-de-dados/ceis", m.base_url());
    let status = |agent: Option<&str>| status_of(&rt, &page, agent);
    assert_eq!(status(None), 405);
    assert_eq!(status(Some("python-requests/2.32.3")), 405);
    assert_eq!(status(Some("Mozilla/5.0 (compatible; fiscal-report/0.1)")), 200);
}

/// `download --regime`: RFB's tax regime files from their own share, byte for byte as served,
/// beside the release; a run over the folder reads them; a share holding none is refused.
#[test]
fn the_tax_regime_files_arrive_from_their_own_share_and_the_run_reads_them() {
    let mut want = latest_release();
    for file in files_below(&served().join("regime_tributario")) {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        want.insert(format!("regime_tributario/{name}"), std::fs::read(&file).unwrap());
    }
    let (_rt, m) = mirror(MirrorFaults::default());
    let tmp = tempfile::tempdir().unwrap();
    let (to, pgfn) = (tmp.path().join("files"), format!("{}/", m.base_url()));
    let regime = ["--regime", "--regime-url", &m.share_link(REGIME_TOKEN)];
    let (code, err) = download(&to, &m.share_link(SHARE_TOKEN), &pgfn, &regime);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("with 4 tax regime files"), "{err}");
    holds_exactly(&to, &want);
    let portfolio = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE).demo_portfolio(20);
    let cnpjs: Vec<String> = portfolio.iter().map(ToString::to_string).collect();
    std::fs::write(tmp.path().join("carteira.txt"), cnpjs.join("\n")).unwrap();
    let o = bin()
        .args(["--quiet", "run", "--open-data"])
        .arg(&to)
        .arg("--cnpjs")
        .arg(tmp.path().join("carteira.txt"))
        .arg("--out")
        .arg(tmp.path().join("run"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m_json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("run/manifest.json")).unwrap()).unwrap();
    let read: std::collections::BTreeSet<String> = m_json["open_data"]["regime"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().split(".zip/").next().unwrap().to_string())
        .collect();
    let zips: std::collections::BTreeSet<String> = want
        .keys()
        .filter(|k| k.starts_with("regime_tributario/"))
        .map(|k| k.trim_end_matches(".zip").to_string())
        .collect();
    assert_eq!(read, zips, "every regime zip read");
    // The CNPJ share holds none of them: refused, naming the address.
    let (code, err) = download(
        &tmp.path().join("none"),
        &m.share_link(SHARE_TOKEN),
        &pgfn,
        &["--regime", "--regime-url", &m.share_link(SHARE_TOKEN)],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("none of RFB's tax regime files"), "{err}");
}
