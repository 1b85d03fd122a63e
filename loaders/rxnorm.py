"""RxNorm full release in RRF: RXNCONSO (concepts by term type, names, code mappings),
RXNREL (ingredients, brands, dose forms, components) and RXNSAT (NDCs, strengths)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import groupby
from pathlib import Path

from kgverify.errors import LoadError
from kgverify.graph.model import Kind, Vocab, concept_id
from kgverify.rows import Tally
from loaders.base import Release, Row, Step, VocabularyLoader
from loaders.kinds import RXNORM_TTY_KIND
from loaders.rrf import Line, read_rrf
from loaders.rrf_common import (
    CONSO_COLUMNS,
    REL_COLUMNS_RXNORM,
    SUPPRESSED,
    concept_groups,
    dedup_maps,
    kept_atoms,
    relationship_rows,
)

RXCUI = re.compile(r"\d{1,10}")
SAT_COLUMNS = tuple(("RXCUI LUI SUI RXAUI STYPE CODE ATUI SATUI ATN SAB ATV SUPPRESS CVF").split())
# Term types that name an RxNorm concept (as opposed to synonyms such as SY, TMSY, PSN).
NAMING_TTYS = tuple(RXNORM_TTY_KIND)
_RELEASE_DIR = re.compile(r"RxNorm_full_(\d{2})(\d{2})(\d{4})")
_ATTRIBUTES = {"NDC", "RXN_STRENGTH", "RXN_AVAILABLE_STRENGTH", "RXN_HUMAN_DRUG"}


class RxNormLoader(VocabularyLoader):
    """Loads an RxNorm full release folder (``rrf/`` with RXNCONSO, RXNREL, RXNSAT; all three
    required and non-empty)."""

    name = "rxnorm"
    vocab = Vocab.RXNORM
    source_format = "RxNorm full release RRF (RXNCONSO, RXNREL, RXNSAT)"
    license = "RxNorm: public (SAB=RXNORM); other sources inside carry their own terms"

    def release(self) -> Release:
        if self.options.release:
            return Release(Vocab.RXNORM, self.options.release, self.options.release)
        conso = self.require("RXNCONSO.RRF")
        for part in reversed(conso.resolve().parts):
            if match := _RELEASE_DIR.fullmatch(part):
                month, day, year = match.groups()
                iso = f"{year}-{month}-{day}"
                return Release(Vocab.RXNORM, iso, iso)
        raise LoadError(f"cannot tell the RxNorm release of {self.path}: pass --release")

    def steps(self) -> list[Step]:
        conso, rel = self.require("RXNCONSO.RRF"), self.require("RXNREL.RRF")
        steps = [
            Step.concepts(conso, lambda t: self._concepts(conso, t), mappings=True),
            Step.relationships(
                rel,
                lambda t: relationship_rows(
                    read_rrf(rel, REL_COLUMNS_RXNORM, t), t, self.options, "RXNORM", RXCUI
                ),
            ),
        ]
        # Required: without it a newer release would keep the older one's NDCs and strengths.
        sat = self.require("RXNSAT.RRF")
        steps.append(
            Step.update(
                "attributes",
                sat,
                "load/set_drug_attributes",
                lambda t: self._attributes(sat, t),
                required=True,
            )
        )
        return steps

    def _concepts(self, path: Path, tally: Tally) -> Iterator[Row]:
        atoms = kept_atoms(read_rrf(path, CONSO_COLUMNS, tally), tally, self.options, RXCUI)
        for rxcui, group in concept_groups(atoms):
            own = [a for a in group if a.fields["SAB"] == "RXNORM"]
            naming = [a for a in own if a.fields["TTY"] in RXNORM_TTY_KIND]
            ttys = sorted({a.fields["TTY"] for a in naming})
            kinds = sorted({RXNORM_TTY_KIND[t].value for t in ttys}) or [Kind.OTHER.value]
            names = sorted({a.fields["STR"] for a in group})
            # The RxNorm name of a naming term type; else the first name, ranked last, so a
            # concept split over several row groups still gets the same name (see name_rank).
            name, rank = (min(a.fields["STR"] for a in naming), 0) if naming else (names[0], 9)
            yield {
                "id": concept_id("RXNORM", rxcui),
                "code": rxcui,
                "name": name,
                "name_rank": rank,
                "names": names,
                "kinds": kinds,
                "semantic_types": ttys,
                "active": True,
                "effective_time": None,
                "line": group[0].number,
                "maps": [m for m in dedup_maps(group) if m["vocab"] != "RXNORM"],
            }

    def _attributes(self, path: Path, tally: Tally) -> Iterator[Row]:
        kept = self._kept_attributes(read_rrf(path, SAT_COLUMNS, tally), tally)
        for rxcui, group_iter in groupby(kept, key=lambda line: line.fields["RXCUI"]):
            group = list(group_iter)
            by_name: dict[str, list[str]] = {}
            for line in group:
                by_name.setdefault(line.fields["ATN"], []).append(line.fields["ATV"])
            human = by_name.get("RXN_HUMAN_DRUG")
            yield {
                "id": concept_id("RXNORM", rxcui),
                "ndcs": sorted(set(by_name.get("NDC", []))),
                "strength": _first(by_name.get("RXN_STRENGTH")),
                "available_strength": _first(by_name.get("RXN_AVAILABLE_STRENGTH")),
                "human_drug": None if human is None else human[0].upper() not in ("N", "0"),
                "line": group[0].number,
                "lines": [line.number for line in group],  # each line's own, for its reject
                "count": len(group),
            }

    def _kept_attributes(self, lines: Iterator[Line], tally: Tally) -> Iterator[Line]:
        for line in lines:
            f = line.fields
            if not RXCUI.fullmatch(f["RXCUI"]):
                tally.reject(
                    line.number, f"malformed concept id: {f['RXCUI']!r}", "|".join(f.values())
                )
            elif f["ATN"] not in _ATTRIBUTES:
                tally.skip(f"attribute not modelled: {f['ATN']}")
            elif f["SUPPRESS"] in SUPPRESSED and not self.options.include_suppressed:
                tally.skip(f"suppressed attribute (SUPPRESS={f['SUPPRESS']})")
            else:
                tally.loaded += 1
                yield line


def _first(values: list[str] | None) -> str | None:
    return values[0] if values else None
