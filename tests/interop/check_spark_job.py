#!/usr/bin/env python3
"""The Spark job of deploy/spark/ run with spark-submit (local[2]) on a finished run, its results
compared with the run's Polars aggregates.

    python3 check_spark_job.py RUN_DIR QUERIES_DIR

Runs `spark-submit deploy/spark/fiscal_report_queries.py RUN_DIR --queries QUERIES_DIR --out TMP`,
then, for every result `_queries.json` names: TMP/<name> (read by pyarrow) against
RUN_DIR/aggregates/<name>.parquet, by check_engines.py's rules (column names and order, row
count and order, values exactly; decimals of the same scale). Also checks that every query of
QUERIES_DIR has a result. Prints one line per result and `N passed, M failed`; exit status 0
only if M == 0. Needs pyspark (with its spark-submit) and Java 17+, pyarrow, and
check_engines.py next to this file.
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
    "--conf", "spark.ui.enabled=false",
    "--conf", "spark.ui.showConsoleProgress=false",
    "--conf", "spark.driver.host=127.0.0.1",
    "--conf", "spark.driver.bindAddress=127.0.0.1",
    "--conf", "spark.sql.shuffle.partitions=8",
    "--conf", "spark.log.level=ERROR",
]


def compare(name: str, got, want) -> list[str]:
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


def main(argv: list[str]) -> int:
    run, queries = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "aggregates_spark"
        started = time.monotonic()
        p = subprocess.run(
            ["spark-submit", *LOCAL, str(JOB), str(run), "--queries", str(queries), "--out", str(out)],
            capture_output=True, text=True,
            env={**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable},
        )
        wall = time.monotonic() - started
        print(f"== spark-submit {JOB.name}: exit {p.returncode} in {wall:.1f} s")
        if p.returncode != 0:
            shown = [line for line in p.stderr.splitlines() if " INFO " not in line]
            print("\n".join(shown[-40:]))
            print("0 passed, 1 failed")
            return 1
        summary = json.loads((out / "_queries.json").read_text())
        results = summary["results"]
        passed = failed = 0
        expected = {ce.table_name(f) for f in queries.glob("*.sql")}
        for name in sorted(expected - set(results)):
            failed += 1
            print(f"FAIL {name}: no result")
        for name, info in sorted(results.items(), key=lambda r: r[1]["sql"]):
            agg = run / "aggregates" / f"{name}.parquet"
            got = pq.read_table(out / name)
            problems = compare(name, got, pq.read_table(agg, partitioning=None)) if agg.is_file() else [
                f"no aggregates/{name}.parquet to compare with"]
            if info["rows"] != got.num_rows:
                problems.append(f"_queries.json says {info['rows']} rows, the folder holds {got.num_rows}")
            if problems:
                failed += 1
                print(f"FAIL {name}: " + "; ".join(problems))
            else:
                passed += 1
                print(f"ok   {name}: {got.num_rows} rows x {got.num_columns} columns equal")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
