"""The encounter-level patient trajectory every EHR adapter produces (see docs/trajectories.md).

One schema for OMOP, MIMIC-IV and FHIR so that extraction, linking and the graph never look
at a source format. The models are frozen and reject unknown fields, so a trajectory read
back from JSONL is exactly what an adapter wrote. Privacy is part of the schema: patients and
encounters carry salted pseudonyms and an age band, never a source id, a name, an address or
a date of birth, and a note's text never appears in a ``repr`` or a log line.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from kgverify.bounds import MAX_ID_CHARS
from kgverify.jsonl import read_models, write_models

SourceName = Literal["omop", "mimic", "fhir"]
Sex = Literal["F", "M", "U"]
EncounterKind = Literal["inpatient", "outpatient", "emergency", "other"]
Flag = Literal["low", "high", "normal", "abnormal"]
# Ids and codes become node ids (patients, encounters, facts) or concept lookups: bounded
# (kgverify/bounds.py), so an adapter rejects an over-long one with the row's location.
Id = Annotated[str, Field(max_length=MAX_ID_CHARS)]


def _when(value: Any) -> Any:
    """Keep a date-only string a ``date``: pydantic would otherwise read it as midnight."""
    if isinstance(value, str) and len(value) == 10:
        return date.fromisoformat(value)
    return value


When = Annotated[date | datetime, BeforeValidator(_when)]
"""A day (``date``) or an instant (``datetime``, naive or with an offset), as the source gave it."""


def sort_key(when: date | datetime | None) -> datetime:
    """A comparable instant for any ``When``: days at midnight, offsets converted to UTC."""
    if when is None:
        return datetime.max
    if not isinstance(when, datetime):
        return datetime.combine(when, time())
    if when.tzinfo is not None:
        return when.astimezone(UTC).replace(tzinfo=None)
    return when


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SourceRef(_Frozen):
    """Where an item came from, so every fact can be traced back to its source row."""

    table: Id = Field(description="OMOP/MIMIC table, or FHIR resource type")
    row: Id = Field(description="primary key or FHIR resource id; 1-based line for MIMIC files")
    code_system: Id = Field(description="the code system as the source names it")
    code: Id = Field(description="the code as the source stores it (OMOP: the concept_id)")


def item_id_of(source: SourceRef) -> str:
    """A stable id: the same source row and code give the same id on every run."""
    text = "\x1f".join((source.table, source.row, source.code_system, source.code))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class Item(_Frozen):
    """What every clinical fact has; the subclasses add their own fields."""

    item_id: Id = Field(default="", description="content hash of source table, row and code")
    source: SourceRef
    display: str | None = None
    mapped: bool = Field(
        default=True,
        description="False when the source had no standard code and this is its own value",
    )
    start: When | None = Field(default=None, description="when it began or was recorded")

    @model_validator(mode="before")
    @classmethod
    def _fill_item_id(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("item_id") and "source" in data:
            source = data["source"]
            ref = source if isinstance(source, SourceRef) else SourceRef.model_validate(source)
            data = {**data, "item_id": item_id_of(ref)}
        return data


class CodedItem(Item):
    """An item that always has a code: everything but notes."""

    code_system: Id = Field(description="normalized: SNOMEDCT, RXNORM, LNC, ICD10CM, ICD9CM, ...")
    code: Id = Field(min_length=1)


class Condition(CodedItem):
    """A diagnosis or problem."""

    end: When | None = None


class DrugExposure(CodedItem):
    """A prescription, order or administration of a drug."""

    end: When | None = None
    route: str | None = None
    dose: str | None = Field(default=None, description="dose as given, e.g. '500' or '1-2'")
    dose_unit: str | None = None


class Measurement(CodedItem):
    """A lab result or vital sign; ``flag`` is derived from the range when the source has none."""

    value: float | None = None
    value_text: str | None = None
    unit: str | None = None
    ref_low: float | None = None
    ref_high: float | None = None
    flag: Flag | None = None

    @model_validator(mode="before")
    @classmethod
    def _derive_flag(cls, data: Any) -> Any:
        if isinstance(data, dict):
            flag = derive_flag(
                data.get("flag"), data.get("value"), data.get("ref_low"), data.get("ref_high")
            )
            data = {**data, "flag": flag}
        return data


def derive_flag(
    flag: Flag | None, value: float | None, low: float | None, high: float | None
) -> Flag | None:
    """The source's flag, else one from the reference range; 'abnormal' gains a direction."""
    if flag not in (None, "abnormal") or not isinstance(value, int | float):
        return flag
    low = low if isinstance(low, int | float) else None
    high = high if isinstance(high, int | float) else None
    if low is None and high is None:
        return flag
    if low is not None and value < low:
        return "low"
    if high is not None and value > high:
        return "high"
    return flag or "normal"


class Procedure(CodedItem):
    """A procedure performed on the patient."""

    end: When | None = None


class Note(Item):
    """A clinical note. Its text is kept for extraction but never shown by ``repr``/``str``."""

    code_system: str | None = Field(default=None, description="document type, when coded")
    code: str | None = None
    title: str | None = None
    text: str = Field(repr=False)


class ItemLists(_Frozen):
    """The facts of one encounter, or of a patient outside any encounter."""

    conditions: list[Condition] = Field(default_factory=list)
    drug_exposures: list[DrugExposure] = Field(default_factory=list)
    measurements: list[Measurement] = Field(default_factory=list)
    procedures: list[Procedure] = Field(default_factory=list)
    notes: list[Note] = Field(default_factory=list)

    def items(self) -> Iterator[Item]:
        """Every item, list by list."""
        yield from self.conditions
        yield from self.drug_exposures
        yield from self.measurements
        yield from self.procedures
        yield from self.notes


class Encounter(ItemLists):
    """One visit or admission with the facts recorded in it."""

    encounter_id: Id = Field(description="salted pseudonym of the source's encounter id")
    start: When
    end: When | None = None
    kind: EncounterKind


class Patient(_Frozen):
    """The only patient-level data kept: a pseudonym, an age band and sex."""

    patient_id: Id = Field(description="salted SHA-256 prefix of the source id, never the id")
    age_band: str | None = Field(default=None, pattern=r"^(0-9|[1-8]0-[1-8]9|90\+)$")
    sex: Sex = "U"


class Trajectory(_Frozen):
    """One patient's encounters in time order, plus the facts recorded outside any encounter."""

    source: SourceName
    patient: Patient
    encounters: list[Encounter] = Field(default_factory=list)
    items_outside_encounters: ItemLists = Field(default_factory=ItemLists)

    @model_validator(mode="after")
    def _check(self) -> Trajectory:
        starts = [sort_key(e.start) for e in self.encounters]
        if starts != sorted(starts):
            raise ValueError("encounters must be sorted by start")
        ids = [e.encounter_id for e in self.encounters]
        if len(ids) != len(set(ids)):
            raise ValueError("encounter ids must be unique")
        return self

    def items(self) -> Iterator[Item]:
        """Every item of the trajectory, encounters first."""
        for encounter in self.encounters:
            yield from encounter.items()
        yield from self.items_outside_encounters.items()


def write_jsonl(trajectories: Iterable[Trajectory], path: Path) -> int:
    """Write one trajectory per line (gzip for ``.gz``) as they come; returns how many."""
    return write_models(trajectories, path)


def read_jsonl(path: Path) -> Iterator[Trajectory]:
    """Trajectories from a JSONL file, one line at a time."""
    return read_models(path, Trajectory)
