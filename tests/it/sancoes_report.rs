//! The report's "Sanções e listas" section against the embedded dataset's own record of who is
//! on which public list (`Dataset::listas_truth`, made from the dataset's partners and groups,
//! never through the reader or the SQL): every company with a sanction in force shows under the
//! way the list reaches it, with the list's name and date; a run without lists says so.

use std::collections::{BTreeMap, BTreeSet};

use crate::sancoes::{SCALE, listed_portfolio, run_files, run_over_the_release, write_release};
use fiscal_report::simulator::{Dataset, RegistryConfig};

/// The lists' names and the ways they reach a company, as the report is to write them.
const LIST_NAMES: [(&str, &str); 7] = [
    ("CEIS", "CEIS"),
    ("CNEP", "CNEP"),
    ("CEPIM", "CEPIM"),
    ("LENIENCIA", "Acordos de Leniência"),
    ("TRABALHO_ESCRAVO", "Cadastro de Empregadores (trabalho escravo)"),
    ("IBAMA", "Embargos do IBAMA"),
    ("PEP", "Pessoas Expostas Politicamente (PEP)"),
];

/// Whether list `code` restricts dealing with a party (a sanction, an impediment, an embargo),
/// as `api::listas` defines it: PEP does not, and the report shows it apart.
pub(crate) fn restrictive(code: &str) -> bool {
    fiscal_report::api::listas::Lista::of_codigo(code).is_some_and(|l| l.definicao().restritiva)
}
/// The name the report gives list `code` in pt-BR.
pub(crate) fn list_name(code: &str) -> &'static str {
    LIST_NAMES.iter().find(|(c, _)| *c == code).map_or("", |(_, n)| n)
}

const WAYS: [(&str, &str); 5] = [
    ("cnpj", "o próprio CNPJ"),
    ("raiz", "outro estabelecimento da mesma empresa"),
    ("socio", "sócio"),
    ("socio_possivel", "possível sócio (CPF mascarado e nome iguais)"),
    ("grupo", "empresa do grupo"),
];

/// A row shown in force: (vinculo, cnpj digits, list name, list date).
type Shown = (String, String, String, String);

/// The HTML of the `<section>` whose id is `id`, to its end.
fn html_section<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html.find(&format!(" id=\"{id}\">")).unwrap_or_else(|| panic!("no section {id}"));
    let rest = &html[start..];
    &rest[..rest.find("</section>").unwrap_or(rest.len())]
}

/// The cells of each `<tr><td>` row of `html`.
fn cells(html: &str) -> Vec<Vec<String>> {
    html.split("<tr><td>")
        .skip(1)
        .map(|row| {
            let row = &row[..row.find("</tr>").unwrap_or(row.len())];
            row.split("</td><td").map(|c| c.trim_start_matches(['>', ' ']).replace("</td>", "")).collect()
        })
        .collect()
}

/// The in-force rows of the section, by the heading (a way of being reached) above them.
fn shown_in_force(section: &str) -> Vec<Shown> {
    let in_force = &section[..section.find("<h3>Sanções encerradas").expect("the ended sanctions' heading")];
    let mut out = Vec::new();
    for block in in_force.split("<h3>").skip(1) {
        let heading = &block[..block.find("</h3>").unwrap()];
        let (way, _) = WAYS
            .iter()
            .find(|(_, words)| heading.starts_with(&format!("{} — ", html_escape(words))))
            .unwrap_or_else(|| panic!("a heading naming no way of being listed: {heading}"));
        for row in cells(block) {
            let digits: String = row[0].chars().filter(char::is_ascii_digit).collect();
            out.push((way.to_string(), digits, row[2].clone(), row[3].clone()));
        }
    }
    out.sort();
    out
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('=', "&#x3D;")
}

#[test]
fn the_reports_section_lists_exactly_the_companies_in_force_by_the_truth() {
    let tmp = tempfile::tempdir().unwrap();
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
    let lists = d.listas();
    let portfolio = listed_portfolio(&d);
    run_over_the_release(tmp.path(), &portfolio);
    let html = std::fs::read_to_string(tmp.path().join("run/report.html")).unwrap();
    let section = html_section(&html, "sancoes");

    let (y, m, day) = lists.date;
    let date = format!("{day:02}/{m:02}/{y:04}");
    let names: BTreeMap<&str, &str> = LIST_NAMES.into_iter().collect();
    let mut want: Vec<Shown> = d
        .listas_truth(&portfolio)
        .into_iter()
        .filter(|t| t.vigente && restrictive(&t.lista))
        .map(|t| (t.vinculo.to_string(), t.cnpj, names[t.lista.as_str()].to_string(), date.clone()))
        .collect();
    want.sort();
    // The truth reaches companies every way, so the comparison means it.
    let ways: std::collections::BTreeSet<&str> = want.iter().map(|w| w.0.as_str()).collect();
    assert!(ways.len() >= 4, "the truth in force reaches companies {ways:?}");
    assert_eq!(shown_in_force(section), want, "the section against the dataset's truth:\n{section}");

    // Below them, the sanctions that ended in the twelve months before the list's date: the
    // truth's records not in force whose end the dataset wrote in that window.
    let year_before = (y - 1, m, day);
    let ended_records: BTreeSet<(&str, &str)> = lists
        .records
        .iter()
        .filter(|r| r.fim.is_some_and(|f| f <= lists.date && f > year_before))
        .map(|r| (r.lista, r.documento.as_str()))
        .collect();
    let want_ended: BTreeSet<(String, String, String)> = d
        .listas_truth(&portfolio)
        .into_iter()
        .filter(|t| !t.vigente && restrictive(&t.lista))
        .filter(|t| ended_records.contains(&(t.lista.as_str(), t.sancionado.as_str())))
        .map(|t| {
            let way = WAYS.iter().find(|(c, _)| *c == t.vinculo).map_or("", |(_, w)| w);
            (t.cnpj, html_escape(names[t.lista.as_str()]), html_escape(way))
        })
        .collect();
    assert!(!want_ended.is_empty(), "the dataset has a sanction ended within the year");
    let exposed_at = section.find("<h3>Sócios possivelmente expostos").expect("the PEP partners' table");
    let ended_html = &section[section.find("<h3>Sanções encerradas").unwrap()..exposed_at];
    let shown_ended: BTreeSet<(String, String, String)> = cells(ended_html)
        .into_iter()
        .map(|row| (row[0].chars().filter(char::is_ascii_digit).collect(), row[2].clone(), row[4].clone()))
        .collect();
    assert_eq!(shown_ended, want_ended, "the ended sanctions against the truth:\n{ended_html}");

    // Apart, never as a sanction: the partners possibly politically exposed in office or within
    // the grace period, each with the office and the organ the file gives.
    let want_exposed: BTreeSet<String> = d
        .listas_truth(&portfolio)
        .into_iter()
        .filter(|t| t.vigente && t.lista == "PEP")
        .map(|t| t.cnpj)
        .collect();
    assert!(!want_exposed.is_empty(), "the dataset has a PEP partner in force");
    let exposed_html = &section[exposed_at..];
    let exposed = cells(exposed_html);
    let shown_exposed: BTreeSet<String> =
        exposed.iter().map(|row| row[0].chars().filter(char::is_ascii_digit).collect()).collect();
    assert_eq!(shown_exposed, want_exposed, "the PEP partners against the truth:\n{exposed_html}");
    assert!(
        exposed.iter().all(|row| !row[3].is_empty() && !row[4].is_empty()),
        "office and organ: {exposed:?}"
    );
    assert!(!exposed_html.contains("Sancionado"), "a PEP is not called sanctioned:\n{exposed_html}");

    // The Markdown twin has the section too.
    let md = std::fs::read_to_string(tmp.path().join("run/report.md")).unwrap();
    assert!(md.contains("\n## Sanções e listas\n"), "report.md lacks the section");
    assert!(md.matches(&date).count() >= want.len(), "each row shows the list's date");
}

#[test]
fn a_run_without_lists_says_so_in_one_sentence() {
    let tmp = tempfile::tempdir().unwrap();
    write_release(tmp.path());
    std::fs::remove_dir_all(tmp.path().join("downloads/listas")).unwrap();
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
    let cnpjs: Vec<String> = d.listas().targets.iter().map(ToString::to_string).collect();
    let o = run_files(tmp.path(), &cnpjs);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(tmp.path().join("run/report.html")).unwrap();
    let section = html_section(&html, "sancoes");
    assert!(section.contains("Nenhuma lista pública foi lida"), "{section}");
    assert!(!section.contains("<table"), "no empty table stands for nobody listed: {section}");
}

#[test]
fn a_service_run_reads_listas_dir_and_a_listed_companys_dossier_shows_its_list() {
    let tmp = tempfile::tempdir().unwrap();
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
    let lists = d.listas();
    write_release(tmp.path());
    let portfolio: Vec<String> = lists.targets.iter().map(ToString::to_string).collect();
    std::fs::write(tmp.path().join("carteira.txt"), portfolio.join("\n")).unwrap();
    let args = [
        "--quiet",
        "run",
        "--demo-scale",
        "0.05",
        "--cnpjs",
        "carteira.txt",
        "--listas-dir",
        "downloads/listas",
        "--dossies",
        "100",
        "--expand-groups",
        "--out",
        "run",
    ];
    let o = crate::common_bin::bin().current_dir(tmp.path()).args(args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = tmp.path().join("run");

    // The service run matched the lists it was pointed at, as the truth has them.
    let in_force: Vec<_> =
        d.listas_truth(&lists.targets).into_iter().filter(|t| t.vigente && restrictive(&t.lista)).collect();
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    let section = html_section(&html, "sancoes");
    for t in &in_force {
        let shown = fiscal_report::report::format::mask_cnpj(&t.cnpj);
        assert!(section.contains(&shown), "{shown} in force but not shown:\n{section}");
    }

    // The highlights count the companies in force, and those by their own CNPJ or root.
    let companies = |near: bool| {
        let set: std::collections::BTreeSet<&String> = in_force
            .iter()
            .filter(|t| !near || t.vinculo == "cnpj" || t.vinculo == "raiz")
            .map(|t| &t.cnpj)
            .collect();
        set.len()
    };
    let highlights = html_section(&html, "destaques");
    let card = format!(
        "<div class=\"value\">{}</div><div class=\"detail\">{} pelo próprio CNPJ ou raiz</div>",
        companies(false),
        companies(true)
    );
    assert!(highlights.contains(&card), "highlights lack {card}:\n{highlights}");

    // A listed company's dossier names its list and the list's date.
    let (y, m, day) = lists.date;
    let date = format!("{day:02}/{m:02}/{y:04}");
    let names: BTreeMap<&str, &str> = LIST_NAMES.into_iter().collect();
    let with_dossier: Vec<_> =
        in_force.iter().filter(|t| run.join(format!("dossies/{}.html", t.cnpj)).exists()).collect();
    assert!(!with_dossier.is_empty(), "no listed company has a dossier: {in_force:?}");
    for t in with_dossier {
        let page = std::fs::read_to_string(run.join(format!("dossies/{}.html", t.cnpj))).unwrap();
        let listas = html_section(&page, "listas");
        let name = html_escape(names[t.lista.as_str()]);
        assert!(
            listas.contains(&name) && listas.contains(&date),
            "{}: {name} {date} not in\n{listas}",
            t.cnpj
        );
    }

    // The workbook's sheet `Sanções` equals sancoes.parquet, row for row and cell for cell.
    let sancoes = crate::aggregates_truth::read(&run.join("aggregates/sancoes.parquet"));
    assert!(sancoes.height() >= in_force.len() && !in_force.is_empty());
    if crate::common_bin::python_with("openpyxl, pandas, pyarrow") {
        crate::workbook::check(&run, "pt-BR");
    }
}

/// `--listas-dir` asks for every list: one missing and a file no reader takes are named on
/// stderr, in the manifest and in the report, and `--strict` stops the run on them (exit 2).
#[test]
fn a_listas_dir_missing_a_list_or_holding_a_stray_file_says_so_and_strict_stops() {
    let tmp = tempfile::tempdir().unwrap();
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
    let written = fiscal_report::simulator::open_data::listas::write_listas(&d.listas(), tmp.path()).unwrap();
    let listas = tmp.path().join("listas");
    let cepim = written.iter().find(|p| p.to_string_lossy().ends_with("_CEPIM.zip")).unwrap();
    std::fs::remove_file(cepim).unwrap();
    std::fs::write(listas.join("planilha-antiga.xlsx"), b"PK not a list").unwrap();
    let portfolio: Vec<String> = d.demo_portfolio(5).iter().map(ToString::to_string).collect();
    std::fs::write(tmp.path().join("carteira.txt"), portfolio.join("\n")).unwrap();
    let run = |extra: &[&str]| {
        crate::common_bin::bin()
            .current_dir(tmp.path())
            .args(["run", "--demo-scale", "0.05", "--uf", "SP", "--cnpjs", "carteira.txt"])
            .args(["--listas-dir", "listas", "--out", "run"])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&["--strict"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    let error = stderr.lines().find(|l| l.contains("--strict:")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(error.contains("planilha-antiga.xlsx") && error.contains("the list CEPIM"), "{error}");
    // The flag's and the variable's names until 2026-12 still read the folder: a schedule
    // written then stops the same way.
    let old = |flag: &[&str], env: Option<&str>| {
        let mut cmd = crate::common_bin::bin();
        cmd.current_dir(tmp.path())
            .args(["run", "--demo-scale", "0.05", "--uf", "SP", "--cnpjs", "carteira.txt", "--strict"])
            .args(["--out", "old"])
            .args(flag);
        if let Some(dir) = env {
            cmd.env("FISCAL_REPORT_LISTS_DIR", dir);
        }
        cmd.output().unwrap()
    };
    for o in [old(&["--lists-dir", "listas"], None), old(&[], Some("listas"))] {
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("the list CEPIM was expected"), "{stderr}");
    }

    let o = run(&[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("no reader takes planilha-antiga.xlsx"), "{stderr}");
    assert!(stderr.contains("the list CEPIM was expected, asked for with --listas-dir"), "{stderr}");
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("run/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["listas_dir"]["unread"], serde_json::json!(["planilha-antiga.xlsx"]));
    assert_eq!(
        m["listas_dir"]["listas_ausentes"],
        serde_json::json!([{"lista": "CEPIM", "motivo": "pedida"}])
    );
    let read: BTreeSet<&str> =
        m["listas_dir"]["listas"].as_array().unwrap().iter().map(|l| l["lista"].as_str().unwrap()).collect();
    let left: BTreeSet<&str> = ["CEIS", "CNEP", "LENIENCIA", "TRABALHO_ESCRAVO", "IBAMA", "PEP"].into();
    assert_eq!(read, left, "the six lists left");
    let html = std::fs::read_to_string(tmp.path().join("run/report.html")).unwrap();
    assert!(html.contains("<code>planilha-antiga.xlsx</code>"), "the report names the stray file");
    assert!(html.contains("<li>CEPIM (pedida com --listas-dir"), "the report names the missing list");
}
