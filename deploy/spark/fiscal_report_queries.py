"""The queries of fiscal-report on Spark, over a finished run's Parquet or a store, in a bucket (or a folder).

    spark-submit fiscal_report_queries.py RUN [--queries DIR] [--out DIR]
    spark-submit fiscal_report_queries.py --store STORE --out DIR [--queries DIR]

For history that outgrows one node: the same `queries/*.sql` the job runs with Polars, text
unchanged, through Spark SQL, over the tables a `run --out s3://BUCKET/PREFIX` exported.

- RUN: the run's folder, as Spark names it (`s3a://bucket/prefix` on open-source Spark with the
  hadoop-aws package; `s3://` on EMR and Databricks; `gs://`, `abfss://`, or a local path).
  Its `manifest.json` says which tables there are; only a finished run has one. Every table a
  query reads is one of them or an earlier query's result: the raw tables, and those the run
  wrote for its queries beside them (the previous snapshot's `anterior/<table>`, read as
  `<table>_anterior`; `comparacao`, `inscricoes_da_carteira`, `socias_exposicao`). Nothing is
  made up here.
- --store: a store (`run --store`) instead of a run: `historico/*.sql` of the queries folder run
  over every snapshot of it, as a run on that store writes `historico/`. Each Delta table is
  read at its current version, its file list taken from the Delta log (`_delta_log/`: the last
  checkpoint, then the JSON commits after it), so no Delta jar is needed.
- --queries: the folder of the SQL files (default: `queries` in the working directory; a bucket
  folder works too). Files run in name order; each result is a view named after its file
  (`14_carteira_exposicao.sql` -> `carteira_exposicao`) so later queries can read it.
- --out: where the results go (default: RUN/aggregates_spark): one Parquet folder per query
  (a single file each: aggregates are small), then `_queries.json` last, naming every result
  with its rows and the sha256 of the SQL that made it. A reader that finds `_queries.json`
  finds every result it names.

Hive partition values stay text (`202609` is a month label). Checked in CI against the Polars
results by tests/it/spark.rs (tests/interop/check_spark_job.py).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import urllib.parse

# The previous snapshot's copies of the tables: `anterior/<table>/`, the view `<table>_anterior`.
PREVIOUS_DIR = "anterior"
# Top-level folders of a run that are not tables the queries read.
NOT_RAW = {"aggregates", "aggregates_spark", "dossies", "historico", "dimensoes"}
# The store's company tables the exposure query reads at each snapshot.
SNAPSHOT_TABLES = ["empresas", "dividas_pgfn", "parcelamentos_rfb", "transacoes_rfb"]
# The monthly query whose result the series read at every snapshot, recomputed from the
# snapshot's tables; the store's own tables of the others (each committed with its snapshot).
EXPOSURE = "carteira_exposicao"
STORED_RESULTS = ["situacao_fiscal_estimada", "mudancas"]
# A series reads `<monthly result>_por_retrato`: that result at every snapshot, `snapshot` first.
BY_SNAPSHOT = "_por_retrato"
# PGFN's whole release, committed with each snapshot loaded from the files: its series read it
# with `snapshot_anterior`, the previous snapshot that holds some (null for the first).
NATIONAL = "divida_ativa_nacional"
NATIONAL_COLUMNS = (
    "uf string, tipo_pessoa string, sistema string, grupo_tributo string, situacao string, "
    "ajuizado string, cnae_secao string, cnae_secao_descricao string, natureza_grupo string, "
    "natureza_grupo_descricao string, inscricoes bigint, valor decimal(18,2), snapshot string"
)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("run", nargs="?", help="the run's folder (s3a://bucket/prefix, gs://…, abfss://…, or a path)")
    p.add_argument("--store", help="a store instead of a run: the series of historico/ over its snapshots")
    p.add_argument("--queries", default="queries", help="folder of the SQL files (default: ./queries)")
    p.add_argument("--out", help="where the results go (default: RUN/aggregates_spark; required with --store)")
    args = p.parse_args(argv)
    if (args.run is None) == (args.store is None):
        p.error("give either RUN or --store STORE")
    if args.store and not args.out:
        p.error("--store needs --out: nothing is written into the store")
    return args


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
    """The raw tables the run exported: top-level folders of the manifest's Parquet files, and
    the previous snapshot's copies (`anterior/<table>/`, read as `<table>_anterior`)."""
    tables = set()
    for f in manifest.get("files", []):
        path = f["path"]
        top, _, rest = path.partition("/")
        if not (rest and path.endswith(".parquet")) or top in NOT_RAW or top.startswith("."):
            continue
        if top == PREVIOUS_DIR:
            table, _, inner = rest.partition("/")
            if inner:
                tables.add(table + "_anterior")
        else:
            tables.add(top)
    return sorted(tables)


def table_dir(run: str, table: str) -> str:
    """A view's folder: `<table>`, or `anterior/<base>` for `<base>_anterior`."""
    if table.endswith("_anterior"):
        return f"{run}/{PREVIOUS_DIR}/{table.removesuffix('_anterior')}"
    return f"{run}/{table}"


def create_views(spark, run: str, tables: list[str]) -> None:
    for table in tables:
        folder = table_dir(run, table)
        df = spark.read.option("basePath", folder).parquet(folder)
        df.cache()
        df.createOrReplaceTempView(table)


def query_files(spark, folder: str) -> list[tuple[str, str]]:
    """(file name, text) of every *.sql in `folder`, in name order."""
    files = spark.sparkContext.wholeTextFiles(f"{folder.rstrip('/')}/*.sql").collect()
    return sorted(((path.rsplit("/", 1)[-1], text) for path, text in files), key=lambda f: f[0])


def name_of(file_name: str) -> str:
    """`14_carteira_exposicao.sql` -> `carteira_exposicao`."""
    return re.sub(r"^\d+_", "", file_name.removesuffix(".sql"))


def run_files(spark, queries: list[tuple[str, str]], out: str) -> dict:
    """Each query in turn, its result a view for the later ones and a Parquet folder in `out`."""
    written = {}
    for file_name, text in queries:
        name = name_of(file_name)
        df = spark.sql(text)  # the file's text as is
        df.cache()
        df.createOrReplaceTempView(name)
        # One file per result, in the query's row order.
        df.coalesce(1).write.mode("overwrite").parquet(f"{out}/{name}")
        written[name] = {
            "rows": df.count(),
            "sql": file_name,
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        }
        print(f"{name}: {written[name]['rows']} rows", file=sys.stderr)
    return written


def hadoop_path(spark, path: str):
    """(file system, Hadoop Path) of `path`, through Spark's Hadoop configuration."""
    target = spark._jvm.org.apache.hadoop.fs.Path(path)  # noqa: SLF001 - Spark's Hadoop, as-is
    return target.getFileSystem(spark._jsc.hadoopConfiguration()), target  # noqa: SLF001


def exists(spark, path: str) -> bool:
    fs, target = hadoop_path(spark, path)
    return bool(fs.exists(target))


def read_small(spark, path: str) -> str:
    """A small file's text through Hadoop's FileSystem (Spark's readers skip `_`-prefixed names)."""
    fs, target = hadoop_path(spark, path)
    stream = fs.open(target)
    try:
        return spark._jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8")  # noqa: SLF001
    finally:
        stream.close()


COMMIT = re.compile(r"^(\d{20})\.json$")
CHECKPOINT = re.compile(r"^(\d{20})\.checkpoint(?:\.\d{10}\.(\d{10}))?\.parquet$")


def delta_files(spark, table: str) -> list[str] | None:
    """The data files of the Delta table at `table` in its current version (None: no table).

    The newest complete checkpoint of its log gives the files live at its version; each JSON
    commit after it adds and removes files, in version order."""
    log = f"{table}/_delta_log"
    if not exists(spark, log):
        return None
    fs, target = hadoop_path(spark, log)
    names = [status.getPath().getName() for status in fs.listStatus(target)]
    commits = sorted((int(m[1]), n) for n in names if (m := COMMIT.match(n)))
    parts: dict[int, list[str]] = {}
    for n in names:
        if m := CHECKPOINT.match(n):
            parts.setdefault(int(m[1]), []).append(n)
    complete = [
        v for v, files in parts.items()
        if (m := CHECKPOINT.match(files[0])) and len(files) == int(m[2] or 1)
    ]
    live: dict[str, None] = {}
    since = max(complete, default=-1)
    if since >= 0:
        checkpoint = spark.read.parquet(*[f"{log}/{n}" for n in sorted(parts[since])])
        for row in checkpoint.where("add IS NOT NULL").select("add.path").collect():
            live[row[0]] = None
    for version, name in commits:
        if version <= since:
            continue
        for line in read_small(spark, f"{log}/{name}").splitlines():
            action = json.loads(line) if line.strip() else {}
            if "add" in action:
                live[action["add"]["path"]] = None
            elif "remove" in action:
                live.pop(action["remove"]["path"], None)
    # Paths in the log are relative to the table and URI-encoded (absolute ones are kept).
    return [p if "://" in p else f"{table}/{urllib.parse.unquote(p)}" for p in live]


def read_delta(spark, table: str):
    """The Delta table at `table` as Spark reads Parquet, partition values as text; None when
    the store has no such table, or it holds no file."""
    files = delta_files(spark, table)
    if not files:
        return None
    return spark.read.option("basePath", table).parquet(*files)


def store_snapshots(spark, store: str) -> list[str]:
    """The snapshots of the store's runs (`runs/NNNNNN.json` of kind `run`), oldest first."""
    fs, target = hadoop_path(spark, f"{store}/runs")
    names = [st.getPath().getName() for st in fs.listStatus(target)] if fs.exists(target) else []
    records = [json.loads(read_small(spark, f"{store}/runs/{n}")) for n in names if n.endswith(".json")]
    return sorted({r["snapshot"] for r in records if r.get("kind") == "run" and r.get("snapshot")})


def store_views(spark, store: str, exposure_sql: str) -> list[str]:
    """The views the series read, `<result>_por_retrato`: the exposure query over each snapshot's
    company tables, and the store's tables of the results committed with each snapshot."""
    from functools import reduce

    from pyspark.sql import functions as F

    snapshots = store_snapshots(spark, store)
    company = {}
    for t in SNAPSHOT_TABLES:
        company[t] = read_delta(spark, f"{store}/{t}")
        if company[t] is None:
            raise SystemExit(f"{store}/{t} is no Delta table: is {store} a fiscal-report store?")
        company[t].cache()
    # Over one snapshot the query runs over the portfolio alone, as the monthly run does: no
    # inscription was counted before it (what a run writes as `inscricoes_da_carteira`).
    spark.createDataFrame([], "categoria string, numero_inscricao string").createOrReplaceTempView(
        "inscricoes_da_carteira"
    )
    stacked = []
    for snapshot in snapshots:
        for t, df in company.items():
            df.where(F.col("snapshot") == snapshot).drop("snapshot").createOrReplaceTempView(t)
        one = spark.sql(exposure_sql)
        stacked.append(one.select(F.lit(snapshot).alias("snapshot"), *one.columns).cache())
        stacked[-1].count()  # computed now, over this snapshot's views
    reduce(lambda a, b: a.unionByName(b), stacked).createOrReplaceTempView(EXPOSURE + BY_SNAPSHOT)
    for t in STORED_RESULTS:
        df = read_delta(spark, f"{store}/{t}")
        if df is None:
            raise SystemExit(f"{store}/{t} is no Delta table: is {store} a fiscal-report store?")
        df.where(F.col("snapshot").isin(snapshots)).createOrReplaceTempView(t + BY_SNAPSHOT)
    national_view(spark, store, snapshots).createOrReplaceTempView(NATIONAL + BY_SNAPSHOT)
    return snapshots


def national_view(spark, store: str, snapshots: list[str]):
    """The store's national cells of `snapshots`, each with `snapshot_anterior`: the previous
    snapshot holding cells (a snapshot of a run over the service holds none)."""
    from pyspark.sql import functions as F

    df = read_delta(spark, f"{store}/{NATIONAL}")
    if df is None:
        df = spark.createDataFrame([], NATIONAL_COLUMNS)
    df = df.where(F.col("snapshot").isin(snapshots))
    held = sorted(r["snapshot"] for r in df.select("snapshot").distinct().collect())
    pairs = spark.createDataFrame(
        list(zip(held, [None] + held[:-1])), "snapshot string, snapshot_anterior string"
    )
    return df.join(pairs, "snapshot", "left")


def main_run(spark, args) -> int:
    run = args.run.rstrip("/")
    out = (args.out or f"{run}/aggregates_spark").rstrip("/")
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
    written = run_files(spark, queries, out)
    # Last: its presence says every result it names is complete.
    summary = {"run": run, "run_id": manifest.get("run_id"), "results": written}
    write_text(spark, f"{out}/_queries.json", json.dumps(summary, indent=2) + "\n")
    return 0


def main_store(spark, args) -> int:
    store, folder = args.store.rstrip("/"), args.queries.rstrip("/")
    monthly = dict(query_files(spark, folder))
    exposure = [text for f, text in monthly.items() if name_of(f) == EXPOSURE]
    series = query_files(spark, f"{folder}/historico")
    if not exposure or not series:
        print(f"{folder} needs the exposure query and historico/*.sql: pass --queries", file=sys.stderr)
        return 2
    snapshots = store_views(spark, store, exposure[0])
    written = run_files(spark, series, args.out.rstrip("/"))
    summary = {"store": store, "snapshots": snapshots, "results": written}
    write_text(spark, f"{args.out.rstrip('/')}/_queries.json", json.dumps(summary, indent=2) + "\n")
    return 0


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    spark = session()
    try:
        return main_store(spark, args) if args.store else main_run(spark, args)
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
