//! Economic groups against the embedded registry's truth: the dataset holds holdings named
//! among their subsidiaries' partners; a run finds the groups its portfolio's partners lists
//! link (and, with `--expand-groups`, fetches the partner companies) and each group's exposure
//! equals the truth to the cent, each company counted once.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common_bin::*;
use fiscal_report::api::Cnpj;
use fiscal_report::simulator::{Dataset, GroupTruth, RegistryConfig};
use polars::prelude::*;

const SCALE: f64 = 0.05;

fn read(path: &Path) -> DataFrame {
    ParquetReader::new(std::fs::File::open(path).unwrap()).finish().unwrap()
}

fn texts(df: &DataFrame, col: &str) -> Vec<String> {
    df.column(col).unwrap().str().unwrap().iter().map(|v| v.unwrap_or_default().to_string()).collect()
}

fn ints(df: &DataFrame, col: &str) -> Vec<i64> {
    let c = df.column(col).unwrap().cast(&DataType::Int64).unwrap();
    c.i64().unwrap().iter().map(|v| v.unwrap()).collect()
}

fn cents(df: &DataFrame, col: &str) -> Vec<i128> {
    let c = df.column(col).unwrap();
    let d = c.decimal().unwrap();
    assert_eq!(d.scale(), 2, "{col} is money in cents");
    d.physical().iter().map(|v| v.unwrap()).collect()
}

/// The portfolio: the demo's (holding whole groups and groups without their holding) plus a
/// branch of one of its companies, so one company is listed under two CNPJs.
fn portfolio(d: &Dataset) -> Vec<Cnpj> {
    let mut cnpjs = d.demo_portfolio(60);
    let branch = cnpjs
        .iter()
        .find_map(|c| {
            let e = d.estabelecimentos(c)?;
            e.get(1).and_then(|b| Cnpj::parse(b.cnpj_completo.as_deref()?).ok())
        })
        .expect("a portfolio company with a branch");
    cnpjs.push(branch);
    cnpjs
}

/// Checks the run's `grupos_exposicao` in `out` against `truth`, every column and the documented
/// order (group exposure, largest first, then the group's id), with the groups, their heads and
/// their members taken from the dataset, never from the run's own `grupos_economicos`.
fn assert_groups_equal_truth(out: &Path, truth: &[GroupTruth]) {
    type Row = (String, Option<String>, i64, i64, i64, i64, i128, i128);
    let mut want: Vec<Row> = truth
        .iter()
        .map(|t| {
            (
                t.head.clone(),
                t.head_name.clone(),
                t.members.len() as i64,
                t.portfolio_members as i64,
                t.counted.len() as i64,
                t.portfolio_cnpjs as i64,
                i128::from(t.portfolio_exposure_cents),
                i128::from(t.exposure_cents),
            )
        })
        .collect();
    want.sort_by(|a, b| b.7.cmp(&a.7).then_with(|| a.0.cmp(&b.0)));
    let agg = read(&out.join("aggregates/grupos_exposicao.parquet"));
    let names: Vec<Option<String>> =
        agg.column("grupo_nome").unwrap().str().unwrap().iter().map(|v| v.map(str::to_string)).collect();
    let got: Vec<Row> = (0..agg.height())
        .map(|i| {
            (
                texts(&agg, "grupo")[i].clone(),
                names[i].clone(),
                ints(&agg, "empresas")[i],
                ints(&agg, "empresas_na_carteira")[i],
                ints(&agg, "empresas_com_dados")[i],
                ints(&agg, "cnpjs_na_carteira")[i],
                cents(&agg, "exposicao_carteira")[i],
                cents(&agg, "exposicao_grupo")[i],
            )
        })
        .collect();
    assert_eq!(got, want);
    let columns: Vec<&str> = agg.get_column_names().into_iter().map(|c| c.as_str()).collect();
    assert_eq!(
        columns,
        [
            "grupo",
            "grupo_nome",
            "empresas",
            "empresas_na_carteira",
            "empresas_com_dados",
            "cnpjs_na_carteira",
            "exposicao_carteira",
            "exposicao_grupo"
        ],
        "every column is compared above"
    );
    // Without these a reversed order, or a name or count taken from the wrong member, could pass.
    assert!(want.windows(2).any(|w| w[0].7 > w[1].7), "no two groups differ in exposure");
    assert!(want.iter().any(|w| w.3 >= 1 && w.3 < w.2), "no group holds members outside the portfolio");
    assert!(want.iter().all(|w| w.1.is_some()), "a group without a name");
}

#[test]
fn group_exposure_equals_the_truth_with_and_without_the_expansion() {
    let d = Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE);
    let cnpjs = portfolio(&d);
    let text: Vec<String> = cnpjs.iter().map(|c| c.to_string()).collect();
    let args = ["--demo-scale", "0.05", "--ano-mes", "202609"];

    let linked = d.groups_truth(&cnpjs, 0);
    assert!(linked.iter().filter(|g| g.portfolio_cnpjs >= 2 && g.members.len() >= 2).count() >= 2);
    let dir = tempfile::tempdir().unwrap();
    let out = demo_run_into(dir.path(), &text, &args);
    assert_groups_equal_truth(&out, &linked);
    // Nothing fetched without --expand-groups: the table the groups query reads is written empty.
    assert_eq!(read(&out.join("socias_exposicao/part-0.parquet")).height(), 0);
    let manifest = |out: &std::path::Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap()
    };
    let plain = manifest(&out);
    assert!(plain.get("requests_after_fetch").is_none(), "{}", plain["requests_after_fetch"]);

    let expanded = d.groups_truth(&cnpjs, 3);
    let counted = |g: &[GroupTruth]| g.iter().map(|g| g.counted.len()).sum::<usize>();
    assert!(counted(&expanded) > counted(&linked), "the expansion fetches partner companies");
    let dir = tempfile::tempdir().unwrap();
    let mut with = args.to_vec();
    with.push("--expand-groups");
    let out = demo_run_into(dir.path(), &text, &with);
    assert_groups_equal_truth(&out, &expanded);
    // The partner companies count for their groups only: the portfolio's figures are its own.
    let exposure = read(&out.join("aggregates/carteira_exposicao.parquet"));
    let portfolio_roots: BTreeSet<String> = cnpjs.iter().map(|c| c.basico().to_string()).collect();
    assert!(texts(&exposure, "cnpj").iter().all(|c| portfolio_roots.contains(&c[..8])));
    assert!(read(&out.join("socias_exposicao/part-0.parquet")).height() > 0);
    // The expansion's requests are counted apart: the planned fetch is the same request for
    // request, and the partner companies' (a profile and six lists each, at least) come after.
    let m = manifest(&out);
    assert_eq!(m["fetch"]["requests"]["requests"], plain["fetch"]["requests"]["requests"]);
    let partners = read(&out.join("socias_exposicao/part-0.parquet")).height() as u64;
    let after = m["requests_after_fetch"]["grupos"].as_u64().unwrap();
    assert!(after >= 7 * partners, "{after} requests for {partners} partner companies");

    // The report names the groups, in both forms.
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(md.contains("### Grupos econômicos") && html.contains("Grupos econômicos"));
}
