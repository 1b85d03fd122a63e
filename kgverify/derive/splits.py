"""Splits and the on-disk item store: each split unit (``derive_split_by``) to one split, and
drafted items kept on disk (SQLite), duplicates refused, then read back sorted."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SPLITS = ("train", "validation", "test")


def split_of(group: str, seed: int, fractions: dict[str, float]) -> str:
    """The split of a content group, from a hash of seed and group: stable as items are
    added, and no clinical content in two splits (so none of test's is in train)."""
    digest = hashlib.sha256(f"{seed}:{group}".encode()).hexdigest()
    point = int(digest[:12], 16) / 16**12
    total = sum(fractions.values())
    edge = 0.0
    for name in SPLITS:
        edge += fractions.get(name, 0.0) / total
        if point < edge:
            return name
    return SPLITS[-1]


def rank(seed: int, key: str, concept: str) -> str:
    return hashlib.sha256(f"{seed}:{key}:{concept}".encode()).hexdigest()


class ItemStore:
    """Drafted items on disk (SQLite): duplicates refused, then read back sorted."""

    def __init__(self, path: Path, variants: int = 1) -> None:
        path.unlink(missing_ok=True)
        self.path = path
        self.variants = variants
        # Items per content group, kept beside the table (asked once per candidate, most of
        # them repeats): bounded by the items kept, as the table is.
        self._groups: Counter[str] = Counter()
        self.db = sqlite3.connect(path)
        try:
            self.db.execute(
                "CREATE TABLE items (task TEXT, split TEXT, item_id TEXT PRIMARY KEY, "
                "dedupe TEXT UNIQUE, content TEXT UNIQUE, grp TEXT, patient TEXT, "
                "payload TEXT, unit TEXT)"
            )
            self.db.execute("CREATE INDEX items_unit ON items (task, unit)")
        except sqlite3.Error:
            self.db.close()  # a full disk: the caller never gets a store to close
            raise

    def variants_of(self, group: str) -> int:
        return self._groups[group]

    def add(self, drafted: dict[str, Any], split: str, dedupe: str) -> str | None:
        """None when stored, else the duplicate's kind."""
        if self.db.execute("SELECT 1 FROM items WHERE dedupe = ?", (dedupe,)).fetchone():
            return "duplicate: the same question for this patient earlier"
        if self.db.execute(
            "SELECT 1 FROM items WHERE content = ?", (drafted["content_key"],)
        ).fetchone():
            return "duplicate: the same content key (stem, answer, options)"
        if self.variants_of(drafted["content_group"]) >= self.variants:
            return "duplicate: the same clinical content (stem and answer)"
        if self.db.execute(
            "SELECT 1 FROM items WHERE item_id = ?", (drafted["item_id"],)
        ).fetchone():
            return "duplicate: the same item"
        self.db.execute(
            "INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                drafted["task"],
                split,
                drafted["item_id"],
                dedupe,
                drafted["content_key"],
                drafted["content_group"],
                drafted["patient_id"],
                json.dumps(drafted),
                drafted["split_group"],
            ),
        )
        self._groups[drafted["content_group"]] += 1
        return None

    def assign_splits(self, fractions: dict[str, float], seed: int) -> None:
        """Each task's split units (``split_group``) to splits, so every split with a share
        gets units while there are enough, and items come close to the shares: units
        largest first (ties in a seeded order), each to the split furthest below its
        target. A hash alone leaves a split empty when a task has few units (a diagnosis
        task split by answer may have fifteen)."""
        shares = {name: fractions.get(name, 0.0) for name in SPLITS if fractions.get(name, 0.0) > 0}
        total_share = sum(shares.values())
        for (task,) in self.db.execute("SELECT DISTINCT task FROM items ORDER BY task").fetchall():
            units = self.db.execute(
                "SELECT unit, count(*) FROM items WHERE task = ? GROUP BY unit", (task,)
            ).fetchall()
            total = sum(n for _, n in units)
            target = {name: share / total_share * total for name, share in shares.items()}
            placed = dict.fromkeys(shares, 0)
            units.sort(key=lambda u: (-u[1], rank(seed, "split", u[0])))
            for unit, n in units:
                split = max(shares, key=lambda name: (target[name] - placed[name], shares[name]))
                placed[split] += n
                self.db.execute(
                    "UPDATE items SET split = ? WHERE task = ? AND unit = ?", (split, task, unit)
                )

    def split_groups(self) -> dict[str, dict[str, int]]:
        """task -> split -> distinct content groups."""
        out: dict[str, dict[str, int]] = {}
        for task, split, n in self.db.execute(
            "SELECT task, split, count(DISTINCT grp) FROM items GROUP BY task, split"
        ):
            out.setdefault(task, {})[split] = n
        return out

    def patients_in_several_splits(self) -> int:
        row = self.db.execute(
            "SELECT count(*) FROM (SELECT patient FROM items GROUP BY patient "
            "HAVING count(DISTINCT split) > 1)"
        ).fetchone()
        return int(row[0])

    def counts(self) -> tuple[int, int]:
        """Items stored, and their distinct content groups."""
        row = self.db.execute("SELECT count(*), count(DISTINCT grp) FROM items").fetchone()
        return int(row[0]), int(row[1])

    def groups(self) -> list[tuple[str, str]]:
        return self.db.execute(
            "SELECT DISTINCT task, split FROM items ORDER BY task, split"
        ).fetchall()

    def read(self, task: str, split: str) -> Iterator[dict[str, Any]]:
        cursor = self.db.execute(
            "SELECT payload FROM items WHERE task = ? AND split = ? ORDER BY item_id",
            (task, split),
        )
        for (payload,) in cursor:
            yield json.loads(payload)

    def close(self) -> None:
        self.db.close()
        self.path.unlink(missing_ok=True)
