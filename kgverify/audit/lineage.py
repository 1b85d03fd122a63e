"""An item's lineage as one model: item -> assertions -> evidence paths -> concepts -> source
rows and extractor, read by the ``item_lineage`` audit query (so the command line, the PROV
export and the notebooks all see the same thing), and its evidence subgraph for drawing.

    lineage = item_lineage(graph, "8fa4f73c707f9c1d1d75")
    lineage.assertions[0].evidence[0].edges
    g = evidence_graph(lineage)   # networkx.DiGraph, nodes tagged with a "kind"
"""

from __future__ import annotations

import json
from typing import Any

import networkx as nx
from pydantic import BaseModel, Field

from kgverify.audit.catalog import run_audit
from kgverify.derive.model import DistractorWhy
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph
from kgverify.verify.model import EvidencePath


class LineageConcept(BaseModel):
    id: str
    name: str | None = None
    vocab: str | None = None


class LineageOption(BaseModel):
    label: str
    id: str
    name: str | None = None


class LineageFact(BaseModel):
    """A patient fact as ingested: the source table and row it came from."""

    id: str
    table: str | None = None
    row: str | None = None
    code: str | None = None
    display: str | None = None


class LineageRecheck(BaseModel):
    """The latest re-check of an assertion after a newer release (``kgverify reverify``)."""

    id: str
    verdict: str
    passed: bool
    reason: str
    run: str
    checked_at: str | None = None


class LineageAssertion(BaseModel):
    """One extracted relation the item rests on, as verified."""

    id: str
    relation_id: str | None = Field(
        default=None, description="the relation's id in the verified input (verdicts JSONL)"
    )
    predicate: str
    subject_text: str | None = None
    object_text: str | None = None
    subject: str | None = None
    object: str | None = None
    verdict: str
    standing_verdict: str
    rule: str | None = None
    extractor: str | None = None
    confidence: float | None = None
    verified_at: str | None = None
    evidence: list[EvidencePath] = Field(default_factory=list)
    evidence_concepts: list[LineageConcept] = Field(default_factory=list)
    facts: list[LineageFact] = Field(default_factory=list)
    recheck: LineageRecheck | None = None


class Lineage(BaseModel):
    """Why an item exists, and why each other option is wrong."""

    item: str
    task: str
    topic: str | None = None
    content_key: str | None = None
    why_wrong: list[DistractorWhy] = Field(default_factory=list)
    difficulty: float | None = None
    releases: list[str] = Field(default_factory=list)
    policy: str | None = None
    question: str
    answer: str
    answer_concept: str
    answer_name: str | None = None
    distractors: list[LineageOption] = Field(default_factory=list)
    current: bool
    standing: bool
    flags: list[str] = Field(default_factory=list)
    patient: str
    template: str | None = None
    assertions: list[LineageAssertion]


_ITEM_FIELDS = set(Lineage.model_fields) - {"assertions"}
_RENAMED = {"assertion": "id"}


def item_lineage(graph: Graph, item_id: str) -> Lineage:
    """The lineage of one item (ConfigError when the graph holds no such item)."""
    rows = run_audit(graph, "item_lineage", item=item_id)
    if not rows:
        raise ConfigError(f"no item {item_id!r} in the graph (run `kgverify derive qa` first)")
    return lineage_from_rows(rows)


def lineage_from_rows(rows: list[dict[str, Any]]) -> Lineage:
    """Build the model from ``item_lineage`` rows (one per assertion)."""
    first = dict(rows[0])
    first["why_wrong"] = json.loads(first["why_wrong"] or "[]")
    assertions = []
    for row in rows:
        fields = {
            _RENAMED.get(k, k): v
            for k, v in row.items()
            if k not in _ITEM_FIELDS and k != "evidence"
        }
        fields["evidence"] = [EvidencePath.model_validate_json(p) for p in row["evidence"] or []]
        fields["facts"] = [{k: _text(v) for k, v in f.items()} for f in row["facts"]]
        assertions.append(LineageAssertion.model_validate(fields))
    return Lineage.model_validate({**{k: first[k] for k in _ITEM_FIELDS}, "assertions": assertions})


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def evidence_graph(lineage: Lineage) -> nx.DiGraph[str]:
    """The item's evidence subgraph: the item, its assertions, the vocabulary concepts on
    their evidence paths with the paths' edges (typed), the answer and the distractors.
    Node attribute ``kind``: item, assertion, concept, answer, distractor; edge attribute
    ``type``: the relationship type, or RESTS_ON / SUBJECT / OBJECT / ANSWER / DISTRACTOR.
    The vocabulary edges that justify the distractors are drawn too (``rule``: the
    justification rule)."""
    g: nx.DiGraph[str] = nx.DiGraph()
    names: dict[str, str | None] = {}
    for a in lineage.assertions:
        names.update({c.id: c.name for c in a.evidence_concepts})
    g.add_node(lineage.item, kind="item", label=f"{lineage.task} item")
    g.add_node(lineage.answer_concept, kind="answer", label=lineage.answer_name or "")
    g.add_edge(lineage.item, lineage.answer_concept, type="ANSWER")
    for d in lineage.distractors:
        g.add_node(d.id, kind="distractor", label=d.name or d.id)
        g.add_edge(lineage.item, d.id, type="DISTRACTOR")
    for why in lineage.why_wrong:
        for j in why.justifications:
            for cited in j.edges:
                for end, name in ((cited.start, cited.start_name), (cited.end, cited.end_name)):
                    if end not in g:
                        g.add_node(end, kind="concept", label=name or end)
                g.add_edge(
                    cited.start, cited.end, type=cited.type, rule=j.rule, source=cited.source or ""
                )
    for a in lineage.assertions:
        g.add_node(a.id, kind="assertion", label=f"{a.predicate}: {a.standing_verdict}")
        g.add_edge(lineage.item, a.id, type="RESTS_ON")
        for role, concept in (("SUBJECT", a.subject), ("OBJECT", a.object)):
            if concept is not None:
                if concept not in g:
                    g.add_node(concept, kind="concept", label=names.get(concept) or concept)
                g.add_edge(a.id, concept, type=role)
        for path in a.evidence:
            for e in path.edges:
                for end in (e.start, e.end):
                    if end not in g:
                        g.add_node(end, kind="concept", label=names.get(end) or end)
                g.add_edge(e.start, e.end, type=e.type, rule=path.rule)
    return g
