"""The hand-written sample files (kgverify/sample/README.md, "Provenance") hold to what the README
states of them: relation ids are CandidateRelation's content hashes and each line is its model's
own JSON, so a hand edit that forgets the id fails here; dialogues and planted actions name
persons of the shipped EHR sample, dialogues on days that person has rows."""

from __future__ import annotations

import csv
from pathlib import Path

from kgverify.actions.sample import read_sample_actions
from kgverify.dialogue.sample import read_sample
from kgverify.ehr.model import Trajectory
from kgverify.extract.relation import CandidateRelation

SAMPLE = Path(__file__).resolve().parents[2] / "kgverify" / "sample"
EHR = SAMPLE / "omop" / "eunomia_sample"
DATES = {
    "condition_occurrence": "CONDITION_START_DATE",
    "drug_exposure": "DRUG_EXPOSURE_START_DATE",
    "measurement": "MEASUREMENT_DATE",
    "procedure_occurrence": "PROCEDURE_DATE",
    "visit_occurrence": "VISIT_START_DATE",
}


def _rows(table: str) -> list[dict[str, str]]:
    with (EHR / f"{table}.csv").open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_relation_lines_are_hand_written_and_carry_their_content_hash() -> None:
    lines = (SAMPLE / "relations" / "llm_style.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines
    for line in lines:
        relation = CandidateRelation.model_validate_json(line)
        assert relation.extractor.version == "hand-written"
        rehashed = CandidateRelation.model_validate({**relation.model_dump(), "relation_id": ""})
        assert rehashed.relation_id == relation.relation_id, line
        assert relation.model_dump_json() == line
    patients = {CandidateRelation.model_validate_json(x).patient_id for x in lines}
    trajectories = (SAMPLE / "relations" / "llm_style_trajectories.jsonl").read_text(
        encoding="utf-8"
    )
    for line in trajectories.splitlines():
        assert Trajectory.model_validate_json(line).patient.patient_id in patients


def test_dialogues_and_actions_name_persons_of_the_ehr_sample() -> None:
    persons = {r["PERSON_ID"] for r in _rows("person")}
    days: dict[str, set[str]] = {}
    for table, column in DATES.items():
        for row in _rows(table):
            days.setdefault(row["PERSON_ID"], set()).add(row[column])
    dialogues = read_sample(SAMPLE / "dialogues" / "dialogues.jsonl")
    assert dialogues
    for d in dialogues:
        assert d.person in persons, d.dialogue_id
        assert d.encounter_id is not None and d.encounter_id.startswith("day:")
        assert d.encounter_id.removeprefix("day:") in days[d.person], d.dialogue_id
    actions = read_sample_actions(SAMPLE / "actions")
    assert actions
    assert {a.person for a in actions} <= persons
