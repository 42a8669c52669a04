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
        dt if dt.is_integer() => cast_at(c, row, &DataType::Int64)?.i64().ok()?.get(0).map(Decimal::from),
        _ => None,
    }
}

pub fn float(df: &DataFrame, col: &str, row: usize) -> Option<f64> {
    let c = cast_at(df.column(col).ok()?, row, &DataType::Float64)?;
    c.f64().ok()?.get(0).filter(|v| v.is_finite())
}

pub fn int(df: &DataFrame, col: &str, row: usize) -> Option<i64> {
    cast_at(df.column(col).ok()?, row, &DataType::Int64)?.i64().ok()?.get(0)
}

/// The value at `row` cast to `to`, as a one-row column: the cast of that value alone, not of
/// the column (casting a whole column per cell made every loop over a table's rows quadratic:
/// the report over 200,000 companies spent minutes in it).
fn cast_at(c: &Column, row: usize, to: &DataType) -> Option<Column> {
    if row >= c.len() {
        return None;
    }
    c.slice(row as i64, 1).cast(to).ok()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each reader gives what a cast of the whole column gives at that row, out of range none.
    #[test]
    fn one_value_reads_as_the_column_cast_would() {
        let df = df!(
            "u" => [3u32, 7],
            "f" => [1.5f64, f64::NAN],
            "s" => ["12", "x"],
        )
        .unwrap();
        let money = Series::new("m".into(), [1234i128, -5])
            .cast(&DataType::Int128)
            .unwrap()
            .into_decimal(18, 2)
            .unwrap();
        let mut df = df;
        df.with_column(money.into_column()).unwrap();
        assert_eq!(int(&df, "u", 1), Some(7));
        assert_eq!(dec(&df, "u", 0), Some(Decimal::from(3)));
        assert_eq!(float(&df, "u", 0), Some(3.0));
        assert_eq!(float(&df, "f", 0), Some(1.5));
        assert_eq!(float(&df, "f", 1), None, "not finite");
        assert_eq!(float(&df, "m", 0), Some(12.34));
        assert_eq!(int(&df, "s", 0), Some(12));
        assert_eq!(int(&df, "s", 1), None);
        assert_eq!(dec(&df, "m", 1), Some(Decimal::new(-5, 2)));
        assert_eq!(int(&df, "u", 2), None, "past the last row");
        assert_eq!(float(&df, "nope", 0), None);
    }
}
