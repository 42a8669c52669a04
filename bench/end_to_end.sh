#!/usr/bin/env bash
# The whole job against its physical floor. With L seconds of latency and C requests in flight,
# R requests cannot take less than R x L / C; everything else a run does (typing, the queries,
# the Parquet, the report) is time on top of that floor unless it overlaps the fetch.
#
# The registry runs as a separate process answering after LAT ms (a remote service); `run`
# fetches MONTHS months x 27 states of credits and a portfolio of COMPANIES companies with
# CONCURRENCY requests in flight. Each run's request count comes from its own manifest, and its
# stages' times too (fetch, then transform, analyze, export, report). Writes
# bench/results/end-to-end.md.
#
#   bench/end_to_end.sh       # COMPANIES=150 MONTHS=15 LAT=20 CONCURRENCY=16 RUNS=3 by default
#   COMPARE_BIN=/path/to/other/fiscal-report bench/end_to_end.sh
#                             # paired: each round runs this build, then that one, against the
#                             # same registry; prints both medians and their ratio, writes nothing
# Needs: /usr/bin/time (Debian package `time`), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
COMPANIES=${COMPANIES:-150}
LAT=${LAT:-20}
CONCURRENCY=${CONCURRENCY:-16}
RUNS=${RUNS:-3}
FIRST=${FIRST:-202507}
KEY=bench-key
cargo build --release --quiet
BIN="$(realpath "${CARGO_TARGET_DIR:-target}")/release/fiscal-report"
tmp=$(mktemp -d)
trap 'kill $SERVE_PID 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$BIN" serve --dump-portfolio "$tmp/portfolio.csv" --portfolio-size "$COMPANIES" 2>/dev/null
REGISTRY_API_KEY=$KEY "$BIN" serve --addr 127.0.0.1:0 --latency-ms "$LAT" >"$tmp/serve.out" 2>/dev/null &
SERVE_PID=$!
for _ in $(seq 200); do grep -q listening "$tmp/serve.out" 2>/dev/null && break; sleep 0.1; done
URL=$(sed -n 's/^listening on //p' "$tmp/serve.out")
export REGISTRY_API_KEY=$KEY
# From the temporary folder: the run uses the queries and templates built into the binary.
cd "$tmp"
one_run() { # BINARY NAME
  /usr/bin/time -f "%e %M" -o "$tmp/time-$2" "$1" --quiet run --base-url "$URL" --uf all \
    --ano-mes "$FIRST:202609" --cnpjs "$tmp/portfolio.csv" --concurrency "$CONCURRENCY" \
    --out "$tmp/out-$2" >/dev/null 2>&1
}
for i in $(seq "$RUNS"); do
  one_run "$BIN" "$i"
  if [ -n "${COMPARE_BIN:-}" ]; then one_run "$COMPARE_BIN" "other-$i"; fi
done
cd "$REPO"
if [ -n "${COMPARE_BIN:-}" ]; then
  python3 - "$tmp" "$RUNS" <<'PY'
import json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
def rows(prefix):
    out = []
    for i in range(1, runs + 1):
        wall, peak = open(f"{tmp}/time-{prefix}{i}").read().split()
        m = json.load(open(f"{tmp}/out-{prefix}{i}/manifest.json"))
        out.append((float(wall), int(peak) // 1024, m["fetch"]["wall_seconds"]))
    return out
ours, other = rows(""), rows("other-")
print("| build | whole run: median (min-max) | fetch median | peak MiB median |")
print("|---|--:|--:|--:|")
for name, r in [("this build", ours), ("COMPARE_BIN", other)]:
    w = [x[0] for x in r]
    print(f"| {name} | {statistics.median(w):.2f} s ({min(w):.2f}-{max(w):.2f}) | "
          f"{statistics.median(x[2] for x in r):.2f} s | {statistics.median(x[1] for x in r)} |")
ratios = sorted(a[0] / b[0] for a, b in zip(ours, other))
print(f"\nthis / COMPARE_BIN, round by round: median {statistics.median(ratios):.3f} "
      f"({ratios[0]:.3f}-{ratios[-1]:.3f}) over {runs} rounds")
PY
  exit 0
fi
python3 - "$tmp" "$RUNS" "$LAT" "$CONCURRENCY" "$COMPANIES" "$FIRST" <<'PY'
import json, statistics, subprocess, sys, datetime, os
tmp, runs, lat, conc, companies, first = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
rows = []
for i in range(1, runs + 1):
    wall, peak = open(f"{tmp}/time-{i}").read().split()
    m = json.load(open(f"{tmp}/out-{i}/manifest.json"))
    req = m["fetch"]["requests"]["requests"]
    stages = {s["stage"]: s["seconds"] for s in m.get("stages", [])}
    rows.append(dict(wall=float(wall), peak=int(peak) // 1024, req=req, fetch=m["fetch"]["wall_seconds"],
                     records=sum(m["fetch"]["records"].values()), **stages))
med = lambda k: statistics.median(r.get(k, 0.0) for r in rows)
req = rows[0]["req"]
floor = req * lat / 1000 / conc
names = ["transform", "analyze", "export", "report"]
after = sum(med(k) for k in names)
lines = [
    "# End to end: the whole run against its floor", "",
    f"Measured {datetime.date.today()} on {os.cpu_count()} cores (release build): `run` against the embedded",
    f"registry as a separate process answering after {lat:.0f} ms, {conc} requests in flight, 27 states x",
    f"{first}:202609 of credits and {companies} companies; median of {runs} runs.", "",
    "| | value |", "|---|--:|",
    f"| requests R | {req:,} |",
    f"| records | {rows[0]['records']:,} |",
    f"| floor R x L / C | {floor:.2f} s |",
    f"| fetch | {med('fetch'):.2f} s ({med('fetch') / floor:.2f} x floor) |",
]
lines += [f"| {k} (after the fetch) | {med(k):.2f} s |" for k in names]
lines += [
    f"| **whole run** | **{med('wall'):.2f} s ({med('wall') / floor:.2f} x floor)** |",
    f"| whole run, fastest and slowest of the {runs} | {min(r['wall'] for r in rows):.2f} s ({min(r['wall'] for r in rows) / floor:.2f} x), {max(r['wall'] for r in rows):.2f} s ({max(r['wall'] for r in rows) / floor:.2f} x) |",
    f"| peak memory | {statistics.median(r['peak'] for r in rows)} MiB |", "",
    f"Target (issue: overlapped stages): whole run <= 1.15 x floor = {1.15 * floor:.2f} s.",
    "", "Reproduce: `bench/end_to_end.sh` (COMPANIES, MONTHS via FIRST, LAT, CONCURRENCY, RUNS).", "",
]
open("bench/results/end-to-end.md", "w").write("\n".join(lines))
print("\n".join(lines))
PY
