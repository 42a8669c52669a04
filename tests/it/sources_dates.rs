//! Sources and dates (#33): the manifest's `periodos` hold each source's period exactly as the
//! service sent it (checked against the service's raw JSON, read here without the client's
//! models), and a service that sends an old debt quarter or a failing source gets that source
//! flagged in words in the highlights' "Fontes e períodos" block, the sections' lines and the
//! regularity estimate.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::common_bin::*;
use fiscal_report::simulator::Dataset;

const KEY: &str = "sources-key";
const SEED: u64 = 33;
const SCALE: f64 = 0.05;
const MONTHS: &str = "202608:202609";

fn portfolio() -> Vec<String> {
    Dataset::generate(SEED, SCALE).demo_portfolio(4).iter().map(|c| c.to_string()).collect()
}

/// `run` against `srv` into `dir/out` (with dossiers, so they are checked too).
fn run(srv: &ServeProcess, dir: &Path) -> std::path::PathBuf {
    std::fs::write(dir.join("carteira.txt"), portfolio().join("\n")).unwrap();
    let o = bin()
        .args(["--quiet", "run", "--base-url", &srv.base_url, "--uf", "SP,AC", "--ano-mes", MONTHS])
        .args(["--dossies", "2", "--cnpjs"])
        .arg(dir.join("carteira.txt"))
        .arg("--out")
        .arg(dir.join("out"))
        .env("REGISTRY_API_KEY", KEY)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dir.join("out")
}

fn manifest(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap()
}

/// The "Fontes e períodos" block of report.md: from its heading to the next section.
fn md_block(out: &Path) -> String {
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let start = md.find("### Fontes e períodos").expect("report.md has the sources block");
    let end = md[start..].find("\n## ").map_or(md.len(), |e| start + e);
    md[start..end].to_string()
}

fn html_block(out: &Path) -> String {
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let start = html.find(r#"<section id="fontes-periodos">"#).expect("report.html has the sources block");
    let end = start + html[start..].find("</section>").unwrap();
    html[start..end].to_string()
}

/// The row of `name` in a Markdown block.
fn md_row<'a>(block: &'a str, name: &str) -> &'a str {
    block.lines().find(|l| l.starts_with(&format!("| {name} |"))).unwrap_or_else(|| panic!("no row {name}"))
}

/// What the service sent, read as plain JSON: the debts' quarters and the registry months of
/// the portfolio's records, the credits' months, and the profiles' `fontes`.
struct Sent {
    quarters: BTreeSet<String>,
    registry_months: BTreeSet<String>,
    credit_months: BTreeSet<String>,
    fontes: Value,
}

async fn get(http: &reqwest::Client, url: String) -> Value {
    let resp = http.get(&url).header("X-API-Key", KEY).send().await.unwrap();
    assert!(resp.status().is_success(), "{url}: {}", resp.status());
    resp.json().await.unwrap()
}

fn texts<'a>(items: impl Iterator<Item = &'a Value>, field: &str) -> BTreeSet<String> {
    items.filter_map(|i| i[field].as_str().map(String::from)).collect()
}

fn sent(srv: &ServeProcess) -> Sent {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let http = plain_http();
        let base = &srv.base_url;
        let mut s = Sent {
            quarters: BTreeSet::new(),
            registry_months: BTreeSet::new(),
            credit_months: BTreeSet::new(),
            fontes: Value::Null,
        };
        for cnpj in portfolio() {
            let profile = get(&http, format!("{base}/v1/cnpjs/{cnpj}")).await;
            s.registry_months.extend(texts(
                [&profile["empresa"], &profile["estabelecimento"]].into_iter(),
                "dataset_month",
            ));
            s.fontes = profile["fontes"].clone();
            for cat in ["nao_previdenciario", "previdenciario", "fgts"] {
                let page =
                    get(&http, format!("{base}/v1/cnpjs/{cnpj}/dividas-pgfn?categoria={cat}&limite=100"))
                        .await;
                s.quarters.extend(texts(page["itens"].as_array().unwrap().iter(), "dataset_trimester"));
            }
        }
        for month in ["202608", "202609"] {
            let page =
                get(&http, format!("{base}/v1/rfb/creditos-ativos?uf=SP&ano_mes={month}&limite=5")).await;
            s.credit_months.extend(texts(page["itens"].as_array().unwrap().iter(), "ano_mes"));
        }
        s
    })
}

fn dashed(ano_mes: &str) -> String {
    format!("{}-{}", &ano_mes[..4], &ano_mes[4..])
}

#[test]
fn the_periods_in_the_manifest_are_what_the_service_sent() {
    let srv = ServeProcess::start(KEY, SEED, SCALE, &[]);
    let dir = tempfile::tempdir().unwrap();
    let out = run(&srv, dir.path());
    let m = manifest(&out);
    let p = &m["periodos"];
    let s = sent(&srv);

    assert!(
        !s.quarters.is_empty() && !s.registry_months.is_empty(),
        "the portfolio has debts and a registry"
    );
    let latest_quarter = s.quarters.iter().max().unwrap();
    assert_eq!(p["fontes"]["pgfn"]["periodo"].as_str(), Some(latest_quarter.as_str()), "{p:#}");
    assert_eq!(p["fontes"]["pgfn"]["nos_registros"], serde_json::json!(s.quarters), "{p:#}");
    let registry = s.registry_months.iter().max().unwrap();
    assert_eq!(p["fontes"]["cnpj"]["periodo"].as_str(), Some(registry.as_str()), "{p:#}");
    let (first, last) = (s.credit_months.first().unwrap(), s.credit_months.last().unwrap());
    assert_eq!(p["fontes"]["creditos"]["primeiro"].as_str(), Some(dashed(first).as_str()));
    assert_eq!(p["fontes"]["creditos"]["ultimo"].as_str(), Some(dashed(last).as_str()));
    for (key, fonte) in s.fontes.as_object().unwrap() {
        assert_eq!(p["fontes"][key]["versao"], fonte["versao"], "{key}: {p:#}");
        assert_eq!(p["fontes"][key]["status"], fonte["status"], "{key}: {p:#}");
    }
    assert!(p["fontes"].as_object().unwrap().values().all(|f| f["defasada"] == false), "{p:#}");
    insta::assert_snapshot!("manifest_periodos", serde_json::to_string_pretty(p).unwrap());

    // Nothing is flagged in the report either, and the sections say their periods.
    let block = md_block(&out);
    assert!(block.contains("Nenhuma fonte defasada ou com falha.") && !block.contains('⚠'), "{block}");
    assert!(md_row(&block, "Dívida ativa (PGFN)").contains(latest_quarter.as_str()), "{block}");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains(&format!("*Créditos de {} a {}*", dashed(first), dashed(last))), "credits line");
    assert!(
        md.contains(&format!("*Dívida ativa: PGFN {latest_quarter}; cadastro: CNPJ {registry}")),
        "portfolio line"
    );
}

#[test]
fn an_old_debt_quarter_is_flagged_in_the_highlights_and_the_estimate() {
    let srv = ServeProcess::start(KEY, SEED, SCALE, &["--fonte-versao", "pgfn=2025T4"]);
    let dir = tempfile::tempdir().unwrap();
    let out = run(&srv, dir.path());

    let pgfn = &manifest(&out)["periodos"]["fontes"]["pgfn"];
    assert_eq!(pgfn["periodo"].as_str(), Some("2025T4"), "{pgfn:#}");
    assert_eq!(pgfn["origem"].as_str(), Some("registros"), "{pgfn:#}");
    assert_eq!(pgfn["defasada"], true, "{pgfn:#}");

    let block = md_block(&out);
    let row = md_row(&block, "Dívida ativa (PGFN)");
    assert!(row.contains("2025T4") && row.contains("DEFASADA") && row.contains("3 trimestres"), "{row}");
    assert!(block.contains("⚠ 1 fonte(s) marcada(s)"), "{block}");
    let html = html_block(&out);
    assert!(html.contains(r#"<tr class="flagged"><td>Dívida ativa (PGFN)</td><td>2025T4</td>"#), "{html}");
    assert!(html.contains("DEFASADA"), "{html}");

    // The regularity estimate and the dossiers say which quarter they hold for.
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("Dívida ativa: PGFN 2025T4 (⚠ fonte marcada)"), "portfolio line");
    let dossier = files_below(&out.join("dossies"))
        .into_iter()
        .find(|f| f.extension().is_some_and(|e| e == "md"))
        .expect("a dossier");
    let text = std::fs::read_to_string(dossier).unwrap();
    assert!(text.contains("Estimativa com a dívida ativa de 2025T4 (⚠ fonte marcada)"), "{text}");
    assert!(text.contains("Dívida ativa: PGFN 2025T4"), "{text}");
}

#[test]
fn a_failing_source_is_flagged_in_the_highlights() {
    let srv = ServeProcess::start(KEY, SEED, SCALE, &["--fonte-status", "cnpj=indisponivel"]);
    let dir = tempfile::tempdir().unwrap();
    let out = run(&srv, dir.path());

    let cnpj = &manifest(&out)["periodos"]["fontes"]["cnpj"];
    assert_eq!((cnpj["status"].as_str(), &cnpj["defasada"]), (Some("indisponivel"), &Value::Bool(true)));
    let block = md_block(&out);
    let row = md_row(&block, "Cadastro de empresas (CNPJ)");
    assert!(row.contains("COM FALHA") && row.contains("indisponivel"), "{row}");
    let others = block.lines().filter(|l| l.starts_with("| ") && l.contains('⚠')).count();
    assert_eq!(others, 1, "only the registry is flagged: {block}");
    assert!(html_block(&out).contains("COM FALHA"));
}

#[test]
fn serve_refuses_an_unknown_source() {
    let o =
        bin().args(["serve", "--addr", "127.0.0.1:0", "--fonte-versao", "siafi=2025T4"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("siafi"));
}

/// `--ano-mes latest` on the embedded registry counts back from the dataset's newest month, so
/// the demo works whatever the date; against a service it counts back from the day
/// (`FISCAL_REPORT_TODAY` sets it), up to 36 months.
#[test]
fn latest_works_on_any_date_for_the_demo_and_counts_back_from_the_day_for_a_service() {
    let newest = Dataset::generate(SEED, SCALE).latest_month().to_string();
    let months_of = |out: &Path| -> Vec<String> {
        let m: Value = serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
        m["plan"]["months"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
    };
    for today in ["2026-11-25", "2031-06-15", "2024-01-02"] {
        let tmp = tempfile::tempdir().unwrap();
        let o = bin()
            .args(["--quiet", "run", "--demo-scale", &SCALE.to_string(), "--uf", "AC", "--ano-mes", "latest"])
            .arg("--out")
            .arg(tmp.path().join("out"))
            .env("FISCAL_REPORT_TODAY", today)
            .output()
            .unwrap();
        assert!(o.status.success(), "demo on {today}: {}", String::from_utf8_lossy(&o.stderr));
        let months = months_of(&tmp.path().join("out"));
        assert_eq!(months.len(), 13, "{today}: {months:?}");
        assert_eq!(months.last(), Some(&newest), "{today}: the demo ends at the dataset's newest month");
    }
    // A service: from the day back; a day more than 36 months after its newest month finds none.
    let srv = ServeProcess::start(KEY, SEED, SCALE, &[]);
    let latest = |today: &str, out: &Path| {
        bin()
            .args(["--quiet", "fetch", "--base-url", &srv.base_url, "--uf", "AC", "--ano-mes", "latest"])
            .arg("--out")
            .arg(out)
            .env("REGISTRY_API_KEY", KEY)
            .env("FISCAL_REPORT_TODAY", today)
            .output()
            .unwrap()
    };
    let tmp = tempfile::tempdir().unwrap();
    let o = latest("2026-12-01", &tmp.path().join("out"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(months_of(&tmp.path().join("out")).last(), Some(&newest));
    let o = latest("2031-06-15", &tmp.path().join("late"));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(6), "{stderr}");
    assert!(stderr.contains("no month with credits in the last 3 years"), "{stderr}");
}

#[test]
fn months_the_service_has_no_credits_for_are_said() {
    let tmp = tempfile::tempdir().unwrap();
    let fetch = |months: &str, out: &str| {
        let o = bin()
            .args(["fetch", "--demo-scale", "0.05", "--uf", "AC", "--ano-mes", months, "--out"])
            .arg(tmp.path().join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let stderr = fetch("209911:209912", "future");
    assert!(stderr.contains("no credits came back for 209911, 209912"), "{stderr}");
    let stderr = fetch("202609", "present");
    assert!(!stderr.contains("no credits came back"), "{stderr}");
}
