"""The review sheet: per exported item one CSV row, then one row per relation the answer
rests on, filled in by a clinician (any spreadsheet program) and read back record by record,
each cited by the row a spreadsheet shows (the header is row 1; a cell holding line breaks
is still one row). Reading checks each row's form; checking it against the graph
(:func:`check_row`) needs only the item's facts, so both are pure.

Columns (docs/review.md): ``item_id, task, question, answer_text, relation, assertion_id``
(filled by export; the relation named in words beside its assertion id), ``decision``
(an item's row: accept | reject | empty; a relation row: true | false | empty),
``veto_labels`` (``B;D``: distractors that are defensible answers), ``veto_reason``,
``reviewer``, ``notes``.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from pydantic import ValidationError

from kgverify.errors import ConfigError, KgverifyError
from kgverify.outputs import open_private, plain_cell, safe_cell
from kgverify.review.model import (
    Decision,
    ItemFacts,
    RejectedSheetRow,
    Review,
    SheetRow,
    review_id,
)

COLUMNS = (
    "item_id",
    "task",
    "question",
    "answer_text",
    "relation",
    "assertion_id",
    "decision",
    "veto_labels",
    "veto_reason",
    "reviewer",
    "notes",
)
_LABEL = re.compile(r"^[A-Z]$")
_SPLIT = re.compile(r"[;,\s]+")
_TRUE = {"true", "t", "yes", "y", "1"}
_FALSE = {"false", "f", "no", "n", "0"}


class ReviewSheetError(KgverifyError):
    """A review sheet that cannot be read at all (missing, wrong columns), or holds nothing
    that can be imported."""


def write_sheet(path: Path, rows: Iterable[dict[str, str]]) -> int:
    """Write the sheet (header, then one row per item), owner-only, every cell that a
    spreadsheet would run as a formula quoted (:func:`~kgverify.outputs.safe_cell`; reading
    takes the quote off again); return the rows written."""
    count = 0
    with open_private(path, newline="") as out:
        writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({c: safe_cell(row.get(c, "")) for c in COLUMNS})
            count += 1
    return count


def _header(names: list[str], path: Path) -> list[str]:
    cleaned = [n.strip().lower().lstrip("\ufeff") for n in names]
    unknown = [n for n in cleaned if n not in COLUMNS]
    if "relation_decisions" in unknown:
        raise ReviewSheetError(
            f"{path}: a sheet of an earlier kgverify (relation_decisions column); export the "
            "items again and judge relations on their own rows"
        )
    if unknown:
        raise ReviewSheetError(
            f"{path}: unknown column {unknown[0]!r} (columns: {', '.join(COLUMNS)})"
        )
    missing = [c for c in COLUMNS if c not in cleaned]
    if missing:
        raise ReviewSheetError(f"{path}: missing column {missing[0]!r}")
    repeated = sorted({n for n in cleaned if cleaned.count(n) > 1})
    if repeated:
        raise ReviewSheetError(f"{path}: column {repeated[0]!r} appears twice")
    return cleaned


def _text(value: str | None) -> str | None:
    value = (value or "").strip()
    return value or None


def _decision(raw: str, relation: bool) -> tuple[Decision | None, str | None]:
    """An item's row: accept or reject; a relation row: true or false (yes, no, ...)."""
    if not raw:
        return None, None
    if not relation:
        if raw in ("accept", "reject"):
            return Decision(raw), None
        return None, f"unknown decision {raw!r} (accept, reject or empty)"
    if raw in _TRUE:
        return Decision.RELATION_TRUE, None
    if raw in _FALSE:
        return Decision.RELATION_FALSE, None
    return None, f"a relation row's decision is true or false (does it hold?), not {raw!r}"


def parse_row(
    row: int, cells: dict[str, str], default_reviewer: str | None = None
) -> SheetRow | RejectedSheetRow:
    """One row's form: a known decision (accept or reject on an item's row, true or false on
    a relation row), veto labels that are letters with a reason, and vetoes only on an
    item's row. All problems of a row in one reason."""
    item = _text(cells.get("item_id"))
    assertion = _text(cells.get("assertion_id"))
    problems: list[str] = []
    decision, problem = _decision((_text(cells.get("decision")) or "").lower(), bool(assertion))
    if problem:
        problems.append(problem)
    labels: list[str] = []
    for label in _SPLIT.split(_text(cells.get("veto_labels")) or ""):
        if not label:
            continue
        if not _LABEL.match(label.upper()):
            problems.append(f"veto label {label!r} is not an option letter (A, B, ...)")
        elif label.upper() not in labels:
            labels.append(label.upper())
    reason = _text(cells.get("veto_reason"))
    if assertion and (labels or reason):
        problems.append("vetoes go on the item's row, not on a relation row")
    elif labels and not reason:
        problems.append("a veto needs a veto_reason")
    elif reason and not labels and not any("veto label" in p for p in problems):
        problems.append("veto_reason given but no veto_labels")
    reviewer = _text(cells.get("reviewer")) or _text(default_reviewer)
    notes = _text(cells.get("notes"))
    if item is None:
        problems.insert(0, "no item_id")
    row_has_content = decision or labels or reason or notes
    if row_has_content and reviewer is None:
        problems.append("no reviewer (fill the reviewer column or pass --reviewer)")
    if problems:
        return RejectedSheetRow(
            row=row, item_id=item, reason="; ".join(problems), reviewer=reviewer
        )
    assert item is not None
    return SheetRow(
        row=row,
        item_id=item,
        task=_text(cells.get("task")),
        assertion=assertion,
        decision=decision,
        veto_labels=labels,
        veto_reason=reason,
        reviewer=reviewer,
        notes=notes,
    )


def read_sheet(
    path: Path, default_reviewer: str | None = None
) -> Iterator[SheetRow | RejectedSheetRow]:
    """Every data row of the sheet, parsed or rejected with its row (as a spreadsheet shows
    it: the header is row 1, a cell spanning lines is one row). A relation row with no
    reviewer takes its item row's, else ``default_reviewer``. Raises ReviewSheetError for a
    missing file or wrong columns, before any row."""
    if not path.is_file():
        raise ConfigError(f"no such review sheet: {path}")
    with path.open(encoding="utf-8-sig", newline="") as handle:
        yield from _rows(handle, path, default_reviewer)


def _rows(
    handle: IO[str], path: Path, default_reviewer: str | None
) -> Iterator[SheetRow | RejectedSheetRow]:
    reader = csv.reader(handle)
    try:
        first = next(reader, None)
    except (csv.Error, UnicodeDecodeError) as exc:
        raise ReviewSheetError(f"{path}: not a CSV sheet ({exc})") from None
    if first is None:
        raise ReviewSheetError(f"{path}: empty sheet (no header)")
    names = _header(first, path)
    item_reviewers: dict[str, str] = {}  # item id -> the reviewer written on its row
    row = 1
    while True:
        row += 1  # every record is a spreadsheet row, an empty line too
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield RejectedSheetRow(row=row, reason=f"unreadable CSV row ({exc})")
            continue
        except UnicodeDecodeError:
            raise ReviewSheetError(f"{path}: row {row}: not UTF-8 text") from None
        if not cells or all(not c.strip() for c in cells):
            continue  # an empty row is no review
        if len(cells) != len(names):
            item = cells[names.index("item_id")].strip() if len(cells) > len(names) else None
            yield RejectedSheetRow(
                row=row,
                item_id=item or None,
                reason=f"{len(cells)} cells, the header has {len(names)}",
            )
            continue
        try:
            # The quote write_sheet put before a formula character is not the reviewer's.
            values = dict(zip(names, (plain_cell(c) for c in cells), strict=True))
            item_id = values["item_id"].strip()
            reviewer = values["reviewer"].strip()
            if not values["assertion_id"].strip():
                if reviewer:
                    item_reviewers[item_id] = reviewer
            elif not reviewer:
                values["reviewer"] = item_reviewers.get(item_id, "")
            yield parse_row(row, values, default_reviewer)
        except ValidationError as exc:
            yield RejectedSheetRow(row=row, reason=f"invalid row ({exc.errors()[0]['msg']})")


def check_row(row: SheetRow, item: ItemFacts | None) -> list[str]:
    """What is wrong with a well-formed row given the item it names (None: not in the
    graph): the task, veto labels (options of the item, distractors, not the answer), and
    a relation row's assertion (one the item rests on)."""
    if item is None:
        return [f"unknown item id {row.item_id!r} (not in the graph)"]
    problems = []
    if row.task is not None and row.task != item.task:
        problems.append(f"task {row.task!r} does not match the item's task {item.task!r}")
    labels = ", ".join(o.label for o in item.options)
    for label in row.veto_labels:
        if label == item.answer:
            problems.append(
                f"veto label {label!r} is the answer, not a distractor (reject the item instead)"
            )
        elif item.option(label) is None:
            problems.append(f"veto label {label!r} is not an option of the item ({labels})")
    if row.assertion is not None and row.assertion not in item.basis:
        problems.append(f"assertion {row.assertion!r} is not a relation the item rests on")
    return problems


def _review(
    item: ItemFacts,
    row: SheetRow,
    decision: Decision,
    target: str = "",
    *,
    reason: str | None = None,
    concept: str | None = None,
    label: str | None = None,
) -> Review:
    reviewer = row.reviewer
    assert reviewer is not None
    return Review(
        id=review_id(item.id, decision, target, reviewer),
        item=item.id,
        reviewer=reviewer,
        decision=decision,
        reason=reason or row.notes,
        notes=row.notes,
        task=item.task,
        topic=item.topic,
        concept=concept,
        content_key=item.content_key,
        label=label,
        assertion=row.assertion,
        row=row.row,
    )


def reviews_of(rows: Iterable[SheetRow], item: ItemFacts) -> list[Review]:
    """The reviews one reviewer's checked rows on an item make: the item decision, one per
    veto and one per relation judged (its id hashes the assertion), and a comment for a row
    with only notes."""
    out: list[Review] = []
    for row in rows:
        made = len(out)
        if row.decision is not None and row.assertion is not None:
            out.append(_review(item, row, row.decision, row.assertion))
        elif row.decision is not None:
            out.append(_review(item, row, row.decision, concept=item.answer_concept))
        for label in row.veto_labels:
            option = item.option(label)
            assert option is not None
            out.append(
                _review(
                    item,
                    row,
                    Decision.VETO,
                    option.concept,
                    reason=row.veto_reason,
                    concept=option.concept,
                    label=label,
                )
            )
        if len(out) == made and row.notes:
            out.append(_review(item, row, Decision.COMMENT, row.assertion or ""))
    return out
