#!/usr/bin/env python3
"""Writes RFB's tax regime files at their published size into a release folder's
`regime_tributario/`, for the cost benchmark (bench/regime_cost.sh).

The published files (2026-01) hold about 10.6 million rows: every company that filed an ECF,
years 2016 to 2024 (tests/fixtures/real/SOURCES.md section 6, and a loader's notes on that
release). This writes, in the 2026 share's layout (`entidades-*.zip`, Lucro Presumido one member a
year, comma-separated with a header, CNPJs punctuated, CRLF in Lucro Presumido and Lucro
Arbitrado), one to nine years of rows for each CNPJ of PORTFOLIO (so the run keeps about as many
rows as a real portfolio of that size would) and filler rows for companies no dataset has (roots
starting with 98) up to ROWS in all.

    bench/pad_regime.py RELEASE_DIR PORTFOLIO_FILE [ROWS]
"""
import io
import random
import sys
import zipfile
from pathlib import Path

rng = random.Random(20261206)
HEADER = "ano,cnpj,cnpj_da_scp,forma_de_tributacao,quantidade_de_escrituracoes"
YEARS = range(2016, 2025)
# Rows by file in the 2026 release, roughly: Lucro Presumido most, then Imunes e Isentas and
# Lucro Real, Lucro Arbitrado a few thousand (its zip is about 65 KB).
SHARE = [("LUCRO PRESUMIDO", 0.62), ("LUCRO REAL", 0.17), ("IMUNE DO IRPJ", 0.11), ("ISENTA DO IRPJ", 0.095), ("LUCRO ARBITRADO", 0.005)]


def check_digits(base):
    out = list(base)
    for weights in ([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]):
        r = sum(d * w for d, w in zip(out, weights)) % 11
        out.append(0 if r < 2 else 11 - r)
    return "".join(map(str, out))


def masked(c):
    return f"{c[0:2]}.{c[2:5]}.{c[5:8]}/{c[8:12]}-{c[12:14]}"


def filler():
    return check_digits([9, 8] + [rng.randrange(10) for _ in range(6)] + [0, 0, 0, 1])


def form():
    r, acc = rng.random(), 0.0
    for f, share in SHARE:
        acc += share
        if r < acc:
            return f
    return SHARE[0][0]


def main():
    release, portfolio = Path(sys.argv[1]), Path(sys.argv[2])
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 10_600_000
    members = {}  # (zip, member) -> StringIO

    def put(year, cnpj, forma):
        if forma == "LUCRO PRESUMIDO":
            key = ("entidades-lucro-presumido.zip", f"Lucro Presumido {year}.csv", "\r\n")
        elif forma == "LUCRO REAL":
            key = ("entidades-lucro-real.zip", "Lucro Real.csv", "\n")
        elif forma == "LUCRO ARBITRADO":
            key = ("entidades-lucro-arbitrado.zip", "Lucro Arbitrado.csv", "\r\n")
        else:
            key = ("entidades-imunes-e-isentas.zip", "Imunes e Isentas.csv", "\n")
        buf = members.get(key)
        if buf is None:
            buf = members[key] = io.StringIO()
            buf.write(HEADER + key[2])
        buf.write(f"{year},{masked(cnpj)},0,{forma},1{key[2]}")

    written = 0
    for line in portfolio.read_text().split():
        f = form()
        for year in rng.sample(list(YEARS), rng.randint(1, 9)):
            put(year, line.strip(), f)
            written += 1
    while written < rows:
        c, f = filler(), form()
        for year in range(rng.randint(2016, 2024), 2025):
            put(year, c, f)
            written += 1
    out = release / "regime_tributario"
    out.mkdir(parents=True, exist_ok=True)
    for name in sorted({k[0] for k in members}):
        with zipfile.ZipFile(out / name, "w", zipfile.ZIP_DEFLATED) as z:
            for (zname, member, _), buf in sorted(members.items()):
                if zname == name:
                    z.writestr(member, buf.getvalue())
    print(f"{written} rows in {out}")


main()
