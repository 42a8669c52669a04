#!/usr/bin/env bash
# The fetch behind a real rate-limiting gateway: nginx (Debian's nginx-light) with `limit_req`
# (a leaky bucket of RATE requests a second and a burst of BURST, `nodelay`) in front of
# `serve`, answering refusals with 429 and no Retry-After, as gateways commonly do, or in other
# cells with 503. In each cell `run` fetches 27 states x 3 months of credits and a portfolio
# of COMPANIES companies, with no flag, through nginx on loopback, started and stopped here.
#
# Floor of a cell: requests served / RATE (the gateway lets no more through). Reported: the
# whole run against it and the share of requests refused. Median of RUNS runs, with the spread.
# Writes bench/results/gateway.md.
#
#   bench/gateway.sh                  # COMPANIES=150 RUNS=1
#   CELLS="30:10:429 200:50:503" bench/gateway.sh
# Needs: nginx (Debian package `nginx-light`), /usr/bin/time (package `time`), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
COMPANIES=${COMPANIES:-150}
RUNS=${RUNS:-1}
# rate:burst:status
CELLS=${CELLS:-"30:10:429 80:20:429 200:50:429 80:0:429 30:10:503 200:50:503"}
KEY=bench-key
command -v nginx >/dev/null || { echo "bench/gateway.sh needs nginx: apt-get install nginx-light" >&2; exit 1; }
cargo build --release --quiet
BIN="$(realpath "${CARGO_TARGET_DIR:-target}")/release/fiscal-report"
tmp=$(mktemp -d)
SERVE_PID=
NGINX_PID=
trap 'kill $SERVE_PID $NGINX_PID 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$BIN" serve --dump-portfolio "$tmp/portfolio.csv" --portfolio-size "$COMPANIES" 2>/dev/null
export REGISTRY_API_KEY=$KEY
"$BIN" serve --addr 127.0.0.1:0 >"$tmp/serve.out" 2>/dev/null &
SERVE_PID=$!
for _ in $(seq 300); do grep -q listening "$tmp/serve.out" 2>/dev/null && break; sleep 0.1; done
UPSTREAM=$(sed -n 's|^listening on http://||p' "$tmp/serve.out" | tr -d '/')
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
cd "$tmp"
: >"$tmp/results.tsv"
for cell in $CELLS; do
  IFS=: read -r rate burst status <<<"$cell"
  port=$(free_port)
  mkdir -p "$tmp/nginx"
  # No burst: every request closer than 1/RATE to the one before is refused.
  allowance=""
  [ "$burst" != 0 ] && allowance="burst=$burst nodelay"
  cat >"$tmp/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $tmp/nginx/body;
  proxy_temp_path $tmp/nginx/proxy;
  fastcgi_temp_path $tmp/nginx/fastcgi;
  uwsgi_temp_path $tmp/nginx/uwsgi;
  scgi_temp_path $tmp/nginx/scgi;
  limit_req_zone \$binary_remote_addr zone=api:1m rate=${rate}r/s;
  upstream registry { server $UPSTREAM; keepalive 64; }
  server {
    listen 127.0.0.1:$port;
    location / {
      limit_req zone=api $allowance;
      limit_req_status $status;
      proxy_pass http://registry;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
CONF
  nginx -c "$tmp/nginx/nginx.conf" &
  NGINX_PID=$!
  for _ in $(seq 100); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.1)" 2>/dev/null && break; sleep 0.1; done
  for i in $(seq "$RUNS"); do
    out="$tmp/out"
    rm -rf "$out"
    # The gateway's bucket starts full each run.
    sleep $(( burst / rate + 1 ))
    /usr/bin/time -f "%e" -o "$tmp/time" "$BIN" --quiet run --base-url "http://127.0.0.1:$port/" --uf all \
      --ano-mes 202607:202609 --cnpjs "$tmp/portfolio.csv" --out "$out" >/dev/null 2>"$tmp/err" \
      || echo "cell $cell: the run exited $? ($(grep -c 'failed:' "$tmp/err") tasks failed)" >&2
    [ -f "$out/manifest.json" ] || { tail -5 "$tmp/err"; exit 1; }
    python3 - "$out/manifest.json" "$(tail -1 "$tmp/time")" "$rate" "$burst" "$status" >>"$tmp/results.tsv" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
f = m["fetch"]
r = f["requests"]
refused = sum(n for op in r.get("by_operation", {}).values() for label, n in op.items() if label in ("429", "503"))
lost = len(f.get("tasks_failed", []))
print("\t".join([*sys.argv[3:6], str(r["requests"]), str(refused), str(lost), f"{f['wall_seconds']:.3f}", sys.argv[2]]))
PY
  done
  kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; NGINX_PID=
done
cd "$REPO"
python3 - "$tmp/results.tsv" "$RUNS" "$COMPANIES" "$(git rev-parse --short HEAD)" <<'PY'
import collections, datetime, os, statistics, sys
path, runs, companies, commit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
cells = collections.defaultdict(list)
for line in open(path):
    rate, burst, status, req, refused, lost, fetch, wall = line.split("\t")
    cells[(int(rate), int(burst), status)].append((int(req), int(refused), int(lost), float(fetch), float(wall)))
rows, met = [], 0
for (rate, burst, status), samples in cells.items():
    served = statistics.median(s[0] - s[1] for s in samples)
    fl = served / rate
    walls = sorted(s[4] for s in samples)
    whole = statistics.median(walls)
    share = max(s[1] / s[0] for s in samples) * 100
    lost = max(s[2] for s in samples)
    spread = f" ({walls[0] / fl:.2f}-{walls[-1] / fl:.2f})" if len(walls) > 1 else ""
    ok = whole <= 1.25 * fl and share <= 2.0 and lost == 0
    met += ok
    rows.append(
        f"| {rate}/s | {burst} | {status} | {statistics.median(s[0] for s in samples):,.0f} | {served:,.0f} "
        f"| {statistics.median(s[1] for s in samples):,.0f} ({share:.1f} %) | {fl:.2f} s | {whole:.2f} s = {whole / fl:.2f} x{spread} "
        f"| {lost} | {'yes' if ok else 'no'} |"
    )
lines = [
    "# The fetch behind nginx's limit_req", "",
    f"Measured {datetime.date.today()} at {commit} on {os.cpu_count()} cores (release build): `run` over 27 states x",
    f"202607 to 202609 of credits and {companies} companies, no flag, through nginx (`limit_req` with `nodelay`, the",
    f"refusal answered with the status shown and no Retry-After) in front of `serve`, on loopback; median of {runs} run(s).", "",
    "Floor = requests served / rate. Refused = the largest share of refused requests of the runs (429 or 503).", "",
    "| rate | burst | refusal | requests | served | refused | floor | whole run | tasks lost | <= 1.25 x, <= 2 %, none lost |",
    "|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|",
    *rows, "",
    f"Target (issue #55): every cell within 1.25 x its floor with at most 2 % refused and nothing lost: {met} of {len(rows)} cells.", "",
    "Reproduce: `bench/gateway.sh` (COMPANIES, RUNS, CELLS as rate:burst:status).", "",
]
open("bench/results/gateway.md", "w").write("\n".join(lines))
print("\n".join(lines))
PY
