#!/usr/bin/env bash
# What RFB's tax regime files at their published size (about 10.6 million rows, written by
# bench/pad_regime.py: the portfolio's companies' years and filler) add to the real-size
# open-data run (issue #84: under 5 %): the run over bench/open_data.sh's folder with the
# full-size lists, with and without regime_tributario/ in it, RUNS rounds, each round's pair
# back to back, the order turned about each round. Appends its table to
# bench/results/open-data.md.
#
# With PEP=1 the run without also goes without the PEP zip (listas/*_PEP.zip): the cost of
# both sources issue #84 adds, side by side with the run without either.
#
#   bench/regime_cost.sh      # after bench/open_data.sh (its DATA); RUNS=4 by default
#   PEP=1 bench/regime_cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
SCALE=${SCALE:-832}
PORTFOLIO=${PORTFOLIO:-50000}
RUNS=${RUNS:-4}
PEP=${PEP:-0}
DATA=${DATA:-$REPO/bench/data}
LISTED="$DATA/open-data-scale-$SCALE-listed"
RELEASE="$DATA/open-data-scale-$SCALE"
[ -f "$LISTED/.complete" ] || { echo "no $LISTED: run bench/open_data.sh first" >&2; exit 2; }
cargo build --release --quiet
BIN="$(realpath "${CARGO_TARGET_DIR:-target}")/release/fiscal-report"
tmp=$(mktemp -d)
aside="$DATA/regime-aside"
trap 'rm -rf "$tmp"; [ -d "$aside/regime_tributario" ] && mv "$aside/regime_tributario" "$LISTED/"; mv -f "$aside"/*_PEP.zip "$LISTED/listas/" 2>/dev/null || true; rm -rf "$aside"' EXIT
bench/portfolio_of.sh "$RELEASE" $(( SCALE * 5000 )) "$PORTFOLIO" >"$tmp/portfolio.txt"
[ -d "$LISTED/regime_tributario" ] || python3 bench/pad_regime.py "$LISTED" "$tmp/portfolio.txt"
mkdir -p "$aside"
cd "$tmp"
run() { # name
  /usr/bin/time -f "%e %M" -o "$tmp/$1-$i" "$BIN" --quiet run --open-data "$LISTED" \
    --cnpjs "$tmp/portfolio.txt" --out "$tmp/out" >/dev/null 2>"$tmp/run.log" || { cat "$tmp/run.log"; exit 1; }
  [ "$1" = with ] && cp "$tmp/out/manifest.json" "$tmp/manifest-with.json"
  rm -rf "$tmp/out"
}
without() {
  mv "$LISTED/regime_tributario" "$aside/"
  [ "$PEP" = 1 ] && mv "$LISTED"/listas/*_PEP.zip "$aside/"
  run without
  mv "$aside/regime_tributario" "$LISTED/"
  [ "$PEP" = 1 ] && mv "$aside"/*_PEP.zip "$LISTED/listas/"
  return 0
}
for i in $(seq "$RUNS"); do
  if [ $(( i % 2 )) -eq 1 ]; then run with; without; else without; run with; fi
done
cd "$REPO"
python3 - "$tmp" "$RUNS" "$(du -cm "$LISTED"/regime_tributario/*.zip | tail -1 | cut -f1)" "$PEP" "$(git rev-parse --short HEAD)" <<'PY'
import datetime, json, statistics, sys
tmp, runs, mib, pep, commit = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1", sys.argv[5]
what = "the regime files and the PEP register" if pep else "the regime files"
aside = "`regime_tributario/` and the PEP zip" if pep else "`regime_tributario/`"

def t(name):
    return [tuple(map(float, open(f"{tmp}/{name}-{i}").read().split())) for i in range(1, runs + 1)]
w, wo = t("with"), t("without")
m = json.load(open(f"{tmp}/manifest-with.json"))
files = m["open_data"].get("regime", [])
read, kept = sum(f["rows_read"] for f in files), sum(f["rows_kept"] for f in files)
cost = [a[0] / b[0] - 1 for a, b in zip(w, wo)]
med = statistics.median
row = lambda name, xs: f"| {name} | {med(x[0] for x in xs):.1f} s | {min(x[0] for x in xs):.1f}–{max(x[0] for x in xs):.1f} s | {med(x[1] for x in xs) / 1024:.0f} MiB |"
lines = [
    "", f"## {what[0].upper() + what[1:]} at real size ({datetime.date.today()}, {commit})", "",
    f"The 50,000-company run over the full-size lists, with and without {aside} ({mib} MiB of regime zips, {read:,} rows read, {kept:,} kept), {runs} rounds, each pair back to back, the order turned about each round:", "",
    "| run | median | range | peak |", "|---|---|---|---|",
    row(f"with {what}", w), row("without", wo), "",
    f"The cost, round by round: {', '.join(f'{c * 100:+.1f} %' for c in cost)} (median {med(cost) * 100:+.1f} %). Target (issue #84): under 5 %.", "",
    f"Reproduce: `{'PEP=1 ' if pep else ''}RUNS={runs} bench/regime_cost.sh` (after `bench/open_data.sh`; SCALE=832, PORTFOLIO=50000).",
]
open("bench/results/open-data.md", "a").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
