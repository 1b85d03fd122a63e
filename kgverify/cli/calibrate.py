"""``kgverify calibrate``: QA items asked of a panel of LLMs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from kgverify.cli.app import cli
from kgverify.cli.options import (
    api_key_option,
    base_url_option,
    concurrency_option,
    json_option,
    tasks_option,
)
from kgverify.cli.printing import console_for, emit, model_calls_progress, table
from kgverify.config import Settings

if TYPE_CHECKING:
    from kgverify.api.models import CalibrationReport


@cli.command("calibrate")
@click.argument("qa_dir", type=click.Path(path_type=Path))
@click.option(
    "--model",
    "models",
    multiple=True,
    required=True,
    help="A model of the panel (repeatable): the name the server serves, or for vllm a "
    "name or local path.",
)
@base_url_option()
@click.option(
    "--backend",
    type=click.Choice(["openai", "vllm"]),
    default="openai",
    show_default=True,
    help="openai: an OpenAI-compatible server (vllm serve); vllm: the offline engine in "
    "this process, one model after another.",
)
@click.option(
    "-o",
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder: calibration.jsonl and report.json (default: QA_DIR-calibration).",
)
@tasks_option("Ask only this task's items (repeatable); default: every task.")
@click.option(
    "--split",
    "splits",
    multiple=True,
    type=click.Choice(["train", "validation", "test"]),
    help="Ask only this split's items (repeatable); default: every split.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    metavar="N",
    help="Ask at most N items of each task (the first, in file order).",
)
@api_key_option()
@concurrency_option
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=0, min_open=True),
    default=120.0,
    show_default=True,
    help="openai: seconds to wait for one answer.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Sampling seed.")
@click.option(
    "--max-tokens",
    type=click.IntRange(1, 4096),
    default=16,
    show_default=True,
    help="Tokens per answer (a letter needs a few).",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor store cached answers.")
@json_option
def calibrate_command(
    qa_dir: Path,
    models: tuple[str, ...],
    base_url: str | None,
    backend: str,
    out: Path | None,
    tasks: tuple[str, ...],
    splits: tuple[str, ...],
    limit: int | None,
    api_key: str | None,
    concurrency: int,
    timeout_s: float,
    seed: int,
    max_tokens: int,
    no_cache: bool,
    as_json: bool,
) -> None:
    """Ask each model of a panel every QA item of QA_DIR (a `kgverify derive qa` folder).

    Each item is asked once per model for the letter of its answer (temperature 0, the
    seed); only "B", "B.", "(B)" or "Answer: B" count as an answer, anything else is
    counted unparsed. Writes OUT/calibration.jsonl (per item and model: the label chosen
    and whether it is correct; no answer text) and OUT/report.json, owner-only, and shows
    each model's accuracy per task and split, the items every model solved (too easy) and
    those none did. Answers are cached like the extractor's.
    """
    from kgverify.api import calibrate_items

    with model_calls_progress(enabled=not as_json, label="Answers") as progress:
        report = calibrate_items(
            qa_dir,
            models=models,
            base_url=base_url,
            out=out,
            backend=backend,
            tasks=tasks or None,
            splits=splits or None,
            limit=limit,
            api_key=api_key,
            concurrency=concurrency,
            timeout_s=timeout_s,
            seed=seed,
            max_tokens=max_tokens,
            cache=not no_cache,
            settings=Settings(),
            progress=progress,
        )
    emit(report, as_json, lambda: print_calibration_report(report))


def print_calibration_report(report: CalibrationReport, shown: int = 5) -> None:
    result = report.model_dump()
    console = console_for("stdout")
    items = sum(sum(splits.values()) for splits in result["items"].values())
    console.print(
        f"{items} items x {len(result['models'])} models ({result['backend']}, "
        f"{result['prompt']}) -> {result['rows']}; {result['cached']} answers from the "
        f"cache, {result['model_calls']} model calls",
        highlight=False,
        markup=False,
    )
    console.print(
        "Accuracy per task and split (unparsed and failed answers count as not solved):",
        highlight=False,
    )
    for total in result["totals"]:
        model = total["model"]
        rows = [
            {
                "task": f"{s['task']}/{s['split']}" if s["task"] != "all" else "all",
                "items": s["items"],
                "correct": s["correct"],
                "unparsed": s["unparsed"],
                "failed": s["failed"],
                "accuracy": f"{s['accuracy']:.3f}",
            }
            for s in [*(s for s in result["scores"] if s["model"] == model), total]
        ]
        console.print(table(model, rows))
    for key, what in (
        ("solved_by_all", "solved by every model (too easy)"),
        ("solved_by_none", "solved by no model"),
    ):
        ids = result[key]
        more = f", ... ({len(ids) - shown} more in --json)" if len(ids) > shown else ""
        listed = f": {', '.join(ids[:shown])}{more}" if ids else ""
        console.print(f"{len(ids)} items {what}{listed}", highlight=False, markup=False)
