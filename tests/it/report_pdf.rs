//! report.pdf: printed by the headless browser with `--pdf`, checked the way a reader sees it
//! (poppler's pdfinfo, pdftoppm and pdftotext); and without a browser, every other output is
//! written and the exit code is 11 with one line that says what to do.

use std::path::Path;
use std::process::Command;
use std::str::FromStr;

use crate::common_bin::*;
use fiscal_report::export::manifest::Manifest;
use fiscal_report::report::Locale;
use fiscal_report::report::format::money;
use polars::prelude::*;
use rust_decimal::Decimal;

fn tool(name: &str) -> bool {
    let ok = Command::new(name).arg("-v").output().is_ok();
    if !ok {
        skip(&format!("{name} (.ci/run installs the Debian package poppler-utils)"));
    }
    ok
}

fn browser_on_path() -> bool {
    let ok = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].iter().any(|p| Path::new(p).exists());
    if !ok {
        skip("chromium (.ci/run installs the Debian package `chromium`)");
    }
    ok
}

/// A copy of the shared finished run, to render again without touching the original.
fn copy_of_run(dir: &Path) -> std::path::PathBuf {
    let copy = dir.join("out");
    copy_dir(&crate::aggregates_truth::run().out, &copy);
    copy
}

fn text_of(pdf: &Path, first: usize, last: usize) -> String {
    let o = Command::new("pdftotext")
        .args(["-layout", "-f", &first.to_string(), "-l", &last.to_string()])
        .arg(pdf)
        .arg("-")
        .output()
        .unwrap();
    assert!(o.status.success());
    String::from_utf8_lossy(&o.stdout).to_string()
}

#[test]
fn the_pdf_has_a_title_page_numbered_pages_and_the_headline_figures() {
    if !tool("pdftoppm") || !browser_on_path() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = copy_of_run(dir.path());
    let o = bin().args(["--quiet", "report", "--pdf", "--from"]).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let pdf = out.join("report.pdf");
    let m = Manifest::read(&out).unwrap();
    let entry = m.files.iter().find(|f| f.path == "report.pdf").expect("the manifest lists report.pdf");
    assert_eq!(entry.bytes, std::fs::metadata(&pdf).unwrap().len());

    // The page count pdfinfo reads equals the page images pdftoppm makes.
    let info = Command::new("pdfinfo").arg(&pdf).output().unwrap();
    let info = String::from_utf8_lossy(&info.stdout);
    let pages: usize = info
        .lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .map(|n| n.trim().parse().unwrap())
        .expect("pdfinfo gives a page count");
    assert!(info.contains("(A4)"), "A4 pages: {info}");
    let images = dir.path().join("pages");
    std::fs::create_dir_all(&images).unwrap();
    let o =
        Command::new("pdftoppm").args(["-r", "30", "-png"]).arg(&pdf).arg(images.join("p")).output().unwrap();
    assert!(o.status.success());
    assert_eq!(std::fs::read_dir(&images).unwrap().count(), pages);
    assert!(pages >= 5, "{pages} pages");

    // The title page holds the title and the month and nothing of the body.
    let cover = text_of(&pdf, 1, 1);
    assert!(cover.contains("Créditos tributários ativos"), "{cover}");
    assert!(cover.contains("set/2026"), "{cover}");
    assert!(!cover.contains("Destaques do mês"), "the title page is a page of its own: {cover}");

    // The headline figures as the HTML shows them: the last month's national total.
    let monthly = ParquetReader::new(
        std::fs::File::open(out.join("aggregates/creditos_total_mensal.parquet")).unwrap(),
    )
    .finish()
    .unwrap();
    let last = monthly.height() - 1;
    let total = monthly.column("valor_total").unwrap().cast(&DataType::String).unwrap();
    let total = Decimal::from_str(total.str().unwrap().get(last).unwrap()).unwrap();
    let body = text_of(&pdf, 2, 2);
    assert!(body.contains("Destaques do mês"), "{body}");
    assert!(
        body.contains(&money(total, Locale::PtBr)),
        "{} not on page 2:\n{body}",
        money(total, Locale::PtBr)
    );
    // Numbered pages: page 2 says so, and the title page does not.
    assert!(body.contains(&format!("2 / {pages}")), "no page number on page 2:\n{body}");
    assert!(!cover.contains(&format!("1 / {pages}")), "{cover}");
}

#[test]
fn without_a_browser_everything_else_is_written_and_the_exit_code_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = copy_of_run(dir.path());
    std::fs::remove_file(out.join("report.xlsx")).unwrap();
    // A PDF of an earlier render would show old figures beside the new ones: it must go.
    std::fs::write(out.join("report.pdf"), b"%PDF- old figures").unwrap();
    let empty_path = dir.path().join("bin");
    std::fs::create_dir_all(&empty_path).unwrap();
    let o = bin()
        .args(["--quiet", "report", "--pdf", "--from"])
        .arg(&out)
        .env("PATH", &empty_path)
        .env_remove("FISCAL_REPORT_BROWSER")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(11), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    let said: Vec<&str> = stderr.lines().filter(|l| l.contains("report.pdf")).collect();
    assert_eq!(said.len(), 1, "one line about the PDF: {stderr}");
    assert!(said[0].contains("chromium") && said[0].contains("--browser"), "{stderr}");
    assert!(!out.join("report.pdf").exists());
    assert!(out.join("report.xlsx").exists() && out.join("report.html").exists());
    let m = Manifest::read(&out).unwrap();
    assert!(m.files.iter().any(|f| f.path == "report.xlsx"));
    assert!(!m.files.iter().any(|f| f.path == "report.pdf"));

    // A browser that writes half a file and fails: the same exit code, its name in the line,
    // and nothing half-printed left behind.
    let broken = dir.path().join("broken-browser");
    std::fs::write(
        &broken,
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --print-to-pdf=*) echo '%PDF- half' > \"${a#--print-to-pdf=}\";; esac; done\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&broken, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let o = bin()
        .args(["--quiet", "report", "--pdf", "--browser"])
        .arg(&broken)
        .arg("--from")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(11));
    assert!(String::from_utf8_lossy(&o.stderr).contains("broken-browser failed"));
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.contains("report.pdf"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// How far down each page its text reaches, as a share of the page's height (the page-number
/// footer, in the bottom margin, left out), from the words' boxes `pdftotext -bbox` gives.
fn page_fill(pdf: &Path) -> Vec<f64> {
    let o = Command::new("pdftotext").arg("-bbox").arg(pdf).arg("-").output().unwrap();
    assert!(o.status.success());
    let html = String::from_utf8_lossy(&o.stdout).to_string();
    let attr = |tag: &str, name: &str| -> f64 {
        let at = tag.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        tag[at..].split('"').next().unwrap().parse().unwrap()
    };
    html.split("<page ")
        .skip(1)
        .map(|page| {
            let height = attr(page, "height");
            page.split("<word ")
                .skip(1)
                .filter(|w| attr(w, "yMin") < 0.94 * height)
                .map(|w| attr(w, "yMax") / height)
                .fold(0.0, f64::max)
        })
        .collect()
}

/// The demo's PDF flows: sections follow each other, so no page but the title page and the
/// last is less than half full (a section on a page of its own left pages a sentence long).
#[test]
fn the_demo_pdf_has_no_page_but_the_last_less_than_half_full() {
    if !tool("pdftotext") || !browser_on_path() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o =
        bin().current_dir(dir.path()).args(["--quiet", "run", "--pdf", "--out"]).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let fill = page_fill(&out.join("report.pdf"));
    assert!(fill.len() >= 5, "{} pages", fill.len());
    let sparse: Vec<String> = fill[1..fill.len() - 1]
        .iter()
        .enumerate()
        .filter(|(_, f)| **f < 0.5)
        .map(|(i, f)| format!("page {} filled to {:.0}%", i + 2, f * 100.0))
        .collect();
    assert!(sparse.is_empty(), "{} pages: {}", fill.len(), sparse.join(", "));
}
