//! Twelve monthly runs of the embedded registry, moving through the months, into one store: the
//! series of the last run (`historico/`), its reports, a dossier and `store series` hold every
//! snapshot, each equal to the dataset's own truth at that month (amounts to the cent, each
//! inscription once; standings by the rule, from the records). Each run's comparisons with the
//! snapshot before it (the change in exposure, the standings of both snapshots) equal the truth
//! at the two months.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use polars::prelude::*;
use rust_decimal::Decimal;

use crate::aggregates_truth::read;
use crate::changes::{estimated_standing, fold};
use crate::common_bin::*;
use crate::queries_truth::{OWN_AMOUNTS, Own, assert_pct, floats, own_exposures, pct, texts};
use fiscal_report::api::{AnoMes, Categoria, Cnpj};
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

/// The twelve monthly runs on one store and the portfolio they follow, made once for every
/// test here.
struct History {
    dir: PathBuf,
    cnpjs: Vec<Cnpj>,
    /// Each month's output folder, in `MONTHS` order.
    runs: Vec<PathBuf>,
    /// The dataset at each of `MONTHS`: the truth of every test here.
    datasets: Vec<Dataset>,
}

fn history() -> &'static History {
    static HISTORY: OnceLock<History> = OnceLock::new();
    HISTORY.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
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
        // A holding with the subsidiaries whose debts it answers for, and a second holding with
        // one subsidiary (as in debts_counted_once.rs): inscriptions shared inside the
        // portfolio, so a series that summed each debtor's exposure would not equal the truth.
        let last = &datasets[MONTHS.len() - 1];
        for i in [72, 73, 74, 133, 134] {
            let c = last.company_cnpj(i);
            if !cnpjs.contains(&c) {
                cnpjs.push(c);
            }
        }
        let text: Vec<String> = cnpjs.iter().map(|c| c.to_string()).collect();
        std::fs::write(dir.join("carteira.txt"), text.join("\n")).unwrap();
        let runs: Vec<PathBuf> =
            MONTHS.iter().enumerate().map(|(k, m)| run_month(&dir, m, k == MONTHS.len() - 1)).collect();
        History { dir, cnpjs, runs, datasets }
    })
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
    let h = history();
    let (cnpjs, runs): (&[Cnpj], &[PathBuf]) = (&h.cnpjs, &h.runs);
    let datasets = &h.datasets;
    let last = runs.last().unwrap();

    // The portfolio's exposure at every snapshot equals the dataset's at that month.
    let series = read(&last.join("historico/serie_exposicao_carteira.parquet"));
    assert_eq!(strs(&series, "snapshot"), MONTHS, "one point per monthly run");
    let standing = read(&last.join("historico/serie_situacao_fiscal.parquet"));
    assert_eq!(strs(&standing, "snapshot"), MONTHS);
    let mut by_month: Vec<BTreeMap<String, &'static str>> = Vec::new();
    for (i, (m, d)) in MONTHS.iter().zip(datasets).enumerate() {
        let [nao_prev, prev, fgts, filed, parc, trans] = exposure_truth(d, cnpjs);
        let got: Vec<i128> = ["nao_previdenciario", "previdenciario", "fgts", "divida_ajuizada"]
            .iter()
            .chain(&["parcelamentos_saldo", "transacoes_saldo", "exposicao_total"])
            .map(|c| cents(&series, c, i))
            .collect();
        let want = vec![nao_prev, prev, fgts, filed, parc, trans, nao_prev + prev + fgts + parc + trans];
        assert_eq!(got, want, "exposure at {m}");
        let plain: i128 = own_exposures(d, cnpjs).values().map(|o| o.exposicao).sum();
        assert!(plain > want[6], "{m}: no inscription shared, so a plain sum would pass");
        assert_eq!(cents(&series, "divida_nao_ajuizada", i), nao_prev + prev + fgts - filed, "{m}");
        // Companies per standing, by the rule on the records the dataset holds at that month.
        let truth = standings_truth(d, cnpjs);
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
    let o =
        bin().args(["store", "series"]).arg(h.dir.join("store")).args(["--cnpj", &cnpj]).output().unwrap();
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
    for (row, out) in rows.iter().zip(runs) {
        let month_agg = read(&out.join("aggregates/carteira_exposicao.parquet"));
        let i = strs(&month_agg, "cnpj").iter().position(|c| *c == cnpj).unwrap();
        assert_eq!(
            row[total_at].parse::<Decimal>().unwrap(),
            Decimal::from_i128_with_scale(cents(&month_agg, "exposicao_total", i), 2)
        );
    }
    // The portfolio's series as JSON: twelve objects, money as exact text.
    let o =
        bin().args(["store", "series"]).arg(h.dir.join("store")).args(["--format", "json"]).output().unwrap();
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
        .arg(h.dir.join("store"))
        .args(["--format", "parquet"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let o = bin()
        .args(["store", "series"])
        .arg(h.dir.join("store"))
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

/// Each company's own exposure at each of `MONTHS`, by bare CNPJ (`queries_truth`: every
/// inscription it owes in any role once, from its records in cents; its plans' and settlements'
/// balances).
fn own_by_month(datasets: &[Dataset], cnpjs: &[Cnpj]) -> Vec<BTreeMap<String, Own>> {
    datasets.iter().map(|d| own_exposures(d, cnpjs)).collect()
}

/// Query 23 (`variacao_exposicao`) in each run: every portfolio company also in the snapshot
/// before, what it owed then and owes now (its own exposure at the two months), the change in
/// R$ and in %, largest rise first; none in the store's first run.
#[test]
fn each_runs_change_in_exposure_equals_the_truth_at_its_month_and_the_one_before() {
    let h = history();
    let own = own_by_month(&h.datasets, &h.cnpjs);
    let first = read(&h.runs[0].join("aggregates/variacao_exposicao.parquet"));
    assert_eq!(first.height(), 0, "the store's first run has no snapshot to compare with");
    let mut moved = 0;
    for k in 1..MONTHS.len() {
        let (before, now) = (&own[k - 1], &own[k]);
        // (cnpj, razao_social, exposure before, exposure now)
        let mut want: Vec<(String, Option<String>, i128, i128)> = now
            .values()
            .filter_map(|o| {
                before
                    .get(&o.cnpj)
                    .map(|b| (o.cnpj.clone(), o.razao_social.clone(), b.exposicao, o.exposicao))
            })
            .collect();
        want.sort_by(|a, b| (b.3 - b.2).cmp(&(a.3 - a.2)).then_with(|| a.0.cmp(&b.0)));
        assert!(!want.is_empty(), "{}: no company in both snapshots", MONTHS[k]);

        let df = read(&h.runs[k].join("aggregates/variacao_exposicao.parquet"));
        assert_eq!(df.height(), want.len(), "{}: one row per company in both snapshots", MONTHS[k]);
        let (snapshot, previous, cnpj) =
            (strs(&df, "snapshot"), strs(&df, "snapshot_anterior"), strs(&df, "cnpj"));
        let (names, change_pct) = (texts(&df, "razao_social"), floats(&df, "variacao_percentual"));
        for (i, (id, name, was, is)) in want.iter().enumerate() {
            let what = format!("{id} in the run of {}", MONTHS[k]);
            assert_eq!((snapshot[i].as_str(), previous[i].as_str()), (MONTHS[k], MONTHS[k - 1]), "{what}");
            assert_eq!(&cnpj[i], id, "{}: rows by change, largest first, then CNPJ", MONTHS[k]);
            assert_eq!(&names[i], name, "{what}: razao_social");
            let got = ["exposicao_anterior", "exposicao_atual", "variacao"].map(|c| cents(&df, c, i));
            assert_eq!(got, [*was, *is, is - was], "{what}: before, now, change");
            assert_pct(
                change_pct[i],
                (*was > 0).then(|| pct(is - was, *was)),
                &format!("{what}: variacao_percentual"),
            );
            moved += usize::from(was != is);
        }
    }
    assert!(moved > 0, "no company's exposure moved in eleven months: the test would prove little");
}

/// `historico/serie_exposicao_empresa` (historico/04) of the last run: each company at each
/// snapshot, its own exposure and its estimated standing at that month.
#[test]
fn each_companys_exposure_and_standing_at_every_snapshot_equal_the_truth_at_that_month() {
    let h = history();
    let datasets = &h.datasets;
    let own = own_by_month(datasets, &h.cnpjs);
    // (razao_social, [filed, not filed, as principal, as co-debtor, plans, settlements, total],
    // standing)
    type Point = (Option<String>, [i128; 7], Option<String>);
    let mut want: BTreeMap<(String, String), Point> = BTreeMap::new();
    for ((m, d), companies) in MONTHS.iter().zip(datasets).zip(&own) {
        let standings = standings_truth(d, &h.cnpjs);
        for (cnpj, o) in companies {
            let amounts = [
                o.ajuizada,
                o.nao_ajuizada,
                o.principal,
                o.corresponsavel,
                o.parcelamentos,
                o.transacoes,
                o.exposicao,
            ];
            let standing = standings.get(cnpj).map(|s| s.to_string());
            want.insert((cnpj.clone(), m.to_string()), (o.razao_social.clone(), amounts, standing));
        }
    }
    assert!(want.values().any(|p| p.1[3] > 0), "no co-debtor's exposure: the test would prove little");

    let df = read(&h.runs.last().unwrap().join("historico/serie_exposicao_empresa.parquet"));
    let keys: Vec<(String, String)> = strs(&df, "cnpj").into_iter().zip(strs(&df, "snapshot")).collect();
    assert_eq!(
        keys,
        want.keys().cloned().collect::<Vec<_>>(),
        "one row per company and snapshot it was in, by CNPJ then snapshot"
    );
    let (names, standing) = (texts(&df, "razao_social"), texts(&df, "situacao_fiscal_estimada"));
    for (i, (key, w)) in want.iter().enumerate() {
        let got: Point = (names[i].clone(), OWN_AMOUNTS.map(|c| cents(&df, c, i)), standing[i].clone());
        assert_eq!(&got, w, "{key:?}");
    }
}

/// `historico/serie_carteira` (historico/05) of the last run: at each snapshot, the portfolio's
/// exposure (each inscription once) beside its companies per estimated standing; and the
/// companies found and owing in `historico/serie_exposicao_carteira` (historico/01), whose
/// amounts the test above checks.
#[test]
fn the_portfolio_series_holds_each_snapshots_exposure_beside_its_standings() {
    let h = history();
    let datasets = &h.datasets;
    let own = own_by_month(datasets, &h.cnpjs);
    let df = read(&h.runs.last().unwrap().join("historico/serie_carteira.parquet"));
    assert_eq!(strs(&df, "snapshot"), MONTHS, "one row per snapshot, oldest first");
    let exposure = read(&h.runs.last().unwrap().join("historico/serie_exposicao_carteira.parquet"));
    assert_eq!(strs(&exposure, "snapshot"), MONTHS, "one row per snapshot, oldest first");
    let mut shared = 0;
    for (i, ((m, d), companies)) in MONTHS.iter().zip(datasets).zip(&own).enumerate() {
        let [nao_prev, prev, fgts, filed, parc, trans] = exposure_truth(d, &h.cnpjs);
        let amounts = [
            "nao_previdenciario",
            "previdenciario",
            "fgts",
            "divida_ajuizada",
            "divida_nao_ajuizada",
            "parcelamentos_saldo",
            "transacoes_saldo",
            "exposicao_total",
        ]
        .map(|c| cents(&df, c, i));
        let want = [nao_prev, prev, fgts, filed, nao_prev + prev + fgts - filed, parc, trans];
        assert_eq!(&amounts[..7], &want[..], "exposure at {m}");
        assert_eq!(amounts[7], nao_prev + prev + fgts + parc + trans, "exposicao_total at {m}");
        // Where companies share inscriptions, each debtor's own exposure summed is larger: the
        // comparison above tells the counted total from the plain sum there.
        let plain: i128 = companies.values().map(|o| o.exposicao).sum();
        shared += usize::from(plain > amounts[7]);

        let standings = standings_truth(d, &h.cnpjs);
        let n = |class: &str| standings.values().filter(|s| **s == class).count() as i64;
        let counts = [
            "empresas_encontradas",
            "com_divida",
            "sem_inscricoes",
            "positiva_com_efeitos_de_negativa",
            "irregular",
        ]
        .map(|c| count(&df, c, i));
        let owing = companies.values().filter(|o| o.exposicao > 0).count() as i64;
        let want = [
            companies.len() as i64,
            owing,
            n("sem inscrições"),
            n("positiva com efeitos de negativa"),
            n("irregular"),
        ];
        assert_eq!(counts, want, "companies found, owing, and per standing at {m}");
        let companies_in_exposure = ["empresas_encontradas", "com_divida"].map(|c| count(&exposure, c, i));
        assert_eq!(companies_in_exposure, [want[0], want[1]], "serie_exposicao_carteira: companies at {m}");
    }
    assert_eq!(shared, MONTHS.len(), "months where the portfolio shares no inscription");
}

/// `historico/situacao_fiscal_desde` (historico/03) of the last run: each company of the newest
/// snapshot, its standing, the first snapshot of its unbroken stretch in it and how many
/// snapshots the stretch holds (a month the company was unknown does not break it).
#[test]
fn since_when_each_company_holds_its_standing_and_for_how_many_snapshots() {
    let h = history();
    let by_month: Vec<BTreeMap<String, &'static str>> =
        h.datasets.iter().map(|d| standings_truth(d, &h.cnpjs)).collect();
    // cnpj -> (standing, since, snapshots in the stretch)
    let mut want: BTreeMap<String, (String, String, i64)> = BTreeMap::new();
    for (cnpj, class) in by_month.last().unwrap() {
        let (mut since, mut snapshots) = (MONTHS.len() - 1, 0);
        for k in (0..MONTHS.len()).rev() {
            match by_month[k].get(cnpj) {
                Some(c) if c == class => {
                    since = k;
                    snapshots += 1;
                }
                Some(_) => break,
                None => {}
            }
        }
        want.insert(cnpj.clone(), (class.to_string(), MONTHS[since].to_string(), snapshots));
    }
    assert!(
        want.values().any(|w| w.2 < MONTHS.len() as i64),
        "every company held its standing all year: the test would prove little"
    );

    let df = read(&h.runs.last().unwrap().join("historico/situacao_fiscal_desde.parquet"));
    assert_eq!(
        strs(&df, "cnpj"),
        want.keys().cloned().collect::<Vec<_>>(),
        "one row per company of the newest snapshot, by CNPJ"
    );
    let (standing, since) = (strs(&df, "situacao_fiscal_estimada"), strs(&df, "desde"));
    for (i, (cnpj, w)) in want.iter().enumerate() {
        let got = (standing[i].clone(), since[i].clone(), count(&df, "retratos", i));
        assert_eq!(&got, w, "{cnpj}: standing, since, snapshots");
    }
}

/// Collection statuses that suspend collection in query 19's rule, folded.
const SUSPENDED: [&str; 4] =
    ["GARANTIA", "SUSPENSO POR DECISAO JUDICIAL", "EM NEGOCIACAO", "BENEFICIO FISCAL"];

/// A known company's published debt rows at one month (one per debtor row, as query 19 counts
/// them): (rows, rows whose status does not suspend collection).
pub(crate) fn debt_rows(d: &Dataset, cnpj: &Cnpj) -> Option<(i64, i64)> {
    d.profile(cnpj)?;
    let rows: Vec<_> =
        Categoria::ALL.into_iter().flat_map(|c| d.dividas(cnpj, c).unwrap_or_default()).collect();
    let suspended = |t: Option<&str>| t.is_some_and(|t| SUSPENDED.contains(&fold(t).as_str()));
    let in_collection = rows.iter().filter(|r| !suspended(r.tipo_situacao_inscricao.as_deref())).count();
    Some((rows.len() as i64, in_collection as i64))
}

/// Query 19 (`situacao_fiscal_por_retrato`) in each run: every company of this snapshot
/// ("agora") and of the one before ("antes"), its debt rows, those in collection, its standing
/// and the standing's severity, from the records the dataset publishes at each month.
#[test]
fn each_run_applies_the_standing_rule_to_its_snapshot_and_the_one_before() {
    let h = history();
    let datasets = &h.datasets;
    let at: Vec<BTreeMap<String, (i64, i64)>> = datasets
        .iter()
        .map(|d| {
            h.cnpjs.iter().filter_map(|c| debt_rows(d, c).map(|r| (c.as_str().to_string(), r))).collect()
        })
        .collect();
    let mut classes = std::collections::BTreeSet::new();
    for (k, out) in h.runs.iter().enumerate() {
        let mut want: BTreeMap<(String, String), (i64, i64)> = BTreeMap::new();
        for (cnpj, r) in &at[k] {
            want.insert((cnpj.clone(), "agora".to_string()), *r);
        }
        if k > 0 {
            for (cnpj, r) in &at[k - 1] {
                want.insert((cnpj.clone(), "antes".to_string()), *r);
            }
        }
        let df = read(&out.join("aggregates/situacao_fiscal_por_retrato.parquet"));
        let keys: Vec<(String, String)> = strs(&df, "cnpj").into_iter().zip(strs(&df, "retrato")).collect();
        assert_eq!(
            keys,
            want.keys().cloned().collect::<Vec<_>>(),
            "{}: one row per company and snapshot, by CNPJ then retrato",
            MONTHS[k]
        );
        let standing = strs(&df, "situacao_fiscal_estimada");
        for (i, (key, (rows, in_collection))) in want.iter().enumerate() {
            let (class, severity) = match (*rows, *in_collection) {
                (0, _) => ("sem inscrições", 0),
                (_, 0) => ("positiva com efeitos de negativa", 1),
                _ => ("irregular", 2),
            };
            classes.insert(class);
            let got = (
                count(&df, "inscricoes_ativas", i),
                count(&df, "inscricoes_em_cobranca", i),
                standing[i].as_str(),
                count(&df, "gravidade", i),
            );
            assert_eq!(got, (*rows, *in_collection, class, severity), "{key:?} in the run of {}", MONTHS[k]);
        }
    }
    assert!(classes.len() > 1, "every company in one standing at every month: the test would prove little");
}
