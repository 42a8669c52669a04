//! One table's staged text typed by its schema (`schema`), column by column: every value
//! either converts exactly or becomes null with its text kept in `<column>_raw` and counted as
//! a `QualityCount`. What the frames are and how a run's tables are gathered is `frames`'.

use std::path::PathBuf;

use chrono::{Datelike, NaiveDate};
use polars::prelude::*;

use super::parse::{
    cnae_section, debtor_role, is_date_placeholder, normalise_uf, parse_ano_mes, parse_brl_amount,
    parse_registry_date, to_cents_scale, trimmed, uf_outside_states,
};
use super::schema::{ColumnSpec, Kind, columns};
use super::vocabulary::vocabulary_column;
use crate::tables::Table;

/// Decimal(18,2): precise to the cent for amounts under 10^16 BRL.
pub const MONEY_PRECISION: usize = 18;
pub const MONEY_SCALE: usize = 2;

#[derive(Debug, thiserror::Error)]
pub enum TransformError {
    #[error("reading staged {table} data from {path}: {message}")]
    Read { table: &'static str, path: PathBuf, message: String },
    #[error("building the {table} frame: {source}")]
    Frame {
        table: &'static str,
        #[source]
        source: PolarsError,
    },
}

/// Staged data that cannot be read back or typed is a bug of ours (the staging wrote it).
impl crate::exit::HasExitStatus for TransformError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        crate::exit::ExitStatus::Internal
    }
}

/// Values that did not convert, per table and column.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct QualityCount {
    pub table: String,
    pub column: String,
    pub failures: u64,
    /// Values the publisher writes for "unknown" (an all-zero date): read as null, counted here
    /// rather than as failures.
    #[serde(default)]
    pub placeholders: u64,
    pub examples: Vec<String>,
}

pub fn read_staged(table: Table, paths: &[PathBuf]) -> Result<DataFrame, TransformError> {
    let mut out: Option<DataFrame> = None;
    for path in paths {
        let err = |m: String| TransformError::Read { table: table.name(), path: path.clone(), message: m };
        let file = std::fs::File::open(path).map_err(|e| err(e.to_string()))?;
        let df = ParquetReader::new(file).finish().map_err(|e| err(e.to_string()))?;
        match &mut out {
            None => out = Some(df),
            Some(acc) => {
                acc.vstack_mut_owned(df).map_err(|e| err(e.to_string()))?;
            }
        }
    }
    match out {
        Some(df) => Ok(df),
        None => {
            staged_frame(table, &[]).map_err(|source| TransformError::Frame { table: table.name(), source })
        }
    }
}

/// Staged rows of `table` (its `columns()` in order, as text) as the frame `type_table` reads:
/// how records that never went through a staging file (a dossier's, a test's) are typed.
pub fn staged_frame(table: Table, rows: &[crate::tables::Row]) -> PolarsResult<DataFrame> {
    let columns = table
        .columns()
        .iter()
        .enumerate()
        .map(|(i, name)| {
            Column::new(name.as_str().into(), rows.iter().map(|r| r[i].clone()).collect::<Vec<_>>())
        })
        .collect();
    DataFrame::new(rows.len(), columns)
}

pub(super) fn days_since_epoch(d: NaiveDate) -> i32 {
    d.num_days_from_ce() - 719_163
}

struct Converted {
    columns: Vec<Column>,
    failures: u64,
    placeholders: u64,
    examples: Vec<String>,
}

/// How many distinct failed texts a data-quality row shows.
const EXAMPLES: usize = 3;

/// Keeps the three smallest distinct texts that failed, in order, as a data-quality row's
/// examples. The smallest rather than the first: rows arrive in the order the concurrent fetch
/// finished them, and the same rows must give the same `data_quality` in every run.
pub(crate) fn note_example(examples: &mut Vec<String>, text: &str) {
    let Err(at) = examples.binary_search_by(|e| e.as_str().cmp(text)) else { return };
    if at < EXAMPLES {
        examples.insert(at, text.to_string());
        examples.truncate(EXAMPLES);
    }
}

/// Converts one source column by `spec`: the typed column, plus `<name>_raw` for kinds that keep it.
fn convert(spec: &ColumnSpec, src: &StringChunked) -> Converted {
    let name: PlSmallStr = spec.name.into();
    let mut failures = 0u64;
    let mut placeholders = 0u64;
    let mut examples: Vec<String> = Vec::new();
    let mut raw: Vec<Option<String>> = Vec::new();
    let mut fail = |text: &str, raw_slot: &mut Option<String>| {
        failures += 1;
        note_example(&mut examples, text);
        *raw_slot = Some(text.to_string());
    };
    let column: Column = match spec.kind {
        Kind::Text => StringChunked::from_iter_options(name, src.iter().map(trimmed)).into_column(),
        Kind::Vocab => vocabulary_column(name, src),
        Kind::Code => {
            StringChunked::from_iter_options(name, src.iter().map(|v| trimmed(v).map(str::to_uppercase)))
                .into_column()
        }
        Kind::DebtorRole => {
            let vals = src.iter().map(|v| {
                trimmed(v).map(|t| {
                    debtor_role(t).map(str::to_string).unwrap_or_else(|folded| {
                        // Counted, and kept folded in the column itself: no `_raw` column.
                        fail(t, &mut None);
                        folded
                    })
                })
            });
            let vals: Vec<Option<String>> = vals.collect();
            StringChunked::from_iter_options(name, vals.into_iter()).into_column()
        }
        Kind::Uf => {
            let vals: Vec<Option<&'static str>> = src
                .iter()
                .map(|v| {
                    let mut slot = None;
                    let out = trimmed(v).and_then(|t| {
                        let u = normalise_uf(t).or_else(|| uf_outside_states(t));
                        if u.is_none() {
                            fail(t, &mut slot);
                        }
                        u
                    });
                    raw.push(slot);
                    out
                })
                .collect();
            StringChunked::from_iter_options(name, vals.into_iter()).into_column()
        }
        Kind::Money => {
            let vals: Vec<Option<i128>> = src
                .iter()
                .map(|v| {
                    let mut slot = None;
                    let out = match v {
                        None => None,
                        Some(t) => match parse_brl_amount(t).map(|o| o.map(to_cents_scale)) {
                            Ok(None) => None,
                            Ok(Some(Some(d))) => Some(d.mantissa()),
                            // More than two decimals or out of range: not money we can hold exactly.
                            Ok(Some(None)) | Err(_) => {
                                fail(t.trim(), &mut slot);
                                None
                            }
                        },
                    };
                    raw.push(slot);
                    out
                })
                .collect();
            Int128Chunked::from_iter_options(name, vals.into_iter())
                .into_decimal_unchecked(MONEY_PRECISION, MONEY_SCALE)
                .into_column()
        }
        Kind::Date => {
            let vals: Vec<Option<i32>> = src
                .iter()
                .map(|v| {
                    let mut slot = None;
                    let out = v.and_then(|t| match parse_registry_date(t) {
                        _ if is_date_placeholder(t) => {
                            placeholders += 1;
                            None
                        }
                        Ok(d) => d.map(days_since_epoch),
                        Err(_) => {
                            fail(t.trim(), &mut slot);
                            None
                        }
                    });
                    raw.push(slot);
                    out
                })
                .collect();
            Int32Chunked::from_iter_options(name, vals.into_iter()).into_date().into_column()
        }
        Kind::Int => {
            let vals: Vec<Option<i64>> = src
                .iter()
                .map(|v| {
                    let mut slot = None;
                    let out = trimmed(v).and_then(|t| match t.parse::<i64>() {
                        Ok(n) => Some(n),
                        Err(_) => {
                            fail(t, &mut slot);
                            None
                        }
                    });
                    raw.push(slot);
                    out
                })
                .collect();
            Int64Chunked::from_iter_options(name, vals.into_iter()).into_column()
        }
        Kind::AnoMesDate => {
            let vals =
                src.iter().map(|v| trimmed(v).and_then(|t| parse_ano_mes(t).ok()).map(days_since_epoch));
            Int32Chunked::from_iter_options(name, vals).into_date().into_column()
        }
        Kind::AnoMesPrevious | Kind::AnoMesYearAgo => {
            let back = if spec.kind == Kind::AnoMesPrevious { 1 } else { 12 };
            let vals = src.iter().map(|v| {
                trimmed(v).and_then(|t| parse_ano_mes(t).ok()).map(|d| {
                    let index = d.year() * 12 + d.month0() as i32 - back;
                    format!("{:04}{:02}", index.div_euclid(12), index.rem_euclid(12) + 1)
                })
            });
            StringChunked::from_iter_options(name, vals).into_column()
        }
        Kind::CnaeSection => {
            let vals = src.iter().map(|v| trimmed(v).and_then(cnae_section).map(|(c, _)| c.to_string()));
            StringChunked::from_iter_options(name, vals).into_column()
        }
        Kind::CnaeSectionName => {
            let vals = src.iter().map(|v| trimmed(v).and_then(cnae_section).map(|(_, n)| n));
            StringChunked::from_iter_options(name, vals).into_column()
        }
    };
    let mut columns = vec![column];
    if spec.kind.keeps_original() {
        let original: PlSmallStr = format!("{}_original", spec.name).into();
        // The published text as it came: the same buffers, not a copy.
        columns.push(src.clone().with_name(original).into_column());
    }
    if spec.kind.keeps_raw() {
        let raw_name: PlSmallStr = format!("{}_raw", spec.name).into();
        columns.push(StringChunked::from_iter_options(raw_name, raw.into_iter()).into_column());
    }
    Converted { columns, failures, placeholders, examples }
}

/// Data-quality counts of already typed rows, from the text they kept in `<column>_raw`
/// (every failure keeps it). Placeholders leave no trace once typed, so they are not counted.
pub fn quality_of_rejected_text(table: Table, df: &DataFrame) -> PolarsResult<Vec<QualityCount>> {
    let mut out = Vec::new();
    for spec in columns(table).iter().filter(|c| c.kind.keeps_raw()) {
        let raw = df.column(&format!("{}_raw", spec.name))?.str()?.clone();
        let mut q = QualityCount {
            table: table.name().to_string(),
            column: spec.name.to_string(),
            failures: 0,
            placeholders: 0,
            examples: Vec::new(),
        };
        for t in raw.iter().flatten() {
            q.failures += 1;
            note_example(&mut q.examples, t);
        }
        if q.failures > 0 {
            out.push(q);
        }
    }
    Ok(out)
}

/// One table's typed frame from its staged text frame.
pub fn type_table(
    table: Table,
    staged: &DataFrame,
) -> Result<(DataFrame, Vec<QualityCount>), TransformError> {
    type_columns(table.name(), columns(table), staged)
}

/// A typed frame named `name` from its staged text frame, column by column as `specs` say.
pub(super) fn type_columns(
    name: &'static str,
    specs: &[ColumnSpec],
    staged: &DataFrame,
) -> Result<(DataFrame, Vec<QualityCount>), TransformError> {
    let ferr = |source| TransformError::Frame { table: name, source };
    let mut cols = Vec::new();
    let mut quality = Vec::new();
    for spec in specs {
        let src = staged.column(spec.source).and_then(|c| c.str().cloned()).map_err(ferr)?;
        let conv = convert(spec, &src);
        if conv.failures > 0 || conv.placeholders > 0 {
            quality.push(QualityCount {
                table: name.to_string(),
                column: spec.name.to_string(),
                failures: conv.failures,
                placeholders: conv.placeholders,
                examples: conv.examples,
            });
        }
        cols.extend(conv.columns);
    }
    let df = DataFrame::new(staged.height(), cols).map_err(ferr)?;
    Ok((df, quality))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_and_dates_convert_exactly_and_failures_keep_their_text() {
        let staged = DataFrame::new(
            4,
            vec![
                Column::new("ano_mes".into(), ["202401", "202312", "202401", "202401"]),
                Column::new("uf".into(), [Some("sp"), Some("SAO PAULO"), Some("XX"), None]),
                Column::new("cnae_secao_cod".into(), ["c", "C", "G", "J"]),
                Column::new("cnae_secao_descr".into(), ["x", "x", "x", "x"]),
                Column::new("grupo_tributo".into(), ["IRPJ", "IRPJ", "PIS", "CSLL"]),
                Column::new("natureza_juridica".into(), ["2062", "2062", "2062", "2062"]),
                Column::new("situacao".into(), ["a", "a", "a", "a"]),
                Column::new("tipo_contribuinte".into(), ["PJ", "PJ", "PJ", "PF"]),
                Column::new(
                    "valor_total".into(),
                    [Some("1.234.567,89"), Some("312038.84"), Some("abc"), Some("")],
                ),
            ],
        )
        .unwrap();
        let (df, q) = type_table(Table::CreditosAtivos, &staged).unwrap();
        assert_eq!(df.column("valor_total").unwrap().dtype(), &DataType::Decimal(18, 2));
        let cents: Vec<Option<i128>> =
            df.column("valor_total").unwrap().decimal().unwrap().physical().iter().collect();
        assert_eq!(cents, vec![Some(123_456_789), Some(31_203_884), None, None]);
        let raw: Vec<Option<&str>> = df.column("valor_total_raw").unwrap().str().unwrap().iter().collect();
        assert_eq!(raw, vec![None, None, Some("abc"), None]);
        let ufs: Vec<Option<&str>> = df.column("uf").unwrap().str().unwrap().iter().collect();
        assert_eq!(ufs, vec![Some("SP"), Some("SP"), None, None]);
        let prev: Vec<Option<&str>> = df.column("ano_mes_anterior").unwrap().str().unwrap().iter().collect();
        assert_eq!(prev[0..2], [Some("202312"), Some("202311")]);
        assert_eq!(df.column("ano_mes_data").unwrap().dtype(), &DataType::Date);
        assert_eq!(q.len(), 2, "{q:?}");
        assert_eq!((q[0].column.as_str(), q[0].failures), ("uf", 1));
        assert_eq!(
            (q[1].column.as_str(), q[1].failures, q[1].examples[0].as_str()),
            ("valor_total", 1, "abc")
        );
    }

    #[test]
    fn the_examples_of_a_failure_do_not_depend_on_the_order_of_the_rows() {
        let texts = ["31/12/0202", "01/01/4100", "x", "01/01/4100", "00/13/2020", "b"];
        let mut forward = Vec::new();
        texts.iter().for_each(|t| note_example(&mut forward, t));
        let mut backward = Vec::new();
        texts.iter().rev().for_each(|t| note_example(&mut backward, t));
        assert_eq!(forward, ["00/13/2020", "01/01/4100", "31/12/0202"]);
        assert_eq!(backward, forward);
    }
}
