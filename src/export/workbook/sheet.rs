//! One sheet at a time: a frame's rows written as typed cells, and the summary sheet.

use polars::prelude::*;
use rust_xlsxwriter::{Url, Worksheet, XlsxError};

use super::columns::{TableColumn, Widths, excel_date, money_cell};
use super::{Formats, SummaryValue, WorkbookContent};

/// Excel's last row (1,048,576 rows, the header among them).
pub(crate) const MAX_DATA_ROWS: usize = 1_048_575;
/// Fitted columns stop here (pixels): a long description should not push the next column away.
const MAX_COLUMN_PIXELS: u32 = 420;

/// Sheet names as Excel takes them: at most 31 characters, none of `[]:*?/\`, unique without
/// regard to case (a repeat gets `_2`, `_3`).
pub(crate) fn unique_sheet_names<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut taken: Vec<String> = Vec::new();
    for raw in names {
        let clean: String = raw
            .chars()
            .map(|c| if "[]:*?/\\".contains(c) { '_' } else { c })
            .collect::<String>()
            .trim_matches('\'')
            .to_string();
        let base = if clean.is_empty() { "tabela".to_string() } else { clean };
        let mut candidate: String = base.chars().take(31).collect();
        let mut n = 2;
        while taken.iter().any(|t| t.to_lowercase() == candidate.to_lowercase()) {
            let suffix = format!("_{n}");
            candidate = base.chars().take(31 - suffix.len()).collect::<String>() + &suffix;
            n += 1;
        }
        taken.push(candidate);
    }
    taken
}

/// Writes `frame` with its column names as the header; returns how many rows did not fit.
///
/// The sheet may keep only the row being written (a low-memory sheet: a cell written above that
/// row is lost), so the cells go row by row, left to right; and as its autofit would see that
/// row alone, the widths are measured while writing, as autofit measures them.
pub(crate) fn write_table(ws: &mut Worksheet, frame: &DataFrame, f: &Formats) -> Result<usize, XlsxError> {
    let height = frame.height().min(MAX_DATA_ROWS);
    let mut widths = Widths::new(frame.width(), MAX_COLUMN_PIXELS);
    let mut columns = Vec::with_capacity(frame.width());
    for (i, column) in frame.columns().iter().enumerate() {
        let col = u16::try_from(i).map_err(|_| XlsxError::RowColumnLimitError)?;
        let name = column.name().as_str();
        ws.write_string_with_format(0, col, name, &f.header)?;
        widths.header(i, name);
        columns.push((col, TableColumn::new(column)?));
    }
    for i in 0..height {
        for (c, (col, column)) in columns.iter().enumerate() {
            let cell = column.cell(i, f);
            widths.cell(c, &cell);
            cell.write(ws, row(i), *col, &f.text)?;
        }
    }
    let last_col = u16::try_from(frame.width().max(1) - 1).map_err(|_| XlsxError::RowColumnLimitError)?;
    ws.set_freeze_panes(1, 0)?;
    ws.autofilter(0, 0, height as u32, last_col)?;
    widths.apply(ws)?;
    Ok(frame.height() - height)
}

/// Row `i` of the data is Excel row `i + 1` (under the header).
fn row(i: usize) -> u32 {
    (i + 1) as u32
}

fn write_value(
    ws: &mut Worksheet,
    r: u32,
    c: u16,
    value: &SummaryValue,
    f: &Formats,
) -> Result<(), XlsxError> {
    match value {
        SummaryValue::Money(d) => ws.write_number_with_format(r, c, money_cell(*d), &f.money)?,
        SummaryValue::Percent(p) => ws.write_number_with_format(r, c, *p, &f.decimal)?,
        SummaryValue::Count(n) => ws.write_number_with_format(r, c, *n as f64, &f.integer)?,
        SummaryValue::Month(m) => match excel_date(*m) {
            Some(x) => ws.write_datetime_with_format(r, c, x, &f.month)?,
            None => ws.write_string(r, c, m.to_string())?,
        },
        SummaryValue::Text(t) => ws.write_string(r, c, t)?,
    };
    Ok(())
}

/// The summary: title, the headline figures, then an index of the sheets with links to them.
pub(crate) fn write_summary(
    ws: &mut Worksheet,
    content: &WorkbookContent<'_>,
    sheet_names: &[String],
    cut: &[usize],
    f: &Formats,
) -> Result<(), XlsxError> {
    ws.write_string_with_format(0, 0, &content.title, &f.title)?;
    ws.write_string(1, 0, &content.subtitle)?;
    let mut r = 3;
    ws.write_string_with_format(r, 0, &content.summary_header[0], &f.header)?;
    ws.write_string_with_format(r, 1, &content.summary_header[1], &f.header)?;
    for line in &content.summary {
        r += 1;
        ws.write_string(r, 0, &line.label)?;
        for (c, value) in line.values.iter().enumerate() {
            if let Some(value) = value {
                write_value(ws, r, (c + 1) as u16, value, f)?;
            }
        }
    }
    r += 2;
    for (c, h) in content.index_header.iter().enumerate() {
        ws.write_string_with_format(r, c as u16, h, &f.header)?;
    }
    for ((table, name), cut) in content.sheets.iter().zip(sheet_names).zip(cut) {
        r += 1;
        let target = Url::new(format!("internal:'{}'!A1", name.replace('\'', "''"))).set_text(name);
        ws.write_url_with_format(r, 0, target, &f.link)?;
        ws.write_string(r, 1, &table.title)?;
        ws.write_string(r, 2, &table.description)?;
        ws.write_number_with_format(r, 3, table.frame.height() as f64, &f.integer)?;
        if *cut > 0 {
            ws.write_string(r, 4, format!("{} {}", content.truncated_note, table.source))?;
        }
    }
    ws.set_autofit_max_width(MAX_COLUMN_PIXELS).autofit();
    Ok(())
}
