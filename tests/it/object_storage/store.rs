//! `--store s3://…`: the Delta store in a bucket. A first run at M-1, then incremental runs at
//! M and M+1, equal full runs (no store) at the same moments: the last incremental run's
//! aggregates, and every table of the store's versions at M and M+1 as the `deltalake` package
//! and Polars read them from a copy of the bucket. A lock object left in the bucket stops a run with exit 8, naming it.

use std::path::Path;

use super::{S3Server, no_secret_in};
use crate::store::{check_store, full_run_files, full_runs, sorted_frame};

#[test]
fn a_store_in_a_bucket_builds_month_on_month_equal_to_full_runs() {
    let Some(s3) = S3Server::start() else { return };
    s3.python("s3.create_bucket(Bucket='lake')");
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &str, extra: &[&str]| {
        let o = s3
            .command(dir.path(), &s3.url)
            .args(["run", "--quiet", "--uf", "SP,RJ", "--store", "s3://lake/fiscal/store", "--out"])
            .arg(dir.path().join(out))
            .args(extra)
            .output()
            .unwrap();
        no_secret_in(&o, dir.path());
        o
    };
    let o = run("m0", &["--as-of", "202607"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run("m", &["--as-of", "202608"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // It reads the public lists and tax regime files the full run it is compared with read.
    let files = full_run_files();
    let o = run("m1", &files.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("unchanged (their records carried from the store)"), "{stderr}");

    // The incremental run fetched only what moved, and its aggregates equal the full run's.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("m1/manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["store"]["version"], 3);
    assert_eq!(manifest["store"]["dir"], "s3://lake/fiscal/store");
    assert_eq!(manifest["store"]["credit_months_fetched"].as_array().unwrap().len(), 2);
    let full = full_runs();
    let compares = ["mudancas.parquet", "variacao_exposicao.parquet", "situacao_fiscal_por_retrato.parquet"];
    for entry in std::fs::read_dir(full.join("full_m1/aggregates")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_owned();
        if path.extension().is_some_and(|e| e == "parquet") && !compares.iter().any(|c| name == *c) {
            let other = dir.path().join("m1/aggregates").join(&name);
            assert_eq!(sorted_frame(&path), sorted_frame(&other), "{name:?}");
        }
    }

    // No lock is left behind, and `store info` reads the bucket.
    let keys = s3.python(
        "print(len(s3.list_objects_v2(Bucket='lake', Prefix='fiscal/store/.lock').get('Contents', [])))",
    );
    assert_eq!(keys.trim(), "0", "the lock object was not removed");
    let o =
        s3.command(dir.path(), &s3.url).args(["store", "info", "s3://lake/fiscal/store"]).output().unwrap();
    let info = String::from_utf8_lossy(&o.stdout);
    assert!(
        info.contains("versions (3)")
            && info.contains("snapshot=202607: 200, snapshot=202608: 200, snapshot=202609: 200"),
        "{info}"
    );

    // What is in the bucket is the truth at both moments, as other readers see it.
    if crate::common_bin::python_with("deltalake, polars") {
        let copy = dir.path().join("copy");
        s3.download("lake", "fiscal/store", &copy);
        check_store(
            &copy,
            &[("2", "202608", full.join("full_m")), ("latest", "202609", full.join("full_m1"))],
            20,
        );
    }

    // A lock object (a run in progress, or one that was killed) stops the next run, named.
    s3.python("s3.put_object(Bucket='lake', Key='fiscal/store/.lock', Body=b'{\"host\": \"elsewhere\"}')");
    let o = run("m1_again", &[]);
    assert_eq!(o.status.code(), Some(8), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("s3://lake/fiscal/store/.lock") && err.contains("elsewhere"), "{err}");
    assert!(!Path::new(&dir.path().join("m1_again/manifest.json")).exists());
}

/// A store in a missing bucket is bad input (exit 2) and an unreachable endpoint a service
/// failure (exit 6); both say which store, neither shows the secret.
#[test]
fn a_store_in_a_missing_bucket_or_behind_a_closed_endpoint_exits_with_its_code() {
    let Some(s3) = S3Server::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let run = |endpoint: &str| {
        let o = s3
            .command(dir.path(), endpoint)
            .args([
                "run",
                "--quiet",
                "--demo-scale",
                "0.05",
                "--ano-mes",
                "202609",
                "--store",
                "s3://absent/store",
            ])
            .arg("--out")
            .arg(dir.path().join("out"))
            .output()
            .unwrap();
        no_secret_in(&o, dir.path());
        o
    };
    let o = run(&s3.url);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("s3://absent/store") && err.contains("bucket exists"), "{err}");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let o = run(&format!("http://127.0.0.1:{closed}"));
    assert_eq!(o.status.code(), Some(6), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("s3://absent/store"));
}

/// A run on a bucket store killed (SIGKILL: no handler runs) as its commit begins: the store
/// still reads (`store info`, its last whole version), the lock the killed run left stops the
/// next run with exit 8 naming it, and once that object is deleted the same run completes.
#[test]
fn a_bucket_store_killed_during_its_commit_stays_readable_and_the_next_run_completes_it() {
    use std::process::Stdio;
    let Some(s3) = S3Server::start() else { return };
    s3.python("s3.create_bucket(Bucket='lake')");
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &str, extra: &[&str]| {
        let mut c = s3.command(dir.path(), &s3.url);
        c.args(["run", "-v", "--uf", "AC", "--demo-scale", "0.2", "--store", "s3://lake/k/store", "--out"])
            .arg(dir.path().join(out))
            .args(extra);
        c
    };
    let o = run("m", &["--as-of", "202608"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let child = run("m1", &[]).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    crate::common_bin::kill_when_stderr_says(child, "analyze: done");

    let info = s3.command(dir.path(), &s3.url).args(["store", "info", "s3://lake/k/store"]).output().unwrap();
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(info.status.success(), "{}", String::from_utf8_lossy(&info.stderr));
    assert!(text.contains("202608"), "the whole version before reads: {text}");
    let o = run("m1_locked", &[]).output().unwrap();
    assert_eq!(o.status.code(), Some(8), "the killed run's lock: {}", String::from_utf8_lossy(&o.stderr));
    s3.python("s3.delete_object(Bucket='lake', Key='k/store/.lock')");
    let o = run("m1_again", &[]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("snapshot 202609"), "{stderr}");
    let info = s3.command(dir.path(), &s3.url).args(["store", "info", "s3://lake/k/store"]).output().unwrap();
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("202608") && text.contains("202609"), "both months: {text}");
}
