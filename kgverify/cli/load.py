"""``kgverify load``: a vocabulary release into the graph."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click

from kgverify.cli.app import cli
from kgverify.cli.options import SettingOption, json_option, rejects_option, vocabulary_argument
from kgverify.cli.printing import console_for, emit, rich_progress, table
from kgverify.config import Settings
from kgverify.errors import RejectThresholdError, ReleaseGuardError

if TYPE_CHECKING:
    from kgverify.api.models import LoadReport


@cli.command("load")
@vocabulary_argument
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--language",
    "languages",
    multiple=True,
    default=("ENG",),
    show_default=True,
    help="Languages to keep (UMLS LAT codes; repeat for several).",
)
@click.option(
    "--source",
    "sources",
    multiple=True,
    help="UMLS source vocabularies (SAB) to keep; repeat; default all.",
)
@click.option("--include-suppressed", is_flag=True, help="Keep suppressible and obsolete atoms.")
@click.option("--release", help="Release version, when it cannot be read from the files.")
@click.option("--force", is_flag=True, help="Load even a release older than the current one.")
@click.option(
    "--abandon-interrupted",
    is_flag=True,
    help="Mark an interrupted load of another release of this vocabulary abandoned.",
)
@click.option(
    "--allow-retire",
    is_flag=True,
    help="Retire what the release drops even beyond --max-retire-share (else it is held).",
)
@click.option(
    "--max-retire-share",
    type=click.FloatRange(0, 1),
    help="Hold (exit 4) a release that would retire more than this share, or whose files "
    "shrank by more.",
    cls=SettingOption,
    setting="max_retire_share",
)
@click.option(
    "--batch-size",
    type=click.IntRange(1, 1_000_000),
    help="Rows per write.",
    cls=SettingOption,
    setting="batch_size",
)
@click.option(
    "--max-reject-share",
    type=click.FloatRange(0, 1),
    help="Fail (exit 3) when more than this share of rows is rejected.",
    cls=SettingOption,
    setting="max_reject_share",
)
@rejects_option
@click.option(
    "--bulk",
    is_flag=True,
    help="Full-size releases: neo4j-admin import into the EMPTY local database.",
)
@json_option
def load_command(
    vocabulary: str,
    path: Path,
    languages: tuple[str, ...],
    sources: tuple[str, ...],
    include_suppressed: bool,
    release: str | None,
    force: bool,
    abandon_interrupted: bool,
    allow_retire: bool,
    max_retire_share: float | None,
    batch_size: int | None,
    max_reject_share: float | None,
    rejects: Path | None,
    bulk: bool,
    as_json: bool,
) -> None:
    """Load a vocabulary release from PATH (a release folder or its files).

    Every row is loaded, skipped by an option (counted), or rejected with its file, line and
    reason (written to the rejects file). Loading the same release twice changes nothing;
    a newer release updates names and relations and marks dropped concepts retired.

    Exit codes: 0 loaded; 2 refused before writing (missing or empty files, an older
    release); 3 too many rows rejected (nothing retired); 4 stopped by the release guard:
    a file cut mid-line, a SNOMED CT concept left without a name, files much shorter than
    the current release's, or it would retire, inactivate or rename more than
    --max-retire-share of the concepts (held, nothing written), or drop more of the
    relationships (held: rows written, nothing retired; see --allow-retire).
    """
    from kgverify.api import load_vocabulary

    overrides: dict[str, Any] = {}
    if batch_size is not None:
        overrides["batch_size"] = batch_size
    if max_reject_share is not None:
        overrides["max_reject_share"] = max_reject_share
    if max_retire_share is not None:
        overrides["max_retire_share"] = max_retire_share
    settings = Settings(**overrides)
    try:
        report = load_vocabulary(
            vocabulary,
            path,
            settings=settings,
            bulk=bulk,
            rejects_path=rejects,
            progress=None if as_json else rich_progress,
            languages=languages,
            sources=sources or None,
            include_suppressed=include_suppressed,
            release=release,
            force=force,
            allow_retire=allow_retire,
            abandon_interrupted=abandon_interrupted,
        )
    except (RejectThresholdError, ReleaseGuardError) as exc:
        if exc.report is not None:  # rows were written: say what happened to them
            print_load_report(cast("LoadReport", exc.report), as_json)
        raise
    print_load_report(report, as_json)


def print_load_report(report: LoadReport, as_json: bool) -> None:
    def render() -> None:
        console = console_for("stdout")
        rows = [
            {k: getattr(f, k) for k in ("file", "read", "loaded", "skipped", "rejected")}
            for f in report.files
        ]
        console.print(table(f"{report.release} ({report.mode}, {report.seconds} s)", rows))
        if report.status == "held":
            console.print(
                f"held, nothing retired; it would retire {report.would_retire_concepts} "
                f"concepts ({', '.join(report.would_retire_examples[:5])} ...) and "
                f"{report.would_retire_relationships} relationships"
            )
        else:
            console.print(
                f"retired: {report.retired_concepts} concepts, "
                f"{report.retired_relationships} relationships"
            )
        if report.facts_linked:
            console.print(
                f"linked: {report.facts_linked} patient facts ingested before their concept"
            )
        if report.rejects_path:
            console.print(f"rejected rows: {report.rejects_path}")

    emit(report, as_json, render)
