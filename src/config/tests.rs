//! The settings' resolution: file < env < flags, and the messages of bad values.

use super::*;

#[test]
fn months_and_ufs() {
    assert_eq!(parse_months("latest"), Ok(MonthSelection::Latest(13)));
    let r = parse_months("202301:202412").unwrap();
    assert!(
        matches!(r, MonthSelection::Range(a, b) if a.to_string() == "202301" && b.to_string() == "202412")
    );
    assert!(parse_months("202412:202301").unwrap_err().contains("202301:202412"));
    assert!(parse_months("202413").unwrap_err().contains("month 13"));
    assert_eq!(parse_ufs("sp, rj,SP").unwrap().len(), 2);
    assert_eq!(parse_ufs("all").unwrap().len(), 27);
    assert!(parse_ufs("SP,XX").unwrap_err().contains("\"XX\""));
}

#[test]
fn a_base_url_with_a_password_is_refused_without_showing_it() {
    assert_eq!(without_userinfo("http://user:s3cret@host:80/v1?x=1"), "http://***@host:80/v1?x=1");
    assert_eq!(without_userinfo("https://host/a@b"), "https://host/a@b");
    assert_eq!(without_userinfo("not a url"), "not a url");
    let argv =
        ["fiscal-report", "fetch", "--base-url", "https://user:s3cret@registry.example/", "--api-key", "k"];
    let e = RunConfig::resolve(&fetch_args(&argv)).unwrap_err().to_string();
    assert!(e.contains("user name or password") && !e.contains("s3cret"), "{e}");
    let argv = ["fiscal-report", "fetch", "--base-url", "https://user:s3cret@bad host/", "--api-key", "k"];
    let e = RunConfig::resolve(&fetch_args(&argv)).unwrap_err().to_string();
    assert!(e.contains("not a URL") && !e.contains("s3cret"), "{e}");
}

#[test]
fn a_base_url_is_one_service_with_or_without_its_last_slash() {
    let url = |u: &str| {
        let argv = ["fiscal-report", "fetch", "--base-url", u, "--api-key", "k"];
        RunConfig::resolve(&fetch_args(&argv)).unwrap().base_url
    };
    assert_eq!(url("https://registry.example/api/"), url("https://registry.example/api"));
    assert_eq!(url("https://registry.example/").as_deref(), Some("https://registry.example"));
}

#[test]
fn a_switch_from_the_environment_says_no_as_clap_reads_it() {
    for no in ["false", "0", "no", "off", " N ", "F"] {
        assert_eq!(switch_value(no), Some(false), "{no}");
    }
    for yes in ["true", "1", "yes", "on"] {
        assert_eq!(switch_value(yes), Some(true), "{yes}");
    }
    assert_eq!(switch_value("maybe"), None, "neither: refused, naming the variable");
}

#[test]
fn shards() {
    assert!(Shard::parse("3/3").unwrap_err().contains("0 to 2"));
    assert!(Shard::parse("0/0").is_err());
    let shards: Vec<Shard> = (0..3).map(|k| Shard { index: k, count: 3 }).collect();
    for key in ["a", "b", "c", "12345678000195", "SP/202401"] {
        assert_eq!(shards.iter().filter(|s| s.owns(key)).count(), 1);
    }
}

fn fetch_args(argv: &[&str]) -> FetchArgs {
    use clap::Parser;
    match crate::cli::Cli::try_parse_from(argv).map(|c| c.command) {
        Ok(crate::cli::Command::Fetch(args)) => args,
        other => panic!("not a fetch command line: {other:?}"),
    }
}

fn run_args(argv: &[&str]) -> RunArgs {
    use clap::Parser;
    match crate::cli::Cli::try_parse_from(argv).map(|c| c.command) {
        Ok(crate::cli::Command::Run(args)) => *args,
        other => panic!("not a run command line: {other:?}"),
    }
}

#[test]
fn one_read_of_the_file_gives_every_setting_and_the_flags_win() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fiscal.toml");
    std::fs::write(&file, "pdf = true\nuf = \"SP,RJ\"\nconcurrency = 8\nstore = \"loja\"\n").unwrap();
    let path = file.to_str().unwrap();
    let run = RunSettings::resolve(&run_args(&["fiscal-report", "run", "--config", path])).unwrap();
    assert!(run.report.pdf, "the file's pdf = true reaches the run");
    let cfg = RunConfig::resolve(&fetch_args(&["fiscal-report", "fetch", "--config", path])).unwrap();
    assert_eq!(cfg.ufs.iter().map(|u| u.to_string()).collect::<Vec<_>>(), ["SP", "RJ"]);
    assert_eq!(cfg.concurrency, 8);
    assert_eq!(cfg.store.as_deref(), Some(Path::new("loja")));
    let cfg = RunConfig::resolve(&fetch_args(&[
        "fiscal-report",
        "fetch",
        "--config",
        path,
        "--concurrency",
        "3",
        "--uf",
        "MG",
    ]))
    .unwrap();
    assert_eq!((cfg.concurrency, cfg.ufs.len()), (3, 1), "a flag wins over the file");
    let e = RunConfig::resolve(&fetch_args(&["fiscal-report", "fetch", "--config", path, "--shard", "0/2"]))
        .unwrap_err();
    assert!(e.to_string().contains("store = \"loja\" (from config file)"), "{e}");
}
