#!/usr/bin/env python3
"""Spark check of a finished fiscal-report run: the queries on Apache Spark SQL.

    python3 check_spark.py RUN_DIR QUERIES_DIR [--json]

The Spark counterpart of check_engines.py (whose helpers and comparison rules it imports):

1. Spark (PySpark, local[2], UTC, no UI, no network beyond localhost): one temp view per raw
   table of RUN_DIR, read with spark.read.parquet(<table dir>) and hive partition discovery with
   type inference off, so partition values (ano_mes, uf, categoria) stay strings and
   __HIVE_DEFAULT_PARTITION__ reads as null; each view is cached once read. Each partitioned
   view's values are checked file by file against the writer's own decoding of the path (Spark
   decodes a %XX escape as one character, so a multi-byte UTF-8 value would show up here).
2. Every QUERIES_DIR/*.sql in file-name order, text unchanged, through spark.sql(); each result
   is registered (and cached) as a temp view named after the query (NN_name.sql -> name) so
   later queries (carteira_*) can read it.
3. Each Spark result is compared with RUN_DIR/aggregates/<name>.parquet, which Polars SQL
   wrote: column names and order, row count and order, value by value (decimals exactly as
   Python Decimal whatever the precision, integers exactly, floats within 1e-9 absolute or
   relative, text/dates/nulls exactly); a column must also keep its type family (decimal of the
   same scale, integer, float, string, date).

The Parquet files against the manifest are check_engines.py's job and are not repeated here.
Every view and query is one check. Prints a line per view and per query (failures spelled out,
the first 5 differing values per table) and ends with `N passed, M failed`; exit status 0 only
if M == 0. With --json, prints one JSON document instead. Needs pyspark (and Java 17+),
pyarrow, and check_engines.py next to this file.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import types
import urllib.parse
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import duckdb  # noqa: F401 - only so check_engines imports; nothing here uses DuckDB
except ImportError:  # check_engines imports duckdb at the top; its helpers used here do not
    sys.modules["duckdb"] = types.ModuleType("duckdb")
import check_engines as ce  # noqa: E402

import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

ENGINE = "Spark"
# Lines of a Spark error message shown under a failing query (the rest is the plan dump).
ERROR_LINES_SHOWN = 6
# Log4j 2 configuration that keeps the JVM quiet: errors only, on stderr.
LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n%ex
# PySpark runs as a shell: Spark announces "Setting default log level" unless the logger of
# the class that starts logging has its own level, equal to the root's.
logger.spark.name = org.apache.spark
logger.spark.level = error
"""


# ---------------------------------------------------------------------------------------------
# Spark session


def start_spark(log_config: Path):
    # Local only: no hostname lookups, nothing listening beyond localhost.
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # pyspark warns about pandas versions on import; no pandas is used here.
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"pyspark\.")
    from pyspark.sql import SparkSession

    java_opts = f"-Dlog4j2.configurationFile={log_config.as_uri()}"
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("fiscal-report check_spark")
        .config("spark.driver.memory", "2g")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.extraJavaOptions", java_opts)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
        # Hive partition values stay text: "202510" is a month label, not a number.
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        # Small data, two cores: fewer shuffle partitions only saves time.
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def spark_error(e: BaseException) -> list[str]:
    """The useful lines of a Spark/Py4J error: the message, not the JVM stack or plan."""
    msg = None
    java = getattr(e, "java_exception", None)
    if java is not None:  # Py4JJavaError: the Java exception's own message
        try:
            msg = f"{java.getClass().getName()}: {java.getMessage()}"
        except Exception:  # noqa: BLE001
            msg = None
    if msg is None:
        msg = f"{type(e).__name__}: {e}"
    lines = [ln.rstrip() for ln in msg.splitlines() if ln.strip()]
    # Spark appends the logical plan after the message; it starts at a line like ";\n'Project".
    cut = next((i for i, ln in enumerate(lines) if ln.strip() == ";"), len(lines))
    lines = lines[:cut] or ["(no message)"]
    if len(lines) > ERROR_LINES_SHOWN:
        lines = lines[:ERROR_LINES_SHOWN] + ["..."]
    return lines


def spark_family(t) -> tuple[str, int | None]:
    """('decimal', scale) | ('integer', None) | ('float', None) | ... from a Spark DataType."""
    from pyspark.sql import types as T

    if isinstance(t, T.DecimalType):
        return "decimal", t.scale
    if isinstance(t, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
        return "integer", None
    if isinstance(t, (T.FloatType, T.DoubleType)):
        return "float", None
    if isinstance(t, T.StringType):  # also VARCHAR/CHAR, which Spark reads as StringType
        return "string", None
    if isinstance(t, T.DateType):
        return "date", None
    if isinstance(t, T.BooleanType):
        return "bool", None
    return t.simpleString(), None


# ---------------------------------------------------------------------------------------------
# 1. Spark views over the raw tables


def create_views(spark, run: Path) -> list[ce.Check]:
    from pyspark.sql import types as T

    checks = []
    for table, keys in ce.raw_tables(run).items():
        c = ce.Check("view", table)
        checks.append(c)
        if isinstance(keys, str):
            c.problems.append(keys)
            continue
        try:
            df = spark.read.parquet(str((run / table).resolve()))
            # Cached, so the queries scan the files once rather than once per reference
            # (files of creditos_ativos cost ~2 s a scan when they were
            # one per month and state); the rows are the same.
            df.cache()
            df.createOrReplaceTempView(table)
            rows = df.count()  # the one scan, which fills the cache
        except Exception as e:  # noqa: BLE001 - any read failure is the finding
            c.problems.append(f"{ENGINE} cannot read it: {spark_error(e)[0]}")
            continue
        c.info = f"{rows} rows" + (f", partitions {', '.join(keys)} as string" if keys else "")
        fields = {f.name: f.dataType for f in df.schema.fields}
        for k in keys:
            if k not in fields:
                c.problems.append(f"partition column {k} not discovered by {ENGINE}")
            elif not isinstance(fields[k], T.StringType):
                c.problems.append(f"partition column {k}: {fields[k].simpleString()}, expected string")
        if keys and not c.problems:
            c.problems.extend(partition_value_problems(df, run, keys))
    # The previous snapshot's tables and `comparacao`, empty as on a first run (check_engines.py).
    for table in ce.COMPARED:
        if spark.catalog.tableExists(table):
            spark.sql(f"SELECT * FROM {table} WHERE false").createOrReplaceTempView(f"{table}_anterior")
    spark.sql(
        "SELECT CAST(NULL AS STRING) AS snapshot, CAST(NULL AS STRING) AS snapshot_anterior WHERE false"
    ).createOrReplaceTempView("comparacao")
    spark.sql(
        "SELECT CAST(NULL AS STRING) AS categoria, CAST(NULL AS STRING) AS numero_inscricao WHERE false"
    ).createOrReplaceTempView("inscricoes_da_carteira")
    return checks


def uri_to_path(uri: str) -> Path:
    """Spark's file URI (percent-encoded, so a literal %C3 reads %25C3) -> the path on disk."""
    parsed = urllib.parse.urlparse(uri)
    return Path(urllib.parse.unquote(parsed.path if parsed.scheme else uri))


def partition_value_problems(df, run: Path, keys: list[str]) -> list[str]:
    """Spark's partition values per file against the writer's own decoding of the path."""
    from pyspark.sql import functions as F

    try:
        found = df.select(F.col("_metadata.file_path").alias("f"), *keys).distinct().collect()
    except Exception as e:  # noqa: BLE001
        return [f"cannot read the file of each row: {spark_error(e)[0]}"]
    problems = []
    root = run.resolve()
    for row in found:
        rel = uri_to_path(row[0]).resolve().relative_to(root).as_posix()
        want = [ce.decode_partition_value(v) for _, v in ce.partition_segments(rel)]
        got = list(row[1:])
        if got != want:
            problems.append(f"{rel}: {ENGINE} reads {got}, the path decodes to {want}")
    return sorted(problems)


# ---------------------------------------------------------------------------------------------
# 2. Queries, and their results against the Polars aggregates


def compare(c: ce.Check, expected: pa.Table, schema, rows: list[tuple]) -> None:
    columns = [f.name for f in schema.fields]
    want_cols = expected.column_names
    if columns != want_cols:
        c.problems.append(f"columns differ: {ENGINE} {columns}, Polars {want_cols}")
    if len(rows) != expected.num_rows:
        c.problems.append(f"rows: {ENGINE} {len(rows)}, Polars {expected.num_rows}")

    # Columns compared by name, so a reordering still shows its values.
    compared = []  # (index in the Spark row, name, family, Polars values)
    for j, f in enumerate(schema.fields):
        if f.name not in want_cols:
            continue
        exp_type = expected.schema.field(f.name).type
        fam, scale = ce.arrow_family(exp_type)
        # Same family and, for decimals, the same scale; the precision may differ (Spark
        # widens SUM(decimal(18,2)) to decimal(28,2), Polars to decimal(38,2)).
        if (fam, scale) != spark_family(f.dataType):
            c.problems.append(
                f"column {f.name}: {ENGINE} {f.dataType.simpleString()}, Polars {exp_type}"
            )
        compared.append((j, f.name, fam, expected.column(f.name).to_pylist()))

    mismatches: list[str] = []
    n = min(len(rows), expected.num_rows)
    for i in range(n):  # row by row, so the first mismatches shown are the first rows'
        for j, name, fam, want in compared:
            if not ce.values_equal(want[i], rows[i][j], fam):
                mismatches.append(
                    f"row {i}, {name}: {ENGINE} {ce.show(rows[i][j])}, Polars {ce.show(want[i])}"
                )
    if mismatches:
        c.problems.append(f"{len(mismatches)} value(s) differ")
        c.problems.extend(mismatches[: ce.MAX_MISMATCHES_SHOWN])
    if not c.problems:
        c.info = f"{n} rows x {len(columns)} columns equal"


def run_queries(spark, run: Path, queries: Path, manifest: dict | None) -> list[ce.Check]:
    checks = []
    run_sql_hashes = (manifest or {}).get("queries") or {}
    produced = set()
    for sql_file in sorted(queries.glob("*.sql"), key=lambda p: p.name):
        name = ce.table_name(sql_file)
        produced.add(name)
        c = ce.Check("query", name)
        checks.append(c)
        text = sql_file.read_text(encoding="utf-8")
        recorded = run_sql_hashes.get(name)
        if recorded and recorded != hashlib.sha256(sql_file.read_bytes()).hexdigest():
            c.notes.append(f"{sql_file.name} is not the SQL this run used (sha256 differs)")
        try:
            df = spark.sql(text)  # the file's text as is
            # Registered under the query's name so later queries (carteira_*) can read it;
            # cached so they read these very rows rather than recomputing them.
            df.cache()
            df.createOrReplaceTempView(name)
            # As the job does: without `--expand-groups` no partner company was fetched, and
            # the groups query reads their exposure as an empty table of this one's columns.
            if name == "carteira_exposicao" and not (run / "socias_exposicao").is_dir():
                df.where("false").createOrReplaceTempView("socias_exposicao")
            schema, rows = df.schema, [tuple(r) for r in df.collect()]
        except Exception as e:  # noqa: BLE001 - analysis and execution errors alike
            lines = spark_error(e)
            c.problems.append(f"{ENGINE} fails on {sql_file.name}: {lines[0]}")
            c.problems.extend("  " + line for line in lines[1:])
            continue
        agg = run / "aggregates" / f"{name}.parquet"
        if not agg.is_file():
            c.problems.append(f"no aggregates/{name}.parquet to compare with")
            continue
        compare(c, pq.read_table(agg, partitioning=None), schema, rows)

    # Aggregates no query accounts for (stale, or a query missing from QUERIES_DIR).
    for agg in sorted((run / "aggregates").glob("*.parquet")):
        if agg.stem not in produced and agg.stem not in ce.NOT_FROM_A_QUERY:
            note = f"aggregates/{agg.name} has no query in {queries}; not compared"
            checks.append(ce.Check("query", agg.stem, notes=[note], skipped=True))
    return checks


# ---------------------------------------------------------------------------------------------
# Output


def print_text(versions: dict[str, Any], view_checks, query_checks) -> None:
    print(
        f"== {ENGINE} {versions['spark']} on Java {versions['java']} "
        f"(local[2], ANSI mode {versions['ansi']}, session time zone UTC)"
    )
    print(f"== 1. {ENGINE} views over the raw tables")
    ce.print_view_checks(view_checks)
    print(f"== 2. Queries on {ENGINE} against the Polars aggregates")
    ce.print_query_checks(query_checks)


def main(argv: list[str] | None = None) -> int:
    args, manifest = ce.parse_args(argv, __doc__.split("\n\n")[0])
    run, queries = args.run_dir, args.queries_dir

    with tempfile.TemporaryDirectory(prefix="check_spark-") as tmp:
        log_config = Path(tmp) / "log4j2.properties"
        log_config.write_text(LOG4J2, encoding="utf-8")
        spark = start_spark(log_config)
        try:
            versions = {
                "spark": spark.version,
                "java": spark.sparkContext._jvm.java.lang.System.getProperty("java.version"),
                # No default argument: with one, conf.get returns it instead of Spark's own default.
                "ansi": spark.conf.get("spark.sql.ansi.enabled"),
            }
            view_checks = create_views(spark, run)
            query_checks = run_queries(spark, run, queries, manifest)
        finally:
            spark.stop()

    counted = [c for c in view_checks + query_checks if not c.skipped]
    passed = sum(c.ok for c in counted)
    failed = len(counted) - passed

    if args.json:
        doc = {
            "run_dir": str(run),
            "queries_dir": str(queries),
            "spark": versions["spark"],
            "java": versions["java"],
            "ansi": versions["ansi"],
            "pyarrow": pa.__version__,
            "passed": passed,
            "failed": failed,
            "checks": [
                {"kind": c.kind, "name": c.name, "ok": c.ok, "skipped": c.skipped,
                 "info": c.info, "problems": c.problems, "notes": c.notes}
                for c in view_checks + query_checks
            ],
        }
        print(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        print_text(versions, view_checks, query_checks)
        print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
