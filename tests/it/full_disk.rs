//! A disk that fills up mid-fetch: a clear message naming the file and what to do, the bad-input
//! exit code, and nothing committed lost: after making room, --resume completes the fetch with
//! exactly the ground truth's records. Needs a small tmpfs (root); skipped otherwise, failed under CI.

use crate::common_bin;
use crate::common_fetch;

use std::process::Command;

use common_bin::*;
use common_fetch::*;
use fiscal_report::api::{AnoMes, UFS};
use fiscal_report::simulator::Dataset;

#[test]
fn a_full_disk_stops_cleanly_and_resume_completes() {
    let dir = tempfile::tempdir().unwrap();
    let disk = dir.path().join("disk");
    let Some(_disk) = SmallDisk::mount(&disk, "128k") else {
        skip("a small tmpfs (mount needs root; CI runs as root)");
        return;
    };
    let srv = ServeProcess::start("k", 3, 0.5, &[]);
    let out = disk.join("out");
    let fetch = |extra: &[&str]| {
        let mut c = bin();
        c.args([
            "--quiet",
            "fetch",
            "--base-url",
            &srv.base_url,
            "--uf",
            "all",
            "--ano-mes",
            "202601:202609",
            "--out",
        ])
        .arg(&out)
        .args(extra)
        .env("REGISTRY_API_KEY", "k");
        c.output().unwrap()
    };
    let o = fetch(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("No space left on device") && err.contains("--resume"), "{err}");
    assert!(!err.contains("bug in fiscal-report"), "{err}");
    // Make room, then continue.
    let grown = Command::new("mount").args(["-o", "remount,size=64m"]).arg(&disk).status().unwrap();
    assert!(grown.success());
    let o = fetch(&["--resume"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = Dataset::generate(3, 0.5);
    let months: Vec<AnoMes> =
        (0..9).map(|k| AnoMes::parse("202601").unwrap().plus_months(k).unwrap()).collect();
    assert_same_records(&staged_rows(&out), &expected_rows(&d, &UFS, &months, &[]));
}
