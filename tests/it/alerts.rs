//! Watch rules and alerts: a rules file with every kind of rule over the embedded registry at M
//! (202608) then M+1 (202609) must raise exactly the alerts the ground truth's diff implies;
//! `--fail-on-alert` exits 9; `--notify-webhook` posts one summary to a local receiver (none
//! when nothing fired) holding no key; a broken rules file stops the run before any fetch.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};

use fiscal_report::api::{AnoMes, Cnpj};
use fiscal_report::simulator::dataset::RecordsTruth;
use fiscal_report::simulator::{Dataset, RegistryConfig};

use super::changes::{company_changes, fold};
use super::common_bin::{ServeProcess, bin, files_below};

const KEY: &str = "registry-key-4f1c9e";
const TOKEN: &str = "webhook-token-8b2d77";
const HOOK_PATH: &str = "/hook/T000/B000/hook-secret-3a9f";

/// (rule, cnpj, kind of change, record key): one alert as compared. Plans' keys are left out
/// (the table writes them as two published values the truth spells differently).
type AlertKey = (String, String, String, String);

/// A loopback HTTP receiver that records each request's head and body and answers 200.
pub(super) struct Receiver {
    pub(super) url: String,
    pub(super) got: Arc<Mutex<Vec<(String, String)>>>,
}

pub(super) fn receiver() -> Receiver {
    receiver_answering("200 OK")
}

/// A receiver that answers every post with `status` (`500 Internal Server Error`, say).
fn receiver_answering(status: &'static str) -> Receiver {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}{HOOK_PATH}", listener.local_addr().unwrap());
    let got = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&got);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut buf = Vec::new();
            let mut chunk = [0u8; 8192];
            let (head, body) = loop {
                let n = s.read(&mut chunk).unwrap_or(0);
                if n == 0 {
                    break (String::new(), String::new());
                }
                buf.extend_from_slice(&chunk[..n]);
                let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
                let head = String::from_utf8_lossy(&buf[..end]).to_string();
                let len: usize = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse().unwrap())
                    })
                    .unwrap_or(0);
                while buf.len() < end + 4 + len {
                    let n = s.read(&mut chunk).unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                }
                break (head, String::from_utf8_lossy(&buf[end + 4..]).to_string());
            };
            // Recorded before the answer: a run that got it finds the post here once it exits.
            sink.lock().unwrap().push((head, body));
            let answer = format!("HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            let _ = s.write_all(answer.as_bytes());
        }
    });
    Receiver { url, got }
}

const RULES: &str = r#"
# every kind of rule once
[[regra]]
nome = "nova acima de 100 mil"
tipo = "nova_inscricao"
valor_minimo = 100000

[[regra]]
nome = "nova como principal"
tipo = "nova_inscricao"
valor_minimo = 100000
somente_principal = true

[[regra]]
nome = "exposicao +20%"
tipo = "aumento_exposicao"
percentual_minimo = 20
valor_minimo = "50000.00"

[[regra]]
nome = "regularidade piorou"
tipo = "regularidade_piorou"

[[regra]]
nome = "deixou de ser ativa"
tipo = "saiu_de_ativa"

[[regra]]
nome = "ajuizada"
tipo = "inscricao_ajuizada"

[[regra]]
nome = "socios"
tipo = "mudanca_socios"

[[regra]]
nome = "cnae"
tipo = "mudanca_cnae"

[[regra]]
nome = "endereco"
tipo = "mudanca_endereco"

[[regra]]
nome = "capital"
tipo = "mudanca_capital"

[[regra]]
nome = "observada"
tipo = "qualquer_mudanca"
lista = "observadas"
"#;

/// What a company owes in all (every inscription it is named in, plans, settlements), in cents.
pub(super) fn exposure_cents(t: &RecordsTruth) -> i64 {
    t.dividas.values().filter_map(|d| d.valor_cents).sum::<i64>()
        + t.parcelamentos.values().flatten().sum::<i64>()
        + t.transacoes.values().flatten().sum::<i64>()
}

fn is_ativa(v: &Option<String>) -> bool {
    v.as_deref().map(fold).is_some_and(|v| v == "02" || v == "2" || v == "ATIVA")
}

/// The alerts the rules above must raise between `before` and `after`, from the truth.
fn expected_alerts(
    before: &Dataset,
    after: &Dataset,
    portfolio: &[Cnpj],
    watched: &BTreeSet<String>,
) -> BTreeSet<AlertKey> {
    let mut want = BTreeSet::new();
    let key =
        |r: &str, c: &str, k: &str, x: &str| (r.to_string(), c.to_string(), k.to_string(), x.to_string());
    for cnpj in portfolio {
        let c = cnpj.as_str();
        let (b, a) = (before.records_truth(cnpj), after.records_truth(cnpj));
        for ch in company_changes(c, b.as_ref(), a.as_ref()) {
            let (kind, table, record, delta) = (&ch.1, &ch.2, &ch.3, ch.6);
            let new_debt = kind == "nova inscrição" || kind == "nova corresponsabilidade";
            if new_debt && delta.is_some_and(|d| d >= 10_000_000) {
                want.insert(key("nova acima de 100 mil", c, kind, record));
                if kind == "nova inscrição" {
                    want.insert(key("nova como principal", c, kind, record));
                }
            }
            if kind == "situação fiscal estimada piorou" {
                want.insert(key("regularidade piorou", c, kind, c));
            }
            if kind == "inscrição ajuizada" {
                want.insert(key("ajuizada", c, kind, record));
            }
            if table == "socios" {
                want.insert(key("socios", c, kind, record));
            }
            let register = [
                ("CNAE principal alterado", "cnae"),
                ("CNAEs secundários alterados", "cnae"),
                ("sede mudou de município", "endereco"),
                ("CEP da sede alterado", "endereco"),
                ("endereço da sede alterado", "endereco"),
                ("capital social alterado", "capital"),
            ];
            if let Some((_, rule)) = register.iter().find(|(k, _)| k == kind) {
                want.insert(key(rule, c, kind, record));
            }
            if watched.contains(c) {
                let record = if table == "parcelamentos_rfb" { "" } else { record.as_str() };
                want.insert(key("observada", c, kind, record));
            }
        }
        let (Some(b), Some(a)) = (b, a) else { continue };
        let (was, is) = (exposure_cents(&b), exposure_cents(&a));
        let grew = is - was;
        if grew >= 5_000_000 && (was == 0 || grew * 100 >= 20 * was) {
            want.insert(key("exposicao +20%", c, "", ""));
        }
        if is_ativa(&b.situacao_cadastral) && !is_ativa(&a.situacao_cadastral) {
            want.insert(key("deixou de ser ativa", c, "situação cadastral alterada", c));
        }
    }
    want
}

fn alerts_of(out: &Path) -> (BTreeSet<AlertKey>, Vec<serde_json::Value>) {
    let text = std::fs::read_to_string(out.join("alertas.jsonl")).unwrap();
    let rows: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let keys = rows
        .iter()
        .map(|a| {
            let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
            let v = &a["valores"];
            let record = match v["tabela"].as_str() {
                Some("parcelamentos_rfb") => String::new(),
                Some("socios") => fold(&s(&v["chave"])),
                _ => s(&v["chave"]),
            };
            (s(&a["regra"]), s(&a["cnpj"]), s(&v["mudanca"]), record)
        })
        .collect();
    (keys, rows)
}

#[test]
fn each_kind_of_rule_fires_exactly_the_alerts_of_the_truth_and_the_webhook_gets_them_once() {
    let tmp = tempfile::tempdir().unwrap();
    let at = |m: &str| {
        Dataset::generate(RegistryConfig::DEFAULT_SEED, 1.0).as_of(AnoMes::parse(m).unwrap()).unwrap()
    };
    let (before, after) = (at("202608"), at("202609"));
    let portfolio = after.demo_portfolio(200);
    let file = tmp.path().join("carteira.txt");
    std::fs::write(&file, portfolio.iter().map(|c| c.as_str()).collect::<Vec<_>>().join("\n")).unwrap();

    // Watched: two companies that change and one that does not.
    let changed: Vec<String> = portfolio
        .iter()
        .filter(|c| {
            !company_changes(c.as_str(), before.records_truth(c).as_ref(), after.records_truth(c).as_ref())
                .is_empty()
        })
        .map(|c| c.as_str().to_string())
        .collect();
    let quiet = portfolio.iter().map(|c| c.as_str().to_string()).find(|c| !changed.contains(c)).unwrap();
    let watched: BTreeSet<String> = [changed[0].clone(), changed[1].clone(), quiet].into();
    let list = watched.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
    let rules = tmp.path().join("regras.toml");
    std::fs::write(&rules, format!("{RULES}\n[[lista]]\nrotulo = \"observadas\"\ncnpjs = [{list}]\n"))
        .unwrap();

    let store = tmp.path().join("store");
    let run = |serve: &ServeProcess, out: &str, extra: &[&str]| {
        bin()
            .args(["run", "--uf", "SP", "--base-url", &serve.base_url, "--cnpjs"])
            .arg(&file)
            .arg("--store")
            .arg(&store)
            .arg("--out")
            .arg(tmp.path().join(out))
            .args(extra)
            .env("REGISTRY_API_KEY", KEY)
            .env("FISCAL_REPORT_WEBHOOK_TOKEN", TOKEN)
            .output()
            .unwrap()
    };
    let hook = receiver();
    let m = ServeProcess::start(KEY, RegistryConfig::DEFAULT_SEED, 1.0, &["--as-of", "202608"]);
    let rules_arg = rules.to_str().unwrap();
    // The first run on the store has nothing to compare with: no alert, nothing posted.
    let o = run(&m, "m", &["--rules", rules_arg, "--fail-on-alert", "--notify-webhook", &hook.url]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(alerts_of(&tmp.path().join("m")).1.is_empty());
    drop(m);

    let m1 = ServeProcess::start(KEY, RegistryConfig::DEFAULT_SEED, 1.0, &[]);
    let o = run(&m1, "m1", &["--rules", rules_arg, "--fail-on-alert", "--notify-webhook", &hook.url]);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(9), "--fail-on-alert with alerts: {stderr}");

    let want = expected_alerts(&before, &after, &portfolio, &watched);
    let (got, rows) = alerts_of(&tmp.path().join("m1"));
    assert_eq!(
        got.difference(&want).collect::<Vec<_>>(),
        Vec::<&AlertKey>::new(),
        "alerts the truth does not imply"
    );
    assert_eq!(want.difference(&got).collect::<Vec<_>>(), Vec::<&AlertKey>::new(), "alerts missing");
    assert_eq!(rows.len(), want.len(), "one alert per match");
    // Both kinds of new debt fire the plain rule; the principal-only rule leaves the
    // co-responsibilities out.
    let of_kind = |rule: &str, kind: &str| want.iter().any(|a| a.0 == rule && a.2 == kind);
    assert!(of_kind("nova acima de 100 mil", "nova corresponsabilidade"), "no new co-responsibility");
    assert!(!of_kind("nova como principal", "nova corresponsabilidade"));
    for rule in [
        "nova acima de 100 mil",
        "nova como principal",
        "exposicao +20%",
        "regularidade piorou",
        "deixou de ser ativa",
        "ajuizada",
        "observada",
    ] {
        assert!(
            want.iter().any(|a| a.0 == rule),
            "the demo month gives no {rule:?} alert: the test would prove little"
        );
    }
    for a in &rows {
        assert_eq!(
            (a["snapshot"].as_str(), a["snapshot_anterior"].as_str()),
            (Some("202609"), Some("202608"))
        );
        let watched_company = watched.contains(a["cnpj"].as_str().unwrap());
        assert_eq!(a["listas"] == serde_json::json!(["observadas"]), watched_company, "{a}");
    }
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("m1/manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["alertas"]["total"], rows.len());

    // The report lists them in its changes section, in both formats.
    let first = rows[0]["regra"].as_str().unwrap();
    for f in ["report.html", "report.md"] {
        let text = std::fs::read_to_string(tmp.path().join("m1").join(f)).unwrap();
        assert!(text.contains(first), "{f} lists no alert");
    }

    // One post, with every alert counted and none of the secrets in it.
    let posts = hook.got.lock().unwrap().clone();
    assert_eq!(posts.len(), 1, "one post for the run with alerts, none for the first run");
    let (head, body) = &posts[0];
    assert!(head.starts_with(&format!("POST {HOOK_PATH} ")), "{head}");
    assert!(head.to_ascii_lowercase().contains(&format!("authorization: bearer {TOKEN}")), "{head}");
    let summary: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(summary["total_alertas"], rows.len());
    for secret in [KEY, TOKEN, "hook-secret-3a9f"] {
        assert!(!body.contains(secret), "the webhook body holds {secret}");
        assert!(
            !stderr.contains(secret) && !String::from_utf8_lossy(&o.stdout).contains(secret),
            "output shows {secret}"
        );
        for f in files_below(&tmp.path().join("m1")) {
            let bytes = std::fs::read(&f).unwrap();
            assert!(
                !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
                "{} holds {secret}",
                f.display()
            );
        }
    }

    // Rules that do not fire: exit 0 even with --fail-on-alert, and nothing posted.
    let calm = tmp.path().join("calmas.toml");
    std::fs::write(
        &calm,
        "[[regra]]\nnome = \"enorme\"\ntipo = \"nova_inscricao\"\nvalor_minimo = 1000000000000\n",
    )
    .unwrap();
    let o = run(
        &m1,
        "m1b",
        &["--rules", calm.to_str().unwrap(), "--fail-on-alert", "--notify-webhook", &hook.url],
    );
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(alerts_of(&tmp.path().join("m1b")).1.is_empty());
    assert_eq!(hook.got.lock().unwrap().len(), 1, "nothing is posted when no rule fired");
}

#[test]
fn a_broken_rules_file_stops_the_run_before_any_fetch_naming_file_line_and_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            "[[regra]]\nnome = \"x\"\ntipo = \"nova_inscricao\"\nvalor_minimo = \"cem mil\"\n",
            "line 4",
            "at most two decimals",
        ),
        ("[[regra]]\nnome = \"x\"\ntipo = \"aumento_exposicao\"\n", "line 3", "percentual_minimo"),
        ("[[regra]\nnome = \"x\"\n", "line 1", "regras/exemplo.toml"),
    ];
    for (i, (text, line, fix)) in cases.iter().enumerate() {
        let rules = tmp.path().join(format!("regras{i}.toml"));
        std::fs::write(&rules, text).unwrap();
        let out = tmp.path().join(format!("out{i}"));
        let o =
            bin().args(["run", "--quiet", "--rules"]).arg(&rules).arg("--out").arg(&out).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&rules.display().to_string()) && err.contains(line) && err.contains(fix),
            "{err}"
        );
        assert!(!out.exists(), "nothing may be fetched or written before the rules are checked");
    }
    // A webhook that would send the alerts in the clear is refused up front too.
    let o = bin()
        .args([
            "run",
            "--quiet",
            "--rules",
            "regras/exemplo.toml",
            "--notify-webhook",
            "http://hooks.example.com/x",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("--out")
        .arg(tmp.path().join("o"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("use https"));
}

/// A receiver that keeps failing: the run exits 10 after its 3 tries, with every output and
/// `alertas.jsonl` written, naming the receiver's host and never its secret path or token.
#[test]
fn a_webhook_that_keeps_failing_exits_10_with_every_output_written() {
    let tmp = tempfile::tempdir().unwrap();
    let portfolio = Dataset::generate(RegistryConfig::DEFAULT_SEED, 0.2).demo_portfolio(60);
    let file = tmp.path().join("carteira.txt");
    std::fs::write(&file, portfolio.iter().map(|c| c.as_str()).collect::<Vec<_>>().join("\n")).unwrap();
    let rules = tmp.path().join("regras.toml");
    std::fs::write(
        &rules,
        "[[regra]]\nnome = \"qualquer nova\"\ntipo = \"nova_inscricao\"\nvalor_minimo = 0\n",
    )
    .unwrap();
    let (store, hook) = (tmp.path().join("store"), receiver_answering("500 Internal Server Error"));
    let run = |serve: &ServeProcess, out: &str| {
        bin()
            .args(["run", "--uf", "SP", "--base-url", &serve.base_url, "--cnpjs"])
            .arg(&file)
            .arg("--store")
            .arg(&store)
            .arg("--rules")
            .arg(&rules)
            .args(["--notify-webhook", &hook.url])
            .arg("--out")
            .arg(tmp.path().join(out))
            .env("REGISTRY_API_KEY", KEY)
            .env("FISCAL_REPORT_WEBHOOK_TOKEN", TOKEN)
            .output()
            .unwrap()
    };
    let m = ServeProcess::start(KEY, RegistryConfig::DEFAULT_SEED, 0.2, &["--as-of", "202608"]);
    assert_eq!(run(&m, "m").status.code(), Some(0), "a first run has no alert to post");
    drop(m);
    let m1 = ServeProcess::start(KEY, RegistryConfig::DEFAULT_SEED, 0.2, &[]);
    let o = run(&m1, "m1");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(10), "{stderr}");
    let out = tmp.path().join("m1");
    assert!(!alerts_of(&out).1.is_empty(), "the month raised alerts");
    for file in ["report.html", "report.md", "manifest.json", "alertas.jsonl"] {
        assert!(out.join(file).exists(), "{file} is written");
    }
    assert_eq!(hook.got.lock().unwrap().len(), 3, "three tries");
    assert!(stderr.contains("127.0.0.1"), "the message names the receiver's host: {stderr}");
    assert!(!stderr.contains("hook-secret") && !stderr.contains(TOKEN), "no secret in: {stderr}");
}
