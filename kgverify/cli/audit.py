"""``kgverify audit``, ``reverify``, ``prov``: lineage, flags and re-verification."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table

from kgverify.cli.app import cli
from kgverify.cli.options import json_option
from kgverify.cli.printing import (
    console_for,
    count_progress,
    counts_table,
    emit,
    spreadsheet_cell,
    table,
)
from kgverify.config import Settings
from kgverify.errors import ConfigError

if TYPE_CHECKING:
    from kgverify.api.models import Audit, Lineage, ReverifyReport


@cli.command("audit")
@click.argument("name", required=False)
@click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help="A parameter of the query (repeatable); see `kgverify audit --list`.",
)
@click.option("--list", "show_list", is_flag=True, help="Describe every audit query.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "csv", "tsv"]),
    help="Output: readable text (default), JSON, or CSV/TSV with a header row.",
)
@click.option("--csv", "as_csv", is_flag=True, help="Same as --format csv.")
@click.option("--tsv", "as_tsv", is_flag=True, help="Same as --format tsv.")
@click.option(
    "--graphml",
    type=click.Path(dir_okay=False, path_type=Path),
    help="item_lineage only: also write the item's evidence subgraph as GraphML here.",
)
@json_option
def audit_command(
    name: str | None,
    params: tuple[str, ...],
    show_list: bool,
    fmt: str | None,
    as_csv: bool,
    as_tsv: bool,
    graphml: Path | None,
    as_json: bool,
) -> None:
    """Run an audit query from queries/audit/ and print its rows.

    item_lineage prints the item, its options and why each is wrong, the assertions with
    their evidence paths in words (sources and releases), the patient facts and the
    extractor. Parameters listing their values (`one of ...` in `--list`) accept any case;
    ids that the graph does not hold are an error, not an empty answer.

    \b
    kgverify audit --list
    kgverify audit item_lineage --param item=ITEM_ID --graphml item.graphml
    kgverify audit items_on_concept -p concept=SNOMEDCT:43878008
    kgverify audit rejected_relations -p verdict=unsupported -p limit=10 --json
    kgverify audit filter_rates --csv > rates.csv
    """
    from kgverify.api import (
        audit,
        audit_query,
        audits,
        lineage_of_rows,
        write_evidence_graphml,
    )

    chosen = {f for f, on in (("json", as_json), ("csv", as_csv), ("tsv", as_tsv)) if on}
    if fmt is not None:
        chosen.add(fmt)
    if len(chosen) > 1:
        raise click.UsageError(f"choose one output format, got {', '.join(sorted(chosen))}")
    out_format = chosen.pop() if chosen else "table"
    if show_list or name is None:
        listed = audits()
        emit([a.model_dump() for a in listed], out_format == "json", lambda: print_audits(listed))
        return
    short = name.removeprefix("audit/")
    if graphml is not None and short != "item_lineage":
        raise ConfigError("--graphml draws one item's evidence: use it with item_lineage")
    given: dict[str, str] = {}
    for text in params:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise click.UsageError(f"--param takes KEY=VALUE, got {text!r}")
        given[key.strip()] = value
    # A concept given by name says what it was linked to, on stderr (stdout stays the rows).
    rows = audit(
        name,
        given,
        settings=Settings(),
        resolved=lambda found: click.echo(found.line(), err=True),
    )
    lineage = None
    if short == "item_lineage" and rows:
        lineage = lineage_of_rows(rows)
        if graphml is not None:
            write_evidence_graphml(lineage, graphml)
            click.echo(f"evidence subgraph of item {lineage.item} -> {graphml}", err=True)
    if out_format in ("csv", "tsv"):
        header = [c.strip() for c in audit_query(name).returns.split(",")]
        print_delimited(rows.rows, "," if out_format == "csv" else "\t", header)
    elif out_format == "json":
        emit(rows.decoded(), True, lambda: None)
    elif lineage is not None:
        print_lineage(lineage)
    else:
        print_rows(f"{name}: {len(rows)} rows", rows.rows)


def print_delimited(rows: list[dict[str, Any]], delimiter: str, header: list[str]) -> None:
    """Rows as CSV or TSV with a header (the query's declared columns when there is no
    row): lists of plain values joined with "; ", maps and lists of maps as JSON, null as an
    empty cell."""
    import csv

    writer = csv.writer(sys.stdout, delimiter=delimiter, lineterminator="\n")
    writer.writerow(list(rows[0]) if rows else header)
    for row in rows:
        writer.writerow([_flat_cell(v) for v in row.values()])


def _flat_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list) and not any(isinstance(v, dict | list) for v in value):
        return spreadsheet_cell(value, "; ".join(str(v) for v in value))
    if isinstance(value, dict | list):
        return json.dumps(value, default=str)
    return spreadsheet_cell(value, str(value))


def print_lineage(lin: Lineage) -> None:
    """An item's lineage for a reader: the item, its options and why each wrong one is
    wrong, each assertion with its evidence paths in words, its patient facts, and the
    extractors. Plain text (no markup: names may hold brackets)."""
    names = lin.concept_names()

    def named(concept: str | None) -> str:
        if concept is None:
            return "(not linked)"
        return f"{names[concept]} ({concept})" if concept in names else concept

    out: list[str] = []
    state = ("current" if lin.current else "replaced") + (
        ", stands" if lin.standing else ", no longer stands: " + "; ".join(lin.flags)
    )
    question = ("\n" + " " * 15).join(lin.question.splitlines())
    out += [f"Item {lin.item} ({lin.task}; {state})", f"  question:    {question}"]
    why = {w.label: w for w in lin.why_wrong}
    if lin.options:
        out.append("  options:")
        for o in lin.options:
            right = o.concept_id == lin.answer_concept
            out.append(
                f"    {o.label}. {o.text}  [{o.concept_id}]" + ("  <- answer" if right else "")
            )
            if o.label in why:
                for j in why[o.label].justifications:
                    out.append(f"       wrong: {j.reason}  ({j.rule}@{j.version})")
                    for e in j.edges:
                        release = (e.release or "").replace("@", " ")
                        source = ", ".join(p for p in (e.source, release) if p)
                        out.append(
                            f"         cites {e.start_name or e.start} -[{e.type}"
                            + (f", {source}" if source else "")
                            + f"]-> {e.end_name or e.end}  ({e.start} {e.type} {e.end})"
                        )
    out.append(f"  answer:      {lin.answer}  ({named(lin.answer_concept)})")
    for label, value in (
        ("topic", named(lin.topic) if lin.topic else None),
        ("patient", lin.patient),
        ("template", lin.template),
        ("difficulty", lin.difficulty),
        ("releases", ", ".join(lin.releases) or None),
        ("policy", lin.policy),
        ("content key", lin.content_key),
    ):
        if value is not None:
            out.append(f"  {label + ':':<13}{value}")
    for check in lin.checks:
        fixed = named(check.fixed)
        triple = ("distractor", fixed) if check.slot == "subject" else (fixed, "distractor")
        out.append(
            f"  distractor check: no rule supports ({triple[0]}, {triple[1]}, {check.predicate})"
        )
    for n, a in enumerate(lin.assertions, 1):
        out += [
            "",
            f"Assertion {n} of {len(lin.assertions)}: {a.id}"
            + (f" (relation {a.relation_id})" if a.relation_id and a.relation_id != a.id else ""),
            f'  extracted:  "{a.subject_text}" {a.predicate} "{a.object_text}"',
            f"  linked:     {named(a.subject)} {a.predicate} {named(a.object)}",
            f"  verdict:    {a.verdict}"
            + (f", now {a.standing_verdict}" if a.standing_verdict != a.verdict else "")
            + (f"  by rule {a.rule}" if a.rule else "")
            + (f", verified {a.verified_at}" if a.verified_at else ""),
        ]
        if a.evidence:
            out.append("  evidence:")
            for k, path in enumerate(a.evidence, 1):
                out.append(
                    f"    {k}. {a.readable_path(path)}"
                    f"  ({path.rule}, {path.stance}, score {path.score:g})"
                )
                # The ids `kgverify audit items_on_edge` takes, one edge a line, as stored.
                for edge in dict.fromkeys(path.edges):
                    out.append(
                        f"       items_on_edge -p start={edge.start} -p type={edge.type} "
                        f"-p end={edge.end}"
                    )
        else:
            out.append("  evidence:   none")
        if a.facts:
            out.append("  patient facts:")
            for f in a.facts:
                what = " ".join(x for x in (f.kind, f'"{f.display}"' if f.display else None) if x)
                details = [
                    f"{label} {value}"
                    for label, value in (
                        ("code", f.code),
                        ("on", f.start),
                        ("value", " ".join(x for x in (f.value, f.unit) if x) or None),
                        ("source table", f.table),
                        ("row", f.row),
                    )
                    if value
                ]
                out.append(f"    - {what or f.id}: " + ", ".join(details))
        if a.recheck is not None:
            r = a.recheck
            out.append(
                f"  re-checked: {r.verdict} ({'passes' if r.passed else 'fails'}) in run {r.run}"
                f": {r.reason}"
            )
        extractor = a.extractor or "unknown extractor"
        confidence = f", confidence {a.confidence:g}" if a.confidence is not None else ""
        out.append(f"  extractor:  {extractor}{confidence}")
    width = console_for("stdout").width
    click.echo("\n".join(_wrapped(part, width) for line in out for part in line.split("\n")))


def _wrapped(line: str, width: int) -> str:
    """A line of indented plain text wrapped to ``width``, continuation lines indented
    further (long ids broken rather than running past the edge)."""
    if len(line) <= width:
        return line
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return "\n".join(textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False))


def print_rows(title: str, rows: list[dict[str, Any]]) -> None:
    """Rows as a table, or, when a table would not fit the console, one field/value block
    per row."""
    console = console_for("stdout")
    cells = [{k: _cell(v) for k, v in row.items()} for row in rows]
    widths = [
        max(len(key), *(max(map(len, str(c[key]).splitlines() or [""])) for c in cells))
        for key in (cells[0] if cells else {})
    ]
    if sum(widths) + 3 * len(widths) <= console.width:
        console.print(table(title, cells))
        return
    console.print(title)
    for n, row in enumerate(cells, 1):
        block = Table(title=f"row {n}", title_justify="left", show_header=False)
        block.add_column("field", style="bold")
        block.add_column("value", overflow="fold")
        for key, value in row.items():
            block.add_row(key, "" if value is None else str(value))
        console.print(block)


def _cell(value: Any) -> Any:
    """A table cell: lists one entry per line, maps as their values."""
    if isinstance(value, list):
        return "\n".join(str(_cell(v)) for v in value)
    if isinstance(value, dict):
        return " ".join(str(v) for v in value.values() if v is not None)
    return value


def print_audits(listed: list[Audit]) -> None:
    console = console_for("stdout")
    for a in listed:
        params = ", ".join(
            p.name + ("" if p.required else f"={p.default if p.default is not None else 'null'}")
            for p in a.params
        )
        console.print(f"[bold]{a.name}[/bold]({params})")
        console.print(f"  {a.description}", highlight=False, markup=False)
        for p in a.params:
            console.print(
                f"  --param {p.name}=<{p.type}>  {p.description}",
                highlight=False,
                markup=False,
            )
            if p.choices:
                console.print(f"      values (any case): {', '.join(p.choices)}", highlight=False)
        console.print(f"  returns: {a.returns}", highlight=False, markup=False)


@cli.command("reverify")
@click.option(
    "--release",
    "releases",
    multiple=True,
    metavar="ID",
    help="Re-check what this release changed, e.g. UMLS@2025AB (repeatable); default: every "
    "current release not re-verified yet that some assertion was judged before.",
)
@json_option
def reverify_command(releases: tuple[str, ...], as_json: bool) -> None:
    """Re-verify after loading a newer vocabulary release.

    Re-runs the rules only for the assertions whose evidence could touch what the release
    changed, records the new verdicts beside the old ((:Recheck) nodes), and flags the items
    that no longer stand: an assertion they rest on fails now, their answer or a distractor
    was retired, or a rule now supports a distractor. See them with
    `kgverify audit flagged_items` and `kgverify audit changed_evidence`.
    """
    from kgverify.api import reverify

    with count_progress("Re-checked", total=None, enabled=not as_json) as step:
        report = reverify(releases or None, settings=Settings(), progress=step)
    emit(report, as_json, lambda: print_reverify_report(report))


ITEM_KEYS = ("items", "distractor_checks", "items_flagged", "items_restored")


def print_reverify_report(report: ReverifyReport) -> None:
    result = report.model_dump()
    console = console_for("stdout")
    against = ", ".join(result["releases"]) or "no new release"
    console.print(
        f"run {result['run']} against {against}: {result['concepts_changed']} concepts and "
        f"{result['edges_changed']} relationships changed"
    )
    keys = (
        "assertions",
        "judged_by_links",
        "rechecked",
        "verdicts_changed",
        "no_longer_passing",
        "now_passing",
    )
    console.print(table("Assertions", [{k: result[k] for k in keys}]))
    console.print(table("Items", [{k: result[k] for k in ITEM_KEYS}]))
    console.print(counts_table("Items not standing, by flag", result["flags"], "flag"))


@cli.command("prov")
@click.argument("item")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["turtle", "json-ld"]),
    default="turtle",
    show_default=True,
    help="RDF serialization.",
)
@click.option(
    "-o", "--out", type=click.Path(dir_okay=False, path_type=Path), help="Write here, not stdout."
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a JSON report (item, format, out, bytes; with no --out the document too).",
)
def prov_command(item: str, fmt: str, out: Path | None, as_json: bool) -> None:
    """An item's lineage as W3C PROV-O (Turtle or JSON-LD), to publish with the benchmark."""
    from kgverify.api import write_prov

    report = write_prov(item, fmt, out, settings=Settings())
    document = report.document
    if document is not None:
        emit(report, as_json, lambda: click.echo(document))
        return
    emit(
        report.model_dump(exclude={"document"}),
        as_json,
        lambda: click.echo(f"PROV of item {item} ({fmt}) -> {out}", err=True),
    )
