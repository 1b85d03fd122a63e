"""``kgverify ingest``, ``trajectories``, ``extract``: what an EHR source gives."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from kgverify.cli.app import cli
from kgverify.cli.options import (
    SourcesHelp,
    api_key_option,
    base_url_option,
    concurrency_option,
    ehr_path,
    ehr_source,
    engine_option,
    extractor_option,
    json_option,
    out_option,
    rejects_option,
)
from kgverify.cli.printing import (
    SourceRows,
    console_for,
    counts_table,
    emit,
    model_calls_progress,
    source_rows_share,
    table,
)
from kgverify.config import Settings

if TYPE_CHECKING:
    from kgverify.api.models import ExtractReport, SourceIngestReport, TrajectoriesReport


@cli.command("ingest", cls=SourcesHelp)
@ehr_source
@ehr_path
@click.option(
    "--relations",
    type=click.Path(path_type=Path),
    help="Also write the template extractor's candidate relations here (JSONL, "
    "docs/relations.md) from the same read of the source, as `kgverify run` does; the same "
    "file as `kgverify extract` then writes.",
)
@click.option(
    "--bulk",
    is_flag=True,
    help="A first load into the local server's empty database through neo4j-admin import "
    "(the server is stopped for it and started again); load the vocabularies after it: each "
    "load links the facts whose code it brings. The same graph as ingesting after the "
    "vocabularies (docs/graph-model.md; timings in docs/benchmarks.md).",
)
@rejects_option
@json_option
def ingest_command(
    source: str,
    path: Path,
    relations: Path | None,
    bulk: bool,
    rejects: Path | None,
    as_json: bool,
) -> None:
    """Write an EHR source's patients, encounters and facts into Neo4j.

    SOURCE is {sources}. Patients and encounters get salted pseudonyms
    (KGVERIFY_PSEUDONYM_SALT); each fact links to its vocabulary concept when loaded.
    With --relations, --json adds the extraction's report as "extract".

    Exit codes: 0 ingested; 2 bad input; 3 more rows rejected than KGVERIFY_MAX_REJECT_SHARE
    allows (the report is printed first, what was read is written).
    """
    from kgverify.api import ingest_and_extract, ingest_source

    settings = Settings()
    if relations is None:
        report = ingest_source(source, path, settings=settings, rejects_path=rejects, bulk=bulk)
        emit(report, as_json, lambda: print_ingest_report(report))
    else:
        report, extracted = ingest_and_extract(
            source, path, relations, settings=settings, rejects_path=rejects, bulk=bulk
        )

        def both() -> None:
            print_ingest_report(report)
            console_for("stdout").print(extract_headline(extracted), highlight=False, markup=False)

        emit(report.model_dump() | {"extract": extracted.model_dump()}, as_json, both)
    source_rows_share(f"ingest {source}", report, settings)


@cli.command("trajectories")
@ehr_source
@ehr_path
@out_option("Trajectories JSONL (docs/trajectories.md; gzip for .gz), owner-only.")
@rejects_option
@json_option
def trajectories_command(
    source: str, path: Path, out: Path, rejects: Path | None, as_json: bool
) -> None:
    """Write an EHR source's patient trajectories as JSONL (for link/verify --trajectories).

    SOURCE and PATH as for `kgverify ingest`. The file holds pseudonyms, age bands, dated
    facts and note text (for abbreviations in context): keep it with the source.

    Exit codes: 0 written; 2 bad input; 3 more rows rejected than KGVERIFY_MAX_REJECT_SHARE
    allows (the file and the report are written first).
    """
    from kgverify.api import write_trajectories

    settings = Settings()
    report = write_trajectories(source, path, out, settings=settings, rejects_path=rejects)
    emit(report, as_json, lambda: print_trajectories_result(report))
    source_rows_share(f"trajectories {source}", report, settings)


def print_trajectories_result(report: TrajectoriesReport) -> None:
    console = console_for("stdout")
    console.print(
        f"{report.patients} trajectories ({report.encounters} encounters, "
        f"{report.episodes} episodes) -> {report.out}",
        highlight=False,
        markup=False,
    )
    counts = {k.replace("_", " "): n for k, n in report.counts().items()}
    console.print(counts_table("Trajectories", counts, "what"))
    print_source_rows(report)


@cli.command("extract")
@extractor_option
@ehr_source
@ehr_path
@click.option(
    "-o",
    "--out",
    type=click.Path(path_type=Path),
    required=True,
    help="Candidate relations (JSONL, docs/relations.md).",
)
@click.option("--model", help="LLM extractors: the model name (or local path, for vllm).")
@base_url_option()
@api_key_option()
@concurrency_option
@engine_option("local")
@rejects_option
@json_option
def extract_command(
    extractor: str,
    source: str,
    path: Path,
    out: Path,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    concurrency: int,
    engine: str,
    rejects: Path | None,
    as_json: bool,
) -> None:
    """Propose candidate relations from an EHR source and write them as JSONL.

    LLM answers are cached (same model, prompt and parameters: no second call); answers that
    stay invalid after the repair retries are written with the reason to OUT.failures.jsonl.
    """
    from kgverify.api import extract_relations

    settings = Settings()
    with model_calls_progress(enabled=not as_json and extractor != "template") as progress:
        report = extract_relations(
            source,
            path,
            out,
            settings=settings,
            rejects_path=rejects,
            extractor=extractor,
            model=model,
            base_url=base_url,
            api_key=api_key,
            concurrency=concurrency,
            progress=progress,
            engine=engine,
        )
    emit(report, as_json, lambda: print_extract_result(report))
    source_rows_share(f"extract {source}", report, settings)


def extract_headline(report: ExtractReport) -> str:
    """What an extraction did, in one line, whatever it found (0 relations included)."""
    line = (
        f"{report.relations} relations proposed from {report.episodes} episodes of "
        f"{report.patients} patients -> {report.out}"
    )
    llm = report.llm
    if llm:
        line += (
            f"; {llm['prompts']} prompts ({llm['cached']} of {llm['requests']} answers from "
            f"the cache), {llm['rejected']} relations refused"
        )
    if report.failures:
        line += f"; {report.failures} failures -> {report.failures_out}"
    return line


def print_extract_result(report: ExtractReport) -> None:
    console_for("stdout").print(extract_headline(report), highlight=False, markup=False)
    print_source_result("By predicate", report.by_predicate, report)


def print_ingest_report(report: SourceIngestReport) -> None:
    print_source_result("Ingested", report.ingest.model_dump(), report, run=report.run)


def print_source_result(
    title: str, counts: dict[str, Any], report: SourceRows, run: str | None = None
) -> None:
    console = console_for("stdout")
    # Per-kind tallies (ingest's not_written) as one total; --json keeps the detail.
    counts = {k: sum(v.values()) if isinstance(v, dict) else v for k, v in counts.items()}
    console.print(table(title, [counts]))
    print_source_rows(report)
    if run:
        console.print(
            f"Run {run}: `kgverify derive` reads these patients by default "
            "(`kgverify runs` lists runs)"
        )


def print_source_rows(report: SourceRows) -> None:
    console = console_for("stdout")
    rows = [
        {k: getattr(r, k) for k in ("file", "read", "loaded", "skipped", "rejected")}
        for r in report.rows
    ]
    console.print(table("Source rows", rows))
    if report.rejects:
        console.print(f"rejected rows: {report.rejects}")
