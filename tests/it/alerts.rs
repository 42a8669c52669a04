//! Watch rules and alerts: a rules file with every kind of rule over the embedded registry at M
//! (202608) then M+1 (202609) must raise exactly the alerts the ground truth's diff implies;
//! `--fail-on-alert` exits 9; `--notify-webhook` posts one summary to a local receiver (none
//! when nothing fired) holding no key; a broken rules file stops the run before any fetch.

use std::collections::{BTreeMap, BTreeSet};
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

/// An alert as compared: (rule, cnpj) and the (kind of change, record key) of each of its
/// triggers. Plans' keys are left out (the table writes them as two published values the truth
/// spells differently).
pub(super) type Alerts = BTreeMap<(String, String), BTreeSet<(String, String)>>;

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
severidade = "alta"

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
severidade = "baixa"

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

/// A rule as the truth applies it, read from a rules file by the test itself.
pub(super) struct TruthRule {
    pub(super) nome: String,
    pub(super) tipo: String,
    severidade: String,
    min_cents: i64,
    pct: i64,
    principal_only: bool,
    list: Option<BTreeSet<String>>,
    /// `lista_restritiva`: its lists and links, as the rules file names them (defaults apart).
    listas_publicas: Option<BTreeSet<String>>,
    vinculos: Option<BTreeSet<String>>,
}

/// Cents of an amount a rules file writes (`100000`, `100000.5`, `"50000.00"`).
fn file_cents(v: &toml::Value) -> i64 {
    let text = match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    whole.parse::<i64>().unwrap() * 100 + format!("{frac:0<2}")[..2].parse::<i64>().unwrap()
}

/// The strings of a rules file's array.
fn names(v: &toml::Value) -> BTreeSet<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

/// The rules of a rules file's text, read with `toml` (not the program's reader).
pub(super) fn truth_rules(text: &str) -> Vec<TruthRule> {
    let file: toml::Table = toml::from_str(text).unwrap();
    let digits = |c: &str| c.chars().filter(char::is_ascii_digit).collect::<String>();
    let lists: BTreeMap<String, BTreeSet<String>> = file
        .get("lista")
        .and_then(|l| l.as_array())
        .into_iter()
        .flatten()
        .map(|l| {
            let cnpjs = l["cnpjs"].as_array().unwrap().iter().map(|c| digits(c.as_str().unwrap())).collect();
            (l["rotulo"].as_str().unwrap().to_string(), cnpjs)
        })
        .collect();
    file["regra"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| TruthRule {
            nome: r["nome"].as_str().unwrap().to_string(),
            tipo: r["tipo"].as_str().unwrap().to_string(),
            severidade: r.get("severidade").and_then(|s| s.as_str()).unwrap_or("media").to_string(),
            min_cents: r.get("valor_minimo").map(file_cents).unwrap_or(0),
            pct: r.get("percentual_minimo").and_then(|p| p.as_integer()).unwrap_or(0),
            principal_only: r.get("somente_principal").and_then(|p| p.as_bool()).unwrap_or(false),
            list: r.get("lista").map(|l| lists[l.as_str().unwrap()].clone()),
            listas_publicas: r.get("listas_publicas").map(names),
            vinculos: r.get("vinculos").map(names),
        })
        .collect()
}

/// The alerts `rules` must raise between `before` and `after` over `portfolio`, from the truth:
/// one per rule and company whose rule holds, with the changes that set it off.
pub(super) fn expected_alerts(
    rules: &[TruthRule],
    before: &Dataset,
    after: &Dataset,
    portfolio: &[Cnpj],
) -> Alerts {
    let mut want: Alerts = BTreeMap::new();
    for cnpj in portfolio {
        let c = cnpj.as_str();
        let (b, a) = (before.records_truth(cnpj), after.records_truth(cnpj));
        let changes = company_changes(c, b.as_ref(), a.as_ref());
        for rule in rules.iter().filter(|r| r.list.as_ref().is_none_or(|l| l.contains(c))) {
            let mut fired = BTreeSet::new();
            let trigger = |k: &str, x: &str| (k.to_string(), x.to_string());
            for ch in &changes {
                let (kind, table, record, delta) = (ch.1.as_str(), ch.2.as_str(), ch.3.as_str(), ch.6);
                let register = |kinds: &[&str]| kinds.contains(&kind);
                let hit = match rule.tipo.as_str() {
                    "nova_inscricao" => {
                        (kind == "nova inscrição"
                            || (!rule.principal_only && kind == "nova corresponsabilidade"))
                            && delta.is_some_and(|d| d >= rule.min_cents)
                    }
                    "regularidade_piorou" => kind == "situação fiscal estimada piorou",
                    "inscricao_ajuizada" => kind == "inscrição ajuizada",
                    "mudanca_socios" => table == "socios",
                    "mudanca_cnae" => register(&["CNAE principal alterado", "CNAEs secundários alterados"]),
                    "mudanca_endereco" => register(&[
                        "sede mudou de município",
                        "CEP da sede alterado",
                        "endereço da sede alterado",
                    ]),
                    "mudanca_capital" => kind == "capital social alterado",
                    "qualquer_mudanca" => true,
                    _ => false,
                };
                if hit {
                    let record = match table {
                        "parcelamentos_rfb" => "",
                        "socios" => &fold(record),
                        _ => record,
                    };
                    fired.insert(trigger(kind, record));
                }
            }
            if let (Some(b), Some(a)) = (&b, &a) {
                let (was, is) = (exposure_cents(b), exposure_cents(a));
                let grew = is - was;
                if rule.tipo == "aumento_exposicao"
                    && grew > 0
                    && grew >= rule.min_cents
                    && (was == 0 || grew * 100 >= rule.pct * was)
                {
                    fired.insert(trigger("", ""));
                }
                if rule.tipo == "saiu_de_ativa"
                    && is_ativa(&b.situacao_cadastral)
                    && !is_ativa(&a.situacao_cadastral)
                {
                    fired.insert(trigger("situação cadastral alterada", c));
                }
            }
            if !fired.is_empty() {
                want.insert((rule.nome.clone(), c.to_string()), fired);
            }
        }
    }
    want
}

/// The alerts `lista_restritiva` rules must hold open at `after` over `portfolio`, added to
/// `want`: one per rule and company with a record in force on the rule's lists by its links
/// (all lists, and `cnpj` and `raiz`, unless it says), as the dataset's own list truth has them.
/// A trigger is (lista, document as listed).
pub(super) fn expected_list_alerts(
    rules: &[TruthRule],
    after: &Dataset,
    portfolio: &[Cnpj],
    want: &mut Alerts,
) {
    let truth = after.listas_truth(portfolio);
    for rule in rules.iter().filter(|r| r.tipo == "lista_restritiva") {
        for t in truth.iter().filter(|t| t.vigente) {
            let covered = rule.list.as_ref().is_none_or(|l| l.contains(&t.cnpj));
            let on_list = rule.listas_publicas.as_ref().is_none_or(|l| l.contains(&t.lista));
            let by_link = match &rule.vinculos {
                Some(v) => v.contains(t.vinculo),
                None => ["cnpj", "raiz"].contains(&t.vinculo),
            };
            if covered && on_list && by_link {
                let key = (rule.nome.clone(), t.cnpj.clone());
                want.entry(key).or_default().insert((t.lista.clone(), t.sancionado.clone()));
            }
        }
    }
}

/// The severity each rule of `rules` gives its alerts.
pub(super) fn severities(rules: &[TruthRule]) -> BTreeMap<String, String> {
    rules.iter().map(|r| (r.nome.clone(), r.severidade.clone())).collect()
}

/// The alerts of a run's `alertas.jsonl`, as compared, and its lines.
pub(super) fn alerts_of(out: &Path) -> (Alerts, Vec<serde_json::Value>) {
    let text = std::fs::read_to_string(out.join("alertas.jsonl")).unwrap();
    let rows: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let mut got: Alerts = BTreeMap::new();
    for a in &rows {
        let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
        let triggers = a["gatilhos"].as_array().expect("an alert lists its triggers").iter().map(|g| {
            let v = &g["valores"];
            // A public list's record (`lista_restritiva`) is its list and document as listed.
            if let Some(lista) = v["lista"].as_str() {
                return (lista.to_string(), s(&v["sancionado"]));
            }
            let record = match v["tabela"].as_str() {
                Some("parcelamentos_rfb") => String::new(),
                Some("socios") => fold(&s(&v["chave"])),
                _ => s(&v["chave"]),
            };
            (s(&v["mudanca"]), record)
        });
        let key = (s(&a["regra"]), s(&a["cnpj"]));
        assert!(!got.contains_key(&key), "two alerts of one rule and company: {key:?}");
        got.insert(key, triggers.collect());
    }
    (got, rows)
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

    let rules_text = std::fs::read_to_string(&rules).unwrap();
    let truth = truth_rules(&rules_text);
    let want = expected_alerts(&truth, &before, &after, &portfolio);
    let (got, rows) = alerts_of(&tmp.path().join("m1"));
    let missing: Vec<_> = want.iter().filter(|(k, v)| got.get(*k) != Some(*v)).take(5).collect();
    let extra: Vec<_> = got.iter().filter(|(k, v)| want.get(*k) != Some(*v)).take(5).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "alerts missing or unlike the truth: {missing:?}; beyond it: {extra:?}"
    );
    assert_eq!(rows.len(), want.len(), "one alert per rule and company whose rule holds");
    let triggers: usize = want.values().map(BTreeSet::len).sum();
    assert!(triggers > want.len(), "some alert has several triggers: the grouping would prove little");
    // Both kinds of new debt fire the plain rule; the principal-only rule leaves the
    // co-responsibilities out.
    let of_kind =
        |rule: &str, kind: &str| want.iter().any(|((r, _), t)| r == rule && t.iter().any(|t| t.0 == kind));
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
            want.keys().any(|(r, _)| r == rule),
            "the demo month gives no {rule:?} alert: the test would prove little"
        );
    }
    // Each alert has its rule's severity; they are ranked by severity, then money at stake.
    let severity = severities(&truth);
    let rank = |s: &str| ["alta", "media", "baixa"].iter().position(|x| *x == s).unwrap();
    let stake = |a: &serde_json::Value| -> i64 {
        let cents = |t: &str| {
            let (sign, t) = t.strip_prefix('-').map_or((1, t), |t| (-1, t));
            let (w, f) = t.split_once('.').unwrap_or((t, ""));
            sign * (w.parse::<i64>().unwrap() * 100 + format!("{f:0<2}")[..2].parse::<i64>().unwrap())
        };
        a["gatilhos"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|g| g["valor"].as_str())
            .map(|v| cents(v).abs())
            .sum()
    };
    let ranks: Vec<(usize, i64)> =
        rows.iter().map(|a| (rank(a["severidade"].as_str().unwrap()), -stake(a))).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "ranked by severity then money at stake: {ranks:?}");
    for a in &rows {
        assert_eq!(a["severidade"].as_str(), Some(severity[a["regra"].as_str().unwrap()].as_str()), "{a}");
        assert_eq!(a["estado"], "nova");
        assert_eq!(
            (a["snapshot"].as_str(), a["snapshot_anterior"].as_str()),
            (Some("202609"), Some("202608"))
        );
        let watched_company = watched.contains(a["cnpj"].as_str().unwrap());
        assert_eq!(a["listas"] == serde_json::json!(["observadas"]), watched_company, "{a}");
        for g in a["gatilhos"].as_array().unwrap() {
            assert_eq!(g["desde"], "202609", "{g}");
        }
    }
    assert!(ranks.iter().any(|r| r.0 == 0) && ranks.iter().any(|r| r.0 == 2), "every severity shows");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("m1/manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["alertas"]["total"], rows.len());
    let by_severity = |s: &str| rows.iter().filter(|a| a["severidade"] == s).count();
    for s in ["alta", "media", "baixa"] {
        assert_eq!(
            manifest["alertas"]["por_severidade"][s].as_u64().unwrap_or(0),
            by_severity(s) as u64,
            "{s}"
        );
    }

    // The report lists them in its changes section, in both formats, grouped by company.
    let first = rows[0]["regra"].as_str().unwrap();
    for f in ["report.html", "report.md"] {
        let text = std::fs::read_to_string(tmp.path().join("m1").join(f)).unwrap();
        assert!(text.contains(first), "{f} lists no alert");
    }
    let md = std::fs::read_to_string(tmp.path().join("m1/report.md")).unwrap();
    let start = md.find("### Alertas\n").expect("the alerts block");
    let block = &md[start..start + md[start..].find("### Maiores aumentos").unwrap()];
    let companies: BTreeSet<&str> = rows.iter().map(|a| a["cnpj"].as_str().unwrap()).collect();
    assert_eq!(block.matches("\n**[").count(), companies.len(), "one block per company");
    assert_eq!(block.matches("\n- **").count(), rows.len(), "one item per alert");
    assert_eq!(block.matches("\n  - ").count(), triggers, "one line per trigger");
    // A company's heading names the watchlist holding it, and only then.
    for cnpj in &companies {
        let anchor = format!("(#cnpj-{cnpj})**");
        let heading =
            block.lines().find(|l| l.contains(&anchor)).unwrap_or_else(|| panic!("{cnpj}: {block}"));
        assert_eq!(heading.ends_with(" · observadas"), watched.contains(*cnpj), "{heading}");
    }
    // The first companies of the block, and the first alerts of alertas.jsonl, as they read.
    let head: String = block.split("\n**[").take(4).collect::<Vec<_>>().join("\n**[");
    insta::assert_snapshot!("alerts_block_md_head", head);
    insta::assert_snapshot!("alertas_jsonl_head", serde_json::to_string_pretty(&rows[..2]).unwrap());

    // One post, with every alert counted and none of the secrets in it.
    let posts = hook.got.lock().unwrap().clone();
    assert_eq!(posts.len(), 1, "one post for the run with alerts, none for the first run");
    let (head, body) = &posts[0];
    assert!(head.starts_with(&format!("POST {HOOK_PATH} ")), "{head}");
    assert!(head.to_ascii_lowercase().contains(&format!("authorization: bearer {TOKEN}")), "{head}");
    let summary: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(summary["total_alertas"], rows.len());
    // One message: the alerts in the file's order (ranked), each with its triggers, 50 listed.
    let listed = summary["alertas"].as_array().unwrap();
    assert_eq!(listed.len(), rows.len().min(50));
    assert_eq!(summary["alertas_omitidos"], rows.len().saturating_sub(50));
    assert_eq!(listed[..], rows[..listed.len()], "the post lists the alerts as alertas.jsonl, in order");
    assert_eq!(summary["texto"].as_str().unwrap().lines().count(), listed.len());
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

    // --fail-on-alert=SEVERIDADE pages for new alerts of at least that severity only.
    let media = tmp.path().join("media.toml");
    std::fs::write(&media, "[[regra]]\nnome = \"nova\"\ntipo = \"nova_inscricao\"\nvalor_minimo = 0\n")
        .unwrap();
    for (flag, code) in [("--fail-on-alert=alta", 0), ("--fail-on-alert=media", 9)] {
        let o = run(&m1, "m1c", &["--rules", media.to_str().unwrap(), flag]);
        assert_eq!(o.status.code(), Some(code), "{flag}: {}", String::from_utf8_lossy(&o.stderr));
        let (got, _) = alerts_of(&tmp.path().join("m1c"));
        assert!(!got.is_empty(), "{flag}: the rule raised alerts");
    }
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
