"""On-disk cache of model responses, so a rerun of an extraction costs no model call.

One SQLite file (``<cache_dir>/llm-cache.sqlite`` by default). The key is the SHA-256 of
everything that decides the answer: backend kind, model, sampling parameters, response
schema and the prompt. Every text answer is stored, unusable ones too: at temperature 0 a
rerun would get the same answer, and its repair prompt is cached under its own key.
Backend errors are not stored, so a rerun tries those prompts again. The file holds patient
text (prompts are not stored, answers are): keep it where the trajectories are kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from kgverify.config import Settings
from kgverify.outputs import make_dirs

CACHE_FILE = "llm-cache.sqlite"


def cache_key(
    kind: str, model: str, params: Mapping[str, Any], schema: Mapping[str, Any], prompt: str
) -> str:
    """SHA-256 over canonical JSON of what the answer depends on."""
    text = json.dumps(
        {"kind": kind, "model": model, "params": params, "schema": schema, "prompt": prompt},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(text.encode()).hexdigest()


class ResponseCache:
    """Key -> response text in SQLite; used from one thread (the extractor's)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else Settings().cache_dir / CACHE_FILE
        make_dirs(self.path.parent)
        self._db = sqlite3.connect(self.path)
        # Answers quote patients' notes: owner-only (SQLite's journals take the file's mode).
        os.chmod(self.path, 0o600)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, response TEXT NOT NULL)"
        )
        self._db.commit()

    def get(self, key: str) -> str | None:
        row = self._db.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put_many(self, entries: Mapping[str, str]) -> None:
        """Store a batch in one transaction."""
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO responses (key, response) VALUES (?, ?)", entries.items()
            )

    def __len__(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
