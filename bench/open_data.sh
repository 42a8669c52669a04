#!/usr/bin/env bash
# A run from the publishers' files at their real size, against the time it takes just to
# decompress them. PGFN publishes about 28 M inscriptions a quarter in three zips; a portfolio
# needs a few of them, so reading a release can cost little more than `unzip -p` of its files.
#
# Writes a release of SCALE x 5,000 companies with the embedded registry (832: 4.16 M companies,
# about 28 M inscriptions over the three PGFN zips, and RFB's Empresas, Estabelecimentos and
# Socios zips in ten parts each and Simples for every company; kept under DATA, written once),
# picks PORTFOLIO head offices spread evenly over RFB's Estabelecimentos files (read with unzip
# and awk, not by fiscal-report), then, RUNS times in turn: `unzip -p` of every zip to
# /dev/null one after another (the floor of one core) and two at a time (the floor of two
# cores, issue #81), `fiscal-report run --open-data` of the same folder (read, fetch, queries,
# Parquet, report; with BEFORE=<binary>, that build's run too, the same way), once without the
# public lists and once with them grown to their publishers' size (bench/pad_lists.py: IBAMA's 116 k embargoes,
# about 200 MB; issue #71's target is at most 10 % more; bench/lists_read.sh then measures
# their cost apart, as the whole run varies more than it). Writes bench/results/open-data.md,
# keeping its "## Earlier" section.
#
#   bench/open_data.sh       # SCALE=832 PORTFOLIO=50000 RUNS=3 DATA=bench/data by default
#   BEFORE=/path/to/older/fiscal-report bench/open_data.sh   # that build beside this one
# Needs: unzip, /usr/bin/time (Debian packages `unzip`, `time`), python3; about 1.3 GB of disk
# for the release and 10 minutes to write it the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
SCALE=${SCALE:-832}
PORTFOLIO=${PORTFOLIO:-50000}
RUNS=${RUNS:-3}
DATA=${DATA:-$REPO/bench/data}
cargo build --release --quiet
BIN="$(realpath "${CARGO_TARGET_DIR:-target}")/release/fiscal-report"
RELEASE="$DATA/open-data-scale-$SCALE"
if [ ! -f "$RELEASE/.complete" ]; then
  rm -rf "$RELEASE"
  mkdir -p "$DATA"
  /usr/bin/time -f "%e" -o "$DATA/write-seconds-$SCALE" \
    "$BIN" serve --scale "$SCALE" --write-open-data "$RELEASE"
  touch "$RELEASE/.complete"
fi
# The release without its lists (PLAIN), and with them at full size (LISTED): hard links, so
# both cost no copy of the tax files.
PLAIN="$DATA/open-data-scale-$SCALE-plain"
LISTED="$DATA/open-data-scale-$SCALE-listed"
if [ ! -f "$LISTED/.complete" ]; then
  rm -rf "$PLAIN" "$LISTED"
  mkdir -p "$PLAIN" "$LISTED"
  cp -al "$RELEASE/cnpj" "$RELEASE/pgfn" "$PLAIN/"
  cp -al "$RELEASE/cnpj" "$RELEASE/pgfn" "$LISTED/"
  cp -a "$RELEASE/listas" "$LISTED/"
  python3 bench/pad_lists.py "$LISTED/listas"
  touch "$LISTED/.complete"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t ZIPS < <(find "$PLAIN" -name '*.zip' | sort)
# Head offices of RFB's establishments, spread evenly.
bench/portfolio_of.sh "$RELEASE" $(( SCALE * 5000 )) "$PORTFOLIO" >"$tmp/portfolio.txt"
# From the temporary folder: the run uses the queries and templates built into the binary.
cd "$tmp"
CELLS=(ours:"$BIN":"$PLAIN" lists:"$BIN":"$LISTED")
[ -n "${BEFORE:-}" ] && CELLS+=(before:"$(realpath "$BEFORE")":"$PLAIN")
for i in $(seq "$RUNS"); do
  /usr/bin/time -f "%e %M" -o "$tmp/floor-$i" bash -c 'for z in "$@"; do unzip -p "$z" >/dev/null; done' _ "${ZIPS[@]}"
  # Two at a time, largest first, each taking the next zip as it finishes.
  /usr/bin/time -f "%e %M" -o "$tmp/floor2-$i" bash -c \
    'ls -S "$@" | xargs -P 2 -n 1 unzip -p >/dev/null' _ "${ZIPS[@]}"
  for cell in "${CELLS[@]}"; do
    IFS=: read -r name bin dir <<<"$cell"
    /usr/bin/time -f "%e %M" -o "$tmp/$name-$i" "$bin" --quiet run --open-data "$dir" \
      --cnpjs "$tmp/portfolio.txt" --out "$tmp/out-$i" >/dev/null 2>"$tmp/run-$i.log" \
      || { cat "$tmp/run-$i.log"; exit 1; }
    cp "$tmp/out-$i/manifest.json" "$tmp/manifest-$name-$i.json"
    rm -rf "$tmp/out-$i"
  done
done
cd "$REPO"
python3 - "$tmp" "$RUNS" "$SCALE" "$PORTFOLIO" "$LISTED/listas" "$DATA/write-seconds-$SCALE" "${BEFORE:-}" "${ZIPS[@]}" <<'PY'
import datetime, json, os, statistics, sys, zipfile
tmp, runs, scale, portfolio, listas, write_file = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
before = sys.argv[7]
zips = sys.argv[8:]
def timed(name, i):
    wall, peak = open(f"{tmp}/{name}-{i}").read().split()
    return float(wall), int(peak) / 1024
floor = [timed("floor", i) for i in range(1, runs + 1)]
floor2 = [timed("floor2", i) for i in range(1, runs + 1)]
ours = [timed("ours", i) for i in range(1, runs + 1)]
listed = [timed("lists", i) for i in range(1, runs + 1)]
befores = [timed("before", i) for i in range(1, runs + 1)] if before else []
vs_before = [o / b for (o, _), (b, _) in zip(ours, befores)]
manifest = json.load(open(f"{tmp}/manifest-ours-1.json"))
listed_manifest = json.load(open(f"{tmp}/manifest-lists-1.json"))
files = manifest["open_data"]["files"]
zipped = sum(os.path.getsize(z) for z in zips)
raw = sum(i.file_size for z in zips for i in zipfile.ZipFile(z).infolist())
pgfn_rows = sum(f["rows_read"] for f in files if f["dataset"] == "pgfn_dividas")
companies = sum(f["rows_read"] for f in files if f["dataset"] == "rfb_empresas")
med = lambda xs: statistics.median(xs)
f_med, o_med = med(w for w, _ in floor), med(w for w, _ in ours)
ratios = [o / f for (o, _), (f, _) in zip(ours, floor)]
ratios2 = [o / f for (o, _), (f, _) in zip(ours, floor2)]
def stages_of(name, i):
    m = json.load(open(f"{tmp}/manifest-{name}-{i}.json"))
    out = {"reading the files": m["open_data"].get("read_ms", 0) / 1000, "the fetch": m["fetch"]["wall_seconds"]}
    out.update({s["stage"]: s["seconds"] for s in m.get("stages", [])})
    return out
rounds = [stages_of("ours", i) for i in range(1, runs + 1)]
def spread(xs):
    return f"{med(xs):.1f} s | {min(xs):.1f} s | {max(xs):.1f} s"
stage_rows = [f"| {k} | {spread([r.get(k, 0) for r in rounds])} |" for k in rounds[0]]
peak = max(p for _, p in ours)
with_lists = [l / o for (l, _), (o, _) in zip(listed, ours)]
listed_peak = max(p for _, p in listed)
list_files = listed_manifest["open_data"].get("listas", [])
def read_seconds(name):
    return [json.load(open(f"{tmp}/manifest-{name}-{i}.json"))["open_data"].get("read_ms", 0) / 1000 for i in range(1, runs + 1)]
read_plain, read_listed = read_seconds("ours"), read_seconds("lists")
list_mib = sum(os.path.getsize(os.path.join(listas, f)) for f in os.listdir(listas)) / 2**20
write = open(write_file).read().strip() if os.path.exists(write_file) else "?"
gib = lambda b: b / 2**30
lines = [
    "# Open data at a real release's size: a run from the files against decompressing them", "",
    f"Measured {datetime.date.today()} on {os.cpu_count()} cores (release build), in one run, turn about: "
    f"`unzip -p` of every zip to /dev/null, then `fiscal-report run --open-data` of the same folder; {runs} rounds.", "",
    f"Release (the embedded registry's dataset at scale {scale}, written once in {write} s): {pgfn_rows:,} PGFN inscriptions "
    f"in three zips, {companies:,} companies in RFB's tables (three in ten parts each, and Simples); {len(zips)} zips, {gib(zipped):.2f} GiB zipped, "
    f"{gib(raw):.2f} GiB of text. Portfolio: {portfolio:,} head offices spread evenly over the Estabelecimentos file.", "",
    "| file | rows read | kept |", "|---|--:|--:|",
]
lines += [f"| {f['path']} | {f['rows_read']:,} | {f['rows_kept']:,} |" for f in files]
lines += [
    "", "| | median | fastest | slowest |", "|---|--:|--:|--:|",
    f"| floor: `unzip -p` of every zip | {f_med:.1f} s | {min(w for w, _ in floor):.1f} s | {max(w for w, _ in floor):.1f} s |",
    f"| `run --open-data` (whole run) | {o_med:.1f} s | {min(w for w, _ in ours):.1f} s | {max(w for w, _ in ours):.1f} s |",
    f"| ratio, round by round | **{med(ratios):.2f} x** | {min(ratios):.2f} x | {max(ratios):.2f} x |",
    f"| floor of two cores: `unzip -p`, two at a time | {spread([w for w, _ in floor2])} |",
    f"| ratio to two at a time, round by round | **{med(ratios2):.2f} x** | {min(ratios2):.2f} x | {max(ratios2):.2f} x |",
    f"| peak memory of the run | {med(p for _, p in ours):.0f} MiB | | {peak:.0f} MiB |",
    *([f"| the run of BEFORE (`{before}`) | {spread([w for w, _ in befores])} |",
       f"| this build / BEFORE, round by round | **{med(vs_before):.2f} x** | {min(vs_before):.2f} x | {max(vs_before):.2f} x |",
       f"| peak memory of BEFORE | {med(p for _, p in befores):.0f} MiB | | {max(p for _, p in befores):.0f} MiB |"]
      if before else []),
    f"| `run --open-data` with the full-size lists | {med(w for w, _ in listed):.1f} s | {min(w for w, _ in listed):.1f} s | {max(w for w, _ in listed):.1f} s |",
    f"| with lists / without, round by round | **{med(with_lists):.3f} x** | {min(with_lists):.3f} x | {max(with_lists):.3f} x |",
    f"| peak memory with the lists | {med(p for _, p in listed):.0f} MiB | | {listed_peak:.0f} MiB |", "",
    f"The lists of the second run ({list_mib:.0f} MiB on disk, grown by `bench/pad_lists.py`): "
    + ", ".join(f"{l['lista']} {l['linhas']:,} rows" for l in list_files) + ". "
    f"Reading the files took {med(read_plain):.1f} s without them and {med(read_listed):.1f} s with them (medians; "
    f"{med(l - p for l, p in zip(read_listed, read_plain)):+.1f} s round by round).", "",
    f"Each stage of the run without the lists, over the {runs} rounds:", "",
    "| stage | median | fastest | slowest |", "|---|--:|--:|--:|", *stage_rows, "",
    f"Target (issue #81): the run at most 0.75 x one `unzip -p` and 1.1 x two at a time, peak under 1 GiB: "
    f"{'met' if max(ratios) <= 0.75 and max(ratios2) <= 1.1 and peak < 1024 else 'NOT met'} "
    f"({max(ratios):.2f} x and {max(ratios2):.2f} x at worst, {peak:.0f} MiB).", "",
    f"Target (issue #34): whole run at most 1.5 x the floor, peak memory at most 1 GiB: "
    f"{'met' if max(ratios) <= 1.5 and peak <= 1024 else 'NOT met'} ({max(ratios):.2f} x at worst, {peak:.0f} MiB).", "",
    f"Target (issue #71): the full-size lists add at most 10 % to the run: "
    f"{'met' if med(with_lists) <= 1.10 else 'NOT met'} (median {100 * (med(with_lists) - 1):+.1f} %, "
    f"worst round {100 * (max(with_lists) - 1):+.1f} %).", "",
    f"Reproduce: `{'BEFORE=' + before + ' ' if before else ''}bench/open_data.sh` (SCALE={scale}, PORTFOLIO={portfolio}, RUNS={runs}; DATA keeps the release).", "",
]
path = "bench/results/open-data.md"
earlier = open(path).read().split("\n## Earlier\n", 1)[1:] if os.path.exists(path) else []
text = "\n".join(lines)
if earlier:
    text = text.rstrip("\n") + "\n\n## Earlier\n" + earlier[0]
open(path, "w").write(text)
print("\n".join(lines))
PY
# The lists' own cost, measured apart: the whole run's spread is larger than it.
SCALE="$SCALE" DATA="$DATA" bench/lists_read.sh
