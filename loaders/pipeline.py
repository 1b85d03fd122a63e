"""Runs any loader against the graph: the one place batching, progress, rejects, release
bookkeeping and retirement happen.

Batched mode (the default) sends each step's rows in batches of ``batch_size`` to constant
statements; it is idempotent and safe to rerun after an interruption. Bulk mode (see
:mod:`loaders.bulk`) writes node and relationship CSVs for ``neo4j-admin database import``
into an empty local database and then runs the remaining steps batched.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgverify.config import Settings
from kgverify.errors import LoadError, RejectThresholdError
from kgverify.graph.driver import Graph, batched
from kgverify.graph.model import RelType
from kgverify.graph.queries import get_query
from kgverify.graph.schema import ensure_schema
from loaders.base import Release, Row, Step, VocabularyLoader
from loaders.report import LoadReport, RejectSink, Tally

log = logging.getLogger(__name__)
ProgressFactory = Callable[[str, int], AbstractContextManager[Callable[[int], None]]]


def no_progress(label: str, total: int) -> AbstractContextManager[Callable[[int], None]]:
    """A progress reporter that reports nothing (library use, ``--json``)."""
    return nullcontext(lambda done: None)


def default_rejects_path(settings: Settings, release: Release) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    return settings.cache_dir / "rejects" / f"{release.id.replace('@', '-')}-{stamp}.jsonl"


def check_not_older(graph: Graph, release: Release, force: bool) -> None:
    """Refuse to load a release older than the vocabulary's current one (unless forced)."""
    latest = graph.read("load/latest_release", vocab=release.vocab.value)
    if latest and latest[0]["sort_key"] > release.sort_key and not force:
        raise LoadError(
            f"{release.id} is older than the loaded {latest[0]['id']}; pass --force to load it"
        )


def step_params(query: str, release: Release) -> dict[str, Any]:
    """The fixed parameters a step query declares (besides ``rows``)."""
    fixed = {"vocab": release.vocab.value, "release": release.id}
    return {k: fixed[k] for k in get_query(query).params if k != "rows"}


def run_step_batched(
    graph: Graph,
    step: Step,
    release: Release,
    tally: Tally,
    batch_size: int,
    progress: ProgressFactory,
) -> None:
    """Stream one step's rows to its queries; dangling rows become rejects."""
    params = {q: step_params(q, release) for q in step.queries}
    started = time.monotonic()
    with progress(f"{step.file.name}: {step.label}", step.file.stat().st_size) as advance:
        for batch in batched(step.rows(tally), batch_size):
            if step.kind == "edges":
                check_types(batch)
            for query in step.queries:
                result = graph.write(query, rows=batch, **params[query])
                written = result[0].get("written") if result else None
                if step.references and written is not None and written < len(batch):
                    reject_dangling(graph, batch, step.references, tally)
            advance(tally.bytes)
    log.info(
        "%s %s: %s in %.1f s",
        release.id,
        step.label,
        tally.report().model_dump(include={"read", "loaded", "skipped", "rejected"}),
        time.monotonic() - started,
    )


def check_types(batch: list[Row]) -> None:
    """Every relationship type sent as a dynamic ``$(row.type)`` is one of ``RelType``."""
    for row in batch:
        RelType(row["type"])  # ValueError on anything else: a loader bug, not bad input


def reject_dangling(
    graph: Graph, batch: list[Row], references: tuple[str, ...], tally: Tally
) -> None:
    """Find the rows of a batch that name a missing concept and turn them into rejects."""
    ids = sorted({row[ref] for row in batch for ref in references})
    missing = set(graph.read("load/missing_concepts", ids=ids)[0]["missing"])
    for row in batch:
        reject_if_dangling(row, references, missing, tally)


def reject_if_dangling(
    row: Row, references: tuple[str, ...], missing: set[str], tally: Tally
) -> bool:
    """Reject ``row`` (all the lines it stands for) if it names a missing concept."""
    absent = [row[ref] for ref in references if row[ref] in missing]
    if not absent:
        return False
    count = int(row.get("count") or 1)
    tally.loaded -= count
    names = " and ".join(absent)
    for _ in range(count):
        tally.reject(row.get("line"), f"dangling reference: {names} not loaded", names)
    return True


def load(
    loader: VocabularyLoader,
    graph: Graph,
    *,
    settings: Settings | None = None,
    rejects_path: Path | None = None,
    progress: ProgressFactory = no_progress,
) -> LoadReport:
    """Load one release through the batched path and return its report.

    Raises RejectThresholdError (after the load is complete and recorded) when the share of
    rejected rows is above ``settings.max_reject_share``.
    """
    settings = settings or Settings()
    started = time.monotonic()
    release = loader.release()
    check_not_older(graph, release, loader.options.force)
    ensure_schema(graph)
    rejects = RejectSink(rejects_path or default_rejects_path(settings, release))
    report = LoadReport(loader=loader.name, release=release.id, mode="batched")
    begin_release(graph, loader, release, "batched")
    try:
        for step in loader.steps():
            tally = Tally(step.file.name, rejects)
            run_step_batched(graph, step, release, tally, settings.batch_size, progress)
            report.files.append(tally.report())
    finally:
        rejects.close()
        loader.close()
    finish(graph, release, report, rejects, settings, started, retire=True)
    return report


def begin_release(graph: Graph, loader: VocabularyLoader, release: Release, mode: str) -> None:
    graph.write(
        "load/begin_release",
        release=release.id,
        vocab=release.vocab.value,
        version=release.version,
        sort_key=release.sort_key,
        mode=mode,
        path=str(loader.path.resolve()),
        options=loader.options.model_dump_json(),
    )


def finish(
    graph: Graph,
    release: Release,
    report: LoadReport,
    rejects: RejectSink,
    settings: Settings,
    started: float,
    *,
    retire: bool,
) -> None:
    """Retire what the release dropped, record the report, apply the reject threshold."""
    if retire:
        params = {"vocab": release.vocab.value, "release": release.id}
        report.retired_concepts = graph.write_autocommit("load/retire_concepts", **params)[0][
            "retired"
        ]
        report.retired_relationships = graph.write_autocommit(
            "load/retire_relationships", **params
        )[0]["retired"]
    report.rejects_path = str(rejects.path) if rejects.count else None
    over = report.reject_share > settings.max_reject_share
    report.status = "rejected" if over else "complete"
    report.seconds = round(time.monotonic() - started, 3)
    graph.write(
        "load/finish_release",
        release=release.id,
        status=report.status,
        report=json.dumps(report.model_dump(), default=str),
        rows_read=report.read,
        rows_rejected=report.rejected,
    )
    if over:
        raise RejectThresholdError(
            report,
            f"{release.id}: {report.rejected} of {report.read} rows rejected "
            f"({report.reject_share:.2%} > {settings.max_reject_share:.2%}); "
            f"see {report.rejects_path}",
        )
