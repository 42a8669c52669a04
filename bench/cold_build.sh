#!/usr/bin/env bash
# What a fresh machine pays before the README's commands do anything: the build from an empty
# target folder (the crates already downloaded, as after `cargo fetch`; nothing else should run
# on the machine meanwhile) of a clean clone of HEAD, so edits made meanwhile do not count.
# Appends one section to bench/results/cold-build.md with the commit, the command line, the
# wall time and, for a release build, cargo's ten slowest units.
#
#   bench/cold_build.sh release   # cold `cargo build --release --locked` (README's first command)
#   bench/cold_build.sh test      # cold `cargo test --locked` (README's test command), build and run
#
# TARGET names the empty folder to build in (default: a new temporary folder, removed after).
# Needs: python3, /usr/bin/time (Debian package `time`).
set -euo pipefail
cd "$(dirname "$0")/.."
MODE=${1:-release}
COMMIT=$(git rev-parse --short HEAD)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TARGET=${TARGET:-$tmp/target}
if [ -e "$TARGET" ] && [ -n "$(ls -A "$TARGET")" ]; then
  echo "TARGET=$TARGET is not empty: a cold build needs an empty folder" >&2
  exit 2
fi
REPO=$(pwd)
git clone -q "$REPO" "$tmp/src"
cd "$tmp/src"
cargo fetch --locked --quiet
case "$MODE" in
  release) CMD=(cargo build --release --locked --timings) ;;
  test) CMD=(cargo test --locked) ;;
  *) echo "usage: bench/cold_build.sh release|test" >&2; exit 2 ;;
esac
echo "cold ${CMD[*]} in $TARGET ($(nproc) cores) ..." >&2
set +e
CARGO_TARGET_DIR=$TARGET /usr/bin/time -f "%e" -o "$tmp/wall" "${CMD[@]}" >"$tmp/out" 2>"$tmp/err"
status=$?
set -e
if [ "$status" -ne 0 ]; then
  tail -30 "$tmp/err" >&2
  echo "the build failed (exit $status): nothing recorded" >&2
  exit 1
fi
wall=$(tail -1 "$tmp/wall")
units=$(grep -c '^ *Compiling ' "$tmp/err" || true)
size=$(du -sh "$TARGET" | cut -f1)
slowest=""
if [ "$MODE" = release ]; then
  # cargo's timing page carries every unit's duration as JSON (`const UNIT_DATA = [...]`).
  slowest=$(python3 - "$TARGET"/cargo-timings/cargo-timing.html <<'EOF'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", page, re.S).group(1))
units.sort(key=lambda u: -u["duration"])
for u in units[:10]:
    print(f"| {u['name']} {u['version']} {u.get('target', '').strip()} | {u['duration']:.1f} s |")
EOF
)
fi
passed=""
if [ "$MODE" = test ]; then
  passed=$(grep -E '^test result:' "$tmp/out" | awk '{p+=$4; f+=$6; i+=$8} END {print p " passed, " f " failed, " i " ignored"}')
fi
cd "$REPO"
mkdir -p bench/results
{
  echo
  echo "## $(date -u +%Y-%m-%d) $COMMIT: cold \`${CMD[*]}\`"
  echo
  echo "\`bench/cold_build.sh $MODE\` on $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, empty target folder:"
  echo "**$(python3 -c "s=float('$wall'); print(f'{int(s//60)} min {s%60:02.0f} s')")** wall, $units crates compiled, target folder $size."
  if [ -n "$passed" ]; then echo "Tests: $passed."; fi
  if [ -n "$slowest" ]; then
    echo
    echo "| ten slowest units | time |"
    echo "|---|--:|"
    echo "$slowest"
  fi
} | tee -a bench/results/cold-build.md
