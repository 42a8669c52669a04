#!/usr/bin/env bash
# The explorable HTML report at 20,000 companies (COMPANIES overrides): report.html's size, and
# in headless Chromium the time from opening it to its tables working (the page loaded and its
# script done: headers sort, filters and search ready), then the time one sort by exposure, one
# filter on a state and one search by CNPJ take on the table of every company. RUNS (default 5)
# opens of the same file; the median and the spread are written. Also refreshes the screenshot
# docs/report-explore.png (the demo's table sorted by exposure and filtered on SP).
# Writes bench/results/report-explore.md.
#
# Needs: chromium (Debian package `chromium`), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
COMPANIES=${COMPANIES:-20000}
SCALE=${SCALE:-4}
RUNS=${RUNS:-5}
cargo build --release --locked --quiet
BIN="${CARGO_TARGET_DIR:-target}/release/fiscal-report"
BROWSER=$(command -v chromium || command -v chromium-browser)
tmp=$(mktemp -d)
trap 'kill $SERVE_PID 2>/dev/null || true; rm -rf "$tmp"' EXIT
SERVE_PID=

# The portfolio's run: the embedded registry as its own process, as bench/scaling.sh does.
"$BIN" serve --scale "$SCALE" --dump-portfolio "$tmp/p.csv" --portfolio-size "$COMPANIES" 2>/dev/null
REGISTRY_API_KEY=k "$BIN" serve --addr 127.0.0.1:0 --scale "$SCALE" >"$tmp/serve.out" 2>/dev/null &
SERVE_PID=$!
for _ in $(seq 200); do grep -q listening "$tmp/serve.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/^listening on //p' "$tmp/serve.out")
REGISTRY_API_KEY=k "$BIN" --quiet run --base-url "$url" --uf all --ano-mes 202510:202609 \
  --cnpjs "$tmp/p.csv" --out "$tmp/big" >/dev/null 2>&1
kill $SERVE_PID; wait $SERVE_PID 2>/dev/null || true
bytes=$(stat -c %s "$tmp/big/report.html")
rows=$(grep -o '<tr>' "$tmp/big/report.html" | wc -l)

browse() { # page, then extra flags
  local page=$1; shift
  "$BROWSER" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --disable-extensions \
    --allow-file-access-from-files --user-data-dir="$tmp/profile" "$@" "file://$page" 2>/dev/null
}

# The harness opens report.html in a frame and measures with the page's own clock.
cat >"$tmp/big/timing.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><pre id="out">not run</pre><script>
var f = document.createElement('iframe'), t0 = performance.now();
f.style.width = '1280px'; f.style.height = '900px';
f.addEventListener('load', function () {
  var ready = performance.now() - t0, d = f.contentDocument, t = d.getElementById('tabela-empresas');
  var heads = t.tHead.rows[0].cells, bar = d.querySelector('#empresas .explore-bar');
  function timed(act) { var a = performance.now(); act(); t.offsetHeight; return performance.now() - a; }
  var sort = timed(function () { heads[heads.length - 1].querySelector('button').click(); });
  var uf = bar.querySelector('select[data-coluna="2"]');
  var filter = timed(function () { uf.value = 'SP'; uf.dispatchEvent(new Event('change')); });
  uf.value = ''; uf.dispatchEvent(new Event('change'));
  var box = bar.querySelector('input'), cnpj = t.tBodies[0].rows[7].cells[0].textContent.replace(/\D/g, '');
  var search = timed(function () { box.value = cnpj; box.dispatchEvent(new Event('input')); });
  document.getElementById('out').textContent = [d.documentElement.getAttribute('data-explorar'),
    ready.toFixed(0), sort.toFixed(0), filter.toFixed(0), search.toFixed(0)].join(' ');
});
f.src = 'report.html';
document.body.appendChild(f);
</script></body></html>
HTML
samples=()
for _ in $(seq "$RUNS"); do
  line=$(browse "$tmp/big/timing.html" --dump-dom | sed -n 's/.*<pre id="out">\([^<]*\)<.*/\1/p')
  [[ $line == pronto* ]] || { echo "the report's script did not run: $line" >&2; exit 1; }
  samples+=("${line#pronto }")
done

# The screenshot: the demo's company table, sorted by exposure and filtered on SP.
"$BIN" --quiet run --out "$tmp/demo" >/dev/null 2>&1
cat >"$tmp/demo/shot.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{margin:0}iframe{border:0;width:100vw;height:100vh}</style></head><body><script>
var f = document.createElement('iframe');
f.addEventListener('load', function () {
  var d = f.contentDocument, t = d.getElementById('tabela-empresas'), heads = t.tHead.rows[0].cells;
  heads[heads.length - 1].querySelector('button').click();
  var uf = d.querySelector('#empresas select[data-coluna="2"]');
  uf.value = 'SP'; uf.dispatchEvent(new Event('change'));
  d.getElementById('empresas').scrollIntoView();
});
f.src = 'report.html';
document.body.appendChild(f);
</script></body></html>
HTML
browse "$tmp/demo/shot.html" --hide-scrollbars --window-size=1280,900 --screenshot="$PWD/docs/report-explore.png" >/dev/null

python3 - "$bytes" "$rows" "$COMPANIES" "$RUNS" "${samples[@]}" <<'PY'
import statistics, subprocess, sys, os, datetime
bytes_, rows, companies, runs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
samples = [list(map(float, s.split())) for s in sys.argv[5:]]
cols = list(zip(*samples))
def cell(values):
    return f"{statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})"
browser = subprocess.run(["sh", "-c", "chromium --version || chromium-browser --version"],
                         capture_output=True, text=True).stdout.strip()
cmd = "bench/report_explore.sh" + (f" (COMPANIES={companies})" if companies != 20000 else "")
md = ["# The explorable HTML report", "",
      f"Measured {datetime.date.today()} on {os.cpu_count()} cores, {browser}, with `{cmd}`:",
      f"a {companies:,}-company portfolio over the embedded registry, then report.html opened {runs} times",
      "in headless Chromium. Median and (min-max) in milliseconds, by the page's own clock.", "",
      "| report.html | rows in its tables | ready (loaded, script done) | sort 20k rows by exposure | filter on a state | search a CNPJ |",
      "|--:|--:|--:|--:|--:|--:|",
      f"| {bytes_ / 1e6:.1f} MB | {rows:,} | {cell(cols[0])} ms | {cell(cols[1])} ms | {cell(cols[2])} ms | {cell(cols[3])} ms |",
      "", "Targets (issue #36): under 20 MB and under 2 s to interactive.", "",
      "![the demo's company table, sorted by exposure and filtered on SP](../../docs/report-explore.png)", ""]
open("bench/results/report-explore.md", "w").write("\n".join(md))
print("\n".join(md))
PY
