//! The rendered report: snapshots of both formats over a small fixed run, Markdown tables that
//! parse as tables, data that cannot break out of either format, and the HTML opened in a real
//! headless browser with no script run and no network request made.

use crate::common_bin;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common_bin::*;
use fiscal_report::analyze::{load_queries, run_queries};
use fiscal_report::export::manifest::Manifest;
use fiscal_report::report::Locale;
use fiscal_report::report::view::build_view;
use fiscal_report::report::{TemplateSet, render_to_strings};
use fiscal_report::simulator::{Dataset, RegistryConfig};

const EVIL: &str = "<script>alert(1)</script> {{x}} | pipe | **bold** [link](http://x)";

/// One small demo run shared by the tests of this file: fixed months, states and portfolio.
fn demo_run() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, 0.05);
        let mut cnpjs: Vec<String> = d.demo_portfolio(12).iter().map(|c| c.to_string()).collect();
        cnpjs.push("99.999.999/0001-91".into());
        demo_run_into(
            &dir,
            &cnpjs,
            &["--demo-scale", "0.05", "--ano-mes", "202606:202609", "--uf", "SP,RJ,MG,AC"],
        )
    })
}

fn volatile_filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r"\d{8}T\d{6}Z-[0-9a-f]{8}", "[run-id]"),
        (r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC", "[generated-at]"),
        (r"em [0-9.,]+ s", "em [seconds] s"),
        (r"fiscal-report \d+\.\d+\.\d+", "fiscal-report [version]"),
    ]
}

#[test]
fn markdown_report_snapshot() {
    let md = std::fs::read_to_string(demo_run().join("report.md")).unwrap();
    insta::with_settings!({ filters => volatile_filters() }, {
        insta::assert_snapshot!("report_md", md);
    });
}

#[test]
fn html_report_snapshot() {
    let html = std::fs::read_to_string(demo_run().join("report.html")).unwrap();
    insta::with_settings!({ filters => volatile_filters() }, {
        insta::assert_snapshot!("report_html", html);
    });
}

/// (columns of the header, columns of each row) for every table in `md`; also whether any raw HTML was seen.
fn gfm_tables(md: &str) -> (Vec<(usize, Vec<usize>)>, bool) {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut tables = Vec::new();
    let mut raw_html = false;
    let mut cells = 0;
    for ev in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match ev {
            Event::Start(Tag::Table(align)) => tables.push((align.len(), Vec::new())),
            Event::Start(Tag::TableHead) | Event::Start(Tag::TableRow) => cells = 0,
            Event::Start(Tag::TableCell) => cells += 1,
            Event::End(TagEnd::TableHead) => {
                let (n, _) = tables.last().unwrap();
                assert_eq!(*n, cells, "header cells vs alignment row");
            }
            Event::End(TagEnd::TableRow) => tables.last_mut().unwrap().1.push(cells),
            Event::Html(_) | Event::InlineHtml(_) => raw_html = true,
            _ => {}
        }
    }
    (tables, raw_html)
}

#[test]
fn every_markdown_table_parses_with_its_columns() {
    let md = std::fs::read_to_string(demo_run().join("report.md")).unwrap();
    let (tables, raw_html) = gfm_tables(&md);
    assert!(tables.len() >= 12, "found {} tables", tables.len());
    for (i, (cols, rows)) in tables.iter().enumerate() {
        assert!(!rows.is_empty(), "table {i} has no rows");
        assert!(rows.iter().all(|r| r == cols), "table {i}: rows {rows:?} vs {cols} columns");
    }
    assert!(!raw_html, "the Markdown report must need no HTML");
}

fn view_with_evil_names() -> fiscal_report::report::view::ReportView {
    let dir = demo_run();
    let frames = fiscal_report::export::tables::frames_from_export(dir).unwrap();
    let queries = load_queries(Some(&Path::new(env!("CARGO_MANIFEST_DIR")).join("queries"))).unwrap();
    let aggs = run_queries(&frames, &queries).unwrap();
    let manifest = Manifest::read(dir).unwrap();
    let mut view = build_view(&frames, &aggs, &manifest, "run", Locale::PtBr);
    let p = view.portfolio.as_mut().unwrap();
    p.top[0].razao_social = Some(EVIL.into());
    // The company table's rows are made one by one, then set into the page unescaped.
    p.companies.as_mut().unwrap().rows[1].razao_social = Some(EVIL.into());
    p.by_uf[0].key = EVIL.into();
    view.by_grupo.as_mut().unwrap().rows[0].key = EVIL.into();
    view.run.warnings = vec![EVIL.into()];
    view
}

#[test]
fn data_is_escaped_in_html() {
    let view = view_with_evil_names();
    let (html, _) = render_to_strings(&view, &TemplateSet::load(None).unwrap()).unwrap();
    assert!(!html.contains("<script"), "a name opened a script tag");
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;&#x2F;script&gt;")
            || html.contains("&lt;script&gt;alert(1)&lt;/script&gt;")
    );
    assert!(html.contains("{{x}}"), "template syntax in data shows as text");
    assert!(!html.contains("<a "), "no link can be injected");
}

#[test]
fn data_is_escaped_in_markdown() {
    let view = view_with_evil_names();
    let (_, md) = render_to_strings(&view, &TemplateSet::load(None).unwrap()).unwrap();
    assert!(md.contains("&lt;script&gt;alert(1)&lt;/script&gt; \\{\\{x\\}\\} \\| pipe \\| \\*\\*bold\\*\\* \\[link\\](http://x)"));
    let (tables, raw_html) = gfm_tables(&md);
    assert!(!raw_html);
    for (cols, rows) in &tables {
        assert!(rows.iter().all(|r| r == cols), "a pipe in the data split a cell: {rows:?} vs {cols}");
    }
}

#[test]
fn locale_en_formats_numbers_and_months() {
    let mut view = view_with_evil_names();
    view.locale = Locale::En;
    let (_, md_en) = render_to_strings(&view, &TemplateSet::load(None).unwrap()).unwrap();
    assert!(md_en.contains("Sep 2026"), "months in English");
    let total = view.headline.as_ref().unwrap().total.clone().unwrap();
    let d: rust_decimal::Decimal = total.parse().unwrap();
    assert!(md_en.contains(&fiscal_report::report::format::money(d, Locale::En)));
    assert!(md_en.contains("R$ ") && md_en.contains(','), "R$ 1,234.56 style");
}

#[test]
fn a_broken_user_template_names_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    // `report --from` rewrites the aggregates: work on a copy, not the run other tests read.
    let run = dir.path().join("run");
    copy_dir(demo_run(), &run);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    std::fs::create_dir(dir.path().join("partials")).unwrap();
    for e in std::fs::read_dir(src.join("partials")).unwrap().flatten() {
        std::fs::copy(e.path(), dir.path().join("partials").join(e.file_name())).unwrap();
    }
    for f in ["report.md.hbs", "report.html.hbs"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    std::fs::write(dir.path().join("report.md.hbs"), "# ok\n\n{{#each rows}\n").unwrap();
    let out = bin().args(["report", "--from"]).arg(&run).arg("--templates").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("report.md.hbs") && err.contains("line 3"), "{err}");
    std::fs::remove_file(dir.path().join("report.md.hbs")).unwrap();
    let out = bin().args(["report", "--from"]).arg(&run).arg("--templates").arg(dir.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("report.md.hbs is missing"));
}

#[test]
fn the_html_opens_in_chromium_with_only_its_own_script_and_no_network() {
    let Some(chromium) =
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].into_iter().find(|p| Path::new(p).exists())
    else {
        skip("chromium (.ci/run installs the Debian package `chromium`)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (png, netlog) = (dir.path().join("shot.png"), dir.path().join("net.json"));
    let page = demo_run().join("report.html").canonicalize().unwrap();
    let out = std::process::Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args([
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", dir.path().join("profile").display()))
        .arg(format!("--log-net-log={}", netlog.display()))
        .arg(format!("--screenshot={}", png.display()))
        .args(["--window-size=1280,2400", "--virtual-time-budget=2000"])
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(png.exists(), "no screenshot: {}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::metadata(&png).unwrap().len() > 20_000, "the screenshot is nearly empty");
    // Every URL the browser touched: only the file itself. Chromium's own background calls to
    // its vendor's services (sign-in, updates, time) are the browser's, not the page's.
    let browser_own = ["google.com/", "googleapis.com/", "gstatic.com/", "gvt1.com/"];
    let log = std::fs::read_to_string(&netlog).unwrap_or_default();
    let urls: Vec<&str> = log
        .split("\"url\":\"")
        .skip(1)
        .filter_map(|s| s.split('"').next())
        .filter(|u| !u.starts_with("file://") && !u.starts_with("data:") && !u.is_empty())
        .filter(|u| !browser_own.iter().any(|h| u.contains(h)))
        .collect();
    assert!(urls.is_empty(), "network requests made: {urls:?}");
    // And the page could not have made one: no URL in it, a CSP that forbids any request and
    // any script but its own one, named by the sha256 of its text (hashed here, apart).
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("default-src 'none'") && !html.contains("connect-src"), "CSP forbids requests");
    assert_eq!(html.matches("<script").count(), 1, "one script");
    let script = html.split("<script>").nth(1).and_then(|s| s.split("</script>").next()).unwrap();
    let digest = <sha2::Sha256 as sha2::Digest>::digest(script.as_bytes());
    let hash = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, digest);
    assert!(html.contains(&format!("script-src 'sha256-{hash}'")), "the CSP allows the script by its hash");
    assert!(
        !html.contains("http://") && !html.contains("https://") && !html.contains("url("),
        "no external reference"
    );
}

#[test]
fn user_templates_cannot_reach_outside_their_folder() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    copy_dir(demo_run(), &run);
    let tpl = dir.path().join("tpl");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("templates"), &tpl);
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc/hostname", tpl.join("partials/leak.hbs")).unwrap();
    let out = bin().args(["report", "--from"]).arg(&run).arg("--templates").arg(&tpl).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("leak.hbs") && err.contains("symbolic link"), "{err}");
}

#[test]
fn failed_tasks_and_unread_companies_put_a_warning_on_top_of_both_reports() {
    let dir = demo_run();
    let frames = fiscal_report::export::tables::frames_from_export(dir).unwrap();
    let queries = load_queries(Some(&Path::new(env!("CARGO_MANIFEST_DIR")).join("queries"))).unwrap();
    let aggs = run_queries(&frames, &queries).unwrap();
    let mut manifest = Manifest::read(dir).unwrap();
    let templates = TemplateSet::load(None).unwrap();
    let (html, md) =
        render_to_strings(&build_view(&frames, &aggs, &manifest, "run", Locale::PtBr), &templates).unwrap();
    assert!(!html.contains("DADOS INCOMPLETOS") && !md.contains("DADOS INCOMPLETOS"), "a clean run");
    for task in ["creditos/SP/202609", "creditos/RJ/202609"] {
        manifest.fetch.tasks_failed.push(fiscal_report::extract::runner::FailedTask {
            refused: false,
            task: task.into(),
            error: "server error (HTTP 503)".into(),
        });
    }
    let (html, md) =
        render_to_strings(&build_view(&frames, &aggs, &manifest, "run", Locale::PtBr), &templates).unwrap();
    for (name, text) in [("html", &html), ("md", &md)] {
        let at = text.find("DADOS INCOMPLETOS").unwrap_or_else(|| panic!("{name}: no warning"));
        assert!(at < text.find("Destaques").unwrap(), "{name}: the warning comes before the figures");
        assert!(text.contains("2 tarefas falharam") && text.contains("--resume --out"), "{name}");
    }
}

/// The `<tbody>` of the page's company table.
fn company_rows(html: &str) -> &str {
    let table = &html[html.find("id=\"tabela-empresas\"").expect("no company table")..];
    &table[table.find("<tbody>").unwrap()..table.find("</tbody>").unwrap()]
}

#[test]
fn a_templates_folder_from_before_the_row_partial_still_lists_every_company() {
    let built_in = std::fs::read_to_string(demo_run().join("report.html")).unwrap();
    let companies = crate::aggregates_truth::read(&demo_run().join("aggregates/carteira_empresas.parquet"));
    let rows = |html: &str| company_rows(html).matches("<tr>").count();
    let cells = |html: &str| company_rows(html).split_whitespace().collect::<String>();
    assert_eq!(rows(&built_in), companies.height());
    // The table as it was written before its rows had a partial of their own: alone, and beside
    // a row partial copied later.
    for keep_row_partial in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        copy_dir(demo_run(), &run);
        let tpl = dir.path().join("tpl");
        copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("templates"), &tpl);
        let row = std::fs::read_to_string(tpl.join("partials/company_row.hbs")).unwrap();
        if !keep_row_partial {
            std::fs::remove_file(tpl.join("partials/company_row.hbs")).unwrap();
        }
        let table = std::fs::read_to_string(tpl.join("partials/company_table.hbs")).unwrap();
        let each = format!("{{{{#each rows}}}}{}{{{{/each}}}}", row.trim_end());
        let old = table.replace("{{{rows_html}}}", &each);
        assert_ne!(old, table);
        std::fs::write(tpl.join("partials/company_table.hbs"), old).unwrap();
        let out = bin().args(["report", "--from"]).arg(&run).arg("--templates").arg(&tpl).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let before = std::fs::read_to_string(run.join("report.html")).unwrap();
        assert_eq!(rows(&before), companies.height(), "row partial kept: {keep_row_partial}");
        assert_eq!(cells(&before), cells(&built_in));
    }
}
