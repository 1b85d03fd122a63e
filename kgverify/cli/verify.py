"""``kgverify verify``, ``check``: relations judged against the graph."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from kgverify.cli.app import cli
from kgverify.cli.options import (
    engine_option,
    json_option,
    out_option,
    policy_options,
    rejects_option,
    relations_argument,
    trajectories_option,
    with_policy,
)
from kgverify.cli.printing import (
    check_reject_share,
    console_for,
    count_lines,
    count_progress,
    emit,
    table,
)
from kgverify.config import Settings

if TYPE_CHECKING:
    from kgverify.api.models import VerifyReport


@cli.command("verify")
@relations_argument
@out_option("Verdicts (JSONL, docs/verification.md).")
@trajectories_option
@click.option(
    "--no-write", is_flag=True, help="Judge only; do not write assertions back to the graph."
)
@policy_options
@engine_option("local")
@rejects_option
@json_option
def verify_command(
    relations: Path,
    out: Path,
    trajectories: Path | None,
    no_write: bool,
    accept: str | None,
    min_score: str | None,
    min_confidence: str | None,
    engine: str,
    rejects: Path | None,
    as_json: bool,
) -> None:
    """Judge every relation in RELATIONS against the vocabulary graph.

    RELATIONS is candidate-relation JSONL (from `kgverify extract`) or linked-relation JSONL
    (from `kgverify link`); what is not linked yet is linked first. Each relation gets a
    verdict (supported, contradicted, unsupported, ambiguous, unlinked, type_mismatch) with
    its evidence paths and rule version; the filter policy (--accept, --min-score,
    --min-confidence, or KGVERIFY_VERIFY_*) decides what passes. Verdicts are also written
    back to the graph as (:Assertion) provenance.
    """
    from kgverify.api import verify_relations_file

    settings = with_policy(Settings(), accept, min_score, min_confidence)
    with count_progress("Verifying", total=count_lines(relations), enabled=not as_json) as step:
        report = verify_relations_file(
            relations,
            out,
            settings=settings,
            trajectories=trajectories,
            rejects_path=rejects,
            write=not no_write,
            engine=engine,
            progress=step,
        )
    emit(report, as_json, lambda: print_verify_report(report))
    check_reject_share("verify", report.read, report.rejected, report.rejects, settings, report)


@cli.command("check")
@click.argument("subject")
@click.argument("predicate")
@click.argument("object_", metavar="OBJECT")
@click.option("--explain", "explain_", is_flag=True, help="Show how the verdict was reached.")
@json_option
def check_command(
    subject: str, predicate: str, object_: str, explain_: bool, as_json: bool
) -> None:
    """What the vocabularies say about one relation: kgverify check metformin treats "type 2
    diabetes mellitus".

    PREDICATE is indicates, treats, leads_to or contraindicated_for. Both names are linked,
    the verification rules run, and the verdict comes with the linked concepts and the
    evidence paths by name. Nothing is written to the graph. "unsupported" means not in the
    vocabularies (both names found, no path between them), not false.
    """
    from kgverify.api import check, explain

    ask = explain if explain_ else check
    result = ask(subject, predicate, object_, settings=Settings())
    emit(result.model_dump(mode="json"), as_json, lambda: click.echo(str(result)))


VERDICT_COLUMNS = (
    "supported",
    "contradicted",
    "unsupported",
    "ambiguous",
    "unlinked",
    "type_mismatch",
)


def print_verify_report(report: VerifyReport) -> None:
    result = report.model_dump()
    console = console_for("stdout")
    console.print(
        f"{result['verified']} relations verified -> {result['out']}; {result['passed']} pass "
        f"the filter; {result['written']} assertions written"
        + (f", {result['not_written']} refused by the database" if result["not_written"] else "")
    )
    rows = [
        {"predicate": predicate, **{v: counts.get(v, 0) for v in VERDICT_COLUMNS}}
        for predicate, counts in result["by_predicate"].items()
    ]
    console.print(table("Verdicts by predicate", rows))
    console.print(
        f"read {result['read']}, rejected {result['rejected']}, "
        f"{result['relations_per_second']} relations/s"
        + (
            f"; unknown patients {result['unknown_patients']}, "
            f"unknown encounters {result['unknown_encounters']}"
            if result["unknown_patients"] or result["unknown_encounters"]
            else ""
        )
    )
    if result.get("rejects"):
        console.print(f"rejected lines: {result['rejects']}")
