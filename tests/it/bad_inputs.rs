//! The catalogue of bad inputs: each one gets a clear message (the input, the rule, the fix)
//! and its documented exit code, before anything is fetched.

use crate::common_bin;

use common_bin::*;

/// Runs the binary with `args` (and an optional env key) and returns (exit code, stderr).
fn run(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut c = bin();
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).to_string())
}

fn assert_bad(args: &[&str], env: &[(&str, &str)], expect: &[&str]) {
    let (code, err) = run(args, env);
    assert_eq!(code, Some(2), "{args:?} -> {err}");
    for e in expect {
        assert!(err.contains(e), "{args:?}: {e:?} missing from:\n{err}");
    }
    assert!(!err.contains("panicked") && !err.contains("bug in fiscal-report"), "{err}");
}

const SVC: [&str; 2] = ["--base-url", "http://127.0.0.1:9"];
const KEY: [(&str, &str); 1] = [("REGISTRY_API_KEY", "k")];

#[test]
fn command_line_and_config_mistakes() {
    assert_bad(&["fetch", "--no-such-flag"], &[], &["--no-such-flag"]);
    assert_bad(&["fetch", "--uf", "SP,XX"], &[], &["uf", "\"XX\"", "two letters"]);
    assert_bad(&["fetch", "--ano-mes", "202413"], &[], &["ano_mes", "202413", "month 13"]);
    assert_bad(&["fetch", "--ano-mes", "202412:202301"], &[], &["202301:202412"]);
    assert_bad(&["fetch", "--concurrency", "0"], &[], &["concurrency", "between 1 and 512"]);
    assert_bad(&["fetch", "--shard", "3/3"], &[], &["shard", "0 to 2"]);
    assert_bad(
        &["run", "--queries", "/no/such/queries"],
        &[],
        &["--queries /no/such/queries", "no such folder"],
    );
    let real = ["fetch", "--base-url", "https://registry.example/", "--demo-scale", "2"];
    assert_bad(&real, &KEY, &["demo_scale", "drop one of them"]);
    let env = [("FISCAL_REPORT_CONCURRENCY", "abc")];
    assert_bad(
        &["fetch"],
        &env,
        &["\"abc\" (from environment)", "FISCAL_REPORT_CONCURRENCY must be a whole number"],
    );
    assert_bad(&["fetch", "--base-url", "not a url"], &KEY, &["base_url", "not a URL"]);
    assert_bad(&["fetch", "--base-url", "https://registry.example/"], &[], &["REGISTRY_API_KEY"]);
    assert_bad(&["fetch", "--base-url", "http://registry.example/"], &KEY, &["--allow-insecure-http"]);
    assert_bad(&["get", "empresa", "123"], &[], &["CNPJ", "14"]);
    assert_bad(&["serve", "--scale", "0"], &[], &["--scale"]);
    assert_bad(&["serve", "--fault-rate", "2"], &[], &["--fault-rate", "between 0 and 1"]);
}

#[test]
fn config_files_that_cannot_be_used() {
    let dir = tempfile::tempdir().unwrap();
    let p = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().to_string()
    };
    let bad_toml = p("bad.toml", "uf = [unclosed\n");
    assert_bad(&["fetch", "--config", &bad_toml], &[], &["bad.toml", "not valid TOML"]);
    let unknown = p("unknown.toml", "uf = \"SP\"\nconcurency = 4\n");
    assert_bad(&["fetch", "--config", &unknown], &[], &["unknown.toml", "concurency"]);
    let wrong = p("wrong.toml", "ano_mes = \"202400\"\n");
    assert_bad(&["fetch", "--config", &wrong], &[], &["ano_mes", "config file"]);
    assert_bad(&["fetch", "--config", "/no/such/file.toml"], &[], &["/no/such/file.toml"]);
    // A key in a file that cannot be read is still a secret: the message names the line, not it.
    for (name, text, expect) in [
        ("flag-spelling.toml", "uf = \"SP\"\napi-key = \"s3cr3t-k3y\"\n", "unknown field `api-key`"),
        ("unquoted.toml", "api_key = s3cr3t-k3y\n", "line 1"),
        ("numeric.toml", "api_key = 31415926\n", "invalid type"),
        ("commented.toml", "api_key = 31415926  # prod\n", "invalid type"),
        ("underscored.toml", "api_key = 3141_5926\n", "invalid type"),
        ("hex.toml", "api_key = 0x1DF5E76\n", "invalid type"),
    ] {
        let path = p(name, text);
        let (code, err) = run(&["fetch", "--config", &path], &[]);
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(err.contains(name) && err.contains(expect), "{name}: {expect:?} missing from {err}");
        assert!(!err.contains("s3cr3t") && !err.contains("31415926"), "{name} printed the key: {err}");
    }
    // The environment can switch off what the file switched on.
    let insecure = p("insecure.toml", "allow_insecure_http = true\n");
    assert_bad(
        &["fetch", "--config", &insecure, "--base-url", "http://registry.example/"],
        &[("REGISTRY_API_KEY", "k"), ("FISCAL_REPORT_ALLOW_INSECURE_HTTP", "false")],
        &["--allow-insecure-http"],
    );
    // Flags beat the environment, which beats the file.
    let ok = p("ok.toml", "uf = \"XX\"\n");
    assert_bad(&["fetch", "--config", &ok], &[], &["config file"]);
    assert_bad(&["fetch", "--config", &ok], &[("FISCAL_REPORT_UF", "YY")], &["\"YY\"", "environment"]);
    assert_bad(
        &["fetch", "--config", &ok, "--uf", "ZZ"],
        &[("FISCAL_REPORT_UF", "YY")],
        &["\"ZZ\"", "command line"],
    );
}

#[test]
fn portfolio_files_that_hold_no_usable_cnpj() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_string_lossy().to_string()
    };
    let fetch = |f: &str| {
        let mut a = vec!["fetch", "--cnpjs", f];
        a.extend(SVC);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let cases: Vec<(String, Vec<&str>)> = vec![
        (file("empty.csv", b""), vec!["empty.csv", "no valid CNPJ"]),
        (
            file("bad.csv", b"cnpj\n123\n11.222.333/0001-82\n"),
            vec!["bad.csv", "2 invalid lines", "line 2", "\"123\"", "3 characters"],
        ),
        (file("alnum.txt", b"12.ABC.345/01DE-35\n"), vec!["alnum.txt", "only accepts numeric"]),
        (file("nocol.csv", b"nome;id\nX;33683111000280\n"), vec!["nocol.csv", "no `cnpj` column"]),
    ];
    for (f, expect) in cases {
        let args = fetch(&f);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_bad(&args, &KEY, &expect);
    }
    // --strict stops at the first bad line, naming it.
    let mixed = file("mixed.csv", b"\xEF\xBB\xBFcnpj\r\n33.683.111/0002-80\r\n33683111000281\r\n");
    let mut args = fetch(&mixed);
    args.push("--strict".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_bad(&args, &KEY, &["mixed.csv", "line 3", "check digits"]);
}

#[test]
fn an_output_dir_with_another_runs_files_is_refused() {
    let srv = ServeProcess::start("k", 7, 0.05, &[]);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.txt");
    let d = fiscal_report::simulator::Dataset::generate(7, 0.05);
    std::fs::write(&p, d.company_cnpj(0).to_string()).unwrap();
    let out = dir.path().join("out");
    let args = |months: &str| {
        vec![
            "--quiet".to_string(),
            "fetch".into(),
            "--base-url".into(),
            srv.base_url.clone(),
            "--uf".into(),
            "AC".into(),
            "--ano-mes".into(),
            months.into(),
            "--cnpjs".into(),
            p.to_string_lossy().to_string(),
            "--out".into(),
            out.to_string_lossy().to_string(),
        ]
    };
    let first = args("202601");
    let (code, err) = run(&first.iter().map(String::as_str).collect::<Vec<_>>(), &KEY);
    assert_eq!(code, Some(0), "{err}");
    let again = args("202602");
    let mut resume: Vec<&str> = again.iter().map(String::as_str).collect();
    assert_bad(&resume, &KEY, &["already holds", "--resume"]);
    resume.push("--resume");
    assert_bad(
        &resume,
        &KEY,
        &["other parameters", r#"months ["202602"] where the interrupted run had ["202601"]"#],
    );
    // While a fetch holds the run's lock, report --from waits its turn instead of racing it.
    let lock = std::fs::File::open(out.join(".staging").join("lock")).unwrap();
    lock.try_lock().unwrap();
    let report = ["--quiet", "report", "--from", out.to_str().unwrap()];
    assert_bad(&report, &[], &["another fiscal-report run is using", "report --from again"]);
    drop(lock);
    let (code, err) = run(&report, &[]);
    assert_eq!(code, Some(0), "{err}");
    // Not writable: a file where the directory should be.
    let blocker = dir.path().join("blocker");
    std::fs::write(&blocker, b"x").unwrap();
    let mut blocked = args("202601");
    let n = blocked.len();
    blocked[n - 1] = blocker.join("sub").to_string_lossy().to_string();
    assert_bad(&blocked.iter().map(String::as_str).collect::<Vec<_>>(), &KEY, &["blocker"]);
}

#[test]
fn a_base_url_with_a_password_is_refused_without_printing_it() {
    let url = "https://user:pa55word@registry.example/";
    let (code, err) = run(&["fetch", "--base-url", url], &KEY);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("user name or password") && err.contains("REGISTRY_API_KEY"), "{err}");
    assert!(!err.contains("pa55word"), "the password was printed: {err}");
}

#[test]
fn an_output_folder_over_a_store_or_holding_someone_elses_files_is_refused_untouched() {
    let srv = ServeProcess::start("k", 7, 0.05, &[]);
    let dir = tempfile::tempdir().unwrap();
    let fetch_into = |out: &std::path::Path, extra: &[&str]| {
        let mut args =
            vec!["--quiet", "run", "--base-url", &srv.base_url, "--uf", "AC", "--ano-mes", "202601"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--out", out.to_str().unwrap()]);
        run(&args, &KEY)
    };
    // Someone's folder: their files stay as they were.
    let theirs = dir.path().join("warehouse");
    std::fs::create_dir_all(theirs.join("empresas")).unwrap();
    std::fs::write(theirs.join("empresas/my_export.csv"), b"mine").unwrap();
    let (code, err) = fetch_into(&theirs, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not empty and holds no fiscal-report run"), "{err}");
    assert_eq!(std::fs::read(theirs.join("empresas/my_export.csv")).unwrap(), b"mine");
    // The store's folder (or one inside it) as the output: refused before the store is touched.
    let store = dir.path().join("store");
    let store_arg = store.to_str().unwrap().to_string();
    for out in [store.clone(), store.join("out")] {
        let (code, err) = fetch_into(&out, &["--store", &store_arg]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("overlap"), "{err}");
        assert!(!out.join(".staging").exists(), "nothing staged in {}", out.display());
    }
    // An empty folder (a mounted volume) takes a run.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(empty.join("lost+found")).unwrap();
    let (code, err) = fetch_into(&empty, &[]);
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn a_service_that_never_answers_exits_6_not_as_a_partial_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut args = vec!["--quiet", "fetch"];
    args.extend(SVC);
    args.extend(["--uf", "AC", "--ano-mes", "202609", "--out", out.to_str().unwrap()]);
    // Ten tries, as a real run makes, without waiting out ten real backoffs.
    let (code, err) = run(&args, &[KEY[0], ("FISCAL_REPORT_TEST_RETRY_DELAY_MS", "5")]);
    assert_eq!(code, Some(6), "{err}");
    assert!(err.contains("all 1 tasks failed") && err.contains("nothing was fetched"), "{err}");
    assert!(err.contains("--resume"), "{err}");
}
