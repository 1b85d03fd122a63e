"""Judged actions and graded checkpoints into the graph, in batches, for the audit queries
``actions_by_verdict`` and ``task_checkpoints`` (``queries/actions/write_actions.cypher``,
``write_checkpoints.cypher``). Text-free: a note's words are never written; reasons name concepts
and facts, not what the agent wrote."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from kgverify.actions.model import ActionVerdict, CheckpointResult, Task
from kgverify.graph.driver import Graph


def action_row(v: ActionVerdict) -> dict[str, Any]:
    paths = [p for f in v.findings for p in f.evidence]
    return {
        "id": v.action_id,
        "task_id": v.task_id,
        "patient_id": v.patient_id,
        "resource_type": v.resource_type,
        "kind": v.kind,
        "as_of": v.as_of.isoformat() if v.as_of else None,
        "code": v.code,
        "concept": v.concept,
        "verdict": v.verdict.value,
        "reason": v.reason,
        "findings": [f.verdict.value for f in v.findings],
        # The paths in words with rule and stance, as JSON text: a property holds no map.
        "evidence": json.dumps([p.model_dump(mode="json") for p in paths]),
        "releases": v.releases,
        "evidence_concepts": sorted({e for p in paths for x in p.edges for e in (x.start, x.end)}),
        "facts": sorted({f.fact for f in v.findings if f.fact}),
    }


def checkpoint_row(task: Task, r: CheckpointResult) -> dict[str, Any]:
    return {
        "id": f"{r.task_id}/{r.checkpoint}",
        "task_id": r.task_id,
        "checkpoint": r.checkpoint,
        "kind": r.kind,
        "description": r.description,
        "passed": r.passed,
        "reason": r.reason,
        "patient_id": task.patient_id,
        "actions": r.actions,
    }


class ActionStore:
    """Buffers rows and writes them ``batch`` at a time; a row the database refuses costs
    only itself (``Graph.write_rows`` bisects) and is counted. Actions are written before
    the checkpoints that point at them."""

    def __init__(self, graph: Graph, batch: int = 500) -> None:
        self.graph = graph
        self.batch = max(1, batch)
        self.actions: list[dict[str, Any]] = []
        self.checkpoints: list[dict[str, Any]] = []
        self.written = 0
        self.not_written = 0

    def add(self, verdict: ActionVerdict) -> None:
        self.actions.append(action_row(verdict))
        if len(self.actions) >= self.batch:
            self._write("actions/write_actions", self.actions)
            self.actions = []

    def add_checkpoints(self, task: Task, results: Iterable[CheckpointResult]) -> None:
        self.checkpoints += [checkpoint_row(task, r) for r in results]
        if len(self.checkpoints) >= self.batch:
            self.flush()

    def flush(self) -> None:
        rows, self.actions = self.actions, []
        self._write("actions/write_actions", rows)
        rows, self.checkpoints = self.checkpoints, []
        self._write("actions/write_checkpoints", rows)

    def _write(self, statement: str, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return

        def refused(row: dict[str, Any], reason: str) -> None:
            self.not_written += 1

        for results in self.graph.write_rows(statement, rows, refused):
            self.written += sum(int(r["written"]) for r in results)
