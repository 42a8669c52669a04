"""Reads a fiscal-report store with the `deltalake` package and Polars and compares it with the
Parquet of full runs (no store) at the same moments.

usage: check_store.py STORE VERSION_M SNAPSHOT_M FULL_RUN_M VERSION_M1 SNAPSHOT_M1 FULL_RUN_M1

For each table: the store at VERSION_M, snapshot SNAPSHOT_M (company tables) or the run's months
(credits), must equal FULL_RUN_M's Parquet record for record; the same at VERSION_M1. Prints one
line per check and `N checks, F failed` last.
"""
import json
import sys
from pathlib import Path

import polars as pl
from deltalake import DeltaTable

store, v_m, s_m, full_m, v_m1, s_m1, full_m1 = sys.argv[1:8]
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


for version, snapshot, full in [(int(v_m), s_m, full_m), (int(v_m1), s_m1, full_m1)]:
    months = json.loads((Path(full) / "manifest.json").read_text())["plan"]["months"]
    for table in ["creditos_ativos"] + COMPANY:
        want = pl.read_parquet(Path(full) / table, hive_partitioning=True)
        dt = DeltaTable(str(Path(store) / table), version=version)
        got = pl.from_arrow(dt.to_pyarrow_table())
        if table == "creditos_ativos":
            got = got.filter(pl.col("ano_mes").is_in(months))
        else:
            got = got.filter(pl.col("snapshot") == snapshot).drop("snapshot")
        compare(f"deltalake {table} v{version}", got, want)
        # Polars' own Delta reader, on the same version.
        got_pl = pl.read_delta(str(Path(store) / table), version=version)
        if table == "creditos_ativos":
            got_pl = got_pl.filter(pl.col("ano_mes").is_in(months))
        else:
            got_pl = got_pl.filter(pl.col("snapshot") == snapshot).drop("snapshot")
        compare(f"polars {table} v{version}", got_pl, want)

print(f"{checks} checks, {failed} failed")
sys.exit(1 if failed else 0)
