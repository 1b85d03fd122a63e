"""Row accounting, shared by every reader (vocabulary loaders, EHR readers, review import):
each row read is loaded, skipped by policy, or rejected with its file, line and reason.

``read == loaded + skipped + rejected`` holds per file (:class:`FileReport`); rejected rows
go to an owner-only JSONL file (:class:`RejectSink`), since they are raw source rows
(docs/loaders.md).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import IO

from pydantic import BaseModel, Field

from kgverify.outputs import open_private

__all__ = [
    "FileReport",
    "RejectSink",
    "RejectedRow",
    "Tally",
    "open_private",
    "private_dir",
]


class RejectedRow(BaseModel):
    """One row that could not be loaded, with where it is and why."""

    file: str
    line: int | None = Field(
        ge=1, description="1-based line; None for rows neo4j-admin import rejected by id"
    )
    reason: str
    text: str = Field(description="the raw row, cut to 300 characters")


class FileReport(BaseModel):
    """Row counts of one input file."""

    file: str
    step: str = Field(default="", description="the load step that read it (concepts, ...)")
    read: int = 0
    loaded: int = 0
    skipped: int = 0
    rejected: int = 0
    skipped_reasons: dict[str, int] = Field(default_factory=dict)
    rejected_reasons: dict[str, int] = Field(default_factory=dict)

    @property
    def reconciles(self) -> bool:
        return self.read == self.loaded + self.skipped + self.rejected


class Tally:
    """Mutable counters for one file while it streams; frozen into a FileReport at the end."""

    def __init__(self, file: str, rejects: RejectSink, step: str = "") -> None:
        self.file = file
        self.step = step
        self.read = 0
        self.loaded = 0
        self.bytes = 0
        self._skipped: Counter[str] = Counter()
        self._rejected: Counter[str] = Counter()
        self._rejects = rejects

    def skip(self, reason: str, count: int = 1) -> None:
        self._skipped[reason] += count

    def reject(self, line: int | None, reason: str, text: str) -> None:
        self._rejected[reason.split(":", 1)[0]] += 1
        self._rejects.write(RejectedRow(file=self.file, line=line, reason=reason, text=text[:300]))

    def report(self) -> FileReport:
        return FileReport(
            file=self.file,
            step=self.step,
            read=self.read,
            loaded=self.loaded,
            skipped=sum(self._skipped.values()),
            rejected=sum(self._rejected.values()),
            skipped_reasons=dict(self._skipped),
            rejected_reasons=dict(self._rejected),
        )


def private_dir(path: Path) -> Path:
    """``path`` as an owner-only (0700) folder, made if missing and tightened if not: the
    cache's rejects folder, whose files hold raw source rows."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path


class RejectSink:
    """Appends rejected rows to an owner-only JSONL file, opened lazily on the first reject."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        self._out: IO[str] | None = None

    def write(self, row: RejectedRow) -> None:
        if self._out is None:
            self._out = open_private(self.path)
        self._out.write(json.dumps(row.model_dump(), ensure_ascii=False) + "\n")
        self.count += 1

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
