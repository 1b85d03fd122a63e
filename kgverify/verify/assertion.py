"""A verified assertion as the graph keeps it, for people to read: the relation, its
verdict and standing verdict, its evidence paths with the names of their concepts and the
source and release of each edge, the patient facts it came from, and its latest re-check.

An item's lineage (:mod:`kgverify.audit.lineage`) is a list of these; an ad-hoc question
(:mod:`kgverify.verify.check`) reads its paths in words through the same model.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from kgverify.verify.model import Edge, EvidencePath


class LineageConcept(BaseModel):
    id: str
    name: str | None = None
    vocab: str | None = None


class LineageFact(BaseModel):
    """A patient fact as ingested: the source table and row it came from."""

    id: str
    table: str | None = None
    row: str | None = None
    code: str | None = None
    display: str | None = None
    kind: str | None = None
    start: str | None = None
    value: str | None = None
    unit: str | None = None


class LineageEdge(BaseModel):
    """A vocabulary relationship on an evidence path, with what asserts it: the source
    (``sab``, e.g. MED-RT) inside the vocabulary (``vocab``) and the release that loaded it."""

    start: str
    start_name: str | None = None
    type: str
    end: str
    end_name: str | None = None
    sab: str | None = None
    vocab: str | None = None
    release: str | None = None
    active: bool | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return self.start, self.type, self.end

    def source_label(self) -> str:
        """ "MED-RT, UMLS 2025AA": the source, then the release (``@`` read as a space)."""
        parts = [p for p in (self.sab, (self.release or "").replace("@", " ")) if p]
        return ", ".join(parts) + ("" if self.active is not False else ", retired")

    def label(self) -> str:
        """ "Dornase Alfa MAY_TREAT Cystic Fibrosis according to MED-RT in UMLS@2025AA"."""
        text = f"{self.start_name or self.start} {self.type} {self.end_name or self.end}"
        if self.sab:
            text += f" according to {self.sab}"
        if self.release:
            text += f" in {self.release}"
        return text


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
    subject_name: str | None = None
    object: str | None = None
    object_name: str | None = None
    verdict: str
    standing_verdict: str
    rule: str | None = None
    extractor: str | None = None
    confidence: float | None = None
    verified_at: str | None = None
    evidence: list[EvidencePath] = Field(default_factory=list)
    evidence_edges: list[LineageEdge] = Field(
        default_factory=list, description="the edges of the paths with source and release"
    )
    evidence_concepts: list[LineageConcept] = Field(default_factory=list)
    facts: list[LineageFact] = Field(default_factory=list)
    recheck: LineageRecheck | None = None

    def edge_sources(self, edge: Edge) -> list[LineageEdge]:
        """The stored relationships behind one path edge (one per source asserting it)."""
        return [e for e in self.evidence_edges if e.key == (edge.start, edge.type, edge.end)]

    def name_of(self, concept: str) -> str:
        for c in self.evidence_concepts:
            if c.id == concept and c.name:
                return c.name
        for e in self.evidence_edges:
            if e.start == concept and e.start_name:
                return e.start_name
            if e.end == concept and e.end_name:
                return e.end_name
        return concept

    def readable_path(self, path: EvidencePath) -> str:
        """One path in words: names, then each edge with its sources and release, arrows in
        the stored direction: ``Diclofenac -[MAY_TREAT, MED-RT, UMLS 2025AA]-> Osteoarthritis``."""
        if not path.edges:
            return " = ".join(self.name_of(n) for n in path.nodes)
        first = path.edges[0]
        current = (
            path.nodes[0]
            if path.nodes and path.nodes[0] in (first.start, first.end)
            else first.start
        )
        text = self.name_of(current)
        for e in path.edges:
            sources = "; ".join(s.source_label() for s in self.edge_sources(e))
            label = e.type + (f", {sources}" if sources else "")
            if e.start == current:
                text += f" -[{label}]-> {self.name_of(e.end)}"
                current = e.end
            elif e.end == current:
                text += f" <-[{label}]- {self.name_of(e.start)}"
                current = e.start
            else:
                text += f"; {self.name_of(e.start)} -[{label}]-> {self.name_of(e.end)}"
                current = e.end
        return text

    def readable_paths(self) -> list[str]:
        return [self.readable_path(p) for p in self.evidence]
