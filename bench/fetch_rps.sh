#!/usr/bin/env bash
# Fetch throughput: requests per second `fiscal-report fetch` achieves against the embedded
# registry with 20 ms of latency per answer, side by side with the ceiling: wrk hitting the
# same server at the same concurrency. Writes bench/results/fetch-rps.md.
#
#   bench/fetch_rps.sh                 # CONC=16 LAT=20 RUNS=3 by default
# Needs: wrk (Debian package `wrk`).
set -euo pipefail
cd "$(dirname "$0")/.."
CONC=${CONC:-16}
LAT=${LAT:-20}
RUNS=${RUNS:-3}
KEY=bench-key
cargo build --release --quiet
BIN="${CARGO_TARGET_DIR:-target}/release/fiscal-report"
tmp=$(mktemp -d)
trap 'kill $SERVE_PID 2>/dev/null || true; rm -rf "$tmp"' EXIT

"$BIN" serve --dump-portfolio "$tmp/portfolio.csv" --portfolio-size 200 2>/dev/null
REGISTRY_API_KEY=$KEY "$BIN" serve --addr 127.0.0.1:0 --latency-ms "$LAT" --scale 1 >"$tmp/serve.out" 2>/dev/null &
SERVE_PID=$!
for _ in $(seq 100); do grep -q listening "$tmp/serve.out" 2>/dev/null && break; sleep 0.1; done
URL=$(sed -n 's/^listening on //p' "$tmp/serve.out")

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# Ceiling: one page URL, the same concurrency, no client logic at all.
ceiling=$(for _ in $(seq "$RUNS"); do
  wrk -t2 -c"$CONC" -d10s -H "X-API-Key: $KEY" "$URL/v1/rfb/creditos-ativos?uf=SP&ano_mes=202601&limite=100&offset=0" \
    | awk '/Requests\/sec/ {print $2}'
done | median)

# The real job: credits for 27 states x 6 months and 200 companies (profile + 5 lists each).
fetch=$(for i in $(seq "$RUNS"); do
  REGISTRY_API_KEY=$KEY "$BIN" --quiet fetch --base-url "$URL" --uf all --ano-mes 202601:202606 \
    --cnpjs "$tmp/portfolio.csv" --concurrency "$CONC" --out "$tmp/out$i" >/dev/null 2>&1
  python3 -c "import json,sys; m=json.load(open(sys.argv[1])); f=m['fetch']; print(f['requests']['requests']/f['wall_seconds'], f['requests']['requests'], f['wall_seconds'])" "$tmp/out$i/manifest.json"
done | sort -g | awk '{a[NR]=$0} END {print a[int((NR+1)/2)]}')
fetch_rps=$(echo "$fetch" | awk '{print $1}')
requests=$(echo "$fetch" | awk '{print $2}')
ratio=$(python3 -c "print(f'{$fetch_rps / $ceiling * 100:.1f}')")

out=bench/results/fetch-rps.md
{
  echo "# Fetch throughput against the embedded registry"
  echo
  echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores; latency ${LAT} ms per answer; concurrency ${CONC}; median of ${RUNS} runs."
  echo
  echo "| what | requests/s |"
  echo "|---|--:|"
  printf '| ceiling: wrk, one page URL, %s connections | %.0f |\n' "$CONC" "$ceiling"
  printf '| fiscal-report fetch (%s requests: 27 UFs x 6 months + 200 companies) | %.0f |\n' "$requests" "$fetch_rps"
  echo "| ratio | ${ratio}% |"
  echo
  echo "Reproduce: \`bench/fetch_rps.sh\` (CONC, LAT, RUNS override the defaults)."
} >"$out"
cat "$out"
