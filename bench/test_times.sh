#!/usr/bin/env bash
# Where the integration tests' time goes: runs tests/it (one binary) as CI does, with libtest's
# per-test times, and prints the markdown tables bench/results/ci.md keeps (the wall time, the
# slowest modules, the 20 slowest tests).
#
#   bench/test_times.sh            # after `cargo test --no-run`; CI=true, the venv first on PATH
#
# RUSTC_BOOTSTRAP only unlocks libtest's `--report-time` option. Nothing else should run on the
# machine meanwhile. Needs: cargo, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
export CI=true
target=${CARGO_TARGET_DIR:-target}
cargo test --locked --no-run --test it 2>/dev/null
bin=$(ls -t "$target"/debug/deps/it-* | grep -v '\.d$' | head -1)
json=$(mktemp)
trap 'rm -f "$json"' EXIT
start=$(date +%s.%N)
RUSTC_BOOTSTRAP=1 "$bin" -Z unstable-options --report-time --format json >"$json" || true
end=$(date +%s.%N)
python3 - "$json" "$start" "$end" "$(git rev-parse --short HEAD)" <<'PY'
import collections, datetime, json, sys
path, start, end, commit = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
tests, suite = [], {}
for line in open(path):
    try:
        d = json.loads(line)
    except ValueError:
        continue
    if d.get("type") == "test" and "exec_time" in d:
        tests.append((d["exec_time"], d["name"], d["event"]))
    if d.get("type") == "suite" and d.get("event") != "started":
        suite = d
tests.sort(reverse=True)
total = sum(t for t, _, _ in tests)
failed = [n for _, n, e in tests if e != "ok"]
print(f"Integration tests at {commit} ({datetime.date.today()}): {suite.get('passed', '?')} passed, "
      f"{suite.get('failed', '?')} failed, {suite.get('ignored', '?')} ignored; wall {end - start:.0f} s "
      f"on 2 threads; the tests' own times add to {total:.0f} s.")
if failed:
    print("\nFailed: " + ", ".join(failed))
mods, count = collections.Counter(), collections.Counter()
for t, name, _ in tests:
    mods[name.split("::")[0]] += t
    count[name.split("::")[0]] += 1
print("\n| module | tests | seconds |\n|---|--:|--:|")
for m, t in mods.most_common(12):
    print(f"| {m} | {count[m]} | {t:.1f} |")
print("\nThe 20 slowest tests:\n\n| test | seconds |\n|---|--:|")
for t, name, _ in tests[:20]:
    print(f"| `{name}` | {t:.1f} |")
PY
