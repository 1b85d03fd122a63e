"""An agent's action read from its FHIR R4 resource: the codings in the graph's order, the
patient from the record or the resource's subject, a note's text from a Communication or
a base64 DocumentReference; every way a resource can be broken is one ``MalformedActionError``
naming where, and task files that are not tasks are one ``ConfigError`` line."""

from __future__ import annotations

import base64
import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from kgverify.actions.model import ActionRecord, Checkpoint
from kgverify.actions.resource import MalformedActionError, parse_action
from kgverify.actions.run import read_tasks
from kgverify.errors import ConfigError

RX = "http://www.nlm.nih.gov/research/umls/rxnorm"


def record(resource: dict[str, Any], patient: str | None = "p1") -> ActionRecord:
    return ActionRecord(action_id="a1", task_id="t1", patient_id=patient, resource=resource)


def med(**extra: Any) -> dict[str, Any]:
    return {
        "resourceType": "MedicationRequest",
        "subject": {"reference": "Patient/src-7"},
        "authoredOn": "2012-05-09T10:00:00Z",
        "medicationCodeableConcept": {
            "coding": [
                {"system": "http://hl7.org/fhir/sid/ndc", "code": "00093-0311"},
                {"system": RX, "code": "855332", "display": "Warfarin Sodium 5 MG Oral Tablet"},
            ]
        },
        **extra,
    }


def test_a_medication_request_gives_its_codings_graph_namespaces_first() -> None:
    action = parse_action(record(med(id="mr-1")))
    assert action.kind == "medication" and action.resource_id == "mr-1"
    assert [c.concept_id for c in action.codes] == ["RXNORM:855332", "NDC:00093-0311"]
    assert action.patient_id == "p1"  # the record's patient wins over the resource's subject
    assert action.at == date(2012, 5, 9)


def test_without_a_patient_id_the_subject_names_the_patient() -> None:
    assert parse_action(record(med(), patient=None)).patient_id == "src-7"


def test_note_text_from_communication_and_base64_document() -> None:
    comm = {
        "resourceType": "Communication",
        "subject": {"reference": "Patient/x"},
        "payload": [{"contentString": "New atrial fibrillation."}, {"contentString": "Plan."}],
    }
    assert parse_action(record(comm)).text == "New atrial fibrillation.\nPlan."
    data = base64.b64encode(b"History of peptic ulcer.").decode()
    doc = {
        "resourceType": "DocumentReference",
        "subject": {"reference": "Patient/x"},
        "content": [{"attachment": {"data": data}}],
    }
    note = parse_action(record(doc))
    assert note.kind == "note" and note.text == "History of peptic ulcer."
    assert "peptic" not in repr(note)  # a note's words stay out of logs and reprs


@pytest.mark.parametrize(
    ("resource", "reason"),
    [
        ({"resourceType": "Observation"}, "resourceType 'Observation' is not one of"),
        ({"resourceType": "MedicationRequest"}, "has no medicationCodeableConcept"),
        (
            {"resourceType": "MedicationRequest", "medicationReference": {"reference": "M/1"}},
            "medicationReference is not followed",
        ),
        (med(medicationCodeableConcept="warfarin"), "is not a CodeableConcept object"),
        (med(medicationCodeableConcept={"coding": {}}), "coding is not a list"),
        (med(medicationCodeableConcept={"coding": []}), "has no coding"),
        (med(medicationCodeableConcept={"coding": [{"code": "1"}]}), "coding[0] has no system"),
        (med(medicationCodeableConcept={"coding": [{"system": RX}]}), "coding[0] has no code"),
        (med(subject={"reference": "Group/1"}), "subject.reference is not 'Patient/<id>'"),
        (med(authoredOn="yesterday!"), "authoredOn is not a date"),
        (
            {"resourceType": "Communication", "payload": [{"contentAttachment": {}}]},
            "payload[0] has no contentString",
        ),
        (
            {"resourceType": "DocumentReference", "content": [{"attachment": {"data": "%%"}}]},
            "is not base64 UTF-8",
        ),
        ({"resourceType": "Communication"}, "holds no text"),
    ],
)
def test_a_broken_resource_says_where(resource: dict[str, Any], reason: str) -> None:
    with pytest.raises(MalformedActionError) as caught:
        parse_action(record(resource))
    assert reason in str(caught.value)


def test_no_patient_anywhere_is_malformed() -> None:
    with pytest.raises(MalformedActionError, match="no patient"):
        parse_action(record({k: v for k, v in med().items() if k != "subject"}, patient=None))


def test_a_checkpoint_needs_what_its_kind_reads() -> None:
    with pytest.raises(ValueError, match="needs condition"):
        Checkpoint(id="c", kind="indicated_order")
    with pytest.raises(ValueError, match="needs verdict"):
        Checkpoint(id="c", kind="no_verdict")
    with pytest.raises(ValueError, match="resource must be one of"):
        Checkpoint(
            id="c", kind="order_exists", codes=[{"system": "LNC", "code": "1"}], resource="X"
        )


def test_task_files_that_are_not_tasks_are_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"a\.json: not a task: invalid JSON"):
        read_tasks(tmp_path)
    (tmp_path / "a.json").write_text(json.dumps({"task_id": "t", "patient_id": "p"}))
    with pytest.raises(ConfigError, match=r"not a task: as_of: Field required"):
        read_tasks(tmp_path / "a.json")
    with pytest.raises(ConfigError, match="no such tasks file or folder"):
        read_tasks(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no task files"):
        read_tasks(tmp_path / "empty")
