//! A company's timeline over a store's snapshots (`historico/linha_do_tempo.parquet`, `store
//! timeline`): four monthly runs on the embedded registry, 202606 to 202609, on one store. Every
//! change of every month must equal the diff of the two months' ground truth, built from the
//! dataset's records, not by the queries; each dated by the event when the files date it (a
//! partner's entry), else by the first day of the snapshot's month; oldest first.

use std::path::Path;

use fiscal_report::api::{AnoMes, Categoria, Cnpj};
use fiscal_report::simulator::{Dataset, RegistryConfig};
use polars::prelude::*;

use super::changes::{Change, changes_in, company_changes, fold};
use super::common_bin::bin;

const MONTHS: [&str; 4] = ["202606", "202607", "202608", "202609"];

fn at(month: &str) -> Dataset {
    Dataset::generate(RegistryConfig::DEFAULT_SEED, 1.0).as_of(AnoMes::parse(month).unwrap()).unwrap()
}

fn column(df: &DataFrame, name: &str) -> Vec<Option<String>> {
    let c = df.column(name).unwrap().cast(&DataType::String).unwrap();
    c.str().unwrap().iter().map(|v| v.map(str::to_string)).collect()
}

/// `run` on the embedded registry as of `month` (SP's credits), into `store` and `out`.
fn run_month(store: &Path, portfolio: &Path, month: &str, out: &Path, extra: &[&str]) {
    let o = bin()
        .args(["--quiet", "run", "--uf", "SP", "--as-of", month])
        .args(extra)
        .arg("--store")
        .arg(store)
        .arg("--cnpjs")
        .arg(portfolio)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{month}: {}", String::from_utf8_lossy(&o.stderr));
}

fn timeline(store: &Path, cnpj: &str, format: &str) -> std::process::Output {
    bin().args(["store", "timeline"]).arg(store).args(["--cnpj", cnpj, "--format", format]).output().unwrap()
}

/// A published date as `YYYY-MM-DD`: `YYYYMMDD` (the register) or `DD/MM/YYYY` (PGFN's debts).
/// Blank, `null`, zeros and the impossible years the dataset writes (202, 4100) are no date.
fn published_date(v: Option<&str>) -> Option<String> {
    let t = v.map(str::trim).filter(|t| !t.is_empty())?;
    let (y, m, d) = match t.split('/').collect::<Vec<_>>()[..] {
        [d, m, y] => (y, m, d),
        _ if t.len() == 8 && t.is_ascii() => (&t[..4], &t[4..6], &t[6..]),
        _ => return None,
    };
    let year: i32 = y.parse().ok().filter(|y| (1800..=2100).contains(y))?;
    let date = chrono::NaiveDate::from_ymd_opt(year, m.parse().ok()?, d.parse().ok()?)?;
    Some(date.format("%Y-%m-%d").to_string())
}

/// The date the published records of `d` (the change's month) give `change`'s event: a
/// partner's entry, an inscription's date, the register's situation date, a Simples or MEI
/// option or exclusion. `None` for the changes the files do not date.
fn event_date(d: &Dataset, cnpj: &Cnpj, change: &Change) -> Option<String> {
    let profile = d.profile(cnpj).unwrap_or_default();
    let (s, x) = (profile.estabelecimento.unwrap_or_default(), profile.simples.unwrap_or_default());
    match change.1.as_str() {
        "sócio entrou" => {
            let socios = d.records_truth(cnpj)?.socios;
            let (_, (_, entry, _)) = socios.iter().find(|(k, _)| fold(k) == change.3)?;
            published_date(Some(entry))
        }
        "nova inscrição" | "nova corresponsabilidade" => {
            let rows = Categoria::ALL.into_iter().flat_map(|c| d.dividas(cnpj, c).unwrap_or_default());
            let row =
                rows.into_iter().find(|r| r.numero_inscricao.as_deref().map(str::trim) == Some(&change.3))?;
            published_date(row.data_inscricao.as_deref())
        }
        "situação cadastral alterada" => published_date(s.data_situacao_cadastral.as_deref()),
        "entrou no Simples" => published_date(x.data_opcao_simples.as_deref()),
        "saiu do Simples" => published_date(x.data_exclusao_simples.as_deref()),
        "entrou no MEI" => published_date(x.data_opcao_mei.as_deref()),
        "saiu do MEI" => published_date(x.data_exclusao_mei.as_deref()),
        _ => None,
    }
}

#[test]
fn four_months_on_a_store_give_each_company_its_timeline_dated_and_oldest_first() {
    let tmp = tempfile::tempdir().unwrap();
    let (store, portfolio_file) = (tmp.path().join("store"), tmp.path().join("carteira.txt"));
    let portfolio: Vec<Cnpj> = at("202609").demo_portfolio(80);
    let lines: Vec<String> = portfolio.iter().map(ToString::to_string).collect();
    std::fs::write(&portfolio_file, lines.join("\n")).unwrap();
    for month in MONTHS {
        run_month(&store, &portfolio_file, month, &tmp.path().join(month), &[]);
    }

    // The truth: each month's diff with the month before, with the snapshot it shows in.
    let datasets: Vec<Dataset> = MONTHS.iter().map(|m| at(m)).collect();
    let mut want: Vec<(String, Change)> = Vec::new();
    for (pair, month) in datasets.windows(2).zip(&MONTHS[1..]) {
        for c in &portfolio {
            let (b, a) = (pair[0].records_truth(c), pair[1].records_truth(c));
            want.extend(
                company_changes(c.as_str(), b.as_ref(), a.as_ref())
                    .into_iter()
                    .map(|ch| (month.to_string(), ch)),
            );
        }
    }
    want.sort();

    let file = tmp.path().join("202609/historico/linha_do_tempo.parquet");
    let (rows, df) = changes_in(&file);
    let snapshots = column(&df, "snapshot");
    let got: Vec<(String, Change)> = snapshots.iter().map(|s| s.clone().unwrap()).zip(rows.clone()).collect();
    let (cnpjs, kinds) = (column(&df, "cnpj"), column(&df, "mudanca"));
    let mut got = got;
    got.sort();
    assert_eq!(got.len(), want.len(), "rows of the timeline");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w);
    }
    let kinds_seen: std::collections::BTreeSet<&str> = want.iter().map(|(_, c)| c.1.as_str()).collect();
    assert!(kinds_seen.contains("sócio entrou") && kinds_seen.contains("nova inscrição"), "{kinds_seen:?}");

    // Each row's date and name against the truth: the date the published records give the event
    // (read here by this module's own rules), else the first day of the snapshot's month; the
    // name the register gives the company that month. In the documented order: CNPJ, date,
    // snapshot, table, key, change.
    let (dates, facts) = (column(&df, "data"), column(&df, "fato_datado"));
    let names = column(&df, "razao_social");
    let by_month: std::collections::BTreeMap<&str, &Dataset> =
        MONTHS.iter().copied().zip(&datasets).collect();
    let mut dated = 0;
    let mut order = Vec::new();
    for (i, change) in rows.iter().enumerate() {
        let snapshot = snapshots[i].clone().unwrap();
        let (d, cnpj) = (by_month[snapshot.as_str()], Cnpj::parse(&change.0).unwrap());
        let before = by_month[MONTHS[MONTHS.iter().position(|m| *m == snapshot).unwrap() - 1]];
        let event = event_date(d, &cnpj, change);
        let want_date = event.clone().unwrap_or_else(|| format!("{}-{}-01", &snapshot[..4], &snapshot[4..]));
        assert_eq!(dates[i].as_deref(), Some(want_date.as_str()), "row {i}: {change:?}");
        assert_eq!(facts[i].as_deref(), Some(if event.is_some() { "true" } else { "false" }), "row {i}");
        dated += usize::from(event.is_some());
        let register = d.records_truth(&cnpj).or_else(|| before.records_truth(&cnpj));
        let name =
            register.and_then(|r| r.razao_social).map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
        assert_eq!(names[i], name, "row {i}: razao_social");
        order.push((
            change.0.clone(),
            want_date,
            snapshot,
            change.2.clone(),
            change.3.clone(),
            change.1.clone(),
        ));
    }
    assert!(dated >= 2, "the timeline dates only {dated} rows by their event");
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted, "rows by CNPJ, date, snapshot, table, key, change");
    assert!(order.windows(2).any(|w| w[0].0 == w[1].0 && w[0].1 < w[1].1), "no company with two dates");

    // `store timeline` prints the same rows for one company, oldest first.
    let busiest = portfolio
        .iter()
        .max_by_key(|c| {
            want.iter()
                .filter(|(_, w)| w.0 == c.as_str())
                .map(|(s, _)| s)
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        })
        .unwrap();
    let o = timeline(&store, busiest.as_str(), "json");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let printed: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    let theirs: Vec<usize> =
        (0..df.height()).filter(|i| cnpjs[*i].as_deref() == Some(busiest.as_str())).collect();
    assert_eq!(printed.len(), theirs.len());
    assert!(printed.len() >= 2, "{busiest}: {printed:?}");
    for (p, i) in printed.iter().zip(&theirs) {
        assert_eq!(p["mudanca"].as_str(), kinds[*i].as_deref());
        assert_eq!(p["data"].as_str(), dates[*i].as_deref());
    }
    let o = timeline(&store, busiest.as_str(), "table");
    let table = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && table.starts_with("data") && table.lines().count() == theirs.len() + 2,
        "{table}"
    );

    // Its dossier, on that store, shows the same changes in its "Linha do tempo", oldest first.
    let dossiers = tmp.path().join("dossies");
    let o = bin()
        .args(["dossie", busiest.as_str(), "--store"])
        .arg(&store)
        .arg("--out")
        .arg(&dossiers)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(dossiers.join(format!("dossies/{}.md", busiest.as_str()))).unwrap();
    let start = page.find("## Linha do tempo").expect("the dossier's timeline");
    let end = page[start + 3..].find("\n## ").map_or(page.len(), |e| start + 3 + e);
    let section = &page[start..end];
    let rows: Vec<&str> =
        section.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| Data")).collect();
    assert_eq!(rows.len(), theirs.len(), "{section}");
    for (row, i) in rows.iter().zip(&theirs) {
        assert!(row.contains(kinds[*i].as_deref().unwrap()), "{row}");
    }
    insta::assert_snapshot!("dossier_timeline_md", section);

    // A company in no snapshot exits 5, as `store series`.
    let outside = (0..1000).map(|i| at("202609").company_cnpj(i)).find(|c| !portfolio.contains(c)).unwrap();
    let o = timeline(&store, outside.as_str(), "csv");
    assert_eq!(o.status.code(), Some(5), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Changes the demo portfolio's months rarely hold, found on the dataset: for each kind, a
/// company whose register changed that way from one month to the next shows it, before and
/// after, in that month's `mudancas`, equal to the truth's diff.
#[test]
fn each_rare_register_or_partner_change_shows_with_both_values() {
    let datasets: Vec<Dataset> = MONTHS.iter().map(|m| at(m)).collect();
    let latest = &datasets[MONTHS.len() - 1];
    let mut shown = Vec::new();
    for kind in [
        "capital social alterado",
        "CNAE principal alterado",
        "CNAEs secundários alterados",
        "sede mudou de município",
        "CEP da sede alterado",
        "endereço da sede alterado",
        "natureza jurídica alterada",
        "porte alterado",
        "qualificação do sócio alterada",
        "situação cadastral alterada",
    ] {
        let (cnpj, month) = (0..latest.company_count())
            .map(|i| latest.company_cnpj(i))
            .find_map(|c| {
                let truth: Vec<_> = datasets.iter().map(|d| d.records_truth(&c)).collect();
                (1..truth.len())
                    .find(|m| {
                        company_changes(c.as_str(), truth[m - 1].as_ref(), truth[*m].as_ref())
                            .iter()
                            .any(|ch| ch.1 == kind)
                    })
                    .map(|m| (c.clone(), m))
            })
            .unwrap_or_else(|| panic!("no company with {kind:?} between two of the months"));
        let tmp = tempfile::tempdir().unwrap();
        let (store, file) = (tmp.path().join("store"), tmp.path().join("carteira.txt"));
        std::fs::write(&file, cnpj.as_str()).unwrap();
        for m in [MONTHS[month - 1], MONTHS[month]] {
            run_month(&store, &file, m, &tmp.path().join(m), &["--ano-mes", m]);
        }
        let (b, a) = (datasets[month - 1].records_truth(&cnpj), datasets[month].records_truth(&cnpj));
        let mut want = company_changes(cnpj.as_str(), b.as_ref(), a.as_ref());
        let (mut got, _) = changes_in(&tmp.path().join(MONTHS[month]).join("aggregates/mudancas.parquet"));
        got.sort();
        want.sort();
        assert_eq!(got, want, "{kind}");
        // The company's dossier shows it in its "Linha do tempo", in pt-BR, before and after.
        let o = bin()
            .args(["dossie", cnpj.as_str(), "--store"])
            .arg(&store)
            .arg("--out")
            .arg(tmp.path().join("dossie"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let page =
            std::fs::read_to_string(tmp.path().join(format!("dossie/dossies/{}.md", cnpj.as_str()))).unwrap();
        let row = page
            .lines()
            .find(|l| l.starts_with("| ") && l.contains(&format!("| {kind} |")))
            .unwrap_or_else(|| panic!("{kind} not in the dossier's timeline: {page}"));
        shown.push(format!("{kind}: {}", row.split(" | ").skip(2).take(2).collect::<Vec<_>>().join(" → ")));
    }
    insta::assert_snapshot!("dossier_register_changes", shown.join("\n"));
}
