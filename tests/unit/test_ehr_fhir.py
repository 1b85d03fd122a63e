"""The FHIR adapter on Synthea-like R4 bundles and a bulk NDJSON file (tests/fixtures/fhir).

marta_kertzmann.json is a transaction bundle with ``urn:uuid:`` references and its
encounters in reverse order; chidi_okafor.json a searchset with ``Patient/x`` and absolute
references, a resource without subject, a malformed date, an unknown code system, an
entered-in-error condition and a Medication referenced by a MedicationRequest;
bulk/export.ndjson a third patient, a broken line, an observation of the first patient
(so her resources span two files) and a condition of a patient that does not exist.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from kgverify.ehr.common import Ledger, SourceError
from kgverify.ehr.fhir import read_fhir
from kgverify.ehr.model import Trajectory
from kgverify.ehr.privacy import pseudonym
from kgverify.rows import RejectSink

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fhir"
SALT = "test-salt"
MARTA = "8f789d0b-3145-4cf2-8504-13159edaa747"


def pid(patient: str) -> str:
    return pseudonym(SALT, "fhir:patient", patient)


Result = tuple[dict[str, Trajectory], Ledger, list[dict[str, Any]]]


def _read(source: Path, tmp: Path) -> Result:
    sink = RejectSink(tmp / "rejects.jsonl")
    ledger = Ledger(sink)
    trajectories = {t.patient.patient_id: t for t in read_fhir(source, ledger, salt=SALT)}
    sink.close()
    lines = sink.path.read_text().splitlines() if sink.path.exists() else []
    return trajectories, ledger, [json.loads(line) for line in lines]


@pytest.fixture
def result(tmp_path: Path) -> Result:
    return _read(FIXTURES, tmp_path)


def test_counts_per_file_reconcile(result: Result) -> None:
    _, ledger, _ = result
    reports = {r.file: r for r in ledger.reports()}
    assert {f: (r.read, r.loaded, r.skipped, r.rejected) for f, r in reports.items()} == {
        "bulk/export.ndjson": (7, 5, 0, 2),
        "chidi_okafor.json": (12, 7, 3, 2),
        "marta_kertzmann.json": (10, 10, 0, 0),
    }
    assert reports["chidi_okafor.json"].skipped_reasons == {
        "resource type not read: Medication": 1,
        "resource type not read: Organization": 1,
        "entered-in-error": 1,
    }
    assert ledger.reconciles
    assert dict(ledger.unlinked) == {"Observation": 1}  # Encounter/enc-missing


def test_rejects_name_the_file_and_entry(result: Result) -> None:
    _, _, rejects = result
    found = {(r["file"], r["line"], r["text"]): r["reason"].split(":")[0] for r in rejects}
    assert found == {
        ("chidi_okafor.json", 4, "Condition/cond-b2"): "missing subject",
        ("chidi_okafor.json", 5, "Condition/cond-b3"): "unparsable date onsetDateTime",
        ("bulk/export.ndjson", 4, "(line withheld)"): "invalid JSON",
        ("bulk/export.ndjson", 6, "Condition/cond-x1"): "unknown patient",
    }


def test_patients_in_id_order_with_bands_and_sex(result: Result) -> None:
    trajectories, _, _ = result
    assert list(trajectories) == [pid(p) for p in sorted((MARTA, "b-1002", "c-2001"))]
    bands = {p: (t.patient.age_band, t.patient.sex) for p, t in trajectories.items()}
    assert bands == {
        pid(MARTA): ("50-59", "F"),  # born 1965, first encounter 2019
        pid("b-1002"): ("90+", "M"),  # born 1931, admitted 2022
        pid("c-2001"): ("10-19", "F"),
    }


def test_uuid_references_resolve_and_encounters_are_sorted(result: Result) -> None:
    marta = result[0][pid(MARTA)]
    wellness, emergency = marta.encounters
    assert (wellness.kind, str(wellness.start)) == ("outpatient", "2019-05-02 09:00:00-04:00")
    assert (emergency.kind, str(emergency.end)) == ("emergency", "2020-11-04 03:40:00-05:00")
    assert [(c.code_system, c.code) for c in wellness.conditions] == [("SNOMEDCT", "59621000")]
    assert wellness.conditions[0].source.code_system == "http://snomed.info/sct"
    assert [c.code for c in emergency.conditions] == ["10509002"]
    (drug,) = wellness.drug_exposures
    assert (drug.code_system, drug.code, drug.route, drug.dose, drug.dose_unit) == (
        "RXNORM",
        "310798",
        "Oral route",
        "1.0",
        "tablet",
    )
    labs = {m.code: m for m in wellness.measurements}
    assert set(labs) == {"8480-6", "8462-4", "2339-0", "72166-2"}  # BP panel -> 2 components
    assert (labs["8480-6"].value, labs["8480-6"].flag) == (142.0, "high")  # interpretation H
    assert (labs["8462-4"].value, labs["8462-4"].flag) == (88.0, None)
    assert (labs["2339-0"].ref_high, labs["2339-0"].flag) == (99.0, "high")  # from the range
    assert labs["72166-2"].value_text == "Never smoked tobacco (finding)"
    assert labs["8480-6"].item_id != labs["8462-4"].item_id  # same resource, two codes
    (weight,) = marta.items_outside_encounters.measurements  # from the NDJSON file
    assert (weight.code, weight.value, weight.source.row) == ("29463-7", 70.2, "obs-a-weight")


def test_medication_reference_unknown_system_and_icd(result: Result) -> None:
    chidi = result[0][pid("b-1002")]
    (stay,) = chidi.encounters
    assert stay.kind == "inpatient"
    assert [(c.code_system, c.code) for c in stay.conditions] == [
        ("SNOMEDCT", "44054006"),
        ("ICD10CM", "E11.9"),
    ]
    (metformin,) = stay.drug_exposures
    assert (metformin.code_system, metformin.code) == ("RXNORM", "860975")
    (acme,) = [m for m in stay.measurements if m.code == "GLU-F"]
    assert acme.code_system == "http://acme.example.org/fhir/CodeSystem/lab-codes"
    assert acme.flag == "high"  # HH
    (a1c,) = chidi.items_outside_encounters.measurements
    assert (a1c.code_system, a1c.code, a1c.flag) == ("LNC", "4548-4", "high")


def test_no_name_address_birth_date_or_source_id_leaves_the_adapter(result: Result) -> None:
    dumped = "".join(t.model_dump_json() for t in result[0].values())
    private = ["Kertzmann", "Marta", "Runolfsdottir", "Springfield", "555-317-8842"]
    private += ["999-41-8533", "1965-03-14", "Okafor", "1931-07-20", "Lindqvist"]
    private += [MARTA, "b-1002", "c-2001", "enc-b1", "enc-c1"]
    for text in private:
        assert text not in dumped, text


def test_a_single_bundle_file_and_a_broken_file(tmp_path: Path) -> None:
    trajectories, ledger, _ = _read(FIXTURES / "chidi_okafor.json", tmp_path)
    assert list(trajectories) == [pid("b-1002")]
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(FIXTURES / "marta_kertzmann.json", folder)
    (folder / "broken.json").write_text('{"resourceType": "Bundle", "entry": [')
    odd = [  # resources of an unexpected shape, one NDJSON line each
        {
            "resourceType": "Condition",
            "id": "s1",
            "subject": {"reference": f"Patient/{MARTA}"},
            "code": "I10",
            "encounter": "Encounter/x",
        },
        {
            "resourceType": "Observation",
            "id": "s2",
            "subject": {"reference": f"Patient/{MARTA}"},
            "code": {"coding": [{"system": "http://loinc.org", "code": "8310-5"}]},
            "valueQuantity": {"value": "high"},
        },
        {"resourceType": "Patient", "id": "s3", "gender": 7, "birthDate": "19xx"},
        ["not", "a", "resource"],
    ]
    (folder / "odd.ndjson").write_text("\n".join(json.dumps(r) for r in odd) + "\n")
    trajectories, ledger, rejects = _read(folder, tmp_path)
    assert list(trajectories) == [pid(MARTA)]
    assert [(r["file"], r["line"], r["reason"][:30]) for r in rejects] == [
        ("broken.json", None, "invalid JSON: Expecting value:"),
        ("odd.ndjson", 4, "entry without a resource"),
        ("odd.ndjson", 1, "no coding with a system and a "),
        ("odd.ndjson", 2, "not a number valueQuantity.val"),
        ("odd.ndjson", 3, "unparsable date birthDate: '19"),
    ]
    assert ledger.report("broken.json").read == 1 and ledger.reconciles


def test_missing_sources_fail_before_reading(tmp_path: Path) -> None:
    ledger = Ledger(RejectSink(tmp_path / "rejects.jsonl"))
    with pytest.raises(SourceError, match="does not exist"):
        read_fhir(tmp_path / "nowhere", ledger, salt=SALT)
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match=r"no \.json or \.ndjson files"):
        read_fhir(tmp_path / "empty", ledger, salt=SALT)
