"""Derivation on the Eunomia sample and the sample vocabularies, in the real Neo4j: every
item's answer is checked unique and every distractor wrong by querying the graph and
re-running the rules, two runs give the same bytes, splits are by patient, answer positions
are balanced, the export loads with Hugging Face datasets, items are linked to what they
rest on, planted bad distractors are refused, and fact sheets keep the patient's words
apart from the record's."""

from __future__ import annotations

import hashlib
import json
import pickle
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import TypeAdapter

from kgverify.api import (
    derive_facts,
    derive_qa,
    open_verifier,
)
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.derive import FactSheet, QAItem, Task, read_items
from kgverify.derive import run as derive_run
from kgverify.derive.candidate import Candidate
from kgverify.derive.export import publish_items
from kgverify.derive.justify import Justifier, Outcome, Request
from kgverify.derive.model import ContextFact, DistractorWhy
from kgverify.derive.pages import QAJob, QAPage, QAPageWorker
from kgverify.derive.qa import UNFIT, DistractorScreen, candidates_for
from kgverify.derive.records import PatientRecord, life_stage, patient_pages, read_records
from kgverify.derive.sheetfile import read_sheets
from kgverify.graph import Graph
from kgverify.review.state import ReviewState
from kgverify.verify.verifier import Verifier
from tests.e2e.helpers import rows, value, verified_sample_ehr

pytestmark = pytest.mark.neo4j


@dataclass
class Derived:
    settings: Settings
    graph: Graph
    first: Path
    second: Path
    facts: Path
    report: dict[str, Any]
    items: list[QAItem]


@pytest.fixture(scope="module")
def derived(
    sample_graph: Graph, sample_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Derived:
    tmp = tmp_path_factory.mktemp("derive")
    verified_sample_ehr(sample_graph, sample_settings, tmp)
    first = derive_qa(tmp / "qa1", settings=sample_settings, graph=sample_graph)
    second = derive_qa(tmp / "qa2", settings=sample_settings, graph=sample_graph)
    assert second.model_dump(exclude={"seconds", "out"}) == first.model_dump(
        exclude={"seconds", "out", "retired"}
    ) | {"retired": 0}
    derive_facts(tmp / "facts", settings=sample_settings, graph=sample_graph)
    return Derived(
        sample_settings,
        sample_graph,
        tmp / "qa1",
        tmp / "qa2",
        tmp / "facts",
        first.model_dump(),
        list(read_items(tmp / "qa1")),
    )


@pytest.fixture(scope="module")
def verifier(derived: Derived) -> Verifier:
    return open_verifier(derived.settings, derived.graph, write=False)


def supported(verifier: Verifier, triples: list[tuple[str, str, str]]) -> dict[Any, bool]:
    found = verifier.evidence_for(triples)
    return {t: any(p.stance == "support" for p in found[t]) for t in triples}


CLUES = {
    "medication": "treats",
    "finding": "indicates",
    "test": "indicates",
    "procedure": "indicates",
}


def _basis(graph: Graph, item: QAItem) -> list[dict[str, Any]]:
    return rows(
        graph,
        "MATCH (a:Assertion) WHERE a.id IN $ids "
        "RETURN a.subject_id AS s, a.object_id AS o, a.passed AS passed, a.verdict AS verdict",
        ids=item.basis,
    )


def test_items_of_every_task_from_the_sample(derived: Derived) -> None:
    by_task = Counter(i.task for i in derived.items)
    assert set(by_task) == set(Task), derived.report["skipped"]
    assert sum(by_task.values()) == derived.report["written"]
    assert derived.report["distractors_rejected"]["the patient has it"] > 0


def test_stems_show_procedures_but_no_health_care_activity(derived: Derived) -> None:
    """A visit's procedures are clues on a line of their own; a review of systems or a
    medication reconciliation (UMLS T058, across MAPS_TO) says nothing of the case."""
    activities = {
        r["id"]
        for r in rows(
            derived.graph,
            "MATCH (c:Concept)-[:MAPS_TO*0..1]-(u:Concept) WHERE 'T058' IN coalesce(u.tuis, []) "
            "RETURN DISTINCT c.id AS id",
        )
    }
    assert "SNOMEDCT:415300000" in activities  # review of systems: the sample records it
    shown = [c for i in derived.items for c in i.context if c.role == "procedure"]
    assert shown, "no item shows a procedure"
    assert not [c.text for c in shown if c.concept_id in activities]
    assert all(
        "Procedures done: " in i.question
        for i in derived.items
        if any(c.role == "procedure" for c in i.context)
    )


def test_every_answer_is_supported_and_every_distractor_wrong(
    derived: Derived, verifier: Verifier
) -> None:
    """Per item, re-run the rules on the clues of its question: the answer is supported by
    the assertions it rests on, and no rule supports any distractor."""
    checked = 0
    for item in derived.items:
        basis = _basis(derived.graph, item)
        assert basis and all(b["passed"] and b["verdict"] == "supported" for b in basis)
        answer = item.answer_concept
        distractors = [o.concept_id for o in item.options if o.label != item.answer]
        assert [o.concept_id for o in item.options if o.label == item.answer] == [answer]
        assert len(set(distractors)) == len(distractors) == len(item.options) - 1
        if item.task is Task.TREATMENT:
            condition = basis[0]["o"]
            against = [(answer, condition, "treats")]
            # A patient-specific lure may treat the condition in general: what rules it out
            # is a condition the question shows (test_patient_specific_lures_cite_the_record).
            general = {w.concept_id for w in item.why_wrong if w.lure != "patient_specific"}
            triples = [(d, condition, "treats") for d in distractors if d in general]
        elif item.task is Task.PROGNOSIS:
            cause = basis[0]["s"]
            against = [(cause, answer, "leads_to")]
            triples = [(cause, d, "leads_to") for d in distractors]
        else:
            clues = [(c.concept_id, CLUES[c.role]) for c in item.context if c.role in CLUES]
            assert all(b["o"] == answer for b in basis)
            against = [(str(c), answer, p) for c, p in clues]
            triples = [(str(c), d, p) for c, p in clues for d in distractors]
        assert any(supported(verifier, against).values()), item.item_id
        wrong = supported(verifier, triples) if triples else {}
        assert not any(wrong.values()), (item.item_id, [t for t, s in wrong.items() if s])
        checked += len(distractors)
    assert checked >= 3 * len(derived.items)


def test_no_distractor_is_a_synonym_relative_or_fact_of_the_patient(derived: Derived) -> None:
    """One graph query over every current item: a distractor is never the answer or one
    MAPS_TO group with it, never an is-a ancestor or descendant of it, and never something
    the patient has a fact of (directly, through MAPS_TO, or as a drug's ingredient)."""
    bad = rows(
        derived.graph,
        """
        MATCH (i:Item {current: true})-[:DISTRACTOR]->(d:Concept),
              (i)-[:ANSWER]->(a:Concept), (i)-[:ABOUT]->(p:Patient)
        WITH i, d, a, p,
          EXISTS { (a)-[:MAPS_TO*0..2]-(d) } AS same,
          EXISTS { (a)-[:MAPS_TO*0..1]-()-[:IS_A*1..8]->()-[:MAPS_TO*0..1]-(d) } AS ancestor,
          EXISTS { (d)-[:MAPS_TO*0..1]-()-[:IS_A*1..8]->()-[:MAPS_TO*0..1]-(a) } AS descendant,
          EXISTS { (p)-[:HAS_FACT]->(:Fact)-[:CODED_AS]->()-[:MAPS_TO*0..2]-(d) } AS has,
          EXISTS { (p)-[:HAS_FACT]->(:Fact {kind: 'drug'})-[:CODED_AS]->()
                   -[:CONSISTS_OF|HAS_INGREDIENT|TRADENAME_OF|HAS_PRECISE_INGREDIENT*1..3]->()
                   -[:MAPS_TO*0..1]-(d) } AS takes
        WHERE same OR ancestor OR descendant OR has OR takes
        RETURN i.id AS item, d.id AS distractor, same, ancestor, descendant, has, takes
        """,
    )
    assert bad == []
    assert value(
        derived.graph, "MATCH (:Item {current: true})-[:DISTRACTOR]->() RETURN count(*) AS n"
    ) == sum(len(i.options) - 1 for i in derived.items)


def test_two_runs_give_the_same_bytes(derived: Derived) -> None:
    files = sorted(p.relative_to(derived.first) for p in derived.first.rglob("*") if p.is_file())
    assert Path("README.md") in files and Path("schema.json") in files
    assert files == sorted(
        p.relative_to(derived.second) for p in derived.second.rglob("*") if p.is_file()
    )
    for name in files:
        assert (derived.first / name).read_bytes() == (derived.second / name).read_bytes(), name


def test_one_item_per_content_and_no_test_content_in_train(derived: Derived) -> None:
    """Content keys are unique; splits are by content group, so no test or validation
    content (key or group) occurs in train; ids unique; positions balanced."""
    keys = [i.content_key for i in derived.items]
    assert len(set(keys)) == len(keys)
    groups: dict[str, set[str]] = {}
    for item in derived.items:
        groups.setdefault(item.content_group, set()).add(item.split)
    assert all(len(s) == 1 for s in groups.values())
    train = {i.content_key for i in derived.items if i.split == "train"}
    train_groups = {i.content_group for i in derived.items if i.split == "train"}
    held_out = [i for i in derived.items if i.split != "train"]
    assert not {i.content_key for i in held_out} & train
    assert not {i.content_group for i in held_out} & train_groups
    # The key, recomputed from what the item shows: task, stem (the topic and the concepts
    # shown, history left out), answer and option set.
    for item in derived.items:
        shown = {c.concept_id for c in item.context if c.role != "history" and c.concept_id}
        head = [] if item.task is Task.DIAGNOSIS else [item.topic]
        stem = sorted([*head, *sorted(shown - set(head))])
        options = sorted(o.concept_id for o in item.options)
        text = json.dumps([item.task.value, stem, item.answer_concept, options])
        assert item.content_key == hashlib.sha256(text.encode()).hexdigest()[:20]
    assert len({i.item_id for i in derived.items}) == len(derived.items)
    duplicates = {k: v for k, v in derived.report["skipped"].items() if "duplicate" in k}
    assert duplicates, "the sample repeats clinical content: duplicates must be dropped"
    assert derived.report["splits"] == {
        t: dict(Counter(i.split for i in derived.items if i.task.value == t))
        for t in {i.task.value for i in derived.items}
    }
    positions: dict[tuple[str, str], Counter[str]] = {}
    for item in derived.items:
        positions.setdefault((item.task, item.split), Counter())[item.answer] += 1
    for key, counts in positions.items():
        full = [counts.get(label, 0) for label in "ABCD"]
        assert max(full) - min(full) <= 1, (key, counts)


def test_every_distractor_has_a_stored_positive_reason(derived: Derived) -> None:
    """Every distractor carries at least one justification whose cited vocabulary edges
    exist in the graph as cited (type, source, release), and the graph knows the item's
    releases and policy."""
    cited: set[tuple[str, str, str, str | None]] = set()
    for item in derived.items:
        distractors = {o.concept_id for o in item.options if o.label != item.answer}
        assert {w.concept_id for w in item.why_wrong} == distractors
        # No policy setting given: the assertions' stored passed flags decided.
        assert item.releases and item.policy == "stored"
        for why in item.why_wrong:
            assert why.justifications, (item.item_id, why.label)
            for j in why.justifications:
                assert j.rule.startswith(item.task.value + ".") and j.version and j.reason
                assert j.edges, (item.item_id, why.label, j.rule)
                cited.update((e.start, e.type, e.end, e.source) for e in j.edges)
                assert all(e.release in item.releases for e in j.edges)
                if j.rule == "treatment.indications_elsewhere":
                    indications = set(j.set_of("indications"))
                    assert indications == {e.end for e in j.edges} or len(j.edges) == 12
                    assert indications and not indications & set(j.set_of("neighbourhood"))
                if j.rule == "diagnosis.clues_elsewhere":
                    targets = set(j.set_of("clue_targets"))
                    assert targets and not targets & set(j.set_of("neighbourhood"))
    missing = rows(
        derived.graph,
        "UNWIND $edges AS e MATCH (a:Concept {id: e[0]}), (b:Concept {id: e[2]}) "
        "WHERE NOT EXISTS { MATCH (a)-[r]->(b) WHERE type(r) = e[1] AND r.sab = e[3] "
        "AND coalesce(r.active, true) } RETURN e AS edge",
        edges=[list(e) for e in sorted(cited, key=str)],
    )
    assert cited and missing == []
    rules = Counter(derived.report["justifications"])
    assert rules["treatment.indications_elsewhere"] > 0 and rules["diagnosis.clues_elsewhere"] > 0
    assert sum(derived.report["difficulty"].values()) == sum(
        len(i.why_wrong) for i in derived.items
    )


def test_patient_specific_lures_cite_the_record(derived: Derived) -> None:
    """A patient-specific lure treats the condition but is contraindicated for a condition
    the question shows: its reason cites the CONTRAINDICATED_FOR edge and a record fact of
    the item's context whose concept is that condition or lies below it; the answer itself
    is never contraindicated for a condition the question shows."""
    lures = [
        (item, why)
        for item in derived.items
        for why in item.why_wrong
        if why.lure == "patient_specific"
    ]
    assert lures, derived.report["lures"]
    for item, why in lures:
        (just,) = why.justifications
        assert just.rule == "treatment.contraindicated_for_patient"
        shown = {c.fact_id: c for c in item.context}
        facts = just.set_of("record_facts")
        assert facts and set(facts) <= set(shown)
        ends = {e.end for e in just.edges if e.type == "CONTRAINDICATED_FOR"}
        below = rows(
            derived.graph,
            "UNWIND $facts AS f MATCH (:Fact {id: f})-[:CODED_AS]->(c:Concept) "
            "MATCH (c)-[:MAPS_TO*0..1]-()-[:IS_A*0..6]->()-[:MAPS_TO*0..1]-(x:Concept) "
            "WHERE x.id IN $ends RETURN DISTINCT x.id AS id",
            facts=facts,
            ends=sorted(ends),
        )
        assert below, (item.item_id, ends)
        assert item.context_necessary and item.task is Task.TREATMENT
    answers = rows(
        derived.graph,
        "UNWIND $items AS it MATCH (d:Concept {id: it.answer})-[r:CONTRAINDICATED_FOR]->(x) "
        "UNWIND it.facts AS f MATCH (:Fact {id: f})-[:CODED_AS]->(c:Concept) "
        "WHERE (c)-[:MAPS_TO*0..1]-()-[:IS_A*0..6]->()-[:MAPS_TO*0..1]-(x) "
        "RETURN it.id AS id",
        items=[
            {"id": i.item_id, "answer": i.answer_concept, "facts": [c.fact_id for c in i.context]}
            for i in derived.items
            if i.task is Task.TREATMENT
        ],
    )
    assert answers == []


def test_every_option_fits_the_patients_sex_and_life_stage(derived: Derived) -> None:
    """Each distractor occurs in a cohort patient of the item patient's sex at the same life
    stage: read here from every record's episodes (age at the episode, facts coded there)
    and the concepts each coded concept reaches, not from the derivation's profile."""
    records = list(read_records(derived.graph, allergy_roots=derived.settings.facts_allergy_roots))
    coded = sorted({c for r in records for c in r.concepts})
    reach = {
        row["id"]: set(row["reach"]) for row in derived.graph.read("derive/coded_reach", ids=coded)
    }
    seen: set[tuple[str | None, str | None, str]] = set()
    for record in records:
        for at, episode in enumerate(record.episodes):
            stage = life_stage(record.age_at(at))
            for fact in episode.facts:
                for concept in reach.get(str(fact.concept), ()):
                    seen.add((record.sex, stage, concept))
    sexes = {r.patient_id: r.sex for r in records}
    checked = 0
    for item in derived.items:
        band = re.search(r"aged (\d+(?:-\d+|\+))", item.question)
        stage = life_stage(band.group(1) if band else None)
        for why in item.why_wrong:
            assert (sexes[item.patient_id], stage, why.concept_id) in seen, (item.item_id, why)
            checked += 1
    assert checked == sum(len(i.why_wrong) for i in derived.items) > 0
    assert derived.report["distractors_rejected"][UNFIT] > 0


def test_splits_keep_each_topic_and_answer_in_one_split(derived: Derived) -> None:
    """By default no (task, topic, answer) of test or validation occurs in train."""
    assert derived.report["split_by"] == "topic_answer"
    where: dict[tuple[str, str, str], set[str]] = {}
    for item in derived.items:
        where.setdefault((item.task.value, item.topic, item.answer_concept), set()).add(item.split)
    assert where and all(len(splits) == 1 for splits in where.values())


def test_a_different_seed_changes_choices_not_validity(derived: Derived, tmp_path: Path) -> None:
    other = derived.settings.model_copy(update={"derive_seed": 99})
    report = derive_qa(tmp_path / "qa", settings=other, graph=derived.graph, write=False)
    items = list(read_items(tmp_path / "qa"))
    assert sum(sum(s.values()) for s in report.items.values()) == len(items) > 0
    assert {i.split for i in items} <= {"train", "validation", "test"}
    assert [i.item_id for i in items] != [i.item_id for i in derived.items]


def test_export_loads_with_hugging_face_datasets(derived: Derived, tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    treatment = datasets.load_dataset(str(derived.first), "treatment", cache_dir=str(tmp_path))
    expected = Counter(i.split for i in derived.items if i.task is Task.TREATMENT)
    assert {name: len(part) for name, part in treatment.items()} == dict(expected)
    row = treatment["train"][0]
    assert row["options"][0]["label"] == "A" and row["answer"] in "ABCD"
    everything = datasets.load_dataset(str(derived.first), cache_dir=str(tmp_path / "all"))
    assert sum(len(part) for part in everything.values()) == len(derived.items)


def test_items_are_linked_to_assertions_rules_facts_and_concepts(derived: Derived) -> None:
    found = {
        r["id"]: r
        for r in rows(
            derived.graph,
            """
            MATCH (i:Item {current: true})
            RETURN i.id AS id,
              COLLECT { MATCH (i)-[:RESTS_ON]->(a:Assertion) RETURN a.id } AS basis,
              COLLECT { MATCH (i)-[:DECIDED_BY]->(r:Rule) RETURN r.key } AS rules,
              COLLECT { MATCH (i)-[:FROM_FACT]->(f:Fact) RETURN f.id } AS facts,
              COLLECT { MATCH (i)-[:RESTS_ON]->(:Assertion)-[:EVIDENCE]->(c) RETURN c.id }
                AS evidence,
              [(i)-[:ANSWER]->(c) | c.id] AS answer,
              [(i)-[:ABOUT]->(p) | p.id] AS patient
            """,
        )
    }
    assert set(found) == {i.item_id for i in derived.items}
    for item in derived.items:
        row = found[item.item_id]
        assert sorted(row["basis"]) == item.basis
        assert sorted(row["rules"]) == item.rules and item.rules
        assert sorted(row["facts"]) == sorted(c.fact_id for c in item.context)
        assert row["evidence"], item.item_id
        assert row["answer"] == [item.answer_concept] and row["patient"] == [item.patient_id]


def test_items_resting_on_a_relation_that_no_longer_passes_are_retired(
    derived: Derived, tmp_path: Path
) -> None:
    item = next(i for i in derived.items if i.task is Task.TREATMENT)
    graph = derived.graph
    graph._driver.execute_query(
        "MATCH (a:Assertion) WHERE a.id IN $ids SET a.passed = false, a.standing_passed = false",
        ids=item.basis,
    )
    try:
        report = derive_qa(tmp_path / "qa", settings=derived.settings, graph=graph)
        assert report.retired >= 1
        assert item.item_id not in {i.item_id for i in read_items(tmp_path / "qa")}
        assert value(graph, "MATCH (i:Item {id: $id}) RETURN i.current", id=item.item_id) is False
    finally:
        graph._driver.execute_query(
            "MATCH (a:Assertion) WHERE a.id IN $ids SET a.passed = true, a.standing_passed = true",
            ids=item.basis,
        )
        derive_qa(tmp_path / "again", settings=derived.settings, graph=graph)
    assert value(graph, "MATCH (i:Item {id: $id}) RETURN i.current", id=item.item_id) is True


# -- planted distractors -------------------------------------------------------------------


def _records(derived: Derived) -> list[PatientRecord]:
    return list(read_records(derived.graph, allergy_roots=derived.settings.facts_allergy_roots))


def _first(derived: Derived, task: Task, object_name: str | None = None) -> Candidate:
    for record in _records(derived):
        for candidate in candidates_for(record, derived.settings, Counter()):
            if candidate.task is task and (
                object_name is None or candidate.values.get("condition") == object_name
            ):
                return candidate
    raise AssertionError(f"no {task} candidate")


def test_planted_bad_distractors_are_refused_with_their_reason(
    derived: Derived, verifier: Verifier
) -> None:
    graph = derived.graph
    screen = DistractorScreen(graph, verifier, derived.settings)
    # Treatment of osteoarthritis: another drug MED-RT says treats it is no distractor.
    treat = _first(derived, Task.TREATMENT, "Osteoarthritis")
    also = value(
        graph,
        "MATCH (u:UMLS)-[:MAY_TREAT]->(:UMLS)-[:MAPS_TO*0..1]-(:Concept {id: $condition}) "
        "WHERE u.id <> $answer AND NOT EXISTS { (:Patient {id: $p})-[:HAS_FACT]->()"
        "-[:CODED_AS]->()-[:CONSISTS_OF|HAS_INGREDIENT*0..2]->()<-[:MAPS_TO*0..1]-(u) } "
        "RETURN u.id ORDER BY u.id LIMIT 1",
        condition=treat.checks[0].fixed,
        answer=treat.answer,
        p=treat.patient.patient_id,
    )
    taken = value(
        graph,
        "MATCH (:Patient {id: $p})-[:HAS_FACT]->(:Fact {kind: 'drug'})-[:CODED_AS]->()"
        "-[:CONSISTS_OF|HAS_INGREDIENT*1..2]->()<-[:MAPS_TO]-(u:UMLS) "
        "WHERE u.id <> $answer RETURN u.id ORDER BY u.id LIMIT 1",
        p=treat.patient.patient_id,
        answer=treat.answer,
    )
    # Diagnosis: the answer's own is-a parent is no distractor either.
    diag = _first(derived, Task.DIAGNOSIS)
    parent = value(
        graph,
        "MATCH (:Concept {id: $id})-[:IS_A]->(p:Concept) RETURN p.id ORDER BY p.id LIMIT 1",
        id=diag.answer,
    )
    treat.pool, diag.pool = [also, taken, treat.answer], [parent]
    # Shown conditions could make ``also`` a patient-specific lure: none are shown here
    # (test_patient_specific_lures_cite_the_record covers those).
    treat.context = [c for c in treat.context if c.role not in ("condition", "history")]
    screen._pools = lambda candidates: None  # type: ignore[method-assign]  # planted pools only
    screen._treater_pools = lambda candidates: None  # type: ignore[method-assign]
    # The planted drugs are judged for the refusals below, whoever the patient is (the age
    # and sex fit has its own tests).
    screen.fit.fits = lambda concept, sex, stage: True  # type: ignore[method-assign]
    treated, diagnosed = screen.screen([treat, diag])
    assert treated.names == {} and diagnosed.names == {}
    assert treated.rejected + diagnosed.rejected == Counter(
        {
            "it may treat a condition near the item's (treatment.indications_elsewhere)": 1,
            "the patient has it": 1,
            "the answer or a synonym of it": 1,
            "an ancestor of the answer": 1,
        }
    )


PLANTED = "PLANTED"  # sab of edges a test adds and removes


def _plant(graph: Graph, start: str, end: str) -> None:
    graph._driver.execute_query(
        "MATCH (a:Concept {id: $a}), (b:Concept {id: $b}) "
        "MERGE (a)-[:MAY_TREAT {sab: $sab, group: '0'}]->(b)",
        a=start,
        b=end,
        sab=PLANTED,
    )


def _unplant(graph: Graph) -> None:
    graph._driver.execute_query("MATCH ()-[r:MAY_TREAT {sab: $sab}]->() DELETE r", sab=PLANTED)


def _judge(derived: Derived, verifier: Verifier, request: Request) -> Outcome:
    justifier = Justifier(
        derived.graph,
        verifier.hubs,
        derived.settings.derive_near_depth,
        derived.settings.derive_drug_near_depth,
    )
    [outcomes] = justifier.judge([request])
    [outcome] = outcomes.values()
    return outcome


IBUPROFEN, NAPROXEN, LISINOPRIL = "UMLS:C0020740", "UMLS:C0027396", "UMLS:C0065374"
HYPERTENSION, OSTEOPOROSIS, CELECOXIB = "UMLS:C0020538", "SNOMEDCT:64859006", "UMLS:C0538927"


def test_justification_rules_refuse_planted_ambiguous_distractors(
    derived: Derived, verifier: Verifier
) -> None:
    """Each rule on the real sample graph, with vocabulary edges planted for one case at a
    time: a drug that treats the condition only through its class, a drug whose classmate
    treats it, a drug with no known indication, a disease near what the started drug
    treats; and, for contrast, the same drug admitted when nothing refutes it."""
    graph = derived.graph
    klass = value(
        graph,
        "MATCH (:Concept {id: $d})-[:IS_A]->(k:Concept)<-[:IS_A]-(:Concept {id: $n}) "
        "RETURN k.id ORDER BY k.id LIMIT 1",
        d=IBUPROFEN,
        n=NAPROXEN,
    )
    assert klass, "the sample's ATC classes put ibuprofen and naproxen in one class"

    def ibuprofen_for_hypertension() -> Outcome:
        request = Request(
            task=Task.TREATMENT,
            topic=HYPERTENSION,
            answer=LISINOPRIL,
            clues=[],
            conditions=[],
            candidates=[IBUPROFEN],
        )
        return _judge(derived, verifier, request)

    plain = ibuprofen_for_hypertension()
    assert plain.admissible, plain.refused
    [just] = [j for j in plain.justifications if j.rule == "treatment.indications_elsewhere"]
    assert klass in just.set_of("classes") and just.edges
    try:
        _plant(graph, klass, HYPERTENSION)  # the class, not the drug, may treat it
        assert ibuprofen_for_hypertension().refused == (
            "it may treat a condition near the item's (treatment.indications_elsewhere)"
        )
        _unplant(graph)
        _plant(graph, NAPROXEN, HYPERTENSION)  # a classmate treats it
        assert ibuprofen_for_hypertension().refused == (
            "it shares a class with a drug known to treat the condition "
            "(treatment.indications_elsewhere)"
        )
    finally:
        _unplant(graph)
    silent = value(
        graph,
        "MATCH (c:UMLS) WHERE 'ingredient' IN c.kinds AND NOT EXISTS { (c)<-[:IS_A]-() } "
        "AND NOT EXISTS { (c)-[:MAPS_TO*0..1]-()-[:IS_A*0..3]->()"
        "-[:MAY_TREAT|MAY_PREVENT|CONTRAINDICATED_FOR]->() } "
        "RETURN c.id ORDER BY c.id LIMIT 1",
    )
    assert silent
    unknown = _judge(
        derived,
        verifier,
        Request(Task.TREATMENT, HYPERTENSION, LISINOPRIL, [], [], [silent]),
    )
    assert unknown.refused == "no known indication or contraindication (silence proves nothing)"

    # Diagnosis: celecoxib started points at osteoarthritis and rheumatoid arthritis. What
    # it points at, or lies near it below the body system, is refused; osteoporosis shares
    # only the body system (musculoskeletal) and celecoxib and its classes do not treat it:
    # a same-system lure. Cystitis lies in another system.
    def as_osteoarthritis_distractor(candidate: str) -> Outcome:
        oa = "SNOMEDCT:396275006"
        request = Request(Task.DIAGNOSIS, oa, oa, [(CELECOXIB, "treats")], [], [candidate])
        return _judge(derived, verifier, request)

    rheumatoid = value(
        graph, "MATCH (c:SNOMEDCT {name: 'Rheumatoid arthritis'}) RETURN c.id LIMIT 1"
    )
    pointed = as_osteoarthritis_distractor(rheumatoid)
    assert pointed.refused == "a clue points near it (diagnosis.clues_elsewhere)"
    system = as_osteoarthritis_distractor(OSTEOPOROSIS)
    assert system.admissible and system.lure == "same_system"
    assert system.justifications[0].rule == "diagnosis.clues_elsewhere"
    far = as_osteoarthritis_distractor("SNOMEDCT:38822007")  # cystitis
    assert far.admissible and far.justifications[0].rule == "diagnosis.clues_elsewhere"
    assert far.lure == "other_system" and far.justifications[0].set_of("clue_targets")


AF, CAD = "SNOMEDCT:49436004", "SNOMEDCT:53741008"  # atrial fibrillation, coronary arteriosclerosis
VERAPAMIL, AMLODIPINE = "UMLS:C0042523", "UMLS:C0051696"


def test_treatment_neighbourhood_is_the_conditions_parents_children_and_siblings(
    derived: Derived, verifier: Verifier
) -> None:
    """Beside atrial fibrillation treated with verapamil, amlodipine (known for coronary
    arteriosclerosis, which meets atrial fibrillation only at "Heart disease", two steps up)
    is a same-area lure under the treatment rules' depth 1 and was refused at depth 3; an
    indication planted on the parent of atrial fibrillation refuses it again; and verapamil,
    whose label treats angina, is never a wrong answer for coronary arteriosclerosis."""
    graph = derived.graph

    def amlodipine_for_af(drug_depth: int) -> Outcome:
        justifier = Justifier(graph, verifier.hubs, derived.settings.derive_near_depth, drug_depth)
        request = Request(Task.TREATMENT, AF, VERAPAMIL, [], [], [AMLODIPINE])
        [outcomes] = justifier.judge([request])
        return outcomes[AMLODIPINE]

    assert derived.settings.derive_drug_near_depth == 1
    cousin = amlodipine_for_af(1)
    assert cousin.admissible and cousin.lure == "same_area", cousin.refused
    [just] = [j for j in cousin.justifications if j.rule == "treatment.indications_elsewhere"]
    assert "UMLS:C0010054" in just.set_of("indications")  # coronary arteriosclerosis
    assert AF in just.set_of("neighbourhood") and "SNOMEDCT:56265001" not in just.set_of(
        "neighbourhood"
    )  # heart disease lies outside it
    assert amlodipine_for_af(3).refused == (
        "it may treat a condition near the item's (treatment.indications_elsewhere)"
    )
    parent = value(
        graph, "MATCH (:Concept {id: $af})-[:IS_A]->(p:SNOMEDCT) RETURN p.id LIMIT 1", af=AF
    )
    assert parent, "the sample puts atrial fibrillation under cardiac arrhythmia"
    try:
        _plant(graph, AMLODIPINE, parent)  # a parent is inside the neighbourhood
        assert amlodipine_for_af(1).refused == (
            "it may treat a condition near the item's (treatment.indications_elsewhere)"
        )
    finally:
        _unplant(graph)
    labelled = _judge(
        derived, verifier, Request(Task.TREATMENT, CAD, AMLODIPINE, [], [], [VERAPAMIL])
    )
    assert labelled.refused == (
        "it may treat a condition near the item's (treatment.indications_elsewhere)"
    )


# -- fact sheets ---------------------------------------------------------------------------


def _sheets(derived: Derived) -> list[FactSheet]:
    return list(read_sheets(derived.facts / "sheets.jsonl"))


def test_fact_sheets_in_gzip_are_the_same_sheets_smaller(derived: Derived, tmp_path: Path) -> None:
    """``--gzip`` writes sheets.jsonl.gz: the same lines, a fraction of the bytes, and the
    dialogue checker's reader takes the folder either way. Either file is a tenth of the
    sheets written one model a line (each fact once per sheet, each wording once per file)."""
    import gzip

    from kgverify.dialogue.record import SheetFile

    report = derive_facts(
        tmp_path / "facts", settings=derived.settings, graph=derived.graph, gzip=True
    )
    packed = tmp_path / "facts" / "sheets.jsonl.gz"
    plain = derived.facts / "sheets.jsonl"
    assert report.file == str(packed) and report.bytes == packed.stat().st_size
    assert not (tmp_path / "facts" / "sheets.jsonl").exists()
    assert gzip.decompress(packed.read_bytes()) == plain.read_bytes()
    assert report.bytes < plain.stat().st_size / 5
    sheets = _sheets(derived)
    assert list(read_sheets(packed)) == sheets
    first = sheets[0]
    assert SheetFile(tmp_path / "facts").get(first.patient_id) == first
    one_a_line = sum(len(sheet.model_dump_json()) + 1 for sheet in sheets)
    assert plain.stat().st_size < one_a_line / 5 and report.bytes < one_a_line / 10


def test_fact_sheets_keep_the_patients_words_apart_from_the_record(derived: Derived) -> None:
    sheets = _sheets(derived)
    assert len(sheets) == 39 and (derived.facts / "schema.json").exists()
    sections: Counter[str] = Counter()
    concept_ids: set[str] = set()
    for sheet in sheets:
        assert sheet.split in ("train", "validation", "test")
        starts = [e.start or "" for e in sheet.encounters]
        assert starts == sorted(starts)
        for encounter in sheet.encounters:
            said = {f.fact_id for f in encounter.patient_can_say}
            held = {f.fact_id for f in encounter.record_only}
            assert not said & held
            for fact in encounter.patient_can_say + encounter.record_only:
                sections[fact.section] += 1
                concept_ids.add(fact.concept_id)
                assert fact.source_table and fact.source_row
                if fact.section == "history":
                    # Earlier episodes; a day outside encounters may share the date.
                    assert (fact.start or "")[:10] <= (encounter.start or "~")
                if fact.section == "diagnosis":
                    assert fact.assertions and fact.verdict == "supported"
                if fact.section in ("history", "symptom", "current_drug", "allergy"):
                    assert fact.text == fact.text.lower()
    assert {"history", "current_drug", "diagnosis", "condition", "lab"} <= set(sections)
    # Only grounded facts: every concept is a loaded, active one or a code it maps to.
    ungrounded = rows(
        derived.graph,
        "UNWIND $ids AS id MATCH (c:Concept {id: id}) "
        "WHERE NOT coalesce(c.active, true) OR (c.stub AND NOT EXISTS { (c)-[:MAPS_TO]-() }) "
        "RETURN c.id AS id",
        ids=sorted(concept_ids),
    )
    assert ungrounded == []


def test_a_contraindicated_current_drug_is_flagged(derived: Derived, verifier: Verifier) -> None:
    from kgverify.derive.facts import SheetBuilder
    from kgverify.derive.model import EncounterSheet, SheetFact

    def fact(fid: str, section: str, concept: str) -> SheetFact:
        return SheetFact(
            fact_id=fid,
            section=section,
            text=concept,
            concept_id=concept,
            code=concept,
            source_table="t",
            source_row="1",
            verdict="grounded",
        )

    ibuprofen = value(derived.graph, "MATCH (c:UMLS {name: 'Ibuprofen'}) RETURN c.id")
    ulcer = value(derived.graph, "MATCH (c:UMLS {name: 'Peptic Ulcer'}) RETURN c.id")
    sheet = EncounterSheet(
        episode="e1",
        start="2020-01-01",
        kind=None,
        patient_can_say=[fact("d1", "current_drug", ibuprofen)],
        record_only=[fact("c1", "condition", ulcer)],
    )
    builder = SheetBuilder(verifier, derived.settings)
    record = _records(derived)[0]
    [found] = builder._contraindications([(record, [sheet], [])])
    assert [(c.kind, c.facts) for c in found] == [("contradiction", ["d1", "c1"])]


# -- the command line ----------------------------------------------------------------------


@pytest.mark.usefixtures("cli_env")
def test_cli_derive_reports_json_and_reads_well(derived: Derived, tmp_path: Path) -> None:
    runner = CliRunner()
    helped = runner.invoke(cli, ["derive", "--help"])
    assert helped.exit_code == 0 and "qa" in helped.output and "facts" in helped.output
    env = {"KGVERIFY_CACHE_DIR": str(derived.settings.cache_dir)}
    result = runner.invoke(
        cli,
        ["derive", "qa", "-o", str(tmp_path / "qa"), "--task", "treatment", "--no-write", "--json"],
        env=env,
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert list(report["items"]) == ["treatment"] and report["written"] == 0
    assert report["items"]["treatment"] == derived.report["items"]["treatment"]
    table = runner.invoke(cli, ["derive", "facts", "-o", str(tmp_path / "facts")], env=env)
    assert table.exit_code == 0, table.output
    assert "39 fact sheets" in table.output and "Facts per section" in table.output
    bad = runner.invoke(cli, ["derive", "qa", "-o", str(tmp_path / "x"), "--task", "nope"])
    assert bad.exit_code == 2 and "nope" in bad.output


def test_lineage_and_prov_show_every_justification(derived: Derived) -> None:
    from rdflib import Graph as RDFGraph
    from rdflib import Literal
    from rdflib.namespace import RDF, RDFS

    from kgverify.api import export_prov, lineage
    from kgverify.audit.prov import KGV

    treatment = [i for i in derived.items if i.task is Task.TREATMENT]
    # One whose reasons quote a record date where there is one (a patient-specific lure).
    item = next(
        (i for i in treatment if re.search(r"\d{4}-\d{2}-\d{2}", str(i.why_wrong))), treatment[0]
    )
    found = lineage(item.item_id, settings=derived.settings, graph=derived.graph)
    # The graph keeps recorded dates (docs/runs.md, "Dates"); the item file publishes them
    # shifted, so a reason that quotes a date matches once shifted the same way.
    published = derived.settings.date_shift().text(
        item.patient_id, TypeAdapter(list[DistractorWhy]).dump_json(found.why_wrong).decode()
    )
    assert TypeAdapter(list[DistractorWhy]).validate_json(published) == item.why_wrong
    assert found.releases == item.releases and found.policy == item.policy
    prov = RDFGraph().parse(
        data=export_prov(item.item_id, settings=derived.settings, graph=derived.graph)
    )
    justifications = set(prov.subjects(RDF.type, KGV.Justification))
    assert len(justifications) == sum(len(w.justifications) for w in item.why_wrong)
    edge = item.why_wrong[0].justifications[0].edges[0]
    label = f"{edge.start_name} {edge.type} {edge.end_name} according to {edge.source} in "
    assert (None, RDFS.label, Literal(label + str(edge.release))) in prov
    assert {str(o) for o in prov.objects(None, KGV.release)} == set(item.releases)


# -- the review loop's effect on derivation (kept last: it changes what derives) ----------


def test_a_review_import_changes_the_next_derivation(derived: Derived, tmp_path: Path) -> None:
    """Export review pages, veto one distractor, reject one item and judge one relation
    false, import the sheet: the next derivation never uses the vetoed distractor for that
    task and topic, does not produce the rejected content, leaves out items resting on the
    false relation, and says so in its report and dataset card. Reviews are removed after."""
    import csv

    from kgverify.api import review_export, review_import

    settings, graph = derived.settings, derived.graph
    treatment = sorted(
        (i for i in derived.items if i.task is Task.TREATMENT), key=lambda i: i.item_id
    )
    # Three items with no topic and no assertion in common, so that no review hides the
    # effect of another (an item resting on the relation judged false is left out before
    # its content could be refused). Which items come first changes with the session's
    # pseudonym salt, so they are chosen, not taken in order.
    independent: list[QAItem] = []
    for item in treatment:
        if all(item.topic != c.topic and not set(item.basis) & set(c.basis) for c in independent):
            independent.append(item)
    assert len(independent) >= 3, "the sample gives fewer than three independent items"
    vetoed_item, rejected_item, false_item = independent[:3]
    veto = vetoed_item.why_wrong[0]
    export = review_export(tmp_path / "review", qa=derived.first, settings=settings, graph=graph)
    assert sum(export.exported.values()) == len(derived.items)
    sheet = tmp_path / "review" / "sheet.csv"
    with sheet.open(encoding="utf-8") as handle:
        table = list(csv.DictReader(handle))
    for row in table:  # an item's row, then one row per relation it rests on
        item_row = not row["assertion_id"]
        if row["item_id"] == vetoed_item.item_id and item_row:
            row["veto_labels"], row["veto_reason"] = veto.label, "a defensible answer"
        if row["item_id"] == rejected_item.item_id and item_row:
            row["decision"] = "reject"
        if row["item_id"] == false_item.item_id and row["assertion_id"] == false_item.basis[0]:
            row["decision"] = "false"
    with sheet.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(table)
    imported = review_import(sheet, reviewer="test-clinician", settings=settings, graph=graph)
    assert imported.rejected == 0 and imported.imported >= 3
    try:
        report = derive_qa(tmp_path / "qa", settings=settings, graph=graph, write=False)
        items = list(read_items(tmp_path / "qa"))
        assert report.distractors_rejected.get("vetoed by a reviewer", 0) >= 1
        # Every candidate of the rejected content is refused (other patients may share it).
        assert report.skipped.get("treatment: rejected by a reviewer", 0) >= 1
        assert report.filtered.get("judged false by a reviewer") == 1
        for item in items:
            if item.task is Task.TREATMENT and item.topic == vetoed_item.topic:
                assert veto.concept_id not in {o.concept_id for o in item.options}
            assert false_item.basis[0] not in item.basis
        assert rejected_item.content_key not in {i.content_key for i in items}
        card = (tmp_path / "qa" / "README.md").read_text()
        assert "Review state: " in card and "reject 1" in card and "veto 1" in card
    finally:
        graph._driver.execute_query(
            "MATCH (r:Review) DETACH DELETE r WITH count(*) AS n "
            "MATCH (a:Assertion) WHERE a.review IS NOT NULL REMOVE a.review, a.review_id"
        )
        derive_qa(tmp_path / "again", settings=settings, graph=graph)


# -- pages of patients: what an engine works on ------------------------------------------------


def _rejected(pages: list[QAPage]) -> Counter[str]:
    return sum((s.rejected for page in pages for s in page.screened), Counter())


def _screened_by_candidate(pages: list[QAPage]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for page in pages:
        for candidate, screened in zip(page.candidates, page.screened, strict=True):
            out[candidate.key] = (
                screened.answer_name,
                screened.names,
                {
                    d: (o.distance, o.closeness, [j.model_dump() for j in o.justifications])
                    for d, o in screened.outcomes.items()
                },
            )
    return out


def test_pages_of_any_size_screen_the_same_and_survive_transport(derived: Derived) -> None:
    """A page's screened candidates do not depend on which patients share the page (the ray
    engine splits pages where the local path does not), and a page sent to another process
    (pickled, as Ray does) keeps every admitted distractor's justifications."""
    graph = derived.graph
    job = QAJob(
        settings=derived.settings, tasks=frozenset(Task), policy=None, reviews=ReviewState([])
    )
    ids = [i for page in patient_pages(graph, 1_000) for i in page]
    assert len(ids) > 3
    worker = QAPageWorker(graph, job)
    try:
        whole = [worker.page(ids)]
        small = [worker.page(ids[at : at + 3]) for at in range(0, len(ids), 3)]
    finally:
        worker.close()
    assert sum(p.patients for p in small) == whole[0].patients == len(ids)
    assert _rejected(small) == _rejected(whole) and _rejected(whole)
    assert sum((p.found for p in small), Counter()) == whole[0].found
    expected = _screened_by_candidate(whole)
    assert any(names for _, names, _ in expected.values())  # distractors were admitted
    assert _screened_by_candidate(small) == expected
    sent = pickle.loads(pickle.dumps(whole[0]))  # noqa: S301 (our own bytes)
    assert _screened_by_candidate([sent]) == expected
    outcomes = [o for s in sent.screened for o in s.outcomes.values()]
    assert outcomes and all(o.admissible and o.build is None for o in outcomes)
    refused = Outcome(refused="a kind of a condition the patient has")
    assert not pickle.loads(pickle.dumps(refused)).admissible  # noqa: S301


def test_repeats_of_served_contents_are_left_unscreened_and_change_nothing(
    derived: Derived, tmp_path: Path
) -> None:
    """A worker in the run's process skips screening candidates whose content the run has
    served (``ServedContents``); a worker with its own copy of the job (as a Ray actor has)
    screens them all. Both runs give the same items and the same report."""
    skipped: list[int] = []

    def opener(shared: bool) -> Any:
        @contextmanager
        def pages(settings: Settings, graph: Graph, job: QAJob) -> Iterator[Iterator[QAPage]]:
            mine = job if shared else pickle.loads(pickle.dumps(job))  # noqa: S301
            worker = QAPageWorker(graph, mine)

            def worked() -> Iterator[QAPage]:
                for ids in patient_pages(graph, 3):  # small pages: contents recur across them
                    page = worker.page(ids)
                    skipped.append(sum(s.served for s in page.screened))
                    yield page

            try:
                yield worked()
            finally:
                worker.close()

        return pages

    settings, graph = derived.settings, derived.graph
    local = derive_run.run_qa(graph, settings, tmp_path / "local", write=False, pages=opener(True))
    local_skips, skipped[:] = sum(skipped), []
    every = derive_run.run_qa(graph, settings, tmp_path / "every", write=False, pages=opener(False))
    assert local_skips > 0 and sum(skipped) == 0  # repeats were skipped, then none
    same = {"seconds", "out"}
    assert local.model_dump(exclude=same) == every.model_dump(exclude=same)
    assert local.distractors_rejected and local.funnel["content_groups"] > 0
    items = [f.relative_to(tmp_path / "local") for f in (tmp_path / "local").rglob("*.jsonl")]
    assert items
    for name in items:
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "every" / name).read_bytes()


def test_a_treatment_repeat_is_settled_only_where_screening_finds_no_lure_for_the_patient(
    derived: Derived, verifier: Verifier
) -> None:
    """``DistractorScreen.settled`` on the sample's treatment candidates: each settled one,
    screened alone, has no patient-specific lure and no conflicting answer (what would
    change its content or drop it for another reason than a repeat); settled and lured
    candidates both occur."""
    candidates = [
        c
        for record in _records(derived)
        for c in candidates_for(record, derived.settings, Counter())
        if c.task is Task.TREATMENT
    ]
    screen = DistractorScreen(derived.graph, verifier, derived.settings)
    kinds: Counter[str] = Counter()
    for candidate, calm in zip(candidates, screen.settled(candidates), strict=True):
        alone = DistractorScreen(derived.graph, verifier, derived.settings)
        screened = alone.screen([candidate])[0]
        lured = any(o.lure == "patient_specific" for o in screened.outcomes.values())
        if calm:
            assert not lured and screened.conflict is None, candidate.key
        kinds["settled" if calm else "lured" if lured else "other"] += 1
    assert kinds["settled"] and kinds["lured"], kinds


def test_a_candidates_pool_is_the_same_whatever_else_shares_its_page(
    derived: Derived, verifier: Verifier
) -> None:
    """A diagnosis and a prognosis candidate of one answer pool their own kin (the body
    system's disorders, and for prognosis its findings too) whether pooled together or
    apart: the pool depends on the candidate alone, so items do not depend on paging."""
    from dataclasses import replace

    made = [
        c
        for record in _records(derived)
        for c in candidates_for(record, derived.settings, Counter())
        if c.task in (Task.DIAGNOSIS, Task.PROGNOSIS)
    ]
    prognoses = [c for c in made if c.task is Task.PROGNOSIS]
    assert prognoses
    screen = DistractorScreen(derived.graph, verifier, derived.settings)
    for later in prognoses:
        first = next(c for c in made if c.task is Task.DIAGNOSIS)
        pair = [replace(first, answer=later.answer, pool=[]), replace(later, pool=[])]
        apart = [replace(c, pool=[]) for c in pair]
        screen._pools(pair)
        for c in apart:
            screen._pools([c])
        # Keyed by the answer alone, the pair's kin was the last read (it failed so).
        assert [c.pool for c in pair] == [c.pool for c in apart], later.answer


def test_records_read_ahead_are_the_pages_in_order_and_an_error_stops_the_reader(
    derived: Derived,
) -> None:
    """The local engine reads the next page's records on a thread beside the work on this
    one: the pages come as one page at a time gives them, in order; a failure in the work
    ends the block with no read left running (the graph's driver is closed next)."""
    import threading

    from kgverify.derive.pages import read_ahead
    from kgverify.derive.records import RecordReader

    graph, roots = derived.graph, derived.settings.facts_allergy_roots
    pages = list(patient_pages(graph, 3))
    assert len(pages) >= 3
    one_at_a_time = RecordReader(graph, allergy_roots=roots)
    expected = [one_at_a_time.read(ids) for ids in pages]
    with read_ahead(RecordReader(graph, allergy_roots=roots), iter(pages)) as records:
        assert list(records) == expected

    class StopError(Exception):
        pass

    with (
        pytest.raises(StopError),
        read_ahead(RecordReader(graph, allergy_roots=roots), iter(pages)) as records,
    ):
        for _ in records:
            raise StopError  # the second page's read is in flight
    readers = [t for t in threading.enumerate() if t.name.startswith("kgverify-records")]
    assert [t for t in readers if t.is_alive()] == []


PEPTIC_ULCER = "UMLS:C0030920"
OSTEOARTHRITIS = "SNOMEDCT:396275006"


def test_planted_lure_kinds_and_their_counter_cases(derived: Derived, verifier: Verifier) -> None:
    """On the real sample graph: a drug for the condition that a shown condition
    contraindicates is a patient-specific lure, and the same drug is refused when the
    question shows no such condition; a drug of the answer's ATC level-2 group known for
    another system's condition is a same-area lure until it is said to treat the item's;
    a class's indication refuses a diagnosis distractor
    (planted on the drug's class, not the drug); a condition seen in the cohort only at
    another life stage is no option for this one."""
    graph = derived.graph
    ulcer = ContextFact(
        fact_id="planted-fact", role="history", text="Peptic ulcer", concept_id=PEPTIC_ULCER
    )
    request = Request(
        Task.TREATMENT, OSTEOARTHRITIS, CELECOXIB, [(OSTEOARTHRITIS, "treats")], [], [NAPROXEN]
    )
    refused = _judge(derived, verifier, request)
    assert refused.refused and "near the item's" in refused.refused
    request.shown = [ulcer]
    lure = _judge(derived, verifier, request)
    assert lure.admissible and lure.lure == "patient_specific"
    (just,) = lure.justifications
    assert just.rule == "treatment.contraindicated_for_patient"
    assert just.set_of("record_facts") == ["planted-fact"]
    assert any(e.type == "CONTRAINDICATED_FOR" and e.source for e in just.edges)
    assert "Peptic ulcer" in just.reason and "wrong for this patient" in just.reason

    # Same area: nitrofurantoin shares amoxicillin's ATC level-2 group (J01) and is known
    # for urinary infections only: a same-area lure for otitis media, until it is said to
    # treat otitis media.
    nitrofurantoin = value(graph, "MATCH (c:UMLS {name: 'Nitrofurantoin'}) RETURN c.id")
    amoxicillin = value(graph, "MATCH (c:UMLS {name: 'Amoxicillin'}) RETURN c.id")
    otitis = "SNOMEDCT:65363002"
    area = Request(Task.TREATMENT, otitis, amoxicillin, [(otitis, "treats")], [], [nitrofurantoin])
    same = _judge(derived, verifier, area)
    assert same.admissible and same.lure == "same_area", same.refused
    assert same.justifications[0].rule == "treatment.indications_elsewhere"
    try:
        _plant(graph, nitrofurantoin, otitis)
        assert "near the item's" in str(_judge(derived, verifier, area).refused)
    finally:
        _unplant(graph)

    # Diagnosis: celecoxib started; cystitis is admissible until celecoxib's class is said
    # to treat it (the class, not the drug: a drug's own list is never complete).
    klass = value(
        graph,
        "MATCH (:Concept {id: $d})-[:IS_A]->(k:Concept) RETURN k.id ORDER BY k.id LIMIT 1",
        d=CELECOXIB,
    )
    cystitis = "SNOMEDCT:38822007"
    diagnosis = Request(
        Task.DIAGNOSIS, OSTEOARTHRITIS, OSTEOARTHRITIS, [(CELECOXIB, "treats")], [], [cystitis]
    )
    assert _judge(derived, verifier, diagnosis).admissible
    try:
        _plant(graph, klass, cystitis)
        assert _judge(derived, verifier, diagnosis).refused == (
            "a clue points near it (diagnosis.clues_elsewhere)"
        )
    finally:
        _unplant(graph)

    # Age fit: a concept the cohort has only at one life stage fits that stage alone.
    screen = DistractorScreen(graph, verifier, derived.settings)
    stages = ("child", "young adult", "middle-aged adult", "older adult")
    concepts = [
        row["id"]
        for row in graph.run_adhoc(
            "MATCH (:Patient)-[:HAS_FACT]->(:Fact {kind: 'condition'})-[:CODED_AS]->(c) "
            "RETURN DISTINCT c.id AS id ORDER BY id",
            {},
        ).rows
    ]
    only = [(c, [s for s in stages if screen.fit.fits(c, None, s)]) for c in concepts]
    confined = [(c, fit) for c, fit in only if len(fit) == 1]
    assert confined, "some condition occurs at one life stage only in the sample"
    for concept, (stage,) in confined:
        assert all(not screen.fit.fits(concept, None, s) for s in stages if s != stage)
    assert not screen.fit.fits("UMLS:C0000000-not-a-concept", None, None)


def test_a_documented_sequel_refuses_its_kin_as_a_prognosis_distractor(
    derived: Derived, verifier: Verifier
) -> None:
    """The sample's documented sequelae (``label_knowledge.DUE_TO``): a viral sinusitis may
    lead to an acute bacterial sinusitis and to an otitis media. In a prognosis item about a
    viral sinusitis whose answer is the bacterial sinusitis, otitis media is no distractor
    (a clue points near it: it could follow too), while a gastrointestinal hemorrhage, which
    nothing shown leads to, is one, its reason citing the documented outcomes; without the
    row, otitis media is admitted."""
    viral, bacterial = "SNOMEDCT:444814009", "SNOMEDCT:75498004"
    otitis, bleed = "SNOMEDCT:65363002", "SNOMEDCT:74474003"

    def ask(cause: str, candidate: str) -> Outcome:
        request = Request(Task.PROGNOSIS, cause, bacterial, [(cause, "leads_to")], [], [candidate])
        return _judge(derived, verifier, request)

    assert ask(viral, otitis).refused == "a clue points near it (prognosis.outcomes_elsewhere)"
    admitted = ask(viral, bleed)
    assert admitted.admissible, admitted.refused
    [just] = admitted.justifications
    assert just.rule == "prognosis.outcomes_elsewhere"
    assert "Acute bacterial sinusitis" in just.reason and "Otitis" in just.reason
    assert any(e.type == "DUE_TO" for e in just.edges)
    # The refusal rests on the documented row: without it, otitis media is a lure.
    driver = derived.graph._driver
    edge = "MATCH (o:Concept {id: 'UMLS:C0029882'}), (c:Concept {id: 'UMLS:C9900023'}) "
    [saved] = driver.execute_query(
        edge + "MATCH (o)-[r:DUE_TO]->(c) WITH r, properties(r) AS p DELETE r RETURN p"
    ).records
    try:
        assert ask(viral, otitis).admissible
    finally:
        driver.execute_query(edge + "CREATE (o)-[r:DUE_TO]->(c) SET r = $p", p=saved["p"])
    assert ask(viral, otitis).refused


def test_the_antihypertensive_class_statement_refuses_them_beside_a_stroke(
    derived: Derived, verifier: Verifier
) -> None:
    """Every US antihypertensive label says that lowering blood pressure reduces strokes and
    myocardial infarctions (``label_knowledge.MAY_PREVENT``): amlodipine and verapamil are
    no wrong option beside alteplase for a stroke (a clinician could defend them as
    secondary prevention); without amlodipine's row, it was one."""
    graph = derived.graph
    stroke = "SNOMEDCT:230690007"
    alteplase, amlodipine, verapamil = (
        value(graph, "MATCH (:RXNORM {id: $r})-[:MAPS_TO]-(c:UMLS) RETURN DISTINCT c.id", r=r)
        for r in ("RXNORM:8410", "RXNORM:17767", "RXNORM:11170")
    )

    def ask(drug: str) -> Outcome:
        request = Request(Task.TREATMENT, stroke, alteplase, [(stroke, "treats")], [], [drug])
        return _judge(derived, verifier, request)

    for drug in (amlodipine, verapamil):
        assert "near the item's" in str(ask(drug).refused)
    driver = graph._driver
    edge = "MATCH (d:Concept {id: $d}), (s:Concept {id: 'UMLS:C0038454'}) "
    [saved] = driver.execute_query(
        edge + "MATCH (d)-[r:MAY_PREVENT]->(s) WITH r, properties(r) AS p DELETE r RETURN p",
        d=amlodipine,
    ).records
    try:
        admitted = ask(amlodipine)
        assert admitted.admissible, admitted.refused
    finally:
        driver.execute_query(
            edge + "CREATE (d)-[r:MAY_PREVENT]->(s) SET r = $p", d=amlodipine, p=saved["p"]
        )


def test_labelled_contraindications_make_patient_specific_lures(
    derived: Derived, verifier: Verifier
) -> None:
    """The sample's labelled contraindications (kgverify/sample/_generator/label_knowledge.py)
    on the real graph: celecoxib for osteoarthritis is a patient-specific lure for a patient
    the question shows with coronary arteriosclerosis (its contraindication sits on the
    ancestor, ischaemic heart disease) or ulcerative colitis (on inflammatory bowel disease),
    citing that edge and the record fact; shown acute bronchitis rules nothing out, and
    naproxen, with no such contraindication, is no patient-specific lure for either."""

    def shown(concept: str, text: str) -> ContextFact:
        return ContextFact(fact_id=f"planted-{text}", role="history", text=text, concept_id=concept)

    cases = {
        # shown condition -> (its text, the UMLS concept of the ancestor the label names)
        "SNOMEDCT:53741008": ("Coronary arteriosclerosis", "UMLS:C0151744"),
        "SNOMEDCT:64766004": ("Ulcerative colitis", "UMLS:C0021390"),
    }
    for concept, (text, edge_end) in cases.items():
        request = Request(
            Task.TREATMENT, OSTEOARTHRITIS, NAPROXEN, [(OSTEOARTHRITIS, "treats")], [], [CELECOXIB]
        )
        request.shown = [shown(concept, text)]
        lure = _judge(derived, verifier, request)
        assert lure.admissible and lure.lure == "patient_specific", lure.refused
        (just,) = lure.justifications
        assert just.rule == "treatment.contraindicated_for_patient"
        assert just.set_of("record_facts") == [f"planted-{text}"]
        cited = [e for e in just.edges if e.type == "CONTRAINDICATED_FOR"]
        assert cited and all(e.source == "MED-RT" for e in cited)
        assert just.set_of("contraindicated_for") == [edge_end] and text in just.reason
        # The answer's own check: naproxen carries no such contraindication.
        answer = Request(
            Task.TREATMENT, OSTEOARTHRITIS, CELECOXIB, [(OSTEOARTHRITIS, "treats")], [], [NAPROXEN]
        )
        answer.shown = [shown(concept, text)]
        assert _judge(derived, verifier, answer).lure != "patient_specific"
    counter = Request(
        Task.TREATMENT, OSTEOARTHRITIS, NAPROXEN, [(OSTEOARTHRITIS, "treats")], [], [CELECOXIB]
    )
    counter.shown = [shown("SNOMEDCT:10509002", "Acute bronchitis")]
    refused = _judge(derived, verifier, counter)
    assert not refused.admissible and "near the item's" in str(refused.refused)


def _same(a: Outcome, b: Outcome) -> bool:
    def seen(o: Outcome) -> tuple[Any, ...]:
        built = [j.model_dump() for j in o.justifications] if o.admissible else []
        return (o.refused, o.lure, o.distance, o.closeness, o.kin, o.ruled_by, built)

    return seen(a) == seen(b)


def test_one_justifier_judges_each_patient_as_a_fresh_one_would(
    derived: Derived, verifier: Verifier
) -> None:
    """A Justifier keeps what it judged whoever the patient is, per (task, condition,
    answer) or (task, answer, clues), across its calls: what depends on the patient (the
    conditions the question shows, those on record) is judged anew. On the real sample
    graph, requests alike but for the patient, in turn, each against a fresh Justifier."""
    graph = derived.graph

    def shown(fact_id: str) -> list[ContextFact]:
        fact = ContextFact(
            fact_id=fact_id, role="history", text="Peptic ulcer", concept_id=PEPTIC_ULCER
        )
        return [fact]

    def treatment(facts: list[ContextFact]) -> Request:
        r = Request(
            Task.TREATMENT, OSTEOARTHRITIS, CELECOXIB, [(OSTEOARTHRITIS, "treats")], [], [NAPROXEN]
        )
        r.shown = facts
        return r

    penicillin_v = value(graph, "MATCH (c:UMLS {name: 'Penicillin V'}) RETURN c.id")
    strep, viral = "SNOMEDCT:43878008", "SNOMEDCT:195662009"
    parent = value(  # pharyngitis: the patient has it on record, the viral kind is a kind of it
        graph,
        "MATCH (:Concept {id: $c})-[:IS_A]->(p:SNOMEDCT {name: 'Pharyngitis'}) RETURN p.id",
        c=viral,
    )

    def diagnosis(conditions: list[str]) -> Request:
        return Request(
            Task.DIAGNOSIS, strep, strep, [(penicillin_v, "treats")], conditions, [viral]
        )

    asked = [
        treatment([]),
        treatment(shown("fact-one")),
        treatment([]),
        treatment(shown("fact-two")),
        diagnosis([]),
        diagnosis([parent]),
        diagnosis([]),
    ]
    kept = Justifier(
        graph,
        verifier.hubs,
        derived.settings.derive_near_depth,
        derived.settings.derive_drug_near_depth,
    )
    got = [outcome for r in asked for outcome in kept.judge([r])[0].values()]
    fresh = [_judge(derived, verifier, r) for r in asked]
    assert all(_same(a, b) for a, b in zip(got, fresh, strict=True))
    # The patient-dependent parts did change between the requests.
    assert [o.lure == "patient_specific" for o in got[:4]] == [False, True, False, True]
    facts = [got[i].justifications[0].set_of("record_facts") for i in (1, 3)]
    assert facts == [["fact-one"], ["fact-two"]]
    assert [o.admissible for o in got[4:]] == [True, False, True]
    assert got[5].refused == "a kind of a condition the patient has"


def test_records_read_to_count_agree_with_whole_ones(derived: Derived) -> None:
    """Derivation reads whole only the assertions it may rest on (passed, judged true by a
    reviewer, or of the verdicts asked for): the rest come with what counting them needs,
    the same verdict, passed flag, scores and review as read whole."""
    from kgverify.derive.records import RecordReader

    graph, roots = derived.graph, derived.settings.facts_allergy_roots
    ids = [i for page in patient_pages(graph, 1_000) for i in page]
    whole = RecordReader(graph, allergy_roots=roots).read(ids)
    slim = RecordReader(graph, allergy_roots=roots, whole=["contradicted"]).read(ids)
    assert [r.facts for r in slim] == [r.facts for r in whole]
    pairs = [
        (a, b)
        for r, s in zip(whole, slim, strict=True)
        for a, b in zip(r.assertions, s.assertions, strict=True)
    ]
    assert all(a.whole for a, _ in pairs)
    assert any(not b.whole for _, b in pairs) and any(b.whole for _, b in pairs)
    for a, b in pairs:
        counted = ("id", "verdict", "passed", "score", "confidence", "review", "review_id")
        assert [getattr(a, k) for k in counted] == [getattr(b, k) for k in counted]
        assert b.whole or not (a.passed or a.verdict == "contradicted")
        if b.whole:
            assert b == a
        else:
            assert b.facts == () and b.predicate == "" and b.subject_id is None


def test_an_anti_infective_started_rules_out_a_cause_of_another_kind(
    derived: Derived, verifier: Verifier
) -> None:
    """Diagnosis, on the real sample graph: penicillin V started points near acute viral
    pharyngitis (both are pharyngitis), yet its cause is a virus and penicillin V is an
    antibacterial (ATC J01): a same-system lure with that positive reason, citing the
    causative-agent edge. Counter-cases: a cause of the drug's own kind (streptococcal sore
    throat, Streptococcus pyogenes) stays refused; so does the viral cause when a clue that
    acts on no one kind of organism points near it too (a finding of pharyngitis planted
    beside the drug); and a near condition with no causative agent (sinusitis) stays refused."""
    graph = derived.graph
    penicillin_v = value(graph, "MATCH (c:UMLS {name: 'Penicillin V'}) RETURN c.id")
    strep, viral = "SNOMEDCT:43878008", "SNOMEDCT:195662009"
    otitis = "SNOMEDCT:65363002"

    def ask(answer: str, candidate: str, clues: list[tuple[str, str]]) -> Outcome:
        return _judge(
            derived, verifier, Request(Task.DIAGNOSIS, answer, answer, clues, [], [candidate])
        )

    started = [(penicillin_v, "treats")]
    lure = ask(strep, viral, started)
    assert lure.admissible and lure.lure == "same_system", lure.refused
    (just,) = lure.justifications
    assert just.rule == "diagnosis.agent_mismatch"
    assert just.set_of("atc_groups") == ["ATC:J01"]
    assert just.set_of("clues") == [penicillin_v]
    assert {e.type for e in just.edges} == {"CAUSATIVE_AGENT"}
    assert all(e.source and e.release for e in just.edges)
    assert "antibacterials" in just.reason and "Acute viral pharyngitis" in just.reason

    # A bacterial cause: the antibacterial may well have been started for it.
    refused = ask(otitis, strep, started)
    assert refused.refused == "a clue points near it (diagnosis.clues_elsewhere)"
    # A near condition the vocabularies give no agent: nothing to compare, refused.
    sinusitis = value(graph, "MATCH (c:SNOMEDCT {name: 'Sinusitis'}) RETURN c.id")
    assert ask(
        otitis,
        sinusitis,
        [(value(graph, "MATCH (c:UMLS {name: 'Amoxicillin'}) RETURN c.id"), "treats")],
    ).refused
    # A second clue, a finding that the viral pharyngitis manifests, points near it too.
    manifestation = value(
        graph,
        "MATCH (:Concept {id: $c})-[:MAPS_TO*0..1]-(:Concept)-[:HAS_MANIFESTATION]->(f:Concept) "
        "RETURN f.id ORDER BY f.id LIMIT 1",
        c=viral,
    )
    assert manifestation, "the sample gives acute viral pharyngitis a manifestation"
    both = ask(strep, viral, [*started, (manifestation, "indicates")])
    assert both.refused == "a clue points near it (diagnosis.clues_elsewhere)"


def test_a_derivation_killed_before_or_after_publishing_leaves_one_set_current(
    derived: Derived, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35: a `derive qa` killed between writing its items and retiring the old ones
    left both sets current. Now the run's items are written pending and published in one
    transaction just before the folder is renamed; the kill is simulated at the publish
    step, before and after it commits."""
    graph, out = derived.graph, tmp_path / "qa"
    other = derived.settings.model_copy(update={"derive_seed": 99})

    def current() -> set[str]:
        return {r["id"] for r in rows(graph, "MATCH (i:Item) WHERE i.current RETURN i.id AS id")}

    def in_folder() -> set[str]:
        return {i.item_id for i in read_items(out)}

    def pending() -> int:
        return int(value(graph, "MATCH (i:Item) WHERE i.pending_run IS NOT NULL RETURN count(i)"))

    def killed_before(graph: Graph, tasks: set[Task], run: str) -> int:
        raise KeyboardInterrupt

    def killed_after(graph: Graph, tasks: set[Task], run: str) -> int:
        publish_items(graph, tasks, run)
        raise KeyboardInterrupt

    report = derive_qa(out, settings=derived.settings, graph=graph)
    old = current()
    assert report.not_written == 0 and old == in_folder() and old

    # Killed after writing every item of the other seed, before publishing them.
    monkeypatch.setattr(derive_run, "publish_items", killed_before)
    with pytest.raises(KeyboardInterrupt):
        derive_qa(out, settings=other, graph=graph)
    monkeypatch.undo()
    assert current() == old
    assert pending() > 0  # written, not current
    assert not out.exists() or in_folder() == old
    assert not out.with_name("qa.partial").exists()

    # The rerun clears what the killed run left and publishes exactly the new set.
    report = derive_qa(out, settings=other, graph=graph)
    new = current()
    assert new != old and new == in_folder() and report.not_written == 0
    assert pending() == 0
    assert value(graph, "MATCH (i:Item) WHERE i.run IS NULL RETURN count(i)") == 0
    assert sum(sum(s.values()) for s in report.items.values()) == len(new)

    # Killed after publishing, before the folder is renamed: the graph holds the old seed's
    # items again, and no folder claims the new ones.
    monkeypatch.setattr(derive_run, "publish_items", killed_after)
    with pytest.raises(KeyboardInterrupt):
        derive_qa(out, settings=derived.settings, graph=graph)
    monkeypatch.undo()
    assert current() == old and pending() == 0
    assert not out.exists()
    assert {i.item_id for i in read_items(out.with_name("qa.previous"))} == new

    derive_qa(out, settings=derived.settings, graph=graph)
    assert current() == old == in_folder() and pending() == 0
    assert not out.with_name("qa.previous").exists()
