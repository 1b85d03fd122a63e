"""Disk-backed staging, so no vocabulary-sized structure is held in Python memory: a set of
ids for joins across files that are not sorted the same way (the SNOMED CT language refset
references description ids), and a release's concepts for the release guard's comparison
with the graph before anything is written."""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Self


class _Stage:
    """One table in a throw-away SQLite file (no journal: it lives for one load), with
    batched membership tests on its ``id`` column; removed on close."""

    def __init__(self, table: str, columns: str) -> None:
        self._table = table
        self._dir = tempfile.TemporaryDirectory(prefix="kgverify-stage-")
        self._db = sqlite3.connect(Path(self._dir.name) / f"{table}.sqlite")
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        self._db.execute(f"CREATE TABLE {table} ({columns}) WITHOUT ROWID")

    def contains_many(self, ids: list[str]) -> set[str]:
        found: set[str] = set()
        for start in range(0, len(ids), 900):  # below SQLite's variable limit
            chunk = ids[start : start + 900]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT id FROM {self._table} WHERE id IN ({marks})",  # noqa: S608
                chunk,
            )
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


class DiskIdSet(_Stage):
    """An on-disk set of string ids with batched membership tests."""

    def __init__(self) -> None:
        super().__init__("ids", "id TEXT PRIMARY KEY")

    def add_many(self, ids: Iterable[str]) -> None:
        self._db.executemany("INSERT OR IGNORE INTO ids VALUES (?)", ((i,) for i in ids))


class StagedConcepts(_Stage):
    """An on-disk table of a release's concepts (id, active, name) for the release guard's
    comparison with the graph before anything is written. A concept that arrives as several
    rows (RRF atoms not contiguous) keeps the name of lowest (rank, name), as the upsert
    does; it is active when any of its rows is."""

    def __init__(self) -> None:
        super().__init__("concepts", "id TEXT PRIMARY KEY, active INTEGER, name TEXT, rank INTEGER")

    def add_many(self, rows: Iterable[tuple[str, bool, str | None, int | None]]) -> None:
        # Every right-hand side sees the row as it was before this update.
        self._db.executemany(
            "INSERT INTO concepts VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
            "active = max(active, excluded.active), "
            "name = CASE WHEN excluded.name IS NOT NULL AND (name IS NULL "
            "OR coalesce(excluded.rank, 9) < coalesce(rank, 9) OR (coalesce(excluded.rank, 9) "
            "= coalesce(rank, 9) AND excluded.name < name)) THEN excluded.name ELSE name END, "
            "rank = CASE WHEN excluded.name IS NOT NULL AND (name IS NULL "
            "OR coalesce(excluded.rank, 9) < coalesce(rank, 9) OR (coalesce(excluded.rank, 9) "
            "= coalesce(rank, 9) AND excluded.name < name)) THEN excluded.rank ELSE rank END",
            ((i, int(a), n, r) for i, a, n, r in rows),
        )

    def pages(self, size: int) -> Iterator[list[tuple[str, bool, str | None]]]:
        """Every staged concept as (id, active, name), ``size`` at a time, by id."""
        after = ""
        while True:
            page = self._db.execute(
                "SELECT id, active, name FROM concepts WHERE id > ? ORDER BY id LIMIT ?",
                (after, size),
            ).fetchall()
            if not page:
                return
            yield [(i, bool(a), n) for i, a, n in page]
            after = page[-1][0]
