//! The credit aggregates of the finished demo run that `queries_truth` leaves out, and the
//! portfolio's two per-company tables, checked row by row, in their order and to the cent
//! against a truth that shares no code with the client's parsing, typing or SQL: the national
//! series (query 01), the latest month by state, CNAE section, tax group, collection status,
//! taxpayer type and legal nature (03 to 08), the state x tax group cross-table (11), the 20
//! largest rises and falls (12, 13), the exposure of each company (14), the portfolio's summary
//! (18), the estimated standing of each company (20) and the portfolio's companies (26).
//!
//! The credit truths come from the dataset's own (month, state) totals and from its published
//! credit rows of the latest month and the one before, their pt-BR amounts read here, summed in
//! BTreeMaps of i128 cents; the portfolio's from each company's records in cents, its debts
//! credited once by the dataset, and its profile (see `queries_truth`).

use std::collections::BTreeMap;

use crate::aggregates_truth::run;
use crate::history::debt_rows;
use crate::queries_truth::{
    Credit, Own, aggregate, assert_pct, dataset, estimated_standing, floats, ints, largest_table, money,
    own_exposures, pct, published, run_months, texts,
};
use fiscal_report::api::{AnoMes, Cnpj};
use fiscal_report::simulator::Dataset;
use polars::prelude::*;

// ---- the published credit rows, read here

fn by_uf(c: &Credit) -> &str {
    &c.uf
}

fn by_secao(c: &Credit) -> &str {
    &c.secao
}

fn by_grupo(c: &Credit) -> &str {
    &c.grupo
}

fn by_situacao(c: &Credit) -> &str {
    &c.situacao
}

fn by_tipo(c: &Credit) -> &str {
    &c.tipo
}

fn by_natureza(c: &Credit) -> &str {
    &c.natureza
}

/// The published rows of the run's latest month (202609) and of the month before it.
fn latest_two(d: &Dataset) -> (Vec<Credit>, Vec<Credit>) {
    let months = run_months(d);
    let latest = *months.last().unwrap();
    assert_eq!(latest.to_string(), "202609", "the run's latest month");
    let before = latest.plus_months(-1).unwrap();
    assert!(months.contains(&before), "the run fetched the month before the latest");
    (published(d, latest), published(d, before))
}

// ---- query 01: the national series

#[test]
fn the_national_monthly_series_equals_the_datasets_cells() {
    let d = dataset();
    let months: Vec<String> = run_months(&d).iter().map(ToString::to_string).collect();
    // Month -> (cents, states with credits), from the dataset's own (month, state) totals.
    let mut want: BTreeMap<String, (i128, i64)> = BTreeMap::new();
    for c in d.truth().credits {
        if c.rows > 0 && months.contains(&c.ano_mes) {
            let m = want.entry(c.ano_mes).or_default();
            m.0 += i128::from(c.total_cents);
            m.1 += 1;
        }
    }
    assert_eq!(want.len(), 13, "the run fetched 13 months with credits");
    let at = |m: &str, back: i32| {
        let earlier = AnoMes::parse(m).unwrap().plus_months(back).unwrap().to_string();
        want.get(&earlier).map(|v| v.0)
    };

    let df = aggregate("creditos_total_mensal");
    let got_months: Vec<String> = texts(&df, "ano_mes").into_iter().map(Option::unwrap_or_default).collect();
    assert_eq!(got_months, want.keys().cloned().collect::<Vec<_>>(), "one row per month, oldest first");
    let (valor, ufs) = (money(&df, "valor_total"), ints(&df, "ufs"));
    let (mes, ano) = (money(&df, "variacao_mes"), money(&df, "variacao_ano"));
    let (mes_pct, ano_pct) = (floats(&df, "variacao_mes_pct"), floats(&df, "variacao_ano_pct"));
    let mut year_over_year = 0;
    for (i, (m, (v, states))) in want.iter().enumerate() {
        let (before, year_ago) = (at(m.as_str(), -1), at(m.as_str(), -12));
        assert_eq!(valor[i], Some(*v), "{m}: valor_total");
        assert_eq!(ufs[i], Some(*states), "{m}: states with credits");
        assert_eq!(mes[i], before.map(|b| v - b), "{m}: change on the month before (none before the first)");
        assert_eq!(ano[i], year_ago.map(|a| v - a), "{m}: change on the same month a year before");
        assert_pct(mes_pct[i], before.map(|b| pct(v - b, b)), &format!("{m}: variacao_mes_pct"));
        assert_pct(ano_pct[i], year_ago.map(|a| pct(v - a, a)), &format!("{m}: variacao_ano_pct"));
        year_over_year += usize::from(year_ago.is_some());
    }
    assert_eq!(year_over_year, 1, "only the latest month has its year-ago month in the run");
}

// ---- queries 03 to 08: the latest month by one key

/// One row of a latest-month breakdown: the key's cents in the latest month and in the month
/// before (0 where the key had no credits).
#[derive(Debug)]
struct Latest {
    key: String,
    now: i128,
    before: i128,
}

/// The rows a latest-month breakdown should hold, in the query's order: each key with credits
/// in either month, largest latest value first, then key; the TOTAL row last.
fn latest_breakdown(now: &[Credit], before: &[Credit], key: fn(&Credit) -> &str) -> Vec<Latest> {
    let mut cells: BTreeMap<String, (i128, i128)> = BTreeMap::new();
    for c in now {
        cells.entry(key(c).to_string()).or_default().0 += c.cents;
    }
    for c in before {
        cells.entry(key(c).to_string()).or_default().1 += c.cents;
    }
    let mut rows: Vec<Latest> =
        cells.into_iter().map(|(key, (now, before))| Latest { key, now, before }).collect();
    rows.sort_by(|a, b| b.now.cmp(&a.now).then_with(|| a.key.cmp(&b.key)));
    let total = Latest {
        key: "TOTAL".to_string(),
        now: rows.iter().map(|r| r.now).sum(),
        before: rows.iter().map(|r| r.before).sum(),
    };
    rows.push(total);
    rows
}

/// Checks `table` (keyed by `key_col`) against the truth: its keys in order, each value and
/// change on the month before in cents, its share of the latest month and its change in %
/// (none where the key had nothing the month before). Returns the truth and the table.
fn check_latest_breakdown(table: &str, key_col: &str, key: fn(&Credit) -> &str) -> (Vec<Latest>, DataFrame) {
    let d = dataset();
    let (now, before) = latest_two(&d);
    let want = latest_breakdown(&now, &before, key);
    assert!(want.len() >= 3, "{table}: one {key_col} only, the test would prove little");
    assert!(want.iter().any(|w| w.now != w.before), "{table}: nothing moved, the changes would prove little");

    let df = aggregate(table);
    let keys: Vec<String> = texts(&df, key_col).into_iter().map(Option::unwrap_or_default).collect();
    let want_keys: Vec<String> = want.iter().map(|w| w.key.clone()).collect();
    assert_eq!(
        keys, want_keys,
        "{table}: one row per {key_col} with credits in either month, largest first, then {key_col}; TOTAL last"
    );
    let total_now = want.last().unwrap().now;
    let (valor, change) = (money(&df, "valor_total"), money(&df, "variacao_mes"));
    let (share, change_pct) = (floats(&df, "participacao_pct"), floats(&df, "variacao_mes_pct"));
    for (i, w) in want.iter().enumerate() {
        let what = format!("{table} {}", w.key);
        assert_eq!(valor[i], Some(w.now), "{what}: valor_total");
        assert_eq!(change[i], Some(w.now - w.before), "{what}: variacao_mes");
        assert_pct(share[i], Some(pct(w.now, total_now)), &format!("{what}: participacao_pct"));
        let want_pct = (w.before != 0).then(|| pct(w.now - w.before, w.before));
        assert_pct(change_pct[i], want_pct, &format!("{what}: variacao_mes_pct"));
    }
    (want, df)
}

#[test]
fn credits_by_state_in_the_latest_month_equal_the_published_rows() {
    check_latest_breakdown("creditos_por_uf", "uf", by_uf);
}

#[test]
fn credits_by_cnae_section_in_the_latest_month_equal_the_published_rows() {
    let (want, df) = check_latest_breakdown("creditos_por_cnae_secao", "cnae_secao_cod", by_secao);
    // The section's name: the largest published name of the latest month, else of the month
    // before; the TOTAL row's is "Total".
    let d = dataset();
    let (now, before) = latest_two(&d);
    let name = |rows: &[Credit], secao: &str| {
        rows.iter().filter(|c| c.secao == secao).map(|c| c.secao_descr.clone()).max()
    };
    let got = texts(&df, "cnae_secao_descr");
    for (i, w) in want.iter().enumerate() {
        let expected = if w.key == "TOTAL" {
            Some("Total".to_string())
        } else {
            name(&now[..], w.key.as_str()).or_else(|| name(&before[..], w.key.as_str()))
        };
        assert_eq!(got[i], expected, "cnae_secao_descr of {}", w.key);
    }
}

#[test]
fn credits_by_tax_group_in_the_latest_month_equal_the_published_rows() {
    check_latest_breakdown("creditos_por_grupo_tributo", "grupo_tributo", by_grupo);
}

#[test]
fn credits_by_collection_status_in_the_latest_month_equal_the_published_rows() {
    check_latest_breakdown("creditos_por_situacao", "situacao", by_situacao);
}

#[test]
fn credits_by_taxpayer_type_in_the_latest_month_equal_the_published_rows() {
    check_latest_breakdown("creditos_por_tipo_contribuinte", "tipo_contribuinte", by_tipo);
}

#[test]
fn credits_by_legal_nature_in_the_latest_month_equal_the_published_rows() {
    check_latest_breakdown("creditos_por_natureza_juridica", "natureza_juridica", by_natureza);
}

// ---- query 11: the state x tax group cross-table

#[test]
fn the_state_by_tax_group_cross_table_holds_every_cell_and_total_in_order() {
    let d = dataset();
    let (now, _) = latest_two(&d);
    let mut cells: BTreeMap<(String, String), i128> = BTreeMap::new();
    let (mut of_uf, mut of_group): (BTreeMap<String, i128>, BTreeMap<String, i128>) = Default::default();
    for c in &now {
        *cells.entry((c.uf.clone(), c.grupo.clone())).or_default() += c.cents;
        *of_uf.entry(c.uf.clone()).or_default() += c.cents;
        *of_group.entry(c.grupo.clone()).or_default() += c.cents;
    }
    // Each state's cells by group, then its TOTAL; then the TOTAL row of each group, then the
    // overall TOTAL.
    let mut want: Vec<(String, String, i128)> = Vec::new();
    for (uf, total) in &of_uf {
        for ((u, g), v) in &cells {
            if u == uf {
                want.push((u.clone(), g.clone(), *v));
            }
        }
        want.push((uf.clone(), "TOTAL".to_string(), *total));
    }
    for (g, total) in &of_group {
        want.push(("TOTAL".to_string(), g.clone(), *total));
    }
    let overall: i128 = now.iter().map(|c| c.cents).sum();
    want.push(("TOTAL".to_string(), "TOTAL".to_string(), overall));
    assert!(
        of_uf.len() > 1 && of_group.len() > 1,
        "one state or one group only: the test would prove little"
    );

    let df = aggregate("cruzamento_uf_grupo");
    let (ufs, groups, values) = (texts(&df, "uf"), texts(&df, "grupo_tributo"), money(&df, "valor_total"));
    let got: Vec<(String, String, i128)> = (0..df.height())
        .map(|i| {
            let v = values[i].unwrap_or_else(|| panic!("valor_total is null at row {i}"));
            (ufs[i].clone().unwrap_or_default(), groups[i].clone().unwrap_or_default(), v)
        })
        .collect();
    assert_eq!(
        got.len(),
        want.len(),
        "one row per (state, group) with credits, per state, per group, and overall"
    );
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "row {i}: by state (TOTAL last), then group (TOTAL last)");
    }
}

// ---- queries 12 and 13: the 20 largest rises and falls

/// (uf, cnae section, tax group)
type Mover = (String, String, String);

/// The cells (state, section, tax group) that rose (or fell) from the month before to the
/// latest, with (before, now) in cents, 0 where the cell had no credits: the largest change
/// first, ties by state, section and group, at most 20.
fn movers(rising: bool) -> Vec<(Mover, i128, i128)> {
    let d = dataset();
    let (now, before) = latest_two(&d);
    let mut cells: BTreeMap<Mover, (i128, i128)> = BTreeMap::new();
    let cell = |c: &Credit| (c.uf.clone(), c.secao.clone(), c.grupo.clone());
    for c in &before {
        cells.entry(cell(c)).or_default().0 += c.cents;
    }
    for c in &now {
        cells.entry(cell(c)).or_default().1 += c.cents;
    }
    let mut moved: Vec<(Mover, i128, i128)> = cells
        .into_iter()
        .filter(|(_, (b, n))| if rising { n > b } else { n < b })
        .map(|(k, (b, n))| (k, b, n))
        .collect();
    assert!(moved.len() > 20, "{} cells moved that way: the limit of 20 would not be checked", moved.len());
    moved.sort_by(|x, y| {
        let (dx, dy) = (x.2 - x.1, y.2 - y.1);
        let by_change = if rising { dy.cmp(&dx) } else { dx.cmp(&dy) };
        by_change.then_with(|| x.0.cmp(&y.0))
    });
    moved.truncate(20);
    moved
}

fn check_movers(table: &str, rising: bool) {
    let want = movers(rising);
    let df = aggregate(table);
    assert_eq!(df.height(), want.len(), "{table}: the limit of 20");
    let [uf, secao, grupo] = ["uf", "cnae_secao_cod", "grupo_tributo"].map(|c| texts(&df, c));
    let (before, now, change) =
        (money(&df, "valor_mes_anterior"), money(&df, "valor_total"), money(&df, "variacao"));
    let change_pct = floats(&df, "variacao_pct");
    for (i, (cell, b, n)) in want.iter().enumerate() {
        let got: Mover = (
            uf[i].clone().unwrap_or_default(),
            secao[i].clone().unwrap_or_default(),
            grupo[i].clone().unwrap_or_default(),
        );
        assert_eq!(&got, cell, "{table} row {i}: by change, then state, section and group");
        assert_eq!((before[i], now[i], change[i]), (Some(*b), Some(*n), Some(n - b)), "{table} {cell:?}");
        assert_pct(
            change_pct[i],
            (*b != 0).then(|| pct(n - b, *b)),
            &format!("{table} {cell:?}: variacao_pct"),
        );
    }
}

#[test]
fn the_20_largest_rises_are_the_published_cells_in_order_to_the_cent() {
    check_movers("maiores_altas", true);
}

#[test]
fn the_20_largest_falls_are_the_published_cells_in_order_to_the_cent() {
    check_movers("maiores_quedas", false);
}

// ---- query 14: each company's exposure

/// carteira_exposicao's money columns.
const EXPOSURE_MONEY: [&str; 18] = [
    "nao_prev_ajuizada",
    "nao_prev_nao_ajuizada",
    "prev_ajuizada",
    "prev_nao_ajuizada",
    "fgts_ajuizada",
    "fgts_nao_ajuizada",
    "divida_principal",
    "divida_corresponsavel",
    "parcelamentos_saldo",
    "transacoes_saldo",
    "exposicao_total",
    "nao_prev_contada",
    "prev_contada",
    "fgts_contada",
    "ajuizada_contada",
    "parcelamentos_contado",
    "transacoes_contado",
    "exposicao_contada",
];

/// carteira_exposicao's counts.
const EXPOSURE_COUNTS: [&str; 4] = ["inscricoes", "inscricoes_corresponsavel", "parcelamentos", "transacoes"];

/// One row of carteira_exposicao as compared.
#[derive(Debug, PartialEq)]
struct Exposure {
    cnpj: String,
    razao_social: Option<String>,
    uf: Option<String>,
    cnae_secao: Option<String>,
    amounts: BTreeMap<&'static str, i128>,
    counts: BTreeMap<&'static str, i64>,
}

/// Each portfolio company the dataset knows, in the query's order (largest own exposure
/// first, then CNPJ): its inscriptions from its records in cents (each once, an unreadable
/// amount 0), split by categoria and court filing and by role; its plans' and settlements'
/// balances and counts; and what the dataset credits it in the portfolio's totals.
fn exposure_truth(d: &Dataset, cnpjs: &[Cnpj]) -> Vec<Exposure> {
    let own = own_exposures(d, cnpjs);
    let roles = d.debt_roles_truth(cnpjs);
    let plans = d.portfolio_truth(cnpjs);
    let mut out: Vec<Exposure> = Vec::new();
    for (cnpj, balances) in cnpjs.iter().zip(&plans.companies) {
        let (Some(o), Some(records)) = (own.get(cnpj.as_str()), d.records_truth(cnpj)) else { continue };
        let r = &roles[cnpj.as_str()];
        let mut amounts: BTreeMap<&'static str, i128> = EXPOSURE_MONEY.iter().map(|c| (*c, 0)).collect();
        let mut add = |col: &'static str, v: i128| *amounts.get_mut(col).unwrap() += v;
        for x in records.dividas.values() {
            let col = match (x.categoria.as_str(), x.ajuizado) {
                ("nao_previdenciario", true) => "nao_prev_ajuizada",
                ("nao_previdenciario", false) => "nao_prev_nao_ajuizada",
                ("previdenciario", true) => "prev_ajuizada",
                ("previdenciario", false) => "prev_nao_ajuizada",
                ("fgts", true) => "fgts_ajuizada",
                ("fgts", false) => "fgts_nao_ajuizada",
                (other, _) => panic!("{cnpj}: no categoria {other}"),
            };
            add(col, i128::from(x.valor_cents.unwrap_or(0)));
        }
        add("divida_principal", o.principal);
        add("divida_corresponsavel", o.corresponsavel);
        add("parcelamentos_saldo", o.parcelamentos);
        add("transacoes_saldo", o.transacoes);
        add("exposicao_total", o.exposicao);
        for (categoria, col) in [
            ("nao_previdenciario", "nao_prev_contada"),
            ("previdenciario", "prev_contada"),
            ("fgts", "fgts_contada"),
        ] {
            let (filed, not_filed) = r.counted.get(categoria).copied().unwrap_or((0, 0));
            add(col, i128::from(filed) + i128::from(not_filed));
            add("ajuizada_contada", i128::from(filed));
        }
        add("parcelamentos_contado", i128::from(r.counted_parcelamentos_cents));
        add("transacoes_contado", i128::from(r.counted_transacoes_cents));
        add("exposicao_contada", i128::from(r.counted_cents()));
        let co_debtor =
            records.dividas.values().filter(|x| x.tipo_devedor.as_deref() != Some("PRINCIPAL")).count();
        let counts = BTreeMap::from([
            ("inscricoes", records.dividas.len() as i64),
            ("inscricoes_corresponsavel", co_debtor as i64),
            ("parcelamentos", balances.parcelamentos.records as i64),
            ("transacoes", balances.transacoes.records as i64),
        ]);
        out.push(Exposure {
            cnpj: o.cnpj.clone(),
            razao_social: o.razao_social.clone(),
            uf: o.uf.clone(),
            cnae_secao: o.cnae_secao.clone(),
            amounts,
            counts,
        });
    }
    out.sort_by(|a, b| {
        b.amounts["exposicao_total"].cmp(&a.amounts["exposicao_total"]).then_with(|| a.cnpj.cmp(&b.cnpj))
    });
    out
}

fn exposure_table(df: &DataFrame) -> Vec<Exposure> {
    let [cnpj, razao_social, uf, cnae_secao] =
        ["cnpj", "razao_social", "uf", "cnae_secao"].map(|c| texts(df, c));
    let amounts: Vec<(&'static str, Vec<Option<i128>>)> =
        EXPOSURE_MONEY.iter().map(|c| (*c, money(df, c))).collect();
    let counts: Vec<(&'static str, Vec<Option<i64>>)> =
        EXPOSURE_COUNTS.iter().map(|c| (*c, ints(df, c))).collect();
    (0..df.height())
        .map(|i| Exposure {
            cnpj: cnpj[i].clone().unwrap_or_default(),
            razao_social: razao_social[i].clone(),
            uf: uf[i].clone(),
            cnae_secao: cnae_secao[i].clone(),
            amounts: amounts
                .iter()
                .map(|(c, v)| (*c, v[i].unwrap_or_else(|| panic!("{c} is null at row {i}"))))
                .collect(),
            counts: counts
                .iter()
                .map(|(c, v)| (*c, v[i].unwrap_or_else(|| panic!("{c} is null at row {i}"))))
                .collect(),
        })
        .collect()
}

#[test]
fn each_companys_exposure_equals_its_records_and_its_share_of_the_totals() {
    let (d, r) = (dataset(), run());
    let want = exposure_truth(&d, &r.cnpjs);
    assert!(want.len() > 20, "{} companies found: too few to check the order", want.len());
    let shared =
        want.iter().filter(|w| w.amounts["exposicao_contada"] != w.amounts["exposicao_total"]).count();
    assert!(
        shared > 0,
        "no company's share of the totals differs from its own exposure: the test would prove little"
    );
    assert!(want.iter().any(|w| w.counts["inscricoes_corresponsavel"] > 0), "no co-debtor in the portfolio");

    let got = exposure_table(&aggregate("carteira_exposicao"));
    let order = |rows: &[Exposure]| rows.iter().map(|e| e.cnpj.clone()).collect::<Vec<_>>();
    assert_eq!(
        order(&got[..]),
        order(&want[..]),
        "one row per company found, largest own exposure first, then CNPJ"
    );
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "{}", w.cnpj);
    }
}

// ---- query 26: the portfolio's companies

#[test]
fn the_portfolio_companies_table_holds_every_company_found_in_order_to_the_cent() {
    let (d, r) = (dataset(), run());
    let mut want: Vec<Own> = own_exposures(&d, &r.cnpjs).into_values().collect();
    want.sort_by(|a, b| b.exposicao.cmp(&a.exposicao).then_with(|| a.cnpj.cmp(&b.cnpj)));
    assert!(want.len() > 20, "{} companies found: the table must hold more than the 20 largest", want.len());
    let by_id: BTreeMap<&str, &Cnpj> = r.cnpjs.iter().map(|c| (c.as_str(), c)).collect();

    let df = aggregate("carteira_empresas");
    let got = largest_table(&df);
    let order = |rows: &[Own]| rows.iter().map(|o| o.cnpj.clone()).collect::<Vec<_>>();
    assert_eq!(order(&got[..]), order(&want[..]), "every company found, largest exposure first, then CNPJ");
    let standing = texts(&df, "situacao_fiscal_estimada");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "{}", w.cnpj);
        let cnpj = by_id[w.cnpj.as_str()];
        assert_eq!(
            standing[i].as_deref(),
            Some(estimated_standing(&d, cnpj)),
            "{}: situacao_fiscal_estimada",
            w.cnpj
        );
    }
}

// ---- query 18: the portfolio's summary

#[test]
fn the_portfolio_summary_equals_the_sums_of_its_companies_records() {
    let (d, r) = (dataset(), run());
    let companies = exposure_truth(&d, &r.cnpjs);
    let sum = |col: &str| companies.iter().map(|e| e.amounts[col]).sum::<i128>();
    let found = companies.len() as i64;
    let owing = companies.iter().filter(|e| e.amounts["exposicao_total"] > 0).count() as i64;
    let without = companies
        .iter()
        .filter(|e| e.counts["inscricoes"] + e.counts["parcelamentos"] + e.counts["transacoes"] == 0)
        .count() as i64;
    let asked = r.cnpjs.len() as i64;
    assert!(found > 0 && found < asked, "found and unknown CNPJs both counted ({found} of {asked})");

    let df = aggregate("carteira_resumo");
    assert_eq!(df.height(), 1, "carteira_resumo is one row");
    let counts =
        ["empresas_carteira", "encontradas", "nao_encontradas", "com_falha", "com_divida", "sem_divida"]
            .map(|c| ints(&df, c)[0]);
    assert_eq!(counts, [asked, found, asked - found, 0, owing, without].map(Some), "the companies' counts");
    let amounts = [
        "nao_previdenciario",
        "previdenciario",
        "fgts",
        "divida_ajuizada",
        "parcelamentos_saldo",
        "transacoes_saldo",
        "exposicao_total",
        "divida_como_corresponsavel",
        "contagem_dupla_evitada",
    ]
    .map(|c| money(&df, c)[0]);
    let want = [
        sum("nao_prev_contada"),
        sum("prev_contada"),
        sum("fgts_contada"),
        sum("ajuizada_contada"),
        sum("parcelamentos_contado"),
        sum("transacoes_contado"),
        sum("exposicao_contada"),
        sum("divida_corresponsavel"),
        sum("exposicao_total") - sum("exposicao_contada"),
    ];
    assert_eq!(amounts, want.map(Some), "the portfolio's totals, each inscription once");
    let debt = sum("nao_prev_contada") + sum("prev_contada") + sum("fgts_contada");
    let filed = (debt != 0).then(|| pct(sum("ajuizada_contada"), debt));
    assert_pct(floats(&df, "ajuizado_pct")[0], filed, "ajuizado_pct");
}

// ---- query 20: each company's estimated standing

#[test]
fn the_estimated_standing_of_each_company_counts_its_published_debt_rows() {
    let (d, r) = (dataset(), run());
    let own = own_exposures(&d, &r.cnpjs);
    // (cnpj, razao_social, debt rows, rows in collection, standing), by CNPJ
    let mut want: Vec<(String, Option<String>, i64, i64, String)> = Vec::new();
    for cnpj in &r.cnpjs {
        let (Some(o), Some((rows, in_collection))) = (own.get(cnpj.as_str()), debt_rows(&d, cnpj)) else {
            continue;
        };
        let standing = estimated_standing(&d, cnpj).to_string();
        want.push((o.cnpj.clone(), o.razao_social.clone(), rows, in_collection, standing));
    }
    want.sort();
    let mut classes: Vec<&str> = want.iter().map(|w| w.4.as_str()).collect();
    classes.sort();
    classes.dedup();
    assert!(classes.len() > 1, "every company in one standing: the test would prove little");

    let df = aggregate("situacao_fiscal_estimada");
    let [cnpj, name, standing] = ["cnpj", "razao_social", "situacao_fiscal_estimada"].map(|c| texts(&df, c));
    let (rows, in_collection) = (ints(&df, "inscricoes_ativas"), ints(&df, "inscricoes_em_cobranca"));
    let got: Vec<(String, Option<String>, i64, i64, String)> = (0..df.height())
        .map(|i| {
            let count = |v: &[Option<i64>], c: &str| v[i].unwrap_or_else(|| panic!("{c} is null at row {i}"));
            (
                cnpj[i].clone().unwrap_or_default(),
                name[i].clone(),
                count(&rows[..], "inscricoes_ativas"),
                count(&in_collection[..], "inscricoes_em_cobranca"),
                standing[i].clone().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(got.len(), want.len(), "one row per company found");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "{}: by CNPJ", w.0);
    }
}
