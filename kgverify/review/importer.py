"""``kgverify review import``: a filled review sheet into the graph as ``(:Review)``
provenance, with the affected items flagged (docs/review.md).

Every data row is imported, counted blank (nothing decided), or rejected with its row (as a
spreadsheet shows it) and reason (in the report and in ``SHEET.rejects.jsonl``); ``rows ==
imported + blank + rejected``. One reviewer's rows on one item (the item's row and its
relation rows) are their whole word on it: imported together, or rejected together when one
of them is wrong. Writes are batched managed write transactions and idempotent: review ids hash
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
                # line: the row a spreadsheet shows, which the reviewer looks for
                RejectedRow(file=str(sheet), line=r.row, reason=r.reason, text=r.item_id or "")
            )
    finally:
        sink.close()
    return str(path)


def rejected_rows(report: ReviewImportReport, shown: int = 3) -> str:
    """``row 5: unknown decision 'maybe'; row 9: ...; 2 more``: the first rejects, by row."""
    cited = "; ".join(f"row {r.row}: {r.reason}" for r in report.rejects[:shown])
    more = report.rejected - shown
    return cited + (f"; {more} more" if more > 0 else "")


def rejects_message(report: ReviewImportReport) -> str:
    """The one line for a sheet some of whose rows were rejected."""
    return (
        f"review import: {report.rejected} of {report.rows} rows rejected, {report.imported} "
        f"imported ({rejected_rows(report)}); fix those rows and import the sheet again; all "
        f"in {report.rejects_path}"
    )


def _nothing_valid(sheet: Path, report: ReviewImportReport) -> ReviewSheetError:
    if not report.rejected:
        return ReviewSheetError(
            f"nothing to import from {sheet}: no row has a decision, veto or note "
            f"({report.blank} blank rows)"
        )
    return ReviewSheetError(
        f"nothing imported from {sheet}: {report.rejected} of {report.rows} rows rejected "
        f"({rejected_rows(report)}); all in {report.rejects_path}"
    )


def _check_word(rows: list[SheetRow], item: ItemFacts | None) -> dict[int, list[str]]:
    """What is wrong with each of one reviewer's rows on one item: its own problems, a
    second row for the item or the same relation."""
    problems = {r.row: check_row(r, item) for r in rows}
    first: dict[str | None, int] = {}
    for r in rows:
        if r.assertion in first:
            what = "the item" if r.assertion is None else f"relation {r.assertion!r}"
            problems[r.row].append(
                f"a second row for {what} by {r.reviewer!r} (first at row {first[r.assertion]})"
            )
        else:
            first[r.assertion] = r.row
    return problems


def check_sheet(
    graph: Graph, sheet: Path, reviewer: str | None, batch: int
) -> tuple[ReviewImportReport, list[tuple[list[SheetRow], list[Review]]]]:
    """Read and check every row; nothing is written to the graph. Returns the report and,
    per reviewer and item, the rows to import and the reviews they make."""
    report = ReviewImportReport(sheet=str(sheet))
    parsed = list(read_sheet(sheet, reviewer))
    report.rows = len(parsed)
    rejects = [p for p in parsed if isinstance(p, RejectedSheetRow)]
    todo = [p for p in parsed if isinstance(p, SheetRow) and not p.blank]
    report.blank = sum(1 for p in parsed if isinstance(p, SheetRow) and p.blank)
    facts = read_item_facts(graph, sorted({r.item_id for r in todo}), batch)
    words: dict[tuple[str, str | None], list[SheetRow]] = {}
    for row in todo:
        words.setdefault((row.item_id, row.reviewer), []).append(row)
    # A row refused for its form takes the reviewer's other rows on the item with it.
    refused = {(r.item_id, r.reviewer): r.row for r in reversed(rejects) if r.item_id}
    accepted: list[tuple[list[SheetRow], list[Review]]] = []
    for (item_id, who), rows in words.items():
        item = facts.get(item_id)
        problems = _check_word(rows, item)
        bad = sorted(r.row for r in rows if problems[r.row])
        if (item_id, who) in refused:
            bad = sorted([*bad, refused[(item_id, who)]])
        if bad:
            for r in rows:
                reason = "; ".join(problems[r.row]) or (
                    f"not imported: row {bad[0]} of the same item and reviewer was rejected"
                )
                rejects.append(
                    RejectedSheetRow(row=r.row, item_id=item_id, reason=reason, reviewer=who)
                )
            continue
        assert item is not None
        accepted.append((rows, reviews_of(rows, item)))
    report.rejects = sorted(rejects, key=lambda r: r.row)
    report.rejected = len(rejects)
    report.imported = sum(len(rows) for rows, _ in accepted)
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
    # A reviewer's rows are their whole word on the item: what they no longer say is retracted.
    retract_rows: list[dict[str, Any]] = [
        {"item": rows[0].item_id, "reviewer": rows[0].reviewer, "keep": [r.id for r in rs]}
        for rows, rs in accepted
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
