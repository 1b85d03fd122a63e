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

import hashlib
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgverify.config import Settings
from kgverify.derive.model import (
    ContextFact,
    DeriveReport,
    DistractorCheck,
    Option,
    QAItem,
    Task,
)
from kgverify.derive.records import PatientRecord, RecordAssertion, RecordFact
from kgverify.derive.templates import describe_context, describe_patient, template
from kgverify.extract.relation import Predicate
from kgverify.graph.driver import Graph, batched
from kgverify.verify.rules import SUPPORT
from kgverify.verify.verifier import Triple, Verifier

SPLITS = ("train", "validation", "test")
LABELS = "ABCDEFGHIJ"
SETTINGS_WORDS = {
    "inpatient": "an inpatient stay",
    "outpatient": "an outpatient visit",
    "emergency": "an emergency visit",
}
# The predicate a context fact of each role would need, to make a candidate a right answer
# too (diagnosis: a drug given or a finding seen that points at the candidate instead).
CLUE_PREDICATE = {"medication": "treats", "finding": "indicates", "test": "indicates"}
POOL_KINDS: dict[Task, list[str]] = {
    Task.DIAGNOSIS: ["disorder"],
    Task.TREATMENT: ["ingredient", "substance"],
    Task.PROGNOSIS: ["disorder", "finding"],
}


@dataclass
class Candidate:
    """An item before its distractors are chosen."""

    task: Task
    patient: PatientRecord
    episode: str
    answer: str
    answer_text: str
    context: list[ContextFact]
    basis: list[str]
    rules: list[str]
    # Rule checks that must find no support for a distractor, which takes the check's slot:
    # (distractor, condition, "treats") or (clue, distractor, "indicates").
    checks: list[DistractorCheck]
    values: dict[str, str]
    dedupe: str
    pool: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.task.value}|{self.patient.patient_id}|{self.episode}|{self.answer}"


def split_of(patient_id: str, seed: int, fractions: dict[str, float]) -> str:
    """The patient's split, from a hash of seed and patient id: stable as patients are added,
    never two splits for one patient."""
    digest = hashlib.sha256(f"{seed}:{patient_id}".encode()).hexdigest()
    point = int(digest[:12], 16) / 16**12
    total = sum(fractions.values())
    edge = 0.0
    for name in SPLITS:
        edge += fractions.get(name, 0.0) / total
        if point < edge:
            return name
    return SPLITS[-1]


def filter_reason(assertion: RecordAssertion) -> str:
    """Why an assertion did not pass into derivation, as a report key."""
    if assertion.verdict != "supported":
        return f"verdict {assertion.verdict}"
    return "supported, below the policy's score or confidence"


# -- candidates -------------------------------------------------------------------------------


def _context_fact(fact: RecordFact, role: str) -> ContextFact:
    return ContextFact(
        fact_id=fact.id, role=role, text=fact.text, concept_id=fact.concept, start=fact.start
    )


def _history(record: PatientRecord, before: int, limit: int, skip: str) -> list[ContextFact]:
    return [_context_fact(f, "history") for f in record.history(before, limit, skip)]


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
                out.append(_context_fact(fact, "finding"))
            elif conditions and not (omit and fact.names_concept(omit)):
                out.append(_context_fact(fact, "condition"))
        elif fact.kind in ("measurement", "procedure"):
            out.append(_context_fact(fact, "test"))
        elif fact.kind == "drug" and drugs:
            out.append(_context_fact(fact, "medication"))
    return out


def _seen_by(record: PatientRecord, upto: int, concept: str) -> bool:
    """The patient has a fact of ``concept`` in episodes 0..upto."""
    return any(f.names_concept(concept) for e in record.episodes[: upto + 1] for f in e.facts)


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


def candidates_for(
    record: PatientRecord, settings: Settings, skipped: Counter[str]
) -> Iterator[Candidate]:
    """Every item candidate of one patient, in episode order."""
    passed = [a for a in record.assertions if a.passed and a.subject_id and a.object_id]
    diagnoses: dict[tuple[int, str], list[RecordAssertion]] = {}
    for a in passed:
        if a.predicate not in ("treats", "indicates", "leads_to"):
            continue
        where = record.episode_of(a, "object")
        at = record.episode_index(where) if where else None
        if at is None:
            skipped["no record fact for the relation"] += 1
            continue
        if a.predicate in ("treats", "indicates"):
            diagnoses.setdefault((at, str(a.object_id)), []).append(a)
        if a.predicate == "treats":
            yield from _treatment(record, a, at, settings)
        if a.predicate == "leads_to":
            yield from _prognosis(record, a, at, settings, skipped)
    for (at, answer), basis in sorted(diagnoses.items()):
        yield from _diagnosis(record, at, answer, basis, settings, skipped)


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
    checks = [
        DistractorCheck.of(f.concept_id, None, CLUE_PREDICATE[f.role])
        for f in context
        if f.role in CLUE_PREDICATE and f.concept_id
    ]
    yield Candidate(
        task=Task.DIAGNOSIS,
        patient=record,
        episode=record.episodes[at].key,
        answer=answer,
        answer_text=basis[0].object_name or answer,
        context=context,
        basis=sorted({a.id for a in basis}),
        rules=sorted({a.rule_key for a in basis if a.rule_key}),
        checks=checks,
        values=_values(record, at),
        dedupe=f"diagnosis|{record.patient_id}|{answer}",
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
        rules=[a.rule_key] if a.rule_key else [],
        checks=[DistractorCheck.of(None, condition, "treats")],
        values={**_values(record, at), "condition": a.object_name or condition},
        dedupe=f"treatment|{record.patient_id}|{condition}|{drug}",
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
        rules=[a.rule_key] if a.rule_key else [],
        checks=[DistractorCheck.of(cause, None, "leads_to") for cause in dict.fromkeys(causes)],
        values={**_values(record, at), "condition": a.subject_name or cause},
        dedupe=f"prognosis|{record.patient_id}|{a.subject_id}|{outcome}",
    )


# -- distractors ------------------------------------------------------------------------------


@dataclass
class Screened:
    """A candidate's checked distractor pool."""

    names: dict[str, str] = field(default_factory=dict)  # concept id -> name, wrong ones
    answer_name: str = ""


class DistractorScreen:
    """Pools and proves distractors wrong, for a page of candidates at a time."""

    def __init__(self, graph: Graph, verifier: Verifier, settings: Settings) -> None:
        self.graph = graph
        self.verifier = verifier
        self.settings = settings
        self.rejected: Counter[str] = Counter()

    def screen(self, candidates: list[Candidate]) -> list[Screened]:
        self._pools(candidates)
        out = [Screened() for _ in candidates]
        pools: list[list[str]] = []
        for c in candidates:
            keep = []
            for d in dict.fromkeys(c.pool):
                if d == c.answer:
                    self.rejected[GUARD_REASONS["same"]] += 1
                # Options in one vocabulary only: mixed naming styles would give the
                # answer away ("Heart Valve Diseases" beside SNOMED CT's wording).
                elif _namespace(d) != _namespace(c.answer):
                    self.rejected["another vocabulary than the answer's"] += 1
                else:
                    keep.append(d)
            pools.append(keep)
        guarded: dict[tuple[int, str], str] = {}
        rows = [
            {
                "rid": n,
                "answer": c.answer,
                "patient_id": c.patient.patient_id,
                "candidates": pools[n],
            }
            for n, c in enumerate(candidates)
        ]
        for part in batched(rows, 500):
            for row in self.graph.read("derive/distractor_guard", rows=part):
                n = row["rid"]
                out[n].answer_name = row["answer_name"] or candidates[n].answer
                for check in row["checked"]:
                    reason = next(
                        (k for k in ("same", "ancestor", "descendant", "patient_has") if check[k]),
                        None,
                    )
                    if reason:
                        self.rejected[GUARD_REASONS[reason]] += 1
                    else:
                        guarded[(n, check["id"])] = check["name"] or check["id"]
        triples: dict[Triple, list[tuple[int, str]]] = {}
        for (n, d), _name in guarded.items():
            for check in candidates[n].checks:
                triples.setdefault(check.triple(d), []).append((n, d))
        supported: dict[tuple[int, str], str] = {}
        for chunk in batched(list(triples), 5_000):
            for triple, paths in self.verifier.evidence_for(chunk).items():
                support = [p for p in paths if p.stance == "support"]
                if support:
                    for hit in triples[triple]:
                        supported.setdefault(hit, support[0].rule)
        for (n, d), name in guarded.items():
            if (n, d) in supported:
                self.rejected[f"a rule supports it ({supported[(n, d)]})"] += 1
            else:
                out[n].names[d] = name
        return out

    def _pools(self, candidates: list[Candidate]) -> None:
        rows = [
            {"rid": n, "concept": c.answer, "kinds": POOL_KINDS[c.task]}
            for n, c in enumerate(candidates)
        ]
        for chunk in batched(rows, 2_000):
            for row in self.graph.read(
                "derive/sibling_pool",
                rows=chunk,
                hubs=self.verifier.hubs,
                limit=self.settings.derive_pool,
            ):
                cand = candidates[row["rid"]]
                cand.pool = list(dict.fromkeys([*cand.pool, *row["pool"]]))


def _namespace(concept_id: str) -> str:
    return concept_id.split(":", 1)[0]


def display(name: str) -> str:
    """Option text with an upper-case first letter: vocabularies differ in case, and case
    must not tell the answer from the distractors."""
    return name[:1].upper() + name[1:]


GUARD_REASONS = {
    "same": "the answer or a synonym of it",
    "ancestor": "an ancestor of the answer",
    "descendant": "a descendant of the answer",
    "patient_has": "the patient has it",
}


def _rank(seed: int, key: str, concept: str) -> str:
    return hashlib.sha256(f"{seed}:{key}:{concept}".encode()).hexdigest()


def choose(
    candidate: Candidate, screened: Screened, seed: int, n_options: int
) -> list[tuple[str, str]] | None:
    """``n_options - 1`` distractors (id, name), in a seeded order, distinct by name; None
    when the pool cannot give that many."""
    from kgverify.link.normalize import exact_key

    taken = {exact_key(screened.answer_name or candidate.answer_text)}
    chosen: list[tuple[str, str]] = []
    for concept in sorted(screened.names, key=lambda c: _rank(seed, candidate.key, c)):
        name = screened.names[concept]
        if exact_key(name) in taken:
            continue
        taken.add(exact_key(name))
        chosen.append((concept, name))
        if len(chosen) == n_options - 1:
            return chosen
    return None


# -- items ------------------------------------------------------------------------------------


def draft(
    candidate: Candidate, screened: Screened, distractors: list[tuple[str, str]], seed: int
) -> dict[str, Any]:
    """The item without split or answer position (those need the whole run)."""
    qt = template(candidate.task)
    answer_text = screened.answer_name or candidate.answer_text
    question = qt.render(**candidate.values, context=describe_context(candidate.context))
    options = [(candidate.answer, answer_text), *distractors]
    content = json.dumps(
        [
            candidate.task.value,
            candidate.patient.patient_id,
            candidate.episode,
            question,
            sorted(c for c, _ in options),
            candidate.answer,
            qt.version,
        ]
    )
    return {
        "item_id": hashlib.sha256(content.encode()).hexdigest()[:20],
        "task": candidate.task.value,
        "patient_id": candidate.patient.patient_id,
        "episode": candidate.episode,
        "question": question,
        "context": [c.model_dump() for c in candidate.context],
        "answer_option": list(options[0]),
        "distractors": [list(d) for d in distractors],
        "answer_concept": candidate.answer,
        "basis": candidate.basis,
        "rules": candidate.rules,
        "checks": [c.model_dump() for c in candidate.checks],
        "template": qt.version,
        "seed": seed,
    }


def finish(drafted: dict[str, Any], split: str, position: int) -> QAItem:
    """Place the answer at ``position`` among the distractors and label the options."""
    ordered = [tuple(d) for d in drafted["distractors"]]
    ordered.insert(position, tuple(drafted["answer_option"]))
    options = [
        Option(label=LABELS[i], concept_id=concept, text=display(text))
        for i, (concept, text) in enumerate(ordered)
    ]
    fields = {k: v for k, v in drafted.items() if k not in ("answer_option", "distractors")}
    return QAItem(
        **fields,
        split=split,
        options=options,
        answer=LABELS[position],
    )


class ItemStore:
    """Drafted items on disk (SQLite): duplicates refused, then read back sorted."""

    def __init__(self, path: Path) -> None:
        path.unlink(missing_ok=True)
        self.path = path
        self.db = sqlite3.connect(path)
        self.db.execute(
            "CREATE TABLE items (task TEXT, split TEXT, item_id TEXT PRIMARY KEY, "
            "dedupe TEXT UNIQUE, content TEXT UNIQUE, payload TEXT)"
        )

    def add(self, drafted: dict[str, Any], split: str, dedupe: str) -> str | None:
        """None when stored, else the duplicate's kind."""
        content = hashlib.sha256(
            json.dumps(
                [
                    drafted["task"],
                    drafted["question"],
                    sorted(o[0] for o in drafted["distractors"]),
                    drafted["answer_concept"],
                ]
            ).encode()
        ).hexdigest()
        if self.db.execute("SELECT 1 FROM items WHERE dedupe = ?", (dedupe,)).fetchone():
            return "duplicate: the same question for this patient earlier"
        if self.db.execute("SELECT 1 FROM items WHERE content = ?", (content,)).fetchone():
            return "duplicate: the same question for another patient"
        if self.db.execute(
            "SELECT 1 FROM items WHERE item_id = ?", (drafted["item_id"],)
        ).fetchone():
            return "duplicate: the same item"
        self.db.execute(
            "INSERT INTO items VALUES (?, ?, ?, ?, ?, ?)",
            (drafted["task"], split, drafted["item_id"], dedupe, content, json.dumps(drafted)),
        )
        return None

    def groups(self) -> list[tuple[str, str]]:
        return self.db.execute(
            "SELECT DISTINCT task, split FROM items ORDER BY task, split"
        ).fetchall()

    def read(self, task: str, split: str) -> Iterator[dict[str, Any]]:
        cursor = self.db.execute(
            "SELECT payload FROM items WHERE task = ? AND split = ? ORDER BY item_id",
            (task, split),
        )
        for (payload,) in cursor:
            yield json.loads(payload)

    def close(self) -> None:
        self.db.close()
        self.path.unlink(missing_ok=True)


def derive_items(
    records: Iterable[PatientRecord],
    screen: DistractorScreen,
    store: ItemStore,
    settings: Settings,
    report: DeriveReport,
    *,
    tasks: set[Task],
    on_patient: Callable[[int], None] | None = None,
) -> None:
    """Fill ``store`` with the drafted items of every record (a page at a time)."""
    seed, n_options = settings.derive_seed, settings.derive_options
    verdicts: Counter[str] = Counter(report.assertions)
    filtered: Counter[str] = Counter(report.filtered)
    found: Counter[str] = Counter(report.candidates)
    skipped: Counter[str] = Counter(report.skipped)
    for page in batched(records, 200):
        candidates: list[Candidate] = []
        for record in page:
            report.patients += 1
            for a in record.assertions:
                verdicts[a.verdict] += 1
                if not a.passed:
                    filtered[filter_reason(a)] += 1
            for candidate in candidates_for(record, settings, skipped):
                if candidate.task in tasks:
                    found[candidate.task.value] += 1
                    candidates.append(candidate)
        for candidate, screened in zip(candidates, screen.screen(candidates), strict=True):
            distractors = choose(candidate, screened, seed, n_options)
            if distractors is None:
                short = f"{candidate.task.value}: fewer than {n_options - 1} wrong distractors"
                skipped[short] += 1
                continue
            drafted = draft(candidate, screened, distractors, seed)
            split = split_of(candidate.patient.patient_id, seed, settings.derive_splits)
            duplicate = store.add(drafted, split, candidate.dedupe)
            if duplicate:
                skipped[f"{candidate.task.value}: {duplicate}"] += 1
        if on_patient is not None:
            on_patient(report.patients)
    report.assertions = dict(sorted(verdicts.items()))
    report.filtered = dict(sorted(filtered.items()))
    report.candidates = dict(sorted(found.items()))
    report.skipped = dict(sorted(skipped.items()))
    report.distractors_rejected = dict(sorted(screen.rejected.items()))


def finished_items(store: ItemStore, n_options: int) -> Iterator[QAItem]:
    """Every stored item with its split and a balanced answer position: within each task
    and split, items in id order take positions A, B, C, ... in turn."""
    for task, split in store.groups():
        for at, drafted in enumerate(store.read(task, split)):
            yield finish(drafted, split, at % n_options)
