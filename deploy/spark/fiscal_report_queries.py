"""The queries of fiscal-report on Spark, over a finished run's Parquet in a bucket (or a folder).

    spark-submit fiscal_report_queries.py RUN [--queries DIR] [--out DIR]

For history that outgrows one node: the same `queries/*.sql` the job runs with Polars, text
unchanged, through Spark SQL, over the raw tables a `run --out s3://BUCKET/PREFIX` exported.

- RUN: the run's folder, as Spark names it (`s3a://bucket/prefix` on open-source Spark with the
  hadoop-aws package; `s3://` on EMR and Databricks; `gs://`, `abfss://`, or a local path).
  Its `manifest.json` says which raw tables there are; only a finished run has one.
- --queries: the folder of the SQL files (default: `queries` in the working directory; a bucket
  folder works too). Files run in name order; each result is a view named after its file
  (`14_carteira_exposicao.sql` -> `carteira_exposicao`) so later queries can read it.
- --out: where the results go (default: RUN/aggregates_spark): one Parquet folder per query
  (a single file each: aggregates are small), then `_queries.json` last, naming every result
  with its rows and the sha256 of the SQL that made it. A reader that finds `_queries.json`
  finds every result it names.

The views follow the job's own rules: hive partition values stay text (`202609` is a month
label); the previous snapshot's tables (`*_anterior`) and `comparacao` are empty, as on a run
without a store (a run's folder holds one snapshot); without `--expand-groups` no partner
company was fetched and `socias_exposicao` is an empty table of `carteira_exposicao`'s columns.
Checked against the Polars aggregates by tests/interop/check_spark_job.py.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys

# The company tables the changes queries compare with their previous snapshot.
COMPARED = ["empresas", "dividas_pgfn", "parcelamentos_rfb", "transacoes_rfb"]
# Top-level folders of a run that are not raw tables.
NOT_RAW = {"aggregates", "aggregates_spark", "dossies"}


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", help="the run's folder (s3a://bucket/prefix, gs://…, abfss://…, or a path)")
    p.add_argument("--queries", default="queries", help="folder of the SQL files (default: ./queries)")
    p.add_argument("--out", help="where the results go (default: RUN/aggregates_spark)")
    return p.parse_args(argv)


def session():
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.appName("fiscal-report queries")
        .config("spark.sql.session.timeZone", "UTC")
        # Hive partition values stay text: "202510" is a month label, not a number.
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        .getOrCreate()
    )


def read_text(spark, path: str) -> str:
    rows = spark.read.text(path, wholetext=True).collect()
    if not rows:
        raise SystemExit(f"{path} is empty")
    return rows[0][0]


def write_text(spark, path: str, text: str) -> None:
    """`text` to `path` through Hadoop's FileSystem (a bucket's object appears at close, whole)."""
    target = spark._jvm.org.apache.hadoop.fs.Path(path)  # noqa: SLF001 - Spark's Hadoop, as-is
    stream = target.getFileSystem(spark._jsc.hadoopConfiguration()).create(target, True)  # noqa: SLF001
    stream.write(bytearray(text.encode("utf-8")))
    stream.close()


def raw_tables(manifest: dict) -> list[str]:
    """The raw tables the run exported: top-level folders of the manifest's Parquet files."""
    tables = set()
    for f in manifest.get("files", []):
        path = f["path"]
        top, _, rest = path.partition("/")
        if rest and path.endswith(".parquet") and top not in NOT_RAW and not top.startswith("."):
            tables.add(top)
    return sorted(tables)


def create_views(spark, run: str, tables: list[str]) -> None:
    for table in tables:
        df = spark.read.option("basePath", f"{run}/{table}").parquet(f"{run}/{table}")
        df.cache()
        df.createOrReplaceTempView(table)
    for table in COMPARED:
        if spark.catalog.tableExists(table):
            spark.sql(f"SELECT * FROM {table} WHERE false").createOrReplaceTempView(f"{table}_anterior")
    spark.sql(
        "SELECT CAST(NULL AS STRING) AS snapshot, CAST(NULL AS STRING) AS snapshot_anterior WHERE false"
    ).createOrReplaceTempView("comparacao")


def query_files(spark, folder: str) -> list[tuple[str, str]]:
    """(file name, text) of every *.sql in `folder`, in name order."""
    files = spark.sparkContext.wholeTextFiles(f"{folder.rstrip('/')}/*.sql").collect()
    return sorted(((path.rsplit("/", 1)[-1], text) for path, text in files), key=lambda f: f[0])


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    run = args.run.rstrip("/")
    out = (args.out or f"{run}/aggregates_spark").rstrip("/")
    spark = session()
    manifest = json.loads(read_text(spark, f"{run}/manifest.json"))
    tables = raw_tables(manifest)
    if not tables:
        print(f"{run}/manifest.json names no raw table: is it a finished `run`'s folder?", file=sys.stderr)
        return 2
    create_views(spark, run, tables)
    queries = query_files(spark, args.queries)
    if not queries:
        print(f"no *.sql in {args.queries}: pass --queries", file=sys.stderr)
        return 2
    written = {}
    has_partners = "socias_exposicao" in tables
    for file_name, text in queries:
        name = re.sub(r"^\d+_", "", file_name.removesuffix(".sql"))
        df = spark.sql(text)  # the file's text as is
        df.cache()
        df.createOrReplaceTempView(name)
        if name == "carteira_exposicao" and not has_partners:
            df.where("false").createOrReplaceTempView("socias_exposicao")
        # One file per result, in the query's row order.
        df.coalesce(1).write.mode("overwrite").parquet(f"{out}/{name}")
        written[name] = {
            "rows": df.count(),
            "sql": file_name,
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        }
        print(f"{name}: {written[name]['rows']} rows", file=sys.stderr)
    # Last: its presence says every result it names is complete.
    summary = {"run": run, "run_id": manifest.get("run_id"), "results": written}
    write_text(spark, f"{out}/_queries.json", json.dumps(summary, indent=2) + "\n")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
