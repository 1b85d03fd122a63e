"""``kgverify check-dialogue``, ``forget-dialogues``, ``patient chat``: simulated-patient
dialogues against fact sheets and the graph."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kgverify.cli.app import cli
from kgverify.cli.options import (
    api_key_option,
    base_url_option,
    facts_option,
    json_option,
    out_option,
    rejects_option,
)
from kgverify.cli.printing import (
    check_reject_share,
    console_for,
    count_lines,
    count_progress,
    counts_table,
    emit,
    table,
)
from kgverify.config import Settings

if TYPE_CHECKING:
    from kgverify.api.models import DialogueReport


@cli.command("check-dialogue")
@click.argument("dialogues", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@out_option("Verdicts, one line per dialogue (JSONL, docs/dialogue.md).")
@facts_option(
    "Fact sheets from `kgverify derive facts` (folder or sheets.jsonl; default: the "
    "sample's, <cache_dir>/sample/facts).",
)
@click.option(
    "--no-write",
    is_flag=True,
    help="Do not store the verdicts in the graph (for the dialogue_* audit queries).",
)
@rejects_option
@json_option
def check_dialogue_command(
    dialogues: Path,
    out: Path,
    facts: Path | None,
    no_write: bool,
    rejects: Path | None,
    as_json: bool,
) -> None:
    """Check every patient turn of DIALOGUES against the fact sheets and the graph.

    DIALOGUES is JSONL, one consultation per line: dialogue_id, patient_id, encounter_id
    (optional) and turns of {role, text} (docs/dialogue.md). Each clinical mention in a
    patient turn is grounded (a fact the patient may say), leak (record-only: the diagnosis
    to find, a lab, a code), contradicted (denies a recorded fact, a number off, or the
    graph forbids it), unsupported (no fact in the record behind it, not false) or
    unlinked. Each dialogue is stored in the graph without the patient's words (ids,
    verdicts, reasons, concepts, offsets) for `kgverify audit dialogue_summary`,
    `dialogue_leaks` and `dialogue_invented`, unless --no-write.
    """
    from kgverify.api import check_dialogues

    settings = Settings()
    with count_progress("Dialogues", total=count_lines(dialogues), enabled=not as_json) as step:
        report = check_dialogues(
            dialogues,
            out,
            facts=facts,
            settings=settings,
            rejects_path=rejects,
            progress=step,
            write=not no_write,
        )
    emit(report, as_json, lambda: print_dialogue_report(report))
    read = report.dialogues + report.rejected
    check_reject_share("check-dialogue", read, report.rejected, report.rejects, settings, report)


@cli.command("forget-dialogues")
@click.argument("ids", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Forget every stored dialogue.")
@json_option
def forget_dialogues_command(ids: tuple[str, ...], every: bool, as_json: bool) -> None:
    """Remove checked dialogues (IDS, or --all) from the graph.

    Their (:Dialogue) and (:DialogueMention) nodes go, so the dialogue_* audit queries stop
    counting them; the verdicts JSONL files are not touched, and checking a dialogue again
    stores it again. An id the graph does not hold is an error, and nothing is removed.
    """
    from kgverify.api import forget_dialogues

    if bool(ids) == every:
        raise click.UsageError("give dialogue ids or --all (one of them)")
    report = forget_dialogues(None if every else list(ids))
    emit(
        report,
        as_json,
        lambda: click.echo(
            f"forgot {report.dialogues} dialogue(s) and their {report.mentions} mention(s)"
        ),
    )


@cli.group()
def patient() -> None:
    """A reference simulated patient, prompted only with what its fact sheet lets it say and
    guarded by check-dialogue's checker (docs/dialogue.md)."""


@patient.command("chat")
@click.argument("patient_id")
@click.option("--encounter", help="The sheet's episode key (default: the whole record).")
@facts_option("Fact sheets (default: the sample's, <cache_dir>/sample/facts).")
@base_url_option("The server's API root, e.g. http://127.0.0.1:8000/v1.", required=True)
@click.option("--model", required=True, help="The model name the server serves.")
@api_key_option("Bearer token, if any.")
@click.option(
    "--retries",
    type=click.IntRange(0, 10),
    default=2,
    show_default=True,
    help="Times a reply that leaks, contradicts or invents is asked again.",
)
@json_option
def patient_chat_command(
    patient_id: str,
    encounter: str | None,
    facts: Path | None,
    base_url: str,
    model: str,
    api_key: str | None,
    retries: int,
    as_json: bool,
) -> None:
    """Talk to the simulated patient PATIENT_ID: one doctor line per input line (stdin), the
    patient's guarded reply printed after each; --json prints every turn with its verdict
    and the attempts the guard sent back."""
    from kgverify.api import patient_chat

    turns = []
    for turn in patient_chat(
        patient_id,
        sys.stdin,
        encounter_id=encounter,
        facts=facts,
        base_url=base_url,
        model=model,
        api_key=api_key,
        retries=retries,
        settings=Settings(),
    ):
        turns.append(turn.model_dump(mode="json"))
        if not as_json:
            note = "" if turn.accepted else " [no reply passed the guard]"
            sent_back = len(turn.attempts) - 1
            again = f" [{sent_back} sent back]" if sent_back else ""
            click.echo(f"patient: {turn.text}{again}{note}")
    if as_json:
        click.echo(json.dumps(turns, indent=2))


DIALOGUE_COLUMNS = ("grounded", "leak", "contradicted", "unsupported", "unlinked")


def print_dialogue_report(report: DialogueReport) -> None:
    result = report.model_dump()
    console = console_for("stdout")
    console.print(
        f"{result['dialogues']} dialogues, {result['turns']} patient turns, "
        f"{result['mentions']} mentions checked -> {result['out']}"
    )
    rows = [
        {"dialogue": row["dialogue_id"], **{v: row["counts"].get(v, 0) for v in DIALOGUE_COLUMNS}}
        for row in result["by_dialogue"]
    ]
    console.print(table("Mentions per dialogue and verdict", rows))
    totals = {v: result["verdicts"].get(v, 0) for v in DIALOGUE_COLUMNS}
    console.print(table("Mentions per verdict", [totals]))
    if result["leaks_by_section"]:
        console.print(counts_table("Leaks by what leaked", result["leaks_by_section"], "section"))
    if result["invented_by_kind"]:
        console.print(
            counts_table(
                "Claims with no fact behind them, by kind", result["invented_by_kind"], "kind"
            )
        )
    notes = [
        f"{result[key]} {what}"
        for key, what in (
            ("unknown_patients", "dialogues without a fact sheet"),
            ("unknown_encounters", "dialogues whose encounter the sheet lacks"),
            ("rejected", "lines rejected"),
            ("not_written", "dialogues the graph refused"),
        )
        if result[key]
    ]
    console.print(
        f"{result['turns_per_second']} turns/s" + (f"; {', '.join(notes)}" if notes else "")
    )
    if result.get("rejects"):
        console.print(f"rejected lines: {result['rejects']}")
