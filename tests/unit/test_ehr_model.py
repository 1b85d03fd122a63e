"""The trajectory schema and the pieces every EHR adapter shares: JSON round trips, ordering,
flags, pseudonyms, age bands, code normalization and the per-patient merge."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from pydantic import ValidationError

from kgverify.ehr.codes import fhir_system, mimic_icd, omop_system
from kgverify.ehr.common import (
    Ledger,
    SourceError,
    SourceRow,
    group_by_patient,
    id_text,
    parse_when,
    sex_of,
)
from kgverify.ehr.model import (
    Condition,
    DrugExposure,
    Encounter,
    ItemLists,
    Measurement,
    Note,
    Patient,
    SourceRef,
    Trajectory,
    item_id_of,
    read_jsonl,
    write_jsonl,
)
from kgverify.ehr.privacy import age_band, pseudonym
from kgverify.errors import ConfigError, KgverifyError
from kgverify.rows import RejectSink

EST = timezone(timedelta(hours=-5))


def _ref(row: str = "1", code: str = "59621000") -> SourceRef:
    return SourceRef(table="condition_occurrence", row=row, code_system="OMOP", code=code)


def _trajectory(note_text: str = "Patient reports chest pain since Tuesday.") -> Trajectory:
    condition = Condition(
        source=_ref(), code_system="SNOMEDCT", code="59621000", start=date(2019, 5, 2)
    )
    drug = DrugExposure(
        source=SourceRef(table="drug_exposure", row="7", code_system="OMOP", code="1"),
        code_system="RXNORM",
        code="310798",
        start=datetime(2019, 5, 2, 9, 30, tzinfo=EST),
        end=datetime(2019, 6, 2, 9, 30),
        route="Oral",
        dose="25",
        dose_unit="mg",
    )
    lab = Measurement(
        source=SourceRef(table="measurement", row="3", code_system="OMOP", code="2"),
        code_system="LNC",
        code="2339-0",
        value=105.0,
        unit="mg/dL",
        ref_low=70,
        ref_high=99,
        start=datetime(2019, 5, 2, 9, 10),
    )
    note = Note(
        source=SourceRef(table="note", row="9", code_system="OMOP", code="0"),
        text=note_text,
        start=date(2019, 5, 3),
    )
    first = Encounter(
        encounter_id="e1",
        start=datetime(2019, 5, 2, 9, 0, tzinfo=EST),
        kind="outpatient",
        conditions=[condition],
        drug_exposures=[drug],
        measurements=[lab],
    )
    second = Encounter(encounter_id="e2", start=date(2020, 1, 1), kind="inpatient")
    return Trajectory(
        source="omop",
        patient=Patient(patient_id="abc", age_band="50-59", sex="F"),
        encounters=[first, second],
        items_outside_encounters=ItemLists(notes=[note]),
    )


def test_json_round_trip_keeps_dates_datetimes_and_offsets() -> None:
    trajectory = _trajectory()
    back = Trajectory.model_validate_json(trajectory.model_dump_json())
    assert back == trajectory
    condition = back.encounters[0].conditions[0]
    assert type(condition.start) is date
    drug = back.encounters[0].drug_exposures[0]
    assert drug.start == datetime(2019, 5, 2, 9, 30, tzinfo=EST)
    assert isinstance(drug.end, datetime) and drug.end.tzinfo is None
    assert type(back.encounters[1].start) is date


def test_models_are_frozen_and_reject_unknown_fields() -> None:
    trajectory = _trajectory()
    with pytest.raises(ValidationError):
        trajectory.patient.sex = "M"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs"):
        Patient(patient_id="x", name="Jane Doe")  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        Patient(patient_id="x", age_band="40-50")
    with pytest.raises(ValidationError):
        Condition(source=_ref(), code_system="SNOMEDCT", code="")


def test_encounters_must_be_in_time_order_across_dates_and_offsets() -> None:
    early = Encounter(encounter_id="a", start=datetime(2020, 1, 1, 23, 0, tzinfo=EST), kind="other")
    late = Encounter(encounter_id="b", start=datetime(2020, 1, 2, 1, 0, tzinfo=UTC), kind="other")
    patient = Patient(patient_id="p")
    # 23:00 at UTC-5 is 04:00 UTC on Jan 2, after 01:00 UTC: this order is wrong.
    with pytest.raises(ValidationError, match="sorted by start"):
        Trajectory(source="fhir", patient=patient, encounters=[early, late])
    assert Trajectory(source="fhir", patient=patient, encounters=[late, early])
    with pytest.raises(ValidationError, match="unique"):
        Trajectory(source="fhir", patient=patient, encounters=[late, late])


def test_note_text_is_kept_but_never_printed() -> None:
    secret = "Patient reports chest pain since Tuesday."
    trajectory = _trajectory(secret)
    note = trajectory.items_outside_encounters.notes[0]
    assert note.text == secret
    for shown in (repr(note), str(note), repr(trajectory), str(trajectory)):
        assert "chest pain" not in shown
    assert secret in trajectory.model_dump_json()


@pytest.mark.parametrize(
    ("flag", "value", "low", "high", "expected"),
    [
        (None, 105.0, 70.0, 99.0, "high"),
        (None, 65.0, 70.0, 99.0, "low"),
        (None, 70.0, 70.0, 99.0, "normal"),
        (None, 8.1, None, 5.7, "high"),
        (None, 5.0, None, None, None),
        (None, None, 70.0, 99.0, None),
        ("abnormal", 2.4, 2.7, 4.5, "low"),
        ("abnormal", 3.0, 2.7, 4.5, "abnormal"),
        ("normal", 200.0, 70.0, 99.0, "normal"),
    ],
)
def test_flag_comes_from_the_source_or_the_range(
    flag: str | None, value: float | None, low: float | None, high: float | None, expected: str
) -> None:
    lab = Measurement.model_validate(
        {
            "source": _ref(),
            "code_system": "LNC",
            "code": "2339-0",
            "value": value,
            "ref_low": low,
            "ref_high": high,
            "flag": flag,
        }
    )
    assert lab.flag == expected


def test_item_id_is_a_stable_content_hash() -> None:
    one = Condition(source=_ref("1"), code_system="SNOMEDCT", code="1")
    again = Condition(source=_ref("1"), code_system="ICD10CM", code="X")
    other_row = Condition(source=_ref("2"), code_system="SNOMEDCT", code="1")
    other_code = Condition(source=_ref("1", code="2"), code_system="SNOMEDCT", code="1")
    assert one.item_id == again.item_id == item_id_of(_ref("1"))
    assert len({one.item_id, other_row.item_id, other_code.item_id}) == 3
    assert Condition(source=_ref(), code_system="S", code="1", item_id="given").item_id == "given"


def test_jsonl_streams_in_and_out(tmp_path: Path) -> None:
    written: list[Trajectory] = []

    def produce() -> Iterator[Trajectory]:
        for i in range(3):
            t = _trajectory().model_copy(update={"patient": Patient(patient_id=f"p{i}")})
            written.append(t)
            yield t

    for name in ("t.jsonl", "t.jsonl.gz"):
        path = tmp_path / name
        written.clear()
        assert write_jsonl(produce(), path) == 3
        assert list(read_jsonl(path)) == written
    path = tmp_path / "lazy.jsonl"
    path.write_text(_trajectory().model_dump_json() + "\n{not json\n")
    lines = read_jsonl(path)
    assert next(lines).patient.patient_id == "abc"  # the bad second line is not read yet
    with pytest.raises(ValidationError):
        next(lines)


def test_pseudonyms_are_salted_stable_and_opaque() -> None:
    a = pseudonym("salt-1", "omop:patient", "1234")
    assert a == pseudonym("salt-1", "omop:patient", "1234")
    assert len(a) == 16 and "1234" not in a
    assert a != pseudonym("salt-2", "omop:patient", "1234")
    assert a != pseudonym("salt-1", "mimic:patient", "1234")
    with pytest.raises(ConfigError):
        pseudonym("", "omop:patient", "1234")


@pytest.mark.parametrize(
    ("age", "band"),
    [
        (0, "0-9"),
        (9, "0-9"),
        (10, "10-19"),
        (49, "40-49"),
        (89, "80-89"),
        (90, "90+"),
        (104, "90+"),
    ],
)
def test_age_bands(age: int, band: str) -> None:
    assert age_band(1950, date(1950 + age, 6, 1)) == band
    assert Patient(patient_id="p", age_band=band).age_band == band


def test_age_band_unknown_without_dates_or_for_impossible_ages() -> None:
    assert age_band(None, date(2000, 1, 1)) is None
    assert age_band(1950, None) is None
    assert age_band(2001, date(2000, 1, 1)) is None


@pytest.mark.parametrize(
    ("code", "version", "expected"),
    [
        ("4019", 9, ("ICD9CM", "401.9")),
        ("0389", 9, ("ICD9CM", "038.9")),
        ("V1582", 9, ("ICD9CM", "V15.82")),
        ("E8889", 9, ("ICD9CM", "E888.9")),
        ("E849", 9, ("ICD9CM", "E849")),
        ("042", 9, ("ICD9CM", "042")),
        ("I10", 10, ("ICD10CM", "I10")),
        ("K922", 10, ("ICD10CM", "K92.2")),
        ("S72001A", 10, ("ICD10CM", "S72.001A")),
        ("k922 ", 10, ("ICD10CM", "K92.2")),
    ],
)
def test_mimic_icd_codes_get_their_dot(code: str, version: int, expected: tuple[str, str]) -> None:
    assert mimic_icd(code, version) == expected


def test_code_system_names_are_normalized() -> None:
    assert [omop_system(v) for v in ("SNOMED", "RxNorm", "LOINC", "ICD10CM", "CVX")] == [
        "SNOMEDCT",
        "RXNORM",
        "LNC",
        "ICD10CM",
        "CVX",
    ]
    assert fhir_system("http://loinc.org/") == "LNC"
    assert fhir_system("http://hl7.org/fhir/sid/icd-10-cm") == "ICD10CM"
    assert fhir_system("http://acme.example/codes") == "http://acme.example/codes"
    with pytest.raises(ValueError, match="icd_version"):
        mimic_icd("I10", 11)


def test_value_parsing() -> None:
    assert parse_when("2180-05-06") == date(2180, 5, 6)
    assert parse_when("2180-05-06 22:23:00") == datetime(2180, 5, 6, 22, 23)
    assert parse_when("2019-05-02T09:00:00Z") == datetime(2019, 5, 2, 9, tzinfo=UTC)
    for bad in ("2015", "2015-10", "2022-02-30", "not a time"):
        with pytest.raises(ValueError):
            parse_when(bad)
    assert id_text("4182.0") == "4182" and id_text(" 17 ") == "17" and id_text("") is None
    assert [sex_of(s) for s in ("F", "female", "M", "Male", "other", None)] == list("FFMMUU")


def _rows(table: str, keys: list[int | None]) -> Iterator[SourceRow]:
    for i, key in enumerate(keys, start=1):
        yield SourceRow(table, table, str(i), i, key, {"n": str(i)})


def test_group_by_patient_merges_sorted_streams_and_rejects_orphans(tmp_path: Path) -> None:
    sink = RejectSink(tmp_path / "rejects.jsonl")
    ledger = Ledger(sink)
    patients = _rows("person", [None, 1, 3, 3, 5])
    facts = {
        "visit": _rows("visit", [None, 0, 1, 1, 2, 3, 6]),
        "lab": _rows("lab", [3, 4, 5, 5]),
    }
    groups = [
        (p.key, {t: [r.row for r in rs] for t, rs in g.items()})
        for p, g in group_by_patient(patients, facts, ledger)
    ]
    sink.close()
    assert groups == [
        (1, {"visit": ["3", "4"], "lab": []}),
        (3, {"visit": ["6"], "lab": ["1"]}),
        (5, {"visit": [], "lab": ["3", "4"]}),
    ]
    reasons = {r.file: r.rejected_reasons for r in ledger.reports()}
    assert reasons == {
        "person": {"missing or unparsable patient id": 1, "duplicate patient": 1},
        "visit": {"missing or unparsable patient id": 1, "unknown patient": 3},
        "lab": {"unknown patient": 1},
    }
    assert [(r.file, r.read, r.rejected) for r in ledger.reports()] == [
        ("lab", 4, 1),
        ("person", 5, 2),
        ("visit", 7, 4),
    ]
    lines = sink.path.read_text().splitlines()
    assert any('"unknown patient: 6"' in line for line in lines)


def test_group_by_patient_holds_one_patient_at_a_time(tmp_path: Path) -> None:
    ledger = Ledger(RejectSink(tmp_path / "r.jsonl"))
    many = itertools.count(1)
    visits = (SourceRow("visit", "visit", str(k), k, k // 10, {}) for k in itertools.count(10))
    groups = group_by_patient(
        (SourceRow("person", "person", str(k), k, k, {}) for k in many), {"visit": visits}, ledger
    )
    first = next(groups)
    assert first[0].key == 1 and len(first[1]["visit"]) == 10
    assert ledger.report("visit").read == 11  # ten rows and one look-ahead, of infinitely many


def test_unsorted_streams_are_an_error(tmp_path: Path) -> None:
    ledger = Ledger(RejectSink(tmp_path / "r.jsonl"))
    groups = group_by_patient(_rows("person", [1, 2]), {"visit": _rows("visit", [2, 1])}, ledger)
    with pytest.raises(SourceError, match="not sorted") as caught:
        list(groups)
    assert isinstance(caught.value, KgverifyError)
