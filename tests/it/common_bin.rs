// Helpers for tests that drive the real binary (a module of the one integration-test binary).
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The binary under test: cargo's build, or `FISCAL_REPORT_BIN` when set. Two worktrees
/// sharing one target directory overwrite each other's `target/debug/fiscal-report`; a copy
/// taken right after the build keeps a test run on its own code.
pub(crate) fn bin() -> Command {
    let path =
        std::env::var_os("FISCAL_REPORT_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_fiscal-report").into());
    let mut c = Command::new(path);
    c.env_remove("REGISTRY_API_KEY").env_remove("RUST_LOG");
    c
}

/// A `fiscal-report serve` child on a free loopback port; killed on drop.
pub(crate) struct ServeProcess {
    pub child: Child,
    pub base_url: String,
}

impl ServeProcess {
    pub(crate) fn start(key: &str, seed: u64, scale: f64, extra: &[&str]) -> Self {
        let mut child = bin()
            .args([
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--seed",
                &seed.to_string(),
                "--scale",
                &scale.to_string(),
            ])
            .args(extra)
            .env("REGISTRY_API_KEY", key)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("read address");
        let base_url = line.trim().strip_prefix("listening on ").expect("address line").to_string();
        Self { child, base_url }
    }
}

impl Drop for ServeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// SIGKILLs `child` (a fetch or run writing to `out`) once its first staging commit is
/// durable: far from done, with something to resume.
pub(crate) fn kill_after_first_staging_commit(mut child: Child, out: &std::path::Path) {
    wait_for_first_staging_commit(&mut child, out);
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
}

/// Returns once `child` (a fetch or run writing to `out`) has made its first staging commit
/// durable, still running.
pub(crate) fn wait_for_first_staging_commit(child: &mut Child, out: &std::path::Path) {
    let journal = out.join(".staging/journal.jsonl");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_to_string(&journal).map(|t| t.lines().count()).unwrap_or(0) < 1 {
        assert!(std::time::Instant::now() < deadline, "no staging commit within a minute");
        assert!(child.try_wait().unwrap().is_none(), "the fetch finished before it could be stopped");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// SIGKILLs `child`, whose stderr is piped, once a line of it contains `text` (a stage's log
/// line at `-v`): a kill at a chosen point after the fetch.
pub(crate) fn kill_when_stderr_says(mut child: Child, text: &str) {
    let stderr = child.stderr.take().expect("stderr piped");
    let mut lines = BufReader::new(stderr).lines();
    assert!(lines.by_ref().map_while(Result::ok).any(|l| l.contains(text)), "the run never said {text:?}");
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Sends `signal` (`TERM`, `INT`) to `child`, whose stderr is piped, once a line of it contains
/// `text`; then waits for it and returns its exit code and its whole stderr.
pub(crate) fn signal_when_stderr_says(child: Child, text: &str, signal: &str) -> (Option<i32>, String) {
    signal_at_each(child, &[(text, signal)])
}

/// `signal_when_stderr_says` for each (text, signal) of `steps` in turn: each signal once its
/// text is read, after the one before.
pub(crate) fn signal_at_each(mut child: Child, steps: &[(&str, &str)]) -> (Option<i32>, String) {
    let stderr = child.stderr.take().expect("stderr piped");
    let mut lines = BufReader::new(stderr).lines().map_while(Result::ok);
    let mut said = Vec::new();
    for (text, signal) in steps {
        let seen = lines.by_ref().any(|line| {
            let seen = line.contains(text);
            said.push(line);
            seen
        });
        assert!(seen, "the run never said {text:?}: {}", said.join("\n"));
        let pid = child.id().to_string();
        let sent = std::process::Command::new("kill").args(["-s", signal, &pid]).status().unwrap();
        assert!(sent.success(), "kill -s {signal}");
    }
    said.extend(lines);
    (child.wait().unwrap().code(), said.join("\n"))
}

/// Every file below `dir`, recursively.
pub(crate) fn files_below(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() { stack.push(p) } else { out.push(p) }
        }
    }
    out
}

/// The file each skipped test adds a line to; `.ci/run` counts its lines after the tests.
pub(crate) const SKIP_LOG: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/skipped-tests.txt");

/// A test that cannot run here for want of what `missing` names. Under CI, which installs
/// every tool the tests need (`.ci/run`), that fails the test: a skip would hide a regression.
/// Elsewhere it says SKIPPED and adds a line to `SKIP_LOG`, as `cargo test` shows nothing of a
/// passing test's output.
pub(crate) fn skip(missing: &str) {
    assert!(std::env::var_os("CI").is_none(), "CI must have it: {missing}");
    eprintln!("SKIPPED: {missing}");
    let thread = std::thread::current();
    let line = format!("{}: {missing}\n", thread.name().unwrap_or("a test"));
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(SKIP_LOG)
        .and_then(|mut f| std::io::Write::write_all(&mut f, line.as_bytes()));
    if let Err(e) = appended {
        eprintln!("(the skip could not be logged to {SKIP_LOG}: {e})");
    }
}

/// True when `python3` can import `modules`; else the test skips (`skip`).
pub(crate) fn python_with(modules: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        skip(&format!("python3 with {modules} (pip install -r tests/requirements.txt)"));
    }
    ok
}

/// A plain HTTP client (no key header), for requests our client would not send.
pub(crate) fn plain_http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// Runs `fiscal-report run` on the embedded registry with the portfolio `cnpjs` and `args`
/// (months, states, scale) into `dir/out`, and returns that directory.
pub(crate) fn demo_run_into(dir: &std::path::Path, cnpjs: &[String], args: &[&str]) -> std::path::PathBuf {
    std::fs::write(dir.join("carteira.txt"), cnpjs.join("\n")).unwrap();
    let out = bin()
        .args(["--quiet", "run"])
        .args(args)
        .arg("--cnpjs")
        .arg(dir.join("carteira.txt"))
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    dir.join("out")
}

/// A copy of the directory tree `from` at `to`.
pub(crate) fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if src.is_dir() { copy_dir(&src, &dst) } else { std::fs::copy(&src, &dst).map(drop).unwrap() }
    }
}

/// A small tmpfs mounted at `at` (created), unmounted on drop: a disk that can be filled.
pub(crate) struct SmallDisk(pub std::path::PathBuf);

impl SmallDisk {
    /// `None` where mounting is not allowed (it needs root): the caller says SKIPPED.
    pub(crate) fn mount(at: &std::path::Path, size: &str) -> Option<Self> {
        std::fs::create_dir_all(at).ok()?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .output()
            .is_ok_and(|o| o.status.success());
        mounted.then(|| Self(at.to_path_buf()))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}
