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

#[test]
fn typed_copies_equal_typing_from_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let with = dir.path().join("with");
    let o = bin()
        .args(["--quiet", "fetch", "--demo-scale", "0.05", "--ano-mes", "202607:202609", "--out"])
        .arg(&with)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
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
