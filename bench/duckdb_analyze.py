"""DuckDB side of bench/analyze_vs_duckdb.sh: the same .sql files over the same Parquet.

    python3 bench/duckdb_analyze.py DIR QUERIES

Each query's result is materialised as a table named after the file (NN_name.sql -> name), as
Polars collects each result and later queries may read it.
"""
import pathlib
import re
import sys
import time

import duckdb

# The partition keys read from the paths and the read_parquet call the interop checks use.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "interop"))
from check_engines import raw_tables, read_parquet_sql  # noqa: E402


def main() -> None:
    data, queries = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    con = duckdb.connect()
    keys = raw_tables(data)["creditos_ativos"]
    t = time.perf_counter()
    # A view over the files, as fiscal-report's queries scan the table on disk each time they
    # read it (an earlier version of this bench copied every row into DuckDB's memory first,
    # work and memory fiscal-report does not spend).
    con.execute(f"CREATE VIEW creditos_ativos AS SELECT * FROM {read_parquet_sql(data, 'creditos_ativos', keys)}")
    rows = con.execute("SELECT COUNT(*) FROM creditos_ativos").fetchone()[0]
    read = time.perf_counter() - t
    t = time.perf_counter()
    files = sorted(queries.glob("*.sql"))
    for f in files:
        name = re.sub(r"^[0-9]+_", "", f.stem)
        con.execute(f'CREATE TABLE "{name}" AS {f.read_text()}')
    print(f"rows {rows} read_seconds {read:.3f} queries {len(files)} query_seconds {time.perf_counter() - t:.3f}")


if __name__ == "__main__":
    main()
