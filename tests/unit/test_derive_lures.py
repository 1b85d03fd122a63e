"""The pure parts of item derivation that decide what a benchmark measures: ages shown and
life stages (never an age over 89), the content and split groups (the topic kept apart; by
default no (task, topic, answer) in two splits), lure kinds and their choice order, the
WHO ATC levels a drug's area is read from, and the yield funnel's limiting cause."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from kgverify.derive.candidate import Candidate
from kgverify.derive.fit import _stage_then
from kgverify.derive.justify import Outcome, _atc_area, _atc_level
from kgverify.derive.model import ContextFact, Task
from kgverify.derive.qa import choice_order
from kgverify.derive.records import Episode, PatientRecord, life_stage, moved_band, whole_stage
from kgverify.derive.splits import ItemStore, split_of

SPLITS = {"train": 0.8, "validation": 0.1, "test": 0.1}


def _record(pid: str = "p1", band: str = "40-49") -> PatientRecord:
    episodes = [
        Episode("e1", "2001-03-01", "outpatient"),
        Episode("e2", "2041-03-01", "outpatient"),
        Episode("e3", "2046-03-01", "outpatient"),
    ]
    return PatientRecord(pid, band, "F", episodes, [], {})


def _candidate(topic: str, stem: list[str], answer: str, pid: str = "p1") -> Candidate:
    return Candidate(
        task=Task.TREATMENT,
        patient=_record(pid),
        episode="e1",
        answer=answer,
        answer_text="",
        context=[],
        basis=[],
        rules=[],
        checks=[],
        values={},
        dedupe="",
        topic=topic,
        stem=stem,
        clues=[],
        conditions=[],
    )


def test_an_age_moved_past_89_is_shown_as_90_plus() -> None:
    assert moved_band("40-49", 10) == "50-59"
    assert moved_band("80-89", 5) == "85+"  # could be 94: never an age over 89
    assert moved_band("80-89", 10) == "90+"
    assert moved_band("90+", 20) == "90+"
    assert moved_band("0-9", -20) is None  # before birth
    assert _record().age_at(1) == "80-89"  # 40-49 in 2001
    assert _record().age_at(2) == "85+"


def test_life_stages_by_the_bands_midpoint() -> None:
    assert [life_stage(b) for b in ("0-9", "10-19", "20-29", "40-49", "70-79", "90+")] == [
        "child",
        "child",
        "young adult",
        "middle-aged adult",
        "older adult",
        "older adult",
    ]
    assert life_stage(None) is None


def test_the_cohort_counts_a_band_for_the_stage_that_holds_it_whole() -> None:
    """A band across a stage boundary is evidence for neither stage: by its midpoint,
    "12-21" (possibly 21) made a condition first seen at 21 fit children."""
    assert [whole_stage(b) for b in ("0-9", "8-17", "18-27", "40-49", "65-74", "85+", "90+")] == [
        "child",
        "child",
        "young adult",
        "middle-aged adult",
        "older adult",
        "older adult",
        "older adult",
    ]
    assert [whole_stage(b) for b in ("12-21", "9-18", "35-44", "60-69", "60+", None)] == [None] * 6
    assert life_stage("12-21") == "child"  # the item patient's own stage stays the midpoint's
    assert _stage_then("12-21", "2000-01-01", "2000") == "between stages"
    assert _stage_then("12-21", "2000-01-01", "1996") == "child"  # 8-17 then
    assert _stage_then(None, None, None) == "unknown"


def test_the_topic_stays_apart_in_the_content_group() -> None:
    asthma = _candidate("asthma", ["asthma", "rhinitis"], "salbutamol")
    rhinitis = _candidate("rhinitis", ["rhinitis", "asthma"], "salbutamol")
    assert asthma.content_group != rhinitis.content_group
    same = _candidate("asthma", ["rhinitis", "asthma"], "salbutamol")
    assert same.content_group == asthma.content_group


def test_by_default_a_topic_and_answer_is_one_split_whatever_the_stem() -> None:
    groups = [
        _candidate("otitis", ["otitis", f"finding{n}"], "amoxicillin", pid=f"p{n}").split_group(
            "topic_answer"
        )
        for n in range(50)
    ]
    assert len(set(groups)) == 1
    contents = {
        _candidate("otitis", ["otitis", f"finding{n}"], "amoxicillin").split_group("content")
        for n in range(50)
    }
    assert len(contents) == 50
    # Content splits scatter one topic-answer pair over several splits; topic-answer cannot.
    assert len({split_of(g, 13, SPLITS) for g in contents}) > 1
    other = _candidate("otitis", ["otitis"], "cefaclor").split_group("topic_answer")
    assert other != groups[0]
    by_patient = {
        _candidate("t", ["t"], "a", pid=p).split_group("patient") for p in ("p1", "p1", "p2")
    }
    assert len(by_patient) == 2


def test_hard_lures_are_chosen_first_then_the_nearest() -> None:
    c = _candidate("otitis", ["otitis"], "amoxicillin")
    near_other = Outcome(closeness=1, lure="other_area", build=list)
    far_area = Outcome(closeness=6, lure="same_area", build=list)
    for_patient = Outcome(closeness=None, lure="patient_specific", build=list)
    order = sorted(
        [("a", near_other), ("b", far_area), ("c", for_patient)],
        key=lambda x: choice_order(13, c, x[0], x[1]),
    )
    assert [name for name, _ in order] == ["c", "b", "a"]


def test_atc_levels_and_areas() -> None:
    assert [_atc_level(f"ATC:{c}") for c in ("J", "J01", "J01C", "J01CA", "J01CA04")] == [
        1,
        2,
        3,
        4,
        5,
    ]
    assert _atc_level("UMLS:C0002645") == 0 and _atc_level("ATC:J01CA0") == 0
    assert _atc_area("ATC:J01CA04") == _atc_area("ATC:J01DC02") == "J01"


def test_shown_conditions_are_this_visits_and_earlier_ones() -> None:
    c = _candidate("oa", ["oa"], "celecoxib")
    c.context = [
        ContextFact(fact_id="f1", role="history", text="Peptic ulcer", concept_id="pu"),
        ContextFact(fact_id="f2", role="condition", text="Diverticular disease", concept_id="dd"),
        ContextFact(fact_id="f3", role="test", text="Oral temperature", concept_id="t"),
        ContextFact(fact_id="f4", role="history", text="uncoded", concept_id=None),
    ]
    assert [f.fact_id for f in c.shown_conditions] == ["f1", "f2"]


def test_few_units_still_fill_every_split_and_no_unit_is_cut(tmp_path: Path) -> None:
    """Fifteen answers of very different sizes: every split gets units, items come close to
    the shares, and all items of one unit share its split."""
    store = ItemStore(tmp_path / "items.sqlite")
    sizes = [30, 12, 9, 7, 6, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1]
    n = 0
    for unit, size in enumerate(sizes):
        for _ in range(size):
            n += 1
            drafted = {
                "task": "diagnosis",
                "item_id": f"i{n}",
                "content_key": f"k{n}",
                "content_group": f"g{n}",
                "patient_id": f"p{n}",
                "split_group": f"u{unit}",
            }
            assert store.add(drafted, "train", f"d{n}") is None
    store.assign_splits(SPLITS, 13)
    rows = store.db.execute("SELECT unit, split FROM items").fetchall()
    per_unit: dict[str, set[str]] = {}
    for unit, split in rows:
        per_unit.setdefault(unit, set()).add(split)
    assert all(len(splits) == 1 for splits in per_unit.values())
    counts = Counter(split for _, split in rows)
    assert set(counts) == {"train", "validation", "test"}
    assert abs(counts["test"] - 0.1 * sum(sizes)) <= 2
    store.close()
