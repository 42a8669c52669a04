//! The stages after the fetch fail with their documented exit code and name their cause: a
//! broken template, a query that does not run, a query header no reader understands, and a disk
//! that fills up while the aggregates and the report are written. None of them is reported as a
//! bug, and each message names the file at fault.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use crate::common_bin::*;
use fiscal_report::simulator::{Dataset, RegistryConfig};

/// A small finished run, shared read-only; each test works on its own copy.
fn finished_run() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, 0.05);
        let cnpjs: Vec<String> = d.demo_portfolio(5).iter().map(|c| c.to_string()).collect();
        demo_run_into(&dir, &cnpjs, &["--demo-scale", "0.05", "--ano-mes", "202608:202609", "--uf", "SP,AC"])
    })
}

fn report_from(run: &Path, extra: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let out: Output = bin().args(["report", "--from"]).arg(run).args(extra).output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn copy_of_run(into: &Path) -> PathBuf {
    let run = into.join("run");
    copy_dir(finished_run(), &run);
    run
}

/// The project's queries plus one more file `name` holding `sql`, in `into/queries`.
fn queries_plus(into: &Path, name: &str, sql: &str) -> PathBuf {
    let queries = into.join("queries");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("queries"), &queries);
    std::fs::write(queries.join(name), sql).unwrap();
    queries
}

/// `report --from run FLAG value` exits 2, names each of `names` and is not called a bug.
fn refused_naming(run: &Path, flag: &str, value: &Path, names: &[&str]) {
    let (code, err) = report_from(run, &[flag.as_ref(), value.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    for name in names {
        assert!(err.contains(name), "{err}");
    }
    assert_not_a_bug(&err);
}

fn assert_not_a_bug(err: &str) {
    assert!(!err.contains("bug in fiscal-report"), "reported as a bug: {err}");
}

#[test]
fn a_broken_template_exits_2_naming_the_template() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_of_run(dir.path());
    let tpl = dir.path().join("templates");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("templates"), &tpl);
    std::fs::write(tpl.join("report.html.hbs"), "<h1>{{#if headline}}</h1>\n").unwrap();
    refused_naming(&run, "--templates", &tpl, &["report.html.hbs", "does not compile"]);
}

#[test]
fn a_failing_query_exits_2_naming_the_query_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_of_run(dir.path());
    let queries = queries_plus(
        dir.path(),
        "99_coluna_inexistente.sql",
        "-- title: Uma coluna que não existe\nSELECT coluna_que_nao_existe FROM creditos_ativos\n",
    );
    refused_naming(&run, "--queries", &queries, &["99_coluna_inexistente.sql", "failed"]);
}

/// Every line on stderr parsed as a JSON object, or the line that is not one.
fn json_lines(stderr: &str) -> Vec<serde_json::Value> {
    let parse =
        |l: &str| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l}\n{stderr}"));
    stderr.lines().filter(|l| !l.trim().is_empty()).map(parse).collect()
}

#[test]
fn under_json_logs_a_command_line_that_cannot_be_read_is_a_json_line_too() {
    let out = bin().args(["--log-format", "json", "run", "--no-such-flag"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let said = json_lines(&err);
    assert_eq!(said.len(), 1, "{err}");
    assert_eq!((&said[0]["level"], &said[0]["exit_code"]), (&"ERROR".into(), &2.into()), "{err}");
    assert!(said[0]["message"].as_str().unwrap().contains("--no-such-flag"), "{err}");
    // Without it, clap's own text, and help is help.
    let out = bin().args(["run", "--no-such-flag"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error:"));
    let out = bin().args(["--log-format", "json", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage"));
}

#[test]
fn under_json_logs_the_summary_and_the_final_error_are_json_lines_too() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_of_run(dir.path());
    let json: &[&std::ffi::OsStr] = &["--log-format".as_ref(), "json".as_ref()];
    let (code, err) = report_from(&run, json);
    assert_eq!(code, Some(0), "{err}");
    let said = json_lines(&err);
    assert!(
        said.iter().any(|l| l["message"].as_str().is_some_and(|m| m.starts_with("re-rendered"))),
        "{err}"
    );

    let queries =
        queries_plus(dir.path(), "99_falha.sql", "-- title: Falha\nSELECT nada FROM creditos_ativos\n");
    let (code, err) = report_from(&run, &[json, &["--queries".as_ref(), queries.as_os_str()]].concat());
    assert_eq!(code, Some(2), "{err}");
    let last = json_lines(&err).pop().unwrap();
    assert_eq!(last["level"], "ERROR", "{err}");
    assert_eq!(last["exit_code"], 2, "{err}");
    assert!(last["message"].as_str().unwrap().contains("99_falha.sql"), "{err}");
}

#[test]
fn an_unknown_report_placement_in_a_query_header_exits_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_of_run(dir.path());
    let queries =
        queries_plus(dir.path(), "99_extra.sql", "-- title: Extra\n-- report: sidebar\nSELECT 1 AS um\n");
    refused_naming(&run, "--queries", &queries, &["99_extra.sql", "`-- report: sidebar`"]);
}

#[test]
fn a_full_disk_while_writing_the_outputs_exits_2_naming_the_file_and_the_disk_error() {
    let dir = tempfile::tempdir().unwrap();
    let disk = dir.path().join("disk");
    let Some(_disk) = SmallDisk::mount(&disk, "8m") else {
        skip("a small tmpfs (mount needs root; CI runs as root)");
        return;
    };
    let run = copy_of_run(&disk);
    // Fill what is left of the disk, so the first new file the outputs need cannot be written.
    let filler = disk.join("filler");
    let mut f = std::fs::File::create(&filler).unwrap();
    let block = vec![0u8; 64 * 1024];
    while std::io::Write::write_all(&mut f, &block).is_ok() {}
    drop(f);
    let (code, err) = report_from(&run, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(err.contains(&run.display().to_string()), "the message names no file of the run: {err}");
    assert_not_a_bug(&err);
    // With room again, the same command completes: nothing the run holds was lost.
    std::fs::remove_file(&filler).unwrap();
    let (code, err) = report_from(&run, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(run.join("report.html").is_file());
}

#[test]
fn a_raw_table_cut_short_exits_2_naming_it_and_leaves_the_run_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_of_run(dir.path());
    let part = run.join("empresas/part-0.parquet");
    let bytes = std::fs::read(&part).unwrap();
    std::fs::write(&part, &bytes[..bytes.len() / 2]).unwrap();
    let report = std::fs::read(run.join("report.md")).unwrap();
    let (code, err) = report_from(&run, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("empresas/part-0.parquet") && err.contains("not as the run wrote it"), "{err}");
    assert_not_a_bug(&err);
    assert_eq!(std::fs::read(run.join("report.md")).unwrap(), report, "the run's report was rewritten");
}

#[test]
fn a_code_tables_folder_that_cannot_be_used_exits_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_of_run(dir.path());
    let missing = dir.path().join("no-such-codes");
    refused_naming(&run, "--codes", &missing, &["no-such-codes"]);
    let codes = dir.path().join("codes");
    std::fs::create_dir(&codes).unwrap();
    std::fs::write(codes.join("porte_empresa.csv"), "code;name\n01;MICRO\n").unwrap();
    refused_naming(&run, "--codes", &codes, &["porte_empresa.csv", "line 1"]);
}

/// Every error type that says its exit status is one the renderer asks: an error left out of
/// `commands/error.rs` would exit 70 as a bug whatever its own method says.
#[test]
fn every_error_that_knows_its_exit_status_is_asked_by_the_renderer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let renderer = std::fs::read_to_string(src.join("commands/error.rs")).unwrap();
    let listed = &renderer[renderer.find("first_typed!(").expect("the list of typed errors")..];
    let listed = &listed[..listed.find(");").unwrap()];
    let mut checked = 0;
    for path in files_below(&src) {
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines().filter(|l| l.contains("HasExitStatus for ")) {
            let name = line.split("HasExitStatus for ").nth(1).unwrap().trim_end_matches(" {").trim();
            if name == "std::io::Error" {
                continue; // the renderer asks I/O errors itself, by kind
            }
            checked += 1;
            assert!(
                listed.split(|c: char| !c.is_alphanumeric()).any(|w| w == name),
                "{name} ({}) implements HasExitStatus but commands/error.rs does not ask it",
                path.display()
            );
        }
    }
    assert!(checked >= 10, "only {checked} error types found");
}

#[test]
fn a_bug_exits_70_asking_for_an_issue_in_text_and_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let panic = ("FISCAL_REPORT_TEST_PANIC", "1");
    let o = bin().args(["--quiet", "run", "--out"]).arg(&out).env(panic.0, panic.1).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(70), "{err}");
    assert!(err.contains("internal error") && err.contains("This is a bug in fiscal-report"), "{err}");
    assert!(!out.join("report.html").exists(), "a bug writes no report");

    let o = bin()
        .args(["--log-format", "json", "run", "--out"])
        .arg(&out)
        .env(panic.0, panic.1)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(70), "{err}");
    let said = json_lines(&err);
    assert!(
        said.iter().any(|l| l["level"] == "ERROR"
            && l["message"].as_str().is_some_and(|m| m.contains("This is a bug in fiscal-report"))),
        "{err}"
    );
}

/// Each file the manifest of `run` lists, with its size and sha256 as on disk.
fn manifest_matches_disk(run: &Path) -> Result<(), String> {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.join("manifest.json")).unwrap()).unwrap();
    for f in m["files"].as_array().unwrap() {
        let path = run.join(f["path"].as_str().unwrap());
        let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let sha = {
            use sha2::Digest;
            hex::encode(sha2::Sha256::digest(&bytes))
        };
        if Some(bytes.len() as u64) != f["bytes"].as_u64() || Some(sha.as_str()) != f["sha256"].as_str() {
            return Err(format!("{} differs from its manifest entry", path.display()));
        }
    }
    Ok(())
}

#[test]
fn a_re_render_killed_midway_is_completed_by_the_next_and_the_manifest_matches_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let run = copy_of_run(dir.path());
    let before = std::fs::read_to_string(run.join("report.md")).unwrap();
    // Killed (SIGKILL) once its aggregates are written and before its report and manifest are.
    let mut c = bin();
    c.args(["-v", "report", "--from"]).arg(&run).stdout(std::process::Stdio::null());
    kill_when_stderr_says(c.stderr(std::process::Stdio::piped()).spawn().unwrap(), "export: done");
    let (code, err) = report_from(&run, &[]);
    assert_eq!(code, Some(0), "the next re-render: {err}");
    manifest_matches_disk(&run).unwrap();
    let figures = |md: &str| -> Vec<String> {
        md.lines().filter(|l| !l.contains("UTC") && !l.contains("Execução")).map(str::to_string).collect()
    };
    let after = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert_eq!(figures(&after), figures(&before), "the same report as the run's");
}
