"""``kgverify derive qa|facts``: the benchmark from what passed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from kgverify.cli.app import cli
from kgverify.cli.options import (
    SettingOption,
    chosen_run,
    engine_option,
    json_option,
    out_dir_option,
    policy_options,
    run_options,
    seed_option,
    tasks_option,
    with_policy,
)
from kgverify.cli.printing import console_for, count_progress, counts_table, emit, table
from kgverify.config import Settings

if TYPE_CHECKING:
    from kgverify.api.models import DeriveReport, FactsReport


@cli.group()
def derive() -> None:
    """Derive the benchmark from the validated graph: QA items and patient fact sheets."""


@derive.command("qa")
@out_dir_option
@tasks_option("Derive only this task (repeatable); default: all three.")
@seed_option("Seed of splits and distractor choice.")
@click.option(
    "--options",
    type=click.IntRange(2, 10),
    help="Options per item.",
    cls=SettingOption,
    setting="derive_options",
)
@click.option(
    "--split-by",
    type=click.Choice(["topic_answer", "topic", "content", "patient"]),
    help="The unit kept in one split: topic_answer (default: no test or validation pair of "
    "task, topic and answer occurs in train), topic, content or patient.",
    cls=SettingOption,
    setting="derive_split_by",
)
@click.option("--no-write", is_flag=True, help="Write files only, no (:Item) nodes.")
@run_options
@policy_options
@engine_option("local")
@json_option
def derive_qa_command(
    out: Path,
    tasks: tuple[str, ...],
    seed: int | None,
    options: int | None,
    split_by: str | None,
    no_write: bool,
    run: str | None,
    all_patients: bool,
    accept: str | None,
    min_score: str | None,
    min_confidence: str | None,
    engine: str,
    as_json: bool,
) -> None:
    """QA items (diagnosis, treatment, prognosis) from the passed assertions.

    Each item rests on assertions the rules supported, has exactly one correct option, and
    distractors the graph shows to be wrong for the patient. Written to OUT/<task>/<split>.jsonl
    (loadable with datasets.load_dataset(OUT, task)), with README.md and schema.json, and
    into the graph as (:Item) nodes linked to their assertions, rules, facts and concepts.

    The filter policy: given (--accept, --min-score, --min-confidence, KGVERIFY_VERIFY_* or
    the config file), it is re-applied to every assertion's stored verdict, score and
    confidence; not given, each assertion's stored `passed` (from verification) is used.
    The dataset card and policy.json say which.
    """
    from kgverify.api import derive_qa

    given = {
        "derive_seed": seed,
        "derive_options": options,
        "derive_split_by": split_by,
        "derive_run": chosen_run(run, all_patients),
    }
    overrides: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    settings = Settings(**overrides)  # over the environment, validated like it
    settings = with_policy(settings, accept, min_score, min_confidence)
    with count_progress("Patients", total=None, enabled=not as_json) as step:
        report = derive_qa(
            out,
            settings=settings,
            tasks=tasks,
            write=not no_write,
            progress=step,
            engine=engine,
        )
    emit(report, as_json, lambda: print_derive_report(report))


@derive.command("facts")
@out_dir_option
@click.option(
    "--gzip",
    "compress",
    is_flag=True,
    help="Write OUT/sheets.jsonl.gz instead (about 8 times smaller again; readers take either).",
)
@run_options
@engine_option("local")
@json_option
def derive_facts_command(
    out: Path, compress: bool, run: str | None, all_patients: bool, engine: str, as_json: bool
) -> None:
    """Fact sheets for record-grounded simulated patients (OUT/sheets.jsonl).

    Per patient and encounter: what the patient can say (symptoms and history in lay words,
    current drugs, allergies) apart from what only the record holds (the diagnosis to find,
    lab values, codes), each fact with its source row, concept and verdict.
    """
    from kgverify.api import derive_facts

    with count_progress("Patients", total=None, enabled=not as_json) as step:
        chosen = chosen_run(run, all_patients)
        settings = Settings(**({"derive_run": chosen} if chosen else {}))
        report = derive_facts(out, settings=settings, progress=step, gzip=compress, engine=engine)
    emit(report, as_json, lambda: print_facts_report(report))


def print_derive_report(report: DeriveReport) -> None:
    result = report.model_dump()
    console = console_for("stdout")
    console.print(f"Patients: {result['scope']}")
    total = sum(sum(s.values()) for s in result["items"].values())
    console.print(
        f"{total} items from {result['patients']} patients -> {result['out']}; "
        f"{result['written']} written to the graph, {result['retired']} earlier ones retired"
        + (f", {result['not_written']} refused by the database" if result["not_written"] else "")
    )
    rows = [
        {"task": task, **{s: splits.get(s, 0) for s in ("train", "validation", "test")}}
        for task, splits in result["items"].items()
    ]
    console.print(table("Items per task and split", rows))
    console.print(counts_table("Assertions read", result["assertions"], "verdict"))
    console.print(counts_table("Kept out of derivation", result["filtered"], "reason"))
    console.print(counts_table("Item candidates dropped", result["skipped"], "reason"))
    console.print(counts_table("Distractors rejected", result["distractors_rejected"], "reason"))
    console.print(
        counts_table("Why the chosen distractors are wrong", result["justifications"], "rule")
    )
    console.print(
        counts_table(
            "Chosen distractors per distance to the topic", result["difficulty"], "is-a steps"
        )
    )
    lures = [
        {"task": task, "lure": kind, "distractors": n}
        for task, kinds in result["lures"].items()
        for kind, n in kinds.items()
    ]
    console.print(table("Chosen distractors per lure kind", lures))
    necessary = result["context_necessary"]
    console.print(
        "Context-necessary items (a distractor is wrong only for this patient): "
        + (", ".join(f"{t} {n}" for t, n in necessary.items()) or "none")
    )
    funnel = result["funnel"]
    console.print(
        f"Yield: {funnel.get('candidates', 0)} candidates -> {funnel.get('content_groups', 0)} "
        f"content groups -> {funnel.get('items', 0)} items; limiting cause: "
        f"{funnel.get('limiting') or 'none'}"
    )
    console.print(
        f"Releases: {', '.join(result['releases']) or 'none'}; "
        f"{result['patients_in_several_splits']} patients have items in several splits "
        f"(splits by {result['split_by']})"
    )
    values = result.get("policy_values")
    if values is None:
        console.print(
            "Filter policy: stored (each assertion's passed flag from verification); "
            "--accept, --min-score, --min-confidence or KGVERIFY_VERIFY_* re-apply one"
        )
    else:
        console.print(
            f"Filter policy {result['policy']} re-applied: accept "
            f"{','.join(values['accept'])}, min score {values['min_score']}, "
            f"min confidence {values['min_confidence']}"
        )


def print_facts_report(report: FactsReport) -> None:
    result = report.model_dump()
    console = console_for("stdout")
    console.print(f"Patients: {result['scope']}")
    console.print(
        f"{result['sheets']} fact sheets, {result['encounters']} encounters -> "
        f"{result['file'] or result['out']} ({result['bytes'] / 1e6:,.1f} MB)"
    )
    console.print(counts_table("Facts per section", result["facts"], "section"))
    console.print(counts_table("Facts left out", result["excluded"], "reason"))
    console.print(counts_table("Problems found", result["checks"], "kind"))
