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
    self, MirrorFaults, NESTED_TOKEN, RFB_LISTING, RunningMirror, SHARE_TOKEN,
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
    let rt = tokio::runtime::Runtime::new().unwrap();
    let m = rt.block_on(mirror::start(served(), faults, "127.0.0.1:0".parse().unwrap())).unwrap();
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

/// A mirror folder with the release (the served one's, linked) and the public lists in
/// `listas/`: CGU's four lists of two days, the older of CEIS only, and the two single files.
fn served_with_lists() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
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
        zip("20261129_CEIS.zip", "20261129_CEIS.csv");
        for stem in ["CEIS", "CNEP", "CEPIM", "Acordos"] {
            zip(&format!("20261130_{stem}.zip"), &format!("20261130_{stem}.csv"));
        }
        std::fs::write(listas.join("cadastro_de_empregadores.csv"), "ID;Ano da ação fiscal\r\n".repeat(300))
            .unwrap();
        std::fs::write(listas.join("termo_de_embargo.csv"), "\u{feff}SEQ_TAD;NUM_TAD\n".repeat(300)).unwrap();
        dir
    })
}

#[test]
fn the_public_lists_arrive_from_their_real_address_forms_one_day_of_each() {
    let root = served_with_lists();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let m =
        rt.block_on(mirror::start(root, MirrorFaults::default(), "127.0.0.1:0".parse().unwrap())).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join("dados");
    // A day kept from an earlier download: replaced by the latest.
    std::fs::create_dir_all(to.join("listas")).unwrap();
    std::fs::write(to.join("listas/20261128_CEIS.zip"), b"an older day").unwrap();
    let base = m.base_url();
    let lists = [
        "--lists",
        "--cgu-url",
        &format!("{base}/download-de-dados/"),
        "--mte-url",
        &format!(
            "{base}/trabalho-e-emprego/pt-br/assuntos/inspecao-do-trabalho/areas-de-atuacao/cadastro_de_empregadores.csv"
        ),
        "--ibama-url",
        &format!("{base}/dados-abertos/dados/TERMOS_DE_EMBARGO/TERMO_EMBARGO/termo_de_embargo.csv"),
    ];
    let (code, err) = download(&to, &m.share_link(SHARE_TOKEN), &format!("{base}/"), &lists);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("with 6 public lists"), "{err}");

    let mut expected: Vec<String> =
        ["CEIS", "CNEP", "CEPIM", "Acordos"].map(|s| format!("20261130_{s}.zip")).into();
    expected.extend(["cadastro_de_empregadores.csv".into(), "termo_de_embargo.csv".into()]);
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
    let sent = m.state.counters.bytes_by_file();
    assert!(!sent.keys().any(|k| k.contains("20261129")), "the older day was not fetched: {sent:?}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(to.join("download.json")).unwrap()).unwrap();
    let ceis = &record["files"]["listas/20261130_CEIS.zip"];
    assert!(ceis["url"].as_str().unwrap().ends_with("/saida/ceis/20261130_CEIS.zip"), "{ceis}");
    assert_eq!(ceis["release"], "20261130");
    assert!(record["files"].get("listas/20261128_CEIS.zip").is_none());

    // The portal's page refuses a request with no User-Agent, as the real one does.
    // (reqwest sends no User-Agent unless told to.)
    let page = format!("{base}/download-de-dados/ceis");
    let bare = rt.block_on(async { reqwest::get(&page).await.unwrap().status().as_u16() });
    assert_eq!(bare, 403);
}
