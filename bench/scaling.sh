#!/usr/bin/env bash
# How cost grows with work: the embedded registry at scale 0.25, 1, 4 and 40 with portfolios
# of 200, 2,000, 20,000 and 200,000 companies (12 months x 27 states of credits each; CONFIGS
# overrides the list, e.g. CONFIGS="0.25:200 1:2000"). The fetch and the
# stages after it (`report --from`: transform, analyze, export, report) run as separate
# processes so each gets its own wall time and peak memory (/usr/bin/time). Writes
# bench/results/scaling.md and bench/results/scaling.svg.
#
# Needs: /usr/bin/time (Debian package `time`), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
BIN="${CARGO_TARGET_DIR:-target}/release/fiscal-report"
tmp=$(mktemp -d)
trap 'kill $SERVE_PID 2>/dev/null || true; rm -rf "$tmp"' EXIT
SERVE_PID=
rows=()
for cfg in ${CONFIGS:-0.25:200 1:2000 4:20000 40:200000}; do
  scale=${cfg%%:*} companies=${cfg##*:}
  "$BIN" serve --scale "$scale" --dump-portfolio "$tmp/p.csv" --portfolio-size "$companies" 2>/dev/null
  REGISTRY_API_KEY=k "$BIN" serve --addr 127.0.0.1:0 --scale "$scale" >"$tmp/serve.out" 2>/dev/null &
  SERVE_PID=$!
  for _ in $(seq 200); do grep -q listening "$tmp/serve.out" 2>/dev/null && break; sleep 0.1; done
  url=$(sed -n 's/^listening on //p' "$tmp/serve.out")
  out="$tmp/out-$scale"
  REGISTRY_API_KEY=k /usr/bin/time -f "%e %M" -o "$tmp/t1" "$BIN" --quiet fetch --base-url "$url" --uf all \
    --ano-mes 202510:202609 --cnpjs "$tmp/p.csv" --out "$out" >/dev/null 2>&1
  kill $SERVE_PID; wait $SERVE_PID 2>/dev/null || true
  /usr/bin/time -f "%e %M" -o "$tmp/t2" "$BIN" --quiet report --from "$out" >/dev/null 2>&1
  read -r fw fm <"$tmp/t1"
  read -r rw rm <"$tmp/t2"
  read -r req recs <<<"$(python3 -c "import json,sys; f=json.load(open(sys.argv[1]))['fetch']; print(f['requests']['requests'], sum(f['records'].values()))" "$out/manifest.json")"
  rows+=("$scale $companies $req $recs $fw $fm $rw $rm")
  rm -rf "$out"
done
python3 - <<PY
rows = [r.split() for r in """$(printf '%s\n' "${rows[@]}")""".strip().splitlines()]
md = ["# Scaling", "",
      "Measured $(date -u +%Y-%m-%d) on $(nproc) cores (release build); 12 months x 27 states of credits,",
      "the embedded registry as a separate process with no added latency. Fetch and the later stages",
      "(\`report --from\`: transform, analyze, export, report) are separate processes.", "",
      "| scale | companies | requests | records | fetch s | fetch req/s | fetch peak MiB | later stages s | later stages peak MiB |",
      "|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
for s, c, req, recs, fw, fm, rw, rm in rows:
    md.append(f"| {s} | {int(c):,} | {int(req):,} | {int(recs):,} | {float(fw):.1f} | {int(req)/float(fw):,.0f} | {int(fm)//1024} | {float(rw):.1f} | {int(rm)//1024} |")
md += ["", "Records are streamed to staging in batches and typed on a thread as each batch is committed",
       "(\`.staging/typed/\`). The later stages keep the tables that grow with the data (credits, debts and",
       "the profiles' summaries) there: the queries scan them with Polars' streaming engine and the export",
       "copies them through bounded buffers, a partition cut into ranges of its first sort key sorted a",
       "range at a time; the other tables, the aggregates and the journal's outline are held in memory.",
       "\`-v\` (or RUST_LOG=fiscal_report=debug for each table and query) gives each stage's resident",
       "memory and the process peak so far.",
       "", "![scaling](scaling.svg)", "", "Reproduce: \`bench/scaling.sh\`.", ""]
open("bench/results/scaling.md", "w").write("\n".join(md))
# A small bar chart: peak memory of each stage per configuration.
W, H, pad = 40 + 170 * len(rows) + 20, 220, 40
mx = max(max(int(r[5]), int(r[7])) for r in rows) / 1024
bars = []
for i, (s, c, *_rest) in enumerate(rows):
    fm, rm = int(rows[i][5]) / 1024, int(rows[i][7]) / 1024
    x = pad + i * 170
    for j, (v, colour, label) in enumerate([(fm, "#1f5fa8", "fetch"), (rm, "#c77c02", "later stages")]):
        h = (H - 2 * pad) * v / mx
        bars.append(f'<rect x="{x + j * 60}" y="{H - pad - h:.1f}" width="50" height="{h:.1f}" fill="{colour}"/>')
        bars.append(f'<text x="{x + j * 60 + 25}" y="{H - pad - h - 4:.1f}" text-anchor="middle">{v:.0f}</text>')
    bars.append(f'<text x="{x + 55}" y="{H - pad + 16}" text-anchor="middle">scale {s}, {int(c):,} cos.</text>')
svg = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="11">'
       f'<text x="{pad}" y="18" font-size="13">Peak memory (MiB): fetch (blue), later stages (orange)</text>'
       + "".join(bars) + f'<line x1="{pad}" x2="{W - 10}" y1="{H - pad}" y2="{H - pad}" stroke="#999"/></svg>')
open("bench/results/scaling.svg", "w").write(svg)
PY
cat bench/results/scaling.md
