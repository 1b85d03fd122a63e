"""The template extractor's rules and the candidate-relation JSONL, on a hand-made record."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from kgverify.ehr.model import (
    Condition,
    DrugExposure,
    Encounter,
    Measurement,
    Patient,
    SourceRef,
    Trajectory,
)
from kgverify.extract import Predicate, read_relations, write_relations
from kgverify.extract.template import TemplateExtractor


def _ref(table: str, row: str, system: str, code: str) -> SourceRef:
    return SourceRef(table=table, row=row, code_system=system, code=code)


def _condition(row: str, code: str, name: str, day: date) -> Condition:
    return Condition(
        source=_ref("condition_occurrence", row, "SNOMED", code),
        code_system="SNOMEDCT",
        code=code,
        display=name,
        start=day,
    )


def trajectory() -> Trajectory:
    d1, d2 = date(2020, 1, 1), date(2020, 3, 1)
    t2dm = _condition("1", "44054006", "Type 2 diabetes mellitus", d1)
    metformin = DrugExposure(
        source=_ref("drug_exposure", "1", "RxNorm", "860975"),
        code_system="RXNORM",
        code="860975",
        display="metformin",
        start=d1,
    )
    glucose_high = Measurement(
        source=_ref("measurement", "1", "LOINC", "2345-7"),
        code_system="LNC",
        code="2345-7",
        display="Glucose",
        start=d1,
        value=13.0,
        ref_low=3.9,
        ref_high=7.8,
    )
    glucose_ok = Measurement(
        source=_ref("measurement", "2", "LOINC", "2345-7"),
        code_system="LNC",
        code="2345-7",
        display="Glucose",
        start=d1,
        value=5.0,
        ref_low=3.9,
        ref_high=7.8,
    )
    ckd = _condition("2", "709044004", "Chronic kidney disease", d2)
    t2dm_again = _condition("3", "44054006", "Type 2 diabetes mellitus", d2)
    first = Encounter(
        encounter_id="e1",
        start=d1,
        kind="outpatient",
        conditions=[t2dm],
        drug_exposures=[metformin],
        measurements=[glucose_high, glucose_ok],
    )
    second = Encounter(encounter_id="e2", start=d2, kind="outpatient", conditions=[ckd, t2dm_again])
    return Trajectory(
        source="omop", patient=Patient(patient_id="p1", sex="F"), encounters=[first, second]
    )


def test_rules() -> None:
    relations = list(TemplateExtractor().extract([trajectory()]))
    said = {(r.subject.text, r.predicate, r.object.text, r.encounter_id) for r in relations}
    assert said == {
        ("metformin", Predicate.TREATS, "Type 2 diabetes mellitus", "e1"),
        ("Glucose", Predicate.INDICATES, "Type 2 diabetes mellitus", "e1"),  # the high one only
        # In e2, CKD is new (T2DM is not), and e1's abnormal glucose counts for e2 as the
        # episode before it; the normal glucose proposes nothing.
        ("Type 2 diabetes mellitus", Predicate.LEADS_TO, "Chronic kidney disease", "e2"),
        ("Glucose", Predicate.INDICATES, "Chronic kidney disease", "e2"),
        ("Glucose", Predicate.INDICATES, "Type 2 diabetes mellitus", "e2"),
    }
    treats = next(r for r in relations if r.predicate is Predicate.TREATS)
    first = trajectory().encounters[0]
    assert treats.evidence == [first.drug_exposures[0].item_id, first.conditions[0].item_id]
    assert treats.subject.code == "860975" and treats.object.code_system == "SNOMEDCT"
    # Deterministic: the same record gives the same relations and ids.
    again = list(TemplateExtractor().extract([trajectory()]))
    assert [r.relation_id for r in again] == [r.relation_id for r in relations]


def test_jsonl_round_trip_and_bad_lines(tmp_path: Path) -> None:
    relations = list(TemplateExtractor().extract([trajectory()]))
    path = tmp_path / "relations.jsonl"
    assert write_relations(relations, path) == len(relations)
    good = relations[0].model_dump_json()
    with path.open("a") as out:
        out.write(good.replace('"treats"', '"cures"') + "\n")
        out.write('{"not": "a relation"}\n')
    back = list(read_relations(path))
    assert back[: len(relations)] == relations
    bad = back[len(relations) :]
    assert isinstance(bad[0], tuple) and bad[0][0] == len(relations) + 1
    assert "predicate" in bad[0][1]
    assert isinstance(bad[1], tuple) and bad[1][0] == len(relations) + 2
