//! Seven aggregates of the finished demo run checked, row by row and to the cent, against a
//! truth that shares no code with the client's parsing, flattening or aggregation: the credits
//! by state and month (query 02), the monthly series by CNAE section (09) and by tax group (10),
//! the portfolio's exposure by state (15) and by section (16), its 20 largest exposures (17)
//! and its register (24).
//!
//! The truths come from the embedded registry's dataset: its per-cell credit totals, its raw
//! credit rows (their pt-BR amounts read here), the debts it credits once per inscription, each
//! company's records in cents, and its profiles and debt rows, whose dates, amounts and CNAE
//! sections this module reads with small rules of its own.

use std::collections::BTreeMap;

use crate::aggregates_truth::{SCALE, read, run};
use fiscal_report::api::models::{CompanyProfile, Empresa, Estabelecimento, Simples};
use fiscal_report::api::{AnoMes, Categoria, Cnpj};
use fiscal_report::simulator::{Dataset, RegistryConfig};
use polars::prelude::*;

/// The run's first month: it fetched 202509..202609.
const FIRST_MONTH: &str = "202509";

pub(crate) fn dataset() -> Dataset {
    Dataset::generate(RegistryConfig::DEFAULT_SEED, SCALE)
}

pub(crate) fn aggregate(table: &str) -> DataFrame {
    read(&run().out.join(format!("aggregates/{table}.parquet")))
}

// ---- reading the Parquet

pub(crate) fn texts(df: &DataFrame, col: &str) -> Vec<Option<String>> {
    df.column(col).unwrap().str().unwrap().iter().map(|v| v.map(str::to_string)).collect()
}

/// Cents of a Decimal(_, 2) column, nulls kept.
pub(crate) fn money(df: &DataFrame, col: &str) -> Vec<Option<i128>> {
    let d = df.column(col).unwrap().decimal().unwrap();
    assert_eq!(d.scale(), 2, "{col} is money in cents");
    d.physical().iter().collect()
}

pub(crate) fn ints(df: &DataFrame, col: &str) -> Vec<Option<i64>> {
    df.column(col).unwrap().cast(&DataType::Int64).unwrap().i64().unwrap().iter().collect()
}

pub(crate) fn floats(df: &DataFrame, col: &str) -> Vec<Option<f64>> {
    df.column(col).unwrap().cast(&DataType::Float64).unwrap().f64().unwrap().iter().collect()
}

/// A Date column as days since 1970-01-01.
fn days(df: &DataFrame, col: &str) -> Vec<Option<i32>> {
    let c = df.column(col).unwrap();
    assert_eq!(c.dtype(), &DataType::Date, "{col} is a date");
    c.cast(&DataType::Int32).unwrap().i32().unwrap().iter().collect()
}

/// A sum's cents at `row`: a sum is never null, so a null fails.
fn sum_at(col: &[Option<i128>], row: usize) -> i128 {
    col[row].unwrap_or_else(|| panic!("a sum is null at row {row}"))
}

// ---- reading the dataset's published text, by this module's own rules

/// Text as the tables keep it: trimmed, blank is null.
pub(crate) fn text(v: Option<&str>) -> Option<String> {
    v.map(str::trim).filter(|t| !t.is_empty()).map(str::to_string)
}

/// A code: text, upper-cased.
fn code(v: Option<&str>) -> Option<String> {
    text(v).map(|t| t.to_uppercase())
}

/// An amount with a decimal comma (`1.234.567,89`, or `1000,00` without grouping) in cents;
/// blank or `null` is no amount.
pub(crate) fn cents_comma(v: Option<&str>) -> Option<i128> {
    let t = text(v).filter(|t| !t.eq_ignore_ascii_case("null"))?;
    let (negative, body) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.as_str()),
    };
    let (whole, frac) = body.split_once(',').unwrap_or_else(|| panic!("{t}: no decimal comma"));
    assert!(frac.len() == 2 && frac.bytes().all(|b| b.is_ascii_digit()), "{t}: two decimals");
    assert!(whole.bytes().all(|b| b.is_ascii_digit() || b == b'.'), "{t}: digits and dots");
    let cents = whole.replace('.', "").parse::<i128>().unwrap() * 100 + frac.parse::<i128>().unwrap();
    Some(if negative { -cents } else { cents })
}

/// A registry date (`YYYYMMDD`) as days since 1970-01-01. `00000000`, blank, `null` and the
/// impossible dates the dataset writes (years 202 and 4100) are no date.
fn registry_days(v: Option<&str>) -> Option<i32> {
    let t = text(v)?;
    if t.len() != 8 || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let year: i32 = t[..4].parse().ok()?;
    if !(1800..=2100).contains(&year) {
        return None;
    }
    let date = chrono::NaiveDate::from_ymd_opt(year, t[4..6].parse().ok()?, t[6..].parse().ok()?)?;
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1)?;
    i32::try_from(date.signed_duration_since(epoch).num_days()).ok()
}

/// The CNAE 2.x section of a 7-digit subclass, from its division (docs/domain.md, "CNAE 2.x
/// sections"), written out here rather than borrowed from the client.
fn cnae_section(cnae: &str) -> Option<&'static str> {
    let cnae = cnae.trim();
    if cnae.len() != 7 || !cnae.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let division: u32 = cnae[..2].parse().ok()?;
    Some(match division {
        1..=3 => "A",
        5..=9 => "B",
        10..=33 => "C",
        35 => "D",
        36..=39 => "E",
        41..=43 => "F",
        45..=47 => "G",
        49..=53 => "H",
        55..=56 => "I",
        58..=63 => "J",
        64..=66 => "K",
        68 => "L",
        69..=75 => "M",
        77..=82 => "N",
        84 => "O",
        85 => "P",
        86..=88 => "Q",
        90..=93 => "R",
        94..=96 => "S",
        97 => "T",
        99 => "U",
        _ => return None,
    })
}

fn uf_of(p: &CompanyProfile) -> Option<String> {
    text(p.estabelecimento.as_ref().and_then(|e| e.uf.as_deref()))
}

fn section_of(p: &CompanyProfile) -> Option<String> {
    let cnae = p.estabelecimento.as_ref().and_then(|e| e.cnae_fiscal_principal.as_deref())?;
    cnae_section(cnae).map(str::to_string)
}

// ---- credits: queries 02, 09 and 10

/// The months the run fetched, as the dataset publishes them.
pub(crate) fn run_months(d: &Dataset) -> Vec<AnoMes> {
    let first = AnoMes::parse(FIRST_MONTH).unwrap();
    let months: Vec<AnoMes> = d.months().iter().copied().filter(|m| *m >= first).collect();
    assert_eq!(months.len(), 13, "the run fetched 202509..202609");
    months
}

fn month_before(ano_mes: &str) -> String {
    AnoMes::parse(ano_mes).unwrap().plus_months(-1).unwrap().to_string()
}

/// `100 * part / whole`, the ratio the percentage columns round to 4 decimals.
pub(crate) fn pct(part: i128, whole: i128) -> f64 {
    100.0 * part as f64 / whole as f64
}

/// A percentage is a ratio, not money: within half a unit of its 4th decimal, plus the float's
/// own noise.
pub(crate) fn assert_pct(got: Option<f64>, want: Option<f64>, what: &str) {
    match (got, want) {
        (Some(g), Some(w)) => assert!((g - w).abs() <= 0.000_051, "{what}: {g} but {w}"),
        (g, w) => assert_eq!(g.is_some(), w.is_some(), "{what}: {g:?} but {w:?}"),
    }
}

/// (ano_mes, uf)
type Cell = (String, String);

/// Each (month, state) the run fetched, in cents: the dataset's own cell totals. A cell without
/// rows sends the client nothing, so it has no row.
fn credit_cells(d: &Dataset) -> BTreeMap<Cell, i128> {
    let months: Vec<String> = run_months(d).iter().map(ToString::to_string).collect();
    d.truth()
        .credits
        .into_iter()
        .filter(|c| c.rows > 0 && months.contains(&c.ano_mes))
        .map(|c| ((c.ano_mes, c.uf), i128::from(c.total_cents)))
        .collect()
}

/// One published credit row: its keys as the tables keep them (trimmed, codes upper-cased, a
/// blank key named '?', as the queries group it) and its amount in cents.
pub(crate) struct Credit {
    pub uf: String,
    pub secao: String,
    pub secao_descr: String,
    pub grupo: String,
    pub situacao: String,
    pub tipo: String,
    pub natureza: String,
    pub cents: i128,
}

/// Every credit row the dataset publishes for `month`, all states. The amounts read here add
/// up to the dataset's own total of the month: the reading is right.
pub(crate) fn published(d: &Dataset, month: AnoMes) -> Vec<Credit> {
    let page = d.creditos_page(None, Some(month), 0, d.creditos_total(None, Some(month)));
    let key = |v: Option<&str>| text(v).unwrap_or_else(|| "?".to_string());
    let code = |v: Option<&str>| key(v).to_uppercase();
    let rows: Vec<Credit> = page
        .iter()
        .map(|c| Credit {
            uf: code(c.uf.as_deref()),
            secao: code(c.cnae_secao_cod.as_deref()),
            secao_descr: key(c.cnae_secao_descr.as_deref()),
            grupo: key(c.grupo_tributo.as_deref()),
            situacao: key(c.situacao.as_deref()),
            tipo: code(c.tipo_contribuinte.as_deref()),
            natureza: code(c.natureza_juridica.as_deref()),
            cents: cents_comma(c.valor_total.as_deref())
                .unwrap_or_else(|| panic!("{month}: a row without amount")),
        })
        .collect();
    assert!(!rows.is_empty(), "{month}: no credit rows, the test would prove nothing");
    let sum: i128 = rows.iter().map(|r| r.cents).sum();
    assert_eq!(sum, d.creditos_cents(None, Some(month)), "{month}: the rows read here add up");
    rows
}

/// Every credit row the dataset publishes for the run's months, all states, with its month.
fn credit_rows(d: &Dataset) -> Vec<(String, Credit)> {
    run_months(d)
        .into_iter()
        .flat_map(|m| published(d, m).into_iter().map(move |c| (m.to_string(), c)))
        .collect()
}

/// (ano_mes, key)
type SeriesKey = (Option<String>, Option<String>);

/// A series aggregate's rows by (ano_mes, `key`), checked to come in that order, each once.
fn series(df: &DataFrame, key: &str, value: &str) -> BTreeMap<SeriesKey, Option<i128>> {
    let keys: Vec<SeriesKey> = texts(df, "ano_mes").into_iter().zip(texts(df, key)).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "rows by ano_mes, then {key}, each once");
    keys.into_iter().zip(money(df, value)).collect()
}

#[test]
fn credits_by_state_and_month_equal_the_datasets_cells() {
    let d = dataset();
    let cells = credit_cells(&d);
    let mut national: BTreeMap<&str, i128> = BTreeMap::new();
    for ((m, _), v) in &cells {
        *national.entry(m.as_str()).or_default() += v;
    }
    let before = |(m, uf): &Cell| cells.get(&(month_before(m), uf.clone())).copied();

    let df = aggregate("creditos_por_uf_mes");
    assert!(df.height() > 0, "creditos_por_uf_mes is empty");
    assert_eq!(df.height(), cells.len(), "one row per (month, state) with credits");
    let keys: Vec<Cell> = texts(&df, "ano_mes")
        .into_iter()
        .zip(texts(&df, "uf"))
        .map(|(m, uf)| (m.unwrap_or_default(), uf.unwrap_or_default()))
        .collect();
    // Money to the cent: the stock, and its change on the month before (none before the first
    // month fetched).
    let got: BTreeMap<Cell, (Option<i128>, Option<i128>)> = keys
        .iter()
        .cloned()
        .zip(money(&df, "valor_total").into_iter().zip(money(&df, "variacao_mes")))
        .collect();
    assert_eq!(got.len(), df.height(), "a (month, state) in two rows");
    // The documented order: month, then state (both sort as text; a blank state is '?').
    assert_eq!(keys, cells.keys().cloned().collect::<Vec<Cell>>(), "rows by month, then state");
    let want: BTreeMap<Cell, (Option<i128>, Option<i128>)> =
        cells.iter().map(|(k, v)| (k.clone(), (Some(*v), before(k).map(|b| v - b)))).collect();
    assert_eq!(got, want);
    assert!(want.values().any(|(_, change)| change.is_some()), "no month-over-month change was checked");

    let (share, change) = (floats(&df, "participacao_pct"), floats(&df, "variacao_mes_pct"));
    for ((key, share), change) in keys.iter().zip(share).zip(change) {
        let v = cells[key];
        assert_pct(share, Some(pct(v, national[key.0.as_str()])), &format!("{key:?} share of the month"));
        assert_pct(change, before(key).map(|b| pct(v - b, b)), &format!("{key:?} change %"));
    }
}

#[test]
fn the_series_by_cnae_section_equals_the_published_rows_summed() {
    let d = dataset();
    let mut sums: BTreeMap<SeriesKey, i128> = BTreeMap::new();
    let mut names: BTreeMap<SeriesKey, Option<String>> = BTreeMap::new();
    for (ano_mes, r) in credit_rows(&d) {
        let key = (Some(ano_mes), Some(r.secao));
        *sums.entry(key.clone()).or_default() += r.cents;
        let name = names.entry(key).or_insert_with(|| Some(r.secao_descr.clone()));
        assert_eq!(name.as_deref(), Some(r.secao_descr.as_str()), "one name per section");
    }
    let want: BTreeMap<SeriesKey, Option<i128>> = sums.into_iter().map(|(k, v)| (k, Some(v))).collect();
    let df = aggregate("serie_cnae_secao");
    assert!(df.height() > 0, "serie_cnae_secao is empty");
    assert_eq!(df.height(), want.len(), "one row per (month, section)");
    assert_eq!(series(&df, "cnae_secao_cod", "valor_total"), want);
    let got_names: BTreeMap<SeriesKey, Option<String>> = texts(&df, "ano_mes")
        .into_iter()
        .zip(texts(&df, "cnae_secao_cod"))
        .zip(texts(&df, "cnae_secao_descr"))
        .collect();
    assert_eq!(got_names, names);
}

#[test]
fn the_series_by_tax_group_equals_the_published_rows_summed() {
    let d = dataset();
    let mut want: BTreeMap<SeriesKey, i128> = BTreeMap::new();
    for (ano_mes, r) in credit_rows(&d) {
        *want.entry((Some(ano_mes), Some(r.grupo))).or_default() += r.cents;
    }
    let want: BTreeMap<SeriesKey, Option<i128>> = want.into_iter().map(|(k, v)| (k, Some(v))).collect();
    let df = aggregate("serie_grupo_tributo");
    assert!(df.height() > 0, "serie_grupo_tributo is empty");
    assert_eq!(df.height(), want.len(), "one row per (month, tax group)");
    assert_eq!(series(&df, "grupo_tributo", "valor_total"), want);
}

// ---- the portfolio: queries 15, 16, 17 and 24

/// What a company, or a group of them, counts in the portfolio's totals: each inscription once
/// (the dataset credits it to its principal when in the portfolio, else to the smallest CNPJ
/// owing it), each company's plans once.
#[derive(Debug, Default, Clone, PartialEq)]
struct Counted {
    empresas: i64,
    ajuizada: i128,
    nao_ajuizada: i128,
    parcelamentos: i128,
    transacoes: i128,
    exposicao: i128,
}

impl Counted {
    fn add(&mut self, o: &Counted) {
        self.empresas += o.empresas;
        self.ajuizada += o.ajuizada;
        self.nao_ajuizada += o.nao_ajuizada;
        self.parcelamentos += o.parcelamentos;
        self.transacoes += o.transacoes;
        self.exposicao += o.exposicao;
    }
}

/// Each portfolio company the dataset knows, with its profile and what it counts in totals.
fn counted_by_company(d: &Dataset, cnpjs: &[Cnpj]) -> Vec<(CompanyProfile, Counted)> {
    let roles = d.debt_roles_truth(cnpjs);
    let counted: Vec<_> = cnpjs
        .iter()
        .filter_map(|cnpj| {
            let profile = d.profile(cnpj)?;
            let r = &roles[cnpj.as_str()];
            let ajuizada: i128 = r.counted.values().map(|(sim, _)| i128::from(*sim)).sum();
            let nao_ajuizada: i128 = r.counted.values().map(|(_, nao)| i128::from(*nao)).sum();
            let parcelamentos = i128::from(r.counted_parcelamentos_cents);
            let transacoes = i128::from(r.counted_transacoes_cents);
            let exposicao = ajuizada + nao_ajuizada + parcelamentos + transacoes;
            let c = Counted { empresas: 1, ajuizada, nao_ajuizada, parcelamentos, transacoes, exposicao };
            Some((profile, c))
        })
        .collect();
    assert!(counted.iter().any(|(_, c)| c.exposicao > 0), "the portfolio owes nothing: nothing to check");
    counted
}

/// The rows of a portfolio breakdown as the query orders them: by `key` ('?' when the company
/// has none), largest exposure first, then key; the TOTAL row last.
fn breakdown(
    companies: &[(CompanyProfile, Counted)],
    key: fn(&CompanyProfile) -> Option<String>,
) -> Vec<(String, Counted)> {
    let mut groups: BTreeMap<String, Counted> = BTreeMap::new();
    let mut total = Counted::default();
    for (profile, c) in companies {
        groups.entry(key(profile).unwrap_or_else(|| "?".to_string())).or_default().add(c);
        total.add(c);
    }
    let mut rows: Vec<(String, Counted)> = groups.into_iter().collect();
    rows.sort_by(|a, b| b.1.exposicao.cmp(&a.1.exposicao).then_with(|| a.0.cmp(&b.0)));
    rows.push(("TOTAL".to_string(), total));
    rows
}

/// A breakdown aggregate's rows, in the file's order.
fn breakdown_table(df: &DataFrame, key: &str) -> Vec<(String, Counted)> {
    let keys = texts(df, key);
    let empresas = ints(df, "empresas");
    let [ajuizada, nao_ajuizada, parcelamentos, transacoes, exposicao] = [
        "divida_ajuizada",
        "divida_nao_ajuizada",
        "parcelamentos_saldo",
        "transacoes_saldo",
        "exposicao_total",
    ]
    .map(|c| money(df, c));
    (0..df.height())
        .map(|i| {
            let c = Counted {
                empresas: empresas[i].unwrap_or_else(|| panic!("empresas is null at row {i}")),
                ajuizada: sum_at(&ajuizada, i),
                nao_ajuizada: sum_at(&nao_ajuizada, i),
                parcelamentos: sum_at(&parcelamentos, i),
                transacoes: sum_at(&transacoes, i),
                exposicao: sum_at(&exposicao, i),
            };
            (keys[i].clone().unwrap_or_default(), c)
        })
        .collect()
}

fn check_breakdown(table: &str, key: &str, of: fn(&CompanyProfile) -> Option<String>) {
    let d = dataset();
    let companies = counted_by_company(&d, &run().cnpjs);
    let want = breakdown(&companies, of);
    let df = aggregate(table);
    assert!(df.height() > 1, "{table} has no row but TOTAL");
    let got = breakdown_table(&df, key);
    assert_eq!(got.len(), want.len(), "{table}: one row per {key} of the portfolio, and TOTAL");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "{table}: row {} (rows by exposure, then {key})", w.0);
    }
}

#[test]
fn portfolio_exposure_by_state_counts_each_inscription_once_in_its_state() {
    check_breakdown("carteira_por_uf", "uf", uf_of);
}

#[test]
fn portfolio_exposure_by_cnae_section_counts_each_inscription_once_in_its_section() {
    check_breakdown("carteira_por_cnae_secao", "cnae_secao", section_of);
}

/// A company's own exposure, before counting once: every inscription it owes in any role, once,
/// from the dataset's records in cents, and its plans' and transactions' balances.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Own {
    pub(crate) cnpj: String,
    pub(crate) razao_social: Option<String>,
    pub(crate) uf: Option<String>,
    pub(crate) cnae_secao: Option<String>,
    pub(crate) ajuizada: i128,
    pub(crate) nao_ajuizada: i128,
    pub(crate) principal: i128,
    pub(crate) corresponsavel: i128,
    pub(crate) parcelamentos: i128,
    pub(crate) transacoes: i128,
    pub(crate) exposicao: i128,
}

/// Each portfolio company the dataset knows, by bare CNPJ.
pub(crate) fn own_exposures(d: &Dataset, cnpjs: &[Cnpj]) -> BTreeMap<String, Own> {
    let plans = d.portfolio_truth(cnpjs);
    cnpjs
        .iter()
        .zip(&plans.companies)
        .filter_map(|(cnpj, balances)| {
            let (profile, records) = (d.profile(cnpj)?, d.records_truth(cnpj)?);
            let mut own = Own {
                cnpj: cnpj.as_str().to_string(),
                razao_social: text(profile.empresa.as_ref().and_then(|e| e.razao_social.as_deref())),
                uf: uf_of(&profile),
                cnae_secao: section_of(&profile),
                ajuizada: 0,
                nao_ajuizada: 0,
                principal: 0,
                corresponsavel: 0,
                parcelamentos: i128::from(balances.parcelamentos.saldo_devedor_cents),
                transacoes: i128::from(balances.transacoes.saldo_devedor_cents),
                exposicao: 0,
            };
            // One entry per inscription; an amount the generator left unreadable counts 0.
            for x in records.dividas.values() {
                let v = i128::from(x.valor_cents.unwrap_or(0));
                if x.ajuizado {
                    own.ajuizada += v;
                } else {
                    own.nao_ajuizada += v;
                }
                // Only a row that says PRINCIPAL makes the company the principal.
                if x.tipo_devedor.as_deref() == Some("PRINCIPAL") {
                    own.principal += v;
                } else {
                    own.corresponsavel += v;
                }
            }
            own.exposicao = own.principal + own.corresponsavel + own.parcelamentos + own.transacoes;
            Some((own.cnpj.clone(), own))
        })
        .collect()
}

/// A company's own amounts, as the tables of one company's exposure name them (17, 26,
/// historico/04), in `Own`'s order.
pub(crate) const OWN_AMOUNTS: [&str; 7] = [
    "divida_ajuizada",
    "divida_nao_ajuizada",
    "divida_principal",
    "divida_corresponsavel",
    "parcelamentos_saldo",
    "transacoes_saldo",
    "exposicao_total",
];

pub(crate) fn largest_table(df: &DataFrame) -> Vec<Own> {
    let [cnpj, razao_social, uf, cnae_secao] =
        ["cnpj", "razao_social", "uf", "cnae_secao"].map(|c| texts(df, c));
    let [ajuizada, nao_ajuizada, principal, corresponsavel, parcelamentos, transacoes, exposicao] =
        OWN_AMOUNTS.map(|c| money(df, c));
    (0..df.height())
        .map(|i| Own {
            cnpj: cnpj[i].clone().unwrap_or_default(),
            razao_social: razao_social[i].clone(),
            uf: uf[i].clone(),
            cnae_secao: cnae_secao[i].clone(),
            ajuizada: sum_at(&ajuizada, i),
            nao_ajuizada: sum_at(&nao_ajuizada, i),
            principal: sum_at(&principal, i),
            corresponsavel: sum_at(&corresponsavel, i),
            parcelamentos: sum_at(&parcelamentos, i),
            transacoes: sum_at(&transacoes, i),
            exposicao: sum_at(&exposicao, i),
        })
        .collect()
}

#[test]
fn the_20_largest_exposures_are_the_datasets_in_order_to_the_cent() {
    let d = dataset();
    let mut want: Vec<Own> =
        own_exposures(&d, &run().cnpjs).into_values().filter(|o| o.exposicao > 0).collect();
    want.sort_by(|a, b| b.exposicao.cmp(&a.exposicao).then_with(|| a.cnpj.cmp(&b.cnpj)));
    want.truncate(20);
    assert!(!want.is_empty(), "no portfolio company owes anything: the test would prove nothing");
    let got = largest_table(&aggregate("carteira_maiores"));
    let order = |rows: &[Own]| rows.iter().map(|o| o.cnpj.clone()).collect::<Vec<_>>();
    assert_eq!(order(&got[..]), order(&want[..]), "the largest exposures, largest first, then CNPJ");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "{}", w.cnpj);
    }
}

/// The register's text columns (carteira_cadastro), each read from the profile below.
const REGISTER_TEXTS: [&str; 12] = [
    "razao_social",
    "nome_fantasia",
    "uf",
    "municipio",
    "natureza_juridica",
    "porte_empresa",
    "cnae_fiscal_principal",
    "cnae_secao",
    "identificador_matriz_filial",
    "situacao_cadastral",
    "opcao_pelo_simples",
    "opcao_pelo_mei",
];

const REGISTER_DATES: [&str; 3] = ["data_situacao_cadastral", "data_inicio_atividade", "data_opcao_simples"];

/// One row of the register.
#[derive(Debug, PartialEq)]
struct Register {
    cnpj: String,
    consulta: Option<String>,
    texts: BTreeMap<&'static str, Option<String>>,
    dates: BTreeMap<&'static str, Option<i32>>,
    capital_social: Option<i128>,
    exposicao_total: Option<i128>,
    situacao_fiscal_estimada: Option<String>,
}

fn register_text(column: &str, e: &Empresa, s: &Estabelecimento, x: &Simples) -> Option<String> {
    match column {
        "razao_social" => text(e.razao_social.as_deref()),
        "nome_fantasia" => text(s.nome_fantasia.as_deref()),
        "uf" => code(s.uf.as_deref()),
        "municipio" => text(s.municipio.as_deref()),
        "natureza_juridica" => code(e.natureza_juridica.as_deref()),
        "porte_empresa" => code(e.porte_empresa.as_deref()),
        "cnae_fiscal_principal" => text(s.cnae_fiscal_principal.as_deref()),
        "cnae_secao" => s.cnae_fiscal_principal.as_deref().and_then(cnae_section).map(str::to_string),
        "identificador_matriz_filial" => code(s.identificador_matriz_filial.as_deref()),
        "situacao_cadastral" => code(s.situacao_cadastral.as_deref()),
        "opcao_pelo_simples" => code(x.opcao_pelo_simples.as_deref()),
        "opcao_pelo_mei" => code(x.opcao_pelo_mei.as_deref()),
        other => panic!("no truth for {other}"),
    }
}

fn register_date(column: &str, s: &Estabelecimento, x: &Simples) -> Option<i32> {
    match column {
        "data_situacao_cadastral" => registry_days(s.data_situacao_cadastral.as_deref()),
        "data_inicio_atividade" => registry_days(s.data_inicio_atividade.as_deref()),
        "data_opcao_simples" => registry_days(x.data_opcao_simples.as_deref()),
        other => panic!("no truth for {other}"),
    }
}

/// Statuses that suspend collection (query 19's rule); any other, or none, is in collection.
const SUSPENDED: [&str; 4] =
    ["Garantia", "Suspenso por decisão judicial", "Em negociação", "Benefício Fiscal"];

/// Query 19's estimate from every published debt row of the company (one per debtor).
pub(crate) fn estimated_standing(d: &Dataset, cnpj: &Cnpj) -> &'static str {
    let rows: Vec<_> =
        Categoria::ALL.into_iter().flat_map(|c| d.dividas(cnpj, c).unwrap_or_default()).collect();
    let suspended = |t: Option<&str>| t.map(str::trim).is_some_and(|t| SUSPENDED.contains(&t));
    let in_collection = rows.iter().filter(|r| !suspended(r.tipo_situacao_inscricao.as_deref())).count();
    match (rows.len(), in_collection) {
        (0, _) => "sem inscrições",
        (_, 0) => "positiva com efeitos de negativa",
        _ => "irregular",
    }
}

/// A portfolio CNPJ's register row from its profile; one the dataset does not know keeps its
/// row with everything else null.
fn register_truth(d: &Dataset, cnpj: &Cnpj, own: Option<&Own>) -> Register {
    let profile = d.profile(cnpj);
    let found = profile.is_some();
    let p = profile.unwrap_or_default();
    let (e, s, x) =
        (p.empresa.unwrap_or_default(), p.estabelecimento.unwrap_or_default(), p.simples.unwrap_or_default());
    Register {
        cnpj: cnpj.as_str().to_string(),
        consulta: Some(if found { "encontrada" } else { "nao_encontrada" }.to_string()),
        texts: REGISTER_TEXTS.iter().map(|c| (*c, register_text(c, &e, &s, &x))).collect(),
        dates: REGISTER_DATES.iter().map(|c| (*c, register_date(c, &s, &x))).collect(),
        capital_social: cents_comma(e.capital_social_raw.as_deref()),
        exposicao_total: own.map(|o| o.exposicao),
        situacao_fiscal_estimada: found.then(|| estimated_standing(d, cnpj).to_string()),
    }
}

fn register_table(df: &DataFrame) -> Vec<Register> {
    let columns: BTreeMap<&'static str, Vec<Option<String>>> =
        REGISTER_TEXTS.iter().map(|c| (*c, texts(df, c))).collect();
    let dates: BTreeMap<&'static str, Vec<Option<i32>>> =
        REGISTER_DATES.iter().map(|c| (*c, days(df, c))).collect();
    let [cnpj, consulta, situacao] = ["cnpj", "consulta", "situacao_fiscal_estimada"].map(|c| texts(df, c));
    let (capital, exposure) = (money(df, "capital_social"), money(df, "exposicao_total"));
    (0..df.height())
        .map(|i| Register {
            cnpj: cnpj[i].clone().unwrap_or_default(),
            consulta: consulta[i].clone(),
            texts: columns.iter().map(|(c, v)| (*c, v[i].clone())).collect(),
            dates: dates.iter().map(|(c, v)| (*c, v[i])).collect(),
            capital_social: capital[i],
            exposicao_total: exposure[i],
            situacao_fiscal_estimada: situacao[i].clone(),
        })
        .collect()
}

#[test]
fn the_portfolio_register_holds_each_cnpjs_registry_facts() {
    let (d, r) = (dataset(), run());
    let own = own_exposures(&d, &r.cnpjs);
    let mut cnpjs = r.cnpjs.clone();
    cnpjs.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    let want: Vec<Register> = cnpjs.iter().map(|c| register_truth(&d, c, own.get(c.as_str()))).collect();
    let found = want.iter().filter(|w| w.consulta.as_deref() == Some("encontrada")).count();
    assert!(found > 0 && found < want.len(), "found and unknown CNPJs both checked ({found} found)");

    let got = register_table(&aggregate("carteira_cadastro"));
    let order = |rows: &[Register]| rows.iter().map(|w| w.cnpj.clone()).collect::<Vec<_>>();
    assert_eq!(order(&got[..]), order(&want[..]), "one row per portfolio CNPJ, by CNPJ");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g, w, "{}", w.cnpj);
    }
}
