"""The verdict of one agent action, from the graph (docs/fhir.md, "Verdicts").

A MedicationRequest's drug is judged against the patient's record as of the action's day
(``queries/actions/patient_record.cypher``: the conditions and drugs active then) with the
walks the rest of kgverify uses, none restated here:

* the verification rules (``Verifier.evidence_for``: direct, ancestor, ingredient, so a
  product or brand is judged by its ingredient and a condition through its is-a ancestors)
  on (drug, condition, treats) for every active condition and every condition the task
  names: a support path is ``indicated``, a contradict path (``CONTRAINDICATED_FOR``) on a
  recorded condition is ``contraindicated``;
* the dialogue checker's reach (``queries/dialogue/reach.cypher``: product and brand to
  ingredient, ingredient to its is-a class) on the drug and every active drug: a shared
  ingredient, or a shared class of ATC level 4 (a chemical subgroup, ``queries/actions/
  atc_codes.cypher``), is ``duplicate_therapy``;
* the linker's code lookup (``queries/link/concepts_by_code.cypher``): a resource none of
  whose codes the vocabularies hold is ``unknown_code``.

Nothing else is a verdict: with no path either way the order is ``unsupported``, "not in
the vocabularies", never wrong. ``interacts`` is reserved: UMLS, SNOMED CT and RxNorm carry
no drug-drug interaction relation and the graph model has no type for one, so no rule
issues it. Evidence paths are named in words with each edge's source and release
(``verify.check.PathNames``). Nothing is written here (``store.py`` writes)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any, Generic, TypeVar

from kgverify.actions.model import (
    SEVERITY,
    ActionVerdict,
    ActionVerdictKind,
    CodeRef,
    Coding,
    Finding,
    ParsedAction,
)
from kgverify.config import Settings
from kgverify.ehr.codes import fhir_system
from kgverify.graph.driver import Graph
from kgverify.verify.check import PathNames
from kgverify.verify.model import Edge, EvidencePath
from kgverify.verify.verifier import Verifier

V = ActionVerdictKind
K = TypeVar("K")
T = TypeVar("T")

CACHE = 50_000
"""Entries kept per cache (codes, records, reaches): a run's memory does not grow with it."""

DUPLICATE_ATC_LEVEL = 4
"""Two drugs sharing a class duplicate each other when the class is a chemical subgroup
(ATC level 4: C10AA, the statins), not a therapeutic area (C10, lipid modifying agents)."""


class _Kept(Generic[K, T]):
    """A map that forgets its oldest entries past ``size``."""

    def __init__(self, size: int = CACHE) -> None:
        self.size = size
        self.data: OrderedDict[K, T] = OrderedDict()

    def get(self, key: K) -> T | None:
        return self.data.get(key)

    def put(self, key: K, value: T) -> None:
        self.data[key] = value
        while len(self.data) > self.size:
            self.data.popitem(last=False)


@dataclass(frozen=True)
class Concept:
    id: str
    name: str
    code: str  # the code it was found by, NAMESPACE:code


@dataclass(frozen=True)
class RecordFact:
    id: str
    kind: str
    concept: str | None
    display: str | None
    start: str | None


@dataclass(frozen=True)
class Record:
    found: bool
    facts: tuple[RecordFact, ...]

    def of_kind(self, kind: str) -> list[RecordFact]:
        return [f for f in self.facts if f.kind == kind and f.concept is not None]


@dataclass(frozen=True)
class _Walk:
    """A concept reached from a drug (an ingredient, a class) and the edges that reach it."""

    id: str
    edges: tuple[Edge, ...]


def atc_level(code: str) -> int:
    """The level of an ATC code (``ATC:C10AA`` -> 4): 1, 3, 4, 5 and 7 characters."""
    return {1: 1, 3: 2, 4: 3, 5: 4, 7: 5}.get(len(code.removeprefix("ATC:")), 0)


class ActionJudge:
    """Judges parsed actions against the graph; read-only, with bounded caches."""

    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings
        self.verifier = Verifier(graph, settings, write=False, enrich=False)
        self.releases: list[str] = [r["id"] for r in graph.read("verify/current_releases")]
        self._codes: _Kept[str, Concept | None] = _Kept()
        self._records: _Kept[tuple[str, str], Record] = _Kept(1_000)
        self._ingredients: _Kept[str, tuple[_Walk, ...]] = _Kept()
        self._classes: _Kept[str, tuple[_Walk, ...]] = _Kept()
        self._atc: _Kept[str, bool] = _Kept()

    def close(self) -> None:
        self.verifier.close()

    # -- what the graph holds ---------------------------------------------------------------

    def concepts(self, codes: Iterable[Coding | CodeRef]) -> list[Concept | None]:
        """Each code's concept (its own, or the owned concept that maps to it), in order."""
        keys = [f"{fhir_system(c.system)}:{c.code}" for c in codes]
        missing = [k for k in dict.fromkeys(keys) if k not in self._codes.data]
        if missing:
            found: dict[str, Concept] = {}
            for row in self.graph.read("link/concepts_by_code", ids=missing):
                found.setdefault(row["code_id"], Concept(row["id"], row["name"], row["code_id"]))
            for key in missing:
                self._codes.put(key, found.get(key))
        return [self._codes.get(k) for k in keys]

    def record(self, patient: str, as_of: date) -> Record:
        key = (patient, as_of.isoformat())
        kept = self._records.get(key)
        if kept is None:
            [row] = self.graph.read("actions/patient_record", patient=patient, as_of=key[1])
            kept = Record(
                found=bool(row["found"]),
                facts=tuple(
                    RecordFact(f["id"], f["kind"], f["concept"], f["display"], f["start"])
                    for f in row["facts"]
                ),
            )
            self._records.put(key, kept)
        return kept

    def _reach(self, ids: Iterable[str]) -> None:
        """Ingredients of drugs and nearest classes of ingredients, read for those not kept."""
        drugs = [i for i in dict.fromkeys(ids) if i not in self._ingredients.data]
        if drugs:
            for row in self._reach_rows(drugs, 0):
                walks = tuple(_Walk(x["id"], _edges(x["edges"])) for x in row["ingredients"])
                self._ingredients.put(row["id"], walks)
            for d in drugs:
                if self._ingredients.get(d) is None:
                    self._ingredients.put(d, ())
        ingredients = {
            w.id
            for d in ids
            for w in self._ingredients.get(d) or ()
            if w.id not in self._classes.data
        }
        if ingredients:
            for row in self._reach_rows(sorted(ingredients), 1):
                ups = tuple(_Walk(x["id"], _edges(x["edges"])) for x in row["up"])
                self._classes.put(row["id"], ups)
            for i in ingredients:
                if self._classes.get(i) is None:
                    self._classes.put(i, ())
            classes = {w.id for i in ingredients for w in self._classes.get(i) or ()}
            unknown = sorted(c for c in classes if c not in self._atc.data)
            if unknown:
                narrow = {
                    r["id"]
                    for r in self.graph.read("actions/atc_codes", ids=unknown)
                    if any(atc_level(a) >= DUPLICATE_ATC_LEVEL for a in r["atc"])
                }
                for c in unknown:
                    self._atc.put(c, c in narrow)

    def _reach_rows(self, ids: list[str], depth: int) -> list[dict[str, Any]]:
        return self.graph.read("dialogue/reach", ids=ids, hubs=self.verifier.hubs, max_depth=depth)

    def prefetch(self, batch: Iterable[tuple[ParsedAction, date, Iterable[CodeRef]]]) -> None:
        """Read what a batch of actions needs in few round trips (their codes, the evidence
        of every (drug, condition) triple, the drugs' reaches), so that judging each one
        after it reads little more than its evidence's names."""
        batch = list(batch)
        codes: list[Coding | CodeRef] = []
        for action, _, named in batch:
            codes += [*action.codes, *named]
        self.concepts(codes)
        triples: list[tuple[str, str, str]] = []
        drugs: list[str] = []
        for action, as_of, named in batch:
            if action.kind != "medication":
                continue
            drug = next((c for c in self.concepts(action.codes) if c is not None), None)
            if drug is None:
                continue
            record = self.record(action.patient_id, as_of)
            conditions = [str(f.concept) for f in record.of_kind("condition")]
            conditions += [c.id for c in self.concepts(list(named)) if c is not None]
            triples += [(drug.id, cid, "treats") for cid in conditions]
            drugs += [drug.id, *(str(f.concept) for f in record.of_kind("drug"))]
        if triples:
            self.verifier.evidence_for(triples)  # kept by the verifier for the judging
        if drugs:
            self._reach(drugs)

    # -- verdicts -----------------------------------------------------------------------------

    def judge(
        self, action: ParsedAction, as_of: date, named: Iterable[CodeRef] = ()
    ) -> ActionVerdict:
        """The verdict of one action, its record read as of ``as_of``; ``named`` are the
        conditions its task names."""
        return self.judge_many([(action, as_of, named)])[0]

    def judge_many(
        self, batch: Iterable[tuple[ParsedAction, date, Iterable[CodeRef]]]
    ) -> list[ActionVerdict]:
        """The verdicts of a batch, in order; the evidence of all its orders named in one
        pair of reads (concept names, edge sources)."""
        assessed = [self._assess(action, as_of, list(named)) for action, as_of, named in batch]
        pending = [a for a in assessed if isinstance(a, _Pending)]
        names = PathNames(
            self.graph,
            [path for p in pending for *_, path in p.found],
            [p.drug.id for p in pending],
        )
        return [a.verdict(names) if isinstance(a, _Pending) else a for a in assessed]

    def _assess(
        self, action: ParsedAction, as_of: date, named: list[CodeRef]
    ) -> ActionVerdict | _Pending:
        base: dict[str, Any] = {
            "action_id": action.action_id,
            "task_id": action.task_id,
            "patient_id": action.patient_id,
            "resource_type": action.resource_type,
            "kind": action.kind,
            "as_of": as_of,
            "releases": self.releases,
        }
        record = self.record(action.patient_id, as_of)
        if not record.found:
            return ActionVerdict(
                **base,
                verdict=V.MALFORMED,
                reason=f"the resource names patient {action.patient_id!r}, whom the graph "
                "does not hold (ingest the patient first)",
            )
        if action.kind == "note":
            return ActionVerdict(
                **base,
                verdict=V.NOT_JUDGED,
                reason="a note: no rule judges it; a task checkpoint may look for mentions",
            )
        found = [
            (coding, c)
            for coding, c in zip(action.codes, self.concepts(action.codes), strict=True)
            if c is not None
        ]
        if not found:
            said = ", ".join(c.concept_id for c in action.codes)
            return ActionVerdict(
                **base,
                code=action.codes[0].concept_id,
                verdict=V.UNKNOWN_CODE,
                reason=f"not in the vocabularies: no code of the {action.resource_type} "
                f"({said}) is in the loaded releases",
            )
        coding, concept = found[0]
        base |= {"code": coding.concept_id, "concept": concept.id, "concept_name": concept.name}
        if action.kind != "medication":
            return ActionVerdict(
                **base,
                verdict=V.NOT_JUDGED,
                reason=f"{concept.name} ({concept.id}) is a known code; no rule judges a "
                f"{action.resource_type} against the record",
            )
        findings, named_ids = self._drug_found(concept, record, named)
        if not findings:
            return ActionVerdict(
                **base,
                verdict=V.UNSUPPORTED,
                reason=f"not in the vocabularies: no rule found that {concept.name} treats, "
                "or is contraindicated for, any active condition of the patient or one the "
                "task names, and no active drug shares its ingredient or class (no evidence "
                "against the order either)",
            )
        return _Pending(base, concept, findings, named_ids)

    def _drug_found(
        self, drug: Concept, record: Record, named: list[CodeRef]
    ) -> tuple[list[_Found], set[str]]:
        conditions: dict[str, RecordFact | None] = {}
        for recorded in record.of_kind("condition"):
            conditions.setdefault(str(recorded.concept), recorded)
        named_ids = {c.id for c in self.concepts(named) if c is not None}
        for cid in sorted(named_ids):
            conditions.setdefault(cid, None)
        triples = [(drug.id, cid, "treats") for cid in conditions]
        evidence = self.verifier.evidence_for(triples)
        found: list[_Found] = []
        for (_, cid, _), paths in evidence.items():
            fact = conditions[cid]
            against = next((p for p in paths if p.stance == "contradict"), None)
            support = next((p for p in paths if p.stance == "support"), None)
            if against is not None and fact is not None:
                found.append((V.CONTRAINDICATED, cid, fact, against))
            if support is not None and (fact is not None or cid in named_ids):
                found.append((V.INDICATED, cid, fact, support))
        found += self._duplicates(drug, record)
        return found, named_ids

    def _duplicates(self, drug: Concept, record: Record) -> list[_Found]:
        active = record.of_kind("drug")
        if not active:
            return []
        self._reach([drug.id, *(str(f.concept) for f in active)])
        mine = self._ingredients.get(drug.id) or ()
        out: list[_Found] = []
        for fact in active:
            theirs = {w.id: w for w in self._ingredients.get(str(fact.concept)) or ()}
            shared = [(w, theirs[w.id]) for w in mine if w.id in theirs]
            if shared:
                a, b = min(shared, key=lambda p: (len(p[0].edges) + len(p[1].edges), p[0].id))
                out.append(
                    (
                        V.DUPLICATE_THERAPY,
                        str(fact.concept),
                        fact,
                        _joined(
                            "duplicate.ingredient", drug.id, a.edges, b.edges, str(fact.concept)
                        ),
                    )
                )
                continue
            best = self._shared_class(mine, list(theirs.values()))
            if best is not None:
                out.append(
                    (
                        V.DUPLICATE_THERAPY,
                        str(fact.concept),
                        fact,
                        _joined("duplicate.class", drug.id, best[0], best[1], str(fact.concept)),
                    )
                )
        return out

    def _shared_class(
        self, mine: Iterable[_Walk], theirs: Iterable[_Walk]
    ) -> tuple[tuple[Edge, ...], tuple[Edge, ...]] | None:
        def classes(walks: Iterable[_Walk]) -> dict[str, tuple[Edge, ...]]:
            out: dict[str, tuple[Edge, ...]] = {}
            for w in walks:
                for k in self._classes.get(w.id) or ():
                    path = w.edges + k.edges
                    kept = out.get(k.id)
                    if self._atc.get(k.id) and (kept is None or len(path) < len(kept)):
                        out[k.id] = path
            return out

        a, b = classes(mine), classes(theirs)
        shared = sorted(set(a) & set(b), key=lambda k: (len(a[k]) + len(b[k]), k))
        return (a[shared[0]], b[shared[0]]) if shared else None


_Found = tuple[V, str, RecordFact | None, EvidencePath]
"""A finding before its path is named: verdict, the other concept, the record fact, path."""


@dataclass(frozen=True)
class _Pending:
    """An order with findings, waiting for its batch's names."""

    base: dict[str, Any]
    drug: Concept
    found: list[_Found]
    named_ids: set[str]

    def verdict(self, names: PathNames) -> ActionVerdict:
        findings = []
        for verdict, other, on, path in self.found:
            named_path = names.path(path)
            named = other in self.named_ids
            findings.append(
                Finding(
                    verdict=verdict,
                    text=_say(verdict, self.drug, other, on, named_path.text, names, named),
                    concept=other,
                    fact=on.id if on is not None else None,
                    named_in_task=named,
                    evidence=[named_path],
                )
            )
        findings.sort(key=lambda f: SEVERITY.index(f.verdict))
        worst = findings[0]
        return ActionVerdict(
            **self.base, verdict=worst.verdict, reason=worst.text, findings=findings
        )


def _edges(raw: list[dict[str, str]]) -> tuple[Edge, ...]:
    return tuple(Edge(start=e["start"], type=e["type"], end=e["end"]) for e in raw)


def _joined(
    rule: str, start: str, mine: tuple[Edge, ...], theirs: tuple[Edge, ...], end: str
) -> EvidencePath:
    """The ordered drug's walk to the shared ingredient or class, then the active drug's
    walk back from it: one path from the one drug to the other."""
    edges = [*mine, *reversed(theirs)]
    nodes = [start]
    for e in edges:
        nodes.append(e.end if e.start == nodes[-1] else e.start)
    if nodes[-1] != end:
        nodes.append(end)
    return EvidencePath(
        rule=rule,
        rule_version="1",
        stance="support",
        score=1.0,
        nodes=nodes,
        edges=edges,
        depth=0,
    )


def _say(
    verdict: V,
    drug: Concept,
    other: str,
    fact: RecordFact | None,
    path: str,
    names: PathNames,
    named: bool,
) -> str:
    name = names.name(other) or other
    recorded = (
        f"recorded {fact.display or name} ({fact.id}, since {str(fact.start)[:10]})"
        if fact is not None
        else "named in the task"
    )
    if verdict is V.CONTRAINDICATED:
        return f"{drug.name} is contraindicated for {name}, {recorded}: {path}"
    if verdict is V.DUPLICATE_THERAPY:
        return f"{drug.name} duplicates the active {recorded.removeprefix('recorded ')}: {path}"
    where = "a condition the task names" if named and fact is None else recorded
    return f"{drug.name} treats {name}, {where}: {path}"
