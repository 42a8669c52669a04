//! "Sanções e listas": the portfolio's companies with a sanction in force on a public list
//! (`aggregates/sancoes.parquet`), grouped by how the list reaches them, then those whose
//! sanction ended in the twelve months before the list's date; apart, the partners possibly
//! politically exposed (PEP), which is no sanction. Without any list read the section says so,
//! never an empty table read as "nobody is listed".

use std::collections::{BTreeMap, BTreeSet};

use chrono::{Months, NaiveDate};
use polars::prelude::DataFrame;
use serde::Serialize;

use super::super::cells::text;
use super::rows;
use crate::analyze::Aggregates;
use crate::analyze::sancoes::VINCULOS;
use crate::report::format::Locale;
use crate::report::strings::Strings;
use crate::transform::Frames;

/// One record of a list touching one company, in the report's words.
#[derive(Debug, Clone, Serialize)]
pub struct SancoesRow {
    pub cnpj: String,
    pub razao_social: Option<String>,
    /// The list's name (`lista_nome_<code>`).
    pub lista: String,
    /// The list's date, as its file gives it (`dd/mm/aaaa`).
    pub data_lista: Option<String>,
    pub sancionado: Option<String>,
    pub nome: Option<String>,
    pub categoria: Option<String>,
    pub orgao: Option<String>,
    pub inicio: Option<String>,
    pub fim: Option<String>,
    /// Exact decimal text; the templates format it as money.
    pub valor_multa: Option<String>,
    /// How the list reaches the company, in words.
    pub vinculo: String,
    /// A sanction that ended (its table names how each row is reached).
    pub ended: bool,
    /// In force on the list's date.
    pub vigente: bool,
}

/// The records in force reached one way (`vinculo`).
#[derive(Debug, Clone, Serialize)]
pub struct SancoesGroup {
    pub vinculo: &'static str,
    pub label: String,
    pub companies: usize,
    pub rows: Vec<SancoesRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Sancoes {
    /// Whether any public list was read: without one the section says so in one sentence.
    pub read: bool,
    /// The lists' dates as their files give them.
    pub dates: Vec<String>,
    pub in_force: Vec<SancoesGroup>,
    /// Companies with a sanction in force, and those reached by their own CNPJ or root.
    pub companies_in_force: usize,
    pub companies_own: usize,
    /// Sancoes that ended in the twelve months before their list's date.
    pub ended: Vec<SancoesRow>,
    /// The records of lists that restrict no one (PEP) in force: partners possibly politically
    /// exposed, shown apart from the sanctions and counted in none of them.
    pub exposed: Vec<SancoesRow>,
}

/// None when the run has no `sancoes` query (an analyst's folder without it).
pub(crate) fn sanctions(aggs: &Aggregates, frames: &Frames, locale: Locale, t: &Strings) -> Option<Sancoes> {
    let df = aggs.get("sancoes")?;
    let names = company_names(aggs);
    let read = df.height() > 0 || listas_read(frames);
    let (all, other): (Vec<Read>, Vec<Read>) =
        rows(df).map(|i| record(df, i, &names, locale, t)).partition(|(r, _)| r.restrictive);
    let in_force: Vec<SancoesGroup> = VINCULOS
        .iter()
        .map(|v| {
            let rows: Vec<SancoesRow> =
                all.iter().filter(|(r, _)| r.vigente && r.vinculo == *v).map(|(_, s)| s.clone()).collect();
            SancoesGroup {
                vinculo: v,
                label: t.get(&format!("sancoes_vinculo_{v}")),
                companies: rows.iter().map(|r| &r.cnpj).collect::<BTreeSet<_>>().len(),
                rows,
            }
        })
        .filter(|g| !g.rows.is_empty())
        .collect();
    let count = |own: bool| {
        let near = |r: &Record| !own || r.vinculo == "cnpj" || r.vinculo == "raiz";
        all.iter().filter(|(r, _)| r.vigente && near(r)).map(|(_, s)| &s.cnpj).collect::<BTreeSet<_>>().len()
    };
    Some(Sancoes {
        read,
        dates: all
            .iter()
            .filter_map(|(_, s)| s.data_lista.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        companies_in_force: count(false),
        companies_own: count(true),
        in_force,
        ended: all
            .iter()
            .filter(|(r, _)| r.ended_within_a_year())
            .map(|(_, s)| SancoesRow { ended: true, ..s.clone() })
            .collect(),
        exposed: other.into_iter().filter(|(r, _)| r.vigente).map(|(_, s)| s).collect(),
    })
}

/// Whether the run read any public list (its `listas` holds records).
pub(crate) fn listas_read(frames: &Frames) -> bool {
    frames.tables.get(crate::transform::listas::LISTAS).is_some_and(|l| l.height() > 0)
}

/// Each company's records on the lists, in force first, by CNPJ (digits): what its dossier
/// shows.
pub(crate) fn by_company(df: &DataFrame, locale: Locale, t: &Strings) -> BTreeMap<String, Vec<SancoesRow>> {
    let mut out: BTreeMap<String, Vec<SancoesRow>> = BTreeMap::new();
    for i in rows(df) {
        let (_, row) = record(df, i, &BTreeMap::new(), locale, t);
        out.entry(row.cnpj.clone()).or_default().push(row);
    }
    for list in out.values_mut() {
        list.sort_by_key(|r| !r.vigente);
    }
    out
}

/// A row read: what the grouping needs, and its words.
type Read = (Record, SancoesRow);

/// What the grouping needs of a row, beside its words.
struct Record {
    /// On a list that restricts dealing with the party (`api::listas`' `restritiva`).
    restrictive: bool,
    vinculo: String,
    vigente: bool,
    fim: Option<NaiveDate>,
    data_lista: Option<NaiveDate>,
}

impl Record {
    /// Not in force, ended on or before the list's date and less than twelve months before it.
    fn ended_within_a_year(&self) -> bool {
        match (self.fim, self.data_lista) {
            (Some(fim), Some(date)) => {
                !self.vigente
                    && fim <= date
                    && date.checked_sub_months(Months::new(12)).is_some_and(|y| fim > y)
            }
            _ => false,
        }
    }
}

fn record(
    df: &DataFrame,
    i: usize,
    names: &BTreeMap<String, String>,
    locale: Locale,
    t: &Strings,
) -> (Record, SancoesRow) {
    let cnpj = text(df, "cnpj", i).unwrap_or_default();
    let vinculo = text(df, "vinculo", i).unwrap_or_default();
    let date_of = |c: &str| text(df, c, i).and_then(|d| NaiveDate::parse_from_str(&d, "%Y-%m-%d").ok());
    let data_lista = date_of("data_lista");
    let lista = text(df, "lista", i).unwrap_or_default();
    let restrictive = crate::api::listas::Lista::of_codigo(&lista).is_none_or(|l| l.definicao().restritiva);
    let rec = Record {
        restrictive,
        vigente: text(df, "vigente", i).is_some_and(|v| v == "true"),
        fim: date_of("fim"),
        data_lista,
        vinculo: vinculo.clone(),
    };
    let row = SancoesRow {
        razao_social: names.get(&cnpj).cloned(),
        cnpj,
        lista: t.get(&format!("lista_nome_{lista}")),
        data_lista: data_lista.map(|d| day(d, locale)),
        sancionado: text(df, "sancionado", i),
        nome: text(df, "nome", i),
        categoria: text(df, "categoria", i),
        orgao: text(df, "orgao", i),
        inicio: date_of("inicio").map(|d| day(d, locale)),
        fim: rec.fim.map(|d| day(d, locale)),
        valor_multa: text(df, "valor_multa", i),
        vinculo: t.get(&format!("sancoes_vinculo_{vinculo}")),
        ended: false,
        vigente: rec.vigente,
    };
    (rec, row)
}

/// A day as the report's language writes it.
fn day(d: NaiveDate, locale: Locale) -> String {
    match locale {
        Locale::PtBr => d.format("%d/%m/%Y").to_string(),
        Locale::En => d.format("%Y-%m-%d").to_string(),
    }
}

/// Each portfolio company's name, from `carteira_empresas` when the run has it.
fn company_names(aggs: &Aggregates) -> BTreeMap<String, String> {
    aggs.get("carteira_empresas")
        .map(|df| {
            rows(df).filter_map(|i| Some((text(df, "cnpj", i)?, text(df, "razao_social", i)?))).collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(y, m, d)
    }

    #[test]
    fn a_sanction_ended_counts_for_twelve_months_before_the_lists_date() {
        let r = |vigente: bool, fim: Option<NaiveDate>| Record {
            restrictive: true,
            vinculo: "cnpj".into(),
            vigente,
            fim,
            data_lista: at(2026, 9, 28),
        };
        assert!(r(false, at(2026, 9, 28)).ended_within_a_year());
        assert!(r(false, at(2025, 9, 29)).ended_within_a_year());
        assert!(!r(false, at(2025, 9, 28)).ended_within_a_year());
        assert!(!r(false, at(2026, 10, 1)).ended_within_a_year(), "not yet ended");
        assert!(!r(true, at(2026, 9, 28)).ended_within_a_year(), "in force");
        assert!(!r(false, None).ended_within_a_year(), "never started");
    }
}
