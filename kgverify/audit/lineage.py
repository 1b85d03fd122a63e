"""An item's lineage as one model: item -> assertions -> evidence paths -> concepts -> source
rows and extractor, read by the ``item_lineage`` audit query (so the command line, the PROV
export and the notebooks all see the same thing), and its evidence subgraph for drawing.

    lineage = item_lineage(graph, "8fa4f73c707f9c1d1d75")
    lineage.assertions[0].evidence[0].edges
    lineage.assertions[0].readable_paths()   # ["Diclofenac -[MAY_TREAT, MED-RT, ...]-> ..."]
    g = evidence_graph(lineage)   # networkx.DiGraph, nodes tagged with a "kind"
    write_graphml(g, "item.graphml")
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx
from pydantic import BaseModel, Field

from kgverify.audit.catalog import run_audit
from kgverify.derive.model import DistractorCheck, DistractorWhy, Option
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph
from kgverify.outputs import private_file
from kgverify.verify.assertion import LineageAssertion as LineageAssertion
from kgverify.verify.assertion import LineageConcept as LineageConcept
from kgverify.verify.assertion import LineageEdge as LineageEdge
from kgverify.verify.assertion import LineageFact as LineageFact
from kgverify.verify.assertion import LineageRecheck as LineageRecheck
from kgverify.verify.model import EvidencePath


class LineageOption(BaseModel):
    label: str
    id: str
    name: str | None = None


class Lineage(BaseModel):
    """Why an item exists, and why each other option is wrong."""

    item: str
    task: str
    topic: str | None = None
    content_key: str | None = None
    why_wrong: list[DistractorWhy] = Field(default_factory=list)
    options: list[Option] = Field(default_factory=list)
    checks: list[DistractorCheck] = Field(
        default_factory=list, description="the rule checks every distractor failed"
    )
    fact_concepts: list[LineageConcept] = Field(
        default_factory=list, description="the concepts of the patient facts the item shows"
    )

    def concept_names(self) -> dict[str, str]:
        """Every concept name the lineage knows, by id."""
        names = {c.id: c.name for c in self.fact_concepts if c.name}
        for a in self.assertions:
            names.update({c.id: c.name for c in a.evidence_concepts if c.name})
            for concept, name in ((a.subject, a.subject_name), (a.object, a.object_name)):
                if concept and name:
                    names[concept] = name
        names.update({o.id: o.name for o in self.distractors if o.name})
        if self.answer_name:
            names[self.answer_concept] = self.answer_name
        return names

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
    rows = run_audit(graph, "item_lineage", item=item_id)  # "no such item: X" when unknown
    if not rows:
        raise ConfigError(f"item {item_id} rests on no assertion in the graph")
    return lineage_from_rows(rows)


def lineage_from_rows(rows: list[dict[str, Any]]) -> Lineage:
    """Build the model from ``item_lineage`` rows (one per assertion)."""
    first = dict(rows[0])
    for key in ("why_wrong", "options", "checks"):
        first[key] = json.loads(first.get(key) or "[]")
    assertions = []
    for row in rows:
        fields = {
            _RENAMED.get(k, k): v
            for k, v in row.items()
            if k not in _ITEM_FIELDS and k not in ("evidence", "facts")
        }
        fields["evidence"] = [EvidencePath.model_validate_json(p) for p in row["evidence"] or []]
        fields["facts"] = [{k: _text(v) for k, v in f.items()} for f in row["facts"]]
        fields["evidence_edges"] = row.get("evidence_edges") or []
        assertions.append(LineageAssertion.model_validate(fields))
    return Lineage.model_validate({**{k: first[k] for k in _ITEM_FIELDS}, "assertions": assertions})


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def write_graphml(g: nx.DiGraph[str], path: str | Path) -> None:
    """The evidence subgraph as GraphML (every attribute a string, number or boolean; a
    missing value an empty string), written whole or not at all."""
    safe: nx.DiGraph[str] = nx.DiGraph()
    for node, attrs in g.nodes(data=True):
        safe.add_node(node, **{k: _graphml_value(v) for k, v in attrs.items()})
    for a, b, attrs in g.edges(data=True):
        safe.add_edge(a, b, **{k: _graphml_value(v) for k, v in attrs.items()})
    out = Path(path)
    partial = private_file(out.with_name(out.name + ".partial"))
    nx.write_graphml(safe, partial)
    partial.replace(out)


def _graphml_value(value: Any) -> str | int | float | bool:
    if isinstance(value, bool | int | float | str):
        return value
    if value is None:
        return ""
    if isinstance(value, list | tuple | set):
        return "; ".join(str(v) for v in value)
    return str(value)


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
                    cited.start,
                    cited.end,
                    type=cited.type,
                    rule=j.rule,
                    source=cited.source or "",
                    release=cited.release or "",
                )
    g.nodes[lineage.item]["question"] = lineage.question
    g.nodes[lineage.item]["answer"] = lineage.answer
    for a in lineage.assertions:
        g.add_node(
            a.id,
            kind="assertion",
            label=f"{a.subject_text} {a.predicate} {a.object_text}: {a.standing_verdict}",
            verdict=a.standing_verdict,
            rule=a.rule or "",
            extractor=a.extractor or "",
        )
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
                sources = a.edge_sources(e)
                g.add_edge(
                    e.start,
                    e.end,
                    type=e.type,
                    rule=path.rule,
                    source="; ".join(s.sab or "" for s in sources),
                    release="; ".join(s.release or "" for s in sources),
                    label=a.readable_path(path),
                )
    return g
