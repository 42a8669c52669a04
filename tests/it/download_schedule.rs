//! The download on a schedule: stopped by SIGTERM a third of the way and run again, it sends
//! little more than the release; and deploy/cron.txt's own command, run over two months of the
//! publishers' mirror, downloads each month, keeps the one before, reads only the latest and
//! commits both to the store. The truth is the files the mirror serves, read from its folder.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::common_bin::*;
use crate::download::{SCALE, download, folders, holds_exactly, latest_release, mirror, mirror_of, served};
use fiscal_report::simulator::mirror::{MirrorFaults, SHARE_TOKEN};
use fiscal_report::simulator::{Dataset, RegistryConfig, open_data};

/// Bytes of the files under `dir` (finished or `.part`), the record aside.
fn bytes_below(dir: &Path) -> u64 {
    files_below(dir)
        .iter()
        .filter(|p| !p.ends_with("download.json"))
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

#[test]
fn a_download_stopped_by_sigterm_a_third_of_the_way_resumes_and_sends_at_most_a_quarter_more() {
    let release = latest_release();
    let size: u64 = release.values().map(|b| b.len() as u64).sum();
    // A slow server: about 15 s for the whole release over four connections.
    let (_rt, slow) = mirror(MirrorFaults { pace: Some((size / 60).max(1)), ..Default::default() });
    let tmp = tempfile::tempdir().unwrap();
    let to = tmp.path().join("dados");
    let pgfn = |m: &fiscal_report::simulator::mirror::RunningMirror| format!("{}/", m.base_url());
    let mut child = bin()
        .args(["download", "--to"])
        .arg(&to)
        .args(["--rfb-url", &slow.share_link(SHARE_TOKEN), "--pgfn-url", &pgfn(&slow)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while bytes_below(&to) * 3 < size {
        assert!(started.elapsed() < Duration::from_secs(120), "a third never arrived");
        std::thread::sleep(Duration::from_millis(20));
    }
    let at_stop = bytes_below(&to);
    let sent = std::process::Command::new("kill").args(["-s", "TERM", &child.id().to_string()]).status();
    assert!(sent.unwrap().success());
    let stderr = {
        use std::io::Read;
        let mut s = String::new();
        child.stderr.take().unwrap().read_to_string(&mut s).unwrap();
        s
    };
    assert_eq!(child.wait().unwrap().code(), Some(130), "{stderr}");
    assert!(stderr.contains("resumes"), "the message says how to go on: {stderr}");
    assert!(at_stop < size, "stopped before the end: {at_stop} of {size}");
    assert!(
        files_below(&to).iter().any(|p| p.to_string_lossy().ends_with(".part")),
        "the unfinished files are kept to resume"
    );

    // Run again, against the same files at full speed: the rest arrives, byte for byte.
    let (_rt2, fast) = mirror(MirrorFaults::default());
    let (code, err) = download(&to, &fast.share_link(SHARE_TOKEN), &pgfn(&fast), &[]);
    assert_eq!(code, Some(0), "{err}");
    holds_exactly(&to, &release);
    let total = slow.state.counters.bytes_sent() + fast.state.counters.bytes_sent();
    assert!(
        total * 4 <= size * 5,
        "sent {total} bytes in all for a {size}-byte release (at most 1.25 x): stopped at {at_stop}"
    );
}

/// A mirror folder with the dataset's release of the month a quarter before its latest only:
/// what the publishers served a month (or more) ago.
fn served_before() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let months = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE).months().to_vec();
        let before = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE).as_of(months[months.len() - 4]);
        open_data::write_open_data(&before.unwrap(), &dir).unwrap();
        dir
    })
}

/// deploy/cron.txt's command (the words after the binary), with its paths moved under `tmp`,
/// the portfolio and rules files given, and its mail flags left out (the mail has its own tests).
fn cron_command(tmp: &Path, portfolio: &Path, label: &str) -> Vec<String> {
    let cron =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/cron.txt")).unwrap();
    let line = cron.lines().find(|l| !l.starts_with('#') && !l.trim().is_empty()).unwrap();
    let (_, command) = line.split_once("/usr/local/bin/fiscal-report ").expect("the binary's path");
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("regras/exemplo.toml");
    let mut words = Vec::new();
    let mut it = shell_words(&command.replace("$(date +\\%Y\\%m)", label)).into_iter();
    while let Some(w) = it.next() {
        if ["--email-to", "--smtp-url", "--email-from"].contains(&w.as_str()) {
            it.next();
            continue;
        }
        let w = w
            .replace("/etc/fiscal-report/carteira.csv", &portfolio.display().to_string())
            .replace("/etc/fiscal-report/regras.toml", &rules.display().to_string())
            .replace("/var/lib/fiscal-report", &tmp.display().to_string());
        words.push(w);
    }
    words
}

/// `text` split as a shell splits words: on blanks, outside single quotes.
fn shell_words(text: &str) -> Vec<String> {
    let (mut out, mut word, mut quoted) = (Vec::new(), String::new(), false);
    for c in text.chars() {
        match c {
            '\'' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    out.extend((!word.is_empty()).then_some(word));
    out
}

#[test]
fn the_cron_example_runs_over_two_months_of_the_mirror_downloading_each_and_reading_the_latest() {
    let tmp = tempfile::tempdir().unwrap();
    let cnpjs: Vec<String> = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE)
        .demo_portfolio(20)
        .iter()
        .map(ToString::to_string)
        .collect();
    let portfolio = tmp.path().join("carteira.csv");
    std::fs::write(&portfolio, cnpjs.join("\n")).unwrap();
    let ((latest_month, older_months), (latest_quarter, older_quarters)) = (folders("cnpj"), folders("pgfn"));
    let (month_before, quarter_before) = (older_months.last().unwrap(), older_quarters.last().unwrap());

    let mut received = Vec::new();
    for (root, label) in [(served_before(), "m1"), (served(), "m2")] {
        let (_rt, m) = mirror_of(root, MirrorFaults::default());
        let o = bin()
            .args(cron_command(tmp.path(), &portfolio, label))
            .env("FISCAL_REPORT_RFB_URL", m.share_link(SHARE_TOKEN))
            .env("FISCAL_REPORT_PGFN_URL", format!("{}/", m.base_url()))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{label}: {stderr}");
        received.push(m.state.counters.bytes_sent());
    }
    assert!(received.iter().all(|r| *r > 0), "each month was downloaded: {received:?}");

    // The data folder keeps the month before (--keep 2) beside the latest...
    let dados = tmp.path().join("dados");
    for (publisher, kept) in
        [("cnpj", [month_before, &latest_month]), ("pgfn", [quarter_before, &latest_quarter])]
    {
        let mut names: Vec<String> = std::fs::read_dir(dados.join(publisher))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, kept.map(|k| k.to_string()), "{publisher} keeps two releases");
    }
    // ... and the second run read the latest alone.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("saida/m2/manifest.json")).unwrap()).unwrap();
    let read: Vec<&str> = manifest["open_data"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(!read.is_empty());
    for path in read {
        assert!(
            path.contains(latest_month.as_str()) || path.contains(latest_quarter.as_str()),
            "{path} read"
        );
    }
    // Both months are in the store.
    let info = bin().args(["store", "info"]).arg(tmp.path().join("store")).output().unwrap();
    let info = String::from_utf8_lossy(&info.stdout);
    for month in [month_before, &latest_month] {
        assert!(info.contains(&month.replace('-', "")), "{month} in the store: {info}");
    }
}

/// Read back `dir/aggregates/sancoes.parquet`, its rows in a fixed order.
fn sancoes(dir: &Path) -> polars::prelude::DataFrame {
    use polars::prelude::*;
    let df = ParquetReader::new(std::fs::File::open(dir.join("aggregates/sancoes.parquet")).unwrap())
        .finish()
        .unwrap();
    let by: Vec<String> = df.get_column_names().iter().map(|c| c.to_string()).collect();
    df.sort(by, SortMultipleOptions::default()).unwrap()
}

/// The lists the embedded dataset publishes, fetched by `download --listas` from the mirror in
/// their real address forms, give the run the same `sancoes` as the served folder read in place:
/// nothing of a list is lost or changed on the way.
#[test]
fn the_lists_downloaded_from_the_mirror_give_the_same_sancoes_as_the_served_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let served = tmp.path().join("espelho");
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
    open_data::write_open_data(&d, &served).unwrap();
    let mut portfolio: Vec<String> = d.demo_portfolio(20).iter().map(ToString::to_string).collect();
    portfolio.extend(d.listas().targets.iter().map(ToString::to_string));
    std::fs::write(tmp.path().join("carteira.txt"), portfolio.join("\n")).unwrap();

    let (_rt, m) = mirror_of(&served, MirrorFaults::default());
    let base = m.base_url();
    let to = tmp.path().join("dados");
    let (code, err) = download(
        &to,
        &m.share_link(SHARE_TOKEN),
        &format!("{base}/"),
        &[
            "--listas",
            "--cgu-url",
            &format!("{base}/download-de-dados/"),
            "--cgu-files-url",
            &format!("{base}/saida/"),
            "--mte-url",
            &format!("{base}/trabalho/cadastro_de_empregadores.csv"),
            "--ibama-url",
            &format!("{base}/ibama/termo_de_embargo.csv"),
        ],
    );
    assert_eq!(code, Some(0), "{err}");

    let run = |dir: &Path, out: &str| {
        let o = bin()
            .args(["--quiet", "run", "--open-data"])
            .arg(dir)
            .arg("--cnpjs")
            .arg(tmp.path().join("carteira.txt"))
            .arg("--out")
            .arg(tmp.path().join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{out}: {}", String::from_utf8_lossy(&o.stderr));
        sancoes(&tmp.path().join(out))
    };
    let (downloaded, in_place) = (run(&to, "baixado"), run(&served, "no_lugar"));
    assert!(downloaded.height() > 0, "the portfolio meets the lists");
    assert!(downloaded.equals_missing(&in_place), "downloaded:\n{downloaded}\nin place:\n{in_place}");

    // The manifest names each list read, with its date, as the files in the served folder say.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("baixado/manifest.json")).unwrap()).unwrap();
    let listas = manifest["open_data"]["listas"].as_array().unwrap();
    let mut read: Vec<&str> = listas.iter().map(|l| l["lista"].as_str().unwrap()).collect();
    read.sort();
    assert_eq!(read, ["CEIS", "CEPIM", "CNEP", "IBAMA", "LENIENCIA", "PEP", "TRABALHO_ESCRAVO"]);
    for l in listas {
        let path = l["path"].as_str().unwrap();
        // `listas/NAME`, or `listas/NAME.zip/NAME.csv` for the CSV inside a zip.
        let name = path.split('/').nth(1).unwrap();
        if let Some((day, _)) =
            name.split_once('_').filter(|(d, _)| d.len() == 8 && d.bytes().all(|b| b.is_ascii_digit()))
        {
            assert_eq!(l["data_lista"].as_str().unwrap().replace('-', ""), day, "{path}");
        }
        assert!(served.join("listas").join(name).is_file(), "{path} is a served list");
    }
}
