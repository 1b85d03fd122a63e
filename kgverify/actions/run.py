"""Runs of the action check: actions in (JSONL records, or resources read from a FHIR
server), a verdict per action out, and tasks graded checkpoint by checkpoint
(docs/fhir.md, "Agent actions", "Task checkpoints").

A check streams: one action at a time, a verdict line each. Grading keeps one task's
actions at a time in memory (a task is one agent's episode: a handful of resources), and
the verdicts of all tasks for the report."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from kgverify.actions.judge import ActionJudge
from kgverify.actions.model import (
    ActionRecord,
    ActionsReport,
    ActionVerdict,
    ActionVerdictKind,
    Checkpoint,
    CheckpointResult,
    GradeReport,
    ParsedAction,
    Task,
    TaskGrade,
)
from kgverify.actions.resource import MalformedActionError, parse_action
from kgverify.actions.store import ActionStore
from kgverify.dialogue.matcher import MentionMatcher
from kgverify.ehr.codes import fhir_system
from kgverify.errors import ConfigError
from kgverify.graph.driver import batched
from kgverify.jsonl import BadLine, loads_line, read_models_or_rejects, reason_of, write_models
from kgverify.verify.check import PathNames

V = ActionVerdictKind
Reject = Callable[[int, str, str], None]


def read_tasks(path: Path) -> list[Task]:
    """Task files: one JSON file, or every ``*.json`` of a folder (sorted by name); a file
    that is not a task is one ``ConfigError`` line naming it and what is wrong."""
    from pydantic import ValidationError

    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not path.exists():
        raise ConfigError(f"no such tasks file or folder: {path}")
    if not files:
        raise ConfigError(f"no task files (*.json) in {path}")
    tasks = []
    for file in files:
        try:
            tasks.append(Task.model_validate(loads_line(file.read_bytes())))
        except ValueError as exc:
            reason = reason_of(exc) if isinstance(exc, ValidationError) else str(exc)
            raise ConfigError(f"{file}: not a task: {reason}") from None
    seen: set[str] = set()
    for t in tasks:
        if t.task_id in seen:
            raise ConfigError(f"{path}: task {t.task_id!r} is given twice")
        seen.add(t.task_id)
    return tasks


def read_actions(path: Path, reject: Reject) -> Iterator[ActionRecord]:
    """Action records of a JSONL file, streamed; a line that is not one goes to ``reject``
    with its number (a record whose *resource* is broken is a record: it gets a
    ``malformed`` verdict instead)."""
    if not path.is_file():
        raise ConfigError(f"no such actions file: {path}")
    for item in read_models_or_rejects(path, ActionRecord):
        if isinstance(item, BadLine):
            reject(item.line, item.reason, item.text)
            continue
        yield item


def verdict_of(judge: ActionJudge, record: ActionRecord, task: Task | None) -> ActionVerdict:
    """One record's verdict: ``malformed`` when its resource cannot be read, else the
    judge's, the record read as of the action's day (the record's ``at``, else its task's
    ``as_of``, else the resource's own date, else today)."""
    return verdicts_of(judge, [(record, task)])[0]


def verdicts_of(
    judge: ActionJudge, batch: list[tuple[ActionRecord, Task | None]]
) -> list[ActionVerdict]:
    """The verdicts of a batch of records, in order, its graph reads made together."""
    read: list[ParsedAction | ActionVerdict] = []
    for record, _ in batch:
        try:
            read.append(parse_action(record))
        except MalformedActionError as exc:
            read.append(
                ActionVerdict(
                    action_id=record.action_id,
                    task_id=record.task_id,
                    patient_id=record.patient_id,
                    resource_type=str(record.resource.get("resourceType") or "") or None,
                    verdict=V.MALFORMED,
                    reason=f"malformed resource: {exc}",
                    releases=judge.releases,
                )
            )
    today = datetime.now(UTC).date()
    work = [
        (
            item,
            record.at or (task.as_of if task else None) or item.at or today,
            task.conditions if task else [],
        )
        for item, (record, task) in zip(read, batch, strict=True)
        if isinstance(item, ParsedAction)
    ]
    judge.prefetch(work)
    judged = iter(judge.judge_many(work))
    return [item if isinstance(item, ActionVerdict) else next(judged) for item in read]


BATCH = 200
"""Actions judged together (their graph reads made in one round trip each)."""


def check_records(
    judge: ActionJudge,
    records: Iterable[ActionRecord],
    partial: Path,
    *,
    tasks: Iterable[Task] = (),
    store: ActionStore | None = None,
    progress: Callable[[int], None] | None = None,
) -> ActionsReport:
    """A verdict line per record to ``partial`` (the caller renames it into place) and,
    with ``store``, each verdict into the graph."""
    by_id = {t.task_id: t for t in tasks}
    report = ActionsReport()
    started = time.perf_counter()

    def judged() -> Iterator[ActionVerdict]:
        for chunk in batched(records, BATCH):
            yield from counted(verdicts_of(judge, [(r, by_id.get(r.task_id or "")) for r in chunk]))

    def counted(verdicts: list[ActionVerdict]) -> Iterator[ActionVerdict]:
        for verdict in verdicts:
            report.actions += 1
            report.verdicts[verdict.verdict.value] = (
                report.verdicts.get(verdict.verdict.value, 0) + 1
            )
            if store is not None:
                store.add(verdict)
            if progress is not None:
                progress(report.actions)
            yield verdict

    write_models(judged(), partial)
    if store is not None:
        store.flush()
        report.stored = store.written
    report.verdicts = dict(sorted(report.verdicts.items()))
    report.seconds = round(time.perf_counter() - started, 3)
    return report


class Grader:
    """Grades tasks: each task's actions judged with its day and named conditions, then
    each checkpoint evaluated against those verdicts and the graph."""

    def __init__(self, judge: ActionJudge) -> None:
        self.judge = judge
        self._matcher: MentionMatcher | None = None

    @property
    def matcher(self) -> MentionMatcher:
        # Built on the first note checkpoint only: it reads every concept name once.
        if self._matcher is None:
            self._matcher = MentionMatcher.from_graph(self.judge.graph, self.judge.verifier.hubs)
        return self._matcher

    def grade(
        self, tasks: list[Task], records: Iterable[ActionRecord], store: ActionStore | None = None
    ) -> GradeReport:
        by_task: dict[str, list[ActionRecord]] = {t.task_id: [] for t in tasks}
        for record in records:
            if record.task_id in by_task:
                by_task[record.task_id].append(record)
        report = GradeReport()
        for task in tasks:
            records_of = by_task[task.task_id]
            verdicts = verdicts_of(self.judge, [(r, task) for r in records_of])
            parsed = {a.action_id: a for a in _parsed(records_of)}
            results = [self.checkpoint(task, cp, verdicts, parsed) for cp in task.checkpoints]
            passed = sum(r.passed for r in results)
            report.tasks.append(
                TaskGrade(
                    task_id=task.task_id,
                    patient_id=task.patient_id,
                    actions=len(records_of),
                    passed=passed,
                    checkpoints=len(results),
                    score=round(passed / len(results), 3),
                    results=results,
                )
            )
            report.verdicts += verdicts
            if store is not None:
                for v in verdicts:
                    store.add(v)
                store.add_checkpoints(task, results)
        if store is not None:
            store.flush()
            report.stored = store.written
        report.passed = sum(t.passed for t in report.tasks)
        report.checkpoints = sum(t.checkpoints for t in report.tasks)
        if report.checkpoints:
            report.score = round(report.passed / report.checkpoints, 3)
        if report.tasks:
            report.mean_task_score = round(
                sum(t.score for t in report.tasks) / len(report.tasks), 3
            )
        return report

    def checkpoint(
        self,
        task: Task,
        cp: Checkpoint,
        verdicts: list[ActionVerdict],
        parsed: dict[str, ParsedAction],
    ) -> CheckpointResult:
        check = {
            "indicated_order": self._indicated,
            "no_verdict": self._no_verdict,
            "order_exists": self._order_exists,
            "note_mentions": self._note_mentions,
        }[cp.kind]
        passed, reason, actions = check(cp, verdicts, parsed)
        return CheckpointResult(
            task_id=task.task_id,
            checkpoint=cp.id,
            kind=cp.kind,
            description=cp.description,
            passed=passed,
            reason=reason,
            actions=actions,
        )

    def _indicated(
        self, cp: Checkpoint, verdicts: list[ActionVerdict], _: dict[str, ParsedAction]
    ) -> tuple[bool, str, list[str]]:
        assert cp.condition is not None
        [condition] = self.judge.concepts([cp.condition])
        if condition is None:
            return False, _not_known(cp), []
        orders = [
            v for v in verdicts if v.resource_type == "MedicationRequest" and v.concept is not None
        ]
        evidence = self.judge.verifier.evidence_for(
            (str(v.concept), condition.id, "treats") for v in orders
        )
        for v in orders:
            support = next(
                (
                    p
                    for p in evidence[(str(v.concept), condition.id, "treats")]
                    if p.stance == "support"
                ),
                None,
            )
            if support is not None:
                text = PathNames(self.judge.graph, [support]).path(support).text
                return (
                    True,
                    f"{v.action_id} orders {v.concept_name}, which treats {condition.name}: {text}",
                    [v.action_id],
                )
        others = [v for v in verdicts if v.resource_type == "MedicationRequest"]
        if not others:
            return False, "no MedicationRequest among the task's actions", []
        said = "; ".join(
            f"{v.action_id}: {v.verdict.value}" + (f" ({v.concept_name})" if v.concept_name else "")
            for v in others
        )
        return (
            False,
            f"no ordered drug treats {condition.name} by the vocabularies ({said})",
            [v.action_id for v in others],
        )

    def _no_verdict(
        self, cp: Checkpoint, verdicts: list[ActionVerdict], _: dict[str, ParsedAction]
    ) -> tuple[bool, str, list[str]]:
        hits = [v for v in verdicts if v.verdict is cp.verdict]
        if not hits:
            return True, f"no action of the task is {cp.verdict} ({len(verdicts)} judged)", []
        said = "; ".join(f"{v.action_id}: {v.reason}" for v in hits)
        return False, f"{len(hits)} action(s) {cp.verdict}: {said}", [v.action_id for v in hits]

    def _order_exists(
        self, cp: Checkpoint, verdicts: list[ActionVerdict], parsed: dict[str, ParsedAction]
    ) -> tuple[bool, str, list[str]]:
        wanted = {f"{fhir_system(c.system)}:{c.code}" for c in cp.codes}
        concepts = {c.id for c in self.judge.concepts(cp.codes) if c is not None}
        for v in verdicts:
            action = parsed.get(v.action_id)
            if action is None or action.resource_type != cp.resource:
                continue
            codes = {c.concept_id for c in action.codes}
            if codes & wanted or (v.concept is not None and v.concept in concepts):
                matched = sorted(codes & wanted) or [str(v.concept)]
                return (
                    True,
                    f"{v.action_id} is a {cp.resource} for {', '.join(matched)}",
                    [v.action_id],
                )
        asked = ", ".join(sorted(wanted))
        return False, f"no {cp.resource} with a code of {asked} (or its concept)", []

    def _note_mentions(
        self, cp: Checkpoint, verdicts: list[ActionVerdict], parsed: dict[str, ParsedAction]
    ) -> tuple[bool, str, list[str]]:
        assert cp.condition is not None
        [condition] = self.judge.concepts([cp.condition])
        if condition is None:
            return False, _not_known(cp), []
        notes = [a for a in parsed.values() if a.kind == "note" and a.text]
        if not notes:
            return False, "no note (DocumentReference, Communication) among the task's actions", []
        target = self._reach([condition.id])[condition.id][0]
        for note in notes:
            doc = self.matcher.doc(str(note.text))
            matches = self.matcher.find(doc)
            ids = sorted({c for m in matches for c in m.concepts})
            reach = self._reach(ids)
            for m in matches:
                for c in m.concepts:
                    same, up = reach.get(c, (set(), set()))
                    if target & (same | up):
                        how = "names" if target & same else "names a narrower concept of"
                        return (
                            True,
                            f"{note.action_id}'s note {how} {condition.name} ({condition.id}) at "
                            f"characters {m.span.start_char}-{m.span.end_char}",
                            [note.action_id],
                        )
        return (
            False,
            f"no note mentions {condition.name} ({condition.id}) or a narrower concept",
            [n.action_id for n in notes],
        )

    def _reach(self, ids: list[str]) -> dict[str, tuple[set[str], set[str]]]:
        if not ids:
            return {}
        rows = self.judge.graph.read(
            "dialogue/reach", ids=ids, hubs=self.judge.verifier.hubs, max_depth=3
        )
        return {r["id"]: ({r["id"], *r["same"]}, {u["id"] for u in r["up"]}) for r in rows}


def _parsed(records: Iterable[ActionRecord]) -> Iterator[ParsedAction]:
    for r in records:
        try:
            yield parse_action(r)
        except MalformedActionError:
            continue


def _not_known(cp: Checkpoint) -> str:
    assert cp.condition is not None
    code = f"{cp.condition.system}:{cp.condition.code}"
    return f"the task's condition {code} is not in the vocabularies"
