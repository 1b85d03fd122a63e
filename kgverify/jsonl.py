"""JSONL in and out for every pydantic model kgverify exchanges (trajectories, relations,
linked relations, verdicts): one model per line, gzip when the name ends in ``.gz``, streamed
both ways. Readers either raise on a bad line (files kgverify wrote itself) or hand it back
as ``(line number, reason)`` so the caller can reject it with its location."""

from __future__ import annotations

import gzip
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Literal, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


def open_text(path: Path, mode: Literal["rt", "wt"]) -> IO[str]:
    """Open a text file, through gzip for ``.gz``."""
    if path.suffix == ".gz":
        return gzip.open(path, mode, encoding="utf-8")
    return path.open(mode[0], encoding="utf-8")


def write_models(models: Iterable[BaseModel], path: Path) -> int:
    """Write one model per line as they come; returns how many."""
    count = 0
    with open_text(path, "wt") as out:
        for model in models:
            out.write(model.model_dump_json() + "\n")
            count += 1
    return count


def read_models(path: Path, model: type[M]) -> Iterator[M]:
    """Models from JSONL, one line at a time; a bad line raises ValidationError."""
    with open_text(path, "rt") as lines:
        for line in lines:
            if line.strip():
                yield model.model_validate_json(line)


def read_models_or_rejects(path: Path, model: type[M]) -> Iterator[M | tuple[int, str]]:
    """Models from JSONL, streamed; a bad line comes back as ``(line, reason)``."""
    with open_text(path, "rt") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                yield model.model_validate_json(line)
            except ValidationError as exc:
                yield number, reason_of(exc)


def reason_of(exc: ValidationError) -> str:
    """A one-line reason for a rejected record: where in it, and what is wrong."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "line"
    return f"{where}: {first['msg']}"
