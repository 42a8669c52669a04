#!/usr/bin/env bash
# Incremental monthly runs on a store against full runs, side by side in one run: a portfolio
# of 2,000 companies of which 5% change between M (202608) and M+1 (202609), 12 months x 27
# states of credits, the registry as a separate process answering after LAT ms (a remote
# service). A store is filled by a full run at M; then, at M+1, hyperfine times
#   full:        `run` with no store (every month, every list of every company), and
#   incremental: `run --store` on a copy of the store at M (restored before each run).
# Requests come from each run's manifest. Writes bench/results/incremental.md.
#
#   bench/incremental.sh        # COMPANIES=2000 CHANGING=0.05 LAT=50 RUNS=3 by default
# Needs: hyperfine (Debian package `hyperfine`), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
COMPANIES=${COMPANIES:-2000}
CHANGING=${CHANGING:-0.05}
LAT=${LAT:-50}
RUNS=${RUNS:-3}
KEY=bench-key
cargo build --release --quiet
BIN="$(realpath "${CARGO_TARGET_DIR:-target}")/release/fiscal-report"
tmp=$(mktemp -d)
trap 'kill $SERVE_PID 2>/dev/null || true; rm -rf "$tmp"' EXIT
SERVE_PID=

serve() { # serve AS_OF: a registry at that month, its URL in $URL
  [ -n "$SERVE_PID" ] && { kill "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true; }
  REGISTRY_API_KEY=$KEY "$BIN" serve --addr 127.0.0.1:0 --as-of "$1" --latency-ms "$LAT" >"$tmp/serve.out" 2>/dev/null &
  SERVE_PID=$!
  for _ in $(seq 200); do grep -q listening "$tmp/serve.out" 2>/dev/null && break; sleep 0.1; done
  URL=$(sed -n 's/^listening on //p' "$tmp/serve.out")
}

"$BIN" serve --as-of 202609 --dump-portfolio "$tmp/portfolio.csv" --portfolio-size "$COMPANIES" \
  --portfolio-changing "$CHANGING" 2>/dev/null
export REGISTRY_API_KEY=$KEY
# From the temporary folder: the runs use the queries and templates built into the binary, not
# whatever a working copy's folders hold at the moment.
cd "$tmp"
common=(--quiet run --uf all --cnpjs "$tmp/portfolio.csv")

serve 202608
"$BIN" "${common[@]}" --base-url "$URL" --store "$tmp/store-m" --out "$tmp/out-m" >/dev/null 2>&1

serve 202609
hyperfine --runs "$RUNS" --style basic --export-json "$tmp/times.json" \
  --command-name full --prepare "rm -rf $tmp/out-full" \
  --command-name incremental --prepare "rm -rf $tmp/store $tmp/out-incremental && cp -r $tmp/store-m $tmp/store" \
  "$BIN ${common[*]} --base-url $URL --out $tmp/out-full" \
  "$BIN ${common[*]} --base-url $URL --store $tmp/store --out $tmp/out-incremental"

python3 - "$tmp" "$COMPANIES" "$CHANGING" "$LAT" "$RUNS" "$REPO" <<'PY'
import json, os, sys, datetime
tmp, companies, changing, lat, runs, repo = sys.argv[1:]
times = {r["command"]: r for r in json.load(open(f"{tmp}/times.json"))["results"]}
def manifest(name):
    return json.load(open(f"{tmp}/out-{name}/manifest.json"))
full, inc = manifest("full"), manifest("incremental")
req = {"full": full["fetch"]["requests"]["requests"], "incremental": inc["fetch"]["requests"]["requests"]}
for m in (full, inc):
    assert m["fetch"]["requests"]["failed_tasks"] == 0, "a run had failed tasks: the figures would not compare"
lists = inc["store"]["company_lists"]
refetched = sum(n for why, n in lists.items() if why != "inalterada")
t = {k: times[k]["median"] for k in ("full", "incremental")}
pct = lambda a, b: 100 * a / b
md = [
    "# Incremental runs on a store",
    "",
    f"Measured {datetime.date.today()} on {os.cpu_count()} cores (release build): `run` at M+1 (202609) with",
    f"{int(companies):,} companies, 12 months x 27 states of credits, the registry a separate process",
    f"answering after {lat} ms. The store held one full run at M (202608); {refetched} companies",
    f"({pct(refetched, int(companies)):.1f}%) changed between the two months (portfolio picked with",
    f"`serve --dump-portfolio --portfolio-changing {changing}`). Median of {runs} runs (hyperfine).",
    "",
    "| run | requests | wall s (median) | min-max s |",
    "|---|--:|--:|--:|",
]
for k in ("full", "incremental"):
    md.append(f"| {k} | {req[k]:,} | {t[k]:.1f} | {times[k]['min']:.1f}-{times[k]['max']:.1f} |")
md += [
    f"| **incremental / full** | **{pct(req['incremental'], req['full']):.1f}%** | **{pct(t['incremental'], t['full']):.1f}%** | |",
    "",
    "The incremental run asked every profile, the six lists of the companies that changed, and",
    f"the credits of the {len(inc['store']['credit_months_fetched'])} refreshed months "
    f"({', '.join(inc['store']['credit_months_fetched'])}); the lists of the others were carried",
    f"from the store ({json.dumps(lists, sort_keys=True)}). Its time includes reading the store and",
    "committing the new version.",
    "",
    "Reproduce: `bench/incremental.sh` (COMPANIES, CHANGING, LAT, RUNS override the defaults).",
    "",
]
open(f"{repo}/bench/results/incremental.md", "w").write("\n".join(md))
print("\n".join(md))
PY
