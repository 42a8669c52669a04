#!/usr/bin/env bash
# What the full-size public lists cost a run, apart from the rest of it: the same small service
# run (the embedded registry, 200 companies, SP) with and without `--listas-dir` of the lists
# bench/open_data.sh grew to their publishers' size (IBAMA's 116 k embargoes, about 200 MB),
# RUNS rounds turn about. A whole 50,000-company run varies by seconds from round to round,
# more than the lists cost; here the rest of the run is small, so the difference is the lists'
# reading, matching and writing. Appends its table to bench/results/open-data.md.
#
#   bench/lists_read.sh      # after bench/open_data.sh (its DATA); RUNS=5 by default
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
SCALE=${SCALE:-832}
RUNS=${RUNS:-5}
DATA=${DATA:-$REPO/bench/data}
LISTS="$DATA/open-data-scale-$SCALE-listed"
[ -d "$LISTS/listas" ] || { echo "no $LISTS/listas: run bench/open_data.sh first" >&2; exit 2; }
cargo build --release --quiet
BIN="$(realpath "${CARGO_TARGET_DIR:-target}")/release/fiscal-report"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
run() { # name, extra args
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$tmp/$name-$i" "$BIN" --quiet run --uf SP --ano-mes 202609 \
    --out "$tmp/out" "$@" >/dev/null 2>"$tmp/run.log" || { cat "$tmp/run.log"; exit 1; }
  rm -rf "$tmp/out"
}
for i in $(seq "$RUNS"); do
  run plain --store "$tmp/store-plain-$i"
  run lists --store "$tmp/store-lists-$i" --listas-dir "$LISTS"
done
cd "$REPO"
python3 - "$tmp" "$RUNS" <<'PY'
import datetime, os, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
def t(name):
    return [tuple(map(float, open(f"{tmp}/{name}-{i}").read().split())) for i in range(1, runs + 1)]
plain, lists = t("plain"), t("lists")
diff = [l[0] - p[0] for l, p in zip(lists, plain)]
mem = [(l[1] - p[1]) / 1024 for l, p in zip(lists, plain)]
med = statistics.median
lines = [
    "", "## What the full-size lists cost apart (`bench/lists_read.sh`)", "",
    f"Measured {datetime.date.today()} on {os.cpu_count()} cores: the same run over the embedded registry (SP, 200 companies, "
    f"a store) without and with `--listas-dir` of the lists above, {runs} rounds turn about.", "",
    "| | median | fastest | slowest |", "|---|--:|--:|--:|",
    f"| without lists | {med(w for w, _ in plain):.2f} s | {min(w for w, _ in plain):.2f} s | {max(w for w, _ in plain):.2f} s |",
    f"| with the full-size lists | {med(w for w, _ in lists):.2f} s | {min(w for w, _ in lists):.2f} s | {max(w for w, _ in lists):.2f} s |",
    f"| the lists' cost, round by round | **{med(diff):.2f} s** | {min(diff):.2f} s | {max(diff):.2f} s |",
    f"| their peak memory, round by round | **{med(mem):+.0f} MiB** | {min(mem):+.0f} MiB | {max(mem):+.0f} MiB |", "",
]
path = "bench/results/open-data.md"
text = open(path).read()
import re
whole = re.search(r"\| `run --open-data` \(whole run\) \| ([0-9.]+) s", text)
if whole:
    base = float(whole.group(1))
    lines += [
        f"Against the 50,000-company run above ({base:.1f} s without lists), the lists add "
        f"**{100 * med(diff) / base:.1f} %** ({100 * min(diff) / base:.1f} to {100 * max(diff) / base:.1f} %). "
        f"Target (issue #71): at most 10 %: {'met' if max(diff) / base <= 0.10 else 'NOT met'}.", "",
    ]
head, sep, earlier = text.partition("\n## Earlier\n")
marker = "\n## What the full-size lists cost apart"
head = head.split(marker)[0].rstrip("\n") + "\n"
open(path, "w").write(head + "\n".join(lines) + ("\n## Earlier\n" + earlier if sep else ""))
print("\n".join(lines))
PY
