"""What the three EHR adapters share: row accounting, value parsing, the per-patient merge of
sorted row streams, and the assembly of one trajectory.

Each adapter only knows its format: it turns source rows (``SourceRow``) into items. The
rules that must be the same everywhere live here: every row is counted as loaded, skipped or
rejected in a ``Ledger``; a bad value rejects one row, never the run; an unknown patient is a
reject; an unknown encounter keeps its item outside encounters (counted as ``unlinked``);
ids are pseudonyms; items and encounters are ordered deterministically.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import partial
from typing import Any

from pydantic import ValidationError

from kgverify.ehr.model import (
    Condition,
    DrugExposure,
    Encounter,
    EncounterKind,
    Item,
    ItemLists,
    Measurement,
    Note,
    Patient,
    Procedure,
    Sex,
    SourceName,
    Trajectory,
    sort_key,
)
from kgverify.ehr.privacy import age_band, pseudonym
from kgverify.errors import KgverifyError
from kgverify.rows import FileReport, RejectSink, Tally

WhenValue = date | datetime

REDACTED_FIELDS = frozenset({"note_text"})
"""Columns never copied into a reject's text (the rejects file is not a place for notes)."""


class SourceError(KgverifyError):
    """An EHR source cannot be read at all: a missing file or table, or a wrong layout."""


class RowError(ValueError):
    """One source row cannot become a trajectory item; the message is the reject reason."""


@dataclass(frozen=True, slots=True)
class SourceRow:
    """One row of a source table, file or bundle, with where it is and whose it is."""

    table: str  # SourceRef.table: OMOP/MIMIC table or FHIR resource type
    tally: str  # the Ledger entry that counts it: the table, or the FHIR file
    row: str  # SourceRef.row: primary key, MIMIC line number, or FHIR resource id
    line: int | None  # the rejects file's ``line``: where the row is in its file or table
    key: int | str | None  # the source's patient id; None when missing or unparsable
    fields: Mapping[str, Any]
    label: str | None = None  # reject text instead of the fields (FHIR: "Type/id")

    def text(self) -> str:
        """The row for a reject line, without note text."""
        if self.label is not None:
            return self.label
        return "; ".join(
            f"{k}={v}" for k, v in self.fields.items() if v is not None and k not in REDACTED_FIELDS
        )


class Ledger:
    """One ``Tally`` per table or file, all writing rejects to one ``RejectSink``.

    ``read == loaded + skipped + rejected`` holds for every entry once an adapter has run to
    the end. ``unlinked`` counts loaded rows whose encounter reference matched no encounter
    (they sit in ``items_outside_encounters``).
    """

    def __init__(self, rejects: RejectSink) -> None:
        self.rejects = rejects
        self.unlinked: Counter[str] = Counter()
        self._tallies: dict[str, Tally] = {}

    def tally(self, name: str) -> Tally:
        if name not in self._tallies:
            self._tallies[name] = Tally(name, self.rejects)
        return self._tallies[name]

    def read(self, row: SourceRow) -> None:
        self.tally(row.tally).read += 1

    def load(self, row: SourceRow) -> None:
        self.tally(row.tally).loaded += 1

    def skip(self, row: SourceRow, reason: str) -> None:
        self.tally(row.tally).skip(reason)

    def reject(self, row: SourceRow, reason: str) -> None:
        self.tally(row.tally).reject(row.line, reason, row.text())

    def reports(self) -> list[FileReport]:
        return [self._tallies[name].report() for name in sorted(self._tallies)]

    def report(self, name: str) -> FileReport:
        return self.tally(name).report()

    @property
    def reconciles(self) -> bool:
        return all(r.reconciles for r in self.reports())


# --- values ---------------------------------------------------------------------------

_INTEGRAL = re.compile(r"^-?\d+\.0*$")


def clean(value: object) -> str | None:
    """A field as text; empty and whitespace-only values are missing."""
    if value is None:
        return None
    text = (value if isinstance(value, str) else str(value)).strip()
    return text or None


def parse_when(text: str) -> WhenValue:
    """``YYYY-MM-DD`` as a date; ISO 8601 date-times (``T`` or space, offsets) as datetimes."""
    if len(text) == 10:
        return date.fromisoformat(text)
    if len(text) < 16:  # partial dates ("2015", "2015-10") would invent precision
        raise ValueError(text)
    return datetime.fromisoformat(text)


def id_text(value: object) -> str | None:
    """An id as text, with the ``.0`` a DOUBLE column adds removed (``4182.0`` -> ``4182``)."""
    text = clean(value)
    if text is not None and _INTEGRAL.match(text):
        return text.split(".", 1)[0]
    return text


def sex_of(text: object) -> Sex:
    """F or M from a source's sex or gender (F/M, female/male, any case); else U."""
    first = str(text or "").strip()[:1].upper()
    return "F" if first == "F" else "M" if first == "M" else "U"


class Fields:
    """Typed access to a row's text fields; a bad value raises ``RowError`` naming the column."""

    def __init__(self, row: SourceRow) -> None:
        self._fields = row.fields

    def text(self, name: str) -> str | None:
        return clean(self._fields.get(name))

    def required(self, name: str) -> str:
        value = self.text(name)
        if value is None:
            raise RowError(f"missing {name}")
        return value

    def when(self, name: str, *, required: bool = False) -> WhenValue | None:
        value = self.required(name) if required else self.text(name)
        if value is None:
            return None
        try:
            return parse_when(value)
        except ValueError:
            raise RowError(f"unparsable date {name}: {value!r}") from None

    def first_when(self, *names: str) -> WhenValue | None:
        """The first of several date columns that has a value (datetime before date)."""
        for name in names:
            value = self.when(name)
            if value is not None:
                return value
        return None

    def number(self, name: str) -> float | None:
        value = self.text(name)
        if value is None:
            return None
        try:
            return float(value)
        except ValueError:
            raise RowError(f"unparsable number {name}: {value!r}") from None

    def integer(self, name: str) -> int | None:
        value = self.number(name)
        if value is None:
            return None
        if not value.is_integer():
            raise RowError(f"not an integer {name}: {self.text(name)!r}")
        return int(value)


# --- the per-patient merge ------------------------------------------------------------


class _Stream:
    """A sorted row stream with one row of look-ahead; checks the order it promises."""

    def __init__(self, rows: Iterator[SourceRow], name: str, ledger: Ledger) -> None:
        self._rows = rows
        self._name = name
        self._ledger = ledger
        self._last: int | str | None = None
        self.head: SourceRow | None = None
        self.advance()

    def advance(self) -> None:
        self.head = next(self._rows, None)
        if self.head is None:
            return
        self._ledger.read(self.head)
        key = self.head.key
        if key is not None:
            if self._last is not None and key < self._last:  # type: ignore[operator]
                raise SourceError(f"{self._name}: rows are not sorted by patient")
            self._last = key

    def take_while(self, key: int | str | None, into: list[SourceRow] | None) -> None:
        """Consume the rows keyed below ``key`` (rejected as orphans) and, into ``into``,
        the rows keyed ``key``. ``key=None`` consumes everything as orphans."""
        while self.head is not None:
            head = self.head
            if head.key is None:
                self._ledger.reject(head, "missing or unparsable patient id")
            elif key is not None and head.key == key and into is not None:
                into.append(head)
            elif key is None or head.key < key:  # type: ignore[operator]
                self._ledger.reject(head, f"unknown patient: {head.key}")
            else:
                return
            self.advance()


def group_by_patient(
    patients: Iterator[SourceRow], facts: Mapping[str, Iterator[SourceRow]], ledger: Ledger
) -> Iterator[tuple[SourceRow, dict[str, list[SourceRow]]]]:
    """Merge streams sorted by patient key into (patient row, that patient's rows by table).

    Every stream must be ordered by key with missing keys first, as ``ORDER BY key NULLS
    FIRST`` gives; only one patient's rows are held at a time. Rows of patients absent from
    the patient stream, and repeated patient rows, are rejected.
    """
    streams = {name: _Stream(rows, name, ledger) for name, rows in facts.items()}
    people = _Stream(patients, "patients", ledger)
    while people.head is not None:
        patient = people.head
        people.advance()
        if patient.key is None:
            ledger.reject(patient, "missing or unparsable patient id")
            continue
        rows: dict[str, list[SourceRow]] = {name: [] for name in streams}
        for name, stream in streams.items():
            stream.take_while(patient.key, rows[name])
        while people.head is not None and people.head.key == patient.key:
            ledger.reject(people.head, f"duplicate patient: {patient.key}")
            people.advance()
        yield patient, rows
    for stream in streams.values():
        stream.take_while(None, None)


def reject_all(rows: Mapping[str, list[SourceRow]], ledger: Ledger, reason: str) -> None:
    """Reject the rows of a patient that could not be built."""
    for table_rows in rows.values():
        for row in table_rows:
            ledger.reject(row, reason)


# --- one trajectory -------------------------------------------------------------------

_LISTS: dict[type[Item], str] = {
    Condition: "conditions",
    DrugExposure: "drug_exposures",
    Measurement: "measurements",
    Procedure: "procedures",
    Note: "notes",
}


@dataclass
class _EncounterDraft:
    encounter_id: str
    start: WhenValue
    end: WhenValue | None
    kind: EncounterKind
    items: list[Item] = field(default_factory=list)


def _item_order(item: Item) -> tuple[datetime, int, str, str]:
    """By time, then (for undated items, e.g. MIMIC diagnoses) by source row, then id."""
    row = item.source.row
    return sort_key(item.start), int(row) if row.isdigit() else -1, row, item.item_id


def _lists(items: list[Item]) -> dict[str, list[Any]]:
    lists: dict[str, list[Any]] = {name: [] for name in _LISTS.values()}
    for item in sorted(items, key=_item_order):
        lists[_LISTS[type(item)]].append(item)
    return lists


_BAD_ROW = (ValueError, TypeError, AttributeError, KeyError, IndexError)
"""What converting a malformed row can raise: ``RowError`` and pydantic's ``ValidationError``
(both ``ValueError``s) by design, the others from source data of an unexpected shape (a
FHIR element that is a string where an object belongs)."""


def _reason(exc: Exception) -> str:
    if isinstance(exc, RowError):
        return str(exc)
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        return f"invalid {where}: {error['msg']}"
    return f"malformed row: {type(exc).__name__}: {exc}"


class TrajectoryDraft:
    """Collects one patient's encounters and items, rejecting rows that fail to convert."""

    def __init__(self, source: SourceName, ledger: Ledger, salt: str) -> None:
        self.source = source
        self._ledger = ledger
        self._salt = salt
        self._encounters: dict[str, _EncounterDraft] = {}
        self._rows: list[tuple[SourceRow, str | None, Sequence[Item]]] = []

    def pseudonym(self, kind: str, source_id: str) -> str:
        return pseudonym(self._salt, f"{self.source}:{kind}", source_id)

    def encounter(
        self,
        row: SourceRow,
        key: Callable[[], str],
        make: Callable[[], tuple[WhenValue, WhenValue | None, EncounterKind]],
    ) -> None:
        """Add the encounter ``row`` describes: ``key`` gives its source id, ``make`` its
        (start, end, kind); a conversion error or a repeated id rejects the row."""
        try:
            source_id = key()
            start, end, kind = make()
        except _BAD_ROW as exc:
            self._ledger.reject(row, _reason(exc))
            return
        if source_id in self._encounters:
            self._ledger.reject(row, f"duplicate encounter: {source_id}")
            return
        encounter_id = self.pseudonym("encounter", source_id)
        self._encounters[source_id] = _EncounterDraft(encounter_id, start, end, kind)
        self._ledger.load(row)

    def item(
        self,
        row: SourceRow,
        make: Callable[[], tuple[str | None, Sequence[Item]]],
    ) -> None:
        """Add the items ``row`` gives: ``make`` returns (encounter source id or None, items).
        ``RowError`` or a model validation error rejects the row with its reason."""
        try:
            encounter_key, items = make()
        except _BAD_ROW as exc:
            self._ledger.reject(row, _reason(exc))
            return
        self._rows.append((row, encounter_key, items))
        self._ledger.load(row)

    def skip(self, row: SourceRow, reason: str) -> None:
        self._ledger.skip(row, reason)

    def finish(
        self, patient_row: SourceRow, source_id: str, sex: Sex, birth_year: int | None
    ) -> Trajectory:
        """The trajectory, encounters sorted by start; the age band is taken at the first
        encounter, or at the earliest item when the patient has none."""
        outside: list[Item] = []
        for row, encounter_key, items in self._rows:
            draft = self._encounters.get(encounter_key) if encounter_key is not None else None
            if draft is not None:
                draft.items.extend(items)
            else:
                outside.extend(items)
                if encounter_key is not None:
                    self._ledger.unlinked[row.table] += 1
        drafts = sorted(
            self._encounters.values(), key=lambda d: (sort_key(d.start), d.encounter_id)
        )
        encounters = [
            Encounter(
                encounter_id=d.encounter_id,
                start=d.start,
                end=d.end,
                kind=d.kind,
                **_lists(d.items),
            )
            for d in drafts
        ]
        dated = [i.start for _, _, items in self._rows for i in items if i.start is not None]
        first = drafts[0].start if drafts else min(dated, key=sort_key, default=None)
        patient = Patient(
            patient_id=self.pseudonym("patient", source_id),
            age_band=age_band(birth_year, first),
            sex=sex,
        )
        self._ledger.load(patient_row)
        return Trajectory(
            source=self.source,
            patient=patient,
            encounters=encounters,
            items_outside_encounters=ItemLists(**_lists(outside)),
        )


# --- sources made of tables (OMOP, MIMIC) ------------------------------------------------

ItemMaker = Callable[[SourceRow, Fields], Item]


@dataclass(frozen=True)
class TableLayout:
    """How a table-shaped source spreads a patient over its tables."""

    source: SourceName
    encounters: str  # the table whose rows are encounters
    encounter_id: str  # its id column
    encounter: Callable[[Fields], tuple[WhenValue, WhenValue | None, EncounterKind]]
    link: str  # the column of an item row naming its encounter
    items: Mapping[str, ItemMaker]  # item table -> row converter
    demographics: Callable[[Fields], tuple[Sex, int | None]]  # (sex, birth year)


def _linked_item(row: SourceRow, convert: ItemMaker, link: str) -> tuple[str | None, list[Item]]:
    f = Fields(row)
    return id_text(f.text(link)), [convert(row, f)]


def table_trajectory(
    layout: TableLayout,
    patient: SourceRow,
    rows: dict[str, list[SourceRow]],
    ledger: Ledger,
    salt: str,
) -> Trajectory | None:
    """One patient's trajectory from their rows; a patient row with bad demographics is
    rejected and takes the patient's other rows with it."""
    try:
        sex, birth_year = layout.demographics(Fields(patient))
    except _BAD_ROW as exc:
        ledger.reject(patient, _reason(exc))
        reject_all(rows, ledger, f"unknown patient: {patient.key} (patient row rejected)")
        return None
    draft = TrajectoryDraft(layout.source, ledger, salt)
    for row in rows[layout.encounters]:
        f = Fields(row)
        draft.encounter(row, partial(f.required, layout.encounter_id), partial(layout.encounter, f))
    for table, convert in layout.items.items():
        for row in rows.get(table, ()):
            draft.item(row, partial(_linked_item, row, convert, layout.link))
    return draft.finish(patient, str(patient.key), sex, birth_year)
