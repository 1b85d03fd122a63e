"""What a patient may say at an encounter (``record.view``) and how a planted set is scored
(``sample.score``), on real fact-sheet and verdict models."""

from __future__ import annotations

from kgverify.derive.model import EncounterSheet, FactSheet, SheetFact
from kgverify.dialogue.model import (
    DialogueVerdicts,
    MentionVerdict,
    MentionVerdictKind,
    Role,
    Turn,
    TurnVerdict,
)
from kgverify.dialogue.record import code_key, view
from kgverify.dialogue.sample import Expected, SampleDialogue, score


def fact(fid: str, section: str, text: str) -> SheetFact:
    return SheetFact(
        fact_id=fid,
        section=section,
        text=text,
        concept_id=f"X:{fid}",
        code=f"X:{fid}00",
        source_table="t",
        source_row=fid,
        verdict="grounded",
    )


SHEET = FactSheet(
    patient_id="p",
    split="train",
    age_band="40-49",
    sex="F",
    checks=[],
    encounters=[
        EncounterSheet(
            episode="day:2000-01-01",
            start="2000-01-01",
            kind=None,
            patient_can_say=[fact("d1", "current_drug", "aspirin 81 mg oral tablet")],
            record_only=[fact("c1", "diagnosis", "Sinusitis"), fact("l1", "lab", "Glucose")],
        ),
        EncounterSheet(
            episode="day:2001-01-01",
            start="2001-01-01",
            kind=None,
            patient_can_say=[fact("h1", "history", "sinusitis")],
            record_only=[fact("c2", "diagnosis", "Otitis media"), fact("l2", "lab", "Glucose")],
        ),
    ],
)


def test_earlier_encounters_are_known_except_their_labs() -> None:
    later = view(SHEET, "day:2001-01-01")
    assert later is not None
    said = {f.fact_id: where for f, where in later.sayable}
    assert said == {
        "h1": "this encounter",
        "d1": "an earlier encounter (day:2000-01-01)",
        "c1": "an earlier encounter (day:2000-01-01)",
    }
    assert [f.fact_id for f in later.record_only] == ["c2", "l2"]
    first = view(SHEET, "day:2000-01-01")
    assert first is not None and [f.fact_id for f in first.record_only] == ["c1", "l1"]
    assert view(SHEET, "day:1999-01-01") is None


def test_the_whole_record_without_an_encounter() -> None:
    record = view(SHEET, None)
    assert record is not None
    assert {f.fact_id for f, _ in record.sayable} == {"d1", "h1"}
    assert {f.fact_id for f in record.record_only} == {"c1", "l1", "c2", "l2"}
    assert set(record.codes) == {f"{f}00".upper() for f in ("d1", "c1", "l1", "h1", "c2", "l2")}


def mention(start: int, text: str, verdict: str) -> MentionVerdict:
    return MentionVerdict(
        turn=0,
        start=start,
        end=start + len(text),
        text=text,
        kind="x",
        verdict=MentionVerdictKind(verdict),
        reason="",
    )


def test_scores_pair_overlapping_words() -> None:
    text = "I take aspirin 81 mg and have sinusitis and asthma"
    planted = SampleDialogue(
        dialogue_id="d",
        person="1",
        turns=[Turn(role=Role.PATIENT, text=text)],
        expected=[
            Expected(turn=0, text="aspirin", verdict=MentionVerdictKind.GROUNDED),
            Expected(turn=0, text="sinusitis", verdict=MentionVerdictKind.LEAK),
            Expected(turn=0, text="asthma", verdict=MentionVerdictKind.UNSUPPORTED),
        ],
    )
    found = [
        mention(text.index("aspirin"), "aspirin 81 mg", "grounded"),  # overlaps: agrees
        mention(text.index("sinusitis"), "sinusitis", "grounded"),  # another verdict
        mention(0, "I", "unsupported"),  # nobody marked it
    ]
    verdicts = DialogueVerdicts(
        dialogue_id="d",
        patient_id="p",
        encounter_id=None,
        found=True,
        turns=[TurnVerdict(turn=0, text=text, mentions=found)],
        counts={},
    )
    got = {s.verdict: (s.expected, s.predicted, s.agreed) for s in score([planted], [verdicts])}
    assert got["grounded"] == (1, 2, 1)
    assert got["leak"] == (1, 0, 0)
    assert got["unsupported"] == (1, 1, 0)  # "asthma" missed, "I" spurious


def test_current_means_active_at_the_encounter() -> None:
    later = view(SHEET, "day:2001-01-01")
    first = view(SHEET, "day:2000-01-01")
    assert later is not None and first is not None
    drug = next(f for f, _ in later.sayable if f.fact_id == "d1")
    history = next(f for f, _ in later.sayable if f.fact_id == "h1")
    assert first.active(drug)  # its own encounter's current drug
    assert not later.active(drug)  # a drug of an earlier encounter is not current
    assert later.active(history)  # a condition without an end
    ended = history.model_copy(update={"end": "2000-06-01"})
    assert not later.active(ended)
    whole = view(SHEET, None)
    assert whole is not None and not whole.active(drug)  # the last encounter's drugs only


def test_codes_of_every_system_meet_their_spoken_forms() -> None:
    assert code_key("I48.91") == code_key("i4891") == "I4891"
    assert code_key("718-7") == code_key("7187")
    # An NDC in its 10-digit layouts and its 11-digit one.
    assert code_key("0093-0058-01") == code_key("00093-0058-01") == "00093005801"
    assert code_key("12345-678-90") == "12345067890"
    assert code_key("12345-6789-1") == "12345678901"
    assert code_key("2023-01-15") == "20230115"  # a date is no NDC
