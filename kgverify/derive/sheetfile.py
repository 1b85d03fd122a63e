"""The fact-sheet file of ``derive facts`` (``sheets.jsonl``, gzip for ``.jsonl.gz``) and its
reader. A sheet repeats each fact in every encounter that shows it (history, current drugs)
and every patient repeats the vocabularies' wording, so the file stores each fact once per
sheet and each wording once per file: a *term* line (concept, recorded code, text) comes
before the first sheet that uses it, and a sheet's encounters point at its fact table by
index. ``read_sheets`` gives back the very ``FactSheet`` models that were written; it also
reads files of the earlier one-model-per-line form. docs/derivation.md, "Fact sheets on
disk", has the schema."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, RootModel

from kgverify.derive.model import EncounterSheet, FactSheet, SheetCheck, SheetFact
from kgverify.jsonl import BadLine, loads_line, numbered_lines, open_text


class _Line(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SheetTerm(_Line):
    """One wording of one concept, written once per file before the first sheet using it."""

    term: int = Field(description="its number in this file, from 0")
    concept_id: str
    code: str = Field(description="CODE_SYSTEM:code as recorded")
    text: str = Field(description="lay words for what the patient can say, else the name")


class StoredFact(_Line):
    """A sheet's fact once, whichever encounters and sections show it; fields left out of
    the line are None (``assertions``: empty, ``verdict``: grounded)."""

    fact_id: str
    term: int = Field(description="the term line giving its concept, code and text")
    start: str | None = None
    end: str | None = None
    value: float | str | None = None
    unit: str | None = None
    flag: str | None = None
    source_table: str
    source_row: str
    assertions: list[str] = Field(default_factory=list, description="passed assertion ids")
    verdict: str = "grounded"


class StoredEncounter(_Line):
    episode: str
    start: str | None
    kind: str | None
    age_band: str | None = None
    patient_can_say: list[tuple[str, list[int]]] = Field(
        description="runs of (section, indexes in the sheet's facts), in order"
    )
    record_only: list[tuple[str, list[int]]] = Field(
        description="runs of (section, indexes in the sheet's facts), in order"
    )


class StoredSheet(_Line):
    """A ``FactSheet`` with its facts in one table."""

    patient_id: str
    split: str
    age_band: str | None
    sex: str | None
    facts: list[StoredFact]
    encounters: list[StoredEncounter]
    checks: list[SheetCheck] = Field(default_factory=list)


_AS_STORED = set(StoredFact.model_fields) - {"term"}
"""The fields a ``SheetFact`` and its stored form share, copied as they are; the term line
holds the rest but the section, which the encounter's runs give."""


class SheetLine(RootModel[SheetTerm | StoredSheet]):
    """One line of the file: a term or a sheet (``schema.json`` of a ``derive facts`` folder)."""


class SheetWriter:
    """Lines for sheets as they come; the terms already written are remembered (as many
    as the distinct wordings of the vocabularies' concepts, not growing with patients)."""

    def __init__(self) -> None:
        self.terms: dict[tuple[str, str, str], int] = {}

    def lines(self, sheet: FactSheet) -> Iterator[str]:
        facts: dict[tuple[str, int], int] = {}
        table: list[StoredFact] = []

        def place(fact: SheetFact) -> tuple[int, str]:
            key = (fact.concept_id, fact.code, fact.text)
            term = self.terms.get(key)
            if term is None:
                term = self.terms[key] = len(self.terms)
                pending.append(SheetTerm(term=term, concept_id=key[0], code=key[1], text=key[2]))
            at = facts.get((fact.fact_id, term))
            if at is None:
                at = facts[(fact.fact_id, term)] = len(table)
                table.append(StoredFact(term=term, **fact.model_dump(include=_AS_STORED)))
            return at, fact.section

        pending: list[SheetTerm] = []
        encounters = [
            StoredEncounter(
                episode=e.episode,
                start=e.start,
                kind=e.kind,
                age_band=e.age_band,
                patient_can_say=_runs(place(f) for f in e.patient_can_say),
                record_only=_runs(place(f) for f in e.record_only),
            )
            for e in sheet.encounters
        ]
        stored = StoredSheet(
            patient_id=sheet.patient_id,
            split=sheet.split,
            age_band=sheet.age_band,
            sex=sheet.sex,
            facts=table,
            encounters=encounters,
            checks=sheet.checks,
        )
        for term in pending:
            yield term.model_dump_json()
        yield stored.model_dump_json(exclude_defaults=True)


def _runs(placed: Iterable[tuple[int, str]]) -> list[tuple[str, list[int]]]:
    """Consecutive facts of one section as one run: sections come in blocks (what the
    patient can say: symptoms, history, drugs, allergies), so each is named once."""
    runs: list[tuple[str, list[int]]] = []
    for at, section in placed:
        if runs and runs[-1][0] == section:
            runs[-1][1].append(at)
        else:
            runs.append((section, [at]))
    return runs


def write_sheets(sheets: Iterable[FactSheet], path: Path) -> int:
    """Write sheets as they come (owner-only; gzip for ``.gz``); returns how many."""
    writer = SheetWriter()
    count = 0
    with open_text(path, "wt") as out:
        for sheet in sheets:
            for line in writer.lines(sheet):
                out.write(line + "\n")
            count += 1
    return count


def _expanded(stored: StoredSheet, terms: dict[int, SheetTerm]) -> FactSheet:
    def fact(at: int, section: str) -> SheetFact:
        f = stored.facts[at]
        return SheetFact(
            section=section,
            **terms[f.term].model_dump(exclude={"term"}),
            **f.model_dump(include=_AS_STORED),
        )

    return FactSheet(
        patient_id=stored.patient_id,
        split=stored.split,
        age_band=stored.age_band,
        sex=stored.sex,
        encounters=[
            EncounterSheet(
                episode=e.episode,
                start=e.start,
                kind=e.kind,
                age_band=e.age_band,
                patient_can_say=[fact(at, s) for s, run in e.patient_can_say for at in run],
                record_only=[fact(at, s) for s, run in e.record_only for at in run],
            )
            for e in stored.encounters
        ],
        checks=stored.checks,
    )


def read_sheets(path: Path) -> Iterator[FactSheet]:
    """The sheets of a file ``write_sheets`` wrote (or of the earlier form, one
    ``FactSheet`` a line), streamed; a bad line raises ``ValueError`` (a pydantic
    ``ValidationError`` included) with its number."""
    terms: dict[int, SheetTerm] = {}
    for item in numbered_lines(path):
        if isinstance(item, BadLine):
            raise ValueError(f"{path}: line {item.line}: {item.reason}")
        number, text = item
        value = loads_line(text)
        if not isinstance(value, dict):
            raise ValueError(f"{path}: line {number}: not a JSON object")
        if "term" in value:
            term = SheetTerm.model_validate(value)
            terms[term.term] = term
        elif "facts" in value:
            stored = StoredSheet.model_validate(value)
            missing = {f.term for f in stored.facts} - terms.keys()
            if missing or any(
                not 0 <= at < len(stored.facts)
                for e in stored.encounters
                for _, run in e.patient_can_say + e.record_only
                for at in run
            ):
                raise ValueError(f"{path}: line {number}: a fact or term not defined before it")
            yield _expanded(stored, terms)
        else:
            yield FactSheet.model_validate(value)
