#!/usr/bin/env python3
"""The Spark job of deploy/spark/ run with spark-submit (local[2]), its results compared cell for
cell with what the Rust run wrote.

    python3 check_spark_job.py run RUN_DIR QUERIES_DIR
    python3 check_spark_job.py store STORE RUN_DIR QUERIES_DIR

`run`: `spark-submit fiscal_report_queries.py RUN_DIR --queries QUERIES_DIR --out TMP`, each
result against RUN_DIR/aggregates/<name>.parquet; every query of QUERIES_DIR must have a result
and every aggregate a query (but data_quality, which no query makes).
`store`: `spark-submit fiscal_report_queries.py --store STORE --queries QUERIES_DIR --out TMP`,
each result against RUN_DIR/historico/<name>.parquet, RUN_DIR being the last run on STORE;
every QUERIES_DIR/historico/*.sql must have a result and every series a query.

Both read with pyarrow, by check_engines.py's rules: column names and order, row count and
order, values exactly (decimals as Python Decimal, of the same scale; floats within 1e-9).
Prints the versions, one line per result and `N of M results equal`; exit status 0 only if
N == M. Needs pyspark (with its spark-submit), Java 17+, pyarrow, and check_engines.py next to
this file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import duckdb  # noqa: F401 - only so check_engines imports
except ImportError:
    sys.modules["duckdb"] = types.ModuleType("duckdb")
import check_engines as ce  # noqa: E402

import pyarrow.parquet as pq  # noqa: E402

JOB = Path(__file__).resolve().parents[2] / "deploy" / "spark" / "fiscal_report_queries.py"
LOCAL = [
    "--master", "local[2]",
    "--driver-memory", "2g",
    # No broadcast joins: with the other tests running beside it, building a broadcast table ran
    # the driver out of memory once; a sort-merge join gives the same rows.
    "--conf", "spark.sql.autoBroadcastJoinThreshold=-1",
    "--conf", "spark.ui.enabled=false",
    "--conf", "spark.ui.showConsoleProgress=false",
    "--conf", "spark.driver.host=127.0.0.1",
    "--conf", "spark.driver.bindAddress=127.0.0.1",
    "--conf", "spark.log.level=ERROR",
    # The inputs are a few thousand rows, so each of the job's ~80 small Spark jobs costs its
    # planning and code generation, not its data. One shuffle partition, no adaptive re-planning
    # and no whole-stage code generation give the same rows: the demo run's check took 94 s with
    # Spark's defaults and 56 s with these (one submit at a time, 2 cores).
    "--conf", "spark.sql.shuffle.partitions=1",
    "--conf", "spark.sql.adaptive.enabled=false",
    "--conf", "spark.sql.codegen.wholeStage=false",
]


def compare(got, want) -> list[str]:
    problems = []
    if got.column_names != want.column_names:
        problems.append(f"columns differ: Spark {got.column_names}, Polars {want.column_names}")
    if got.num_rows != want.num_rows:
        problems.append(f"rows: Spark {got.num_rows}, Polars {want.num_rows}")
    for col in want.column_names:
        if col not in got.column_names:
            continue
        fam, scale = ce.arrow_family(want.schema.field(col).type)
        if (fam, scale) != ce.arrow_family(got.schema.field(col).type):
            problems.append(f"column {col}: Spark {got.schema.field(col).type}, Polars {want.schema.field(col).type}")
        g, w = got.column(col).to_pylist(), want.column(col).to_pylist()
        bad = [i for i in range(min(len(g), len(w))) if not ce.values_equal(w[i], g[i], fam)]
        if bad:
            problems.append(f"column {col}: {len(bad)} value(s) differ, first at row {bad[0]}: "
                            f"Spark {ce.show(g[bad[0]])}, Polars {ce.show(w[bad[0]])}")
    return problems


def versions() -> str:
    import pyspark

    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    return f"PySpark {pyspark.__version__}, {java[0] if java else 'java: unknown'}"


def submit(args: list[str]) -> tuple[int, str, float]:
    started = time.monotonic()
    p = subprocess.run(
        ["spark-submit", *LOCAL, str(JOB), *args],
        capture_output=True, text=True,
        env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable},
    )
    # The job's own error (a query Spark cannot run, say) is on either stream.
    lines = (p.stderr + p.stdout).splitlines()
    shown = [line for line in lines if " INFO " not in line and " WARN " not in line]
    return p.returncode, "\n".join(shown[-40:]), time.monotonic() - started


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "run":
        run, queries = Path(argv[1]).resolve(), Path(argv[2]).resolve()
        job_args, truth, sql_dir = [str(run)], run / "aggregates", queries
    elif len(argv) == 4 and argv[0] == "store":
        store, run, queries = (Path(a).resolve() for a in argv[1:])
        job_args, truth, sql_dir = ["--store", str(store)], run / "historico", queries / "historico"
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(f"== {versions()}")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "spark"
        code, log, wall = submit([*job_args, "--queries", str(queries), "--out", str(out)])
        print(f"== spark-submit {JOB.name} {argv[0]}: exit {code} in {wall:.1f} s")
        if code != 0 or not (out / "_queries.json").is_file():
            print(log)
            print("0 of 1 results equal")
            return 1
        results = json.loads((out / "_queries.json").read_text())["results"]
        expected = {ce.table_name(f) for f in sql_dir.glob("*.sql")}
        written = {p.stem for p in truth.glob("*.parquet")} - ce.NOT_FROM_A_QUERY
        names = sorted(expected | written | set(results))
        equal = 0
        for name in names:
            problems = []
            if name not in results:
                problems.append("no Spark result")
            if not (truth / f"{name}.parquet").is_file():
                problems.append(f"no {truth.name}/{name}.parquet to compare with")
            if not problems:
                got = pq.read_table(out / name)
                problems = compare(got, pq.read_table(truth / f"{name}.parquet", partitioning=None))
                if results[name]["rows"] != got.num_rows:
                    problems.append(f"_queries.json says {results[name]['rows']} rows, the folder holds {got.num_rows}")
            if problems:
                print(f"FAIL {name}: " + "; ".join(problems))
            else:
                equal += 1
                print(f"ok   {name}: {got.num_rows} rows x {got.num_columns} columns equal")
    print(f"{equal} of {len(names)} results equal")
    return 0 if equal == len(names) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
