//! The Excel workbook, `report.xlsx`: a summary sheet first, then one sheet per table, every
//! cell typed the way an analyst pastes it on: money as a number in a currency format (the one
//! place an exact decimal becomes an f64, rounded to the cent), dates as Excel dates, months
//! (`ano_mes`) as the first day of the month in a month format, text columns (codes among them)
//! as text so their leading zeros stay.
//!
//! It owns the layout of a sheet (header row frozen, autofilter, fitted widths) and the file.
//! A table's sheet is a low-memory one: its rows go to a temporary file as they are written
//! (a table of 200,000 companies held as cells would cost hundreds of MiB), so it is written
//! row by row and its widths are measured as it goes.
//! What the summary says, which tables go in, in which order and under which names, is the
//! report stage's choice: it hands a [`WorkbookContent`] built from its view model.

mod columns;
mod sheet;
#[cfg(test)]
mod tests;

use chrono::NaiveDate;
use polars::prelude::DataFrame;
use rust_decimal::Decimal;
use rust_xlsxwriter::{Format, FormatBorder, Workbook, XlsxError};

pub(crate) use columns::month_start;

/// The file name beside report.html.
pub(crate) const WORKBOOK_FILE: &str = "report.xlsx";

/// Excel number format codes, from the report's strings file (an analyst's to change). A code
/// is written in Excel's own notation (`#,##0.00`); Excel shows it with the reader's separators.
#[derive(Debug, Clone)]
pub(crate) struct NumberFormats {
    pub money: String,
    pub date: String,
    pub month: String,
    pub integer: String,
    pub decimal: String,
}

/// One value of the summary sheet.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum SummaryValue {
    Money(Decimal),
    /// A percentage in percent units (12.5 means 12.5 %), shown with the decimal format.
    Percent(f64),
    Count(i64),
    Month(NaiveDate),
    Text(String),
}

/// A line of the summary: a label and up to a few values side by side (an amount and its %).
#[derive(Debug, Clone)]
pub(crate) struct SummaryLine {
    pub label: String,
    pub values: Vec<Option<SummaryValue>>,
}

/// A table's sheet: its name on the tab, what the summary's index says of it, its rows.
pub(crate) struct TableSheet<'a> {
    pub name: String,
    pub title: String,
    pub description: String,
    /// Where the whole table is (`aggregates/x.parquet`), named when the sheet had to stop at
    /// Excel's row limit.
    pub source: String,
    pub frame: &'a DataFrame,
}

/// Everything the workbook shows, in the report's language.
pub(crate) struct WorkbookContent<'a> {
    pub summary_sheet: String,
    pub title: String,
    pub subtitle: String,
    /// Header of the summary's two columns (`Indicador`, `Valor`).
    pub summary_header: [String; 2],
    pub summary: Vec<SummaryLine>,
    /// Header of the index of sheets: sheet, title, description, rows.
    pub index_header: [String; 4],
    /// Appended to the index's row count of a sheet cut at Excel's row limit.
    pub truncated_note: String,
    pub sheets: Vec<TableSheet<'a>>,
    pub formats: NumberFormats,
}

#[derive(Debug, thiserror::Error)]
pub enum WorkbookError {
    #[error("cannot build sheet {sheet} of {file}: {source}")]
    Build { file: &'static str, sheet: String, source: XlsxError },
}

impl crate::exit::HasExitStatus for WorkbookError {
    fn exit_status(&self) -> crate::exit::ExitStatus {
        // A table the writer refuses is a fault of ours, not of any input.
        crate::exit::ExitStatus::Internal
    }
}

/// The cell formats of one workbook, made once.
pub(crate) struct Formats {
    pub header: Format,
    pub title: Format,
    pub money: Format,
    pub date: Format,
    pub month: Format,
    pub integer: Format,
    pub decimal: Format,
    pub text: Format,
    pub link: Format,
}

impl Formats {
    fn new(codes: &NumberFormats) -> Self {
        Self {
            header: Format::new().set_bold().set_border_bottom(FormatBorder::Thin),
            title: Format::new().set_bold().set_font_size(14),
            money: Format::new().set_num_format(&codes.money),
            date: Format::new().set_num_format(&codes.date),
            month: Format::new().set_num_format(&codes.month),
            integer: Format::new().set_num_format(&codes.integer),
            decimal: Format::new().set_num_format(&codes.decimal),
            // Excel's text format: a code typed over later stays text too.
            text: Format::new().set_num_format("@"),
            link: Format::new()
                .set_font_color(rust_xlsxwriter::Color::Blue)
                .set_underline(rust_xlsxwriter::FormatUnderline::Single),
        }
    }
}

impl WorkbookContent<'_> {
    /// The rows of its tables (the manifest's count for the file).
    pub(crate) fn rows(&self) -> u64 {
        self.sheets.iter().map(|s| s.frame.height() as u64).sum()
    }
}

/// The workbook's bytes (the report stage writes them beside its other files).
pub(crate) fn build_workbook(content: &WorkbookContent<'_>) -> Result<Vec<u8>, WorkbookError> {
    let build = |sheet: &str| {
        let sheet = sheet.to_string();
        move |source| WorkbookError::Build { file: WORKBOOK_FILE, sheet: sheet.clone(), source }
    };
    let formats = Formats::new(&content.formats);
    let mut book = Workbook::new();
    // Deflate level 3, as Excel 365 writes its own: rust_xlsxwriter measures it 0.71 x level 6's
    // save time for a file 6 % larger (its guide, "Zip compression level"). Compressing the
    // sheets' XML is most of the workbook's time, the report stage's longest part.
    book.set_zip_compression_level(3);
    let names = sheet::unique_sheet_names(
        std::iter::once(content.summary_sheet.as_str()).chain(content.sheets.iter().map(|s| s.name.as_str())),
    );
    let (summary_name, table_names) = names.split_first().expect("the summary's name is always there");
    let mut cut = Vec::with_capacity(content.sheets.len());
    {
        let ws = book.add_worksheet();
        ws.set_name(summary_name).map_err(build(summary_name))?;
    }
    for (table, name) in content.sheets.iter().zip(table_names) {
        let ws = book.add_worksheet_with_low_memory().map_err(build(name))?;
        ws.set_name(name).map_err(build(name))?;
        cut.push(sheet::write_table(ws, table.frame, &formats).map_err(build(name))?);
    }
    // The summary, an ordinary sheet, is written last: its index names the rows each table lost.
    let ws = book.worksheet_from_index(0).map_err(build(summary_name))?;
    sheet::write_summary(ws, content, table_names, &cut, &formats).map_err(build(summary_name))?;
    book.save_to_buffer().map_err(build(summary_name))
}
