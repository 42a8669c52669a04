#!/usr/bin/env bash
# The release download against curl, on loopback, from the publishers' mirror (`serve
# --mirror`): RFB's share over WebDAV and PGFN's listing, as the real servers answer.
#
# Writes a release of SCALE x 5,000 companies (kept under DATA, written once) and serves it.
# Two cells, RUNS times each, ours and curl in turn:
# - clean: `fiscal-report download --to` (listing, 4 transfers a host, every zip's CRCs checked)
#   against `curl --parallel --parallel-max 4` of the same files (no listing, no check). The
#   throughput is the release's size over the wall time.
# - faults: a mirror started anew for each run, with every file's first answer cut half-way,
#   one answer stalled, three 503s and every file's first Range answered whole. Ours with
#   --stall-secs 2 against a careful curl (`-C -`, `--retry 10 --retry-all-errors`,
#   `--speed-limit 1 --speed-time 2`). The bytes are what the mirror says it sent (its own
#   count, not the client's); the release's size is the floor.
# Each download is compared with the served files by sha256. Writes bench/results/download.md.
#
#   bench/download.sh         # SCALE=100 RUNS=5 DATA=bench/data by default
# Needs: curl, unzip, bc, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
SCALE=${SCALE:-100}
RUNS=${RUNS:-5}
DATA=${DATA:-$REPO/bench/data}
command -v curl >/dev/null || { echo "bench/download.sh needs curl: apt-get install curl" >&2; exit 1; }
cargo build --release --quiet
BIN="$(realpath "${CARGO_TARGET_DIR:-target}")/release/fiscal-report"
RELEASE="$DATA/mirror-scale-$SCALE"
if [ ! -f "$RELEASE/.complete" ]; then
  rm -rf "$RELEASE"
  mkdir -p "$DATA"
  "$BIN" serve --scale "$SCALE" --write-open-data "$RELEASE" 2>/dev/null
  touch "$RELEASE/.complete"
fi
MONTH=$(find "$RELEASE/cnpj" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | tail -1)
QUARTER=$(find "$RELEASE/pgfn" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | tail -1)
SIZE=$(find "$RELEASE/cnpj/$MONTH" "$RELEASE/pgfn/$QUARTER" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')
FILES=$(find "$RELEASE/cnpj/$MONTH" "$RELEASE/pgfn/$QUARTER" -type f | wc -l)

tmp=$(mktemp -d)
MIRROR_PID=
trap 'kill $MIRROR_PID 2>/dev/null || true; rm -rf "$tmp"' EXIT

start_mirror() {
  "$BIN" serve --mirror "$RELEASE" --addr 127.0.0.1:0 "$@" >"$tmp/mirror.out" 2>"$tmp/mirror.err" &
  MIRROR_PID=$!
  for _ in $(seq 300); do grep -q '^pgfn-url' "$tmp/mirror.out" 2>/dev/null && break; sleep 0.05; done
  RFB_URL=$(sed -n 's/^rfb-url //p' "$tmp/mirror.out")
  PGFN_URL=$(sed -n 's/^pgfn-url //p' "$tmp/mirror.out")
}
# Stops the mirror and prints the file bytes it says it sent.
stop_mirror() {
  kill -TERM "$MIRROR_PID"
  wait "$MIRROR_PID" || true
  MIRROR_PID=
  sed -n 's/.*mirror: sent \([0-9]*\) file bytes.*/\1/p' "$tmp/mirror.err"
}
# curl's config for the release's files into $1, at the mirror started last.
curl_config() {
  local base=${RFB_URL%/index.php/s/*} token=${RFB_URL##*/}
  echo "user = \"$token:\""
  for f in "$RELEASE/cnpj/$MONTH"/*; do
    echo "url = \"$base/public.php/dav/files/$token/$MONTH/$(basename "$f")\""
    echo "output = \"$1/$(basename "$f")\""
  done
  for f in "$RELEASE/pgfn/$QUARTER"/*; do
    echo "url = \"${PGFN_URL%/}/$QUARTER/$(basename "$f")\""
    echo "output = \"$1/$(basename "$f")\""
  done
}
# The sha256 of every file under $1 by name, sorted: the same for the served release.
sums() { find "$1" -type f ! -name download.json -exec sha256sum {} + | awk '{n=$2; sub(".*/", "", n); print $1, n}' | sort; }
SERVED=$(sums "$RELEASE/cnpj/$MONTH"; sums "$RELEASE/pgfn/$QUARTER")
SERVED=$(sort <<<"$SERVED")
same() { [ "$(sums "$1")" = "$SERVED" ] && echo yes || echo NO; }
now() { date +%s.%N; }

: >"$tmp/rows.tsv"
FAULTS=(--mirror-fault cut --mirror-fault stall --mirror-fault 503 --mirror-fault ignore-range)
CURL_CAREFUL=(-C - --retry 10 --retry-all-errors --retry-delay 1 --speed-limit 1 --speed-time 2)
for run in $(seq "$RUNS"); do
  # Clean: one mirror for the pair.
  start_mirror
  rm -rf "$tmp/ours" "$tmp/curl"; mkdir -p "$tmp/curl"
  t0=$(now)
  "$BIN" --quiet download --to "$tmp/ours" --rfb-url "$RFB_URL" --pgfn-url "$PGFN_URL"
  t1=$(now)
  curl_config "$tmp/curl" >"$tmp/curl.cfg"
  t2=$(now)
  curl -sS --no-progress-meter --fail --parallel --parallel-max 4 -K "$tmp/curl.cfg"
  t3=$(now)
  stop_mirror >/dev/null
  # What our checks cost on their own: every zip entry read to its end (unzip -t checks each
  # CRC) and every file's sha256, over curl's copy.
  t4=$(now)
  for z in "$tmp/curl"/*.zip; do unzip -tqq "$z" >/dev/null; done
  sha256sum "$tmp/curl"/* >/dev/null
  t5=$(now)
  echo -e "clean\t$run\tours\t$(echo "$t1 - $t0" | bc)\t-\t$(same "$tmp/ours")" >>"$tmp/rows.tsv"
  echo -e "clean\t$run\tcurl\t$(echo "$t3 - $t2" | bc)\t-\t$(same "$tmp/curl")" >>"$tmp/rows.tsv"
  echo -e "clean\t$run\tunzip -t + sha256sum of curl's copy\t$(echo "$t5 - $t4" | bc)\t-\t-" >>"$tmp/rows.tsv"

  # Faults: a mirror anew for each download, so each meets every fault.
  for who in ours curl; do
    start_mirror "${FAULTS[@]}"
    rm -rf "$tmp/$who"; mkdir -p "$tmp/$who"
    t0=$(now)
    if [ "$who" = ours ]; then
      "$BIN" --quiet download --to "$tmp/ours" --rfb-url "$RFB_URL" --pgfn-url "$PGFN_URL" --stall-secs 2 \
        && ok=$(same "$tmp/ours") || ok="failed"
    else
      curl_config "$tmp/curl" >"$tmp/curl.cfg"
      curl -sS --no-progress-meter --fail --parallel --parallel-max 4 "${CURL_CAREFUL[@]}" -K "$tmp/curl.cfg" 2>"$tmp/curl.err" \
        && ok=$(same "$tmp/curl") || ok="failed: $(tail -1 "$tmp/curl.err" | tr '\t' ' ')"
    fi
    t1=$(now)
    sent=$(stop_mirror)
    echo -e "faults\t$run\t$who\t$(echo "$t1 - $t0" | bc)\t$sent\t$ok" >>"$tmp/rows.tsv"
  done
done

python3 - "$tmp/rows.tsv" "$SIZE" "$FILES" "$SCALE" "$RUNS" "$(git -C "$REPO" rev-parse --short HEAD)" \
  "$REPO/bench/results/download.md" <<'PY'
import statistics, sys
rows_file, size, files, scale, runs, commit, out = sys.argv[1:]
size, files = int(size), int(files)
rows = [l.rstrip("\n").split("\t") for l in open(rows_file) if l.strip()]
def cell(kind, who):
    return [r for r in rows if r[0] == kind and r[2] == who]
def spread(xs, fmt):
    return f"{fmt(statistics.median(xs))} ({fmt(min(xs))} to {fmt(max(xs))})"
lines = [
    "# The release download against curl",
    "",
    f"`bench/download.sh` (SCALE={scale}, RUNS={runs}) at commit {commit}: a release of {files} files,",
    f"{size / 1e6:.1f} MB, served on loopback by `fiscal-report serve --mirror` (RFB's share over WebDAV,",
    "PGFN's Apache listing). Ours lists the release, moves 4 files a host at once and checks every",
    "zip entry's CRC; curl gets the same URLs, 4 at once, with nothing listed or checked. Median",
    "(min to max) of the runs; each pair ran in turn. Bytes are the mirror's own count of what it sent.",
    "The faults' floor is 1.5 x: every file's first answer is cut half-way and its first Range is",
    "answered with the whole file, so half a file is lost before any client can resume.",
    "",
    "| cell | client | wall s | MB/s | bytes sent / release | same files as served |",
    "|---|---|--:|--:|--:|---|",
]
for kind in ["clean", "faults"]:
    for who in ["ours", "curl", "unzip -t + sha256sum of curl's copy"]:
        rs = cell(kind, who)
        if not rs:
            continue
        walls = [float(r[3]) for r in rs]
        mbs = [size / 1e6 / w for w in walls]
        sent = [int(r[4]) / size for r in rs if r[4] not in ("-", "")]
        sent_s = spread(sent, lambda v: f"{v:.3f} x") if sent else "-"
        ok = ", ".join(sorted(set(r[5] for r in rs)))
        lines.append(f"| {kind} | {who} | {spread(walls, lambda v: f'{v:.2f}')} | {spread(mbs, lambda v: f'{v:.0f}')} | {sent_s} | {ok} |")
ratios = [float(o[3]) / float(c[3]) for o, c in zip(cell("clean", "ours"), cell("clean", "curl"))]
lines += ["", f"Clean cell, ours / curl wall time pair by pair: {spread(ratios, lambda v: f'{v:.2f}')}.", ""]
text = "\n".join(lines)
print(text)
prev = open(out).read() if __import__("os").path.exists(out) else ""
earlier = prev[prev.index("## Earlier"):] if "## Earlier" in prev else ""
open(out, "w").write(text + ("\n" + earlier if earlier else ""))
PY
