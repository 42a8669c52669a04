//! The HTML report explored in a headless Chromium as an analyst would: the table of every
//! company sorted by a click on a column, filtered on a state, searched by CNPJ and by name;
//! and read with JavaScript off, where every row is still there. The page's own script does the
//! work; the test reads the rows it leaves visible and checks them against the portfolio the run
//! was given and the exposure aggregate, with its own reading of the pt-BR figures.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::str::FromStr;

use polars::prelude::*;
use rust_decimal::Decimal;

use crate::common_bin::*;

const CHROMIUM: [&str; 2] = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

fn chromium() -> Option<&'static str> {
    let found = CHROMIUM.into_iter().find(|p| Path::new(p).exists());
    if found.is_none() {
        skip("chromium (.ci/run installs the Debian package `chromium`)");
    }
    found
}

/// The page's DOM after its load event, as headless Chromium serializes it.
fn dump_dom(browser: &str, page: &Path, extra: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let o = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-extensions",
        ])
        .args(extra)
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(o.status.success(), "chromium: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// A page that opens report.html in a frame, works its controls the way a reader would (clicks
/// on headers, a choice in a filter, text in the search box) and writes the rows left visible,
/// as JSON, into its own `<pre>`.
const HARNESS: &str = r#"<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><pre id="out">not run</pre><script>
var f = document.createElement('iframe');
f.style.width = '1280px'; f.style.height = '900px';
f.addEventListener('load', function () {
  var out = document.getElementById('out');
  try {
    var d = f.contentDocument;
    var t = d.getElementById('tabela-empresas');
    var heads = Array.prototype.slice.call(t.tHead.rows[0].cells);
    var bar = d.querySelector('#empresas .explore-bar');
    function visible(i) {
      return Array.prototype.filter.call(t.tBodies[0].rows, function (r) { return !r.hidden; })
        .map(function (r) { return r.cells[i].textContent.trim(); });
    }
    function click(i) { heads[i].querySelector('button').click(); }
    function search(text) {
      var box = bar.querySelector('input');
      box.value = text; box.dispatchEvent(new Event('input')); showAll();
      var seen = { cnpj: visible(0), name: visible(1) };
      box.value = ''; box.dispatchEvent(new Event('input'));
      return seen;
    }
    function count() { return bar.querySelector('.explore-count').textContent; }
    function showAll() { var all = d.querySelector('#empresas button.todas'); if (!all.hidden) all.click(); }
    var last = heads.length - 1;
    var r = { ready: d.documentElement.getAttribute('data-explorar'), rows: t.tBodies[0].rows.length };
    // A page at a time, then one more, then all.
    r.first_page = visible(0).length; r.first_count = count();
    d.querySelector('#empresas button.mais').click(); r.second_page = visible(0).length;
    showAll(); r.all_shown = visible(0).length; r.more_hidden = d.querySelector('#empresas button.mais').hidden;
    click(0); r.cnpj_sorted = visible(0);
    click(last); r.total_one_click = visible(last); r.sort_state = heads[last].getAttribute('aria-sort');
    click(last); r.total_two_clicks = visible(last);
    var uf = bar.querySelector('select[data-coluna="2"]');
    uf.value = STATE; uf.dispatchEvent(new Event('change'));
    r.state_page = visible(0).length; r.count = count(); showAll();
    r.state_rows = visible(2); r.state_cnpjs = visible(0); r.count_all = count();
    uf.value = ''; uf.dispatchEvent(new Event('change'));
    r.by_cnpj = search(CNPJ);
    r.by_name = search(NAME);
    out.textContent = JSON.stringify(r);
  } catch (e) { out.textContent = 'error: ' + e; }
});
f.src = 'report.html';
document.body.appendChild(f);
</script></body></html>"#;

/// report.html in a frame that may not run scripts (`sandbox` without `allow-scripts`): what a
/// reader with JavaScript off gets.
const NO_SCRIPT: &str = r#"<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><pre id="out">not run</pre><script>
var f = document.createElement('iframe');
f.setAttribute('sandbox', 'allow-same-origin');
f.addEventListener('load', function () {
  var d = f.contentDocument, t = d.getElementById('tabela-empresas');
  document.getElementById('out').textContent = JSON.stringify({
    ready: d.documentElement.getAttribute('data-explorar'),
    bars: d.querySelectorAll('.explore-bar').length,
    cnpjs: Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[0].textContent.trim(); }),
    displayed: Array.prototype.filter.call(t.tBodies[0].rows, function (r) { return r.getClientRects().length > 0; }).length
  });
});
f.src = 'report.html';
document.body.appendChild(f);
</script></body></html>"#;

/// `R$ 1.234,56` or `-R$ 3,40` as its exact amount.
fn reais(text: &str) -> Decimal {
    let negative = text.starts_with('-');
    let digits =
        text.trim_start_matches('-').trim_start_matches("R$").trim().replace('.', "").replace(',', ".");
    let v = Decimal::from_str(&digits).unwrap_or_else(|e| panic!("{text:?} is not an amount: {e}"));
    if negative { -v } else { v }
}

fn digits(s: &str) -> String {
    s.chars().filter(char::is_ascii_digit).collect()
}

/// Lower case, accents dropped (what the page's search does to both sides).
fn folded(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    s.nfd().filter(|c| !unicode_normalization::char::is_combining_mark(*c)).collect::<String>().to_lowercase()
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect()
}

/// The `<pre id="out">` text of a dumped harness page, unescaped.
fn harness_output(dom: &str) -> serde_json::Value {
    let start = dom.find("<pre id=\"out\">").expect("the harness's output") + "<pre id=\"out\">".len();
    let text = &dom[start..start + dom[start..].find("</pre>").unwrap()];
    let text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("harness: {text} ({e})"))
}

#[test]
fn the_company_table_sorts_filters_and_searches_in_chromium_and_is_whole_without_javascript() {
    let Some(browser) = chromium() else { return };
    let run = crate::aggregates_truth::run();
    let exposure = crate::aggregates_truth::read(&run.out.join("aggregates/carteira_exposicao.parquet"));
    let column = |name: &str| -> Vec<String> {
        let c = exposure.column(name).unwrap().cast(&DataType::String).unwrap();
        c.str().unwrap().iter().map(|v| v.unwrap_or_default().to_string()).collect()
    };
    let (cnpjs, ufs, names, totals) =
        (column("cnpj"), column("uf"), column("razao_social"), column("exposicao_total"));
    // Truth of the rows: the portfolio the run was given, less the CNPJ the service does not know.
    let portfolio: BTreeSet<String> =
        run.cnpjs.iter().map(|c| c.as_str().to_string()).filter(|c| c != "99999999000191").collect();
    assert_eq!(cnpjs.iter().cloned().collect::<BTreeSet<_>>(), portfolio);
    // The state with the most companies but not all of them, a CNPJ down the list, a name's word.
    let state =
        ufs.iter().max_by_key(|u| (ufs.iter().filter(|x| x == u).count(), u.to_string())).unwrap().clone();
    let in_state: BTreeSet<&String> =
        cnpjs.iter().zip(&ufs).filter(|(_, u)| **u == state).map(|(c, _)| c).collect();
    assert!(in_state.len() > 1 && in_state.len() < cnpjs.len(), "{state}: {}", in_state.len());
    let wanted = &cnpjs[cnpjs.len() / 2];
    let word = names[0].split_whitespace().max_by_key(|w| w.len()).unwrap().to_string();
    let named: BTreeSet<&String> = cnpjs
        .iter()
        .zip(&names)
        .filter(|(_, n)| folded(n).contains(&folded(&word)))
        .map(|(c, _)| c)
        .collect();

    let dir = tempfile::tempdir().unwrap();
    copy_dir(&run.out, dir.path());
    // Pages of 7 rows, so the 40 companies take six pages (the report pages by 100).
    let report = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(report.contains("data-pagina=\"100\""), "the company table pages by 100");
    let report = report.replace("data-pagina=\"100\"", "data-pagina=\"7\"").replace("n+101", "n+8");
    std::fs::write(dir.path().join("report.html"), report).unwrap();
    let harness = HARNESS
        .replace("STATE", &serde_json::to_string(&state).unwrap())
        .replace("CNPJ", &serde_json::to_string(wanted).unwrap())
        .replace("NAME", &serde_json::to_string(&folded(&word)).unwrap());
    std::fs::write(dir.path().join("harness.html"), harness).unwrap();
    let r = harness_output(&dump_dom(
        browser,
        &dir.path().join("harness.html"),
        &["--allow-file-access-from-files"],
    ));
    assert_eq!(r["ready"], "pronto", "the page's script ran: {r}");
    assert_eq!(r["rows"], cnpjs.len());
    assert_eq!(
        (&r["first_page"], &r["second_page"], &r["all_shown"]),
        (&7.into(), &14.into(), &cnpjs.len().into())
    );
    assert_eq!(r["first_count"], format!("7 de {} linhas", cnpjs.len()));
    assert_eq!(r["more_hidden"], true, "no more to show");

    // A click on CNPJ orders the rows by CNPJ.
    let by_cnpj: Vec<String> = strings(&r["cnpj_sorted"]).iter().map(|c| digits(c)).collect();
    let mut sorted = by_cnpj.clone();
    sorted.sort();
    assert_eq!(by_cnpj, sorted);
    assert_eq!(by_cnpj.iter().cloned().collect::<BTreeSet<_>>(), portfolio);

    // A click on exposure: the largest first, every row in order; again: the smallest first.
    let largest = totals.iter().map(|t| Decimal::from_str(t).unwrap()).max().unwrap();
    let once: Vec<Decimal> = strings(&r["total_one_click"]).iter().map(|t| reais(t)).collect();
    assert_eq!(once[0], largest, "the largest exposure first");
    assert!(once.windows(2).all(|w| w[0] >= w[1]), "{once:?}");
    assert_eq!(r["sort_state"], "descending");
    let twice: Vec<Decimal> = strings(&r["total_two_clicks"]).iter().map(|t| reais(t)).collect();
    assert!(twice.windows(2).all(|w| w[0] <= w[1]), "{twice:?}");
    assert_eq!(twice.last(), Some(&largest));

    // A filter on a state leaves that state's companies, all of them, and says how many.
    assert!(strings(&r["state_rows"]).iter().all(|u| *u == state), "{}", r["state_rows"]);
    let shown: BTreeSet<String> = strings(&r["state_cnpjs"]).iter().map(|c| digits(c)).collect();
    assert_eq!(shown, in_state.iter().map(|c| c.to_string()).collect());
    let first = in_state.len().min(7);
    assert_eq!(r["state_page"], first, "a filter starts again at the first page");
    let count = if in_state.len() > 7 {
        format!("7 de {} linhas ({} no total)", in_state.len(), cnpjs.len())
    } else {
        format!("{} de {} linhas", in_state.len(), cnpjs.len())
    };
    assert_eq!(r["count"], count);
    assert_eq!(r["count_all"], format!("{} de {} linhas", in_state.len(), cnpjs.len()));

    // A search by CNPJ (digits only, as pasted from a spreadsheet) finds its one row; by a word
    // of a name, without its accents, the companies whose names hold it.
    let found: Vec<String> = strings(&r["by_cnpj"]["cnpj"]).iter().map(|c| digits(c)).collect();
    assert_eq!(found, vec![wanted.clone()]);
    let found: BTreeSet<String> = strings(&r["by_name"]["cnpj"]).iter().map(|c| digits(c)).collect();
    assert_eq!(found, named.iter().map(|c| c.to_string()).collect(), "search for {word:?}");

    // JavaScript off (the frame sandboxed without scripts): every company's row is in the
    // page, and no control that would not work.
    std::fs::write(dir.path().join("no-script.html"), NO_SCRIPT).unwrap();
    let r = harness_output(&dump_dom(
        browser,
        &dir.path().join("no-script.html"),
        &["--allow-file-access-from-files"],
    ));
    assert_eq!(r["ready"], serde_json::Value::Null, "the script ran in a frame without scripts: {r}");
    assert_eq!(r["bars"], 0);
    assert_eq!(strings(&r["cnpjs"]).iter().map(|c| digits(c)).collect::<BTreeSet<_>>(), portfolio);
    assert_eq!(r["cnpjs"].as_array().unwrap().len(), portfolio.len());
    assert_eq!(r["displayed"], portfolio.len(), "every row shown, none held back for a page");
}
