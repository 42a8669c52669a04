//! The dossiers' records as typed tables (`schema::DOSSIER_TABLES`): establishments, partners,
//! construction works and the works' links, CNAEs and areas, one row per record with the CNPJ
//! or CNO it came from, typed by the same converters as the raw tables.
//!
//! It owns flattening the records into staged text; the column rules are `schema`'s.

use std::collections::BTreeMap;

use polars::prelude::*;
use serde::Serialize;

use super::schema::DOSSIER_TABLES;
use super::typing::{QualityCount, TransformError, type_columns};
use crate::extract::dossier_records::DossierRecords;
use crate::tables::record::for_each_field;

/// Staged text of one table: column name -> values.
#[derive(Default)]
struct Staged {
    columns: BTreeMap<&'static str, Vec<Option<String>>>,
    rows: usize,
}

impl Staged {
    /// Adds `record`'s fields and the `context` columns as one row.
    fn push<T: Serialize>(&mut self, record: &T, context: &[(&'static str, &str)]) {
        let rows = self.rows;
        let mut put = |name: &'static str, value: Option<String>| {
            let column = self.columns.entry(name).or_insert_with(|| vec![None; rows]);
            column.push(value);
        };
        for_each_field(record, &mut put);
        for (name, value) in context {
            put(name, Some((*value).to_string()));
        }
        self.rows += 1;
        for column in self.columns.values_mut() {
            column.resize(self.rows, None);
        }
    }

    fn frame(self, columns: &[&'static str]) -> PolarsResult<DataFrame> {
        let Staged { columns: mut values, rows } = self;
        let cols = columns
            .iter()
            .map(|name| {
                let v = values.remove(name).unwrap_or_else(|| vec![None; rows]);
                Column::new((*name).into(), v)
            })
            .collect();
        DataFrame::new(rows, cols)
    }
}

/// The dossiers' typed tables by name, in `DOSSIER_TABLES` order.
pub(crate) type DossierTables = Vec<(&'static str, DataFrame)>;

/// The typed tables of `records` and what did not parse.
pub(crate) fn dossier_frames(
    records: &[DossierRecords],
) -> Result<(DossierTables, Vec<QualityCount>), TransformError> {
    let mut staged: BTreeMap<&'static str, Staged> = BTreeMap::new();
    let mut fill = |name: &'static str, f: &mut dyn FnMut(&mut Staged)| f(staged.entry(name).or_default());
    for r in records {
        let cnpj = r.cnpj.as_str();
        fill("estabelecimentos", &mut |t| {
            r.estabelecimentos.iter().for_each(|e| t.push(e, &[("cnpj_consultado", cnpj)]))
        });
        fill("socios", &mut |t| r.socios.iter().for_each(|s| t.push(s, &[("cnpj_consultado", cnpj)])));
        fill("obras", &mut |t| r.obras.iter().for_each(|w| t.push(&w.obra, &[("cnpj_consultado", cnpj)])));
        fill("obra_vinculos", &mut |t| r.obras.iter().flat_map(|w| &w.vinculos).for_each(|v| t.push(v, &[])));
        fill("obra_cnaes", &mut |t| r.obras.iter().flat_map(|w| &w.cnaes).for_each(|c| t.push(c, &[])));
        fill("obra_areas", &mut |t| r.obras.iter().flat_map(|w| &w.areas).for_each(|a| t.push(a, &[])));
    }
    let mut frames = Vec::new();
    let mut quality = Vec::new();
    for (name, specs) in DOSSIER_TABLES {
        let sources: Vec<&'static str> = specs.iter().map(|s| s.source).collect();
        let text = staged
            .remove(name)
            .unwrap_or_default()
            .frame(&sources)
            .map_err(|source| TransformError::Frame { table: name, source })?;
        let (typed, q) = type_columns(name, specs, &text)?;
        frames.push((name, typed));
        quality.extend(q);
    }
    Ok((frames, quality))
}

/// The dossier companies' profiles and debts as the run's own `empresas` and `dividas_pgfn`
/// frames (same staging rows, same typing), so the queries that judge a company's standing
/// run on a dossier exactly as on a monthly run.
pub(crate) fn standing_frames(records: &[DossierRecords]) -> Result<super::Frames, TransformError> {
    use crate::tables::{Table, flat_row, profile_row};
    let profiles: Vec<_> = records.iter().map(|r| profile_row(&r.profile, r.cnpj.as_str())).collect();
    let debts: Vec<_> = records
        .iter()
        .flat_map(|r| {
            r.dividas.iter().flat_map(move |(categoria, rows)| {
                rows.iter().map(move |d| {
                    flat_row(
                        Table::DividasPgfn,
                        d,
                        &[("cnpj_consultado", r.cnpj.as_str()), ("categoria", categoria.as_str())],
                    )
                })
            })
        })
        .collect();
    let rows = BTreeMap::from([(Table::Empresas, profiles), (Table::DividasPgfn, debts)]);
    super::frames::frames_from_rows(&rows, &[Table::Empresas, Table::DividasPgfn])
}
