"""``kgverify fhir start|stop|status|load``: the local FHIR server and loading patients into a
FHIR server (docs/fhir.md). A group of its own that ``kgverify.cli`` adds with one line;
failures reach the top-level group, which prints them as one ``error:`` line."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from kgverify.config import Settings, with_options


def _emit(data: dict[str, Any], as_json: bool, line: Callable[[], str]) -> None:
    click.echo(json.dumps(data, indent=2, default=str) if as_json else line())


_json = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")


class _InOrder(click.Group):
    """Commands in the order they are defined, each with its whole first sentence."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(n, c.get_short_help_str(limit=10_000)) for n, c in self.commands.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group("fhir", cls=_InOrder)
def fhir() -> None:
    """Run the local FHIR server (HAPI FHIR JPA, R4) on 127.0.0.1; load patients into one."""


@fhir.command("start")
@_json
def fhir_start(as_json: bool) -> None:
    """Build (once), start and wait until /fhir/metadata answers.

    The first build downloads about 330 MB of HAPI FHIR's jars from Maven Central. A no-op
    when the server already runs. Settings: KGVERIFY_FHIR_PORT, KGVERIFY_FHIR_HEAP,
    KGVERIFY_FHIR_HOME."""
    from kgverify.server.fhir import LocalFhirServer

    status = LocalFhirServer(Settings()).start()
    _emit(
        status.as_dict(),
        as_json,
        lambda: f"FHIR server running at {status.url} (pid {status.pid}), data in {status.home}",
    )


@fhir.command("stop")
@_json
def fhir_stop(as_json: bool) -> None:
    """Shut the local FHIR server down cleanly."""
    from kgverify.server.fhir import LocalFhirServer

    stopped = LocalFhirServer(Settings()).stop()
    _emit(
        {"stopped": stopped},
        as_json,
        lambda: "FHIR server stopped" if stopped else "FHIR server was not running",
    )


@fhir.command("status")
@_json
def fhir_status(as_json: bool) -> None:
    """Say whether the local FHIR server runs, and where.

    Exit code 1 when it does not run."""
    from kgverify.server.fhir import LocalFhirServer

    status = LocalFhirServer(Settings()).status()
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
@_json
def fhir_load(
    source: str, path: str, url: str | None, batch: int | None, rejects: Path | None, as_json: bool
) -> None:
    """Write an EHR source's patients into a FHIR server.

    SOURCE is omop, mimic or fhir and PATH its file or folder, as for `kgverify ingest`.
    Patients keep their pseudonyms and age bands (a birth year, never a day); ids are
    stable, so loading again updates in place. 429 and 5xx answers are retried
    (fhir_retries, with backoff); a patient the server refuses is a reject.
    """
    from kgverify.api import load_fhir
    from kgverify.ehr.sources import EHR_SOURCES, source_descriptor

    if EHR_SOURCES.pick(source).takes == "url":
        raise click.UsageError(f"{source} is a server; load from a file source")
    where = source_descriptor(source, path)
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
