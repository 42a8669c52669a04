#!/usr/bin/env bash
# How long CI takes: `.ci/run` with CI=true on a clean clone of HEAD, as CI runs it, timed whole.
#
#   bench/ci_time.sh warm   # the build cache CI keeps (/var/cache/fiscal-report/target), as
#                           # left by the commit before
#   bench/ci_time.sh cold   # an empty target folder: what a fresh machine pays
#
# Appends one line to bench/results/ci.md's table: the date, the commit, warm or cold, the wall
# time, the tests run, and the seconds each step of .ci/run started at. Nothing else should run
# on the machine meanwhile. Needs: git, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:?warm or cold}
COMMIT=$(git rev-parse --short HEAD)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone -q "$(pwd)" "$tmp/src"
case "$MODE" in
  warm) export CARGO_TARGET_DIR=/var/cache/fiscal-report/target ;;
  cold) export CARGO_TARGET_DIR="$tmp/target" ;;
  *) echo "warm or cold, not $MODE" >&2; exit 2 ;;
esac
start=$(date +%s)
(cd "$tmp/src" && CI=true bash .ci/run) >"$tmp/ci.log" 2>&1 || {
  tail -40 "$tmp/ci.log"; echo "CI failed: nothing recorded" >&2; exit 1; }
wall=$(( $(date +%s) - start ))
python3 - "$tmp/ci.log" "$MODE" "$COMMIT" "$wall" >>bench/results/ci.md <<'PY'
import re, sys, datetime
log, mode, commit, wall = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
text = open(log).read()
passed = sum(int(n) for n in re.findall(r"test result: ok\. (\d+) passed", text))
steps = re.findall(r"^== (.+?) \(at (\d+) s\)$", text, re.M)
def short(name):
    words = name.split(" (")[0].split()
    return " ".join(words[:2]) if words[0] == "cargo" else words[0]
marks = ", ".join(f"{short(name)} {at}" for name, at in steps)
day = datetime.date.today().isoformat()
print(f"| {day} | {commit} | {mode} | {wall // 60} min {wall % 60:02d} s | {passed} | {marks} |")
PY
tail -1 bench/results/ci.md
