//! The deployment examples in deploy/ parse, use only flags the binary has, and take the key
//! from the environment or a secret, never from a command line.

use crate::common_bin;

use std::collections::BTreeSet;
use std::path::Path;

use common_bin::*;

fn deploy(file: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy").join(file)).unwrap()
}

const FILES: [&str; 8] = [
    "cron.txt",
    "systemd/fiscal-report.service",
    "systemd/fiscal-report.timer",
    "kubernetes/cronjob.yaml",
    "kubernetes/indexed-job.yaml",
    "kubernetes/indexed-job-bucket.yaml",
    "airflow/fiscal_report_dag.py",
    "airflow/fiscal_report_open_data_dag.py",
];

#[test]
fn every_flag_used_exists_and_no_key_is_on_a_command_line() {
    let mut known = String::new();
    for cmd in ["run", "fetch", "merge", "download"] {
        let o = bin().args([cmd, "--help"]).output().unwrap();
        known.push_str(&String::from_utf8_lossy(&o.stdout));
    }
    let mut used = BTreeSet::new();
    for f in FILES {
        let text = deploy(f);
        assert!(!text.contains("--api-key"), "{f} puts the key on a command line");
        for tok in text.split(|c: char| c.is_whitespace() || "\"',[]()".contains(c)) {
            if let Some(flag) =
                tok.strip_prefix("--").filter(|t| t.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
            {
                used.insert(format!("--{}", flag.split('=').next().unwrap()));
            }
        }
    }
    assert!(used.contains("--shard") && used.contains("--cnpjs"));
    for flag in used {
        assert!(
            known.contains(&format!("{flag} ")) || known.contains(&format!("{flag}\n")),
            "{flag} is not a flag of fiscal-report"
        );
    }
}

#[test]
fn cron_and_systemd_files_are_well_formed() {
    let cron = deploy("cron.txt");
    let line = cron.lines().find(|l| !l.starts_with('#') && !l.trim().is_empty()).unwrap();
    assert!(line.split_whitespace().count() > 6 && line.contains("fiscal-report"));
    for (f, sections) in [
        ("systemd/fiscal-report.service", &["[Unit]", "[Service]"][..]),
        ("systemd/fiscal-report.timer", &["[Unit]", "[Timer]", "[Install]"][..]),
    ] {
        let text = deploy(f);
        for s in sections {
            assert!(text.lines().any(|l| l == *s), "{f} lacks {s}");
        }
        for l in text.lines().filter(|l| !l.starts_with('#') && !l.starts_with('[') && !l.trim().is_empty()) {
            assert!(l.contains('='), "{f}: {l:?} is not key=value");
        }
    }
}

#[test]
fn yaml_and_python_examples_parse() {
    if !super::common_bin::python_with("yaml") {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy");
    let script = r#"
import ast, sys, yaml
for f in sys.argv[1:]:
    text = open(f).read()
    if f.endswith(".py"):
        ast.parse(text)
    else:
        docs = [d for d in yaml.safe_load_all(text) if d]
        assert docs and all(d["apiVersion"] and d["kind"] for d in docs), f
print("ok")
"#;
    let o = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(dir.join("kubernetes/cronjob.yaml"))
        .arg(dir.join("kubernetes/indexed-job.yaml"))
        .arg(dir.join("kubernetes/indexed-job-bucket.yaml"))
        .arg(dir.join("airflow/fiscal_report_dag.py"))
        .arg(dir.join("airflow/fiscal_report_open_data_dag.py"))
        .arg(dir.join("spark/fiscal_report_queries.py"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The bucket example shares no volume: the shards write to the bucket, the merge reads the
/// very prefixes they wrote, and every credential comes from a Secret.
#[test]
fn the_bucket_example_shares_no_volume_and_takes_credentials_from_secrets() {
    let text = deploy("kubernetes/indexed-job-bucket.yaml");
    assert!(!text.contains("persistentVolumeClaim"), "a shared volume in the bucket example");
    for var in ["AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "REGISTRY_API_KEY"] {
        for (i, _) in text.match_indices(&format!("name: {var}")) {
            let next = &text[i..(i + 160).min(text.len())];
            assert!(next.contains("secretKeyRef"), "{var} not from a Secret: {next}");
        }
    }
    let out = "s3://fiscal-lake/runs/RUN/shard-$(JOB_COMPLETION_INDEX)";
    assert!(text.contains(out));
    for k in 0..4 {
        assert!(text.contains(&format!("\"s3://fiscal-lake/runs/RUN/shard-{k}\"")), "merge lacks shard {k}");
    }
    assert!(text.contains("completions: 4") && text.contains("\"$(JOB_COMPLETION_INDEX)/4\""));
}

/// The Dockerfile, parsed by Docker's own parser, keeps the image's promises (tests/interop/
/// check_dockerfile.py: multi-stage, pinned bases, non-root, CA roots, a context that builds).
#[test]
fn the_dockerfile_keeps_its_rules() {
    if !python_with("dockerfile") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = std::process::Command::new("python3")
        .arg(root.join("tests/interop/check_dockerfile.py"))
        .arg(root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && stdout.contains("10 passed, 0 failed"),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
