#!/usr/bin/env python3
"""Grows the public lists a release holds (`listas/`) to the size their publishers' files have.

The embedded dataset writes only the records that touch its companies: a few dozen rows a list.
The published files are far larger, IBAMA's above all (about 116,000 embargoes and 200 MB, most
of it the embargoed area's WKT polygon). This appends filler rows to each list, in its own
layout and encoding, until it has the rows below; every filler row names a document no dataset
company has (a fresh valid CNPJ), so the matches do not change, only the reading work.

    bench/pad_lists.py LISTAS_DIR    # in place

Row counts: IBAMA's from the reference (116 k records, 200 MB); CGU's and the MTE's of the order
the portal and gov.br published in 2025 (assumed, not measured here: no network).
"""
import csv
import io
import os
import random
import sys
import zipfile
from pathlib import Path

ROWS = {
    "CEIS": 22_000,
    "CNEP": 1_600,
    "CEPIM": 3_600,
    "AcordosLeniencia": 150,
    "MTE": 700,
    "IBAMA": 116_000,
    # CGU's PEP register: about 130 k rows in 2025 (a copy of it in a public repository,
    # tests/fixtures/real/SOURCES.md section 8).
    "PEP": 130_000,
}
rng = random.Random(20261203)


def cnpj() -> str:
    """A random valid CNPJ whose root starts with 98: the dataset's companies have none such."""
    base = [9, 8] + [rng.randrange(10) for _ in range(10)]
    for weights in ([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2], [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]):
        r = sum(d * w for d, w in zip(base, weights)) % 11
        base.append(0 if r < 2 else 11 - r)
    return "".join(map(str, base))


def punctuated(c: str) -> str:
    return f"{c[:2]}.{c[2:5]}.{c[5:8]}/{c[8:12]}-{c[12:]}"


def polygon() -> str:
    """A WKT polygon of about 1,450 characters, as IBAMA's areas are."""
    x, y = -55 - rng.random() * 5, -10 - rng.random() * 5
    points = [f"{x + rng.random() / 10:.8f} {y + rng.random() / 10:.8f}" for _ in range(62)]
    return "POLYGON((" + ", ".join(points + points[:1]) + "))"


def grow_cgu(path: Path, rows: int) -> None:
    """A CGU zip: its first CSV grows; the document column is the one naming a CPF or CNPJ."""
    with zipfile.ZipFile(path) as z:
        entries = [(i.filename, z.read(i)) for i in z.infolist()]
    name, data = entries[0]
    lines = list(csv.reader(io.StringIO(data.decode("latin-1")), delimiter=";"))
    header, body = lines[0], lines[1:]
    doc = next(i for i, h in enumerate(header) if "CNPJ" in h)
    out = io.StringIO()
    w = csv.writer(out, delimiter=";", quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    w.writerows(lines)
    for n in range(max(0, rows - len(body))):
        row = list(body[n % len(body)]) if body else [""] * len(header)
        row[doc] = cnpj()
        w.writerow(row)
    entries[0] = (name, out.getvalue().encode("latin-1"))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in entries:
            z.writestr(n, b)


def masked_cpf() -> str:
    """A masked CPF as CGU writes one, its middle digits starting 99: no dataset partner's."""
    return f"***.99{rng.randrange(10)}.{rng.randrange(1000):03d}-**"


def grow_pep(path: Path, rows: int) -> None:
    """CGU's PEP zip (`;`, no quoting, Latin-1): rows of the real sample's offices and organs,
    each a fresh masked CPF, so a name may be a partner's but no middle digits are."""
    real = Path(__file__).resolve().parent.parent / "tests/fixtures/real/cgu_pep.csv"
    sample = real.read_text(encoding="utf-8").splitlines()[1:]
    with zipfile.ZipFile(path) as z:
        (name, data), = [(i.filename, z.read(i)) for i in z.infolist()]
    lines = data.decode("latin-1").rstrip("\r\n").split("\r\n")
    for n in range(max(0, rows - (len(lines) - 1))):
        cells = sample[n % len(sample)].split(";")
        cells[0] = masked_cpf()
        lines.append(";".join(cells))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(name, ("\r\n".join(lines) + "\r\n").encode("latin-1", "replace"))


def grow_mte(path: Path, rows: int) -> None:
    """The MTE's CSV: rows go between the header and the text lines after the rows."""
    lines = path.read_bytes().split(b"\r\n")
    at = next(i for i, l in enumerate(lines) if l.startswith(b"ID;"))
    end = at + 1
    while end < len(lines) and lines[end].strip():
        end += 1
    body = lines[at + 1 : end]
    extra = []
    for n in range(max(0, rows - len(body))):
        cells = body[n % len(body)].split(b";")
        cells[0] = str(len(body) + n + 1).encode()
        cells[4] = punctuated(cnpj()).encode()
        extra.append(b";".join(cells))
    path.write_bytes(b"\r\n".join(lines[:end] + extra + lines[end:]))


def grow_ibama(path: Path, rows: int) -> None:
    """IBAMA's CSV (UTF-8 with a BOM): rows appended, each with its own polygon."""
    stat = path.stat()
    text = path.read_bytes().removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    lines = list(csv.reader(io.StringIO(text), delimiter=";"))
    header, body = lines[0], lines[1:]
    doc, geom = header.index("CPF_CNPJ_EMBARGADO"), header.index("GEOM_AREA_EMBARGADA")
    seq = header.index("SEQ_TAD")
    with path.open("a", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter=";", quoting=csv.QUOTE_ALL, lineterminator="\n")
        for n in range(max(0, rows - len(body))):
            row = list(body[n % len(body)])
            row[seq], row[doc], row[geom] = str(2_000_000 + n), punctuated(cnpj()), polygon()
            w.writerow(row)
    # The file says no date of its own: the day it was written is the list's; keep it.
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def main() -> None:
    folder = Path(sys.argv[1])
    for z in sorted(folder.glob("*.zip")):
        kind = z.stem.split("_", 1)[1]
        (grow_pep if kind == "PEP" else grow_cgu)(z, ROWS[kind])
    grow_mte(folder / "cadastro_de_empregadores.csv", ROWS["MTE"])
    grow_ibama(folder / "termo_de_embargo.csv", ROWS["IBAMA"])
    for f in sorted(folder.iterdir()):
        print(f"{f.name}: {f.stat().st_size / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
