"""Reads a fiscal-report store with the `deltalake` package and Polars and compares it with the
Parquet of full runs (no store) at the same moments.

usage: check_store.py STORE (VERSION SNAPSHOT FULL_RUN)...

VERSION is a Delta version of every table, or `latest`. For each triple and each table: the
store at VERSION, snapshot SNAPSHOT (company tables) or the
full run's months (credits), read by the deltalake package and by Polars, must equal FULL_RUN's
Parquet record for record. Prints one line per check and `N checks, F failed` last.
"""
import json
import sys
from pathlib import Path

import polars as pl
from deltalake import DeltaTable

store, rest = sys.argv[1], sys.argv[2:]
triples = [(rest[i], rest[i + 1], rest[i + 2]) for i in range(0, len(rest) - 2, 3)]
COMPANY = ["empresas", "dividas_pgfn", "parcelamentos_rfb", "transacoes_rfb"]
checks = failed = 0


def canonical(df: pl.DataFrame) -> pl.DataFrame:
    df = df.select(sorted(df.columns))
    return df.sort(df.columns, nulls_last=True)


def compare(what: str, got: pl.DataFrame, want: pl.DataFrame) -> None:
    global checks, failed
    checks += 1
    problem = None
    if sorted(got.columns) != sorted(want.columns):
        problem = f"columns differ: {sorted(set(got.columns) ^ set(want.columns))}"
    else:
        g, w = canonical(got), canonical(want.cast(dict(got.schema)))
        if g.height != w.height:
            problem = f"{g.height} rows, want {w.height}"
        elif not g.equals(w):
            problem = "values differ"
    if problem:
        failed += 1
    print(f"{what}: {'FAILED ' + problem if problem else 'ok'} ({want.height} rows)")


def this_moment(df: pl.DataFrame, table: str, snapshot: str, months: list) -> pl.DataFrame:
    """The rows of one snapshot (company tables) or of the run's months (credits)."""
    if table == "creditos_ativos":
        return df.filter(pl.col("ano_mes").is_in(months))
    return df.filter(pl.col("snapshot") == snapshot).drop("snapshot")


for version, snapshot, full in triples:
    months = json.loads((Path(full) / "manifest.json").read_text())["plan"]["months"]
    for table in ["creditos_ativos"] + COMPANY:
        want = pl.read_parquet(Path(full) / table, hive_partitioning=True)
        path = str(Path(store) / table)
        v = None if version == "latest" else int(version)
        got = pl.from_arrow(DeltaTable(path, version=v).to_pyarrow_table())
        compare(f"deltalake {table} v{version}", this_moment(got, table, snapshot, months), want)
        # Polars' own Delta reader, on the same version.
        got_pl = pl.read_delta(path, version=v)
        compare(f"polars {table} v{version}", this_moment(got_pl, table, snapshot, months), want)

print(f"{checks} checks, {failed} failed")
sys.exit(1 if failed else 0)
