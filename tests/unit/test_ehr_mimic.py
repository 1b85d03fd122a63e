"""The MIMIC-IV adapter on synthetic hosp files in the v2/v3 schema (tests/fixtures/mimic).

The fixture rows are shuffled across subjects and hold one or more bad rows per file:
wrong column counts, unparsable dates, an unknown subject, an unknown admission, an
unsupported ICD version, a repeated dictionary key.
"""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import duckdb
import pytest

from kgverify.ehr.common import Ledger, SourceError
from kgverify.ehr.mimic import read_mimic
from kgverify.ehr.model import Measurement, Trajectory
from kgverify.ehr.privacy import pseudonym
from kgverify.rows import RejectSink

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "mimic"
SALT = "test-salt"


def pid(subject: int) -> str:
    return pseudonym(SALT, "mimic:patient", str(subject))


def _read(source: Path, tmp: Path) -> tuple[dict[str, Trajectory], Ledger, list[dict[str, Any]]]:
    sink = RejectSink(tmp / "rejects.jsonl")
    ledger = Ledger(sink)
    trajectories = {t.patient.patient_id: t for t in read_mimic(source, ledger, salt=SALT)}
    sink.close()
    lines = sink.path.read_text().splitlines() if sink.path.exists() else []
    return trajectories, ledger, [json.loads(line) for line in lines]


@pytest.fixture
def result(tmp_path: Path) -> tuple[dict[str, Trajectory], Ledger, list[dict[str, Any]]]:
    return _read(FIXTURES, tmp_path)


def test_counts_per_file_reconcile(result: Any) -> None:
    _, ledger, _ = result
    counts = {r.file: (r.read, r.loaded, r.skipped, r.rejected) for r in ledger.reports()}
    assert counts == {
        "patients": (6, 5, 0, 1),
        "admissions": (10, 7, 0, 3),
        "diagnoses_icd": (14, 11, 0, 3),
        "d_icd_diagnoses": (13, 11, 1, 1),
        "prescriptions": (7, 5, 0, 2),
        "labevents": (12, 9, 0, 3),
        "d_labitems": (10, 9, 0, 1),
    }
    for name in counts:  # read counts the data lines of each file
        lines = (FIXTURES / "hosp" / f"{name}.csv").read_text().splitlines()
        assert ledger.report(name).read == len(lines) - 1
    assert ledger.reconciles
    assert dict(ledger.unlinked) == {"diagnoses_icd": 1}  # hadm_id 99999999 is no admission


def test_rejects_name_file_line_and_reason(result: Any) -> None:
    _, _, rejects = result
    found = {(r["file"], r["line"]): r["reason"] for r in rejects}
    assert found == {
        ("patients", 4): "malformed CSV line: Expected Number of Columns: 6 Found: 4",
        ("admissions", 9): "unparsable date admittime: '2160-13-45 09:00:00'",
        ("admissions", 10): "unknown patient: 10001217",  # its patients row is malformed
        ("admissions", 11): "unknown patient: 19999999",
        ("diagnoses_icd", 12): "malformed CSV line: Expected Number of Columns: 5 Found: 6",
        ("diagnoses_icd", 13): "unknown patient: 19999999",
        ("diagnoses_icd", 14): "unsupported icd_version: 11",
        ("d_icd_diagnoses", 9): "malformed CSV line: Expected Number of Columns: 3 Found: 1",
        ("prescriptions", 6): "unparsable date starttime: '2189-06-31 08:00:00'",
        ("prescriptions", 7): "malformed CSV line: Expected Number of Columns: 21 Found: 20",
        ("labevents", 11): "unparsable date charttime: 'not a time'",
        ("labevents", 12): "unknown patient: 19999999",
        ("labevents", 13): "malformed CSV line: Expected Number of Columns: 16 Found: 15",
        ("d_labitems", 11): "malformed CSV line: Expected Number of Columns: 4 Found: 5",
    }


def test_lines_count_blank_lines_and_line_breaks_inside_quotes(tmp_path: Path) -> None:
    """Rejects and ``source.row`` give the line in the file even when a quoted comment
    spans two lines and a blank line sits between records."""
    hosp = tmp_path / "hosp"
    shutil.copytree(FIXTURES / "hosp", hosp)
    labs = (hosp / "labevents.csv").read_text().splitlines(keepends=True)
    assert labs[1].endswith('70-100 NORMAL, >125 PROVISIONAL DIABETES."\n')
    labs[1] = labs[1].replace("70-100 NORMAL, ", "70-100 NORMAL,\n")  # line 2 is now 2-3
    labs.insert(5, "\n")  # a blank line after the lab that was on line 5, now 6
    (hosp / "labevents.csv").write_text("".join(labs))
    trajectories, ledger, rejects = _read(hosp, tmp_path)
    found = {r["line"]: r["reason"] for r in rejects if r["file"] == "labevents"}
    assert found == {
        13: "unparsable date charttime: 'not a time'",  # was line 11
        14: "unknown patient: 19999999",
        15: "malformed CSV line: Expected Number of Columns: 16 Found: 15",
    }
    outside = trajectories[pid(10000084)].items_outside_encounters.measurements
    assert [(m.code, m.source.row) for m in outside] == [("51237", "8")]  # was line 6
    first = trajectories[pid(10000032)].encounters[0].measurements
    assert "2" in [m.source.row for m in first]  # the two-line record starts on line 2
    assert ledger.report("labevents").read == 12 and ledger.reconciles


def test_subjects_come_sorted_with_admissions_in_time_order(result: Any) -> None:
    trajectories, _, _ = result
    subjects = (10000032, 10000084, 10000117, 10000980, 10002428)
    assert list(trajectories) == [pid(s) for s in subjects]
    first = trajectories[pid(10000032)]
    assert [str(e.start) for e in first.encounters] == [
        "2180-05-06 22:23:00",
        "2180-06-26 18:27:00",
        "2180-08-05 23:44:00",
    ]
    assert [e.kind for e in first.encounters] == ["inpatient", "emergency", "emergency"]
    assert first.patient.model_dump() == {
        "patient_id": pid(10000032),
        "age_band": "50-59",
        "sex": "F",
    }
    assert trajectories[pid(10000980)].patient.age_band == "90+"  # anchor_age 91
    no_admissions = trajectories[pid(10002428)]
    assert no_admissions.encounters == []
    assert no_admissions.patient.age_band == "80-89"  # from its earliest lab


def test_icd_codes_are_dotted_and_named(result: Any) -> None:
    trajectories, _, _ = result
    stay = trajectories[pid(10000032)].encounters[0]
    assert [(c.code_system, c.code, c.source.code, c.source.row) for c in stay.conditions] == [
        ("ICD9CM", "572.3", "5723", "2"),
        ("ICD9CM", "789.59", "78959", "4"),
        ("ICD9CM", "E849.7", "E8497", "6"),
        ("ICD9CM", "V15.82", "V1582", "7"),
    ]
    dementia = trajectories[pid(10000084)].encounters[0].conditions
    assert [(c.code_system, c.code) for c in dementia] == [
        ("ICD10CM", "G31.83"),
        ("ICD10CM", "F02.80"),
    ]
    assert dementia[1].display is not None and dementia[1].display.startswith(
        "Dementia in other diseases classified elsewhere, unspecified severity,"
    )
    outside = trajectories[pid(10000980)].items_outside_encounters.conditions
    assert [(c.code, c.source.row) for c in outside] == [("N17.9", "15")]  # line after a bad one


def test_prescriptions_use_the_ndc_else_the_formulary_code(result: Any) -> None:
    trajectories, _, _ = result
    drugs = trajectories[pid(10000032)].encounters[0].drug_exposures
    furosemide = next(d for d in drugs if d.display == "Furosemide")
    assert (furosemide.code_system, furosemide.code, furosemide.mapped) == (
        "NDC",
        "51079007320",
        True,
    )
    assert (furosemide.dose, furosemide.dose_unit, furosemide.route) == ("40", "mg", "PO/NG")
    flush = trajectories[pid(10000084)].encounters[0].drug_exposures[0]
    assert (flush.code_system, flush.code, flush.mapped) == ("MIMIC_FORMULARY", "NACLFLUSH", False)


def _labs(trajectory: Trajectory) -> Iterator[Measurement]:
    for encounter in trajectory.encounters:
        yield from encounter.measurements
    yield from trajectory.items_outside_encounters.measurements


def test_lab_values_ranges_and_flags(result: Any) -> None:
    trajectories, _, _ = result
    labs = {(m.display, m.code): m for t in trajectories.values() for m in _labs(t)}
    flags = {k: m.flag for k, m in labs.items()}
    assert flags == {
        ("Glucose", "50931"): "normal",  # 90 within 70-100, no source flag
        ("Sodium", "50983"): "normal",  # 133 at the lower bound
        ("Phosphate", "50970"): "low",  # source 'abnormal', 2.4 below 2.7
        ("Chloride", "50902"): "high",  # source 'abnormal', 110 above 108
        ("INR(PT)", "51237"): None,  # no range, no flag
        ("Troponin T", "51003"): None,  # text value only
        ("Lactate", "50813"): "high",  # 2.5 above 2, no source flag
        ("Albumin", "50862"): "low",
        (None, "51222"): "low",  # its d_labitems row is malformed: no name
    }
    troponin = labs[("Troponin T", "51003")]
    assert (troponin.value, troponin.value_text, troponin.unit) == (None, "<0.01", "ng/mL")
    glucose = labs[("Glucose", "50931")]
    assert (glucose.value, glucose.value_text, glucose.ref_low, glucose.ref_high) == (
        90.0,
        "___",
        70.0,
        100.0,
    )
    inr = trajectories[pid(10000084)].items_outside_encounters.measurements
    assert [m.code for m in inr] == ["51237"]  # no hadm_id: outside admissions


def test_gzip_files_read_the_same(result: Any, tmp_path: Path) -> None:
    expected, _, _ = result
    hosp = tmp_path / "mimic" / "hosp"
    shutil.copytree(FIXTURES / "hosp", hosp)
    for name in ("labevents", "patients"):
        plain = hosp / f"{name}.csv"
        with gzip.open(hosp / f"{name}.csv.gz", "wb") as out:
            out.write(plain.read_bytes())
        plain.unlink()
    trajectories, ledger, _ = _read(tmp_path / "mimic", tmp_path)
    assert trajectories == expected
    assert ledger.report("labevents").read == 12


def test_a_large_unsorted_file_streams_one_subject_at_a_time(tmp_path: Path) -> None:
    hosp = tmp_path / "hosp"
    shutil.copytree(FIXTURES / "hosp", hosp)
    subjects = 400
    header = (hosp / "labevents.csv").read_text().splitlines()[0]
    with closing(duckdb.connect()) as con:  # 20,000 labs, subjects interleaved (not sorted)
        con.execute(
            f"COPY (SELECT i AS labevent_id, 30000000 + (i * 7919) % {subjects} AS subject_id, "  # noqa: S608
            "NULL AS hadm_id, i AS specimen_id, 50912 AS itemid, NULL AS order_provider_id, "
            "'2150-01-01 10:00:00' AS charttime, NULL AS storetime, '1.0' AS value, 1.0 AS "
            "valuenum, 'mg/dL' AS valueuom, 0.4 AS ref_range_lower, 1.1 AS ref_range_upper, "
            "NULL AS flag, 'ROUTINE' AS priority, NULL AS comments FROM range(20000) t(i)) "
            f"TO '{hosp / 'labevents.csv'}' (HEADER)"
        )
        con.execute(
            "COPY (SELECT 30000000 + i AS subject_id, 'F' AS gender, 40 AS anchor_age, 2150 AS "  # noqa: S608
            f"anchor_year, '2008 - 2010' AS anchor_year_group, NULL AS dod FROM range({subjects}) "
            f"t(i) ORDER BY random()) TO '{hosp / 'patients.csv'}' (HEADER)"
        )
    assert (hosp / "labevents.csv").read_text().splitlines()[0] == header
    ledger = Ledger(RejectSink(tmp_path / "rejects.jsonl"))
    trajectories = read_mimic(hosp, ledger, salt=SALT)
    first = next(trajectories)
    assert first.patient.patient_id == pid(30000000)
    assert len(first.items_outside_encounters.measurements) == 50
    assert ledger.report("labevents").read == 51  # that subject's rows and one look-ahead
    rest = list(trajectories)
    assert len(rest) == subjects - 1
    assert ledger.report("labevents").read == ledger.report("labevents").loaded == 20000


def test_missing_files_or_columns_fail_before_reading(tmp_path: Path) -> None:
    ledger = Ledger(RejectSink(tmp_path / "rejects.jsonl"))
    hosp = tmp_path / "hosp"
    shutil.copytree(FIXTURES / "hosp", hosp)
    (hosp / "d_labitems.csv").unlink()
    with pytest.raises(SourceError, match=r"lacks d_labitems\.csv"):
        read_mimic(hosp, ledger, salt=SALT)
    shutil.copy(FIXTURES / "hosp" / "d_labitems.csv", hosp)
    (hosp / "patients.csv").write_text("subject_id,gender,anchor_year\n1,F,2150\n")
    with pytest.raises(SourceError, match=r"patients\.csv: missing columns anchor_age"):
        read_mimic(hosp, ledger, salt=SALT)
    with pytest.raises(SourceError, match="not a folder"):
        read_mimic(tmp_path / "nowhere", ledger, salt=SALT)
