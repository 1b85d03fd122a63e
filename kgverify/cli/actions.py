"""``kgverify check-actions`` and ``kgverify grade`` (docs/fhir.md): an EHR agent's actions
judged against the record and the graph, and task checkpoints graded. Formatting only; the
work is ``kgverify.api.check_actions`` / ``grade_tasks``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from kgverify.cli.app import cli
from kgverify.cli.options import json_option, rejects_option
from kgverify.cli.printing import check_reject_share
from kgverify.config import Settings
from kgverify.errors import ConfigError

_no_write = click.option(
    "--no-write",
    is_flag=True,
    help="Do not store the results in the graph (for the actions_by_verdict and "
    "task_checkpoints audit queries).",
)
_server = click.option(
    "--server",
    metavar="URL",
    help="Read the agent's actions from this FHIR server (its base URL) instead of a file.",
)


@cli.command(
    "check-actions", short_help="Judge an EHR agent's FHIR orders against record and graph."
)
@click.argument(
    "actions", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@_server
@click.option(
    "--since",
    help="With --server and no --tasks: the resources changed since this FHIR instant or date.",
)
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Verdicts, one line per action (JSONL, docs/fhir.md).",
)
@click.option(
    "--tasks",
    type=click.Path(exists=True, path_type=Path),
    help="Task files (a JSON file or a folder): each action's day and the conditions its "
    "task names.",
)
@_no_write
@rejects_option
@json_option
def check_actions_command(
    actions: Path | None,
    server: str | None,
    since: str | None,
    out: Path,
    tasks: Path | None,
    no_write: bool,
    rejects: Path | None,
    as_json: bool,
) -> None:
    """Judge every agent action of ACTIONS against the patient's record and the graph.

    ACTIONS is JSONL, one line per action: action_id, task_id, patient_id, at (optional) and
    the FHIR R4 resource the agent wrote (MedicationRequest, ServiceRequest, Condition,
    DocumentReference, Communication; docs/fhir.md). Each gets a verdict with evidence paths
    in words: indicated, contraindicated, duplicate_therapy, unsupported (not in the
    vocabularies), not_judged, unknown_code or malformed. With --server URL instead, the
    actions are the server's resources tagged with the --tasks' ids (or changed --since).
    """
    from kgverify.api import check_actions

    report = check_actions(
        actions,
        out,
        server=server,
        since=since,
        tasks=tasks,
        rejects_path=rejects,
        write=not no_write,
    )
    result = report.model_dump(mode="json")
    if as_json:
        click.echo(json.dumps(result, indent=2))
    else:
        table = Table(title=f"{report.actions} actions judged", title_justify="left")
        table.add_column("verdict")
        table.add_column("actions", justify="right")
        for verdict, n in report.verdicts.items():
            table.add_row(verdict, str(n))
        Console().print(table)
        click.echo(f"Verdicts: {report.out}")
        if report.rejects:
            click.echo(f"Rejected lines: {report.rejected} ({report.rejects})")
    check_reject_share(
        "check-actions",
        report.actions + report.rejected,
        report.rejected,
        report.rejects,
        Settings(),
        report,
    )


@cli.command("grade", short_help="Grade an EHR agent's tasks, checkpoint by checkpoint.")
@click.argument("tasks", required=False, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--actions",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The agent's actions (JSONL, docs/fhir.md).",
)
@_server
@click.option(
    "--sample",
    is_flag=True,
    help="Grade the shipped sample tasks on their planted actions (the sample EHR ingested).",
)
@click.option(
    "--fhir",
    is_flag=True,
    help="With --sample: the FHIR leg: the sample loaded into the FHIR server (--server, "
    "else the local one, started if needed), ingested back through fhir-rest, the planted "
    "actions written into it, and the tasks graded from there.",
)
@_no_write
@rejects_option
@json_option
def grade_command(
    tasks: Path | None,
    actions: Path | None,
    server: str | None,
    sample: bool,
    fhir: bool,
    no_write: bool,
    rejects: Path | None,
    as_json: bool,
) -> None:
    """Grade TASKS (a task file or a folder of them) against an agent's actions.

    Every checkpoint of every task passes or fails with its reason (indicated_order,
    no_verdict, order_exists, note_mentions; docs/fhir.md); each task gets the share of its
    checkpoints passed, and the run the overall share.
    """
    from kgverify.api import grade_tasks, sample_actions, sample_fhir_grades

    if fhir and not sample:
        raise ConfigError("--fhir is the sample's FHIR leg: give it with --sample")
    if sample:
        if tasks is not None or actions is not None:
            raise ConfigError("--sample grades the shipped tasks: give no TASKS or --actions")
        if fhir:
            report = sample_fhir_grades(url=server, write=not no_write)
        else:
            tasks, actions = sample_actions()
            report = grade_tasks(tasks, actions, rejects_path=rejects, write=not no_write)
    elif tasks is None or (actions is None) == (server is None):
        raise ConfigError("give TASKS and --actions FILE or --server URL (or --sample)")
    else:
        report = grade_tasks(
            tasks, actions, server=server, rejects_path=rejects, write=not no_write
        )
    result = report.model_dump(mode="json")
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    print_grades(result)


def print_grades(result: dict[str, Any]) -> None:
    """The checkpoint table, then each task's score and the overall one."""
    table = Table(title="Task checkpoints", title_justify="left", show_lines=True)
    for column in ("task", "checkpoint", "result", "reason"):
        table.add_column(column, overflow="fold")
    for task in result["tasks"]:
        for r in task["results"]:
            table.add_row(
                task["task_id"], r["checkpoint"], "pass" if r["passed"] else "FAIL", r["reason"]
            )
    console = Console()
    console.print(table)
    for task in result["tasks"]:
        click.echo(
            f"{task['task_id']}: {task['passed']}/{task['checkpoints']} ({task['score']:.0%})"
        )
    click.echo(
        f"Overall: {result['passed']}/{result['checkpoints']} checkpoints passed "
        f"({result['score']:.0%}); mean task score {result['mean_task_score']:.0%}"
    )
