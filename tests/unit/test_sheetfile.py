"""The fact-sheet file: each fact once per sheet, each wording once per file, the same
sheets read back, and gzip when the name says so."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kgverify.derive.model import EncounterSheet, FactSheet, SheetCheck, SheetFact
from kgverify.derive.sheetfile import read_sheets, write_sheets


def fact(fid: str, section: str, text: str, concept: str, **extra: object) -> SheetFact:
    return SheetFact.model_validate(
        {
            "fact_id": fid,
            "section": section,
            "text": text,
            "concept_id": concept,
            "code": concept,
            "source_table": "condition_occurrence",
            "source_row": fid,
            "verdict": "grounded",
            **extra,
        }
    )


def sheet(patient: str) -> FactSheet:
    sinusitis = fact(f"{patient}-c1", "diagnosis", "Sinusitis", "SNOMEDCT:36971009")
    told = fact(f"{patient}-c1", "history", "sinusitis", "SNOMEDCT:36971009")
    drug = fact(
        f"{patient}-d1",
        "current_drug",
        "aspirin 81 mg oral tablet",
        "RXNORM:243670",
        start="2000-01-01",
        assertions=["a1"],
        verdict="supported",
    )
    lab = fact(f"{patient}-l1", "lab", "Glucose", "LNC:2345-7", value=5.4, unit="mmol/L")
    return FactSheet(
        patient_id=patient,
        split="train",
        age_band="90+",
        sex="F",
        checks=[SheetCheck(kind="date_order", detail="ends before it starts", facts=[lab.fact_id])],
        encounters=[
            EncounterSheet(
                episode="day:2000-01-01",
                start="2000-01-01",
                kind=None,
                age_band="90+",
                patient_can_say=[drug],
                record_only=[sinusitis, lab],
            ),
            EncounterSheet(
                episode="enc:2",
                start="2001-01-01",
                kind="outpatient",
                patient_can_say=[told, drug],
                record_only=[lab],
            ),
        ],
    )


@pytest.mark.parametrize("name", ["sheets.jsonl", "sheets.jsonl.gz"])
def test_sheets_read_back_as_written(tmp_path: Path, name: str) -> None:
    sheets = [sheet("p1"), sheet("p2")]
    path = tmp_path / name
    assert write_sheets(sheets, path) == 2
    assert list(read_sheets(path)) == sheets
    packed = path.read_bytes()[:2] == b"\x1f\x8b"
    assert packed == name.endswith(".gz")


def test_each_fact_once_per_sheet_and_each_wording_once_per_file(tmp_path: Path) -> None:
    path = tmp_path / "sheets.jsonl"
    write_sheets([sheet("p1"), sheet("p2")], path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    terms = [line for line in lines if "term" in line]
    stored = [line for line in lines if "facts" in line]
    # Sinusitis in two wordings (the record's name, the patient's lay words), aspirin, glucose.
    assert [t["text"] for t in terms] == [
        "aspirin 81 mg oral tablet",
        "Sinusitis",
        "Glucose",
        "sinusitis",
    ]
    assert lines.index(terms[-1]) < lines.index(stored[0])  # terms come before their use
    # p1-c1 twice (two wordings), the drug and the lab once each, shown in two encounters.
    assert [(f["fact_id"], f["term"]) for f in stored[0]["facts"]] == [
        ("p1-d1", 0),
        ("p1-c1", 1),
        ("p1-l1", 2),
        ("p1-c1", 3),
    ]
    assert stored[0]["encounters"][1]["patient_can_say"] == [
        ["history", [3]],
        ["current_drug", [0]],
    ]


def test_the_earlier_form_of_one_sheet_a_line_is_read(tmp_path: Path) -> None:
    path = tmp_path / "sheets.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(sheet("p1").model_dump_json() + "\n")
    assert list(read_sheets(path)) == [sheet("p1")]


def test_a_sheet_pointing_at_an_unwritten_term_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sheets.jsonl"
    write_sheets([sheet("p1")], path)
    only_sheet = [line for line in path.read_text().splitlines() if '"facts"' in line]
    path.write_text("\n".join(only_sheet) + "\n")
    with pytest.raises(ValueError, match="line 1: a fact or term not defined"):
        list(read_sheets(path))
