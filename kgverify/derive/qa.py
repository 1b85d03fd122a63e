"""QA items from the validated graph: diagnosis, treatment and prognosis, each resting on
passed assertions, each with exactly one correct option and distractors the graph shows to
be wrong for this patient.

Per page of patients: item candidates from the records (``candidates_for``), distractor
pools (the verifier's enrichment pool and is-a siblings of the answer), graph guards
(synonym, ancestor, descendant, the patient has it), then the verification rules themselves
on every (clue, candidate) pair: a candidate that any rule supports is rejected. Items go
through an on-disk store that removes duplicates and sorts them, so answer positions can be
balanced round-robin and the output is the same, byte for byte, for the same graph and seed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, assert_never

from kgverify.config import Settings
from kgverify.derive.candidate import Candidate, Screened
from kgverify.derive.fit import CohortFit
from kgverify.derive.justify import Justifier, Outcome, Request
from kgverify.derive.model import (
    ContextFact,
    DistractorCheck,
    Task,
    TaskRules,
)
from kgverify.derive.records import (
    PatientRecord,
    RecordAssertion,
    RecordFact,
    scoped_run,
)
from kgverify.derive.splits import rank
from kgverify.derive.templates import describe_patient
from kgverify.extract.relation import Predicate
from kgverify.graph.driver import Graph, batched
from kgverify.link.normalize import exact_key
from kgverify.registry import Entry, Registry
from kgverify.review.state import ReviewState
from kgverify.verify.rules import SUPPORT
from kgverify.verify.verifier import Triple, Verifier

SETTINGS_WORDS = {
    "inpatient": "an inpatient stay",
    "outpatient": "an outpatient visit",
    "emergency": "an emergency visit",
}
# The predicate a context fact of each role would need, to make a candidate a right answer
# too (diagnosis: a drug given or a finding seen that points at the candidate instead).
CLUE_PREDICATE = {
    "medication": "treats",
    "finding": "indicates",
    "test": "indicates",
    "procedure": "indicates",
}


def filter_reason(assertion: RecordAssertion) -> str:
    """Why an assertion did not pass into derivation, as a report key."""
    if assertion.review == "false":
        return "judged false by a reviewer"
    if assertion.verdict != "supported":
        return f"verdict {assertion.verdict}"
    return "supported, below the policy's score or confidence"


# -- candidates -------------------------------------------------------------------------------


def _context_fact(record: PatientRecord, fact: RecordFact, role: str) -> ContextFact:
    """The fact as a question shows it, made once per record (a frozen model: the patient's
    candidates share it)."""
    made: ContextFact | None = record.shown.get((fact.id, role))
    if made is None:
        made = record.shown[(fact.id, role)] = ContextFact(
            fact_id=fact.id,
            role=role,
            text=fact.text,
            concept_id=fact.concept,
            start=fact.start,
            end=fact.end,
        )
    return made


def _history(record: PatientRecord, before: int, limit: int, skip: str) -> list[ContextFact]:
    return [_context_fact(record, f, "history") for f in record.problem_list(before, limit, skip)]


def _visit(
    record: PatientRecord, at: int, *, drugs: bool, conditions: bool, omit: str | None = None
) -> list[ContextFact]:
    """Grounded facts of one episode in their roles; ``omit``: a condition the question
    already names."""
    out = []
    for fact in record.episodes[at].facts:
        if not fact.grounded:
            continue
        if fact.kind == "condition":
            if fact.finding:
                out.append(_context_fact(record, fact, "finding"))
            elif conditions and not (omit and fact.names_concept(omit)):
                out.append(_context_fact(record, fact, "condition"))
        elif fact.kind == "measurement":
            out.append(_context_fact(record, fact, "test"))
        elif fact.kind == "procedure" and not fact.activity:
            # a review of systems or a medication reconciliation says nothing of the case
            out.append(_context_fact(record, fact, "procedure"))
        elif fact.kind == "drug" and drugs:
            out.append(_context_fact(record, fact, "medication"))
    return out


def _seen_by(record: PatientRecord, upto: int, concept: str) -> bool:
    """The patient has a fact of ``concept`` in episodes 0..upto."""
    first = record.first_seen(concept)
    return first is not None and first <= upto


def _stem(context: list[ContextFact], *head: str) -> list[str]:
    """The concepts a question shows, history left out."""
    shown = [f.concept_id for f in context if f.role != "history" and f.concept_id]
    return [*head, *sorted(set(shown) - set(head))]


def _values(record: PatientRecord, at: int) -> dict[str, str]:
    """Template values every task uses: who the patient is then, and where they are seen."""
    return {
        "patient": describe_patient(record.age_at(at), record.sex),
        "setting": SETTINGS_WORDS.get(record.episodes[at].kind or "", "a recorded visit"),
    }


def treatment_answer(assertion: RecordAssertion) -> str:
    """The drug a treats-assertion's best support path starts its treats edge from (the
    ingredient, for a product supported through its ingredient), else its subject."""
    types = {e.type.value for e in SUPPORT[Predicate.TREATS]}
    for path in assertion.evidence:
        if path.stance == "support":
            for edge in path.edges:
                if edge.type in types:
                    return edge.start
    return str(assertion.subject_id)


Located = tuple[int, RecordAssertion]
"""A passed assertion and the episode (its index) of the record fact of its object."""


def candidates_for(
    record: PatientRecord, settings: Settings, skipped: Counter[str]
) -> Iterator[Candidate]:
    """Every item candidate of one patient: each task of ``TASKS`` in turn, over the passed
    assertions of the predicates it reads, each located once at its object's episode.
    Within a task the order is the record's, which the store's first-come duplicate checks
    see; across tasks nothing depends on it (item ids, content groups and duplicate keys
    all carry the task)."""
    reads = frozenset().union(*(kind.reads for kind in TASKS.values()))
    located: list[Located] = []
    for a in record.assertions:
        if not (a.passed and a.subject_id and a.object_id) or a.predicate not in reads:
            continue
        where = record.episode_of(a, "object")
        at = record.episode_index(where) if where else None
        if at is None:
            skipped["no record fact for the relation"] += 1
            continue
        located.append((at, a))
    for kind in TASKS.values():
        mine = [(at, a) for at, a in located if a.predicate in kind.reads]
        yield from kind.candidates(record, mine, settings, skipped)


def _diagnoses(
    record: PatientRecord, located: list[Located], settings: Settings, skipped: Counter[str]
) -> Iterator[Candidate]:
    """One candidate per condition first recorded at an episode, resting on every passed
    assertion that points at it there."""
    grouped: dict[tuple[int, str], list[RecordAssertion]] = {}
    for at, a in located:
        grouped.setdefault((at, str(a.object_id)), []).append(a)
    for (at, answer), basis in sorted(grouped.items()):
        yield from _diagnosis(record, at, answer, basis, settings, skipped)


def _treatments(
    record: PatientRecord, located: list[Located], settings: Settings, skipped: Counter[str]
) -> Iterator[Candidate]:
    for at, a in located:
        yield from _treatment(record, a, at, settings)


def _prognoses(
    record: PatientRecord, located: list[Located], settings: Settings, skipped: Counter[str]
) -> Iterator[Candidate]:
    for later, a in located:
        yield from _prognosis(record, a, later, settings, skipped)


def _diagnosis(
    record: PatientRecord,
    at: int,
    answer: str,
    basis: list[RecordAssertion],
    settings: Settings,
    skipped: Counter[str],
) -> Iterator[Candidate]:
    if at > 0 and _seen_by(record, at - 1, answer):
        skipped["diagnosis: recorded earlier (not a first presentation)"] += 1
        return
    context = _visit(record, at, drugs=True, conditions=False)
    context += _history(record, at, settings.derive_history, answer)
    clues = list(
        dict.fromkeys(
            (f.concept_id, CLUE_PREDICATE[f.role])
            for f in context
            if f.role in CLUE_PREDICATE and f.concept_id
        )
    )
    checks = [DistractorCheck.of(c, None, predicate) for c, predicate in clues]
    yield Candidate(
        task=Task.DIAGNOSIS,
        patient=record,
        episode=record.episodes[at].key,
        answer=answer,
        answer_text=basis[0].object_name or answer,
        context=context,
        basis=sorted({a.id for a in basis}),
        reviewed=sorted({a.review_id for a in basis if a.review == "true" and a.review_id}),
        rules=sorted({a.rule_key for a in basis if a.rule_key}),
        checks=checks,
        values=_values(record, at),
        age=record.age_at(at),
        date=record.episodes[at].start,
        dedupe=f"diagnosis|{record.patient_id}|{answer}",
        topic=answer,
        stem=_stem(context),
        clues=clues,
        conditions=record.conditions_upto(at - 1) if at > 0 else [],
    )


def _treatment(
    record: PatientRecord,
    a: RecordAssertion,
    at: int,
    settings: Settings,
) -> Iterator[Candidate]:
    drug = treatment_answer(a)
    condition = str(a.object_id)
    context = _visit(record, at, drugs=False, conditions=True, omit=condition)
    context += _history(record, at, settings.derive_history, condition)
    yield Candidate(
        task=Task.TREATMENT,
        patient=record,
        episode=record.episodes[at].key,
        answer=drug,
        answer_text="",  # the drug's name comes from the guard query
        context=context,
        basis=[a.id],
        reviewed=[a.review_id] if a.review == "true" and a.review_id else [],
        rules=[a.rule_key] if a.rule_key else [],
        checks=[DistractorCheck.of(None, condition, "treats")],
        values={**_values(record, at), "condition": a.object_name or condition},
        age=record.age_at(at),
        date=record.episodes[at].start,
        dedupe=f"treatment|{record.patient_id}|{condition}|{drug}",
        topic=condition,
        stem=_stem(context, condition),
        clues=[(condition, "treats")],
        conditions=record.conditions_upto(at),
        pool=list(a.distractors),
    )


def _prognosis(
    record: PatientRecord,
    a: RecordAssertion,
    later: int,
    settings: Settings,
    skipped: Counter[str],
) -> Iterator[Candidate]:
    where = record.episode_of(a, "subject")
    at = record.episode_index(where) if where else None
    if at is None:
        skipped["no record fact for the relation"] += 1
        return
    outcome = str(a.object_id)
    if later <= at:
        skipped["prognosis: the outcome is not in a later encounter"] += 1
        return
    if _seen_by(record, at, outcome):
        skipped["prognosis: the outcome was already recorded"] += 1
        return
    cause = str(a.subject_id)
    context = _visit(record, at, drugs=True, conditions=True, omit=cause)
    context += _history(record, at, settings.derive_history, outcome)
    causes = [cause] + [
        f.concept_id for f in context if f.role in ("condition", "history") and f.concept_id
    ]
    yield Candidate(
        task=Task.PROGNOSIS,
        patient=record,
        episode=record.episodes[at].key,
        answer=outcome,
        answer_text=a.object_name or outcome,
        context=context,
        basis=[a.id],
        reviewed=[a.review_id] if a.review == "true" and a.review_id else [],
        rules=[a.rule_key] if a.rule_key else [],
        checks=[DistractorCheck.of(cause, None, "leads_to") for cause in dict.fromkeys(causes)],
        values={**_values(record, at), "condition": a.subject_name or cause},
        age=record.age_at(at),
        date=record.episodes[at].start,
        dedupe=f"prognosis|{record.patient_id}|{a.subject_id}|{outcome}",
        topic=cause,
        stem=_stem(context, cause),
        clues=[(c, "leads_to") for c in dict.fromkeys(causes)],
        conditions=record.conditions_upto(at),
    )


@dataclass(frozen=True)
class TaskKind:
    """What a QA task needs from derivation: the passed assertions it rests on, how they
    become candidates, and where its distractors come from."""

    task: Task
    reads: frozenset[Predicate]  # the predicates of the assertions it turns into items
    # (record, [(object's episode, assertion) of those predicates], settings, skipped)
    candidates: Callable[
        [PatientRecord, list[Located], Settings, Counter[str]], Iterator[Candidate]
    ]
    pool_kinds: tuple[str, ...]  # concept kinds of the is-a siblings (derive/sibling_pool)
    pool_role: str  # the known pool it samples (derive/known_pool): "drug" or "condition"
    # The query of the answer's kin (same therapeutic area or body system): where the lures
    # a clinician would weigh come from.
    kin_pool: str = "derive/system_pool"

    @property
    def rules(self) -> TaskRules:
        """How its distractors are justified (declared with the task: ``Task.rules``)."""
        return self.task.rules


def _declared(task: Task) -> Entry[TaskKind]:
    """A task's registry entry: what it reads, its candidates, its pools. Every ``Task``
    has one (mypy checks the match is exhaustive), so the registry's names and order are
    the enum's, and its justification rules are ``Task.rules``."""
    match task:
        case Task.DIAGNOSIS:
            kind = TaskKind(
                task,
                frozenset({Predicate.TREATS, Predicate.INDICATES}),
                _diagnoses,
                ("disorder",),
                "condition",
            )
            return Entry(
                task.value, kind, "an encounter's findings and tests -> the diagnosis made there"
            )
        case Task.TREATMENT:
            kind = TaskKind(
                task,
                frozenset({Predicate.TREATS}),
                _treatments,
                ("ingredient", "substance"),
                "drug",
                "derive/area_pool",
            )
            return Entry(
                task.value, kind, "a diagnosed condition in context -> the drug given for it"
            )
        case Task.PROGNOSIS:
            kind = TaskKind(
                task,
                frozenset({Predicate.LEADS_TO}),
                _prognoses,
                ("disorder", "finding"),
                "condition",
            )
            return Entry(
                task.value, kind, "an encounter -> the condition that followed in a later one"
            )
        case _:
            assert_never(task)


TASKS: Registry[TaskKind] = Registry("task", [_declared(task) for task in Task])
"""The QA tasks (one per ``Task``), in the order candidates are made; ``kgverify derive qa
--task`` and ``api.derive_qa(tasks=...)`` read it. Adding one: docs/architecture.md."""


# -- distractors ------------------------------------------------------------------------------


REACH_CACHE = 50_000
"""Coded concepts whose reach is kept between pages (bounded by the vocabularies)."""


class DistractorScreen:
    """Pools distractor candidates and keeps only those the graph proves wrong, for a page
    of candidates at a time: graph guards, reviewer vetoes, the justification rules
    (kgverify/derive/justify.py), then the verification rules on what they admitted (a
    candidate any rule supports is refused): what is left has a stored positive reason."""

    def __init__(
        self,
        graph: Graph,
        verifier: Verifier,
        settings: Settings,
        reviews: ReviewState | None = None,
    ) -> None:
        self.graph = graph
        self.verifier = verifier
        self.settings = settings
        self.reviews = reviews or ReviewState([])
        self.justifier = Justifier(
            graph, verifier.hubs, settings.derive_near_depth, settings.derive_drug_near_depth
        )
        self._known: dict[tuple[str, str], list[str]] = {}
        self._reach: dict[str, frozenset[str]] = {}  # coded concept -> derive/concept_reach
        # (content group, the answer's kin) -> the seeded samples a candidate pools
        self._samples: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        self.fit = CohortFit(graph, settings.derive_fit_min_patients, scoped_run(graph, settings))

    def known_pool(self, task: Task, namespace: str) -> list[str]:
        """Well-described drugs or conditions of one vocabulary, read once per run."""
        key = (TASKS[task].pool_role, namespace)
        if key not in self._known:
            rows = self.graph.read(
                "derive/known_pool",
                role=key[0],
                namespace=namespace + ":",
                limit=self.settings.derive_known_pool,
            )
            self._known[key] = [r["id"] for r in rows]
        return self._known[key]

    def settled(self, candidates: list[Candidate]) -> list[bool]:
        """Per candidate: screening cannot change its content group or make its answer a
        conflict, so a repeat of a served content needs none. A concept-judging task's
        group is its stem and answer alone; a drug task's also names the conditions that
        rule out its patient-specific lures, and a condition can make the answer
        contraindicated: settled only when no drug's contraindication reaches any of the
        patient's conditions (``Justifier.may_rule_out``)."""
        drugs = [n for n, c in enumerate(candidates) if c.task.rules.way == "drugs"]
        reached = self.justifier.may_rule_out(
            [
                [
                    *candidates[n].conditions,
                    *(f.concept_id for f in candidates[n].shown_conditions if f.concept_id),
                ]
                for n in drugs
            ]
        )
        out = [True] * len(candidates)
        for n, may in zip(drugs, reached, strict=True):
            out[n] = not may
        return out

    def screen(self, candidates: list[Candidate]) -> list[Screened]:
        self._pools(candidates)
        self._treater_pools(candidates)
        out = [Screened() for _ in candidates]
        pools: list[list[str]] = []
        spaces: dict[str, str] = {}  # concept -> its namespace, for this page's pools
        for n, c in enumerate(candidates):
            keep = []
            namespace = _namespace(c.answer)
            for d in dict.fromkeys(c.pool):
                space = spaces.get(d)
                if space is None:
                    space = spaces[d] = _namespace(d)
                if d == c.answer:
                    out[n].rejected[GUARD_REASONS["same"]] += 1
                # Options in one vocabulary only: mixed naming styles would give the
                # answer away ("Heart Valve Diseases" beside SNOMED CT's wording).
                elif space != namespace:
                    out[n].rejected["another vocabulary than the answer's"] += 1
                else:
                    keep.append(d)
            pools.append(keep)
        guarded: dict[tuple[int, str], str] = {}
        has = self._patients_have(candidates)
        # The graph's checks depend on the answer and the candidate only: one row per
        # distinct answer of the page with every candidate any of its items pools.
        per_answer: dict[str, dict[str, None]] = {}
        for n, c in enumerate(candidates):
            per_answer.setdefault(c.answer, {}).update(dict.fromkeys(pools[n]))
        answers = list(per_answer)
        names: dict[str, str] = {}
        checks: dict[str, dict[str, dict[str, Any]]] = {}
        rows = [
            {"rid": k, "answer": a, "candidates": list(per_answer[a])}
            for k, a in enumerate(answers)
        ]
        for part in batched(rows, 500):
            for row in self.graph.read("derive/distractor_guard", rows=part):
                answer = answers[row["rid"]]
                names[answer] = row["answer_name"]
                checks[answer] = {check["id"]: _guarded(check) for check in row["checked"]}
        for n, c in enumerate(candidates):
            if c.answer not in checks:
                continue  # not a concept of the graph: nothing to offer beside it
            out[n].answer_name = names[c.answer] or c.answer
            patient = has[c.patient.patient_id]
            checked = checks[c.answer]
            sex, stage = c.patient.sex, c.stage
            for d in pools[n]:
                check = checked.get(d)
                if check is None:
                    continue  # not a concept of the graph
                reason = check["guard"] or (
                    "patient_has" if d in patient else "retired" if check["retired"] else None
                )
                if reason:
                    out[n].rejected[GUARD_REASONS[reason]] += 1
                elif not self.fit.fits(d, sex, stage):
                    out[n].rejected[UNFIT] += 1
                else:
                    guarded[(n, d)] = check["name"] or d
        vetoed = {
            (n, d)
            for (n, d) in guarded
            if self.reviews.vetoed(candidates[n].task.value, candidates[n].topic, d)
        }
        for n, _ in vetoed:
            out[n].rejected["vetoed by a reviewer"] += 1
        by_candidate: dict[int, list[str]] = {}
        for n, d in guarded:
            if (n, d) not in vetoed:
                by_candidate.setdefault(n, []).append(d)
        requests = [
            Request(
                task=c.task,
                topic=c.topic,
                answer=c.answer,
                clues=c.clues,
                conditions=c.conditions,
                candidates=by_candidate.get(n, []),
                shown=c.shown_conditions,
            )
            for n, c in enumerate(candidates)
        ]
        pending: dict[int, list[tuple[str, Outcome]]] = {}
        judged = self.justifier.judge(requests)
        for n, c in enumerate(candidates):
            if c.task.rules.way == "drugs":
                out[n].conflict = self._answer_conflict(c)
        for n, outcomes in enumerate(judged):
            for d, outcome in outcomes.items():
                if outcome.admissible:
                    pending.setdefault(n, []).append((d, outcome))
                else:
                    out[n].rejected[outcome.refused or "no justification"] += 1
        seed = self.settings.derive_seed
        for n, admitted in pending.items():
            admitted.sort(key=lambda x: choice_order(seed, candidates[n], x[0], x[1]))
        # The verification rules last, as a safety net on what the justification admitted
        # (a candidate any rule supports is refused whatever else the graph says), in choice
        # order and only until enough remain: most admitted candidates are never chosen.
        need = (self.settings.derive_options - 1) * self.settings.derive_variants + 2
        while pending:
            batch = {n: admitted[:need] for n, admitted in pending.items()}
            supported = self._supported(candidates, batch)
            for n, tried in batch.items():
                for d, outcome in tried:
                    # A patient-specific lure treats the condition (a rule may well support
                    # it): what rules it out is this patient's record, cited in its reason.
                    if (n, d) in supported and outcome.lure != "patient_specific":
                        out[n].rejected[f"a rule supports it ({supported[(n, d)]})"] += 1
                    else:
                        out[n].names[d] = guarded[(n, d)]
                        out[n].outcomes[d] = outcome
            pending = {
                n: admitted[need:]
                for n, admitted in pending.items()
                if admitted[need:] and len(out[n].names) < need
            }
        return out

    def reach(self, ids: Iterable[str]) -> dict[str, frozenset[str]]:
        """Every concept each coded concept reaches (derive/concept_reach), read once per
        concept and kept while the cache has room."""
        coded = set(ids)
        if len(self._reach) + len(coded) > REACH_CACHE:
            self._reach.clear()
        missing = sorted(coded - self._reach.keys())
        for chunk in batched(missing, 2_000):
            for row in self.graph.read("derive/concept_reach", ids=chunk):
                self._reach[row["id"]] = frozenset(row["reach"])
        return {c: self._reach[c] for c in coded if c in self._reach}

    def _patients_have(self, candidates: list[Candidate]) -> dict[str, set[str]]:
        """Per patient of the page: every concept the patient has a fact of, through the
        reach of each coded concept."""
        patients = {c.patient.patient_id: c.patient for c in candidates}
        reached = self.reach({cid for p in patients.values() for cid in p.concepts})
        empty: frozenset[str] = frozenset()
        return {
            pid: set().union(*(reached.get(c, empty) for c in p.concepts))
            for pid, p in patients.items()
        }

    def _answer_conflict(self, candidate: Candidate) -> str | None:
        """The answer drug is contraindicated for a condition the patient has on record up
        to the episode: such an item has no defensible answer."""
        shown = [f.concept_id for f in candidate.shown_conditions if f.concept_id]
        hits = self.justifier.contraindicated_by(candidate.answer, [*candidate.conditions, *shown])
        if not hits:
            return None
        edge, _ = hits[0]
        return f"contraindicated for {edge.end_name or edge.end}, which the patient has"

    def _treater_pools(self, candidates: list[Candidate]) -> None:
        """Drug items also pool the condition's known treatments: the lures a clinician
        weighs, admissible only where the record rules them out for this patient."""
        topics = {c.topic for c in candidates if c.task.rules.way == "drugs"}
        treaters = self.justifier.treaters(topics)
        for c in candidates:
            if c.task.rules.way == "drugs":
                c.pool = list(dict.fromkeys([*c.pool, *treaters.get(c.topic, ())]))

    def _supported(
        self, candidates: list[Candidate], batch: dict[int, list[tuple[str, Outcome]]]
    ) -> dict[tuple[int, str], str]:
        """(candidate, distractor) -> the rule that supports one of the candidate's checks
        filled with the distractor, for the pairs in ``batch``."""
        triples: dict[Triple, list[tuple[int, str]]] = {}
        for n, tried in batch.items():
            for d, _ in tried:
                for check in candidates[n].checks:
                    triples.setdefault(check.triple(d), []).append((n, d))
        supported: dict[tuple[int, str], str] = {}
        for chunk in batched(list(triples), 5_000):
            for triple, paths in self.verifier.evidence_for(chunk).items():
                support = [p for p in paths if p.stance == "support"]
                if support:
                    for hit in triples[triple]:
                        supported.setdefault(hit, support[0].rule)
        return supported

    def _pools(self, candidates: list[Candidate]) -> None:
        """Siblings and cousins of the answer (the nearest, and for drugs often the same
        class, which the rules then refuse), the assertion's enrichment pool, a seeded
        sample of the answer's kin (its therapeutic area or body systems: the task's
        ``kin_pool``), and a sample of the well-described concepts of the answer's
        vocabulary, both seeded by the clinical content (so the same content gets the same
        candidates whoever the patient is)."""
        # One row per distinct (answer, kinds): many candidates of a page share an answer.
        wanted: dict[tuple[str, tuple[str, ...]], list[int]] = {}
        for n, c in enumerate(candidates):
            wanted.setdefault((c.answer, TASKS[c.task].pool_kinds), []).append(n)
        keys = list(wanted)
        rows = [
            {"rid": n, "concept": concept, "kinds": list(kinds)}
            for n, (concept, kinds) in enumerate(keys)
        ]
        for chunk in batched(rows, 2_000):
            for row in self.graph.read(
                "derive/sibling_pool",
                rows=chunk,
                hubs=self.verifier.hubs,
                limit=self.settings.derive_pool,
            ):
                for n in wanted[keys[row["rid"]]]:
                    cand = candidates[n]
                    cand.pool = list(dict.fromkeys([*cand.pool, *row["pool"]]))
        # (answer, kinds) -> its kin: one task's pool, as the siblings (keyed by the answer
        # alone, a prognosis candidate took a diagnosis candidate's kin when both shared a
        # page: a pool depended on the page's other candidates)
        kin: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        for query in dict.fromkeys(TASKS[c.task].kin_pool for c in candidates):
            asked = [
                {"rid": n, "concept": concept, "kinds": list(kinds)}
                for n, (concept, kinds) in enumerate(keys)
                if any(TASKS[candidates[i].task].kin_pool == query for i in wanted[keys[n]])
            ]
            for chunk in batched(asked, 2_000):
                params: dict[str, Any] = {"rows": chunk, "limit": 4 * self.settings.derive_pool}
                if query == "derive/system_pool":
                    params["hubs"] = self.verifier.hubs
                for row in self.graph.read(query, **params):
                    kin[keys[row["rid"]]] = row["pool"]
        for cand in candidates:
            kinfolk = tuple(kin.get((cand.answer, TASKS[cand.task].pool_kinds), ()))
            key = (cand.content_group, kinfolk)
            samples = self._samples.get(key)
            if samples is None:
                samples = self._sampled(cand, kinfolk)
                if len(self._samples) >= SAMPLES_KEPT:
                    self._samples.clear()
                self._samples[key] = samples
            cand.pool = list(dict.fromkeys([*cand.pool, *samples]))

    def _sampled(self, cand: Candidate, kinfolk: tuple[str, ...]) -> list[str]:
        """A candidate's seeded samples, of the answer's kin and of the well-described
        concepts of its vocabulary, each sorted: the same for the same content."""
        seed, size = self.settings.derive_seed, self.settings.derive_pool
        # Not for secrecy: a seeded, reproducible sample (str seeds hash with SHA-512).
        rng = random.Random(f"{seed}:kin:{cand.content_group}")  # noqa: S311
        picked = rng.sample(kinfolk, min(size, len(kinfolk)))
        known = self.known_pool(cand.task, _namespace(cand.answer))
        rng = random.Random(f"{seed}:{cand.content_group}")  # noqa: S311
        sample = rng.sample(known, min(size, len(known)))
        return [*sorted(picked), *sorted(sample)]


def _namespace(concept_id: str) -> str:
    return concept_id.split(":", 1)[0]


SAMPLES_KEPT = 100_000
"""Pooled samples kept at most (then forgotten): one per content group in a run."""
UNFIT = "not seen in the cohort's patients of this sex and life stage"
GUARD_REASONS = {
    "same": "the answer or a synonym of it",
    "ancestor": "an ancestor of the answer",
    "descendant": "a descendant of the answer",
    "patient_has": "the patient has it",
    "retired": "retired, or not a concept of a loaded vocabulary",
}


GRAPH_GUARDS = ("same", "ancestor", "descendant")
"""The guards the graph decides whoever the patient is, in ``GUARD_REASONS`` order: they
come before "patient_has", which comes before "retired"."""


def _guarded(check: dict[str, Any]) -> dict[str, Any]:
    """A ``derive/distractor_guard`` check with ``guard``: the first graph guard it meets."""
    check["guard"] = next((k for k in GRAPH_GUARDS if check[k]), None)
    return check


LURE_ORDER = {"patient_specific": 0, "same_area": 1, "same_system": 1}


def choice_order(
    seed: int, candidate: Candidate, concept: str, outcome: Outcome
) -> tuple[int, int, str]:
    """Hardest lures first: specific to this patient, then in the answer's therapeutic area
    or body system, then the rest; within a kind, nearest to the answer (the fewest is-a
    steps through a shared non-hub ancestor); candidates that meet the topic only at
    general concepts, and ties, in a seeded order (so no one far-away concept serves every
    item)."""
    closeness = 99 if outcome.closeness is None else outcome.closeness
    return (
        LURE_ORDER.get(outcome.lure, 2),
        closeness,
        rank(seed, candidate.content_group, concept),
    )


def choose(
    candidate: Candidate, screened: Screened, seed: int, n_options: int, skip: int = 0
) -> list[tuple[str, str]] | None:
    """``n_options - 1`` admissible distractors (id, name), hardest lures first, nearest to
    the answer first (hard but unambiguous), ties in a seeded order, distinct by name and
    by family (no two sharing a parent, nor one the parent of another: ``Outcome.kin``);
    ``skip``: leave out the first ``skip`` of that order (another variant of the same
    content). None when the pool cannot give that many."""
    taken = {exact_key(screened.answer_name or candidate.answer_text)}
    chosen: list[tuple[str, str]] = []

    def order(concept: str) -> tuple[int, int, str]:
        return choice_order(seed, candidate, concept, screened.outcomes[concept])

    kin: set[str] = set()
    for concept in sorted(screened.names, key=order)[skip:]:
        name = screened.names[concept]
        family = screened.outcomes[concept].kin
        if exact_key(name) in taken or family & kin:
            continue
        taken.add(exact_key(name))
        kin |= family
        chosen.append((concept, name))
        if len(chosen) == n_options - 1:
            return chosen
    return None
