"""Runs: every ingest of an EHR source (``kgverify ingest``, ``api.pipeline``, ``kgverify
run``, ``kgverify sample``) is a ``(:Run)`` with its source, time, settings hash and the
patients it brought (``(:Patient)-[:IN_RUN]->(:Run)``). Derivation reads the patients of one
run (by default the latest), so a run's dataset holds only its own patients; the items it
derived are linked to it (``DERIVED_IN``) and its figures kept on it, for ``kgverify runs``
and ``kgverify runs diff`` (docs/runs.md)."""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, Field

from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph

LATEST, ALL = "latest", "all"


def new_run_id() -> str:
    """A run id that sorts by time and reads as one: ``20261205-153012-a1b2c3`` (UTC)."""
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


class RunRecord(BaseModel):
    """One run as the graph keeps it."""

    id: str
    source: str | None = None
    source_path: str | None = None
    settings: str | None = Field(None, description="hash of the settings that shape outputs")
    status: str | None = Field(None, description="running (or killed) until complete")
    started_at: str | None = None
    finished_at: str | None = None
    patients: int = 0
    items: int | None = Field(None, description="items derived from its patients, ever")
    current_items: int | None = Field(None, description="of those, the ones current now")
    ingest: dict[str, Any] | None = Field(None, description="the ingest's report")
    derived: dict[str, Any] | None = Field(
        None, description="the latest derivation's figures: items per task, policy, settings"
    )


def _record(row: dict[str, Any]) -> RunRecord:
    data = dict(row)
    for key in ("ingest", "derived"):
        if isinstance(data.get(key), str):
            data[key] = json.loads(data[key])
    return RunRecord.model_validate(data)


class RunScope(BaseModel):
    """Whose patients a derivation reads: one run's (``run``) or every patient (None)."""

    run: str | None
    patients: int
    note: str = Field(description="one line saying which, for the command's output")


def begin_run(graph: Graph, source: str, source_path: str, settings: str) -> str:
    """A new ``(:Run)`` (status running); its id."""
    run = new_run_id()
    graph.write("runs/begin_run", id=run, source=source, source_path=source_path, settings=settings)
    return run


def finish_run(graph: Graph, run: str, report: BaseModel) -> int:
    """Mark ``run`` complete with the ingest's ``report``; the patients it brought."""
    rows = graph.write("runs/finish_run", id=run, report=report.model_dump_json())
    return int(rows[0]["patients"]) if rows else 0


def get_run(graph: Graph, run: str | None = None) -> RunRecord | None:
    """Run ``run``, or the latest complete one (None when there is none)."""
    rows = graph.read("runs/get_run", id=run)
    return _record(rows[0]) if rows else None


def list_runs(graph: Graph, limit: int = 100) -> list[RunRecord]:
    """Runs, newest first."""
    return [_record(row) for row in graph.read("runs/list_runs", limit=limit)]


def _all_patients(graph: Graph) -> int:
    return int(graph.read("runs/count_patients")[0]["patients"])


def resolve_run(graph: Graph, wanted: str) -> RunScope:
    """``wanted`` (the ``derive_run`` setting: latest, all or a run id) as a scope; an id
    the graph does not hold is one error line pointing to ``kgverify runs``."""
    if wanted == ALL:
        total = _all_patients(graph)
        return RunScope(run=None, patients=total, note=f"every patient in the graph ({total})")
    found = get_run(graph, None if wanted == LATEST else wanted)
    if found is None and wanted != LATEST:
        raise ConfigError(f"no run {wanted} in the graph (see `kgverify runs`)")
    if found is None:
        # A graph ingested before runs existed (or by ingest() directly): its patients.
        total = _all_patients(graph)
        return RunScope(run=None, patients=total, note=f"no run recorded: every patient ({total})")
    which = "the latest run" if wanted == LATEST else "run"
    return RunScope(
        run=found.id,
        patients=found.patients,
        note=f"{which} {found.id}: {found.patients} patients from {found.source} "
        "(--run ID for another, --all-patients for every patient)",
    )


def record_derivation(graph: Graph, run: str, derived: dict[str, Any]) -> None:
    """Keep what the latest derivation from ``run``'s patients gave on the run."""
    graph.write("runs/record_derivation", id=run, derived=json.dumps(derived, sort_keys=True))


class Overlap(BaseModel):
    both: int = 0
    only_a: int = 0
    only_b: int = 0


class RunDiff(BaseModel):
    """Two runs side by side: their figures, what differs, and how their patients and
    derived items overlap."""

    a: RunRecord
    b: RunRecord
    differences: dict[str, list[Any]] = Field(
        description="figure -> [value in a, value in b], only where they differ"
    )
    patients: Overlap
    items: Overlap


def _figures(run: RunRecord) -> dict[str, Any]:
    """The comparable figures of a run, flattened (source, settings, counts, policy)."""
    flat: dict[str, Any] = {
        "source": run.source,
        "settings": run.settings,
        "patients": run.patients,
        "items": run.items,
    }
    for key in ("patients", "encounters", "facts", "known", "unknown"):
        flat[f"ingest.{key}"] = (run.ingest or {}).get("ingest", {}).get(key)
    derived = run.derived or {}
    for task, splits in sorted((derived.get("items") or {}).items()):
        for split, n in sorted(splits.items()):
            flat[f"items.{task}.{split}"] = n
    flat["policy"] = derived.get("policy")
    flat["derive_settings"] = derived.get("settings")
    flat["releases"] = derived.get("releases")
    return flat


def diff_runs(graph: Graph, a: str, b: str) -> RunDiff:
    """Compare runs ``a`` and ``b`` (ids; each must exist and differ)."""
    if a == b:
        raise ConfigError(f"runs diff needs two different runs, got {a} twice")
    runs = {r.id: r for r in list_runs(graph, limit=1_000_000) if r.id in (a, b)}
    for wanted in (a, b):
        if wanted not in runs:
            raise ConfigError(f"no run {wanted} in the graph (see `kgverify runs`)")
    first, second = _figures(runs[a]), _figures(runs[b])
    differences = {
        k: [first.get(k), second.get(k)]
        for k in sorted(first.keys() | second.keys())
        if first.get(k) != second.get(k)
    }
    overlap = {
        row["what"]: Overlap(both=row["both"], only_a=row["only_a"], only_b=row["only_b"])
        for row in graph.read("runs/compare_runs", a=a, b=b)
    }
    return RunDiff(
        a=runs[a],
        b=runs[b],
        differences=differences,
        patients=overlap.get("patients", Overlap()),
        items=overlap.get("items", Overlap()),
    )
