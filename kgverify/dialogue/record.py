"""The record a dialogue is judged against: one patient's fact sheet (``derive facts``) seen
from one encounter, and what each of its concepts reaches in the graph.

At an encounter the patient may say its ``patient_can_say`` facts and anything of an earlier
encounter except lab results (they lived through those); its ``record_only`` facts (the
diagnosis to be found, other conditions, labs, procedures) are what the patient should not
know. Without an encounter the whole record counts: every ``patient_can_say`` fact is
sayable, every other fact record-only."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from kgverify.derive.model import SHEETS, SHEETS_GZIP, EncounterSheet, FactSheet, SheetFact
from kgverify.derive.sheetfile import read_sheets
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph, batched


@dataclass(frozen=True)
class RecordView:
    """What one patient may say at one encounter, and what only the record holds."""

    sheet: FactSheet
    encounter: str | None
    start: str | None
    sayable: list[tuple[SheetFact, str]]  # (fact, where: "this encounter" / "an earlier ...")
    record_only: list[SheetFact]
    age_band: str | None = None  # at the encounter (the sheet's band for the whole record)
    current: frozenset[str] = frozenset()  # fact ids of the drugs and symptoms at the encounter
    # Fact ids some encounter up to this one lists as history or as its diagnosis: conditions
    # the patient was told of, whether or not this encounter's sheet still lists them (it
    # shows the ``derive_history`` most recent only).
    told: frozenset[str] = frozenset()

    @property
    def facts(self) -> Iterator[SheetFact]:
        yield from (f for f, _ in self.sayable)
        yield from self.record_only

    def active(self, fact: SheetFact) -> bool:
        """Whether ``fact`` holds at the encounter: a drug or symptom of the encounter itself
        (its ``current_drug`` and ``symptom`` sections, the last encounter's for the whole
        record), or any other fact without an end, or ending after the encounter began. A
        drug recorded at an earlier encounter is not current, however it was recorded."""
        if fact.fact_id in self.current:
            return True
        if fact.section in CURRENT_SECTIONS:
            return False
        return fact.end is None or (self.start is not None and fact.end[:10] >= self.start[:10])

    @cached_property
    def codes(self) -> dict[str, SheetFact]:
        """The codes of the record's facts, whatever their system (SNOMED CT, LOINC,
        ICD-10-CM, RxNorm, NDC), under ``code_key`` (the part after the system), each to its
        fact; read once per view (a long record has tens of thousands)."""
        out: dict[str, SheetFact] = {}
        for fact in self.sheet_facts():
            key = code_key(fact.code.split(":", 1)[-1])
            if len(key) >= 3:
                out.setdefault(key, fact)
        return out

    def sheet_facts(self) -> Iterator[SheetFact]:
        for sheet in self.sheet.encounters:
            yield from sheet.patient_can_say
            yield from sheet.record_only


CURRENT_SECTIONS = frozenset({"current_drug", "symptom"})
"""The sections that hold what is true at the encounter itself."""

_NDC = re.compile(r"(\d{4,5})-(\d{3,4})-(\d{1,2})")


def code_key(code: str) -> str:
    """A code as a key both its record and its spoken form share: letters upper-cased and
    separators dropped ("I48.91" and "i4891", "718-7" and "7187"); an NDC in any of its
    hyphenated 10-digit layouts (4-4-2, 5-3-2, 5-4-1) padded to the 11-digit 5-4-2 one."""
    ndc = _NDC.fullmatch(code.strip())
    if ndc is not None and len("".join(ndc.groups())) in (10, 11):
        labeler, product, package = ndc.groups()
        return labeler.zfill(5) + product.zfill(4) + package.zfill(2)
    return re.sub(r"[^0-9A-Z]", "", code.upper())


def _current(here: EncounterSheet | None) -> frozenset[str]:
    if here is None:
        return frozenset()
    return frozenset(f.fact_id for f in here.patient_can_say if f.section in CURRENT_SECTIONS)


def view(sheet: FactSheet, encounter: str | None) -> RecordView | None:
    """The record as seen from ``encounter`` (None: the whole record); None when the sheet
    has no such encounter."""
    if encounter is None:
        sayable = {
            f.fact_id: (f, "the record") for e in sheet.encounters for f in e.patient_can_say
        }
        record_only = {
            f.fact_id: f
            for e in sheet.encounters
            for f in e.record_only
            if f.fact_id not in sayable
        }
        last = sheet.encounters[-1] if sheet.encounters else None
        return RecordView(
            sheet,
            None,
            last.start if last else None,
            list(sayable.values()),
            list(record_only.values()),
            last.age_band if last and last.age_band else sheet.age_band,
            _current(last),
            _told(sheet.encounters),
        )
    at = next((n for n, e in enumerate(sheet.encounters) if e.episode == encounter), None)
    if at is None:
        return None
    here = sheet.encounters[at]
    said: dict[str, tuple[SheetFact, str]] = {
        f.fact_id: (f, "this encounter") for f in here.patient_can_say
    }
    for earlier in sheet.encounters[:at]:
        for f in earlier.patient_can_say + earlier.record_only:
            if f.section != "lab":
                said.setdefault(f.fact_id, (f, f"an earlier encounter ({earlier.episode})"))
    held = [f for f in here.record_only if f.fact_id not in said]
    age = here.age_band or sheet.age_band
    told = _told(sheet.encounters[: at + 1])
    return RecordView(
        sheet, encounter, here.start, list(said.values()), held, age, _current(here), told
    )


TOLD_SECTIONS = frozenset({"diagnosis", "history"})
"""Sections that say the patient was told of a condition: diagnosed at a visit, or listed as
history at a later one."""


def _told(encounters: Iterable[EncounterSheet]) -> frozenset[str]:
    return frozenset(
        f.fact_id
        for e in encounters
        for f in e.patient_can_say + e.record_only
        if f.section in TOLD_SECTIONS
    )


class SheetFile:
    """The fact sheets of ``derive facts`` (``DIR/sheets.jsonl`` or ``.jsonl.gz``), read
    once; ``get`` by patient id."""

    def __init__(self, folder: Path, patients: Iterable[str] | None = None) -> None:
        path = folder
        if folder.is_dir():  # either file of a ``derive facts`` folder
            found = [folder / n for n in (SHEETS, SHEETS_GZIP) if (folder / n).is_file()]
            path = found[0] if found else folder / SHEETS
        if not path.is_file():
            raise ConfigError(f"no fact sheets at {folder} (run `kgverify derive facts -o DIR`)")
        wanted = set(patients) if patients is not None else None
        self.sheets: dict[str, FactSheet] = {}
        for sheet in read_sheets(path):
            if wanted is None or sheet.patient_id in wanted:
                self.sheets[sheet.patient_id] = sheet

    def get(self, patient_id: str) -> FactSheet | None:
        return self.sheets.get(patient_id)


@dataclass
class Reach:
    """What one concept reaches in the graph (``queries/dialogue/reach.cypher``)."""

    id: str
    same: set[str] = field(default_factory=set)
    up: dict[str, dict[str, Any]] = field(default_factory=dict)  # ancestor id -> {depth, edges}
    ingredients: dict[str, list[dict[str, str]]] = field(default_factory=dict)  # id -> edges
    manifests: dict[str, list[dict[str, str]]] = field(default_factory=dict)  # finding -> edges
    morphologies: dict[str, list[dict[str, str]]] = field(default_factory=dict)  # shape -> edges


class ReachCache:
    """Reaches read from the graph in batches and kept (bounded) for the next turns."""

    def __init__(self, graph: Graph, hubs: dict[str, bool], max_depth: int, size: int = 50_000):
        self.graph = graph
        self.hubs = hubs
        self.max_depth = max_depth
        self.size = size
        self._known: dict[str, Reach] = {}

    def get(self, ids: Iterable[str]) -> dict[str, Reach]:
        wanted = list(dict.fromkeys(ids))
        missing = [i for i in wanted if i not in self._known]
        if len(self._known) + len(missing) > self.size:
            self._known.clear()  # a simple bound: the next turns refill what they need
            missing = wanted
        for chunk in batched(missing, 1_000):
            rows = self.graph.read(
                "dialogue/reach", ids=chunk, hubs=self.hubs, max_depth=self.max_depth
            )
            found = {row["id"]: row for row in rows}
            for concept in chunk:
                row = found.get(concept)
                reach = Reach(concept, {concept})
                if row is not None:
                    reach.same |= set(row["same"])
                    reach.up = {u["id"]: u for u in row["up"]}
                    reach.ingredients = {i["id"]: i["edges"] for i in row["ingredients"]}
                    reach.manifests = {f["id"]: f["edges"] for f in row["manifests"]}
                    reach.morphologies = {m["id"]: m["edges"] for m in row["morphologies"]}
                self._known[concept] = reach
        return {i: self._known[i] for i in wanted if i in self._known}
