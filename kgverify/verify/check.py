"""Ad-hoc questions to the vocabulary graph: "does metformin treat type 2 diabetes?".

``kgverify.api.check`` / ``explain`` (and ``kgverify check``) link both names, run the
verification rules and answer with the verdict, the linked concepts with their names and
the evidence paths in words, each edge with the source that asserts it and its release.
Nothing is written: no assertion, no patient, no extractor; the verifier runs read-only.

An ``unsupported`` answer says the relation is *not in the vocabularies* (both sides were
found, no rule found a path between them), never that it is false: the vocabularies are
incomplete, and absence of evidence is not evidence against.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kgverify.__about__ import __version__
from kgverify.errors import ConfigError
from kgverify.extract.relation import CandidateRelation, ExtractorInfo, Mention, Predicate
from kgverify.graph.driver import Graph
from kgverify.link.model import LinkStatus, MentionLink
from kgverify.verify.assertion import LineageAssertion, LineageConcept, LineageEdge
from kgverify.verify.model import EvidencePath, Verdict, VerdictKind
from kgverify.verify.verifier import Verifier

# Stands in for the patient and extractor a CandidateRelation needs; never written.
_ASKED = ExtractorInfo(name="check", version=__version__)
_NO_PATIENT = "check"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CheckedConcept(_Frozen):
    """A concept the linker offered for a name."""

    id: str
    name: str | None = None
    vocab: str | None = None
    score: float | None = Field(default=None, description="the linker's score")
    method: str | None = Field(default=None, description="the linking stage that found it")


class CheckedSide(_Frozen):
    """One side of the question, as linked."""

    text: str
    status: LinkStatus = Field(description="linked, ambiguous or unlinked")
    concept: CheckedConcept | None = Field(default=None, description="set when linked")
    candidates: list[CheckedConcept] = Field(
        default_factory=list, description="explain only: the linker's candidates, best first"
    )


class NamedEdge(_Frozen):
    """A vocabulary relationship on an evidence path, named, in its stored direction."""

    start: str
    start_name: str | None = None
    type: str
    end: str
    end_name: str | None = None
    sources: list[str] = Field(
        default_factory=list, description="who asserts it, e.g. 'MED-RT, UMLS 2025AA'"
    )


class NamedPath(_Frozen):
    """An evidence path with names: what a reader needs to check it."""

    rule: str = Field(description="rule id, e.g. 'direct.support'")
    rule_version: str
    stance: str = Field(description="'support' or 'contradict'")
    score: float
    depth: int = Field(description="is-a steps above the object")
    text: str = Field(
        description="the path in words: 'Metformin -[MAY_TREAT, MED-RT, UMLS 2025AA]-> ...'"
    )
    edges: list[NamedEdge]


class CheckResult(_Frozen):
    """The vocabularies' answer to one question (``kgverify.api.check``)."""

    subject: CheckedSide
    predicate: Predicate
    object: CheckedSide
    verdict: VerdictKind
    answer: str = Field(description="one sentence: what the vocabularies say")
    rule: str | None = Field(default=None, description="the deciding path's rule")
    rule_version: str | None = None
    score: float = Field(description="the deciding path's score, 0 without one")
    reason: str = Field(description="the verifier's reason line (concept ids)")
    evidence: list[NamedPath] = Field(
        default_factory=list, description="every path found, best first"
    )

    def __str__(self) -> str:
        return self.answer


class Explanation(CheckResult):
    """``check`` with the steps that led to the verdict (``kgverify.api.explain``)."""

    steps: list[str] = Field(description="how the verdict was reached, one line each")

    def __str__(self) -> str:
        return "\n".join([self.answer, *(f"  {step}" for step in self.steps)])


def parse_predicate(text: str) -> Predicate:
    """A predicate from text, in any case, with spaces or hyphens for underscores; anything
    else is a ``ConfigError`` listing the allowed ones."""
    key = "_".join(text.strip().lower().replace("-", " ").split())
    try:
        return Predicate(key)
    except ValueError:
        allowed = ", ".join(p.value for p in Predicate)
        raise ConfigError(f"unknown predicate {text!r}; allowed: {allowed}") from None


def question(subject: str, predicate: str | Predicate, obj: str) -> CandidateRelation:
    """The relation a question stands for; its patient and extractor are placeholders that
    are never written anywhere."""
    chosen = predicate if isinstance(predicate, Predicate) else parse_predicate(predicate)
    for side, text in (("subject", subject), ("object", obj)):
        if not text.strip():
            raise ConfigError(f"the {side} is empty")
        if len(text) > 500:
            raise ConfigError(f"the {side} is longer than 500 characters")
    return CandidateRelation(
        patient_id=_NO_PATIENT,
        subject=Mention(text=subject.strip()),
        predicate=chosen,
        object=Mention(text=obj.strip()),
        extractor=_ASKED,
        confidence=1.0,
    )


def run_check(
    verifier: Verifier, relation: CandidateRelation, *, explain: bool = False
) -> CheckResult:
    """Judge one question with a read-only verifier and name everything in the answer."""
    if verifier.write:
        raise ConfigError("a check never writes: give it a verifier with write=False")
    [verdict] = verifier.verify([relation])
    sides = (verdict.subject.concept_id, verdict.object.concept_id)
    names = PathNames(verifier.graph, verdict.evidence, [i for i in sides if i])
    paths = [names.path(p) for p in verdict.evidence]
    fields: dict[str, Any] = {
        "subject": _side(verdict.subject, relation.subject.text, names, explain),
        "predicate": relation.predicate,
        "object": _side(verdict.object, relation.object.text, names, explain),
        "verdict": verdict.verdict,
        "rule": verdict.rule,
        "rule_version": verdict.rule_version,
        "score": verdict.score,
        "reason": verdict.reason,
        "evidence": paths,
    }
    fields["answer"] = _answer(verdict, fields, paths)
    if not explain:
        return CheckResult(**fields)
    return Explanation(**fields, steps=_steps(verdict, fields, paths))


class PathNames:
    """Names of the concepts of evidence paths (and of ``more`` ids) and the sources of
    their edges, two reads; each path then in words (``path``). The ad-hoc check and the
    agent-action verdicts (``kgverify.actions``) both say their evidence through it."""

    def __init__(
        self, graph: Graph, evidence: Sequence[EvidencePath], more: Iterable[str] = ()
    ) -> None:
        ids = {n for p in evidence for n in p.nodes} | set(more)
        rows = graph.read("review/concept_names", ids=sorted(ids)) if ids else []
        self.names: dict[str, str] = {r["id"]: r["name"] for r in rows if r["name"]}
        keys = sorted({(e.start, e.type, e.end) for p in evidence for e in p.edges})
        edges = [{"start": s, "type": t, "end": e} for s, t, e in keys]
        self.edges: list[LineageEdge] = []
        for row in graph.read("review/edge_sources", edges=edges) if edges else []:
            base = {
                "start": row["start"],
                "start_name": row["start_name"],
                "type": row["type"],
                "end": row["end"],
                "end_name": row["end_name"],
            }
            sources = row["sources"] or [{}]
            self.edges += [
                LineageEdge(
                    **base, sab=s.get("sab"), release=s.get("release"), active=s.get("active")
                )
                for s in sources
            ]
        # Lineage's reader of paths in words, over what was read here.
        self._reader = LineageAssertion(
            id="check",
            predicate="check",
            verdict="check",
            standing_verdict="check",
            evidence=list(evidence),
            evidence_edges=self.edges,
            evidence_concepts=[LineageConcept(id=k, name=v) for k, v in self.names.items()],
        )

    def name(self, concept: str | None) -> str | None:
        return self.names.get(concept) if concept else None

    def path(self, path: EvidencePath) -> NamedPath:
        edges = [
            NamedEdge(
                start=e.start,
                start_name=self.name(e.start),
                type=e.type,
                end=e.end,
                end_name=self.name(e.end),
                sources=[s.source_label() for s in self._reader.edge_sources(e) if s.sab],
            )
            for e in path.edges
        ]
        return NamedPath(
            rule=path.rule,
            rule_version=path.rule_version,
            stance=path.stance,
            score=path.score,
            depth=path.depth,
            text=self._reader.readable_path(path),
            edges=edges,
        )


def _side(link: MentionLink, text: str, names: PathNames, explain: bool) -> CheckedSide:
    concept = None
    if link.status is LinkStatus.LINKED and link.concept_id is not None:
        best = next((c for c in link.candidates if c.concept_id == link.concept_id), None)
        concept = CheckedConcept(
            id=link.concept_id,
            name=names.name(link.concept_id) or (best.name if best else None),
            vocab=best.vocab if best else None,
            score=link.score,
            method=link.method.value if link.method else None,
        )
    candidates = (
        [
            CheckedConcept(
                id=c.concept_id, name=c.name, vocab=c.vocab, score=c.score, method=c.method.value
            )
            for c in link.candidates
        ]
        if explain
        else []
    )
    return CheckedSide(text=text, status=link.status, concept=concept, candidates=candidates)


def _named(side: CheckedSide) -> str:
    if side.concept is None:
        return repr(side.text)
    return f"{side.concept.name or side.concept.id} ({side.concept.id})"


def _answer(verdict: Verdict, fields: dict[str, Any], paths: list[NamedPath]) -> str:
    subject, obj = fields["subject"], fields["object"]
    asked = f"{_named(subject)} {verdict.relation.predicate.value} {_named(obj)}"
    kind = verdict.verdict
    support = next((p for p in paths if p.stance == "support"), None)
    against = next((p for p in paths if p.stance == "contradict"), None)
    if kind is VerdictKind.SUPPORTED and support is not None:
        return f"supported by the vocabularies: {asked}, by {support.rule}: {support.text}"
    if kind is VerdictKind.CONTRADICTED and against is not None:
        return (
            f"contradicted by the vocabularies: {asked}; against it, {against.rule}: {against.text}"
        )
    if kind is VerdictKind.UNSUPPORTED:
        return (
            f"not in the vocabularies: {asked}; both names were found, but no rule found a "
            "path between them (the vocabularies are incomplete: this is no evidence against it)"
        )
    if kind is VerdictKind.AMBIGUOUS:
        if support is not None and against is not None:
            return (
                f"ambiguous: the vocabularies state both for and against {asked}: "
                f"for, {support.text}; against, {against.text}"
            )
        return f"ambiguous: {verdict.reason}; name the concept more precisely (or by its code)"
    missing = [
        (role, side)
        for role, side in (("subject", subject), ("object", obj))
        if side.status is LinkStatus.UNLINKED
    ]
    if kind is VerdictKind.TYPE_MISMATCH and missing:
        role, side = missing[0]
        return (
            f"not in the vocabularies as asked: the {role} {side.text!r} names no concept of "
            f"the kind a {verdict.relation.predicate.value} {role} takes ({verdict.reason})"
        )
    if missing:
        role, side = missing[0]
        return f"not in the vocabularies: the {role} {side.text!r} names no concept they hold"
    return f"not in the vocabularies: {verdict.reason}"


def _steps(verdict: Verdict, fields: dict[str, Any], paths: list[NamedPath]) -> list[str]:
    steps = []
    for role in ("subject", "object"):
        side: CheckedSide = fields[role]
        if side.concept is not None:
            how = f"{side.concept.method}, score {side.concept.score}"
            steps.append(f"{role} {side.text!r} linked to {_named(side)} ({how})")
        else:
            offered = ", ".join(f"{c.name} ({c.id})" for c in side.candidates[:3]) or "none"
            steps.append(f"{role} {side.text!r} {side.status.value}; candidates: {offered}")
    if verdict.subject.concept_id and verdict.object.concept_id:
        if paths:
            steps += [f"{p.stance}: {p.rule} (score {p.score}): {p.text}" for p in paths]
        else:
            steps.append("no rule (direct, ancestor, ingredient) found a path between them")
    steps.append(f"verdict {verdict.verdict.value}: {verdict.reason}")
    return steps
