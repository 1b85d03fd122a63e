"""Clinician review: pages and a sheet out (``review_export``), the filled sheet in
(``review_import``), the standing decisions (``review_state``); docs/review.md."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from kgverify.api.bookkeeping import graph_of
from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph

if TYPE_CHECKING:
    from kgverify.review import ReviewExportReport, ReviewImportReport, ReviewState


def review_export(
    out: Path,
    *,
    qa: Path | None = None,
    tasks: Iterable[str] | None = None,
    sample: int | None = None,
    seed: int | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> ReviewExportReport:
    """Write clinician review pages for derived items (docs/review.md).

    From the QA folder ``qa`` (default: the sample's, ``<cache_dir>/sample/qa``), per task
    the first ``sample`` items (all when None) in an order seeded by ``seed`` (default
    ``derive_seed``), written to the new folder ``out``: ``items/<item_id>.html``,
    ``index.html``, ``sheet.csv`` to fill, ``README.txt``.

    >>> report = review_export(Path("review"), sample=10)
    >>> report.exported, report.sheet
    """
    from kgverify.derive import Task
    from kgverify.derive.qa import TASKS
    from kgverify.review.export import check_paths, default_qa, export_review

    settings = settings or Settings()
    chosen = {Task(TASKS.check(t)) for t in tasks} if tasks else None
    folder = Path(qa) if qa is not None else default_qa(settings.cache_dir)
    check_paths(Path(out), folder, sample)
    with graph_of(settings, graph) as g:
        return export_review(
            g,
            Path(out),
            folder,
            tasks=chosen,
            sample=sample,
            seed=settings.derive_seed if seed is None else seed,
            dates=settings.date_shift(),
        )


def review_import(
    sheet: Path,
    *,
    reviewer: str | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> ReviewImportReport:
    """Import a filled review sheet as ``(:Review)`` provenance (docs/review.md).

    The items the decisions take away are flagged. ``reviewer`` fills rows whose reviewer
    column is empty. Rejected rows are in ``report.rejects`` with their row (as a spreadsheet
    shows it) and reason; the other rows are imported (the CLI then exits 3).

    Raises:
        ReviewSheetError: the sheet cannot be read, or nothing in it is valid.

    >>> report = review_import(Path("review/sheet.csv"), reviewer="jd")
    >>> report.imported, report.rejected, report.items_flagged
    """
    from kgverify.review.importer import import_sheet

    settings = settings or Settings()
    if not Path(sheet).is_file():
        raise ConfigError(f"no such review sheet: {sheet}")
    with graph_of(settings, graph) as g:
        return import_sheet(
            g, Path(sheet), reviewer=reviewer, batch=max(1, min(settings.batch_size, 1_000))
        )


def review_state(*, settings: Settings | None = None, graph: Graph | None = None) -> ReviewState:
    """The standing reviewer decisions, for derivation to respect (``ReviewState``)."""
    from kgverify.review import ReviewState

    with graph_of(settings or Settings(), graph) as g:
        return ReviewState.read(g)


def review_rejects_line(report: ReviewImportReport) -> str:
    """The one error line for a sheet some of whose rows were rejected (the CLI exits 3)."""
    from kgverify.review.importer import rejects_message

    return rejects_message(report)
