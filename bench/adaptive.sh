#!/usr/bin/env bash
# The fetch finding the service's capacity by itself. A grid of services (`serve` as a separate
# process): latency 5, 50, 200 ms x rate limit none, 100/s, 1,000/s x capacity unlimited and 32
# (`--capacity 32`: 32 requests served at once, the others queue). In each cell `run` fetches
# 27 states x one month of credits and a portfolio of COMPANIES companies, with no flag (ours:
# the adaptive limit under the default ceiling of 64) and, side by side in the same cell, the
# reference: REF_BIN with `--concurrency 16` (default: this binary with `--concurrency 16`; to
# compare with the fixed 16 of before the adaptive limit, build commit b4b4a92 and give its
# binary as REF_BIN).
#
# Floor of a cell: the larger of requests / rate limit and requests x latency / capacity, an
# unlimited capacity counting as the ceiling (64). Reported: the fetch stage and the whole run
# against it, and the share of requests refused (429). Median of RUNS runs, with the spread.
# Before the grid, the CPU floor: the same run against a service with no latency and no limit
# (at least 3 runs), what this machine's own work takes; each cell is also shown against the
# larger of its floor and that one.
# Writes bench/results/adaptive.md.
#
#   bench/adaptive.sh                      # COMPANIES=300 RUNS=1
#   REF_BIN=/tmp/fiscal-report-ref RUNS=3 bench/adaptive.sh
# Needs: /usr/bin/time (Debian package `time`), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
COMPANIES=${COMPANIES:-300}
RUNS=${RUNS:-1}
LATS=${LATS:-"5 50 200"}
RATES=${RATES:-"none 100 1000"}
CAPS=${CAPS:-"none 32"}
KEY=bench-key
cargo build --release --quiet
BIN="$(realpath "${CARGO_TARGET_DIR:-target}")/release/fiscal-report"
REF=${REF_BIN:-$BIN}
tmp=$(mktemp -d)
SERVE_PID=
trap 'kill $SERVE_PID 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$BIN" serve --dump-portfolio "$tmp/portfolio.csv" --portfolio-size "$COMPANIES" 2>/dev/null
export REGISTRY_API_KEY=$KEY
cd "$tmp"
: >"$tmp/results.tsv"
# The CPU floor first: the same run against a service that answers at once with no limit, so
# what it takes is this machine's own work (client and service on the same cores).
cells=("0 none none")
for lat in $LATS; do for rate in $RATES; do for cap in $CAPS; do cells+=("$lat $rate $cap"); done; done; done
for cell in "${cells[@]}"; do
  read -r lat rate cap <<<"$cell"
  args=()
  [ "$lat" != 0 ] && args+=(--latency-ms "$lat")
  [ "$rate" != none ] && args+=(--rate-limit "$rate")
  [ "$cap" != none ] && args+=(--capacity "$cap")
  "$BIN" serve --addr 127.0.0.1:0 "${args[@]}" >"$tmp/serve.out" 2>/dev/null &
  SERVE_PID=$!
  for _ in $(seq 300); do grep -q listening "$tmp/serve.out" 2>/dev/null && break; sleep 0.1; done
  URL=$(sed -n 's/^listening on //p' "$tmp/serve.out")
  # The CPU floor is a median of at least 3 runs: every cell is judged against it.
  runs=$RUNS
  [ "$lat" = 0 ] && [ "$runs" -lt 3 ] && runs=3
  for i in $(seq "$runs"); do
    for who in ours ref; do
      out="$tmp/out-$who"
      rm -rf "$out"
      if [ "$who" = ours ]; then cmd=("$BIN"); else cmd=("$REF" ); fi
      extra=()
      [ "$who" = ref ] && read -ra extra <<<"${REF_ARGS---concurrency 16}"
      /usr/bin/time -f "%e" -o "$tmp/time" "${cmd[@]}" --quiet run --base-url "$URL" --uf all \
        --ano-mes 202609 --cnpjs "$tmp/portfolio.csv" "${extra[@]}" --out "$out" >/dev/null 2>"$tmp/err" \
        || { echo "run failed in cell $lat $rate $cap ($who):"; tail -5 "$tmp/err"; exit 1; }
      python3 - "$out/manifest.json" "$(cat "$tmp/time")" "$lat" "$rate" "$cap" "$who" >>"$tmp/results.tsv" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
r = m["fetch"]["requests"]
print("\t".join([*sys.argv[3:7], str(r["requests"]), str(r["rate_limited"]), f"{m['fetch']['wall_seconds']:.3f}", sys.argv[2]]))
PY
    done
  done
  kill $SERVE_PID; wait $SERVE_PID 2>/dev/null || true; SERVE_PID=
done
cd "$REPO"
python3 - "$tmp/results.tsv" "$RUNS" "$COMPANIES" "${REF_BIN:-this binary}" "$*" <<'PY'
import collections, datetime, os, statistics, sys
path, runs, companies, ref, _ = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
CEILING = 64
cells = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(path):
    lat, rate, cap, who, req, refused, fetch, wall = line.split("\t")
    cells[(int(lat), rate, cap)][who].append((int(req), int(refused), float(fetch), float(wall)))

def floor(lat, rate, cap, req):
    by_rate = req / int(rate) if rate != "none" else 0.0
    by_capacity = req * lat / 1000 / (int(cap) if cap != "none" else CEILING)
    return max(by_rate, by_capacity)

def show(samples, fl, k):
    vals = sorted(s[k] for s in samples)
    med = statistics.median(vals)
    spread = f" ({vals[0] / fl:.2f}-{vals[-1] / fl:.2f})" if len(vals) > 1 else ""
    return f"{med:.2f} s = {med / fl:.2f} x{spread}"

def refused(samples):
    return max(s[1] / s[0] for s in samples) * 100

# The run against a service that answers at once: this machine's own work, client and service.
cpu = cells.pop((0, "none", "none"), None)
cpu_floor = statistics.median(s[3] for s in cpu["ours"]) if cpu else 0.0

rows, met, met_cpu, total = [], 0, 0, 0
for (lat, rate, cap), by in sorted(cells.items(), key=lambda c: (c[0][0], c[0][1] != "none", c[0][1], c[0][2])):
    req = statistics.median(s[0] for s in by["ours"])
    fl = floor(lat, rate, cap, req)
    whole = statistics.median(s[3] for s in by["ours"])
    few_refused = refused(by["ours"]) <= 1.0
    ours_ok = whole <= 1.15 * fl and few_refused
    both = max(fl, cpu_floor)
    ours_ok_cpu = whole <= 1.15 * both and few_refused
    met += ours_ok
    met_cpu += ours_ok_cpu
    total += 1
    rows.append(
        f"| {lat} ms | {rate if rate == 'none' else rate + '/s'} | {'unlimited' if cap == 'none' else cap} | {req:,.0f} | {fl:.2f} s "
        f"| {show(by['ours'], fl, 2)} | {show(by['ours'], fl, 3)} | {refused(by['ours']):.1f} % "
        f"| {show(by['ref'], fl, 2)} | {show(by['ref'], fl, 3)} | {refused(by['ref']):.1f} % | {'yes' if ours_ok else 'no'} "
        f"| {whole / both:.2f} x | {'yes' if ours_ok_cpu else 'no'} |"
    )
cpu_line = []
if cpu:
    walls = sorted(s[3] for s in cpu["ours"])
    fetches = sorted(s[2] for s in cpu["ours"])
    ref_walls = sorted(s[3] for s in cpu["ref"])
    cpu_line = [
        f"CPU floor: the same run against `serve` with no latency and no limit (this machine's own work, client and",
        f"service sharing its {os.cpu_count()} cores), median of {len(walls)}: ours whole run {cpu_floor:.2f} s ({walls[0]:.2f}-{walls[-1]:.2f}),",
        f"fetch {statistics.median(fetches):.2f} s; reference {statistics.median(ref_walls):.2f} s. A cell's floor below it cannot be met on this",
        "machine by this job; the last two columns judge each cell against the larger of the two.", "",
    ]
lines = [
    "# Adaptive fetch: each service against its floor", "",
    f"Measured {datetime.date.today()} on {os.cpu_count()} cores (release build): `run` over 27 states x 202609 of",
    f"credits and {companies} companies against `serve` in each setting; ours = no flag (adaptive, ceiling {CEILING}),",
    f"reference = {ref} with `--concurrency 16`, in the same cell one after the other; median of {runs} run(s),",
    "x = against the floor (fastest-slowest in brackets when RUNS > 1); refused = the largest share of 429s of the runs.", "",
    "Floor = max(requests / rate limit, requests x latency / capacity), an unlimited capacity counting as 64.", "",
    *cpu_line,
    "| latency | rate limit | capacity | requests | floor | ours: fetch | ours: whole run | ours: refused | ref: fetch | ref: whole run | ref: refused | ours <= 1.15 x and <= 1 % | ours: whole run / max(floor, CPU floor) | that <= 1.15 x and <= 1 % |",
    "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|--:|:-:|",
    *rows, "",
    f"Target (issue #35): every cell's whole run <= 1.15 x its floor with <= 1 % refused, no flag set: {met} of {total} cells"
    f" ({met_cpu} of {total} against the larger of the floor and the CPU floor).",
    "", "Reproduce: `REF_BIN=<binary of b4b4a92> RUNS=3 bench/adaptive.sh` (COMPANIES, LATS, RATES, CAPS).", "",
]
os.makedirs("bench/results", exist_ok=True)
open("bench/results/adaptive.md", "w").write("\n".join(lines))
print("\n".join(lines))
PY
