"""Duplicate ids within one run, found without holding the ids in Python memory: an on-disk
SQLite table of id -> the 1-based line it was first read on, in a temporary folder removed
on close. Link and verify runs reject a second line with an id already seen (naming the
first line), so one input line is one output line and one assertion."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Self

from kgverify.jsonl import BadLine

# Inserts per transaction: one transaction per insert cost a write to the file each (18 us
# per id on an idle disk, over 100 us beside a database writing to the same disk); a
# transaction of this many is bounded, and its pages spill to the file when they fill
# SQLite's page cache, so memory stays flat either way.
COMMIT_EVERY = 10_000


class FirstSeen:
    """Where each id was first seen; SQLite pages spill to disk, so memory stays flat."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="kgverify-seen-")
        # Transactions by hand (isolation_level None); durability is not wanted here.
        self._db = sqlite3.connect(Path(self._dir.name) / "seen.sqlite", isolation_level=None)
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute("CREATE TABLE seen (id TEXT PRIMARY KEY, line INTEGER) WITHOUT ROWID")
        self._pending = 0  # inserts in the open transaction

    def first_line(self, key: str, line: int) -> int | None:
        """None when ``key`` is new (it is recorded at ``line``), else the line it was first
        seen on."""
        if not self._pending:
            self._db.execute("BEGIN")
        self._pending += 1
        new = self._db.execute("INSERT OR IGNORE INTO seen VALUES (?, ?)", (key, line)).rowcount
        if self._pending >= COMMIT_EVERY:
            self._db.execute("COMMIT")
            self._pending = 0
        return None if new else self.line_of(key)

    def line_of(self, key: str) -> int:
        """The line ``key`` was first seen on (KeyError when it never was)."""
        row = self._db.execute("SELECT line FROM seen WHERE id = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        return int(row[0])

    def close(self) -> None:
        """Remove the store; safe to call more than once."""
        self._db.close()  # an open transaction goes with it: nothing here is kept
        self._dir.cleanup()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def duplicate_reason(field: str, first: int) -> str:
    """The reject reason of a line repeating an id first seen on line ``first``."""
    return f"duplicate {field}: first on line {first}"


def repeat_of(seen: FirstSeen | None, key: str, line: int, text: str) -> BadLine | None:
    """The reject of line ``line`` when its relation_id ``key`` was seen on an earlier line
    (``seen`` None: no check), else None; the id is recorded the first time."""
    if seen is None or (first := seen.first_line(key, line)) is None:
        return None
    return BadLine(line, duplicate_reason("relation_id", first), text)
