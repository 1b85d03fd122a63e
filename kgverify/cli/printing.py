"""What every command prints with: the console, ``emit`` (JSON or a rendering), tables
fitted to the console, progress bars on stderr, and the reject-share exit rule."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, Protocol

import click
from pydantic import BaseModel
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from kgverify.config import Settings
from kgverify.errors import RejectThresholdError


class _Tally(Protocol):
    @property
    def read(self) -> int: ...
    @property
    def rejected(self) -> int: ...


class SourceRows(Protocol):
    """A report with the source rows of its run (``rows``, ``rejects``)."""

    @property
    def rows(self) -> Sequence[_Tally]: ...
    @property
    def rejects(self) -> str | None: ...


def console_for(stream: str) -> Console:
    # Created per call so output goes to the current streams (click's test runner swaps
    # them); piped output (CI logs, files) gets wide tables, not Rich's 80 columns, unless
    # COLUMNS says how wide (Rich reads it).
    console = Console(file=sys.stdout if stream == "stdout" else sys.stderr)
    if console.is_terminal or os.environ.get("COLUMNS", "").isdigit():
        return console
    return Console(file=console.file, width=160)


def emit(data: BaseModel | Any, as_json: bool, render: Callable[[], None]) -> None:
    """``data`` as JSON (a model as its ``model_dump()``) with ``--json``, else ``render()``."""
    if as_json:
        if isinstance(data, BaseModel):
            data = data.model_dump()
        click.echo(json.dumps(data, indent=2, default=str))
    else:
        render()


def table(title: str, rows: list[dict[str, Any]]) -> Table:
    if not rows or not rows[0]:
        t = Table(title=title, title_justify="left", show_header=False)
        t.add_column("")
        t.add_row("(none)")
        return t
    columns = list(rows[0])
    show_header = True
    if _natural_width(columns, rows) > console_for("stdout").width:
        # Too wide for the console: one row as field / value lines, several rows with
        # rows and columns swapped (verdicts down, predicates across), so no header is cut.
        if len(rows) == 1:
            rows = [{"field": key, "value": value} for key, value in rows[0].items()]
            show_header = False
        elif len(rows) < len(columns):
            first = columns[0]
            rows = [
                {first: column, **{str(row[first]): row.get(column) for row in rows}}
                for column in columns[1:]
            ]
        columns = list(rows[0])
    t = Table(title=title, title_justify="left", show_header=show_header)
    for column in columns:
        numeric = isinstance(rows[0][column], int)
        t.add_column(column, justify="right" if numeric else "left", overflow="fold")
    for row in rows:
        t.add_row(*("" if row.get(c) is None else str(row.get(c)) for c in columns))
    return t


def _natural_width(columns: list[str], rows: list[dict[str, Any]]) -> int:
    """The width a Rich table of these rows needs unwrapped (borders and padding too)."""
    widths = [
        max([len(c), *(len(line) for row in rows for line in str(row.get(c)).splitlines())])
        for c in columns
    ]
    return sum(widths) + 3 * len(widths) + 1


@contextmanager
def rich_progress(label: str, total: int) -> Iterator[Callable[[int], None]]:
    """A progress bar by bytes read, on stderr, shown only on a terminal."""
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        console=(console := console_for("stderr")),
        transient=False,
        disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task(label, total=total)
        yield lambda done: progress.update(task, completed=done)


@contextmanager
def model_calls_progress(
    *, enabled: bool, label: str = "LLM calls"
) -> Iterator[Callable[[int, int], None] | None]:
    """A bar of LLM calls answered out of those sent so far (the total grows as it reads)."""
    if not enabled:
        yield None
        return
    with Progress(
        TextColumn(label),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        console=(console := console_for("stderr")),
        disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task("llm", total=0)
        yield lambda done, total: progress.update(task, completed=done, total=total)


def counts_table(title: str, counts: dict[str, int], key: str) -> Table:
    return table(title, [{key: k, "count": v} for k, v in counts.items()])


def count_lines(path: Path) -> int:
    with path.open("rb") as lines:
        return sum(1 for _ in lines)


@contextmanager
def count_progress(
    label: str, *, total: int | None, enabled: bool
) -> Iterator[Callable[[int], None]]:
    """A bar of records done out of ``total`` (None: a count), on stderr, shown only on a
    terminal."""
    with Progress(
        TextColumn(label),
        BarColumn(),
        TextColumn("{task.completed}" + ("/{task.total}" if total is not None else "")),
        TimeRemainingColumn(),
        console=(console := console_for("stderr")),
        disable=not enabled or not console.is_terminal,
    ) as progress:
        task = progress.add_task(label, total=total)
        yield lambda done: progress.update(task, completed=done)


def check_reject_share(
    what: str,
    read: int,
    rejected: int,
    rejects: str | None,
    settings: Settings,
    report: object = None,
) -> None:
    """The one rule for every command reading rows (docs/configuration.md, "Exit codes"):
    called after the report is printed, rejected rows above ``max_reject_share`` of those
    read end in exit 3 with one line."""
    share = rejected / read if read else 0.0
    if share > settings.max_reject_share:
        where = f"; see {rejects}" if rejects else ""
        raise RejectThresholdError(
            report,
            f"{what}: {rejected} of {read} rows rejected "
            f"({share:.2%} > {settings.max_reject_share:.2%}){where}",
        )


def spreadsheet_cell(value: Any, text: str) -> str:
    """``text`` (a value's cell) quoted where a spreadsheet would run it as a formula; a
    number stays a number (``-1`` is no formula)."""
    from kgverify.api import safe_cell

    return text if isinstance(value, int | float) else safe_cell(text)


def source_rows_share(what: str, report: SourceRows, settings: Settings) -> None:
    """``check_reject_share`` over the source rows of a run over an EHR source."""
    read = sum(r.read for r in report.rows)
    rejected = sum(r.rejected for r in report.rows)
    check_reject_share(what, read, rejected, report.rejects, settings, report)


def step_bar(label: str, total: int | None) -> AbstractContextManager[Callable[[int], None]]:
    """A pipeline step's bar of records done (``pipeline.CountBars``), on a terminal."""
    return count_progress(label, total=total, enabled=True)
