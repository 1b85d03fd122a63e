"""The parts of ``kgverify/derive/qa.py`` that need no graph, with real objects: what a
question's content and split units are made of, how the item store assigns splits, the
order distractors are chosen in (hardest lure first, one per family), and the yield funnel
``derive_items`` reports (candidates -> content groups -> items, and the limiting cause).

``tests/unit/test_derive_lures.py`` has the first checks of some of these; the ones here
pin what each key ignores, the store's balance and determinism, and the funnel."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import pytest

from kgverify.config import Settings
from kgverify.derive.candidate import Candidate, Screened, content_group_of
from kgverify.derive.items import (
    LABELS,
    RunContext,
    content_key,
    derive_items,
    draft,
    finished_items,
)
from kgverify.derive.justify import Outcome
from kgverify.derive.model import (
    HARD_LURES,
    LURES,
    DeriveReport,
    Justification,
    Lure,
    Task,
)
from kgverify.derive.qa import LURE_ORDER, choice_order, choose
from kgverify.derive.records import Episode, PatientRecord
from kgverify.derive.splits import ItemStore, split_of
from kgverify.review.model import Decision
from kgverify.review.state import ReviewState, StateReview

SHARES = {"train": 0.8, "validation": 0.1, "test": 0.1}
SEED = 13


def _record(pid: str = "p1") -> PatientRecord:
    episodes = [Episode("e1", "2020-03-01", "outpatient"), Episode("e2", "2021-03-01", None)]
    return PatientRecord(pid, "40-49", "F", episodes, [], {})


def _candidate(
    topic: str = "otitis",
    stem: list[str] | None = None,
    answer: str = "amoxicillin",
    *,
    pid: str = "p1",
    task: Task = Task.TREATMENT,
    episode: str = "e1",
    dedupe: str | None = None,
) -> Candidate:
    return Candidate(
        task=task,
        patient=_record(pid),
        episode=episode,
        answer=answer,
        answer_text=answer,
        context=[],
        basis=[f"a-{pid}-{topic}"],
        rules=[],
        checks=[],
        values={"patient": "female patient", "setting": "a visit", "condition": topic},
        dedupe=dedupe or f"{task.value}|{pid}|{topic}|{answer}",
        topic=topic,
        stem=[topic] if stem is None else stem,
        clues=[],
        conditions=[],
    )


def _outcome(
    lure: Lure = "other_area",
    closeness: int | None = None,
    kin: set[str] | None = None,
    ruled_by: tuple[str, ...] = (),
    distance: int | None = None,
) -> Outcome:
    # An admissible outcome; its one justification stands in for what the graph would give.
    reason = Justification(rule=f"rule.{lure}", version="v1", reason="wrong for this patient")
    return Outcome(
        distance=distance,
        closeness=closeness,
        lure=lure,
        kin=frozenset(kin or ()),
        ruled_by=ruled_by,
        build=lambda: [reason],
    )


def _screened(outcomes: dict[str, tuple[str, Outcome]], answer_name: str = "") -> Screened:
    return Screened(
        names={d: name for d, (name, _) in outcomes.items()},
        outcomes={d: o for d, (_, o) in outcomes.items()},
        answer_name=answer_name,
    )


# -- content keys and groups ----------------------------------------------------------------


def test_the_content_group_is_task_topic_other_stem_concepts_and_answer() -> None:
    base = _candidate("asthma", ["asthma", "rhinitis", "cough"], "salbutamol")
    # Not the patient, the episode, the stem's order or repeats, nor whether the stem
    # lists the topic itself (the topic is its own field).
    same = [
        _candidate("asthma", ["cough", "rhinitis", "asthma"], "salbutamol", pid="p2"),
        _candidate("asthma", ["rhinitis", "cough", "cough"], "salbutamol", episode="e2"),
    ]
    assert {c.content_group for c in same} == {base.content_group}
    # Each of task, topic, the other stem concepts and the answer makes another content.
    other = [
        _candidate("asthma", ["asthma", "rhinitis", "cough"], "salbutamol", task=Task.DIAGNOSIS),
        _candidate("rhinitis", ["asthma", "rhinitis", "cough"], "salbutamol"),  # topic apart
        _candidate("asthma", ["asthma", "rhinitis"], "salbutamol"),
        _candidate("asthma", ["asthma", "rhinitis", "cough"], "budesonide"),
    ]
    groups = [c.content_group for c in other]
    assert base.content_group not in groups
    assert len(set(groups)) == len(groups)


def test_a_ruling_condition_makes_another_content_group() -> None:
    c = _candidate("osteoarthritis", ["osteoarthritis"], "naproxen")
    plain = _screened({"d1": ("Ibuprofen", _outcome()), "d2": ("Aspirin", _outcome())})
    assert content_group_of(c, plain) == c.content_group
    ulcer = _screened(
        {
            "d1": ("Ibuprofen", _outcome("patient_specific", ruled_by=("ulcer", "ckd"))),
            "d2": ("Aspirin", _outcome("patient_specific", ruled_by=("ulcer",))),
        }
    )
    ruled = content_group_of(c, ulcer)
    assert ruled != c.content_group
    # The set of ruling conditions counts, not which lure cites them or in what order.
    again = _screened(
        {
            "d3": ("Celecoxib", _outcome("patient_specific", ruled_by=("ckd",))),
            "d4": ("Diclofenac", _outcome("patient_specific", ruled_by=("ulcer", "ckd"))),
        }
    )
    assert content_group_of(c, again) == ruled
    only_ulcer = _screened({"d1": ("Ibuprofen", _outcome("patient_specific", ruled_by=("ulcer",)))})
    assert content_group_of(c, only_ulcer) not in (ruled, c.content_group)


def test_the_content_key_ignores_order_and_patient_but_not_the_options() -> None:
    c = _candidate("otitis", ["otitis", "fever"], "amoxicillin")
    key = content_key(c, ["amoxicillin", "d1", "d2", "d3"])
    # A reviewer's reject is keyed on it: the same question for another patient, with the
    # options in another order, is the same content.
    elsewhere = _candidate("otitis", ["fever", "otitis"], "amoxicillin", pid="p9", episode="e2")
    assert content_key(elsewhere, ["d3", "d1", "amoxicillin", "d2"]) == key
    assert content_key(c, ["amoxicillin", "d1", "d2", "d4"]) != key
    assert (
        content_key(
            _candidate("otitis", ["otitis"], "amoxicillin"), ["amoxicillin", "d1", "d2", "d3"]
        )
        != key
    )
    diagnosis = _candidate("otitis", ["otitis", "fever"], "amoxicillin", task=Task.DIAGNOSIS)
    assert content_key(diagnosis, ["amoxicillin", "d1", "d2", "d3"]) != key


@pytest.mark.parametrize(
    ("split_by", "kept", "changed"),
    [
        # The default: task, topic and answer; neither stem nor patient moves it.
        ("topic_answer", ["stem", "patient"], ["task", "topic", "answer"]),
        ("topic", ["stem", "patient", "answer"], ["task", "topic"]),
        ("content", ["patient"], ["task", "topic", "answer", "stem"]),
        ("patient", ["stem", "task", "topic", "answer"], ["patient"]),
    ],
)
def test_what_moves_a_split_unit(split_by: str, kept: list[str], changed: list[str]) -> None:
    base = _candidate("otitis", ["otitis", "fever"], "amoxicillin")
    variants = {
        "stem": _candidate("otitis", ["otitis", "rash"], "amoxicillin"),
        "patient": _candidate("otitis", ["otitis", "fever"], "amoxicillin", pid="p2"),
        "task": _candidate("otitis", ["otitis", "fever"], "amoxicillin", task=Task.DIAGNOSIS),
        "topic": _candidate("sinusitis", ["otitis", "fever"], "amoxicillin"),
        "answer": _candidate("otitis", ["otitis", "fever"], "cefaclor"),
    }
    unit = base.split_group(split_by)
    for name in kept:
        assert variants[name].split_group(split_by) == unit, f"{split_by}: {name} moved it"
    for name in changed:
        assert variants[name].split_group(split_by) != unit, f"{split_by}: {name} did not"


def test_the_split_units_of_each_kind_differ_and_content_is_the_content_group() -> None:
    c = _candidate("otitis", ["otitis", "fever"], "amoxicillin")
    units = {s: c.split_group(s) for s in ("topic_answer", "topic", "content", "patient")}
    assert len(set(units.values())) == 4
    assert units["content"] == c.content_group


def test_split_of_is_a_stable_function_of_seed_and_group_that_follows_the_shares() -> None:
    groups = [f"group{n}" for n in range(2000)]
    first = [split_of(g, SEED, SHARES) for g in groups]
    assert first == [split_of(g, SEED, SHARES) for g in groups]
    # Shares need not add up to one: only their ratio counts.
    assert first == [split_of(g, SEED, {k: 10 * v for k, v in SHARES.items()}) for g in groups]
    counts = Counter(first)
    assert abs(counts["train"] / len(groups) - 0.8) < 0.04
    assert abs(counts["test"] / len(groups) - 0.1) < 0.03
    assert first != [split_of(g, SEED + 1, SHARES) for g in groups]
    no_validation = {split_of(g, SEED, {"train": 0.5, "test": 0.5}) for g in groups}
    assert no_validation == {"train", "test"}


# -- the item store: duplicates and splits ------------------------------------------------


def _drafted(
    n: int, unit: str, *, task: str = "diagnosis", group: str | None = None
) -> dict[str, Any]:
    return {
        "task": task,
        "item_id": f"{task}-i{n}",
        "content_key": f"{task}-k{n}",
        "content_group": group or f"{task}-g{n}",
        "patient_id": f"p{n}",
        "split_group": unit,
    }


def _fill(
    store: ItemStore, sizes: list[int], task: str = "diagnosis", *, reverse: bool = False
) -> None:
    rows = [(unit, k) for unit, size in enumerate(sizes) for k in range(size)]
    for unit, k in reversed(rows) if reverse else rows:
        n = unit * 1000 + k
        assert store.add(_drafted(n, f"{task}-u{unit}", task=task), "train", f"{task}-d{n}") is None


def _splits(store: ItemStore) -> dict[tuple[str, str], set[str]]:
    """(task, unit) -> the splits its items are in."""
    out: dict[tuple[str, str], set[str]] = {}
    for task, unit, split in store.db.execute("SELECT task, unit, split FROM items"):
        out.setdefault((task, unit), set()).add(split)
    return out


def _items_per_split(store: ItemStore, task: str) -> dict[str, int]:
    rows = store.db.execute(
        "SELECT split, count(*) FROM items WHERE task = ? GROUP BY split", (task,)
    )
    return dict(rows.fetchall())


def test_the_store_refuses_each_kind_of_duplicate(tmp_path: Path) -> None:
    store = ItemStore(tmp_path / "items.sqlite", variants=2)
    first = _drafted(1, "u1", group="g")
    assert store.add(first, "train", "d1") is None
    assert store.add(_drafted(2, "u1"), "train", "d1") == (
        "duplicate: the same question for this patient earlier"
    )
    assert store.add({**_drafted(3, "u1"), "content_key": first["content_key"]}, "train", "d3") == (
        "duplicate: the same content key (stem, answer, options)"
    )
    assert store.add({**_drafted(4, "u1"), "item_id": first["item_id"]}, "train", "d4") == (
        "duplicate: the same item"
    )
    # ``variants`` items per content group, then no more.
    assert store.variants_of("g") == 1
    assert store.add(_drafted(5, "u1", group="g"), "train", "d5") is None
    assert store.add(_drafted(6, "u1", group="g"), "train", "d6") == (
        "duplicate: the same clinical content (stem and answer)"
    )
    assert store.counts() == (2, 1)
    store.close()
    assert not (tmp_path / "items.sqlite").exists()


def test_every_unit_lands_in_exactly_one_split_with_a_share(tmp_path: Path) -> None:
    store = ItemStore(tmp_path / "items.sqlite")
    _fill(store, [7, 5, 5, 3, 2, 2, 1, 1, 1, 1, 1, 1])
    store.assign_splits({"train": 0.5, "validation": 0.0, "test": 0.5}, SEED)
    splits = _splits(store)
    assert len(splits) == 12
    assert all(len(s) == 1 for s in splits.values())
    assert set().union(*splits.values()) == {"train", "test"}  # none to a split without share
    assert _items_per_split(store, "diagnosis") == {"train": 15, "test": 15}
    store.close()


def test_units_go_largest_first_to_the_split_furthest_below_its_target(tmp_path: Path) -> None:
    """Largest first fits the shares exactly here: 50 to train, 30 to validation, the two
    tens to test. Smallest first would put the small units in train and leave the 50 to
    overshoot."""
    store = ItemStore(tmp_path / "items.sqlite")
    _fill(store, [10, 30, 10, 50])
    store.assign_splits({"train": 0.5, "validation": 0.3, "test": 0.2}, SEED)
    assert _items_per_split(store, "diagnosis") == {"train": 50, "validation": 30, "test": 20}
    assert _splits(store)[("diagnosis", "diagnosis-u3")] == {"train"}
    store.close()


def test_splits_are_balanced_per_task(tmp_path: Path) -> None:
    """A task with ten units gets its own 8/1/1, however many units another task has."""
    store = ItemStore(tmp_path / "items.sqlite")
    _fill(store, [1] * 100, "diagnosis")
    _fill(store, [1] * 10, "treatment")
    _fill(store, [3, 1, 1, 1, 1, 1, 1, 1], "prognosis")
    store.assign_splits(SHARES, SEED)
    assert _items_per_split(store, "treatment") == {"train": 8, "validation": 1, "test": 1}
    assert _items_per_split(store, "diagnosis") == {"train": 80, "validation": 10, "test": 10}
    assert _items_per_split(store, "prognosis") == {"train": 8, "validation": 1, "test": 1}
    groups = store.split_groups()
    assert groups["treatment"] == {"train": 8, "validation": 1, "test": 1}
    patients: dict[str, set[str]] = {}
    for patient, split in store.db.execute("SELECT patient, split FROM items"):
        patients.setdefault(patient, set()).add(split)
    several = sum(len(splits) > 1 for splits in patients.values())
    assert several > 0  # p0 has a unit in each task
    assert store.patients_in_several_splits() == several
    store.close()


def test_split_assignment_is_deterministic_for_a_seed_and_seeds_differ(tmp_path: Path) -> None:
    def assign(seed: int, reverse: bool = False) -> dict[tuple[str, str], set[str]]:
        store = ItemStore(tmp_path / f"items-{seed}-{reverse}.sqlite")
        _fill(store, [4, 2, 2] + [1] * 27, reverse=reverse)
        store.assign_splits(SHARES, seed)
        out = _splits(store)
        store.close()
        return out

    first = assign(SEED)
    # The same seed, items added in the reverse order: the same assignment.
    assert assign(SEED, reverse=True) == first
    assert assign(SEED) == first
    # Ties between units of one size are broken in a seeded order.
    assert any(assign(seed) != first for seed in range(1, 6))


def test_finished_items_cycle_the_answer_position_per_task_and_split(tmp_path: Path) -> None:
    store = ItemStore(tmp_path / "items.sqlite")
    run = RunContext(releases=["R1"], policy="stored")
    for n in range(6):
        c = _candidate(f"topic{n}", pid=f"p{n}")
        distractors = choose(c, _full(), SEED, 4)
        assert distractors is not None
        assert store.add(draft(c, _full(), distractors, SEED, run), "train", c.dedupe) is None
    items = list(finished_items(store, 4))
    assert [i.answer for i in items] == ["A", "B", "C", "D", "A", "B"]
    assert [i.item_id for i in items] == sorted(i.item_id for i in items)
    for item in items:
        right = next(o for o in item.options if o.label == item.answer)
        assert right.concept_id == item.answer_concept
        assert [o.label for o in item.options] == list(LABELS[:4])
        assert {w.concept_id for w in item.why_wrong} == {"d1", "d2", "d3"}
    store.close()


# -- distractor choice order ------------------------------------------------------------------


def test_the_hard_lures_are_exactly_the_ones_ranked_before_the_rest() -> None:
    assert set(LURE_ORDER) == set(HARD_LURES)
    assert set(LURE_ORDER) < set(LURES) == set(get_args(Lure))
    c = _candidate()
    kinds: tuple[Lure, ...] = get_args(Lure)
    rank = {lure: choice_order(SEED, c, "x", _outcome(lure, 1))[0] for lure in kinds}
    assert rank["patient_specific"] < rank["same_area"] == rank["same_system"]
    assert rank["same_area"] < rank["other_area"] == rank["other_system"]


def test_a_harder_lure_comes_first_however_far_then_the_nearest() -> None:
    c = _candidate()
    outcomes = {
        "near_other": _outcome("other_area", 1),
        "far_other": _outcome("other_area", 5),
        "unplaced_other": _outcome("other_area", None),  # meets the topic only at hubs
        "far_area": _outcome("same_area", 6),
        "near_area": _outcome("same_area", 2),
        "for_patient": _outcome("patient_specific", None),
    }
    order = sorted(outcomes, key=lambda d: choice_order(SEED, c, d, outcomes[d]))
    assert order == [
        "for_patient",
        "near_area",
        "far_area",
        "near_other",
        "far_other",
        "unplaced_other",
    ]


def test_ties_are_broken_by_seed_and_content_not_by_patient() -> None:
    def tie_order(c: Candidate, seed: int) -> list[str]:
        same = _outcome("same_system", 2)
        return sorted(["x", "y", "z"], key=lambda d: choice_order(seed, c, d, same))

    c = _candidate()
    assert tie_order(_candidate(pid="p7", episode="e2"), SEED) == tie_order(c, SEED)
    assert len({tuple(tie_order(c, seed)) for seed in range(10)}) > 1
    contents = {tuple(tie_order(_candidate(f"topic{n}"), SEED)) for n in range(10)}
    assert len(contents) > 1  # no one far-away concept serves every item


def test_choose_takes_the_hardest_first_and_skip_gives_the_next_variant() -> None:
    c = _candidate()
    screened = _screened(
        {
            "d_other": ("Doxycycline", _outcome("other_area", 1)),
            "d_area2": ("Cefuroxime", _outcome("same_area", 3)),
            "d_patient": ("Penicillin V", _outcome("patient_specific", None)),
            "d_area1": ("Cefaclor", _outcome("same_area", 1)),
            "d_other2": ("Metformin", _outcome("other_area", 4)),
        }
    )
    assert [d for d, _ in choose(c, screened, SEED, 4) or []] == [
        "d_patient",
        "d_area1",
        "d_area2",
    ]
    assert choose(c, screened, SEED, 4, skip=1) == [
        ("d_area1", "Cefaclor"),
        ("d_area2", "Cefuroxime"),
        ("d_other", "Doxycycline"),
    ]
    assert len(choose(c, screened, SEED, 6) or []) == 5
    assert choose(c, screened, SEED, 7) is None  # five candidates cannot fill six slots
    assert choose(c, screened, SEED, 4, skip=3) is None
    # Not the order the pool happened to come in.
    shuffled = Screened(
        names=dict(reversed(screened.names.items())),
        outcomes=dict(reversed(screened.outcomes.items())),
    )
    assert choose(c, shuffled, SEED, 4) == choose(c, screened, SEED, 4)


def test_choose_keeps_one_option_per_family() -> None:
    """Two options that share a parent (``Outcome.kin``) are not chosen together: the
    harder one stays, and the next family fills the slot."""
    c = _candidate()
    screened = _screened(
        {
            "concussion1": (
                "Concussion with loss of consciousness",
                _outcome("same_system", 1, {"concussion"}),
            ),
            "concussion2": (
                "Concussion without loss of consciousness",
                _outcome("same_system", 2, {"concussion"}),
            ),
            "parent": ("Concussion", _outcome("same_system", 3, {"concussion", "head injury"})),
            "fracture": ("Fracture of skull", _outcome("same_system", 4, {"head injury"})),
            "otitis": ("Otitis media", _outcome("other_system", 1, {"ear"})),
            "asthma": ("Asthma", _outcome("other_system", 2)),
        }
    )
    chosen = [d for d, _ in choose(c, screened, SEED, 4) or []]
    assert chosen == ["concussion1", "fracture", "otitis"]
    # With the family guard the pool of six gives at most four options of distinct kin.
    assert [d for d, _ in choose(c, screened, SEED, 5) or []] == [
        "concussion1",
        "fracture",
        "otitis",
        "asthma",
    ]
    assert choose(c, screened, SEED, 6) is None


def test_choose_keeps_names_distinct_from_each_other_and_from_the_answer() -> None:
    c = _candidate(answer="amoxicillin")
    screened = _screened(
        {
            "synonym": ("Amoxicillin.", _outcome("same_area", 1)),  # the answer, by its name
            "a": ("Cefaclor", _outcome("same_area", 2)),
            "b": ("  CEFACLOR ", _outcome("same_area", 3)),  # another id, the same name
            "c": ("Doxycycline", _outcome("other_area", 1)),
            "d": ("Metformin", _outcome("other_area", 2)),
        },
        answer_name="Amoxicillin",
    )
    assert [d for d, _ in choose(c, screened, SEED, 4) or []] == ["a", "c", "d"]


# -- the yield funnel -----------------------------------------------------------------------


@dataclass
class Page:
    """A worked page as ``derive_items`` reads it (``qa.PageCounts``), made by hand."""

    patients: int
    candidates: list[Candidate]
    screened: list[Screened]
    verdicts: Counter[str] = field(default_factory=Counter)
    filtered: Counter[str] = field(default_factory=Counter)
    found: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)


def _full() -> Screened:
    return _screened(
        {
            "d1": ("Penicillin V", _outcome("patient_specific", None)),
            "d2": ("Cefaclor", _outcome("same_area", 1, distance=1)),
            "d3": ("Doxycycline", _outcome("other_area", 1, distance=3)),
            "d4": ("Metformin", _outcome("other_area", 2, distance=4)),
        }
    )


def _thin() -> Screened:
    return _screened({"d2": ("Cefaclor", _outcome("same_area", 1)), "d3": ("Doxy", _outcome())})


def _settings(variants: int = 1) -> Settings:
    return Settings(
        derive_seed=SEED,
        derive_options=4,
        derive_variants=variants,
        derive_splits=SHARES,
        derive_split_by="topic_answer",
    )


def _derive(
    tmp_path: Path, pages: list[Page], reviews: ReviewState, variants: int = 1
) -> tuple[DeriveReport, ItemStore, list[int]]:
    store = ItemStore(tmp_path / "items.sqlite", variants)
    report = DeriveReport()
    seen: list[int] = []
    derive_items(
        pages,
        reviews,
        store,
        _settings(variants),
        report,
        run=RunContext(releases=["R1"], policy="stored"),
        on_patient=seen.append,
    )
    return report, store, seen


def test_the_funnel_counts_candidates_content_groups_items_and_the_limiting_cause(
    tmp_path: Path,
) -> None:
    served = _candidate("otitis", pid="p1")
    rejected = _candidate("cystitis", pid="p5")
    chosen = choose(rejected, _full(), SEED, 4)
    assert chosen is not None
    key = content_key(rejected, [rejected.answer, *(d for d, _ in chosen)])
    reviews = ReviewState([StateReview(id="r1", decision=Decision.REJECT, content_key=key)])
    first = Page(
        patients=3,
        candidates=[
            served,
            _candidate("otitis", pid="p2"),  # the same content as the first: not served again
            _candidate("sinusitis", pid="p3"),  # the answer is wrong for this patient
        ],
        screened=[_full(), _full(), Screened(conflict="contraindicated for asthma")],
        found=Counter({"treatment": 3}),
        skipped=Counter({"no record fact for the relation": 1}),
    )
    second = Page(
        patients=4,
        candidates=[
            _candidate("pharyngitis", pid="p4"),  # too few distractors
            _candidate("bronchitis", pid="p6"),  # too few distractors
            rejected,  # a reviewer rejected its content key
            _candidate("cellulitis", pid="p1", dedupe=served.dedupe),  # asked of p1 before
        ],
        screened=[_thin(), _thin(), _full(), _full()],
        found=Counter({"treatment": 4}),
    )
    report, store, seen = _derive(tmp_path, [first, second], reviews)
    assert seen == [3, 7]
    assert report.patients == 7
    assert report.skipped == {
        "no record fact for the relation": 1,
        "treatment: duplicate: the same clinical content (stem and answer)": 1,
        "treatment: duplicate: the same question for this patient earlier": 1,
        "treatment: fewer than 3 justified distractors": 2,
        "treatment: rejected by a reviewer": 1,
        "treatment: the answer is contraindicated for asthma": 1,
    }
    # Seven candidates; the repeat and the conflict never reach distractor choice.
    assert report.funnel == {
        "candidates": 7,
        "content_groups": 5,
        "items": 1,
        "dropped": report.skipped,
        "limiting": "treatment: fewer than 3 justified distractors",
    }
    # What the one item chose is counted, and nothing of the dropped ones.
    assert report.lures == {"treatment": {"other_area": 1, "patient_specific": 1, "same_area": 1}}
    assert report.context_necessary == {"treatment": 1}
    assert report.difficulty == {"1": 1, "3": 1, "none": 1}  # per distance to the topic
    assert report.justifications == {
        "rule.other_area": 1,
        "rule.patient_specific": 1,
        "rule.same_area": 1,
    }
    assert report.split_by == "topic_answer"
    assert store.counts() == (1, 1)
    store.close()


def test_a_second_variant_takes_the_next_distractors(tmp_path: Path) -> None:
    pages = [
        Page(
            patients=2,
            candidates=[_candidate("otitis", pid="p1"), _candidate("otitis", pid="p2")],
            screened=[_full(), _full()],
            found=Counter({"treatment": 2}),
        )
    ]
    report, store, _ = _derive(tmp_path, pages, ReviewState([]), variants=2)
    assert report.funnel["content_groups"] == 2
    assert report.funnel["items"] == 2
    assert report.funnel["limiting"] is None  # nothing dropped
    options = [
        sorted(d for d, _ in drafted["distractors"])
        for task, split in store.groups()
        for drafted in store.read(task, split)
    ]
    assert sorted(options) == [["d1", "d2", "d3"], ["d2", "d3", "d4"]]
    store.close()


def test_a_candidate_with_its_ruling_conditions_is_new_content(tmp_path: Path) -> None:
    """The same stem and answer with a patient-specific lure ruled out by a shown condition
    is another question: it is served beside the plain one, not dropped as a repeat."""
    ruled = _screened(
        {
            "d5": ("Naproxen", _outcome("patient_specific", None, ruled_by=("ulcer",))),
            "d2": ("Cefaclor", _outcome("same_area", 1)),
            "d3": ("Doxycycline", _outcome("other_area", 1)),
        }
    )
    pages = [
        Page(
            patients=2,
            candidates=[_candidate("otitis", pid="p1"), _candidate("otitis", pid="p2")],
            screened=[_full(), ruled],
            found=Counter({"treatment": 2}),
        )
    ]
    report, store, _ = _derive(tmp_path, pages, ReviewState([]))
    assert report.funnel["content_groups"] == 2
    assert report.funnel["items"] == 2
    assert report.skipped == {}
    assert report.context_necessary == {"treatment": 2}
    store.close()
