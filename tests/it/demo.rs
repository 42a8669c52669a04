//! The demo as a newcomer runs it (`fiscal-report run`, no flag): it compares with the month
//! before, so its report shows what changed and the example rules' alerts, and each of its
//! four highlights shows a figure. The month before is committed first to a store of its own
//! beside the outputs, made anew by each demo; a folder by that name that is not such a store
//! is refused untouched.

use std::path::Path;

use crate::common_bin::bin;
use crate::sancoes_report::restrictive;
use fiscal_report::simulator::{Dataset, RegistryConfig};

fn demo(cwd: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let o = bin().current_dir(cwd).args(["--quiet", "run", "--dossies", "0"]).args(extra).output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).to_string())
}

/// The lines of `md` from the heading `start` to the next heading of its level or above.
fn section<'a>(md: &'a str, start: &str) -> &'a str {
    let Some(at) = md.find(start) else { return "" };
    let rest = &md[at + start.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

#[test]
fn the_demo_compares_with_the_month_before_and_shows_changes_alerts_and_every_highlight() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, err) = demo(tmp.path(), &[]);
    assert_eq!(code, Some(0), "{err}");
    let newest = Dataset::newest_month();
    let previous = newest.plus_months(-1).unwrap();
    let out = tmp.path().join("output").join(format!("{}-{}", newest.plus_months(-12).unwrap(), newest));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();

    // The banner says what the demo did; the store holds the month before, then the demo's.
    assert!(md.contains("a demonstração fez antes o retrato do mês anterior"), "the banner says so");
    let info = bin().args(["store", "info"]).arg(tmp.path().join("output/.demo-store")).output().unwrap();
    let info = String::from_utf8_lossy(&info.stdout);
    assert!(
        info.contains(&format!("snapshot={previous}")) && info.contains(&format!("snapshot={newest}")),
        "{info}"
    );

    // Each highlight shows a figure: the 12-month change has its base month.
    let highlights = section(&md, "## Destaques do mês");
    for label in ["Créditos ativos", "Variação no mês", "Variação em 12 meses", "UFs cobertas"] {
        let row = highlights.lines().find(|l| l.starts_with(&format!("| {label} |"))).unwrap_or_else(|| {
            panic!("no highlight {label}: {highlights}");
        });
        let value = row.split('|').nth(2).unwrap_or("").trim();
        assert!(!value.is_empty() && !value.starts_with('—'), "{label} shows a value: {row}");
    }

    // What changed since the month before, and the example rules' alerts.
    let changes = section(&md, "## O que mudou na carteira");
    assert!(!changes.contains("não há retrato anterior"), "{changes}");
    let mudancas = crate::aggregates_truth::read(&out.join("aggregates/mudancas.parquet"));
    assert!(mudancas.height() > 0, "the demo's month shows changes");
    assert!(changes.contains("Alertas novos neste retrato"), "{changes}");

    // The example rules give one alert per rule and company whose rule holds, as the dataset's
    // own records give them, each with exactly its triggers; every kind of rule shows, and the
    // alerts are few enough to read in a minute.
    let example =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("regras/exemplo.toml")).unwrap();
    let rules = crate::alerts::truth_rules(&example);
    let at = |m| Dataset::generate(RegistryConfig::DEFAULT_SEED, 1.0).as_of(m).unwrap();
    let (before, after) = (at(previous), at(newest));
    let portfolio = after.demo_portfolio(200);
    let mut want = crate::alerts::expected_alerts(&rules, &before, &after, &portfolio);
    crate::alerts::expected_list_alerts(&rules, &after, &portfolio, &mut want);
    let (got, rows) = crate::alerts::alerts_of(&out);
    let unlike: Vec<_> = want.iter().filter(|(k, v)| got.get(*k) != Some(*v)).take(3).collect();
    let beyond: Vec<_> = got.iter().filter(|(k, v)| want.get(*k) != Some(*v)).take(3).collect();
    assert!(
        unlike.is_empty() && beyond.is_empty(),
        "missing or unlike the truth: {unlike:?}; beyond: {beyond:?}"
    );
    assert_eq!(rows.len(), want.len(), "one alert per (rule, company) whose rule holds");
    assert!(rows.iter().all(|a| a["estado"] == "nova"), "the demo's store is new: every alert is new");
    // Every kind shows, but a kind whose change the month does not have at all: no portfolio
    // company changed its share capital, which the truth's changes say.
    let happened = |kind: &str| {
        portfolio.iter().any(|c| {
            super::changes::company_changes(
                c.as_str(),
                before.records_truth(c).as_ref(),
                after.records_truth(c).as_ref(),
            )
            .iter()
            .any(|ch| ch.1 == kind)
        })
    };
    for rule in &rules {
        let absent = rule.tipo == "mudanca_capital" && !happened("capital social alterado");
        assert_eq!(
            want.keys().any(|(r, _)| *r == rule.nome),
            !absent,
            "the demo shows no alert of {:?} ({})",
            rule.nome,
            rule.tipo
        );
    }
    let triggers: usize = want.values().map(std::collections::BTreeSet::len).sum();
    assert!(
        rows.len() <= 40,
        "{} alerts ({triggers} triggers): more than a person reads in a minute",
        rows.len()
    );
    // The highlights count them by severity and name the five that weigh most.
    let count = |s: &str| rows.iter().filter(|a| a["severidade"] == s).count();
    let row =
        highlights.lines().find(|l| l.starts_with("| Alertas abertos |")).expect("the alerts' highlight");
    let said = format!(
        "| {} ({} alta · {} média · {} baixa) |",
        rows.len(),
        count("alta"),
        count("media"),
        count("baixa")
    );
    assert!(row.ends_with(&said), "{row} says {said}");
    let top = section(&md, "Os cinco alertas que mais pesam:");
    let listed =
        top.lines().take_while(|l| l.is_empty() || l.starts_with("- ")).filter(|l| l.starts_with("- "));
    assert_eq!(listed.count(), rows.len().min(5), "{top}");

    // The demo reads the dataset's own public lists: its section shows the companies the
    // dataset's truth has in force, and the highlights count them.
    let in_force: std::collections::BTreeSet<String> = after
        .listas_truth(&portfolio)
        .into_iter()
        .filter(|t| t.vigente && restrictive(&t.lista))
        .map(|t| t.cnpj)
        .collect();
    assert!(!in_force.is_empty(), "some demo companies are on a list in force");
    let sanctions = section(&md, "## Sanções e listas");
    for cnpj in &in_force {
        let shown = fiscal_report::report::format::mask_cnpj(cnpj);
        assert!(sanctions.contains(&shown), "{shown} in force but not in the section:\n{sanctions}");
    }
    let said = format!("| Com sanção vigente | {} (", in_force.len());
    assert!(highlights.contains(&said), "{said} not in the highlights: {highlights}");

    // Run again (into another folder of output/: a run's folder holds its staging): the store
    // beside it is made anew, not stacked on the last demo's.
    let (code, err) = demo(tmp.path(), &["--out", "output/again"]);
    assert_eq!(code, Some(0), "{err}");
    let info = bin().args(["store", "info"]).arg(tmp.path().join("output/.demo-store")).output().unwrap();
    assert!(String::from_utf8_lossy(&info.stdout).contains("versions (2)"), "two snapshots, not four");
}

#[test]
fn a_folder_named_like_the_demo_store_that_is_not_one_is_refused_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let theirs = tmp.path().join("output/.demo-store");
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), "mine").unwrap();
    let (code, err) = demo(tmp.path(), &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(".demo-store") && err.contains("not a store the demo made"), "{err}");
    assert_eq!(std::fs::read_to_string(theirs.join("notes.txt")).unwrap(), "mine");
}
