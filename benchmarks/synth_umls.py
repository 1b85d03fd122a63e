"""Generate a synthetic UMLS release in exact RRF shape, at any size, streaming.

    python benchmarks/synth_umls.py OUT_DIR --concepts 1000000 --relationships 5000000

Writes ``OUT_DIR/META/{MRCONSO,MRSTY,MRREL,MRSAB}.RRF`` and ``release.dat`` (release
``2099AA``, far from any real one). Concepts get 2-4 atoms (one preferred English atom, a
SNOMEDCT_US or RXNORM atom with a code, synonyms); relationships are drawn from the real
RELA pairs the loader maps (isa, may_treat, has_finding_site, ...), each written in both
directions as NLM does, so ``--relationships`` counts edges and MRREL has twice as many rows.
Deterministic for a given ``--seed``. Nothing is held in memory beyond one row.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

STYS = [
    ("T047", "B2.2.1.2.1", "Disease or Syndrome"),
    ("T184", "A2.2.2", "Sign or Symptom"),
    ("T121", "A1.4.1.1.1", "Pharmacologic Substance"),
    ("T200", "A1.3.3", "Clinical Drug"),
    ("T023", "A1.2.3.1", "Body Part, Organ, or Organ Component"),
]
PAIRS = [  # (forward RELA written CUI2 -> CUI1, inverse)
    ("isa", "inverse_isa", "CHD", "PAR"),
    ("may_treat", "may_be_treated_by", "RO", "RO"),
    ("has_finding_site", "finding_site_of", "RO", "RO"),
    ("has_manifestation", "manifestation_of", "RO", "RO"),
    ("has_ingredient", "ingredient_of", "RO", "RO"),
]
WORDS = (
    "acute chronic renal cardiac hepatic pulmonary viral bacterial primary secondary syndrome "
    "disorder infection failure deficiency tablet oral injection"
).split()


def cui(i: int) -> str:
    return f"C{i:07d}"


def name(rng: random.Random, i: int) -> str:
    return f"{' '.join(rng.choices(WORDS, k=3))} {i}"


def write(out: Path, concepts: int, relationships: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    meta = out / "META"
    meta.mkdir(parents=True, exist_ok=True)
    (meta / "release.dat").write_text("umls.release.name=2099AA\numls.release.date=20990101\n")
    counts = {"MRCONSO.RRF": 0, "MRSTY.RRF": 0, "MRREL.RRF": 0, "MRSAB.RRF": 2}
    aui = 0
    with (meta / "MRCONSO.RRF").open("w") as conso, (meta / "MRSTY.RRF").open("w") as sty:
        for i in range(1, concepts + 1):
            c = cui(i)
            base = name(rng, i)
            sab, tty = ("RXNORM", "IN") if i % 4 == 0 else ("SNOMEDCT_US", "PT")
            atoms = [
                ("P", "PF", "Y", "MTH", "PN", "NOCODE", base),
                ("S", "PF", "Y", sab, tty, str(100000 + i), base.upper()),
            ]
            atoms += [
                ("S", "VO", "N", "MSH", "SY", f"D{i:06d}", f"{base} variant {k}")
                for k in range(rng.randint(0, 2))
            ]
            for ts, stt, ispref, sab_, tty_, code, text in atoms:
                aui += 1
                conso.write(
                    f"{c}|ENG|{ts}|L{i:07d}|{stt}|S{aui:07d}|{ispref}|A{aui:08d}||||"
                    f"{sab_}|{tty_}|{code}|{text}|0|N|256|\n"
                )
                counts["MRCONSO.RRF"] += 1
            tui, stn, label = STYS[i % len(STYS)]
            sty.write(f"{c}|{tui}|{stn}|{label}|AT{i:08d}|256|\n")
            counts["MRSTY.RRF"] += 1
    with (meta / "MRREL.RRF").open("w") as rel:
        for r in range(relationships):
            a, b = rng.randint(1, concepts), rng.randint(1, concepts)
            if a == b:
                b = a % concepts + 1
            forward, inverse, rel_fwd, rel_inv = PAIRS[r % len(PAIRS)]
            # Row 1: CUI1=a, CUI2=b, "b <forward> a"; row 2 states the same pair inverted.
            rel.write(
                f"{cui(a)}|A{a:08d}|SCUI|{rel_fwd}|{cui(b)}|A{b:08d}|SCUI|{forward}|"
                f"R{2 * r:08d}||MTH|MTH||Y|N||\n"
            )
            rel.write(
                f"{cui(b)}|A{b:08d}|SCUI|{rel_inv}|{cui(a)}|A{a:08d}|SCUI|{inverse}|"
                f"R{2 * r + 1:08d}||MTH|MTH||N|N||\n"
            )
            counts["MRREL.RRF"] += 2
    with (meta / "MRSAB.RRF").open("w") as sab_file:
        for sab in ("MTH", "SNOMEDCT_US"):
            sab_file.write(
                f"C9{sab[:1]}00001|C9{sab[:1]}00002|{sab}2099|{sab}|Synthetic {sab}|"
                f"{sab}|2099|||2099AA|2099AA|||0|0|0||||ENG|UTF-8|Y|Y|{sab}||\n"
            )
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--concepts", type=int, default=1_000_000)
    parser.add_argument("--relationships", type=int, default=5_000_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    counts = write(args.out, args.concepts, args.relationships, args.seed)
    for file, n in counts.items():
        print(f"{file}: {n} rows")


if __name__ == "__main__":
    main()
