"""UMLS Metathesaurus in RRF: MRCONSO (concepts, names, code mappings), MRSTY (semantic
types), MRDEF (definitions), MRREL (relationships) and MRSAB (source versions)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import groupby
from pathlib import Path

from kgverify.errors import LoadError
from kgverify.graph.model import Vocab, concept_id
from kgverify.rows import Tally
from loaders.base import Release, Row, Step, VocabularyLoader
from loaders.kinds import kinds_for_tuis
from loaders.rrf import Line, read_rrf
from loaders.rrf_common import (
    CONSO_COLUMNS,
    REL_COLUMNS_UMLS,
    SUPPRESSED,
    best_name,
    concept_groups,
    dedup_maps,
    kept_atoms,
    relationship_rows,
)

CUI = re.compile(r"C\d{7}")
STY_COLUMNS = tuple("CUI TUI STN STY ATUI CVF".split())
DEF_COLUMNS = tuple("CUI AUI ATUI SATUI SAB DEF SUPPRESS CVF".split())
SAB_COLUMNS = tuple(
    (
        "VCUI RCUI VSAB RSAB SON SF SVER VSTART VEND IMETA RMETA SLC SCC SRL TFR CFR CXTY "
        "TTYL ATNL LAT CENC CURVER SABIN SSN SCIT"
    ).split()
)
_RELEASE_NAME = re.compile(r"^\d{4}A[AB]$")


class UmlsLoader(VocabularyLoader):
    """Loads a UMLS release folder (``META/`` with the RRF files, or the files themselves)."""

    name = "umls"
    vocab = Vocab.UMLS
    source_format = "UMLS Metathesaurus RRF (MRCONSO, MRSTY, MRDEF, MRREL, MRSAB)"
    license = "UMLS Metathesaurus License (NLM); the bundled sample is synthetic-plus-public"

    def release(self) -> Release:
        version = self.options.release or self._detect_version()
        return Release(Vocab.UMLS, version, version)

    def _detect_version(self) -> str:
        dat = self.find("release.dat")
        if dat is not None:
            for line in dat.read_text(encoding="utf-8", errors="replace").splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "umls.release.name" and value.strip():
                    return value.strip()
        conso = self.require("MRCONSO.RRF")
        for part in reversed(conso.resolve().parts):
            if _RELEASE_NAME.match(part):
                return part
        raise LoadError(f"cannot tell the UMLS release of {self.path}: pass --release")

    def steps(self) -> list[Step]:
        conso, sty, rel = (self.require(f) for f in ("MRCONSO.RRF", "MRSTY.RRF", "MRREL.RRF"))
        steps = [
            Step.concepts(conso, lambda t: self._concepts(conso, t), mappings=True),
            Step.update(
                "semantic types",
                sty,
                "load/set_semantic_types",
                lambda t: self._semantic_types(sty, t),
            ),
        ]
        if (definitions := self.find("MRDEF.RRF")) is not None:
            steps.append(
                Step.update(
                    "definitions",
                    definitions,
                    "load/set_definitions",
                    lambda t: self._definitions(definitions, t),
                )
            )
        steps.append(
            Step.relationships(
                rel,
                lambda t: relationship_rows(
                    read_rrf(rel, REL_COLUMNS_UMLS, t), t, self.options, "UMLS", CUI
                ),
            )
        )
        if (sab := self.find("MRSAB.RRF")) is not None:
            steps.append(
                Step(
                    "source versions",
                    sab,
                    ("load/set_release_sources",),
                    "update",
                    lambda t: self._sources(sab, t),
                )
            )
        return steps

    def _concepts(self, path: Path, tally: Tally) -> Iterator[Row]:
        atoms = kept_atoms(read_rrf(path, CONSO_COLUMNS, tally), tally, self.options, CUI)
        for cui, group in concept_groups(atoms):
            name, rank = best_name(a.fields for a in group)
            yield {
                "id": concept_id("UMLS", cui),
                "code": cui,
                "name": name,
                "name_rank": rank,
                "names": sorted({a.fields["STR"] for a in group}),
                "kinds": [],
                "semantic_types": [],
                "active": True,
                "effective_time": None,
                "line": group[0].number,
                "maps": dedup_maps(group),
            }

    def _semantic_types(self, path: Path, tally: Tally) -> Iterator[Row]:
        for cui, group_iter in groupby(
            self._valid_cuis(read_rrf(path, STY_COLUMNS, tally), tally),
            key=lambda line: line.fields["CUI"],
        ):
            group = list(group_iter)
            tuis = [g.fields["TUI"] for g in group]
            tally.loaded += len(group)
            yield {
                "id": concept_id("UMLS", cui),
                "tuis": tuis,
                "stys": [g.fields["STY"] for g in group],
                "kinds": kinds_for_tuis(tuis),
                "line": group[0].number,
                "lines": [g.number for g in group],  # each line's own, for its reject
                "count": len(group),
            }

    @staticmethod
    def _valid_cuis(lines: Iterator[Line], tally: Tally) -> Iterator[Line]:
        for line in lines:
            if CUI.fullmatch(line.fields["CUI"]):
                yield line
            else:
                raw = "|".join(line.fields.values())
                tally.reject(line.number, f"malformed concept id: {line.fields['CUI']!r}", raw)

    def _definitions(self, path: Path, tally: Tally) -> Iterator[Row]:
        for line in read_rrf(path, DEF_COLUMNS, tally):
            f = line.fields
            if self.options.sources is not None and f["SAB"] not in self.options.sources:
                tally.skip("source not selected")
            elif f["SUPPRESS"] in SUPPRESSED and not self.options.include_suppressed:
                tally.skip(f"suppressed definition (SUPPRESS={f['SUPPRESS']})")
            else:
                tally.loaded += 1
                yield {
                    "id": concept_id("UMLS", f["CUI"]),
                    "definition": f["DEF"],
                    "sab": f["SAB"],
                    "line": line.number,
                    "count": 1,
                }

    def _sources(self, path: Path, tally: Tally) -> Iterator[Row]:
        for line in read_rrf(path, SAB_COLUMNS, tally):
            tally.loaded += 1
            f = line.fields
            yield {"sab": f["RSAB"], "version": f["SVER"] or f["VSAB"], "name": f["SON"]}
