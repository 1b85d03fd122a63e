"""Pieces the two RRF loaders (UMLS and RxNorm) share: atom filters, grouping by concept,
code mappings, and relationship rows."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import groupby

from kgverify.graph.model import CODE_NAMESPACES, concept_id
from kgverify.rows import Tally
from loaders.base import LoadOptions, Row
from loaders.relations import RRF_REL_CODES, map_rrf
from loaders.rrf import Line

SUPPRESSED = frozenset({"O", "E", "Y"})
CONSO_COLUMNS = tuple(
    ("CUI LAT TS LUI STT SUI ISPREF AUI SAUI SCUI SDUI SAB TTY CODE STR SRL SUPPRESS CVF").split()
)
REL_COLUMNS_UMLS = tuple(
    ("CUI1 AUI1 STYPE1 REL CUI2 AUI2 STYPE2 RELA RUI SRUI SAB SL RG DIR SUPPRESS CVF").split()
)
REL_COLUMNS_RXNORM = tuple(
    ("CUI1 AUI1 STYPE1 REL CUI2 AUI2 STYPE2 RELA RUI SRUI SAB SL DIR RG SUPPRESS CVF").split()
)


def kept_atoms(
    lines: Iterable[Line], tally: Tally, options: LoadOptions, id_pattern: re.Pattern[str]
) -> Iterator[Line]:
    """Atoms that pass the language, source and suppression options; others are counted."""
    for line in lines:
        f = line.fields
        if not id_pattern.fullmatch(f["CUI"]):
            tally.reject(line.number, f"malformed concept id: {f['CUI']!r}", "|".join(f.values()))
        elif f["LAT"] not in options.languages:
            tally.skip(f"language {f['LAT']} not selected")
        elif options.sources is not None and f["SAB"] not in options.sources:
            tally.skip("source not selected")
        elif f["SUPPRESS"] in SUPPRESSED and not options.include_suppressed:
            tally.skip(f"suppressed atom (SUPPRESS={f['SUPPRESS']})")
        elif not f["STR"].strip():
            tally.reject(line.number, "empty STR", "|".join(f.values()))
        else:
            tally.loaded += 1
            yield line


def name_rank(atom: dict[str, str]) -> int:
    """How good an atom's string is as a name, 0 best: preferred first, then English.

    Names are chosen by (rank, string), a total order, so the same release gives the same
    names whatever order its lines arrive in (a concept or code split over several row
    groups keeps the best of all of them).
    """
    preferred = atom["TS"] == "P" and atom["STT"] == "PF" and atom["ISPREF"] == "Y"
    return (0 if preferred else 2) + (0 if atom["LAT"] == "ENG" else 1)


def best_name(atoms: Iterable[dict[str, str]]) -> tuple[str, int]:
    """The (name, rank) of the best-ranked atom; ties go to the smallest string."""
    rank, name = min((name_rank(a), a["STR"]) for a in atoms)
    return name, rank


def mapping(atom: dict[str, str]) -> Row | None:
    """The code-level concept an atom names (SNOMED CT code, RxNorm RXCUI, ...), if any."""
    namespace = CODE_NAMESPACES.get(atom["SAB"])
    code = atom["CODE"]
    if namespace is None or not code or code == "NOCODE":
        return None
    return {
        "id": concept_id(namespace, code),
        "vocab": namespace,
        "code": code,
        "name": atom["STR"],
        "name_rank": name_rank(atom),
        "names": [atom["STR"]],
        "sab": atom["SAB"],
        "ttys": [atom["TTY"]],
    }


def concept_groups(atoms: Iterable[Line]) -> Iterator[tuple[str, list[Line]]]:
    """Consecutive atoms of one concept (RRF files are sorted by concept id)."""
    for cui, group in groupby(atoms, key=lambda line: line.fields["CUI"]):
        yield cui, list(group)


def dedup_maps(atoms: list[Line]) -> list[Row]:
    """One mapping per (code, source): the best-ranked name, every name and term type."""
    maps: dict[tuple[str, str], Row] = {}
    for atom in atoms:
        m = mapping(atom.fields)
        if m is None:
            continue
        key = (m["id"], m["sab"])
        best = maps.setdefault(key, m)
        if best is m:
            continue
        best["ttys"] = sorted({*best["ttys"], *m["ttys"]})
        best["names"] = sorted({*best["names"], *m["names"]})
        if (m["name_rank"], m["name"]) < (best["name_rank"], best["name"]):
            best["name"], best["name_rank"] = m["name"], m["name_rank"]
    return list(maps.values())


def relationship_rows(
    lines: Iterable[Line],
    tally: Tally,
    options: LoadOptions,
    namespace: str,
    id_pattern: re.Pattern[str],
) -> Iterator[Row]:
    """Edge rows from MRREL/RXNREL lines, normalized to the graph's direction and types."""
    for line in lines:
        f = line.fields
        raw = "|".join(f.values())
        if f["REL"] not in RRF_REL_CODES:
            tally.reject(line.number, f"unknown relation name: REL={f['REL']!r}", raw)
            continue
        if not (id_pattern.fullmatch(f["CUI1"]) and id_pattern.fullmatch(f["CUI2"])):
            tally.reject(line.number, "malformed concept id", raw)
            continue
        if options.sources is not None and f["SAB"] not in options.sources:
            tally.skip("source not selected")
            continue
        if f["SUPPRESS"] in SUPPRESSED and not options.include_suppressed:
            tally.skip(f"suppressed relationship (SUPPRESS={f['SUPPRESS']})")
            continue
        if f["CUI1"] == f["CUI2"]:
            tally.skip("relationship within one concept")
            continue
        mapped = map_rrf(f["REL"], f["RELA"])
        if mapped is None:
            tally.skip(f"relation not modelled: {f['RELA'] or f['REL']}")
            continue
        first, second = concept_id(namespace, f["CUI1"]), concept_id(namespace, f["CUI2"])
        start, end = (first, second) if mapped.inverse else (second, first)
        group = int(f["RG"]) if f["RG"].isdigit() else 0
        tally.loaded += 1
        yield {
            "start": start,
            "end": end,
            "type": mapped.type.value,
            "source_rel": mapped.name,
            "sab": f["SAB"],
            "group": group,
            "active": True,
            "effective_time": None,
            "line": line.number,
            "canonical": not mapped.inverse,
        }
