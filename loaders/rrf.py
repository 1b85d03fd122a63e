"""Streaming readers for the two file shapes the loaders see: RRF (UMLS, RxNorm) and RF2.

Both read line by line in binary and decode each line on its own, so one bad byte rejects
one row (with its line number) instead of aborting the file, and no file is ever held in
memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kgverify.bounds import MAX_ID_CHARS, MAX_NAME_CHARS, MAX_TEXT_CHARS, over_bound
from kgverify.errors import LoadError
from kgverify.rows import Tally

# Columns that become ids, keys or term types (RRF and RF2 names), and names; every other
# column is bounded by MAX_TEXT_CHARS (kgverify/bounds.py; docs/loaders.md "Field bounds").
ID_COLUMNS = frozenset(
    "CUI CUI1 CUI2 AUI AUI1 AUI2 SAUI SCUI SDUI CODE SAB TTY LAT REL RELA RUI SRUI TUI RXCUI "
    "RXAUI ATN id conceptId sourceId destinationId typeId referencedComponentId".split()
)
NAME_COLUMNS = frozenset({"STR", "term"})


def _over_bound(fields: dict[str, str]) -> str | None:
    """The reject reason of the first field over its bound, if any (one pass, no copies)."""
    for name, value in fields.items():
        if len(value) > MAX_ID_CHARS:
            limit = (
                MAX_ID_CHARS
                if name in ID_COLUMNS
                else MAX_NAME_CHARS
                if name in NAME_COLUMNS
                else MAX_TEXT_CHARS
            )
            if (reason := over_bound(name, value, limit)) is not None:
                return reason
    return None


@dataclass(frozen=True, slots=True)
class Line:
    """A well-formed row: its 1-based line number and its fields by column name."""

    number: int
    fields: dict[str, str]


def _decoded(path: Path, tally: Tally) -> Iterator[tuple[int, str]]:
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            tally.read += 1
            tally.bytes += len(raw)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                tally.reject(
                    number, f"invalid UTF-8: byte {exc.start}", raw.decode("utf-8", "replace")
                )
                continue
            yield number, text.rstrip("\r\n")


def read_rrf(path: Path, columns: tuple[str, ...], tally: Tally) -> Iterator[Line]:
    """Rows of a ``|``-delimited RRF file with a trailing ``|``; bad rows go to ``tally``."""
    expected = len(columns)
    for number, text in _decoded(path, tally):
        if not text:
            tally.reject(number, "empty line", text)
            continue
        parts = text.split("|")
        if len(parts) != expected + 1 or parts[-1] != "":
            tally.reject(
                number, f"wrong column count: {len(parts) - 1} fields, expected {expected}", text
            )
            continue
        fields = dict(zip(columns, parts, strict=False))
        # Most lines are shorter than the smallest bound, so only long ones are looked into.
        if len(text) > MAX_ID_CHARS and (reason := _over_bound(fields)) is not None:
            tally.reject(number, reason, text)
            continue
        yield Line(number, fields)


def read_rf2(path: Path, columns: tuple[str, ...], tally: Tally) -> Iterator[Line]:
    """Rows of a tab-delimited RF2 file whose header must name ``columns`` in order."""
    rows = _decoded(path, tally)
    first = next(rows, None)
    if first is None:
        return
    number, header = first
    tally.skip("header row")
    if tuple(header.split("\t")) != columns:
        raise LoadError(f"{path.name}: header {header!r} is not the RF2 header {columns!r}")
    for number, text in rows:
        parts = text.split("\t")
        if len(parts) != len(columns):
            tally.reject(
                number, f"wrong column count: {len(parts)} fields, expected {len(columns)}", text
            )
            continue
        fields = dict(zip(columns, parts, strict=True))
        # Most lines are shorter than the smallest bound, so only long ones are looked into.
        if len(text) > MAX_ID_CHARS and (reason := _over_bound(fields)) is not None:
            tally.reject(number, reason, text)
            continue
        yield Line(number, fields)
