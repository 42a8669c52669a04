#!/usr/bin/env python3
"""Cross-engine check of a finished fiscal-report run.

    python3 check_engines.py RUN_DIR QUERIES_DIR [--json]

1. Files: every Parquet file the run's manifest.json lists is read with pyarrow and checked
   against the manifest (listed once, rows, bytes, sha256) and against the declared types
   (money columns decimal128 scale 2, dates date32, keys and *_raw text, hive partition
   columns only in the path). Parquet files on disk that the manifest omits are failures too.
2. DuckDB: one view per table of the run over its (hive-partitioned) Parquet, partition columns
   read as VARCHAR (the raw tables and those the run wrote for its queries beside them: the
   previous snapshot's `<table>_anterior`, `comparacao`, ...; nothing is made up here), then every QUERIES_DIR/*.sql in file-name order, text unchanged; each result is
   kept as a table named after the query (NN_name.sql -> name) so later queries can read it.
3. Each DuckDB result is compared with RUN_DIR/aggregates/<name>.parquet, which Polars SQL
   wrote: column names and order, row count and order, value by value (decimals exactly,
   integers exactly, floats within 1e-9 absolute or relative, text/dates/nulls exactly).

Every file, view and query is one check. Prints a line per table (files grouped by their
top-level directory, failures spelled out) and ends with `N passed, M failed`; exit status 0
only if M == 0. With --json, prints one JSON document instead. Needs duckdb (1.4.1 in CI,
see tests/requirements.txt) and pyarrow.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
import urllib.parse
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

MAX_MISMATCHES_SHOWN = 5
FLOAT_TOLERANCE = 1e-9
# The value Polars and Hive write in place of a null partition value.
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
# Aggregates that no query produces.
NOT_FROM_A_QUERY = {"data_quality"}

# Money: a column named so, or ending in `_<name>`, is decimal128 scale 2.
MONEY_COLUMNS = (
    "valor_total",
    "valor_consolidado",
    "saldo_devedor",
    "valor_parcelado",
    "capital_social",
    "divida_transacionada",
    "divida_com_reducao",
    "reducao",
    "creditos_pf_bcn",
)
RAW_MONEY_PRECISION = 18
# Polars widens SUM of a decimal to precision 38; the scale must stay 2 all the same.
AGGREGATE_MONEY_PRECISIONS = range(RAW_MONEY_PRECISION, 39)
MONEY_SCALE = 2
# Keys and labels that must stay text (leading zeros, codes like "202510" or "SP"), wherever
# they appear, plus every `*_raw` column (the service's original text).
TEXT_COLUMNS = {
    "cnpj",
    "cnpj_basico",
    "cpf_cnpj",
    "numero_inscricao",
    "razao_social",
    "nome_fantasia",
    "uf",
    "ano_mes",
    "ano_mes_anterior",
    "ano_mes_ano_anterior",
    "categoria",
    "cnae_secao",
    "cnae_secao_cod",
    "cnae_secao_descr",
    "grupo_tributo",
    "natureza_juridica",
    "situacao",
    "tipo_contribuinte",
}
# What a hive path segment value may contain once the writer has percent-encoded it.
ENCODED_VALUE = re.compile(r"^(?:[A-Za-z0-9_-]|%[0-9A-Fa-f]{2})*$")


@dataclass
class Check:
    """One reported unit: a file, a view or a query."""

    kind: str  # "file" | "view" | "query"
    name: str
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    info: str = ""
    skipped: bool = False  # reported, not counted

    @property
    def ok(self) -> bool:
        return not self.problems


# ---------------------------------------------------------------------------------------------
# Helpers


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def partition_segments(rel_path: str) -> list[tuple[str, str]]:
    """The `key=value` directory segments of a path relative to the run directory."""
    dirs = rel_path.split("/")[:-1]
    return [(k, v) for k, _, v in (d.partition("=") for d in dirs if "=" in d)]


def decode_partition_value(value: str) -> str | None:
    """Same rule as the writer's reader (src/export/tables.rs): %XX is a byte, the default is null."""
    if value == HIVE_NULL:
        return None
    return urllib.parse.unquote_to_bytes(value).decode("utf-8", "replace")


def is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)


def sql_string(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def sql_ident(s: str) -> str:
    return '"' + s.replace('"', '""') + '"'


def table_name(sql_file: Path) -> str:
    """`03_creditos_por_uf.sql` -> `creditos_por_uf`, as the Rust side names aggregates."""
    return re.sub(r"^\d+_", "", sql_file.stem)


def show(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, (str, float)):
        return repr(v)
    return str(v)


# ---------------------------------------------------------------------------------------------
# 1. Files against the manifest and the declared types


def type_problems(rel_path: str, schema: pa.Schema) -> list[str]:
    # The partner companies' exposure has the exposure query's columns, sums included.
    aggregate = rel_path.startswith(("aggregates/", "socias_exposicao/", "historico/"))
    problems = []
    for f in schema:
        name, t = f.name, f.type
        if any(name == m or name.endswith("_" + m) for m in MONEY_COLUMNS):
            precisions = AGGREGATE_MONEY_PRECISIONS if aggregate else (RAW_MONEY_PRECISION,)
            if not (
                pa.types.is_decimal128(t) and t.scale == MONEY_SCALE and t.precision in precisions
            ):
                want = "decimal128(18..38, 2)" if aggregate else "decimal128(18, 2)"
                problems.append(f"column {name}: {t}, expected {want}")
        elif name == "ano_mes_data" or (name.startswith("data_") and not name.endswith("_raw")):
            if not pa.types.is_date32(t):
                problems.append(f"column {name}: {t}, expected date32")
        elif name in TEXT_COLUMNS or name.endswith("_raw"):
            if not is_text(t):
                problems.append(f"column {name}: {t}, expected string")
    for key, value in partition_segments(rel_path):
        # Hive layout: the partition column lives in the path only.
        if key in schema.names:
            problems.append(f"partition column {key} is also stored inside the file")
        if value != HIVE_NULL and not ENCODED_VALUE.match(value):
            problems.append(f"partition value {key}={value!r} is not percent-encoded")
    return problems


def check_files(run: Path, manifest: dict | None) -> tuple[list[Check], list[str]]:
    """One Check per Parquet file (manifest or disk); also returns per-table summary notes."""
    checks: list[Check] = []
    if manifest is None:
        return [Check("file", "manifest.json", ["missing or unreadable"])], []

    entries: dict[str, list[dict]] = defaultdict(list)
    for e in manifest.get("files", []):
        if str(e.get("path", "")).endswith(".parquet"):
            entries[e["path"]].append(e)

    for rel, es in entries.items():
        c = Check("file", rel)
        checks.append(c)
        if len(es) > 1:
            # Each listing is a write; several for one path means later writes replaced
            # earlier ones, so the rows of all but one are gone.
            rows = [e.get("rows") or 0 for e in es]
            shown = ", ".join(map(str, rows[:10])) + (", ..." if len(rows) > 10 else "")
            c.problems.append(
                f"listed {len(es)} times in the manifest (rows {shown}; {sum(rows)} in all): "
                "each entry is a rewrite of the same path, only the last one's rows are on disk"
            )
        entry = es[-1]
        path = run / rel
        if not path.is_file():
            c.problems.append("listed in the manifest but missing on disk")
            continue
        size = path.stat().st_size
        if size != entry.get("bytes"):
            c.problems.append(f"bytes: {size} on disk, manifest says {entry.get('bytes')}")
        digest = sha256_of(path)
        if digest != entry.get("sha256"):
            matching = [i for i, e in enumerate(es) if e.get("sha256") == digest]
            where = f" (matches manifest entry #{matching[0] + 1} of {len(es)})" if matching else ""
            c.problems.append(
                f"sha256: {digest} on disk, manifest says {entry.get('sha256')}{where}"
            )
        try:
            table = pq.read_table(path, partitioning=None)
        except Exception as e:  # noqa: BLE001 - any read failure is the finding
            c.problems.append(f"pyarrow cannot read it: {e}")
            continue
        if table.num_rows != entry.get("rows"):
            c.problems.append(
                f"rows: {table.num_rows} in the file, manifest says {entry.get('rows')}"
            )
        c.problems.extend(type_problems(rel, table.schema))
        c.info = f"{table.num_rows} rows"

    # Parquet on disk that no manifest entry accounts for (dot-dirs are the run's staging).
    for path in sorted(run.rglob("*.parquet")):
        rel = path.relative_to(run).as_posix()
        if rel not in entries and not any(p.startswith(".") for p in rel.split("/")):
            checks.append(Check("file", rel, ["on disk but not listed in the manifest"]))

    # Rows on disk per raw table against the records the fetch counted: a cheap way to see
    # rows lost between fetch and export (reported as a note; transforms may drop rows).
    notes = []
    records = (manifest.get("fetch") or {}).get("records") or {}
    for t, n in sorted(records.items()):
        on_disk = sum(
            pq.ParquetFile(p).metadata.num_rows for p in sorted((run / t).rglob("*.parquet"))
        ) if (run / t).is_dir() else 0
        if on_disk != n:
            notes.append(f"{t}: {on_disk} rows on disk, the fetch recorded {n} records")
    return checks, notes


# ---------------------------------------------------------------------------------------------
# 2. DuckDB views over the raw tables


# The previous snapshot's copies: `anterior/<table>/`, the view `<table>_anterior`.
PREVIOUS_DIR = "anterior"


def table_dir(run: Path, table: str) -> Path:
    """A view's folder: `<table>/`, or `anterior/<base>/` for `<base>_anterior`."""
    if table.endswith("_anterior"):
        return run / PREVIOUS_DIR / table.removesuffix("_anterior")
    return run / table


def table_folders(run: Path) -> list[tuple[str, Path]]:
    """(view name, folder) of every table folder of the run, the previous copies included."""
    folders = []
    for d in sorted(p for p in run.iterdir() if p.is_dir()):
        if d.name == "aggregates" or d.name.startswith("."):
            continue
        if d.name == PREVIOUS_DIR:
            folders += [(f"{p.name}_anterior", p) for p in sorted(d.iterdir()) if p.is_dir()]
        else:
            folders.append((d.name, d))
    return folders


def raw_tables(run: Path) -> dict[str, list[str] | str]:
    """Raw table -> its partition keys in path order (from the directory layout), or an error."""
    tables: dict[str, list[str] | str] = {}
    for name, d in table_folders(run):
        files = sorted(d.rglob("*.parquet"))
        if not files:
            continue
        layouts = {
            tuple(k for k, _ in partition_segments(f.relative_to(d).as_posix())) for f in files
        }
        if len(layouts) == 1:
            tables[name] = list(layouts.pop())
        else:
            tables[name] = f"files disagree on the partition keys: {sorted(layouts)}"
    return tables


def read_parquet_sql(run: Path, table: str, keys: list[str], filename: bool = False) -> str:
    glob = sql_string(table_dir(run, table).as_posix() + "/**/*.parquet")
    options = ["hive_partitioning = " + ("true" if keys else "false")]
    if keys:
        # Without hive_types DuckDB infers "202510" as BIGINT; the writer means text.
        types = ", ".join(f"{sql_string(k)}: 'VARCHAR'" for k in keys)
        options.append(f"hive_types = {{{types}}}")
    if filename:
        options.append("filename = true")
    return f"read_parquet({glob}, {', '.join(options)})"


def table_select(run: Path, table: str, keys: list[str]) -> str:
    projection = "*"
    if keys:
        # DuckDB url-decodes partition values itself but keeps the default-partition
        # marker as a literal string, where the writer means null.
        nulls = ", ".join(f"NULLIF({sql_ident(k)}, {sql_string(HIVE_NULL)}) AS {sql_ident(k)}" for k in keys)
        projection = f"* REPLACE ({nulls})"
    return f"SELECT {projection} FROM {read_parquet_sql(run, table, keys)}"


def create_views(con: duckdb.DuckDBPyConnection, run: Path) -> list[Check]:
    checks = []
    views = raw_tables(run)
    for table, keys in views.items():
        c = Check("view", table)
        checks.append(c)
        if isinstance(keys, str):
            c.problems.append(keys)
            continue
        select = table_select(run, table, keys)
        try:
            con.execute(f"CREATE VIEW {sql_ident(table)} AS {select}")
            rows = con.execute(f"SELECT COUNT(*) FROM {sql_ident(table)}").fetchone()[0]
        except duckdb.Error as e:
            c.problems.append(f"DuckDB cannot read it: {e}")
            continue
        c.info = f"{rows} rows" + (f", partitions {', '.join(keys)} as VARCHAR" if keys else "")
        if keys:
            c.problems.extend(partition_value_problems(con, run, table, keys))
    return checks



def partition_value_problems(con, run: Path, table: str, keys: list[str]) -> list[str]:
    """DuckDB's partition values per file against the writer's own decoding of the path."""
    cols = ", ".join(sql_ident(k) for k in keys)
    source = read_parquet_sql(run, table, keys, filename=True)
    problems = []
    found = con.execute(f"SELECT DISTINCT filename, {cols} FROM {source}").fetchall()
    for filename, *values in found:
        rel = Path(filename).resolve().relative_to(run.resolve()).as_posix()
        want = [decode_partition_value(v) for _, v in partition_segments(rel)]
        got = [None if v == HIVE_NULL else v for v in values]
        if got != want:
            problems.append(f"{rel}: DuckDB reads {got}, the path decodes to {want}")
    return sorted(problems)


# ---------------------------------------------------------------------------------------------
# 3. Queries, and their results against the Polars aggregates


def duckdb_family(t: str) -> tuple[str, int | None]:
    """('decimal', scale) | ('integer', None) | ('float', None) | ... from a DuckDB type name."""
    t = t.upper()
    m = re.match(r"DECIMAL\((\d+),\s*(\d+)\)", t)
    if m:
        return "decimal", int(m.group(2))
    if t in {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
             "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"}:
        return "integer", None
    if t in {"FLOAT", "DOUBLE"}:
        return "float", None
    if t == "VARCHAR":
        return "string", None
    if t == "DATE":
        return "date", None
    if t == "BOOLEAN":
        return "bool", None
    return t.lower(), None


def arrow_family(t: pa.DataType) -> tuple[str, int | None]:
    if pa.types.is_decimal(t):
        return "decimal", t.scale
    if pa.types.is_integer(t):
        return "integer", None
    if pa.types.is_floating(t):
        return "float", None
    if is_text(t):
        return "string", None
    if pa.types.is_date(t):
        return "date", None
    if pa.types.is_boolean(t):
        return "bool", None
    return str(t), None


def values_equal(expected: Any, actual: Any, family: str) -> bool:
    if expected is None or actual is None:
        return expected is None and actual is None
    if family == "decimal":
        # Exact: both sides as Decimal (an int from DuckDB compares exactly too).
        if isinstance(actual, float):
            return False
        return Decimal(expected) == Decimal(actual)
    if family == "float":
        a, b = float(expected), float(actual)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        if a == b:  # also covers equal infinities
            return True
        diff = abs(a - b)
        return diff <= FLOAT_TOLERANCE or diff <= FLOAT_TOLERANCE * max(abs(a), abs(b))
    return expected == actual


def compare(
    c: Check, expected: pa.Table, columns: list[str], types: list[str], rows: list[tuple]
) -> None:
    want_cols = expected.column_names
    if columns != want_cols:
        c.problems.append(f"columns differ: DuckDB {columns}, Polars {want_cols}")
    if len(rows) != expected.num_rows:
        c.problems.append(f"rows: DuckDB {len(rows)}, Polars {expected.num_rows}")

    # Columns compared by name, so a reordering still shows its values.
    compared = []  # (index in the DuckDB row, name, family, Polars values)
    for j, name in enumerate(columns):
        if name not in want_cols:
            continue
        exp_type = expected.schema.field(name).type
        fam, scale = arrow_family(exp_type)
        # Same family and, for decimals, the same scale; precision may differ (both 38 here).
        if (fam, scale) != duckdb_family(types[j]):
            c.problems.append(f"column {name}: DuckDB {types[j]}, Polars {exp_type}")
        compared.append((j, name, fam, expected.column(name).to_pylist()))

    mismatches: list[str] = []
    n = min(len(rows), expected.num_rows)
    for i in range(n):  # row by row, so the first mismatches shown are the first rows'
        for j, name, fam, want in compared:
            if not values_equal(want[i], rows[i][j], fam):
                mismatches.append(
                    f"row {i}, {name}: DuckDB {show(rows[i][j])}, Polars {show(want[i])}"
                )
    if mismatches:
        c.problems.append(f"{len(mismatches)} value(s) differ")
        c.problems.extend(mismatches[:MAX_MISMATCHES_SHOWN])
    if not c.problems:
        c.info = f"{n} rows x {len(columns)} columns equal"


def run_queries(
    con: duckdb.DuckDBPyConnection, run: Path, queries: Path, manifest: dict | None
) -> list[Check]:
    checks = []
    run_sql_hashes = (manifest or {}).get("queries") or {}
    produced = set()
    for sql_file in sorted(queries.glob("*.sql"), key=lambda p: p.name):
        name = table_name(sql_file)
        produced.add(name)
        c = Check("query", name)
        checks.append(c)
        text = sql_file.read_text(encoding="utf-8")
        recorded = run_sql_hashes.get(name)
        if recorded and recorded != hashlib.sha256(sql_file.read_bytes()).hexdigest():
            c.notes.append(f"{sql_file.name} is not the SQL this run used (sha256 differs)")
        try:
            rel = con.sql(text)  # the file's text as is
            if rel is None:
                c.problems.append(f"{sql_file.name} returns no result set")
                continue
            # Materialised under the query's name so later queries (carteira_*) can read it;
            # DuckDB keeps insertion order, so the table scans back in the ORDER BY order.
            rel.create(name)
            result = con.sql(f"SELECT * FROM {sql_ident(name)}")
            columns, types, rows = result.columns, [str(t) for t in result.types], result.fetchall()
        except duckdb.Error as e:
            c.problems.append(f"DuckDB fails on {sql_file.name}: {str(e).splitlines()[0]}")
            c.problems.extend("  " + line for line in str(e).splitlines()[1:] if line.strip())
            continue
        agg = run / "aggregates" / f"{name}.parquet"
        if not agg.is_file():
            c.problems.append(f"no aggregates/{name}.parquet to compare with")
            continue
        compare(c, pq.read_table(agg, partitioning=None), columns, types, rows)

    # Aggregates no query accounts for (stale, or a query missing from QUERIES_DIR).
    for agg in sorted((run / "aggregates").glob("*.parquet")):
        if agg.stem not in produced and agg.stem not in NOT_FROM_A_QUERY:
            note = f"aggregates/{agg.name} has no query in {queries}; not compared"
            checks.append(Check("query", agg.stem, notes=[note], skipped=True))
    return checks


# ---------------------------------------------------------------------------------------------
# Output


def summarize_files(file_checks: list[Check]) -> list[tuple[bool, str, list[str]]]:
    """File checks grouped per top-level directory: one line each, failures spelled out."""
    groups: dict[str, list[Check]] = defaultdict(list)
    for c in file_checks:
        groups[c.name.split("/")[0]].append(c)
    lines = []
    for group, cs in groups.items():
        bad = [c for c in cs if not c.ok]
        head = f"{group}: {len(cs)} file(s)" + (f", {len(bad)} with problems" if bad else " ok")
        details = []
        for c in bad:
            details.append(c.name)
            details.extend("  " + p for p in c.problems)
        lines.append((not bad, head, details))
    return lines


def print_view_checks(view_checks) -> None:
    for c in view_checks:
        print(f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.info or 'not created'}")
        for p in c.problems:
            print(f"       {p}")


def print_query_checks(query_checks) -> None:
    for c in query_checks:
        if c.skipped:
            print(f"skip {c.name}")
        else:
            print(f"{'ok  ' if c.ok else 'FAIL'} {c.name}" + (f": {c.info}" if c.ok else ""))
        for p in c.problems:
            print(f"       {p}")
        for n in c.notes:
            print(f"       note: {n}")


def parse_args(argv: list[str] | None, description: str) -> tuple[argparse.Namespace, dict | None]:
    """The arguments both checkers take, and the run's manifest (None if unreadable)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("run_dir", type=Path, help="a finished run's output directory")
    ap.add_argument("queries_dir", type=Path, help="the folder of NN_name.sql files")
    ap.add_argument("--json", action="store_true", help="print a JSON summary instead of text")
    args = ap.parse_args(argv)
    run, queries = args.run_dir, args.queries_dir
    if not run.is_dir() or not queries.is_dir():
        ap.error("RUN_DIR and QUERIES_DIR must be directories")

    try:
        manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = None
    return args, manifest


def print_text(file_checks, file_notes, view_checks, query_checks) -> None:
    print("== 1. Parquet files against manifest.json and the declared types")
    for ok, head, details in summarize_files(file_checks):
        print(f"{'ok  ' if ok else 'FAIL'} {head}")
        for d in details:
            print(f"       {d}")
    for n in file_notes:
        print(f"note {n}")
    print("== 2. DuckDB views over the raw tables")
    print_view_checks(view_checks)
    print("== 3. Queries on DuckDB against the Polars aggregates")
    print_query_checks(query_checks)


def main(argv: list[str] | None = None) -> int:
    args, manifest = parse_args(argv, __doc__.split("\n\n")[0])
    run, queries = args.run_dir, args.queries_dir

    file_checks, file_notes = check_files(run, manifest)
    con = duckdb.connect(":memory:")
    view_checks = create_views(con, run)
    query_checks = run_queries(con, run, queries, manifest)
    con.close()

    counted = [c for c in file_checks + view_checks + query_checks if not c.skipped]
    passed = sum(c.ok for c in counted)
    failed = len(counted) - passed

    if args.json:
        doc = {
            "run_dir": str(run),
            "queries_dir": str(queries),
            "duckdb": duckdb.__version__,
            "pyarrow": pa.__version__,
            "passed": passed,
            "failed": failed,
            "notes": file_notes,
            "checks": [
                {"kind": c.kind, "name": c.name, "ok": c.ok, "skipped": c.skipped,
                 "info": c.info, "problems": c.problems, "notes": c.notes}
                for c in file_checks + view_checks + query_checks
            ],
        }
        print(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        print_text(file_checks, file_notes, view_checks, query_checks)
        print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
