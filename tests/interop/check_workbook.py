"""report.xlsx read as an analyst's tools read it, checked against the exported Parquet.

Usage: check_workbook.py OUT_DIR SUMMARY_SHEET PORTFOLIO_SHEET MONEY_FORMAT DATE_FORMAT MONTH_FORMAT SANCTIONS_SHEET PEP_SHEET

With openpyxl: every aggregate of OUT_DIR/aggregates has a sheet whose header is the Parquet's
columns and whose cells equal the Parquet's values (money rounded to the cent, in MONEY_FORMAT;
dates as dates in DATE_FORMAT; `ano_mes` as the month's first day in MONTH_FORMAT; text as text,
leading zeros kept, in Excel's text format), with the header row frozen and an autofilter.
With pandas: every sheet reads back with the same shape, codes as strings.
Prints one line per failure and a last line "N sheets, M cells checked, K failed".
"""

import datetime as dt
import decimal
import pathlib
import sys

import openpyxl
import pandas as pd
import pyarrow.parquet as pq

out, summary_sheet, portfolio_sheet, money_fmt, date_fmt, month_fmt, sanctions_sheet, pep_sheet = sys.argv[1:9]
out = pathlib.Path(out)
book = openpyxl.load_workbook(out / "report.xlsx")
failures = []
cells = 0


def fail(msg):
    failures.append(msg)
    print("FAIL", msg)


def sheet_name(table):
    named = {"carteira_cadastro": portfolio_sheet, "sancoes": sanctions_sheet, "socios_pep": pep_sheet}
    return named.get(table, table[:31])


if book.sheetnames[0] != summary_sheet:
    fail(f"first sheet is {book.sheetnames[0]!r}, not {summary_sheet!r}")
if len(book.sheetnames) < 2 or book.sheetnames[1] != portfolio_sheet:
    fail(f"second sheet is not {portfolio_sheet!r}: {book.sheetnames[:3]}")

tables = sorted(p.stem for p in (out / "aggregates").glob("*.parquet"))
for table in tables:
    name = sheet_name(table)
    if name not in book.sheetnames:
        fail(f"{table}: no sheet {name!r}")
        continue
    ws = book[name]
    arrow = pq.read_table(out / "aggregates" / f"{table}.parquet")
    columns = arrow.column_names
    header = [c.value for c in ws[1]]
    if header != columns:
        fail(f"{name}: header {header} != {columns}")
        continue
    if ws.freeze_panes != "A2":
        fail(f"{name}: freeze panes {ws.freeze_panes!r}, want A2")
    if not ws.auto_filter.ref or not ws.auto_filter.ref.startswith("A1:"):
        fail(f"{name}: no autofilter ({ws.auto_filter.ref!r})")
    if ws.max_row != arrow.num_rows + 1 and arrow.num_rows > 0:
        fail(f"{name}: {ws.max_row - 1} rows, Parquet has {arrow.num_rows}")
    rows = arrow.to_pylist()
    for i, record in enumerate(rows):
        excel_row = ws[i + 2]
        for j, col in enumerate(columns):
            cells += 1
            want = record[col]
            cell = excel_row[j]
            got = cell.value
            where = f"{name}!{cell.coordinate} ({col})"
            # An empty text is an empty cell in Excel: the two read the same.
            if want is None or want == "":
                if got is not None:
                    fail(f"{where}: {got!r}, want empty")
                continue
            if isinstance(want, decimal.Decimal):
                cents = want.quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)
                if not isinstance(got, (int, float)) or decimal.Decimal(repr(got)).quantize(
                    decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP
                ) != cents:
                    fail(f"{where}: {got!r}, want {cents}")
                elif cell.number_format != money_fmt:
                    fail(f"{where}: format {cell.number_format!r}, want {money_fmt!r}")
            elif isinstance(want, dt.date):
                if not isinstance(got, dt.datetime) or got.date() != want:
                    fail(f"{where}: {got!r}, want the date {want}")
                elif cell.number_format != date_fmt:
                    fail(f"{where}: format {cell.number_format!r}, want {date_fmt!r}")
            elif isinstance(want, bool):
                if got is not want:
                    fail(f"{where}: {got!r}, want {want!r}")
            elif isinstance(want, int):
                if not isinstance(got, (int, float)) or got != want:
                    fail(f"{where}: {got!r}, want {want}")
            elif isinstance(want, float):
                if not isinstance(got, (int, float)) or abs(got - want) > 1e-9 * max(1.0, abs(want)):
                    fail(f"{where}: {got!r}, want {want}")
            elif col == "ano_mes":
                first = dt.datetime(int(want[:4]), int(want[4:]), 1)
                if got != first:
                    fail(f"{where}: {got!r}, want {first}")
                elif cell.number_format != month_fmt:
                    fail(f"{where}: format {cell.number_format!r}, want {month_fmt!r}")
            else:
                if cell.data_type != "s" or got != want:
                    fail(f"{where}: {got!r} ({cell.data_type}), want the text {want!r}")
                elif cell.number_format != "@":
                    fail(f"{where}: format {cell.number_format!r}, want text '@'")

    # pandas: what a data scientist's read_excel gives.
    frame = pd.read_excel(out / "report.xlsx", sheet_name=name, dtype=object)
    if frame.shape != (arrow.num_rows, len(columns)):
        fail(f"pandas {name}: shape {frame.shape}, want {(arrow.num_rows, len(columns))}")
    for col in ("cnpj", "cnae_fiscal_principal", "municipio", "cnae_secao_cod"):
        if col in frame.columns:
            want = [v for v in arrow.column(col).to_pylist()]
            got = [None if pd.isna(v) else v for v in frame[col]]
            if got != want:
                fail(f"pandas {name}.{col}: codes changed, e.g. {got[:2]} vs {want[:2]}")

print(f"{len(tables)} sheets, {cells} cells checked, {len(failures)} failed")
sys.exit(1 if failures else 0)
