#!/usr/bin/env bash
# Analyze over 5M+ credit rows in Parquet: fiscal-report's Polars SQL next to DuckDB running the
# same .sql files over the same files. Time and peak memory of each (median of RUNS separate
# processes, measured by /usr/bin/time) and their ratio, plus the transform throughput, go to
# bench/results/analyze-vs-duckdb.md; then bench/export_layout.py measures other cuts of the same
# files for bench/results/export-layout.md.
#
#   bench/analyze_vs_duckdb.sh            # COPIES=2 (~6.8M rows) RUNS=3
# Needs: python3 with duckdb (tests/requirements.txt), /usr/bin/time (Debian package `time`).
set -euo pipefail
cd "$(dirname "$0")/.."
COPIES=${COPIES:-2}
RUNS=${RUNS:-3}
cargo build --release --quiet --example analyze_bench
EX="${CARGO_TARGET_DIR:-target}/release/examples/analyze_bench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/q"
# The credit queries (01-13); the portfolio ones need a portfolio, not volume.
for f in queries/0*.sql queries/1[0-3]_*.sql; do cp "$f" "$tmp/q/"; done
gen=$("$EX" gen "$tmp/data" "$COPIES")
echo "$gen"
rows=$(echo "$gen" | awk '/^transform_rows /{print $2}')
tput=$(echo "$gen" | awk '/^transform_rows_per_second /{print $2}')

measure() { # prints "wall_seconds max_rss_kib" for one run of the command
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >"$tmp/out" 2>/dev/null
  cat "$tmp/time"
}
median_col() { sort -g -k"$1" | awk -v c="$1" '{a[NR]=$c} END {print a[int((NR+1)/2)]}'; }
spread_col() { # "min-max" of column $1; $2 divides (KiB -> MiB)
  sort -g -k"$1" | awk -v c="$1" -v d="${2:-1}" '{a[NR]=$c} END {printf "%g-%g", int(a[1]/d*100)/100, int(a[NR]/d*100)/100}'; }

polars=$(for _ in $(seq "$RUNS"); do measure "$EX" analyze "$tmp/data" "$tmp/q"; done)
duck=$(for _ in $(seq "$RUNS"); do measure python3 bench/duckdb_analyze.py "$tmp/data" "$tmp/q"; done)
pw=$(echo "$polars" | median_col 1); pm=$(echo "$polars" | median_col 2)
dw=$(echo "$duck" | median_col 1); dm=$(echo "$duck" | median_col 2)
pws=$(echo "$polars" | spread_col 1); pms=$(echo "$polars" | spread_col 2 1024)
dws=$(echo "$duck" | spread_col 1); dms=$(echo "$duck" | spread_col 2 1024)

out=bench/results/analyze-vs-duckdb.md
{
  echo "# Analyze: Polars SQL (fiscal-report) next to DuckDB"
  echo
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores; ${rows} credit rows in hive-partitioned Parquet;"
  echo "the $(ls "$tmp/q" | wc -l) credit queries of queries/ run unchanged by both; whole process, median of ${RUNS} runs."
  echo
  echo "| engine | wall seconds | (spread) | peak memory (MiB) | (spread) |"
  echo "|---|--:|--:|--:|--:|"
  echo "| fiscal-report (Polars $(grep -m1 -o 'polars = { version = "=[0-9.]*' Cargo.toml | grep -o '[0-9.]*$')) | $pw | $pws | $((pm / 1024)) | $pms |"
  echo "| DuckDB $(python3 -c 'import duckdb; print(duckdb.__version__)') (Python) | $dw | $dws | $((dm / 1024)) | $dms |"
  echo "| ratio fiscal-report / DuckDB | $(python3 -c "print(f'{$pw / $dw:.2f}')") | | $(python3 -c "print(f'{$pm / $dm:.2f}')") | |"
  echo
  echo "Transform (staged text -> typed frame, exact decimals and dates): ${tput} records/s."
  echo
  echo "Reproduce: \`bench/analyze_vs_duckdb.sh\` (COPIES, RUNS override the defaults)."
} >"$out"
cat "$out"

# The same rows cut into files other ways, read by DuckDB, pyarrow, Polars and (when pyspark is
# installed) Spark: why the export cuts creditos_ativos as it does. LAYOUT=0 skips it.
[ "${LAYOUT:-1}" = 0 ] && exit 0
table=$(python3 bench/export_layout.py "$tmp/data/creditos_ativos" "$RUNS" 2>"$tmp/err") || { cat "$tmp/err" >&2; exit 1; }
spark=$(python3 -c 'import pyspark; print(f"PySpark {pyspark.__version__} (local[2])")' 2>/dev/null || echo "no Spark (pyspark not installed)")
layout=bench/results/export-layout.md
history=$(sed -n '/^## /,$p' "$layout" 2>/dev/null || true)
{
  echo "# Export layout: how creditos_ativos is cut into files"
  echo
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores with DuckDB $(python3 -c 'import duckdb; print(duckdb.__version__)'),"
  echo "pyarrow $(python3 -c 'import pyarrow; print(pyarrow.__version__)'), Polars $(python3 -c 'import polars; print(polars.__version__)') (Python) and ${spark}. Each cell: the whole"
  echo "table grouped by state / one month grouped by state, in one warm process."
  echo
  echo "$table"
  echo
  echo "Reproduce: \`bench/analyze_vs_duckdb.sh\` (writes this file too; COPIES, RUNS)."
  echo
  echo "$history"
} >"$layout"
cat "$layout"
