"""``kgverify fhir start|stop|status|load``: the local FHIR server (HAPI FHIR JPA, R4) and
loading an EHR source's patients into a FHIR server (docs/fhir.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from kgverify.cli.app import cli
from kgverify.cli.options import json_option
from kgverify.config import Settings, with_options


def _emit(data: dict[str, Any], as_json: bool, line: Callable[[], str]) -> None:
    click.echo(json.dumps(data, indent=2, default=str) if as_json else line())


class _InOrder(click.Group):
    """Commands in the order they are defined, each with its whole first sentence."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(n, c.get_short_help_str(limit=10_000)) for n, c in self.commands.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@cli.group("fhir", cls=_InOrder)
def fhir() -> None:
    """Run the local FHIR server (HAPI FHIR JPA, R4) on 127.0.0.1; load patients into one."""


@fhir.command("start")
@json_option
def fhir_start(as_json: bool) -> None:
    """Build (once), start and wait until /fhir/metadata answers.

    The first build downloads about 330 MB of HAPI FHIR's jars from Maven Central. A no-op
    when the server already runs. Settings: KGVERIFY_FHIR_PORT, KGVERIFY_FHIR_HEAP,
    KGVERIFY_FHIR_HOME."""
    from kgverify.api import start_fhir_server

    status = start_fhir_server(Settings())
    _emit(
        status.as_dict(),
        as_json,
        lambda: f"FHIR server running at {status.url} (pid {status.pid}), data in {status.home}",
    )


@fhir.command("stop")
@json_option
def fhir_stop(as_json: bool) -> None:
    """Shut the local FHIR server down cleanly."""
    from kgverify.api import stop_fhir_server

    stopped = stop_fhir_server(Settings())
    _emit(
        {"stopped": stopped},
        as_json,
        lambda: "FHIR server stopped" if stopped else "FHIR server was not running",
    )


@fhir.command("status")
@json_option
def fhir_status(as_json: bool) -> None:
    """Say whether the local FHIR server runs, and where.

    Exit code 1 when it does not run."""
    from kgverify.api import fhir_server_status

    status = fhir_server_status(Settings())
    if status.running:
        line = f"running at {status.url} (pid {status.pid}), data in {status.home}"
    elif status.starting:
        line = f"not answering yet (pid {status.pid}); `kgverify fhir start` waits for it"
    else:
        line = f"not running (data in {status.home})"
    _emit(status.as_dict(), as_json, lambda: line)
    if not status.running:
        raise SystemExit(1)


@fhir.command("load")
@click.argument("source")
@click.argument("path")
@click.option("--url", help="The FHIR server's base URL (default: fhir_url, else the local one).")
@click.option("--batch", type=int, help="Patients per transaction bundle (fhir_load_batch).")
@click.option("--rejects", type=click.Path(path_type=Path), help="Rejected rows (JSONL).")
@json_option
def fhir_load(
    source: str, path: str, url: str | None, batch: int | None, rejects: Path | None, as_json: bool
) -> None:
    """Write an EHR source's patients into a FHIR server.

    SOURCE is omop, mimic or fhir and PATH its file or folder, as for `kgverify ingest`.
    Patients keep their pseudonyms and age bands (a birth year, never a day); ids are
    stable, so loading again updates in place. 429 and 5xx answers are retried
    (fhir_retries, with backoff); a patient the server refuses is a reject.
    """
    from kgverify.api import load_fhir, reads_url, source_location

    if reads_url(source):
        raise click.UsageError(f"{source} is a server; load from a file source")
    where = source_location(source, path)
    settings = with_options(Settings(), fhir_load_batch=("--batch", batch))
    report = load_fhir(source, where, url=url, settings=settings, rejects_path=rejects)
    result = report.model_dump()
    counts = ", ".join(f"{n} {kind}" for kind, n in report.resources.items())

    def line() -> str:
        text = (
            f"Loaded {report.patients} patients into {report.url} in {report.bundles} "
            f"transaction bundles ({counts}); {report.requests} requests, "
            f"{report.retried} retried"
        )
        if report.refused_patients:
            text += f"; {report.refused_patients} patients refused (see {report.rejects})"
        if report.notes_not_written:
            text += f"; {report.notes_not_written} notes not written"
        return text

    _emit(result, as_json, line)
