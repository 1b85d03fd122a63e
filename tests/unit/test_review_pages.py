"""Review pages without a graph: a page reads top-down in sentences (patient, question,
options labelled once, the answer and the relation it rests on with its sources, why each
distractor is wrong) with the paths, rules and ids behind folds; everything from the item,
the graph or the record is escaped (a question holding ``<script>`` stays text), pages are
self-contained, edges are drawn with names, source and release, and the sample is a seeded
order per task."""

from __future__ import annotations

import re
from typing import Any

import pytest

from kgverify.audit.lineage import Lineage
from kgverify.derive.model import LURES, DistractorWhy, QAItem
from kgverify.review.export import pick, sheet_rows
from kgverify.review.pages import DrawnEdge, EdgeSource, index_page, item_page, page_name
from kgverify.review.words import relation_label, why_wrong_sentence

EVIL = '<script>alert("x")</script>'


def make_item(item_id: str = "abc123", task: str = "treatment", **over: Any) -> QAItem:
    data: dict[str, Any] = {
        "item_id": item_id,
        "task": task,
        "split": "train",
        "patient_id": "p1",
        "episode": "e1",
        "question": f"A 40-49 year old woman {EVIL} has osteoarthritis. Which drug?",
        "context": [
            {
                "fact_id": "omop:f1",
                "role": "condition",
                "text": "Osteoarthritis <b>knee</b>",
                "concept_id": "UMLS:C0029408",
                "start": "2020-01-02",
            }
        ],
        "options": [
            {"label": "A", "concept_id": "UMLS:C0012091", "text": "Diclofenac"},
            {"label": "B", "concept_id": "UMLS:C0032952", "text": 'Pred"nisone<'},
        ],
        "answer": "A",
        "answer_concept": "UMLS:C0012091",
        "basis": ["as1"],
        "rules": ["direct.support@abc"],
        "checks": [],
        "template": "treatment@1234",
        "seed": 13,
        "topic": "UMLS:C0029408",
        "content_key": "ck",
        "content_group": "cg",
        "why_wrong": [
            {
                "label": "B",
                "concept_id": "UMLS:C0032952",
                "text": 'Pred"nisone<',
                "distance": 2,
                "justifications": [
                    {
                        "rule": "treatment.indications_elsewhere",
                        "version": "v1",
                        "reason": "it treats <asthma>, not osteoarthritis",
                        "edges": [
                            {
                                "start": "UMLS:C0032952",
                                "start_name": "Prednisone",
                                "type": "MAY_TREAT",
                                "end": "UMLS:C0004096",
                                "end_name": "Asthma",
                                "source": "MED-RT",
                                "release": "UMLS@2025AA",
                            }
                        ],
                        "sets": [{"name": "indications", "ids": ["UMLS:C0004096"]}],
                    }
                ],
            }
        ],
        "difficulty": 2.0,
        "releases": ["UMLS@2025AA"],
        "policy": "default@ff",
    }
    data.update(over)
    return QAItem.model_validate(data)


def make_lineage(item: QAItem) -> Lineage:
    path = {
        "rule": "direct.support",
        "rule_version": "abc",
        "stance": "support",
        "score": 1.0,
        "nodes": ["UMLS:C0012091", "UMLS:C0029408"],
        "edges": [{"start": "UMLS:C0012091", "type": "MAY_TREAT", "end": "UMLS:C0029408"}],
        "depth": 0,
    }
    return Lineage.model_validate(
        {
            "item": item.item_id,
            "task": item.task.value,
            "question": item.question,
            "answer": item.answer,
            "answer_concept": item.answer_concept,
            "answer_name": "Diclofenac",
            "distractors": [{"label": "B", "id": "UMLS:C0032952", "name": "Prednisone"}],
            "current": True,
            "standing": False,
            "flags": ["review: a reviewer said <no>"],
            "patient": item.patient_id,
            "template": item.template,
            "assertions": [
                {
                    "id": "as1",
                    "predicate": "treats",
                    "subject_text": "diclofenac <gel>",
                    "object_text": "OA",
                    "subject": "UMLS:C0012091",
                    "object": "UMLS:C0029408",
                    "verdict": "supported",
                    "standing_verdict": "supported",
                    "rule": "direct.support@abc",
                    "extractor": "template@0.1.0",
                    "confidence": 1.0,
                    "evidence": [path],
                    "evidence_edges": [
                        {
                            "start": "UMLS:C0012091",
                            "type": "MAY_TREAT",
                            "end": "UMLS:C0029408",
                            "sab": "MED-RT",
                            "release": "UMLS@2025AA",
                        }
                    ],
                    "evidence_concepts": [
                        {"id": "UMLS:C0012091", "name": "Diclofenac"},
                        {"id": "UMLS:C0029408", "name": "Osteoarthritis"},
                    ],
                    "facts": [{"id": "omop:f1", "table": "condition_occurrence", "row": "17"}],
                }
            ],
        }
    )


EDGES = {
    ("UMLS:C0012091", "MAY_TREAT", "UMLS:C0029408"): DrawnEdge(
        start="UMLS:C0012091",
        type="MAY_TREAT",
        end="UMLS:C0029408",
        start_name="Diclofenac",
        end_name="Osteoarthritis",
        sources=[EdgeSource(sab="MED-RT", first_release="UMLS@2025AA", release="UMLS@2025AA")],
    )
}


def test_a_question_holding_a_script_tag_stays_text() -> None:
    item = make_item()
    page = item_page(item, make_lineage(item), EDGES)
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    for raw in ("<b>knee</b>", 'Pred"nisone<', "<asthma>", "<gel>", "<no>"):
        assert raw not in page, raw
    assert "Pred&quot;nisone&lt;" in page and "&lt;asthma&gt;" in page


def test_a_page_is_self_contained() -> None:
    item = make_item()
    page = item_page(item, make_lineage(item), EDGES)
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page
    assert not re.search(r"(src|href)=\"(https?:|//)", page)
    assert re.findall(r'href="([^"]*)"', page) == ["../index.html"]
    assert "<link" not in page and "@import" not in page and "url(" not in page


def test_evidence_is_drawn_with_names_source_and_release() -> None:
    item = make_item()
    page = item_page(item, make_lineage(item), EDGES)
    text = re.sub(r"<[^>]+>", "", page)
    assert (
        "Diclofenac UMLS:C0012091 -[MAY_TREAT, MED-RT, UMLS@2025AA]-&gt; "
        "Osteoarthritis UMLS:C0029408"
    ) in text
    assert (
        "Prednisone UMLS:C0032952 -[MAY_TREAT, MED-RT, UMLS@2025AA]-&gt; Asthma UMLS:C0004096"
    ) in text
    assert "✓ the answer" in page.replace("&#10003;", "✓")
    assert "condition_occurrence" in page and "treatment.indications_elsewhere@v1" in page
    assert "UMLS@2025AA" in text and "default@ff" in text and "ck" in text
    # An edge of the path the graph did not answer for still shows, marked.
    page = item_page(item, make_lineage(item), {})
    assert "source not read" in page


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#10003;", "✓")


def _outside_folds(page: str) -> str:
    return re.sub(r"<details>.*?</details>", "", page, flags=re.S)


def test_a_page_reads_top_down_in_sentences() -> None:
    item = make_item(question="Which drug for the osteoarthritis?")
    page = item_page(item, make_lineage(item), EDGES, {"UMLS:C0029408": "Osteoarthritis"}, row=5)
    heads = re.findall(r"<h2>([^<]+)</h2>", page)
    assert heads == [
        "Patient",
        "Question",
        "Options",
        "Answer",
        "Why the other options are wrong",
        "Your decision",
    ]
    seen = _text(_outside_folds(page))
    assert "Condition: Osteoarthritis &lt;b&gt;knee&lt;/b&gt;, recorded 2020-01-02" in seen
    # Each option labelled once: no list marker beside the label ("A. A. Diclofenac").
    assert '<ul class="options">' in page and "<ol" not in _outside_folds(page)
    assert re.search(r"\b([A-D])\. \1\.", seen) is None
    assert "A. Diclofenac ✓ the answer" in seen and "B. Pred&quot;nisone&lt;" in seen
    assert "The answer is A. Diclofenac ." in seen
    assert "Because: Diclofenac may treat Osteoarthritis (MED-RT, UMLS 2025AA)." in seen
    assert (
        "Why B is wrong: Pred&quot;nisone&lt; is used for other conditions, not Osteoarthritis."
    ) in seen
    assert "In the vocabularies: it treats &lt;asthma&gt;, not osteoarthritis." in seen
    assert "row 5 is this item" in seen
    assert "row 6: Diclofenac — may treat — Osteoarthritis" in seen
    # Rules, versions, paths, edges and ids are there for engineers, behind the folds.
    for detail in (
        "treatment.indications_elsewhere@v1",
        "direct.support@abc",
        "-[MAY_TREAT",
        "UMLS:C0032952",
        "as1",
        "condition_occurrence",
        "default@ff",
    ):
        assert detail in page and detail not in _outside_folds(page), detail
    assert page.count("<details>") == 3  # the answer's path, one distractor, the record


@pytest.mark.parametrize(
    ("lure", "rule", "sentence"),
    [
        (
            "same_area",
            "treatment.indications_elsewhere",
            "Prednisone is in the same drug group as Diclofenac, but it is used for other "
            "conditions, not Osteoarthritis.",
        ),
        (
            "other_area",
            "treatment.indications_elsewhere",
            "Prednisone is used for other conditions, not Osteoarthritis.",
        ),
        (
            "patient_specific",
            "treatment.contraindicated_for_patient",
            "Prednisone can treat Osteoarthritis, but something the question shows about this "
            "patient rules it out.",
        ),
        (
            "other_area",
            "treatment.contraindicated",
            "Prednisone should not be given for Osteoarthritis: it is contraindicated for it or a "
            "condition close to it.",
        ),
        (
            "same_system",
            "diagnosis.clues_elsewhere",
            "Prednisone belongs to the same body system as Diclofenac, but nothing the question "
            "shows points to it.",
        ),
        (
            "other_system",
            "diagnosis.clues_elsewhere",
            "Prednisone belongs to another body system, and nothing the question shows points to "
            "it.",
        ),
    ],
)
def test_why_a_distractor_is_wrong_is_one_plain_sentence(
    lure: str, rule: str, sentence: str
) -> None:
    item = make_item()
    why = DistractorWhy.model_validate(
        item.why_wrong[0].model_dump()
        | {"text": "Prednisone", "lure": lure}
        | {"justifications": [{"rule": rule, "version": "v1", "reason": "r"}]}
    )
    assert lure in LURES
    assert why_wrong_sentence(item, why, {"UMLS:C0029408": "Osteoarthritis"}) == sentence


def test_the_sheet_names_each_relation_beside_its_id() -> None:
    item = make_item()
    assert relation_label("Penicillin V", "treats", "Streptococcal sore throat") == (
        "Penicillin V — may treat — Streptococcal sore throat"
    )
    rows = sheet_rows(item, make_lineage(item))
    assert [(r["item_id"], r["relation"], r["assertion_id"]) for r in rows] == [
        ("abc123", "", ""),
        ("abc123", "Diclofenac — may treat — Osteoarthritis", "as1"),
    ]
    assert rows[0]["answer_text"] == "A. Diclofenac" and rows[1]["question"] == ""


def test_the_index_links_every_page_and_escapes_too() -> None:
    items = [make_item("a1"), make_item("b/2", question="Q <i>")]
    index = index_page(items)
    assert 'href="items/a1.html"' in index and 'href="items/b_2.html"' in index
    assert "<i>" not in index and "Q &lt;i&gt;" in index
    assert page_name("../x") == "_x.html"


def test_the_sample_is_a_seeded_order_per_task() -> None:
    items = [make_item(f"t{n}") for n in range(10)] + [
        make_item(f"d{n}", task="diagnosis") for n in range(5)
    ]
    chosen = pick(items, 3, seed=13)
    assert [i.task.value for i in chosen] == ["diagnosis"] * 3 + ["treatment"] * 3
    assert [i.item_id for i in pick(list(reversed(items)), 3, seed=13)] == [
        i.item_id for i in chosen
    ]
    assert [i.item_id for i in pick(items, 3, seed=14)] != [i.item_id for i in chosen]
    assert len(pick(items, None, seed=13)) == 15
