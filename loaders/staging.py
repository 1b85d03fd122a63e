"""A disk-backed set of ids for joins across files that are not sorted the same way (the
SNOMED CT language refset references description ids), so no vocabulary-sized structure is
held in Python memory."""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Self


class DiskIdSet:
    """An on-disk set of string ids with batched membership tests."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="kgverify-stage-")
        self._db = sqlite3.connect(Path(self._dir.name) / "ids.sqlite")
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute("CREATE TABLE ids (id TEXT PRIMARY KEY) WITHOUT ROWID")

    def add_many(self, ids: Iterable[str]) -> None:
        self._db.executemany("INSERT OR IGNORE INTO ids VALUES (?)", ((i,) for i in ids))

    def contains_many(self, ids: list[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(ids), 900):  # below SQLite's variable limit
            chunk = ids[start : start + 900]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(f"SELECT id FROM ids WHERE id IN ({marks})", chunk)  # noqa: S608
            found.update(r[0] for r in rows)
        return found

    def close(self) -> None:
        """Remove the staging file; safe to call more than once."""
        self._db.close()
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
