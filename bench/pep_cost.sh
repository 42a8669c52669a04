#!/usr/bin/env bash
# What CGU's PEP register at its real size (about 130 k rows, grown by bench/pad_lists.py from
# the real sample's offices and organs) adds to the real-size open-data run (issue #84: under
# 5 %): the run over bench/open_data.sh's folder with the full-size lists, with and without
# the PEP zip in it, RUNS rounds turn about, each round's pair back to back. The matches do not
# change (no padded row's middle digits are a partner's), only the reading, typing and SQL.
# Appends its table to bench/results/open-data.md.
#
#   bench/pep_cost.sh      # after bench/open_data.sh (its DATA); RUNS=3 by default
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
SCALE=${SCALE:-832}
PORTFOLIO=${PORTFOLIO:-50000}
RUNS=${RUNS:-3}
DATA=${DATA:-$REPO/bench/data}
LISTED="$DATA/open-data-scale-$SCALE-listed"
RELEASE="$DATA/open-data-scale-$SCALE"
PEP=$(ls "$LISTED"/listas/*_PEP.zip 2>/dev/null | head -1)
[ -n "$PEP" ] || { echo "no PEP zip in $LISTED/listas: run bench/open_data.sh (pad_lists.py grows it)" >&2; exit 2; }
cargo build --release --quiet
BIN="$(realpath "${CARGO_TARGET_DIR:-target}")/release/fiscal-report"
tmp=$(mktemp -d)
aside="$DATA/pep-aside"
mkdir -p "$aside"
trap 'mv -f "$aside"/*_PEP.zip "$LISTED/listas/" 2>/dev/null || true; rm -rf "$tmp" "$aside"' EXIT
bench/portfolio_of.sh "$RELEASE" $(( SCALE * 5000 )) "$PORTFOLIO" >"$tmp/portfolio.txt"
cd "$tmp"
run() { # name
  /usr/bin/time -f "%e %M" -o "$tmp/$1-$i" "$BIN" --quiet run --open-data "$LISTED" \
    --cnpjs "$tmp/portfolio.txt" --out "$tmp/out" >/dev/null 2>"$tmp/run.log" || { cat "$tmp/run.log"; exit 1; }
  rm -rf "$tmp/out"
}
for i in $(seq "$RUNS"); do
  run with
  mv "$PEP" "$aside/"
  run without
  mv "$aside"/*_PEP.zip "$LISTED/listas/"
done
cd "$REPO"
python3 - "$tmp" "$RUNS" "$(du -m "$PEP" | cut -f1)" <<'PY'
import datetime, statistics, sys
tmp, runs, mib = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def t(name):
    return [tuple(map(float, open(f"{tmp}/{name}-{i}").read().split())) for i in range(1, runs + 1)]
w, wo = t("with"), t("without")
cost = [a[0] / b[0] - 1 for a, b in zip(w, wo)]
med = statistics.median
row = lambda name, xs: f"| {name} | {med(x[0] for x in xs):.1f} s | {min(x[0] for x in xs):.1f}–{max(x[0] for x in xs):.1f} s | {med(x[1] for x in xs) / 1024:.0f} MiB |"
lines = [
    "", f"## CGU's PEP register at real size ({datetime.date.today()})", "",
    f"The 50,000-company run over the full-size lists, with and without a 130 k-row PEP zip ({mib} MiB), {runs} rounds, each pair back to back:", "",
    "| run | median | range | peak |", "|---|---|---|---|",
    row("with PEP", w), row("without PEP", wo), "",
    f"PEP's cost, round by round: {', '.join(f'{c * 100:+.1f} %' for c in cost)} (median {med(cost) * 100:+.1f} %). Target (issue #84): under 5 %.", "",
    "Reproduce: `bench/pep_cost.sh` (after `bench/open_data.sh`; SCALE=832, PORTFOLIO=50000).",
]
open("bench/results/open-data.md", "a").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
