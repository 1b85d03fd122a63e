"""``kgverify link``, ``index``, ``find``: mentions linked to concepts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from kgverify.cli.app import cli
from kgverify.cli.options import (
    SettingOption,
    engine_option,
    json_option,
    out_option,
    rejects_option,
    relations_argument,
    trajectories_option,
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
from kgverify.errors import ConfigError

if TYPE_CHECKING:
    from kgverify.api.models import ConceptMatch, IndexInfo, LinkReport


@cli.command("link")
@relations_argument
@out_option("Linked relations (JSONL, docs/linking.md).")
@trajectories_option
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1),
    help="Lowest score to link.",
    cls=SettingOption,
    setting="link_threshold",
)
@click.option(
    "--margin",
    type=click.FloatRange(0, 1),
    help="Lead needed over the next concept.",
    cls=SettingOption,
    setting="link_margin",
)
@click.option("--rebuild-index", is_flag=True, help="Rebuild the linker index from the graph.")
@engine_option("local")
@rejects_option
@json_option
def link_command(
    relations: Path,
    out: Path,
    trajectories: Path | None,
    threshold: float | None,
    margin: float | None,
    rebuild_index: bool,
    engine: str,
    rejects: Path | None,
    as_json: bool,
) -> None:
    """Link both mentions of every candidate relation in RELATIONS to vocabulary concepts.

    Each mention goes through the stages code -> exact name -> normalized name -> TF-IDF
    (scispaCy) and comes out linked, ambiguous or unlinked, with ranked candidates. The
    index is built from the graph on first use and rebuilt when a release changes.
    """
    from kgverify.api import link_relations_file

    overrides = {"link_threshold": threshold, "link_margin": margin}
    settings = Settings().model_copy(update={k: v for k, v in overrides.items() if v is not None})
    with count_progress("Linking", total=count_lines(relations), enabled=not as_json) as step:
        report = link_relations_file(
            relations,
            out,
            settings=settings,
            trajectories=trajectories,
            rejects_path=rejects,
            rebuild_index=rebuild_index,
            engine=engine,
            progress=step,
        )
    emit(report, as_json, lambda: print_link_report(report))
    check_reject_share("link", report.read, report.rejected, report.rejects, settings, report)


@cli.command("index")
@click.option("--rebuild", is_flag=True, help="Build even if the releases have not changed.")
@json_option
def index_command(rebuild: bool, as_json: bool) -> None:
    """Build (or reuse) the linker index of the loaded releases and describe it.

    `kgverify link` does this on first use; run it ahead to pay the build once. The index is
    cached under <cache_dir>/linker/<key>, the key naming the releases and index settings.
    """
    from kgverify.api import build_linker_index

    info = build_linker_index(Settings(), rebuild=rebuild)
    emit(info, as_json, lambda: console_for("stdout").print(table("Linker index", [_flat(info)])))


def _flat(info: IndexInfo) -> dict[str, Any]:
    releases = ", ".join(r["id"] for r in info.source.get("releases", []))
    settings = ", ".join(f"{k}={v}" for k, v in info.settings.items())
    return {
        "key": info.key,
        "releases": releases,
        "concepts": info.concepts,
        "aliases": info.aliases,
        "indexed": info.indexed_aliases,
        "settings": settings,
        "build_s": info.build_seconds,
    }


def print_link_report(report: LinkReport) -> None:
    result = report.model_dump()
    console = console_for("stdout")
    title = (
        f"{result['linked_relations']} relations linked -> {result['out']} "
        f"({result['both_linked']} with both mentions linked; index {result['index']})"
    )
    console.print(title)
    console.print(table("Mentions by status", [result["by_status"]]))
    console.print(table("Linked mentions by stage", [result["by_method"]]))
    console.print(
        f"read {result['read']}, rejected {result['rejected']}, "
        f"{result['mentions_per_second']} mentions/s"
    )
    if result.get("rejects"):
        console.print(f"rejected lines: {result['rejects']}")


@cli.command("find")
@click.argument("text")
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True)
@json_option
def find_command(text: str, limit: int, as_json: bool) -> None:
    """Find concepts by name: the linker's candidates first (its stages: exact, normalized,
    fallback forms, typos, TF-IDF), then full-text matches over names and synonyms."""
    from kgverify.api import find_concepts

    if not text.strip():
        raise ConfigError("find: the search text is empty")
    matches = find_concepts(text, limit=limit, settings=Settings())
    rows = [m.model_dump() for m in matches]

    def render() -> None:
        if any(m.close for m in matches):
            console_for("stdout").print(table(f"Concepts matching {text!r}", rows))
            return
        # Nothing reaches the linker's threshold: the rows are neighbours, not matches, and
        # the first of them must not read as the concept the text names.
        # One entry per name: a concept is often in several vocabularies under one name.
        first_of_name: dict[str, ConceptMatch] = {}
        for m in matches:
            first_of_name.setdefault(str(m.name).casefold(), m)
        nearest = ", ".join(f"{m.name} ({m.score:.2f})" for m in list(first_of_name.values())[:3])
        console_for("stdout").print(table(f"Nearest names to {text!r} (no close match)", rows))
        click.echo(
            f"{text!r} is not in the loaded vocabularies: "
            + (f"the nearest names are {nearest}" if rows else "no name comes near it")
        )

    emit(rows, as_json, render)


def lucene_words(text: str) -> str:
    """``kgverify.api.lucene_words`` (imported on use: the API is slow to import)."""
    from kgverify.api import lucene_words as words

    return words(text)
