//! `run --out s3://…` against a real S3-compatible server on loopback (moto's server mode): the
//! finished outputs land in the bucket, each object equal to the manifest's size and sha256,
//! the manifest last, and pyarrow reads the Parquet from the bucket; a missing bucket and an
//! unreachable endpoint give their exit codes, and no output or file holds the secret.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common_bin::*;

mod shards;
mod store;

const SECRET: &str = "not-a-real-secret-5f1c2a";

struct S3Server {
    child: Child,
    url: String,
}

impl Drop for S3Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl S3Server {
    fn start() -> Option<S3Server> {
        Self::start_with(&[])
    }

    /// The server with `env` (moto's settings) in its environment.
    fn start_with(env: &[(&str, &str)]) -> Option<S3Server> {
        if !python_with("moto.server, boto3, pyarrow") {
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new("python3")
            .args(["-m", "moto.server", "-H", "127.0.0.1", "-p", &port.to_string()])
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the S3 server did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(S3Server { child, url: format!("http://127.0.0.1:{port}") })
    }

    /// `python3 -c SCRIPT` with boto3 pointed at this server; its stdout.
    fn python(&self, script: &str) -> String {
        let prelude = format!(
            "import boto3, json, hashlib, sys\n\
             s3 = boto3.client('s3', endpoint_url='{}', aws_access_key_id='testing', \
             aws_secret_access_key='testing', region_name='us-east-1')\n",
            self.url
        );
        let o = Command::new("python3").args(["-c", &(prelude + script)]).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).to_string()
    }

    fn run(&self, cwd: &Path, endpoint: &str, args: &[&str]) -> std::process::Output {
        self.run_with(cwd, endpoint, args, &[])
    }

    /// `run` with more (or other) environment variables.
    fn run_with(
        &self,
        cwd: &Path,
        endpoint: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> std::process::Output {
        self.command(cwd, endpoint)
            .args(["--quiet", "run", "--demo-scale", "0.05", "--ano-mes", "202609"])
            .args(args)
            .envs(env.iter().copied())
            .output()
            .unwrap()
    }

    /// The binary in `cwd` with credentials for this server (at `endpoint`) in its environment.
    fn command(&self, cwd: &Path, endpoint: &str) -> Command {
        let mut c = bin();
        c.current_dir(cwd)
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", SECRET)
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ENDPOINT_URL", endpoint)
            .env("AWS_ALLOW_HTTP", "true");
        c
    }

    /// Every object under `prefix` in `bucket`, downloaded into `dir` (a reader's copy).
    fn download(&self, bucket: &str, prefix: &str, dir: &Path) {
        self.python(&format!(
            "import os\n\
             for page in s3.get_paginator('list_objects_v2').paginate(Bucket='{bucket}', Prefix='{prefix}/'):\n\
             \x20   for o in page.get('Contents', []):\n\
             \x20       path = os.path.join('{}', o['Key'][len('{prefix}/'):])\n\
             \x20       os.makedirs(os.path.dirname(path), exist_ok=True)\n\
             \x20       s3.download_file('{bucket}', o['Key'], path)",
            dir.display()
        ));
    }
}

fn no_secret_in(o: &std::process::Output, dir: &Path) {
    for text in [&o.stdout, &o.stderr] {
        assert!(!String::from_utf8_lossy(text).contains(SECRET), "the secret was printed");
    }
    fn walk(dir: &Path) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                assert!(
                    !bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
                    "{} holds the secret",
                    p.display()
                );
            }
        }
    }
    walk(dir);
}

#[test]
fn a_run_uploads_its_outputs_whole_with_the_manifest_last() {
    let Some(s3) = S3Server::start() else { return };
    s3.python("s3.create_bucket(Bucket='runs')");
    let dir = tempfile::tempdir().unwrap();
    let o = s3.run(dir.path(), &s3.url, &["--out", "s3://runs/2026-09"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    no_secret_in(&o, dir.path());
    // Every object the manifest names is there with its size and sha256, and nothing else.
    let checked = s3.python(
        "m = json.loads(s3.get_object(Bucket='runs', Key='2026-09/manifest.json')['Body'].read())\n\
         keys = {o['Key'] for o in s3.list_objects_v2(Bucket='runs', Prefix='2026-09/', MaxKeys=1000)['Contents']}\n\
         want = {'2026-09/' + f['path'] for f in m['files']} | {'2026-09/manifest.json'}\n\
         assert keys == want, (sorted(keys - want), sorted(want - keys))\n\
         for f in m['files']:\n\
         \x20   body = s3.get_object(Bucket='runs', Key='2026-09/' + f['path'])['Body'].read()\n\
         \x20   assert len(body) == f['bytes'] and hashlib.sha256(body).hexdigest() == f['sha256'], f['path']\n\
         print(len(m['files']))",
    );
    assert!(checked.trim().parse::<usize>().unwrap() > 50, "{checked}");
    // pyarrow reads the Parquet from the bucket as it reads it from a disk.
    let rows = s3.python(&format!(
        "import pyarrow.dataset as ds, pyarrow.fs as fs\n\
         f = fs.S3FileSystem(endpoint_override='{}', scheme='http', access_key='testing', secret_key='testing', region='us-east-1')\n\
         print(ds.dataset('runs/2026-09/aggregates/carteira_exposicao.parquet', filesystem=f, format='parquet').count_rows())",
        s3.url
    ));
    assert!(rows.trim().parse::<usize>().unwrap() > 0);
    // The bucket holds the run: the local work dir is gone, so the next run of this URL starts clean.
    assert!(!dir.path().join(".fiscal-report-work/runs/2026-09").exists());
}

/// Killed mid-upload: every object visible is whole (it equals the manifest's sha256), the
/// manifest is not there, and the same command with `--resume` finishes without fetching.
#[test]
fn a_kill_during_the_upload_leaves_no_partial_object_and_no_manifest() {
    let Some(s3) = S3Server::start() else { return };
    s3.python("s3.create_bucket(Bucket='runs')");
    let dir = tempfile::tempdir().unwrap();
    let abort = [("FISCAL_REPORT_TEST_ABORT_AFTER_UPLOADS", "10")];
    let o = s3.run_with(dir.path(), &s3.url, &["--out", "s3://runs/killed"], &abort);
    assert!(!o.status.success() && o.status.code().is_none(), "it died by a signal");
    let local = dir.path().join(".fiscal-report-work/runs/killed/manifest.json");
    let seen = s3.python(&format!(
        "m = json.load(open('{}'))\n\
         want = {{f['path']: f['sha256'] for f in m['files']}}\n\
         found = s3.list_objects_v2(Bucket='runs', Prefix='killed/').get('Contents', [])\n\
         keys = [o['Key'][len('killed/'):] for o in found]\n\
         assert 'manifest.json' not in keys, 'a manifest naming objects that are missing'\n\
         for k in keys:\n\
         \x20   body = s3.get_object(Bucket='runs', Key='killed/' + k)['Body'].read()\n\
         \x20   assert hashlib.sha256(body).hexdigest() == want[k], k\n\
         print(len(keys), len(want))",
        local.display()
    ));
    let counts: Vec<usize> = seen.split_whitespace().map(|n| n.parse().unwrap()).collect();
    assert!(counts[0] >= 10 && counts[0] < counts[1], "{seen}");
    let o = s3.run(dir.path(), &s3.url, &["--out", "s3://runs/killed", "--resume"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("0 requests"));
    s3.python(
        "m = json.loads(s3.get_object(Bucket='runs', Key='killed/manifest.json')['Body'].read())\n\
         for f in m['files']:\n\
         \x20   body = s3.get_object(Bucket='runs', Key='killed/' + f['path'])['Body'].read()\n\
         \x20   assert hashlib.sha256(body).hexdigest() == f['sha256'], f['path']",
    );
}

#[test]
fn a_missing_bucket_and_an_unreachable_endpoint_keep_the_outputs_and_say_how_to_finish() {
    let Some(s3) = S3Server::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let o = s3.run(dir.path(), &s3.url, &["--out", "s3://nowhere/2026-09"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("the bucket nowhere does not exist") && err.contains("--resume"), "{err}");
    no_secret_in(&o, dir.path());
    // Once the bucket exists, --resume finishes it without fetching again.
    s3.python("s3.create_bucket(Bucket='nowhere')");
    let o = s3.run(dir.path(), &s3.url, &["--out", "s3://nowhere/2026-09", "--resume"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("0 requests"));
    s3.python("s3.head_object(Bucket='nowhere', Key='2026-09/manifest.json')");

    let closed = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let o = s3.run(dir.path(), &format!("http://127.0.0.1:{closed}"), &["--out", "s3://nowhere/2026-10"]);
    assert_eq!(o.status.code(), Some(6), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(dir.path().join(".fiscal-report-work/nowhere/2026-10/manifest.json").is_file());
    no_secret_in(&o, dir.path());
}

/// A wrong secret: the bucket refuses, the run exits 2 naming the bucket and the variables to
/// check, and the secret is in no output and no file. The server checks signatures here
/// (moto's auth mode, after the requests that create the bucket and the user).
#[test]
fn a_wrong_secret_is_refused_without_being_shown() {
    // The first 4 requests (bucket, user, key, policy) go unchecked; every later one is.
    let Some(s3) = S3Server::start_with(&[("INITIAL_NO_AUTH_ACTION_COUNT", "4")]) else { return };
    let key_id = s3.python(
        "iam = boto3.client('iam', endpoint_url=s3.meta.endpoint_url, aws_access_key_id='testing', \
         aws_secret_access_key='testing', region_name='us-east-1')\n\
         s3.create_bucket(Bucket='locked')\n\
         iam.create_user(UserName='job')\n\
         k = iam.create_access_key(UserName='job')['AccessKey']\n\
         iam.put_user_policy(UserName='job', PolicyName='all', PolicyDocument=json.dumps({'Version': '2012-10-17', \
         'Statement': [{'Effect': 'Allow', 'Action': 's3:*', 'Resource': '*'}]}))\n\
         print(k['AccessKeyId'])",
    );
    let dir = tempfile::tempdir().unwrap();
    let key = [("AWS_ACCESS_KEY_ID", key_id.trim())];
    let o = s3.run_with(dir.path(), &s3.url, &["--out", "s3://locked/2026-09"], &key);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the bucket locked refused the request") && err.contains("AWS_SECRET_ACCESS_KEY"),
        "{err}"
    );
    no_secret_in(&o, dir.path());
}

/// An object changed in the bucket after its run wrote it: `report --from` the prefix exits 2
/// naming the object and what differs, writes nothing, and leaves no downloaded copy behind.
#[test]
fn a_bucket_object_that_differs_from_its_manifest_is_refused_naming_it() {
    let Some(s3) = S3Server::start() else { return };
    s3.python("s3.create_bucket(Bucket='runs')");
    let dir = tempfile::tempdir().unwrap();
    let o = s3.run(dir.path(), &s3.url, &["--out", "s3://runs/2026-09"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Someone rewrites one raw table in place: same key, other bytes.
    s3.python("s3.put_object(Bucket='runs', Key='2026-09/empresas/part-0.parquet', Body=b'not the run')");
    let o = s3
        .command(dir.path(), &s3.url)
        .args(["--quiet", "report", "--from", "s3://runs/2026-09"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("empresas/part-0.parquet") && err.contains("does not match its manifest"),
        "the message names the object: {err}"
    );
    assert!(!err.contains("bug in fiscal-report"), "{err}");
    no_secret_in(&o, dir.path());
    let copies = dir.path().join(".fiscal-report-work");
    let left: Vec<_> =
        walkdir(&copies).into_iter().filter(|p| p.extension().is_some_and(|e| e == "parquet")).collect();
    assert!(left.is_empty(), "the downloaded copy is removed: {left:?}");
}

/// Every file below `dir`.
pub(super) fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                pending.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out
}
