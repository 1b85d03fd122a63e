"""``kgverify runs``: the runs in the graph, and two compared."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from kgverify.cli.app import cli
from kgverify.cli.options import json_option
from kgverify.cli.printing import console_for, emit, table
from kgverify.config import Settings

if TYPE_CHECKING:
    from kgverify.api.models import RunDiff, RunRecord


@cli.group("runs", invoke_without_command=True)
@click.option("--limit", type=click.IntRange(1, 100_000), default=20, show_default=True)
@json_option
@click.pass_context
def runs_group(ctx: click.Context, limit: int, as_json: bool) -> None:
    """The runs in the graph, newest first: each ingest with its source, patients and the
    items derived from them. `kgverify runs diff A B` compares two (docs/runs.md)."""
    if ctx.invoked_subcommand is not None:
        return
    from kgverify.api import runs

    found = runs(Settings(), limit=limit)
    emit([r.model_dump() for r in found], as_json, lambda: print_runs(found))


def print_runs(found: list[RunRecord]) -> None:
    rows = [
        {
            "run": r.id,
            "source": r.source,
            "started": (r.started_at or "")[:19],
            "status": r.status,
            "patients": r.patients,
            "items": r.items,
            "current": r.current_items,
        }
        for r in found
    ]
    console_for("stdout").print(table("Runs", rows))
    if not found:
        console_for("stdout").print("No run yet: `kgverify ingest` or `kgverify run` make one.")


@runs_group.command("diff")
@click.argument("a")
@click.argument("b")
@json_option
def runs_diff_command(a: str, b: str, as_json: bool) -> None:
    """Compare runs A and B: the figures that differ (patients, facts, items per task and
    split, policy, settings, releases) and how their patients and items overlap."""
    from kgverify.api import diff_runs

    report = diff_runs(a, b, Settings())
    emit(report, as_json, lambda: print_runs_diff(report))


def print_runs_diff(report: RunDiff) -> None:
    result = report.model_dump()
    console = console_for("stdout")
    a, b = result["a"]["id"], result["b"]["id"]
    rows = [
        {"figure": k, a: json.dumps(v[0], default=str), b: json.dumps(v[1], default=str)}
        for k, v in result["differences"].items()
    ]
    console.print(table(f"What differs: {a} vs {b}", rows))
    overlap = [
        {"what": what, "in both": o["both"], f"only {a}": o["only_a"], f"only {b}": o["only_b"]}
        for what, o in (("patients", result["patients"]), ("items", result["items"]))
    ]
    console.print(table("Overlap", overlap))
