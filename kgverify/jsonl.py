"""JSONL in and out for every pydantic model kgverify exchanges (trajectories, relations,
linked relations, verdicts): one model per line, gzip when the name ends in ``.gz``, streamed
both ways. Readers either raise on a bad line (files kgverify wrote itself) or hand it back
as a :class:`BadLine` (line number, reason, text) so the caller can reject it with its
location. Every line is decoded on its own, so one byte that is not UTF-8 costs one line."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Literal, NamedTuple, TypeVar, cast

from pydantic import BaseModel, ValidationError

from kgverify.outputs import private_file

M = TypeVar("M", bound=BaseModel)


class BadLine(NamedTuple):
    """A line that is not a valid record: its 1-based number, why, and its text (bytes that
    are not UTF-8 shown as replacement characters)."""

    line: int
    reason: str
    text: str


def open_text(path: Path, mode: Literal["rt", "wt"]) -> IO[str]:
    """Open a text file, through gzip for ``.gz``; one written is owner-only (0600, its
    missing folders 0700: :mod:`kgverify.outputs`)."""
    if mode == "wt":
        private_file(path)
    if path.suffix == ".gz":
        return gzip.open(path, mode, encoding="utf-8")
    return path.open(mode[0], encoding="utf-8")


def partial_path(out: Path) -> Path:
    """Where ``out`` is written until it is complete: ``<stem>.partial<suffix>``, so a
    ``.gz`` name keeps its suffix last and is written through gzip like the final file."""
    return out.with_name(f"{out.stem}.partial{out.suffix}")


@contextmanager
def whole_file(out: Path) -> Iterator[Path]:
    """The path to write ``out`` under (``partial_path``): renamed into place when the block
    ends, removed when it fails (a full disk, a kill's cleanup), so ``out`` is never cut."""
    partial = partial_path(out)
    try:
        yield partial
        partial.replace(out)
    finally:
        partial.unlink(missing_ok=True)


def write_models(models: Iterable[BaseModel], path: Path) -> int:
    """Write one model per line as they come; returns how many."""
    count = 0
    with open_text(path, "wt") as out:
        for model in models:
            out.write(model.model_dump_json() + "\n")
            count += 1
    return count


def open_binary(path: Path) -> IO[bytes]:
    """Open a file for reading bytes, through gzip for ``.gz``."""
    if path.suffix == ".gz":
        return cast(IO[bytes], gzip.open(path, "rb"))  # a GzipFile reads like IO[bytes]
    return path.open("rb")


def numbered_lines(path: Path) -> Iterator[tuple[int, str] | BadLine]:
    """The non-blank lines of a file with their 1-based numbers, each decoded on its own; a
    line that is not UTF-8 comes back as a :class:`BadLine` and the next one is read."""
    with open_binary(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                shown = raw.decode("utf-8", "replace").rstrip("\r\n")
                yield BadLine(number, f"invalid UTF-8: byte {exc.start}", shown)
                continue
            if text.strip():
                yield number, text.rstrip("\r\n")


def read_models(path: Path, model: type[M]) -> Iterator[M]:
    """Models from JSONL, one line at a time; a bad line raises ValidationError, bytes that
    are not UTF-8 raise ValueError with the line number."""
    for item in numbered_lines(path):
        if isinstance(item, BadLine):
            raise ValueError(f"{path}: line {item.line}: {item.reason}")
        yield model.model_validate_json(item[1])


def read_models_or_rejects(path: Path, model: type[M]) -> Iterator[M | BadLine]:
    """Models from JSONL, streamed; a bad line comes back as a :class:`BadLine`."""
    for item in numbered_lines(path):
        if isinstance(item, BadLine):
            yield item
            continue
        number, text = item
        try:
            yield model.model_validate_json(text)
        except ValidationError as exc:
            yield BadLine(number, reason_of(exc), text)


def loads_line(text: str | bytes) -> Any:
    """One line's (or document's) JSON value; a ValueError with a one-line reason when it
    is not JSON, nested too deeply included: the standard parser recurses once a level and
    would raise RecursionError, which is no reason to stop a whole run."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"invalid UTF-8: byte {exc.start}") from None
    except RecursionError:
        raise ValueError("invalid JSON: nested too deeply") from None


def reason_of(exc: ValidationError) -> str:
    """A one-line reason for a rejected record: where in it, and what is wrong."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "line"
    return f"{where}: {first['msg']}"
