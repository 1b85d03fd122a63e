"""Derivation runs: QA items and fact sheets from the graph, written to a folder (and, for
items, back into the graph). The Python API (``kgverify.api.derive_qa`` /
``derive_facts``) and ``kgverify derive`` call these."""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from kgverify.config import Settings
from kgverify.derive.export import (
    CardFacts,
    QAWriter,
    clear_pending,
    partial_dir,
    publish_items,
    write_schema,
)
from kgverify.derive.items import RunContext, derive_items, finished_items
from kgverify.derive.justify import rules_version
from kgverify.derive.model import (
    SHEETS,
    SHEETS_GZIP,
    DeriveReport,
    FactSheet,
    FactsReport,
    Task,
)
from kgverify.derive.pages import (
    QAJob,
    QAPagesOpener,
    SheetPagesOpener,
    local_qa_pages,
    local_sheet_pages,
)
from kgverify.derive.sheetfile import SheetLine, write_sheets
from kgverify.derive.splits import ItemStore
from kgverify.graph.driver import Graph
from kgverify.graph.schema import ensure_schema
from kgverify.review.state import ReviewState
from kgverify.runs import ALL, RunScope, record_derivation, resolve_run
from kgverify.verify.verifier import FilterPolicy

Progress = Callable[[int], None]


STORED_POLICY = "stored"  # what items record when derivation used the stored passed flags


def policy_key(policy: FilterPolicy) -> str:
    """``policy@<hash>`` of a filter policy: what every item records it passed."""
    return "policy@" + hashlib.sha256(json.dumps(policy_facts(policy)).encode()).hexdigest()[:10]


def derivation_policy(settings: Settings, policy: FilterPolicy | None) -> FilterPolicy | None:
    """The policy derivation re-applies to the stored verdicts, scores and confidences: the
    one passed in, else the settings' when a policy setting was given (an option, the
    environment, the config file); None: each assertion's stored ``passed`` decides."""
    if policy is not None:
        return policy
    return FilterPolicy.from_settings(settings) if settings.policy_given else None


def policy_facts(policy: FilterPolicy) -> dict[str, object]:
    return {
        "accept": sorted(v.value for v in policy.accept),
        "min_score": policy.min_score,
        "min_confidence": policy.min_confidence,
    }


# verify_* settings that decide how fast, not what: the same graph and seed give the same
# card on a machine with another CPU count or cache size.
# derive_run says whose patients, not how: the card names the run itself.
NOT_SHAPING = frozenset({"verify_parallel", "verify_cache", "derive_run"})


def settings_digest(settings: Settings) -> str:
    """Hash of the settings that shape items (derive_*, verify_*), for the dataset card."""
    shaping = {
        k: v
        for k, v in settings.model_dump(mode="json").items()
        if k.startswith(("derive_", "verify_")) and k not in NOT_SHAPING
    }
    return hashlib.sha256(json.dumps(shaping, sort_keys=True).encode()).hexdigest()[:12]


def run_qa(
    graph: Graph,
    settings: Settings,
    out: Path,
    *,
    tasks: set[Task] | None = None,
    write: bool = True,
    progress: Progress | None = None,
    policy: FilterPolicy | None = None,
    pages: QAPagesOpener = local_qa_pages,
) -> DeriveReport:
    """QA items of every patient into ``out`` (and the graph, with ``write``). ``pages``
    (an engine's) works on the pages of patients; the item store, files and graph writes
    stay here, so every engine gives the same bytes."""
    started = time.perf_counter()
    tasks = tasks or set(Task)
    report = DeriveReport(out=str(out))
    run = uuid.uuid4().hex
    if write:
        ensure_schema(graph)
        clear_pending(graph, run)  # what a run killed before publishing left behind
    settings, scope = _scoped(graph, settings)
    report.run, report.scope = scope.run, scope.note
    applied = derivation_policy(settings, policy)
    context = RunContext(
        releases=[r["id"] for r in graph.read("verify/current_releases")],
        policy=policy_key(applied) if applied is not None else STORED_POLICY,
    )
    report.releases, report.policy = context.releases, context.policy
    report.policy_values = policy_facts(applied) if applied is not None else None
    reviews = ReviewState.read(graph)
    job = QAJob(settings=settings, tasks=frozenset(tasks), policy=applied, reviews=reviews)

    def publish() -> None:
        # Between taking the old folder away and renaming the new one into place, so the
        # folder never names items the graph does not hold as current.
        report.retired = publish_items(graph, tasks, run)

    finish = publish if write else None
    with pages(settings, graph, job) as worked, partial_dir(out, finish) as folder:
        store = ItemStore(folder / ".items.sqlite", settings.derive_variants)
        try:
            derive_items(
                worked,
                reviews,
                store,
                settings,
                report,
                run=context,
                on_patient=progress,
                served=job.served,
            )
            report.splits = store.split_groups()
            report.patients_in_several_splits = store.patients_in_several_splits()
            card = CardFacts(
                settings=settings_digest(settings),
                policy=report.policy_values,
                reviews=reviews.counts,
                near_depth=settings.derive_near_depth,
                drug_near_depth=settings.derive_drug_near_depth,
                justify_version=rules_version(),
                dates=settings.date_shift(),
            )
            writer = QAWriter(
                folder, graph if write else None, run, report, settings.batch_size, card
            )
            writer.write(finished_items(store, settings.derive_options))
        finally:
            store.close()
    report.items = {t: dict(sorted(s.items())) for t, s in sorted(report.items.items())}
    report.positions = {t: dict(sorted(p.items())) for t, p in sorted(report.positions.items())}
    if write and report.run is not None:
        derived = {
            "items": report.items,
            "policy": report.policy,
            "settings": settings_digest(settings),
            "releases": report.releases,
        }
        record_derivation(graph, report.run, derived)
    report.seconds = round(time.perf_counter() - started, 3)
    return report


def _scoped(graph: Graph, settings: Settings) -> tuple[Settings, RunScope]:
    """``settings`` with ``derive_run`` resolved to one run's id (or "all"), and that scope:
    every page of patients after this reads that run's."""
    scope = resolve_run(graph, settings.derive_run)
    return settings.model_copy(update={"derive_run": scope.run or ALL}), scope


def run_facts(
    graph: Graph,
    settings: Settings,
    out: Path,
    *,
    progress: Progress | None = None,
    gzip: bool = False,
    sheet_pages: SheetPagesOpener = local_sheet_pages,
) -> FactsReport:
    """Every patient's fact sheet into ``out``; ``sheet_pages`` (an engine's) builds them."""
    started = time.perf_counter()
    settings, scope = _scoped(graph, settings)
    with sheet_pages(settings, graph) as built, partial_dir(out) as folder:
        dates = settings.date_shift()

        def sheets() -> Iterator[FactSheet]:
            for n, sheet in enumerate(built.sheets, 1):
                if progress is not None:
                    progress(n)
                # Published with this installation's dates, as the items are (same shift).
                text = dates.text(sheet.patient_id, sheet.model_dump_json())
                yield FactSheet.model_validate_json(text)

        name = SHEETS_GZIP if gzip else SHEETS
        write_sheets(sheets(), folder / name)
        write_schema(SheetLine, folder / "schema.json")
        written = (folder / name).stat().st_size
    report = built.report
    report.run, report.scope = scope.run, scope.note
    report.out = str(out)
    report.file = str(out / name)
    report.bytes = written
    report.seconds = round(time.perf_counter() - started, 3)
    return report
