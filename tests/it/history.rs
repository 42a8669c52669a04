//! Twelve monthly runs of the embedded registry, moving through the months, into one store: the
//! series of the last run (`historico/`), its reports, a dossier and `store series` hold every
//! snapshot, each equal to the dataset's own truth at that month (amounts to the cent, each
//! inscription once; standings by the rule, from the records).

use std::collections::BTreeMap;
use std::path::Path;

use polars::prelude::*;
use rust_decimal::Decimal;

use crate::aggregates_truth::read;
use crate::changes::estimated_standing;
use crate::common_bin::*;
use fiscal_report::api::{AnoMes, Cnpj};
use fiscal_report::report::Locale;
use fiscal_report::report::format::{money, month};
use fiscal_report::simulator::{Dataset, RegistryConfig};

const SCALE: f64 = 0.05;
const MONTHS: [&str; 12] = [
    "202510", "202511", "202512", "202601", "202602", "202603", "202604", "202605", "202606", "202607",
    "202608", "202609",
];

fn dataset_at(m: &str) -> Dataset {
    Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE).as_of(AnoMes::parse(m).unwrap()).unwrap()
}

/// One month's run on the store (the last one also writes two dossiers).
fn run_month(dir: &Path, m: &str, dossiers: bool) -> std::path::PathBuf {
    let out = dir.join(format!("out-{m}"));
    let mut cmd = bin();
    // One month of credits each: the series follow the portfolio, not the credits.
    cmd.args(["--quiet", "run", "--demo-scale", "0.05", "--uf", "SP", "--as-of", m, "--ano-mes", m])
        .arg("--cnpjs")
        .arg(dir.join("carteira.txt"))
        .arg("--store")
        .arg(dir.join("store"))
        .arg("--out")
        .arg(&out);
    if dossiers {
        cmd.args(["--dossies", "2"]);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{m}: {}", String::from_utf8_lossy(&o.stderr));
    out
}

fn cents(df: &DataFrame, col: &str, row: usize) -> i128 {
    let c = df.column(col).unwrap().cast(&DataType::String).unwrap();
    let d: Decimal = c.str().unwrap().get(row).unwrap().parse().unwrap();
    (d * Decimal::from(100)).try_into().unwrap()
}

fn count(df: &DataFrame, col: &str, row: usize) -> i64 {
    df.column(col).unwrap().cast(&DataType::Int64).unwrap().i64().unwrap().get(row).unwrap()
}

fn strs(df: &DataFrame, col: &str) -> Vec<String> {
    df.column(col).unwrap().str().unwrap().iter().map(|v| v.unwrap_or_default().to_string()).collect()
}

/// The portfolio's exposure at one month, from the dataset's debts by role (each inscription
/// once, a company's plans once): (non-social-security, social security, FGTS, filed, plans,
/// settlements).
fn exposure_truth(d: &Dataset, cnpjs: &[Cnpj]) -> [i128; 6] {
    let roles = d.debt_roles_truth(cnpjs);
    let debt = |cat: &str| -> i128 {
        roles.values().filter_map(|c| c.counted.get(cat)).map(|(sim, nao)| i128::from(sim + nao)).sum()
    };
    [
        debt("nao_previdenciario"),
        debt("previdenciario"),
        debt("fgts"),
        roles.values().flat_map(|c| c.counted.values()).map(|(sim, _)| i128::from(*sim)).sum(),
        roles.values().map(|c| i128::from(c.counted_parcelamentos_cents)).sum(),
        roles.values().map(|c| i128::from(c.counted_transacoes_cents)).sum(),
    ]
}

/// Each known company's estimated standing at one month, by the rule on its records.
fn standings_truth(d: &Dataset, cnpjs: &[Cnpj]) -> BTreeMap<String, &'static str> {
    cnpjs
        .iter()
        .filter_map(|c| d.records_truth(c).map(|t| (c.as_str().to_string(), estimated_standing(&t))))
        .collect()
}

#[test]
fn twelve_monthly_runs_give_series_equal_to_the_truth_at_every_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    // Sixteen companies of the demo's portfolio, the first four of them ones whose standing
    // changes during the year (picked on the truth), so the series show a change.
    let datasets: Vec<Dataset> = MONTHS.iter().map(|m| dataset_at(m)).collect();
    let candidates = datasets[MONTHS.len() - 1].demo_portfolio(200);
    let moves = |c: &Cnpj| {
        let seen: Vec<Option<&'static str>> =
            datasets.iter().map(|d| d.records_truth(c).map(|t| estimated_standing(&t))).collect();
        seen.windows(2).any(|w| w[0].is_some() && w[1].is_some() && w[0] != w[1])
    };
    let mut cnpjs: Vec<Cnpj> = candidates.iter().filter(|c| moves(c)).take(4).cloned().collect();
    assert_eq!(cnpjs.len(), 4, "the dataset has companies whose standing changes");
    let quiet: Vec<Cnpj> = candidates.iter().filter(|c| !cnpjs.contains(c)).take(12).cloned().collect();
    cnpjs.extend(quiet);
    let text: Vec<String> = cnpjs.iter().map(|c| c.to_string()).collect();
    std::fs::write(dir.path().join("carteira.txt"), text.join("\n")).unwrap();
    let mut runs = Vec::new();
    for (k, m) in MONTHS.iter().enumerate() {
        runs.push(run_month(dir.path(), m, k == MONTHS.len() - 1));
    }
    let last = runs.last().unwrap();

    // The portfolio's exposure at every snapshot equals the dataset's at that month.
    let series = read(&last.join("historico/serie_exposicao_carteira.parquet"));
    assert_eq!(strs(&series, "snapshot"), MONTHS, "one point per monthly run");
    let standing = read(&last.join("historico/serie_situacao_fiscal.parquet"));
    assert_eq!(strs(&standing, "snapshot"), MONTHS);
    let mut by_month: Vec<BTreeMap<String, &'static str>> = Vec::new();
    for (i, (m, d)) in MONTHS.iter().zip(&datasets).enumerate() {
        let [nao_prev, prev, fgts, filed, parc, trans] = exposure_truth(d, &cnpjs);
        let got: Vec<i128> = ["nao_previdenciario", "previdenciario", "fgts", "divida_ajuizada"]
            .iter()
            .chain(&["parcelamentos_saldo", "transacoes_saldo", "exposicao_total"])
            .map(|c| cents(&series, c, i))
            .collect();
        let want = vec![nao_prev, prev, fgts, filed, parc, trans, nao_prev + prev + fgts + parc + trans];
        assert_eq!(got, want, "exposure at {m}");
        assert_eq!(cents(&series, "divida_nao_ajuizada", i), nao_prev + prev + fgts - filed, "{m}");
        // Companies per standing, by the rule on the records the dataset holds at that month.
        let truth = standings_truth(d, &cnpjs);
        let n = |class: &str| truth.values().filter(|s| **s == class).count() as i64;
        assert_eq!(
            [count(&standing, "sem_inscricoes", i), count(&standing, "positiva_com_efeitos_de_negativa", i)],
            [n("sem inscrições"), n("positiva com efeitos de negativa")],
            "standings at {m}"
        );
        assert_eq!(count(&standing, "irregular", i), n("irregular"), "irregular at {m}");
        assert_eq!(count(&standing, "empresas", i), truth.len() as i64, "companies known at {m}");
        by_month.push(truth);
    }
    // Some standing moved over the year, or the series would test nothing of their change.
    assert!(by_month.windows(2).any(|w| w[0] != w[1]), "no company changed standing in twelve months");

    // Since when each company holds its standing: walking back from the last month, the first
    // month of its unbroken stretch (months it was unknown do not break it).
    let since = read(&last.join("historico/situacao_fiscal_desde.parquet"));
    let got: BTreeMap<String, String> = strs(&since, "cnpj").into_iter().zip(strs(&since, "desde")).collect();
    let newest = by_month.last().unwrap();
    for (cnpj, class) in newest {
        let mut first = MONTHS.len() - 1;
        for k in (0..MONTHS.len()).rev() {
            match by_month[k].get(cnpj) {
                Some(c) if c == class => first = k,
                Some(_) => break,
                None => {}
            }
        }
        assert_eq!(got.get(cnpj), Some(&MONTHS[first].to_string()), "{cnpj} ({class}) since");
    }

    // The report shows every snapshot, in both formats.
    let md = std::fs::read_to_string(last.join("report.md")).unwrap();
    let title = "## Exposição da carteira em cada retrato";
    let section = &md[md.find(title).expect("the history section")..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    for (i, m) in MONTHS.iter().enumerate() {
        let total: Decimal = Decimal::from_i128_with_scale(cents(&series, "exposicao_total", i), 2);
        let row = format!("| {} |", month(m, Locale::PtBr));
        let line = section.lines().find(|l| l.starts_with(&row)).unwrap_or_else(|| panic!("no row for {m}"));
        assert!(line.ends_with(&format!("| {} |", money(total, Locale::PtBr))), "{line}");
    }
    let html = std::fs::read_to_string(last.join("report.html")).unwrap();
    let start = html.find("id=\"historico\"").expect("the history section in the HTML");
    assert!(html[start..].split("</section>").next().unwrap().contains("<polyline"), "a chart");

    // A dossier shows its company's twelve points and since when it holds its standing.
    let page = std::fs::read_dir(last.join("dossies"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .unwrap();
    let cnpj = page.file_stem().unwrap().to_str().unwrap().to_string();
    let dossier = std::fs::read_to_string(&page).unwrap();
    let hist = &dossier[dossier.find("Histórico da exposição").unwrap()..];
    let points = hist
        .lines()
        .filter(|l| MONTHS.iter().any(|m| l.starts_with(&format!("| {} |", month(m, Locale::PtBr)))))
        .count();
    assert_eq!(points, 12, "{hist}");
    let since_month = month(&got[&cnpj], Locale::PtBr);
    assert!(dossier.contains(&format!("desde {since_month}")), "since {since_month} in {cnpj}'s dossier");

    // `store series --cnpj`: that company's exposure at every snapshot, as each month's run had it.
    let o = bin()
        .args(["store", "series"])
        .arg(dir.path().join("store"))
        .args(["--cnpj", &cnpj])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = String::from_utf8(o.stdout).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (at, total_at) = (
        header.iter().position(|h| *h == "snapshot").unwrap(),
        header.iter().position(|h| *h == "exposicao_total").unwrap(),
    );
    let rows: Vec<Vec<String>> = lines.map(|l| l.split(',').map(String::from).collect()).collect();
    assert_eq!(rows.iter().map(|r| r[at].clone()).collect::<Vec<_>>(), MONTHS);
    for (row, out) in rows.iter().zip(&runs) {
        let month_agg = read(&out.join("aggregates/carteira_exposicao.parquet"));
        let i = strs(&month_agg, "cnpj").iter().position(|c| *c == cnpj).unwrap();
        assert_eq!(
            row[total_at].parse::<Decimal>().unwrap(),
            Decimal::from_i128_with_scale(cents(&month_agg, "exposicao_total", i), 2)
        );
    }
    // The portfolio's series as JSON: twelve objects, money as exact text.
    let o = bin()
        .args(["store", "series"])
        .arg(dir.path().join("store"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let points = json.as_array().unwrap();
    assert_eq!(points.len(), 12);
    for (i, p) in points.iter().enumerate() {
        let total: Decimal = p["exposicao_total"].as_str().unwrap().parse().unwrap();
        assert_eq!(total, Decimal::from_i128_with_scale(cents(&series, "exposicao_total", i), 2));
        assert!(p["irregular"].is_number());
    }
    // Parquet needs a file; an unknown company is exit 5.
    let o = bin()
        .args(["store", "series"])
        .arg(dir.path().join("store"))
        .args(["--format", "parquet"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let o = bin()
        .args(["store", "series"])
        .arg(dir.path().join("store"))
        .args(["--cnpj", "11.222.333/0001-81"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(5), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A store folder that does not exist is named, with exit 2, by the commands that only read.
#[test]
fn reading_a_store_that_does_not_exist_exits_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-store");
    for args in [&["store", "series"][..], &["store", "info"][..]] {
        let o = bin().args(args).arg(&missing).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("no store at") && err.contains("no-such-store"), "{err}");
    }
    assert!(!missing.exists(), "reading created nothing");
}
