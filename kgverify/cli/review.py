"""``kgverify review export|import``: clinician review."""

from __future__ import annotations

from pathlib import Path

import click

from kgverify.cli.app import cli
from kgverify.cli.options import json_option, seed_option, tasks_option
from kgverify.cli.printing import console_for, counts_table, emit, table
from kgverify.config import Settings
from kgverify.errors import RejectThresholdError


@cli.group()
def review() -> None:
    """Clinician review of derived QA items (docs/review.md): export pages and a sheet to
    fill, import the filled sheet as (:Review) provenance."""


@review.command("export")
@click.option(
    "-o",
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="A new (or empty) folder for the pages, index.html, sheet.csv and README.txt.",
)
@click.option(
    "--qa",
    type=click.Path(file_okay=False, path_type=Path),
    help="Derived QA folder (default: the sample's, <cache_dir>/sample/qa).",
)
@tasks_option("Export only this task (repeatable); default: all.")
@click.option("--sample", type=click.IntRange(1), help="Items per task (default: every item).")
@seed_option("Seed of the sample's order.")
@json_option
def review_export_command(
    out: Path,
    qa: Path | None,
    tasks: tuple[str, ...],
    sample: int | None,
    seed: int | None,
    as_json: bool,
) -> None:
    """One static page per item (question, options, evidence with its sources, why each
    distractor is wrong, patient facts), an index, and sheet.csv to fill (see README.txt)."""
    from kgverify.api import review_export

    report = review_export(
        out, qa=qa, tasks=tasks or None, sample=sample, seed=seed, settings=Settings()
    )

    def render() -> None:
        console = console_for("stdout")
        console.print(
            f"{report.pages} item pages ({report.edges} evidence edges with sources) -> "
            f"{report.index}; fill {report.sheet}, then `kgverify review import {report.sheet}`"
        )
        console.print(counts_table("Exported per task", report.exported, "task"))
        if report.skipped:
            console.print(counts_table("Not exported", report.skipped, "reason"))

    emit(report, as_json, render)


@review.command("import")
@click.argument("sheet", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--reviewer",
    help="Reviewer of rows whose reviewer column is empty (a relation row takes its item row's "
    "first).",
)
@json_option
def review_import_command(sheet: Path, reviewer: str | None, as_json: bool) -> None:
    """Import a filled review sheet: (:Review) nodes on items, vetoed distractors and judged
    relations; rejected items, vetoed distractors and relations judged false flag the
    current items they touch. Every row is imported, blank, or rejected with its row (as a
    spreadsheet shows it) and reason; any rejected row ends in exit 3, after the others are
    imported. Importing the same sheet again changes nothing."""
    from kgverify.api import review_import, review_rejects_line

    report = review_import(sheet, reviewer=reviewer, settings=Settings())

    def render() -> None:
        console = console_for("stdout")
        console.print(
            f"{report.rows} rows: {report.imported} imported, {report.blank} blank, "
            f"{report.rejected} rejected; round {report.round}"
        )
        keys = ("created", "retracted", "assertions_judged", "items_flagged", "items_unflagged")
        console.print(table("Reviews written per decision", [report.reviews]))
        console.print(table("Graph", [{k: getattr(report, k) for k in keys}]))
        if report.rejects:
            rows = [r.model_dump() for r in report.rejects]
            console.print(table(f"Rejected rows (also in {report.rejects_path})", rows))

    emit(report, as_json, render)
    if report.rejected:
        raise RejectThresholdError(report, review_rejects_line(report))
