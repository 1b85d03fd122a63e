"""OMOP CDM 5.3 / 5.4 -> trajectories, from a DuckDB database or a folder of CSV/Parquet tables.

Either way the tables become relations of one scratch DuckDB database (the database file is
attached read-only; CSV files are staged with their malformed lines rejected; Parquet files
are read in place), and each event table is streamed once, sorted by person, with its codes
joined from ``concept``. Python holds one person's rows at a time (see ``common``).

Codes come from the ``*_concept_id``'s vocabulary and concept_code. concept_id 0 (or an id
missing from ``concept``) is unmapped: the item then carries the ``*_source_concept_id``'s
code, or else the ``*_source_value`` (system ``OMOP_SOURCE_VALUE``), with ``mapped=False``.

A reject's ``line`` is where the row is in its source: the 1-based line of a CSV file (the
header is line 1), the 1-based row of a Parquet file or of a DuckDB table (its position as
stored); the row's primary key is in the reject's text.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable, Generator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from kgverify.config import Settings
from kgverify.ehr import duck
from kgverify.ehr.codes import OMOP_SOURCE_VALUE, omop_system
from kgverify.ehr.common import (
    Fields,
    Ledger,
    RowError,
    SourceError,
    SourceRow,
    TableLayout,
    WhenValue,
    group_by_patient,
    id_text,
    sex_of,
    table_trajectory,
)
from kgverify.ehr.model import (
    Condition,
    DrugExposure,
    EncounterKind,
    Item,
    Measurement,
    Note,
    Procedure,
    Sex,
    SourceRef,
    Trajectory,
)
from kgverify.ehr.privacy import check_salt

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Table:
    """What the adapter reads from one OMOP table. ``concepts`` pairs each concept column
    with the alias under which its code and name are joined (``c``: the standard concept,
    ``s``: the source concept)."""

    name: str
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    concepts: tuple[tuple[str, str], ...] = ()

    @property
    def pk(self) -> str:
        return self.required[0]


@dataclass(frozen=True)
class _Located:
    """How a table's rows give a reject's ``line``: ``position`` is SQL over the table
    (alias ``t``) for a row's 0-based position, NULL where there is none; ``line`` turns a
    position into the line."""

    position: str
    line: Callable[[int], int]


_ORDINAL = _Located("t._rid", lambda position: position + 1)
"""Parquet files and DuckDB tables: the view exposes the 0-based row as ``_rid``."""


def _table(name: str, required: str, optional: str = "", concepts: str = "") -> _Table:
    pairs = tuple((c, a) for c, a in (p.split(":") for p in concepts.split()))
    return _Table(name, tuple(required.split()), tuple(optional.split()), pairs)


PERSON = _table("person", "person_id gender_concept_id year_of_birth", "gender_source_value")
VISIT = _table(
    "visit_occurrence",
    "visit_occurrence_id person_id visit_concept_id visit_start_date",
    "visit_start_datetime visit_end_date visit_end_datetime",
)
CONDITION = _table(
    "condition_occurrence",
    "condition_occurrence_id person_id condition_concept_id condition_start_date",
    "visit_occurrence_id condition_source_value condition_source_concept_id "
    "condition_start_datetime condition_end_date condition_end_datetime",
    "condition_concept_id:c condition_source_concept_id:s",
)
DRUG = _table(
    "drug_exposure",
    "drug_exposure_id person_id drug_concept_id drug_exposure_start_date",
    "visit_occurrence_id drug_source_value drug_source_concept_id drug_exposure_start_datetime "
    "drug_exposure_end_date drug_exposure_end_datetime route_concept_id route_source_value",
    "drug_concept_id:c drug_source_concept_id:s route_concept_id:r",
)
MEASUREMENT = _table(
    "measurement",
    "measurement_id person_id measurement_concept_id measurement_date",
    "visit_occurrence_id measurement_source_value measurement_source_concept_id "
    "measurement_datetime value_as_number value_as_concept_id value_source_value "
    "unit_concept_id unit_source_value range_low range_high",
    "measurement_concept_id:c measurement_source_concept_id:s unit_concept_id:u "
    "value_as_concept_id:v",
)
PROCEDURE = _table(
    "procedure_occurrence",
    "procedure_occurrence_id person_id procedure_concept_id procedure_date",
    "visit_occurrence_id procedure_source_value procedure_source_concept_id procedure_datetime "
    "procedure_end_date procedure_end_datetime",
    "procedure_concept_id:c procedure_source_concept_id:s",
)
NOTE = _table(
    "note",
    "note_id person_id note_date note_text",
    "note_datetime note_class_concept_id note_title note_source_value visit_occurrence_id",
    "note_class_concept_id:c",
)
CONCEPT = _table("concept", "concept_id vocabulary_id concept_code", "concept_name")

EVENTS = (CONDITION, DRUG, MEASUREMENT, PROCEDURE, NOTE)
REQUIRED_TABLES = tuple(t.name for t in (PERSON, VISIT, CONCEPT, *EVENTS) if t is not NOTE)
OPTIONAL_TABLES = (NOTE.name,)
UNREAD_TABLES = ("observation", "device_exposure", "specimen", "death", "visit_detail", "note_nlp")
"""OMOP CDM clinical data tables whose rows kgverify makes no facts of: where present, their
rows are counted as read and skipped, so the report says what the run left out (Eunomia's
observation table holds histories and allergies). Derived tables (eras, observation
periods) and vocabulary tables are not patient records and are not counted."""
_KNOWN_TABLES = REQUIRED_TABLES + OPTIONAL_TABLES + UNREAD_TABLES

VISIT_KINDS: dict[str, EncounterKind] = {
    "9201": "inpatient", "262": "inpatient", "8717": "inpatient",
    "9202": "outpatient", "581477": "outpatient", "8756": "outpatient", "5083": "outpatient",
    "9203": "emergency", "8870": "emergency",
}  # fmt: skip
"""Standard visit concepts: inpatient, ER+inpatient, inpatient hospital; outpatient, office,
outpatient hospital, telehealth; emergency room visit, emergency room - hospital."""

SEXES: dict[str, Sex] = {"8532": "F", "8507": "M"}

_FILE_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".parquet")


def read_omop(
    source: Path | str,
    ledger: Ledger,
    *,
    salt: str,
    workdir: Path | None = None,
    memory_limit: str | None = None,
    settings: Settings | None = None,
) -> Generator[Trajectory, None, None]:
    """Trajectories of every person of an OMOP CDM, one person at a time, in person_id order.

    ``source`` is a DuckDB database file or a folder holding one file per table
    (``person.csv``, ``person.csv.gz``, ``person.tsv``, ``person.parquet``, any case).
    ``workdir`` is where the scratch database goes (a temporary folder by default). Missing
    tables or columns raise ``SourceError`` here, before any row is read.
    """
    source, _ = Path(source), settings  # a path; no connection settings to read
    check_salt(salt)
    columns = _columns(source)
    missing = [t for t in REQUIRED_TABLES if t not in columns]
    if missing:
        raise SourceError(f"OMOP source {source} lacks tables: {', '.join(missing)}")
    for table in (PERSON, VISIT, CONCEPT, *EVENTS):
        absent = [c for c in table.required if c not in columns.get(table.name, table.required)]
        if absent and table.name in REQUIRED_TABLES:
            raise SourceError(f"OMOP table {table.name} lacks columns: {', '.join(absent)}")
    return duck.bounded(_trajectories(source, ledger, salt, workdir, memory_limit))


def _files(
    source: Path, tables: tuple[str, ...] = REQUIRED_TABLES + OPTIONAL_TABLES
) -> dict[str, Path]:
    """The file of each of ``tables`` present in a folder."""
    found = {t: duck.find_file(source, t, _FILE_SUFFIXES) for t in tables}
    return {t: p for t, p in found.items() if p is not None}


def _columns(source: Path) -> dict[str, set[str]]:
    """The lower-cased columns of each OMOP table present, read from headers and schemas."""
    if source.is_dir():
        columns: dict[str, set[str]] = {}
        with closing(duck.connect()) as con:
            for table, path in _files(source).items():
                if path.name.lower().endswith(".parquet"):
                    parquet = f"SELECT * FROM read_parquet({duck.literal(str(path))})"  # noqa: S608
                    columns[table] = duck.describe(con, parquet)
                else:
                    columns[table] = set(duck.read_header(path)[0])
        return columns
    if not source.is_file():
        raise SourceError(f"OMOP source {source} does not exist")
    try:
        with closing(duck.connect(str(source), read_only=True)) as con:
            return {t: duck.describe(con, q) for t, q in _database_tables(con, None).items()}
    except duckdb.Error as exc:
        raise SourceError(f"{source} is not a readable DuckDB database: {exc}") from exc


def _database_tables(con: duckdb.DuckDBPyConnection, catalog: str | None) -> dict[str, str]:
    """OMOP table name -> qualified name, from the first schema that has ``person``."""
    where = f"WHERE table_catalog = {duck.literal(catalog)}" if catalog else ""
    rows = con.execute(
        f"SELECT table_schema, table_name FROM information_schema.tables {where} "  # noqa: S608
        "ORDER BY table_schema = 'main' DESC, table_schema"
    ).fetchall()
    schemas = [s for s, t in rows if str(t).lower() == "person"]
    prefix = f"{duck.quote(catalog)}." if catalog else ""
    return {
        str(t).lower(): f"{prefix}{duck.quote(str(s))}.{duck.quote(str(t))}"
        for s, t in rows
        if schemas and s == schemas[0] and str(t).lower() in _KNOWN_TABLES
    }


def _trajectories(
    source: Path, ledger: Ledger, salt: str, workdir: Path | None, memory_limit: str | None
) -> Generator[Trajectory, None, None]:
    with (
        tempfile.TemporaryDirectory(dir=workdir, prefix="kgverify-omop-") as tmp,
        closing(duck.scratch(Path(tmp), memory_limit)) as con,
    ):
        present = _open_tables(con, source, ledger)
        events = [t for t in EVENTS if t.name in present and _usable(con, t, ledger)]
        _count_unread(con, source, present, ledger)
        _stage_concepts(con, ledger)
        facts = {
            t.name: duck.stream(con, _select(con, t, present[t.name]), _maker(t, present[t.name]))
            for t in [VISIT, *events]
        }
        located = present[PERSON.name]
        persons = duck.stream(con, _select(con, PERSON, located), _maker(PERSON, located))
        count = 0
        for person, rows in group_by_patient(persons, facts, ledger):
            trajectory = table_trajectory(LAYOUT, person, rows, ledger, salt)
            if trajectory is not None:
                count += 1
                yield trajectory
        log.info("omop: %d trajectories from %s", count, source)


def _open_tables(
    con: duckdb.DuckDBPyConnection, source: Path, ledger: Ledger
) -> dict[str, _Located]:
    """Make every OMOP table present a relation of ``con`` under its lower-case name, and
    say how its rows are located."""
    located: dict[str, _Located] = {}
    if source.is_file():
        con.execute(f"ATTACH {duck.literal(str(source))} AS src (READ_ONLY)")
        tables = _database_tables(con, "src")
        views = _source_views(con)
        for table, qualified in tables.items():
            # A table's rowid is its position as stored; a view has none.
            position = "NULL::BIGINT" if qualified in views else "rowid"
            con.execute(
                f"CREATE VIEW {duck.quote(table)} AS "  # noqa: S608
                f"SELECT *, {position} AS _rid FROM {qualified}"
            )
            located[table] = _ORDINAL
        return located
    for table, path in _files(source).items():
        located[table] = _open_file(con, table, path, ledger, withhold_text=table == NOTE.name)
    return located


def _open_file(
    con: duckdb.DuckDBPyConnection, table: str, path: Path, ledger: Ledger, *, withhold_text: bool
) -> _Located:
    """Make a folder's table file relation ``table`` of ``con`` (Parquet read in place, CSV
    staged with its malformed lines rejected)."""
    if path.name.lower().endswith(".parquet"):
        con.execute(
            f"CREATE VIEW {duck.quote(table)} AS SELECT * EXCLUDE (file_row_number), "  # noqa: S608
            f"file_row_number AS _rid FROM "
            f"read_parquet({duck.literal(str(path))}, file_row_number = true)"
        )
        return _ORDINAL
    staged = duck.stage_csv(con, table, path, ledger, withhold_text=withhold_text)
    return _Located("t.rowid", staged.line_of)


def _source_views(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The qualified names (as ``_database_tables`` gives them) of the attached source
    database's views."""
    rows = con.execute(
        "SELECT table_schema, table_name FROM information_schema.tables "
        "WHERE table_catalog = 'src' AND table_type = 'VIEW'"
    ).fetchall()
    prefix = duck.quote("src")
    return {f"{prefix}.{duck.quote(str(s))}.{duck.quote(str(t))}" for s, t in rows}


def _usable(con: duckdb.DuckDBPyConnection, table: _Table, ledger: Ledger) -> bool:
    """An optional table (note) that lacks its columns is skipped whole, its rows counted as
    skipped (Eunomia ships such a note table); required tables were checked up front."""
    have = duck.columns_of(con, table.name)
    missing = [c for c in table.required if c not in have]
    if not missing:
        return True
    reason = f"table lacks OMOP columns {', '.join(missing)}"
    _skip_whole(ledger, table.name, duck.count(con, table.name), reason)
    log.warning("omop: %s skipped, it lacks columns %s", table.name, missing)
    return False


def _count_unread(
    con: duckdb.DuckDBPyConnection, source: Path, present: dict[str, _Located], ledger: Ledger
) -> None:
    """Count the rows of the ``UNREAD_TABLES`` present as read and skipped (a table with no
    rows makes no report). A folder's file is opened only to be counted (its malformed CSV
    lines rejected, text withheld); one that cannot be read as a table at all is one
    rejected entry, never a failed run."""
    unread = "an OMOP table kgverify does not read"
    files = {} if source.is_file() else _files(source, UNREAD_TABLES)
    for table in (t for t in UNREAD_TABLES if t in present or t in files):
        path = files.get(table)
        try:
            if path is not None:
                if path.stat().st_size == 0:
                    continue
                _open_file(con, table, path, ledger, withhold_text=True)
            rows = duck.count(con, table)
        except (SourceError, duckdb.Error) as exc:
            name = path.name if path is not None else table
            tally = ledger.tally(table)
            tally.read += 1
            tally.reject(None, f"{unread}, and it is not readable as a table", name)
            log.warning("omop: %s not readable as a table: %s", name, str(exc)[:200])
            continue
        if rows:
            _skip_whole(ledger, table, rows, unread)


def _skip_whole(ledger: Ledger, table: str, rows: int, reason: str) -> None:
    """Count ``rows`` rows of ``table`` as read and skipped for ``reason`` (a CSV file's
    malformed lines were already counted as rejected when it was staged)."""
    tally = ledger.tally(table)
    tally.read += rows
    tally.skip(reason, rows)


def _stage_concepts(con: duckdb.DuckDBPyConnection, ledger: Ledger) -> None:
    """``_concept``: one row per concept_id, the code lookup of every event table."""
    has_name = "concept_name" in duck.columns_of(con, CONCEPT.name)
    duck.stage_lookup(
        con,
        "_concept",
        CONCEPT.name,
        {"concept_id": "TRY_CAST(concept_id AS BIGINT)"},
        {
            "vocab": "CAST(vocabulary_id AS VARCHAR)",
            "code": "CAST(concept_code AS VARCHAR)",
            "name": "CAST(concept_name AS VARCHAR)" if has_name else "NULL::VARCHAR",
        },
        ledger.tally(CONCEPT.name),
    )


def _select(con: duckdb.DuckDBPyConnection, table: _Table, located: _Located) -> str:
    """The table's rows as text, with its concepts joined, sorted by person (missing first);
    ``_rid`` is each row's position in its source."""
    have = duck.columns_of(con, table.name)
    columns = [
        f"CAST(t.{c} AS VARCHAR) AS {c}" if c in have else f"NULL::VARCHAR AS {c}"
        for c in dict.fromkeys((*table.required, *table.optional))
    ]
    joins = []
    for column, alias in table.concepts:
        columns += [f"{alias}.{c} AS {alias}_{c}" for c in ("concept_id", "vocab", "code", "name")]
        on = f"TRY_CAST(t.{column} AS BIGINT)" if column in have else "NULL"
        joins.append(f"LEFT JOIN _concept {alias} ON {alias}.concept_id = {on}")
    return (
        f"SELECT TRY_CAST(t.person_id AS BIGINT) AS _key, {located.position} AS _rid, "  # noqa: S608
        f"{', '.join(columns)} "
        f"FROM {duck.quote(table.name)} t {' '.join(joins)} "
        f"ORDER BY _key NULLS FIRST, TRY_CAST(t.{table.pk} AS DOUBLE) NULLS FIRST, "
        f"CAST(t.{table.pk} AS VARCHAR)"
    )


def _maker(table: _Table, located: _Located) -> Callable[[dict[str, Any]], SourceRow]:
    def make(values: dict[str, Any]) -> SourceRow:
        key, position = values.pop("_key"), values.pop("_rid")
        row = id_text(values.get(table.pk)) or ""
        line = located.line(int(position)) if position is not None else None
        return SourceRow(table.name, table.name, row, line, key, values)

    return make


# --- rows -> items --------------------------------------------------------------------


def _concept(f: Fields, alias: str) -> tuple[str, str, str | None] | None:
    """(namespace, code, name) of a joined concept; None for 0, 'None' or no match."""
    vocab, code = f.text(f"{alias}_vocab"), f.text(f"{alias}_code")
    if f.text(f"{alias}_concept_id") in (None, "0") or vocab in (None, "None") or code is None:
        return None
    assert vocab is not None
    return omop_system(vocab), code, f.text(f"{alias}_name")


def _code(f: Fields, source_value: str) -> tuple[str, str, str | None, bool] | None:
    """(namespace, code, display, mapped): the standard concept, else the source concept,
    else the source value; None when the row has none of them."""
    standard = _concept(f, "c")
    if standard is not None:
        return (*standard, True)
    fallback = _concept(f, "s")
    if fallback is not None:
        return (*fallback, False)
    value = f.text(source_value)
    if value is not None:
        return OMOP_SOURCE_VALUE, value, None, False
    return None


def _coded(row: SourceRow, f: Fields, concept: str, source_value: str) -> dict[str, Any]:
    code = _code(f, source_value)
    if code is None:
        raise RowError(f"unmapped concept: {concept}={f.text(concept)} and no source value")
    system, value, display, mapped = code
    ref = SourceRef(table=row.table, row=row.row, code_system="OMOP", code=f.text(concept) or "")
    return {
        "source": ref,
        "code_system": system,
        "code": value,
        "display": display,
        "mapped": mapped,
    }


def _condition(row: SourceRow, f: Fields) -> Item:
    return Condition(
        **_coded(row, f, "condition_concept_id", "condition_source_value"),
        start=f.first_when("condition_start_datetime", "condition_start_date"),
        end=f.first_when("condition_end_datetime", "condition_end_date"),
    )


def _drug(row: SourceRow, f: Fields) -> Item:
    route = _concept(f, "r")
    return DrugExposure(
        **_coded(row, f, "drug_concept_id", "drug_source_value"),
        start=f.first_when("drug_exposure_start_datetime", "drug_exposure_start_date"),
        end=f.first_when("drug_exposure_end_datetime", "drug_exposure_end_date"),
        route=route[2] if route is not None else f.text("route_source_value"),
    )


def _measurement(row: SourceRow, f: Fields) -> Item:
    unit, value = _concept(f, "u"), _concept(f, "v")
    return Measurement(
        **_coded(row, f, "measurement_concept_id", "measurement_source_value"),
        start=f.first_when("measurement_datetime", "measurement_date"),
        value=f.number("value_as_number"),
        value_text=value[2] if value is not None else f.text("value_source_value"),
        unit=unit[1] if unit is not None else f.text("unit_source_value"),
        ref_low=f.number("range_low"),
        ref_high=f.number("range_high"),
    )


def _procedure(row: SourceRow, f: Fields) -> Item:
    return Procedure(
        **_coded(row, f, "procedure_concept_id", "procedure_source_value"),
        start=f.first_when("procedure_datetime", "procedure_date"),
        end=f.first_when("procedure_end_datetime", "procedure_end_date"),
    )


def _note(row: SourceRow, f: Fields) -> Item:
    code = _code(f, "note_source_value")
    system, value, display, mapped = code if code is not None else (None, None, None, False)
    concept_id = f.text("note_class_concept_id") or ""
    return Note(
        source=SourceRef(table=row.table, row=row.row, code_system="OMOP", code=concept_id),
        code_system=system,
        code=value,
        display=display,
        mapped=mapped,
        start=f.first_when("note_datetime", "note_date"),
        title=f.text("note_title"),
        text=f.required("note_text"),
    )


_ITEMS: dict[str, Callable[[SourceRow, Fields], Item]] = {
    CONDITION.name: _condition,
    DRUG.name: _drug,
    MEASUREMENT.name: _measurement,
    PROCEDURE.name: _procedure,
    NOTE.name: _note,
}


def _visit(f: Fields) -> tuple[WhenValue, WhenValue | None, EncounterKind]:
    start = f.first_when("visit_start_datetime", "visit_start_date")
    if start is None:
        raise RowError("missing visit_start_date")
    end = f.first_when("visit_end_datetime", "visit_end_date")
    return start, end, VISIT_KINDS.get(f.text("visit_concept_id") or "", "other")


def _demographics(f: Fields) -> tuple[Sex, int | None]:
    sex = SEXES.get(f.text("gender_concept_id") or "") or sex_of(f.text("gender_source_value"))
    return sex, f.integer("year_of_birth")


LAYOUT = TableLayout(
    source="omop",
    encounters=VISIT.name,
    encounter_id="visit_occurrence_id",
    encounter=_visit,
    link="visit_occurrence_id",
    items=_ITEMS,
    demographics=_demographics,
)
