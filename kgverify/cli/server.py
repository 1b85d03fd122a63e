"""``kgverify neo4j``: the local Neo4j server."""

from __future__ import annotations

import sys

import click

from kgverify.cli.app import cli
from kgverify.cli.options import json_option
from kgverify.cli.printing import emit
from kgverify.config import Settings


@cli.group()
def neo4j() -> None:
    """Run the local Neo4j Community 5.26 server (with APOC), bound to 127.0.0.1."""


def _external_uri_note(settings: Settings) -> str:
    """With NEO4J_URI set, commands use that server: say so next to the local one's details."""
    if not settings.neo4j_uri:
        return ""
    return f"; NEO4J_URI is set, so kgverify commands use {settings.neo4j_uri}, not this server"


def _password_note(password_file: str | None) -> str:
    if password_file is None:
        return "no password file yet"
    return f"user neo4j, password in {password_file}"


def _browser_note(browser: str | None, http: str | None) -> str:
    """Where Neo4j Browser is, or why there is none."""
    if browser:
        return f"Neo4j Browser at {browser}"
    if http and http.startswith("busy:"):
        port = http.removeprefix("busy:")
        return f"no Neo4j Browser (port {port} was taken; set KGVERIFY_HTTP_PORT)"
    if http == "off":
        return "no Neo4j Browser (KGVERIFY_HTTP_PORT=0)"
    # A server an older launcher started says nothing about HTTP.
    return "no Neo4j Browser (an older launcher started it: `kgverify neo4j stop`, then start)"


@neo4j.command("start")
@json_option
def neo4j_start(as_json: bool) -> None:
    """Build (first time), start and wait until Bolt answers; no-op if already running.

    After an unclean stop the database replays its transaction log first; the wait goes on
    while that moves (KGVERIFY_START_TIMEOUT_S bounds the time without progress).
    """
    from kgverify.api import start_server

    settings = Settings()
    status = start_server(settings, on_progress=lambda line: click.echo(line, err=True))
    emit(
        {**status.as_dict(), "neo4j_uri": settings.neo4j_uri},
        as_json,
        lambda: click.echo(
            f"Neo4j running at {status.uri} (pid {status.pid}, APOC {status.apoc}); "
            f"{_browser_note(status.browser, status.http)}; "
            f"{_password_note(status.password_file)}{_external_uri_note(settings)}"
        ),
    )


@neo4j.command("stop")
@json_option
def neo4j_stop(as_json: bool) -> None:
    """Shut the local server down cleanly."""
    from kgverify.api import stop_server

    stopped = stop_server(Settings())
    emit(
        {"stopped": stopped},
        as_json,
        lambda: click.echo("Neo4j stopped" if stopped else "Neo4j was not running"),
    )


@neo4j.command("status")
@json_option
def neo4j_status(as_json: bool) -> None:
    """Say whether the local server runs, where, and with which data folder."""
    from kgverify.api import server_status

    settings = Settings()
    status = server_status(settings)
    if status.running:
        line = (
            f"running at {status.uri} (pid {status.pid}), data in {status.home}; "
            f"{_browser_note(status.browser, status.http)}; "
            f"{_password_note(status.password_file)}"
        )
    elif status.starting:
        doing = f"recovering its database: {status.recovery}" if status.recovery else "starting"
        line = (
            f"not answering yet (pid {status.pid}, {doing}); `kgverify neo4j start` waits "
            f"for it; data in {status.home}"
        )
    else:
        line = f"not running (data in {status.home})"
    emit(
        {**status.as_dict(), "neo4j_uri": settings.neo4j_uri},
        as_json,
        lambda: click.echo(line + _external_uri_note(settings)),
    )
    if not status.running:
        sys.exit(1)
