//! A table read across, row by row, the order a low-memory sheet must be written in: each column
//! cast once to the typed array its cells come from, then value `i` of every column made into the
//! cell Excel gets. And the column widths, measured on those cells the way rust_xlsxwriter's
//! autofit measures them: a low-memory sheet keeps only its last row, so its own autofit would
//! fit that row alone.

use std::borrow::Cow;
use std::fmt::Write as _;

use chrono::{Datelike, NaiveDate};
use polars::prelude::*;
use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use rust_xlsxwriter::{ExcelDateTime, Format, Worksheet, XlsxError, cell_autofit_width};

use super::Formats;

/// The cell's padding autofit adds to the widest content, in pixels.
const CELL_PADDING: u32 = 7;
/// What autofit adds on a header cell for the autofilter's dropdown arrow.
const AUTOFILTER_ARROW: u32 = 16;
/// Autofit's width of one character of a number.
const DIGIT_PIXELS: u32 = 7;
/// Autofit gives every date the width of Excel's default `mm/dd/yyyy`.
const DATE_PIXELS: u32 = 68;
/// Autofit's widths of `TRUE` and `FALSE`.
const TRUE_PIXELS: u32 = 31;
const FALSE_PIXELS: u32 = 36;

const EPOCH: NaiveDate = NaiveDate::from_ymd_opt(1970, 1, 1).expect("a valid date");

/// The exact amount, rounded to the cent, as Excel stores numbers.
pub(crate) fn money_cell(amount: Decimal) -> f64 {
    amount
        .round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointAwayFromZero)
        .to_f64()
        .unwrap_or(f64::NAN)
}

/// The date as Excel stores it (`None` before year 0 or past 65535).
pub(super) fn excel_date(date: NaiveDate) -> Option<ExcelDateTime> {
    let year = u16::try_from(date.year()).ok()?;
    ExcelDateTime::from_ymd(year, date.month() as u8, date.day() as u8).ok()
}

/// `202507` -> the first day of that month.
pub(crate) fn month_start(ano_mes: &str) -> Option<NaiveDate> {
    if ano_mes.len() != 6 || !ano_mes.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    NaiveDate::from_ymd_opt(ano_mes[..4].parse().ok()?, ano_mes[4..].parse().ok()?, 1)
}

/// Whether a text column holds months (`ano_mes`, `YYYYMM`): those become Excel dates.
fn is_month_column(name: &str) -> bool {
    name == "ano_mes"
}

fn polars_error(e: PolarsError) -> XlsxError {
    XlsxError::ParameterError(e.to_string())
}

/// One column's values, cast once and in a single chunk: reading value `i` is then a direct
/// index, where over many chunks every read would first look for its chunk.
pub(super) enum TableColumn {
    /// Exact amounts: the unscaled integers and their scale.
    Money {
        units: Int128Chunked,
        scale: u32,
    },
    /// Days since 1970-01-01.
    Date(Int32Chunked),
    Boolean(BooleanChunked),
    Integer(Int64Chunked),
    Float(Float64Chunked),
    /// Text; months (`YYYYMM`) when `months`.
    Text {
        values: StringChunked,
        months: bool,
    },
}

impl TableColumn {
    pub(super) fn new(column: &Column) -> Result<Self, XlsxError> {
        let cast = |dt: &DataType| column.cast(dt).map_err(polars_error);
        let prepared = match column.dtype() {
            DataType::Decimal(_, scale) => {
                let units = column.decimal().map_err(polars_error)?.physical().rechunk().into_owned();
                Self::Money { units, scale: *scale as u32 }
            }
            DataType::Date => {
                let days = cast(&DataType::Int32)?.i32().map_err(polars_error)?.rechunk().into_owned();
                Self::Date(days)
            }
            DataType::Boolean => {
                let values = column.bool().map_err(polars_error)?.rechunk().into_owned();
                Self::Boolean(values)
            }
            dt if dt.is_integer() => {
                let values = cast(&DataType::Int64)?.i64().map_err(polars_error)?.rechunk().into_owned();
                Self::Integer(values)
            }
            dt if dt.is_float() => {
                let values = cast(&DataType::Float64)?.f64().map_err(polars_error)?.rechunk().into_owned();
                Self::Float(values)
            }
            _ => {
                let values = cast(&DataType::String)?.str().map_err(polars_error)?.rechunk().into_owned();
                Self::Text { values, months: is_month_column(column.name()) }
            }
        };
        Ok(prepared)
    }

    /// Value `i` (below the frame's height) as the cell Excel gets.
    pub(super) fn cell<'a>(&'a self, i: usize, f: &'a Formats) -> Cell<'a> {
        match self {
            Self::Money { units, scale } => {
                match units.get(i).and_then(|v| Decimal::try_from_i128_with_scale(v, *scale).ok()) {
                    Some(amount) => Cell::Number(money_cell(amount), &f.money),
                    None => Cell::Empty,
                }
            }
            Self::Date(days) => {
                let Some(date) =
                    days.get(i).and_then(|d| EPOCH.checked_add_signed(chrono::Duration::days(d.into())))
                else {
                    return Cell::Empty;
                };
                match excel_date(date) {
                    Some(x) => Cell::Date(x, &f.date),
                    // Before 1900 Excel has no date: the ISO text keeps the value readable.
                    None => Cell::Text(Cow::Owned(date.to_string())),
                }
            }
            Self::Boolean(values) => values.get(i).map_or(Cell::Empty, Cell::Boolean),
            Self::Integer(values) => number(values.get(i).map(|v| v as f64), &f.integer),
            Self::Float(values) => number(values.get(i), &f.decimal),
            Self::Text { values, months } => {
                let Some(v) = values.get(i) else { return Cell::Empty };
                let month = if *months { month_start(v).and_then(excel_date) } else { None };
                match month {
                    Some(x) => Cell::Date(x, &f.month),
                    None => Cell::Text(Cow::Borrowed(v)),
                }
            }
        }
    }
}

/// A number; an empty or non-finite one stays an empty cell.
fn number(value: Option<f64>, format: &Format) -> Cell<'_> {
    value.filter(|v| v.is_finite()).map_or(Cell::Empty, |v| Cell::Number(v, format))
}

/// What one cell of a table holds, with its format.
pub(super) enum Cell<'a> {
    Empty,
    Number(f64, &'a Format),
    Date(ExcelDateTime, &'a Format),
    /// Written in Excel's text format.
    Text(Cow<'a, str>),
    Boolean(bool),
}

impl Cell<'_> {
    /// Writes the cell at (`row`, `col`); an empty one writes nothing.
    pub(super) fn write(
        &self,
        ws: &mut Worksheet,
        row: u32,
        col: u16,
        text: &Format,
    ) -> Result<(), XlsxError> {
        match self {
            Cell::Empty => return Ok(()),
            Cell::Number(v, format) => ws.write_number_with_format(row, col, *v, format)?,
            Cell::Date(x, format) => ws.write_datetime_with_format(row, col, x, format)?,
            Cell::Text(t) => ws.write_string_with_format(row, col, &**t, text)?,
            Cell::Boolean(b) => ws.write_boolean(row, col, *b)?,
        };
        Ok(())
    }

    /// Its width in pixels before padding, as rust_xlsxwriter's autofit measures it. Without the
    /// `enhanced_autofit` feature (not enabled) autofit ignores number formats: a number is 7
    /// pixels a character of its plain decimal form, any date 68.
    fn width(&self) -> u32 {
        match self {
            Cell::Empty => 0,
            Cell::Number(v, _) => number_width(*v),
            Cell::Date(..) => DATE_PIXELS,
            Cell::Text(t) => text_width(t),
            Cell::Boolean(true) => TRUE_PIXELS,
            Cell::Boolean(false) => FALSE_PIXELS,
        }
    }
}

/// A text's width: its widest line, by the character widths autofit uses (the public
/// `cell_autofit_width` is that width plus the padding).
fn text_width(text: &str) -> u32 {
    text.lines().map(|line| cell_autofit_width(line) - CELL_PADDING).max().unwrap_or(0)
}

fn number_width(v: f64) -> u32 {
    if !v.is_finite() {
        // rust_xlsxwriter writes these as its texts for them (never the case for money rounded
        // from a Decimal; other numbers are filtered before).
        return text_width(if v.is_nan() {
            "NAN"
        } else if v > 0.0 {
            "INF"
        } else {
            "-INF"
        });
    }
    let mut chars = CharCount(0);
    // Counting cannot fail; autofit formats with `to_string`, which prints the same.
    let _ = write!(chars, "{v}");
    DIGIT_PIXELS * chars.0
}

/// Counts what is printed without keeping it: no string per number cell.
struct CharCount(u32);

impl std::fmt::Write for CharCount {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0 += s.len() as u32;
        Ok(())
    }
}

/// Column widths in pixels as autofit sets them: the widest cell of each column (the header 16
/// pixels wider for the autofilter's arrow), plus the padding, capped.
pub(super) struct Widths {
    cap: u32,
    /// Per column; 0 while nothing in it has a width.
    pixels: Vec<u32>,
}

impl Widths {
    pub(super) fn new(columns: usize, cap: u32) -> Self {
        Self { cap, pixels: vec![0; columns] }
    }

    pub(super) fn header(&mut self, col: usize, name: &str) {
        self.fit(col, text_width(name), AUTOFILTER_ARROW);
    }

    pub(super) fn cell(&mut self, col: usize, cell: &Cell<'_>) {
        // A column at the cap cannot get wider: long texts are not measured again.
        if self.pixels[col] < self.cap {
            self.fit(col, cell.width(), 0);
        }
    }

    fn fit(&mut self, col: usize, width: u32, extra: u32) {
        if width > 0 {
            let fitted = (width + extra + CELL_PADDING).min(self.cap);
            self.pixels[col] = self.pixels[col].max(fitted);
        }
    }

    /// Sets the widths as autofit would (`bestFit`, so Excel may widen a column as its own
    /// autofit would); a column with nothing measured keeps the default width.
    pub(super) fn apply(&self, ws: &mut Worksheet) -> Result<(), XlsxError> {
        for (col, &pixels) in self.pixels.iter().enumerate() {
            if pixels > 0 {
                let col = u16::try_from(col).map_err(|_| XlsxError::RowColumnLimitError)?;
                ws.set_column_autofit_width(col, pixels)?;
            }
        }
        Ok(())
    }
}
