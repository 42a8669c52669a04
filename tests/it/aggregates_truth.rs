//! A finished demo run checked from the outside: every file listed once with its rows, the
//! aggregate totals equal to the embedded registry's ground truth to the cent, and every
//! aggregate recomputed by DuckDB from the exported raw Parquet with the same .sql files.

use crate::common_bin;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common_bin::*;
use fiscal_report::api::{AnoMes, Cnpj};
use fiscal_report::export::manifest::Manifest;
use fiscal_report::simulator::{Dataset, RegistryConfig};
use polars::prelude::*;

pub(crate) const SCALE: f64 = 0.05;

pub(crate) struct Run {
    pub out: PathBuf,
    pub cnpjs: Vec<Cnpj>,
}

/// 13 months (so year-over-year exists), all 27 states, 40 companies and one unknown CNPJ.
pub(crate) fn run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
        let mut cnpjs = d.demo_portfolio(40);
        cnpjs.push(Cnpj::parse("99.999.999/0001-91").unwrap());
        let text: Vec<String> = cnpjs.iter().map(|c| c.to_string()).collect();
        let out =
            demo_run_into(&dir, &text, &["--demo-scale", &SCALE.to_string(), "--ano-mes", "202509:202609"]);
        Run { out, cnpjs }
    })
}

pub(crate) fn read(path: &Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(path).unwrap()).finish().unwrap()
}

/// Cents of a Decimal(_, 2) column at `row`.
fn cents(df: &DataFrame, col: &str, row: usize) -> i128 {
    let c = df.column(col).unwrap();
    assert!(matches!(c.dtype(), DataType::Decimal(_, 2)), "{col} is {:?}", c.dtype());
    c.decimal().unwrap().physical().get(row).unwrap()
}

fn row_where(df: &DataFrame, col: &str, value: &str) -> usize {
    let s = df.column(col).unwrap().str().unwrap();
    (0..df.height()).find(|i| s.get(*i) == Some(value)).unwrap_or_else(|| panic!("no {col} = {value}"))
}

#[test]
fn every_file_is_listed_once_with_its_rows() {
    let r = run();
    let m = Manifest::read(&r.out).unwrap();
    let paths: BTreeSet<&str> = m.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths.len(), m.files.len(), "a path is listed twice");
    let mut by_table: BTreeMap<String, u64> = BTreeMap::new();
    for f in &m.files {
        let bytes = std::fs::read(r.out.join(&f.path)).unwrap();
        assert_eq!(bytes.len() as u64, f.bytes, "{}", f.path);
        if f.path.ends_with(".parquet") && !f.path.starts_with("aggregates/") {
            *by_table.entry(f.path.split('/').next().unwrap().to_string()).or_default() += f.rows;
        }
    }
    for (table, n) in &m.fetch.records {
        assert_eq!(by_table.get(table), Some(n), "{table}: rows exported vs records fetched");
    }
}

#[test]
fn credit_totals_equal_the_ground_truth_to_the_cent() {
    let r = run();
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
    let total = read(&r.out.join("aggregates/creditos_total_mensal.parquet"));
    assert_eq!(total.height(), 13);
    for i in 0..total.height() {
        let m = total.column("ano_mes").unwrap().str().unwrap().get(i).unwrap().to_string();
        let truth = d.creditos_cents(None, Some(AnoMes::parse(&m).unwrap()));
        assert_eq!(cents(&total, "valor_total", i), truth, "national total of {m}");
    }
    let latest = d.latest_month();
    let by_uf = read(&r.out.join("aggregates/creditos_por_uf.parquet"));
    for uf in ["SP", "AC", "TOTAL"] {
        let want = d.creditos_cents((uf != "TOTAL").then_some(uf), Some(latest));
        assert_eq!(cents(&by_uf, "valor_total", row_where(&by_uf, "uf", uf)), want, "{uf}");
    }
    for (table, key) in [
        ("creditos_por_cnae_secao", "cnae_secao_cod"),
        ("creditos_por_grupo_tributo", "grupo_tributo"),
        ("creditos_por_situacao", "situacao"),
        ("creditos_por_tipo_contribuinte", "tipo_contribuinte"),
        ("creditos_por_natureza_juridica", "natureza_juridica"),
    ] {
        let df = read(&r.out.join(format!("aggregates/{table}.parquet")));
        let want = d.creditos_cents(None, Some(latest));
        assert_eq!(cents(&df, "valor_total", row_where(&df, key, "TOTAL")), want, "{table} total");
        let parts: i128 = (0..df.height())
            .filter(|i| *i != row_where(&df, key, "TOTAL"))
            .map(|i| cents(&df, "valor_total", i))
            .sum();
        assert_eq!(parts, want, "{table}: rows add up to the total");
    }
    // Year over year exists: 13 months were fetched.
    let yoy = total.column("variacao_ano").unwrap();
    assert!(yoy.get(12).map(|v| !v.is_null()).unwrap());
}

#[test]
fn portfolio_exposure_equals_the_ground_truth_to_the_cent() {
    let r = run();
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
    let t = d.portfolio_truth(&r.cnpjs);
    // Each inscription once, however many portfolio companies owe it (principal and co-debtors),
    // and each company's plans once, however many of its CNPJs the portfolio lists.
    let roles = d.debt_roles_truth(&r.cnpjs);
    let resumo = read(&r.out.join("aggregates/carteira_resumo.parquet"));
    let debt = |cat: &str| -> i128 {
        roles.values().filter_map(|c| c.counted.get(cat)).map(|(sim, nao)| i128::from(sim + nao)).sum()
    };
    let filed: i128 = roles.values().flat_map(|c| c.counted.values()).map(|(sim, _)| i128::from(*sim)).sum();
    let parc: i128 = roles.values().map(|c| i128::from(c.counted_parcelamentos_cents)).sum();
    let trans: i128 = roles.values().map(|c| i128::from(c.counted_transacoes_cents)).sum();
    assert_eq!(cents(&resumo, "nao_previdenciario", 0), debt("nao_previdenciario"));
    assert_eq!(cents(&resumo, "previdenciario", 0), debt("previdenciario"));
    assert_eq!(cents(&resumo, "fgts", 0), debt("fgts"));
    assert_eq!(cents(&resumo, "divida_ajuizada", 0), filed);
    assert_eq!(cents(&resumo, "parcelamentos_saldo", 0), parc);
    assert_eq!(cents(&resumo, "transacoes_saldo", 0), trans);
    assert_eq!(
        cents(&resumo, "exposicao_total", 0),
        debt("nao_previdenciario") + debt("previdenciario") + debt("fgts") + parc + trans
    );
    let int =
        |c: &str| resumo.column(c).unwrap().cast(&DataType::Int64).unwrap().i64().unwrap().get(0).unwrap();
    assert_eq!(int("encontradas") as usize, t.found);
    assert_eq!(int("nao_encontradas") as usize, t.not_found);
    // Values the generator made unparseable are counted, not silently zero.
    let dq = read(&r.out.join("aggregates/data_quality.parquet"));
    let unparseable: usize = t.companies.iter().map(|c| c.parcelamentos.unparseable).sum();
    let counted: i64 = (0..dq.height())
        .filter(|i| {
            dq.column("tabela").unwrap().str().unwrap().get(*i) == Some("parcelamentos_rfb")
                && dq.column("coluna").unwrap().str().unwrap().get(*i) == Some("saldo_devedor")
        })
        .map(|i| dq.column("falhas").unwrap().i64().unwrap().get(i).unwrap())
        .sum();
    assert_eq!(counted as usize, unparseable);
}

#[test]
fn duckdb_recomputes_every_aggregate_and_pyarrow_reads_every_file() {
    if !super::common_bin::python_with("duckdb, pyarrow") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = std::process::Command::new("python3")
        .arg(root.join("tests/interop/check_engines.py"))
        .arg(&run().out)
        .arg(root.join("queries"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.lines().last().is_some_and(|l| l.ends_with(" 0 failed")), "{stdout}");
}

/// The service's summaries checked against the records: `conciliacao_resumos` lists exactly
/// the summaries that disagree with the lists the dataset serves (the synthetic service has a
/// few companies whose debt summary lags its list), and `data_quality` counts them.
#[test]
fn the_summaries_that_disagree_with_the_records_are_listed_and_counted() {
    let r = run();
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
    let cents_of = |t: &str| {
        let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
        whole.parse::<i64>().unwrap() * 100 + format!("{frac:0<2}")[..2].parse::<i64>().unwrap()
    };
    // (cnpj, list, records the summary says, records served, cents it says, cents served),
    // ordered as the query documents (CNPJ, table, categoria: the list's name sorts the same).
    type Disagreement = (String, String, i64, i64, i64, i64);
    let mut want: BTreeSet<Disagreement> = BTreeSet::new();
    let mut names: BTreeMap<String, Option<String>> = BTreeMap::new();
    for cnpj in &r.cnpjs {
        let (Some(profile), Some(truth)) = (d.profile(cnpj), d.records_truth(cnpj)) else { continue };
        let name = profile.empresa.as_ref().and_then(|e| e.razao_social.as_deref()).map(str::trim);
        names.insert(cnpj.as_str().to_string(), name.filter(|n| !n.is_empty()).map(str::to_string));
        for (key, summary) in profile.resumos.unwrap_or_default() {
            let (count, sum): (usize, i64) = match key.strip_prefix("dividas_pgfn_") {
                Some(cat) => {
                    let rows: Vec<_> = truth.dividas.values().filter(|x| x.categoria == cat).collect();
                    (rows.len(), rows.iter().filter_map(|x| x.valor_cents).sum())
                }
                None if key == "parcelamentos_rfb" => {
                    (truth.parcelamentos.len(), truth.parcelamentos.values().flatten().sum())
                }
                None => (truth.transacoes.len(), truth.transacoes.values().flatten().sum()),
            };
            let (said, said_cents) =
                (summary.total.unwrap(), cents_of(summary.valor_total.as_deref().unwrap()));
            if said != count as i64 || said_cents != sum {
                let list = key.replace("dividas_pgfn_", "dividas_pgfn/");
                want.insert((cnpj.as_str().to_string(), list, said, count as i64, said_cents, sum));
            }
        }
    }
    assert!(!want.is_empty(), "no summary disagrees in this portfolio: the test would prove nothing");
    // Without these a reversed order or a flipped sign of `diferenca` would pass.
    assert!(want.len() >= 2, "one disagreement alone cannot check the order");
    assert!(want.iter().any(|w| w.4 != w.5), "no disagreement in money: diferenca's sign goes unchecked");

    let df = read(&r.out.join("aggregates/conciliacao_resumos.parquet"));
    let text = |c: &str, i: usize| df.column(c).unwrap().get(i).unwrap().get_str().map(str::to_string);
    let int = |c: &str, i: usize| {
        df.column(c).unwrap().cast(&DataType::Int64).unwrap().i64().unwrap().get(i).unwrap()
    };
    // Every column, in the row order the query documents: the name the register gives, and the
    // difference as the summary's amount less the amount received.
    type Row = (Disagreement, Option<String>, i64);
    let got: Vec<Row> = (0..df.height())
        .map(|i| {
            let list = match text("categoria", i) {
                Some(cat) => format!("{}/{cat}", text("tabela", i).unwrap()),
                None => text("tabela", i).unwrap(),
            };
            let money = |c: &str| i64::try_from(cents(&df, c, i)).unwrap();
            let key = (
                text("cnpj", i).unwrap(),
                list,
                int("registros_no_resumo", i),
                int("registros_recebidos", i),
                money("valor_no_resumo"),
                money("valor_recebido"),
            );
            (key, text("razao_social", i), money("diferenca"))
        })
        .collect();
    let want_rows: Vec<Row> = want.iter().map(|w| (w.clone(), names[&w.0].clone(), w.4 - w.5)).collect();
    assert_eq!(got, want_rows);
    let columns: Vec<&str> = df.get_column_names().into_iter().map(|c| c.as_str()).collect();
    assert_eq!(
        columns,
        [
            "cnpj",
            "razao_social",
            "tabela",
            "categoria",
            "registros_no_resumo",
            "registros_recebidos",
            "valor_no_resumo",
            "valor_recebido",
            "diferenca"
        ],
        "every column is compared above"
    );

    let dq = read(&r.out.join("aggregates/data_quality.parquet"));
    let counted = |column: &str| {
        (0..dq.height())
            .find(|i| {
                dq.column("tabela").unwrap().str().unwrap().get(*i) == Some("resumos")
                    && dq.column("coluna").unwrap().str().unwrap().get(*i) == Some(column)
            })
            .map_or(0, |i| dq.column("falhas").unwrap().i64().unwrap().get(i).unwrap())
    };
    let differ = |f: fn(&Disagreement) -> bool| want.iter().filter(|w| f(w)).count() as i64;
    assert_eq!(counted("total"), differ(|w| w.2 != w.3));
    assert_eq!(counted("valor_total"), differ(|w| w.4 != w.5));
    let report = std::fs::read_to_string(r.out.join("report.md")).unwrap();
    assert!(report.contains("Resumos do serviço que não conferem com os registros"), "the report lists them");
}
