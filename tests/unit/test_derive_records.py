"""The patient's history as derivation reads it: the one-pass walk (``histories``, fact
sheets) gives what the definition gives: distinct grounded non-allergy conditions of the
earlier episodes, most recent first; what a QA question shows (``problem_list``) puts the
active ones first."""

from __future__ import annotations

import random

from kgverify.derive.records import Episode, PatientRecord, RecordFact


def _fact(n: int, concept: str, *, kind: str = "condition", allergy: bool = False) -> RecordFact:
    return RecordFact(
        id=f"f{n}",
        kind=kind,
        display=None,
        code_system="SNOMED",
        code=concept,
        start=None,
        end=None,
        value=None,
        unit=None,
        flag=None,
        source_table="condition_occurrence",
        source_row=str(n),
        episode=f"e{n}",
        concept=concept,
        concept_name=concept,
        names=(),
        kinds=frozenset({"disorder"}),
        active=concept != "retired",
        stub=False,
        group=frozenset({f"{concept}-umls"}),
        allergy=allergy,
    )


def _reference(record: PatientRecord, before: int, limit: int, skip: str | None) -> list[str]:
    out: dict[str, RecordFact] = {}
    for episode in reversed(record.episodes[:before]):
        for fact in episode.facts:
            if (
                fact.kind == "condition"
                and fact.grounded
                and not fact.allergy
                and not (skip and fact.names_concept(skip))
            ):
                out.setdefault(str(fact.concept), fact)
    return [f.id for f in list(out.values())[:limit]]


def _record(seed: int) -> PatientRecord:
    rng = random.Random(seed)
    concepts = [f"c{i}" for i in range(rng.randint(1, 12))] + ["retired"]
    episodes, n = [], 0
    for e in range(rng.randint(0, 25)):
        facts = []
        for _ in range(rng.randint(0, 6)):
            n += 1
            facts.append(
                _fact(
                    n,
                    rng.choice(concepts),
                    kind=rng.choice(["condition", "condition", "drug"]),
                    allergy=rng.random() < 0.1,
                )
            )
        episodes.append(Episode(key=f"e{e}", start=f"2020-01-{e + 1:02d}", kind=None, facts=facts))
    by_id = {f.id: f for e in episodes for f in e.facts}
    return PatientRecord("p", None, None, episodes, [], by_id)


def test_history_walk_matches_the_definition() -> None:
    for seed in range(300):
        record = _record(seed)
        for limit in (0, 1, 3, 10):
            walked = [[f.id for f in h] for h in record.histories(limit)]
            assert walked == [
                _reference(record, at, limit, None) for at in range(len(record.episodes))
            ]
            # No fact has ended: every condition is active, and the problem list is the
            # history.
            for at in range(len(record.episodes) + 1):
                for skip in (None, "c0", "c1-umls"):
                    got = [f.id for f in record.problem_list(at, limit, skip)]
                    assert got == _reference(record, at, limit, skip)


def test_a_question_shows_active_problems_before_ended_ones() -> None:
    """``problem_list`` (what a QA question shows): a peptic ulcer recorded years ago with no
    end stays in view ahead of ten later acute conditions that ended; with ``limit`` 3 the
    ulcer and the two most recent ended ones; an ulcer that ended before the episode is
    ordered among the ended ones and drops out."""
    from dataclasses import replace

    ulcer = replace(_fact(0, "ulcer"), start="2001-01-01")
    episodes = [Episode(key="e0", start="2001-01-01", kind=None, facts=[ulcer])]
    for n in range(1, 11):
        day = f"2020-01-{n:02d}"
        acute = replace(_fact(n, f"acute{n}"), start=day, end=day)
        episodes.append(Episode(key=f"e{n}", start=day, kind=None, facts=[acute]))
    episodes.append(Episode(key="now", start="2020-02-01", kind=None, facts=[]))
    record = PatientRecord("p", None, None, episodes, [], {})
    at = len(episodes) - 1
    assert [f.id for f in record.problem_list(at, 3)] == ["f0", "f10", "f9"]
    assert "f0" not in _reference(record, at, 3, None)  # the plain history: recency only
    healed = PatientRecord(
        "p",
        None,
        None,
        [replace(episodes[0], facts=[replace(ulcer, end="2001-02-01")]), *episodes[1:]],
        [],
        {},
    )
    assert [f.id for f in healed.problem_list(at, 3)] == ["f10", "f9", "f8"]
    assert [f.id for f in record.problem_list(at, 3, skip="ulcer")] == ["f10", "f9", "f8"]


def test_first_seen_matches_the_definition() -> None:
    """``first_seen``, walked once per record, gives the first episode whose facts name the
    concept itself or through their MAPS_TO group, as scanning the episodes does."""
    for seed in range(300):
        record = _record(seed)
        named = {c for f in record.facts.values() for c in (f.concept, *f.group) if c}
        for concept in sorted(named | {"absent"}):
            scanned = next(
                (
                    at
                    for at, e in enumerate(record.episodes)
                    if any(f.names_concept(concept) for f in e.facts)
                ),
                None,
            )
            assert record.first_seen(concept) == scanned
