//! The tax regime against the embedded dataset's own rows: the dataset writes RFB's regime files
//! beside its release (`entidades-*.zip`, one row per company, year and form) and
//! `Dataset::regime_truth` says each company's years, forms and Simples options from its own
//! generator, never through the reader or the SQL. `regime_carteira`, the debt by regime and the
//! changes a new year's ECF brings are checked against it.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common_bin::*;
use fiscal_report::api::Cnpj;
use fiscal_report::simulator::Dataset;
use fiscal_report::simulator::dataset::RegimeTruth;
use polars::prelude::*;

use super::open_data::{dataset_at, release_of as write_release};

fn read(path: &Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(path).unwrap()).finish().unwrap()
}

fn texts(df: &DataFrame, column: &str) -> Vec<Option<String>> {
    let c = df.column(column).unwrap().cast(&DataType::String).unwrap();
    c.str().unwrap().iter().map(|v| v.map(str::to_string)).collect()
}

/// A decimal's text (`1234.5`, `-3.00`) in cents.
fn cents(text: &str) -> i128 {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let frac = format!("{frac:0<2}");
    let sign = if whole.starts_with('-') { -1 } else { 1 };
    whole.parse::<i128>().unwrap() * 100 + sign * frac[..2].parse::<i128>().unwrap()
}

/// A company's row of `regime_carteira` as the truth makes it: (regime, regime_ecf, ano_ecf,
/// anos_ecf). The latest year's forms in the files' order, joined by " + ".
fn expected(t: &RegimeTruth) -> (String, Option<String>, Option<String>, String) {
    let ecf = t.anos.iter().next_back().map(|(ano, formas)| {
        (formas.iter().map(|f| f.nome()).collect::<Vec<_>>().join(" + "), ano.to_string())
    });
    let regime = if t.opcao_pelo_mei {
        "MEI".to_string()
    } else if t.opcao_pelo_simples {
        "Simples Nacional".to_string()
    } else {
        ecf.as_ref().map_or_else(|| "Não informado".to_string(), |(f, _)| f.clone())
    };
    let (forma, ano) = ecf.unzip();
    (regime, forma, ano, t.anos.len().to_string())
}

/// The demo's companies and, so each rule is met, the first companies that file from a branch,
/// have an SCP, or two forms in their latest year.
fn portfolio(d: &Dataset) -> Vec<Cnpj> {
    let mut out = d.demo_portfolio(50);
    let last = d.regime_last_year();
    let mut wanted = [2usize, 2, 1];
    for i in 0..d.company_count() {
        let rows = d.regime_rows(i);
        let head = d.company_cnpj(i);
        let kinds = [
            rows.iter().any(|r| r.cnpj != head),
            rows.iter().any(|r| r.cnpj_scp.is_some()),
            rows.iter().filter(|r| r.ano == last && r.cnpj_scp.is_none()).count() > 1,
        ];
        for (k, is) in kinds.into_iter().enumerate() {
            if is && wanted[k] > 0 {
                wanted[k] -= 1;
                out.push(head.clone());
            }
        }
        if wanted == [0, 0, 0] {
            break;
        }
    }
    assert_eq!(wanted, [0, 0, 0], "the dataset has every kind of filer");
    out.sort();
    out.dedup();
    out
}

fn run(dir: &Path, release: &Path, out: &str, extra: &[&str]) {
    let o = bin()
        .args(["--quiet", "run"])
        .args(extra)
        .arg("--open-data")
        .arg(release)
        .arg("--cnpjs")
        .arg(dir.join("carteira.txt"))
        .arg("--out")
        .arg(dir.join(out))
        .output()
        .unwrap();
    assert!(o.status.success(), "{out}: {}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn each_companys_regime_and_the_debt_by_regime_equal_the_datasets_truth() {
    let tmp = tempfile::tempdir().unwrap();
    let d = dataset_at("202609");
    let portfolio = portfolio(&d);
    let cnpjs: Vec<String> = portfolio.iter().map(ToString::to_string).collect();
    std::fs::write(tmp.path().join("carteira.txt"), cnpjs.join("\n")).unwrap();
    write_release("202609", &tmp.path().join("files"));
    run(tmp.path(), &tmp.path().join("files"), "run", &["--dossies", "8"]);
    let out = tmp.path().join("run");

    // Each company's regime, its latest ECF's form and year, and its years with an ECF.
    let truth = d.regime_truth(&portfolio);
    let want: BTreeMap<String, _> = truth.iter().map(|t| (t.cnpj.to_string(), expected(t))).collect();
    let df = read(&out.join("aggregates/regime_carteira.parquet"));
    let cols = ["cnpj", "regime", "regime_ecf", "ano_ecf", "anos_ecf"].map(|c| texts(&df, c));
    let got: BTreeMap<String, _> = (0..df.height())
        .map(|i| {
            let t = |k: usize| cols[k][i].clone();
            (t(0).unwrap(), (t(1).unwrap(), t(2), t(3), t(4).unwrap()))
        })
        .collect();
    assert_eq!(got, want);
    let regimes: std::collections::BTreeSet<&str> = want.values().map(|w| w.0.as_str()).collect();
    for kind in ["Simples Nacional", "Lucro Presumido", "Lucro Real", "Não informado"] {
        assert!(regimes.contains(kind), "the portfolio has {kind}: {regimes:?}");
    }
    let two = want.values().filter_map(|w| w.1.as_deref()).any(|f| f.contains(" + "));
    assert!(two, "a company with two forms in its latest ECF's year: {want:?}");

    // Every row of the portfolio's companies, SCPs' included, read once.
    let rows: usize = portfolio.iter().map(|c| d.regime_rows(d.company_index(c).unwrap()).len()).sum();
    let scps: usize = truth.iter().map(|t| t.scp_rows).sum();
    let table = read(&out.join("regime_tributario/part-0.parquet"));
    assert_eq!(table.height(), rows);
    assert_eq!(
        table.column("cnpj_scp").unwrap().len() - table.column("cnpj_scp").unwrap().null_count(),
        scps
    );
    assert!(scps > 0);

    // The debt by regime: each company's inscriptions credited to it (each once) summed apart,
    // by its regime. The files carry no instalment plan nor transaction: the debt is the whole
    // exposure.
    let roles = d.debt_roles_truth(&portfolio);
    let mut by: BTreeMap<String, (u64, i128)> = BTreeMap::new();
    for (cnpj, (regime, ..)) in &want {
        let e = by.entry(regime.clone()).or_default();
        e.0 += 1;
        let debt = roles.get(cnpj).map_or(0, |r| r.counted.values().map(|(sim, nao)| sim + nao).sum::<i64>());
        e.1 += i128::from(debt);
    }
    let total = (by.values().map(|v| v.0).sum(), by.values().map(|v| v.1).sum());
    by.insert("TOTAL".into(), total);
    let df = read(&out.join("aggregates/carteira_por_regime.parquet"));
    let cols = ["regime", "empresas", "exposicao_total"].map(|c| texts(&df, c));
    let got: BTreeMap<String, (u64, i128)> = (0..df.height())
        .map(|i| {
            let n = cols[1][i].as_deref().unwrap().parse().unwrap();
            (cols[0][i].clone().unwrap(), (n, cents(cols[2][i].as_deref().unwrap())))
        })
        .collect();
    assert_eq!(got, by);

    // The report shows it, the workbook's portfolio sheet has each company's, the manifest
    // names every file read.
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("### Por regime tributário da empresa"), "report.md");
    assert!(md.contains("| Lucro Real |"), "report.md");
    let cadastro = read(&out.join("aggregates/carteira_cadastro.parquet"));
    assert_eq!(texts(&cadastro, "regime_tributario").iter().flatten().count(), want.len());
    // Each dossier lists its company's years, newest first, with the forms of each.
    let mut dossiers = 0;
    for t in &truth {
        let Ok(page) = std::fs::read_to_string(out.join(format!("dossies/{}.md", t.cnpj))) else { continue };
        dossiers += 1;
        let section = page.split("## Regime tributário (ECF)").nth(1).unwrap().split("\n## ").next().unwrap();
        let cells =
            |l: &str| l.trim_matches('|').split('|').map(str::trim).map(str::to_string).collect::<Vec<_>>();
        let got: Vec<String> = section
            .lines()
            .filter(|l| l.starts_with("| 2"))
            .map(|l| format!("| {} | {}", cells(l)[0], cells(l)[1]))
            .collect();
        let want: Vec<String> = t
            .anos
            .iter()
            .rev()
            .map(|(ano, formas)| {
                format!("| {ano} | {}", formas.iter().map(|f| f.nome()).collect::<Vec<_>>().join(" + "))
            })
            .collect();
        assert_eq!(got, want, "dossier of {}", t.cnpj);
    }
    assert_eq!(dossiers, 8);
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let files: Vec<&str> =
        m["open_data"]["regime"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert!(files.iter().any(|f| f.ends_with("entidades-lucro-real.zip/Lucro Real.csv")), "{files:?}");
    assert!(files.iter().any(|f| f.ends_with("Lucro Presumido 2024.csv")), "{files:?}");
    assert!(m["open_data"]["unread"].as_array().is_none_or(Vec::is_empty), "{}", m["open_data"]["unread"]);
}

#[test]
fn a_new_years_ecf_in_another_form_is_a_change_and_a_month_without_the_files_carries_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (before, after) = (dataset_at("202512"), dataset_at("202601"));
    assert_eq!((before.regime_last_year(), after.regime_last_year()), (2023, 2024));
    let portfolio = before.demo_portfolio(80);
    let cnpjs: Vec<String> = portfolio.iter().map(ToString::to_string).collect();
    std::fs::write(tmp.path().join("carteira.txt"), cnpjs.join("\n")).unwrap();
    let store = tmp.path().join("store");
    let store_arg = ["--store", store.to_str().unwrap()];
    for month in ["202512", "202601", "202602"] {
        write_release(month, &tmp.path().join(month));
    }
    // February's folder without the regime files: RFB publishes them once a year.
    std::fs::remove_dir_all(tmp.path().join("202602/regime_tributario")).unwrap();
    for month in ["202512", "202601", "202602"] {
        run(tmp.path(), &tmp.path().join(month), &format!("out/{month}"), &store_arg);
    }

    // The truth: each company whose latest ECF's forms differ, both months having one.
    let ecf = |d: &Dataset| -> BTreeMap<String, String> {
        d.regime_truth(&portfolio)
            .iter()
            .filter_map(|t| {
                let (_, forma, ano, _) = expected(t);
                Some((t.cnpj.to_string(), format!("{} ({})", forma?, ano?)))
            })
            .collect()
    };
    let (was, now) = (ecf(&before), ecf(&after));
    let mut want: Vec<(String, String, String)> = now
        .iter()
        .filter_map(|(cnpj, n)| {
            let o = was.get(cnpj)?;
            let form = |s: &str| s.rsplit_once(" (").map(|(f, _)| f.to_string()).unwrap_or_default();
            (form(o) != form(n)).then(|| (cnpj.clone(), o.clone(), n.clone()))
        })
        .collect();
    want.sort();
    assert!(!want.is_empty(), "some company changed regime in 2024");
    let changes = |month: &str| -> Vec<(String, String, String)> {
        let df = read(&tmp.path().join(format!("out/{month}/aggregates/mudancas.parquet")));
        let cols = ["cnpj", "mudanca", "valor_anterior", "valor_novo"].map(|c| texts(&df, c));
        let mut rows: Vec<_> = (0..df.height())
            .filter(|i| cols[1][*i].as_deref() == Some("mudou de regime"))
            .map(|i| (cols[0][i].clone().unwrap(), cols[2][i].clone().unwrap(), cols[3][i].clone().unwrap()))
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(changes("202601"), want);
    // A month without the files: no regime change, and the ECF kept from the snapshot before.
    assert_eq!(changes("202602"), vec![]);
    let kept = |month: &str| {
        let df = read(&tmp.path().join(format!("out/{month}/aggregates/regime_carteira.parquet")));
        let cols = ["cnpj", "regime_ecf", "ano_ecf"].map(|c| texts(&df, c));
        (0..df.height())
            .map(|i| (cols[0][i].clone(), cols[1][i].clone(), cols[2][i].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(kept("202602"), kept("202601"));
    let md = std::fs::read_to_string(tmp.path().join("out/202602/report.md")).unwrap();
    assert!(md.contains("Os arquivos de regime tributário da RFB não foram lidos"), "report.md says so");
    // The timeline of the last run holds January's regime changes.
    let timeline = read(&tmp.path().join("out/202602/historico/linha_do_tempo.parquet"));
    let kinds = texts(&timeline, "mudanca");
    assert_eq!(kinds.iter().filter(|k| k.as_deref() == Some("mudou de regime")).count(), want.len());
}
