"""Streaming readers for the two file shapes the loaders see: RRF (UMLS, RxNorm) and RF2.

Both read line by line in binary and decode each line on its own, so one bad byte rejects
one row (with its line number) instead of aborting the file, and no file is ever held in
memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kgverify.errors import LoadError
from loaders.report import Tally


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
        yield Line(number, dict(zip(columns, parts, strict=False)))


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
        yield Line(number, dict(zip(columns, parts, strict=True)))
