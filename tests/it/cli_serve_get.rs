//! `fiscal-report serve` and `fiscal-report get`, driven as a user would, and the promise that
//! the API key never shows in any log line, error text or file.

use crate::common_bin;

use common_bin::*;
use fiscal_report::api::models::{CreditoAtivo, DetailBody, Envelope};

const SECRET: &str = "s3cr3t-KEY-never-printed";

#[test]
fn serve_answers_the_readme_curl_and_refuses_no_key() {
    let srv = ServeProcess::start("KEY", 7, 0.05, &[]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let http = plain_http();
        let url = format!("{}/v1/rfb/creditos-ativos?uf=SP&ano_mes=202401&limite=2", srv.base_url);
        let resp = http.get(&url).header("X-API-Key", "KEY").send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        assert_eq!(resp.headers()["content-type"], "application/json");
        let env: Envelope<CreditoAtivo> = resp.json().await.unwrap();
        let pag = env.paginacao.unwrap();
        assert_eq!((pag.limite, pag.offset), (Some(2), Some(0)));
        assert!(pag.total.unwrap() > 2);
        assert_eq!(env.itens.len(), 2);
        assert!(
            env.itens.iter().all(|c| c.uf.as_deref() == Some("SP") && c.ano_mes.as_deref() == Some("202401"))
        );
        let resp = http.get(&url).send().await.unwrap();
        assert_eq!(resp.status().as_u16(), 401);
        assert!(!resp.json::<DetailBody>().await.unwrap().detail.is_empty());
    });
}

#[test]
fn dump_truth_matches_the_library_ground_truth() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("truth.json");
    let out =
        bin().args(["serve", "--seed", "7", "--scale", "0.05", "--dump-truth"]).arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dumped: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let truth = serde_json::to_value(fiscal_report::simulator::Dataset::generate(7, 0.05).truth()).unwrap();
    assert_eq!(dumped, truth);
}

#[test]
fn get_prints_json_and_maps_errors_to_exit_codes() {
    let srv = ServeProcess::start(SECRET, 7, 0.05, &[]);
    let d = fiscal_report::simulator::Dataset::generate(7, 0.05);
    let cnpj = d.company_cnpj(1);
    let out = bin()
        .args(["get", "empresa", &cnpj.masked(), "--base-url", &srv.base_url])
        .env("REGISTRY_API_KEY", SECRET)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["cnpj"], cnpj.as_str());

    let out = bin()
        .args([
            "get",
            "dividas-pgfn",
            cnpj.as_str(),
            "--categoria",
            "fgts",
            "--all",
            "--base-url",
            &srv.base_url,
        ])
        .env("REGISTRY_API_KEY", SECRET)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let truth = d.dividas(&cnpj, fiscal_report::api::Categoria::Fgts).unwrap();
    assert_eq!(v["itens"].as_array().unwrap().len(), truth.len());

    let code = |args: &[&str], key: &str| {
        let out = bin()
            .args(args)
            .args(["--base-url", &srv.base_url])
            .env("REGISTRY_API_KEY", key)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).to_string())
    };
    let (c, err) = code(&["get", "socios", "123"], SECRET);
    assert_eq!(c, Some(2), "{err}");
    assert!(err.contains("\"123\"") && err.contains("CNPJ"), "{err}");
    let (c, err) = code(&["get", "socios", cnpj.as_str(), "--limite", "101"], SECRET);
    assert_eq!(c, Some(2), "{err}");
    assert!(err.contains("between 1 and 100"), "{err}");
    let (c, err) = code(&["get", "empresa", cnpj.as_str()], "wrong-key");
    assert_eq!(c, Some(3), "{err}");
    assert!(err.contains("REGISTRY_API_KEY"), "{err}");
    let (c, err) = code(&["get", "empresa", "99999999000191"], SECRET);
    assert_eq!(c, Some(5), "{err}");
    let (c, err) = code(&["get", "nope", "1"], SECRET);
    assert_eq!(c, Some(2), "{err}");
    assert!(err.contains("creditos-ativos"), "{err}");
}

#[test]
fn the_key_never_appears_in_logs_errors_or_files() {
    let srv = ServeProcess::start(SECRET, 7, 0.05, &["--fault-rate", "0.2"]);
    let d = fiscal_report::simulator::Dataset::generate(7, 0.05);
    let dir = tempfile::tempdir().unwrap();
    let portfolio = dir.path().join("p.txt");
    let cnpjs: Vec<String> = d.demo_portfolio(5).iter().map(|c| c.to_string()).collect();
    std::fs::write(&portfolio, cnpjs.join("\n")).unwrap();
    let out_dir = dir.path().join("out");
    let mut logs = String::new();
    let fetch = |extra: &[&str]| {
        let mut c = bin();
        c.args([
            "-vv",
            "--log-format",
            "json",
            "fetch",
            "--uf",
            "SP,AC",
            "--ano-mes",
            "202601",
            "--base-url",
            &srv.base_url,
        ])
        .args(extra)
        .arg("--cnpjs")
        .arg(&portfolio)
        .arg("--out")
        .arg(&out_dir)
        .env("REGISTRY_API_KEY", SECRET)
        .env("RUST_LOG", "trace");
        c
    };
    let wrong_key_get = {
        let mut c = bin();
        c.args(["-vv", "get", "empresa", cnpjs[0].as_str(), "--base-url", &srv.base_url])
            .env("REGISTRY_API_KEY", "wrong-key-also-secret")
            .env("RUST_LOG", "trace");
        c
    };
    for mut cmd in [fetch(&[]), fetch(&["--resume"]), wrong_key_get] {
        let out = cmd.output().unwrap();
        logs.push_str(&String::from_utf8_lossy(&out.stdout));
        logs.push_str(&String::from_utf8_lossy(&out.stderr));
    }
    assert!(logs.contains("response"), "debug logging was on: {}", &logs[..logs.len().min(2000)]);
    assert!(
        !logs.contains(SECRET) && !logs.contains("wrong-key-also-secret"),
        "a key leaked into the output"
    );
    let files = files_below(&out_dir);
    assert!(files.len() >= 3, "{files:?}");
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        assert!(!bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()), "key found in {}", f.display());
    }
}

#[test]
fn logs_to_a_pipe_carry_no_colour_codes() {
    let srv = ServeProcess::start("k", 7, 0.05, &[]);
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["fetch", "--base-url", &srv.base_url, "--uf", "AC", "--ano-mes", "202601", "--out"])
        .arg(dir.path().join("out"))
        .env("REGISTRY_API_KEY", "k")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("INFO") && !err.contains('\u{1b}'), "{err:?}");
}

/// Each command's help ends with examples, and each example is a command line the binary reads
/// (its comment and placeholders aside): a renamed flag fails here, not in a newcomer's shell.
#[test]
fn every_commands_help_ends_with_examples_that_parse() {
    use clap::Parser;
    let commands = ["run", "fetch", "serve", "get", "merge", "store", "report", "dossie"];
    for cmd in commands {
        let o = bin().args([cmd, "--help"]).output().unwrap();
        assert!(o.status.success());
        let help = String::from_utf8_lossy(&o.stdout).to_string();
        let examples =
            help.split("Examples:").nth(1).unwrap_or_else(|| panic!("{cmd} --help has no examples"));
        let lines: Vec<&str> = examples.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        assert!((2..=3).contains(&lines.len()), "{cmd}: two or three examples: {lines:?}");
        for line in lines {
            let words: Vec<&str> = line.split(" # ").next().unwrap().split_whitespace().collect();
            assert_eq!(words.get(1), Some(&cmd), "{cmd}: an example of another command: {line}");
            let parsed = fiscal_report::cli::Cli::try_parse_from(&words);
            assert!(
                parsed.is_ok(),
                "{cmd}: {line}: {}",
                parsed.err().map(|e| e.to_string()).unwrap_or_default()
            );
        }
    }
}
