"""``kgverify sample``, ``run``: the whole chain, each step as it goes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kgverify.cli.app import cli
from kgverify.cli.derive import print_derive_report, print_facts_report
from kgverify.cli.dialogue import print_dialogue_report
from kgverify.cli.ehr import print_extract_result, print_ingest_report
from kgverify.cli.graph import print_summary
from kgverify.cli.link import print_link_report
from kgverify.cli.load import print_load_report
from kgverify.cli.options import engine_option, json_option
from kgverify.cli.printing import console_for, emit, rich_progress, step_bar, table
from kgverify.cli.verify import print_verify_report
from kgverify.config import Settings

if TYPE_CHECKING:
    from kgverify.api.models import PipelineReport, StepEvent


@cli.command("sample")
@json_option
def sample_command(as_json: bool) -> None:
    """The main job on the shipped sample: start the local Neo4j, load the sample
    vocabularies (UMLS, SNOMED CT, RxNorm), ingest the sample EHR (39 Eunomia patients,
    OMOP CSV), extract candidate relations, link them (and the shipped LLM-style relations
    with the hard cases) to vocabulary concepts, verify them against the graph, derive QA
    items and patient fact sheets, check the shipped simulated-patient dialogues against
    the sheets, and print what each step did."""
    from kgverify.api import run_sample

    quiet = as_json
    if not quiet:
        console_for("stderr").print("Starting the local Neo4j (the first start builds it) ...")
    report = run_sample(
        Settings(),
        progress=None if quiet else rich_progress,
        on_step=None if quiet else print_step,
        bars=None if quiet else step_bar,
    )
    emit(report, as_json, lambda: print_pipeline_report(report))


@cli.command("run")
@click.argument("config", type=click.Path(path_type=Path))
@engine_option(None)
@json_option
def run_command(config: Path, engine: str | None, as_json: bool) -> None:
    """Run the whole chain as CONFIG says: a TOML file of `api.pipeline`'s parameters.

    Its keys: source, source_path, out (required); vocabularies (name = release folder,
    loaded first), extractor, model, base_url, api_key, concurrency, relations (more
    relation files to link and verify), tasks, facts, dialogues, engine. Relative paths
    start at the file's folder; every value is checked before anything runs (README.md,
    "Python API"). The connection and other settings come from the environment and
    kgverify.toml, as for every command. --engine overrides the file's engine.
    """
    from kgverify.api import pipeline_from_config

    progress = None if as_json else rich_progress
    report = pipeline_from_config(
        config,
        settings=Settings(),
        engine=engine,
        progress=progress,
        on_step=None if as_json else print_step,
        bars=None if as_json else step_bar,
    )
    emit(report, as_json, lambda: print_pipeline_report(report))


def print_step(event: StepEvent) -> None:
    """One line on stderr as a pipeline step starts, one as it ends (with what it did)."""
    console = console_for("stderr")
    if event.status == "started":
        console.print(f"[{event.number}] {event.step} ...")
    else:
        console.print(f"[{event.number}] {event.step}: {event.summary} ({event.seconds:.1f} s)")


def print_pipeline_report(report: PipelineReport) -> None:
    """What each stage of a pipeline run did (``kgverify sample``, ``kgverify run``)."""
    for loaded in report.loads:
        print_load_report(loaded, False)
    print_ingest_report(report.ingest)
    print_extract_result(report.extract)
    for linked in report.link:
        print_link_report(linked)
    for verified in report.verify:
        print_verify_report(verified)
    print_derive_report(report.derive.qa)
    if report.derive.facts is not None:
        print_facts_report(report.derive.facts)
    if report.dialogues is not None:
        print_dialogue_report(report.dialogues)
    print_summary(report.summary)
    console = console_for("stdout")
    steps = [{"step": r.step, "seconds": r.seconds, "what it did": r.summary} for r in report.steps]
    console.print(table(f"Run {report.run}", steps))
    if report.run_file:
        record = json.loads(Path(report.run_file).read_text(encoding="utf-8"))
        graph = record["graph"]
        console.print(
            f"Run record: {report.run_file}. Graph: {graph['bolt']}"
            + (f"; Neo4j Browser: {graph['browser']}" if graph.get("browser") else "")
            + (f"; stop the server with `{graph['stop']}`" if graph.get("stop") else "")
            + "."
        )
    console.print(
        "Audit it: `kgverify audit filter_rates`, `kgverify audit --list`; compare runs: "
        "`kgverify runs`; after a newer release, `kgverify reverify` (docs/audit.md)."
    )
