//! `run --email-to` against a real SMTP server on loopback: Debian's aiosmtpd
//! (tests/interop/smtp_server.py) with STARTTLS required (a certificate the test signs with a
//! CA of its own, trusted through SSL_CERT_FILE), a login required, and one recipient it
//! refuses. The server writes each message it takes as .eml and as JSON read back by Python's
//! own e-mail parser; the test checks them against the files the run wrote and its aggregates
//! read from the Parquet files, never against what the mail code computed.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use polars::prelude::*;
use sha2::Digest;

use crate::common_bin::{bin, files_below, skip};

const USER: &str = "relatorios";
const PASSWORD: &str = "s3nha-do-teste-7781";
const REFUSED: &str = "recusado@example.com";
const TO: &str = "analista@example.com,gestora@example.com";
/// The exit code README documents for a report that could not be mailed.
const EMAIL_FAILED: i32 = 12;

/// A python3 that imports aiosmtpd (tests/requirements.txt's venv, or Debian's package for the
/// system's python3), and
/// openssl; `None` after `skip` (which fails the test under CI).
fn tools() -> Option<&'static str> {
    let openssl = Command::new("openssl").arg("version").output().is_ok_and(|o| o.status.success());
    let python = ["python3", "/usr/bin/python3"]
        .into_iter()
        .find(|p| Command::new(p).args(["-c", "import aiosmtpd"]).output().is_ok_and(|o| o.status.success()));
    match (openssl, python) {
        (true, Some(p)) => Some(p),
        _ => {
            skip(
                "python3 with aiosmtpd and openssl (pip install -r tests/requirements.txt; apt-get install openssl)",
            );
            None
        }
    }
}

/// The SMTP server child, killed on drop.
struct Server {
    child: Child,
    port: u16,
    received: PathBuf,
    ca: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn openssl(dir: &Path, args: &[&str]) {
    let o = Command::new("openssl").current_dir(dir).args(args).output().unwrap();
    assert!(o.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// A CA and a server certificate for 127.0.0.1 signed by it, in `dir`.
fn certificates(dir: &Path) {
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n\
         keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    let days = ["-days", "2"];
    openssl(
        dir,
        &[
            &[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-subj",
                "/CN=teste-ca",
            ][..],
            &days,
        ]
        .concat(),
    );
    openssl(
        dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "key.pem",
            "-out",
            "srv.csr",
            "-subj",
            "/CN=localhost",
        ],
    );
    openssl(
        dir,
        &[
            &[
                "x509",
                "-req",
                "-in",
                "srv.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "cert.pem",
                "-extfile",
                "ext.cnf",
            ][..],
            &days,
        ]
        .concat(),
    );
}

fn start_server(python: &str, dir: &Path) -> Server {
    certificates(dir);
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let received = dir.join("received");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/smtp_server.py");
    let mut child = Command::new(python)
        .arg(script)
        .args(["--port", &port.to_string(), "--user", USER, "--password", PASSWORD, "--refuse", REFUSED])
        .arg("--cert")
        .arg(dir.join("cert.pem"))
        .arg("--key")
        .arg(dir.join("key.pem"))
        .arg("--dir")
        .arg(&received)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert_eq!(line.trim(), "ready", "the SMTP server did not start");
    Server { child, port, received, ca: dir.join("ca.pem") }
}

/// The plain demo in `cwd`, mailed through `server` to `to` with `password`.
fn demo_mailed(cwd: &Path, server: &Server, to: &str, password: &str, extra: &[&str]) -> Output {
    let url = format!("smtp://{USER}@127.0.0.1:{}?tls=required", server.port);
    bin()
        .current_dir(cwd)
        // One state's credits: the mail reads the month's figures whatever the states, and the
        // demo's 27 made each of these runs twice as long.
        .args(["run", "--dossies", "0", "--expand-groups=false", "--uf", "SP"])
        .args(["--email-to", to, "--smtp-url", &url, "--email-from", "relatorios@example.com"])
        .args(extra)
        .env("FISCAL_REPORT_SMTP_PASSWORD", password)
        .env("SSL_CERT_FILE", &server.ca)
        .output()
        .unwrap()
}

/// The messages the server took, in order (their JSON).
fn received(server: &Server) -> Vec<serde_json::Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(&server.received)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files.iter().map(|f| serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap()).collect()
}

/// The demo's output folder in `cwd`.
fn out_dir(cwd: &Path) -> PathBuf {
    let found = std::fs::read_dir(cwd.join("output"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_dir() && !p.file_name().unwrap().to_string_lossy().starts_with('.'));
    found.expect("the demo wrote its output folder")
}

/// `1234567.8` as pt-BR money with cents: `R$ 1.234.567,80` (written here, not by the crate).
fn brl(cents: i128) -> String {
    let (sign, cents) = if cents < 0 { ("-", -cents) } else { ("", cents) };
    let units = (cents / 100).to_string();
    let mut grouped = String::new();
    for (i, c) in units.chars().enumerate() {
        if i > 0 && (units.len() - i) % 3 == 0 {
            grouped.push('.');
        }
        grouped.push(c);
    }
    format!("{sign}R$ {grouped},{:02}", cents % 100)
}

/// The month's total of active credits, from the Parquet file: its newest month and cents.
fn newest_total(out: &Path) -> (String, i128) {
    let file = std::fs::File::open(out.join("aggregates/creditos_total_mensal.parquet")).unwrap();
    let df = ParquetReader::new(file).finish().unwrap();
    let months = df.column("ano_mes").unwrap().cast(&DataType::String).unwrap();
    let months = months.str().unwrap();
    let totals = df.column("valor_total").unwrap();
    let totals = totals.decimal().unwrap();
    assert_eq!(totals.scale(), 2);
    let (i, month) = (0..df.height())
        .map(|i| (i, months.get(i).unwrap().to_string()))
        .max_by(|a, b| a.1.cmp(&b.1))
        .unwrap();
    (month, totals.physical().get(i).unwrap())
}

fn month_label(ano_mes: &str) -> String {
    const PT: [&str; 12] =
        ["jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"];
    let m: usize = ano_mes[4..6].parse().unwrap();
    format!("{}/{}", PT[m - 1], &ano_mes[..4])
}

/// The new alerts of the run, from alertas.jsonl.
fn new_alerts(out: &Path) -> usize {
    let text = std::fs::read_to_string(out.join("alertas.jsonl")).unwrap();
    text.lines().filter(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["estado"] == "nova").count()
}

fn sha256_of(path: &Path) -> String {
    hex::encode(sha2::Sha256::digest(std::fs::read(path).unwrap()))
}

/// No file below `dir` holds `password`.
fn password_in_no_file(dir: &Path, password: &str) {
    for f in files_below(dir) {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            !bytes.windows(password.len()).any(|w| w == password.as_bytes()),
            "the password is in {}",
            f.display()
        );
    }
}

#[test]
fn the_demo_report_is_mailed_once_a_month_with_its_files_and_figures() {
    let Some(python) = tools() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let server = start_server(python, tmp.path());
    let cwd = tmp.path().join("run");
    std::fs::create_dir_all(&cwd).unwrap();

    let first = demo_mailed(&cwd, &server, TO, PASSWORD, &[]);
    let (stdout, stderr) = (String::from_utf8_lossy(&first.stdout), String::from_utf8_lossy(&first.stderr));
    assert_eq!(first.status.code(), Some(0), "{stderr}");
    let mail = received(&server);
    assert_eq!(mail.len(), 1, "one message per run");
    let m = &mail[0];
    assert_eq!(m["tls"], true, "STARTTLS");
    assert_eq!(m["authenticated"], true);
    assert_eq!(m["rcpt_tos"], serde_json::json!(["analista@example.com", "gestora@example.com"]));
    assert!(m["to"].as_str().unwrap().contains("gestora@example.com"), "{}", m["to"]);

    // The subject: the demo marked, the month, the headline figure, the new alerts.
    let out = out_dir(&cwd);
    let (month, cents) = newest_total(&out);
    let subject = m["subject"].as_str().unwrap();
    assert!(subject.starts_with("[DEMONSTRAÇÃO] Relatório fiscal "), "{subject}");
    assert!(subject.contains(&format!("Relatório fiscal {}:", month_label(&month))), "{subject}");
    assert!(subject.contains("em cobrança"), "{subject}");
    let novos = new_alerts(&out);
    assert!(novos > 0, "the demo raises new alerts");
    assert!(subject.ends_with(&format!("{novos} alertas novos")), "{subject} ({novos} new in alertas.jsonl)");

    // The text part's figures are the aggregates' (read from the Parquet files).
    let text = m["text"].as_str().unwrap();
    assert!(text.contains(&format!("Créditos ativos: {}", brl(cents))), "{} in {text}", brl(cents));
    assert!(text.contains(&format!("Alertas novos ({novos})")), "{text}");
    assert!(text.contains("[DEMONSTRAÇÃO]"), "{text}");
    assert!(m["html"].as_str().unwrap().contains("Créditos ativos"), "an HTML part too");

    // No PDF was made: report.html and report.xlsx, byte for byte the files written.
    let attached: Vec<&serde_json::Value> = m["attachments"].as_array().unwrap().iter().collect();
    let names: Vec<&str> = attached.iter().map(|a| a["filename"].as_str().unwrap()).collect();
    assert_eq!(names, ["report.html", "report.xlsx"]);
    for a in attached {
        let file = out.join(a["filename"].as_str().unwrap());
        assert_eq!(a["sha256"].as_str().unwrap(), sha256_of(&file), "{}", file.display());
        assert_eq!(a["size"].as_u64().unwrap(), std::fs::metadata(&file).unwrap().len());
    }

    // The manifest says what was sent and to whom; the password is nowhere.
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["email"]["mes"], month.as_str());
    assert_eq!(manifest["email"]["para"], serde_json::json!(["analista@example.com", "gestora@example.com"]));
    assert_eq!(manifest["email"]["assunto"], subject);
    assert!(!stdout.contains(PASSWORD) && !stderr.contains(PASSWORD));
    password_in_no_file(&out, PASSWORD);

    // The same month again: nothing sent; asked again: sent again.
    let again = demo_mailed(&cwd, &server, TO, PASSWORD, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(received(&server).len(), 1, "a re-run of the month mails nothing");
    let forced = demo_mailed(&cwd, &server, TO, PASSWORD, &["--email-again"]);
    assert_eq!(forced.status.code(), Some(0), "{}", String::from_utf8_lossy(&forced.stderr));
    assert_eq!(received(&server).len(), 2, "--email-again mails it again");
}

/// A run whose mail fails: the documented code, every output written, the reason said; its
/// output folder, its stderr, its temp dir, its manifest, and the server (still running).
fn failed_run(
    python: &str,
    to: &str,
    password: &str,
) -> (PathBuf, String, tempfile::TempDir, serde_json::Value, Server) {
    let tmp = tempfile::tempdir().unwrap();
    let server = start_server(python, tmp.path());
    let cwd = tmp.path().join("run");
    std::fs::create_dir_all(&cwd).unwrap();
    let o = demo_mailed(&cwd, &server, to, password, &[]);
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert_eq!(o.status.code(), Some(EMAIL_FAILED), "{stderr}");
    assert!(!stdout.contains(password) && !stderr.contains(password), "{stderr}");
    let out = out_dir(&cwd);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    for file in ["report.html", "report.md", "report.xlsx", "alertas.jsonl"] {
        let listed = manifest["files"].as_array().unwrap().iter().any(|f| f["path"] == file);
        assert!(listed && out.join(file).is_file(), "{file} written before the mail");
    }
    (out, stderr.to_string(), tmp, manifest, server)
}

#[test]
fn a_wrong_password_exits_12_after_every_output_naming_the_login() {
    let Some(python) = tools() else { return };
    let wrong = "not-the-password";
    let (out, stderr, _tmp, manifest, server) = failed_run(python, TO, wrong);
    assert!(manifest.get("email").is_none(), "nothing recorded as sent");
    assert_eq!(received(&server).len(), 0, "nothing delivered");
    assert!(stderr.contains("refused the login") && stderr.contains(USER), "{stderr}");
    password_in_no_file(&out, wrong);
}

/// One recipient refused among two: the other gets the report, the run exits 12 naming the
/// refused one, and once the address is corrected a re-run mails the corrected one alone.
#[test]
fn a_refused_recipient_exits_12_naming_it_and_the_others_get_the_report() {
    let Some(python) = tools() else { return };
    let good = "analista@example.com";
    let (out, stderr, tmp, manifest, server) = failed_run(python, &format!("{good},{REFUSED}"), PASSWORD);
    assert!(stderr.contains(REFUSED) && stderr.contains("refused"), "{stderr}");
    let got = received(&server);
    assert_eq!(got.len(), 1, "one message, to the recipient the server took");
    assert_eq!(got[0]["rcpt_tos"], serde_json::json!([good]));
    assert_eq!(manifest["email"]["para"], serde_json::json!([good]));
    let refused = manifest["email"]["recusados"].as_array().unwrap();
    assert!(refused.len() == 1 && refused[0].as_str().unwrap().contains(REFUSED), "{refused:?}");
    password_in_no_file(&out, PASSWORD);

    // The address corrected: the re-run mails the corrected recipient, and nobody twice.
    let corrected = "gestora@example.com";
    let o = demo_mailed(&tmp.path().join("run"), &server, &format!("{good},{corrected}"), PASSWORD, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let got = received(&server);
    assert_eq!(got.len(), 2, "one more message");
    assert_eq!(got[1]["rcpt_tos"], serde_json::json!([corrected]));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["email"]["para"], serde_json::json!([good, corrected]));
}
