//! Records typed while the fetch goes on (`.staging/typed/`) are the records typed after it:
//! a fetch leaves a typed copy of every segment its journal names, and the outputs made from a
//! staging with those copies equal, table for table, the outputs made from the same staging
//! without them (every segment typed from its text).

use std::path::Path;

use crate::common_bin::*;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// A demo fetch of three months at a twentieth of the scale into `out`.
fn small_fetch(out: &Path) {
    let o = bin()
        .args(["--quiet", "fetch", "--demo-scale", "0.05", "--ano-mes", "202607:202609", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn typed_copies_equal_typing_from_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let with = dir.path().join("with");
    small_fetch(&with);
    let journal = std::fs::read_to_string(with.join(".staging/journal.jsonl")).unwrap();
    let mut segments = 0;
    for e in std::fs::read_dir(with.join(".staging")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if let Some(stem) = name.strip_suffix(".parquet") {
            assert!(journal.contains(&name), "{name} is not a committed segment");
            assert!(
                with.join(".staging/typed").join(format!("{stem}.json")).is_file(),
                "{name} was not typed"
            );
            segments += 1;
        }
    }
    assert!(segments >= 6, "{segments} segments");

    let without = dir.path().join("without");
    copy_dir(&with, &without);
    std::fs::remove_dir_all(without.join(".staging/typed")).unwrap();
    for d in [&with, &without] {
        let o = bin().args(["--quiet", "report", "--from"]).arg(d).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    // Every aggregate (data_quality.parquet among them) and every raw table.
    crate::merge_shards::assert_same_outputs(&with, &without);
}

/// Scratch directories a killed process left (spills beside the exported tables, respelled
/// copies beside the typed segments) are removed by the next process that has the run
/// directory to itself, `report --from` or a `--resume`, and left alone while another process
/// holds it.
#[test]
fn scratch_left_by_a_killed_process_goes_when_the_directory_is_free() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let fetch = |extra: &[&str]| {
        let o = bin()
            .args(["--quiet", "fetch", "--demo-scale", "0.05", "--ano-mes", "202608:202609", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    fetch(&[]);
    let left = [
        out.join(".scratch-spill-creditos_ativos-7-1a2b-0"),
        out.join(".staging/typed/.scratch-respelled-creditos_ativos-7-1a2b-1"),
    ];
    let leave = || {
        for d in &left {
            std::fs::create_dir_all(d).unwrap();
            std::fs::write(d.join("000000.parquet"), b"half a spill").unwrap();
        }
    };
    let report = || {
        let o = bin().args(["--quiet", "report", "--from"]).arg(&out).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    };
    leave();
    let reader = std::fs::File::open(out.join(".staging/lock")).unwrap();
    reader.lock_shared().unwrap();
    report();
    assert!(left.iter().all(|d| d.is_dir()), "another reader holds the directory: its scratch may be in use");
    drop(reader);
    report();
    assert!(left.iter().all(|d| !d.exists()), "nobody else holds it: the scratch is removed");
    leave();
    fetch(&["--resume"]);
    assert!(left.iter().all(|d| !d.exists()), "a --resume holds the directory alone");
}

/// A small run holds its tables in memory after the fetch; a large one keeps credits and debts
/// on disk (`FISCAL_REPORT_HELD_ROWS=0` makes a small run do the same): both give the same
/// aggregates and raw tables.
#[test]
fn tables_held_in_memory_or_kept_on_disk_give_the_same_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let held = dir.path().join("held");
    small_fetch(&held);
    let on_disk = dir.path().join("on-disk");
    copy_dir(&held, &on_disk);
    for (d, rows) in [(&held, None), (&on_disk, Some("0"))] {
        let mut cmd = bin();
        cmd.env("RUST_LOG", "fiscal_report=debug").args(["report", "--from"]).arg(d);
        if let Some(rows) = rows {
            cmd.env("FISCAL_REPORT_HELD_ROWS", rows);
        }
        let o = cmd.output().unwrap();
        let log = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{log}");
        assert_eq!(log.contains("tables on disk held in memory"), rows.is_none(), "{log}");
    }
    crate::merge_shards::assert_same_outputs(&held, &on_disk);
}

/// `run` types the credits and runs the queries that read only them while the companies are
/// still fetched (the plan fetches the credits first): every such query ran then, and the
/// outputs equal those of the same run typing and querying everything after the fetch (with
/// credits and debts kept on disk, which the test above shows gives what holding them does).
#[test]
fn the_credits_begun_during_the_fetch_give_what_they_give_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let said = "queries run while the fetch went on";
    let run = |out: &Path, held_rows: Option<&str>| {
        let mut cmd = bin();
        cmd.env("RUST_LOG", "fiscal_report=debug")
            .args(["run", "--demo-scale", "0.05", "--ano-mes", "202607:202609", "--dossies", "0", "--out"])
            .arg(out);
        if let Some(rows) = held_rows {
            cmd.env("FISCAL_REPORT_HELD_ROWS", rows);
        }
        let o = cmd.output().unwrap();
        let log = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(o.status.success(), "{log}");
        let taken = log.lines().find(|l| l.contains("results taken from the credits' early work"));
        let begun = log.lines().find(|l| l.contains("the credits' files begun"));
        log.lines()
            .find(|l| l.contains(said))
            .map(|l| format!("{l} / {} / {}", taken.unwrap_or_default(), begun.unwrap_or_default()))
    };
    let (during, after) = (dir.path().join("during"), dir.path().join("after"));
    let early = credit_only_queries();
    assert!(early >= 13, "the built-in credit queries: {early}");
    let line = run(&during, None).expect("the credits' work began during the fetch");
    assert!(line.contains(&format!("and {early} queries")), "ran early: {line}");
    assert!(line.contains(&format!("DEBUG {early} queries' results taken")), "taken: {line}");
    assert!(line.contains("files begun"), "the credits' files were begun during the fetch: {line}");
    assert_eq!(run(&after, Some("0")), None, "kept on disk, nothing begins early");
    crate::merge_shards::assert_same_outputs(&during, &after);
    assert_credit_files_finished(&during);
}

/// Every credits file the manifest lists is on disk as listed (size and sha256, computed here),
/// with the run's sources in its footer as the manifest records them (written once the fetch
/// had ended), and no scratch folder is left beside the table.
fn assert_credit_files_finished(out: &Path) {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use sha2::Digest;
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).unwrap()).unwrap();
    let fontes = &manifest["fetch"]["fontes"];
    assert!(fontes.as_object().is_some_and(|f| f.len() >= 3), "{fontes}");
    let mut checked = 0;
    for f in manifest["files"].as_array().unwrap() {
        let path = f["path"].as_str().unwrap();
        if !path.starts_with("creditos_ativos/") {
            continue;
        }
        let bytes = std::fs::read(out.join(path)).unwrap();
        assert_eq!(bytes.len() as u64, f["bytes"].as_u64().unwrap(), "{path}");
        assert_eq!(hex::encode(sha2::Sha256::digest(&bytes)), f["sha256"].as_str().unwrap(), "{path}");
        let reader = SerializedFileReader::new(bytes::Bytes::from(bytes)).unwrap();
        let kv = reader.metadata().file_metadata().key_value_metadata().cloned().unwrap_or_default();
        let footer = kv.iter().find(|p| p.key == "fiscal_report.fontes").and_then(|p| p.value.clone());
        let footer: serde_json::Value = serde_json::from_str(&footer.expect("fontes in the footer")).unwrap();
        assert_eq!(&footer, fontes, "{path}");
        checked += 1;
    }
    assert_eq!(checked, 3, "one file a month");
    let scratch: Vec<_> = std::fs::read_dir(out)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".begun-"))
        .collect();
    assert!(scratch.is_empty(), "{scratch:?}");
}

/// The built-in query files whose FROM and JOIN read only the credits and the file's own
/// common table expressions: read off the SQL, not through the code that chooses them.
fn credit_only_queries() -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("queries");
    let mut count = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().extension().is_none_or(|x| x != "sql") {
            continue;
        }
        let sql: String = std::fs::read_to_string(e.path())
            .unwrap()
            .lines()
            .map(|l| l.split("--").next().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        let words: Vec<&str> =
            sql.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        let ctes: Vec<&str> =
            words.windows(2).filter(|w| w[1].eq_ignore_ascii_case("AS")).map(|w| w[0]).collect();
        let reads: Vec<&str> = words
            .windows(2)
            .filter(|w| w[0].eq_ignore_ascii_case("FROM") || w[0].eq_ignore_ascii_case("JOIN"))
            .map(|w| w[1])
            .collect();
        if reads.iter().all(|r| *r == "creditos_ativos" || ctes.contains(r)) {
            count += 1;
        }
    }
    count
}
