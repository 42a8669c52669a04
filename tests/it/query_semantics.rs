//! The month-over-month queries on small hand-made credit tables, where the right answer is
//! obvious: a group new this month changes from zero, a blank key is one group, and a window
//! without its previous month has no change and no movers rather than everything "rising".

use std::collections::BTreeMap;

use fiscal_report::analyze::{load_queries, run_queries};
use fiscal_report::tables::Table;
use fiscal_report::transform::Frames;
use fiscal_report::transform::typing::type_table;
use polars::prelude::*;

/// (ano_mes, uf, grupo_tributo, valor_total as the service writes it)
type Row = (&'static str, &'static str, &'static str, &'static str);

fn frames(rows: &[Row]) -> Frames {
    let col = |name: &str, f: &dyn Fn(&Row) -> &'static str| {
        Column::new(name.into(), rows.iter().map(f).collect::<Vec<_>>())
    };
    let staged = DataFrame::new(
        rows.len(),
        vec![
            col("ano_mes", &|r| r.0),
            col("uf", &|r| r.1),
            col("cnae_secao_cod", &|_| "C"),
            col("cnae_secao_descr", &|_| "Indústrias de transformação"),
            col("grupo_tributo", &|r| r.2),
            col("natureza_juridica", &|_| "2062"),
            col("situacao", &|_| "Em cobrança"),
            col("tipo_contribuinte", &|_| "PJ"),
            col("valor_total", &|r| r.3),
        ],
    )
    .unwrap();
    let (df, quality) = type_table(Table::CreditosAtivos, &staged).unwrap();
    Frames { tables: BTreeMap::from([(Table::CreditosAtivos.name(), df)]), quality, ..Default::default() }
}

/// Runs the shipped query files that read only the credits table.
fn run(rows: &[Row]) -> BTreeMap<String, DataFrame> {
    let queries: Vec<_> =
        load_queries(None).unwrap().into_iter().filter(|q| q.name.as_str() < "14").collect();
    assert_eq!(queries.len(), 13);
    let out = run_queries(&frames(rows), &queries).unwrap();
    out.results.into_iter().map(|(q, df)| (q.table, df)).collect()
}

fn text(df: &DataFrame, col: &str) -> Vec<Option<String>> {
    df.column(col).unwrap().str().unwrap().iter().map(|v| v.map(str::to_string)).collect()
}

/// Cents of a decimal column, row by row.
fn cents(df: &DataFrame, col: &str) -> Vec<Option<i128>> {
    df.column(col).unwrap().decimal().unwrap().physical().iter().collect()
}

fn row(df: &DataFrame, key: &str, value: &str) -> usize {
    text(df, key).iter().position(|v| v.as_deref() == Some(value)).unwrap_or_else(|| panic!("no {value}"))
}

const TWO_MONTHS: &[Row] = &[
    ("202608", "SP", "IRPJ", "100,00"),
    ("202609", "SP", "IRPJ", "100,00"),
    // New this month.
    ("202609", "SP", "IPI", "50,00"),
    // Gone this month.
    ("202608", "RJ", "CSLL", "30,00"),
    // A blank state in both months: one group, unchanged.
    ("202608", "", "IRPJ", "10,00"),
    ("202609", " ", "IRPJ", "10,00"),
];

#[test]
fn a_group_new_this_month_changes_from_zero_and_the_rows_add_up() {
    let r = run(TWO_MONTHS);
    let by_group = &r["creditos_por_grupo_tributo"];
    let ipi = row(by_group, "grupo_tributo", "IPI");
    assert_eq!(cents(by_group, "variacao_mes")[ipi], Some(5_000), "IPI grew from zero");
    let csll = row(by_group, "grupo_tributo", "CSLL");
    assert_eq!(cents(by_group, "variacao_mes")[csll], Some(-3_000), "CSLL fell to zero");
    let total = row(by_group, "grupo_tributo", "TOTAL");
    let changes = cents(by_group, "variacao_mes");
    let parts: i128 = changes.iter().enumerate().filter(|(i, _)| *i != total).map(|(_, c)| c.unwrap()).sum();
    assert_eq!(Some(parts), changes[total], "the rows' changes add up to the total's");
    assert_eq!(changes[total], Some(2_000));
}

#[test]
fn a_blank_key_is_one_group_across_both_months() {
    let r = run(TWO_MONTHS);
    let by_uf = &r["creditos_por_uf"];
    let blanks: Vec<usize> =
        (0..by_uf.height()).filter(|i| text(by_uf, "uf")[*i].as_deref() == Some("?")).collect();
    assert_eq!(blanks.len(), 1, "{by_uf}");
    assert_eq!(cents(by_uf, "variacao_mes")[blanks[0]], Some(0));
    // The movers see the same: the blank cell did not move, so it is in neither list.
    for table in ["maiores_altas", "maiores_quedas"] {
        assert!(!text(&r[table], "uf").contains(&Some("?".to_string())), "{table}: {}", r[table]);
    }
    assert_eq!(text(&r["maiores_altas"], "grupo_tributo"), vec![Some("IPI".to_string())]);
    assert_eq!(text(&r["maiores_quedas"], "grupo_tributo"), vec![Some("CSLL".to_string())]);
    // The cross-tab's TOTAL row still adds up with the blank state in it.
    let cross = &r["cruzamento_uf_grupo"];
    let values = cents(cross, "valor_total");
    let (ufs, groups) = (text(cross, "uf"), text(cross, "grupo_tributo"));
    let overall = (0..cross.height())
        .find(|i| ufs[*i].as_deref() == Some("TOTAL") && groups[*i].as_deref() == Some("TOTAL"))
        .unwrap();
    let cells: i128 = (0..cross.height())
        .filter(|i| ufs[*i].as_deref() != Some("TOTAL") && groups[*i].as_deref() != Some("TOTAL"))
        .map(|i| values[i].unwrap())
        .sum();
    assert_eq!(Some(cells), values[overall]);
}

#[test]
fn without_the_previous_month_there_is_no_change_and_no_mover() {
    let one_month: Vec<Row> = TWO_MONTHS.iter().copied().filter(|r| r.0 == "202609").collect();
    let r = run(&one_month);
    for (table, key) in [("creditos_por_uf", "uf"), ("creditos_por_grupo_tributo", "grupo_tributo")] {
        let df = &r[table];
        assert!(df.column("variacao_mes").unwrap().is_null().all(), "{table}: {df}");
        assert!(text(df, key).contains(&Some("TOTAL".to_string())));
    }
    assert_eq!(r["maiores_altas"].height(), 0, "{}", r["maiores_altas"]);
    assert_eq!(r["maiores_quedas"].height(), 0, "{}", r["maiores_quedas"]);
}

#[test]
fn spellings_that_differ_only_in_case_or_accents_are_one_group_and_keep_their_text() {
    let rows: &[Row] = &[
        ("202609", "SP", "Simples Nacional", "10,00"),
        ("202609", "RJ", "SIMPLES NACIONAL", "20,00"),
        ("202609", "MG", "simples  nacional", "30,00"),
        ("202609", "SP", "Contribuições previdenciárias", "1,00"),
        ("202609", "RJ", "CONTRIBUICOES PREVIDENCIARIAS", "2,00"),
    ];
    let r = run(rows);
    let by_group = &r["creditos_por_grupo_tributo"];
    let groups: Vec<Option<String>> = text(by_group, "grupo_tributo");
    assert_eq!(groups.len(), 3, "two groups and the total: {by_group}");
    // The spelling with accents and lower case is shown, whatever the row order.
    let simples = row(by_group, "grupo_tributo", "Simples Nacional");
    assert_eq!(cents(by_group, "valor_total")[simples], Some(6_000));
    let contrib = row(by_group, "grupo_tributo", "Contribuições previdenciárias");
    assert_eq!(cents(by_group, "valor_total")[contrib], Some(300));
    // The published text stays in the raw table.
    let f = frames(rows);
    let typed = &f.tables[Table::CreditosAtivos.name()];
    assert_eq!(
        text(typed, "grupo_tributo_original"),
        rows.iter().map(|r| Some(r.2.to_string())).collect::<Vec<_>>()
    );
}
