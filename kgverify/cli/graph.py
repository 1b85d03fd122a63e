"""``kgverify summary``, ``graph reset``, ``queries``, ``cypher``: the graph itself."""

from __future__ import annotations

import csv
import dataclasses
import json
import sys
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table

from kgverify.cli.app import cli
from kgverify.cli.options import json_option
from kgverify.cli.printing import console_for, emit, spreadsheet_cell, table
from kgverify.config import Settings

if TYPE_CHECKING:
    from kgverify.api.models import GraphSummary


@cli.command("summary")
@json_option
def summary_command(as_json: bool) -> None:
    """Counts of concepts, relationships and releases in the graph."""
    from kgverify.api import graph_summary

    summary = graph_summary(Settings())
    emit(summary, as_json, lambda: print_summary(summary))


def print_summary(summary: GraphSummary) -> None:
    console = console_for("stdout")
    console.print(table("Releases", summary.releases))
    console.print(table("Concepts", summary.concepts))
    console.print(table("Relationships", summary.relationships))
    console.print(table("Patient facts", summary.facts))


@cli.group()
def graph() -> None:
    """Maintenance of the graph itself."""


@graph.command("reset")
@click.option("--yes", is_flag=True, help="Confirm deleting every node and relationship.")
@json_option
def graph_reset(yes: bool, as_json: bool) -> None:
    """Delete all data in the database (schema stays)."""
    from kgverify.api import reset_graph

    if not yes:
        raise click.UsageError("refusing to delete everything without --yes")
    emit(reset_graph(settings=Settings()), as_json, lambda: click.echo("graph emptied"))


@cli.command("queries")
@click.argument("name", required=False)
@json_option
def queries_command(name: str | None, as_json: bool) -> None:
    """List the named Cypher statements, or show one with its parameters."""
    from kgverify.api import named_queries, named_query

    if name is None:
        rows = [{"name": q.name, "description": q.description[:90]} for q in named_queries()]
        emit(rows, as_json, lambda: console_for("stdout").print(table("Queries", rows)))
        return
    q = named_query(name)
    data = {
        "name": q.name,
        "description": q.description,
        "params": q.params,
        "returns": q.returns,
        "text": q.text,
    }
    emit(data, as_json, lambda: click.echo(f"{q.description}\n\n{q.text}"))


@cli.command("cypher")
@click.argument("statement")
@click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help='A $parameter (repeatable): numbers, true/false, null and JSON ([..], {..}, "..") '
    "are typed, anything else is a string.",
)
@click.option("--write", is_flag=True, help="Run in a write transaction (default: read only).")
@click.option(
    "--max-rows",
    type=click.IntRange(0),
    default=1000,
    show_default=True,
    help="Rows printed at most (0: all); the statement always runs to its end.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (columns, rows, counters).")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV (a header, then one line a row).")
def cypher_command(
    statement: str,
    params: tuple[str, ...],
    write: bool,
    max_rows: int,
    as_json: bool,
    as_csv: bool,
) -> None:
    """Run one Cypher statement against the graph and print its rows (`-` reads stdin).

    Read-only unless --write: a statement that writes is refused in a read transaction and
    nothing changes (docs/graph-browser.md).

    \b
    kgverify cypher "MATCH (c:Concept) RETURN c.id, c.name LIMIT 5"
    kgverify cypher "MATCH (c:Concept {id: \\$id}) RETURN c" -p id=SNOMEDCT:44054006 --json
    kgverify cypher "MATCH (a:Assertion) RETURN a.verdict, count(*)" --csv
    """
    from kgverify.api import cypher, cypher_param

    if as_json and as_csv:
        raise click.UsageError("--json and --csv exclude each other")
    text = sys.stdin.read() if statement == "-" else statement
    given = dict(cypher_param(p) for p in params)
    result = cypher(text, given, write=write, max_rows=max_rows, settings=Settings())
    more = f"; only the first {max_rows} shown (--max-rows 0 for all)" if result.truncated else ""
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(result), indent=2, default=str))
    elif as_csv:
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(result.columns)
        for row in result.rows:
            out.writerow(
                [spreadsheet_cell(row.get(c), _cypher_text(row.get(c))) for c in result.columns]
            )
        if more:
            click.echo(f"note: {len(result.rows)} rows{more}", err=True)
    else:
        _print_cypher(result.columns, result.rows, f"{len(result.rows)} rows{more}")
    if result.counters:
        changes = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in result.counters.items())
        click.echo(changes, err=as_json or as_csv)


def _cypher_text(value: Any) -> str:
    """A value as one cell: strings as they are, null empty, the rest as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str, ensure_ascii=False)


def _print_cypher(columns: list[str], rows: list[dict[str, Any]], title: str) -> None:
    t = Table(title=title, title_justify="left")
    for column in columns:
        t.add_column(column, overflow="fold")
    for row in rows:
        t.add_row(*(_cypher_text(row.get(c)) for c in columns))
    console_for("stdout").print(t)
