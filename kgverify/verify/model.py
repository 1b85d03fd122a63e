"""What verification produces: one ``Verdict`` per candidate relation, with the evidence
paths that decided it, the rule and rule version, a score and whether the filter policy lets
it pass. JSONL out (schema in docs/verification.md). Nothing is dropped: a relation that
fails the policy keeps its verdict with ``passed = false``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kgverify.extract.relation import CandidateRelation, relation_id_of
from kgverify.jsonl import read_models, write_models
from kgverify.link.model import MentionLink


class VerdictKind(StrEnum):
    SUPPORTED = "supported"  # a rule found evidence for it, none against
    CONTRADICTED = "contradicted"  # evidence against it (a contraindication, reversed cause)
    UNSUPPORTED = "unsupported"  # both sides linked, no evidence: the likely hallucination
    AMBIGUOUS = "ambiguous"  # a side is ambiguous, or evidence for and against
    UNLINKED = "unlinked"  # a side names no concept
    TYPE_MISMATCH = "type_mismatch"  # a side names a concept of the wrong kind for its slot


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Edge(_Frozen):
    """One relationship of an evidence path, in its stored direction."""

    start: str
    type: str
    end: str


class EvidencePath(_Frozen):
    """A path in the vocabulary graph that bears on the relation."""

    rule: str = Field(description="rule id, e.g. 'ancestor.support'")
    rule_version: str = Field(description="hash of the rule's Cypher text and edge table")
    stance: str = Field(description="'support' or 'contradict'")
    score: float = Field(ge=0.0, le=1.0)
    nodes: list[str] = Field(description="concept ids along the path, subject side first")
    edges: list[Edge]
    depth: int = Field(ge=0, description="is-a steps from the relation's object")


class Enrichment(_Frozen):
    """What derivation needs about a passing relation, read from the graph."""

    subject_name: str
    object_name: str
    codes: dict[str, list[str]] = Field(
        default_factory=dict, description="'subject'/'object' -> concept ids in every vocabulary"
    )
    object_ancestors: list[str] = Field(default_factory=list, description="names, nearest first")
    drug_classes: list[str] = Field(default_factory=list, description="names of the drug's classes")
    lay_synonyms: dict[str, list[str]] = Field(default_factory=dict)
    distractors: list[str] = Field(
        default_factory=list,
        description="ids of concepts of the subject's kind with no support path to the object",
    )


class Verdict(_Frozen):
    """The judgement of one candidate relation."""

    relation: CandidateRelation
    subject: MentionLink
    object: MentionLink
    verdict: VerdictKind
    score: float = Field(ge=0.0, le=1.0, description="best deciding path's score (0 without)")
    rule: str | None = Field(default=None, description="the rule of the deciding path")
    rule_version: str | None = None
    reason: str = Field(description="one line a reviewer can read")
    evidence: list[EvidencePath] = Field(default_factory=list)
    passed: bool = Field(description="the filter policy lets it into derivation")
    link_index: str = Field(default="", description="key of the linker index that linked it")
    enrichment: Enrichment | None = None

    @property
    def relation_id(self) -> str:
        return self.relation.relation_id

    @property
    def assertion_id(self) -> str:
        """The key of this verdict's ``(:Assertion)`` in the graph."""
        return assertion_id_of(self.relation)


def assertion_id_of(relation: CandidateRelation) -> str:
    """The ``(:Assertion)`` key of a relation: what identifies it, not only the caller's id.

    A ``relation_id`` that is kgverify's content hash (every extractor's default) already
    names the relation and is the key as it is. Any other id gets ``#`` and the content hash
    appended, so an id reused for a different relation gets its own assertion instead of
    replacing one, while the same relation verified again updates its own (docs/verification.md).
    """
    content = relation_id_of(relation)
    if relation.relation_id == content:
        return content
    return f"{relation.relation_id}#{content}"


def write_verdicts(verdicts: Iterable[Verdict], path: Path) -> int:
    """Write verdicts as JSONL; returns how many."""
    return write_models(verdicts, path)


def read_verdicts(path: Path) -> Iterator[Verdict]:
    """Verdicts from JSONL (files kgverify wrote; a bad line raises)."""
    return read_models(path, Verdict)
