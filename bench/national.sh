#!/usr/bin/env bash
# What summing the whole PGFN release (the national picture, extract/open_data/national.rs)
# adds to a run over the files: the same `run --open-data` over the same release by two builds,
# BEFORE (a build without the national sum) and AFTER (this checkout's release build), in turn,
# RUNS times each, wall seconds and peak memory by /usr/bin/time. Prints the median and range of
# each and of the ratio AFTER/BEFORE pair by pair, and appends them to bench/results/national.md.
#
#   BEFORE=/path/to/old/fiscal-report bench/national.sh    # SCALE=208 PORTFOLIO=5000 RUNS=5
# SCALE x 5,000 companies (832 is the real size, 28 M inscriptions; 208 a quarter of it).
# Needs: unzip, /usr/bin/time (Debian `unzip`, `time`), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${SCALE:-208}
PORTFOLIO=${PORTFOLIO:-5000}
RUNS=${RUNS:-5}
DATA=${DATA:-$(pwd)/bench/data}
: "${BEFORE:?give BEFORE=path to a fiscal-report built without the national sum}"
cargo build --release --quiet
AFTER="$(realpath "${CARGO_TARGET_DIR:-target}")/release/fiscal-report"
RELEASE="$DATA/national-scale-$SCALE"
if [ ! -f "$RELEASE/.complete" ]; then
  rm -rf "$RELEASE"
  mkdir -p "$DATA"
  "$AFTER" serve --scale "$SCALE" --write-open-data "$RELEASE" >/dev/null
  touch "$RELEASE/.complete"
fi
# The portfolio: PORTFOLIO head offices spread evenly, as bench/open_data.sh picks them.
bench/portfolio_of.sh "$RELEASE" $(( SCALE * 5000 )) "$PORTFOLIO" >"$DATA/national-portfolio-$SCALE.txt"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# Each build runs in a folder of its own, so each reads its built-in queries/ and templates/
# (a checkout's queries/ would hand the older build a query it cannot run).
one() { # label binary round
  rm -rf "$WORK/out"
  (cd "$WORK" && /usr/bin/time -f "%e %M" -o "$WORK/$1-$3" "$2" --quiet run --open-data "$RELEASE" \
    --cnpjs "$DATA/national-portfolio-$SCALE.txt" --out "$WORK/out" >/dev/null)
}
one after "$AFTER" warmup
for i in $(seq 1 "$RUNS"); do
  one before "$BEFORE" "$i"
  one after "$AFTER" "$i"
done
python3 - "$WORK" "$RUNS" "$SCALE" "$PORTFOLIO" <<'PY'
import statistics, sys, pathlib, datetime, subprocess
work, runs, scale, portfolio = pathlib.Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
read = lambda label: [tuple(map(float, (work / f"{label}-{i}").read_text().split())) for i in range(1, runs + 1)]
before, after = read("before"), read("after")
def span(xs, fmt):
    return f"{fmt(statistics.median(xs))} ({fmt(min(xs))}-{fmt(max(xs))})"
sec = lambda v: f"{v:.2f} s"
mib = lambda v: f"{v / 1024:.0f} MiB"
ratio = lambda v: f"{v:.3f}"
rows = [
    ("wall, before", span([b[0] for b in before], sec)),
    ("wall, after", span([a[0] for a in after], sec)),
    ("wall ratio after/before, pair by pair", span([a[0] / b[0] for a, b in zip(after, before)], ratio)),
    ("peak, before", span([b[1] for b in before], mib)),
    ("peak, after", span([a[1] for a in after], mib)),
]
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
text = [f"## {datetime.date.today()} at {commit}: scale {scale}, {portfolio} companies, {runs} rounds", ""]
text += ["| figure | median (min-max) |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows] + [""]
print("\n".join(text))
out = pathlib.Path("bench/results/national.md")
if not out.exists():
    out.write_text("# The national picture's cost\n\nWritten by `bench/national.sh` (its header says how): the same run over the\nfiles by a build without the national sum and by this one, in turn.\n\n")
with out.open("a") as f:
    f.write("\n".join(text) + "\n")
PY
