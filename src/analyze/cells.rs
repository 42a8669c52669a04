//! Reading single values out of aggregate frames (for the report's view model and the watch
//! rules): money as exact decimals, shares as floats, everything else as text.

use polars::prelude::*;
use rust_decimal::Decimal;

/// The exact decimal at `row` of a Decimal column (or an integer column).
pub fn dec(df: &DataFrame, col: &str, row: usize) -> Option<Decimal> {
    let c = df.column(col).ok()?;
    match c.dtype() {
        DataType::Decimal(_, scale) => {
            let v = c.decimal().ok()?.physical().get(row)?;
            Decimal::try_from_i128_with_scale(v, *scale as u32).ok()
        }
        dt if dt.is_integer() => c.cast(&DataType::Int64).ok()?.i64().ok()?.get(row).map(Decimal::from),
        _ => None,
    }
}

pub fn float(df: &DataFrame, col: &str, row: usize) -> Option<f64> {
    let c = df.column(col).ok()?.cast(&DataType::Float64).ok()?;
    c.f64().ok()?.get(row).filter(|v| v.is_finite())
}

pub fn int(df: &DataFrame, col: &str, row: usize) -> Option<i64> {
    df.column(col).ok()?.cast(&DataType::Int64).ok()?.i64().ok()?.get(row)
}

pub fn text(df: &DataFrame, col: &str, row: usize) -> Option<String> {
    let c = df.column(col).ok()?;
    match c.dtype() {
        DataType::String => c.str().ok()?.get(row).map(str::to_string),
        DataType::Decimal(..) => dec(df, col, row).map(|d| d.to_string()),
        _ => {
            let v = c.get(row).ok()?;
            if v.is_null() { None } else { Some(v.to_string().trim_matches('"').to_string()) }
        }
    }
}

/// How the appendix should format a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CellKind {
    Money,
    Number,
    Text,
}

pub fn kind_of(dt: &DataType) -> CellKind {
    match dt {
        DataType::Decimal(..) => CellKind::Money,
        dt if dt.is_primitive_numeric() => CellKind::Number,
        _ => CellKind::Text,
    }
}
