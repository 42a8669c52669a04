//! `store series`: one series (a frame of the history's queries) as CSV, JSON or Parquet, to a
//! file or standard output. Money stays exact: decimal text in CSV and in JSON (a JSON number
//! would reach most readers as a binary float), a decimal column in Parquet.

use std::io::Write;
use std::path::Path;

use polars::prelude::DataFrame;

use super::{ExportError, FileMetadata};
use crate::analyze::cells::{CellKind, kind_of, text};

/// The formats `store series` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SeriesFormat {
    /// Columns aligned for a terminal.
    Table,
    Csv,
    Json,
    Parquet,
}

/// Writes `df` in `format` to `out` (atomically), or to standard output without one.
pub(crate) fn write_series(
    df: &DataFrame,
    format: SeriesFormat,
    out: Option<&Path>,
) -> Result<(), ExportError> {
    let bytes = match format {
        SeriesFormat::Table => table_bytes(df),
        SeriesFormat::Csv => csv_bytes(df),
        SeriesFormat::Json => json_bytes(df),
        SeriesFormat::Parquet => {
            let path = out.ok_or_else(|| ExportError::Refused {
                what: "a Parquet series".into(),
                fix: "name its file with --out FILE (Parquet is not for a terminal)".into(),
            })?;
            let root = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let meta = FileMetadata::default().with("fiscal_report.table", "store_series");
            super::parquet::write_parquet(&mut df.clone(), path, root, &meta)?;
            return Ok(());
        }
    };
    match out {
        Some(path) => crate::fsutil::write_atomic(path, &bytes)
            .map_err(|source| ExportError::Io { path: path.to_path_buf(), source }),
        None => std::io::stdout()
            .lock()
            .write_all(&bytes)
            .map_err(|source| ExportError::Io { path: "standard output".into(), source }),
    }
}

fn columns(df: &DataFrame) -> Vec<String> {
    df.get_column_names().iter().map(|n| n.to_string()).collect()
}

/// A header, a rule and one line per row, each column as wide as its widest cell (two spaces
/// between columns); an empty cell for a missing value.
fn table_bytes(df: &DataFrame) -> Vec<u8> {
    let names = columns(df);
    let cells: Vec<Vec<String>> = std::iter::once(names.clone())
        .chain((0..df.height()).map(|i| names.iter().map(|n| text(df, n, i).unwrap_or_default()).collect()))
        .collect();
    let widths: Vec<usize> =
        (0..names.len()).map(|c| cells.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let line = |row: &[String]| {
        let padded: Vec<String> = row.iter().zip(&widths).map(|(v, w)| format!("{v:<w$}")).collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    let mut out = line(&cells[0]);
    out += &line(&rule);
    for row in &cells[1..] {
        out += &line(row);
    }
    out.into_bytes()
}

/// A header and one line per row; an empty cell for a missing value.
fn csv_bytes(df: &DataFrame) -> Vec<u8> {
    let names = columns(df);
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record(&names);
    for i in 0..df.height() {
        let _ = w.write_record(names.iter().map(|n| text(df, n, i).unwrap_or_default()));
    }
    w.into_inner().unwrap_or_default()
}

/// One row as a JSON object whose keys keep the columns' order.
struct JsonRow(Vec<(String, serde_json::Value)>);

impl serde::Serialize for JsonRow {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// An array of one object per row, keys in the columns' order: counts as numbers, money and
/// words as strings, null for a missing value.
fn json_bytes(df: &DataFrame) -> Vec<u8> {
    let names = columns(df);
    let kinds: Vec<CellKind> = df.columns().iter().map(|c| kind_of(c.dtype())).collect();
    let rows: Vec<JsonRow> = (0..df.height())
        .map(|i| {
            names
                .iter()
                .zip(&kinds)
                .map(|(n, k)| {
                    let value = match (text(df, n, i), k) {
                        (None, _) => serde_json::Value::Null,
                        (Some(v), CellKind::Number) => {
                            v.parse::<serde_json::Number>().map_or(serde_json::Value::String(v), Into::into)
                        }
                        (Some(v), _) => serde_json::Value::String(v),
                    };
                    (n.clone(), value)
                })
                .collect()
        })
        .map(JsonRow)
        .collect();
    let mut bytes = serde_json::to_vec_pretty(&rows).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
