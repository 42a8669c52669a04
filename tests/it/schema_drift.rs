//! The service changes its shape: the embedded registry adds a field to every record and drops
//! another. Under the default contract (evolve) the run completes and the manifest and both
//! reports name the fields with their record counts; under `--schema-contract freeze` the run
//! exits 7 before anything is exported. A service with the expected shape shows no drift.

use std::path::Path;

use crate::common_bin::*;
use fiscal_report::simulator::Dataset;

const KEY: &str = "drift-key";
const SEED: u64 = 21;
const SCALE: f64 = 0.05;

fn run(srv: &ServeProcess, dir: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let d = Dataset::generate(SEED, SCALE);
    let cnpjs: Vec<String> = d.demo_portfolio(3).iter().map(|c| c.to_string()).collect();
    std::fs::write(dir.join("carteira.txt"), cnpjs.join("\n")).unwrap();
    let o = bin()
        .args(["--quiet", "run", "--base-url", &srv.base_url, "--uf", "SP,AC", "--ano-mes", "202608:202609"])
        .arg("--cnpjs")
        .arg(dir.join("carteira.txt"))
        .arg("--out")
        .arg(dir.join("out"))
        .args(extra)
        .env("REGISTRY_API_KEY", KEY)
        .output()
        .unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("out/manifest.json")).unwrap()).unwrap()
}

#[test]
fn an_added_and_a_dropped_field_are_recorded_or_stop_the_run_under_freeze() {
    let srv = ServeProcess::start(
        KEY,
        SEED,
        SCALE,
        &["--add-field", "campo_novo", "--drop-field", "natureza_juridica"],
    );

    let evolve = tempfile::tempdir().unwrap();
    let (code, err) = run(&srv, evolve.path(), &[]);
    assert_eq!(code, Some(0), "{err}");
    let m = manifest(evolve.path());
    let credits = m["fetch"]["records"]["creditos_ativos"].as_u64().unwrap();
    assert!(credits > 0);
    let drift = &m["fetch"]["requests"]["schema"]["creditos-ativos"];
    assert_eq!(drift["records"].as_u64(), Some(credits), "{drift}");
    assert_eq!(drift["unknown_fields"]["campo_novo"].as_u64(), Some(credits), "{drift}");
    assert_eq!(drift["missing_fields"]["natureza_juridica"].as_u64(), Some(credits), "{drift}");
    // The profile carries the new field too, and it does not lack natureza_juridica at its top.
    let companies = m["fetch"]["requests"]["schema"]["empresa"].clone();
    assert_eq!(companies["records"].as_u64(), Some(3), "{companies}");
    assert_eq!(companies["unknown_fields"]["campo_novo"].as_u64(), Some(3), "{companies}");
    assert!(companies.get("missing_fields").is_none(), "{companies}");
    for report in ["report.md", "report.html"] {
        // Markdown escapes `_` as `\_`, which renders as `_`.
        let text = std::fs::read_to_string(evolve.path().join("out").join(report)).unwrap().replace('\\', "");
        assert!(text.contains("Mudanças no formato dos dados do serviço"), "{report}");
        assert!(text.contains("campo_novo") && text.contains("natureza_juridica"), "{report}");
    }

    let freeze = tempfile::tempdir().unwrap();
    let (code, err) = run(&srv, freeze.path(), &["--schema-contract", "freeze"]);
    assert_eq!(code, Some(7), "{err}");
    assert!(
        err.contains("campo_novo") && err.contains("natureza_juridica") && err.contains("freeze"),
        "{err}"
    );
    let out = freeze.path().join("out");
    for exported in ["report.html", "report.md", "aggregates", "creditos_ativos", "empresas"] {
        assert!(!out.join(exported).exists(), "{exported} was written under freeze");
    }
    // What was fetched is kept, and the manifest records the drift it stopped on.
    assert!(out.join(".staging").is_dir());
    assert!(manifest(freeze.path())["fetch"]["requests"]["schema"]["creditos-ativos"]["unknown_fields"]["campo_novo"]
        .is_u64());

    // The contract travels with the staged data: `report --from` refuses it as well.
    let o = bin().args(["report", "--from"]).arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(7), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.join("report.html").exists());

    // Taking the new shape needs no new fetch: resume under evolve exports what was staged.
    let frozen = manifest(freeze.path())["fetch"]["requests"]["schema"].clone();
    let (code, err) = run(&srv, freeze.path(), &["--schema-contract", "evolve", "--resume"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.join("report.html").is_file());
    // The drift is kept with the staged records (the journal), counted once across the two runs.
    let resumed = manifest(freeze.path());
    assert_eq!(resumed["fetch"]["requests"]["schema"], frozen);
    assert_eq!(resumed["fetch"]["requests"]["schema"], m["fetch"]["requests"]["schema"]);
    assert_eq!(resumed["fetch"]["requests"]["requests"].as_u64(), Some(0), "nothing was fetched again");
}

#[test]
fn a_service_of_the_expected_shape_shows_no_drift() {
    let srv = ServeProcess::start(KEY, SEED, SCALE, &[]);
    let dir = tempfile::tempdir().unwrap();
    let (code, err) = run(&srv, dir.path(), &["--schema-contract", "freeze"]);
    assert_eq!(code, Some(0), "{err}");
    let m = manifest(dir.path());
    let schema = m["fetch"]["requests"]["schema"].as_object().unwrap();
    assert!(schema.contains_key("creditos-ativos") && schema.contains_key("dividas-pgfn"), "{schema:?}");
    for (op, d) in schema {
        assert!(d["records"].as_u64().unwrap() > 0 || op == "transacoes-rfb" || op == "parcelamentos-rfb");
        assert!(d.get("unknown_fields").is_none() && d.get("missing_fields").is_none(), "{op}: {d}");
    }
    let md = std::fs::read_to_string(dir.path().join("out/report.md")).unwrap();
    assert!(!md.contains("Mudanças no formato dos dados do serviço"));
}
