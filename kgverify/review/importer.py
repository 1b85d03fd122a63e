"""``kgverify review import``: a filled review sheet into the graph as ``(:Review)``
provenance, with the affected items flagged (docs/review.md).

Every data row is imported, counted blank (nothing decided), or rejected with its line and
reason (in the report and in ``SHEET.rejects.jsonl``); ``rows == imported + blank +
rejected``. Writes are batched managed write transactions and idempotent: review ids hash
item, decision, concept or assertion and reviewer, so the same sheet twice gives the same
graph. A sheet with nothing valid to import is an error (:class:`ReviewSheetError`)."""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from pathlib import Path
from typing import Any

from kgverify.graph.driver import Graph, batched
from kgverify.graph.schema import ensure_schema
from kgverify.review.model import (
    Decision,
    ItemFacts,
    RejectedSheetRow,
    Review,
    ReviewImportReport,
    SheetRow,
)
from kgverify.review.sheet import ReviewSheetError, check_row, read_sheet, reviews_of
from kgverify.rows import RejectedRow, RejectSink

log = logging.getLogger(__name__)
_FLAGGING = (Decision.REJECT.value, Decision.VETO.value, Decision.RELATION_FALSE.value)


def read_item_facts(graph: Graph, ids: list[str], batch: int) -> dict[str, ItemFacts]:
    """What the graph holds about the named items (ids it does not hold are absent)."""
    out: dict[str, ItemFacts] = {}
    for chunk in batched(ids, batch):
        for row in graph.read("review/items", ids=chunk):
            facts = ItemFacts.model_validate(row)
            out[facts.id] = facts
    return out


def _rejects_path(sheet: Path) -> Path:
    return sheet.with_name(sheet.stem + ".rejects.jsonl")


def _write_rejects(sheet: Path, rejects: list[RejectedSheetRow]) -> str | None:
    path = _rejects_path(sheet)
    path.unlink(missing_ok=True)
    if not rejects:
        return None
    sink = RejectSink(path)
    try:
        for r in rejects:
            sink.write(
                RejectedRow(file=str(sheet), line=r.line, reason=r.reason, text=r.item_id or "")
            )
    finally:
        sink.close()
    return str(path)


def _nothing_valid(sheet: Path, report: ReviewImportReport) -> ReviewSheetError:
    if not report.rejected:
        return ReviewSheetError(
            f"nothing to import from {sheet}: no row has a decision, veto, relation decision "
            f"or note ({report.blank} blank rows)"
        )
    shown = "; ".join(f"line {r.line}: {r.reason}" for r in report.rejects[:3])
    more = f"; {report.rejected - 3} more" if report.rejected > 3 else ""
    return ReviewSheetError(
        f"nothing imported from {sheet}: {report.rejected} of {report.rows} rows rejected "
        f"({shown}{more}); all in {report.rejects_path}"
    )


def check_sheet(
    graph: Graph, sheet: Path, reviewer: str | None, batch: int
) -> tuple[ReviewImportReport, list[tuple[SheetRow, list[Review]]]]:
    """Read and check every row; nothing is written to the graph."""
    report = ReviewImportReport(sheet=str(sheet))
    parsed = list(read_sheet(sheet, reviewer))
    report.rows = len(parsed)
    rejects = [p for p in parsed if isinstance(p, RejectedSheetRow)]
    todo = [p for p in parsed if isinstance(p, SheetRow) and not p.blank]
    report.blank = sum(1 for p in parsed if isinstance(p, SheetRow) and p.blank)
    facts = read_item_facts(graph, sorted({r.item_id for r in todo}), batch)
    first: dict[tuple[str, str | None], int] = {}
    accepted: list[tuple[SheetRow, list[Review]]] = []
    for row in todo:
        item = facts.get(row.item_id)
        problems = check_row(row, item)
        key = (row.item_id, row.reviewer)
        if key in first:
            problems.append(
                f"a second row for item {row.item_id!r} by {row.reviewer!r} "
                f"(first at line {first[key]})"
            )
        if problems:
            rejects.append(
                RejectedSheetRow(line=row.line, item_id=row.item_id, reason="; ".join(problems))
            )
            continue
        assert item is not None
        first[key] = row.line
        accepted.append((row, reviews_of(row, item)))
    report.rejects = sorted(rejects, key=lambda r: r.line)
    report.rejected = len(rejects)
    report.imported = len(accepted)
    return report, accepted


def import_sheet(
    graph: Graph, sheet: Path, *, reviewer: str | None = None, batch: int = 1_000
) -> ReviewImportReport:
    """Import a filled review sheet (see the module docstring)."""
    started = time.perf_counter()
    report, accepted = check_sheet(graph, sheet, reviewer, batch)
    report.rejects_path = _write_rejects(sheet, report.rejects)
    assert report.rows == report.imported + report.blank + report.rejected
    if not accepted:
        raise _nothing_valid(sheet, report)
    ensure_schema(graph)
    report.round = int(graph.read("review/next_round")[0]["round"])
    reviews = [r for _, rs in accepted for r in rs]
    # A row is the reviewer's whole word on the item: what it no longer says is retracted.
    retract_rows: list[dict[str, Any]] = [
        {"item": row.item_id, "reviewer": row.reviewer, "keep": [r.id for r in rs]}
        for row, rs in accepted
    ]
    retracted: list[str] = []
    touched_assertions = {r.assertion for r in reviews if r.assertion is not None}
    for part in batched(retract_rows, batch):
        for found in graph.write("review/retract_reviews", rows=part):
            retracted.append(str(found["id"]))
            if found["assertion"] is not None:
                touched_assertions.add(str(found["assertion"]))
    report.retracted = len(retracted)
    counts: Counter[str] = Counter()
    for some in batched(reviews, batch):
        rows = [r.model_dump(mode="json") for r in some]
        [written] = graph.write("review/write_reviews", rows=rows, round=report.round)
        report.created += int(written["created"])
        counts.update(r.decision.value for r in some)
    report.reviews = dict(sorted(counts.items()))
    judged = 0
    for ids in batched(sorted(touched_assertions), batch):
        settled = graph.write("review/settle_assertions", ids=ids)
        judged += sum(1 for s in settled if s["review"] is not None)
    report.assertions_judged = judged
    unflagged: set[str] = set()
    for ids in batched(retracted, batch):
        for found in graph.write("review/unflag_items", ids=ids):
            unflagged.update(found["unflagged"])
    report.items_unflagged = len(unflagged)
    flagged: set[str] = set()
    flagging = [r.id for r in reviews if r.decision.value in _FLAGGING]
    for ids in batched(flagging, batch):
        for found in graph.write("review/flag_items", ids=ids):
            flagged.update(i for i in found["flagged"] if i is not None)
    report.items_flagged = len(flagged)
    report.seconds = round(time.perf_counter() - started, 3)
    log.info(
        "review import: %d rows, %d imported, %d blank, %d rejected; reviews %s",
        report.rows,
        report.imported,
        report.blank,
        report.rejected,
        json.dumps(report.reviews),
    )
    return report
