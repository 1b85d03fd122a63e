"""Codes of the record said aloud (``checker.spoken_codes``), of every system the record
holds, on a real spaCy doc and a real fact sheet."""

from __future__ import annotations

import spacy

from kgverify.derive.model import EncounterSheet, FactSheet, SheetFact
from kgverify.dialogue.record import view
from kgverify.dialogue.spoken import spoken_codes

NLP = spacy.blank("en")


def fact(fid: str, section: str, code: str) -> SheetFact:
    return SheetFact(
        fact_id=fid,
        section=section,
        text=fid,
        concept_id=f"X:{fid}",
        code=code,
        source_table="t",
        source_row=fid,
        verdict="grounded",
    )


SHEET = FactSheet(
    patient_id="p",
    split="train",
    age_band="60-69",
    sex="M",
    checks=[],
    encounters=[
        EncounterSheet(
            episode="day:2020-01-01",
            start="2020-01-01",
            kind=None,
            patient_can_say=[
                fact("drug", "current_drug", "RXNORM:161"),
                fact("pack", "current_drug", "NDC:00093005801"),
                fact("otitis", "history", "SNOMEDCT:65363002"),
            ],
            record_only=[
                fact("af", "diagnosis", "ICD10CM:I48.91"),
                fact("hb", "lab", "LNC:718-7"),
            ],
        )
    ],
)


def codes(text: str) -> list[tuple[str, str | None]]:
    record = view(SHEET, "day:2020-01-01")
    assert record is not None
    found = spoken_codes(NLP.make_doc(text), text, record, 0, [])
    assert all(v.verdict == "leak" and v.kind == "code" for v in found)
    return [(v.text, v.evidence[0].fact_id) for v in found]


def test_codes_of_every_system_are_leaks() -> None:
    assert codes("My code was 65363002.") == [("65363002", "otitis")]
    assert codes("They wrote I48.91 and LOINC 718-7.") == [("I48.91", "af"), ("718-7", "hb")]
    assert codes("It said ICD10CM:I48.91") == [("ICD10CM:I48.91", "af")]
    assert codes("The box says 0093-0058-01.") == [("0093-0058-01", "pack")]


def test_short_numbers_are_codes_only_when_called_codes() -> None:
    assert codes("My sugar was 161.") == []
    assert codes("The RxNorm code is 161.") == [("161", "drug")]
    assert codes("I took 718 steps and 7 pills") == []  # no hyphen, no code
    assert codes("My temperature was 38.5") == []


def test_a_code_the_graph_maps_a_fact_to_is_the_facts_code() -> None:
    """A fact recorded in one system, said in another: the counterparts the checker reads
    from MAPS_TO (here given as they come: ``code_key`` -> (concept id, fact))."""
    record = view(SHEET, "day:2020-01-01")
    assert record is not None
    otitis = next(f for f, _ in record.sayable if f.fact_id == "otitis")
    mapped = {"H6690": ("ICD10CM:H66.90", otitis)}
    text = "The paper said H66.90, and H66.91 on the other."
    found = spoken_codes(NLP.make_doc(text), text, record, 0, [], lambda: mapped)
    assert [(v.text, v.evidence[0].fact_id) for v in found] == [("H66.90", "otitis")]
    assert "ICD10CM:H66.90" in found[0].reason and "SNOMEDCT:65363002" in found[0].reason
    assert spoken_codes(NLP.make_doc(text), text, record, 0, []) == []  # without the map

    def unread() -> dict[str, tuple[str, SheetFact]]:
        raise AssertionError("the map is read only for a code the record does not hold")

    said = "I take 5 mg, and the code was 718-7."  # short numbers, a code of the record
    assert len(spoken_codes(NLP.make_doc(said), said, record, 0, [], unread)) == 1
