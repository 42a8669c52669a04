"""How the raw credits table is cut into files, measured with the readers that load it.

    python3 bench/export_layout.py TABLE_DIR [RUNS]

TABLE_DIR is an exported `creditos_ativos` directory (a run's, or the one bench/analyze_vs_duckdb.sh
makes; it runs this script). Its rows are rewritten in each layout below, with the same writer settings the export
uses (zstd, statistics, dictionary pages as Polars writes them), and each reader times the same
two questions over each layout, median of RUNS (default 3) in this process, after one warm-up:

- the whole table grouped by state (every row read: a report, a model's training set);
- one month (a filter on the partition column: an analyst looking at the latest month).

Readers: DuckDB, pyarrow (dataset API, what pandas uses), Polars (Python, lazy scan), and Spark
when `pyspark` is importable (local[2]). Prints a Markdown table on stdout.
"""
import glob
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds

# The DuckDB read of a hive-partitioned table as the interop checks write it (partition values
# as text, no partitioning when the path has none).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "interop"))
from check_engines import read_parquet_sql  # noqa: E402

# (name, partition columns, rows per row group)
LAYOUTS = [
    ("month x state (before)", ["ano_mes", "uf"], 131072),
    ("month, 16k-row groups", ["ano_mes"], 16384),
    ("month, 128k-row groups (export)", ["ano_mes"], 131072),
    ("month, 1M-row groups", ["ano_mes"], 1048576),
    ("one file, 128k-row groups", [], 131072),
]


def write_layout(df: pl.DataFrame, root: str, parts: list[str], row_group: int) -> int:
    """Writes df under root as the export would with these partition columns; returns the file count."""
    os.makedirs(root)
    groups = df.group_by(parts, maintain_order=True) if parts else [((), df)]
    files = 0
    for key, g in groups:
        sub = "/".join(f"{p}={v}" for p, v in zip(parts, key)) if parts else ""
        d = os.path.join(root, sub)
        os.makedirs(d, exist_ok=True)
        g.drop(parts).write_parquet(
            os.path.join(d, "part-0.parquet"), compression="zstd", statistics=True, row_group_size=row_group
        )
        files += 1
    return files


def timed(fn, runs: int) -> float:
    fn()
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def readers(root: str, parts: list[str], month: str):
    pattern = f"{root}/**/*.parquet"
    con = duckdb.connect()
    con.execute(f"CREATE VIEW c AS SELECT * FROM {read_parquet_sql(Path(root).parent, Path(root).name, parts)}")
    schema_parts = None
    if parts:
        schema_parts = ds.partitioning(pa.schema([(p, pa.string()) for p in parts]), flavor="hive")
    pa_ds = ds.dataset(root, format="parquet", partitioning=schema_parts)
    pl_scan = pl.scan_parquet(
        pattern, hive_partitioning=bool(parts), hive_schema={p: pl.String for p in parts} or None
    )
    month_filter = ds.field("ano_mes") == month
    yield "DuckDB", (
        lambda: con.execute("SELECT uf, SUM(valor_total) FROM c GROUP BY uf").fetchall(),
        lambda: con.execute(f"SELECT uf, SUM(valor_total) FROM c WHERE ano_mes = '{month}' GROUP BY uf").fetchall(),
    )
    yield "pyarrow", (
        lambda: pa_ds.to_table(columns=["uf", "valor_total"]).group_by("uf").aggregate([("valor_total", "sum")]),
        lambda: pa_ds.to_table(columns=["uf", "valor_total"], filter=month_filter)
        .group_by("uf")
        .aggregate([("valor_total", "sum")]),
    )
    yield "Polars", (
        lambda: pl_scan.group_by("uf").agg(pl.col("valor_total").sum()).collect(),
        lambda: pl_scan.filter(pl.col("ano_mes") == month).group_by("uf").agg(pl.col("valor_total").sum()).collect(),
    )
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        return
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        .config("spark.sql.shuffle.partitions", "8")
        .getOrCreate()
    )
    sdf = spark.read.parquet(root)
    yield "Spark", (
        lambda: sdf.groupBy("uf").sum("valor_total").collect(),
        lambda: sdf.filter(sdf.ano_mes == month).groupBy("uf").sum("valor_total").collect(),
    )


def main() -> None:
    table_dir = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    # Read whatever layout the input has; partition values as text.
    df = pl.read_parquet(f"{table_dir}/**/*.parquet", hive_partitioning=True)
    df = df.with_columns([pl.col(c).cast(pl.String) for c in ("ano_mes", "uf") if c in df.columns])
    df = df.sort(["ano_mes", "uf"], maintain_order=True)
    month = df["ano_mes"].max()
    tmp = tempfile.mkdtemp()
    rows = [f"{df.height:,} rows of creditos_ativos; one month = {month}; median of {runs} runs, seconds.", ""]
    header = None
    try:
        for name, parts, row_group in LAYOUTS:
            root = os.path.join(tmp, str(len(os.listdir(tmp))))
            files = write_layout(df, root, parts, row_group)
            size = sum(os.path.getsize(f) for f in glob.glob(f"{root}/**/*.parquet", recursive=True))
            cells = []
            names = []
            for reader, (whole, one_month) in readers(root, parts, month):
                names.append(reader)
                cells.append(f"{timed(whole, runs):.3f} / {timed(one_month, runs):.3f}")
            if header is None:
                header = names
                rows.append("| layout | files | MiB | " + " | ".join(f"{n}: whole / one month" for n in names) + " |")
                rows.append("|---|--:|--:|" + "--:|" * len(names))
            rows.append(f"| {name} | {files} | {size / 2**20:.1f} | " + " | ".join(cells) + " |")
            print(rows[-1], file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
