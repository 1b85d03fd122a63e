"""The review sheet: one CSV row per exported item, filled in by a clinician (any
spreadsheet program), read back line by line. Reading checks each row's form; checking it
against the graph (:func:`check_row`) needs only the item's facts, so both are pure.

Columns (docs/review.md): ``item_id, task, question, answer_text`` (filled by export, for
reading), ``decision`` (accept | reject | empty), ``veto_labels`` (``B;D``: distractors that
are defensible answers), ``veto_reason``, ``relation_decisions`` (``ASSERTION_ID=true|false;
...``), ``reviewer``, ``notes``.
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
    "decision",
    "veto_labels",
    "veto_reason",
    "relation_decisions",
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


def parse_row(
    line: int, cells: dict[str, str], default_reviewer: str | None = None
) -> SheetRow | RejectedSheetRow:
    """One row's form: known decision, labels that are letters, relation decisions that
    read ``ID=true|false``, a reason for a veto. All problems of a row in one reason."""
    item = _text(cells.get("item_id"))
    problems: list[str] = []
    decision: Decision | None = None
    raw = (_text(cells.get("decision")) or "").lower()
    if raw in ("accept", "reject"):
        decision = Decision(raw)
    elif raw:
        problems.append(f"unknown decision {raw!r} (accept, reject or empty)")
    labels: list[str] = []
    for label in _SPLIT.split(_text(cells.get("veto_labels")) or ""):
        if not label:
            continue
        if not _LABEL.match(label.upper()):
            problems.append(f"veto label {label!r} is not an option letter (A, B, ...)")
        elif label.upper() not in labels:
            labels.append(label.upper())
    reason = _text(cells.get("veto_reason"))
    if labels and not reason:
        problems.append("a veto needs a veto_reason")
    if reason and not labels and not any("veto label" in p for p in problems):
        problems.append("veto_reason given but no veto_labels")
    relations: dict[str, bool] = {}
    for part in (_text(cells.get("relation_decisions")) or "").split(";"):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip().lower()
        if not sep or not key or value not in _TRUE | _FALSE:
            problems.append(f"relation decision {part!r} is not ASSERTION_ID=true|false")
            continue
        judged = value in _TRUE
        if relations.get(key, judged) != judged:
            problems.append(f"assertion {key!r} judged both true and false")
        relations[key] = judged
    reviewer = _text(cells.get("reviewer")) or _text(default_reviewer)
    notes = _text(cells.get("notes"))
    if item is None:
        problems.insert(0, "no item_id")
    row_has_content = decision or labels or relations or reason or notes
    if row_has_content and reviewer is None:
        problems.append("no reviewer (fill the reviewer column or pass --reviewer)")
    if problems:
        return RejectedSheetRow(line=line, item_id=item, reason="; ".join(problems))
    assert item is not None
    return SheetRow(
        line=line,
        item_id=item,
        task=_text(cells.get("task")),
        decision=decision,
        veto_labels=labels,
        veto_reason=reason,
        relations=relations,
        reviewer=reviewer,
        notes=notes,
    )


def read_sheet(
    path: Path, default_reviewer: str | None = None
) -> Iterator[SheetRow | RejectedSheetRow]:
    """Every data row of the sheet, parsed or rejected with its line (the line a row starts
    on: a quoted cell may span lines). Raises ReviewSheetError for a missing file or wrong
    columns, before any row."""
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
    previous = reader.line_num
    while True:
        start = previous + 1
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            previous = reader.line_num
            yield RejectedSheetRow(line=start, reason=f"unreadable CSV row ({exc})")
            continue
        except UnicodeDecodeError:
            raise ReviewSheetError(f"{path}: line {start}: not UTF-8 text") from None
        previous = reader.line_num
        if not cells or all(not c.strip() for c in cells):
            continue  # an empty line is no row
        if len(cells) != len(names):
            item = cells[names.index("item_id")].strip() if len(cells) > len(names) else None
            yield RejectedSheetRow(
                line=start,
                item_id=item or None,
                reason=f"{len(cells)} cells, the header has {len(names)}",
            )
            continue
        try:
            # The quote write_sheet put before a formula character is not the reviewer's.
            plain = [plain_cell(c) for c in cells]
            yield parse_row(start, dict(zip(names, plain, strict=True)), default_reviewer)
        except ValidationError as exc:
            yield RejectedSheetRow(line=start, reason=f"invalid row ({exc.errors()[0]['msg']})")


def check_row(row: SheetRow, item: ItemFacts | None) -> list[str]:
    """What is wrong with a well-formed row given the item it names (None: not in the
    graph): the task, veto labels (options of the item, distractors, not the answer), and
    relation decisions (assertions of the item's basis)."""
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
    for assertion in row.relations:
        if assertion not in item.basis:
            problems.append(f"assertion {assertion!r} is not in the item's basis")
    return problems


def reviews_of(row: SheetRow, item: ItemFacts) -> list[Review]:
    """The reviews one checked row makes: its item decision, one per veto, one per relation
    decision, or a comment when it only has notes."""
    reviewer = row.reviewer
    assert reviewer is not None

    def review(
        decision: Decision,
        target: str = "",
        *,
        reason: str | None = row.notes,
        concept: str | None = None,
        label: str | None = None,
        assertion: str | None = None,
    ) -> Review:
        return Review(
            id=review_id(item.id, decision, target, reviewer),
            item=item.id,
            reviewer=reviewer,
            decision=decision,
            reason=reason,
            notes=row.notes,
            task=item.task,
            topic=item.topic,
            concept=concept,
            content_key=item.content_key,
            label=label,
            assertion=assertion,
            line=row.line,
        )

    out: list[Review] = []
    if row.decision is not None:
        out.append(review(row.decision, concept=item.answer_concept))
    for label in row.veto_labels:
        option = item.option(label)
        assert option is not None
        out.append(
            review(
                Decision.VETO,
                option.concept,
                reason=row.veto_reason,
                concept=option.concept,
                label=label,
            )
        )
    for assertion, judged in sorted(row.relations.items()):
        decision = Decision.RELATION_TRUE if judged else Decision.RELATION_FALSE
        out.append(review(decision, assertion, assertion=assertion))
    if not out and row.notes:
        out.append(review(Decision.COMMENT))
    return out
