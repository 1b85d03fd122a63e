"""The ``kgverify`` command line: a thin layer over the Python API, no logic of its own.

Every command prints a readable table by default (fitted to the console, or to ``COLUMNS``)
and JSON with ``--json``, and takes ``-v`` after its name as the group does before it.
Expected failures (Neo4j down, wrong password, bad input, bad options) print one ``error:``
line on stderr, with ``--json`` too, and exit non-zero.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import logging
import os
import sqlite3
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from kgverify.__about__ import __version__
from kgverify.actions_cli import COMMANDS as ACTION_COMMANDS
from kgverify.config import Settings, config_file, use_config_file, with_options
from kgverify.errors import (
    ConfigError,
    KgverifyError,
    RejectThresholdError,
    ReleaseGuardError,
)
from kgverify.fhir_cli import fhir as fhir_group
from kgverify.outputs import storage_failure

if TYPE_CHECKING:
    from kgverify.pipeline import StepEvent


def _console(stream: str) -> Console:
    # Created per call so output goes to the current streams (click's test runner swaps
    # them); piped output (CI logs, files) gets wide tables, not Rich's 80 columns, unless
    # COLUMNS says how wide (Rich reads it).
    console = Console(file=sys.stdout if stream == "stdout" else sys.stderr)
    if console.is_terminal or os.environ.get("COLUMNS", "").isdigit():
        return console
    return Console(file=console.file, width=160)


# The top-level help lists commands in the order a pipeline runs them, each with one line.
# Commands not named here (added later) follow, with the first sentence of their help.
WORKFLOW: dict[str, str] = {
    "neo4j": "Start, stop or inspect the local Neo4j (127.0.0.1 only).",
    "load": "Load a UMLS, SNOMED CT or RxNorm release into the graph.",
    "ingest": "Write an EHR source's patients and facts into the graph.",
    "trajectories": "Write an EHR source's patient trajectories as JSONL.",
    "extract": "Propose candidate relations from an EHR source.",
    "fhir": "Run the local FHIR server; load EHR patients into one.",
    "index": "Build (or reuse) the linker index of the loaded releases.",
    "link": "Link the mentions of relations to vocabulary concepts.",
    "find": "Find concepts by name, as the linker sees them.",
    "verify": "Judge relations against the graph; write verdicts.",
    "check": "Judge one relation: metformin treats type 2 diabetes?",
    "check-dialogue": "Check simulated-patient turns against fact sheets.",
    "forget-dialogues": "Remove checked dialogues from the graph.",
    "patient": "A guarded simulated patient on an OpenAI-compatible server.",
    "derive": "Derive QA items and fact sheets from what passed.",
    "calibrate": "Ask a panel of LLMs every QA item; flag the too easy ones.",
    "audit": "Run an audit query: lineage, flags, filter rates.",
    "prov": "An item's lineage as W3C PROV-O (Turtle or JSON-LD).",
    "reverify": "Re-check what a newer release changed; flag items.",
    "review": "Clinician review: export pages and a sheet, import it.",
    "cypher": "Run one Cypher statement against the graph.",
    "runs": "List the runs (each ingest, its patients); compare two.",
    "summary": "Counts of releases, concepts, relationships, facts.",
    "queries": "List the named Cypher statements, or show one.",
    "graph": "Maintenance of the graph itself (reset).",
    "run": "The whole chain as a TOML file of pipeline parameters says.",
    "sample": "The whole pipeline on the shipped sample, step by step.",
}


def _sub_verbose(ctx: click.Context, _param: click.Parameter, value: int) -> None:
    """``-v`` given after a subcommand: adds to the group's ``-v`` (same meaning)."""
    if value:
        configure_logging(int(ctx.find_root().params.get("verbose") or 0) + value)


def _with_verbose(command: click.Command) -> None:
    """Give ``command`` (and, for a group, its subcommands) the ``-v/--verbose`` option."""
    if not any("--verbose" in p.opts for p in command.params):
        command.params.append(
            click.Option(
                ["-v", "--verbose"],
                count=True,
                expose_value=False,
                callback=_sub_verbose,
                help="Same as kgverify -v (-vv, -vvv), given after the command.",
            )
        )
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _with_verbose(sub)


class _Group(click.Group):
    """Turns expected failures into one line on stderr and a non-zero exit code; lists the
    top-level commands in workflow order with whole summaries."""

    group_class = type  # subgroups (`derive`, `neo4j`, ...) are _Groups too

    def list_commands(self, ctx: click.Context) -> list[str]:
        if ctx.parent is not None:
            return list(self.commands)  # subgroups: in the order they are defined
        known = [name for name in WORKFLOW if name in self.commands]
        return known + sorted(set(self.commands) - set(known))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Every command with its whole summary (click would cut it with "...")."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is None or command.hidden:
                continue
            summary = WORKFLOW.get(name) if ctx.parent is None else None
            rows.append((name, summary or command.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.exceptions.NoArgsIsHelpError:
            raise  # a group given no command: click prints its help
        except click.ClickException as exc:
            # Bad options and arguments: one line, like every other expected failure.
            command = f"{ctx.command_path} {ctx.invoked_subcommand or ''}".strip()
            click.echo(f"error: {exc.format_message()} (see {command} -h)", err=True)
            ctx.exit(exc.exit_code)
        except RejectThresholdError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except KgverifyError as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except (OSError, sqlite3.OperationalError) as exc:
            storage = storage_failure(exc)
            if storage is not None:
                click.echo(f"error: {storage}", err=True)
                ctx.exit(2)
            if not isinstance(exc, OSError) or exc.filename is None:
                raise  # not about a path or the storage: a bug, its traceback is wanted
            # A path the command could not read or write that no check caught first.
            click.echo(f"error: {exc.filename}: {exc.strerror or exc}", err=True)
            ctx.exit(2)
        except KeyboardInterrupt:
            click.echo("error: interrupted; rerun the same command to finish", err=True)
            ctx.exit(130)


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
rejects_option = click.option(
    "--rejects", type=click.Path(path_type=Path), help="Rejected rows, with where and why (JSONL)."
)
relations_argument = click.argument(
    "relations", type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
trajectories_option = click.option(
    "--trajectories",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Trajectories JSONL whose notes give context for abbreviations.",
)


def policy_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--accept``, ``--min-score``, ``--min-confidence``: the filter policy, checked as the
    settings they override are (docs/configuration.md)."""
    for option in reversed(
        (
            click.option(
                "--accept",
                metavar="VERDICTS",
                help="Filter policy: verdicts that pass, comma list (default: supported; "
                "KGVERIFY_VERIFY_ACCEPT).",
            ),
            click.option(
                "--min-score",
                metavar="SCORE",
                help="Filter policy: lowest deciding-path score, 0 to 1 (default 0.5).",
            ),
            click.option(
                "--min-confidence",
                metavar="CONFIDENCE",
                help="Filter policy: lowest extractor confidence, 0 to 1 (default 0).",
            ),
        )
    ):
        command = option(command)
    return command


def with_policy(
    settings: Settings, accept: str | None, min_score: str | None, min_confidence: str | None
) -> Settings:
    """The settings with the policy options given on the command line."""
    return with_options(
        settings,
        verify_accept=("--accept", accept),
        verify_min_score=("--min-score", min_score),
        verify_min_confidence=("--min-confidence", min_confidence),
    )


def from_setting(name: str) -> str:
    """What help shows as the default of an option that overrides a setting: the setting's
    own default and its name, ``[default: 0.8, setting link_threshold]`` (the environment
    variable ``KGVERIFY_<NAME>`` or kgverify.toml may change it; docs/configuration.md)."""
    field = Settings.model_fields[name]
    default = field.get_default(call_default_factory=True)
    return f"{default}, setting {name}"


class RegistryChoice(click.Choice[str]):
    """A choice among the names of a registry (``kgverify.registry``), in its order, read
    when first needed (a value to check, a help to show): importing the stages behind the
    registries costs seconds that ``kgverify --help`` should not pay."""

    def __init__(self, names: Callable[[], Iterable[str]]) -> None:
        self._names = names
        self._read: tuple[str, ...] | None = None
        super().__init__(())

    @property
    def choices(self) -> tuple[str, ...]:
        if self._read is None:
            self._read = tuple(self._names())
        return self._read

    @choices.setter
    def choices(self, _value: Iterable[str]) -> None:
        pass  # click's __init__ sets the choices; here they come from the registry


def _vocabulary_loaders() -> Iterable[str]:
    from loaders import LOADERS

    return LOADERS


def _ehr_sources() -> Iterable[str]:
    from kgverify.ehr.sources import EHR_SOURCES

    return EHR_SOURCES


def _extractors() -> Iterable[str]:
    from kgverify.extract.registry import EXTRACTORS

    return EXTRACTORS


def _qa_tasks() -> Iterable[str]:
    from kgverify.derive.qa import TASKS

    return TASKS


def _engines() -> Iterable[str]:
    from kgverify.engines import ENGINES

    return ENGINES


def engine_option(default: str | None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--engine``: where the batches of linking, verification and derivation run
    (docs/scale.md)."""
    return click.option(
        "--engine",
        type=RegistryChoice(_engines),
        default=default,
        show_default=default is not None,
        help="Where batches and pages of patients run: local (this process) or ray (split "
        "over Ray actors; settings ray_address, ray_workers). The output is the same.",
    )


class _SourcesHelp(click.Command):
    """A command whose help says ``SOURCE is {sources}.``: each EHR source with what its
    PATH is, from the registry, filled in when the help is shown."""

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from kgverify.ehr.sources import EHR_SOURCES

        named = [f"{name} ({what})" for name, what in EHR_SOURCES.describe().items()]
        listed = f"{', '.join(named[:-1])} or {named[-1]}" if len(named) > 1 else named[0]
        self.help = (self.help or "").replace("{sources}", listed)
        super().format_help_text(ctx, formatter)


class SettingOption(click.Option):
    """An option that overrides a setting (``setting=``): its help shows the setting's
    default and name (``from_setting``); None, the option's own default, means "use the
    setting"."""

    def __init__(self, *args: Any, setting: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.setting = setting

    def get_help_extra(self, ctx: click.Context) -> click.types.OptionHelpExtra:
        extra = super().get_help_extra(ctx)
        extra["default"] = from_setting(self.setting)
        return extra


def out_option(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The required ``-o/--out`` file of a command that writes JSONL."""
    return click.option(
        "-o", "--out", type=click.Path(dir_okay=False, path_type=Path), required=True, help=what
    )


def emit(data: Any, as_json: bool, render: Callable[[], None]) -> None:
    if as_json:
        click.echo(json.dumps(data, indent=2, default=str))
    else:
        render()


def table(title: str, rows: list[dict[str, Any]]) -> Table:
    if not rows or not rows[0]:
        t = Table(title=title, title_justify="left", show_header=False)
        t.add_column("")
        t.add_row("(none)")
        return t
    columns = list(rows[0])
    show_header = True
    if _natural_width(columns, rows) > _console("stdout").width:
        # Too wide for the console: one row as field / value lines, several rows with
        # rows and columns swapped (verdicts down, predicates across), so no header is cut.
        if len(rows) == 1:
            rows = [{"field": key, "value": value} for key, value in rows[0].items()]
            show_header = False
        elif len(rows) < len(columns):
            first = columns[0]
            rows = [
                {first: column, **{str(row[first]): row.get(column) for row in rows}}
                for column in columns[1:]
            ]
        columns = list(rows[0])
    t = Table(title=title, title_justify="left", show_header=show_header)
    for column in columns:
        numeric = isinstance(rows[0][column], int)
        t.add_column(column, justify="right" if numeric else "left", overflow="fold")
    for row in rows:
        t.add_row(*("" if row.get(c) is None else str(row.get(c)) for c in columns))
    return t


def _natural_width(columns: list[str], rows: list[dict[str, Any]]) -> int:
    """The width a Rich table of these rows needs unwrapped (borders and padding too)."""
    widths = [
        max([len(c), *(len(line) for row in rows for line in str(row.get(c)).splitlines())])
        for c in columns
    ]
    return sum(widths) + 3 * len(widths) + 1


@contextmanager
def rich_progress(label: str, total: int) -> Iterator[Callable[[int], None]]:
    """A progress bar by bytes read, on stderr, shown only on a terminal."""
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        console=(console := _console("stderr")),
        transient=False,
        disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task(label, total=total)
        yield lambda done: progress.update(task, completed=done)


@contextmanager
def model_calls_progress(
    *, enabled: bool, label: str = "LLM calls"
) -> Iterator[Callable[[int, int], None] | None]:
    """A bar of LLM calls answered out of those sent so far (the total grows as it reads)."""
    if not enabled:
        yield None
        return
    with Progress(
        TextColumn(label),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        console=(console := _console("stderr")),
        disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task("llm", total=0)
        yield lambda done, total: progress.update(task, completed=done, total=total)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kgverify")
@click.option(
    "-v",
    "--verbose",
    count=True,
    help="Log progress (-v) or debug detail (-vv); -vvv adds the Neo4j driver's and the LLM "
    "client's traffic, which carries patient values.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="TOML file of settings (default: ./kgverify.toml when it exists); options and "
    "environment variables win over it.",
)
def cli(verbose: int, config_path: Path | None) -> None:
    """kgverify: judge LLM-extracted clinical relations against UMLS, SNOMED CT and RxNorm.

    Connection: NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD (unset: the local server of
    `kgverify neo4j start`). Other settings: KGVERIFY_* variables or a kgverify.toml (see
    docs/configuration.md).
    """
    configure_logging(verbose)
    use_config_file(config_path)
    if config_path is not None:
        config_file()  # a --config that names no file is an error before any work


# Libraries whose DEBUG log holds statement parameters or request bodies (pseudonyms, dated
# diagnoses, note text), and whose retry / dead-connection lines would precede the error line.
WIRE_LOGGERS = ("neo4j", "openai", "httpx", "httpcore")


def configure_logging(verbose: int) -> None:
    """Our progress at -v, detail at -vv; the wire loggers stay at WARNING up to -vv and are
    silent by default (so a failure prints only its `error:` line); -vvv opens everything."""
    if verbose:
        logging.basicConfig(
            level=logging.DEBUG if verbose > 1 else logging.INFO,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
            stream=sys.stderr,
        )
        # nmslib logs its whole factory registry and every parameter at INFO.
        logging.getLogger("nmslib").setLevel(logging.DEBUG if verbose > 2 else logging.WARNING)
    if verbose > 2:
        for name in WIRE_LOGGERS:
            logging.getLogger(name).setLevel(logging.NOTSET)
        logging.getLogger("kgverify").warning(
            "-vvv: driver and LLM client traffic is logged, patient values included"
        )
        return
    # Above CRITICAL: not even Python's last-resort handler prints them.
    quiet = logging.WARNING if verbose else logging.CRITICAL + 1
    for name in WIRE_LOGGERS:
        logging.getLogger(name).setLevel(quiet)


# -- neo4j ------------------------------------------------------------------------------------
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
    from kgverify.server import LocalServer

    settings = Settings()
    status = LocalServer(settings).start(on_progress=lambda line: click.echo(line, err=True))
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
    from kgverify.server import LocalServer

    stopped = LocalServer(Settings()).stop()
    emit(
        {"stopped": stopped},
        as_json,
        lambda: click.echo("Neo4j stopped" if stopped else "Neo4j was not running"),
    )


@neo4j.command("status")
@json_option
def neo4j_status(as_json: bool) -> None:
    """Say whether the local server runs, where, and with which data folder."""
    from kgverify.server import LocalServer

    settings = Settings()
    status = LocalServer(settings).status()
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


# -- load -------------------------------------------------------------------------------------
@cli.command("load")
@click.argument("vocabulary", type=RegistryChoice(_vocabulary_loaders))
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
            print_load_report(exc.report.model_dump(), as_json)  # type: ignore[attr-defined]
        raise
    print_load_report(report.model_dump(), as_json)


def print_load_report(report: dict[str, Any], as_json: bool) -> None:
    def render() -> None:
        rows = [
            {k: f[k] for k in ("file", "read", "loaded", "skipped", "rejected")}
            for f in report["files"]
        ]
        _console("stdout").print(
            table(f"{report['release']} ({report['mode']}, {report['seconds']} s)", rows)
        )
        if report["status"] == "held":
            _console("stdout").print(
                f"held, nothing retired; it would retire {report['would_retire_concepts']} "
                f"concepts ({', '.join(report['would_retire_examples'][:5])} ...) and "
                f"{report['would_retire_relationships']} relationships"
            )
        else:
            _console("stdout").print(
                f"retired: {report['retired_concepts']} concepts, "
                f"{report['retired_relationships']} relationships"
            )
        if report["rejects_path"]:
            _console("stdout").print(f"rejected rows: {report['rejects_path']}")

    emit(report, as_json, render)


# -- EHR --------------------------------------------------------------------------------------
ehr_source = click.argument("source", type=RegistryChoice(_ehr_sources))


class EhrPath(click.ParamType[Path | str]):
    """PATH of an EHR source, checked as that SOURCE reads it (kgverify.ehr.sources): an
    existing file or folder, or a server's URL for `fhir-rest`."""

    name = "path"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from kgverify.ehr.sources import source_descriptor

        source = ctx.params.get("source") if ctx is not None else None
        if not isinstance(source, str):
            return Path(value)
        try:
            return source_descriptor(source, value)
        except KgverifyError as exc:
            self.fail(str(exc), param, ctx)


ehr_path = click.argument("path", type=EhrPath())


@cli.command("ingest", cls=_SourcesHelp)
@ehr_source
@ehr_path
@rejects_option
@json_option
def ingest_command(source: str, path: Path, rejects: Path | None, as_json: bool) -> None:
    """Write an EHR source's patients, encounters and facts into Neo4j.

    SOURCE is {sources}. Patients and encounters get salted pseudonyms
    (KGVERIFY_PSEUDONYM_SALT); each fact links to its vocabulary concept when loaded.

    Exit codes: 0 ingested; 2 bad input; 3 more rows rejected than KGVERIFY_MAX_REJECT_SHARE
    allows (the report is printed first, what was read is written).
    """
    from kgverify.api import ingest_source

    settings = Settings()
    result = ingest_source(source, path, settings=settings, rejects_path=rejects).model_dump()
    emit(result, as_json, lambda: print_source_result("Ingested", result["ingest"], result))
    check_reject_share(
        f"ingest {source}",
        sum(r["read"] for r in result["rows"]),
        sum(r["rejected"] for r in result["rows"]),
        result.get("rejects"),
        settings,
        result,
    )


@cli.command("trajectories")
@ehr_source
@ehr_path
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Trajectories JSONL (docs/trajectories.md; gzip for .gz), owner-only.",
)
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
    from kgverify.api import TRAJECTORY_COUNTS, write_trajectories

    settings = Settings()
    report = write_trajectories(source, path, out, settings=settings, rejects_path=rejects)
    result = report.model_dump()
    emit(result, as_json, lambda: print_trajectories_result(result, TRAJECTORY_COUNTS))
    check_reject_share(
        f"trajectories {source}",
        sum(r["read"] for r in result["rows"]),
        sum(r["rejected"] for r in result["rows"]),
        result.get("rejects"),
        settings,
        result,
    )


def print_trajectories_result(result: dict[str, Any], keys: tuple[str, ...]) -> None:
    console = _console("stdout")
    console.print(
        f"{result['patients']} trajectories ({result['encounters']} encounters, "
        f"{result['episodes']} episodes) -> {result['out']}",
        highlight=False,
        markup=False,
    )
    counts = {k.replace("_", " "): result[k] for k in keys}
    console.print(_counts("Trajectories", counts, "what"))
    print_source_rows(result)


def check_reject_share(
    what: str,
    read: int,
    rejected: int,
    rejects: str | None,
    settings: Settings,
    report: object = None,
) -> None:
    """The one rule for every command reading rows (docs/configuration.md, "Exit codes"):
    called after the report is printed, rejected rows above ``max_reject_share`` of those
    read end in exit 3 with one line."""
    share = rejected / read if read else 0.0
    if share > settings.max_reject_share:
        where = f"; see {rejects}" if rejects else ""
        raise RejectThresholdError(
            report,
            f"{what}: {rejected} of {read} rows rejected "
            f"({share:.2%} > {settings.max_reject_share:.2%}){where}",
        )


@cli.command("extract")
@click.option(
    "--extractor",
    type=RegistryChoice(_extractors),
    default="template",
    show_default=True,
    help="Which extractor proposes relations.",
)
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
@click.option(
    "--base-url",
    envvar="OPENAI_BASE_URL",
    help="openai: the server's API root, e.g. http://127.0.0.1:8000/v1.",
)
@click.option("--api-key", envvar="OPENAI_API_KEY", help="openai: bearer token, if any.")
@click.option(
    "--concurrency",
    type=click.IntRange(1, 256),
    default=4,
    show_default=True,
    help="openai: requests in flight at once.",
)
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
    result = report.model_dump()
    emit(result, as_json, lambda: print_extract_result(result))
    check_reject_share(
        f"extract {source}",
        sum(r["read"] for r in result["rows"]),
        sum(r["rejected"] for r in result["rows"]),
        result.get("rejects"),
        settings,
        result,
    )


def extract_headline(result: dict[str, Any]) -> str:
    """What an extraction did, in one line, whatever it found (0 relations included)."""
    line = (
        f"{result['relations']} relations proposed from {result['episodes']} episodes of "
        f"{result['patients']} patients -> {result['out']}"
    )
    llm = result.get("llm")
    if llm:
        line += (
            f"; {llm['prompts']} prompts ({llm['cached']} of {llm['requests']} answers from "
            f"the cache), {llm['rejected']} relations refused"
        )
    if result["failures"]:
        line += f"; {result['failures']} failures -> {result['failures_out']}"
    return line


def print_extract_result(result: dict[str, Any]) -> None:
    _console("stdout").print(extract_headline(result), highlight=False, markup=False)
    print_source_result("By predicate", result["by_predicate"], result)


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
    with count_progress("Linking", total=_count_lines(relations), enabled=not as_json) as step:
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
    result = report.model_dump()
    emit(result, as_json, lambda: print_link_report(result))
    check_reject_share(
        "link", report.read, report.rejected, result.get("rejects"), settings, result
    )


@cli.command("index")
@click.option("--rebuild", is_flag=True, help="Build even if the releases have not changed.")
@json_option
def index_command(rebuild: bool, as_json: bool) -> None:
    """Build (or reuse) the linker index of the loaded releases and describe it.

    `kgverify link` does this on first use; run it ahead to pay the build once. The index is
    cached under <cache_dir>/linker/<key>, the key naming the releases and index settings.
    """
    from kgverify.api import build_linker_index

    info = build_linker_index(Settings(), rebuild=rebuild).model_dump()
    emit(info, as_json, lambda: _console("stdout").print(table("Linker index", [_flat(info)])))


def _flat(info: dict[str, Any]) -> dict[str, Any]:
    releases = ", ".join(r["id"] for r in info["source"].get("releases", []))
    settings = ", ".join(f"{k}={v}" for k, v in info["settings"].items())
    return {
        "key": info["key"],
        "releases": releases,
        "concepts": info["concepts"],
        "aliases": info["aliases"],
        "indexed": info["indexed_aliases"],
        "settings": settings,
        "build_s": info["build_seconds"],
    }


def print_link_report(result: dict[str, Any]) -> None:
    console = _console("stdout")
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


@cli.command("verify")
@relations_argument
@out_option("Verdicts (JSONL, docs/verification.md).")
@trajectories_option
@click.option(
    "--no-write", is_flag=True, help="Judge only; do not write assertions back to the graph."
)
@policy_options
@engine_option("local")
@rejects_option
@json_option
def verify_command(
    relations: Path,
    out: Path,
    trajectories: Path | None,
    no_write: bool,
    accept: str | None,
    min_score: str | None,
    min_confidence: str | None,
    engine: str,
    rejects: Path | None,
    as_json: bool,
) -> None:
    """Judge every relation in RELATIONS against the vocabulary graph.

    RELATIONS is candidate-relation JSONL (from `kgverify extract`) or linked-relation JSONL
    (from `kgverify link`); what is not linked yet is linked first. Each relation gets a
    verdict (supported, contradicted, unsupported, ambiguous, unlinked, type_mismatch) with
    its evidence paths and rule version; the filter policy (--accept, --min-score,
    --min-confidence, or KGVERIFY_VERIFY_*) decides what passes. Verdicts are also written
    back to the graph as (:Assertion) provenance.
    """
    from kgverify.api import verify_relations_file

    settings = with_policy(Settings(), accept, min_score, min_confidence)
    with count_progress("Verifying", total=_count_lines(relations), enabled=not as_json) as step:
        report = verify_relations_file(
            relations,
            out,
            settings=settings,
            trajectories=trajectories,
            rejects_path=rejects,
            write=not no_write,
            engine=engine,
            progress=step,
        )
    result = report.model_dump()
    emit(result, as_json, lambda: print_verify_report(result))
    check_reject_share(
        "verify", report.read, report.rejected, result.get("rejects"), settings, result
    )


@cli.command("check")
@click.argument("subject")
@click.argument("predicate")
@click.argument("object_", metavar="OBJECT")
@click.option("--explain", "explain_", is_flag=True, help="Show how the verdict was reached.")
@json_option
def check_command(
    subject: str, predicate: str, object_: str, explain_: bool, as_json: bool
) -> None:
    """What the vocabularies say about one relation: kgverify check metformin treats "type 2
    diabetes mellitus".

    PREDICATE is indicates, treats, leads_to or contraindicated_for. Both names are linked,
    the verification rules run, and the verdict comes with the linked concepts and the
    evidence paths by name. Nothing is written to the graph. "unsupported" means not in the
    vocabularies (both names found, no path between them), not false.
    """
    from kgverify.api import check, explain

    ask = explain if explain_ else check
    result = ask(subject, predicate, object_, settings=Settings())
    emit(result.model_dump(mode="json"), as_json, lambda: click.echo(str(result)))


@cli.command("check-dialogue")
@click.argument("dialogues", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@out_option("Verdicts, one line per dialogue (JSONL, docs/dialogue.md).")
@click.option(
    "--facts",
    type=click.Path(exists=True, path_type=Path),
    help="Fact sheets from `kgverify derive facts` (folder or sheets.jsonl; default: the "
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
    with count_progress("Dialogues", total=_count_lines(dialogues), enabled=not as_json) as step:
        report = check_dialogues(
            dialogues,
            out,
            facts=facts,
            settings=settings,
            rejects_path=rejects,
            progress=step,
            write=not no_write,
        )
    result = report.model_dump()
    emit(result, as_json, lambda: print_dialogue_report(result))
    read = report.dialogues + report.rejected
    check_reject_share(
        "check-dialogue", read, report.rejected, result.get("rejects"), settings, result
    )


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
    result = report.model_dump()
    emit(
        result,
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
@click.option(
    "--facts",
    type=click.Path(exists=True, path_type=Path),
    help="Fact sheets (default: the sample's, <cache_dir>/sample/facts).",
)
@click.option(
    "--base-url",
    envvar="OPENAI_BASE_URL",
    required=True,
    help="The server's API root, e.g. http://127.0.0.1:8000/v1.",
)
@click.option("--model", required=True, help="The model name the server serves.")
@click.option("--api-key", envvar="OPENAI_API_KEY", help="Bearer token, if any.")
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
    from kgverify.api import simulated_patient
    from kgverify.dialogue.record import SheetFile
    from kgverify.graph import Graph

    settings = Settings()
    sheets = SheetFile(facts or settings.cache_dir / "sample" / "facts", [patient_id])
    sheet = sheets.get(patient_id)
    if sheet is None:
        raise ConfigError(f"no fact sheet for patient {patient_id}")
    turns = []
    with Graph.connect(settings) as graph:
        talker = simulated_patient(
            sheet,
            encounter,
            base_url=base_url,
            model=model,
            api_key=api_key,
            retries=retries,
            settings=settings,
            graph=graph,
        )
        for line in sys.stdin:
            if not line.strip():
                continue
            turn = talker.reply(line.strip())
            turns.append(turn.model_dump(mode="json"))
            if not as_json:
                note = "" if turn.accepted else " [no reply passed the guard]"
                sent_back = len(turn.attempts) - 1
                again = f" [{sent_back} sent back]" if sent_back else ""
                click.echo(f"patient: {turn.text}{again}{note}")
    if as_json:
        click.echo(json.dumps(turns, indent=2))


DIALOGUE_COLUMNS = ("grounded", "leak", "contradicted", "unsupported", "unlinked")


def print_dialogue_report(result: dict[str, Any]) -> None:
    console = _console("stdout")
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
        console.print(_counts("Leaks by what leaked", result["leaks_by_section"], "section"))
    if result["invented_by_kind"]:
        console.print(
            _counts("Claims with no fact behind them, by kind", result["invented_by_kind"], "kind")
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


VERDICT_COLUMNS = (
    "supported",
    "contradicted",
    "unsupported",
    "ambiguous",
    "unlinked",
    "type_mismatch",
)


def print_verify_report(result: dict[str, Any]) -> None:
    console = _console("stdout")
    console.print(
        f"{result['verified']} relations verified -> {result['out']}; {result['passed']} pass "
        f"the filter; {result['written']} assertions written"
        + (f", {result['not_written']} refused by the database" if result["not_written"] else "")
    )
    rows = [
        {"predicate": predicate, **{v: counts.get(v, 0) for v in VERDICT_COLUMNS}}
        for predicate, counts in result["by_predicate"].items()
    ]
    console.print(table("Verdicts by predicate", rows))
    console.print(
        f"read {result['read']}, rejected {result['rejected']}, "
        f"{result['relations_per_second']} relations/s"
        + (
            f"; unknown patients {result['unknown_patients']}, "
            f"unknown encounters {result['unknown_encounters']}"
            if result["unknown_patients"] or result["unknown_encounters"]
            else ""
        )
    )
    if result.get("rejects"):
        console.print(f"rejected lines: {result['rejects']}")


# -- derive -----------------------------------------------------------------------------------
@cli.group()
def derive() -> None:
    """Derive the benchmark from the validated graph: QA items and patient fact sheets."""


out_dir_option = click.option(
    "-o",
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Output folder (replaced when the run completes).",
)


def run_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--run`` and ``--all-patients``: whose patients a derivation reads (derive_run)."""
    command = click.option(
        "--all-patients",
        is_flag=True,
        help="Read every patient in the graph, whatever run brought them.",
    )(command)
    return click.option(
        "--run",
        metavar="ID",
        help="Read the patients of this run (`kgverify runs`).",
        cls=SettingOption,
        setting="derive_run",
    )(command)


def chosen_run(run: str | None, all_patients: bool) -> str | None:
    """The derive_run setting the options give (None: the setting's own, default latest)."""
    if run is not None and all_patients:
        raise click.UsageError("--run and --all-patients exclude each other")
    return "all" if all_patients else run


@derive.command("qa")
@out_dir_option
@click.option(
    "--task",
    "tasks",
    multiple=True,
    type=RegistryChoice(_qa_tasks),
    help="Derive only this task (repeatable); default: all three.",
)
@click.option(
    "--seed",
    type=int,
    help="Seed of splits and distractor choice.",
    cls=SettingOption,
    setting="derive_seed",
)
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
    result = report.model_dump()
    emit(result, as_json, lambda: print_derive_report(result))


@derive.command("facts")
@out_dir_option
@click.option(
    "--gzip",
    "compress",
    is_flag=True,
    help="Write OUT/sheets.jsonl.gz instead (sheets repeat history per encounter and "
    "compress well; readers take either).",
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
    result = report.model_dump()
    emit(result, as_json, lambda: print_facts_report(result))


def _counts(title: str, counts: dict[str, int], key: str) -> Table:
    return table(title, [{key: k, "count": v} for k, v in counts.items()])


def print_derive_report(result: dict[str, Any]) -> None:
    console = _console("stdout")
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
    console.print(_counts("Assertions read", result["assertions"], "verdict"))
    console.print(_counts("Kept out of derivation", result["filtered"], "reason"))
    console.print(_counts("Item candidates dropped", result["skipped"], "reason"))
    console.print(_counts("Distractors rejected", result["distractors_rejected"], "reason"))
    console.print(_counts("Why the chosen distractors are wrong", result["justifications"], "rule"))
    console.print(
        _counts("Chosen distractors per distance to the topic", result["difficulty"], "is-a steps")
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


def print_facts_report(result: dict[str, Any]) -> None:
    console = _console("stdout")
    console.print(f"Patients: {result['scope']}")
    console.print(
        f"{result['sheets']} fact sheets, {result['encounters']} encounters -> "
        f"{result['file'] or result['out']} ({result['bytes'] / 1e6:,.1f} MB)"
    )
    console.print(_counts("Facts per section", result["facts"], "section"))
    console.print(_counts("Facts left out", result["excluded"], "reason"))
    console.print(_counts("Problems found", result["checks"], "kind"))


def _count_lines(path: Path) -> int:
    with path.open("rb") as lines:
        return sum(1 for _ in lines)


@contextmanager
def count_progress(
    label: str, *, total: int | None, enabled: bool
) -> Iterator[Callable[[int], None]]:
    """A bar of records done out of ``total`` (None: a count), on stderr, shown only on a
    terminal."""
    with Progress(
        TextColumn(label),
        BarColumn(),
        TextColumn("{task.completed}" + ("/{task.total}" if total is not None else "")),
        TimeRemainingColumn(),
        console=(console := _console("stderr")),
        disable=not enabled or not console.is_terminal,
    ) as progress:
        task = progress.add_task(label, total=total)
        yield lambda done: progress.update(task, completed=done)


def print_source_result(title: str, counts: dict[str, Any], result: dict[str, Any]) -> None:
    console = _console("stdout")
    # Per-kind tallies (ingest's not_written) as one total; --json keeps the detail.
    counts = {k: sum(v.values()) if isinstance(v, dict) else v for k, v in counts.items()}
    console.print(table(title, [counts]))
    print_source_rows(result)
    if result.get("run"):
        console.print(
            f"Run {result['run']}: `kgverify derive` reads these patients by default "
            "(`kgverify runs` lists runs)"
        )


def print_source_rows(result: dict[str, Any]) -> None:
    console = _console("stdout")
    rows = [
        {k: r[k] for k in ("file", "read", "loaded", "skipped", "rejected")} for r in result["rows"]
    ]
    console.print(table("Source rows", rows))
    if result.get("rejects"):
        console.print(f"rejected rows: {result['rejects']}")


# -- calibrate --------------------------------------------------------------------------------
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
@click.option(
    "--base-url",
    envvar="OPENAI_BASE_URL",
    help="openai: the server's API root, e.g. http://127.0.0.1:8000/v1.",
)
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
@click.option(
    "--task",
    "tasks",
    multiple=True,
    type=RegistryChoice(_qa_tasks),
    help="Ask only this task's items (repeatable); default: every task.",
)
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
@click.option("--api-key", envvar="OPENAI_API_KEY", help="openai: bearer token, if any.")
@click.option(
    "--concurrency",
    type=click.IntRange(1, 256),
    default=4,
    show_default=True,
    help="openai: requests in flight at once.",
)
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
    result = report.model_dump()
    emit(result, as_json, lambda: print_calibration_report(result))


def print_calibration_report(result: dict[str, Any], shown: int = 5) -> None:
    console = _console("stdout")
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


# -- audit ------------------------------------------------------------------------------------
@cli.command("audit")
@click.argument("name", required=False)
@click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help="A parameter of the query (repeatable); see `kgverify audit --list`.",
)
@click.option("--list", "show_list", is_flag=True, help="Describe every audit query.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "csv", "tsv"]),
    help="Output: readable text (default), JSON, or CSV/TSV with a header row.",
)
@click.option("--csv", "as_csv", is_flag=True, help="Same as --format csv.")
@click.option("--tsv", "as_tsv", is_flag=True, help="Same as --format tsv.")
@click.option(
    "--graphml",
    type=click.Path(dir_okay=False, path_type=Path),
    help="item_lineage only: also write the item's evidence subgraph as GraphML here.",
)
@json_option
def audit_command(
    name: str | None,
    params: tuple[str, ...],
    show_list: bool,
    fmt: str | None,
    as_csv: bool,
    as_tsv: bool,
    graphml: Path | None,
    as_json: bool,
) -> None:
    """Run an audit query from queries/audit/ and print its rows.

    item_lineage prints the item, its options and why each is wrong, the assertions with
    their evidence paths in words (sources and releases), the patient facts and the
    extractor. Parameters listing their values (`one of ...` in `--list`) accept any case;
    ids that the graph does not hold are an error, not an empty answer.

    \b
    kgverify audit --list
    kgverify audit item_lineage --param item=ITEM_ID --graphml item.graphml
    kgverify audit items_on_concept -p concept=SNOMEDCT:43878008
    kgverify audit rejected_relations -p verdict=unsupported -p limit=10 --json
    kgverify audit filter_rates --csv > rates.csv
    """
    from kgverify.api import audit, audits

    chosen = {f for f, on in (("json", as_json), ("csv", as_csv), ("tsv", as_tsv)) if on}
    if fmt is not None:
        chosen.add(fmt)
    if len(chosen) > 1:
        raise click.UsageError(f"choose one output format, got {', '.join(sorted(chosen))}")
    out_format = chosen.pop() if chosen else "table"
    if show_list or name is None:
        listed = [a.model_dump() for a in audits()]
        emit(listed, out_format == "json", lambda: print_audits(listed))
        return
    short = name.removeprefix("audit/")
    if graphml is not None and short != "item_lineage":
        raise ConfigError("--graphml draws one item's evidence: use it with item_lineage")
    given: dict[str, str] = {}
    for text in params:
        key, sep, value = text.partition("=")
        if not sep or not key:
            raise click.UsageError(f"--param takes KEY=VALUE, got {text!r}")
        given[key.strip()] = value
    # A concept given by name says what it was linked to, on stderr (stdout stays the rows).
    rows = audit(
        name,
        given,
        settings=Settings(),
        resolved=lambda found: click.echo(found.line(), err=True),
    )
    lineage = None
    if short == "item_lineage" and rows:
        from kgverify.audit.lineage import evidence_graph, lineage_from_rows, write_graphml

        lineage = lineage_from_rows(rows)
        if graphml is not None:
            write_graphml(evidence_graph(lineage), graphml)
            click.echo(f"evidence subgraph of item {lineage.item} -> {graphml}", err=True)
    if out_format in ("csv", "tsv"):
        from kgverify.audit import get_audit

        header = [c.strip() for c in get_audit(name).returns.split(",")]
        print_delimited(rows, "," if out_format == "csv" else "\t", header)
    elif out_format == "json":
        from kgverify.audit.catalog import decode_stored_json

        emit(decode_stored_json(rows), True, lambda: None)
    elif lineage is not None:
        print_lineage(lineage)
    else:
        print_rows(f"{name}: {len(rows)} rows", rows)


def print_delimited(rows: list[dict[str, Any]], delimiter: str, header: list[str]) -> None:
    """Rows as CSV or TSV with a header (the query's declared columns when there is no
    row): lists of plain values joined with "; ", maps and lists of maps as JSON, null as an
    empty cell."""
    import csv

    writer = csv.writer(sys.stdout, delimiter=delimiter, lineterminator="\n")
    writer.writerow(list(rows[0]) if rows else header)
    for row in rows:
        writer.writerow([_flat_cell(v) for v in row.values()])


def _spreadsheet_cell(value: Any, text: str) -> str:
    """``text`` (a value's cell) quoted where a spreadsheet would run it as a formula; a
    number stays a number (``-1`` is no formula)."""
    from kgverify.outputs import safe_cell

    return text if isinstance(value, int | float) else safe_cell(text)


def _flat_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list) and not any(isinstance(v, dict | list) for v in value):
        return _spreadsheet_cell(value, "; ".join(str(v) for v in value))
    if isinstance(value, dict | list):
        return json.dumps(value, default=str)
    return _spreadsheet_cell(value, str(value))


def print_lineage(lin: Any) -> None:
    """An item's lineage for a reader: the item, its options and why each wrong one is
    wrong, each assertion with its evidence paths in words, its patient facts, and the
    extractors. Plain text (no markup: names may hold brackets)."""
    names = lin.concept_names()

    def named(concept: str | None) -> str:
        if concept is None:
            return "(not linked)"
        return f"{names[concept]} ({concept})" if concept in names else concept

    out: list[str] = []
    state = ("current" if lin.current else "replaced") + (
        ", stands" if lin.standing else ", no longer stands: " + "; ".join(lin.flags)
    )
    question = ("\n" + " " * 15).join(lin.question.splitlines())
    out += [f"Item {lin.item} ({lin.task}; {state})", f"  question:    {question}"]
    why = {w.label: w for w in lin.why_wrong}
    if lin.options:
        out.append("  options:")
        for o in lin.options:
            right = o.concept_id == lin.answer_concept
            out.append(
                f"    {o.label}. {o.text}  [{o.concept_id}]" + ("  <- answer" if right else "")
            )
            if o.label in why:
                for j in why[o.label].justifications:
                    out.append(f"       wrong: {j.reason}  ({j.rule}@{j.version})")
                    for e in j.edges:
                        release = (e.release or "").replace("@", " ")
                        source = ", ".join(p for p in (e.source, release) if p)
                        out.append(
                            f"         cites {e.start_name or e.start} -[{e.type}"
                            + (f", {source}" if source else "")
                            + f"]-> {e.end_name or e.end}  ({e.start} {e.type} {e.end})"
                        )
    out.append(f"  answer:      {lin.answer}  ({named(lin.answer_concept)})")
    for label, value in (
        ("topic", named(lin.topic) if lin.topic else None),
        ("patient", lin.patient),
        ("template", lin.template),
        ("difficulty", lin.difficulty),
        ("releases", ", ".join(lin.releases) or None),
        ("policy", lin.policy),
        ("content key", lin.content_key),
    ):
        if value is not None:
            out.append(f"  {label + ':':<13}{value}")
    for check in lin.checks:
        fixed = named(check.fixed)
        triple = ("distractor", fixed) if check.slot == "subject" else (fixed, "distractor")
        out.append(
            f"  distractor check: no rule supports ({triple[0]}, {triple[1]}, {check.predicate})"
        )
    for n, a in enumerate(lin.assertions, 1):
        out += [
            "",
            f"Assertion {n} of {len(lin.assertions)}: {a.id}"
            + (f" (relation {a.relation_id})" if a.relation_id and a.relation_id != a.id else ""),
            f'  extracted:  "{a.subject_text}" {a.predicate} "{a.object_text}"',
            f"  linked:     {named(a.subject)} {a.predicate} {named(a.object)}",
            f"  verdict:    {a.verdict}"
            + (f", now {a.standing_verdict}" if a.standing_verdict != a.verdict else "")
            + (f"  by rule {a.rule}" if a.rule else "")
            + (f", verified {a.verified_at}" if a.verified_at else ""),
        ]
        if a.evidence:
            out.append("  evidence:")
            for k, path in enumerate(a.evidence, 1):
                out.append(
                    f"    {k}. {a.readable_path(path)}"
                    f"  ({path.rule}, {path.stance}, score {path.score:g})"
                )
                # The ids `kgverify audit items_on_edge` takes, one edge a line, as stored.
                for e in dict.fromkeys(path.edges):
                    out.append(
                        f"       items_on_edge -p start={e.start} -p type={e.type} -p end={e.end}"
                    )
        else:
            out.append("  evidence:   none")
        if a.facts:
            out.append("  patient facts:")
            for f in a.facts:
                what = " ".join(x for x in (f.kind, f'"{f.display}"' if f.display else None) if x)
                details = [
                    f"{label} {value}"
                    for label, value in (
                        ("code", f.code),
                        ("on", f.start),
                        ("value", " ".join(x for x in (f.value, f.unit) if x) or None),
                        ("source table", f.table),
                        ("row", f.row),
                    )
                    if value
                ]
                out.append(f"    - {what or f.id}: " + ", ".join(details))
        if a.recheck is not None:
            r = a.recheck
            out.append(
                f"  re-checked: {r.verdict} ({'passes' if r.passed else 'fails'}) in run {r.run}"
                f": {r.reason}"
            )
        extractor = a.extractor or "unknown extractor"
        confidence = f", confidence {a.confidence:g}" if a.confidence is not None else ""
        out.append(f"  extractor:  {extractor}{confidence}")
    width = _console("stdout").width
    click.echo("\n".join(_wrapped(part, width) for line in out for part in line.split("\n")))


def _wrapped(line: str, width: int) -> str:
    """A line of indented plain text wrapped to ``width``, continuation lines indented
    further (long ids broken rather than running past the edge)."""
    if len(line) <= width:
        return line
    indent = " " * (len(line) - len(line.lstrip()) + 4)
    return "\n".join(textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False))


def print_rows(title: str, rows: list[dict[str, Any]]) -> None:
    """Rows as a table, or, when a table would not fit the console, one field/value block
    per row."""
    console = _console("stdout")
    cells = [{k: _cell(v) for k, v in row.items()} for row in rows]
    widths = [
        max(len(key), *(max(map(len, str(c[key]).splitlines() or [""])) for c in cells))
        for key in (cells[0] if cells else {})
    ]
    if sum(widths) + 3 * len(widths) <= console.width:
        console.print(table(title, cells))
        return
    console.print(title)
    for n, row in enumerate(cells, 1):
        block = Table(title=f"row {n}", title_justify="left", show_header=False)
        block.add_column("field", style="bold")
        block.add_column("value", overflow="fold")
        for key, value in row.items():
            block.add_row(key, "" if value is None else str(value))
        console.print(block)


def _cell(value: Any) -> Any:
    """A table cell: lists one entry per line, maps as their values."""
    if isinstance(value, list):
        return "\n".join(str(_cell(v)) for v in value)
    if isinstance(value, dict):
        return " ".join(str(v) for v in value.values() if v is not None)
    return value


def print_audits(listed: list[dict[str, Any]]) -> None:
    console = _console("stdout")
    for a in listed:
        params = ", ".join(
            p["name"]
            + ("" if p["required"] else f"={p['default'] if p['default'] is not None else 'null'}")
            for p in a["params"]
        )
        console.print(f"[bold]{a['name']}[/bold]({params})")
        console.print(f"  {a['description']}", highlight=False, markup=False)
        for p in a["params"]:
            console.print(
                f"  --param {p['name']}=<{p['type']}>  {p['description']}",
                highlight=False,
                markup=False,
            )
            if p.get("choices"):
                console.print(
                    f"      values (any case): {', '.join(p['choices'])}", highlight=False
                )
        console.print(f"  returns: {a['returns']}", highlight=False, markup=False)


@cli.command("reverify")
@click.option(
    "--release",
    "releases",
    multiple=True,
    metavar="ID",
    help="Re-check what this release changed, e.g. UMLS@2025AB (repeatable); default: every "
    "current release not re-verified yet that some assertion was judged before.",
)
@json_option
def reverify_command(releases: tuple[str, ...], as_json: bool) -> None:
    """Re-verify after loading a newer vocabulary release.

    Re-runs the rules only for the assertions whose evidence could touch what the release
    changed, records the new verdicts beside the old ((:Recheck) nodes), and flags the items
    that no longer stand: an assertion they rest on fails now, their answer or a distractor
    was retired, or a rule now supports a distractor. See them with
    `kgverify audit flagged_items` and `kgverify audit changed_evidence`.
    """
    from kgverify.api import reverify

    with count_progress("Re-checked", total=None, enabled=not as_json) as step:
        report = reverify(releases or None, settings=Settings(), progress=step)
    result = report.model_dump()
    emit(result, as_json, lambda: print_reverify_report(result))


ITEM_KEYS = ("items", "distractor_checks", "items_flagged", "items_restored")


def print_reverify_report(result: dict[str, Any]) -> None:
    console = _console("stdout")
    against = ", ".join(result["releases"]) or "no new release"
    console.print(
        f"run {result['run']} against {against}: {result['concepts_changed']} concepts and "
        f"{result['edges_changed']} relationships changed"
    )
    keys = (
        "assertions",
        "judged_by_links",
        "rechecked",
        "verdicts_changed",
        "no_longer_passing",
        "now_passing",
    )
    console.print(table("Assertions", [{k: result[k] for k in keys}]))
    console.print(table("Items", [{k: result[k] for k in ITEM_KEYS}]))
    console.print(_counts("Items not standing, by flag", result["flags"], "flag"))


@cli.command("prov")
@click.argument("item")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["turtle", "json-ld"]),
    default="turtle",
    show_default=True,
    help="RDF serialization.",
)
@click.option(
    "-o", "--out", type=click.Path(dir_okay=False, path_type=Path), help="Write here, not stdout."
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a JSON report (item, format, out, bytes; with no --out the document too).",
)
def prov_command(item: str, fmt: str, out: Path | None, as_json: bool) -> None:
    """An item's lineage as W3C PROV-O (Turtle or JSON-LD), to publish with the benchmark."""
    from kgverify.api import export_prov

    text = export_prov(item, fmt, settings=Settings())
    report: dict[str, Any] = {
        "item": item,
        "format": fmt,
        "out": str(out) if out is not None else None,
        "bytes": len(text.encode("utf-8")),
    }
    if out is None:
        emit({**report, "document": text}, as_json, lambda: click.echo(text))
        return
    from kgverify.outputs import write_private

    partial = out.with_name(out.name + ".partial")
    write_private(partial, text)  # the lineage names patients
    partial.replace(out)
    emit(
        report,
        as_json,
        lambda: click.echo(f"PROV of item {item} ({fmt}) -> {out}", err=True),
    )


# -- review -----------------------------------------------------------------------------------
@cli.group()
def review() -> None:
    """Clinician review of derived QA items (docs/review.md): export pages and a sheet to
    fill, import the filled sheet as (:Review) provenance."""


@review.command("export")
@click.option(
    "-o",
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="A new (or empty) folder for the pages, index.html, sheet.csv and README.txt.",
)
@click.option(
    "--qa",
    type=click.Path(file_okay=False, path_type=Path),
    help="Derived QA folder (default: the sample's, <cache_dir>/sample/qa).",
)
@click.option(
    "--task",
    "tasks",
    multiple=True,
    type=RegistryChoice(_qa_tasks),
    help="Export only this task (repeatable); default: all.",
)
@click.option("--sample", type=click.IntRange(1), help="Items per task (default: every item).")
@click.option(
    "--seed",
    type=int,
    help="Seed of the sample's order.",
    cls=SettingOption,
    setting="derive_seed",
)
@json_option
def review_export_command(
    out: Path,
    qa: Path | None,
    tasks: tuple[str, ...],
    sample: int | None,
    seed: int | None,
    as_json: bool,
) -> None:
    """One static page per item (question, options, evidence with its sources, why each
    distractor is wrong, patient facts), an index, and sheet.csv to fill (see README.txt)."""
    from kgverify.api import review_export

    report = review_export(
        out, qa=qa, tasks=tasks or None, sample=sample, seed=seed, settings=Settings()
    )
    result = report.model_dump()

    def render() -> None:
        console = _console("stdout")
        console.print(
            f"{report.pages} item pages ({report.edges} evidence edges with sources) -> "
            f"{report.index}; fill {report.sheet}, then `kgverify review import {report.sheet}`"
        )
        console.print(_counts("Exported per task", report.exported, "task"))
        if report.skipped:
            console.print(_counts("Not exported", report.skipped, "reason"))

    emit(result, as_json, render)


@review.command("import")
@click.argument("sheet", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--reviewer",
    help="Reviewer of rows whose reviewer column is empty (a relation row takes its item row's "
    "first).",
)
@json_option
def review_import_command(sheet: Path, reviewer: str | None, as_json: bool) -> None:
    """Import a filled review sheet: (:Review) nodes on items, vetoed distractors and judged
    relations; rejected items, vetoed distractors and relations judged false flag the
    current items they touch. Every row is imported, blank, or rejected with its row (as a
    spreadsheet shows it) and reason; any rejected row ends in exit 3, after the others are
    imported. Importing the same sheet again changes nothing."""
    from kgverify.api import review_import
    from kgverify.review.importer import rejects_message

    report = review_import(sheet, reviewer=reviewer, settings=Settings())
    result = report.model_dump()

    def render() -> None:
        console = _console("stdout")
        console.print(
            f"{report.rows} rows: {report.imported} imported, {report.blank} blank, "
            f"{report.rejected} rejected; round {report.round}"
        )
        keys = ("created", "retracted", "assertions_judged", "items_flagged", "items_unflagged")
        console.print(table("Reviews written per decision", [report.reviews]))
        console.print(table("Graph", [{k: result[k] for k in keys}]))
        if report.rejects:
            rows = [r.model_dump() for r in report.rejects]
            console.print(table(f"Rejected rows (also in {report.rejects_path})", rows))

    emit(result, as_json, render)
    if report.rejected:
        raise RejectThresholdError(report, rejects_message(report))


# -- runs -------------------------------------------------------------------------------------
@cli.group("runs", invoke_without_command=True)
@click.option("--limit", type=click.IntRange(1, 100_000), default=20, show_default=True)
@json_option
@click.pass_context
def runs_group(ctx: click.Context, limit: int, as_json: bool) -> None:
    """The runs in the graph, newest first: each ingest with its source, patients and the
    items derived from them. `kgverify runs diff A B` compares two (docs/runs.md)."""
    if ctx.invoked_subcommand is not None:
        return
    from kgverify.api import runs

    found = [r.model_dump() for r in runs(Settings(), limit=limit)]
    emit(found, as_json, lambda: print_runs(found))


def print_runs(found: list[dict[str, Any]]) -> None:
    rows = [
        {
            "run": r["id"],
            "source": r["source"],
            "started": (r["started_at"] or "")[:19],
            "status": r["status"],
            "patients": r["patients"],
            "items": r["items"],
            "current": r["current_items"],
        }
        for r in found
    ]
    _console("stdout").print(table("Runs", rows))
    if not found:
        _console("stdout").print("No run yet: `kgverify ingest` or `kgverify run` make one.")


@runs_group.command("diff")
@click.argument("a")
@click.argument("b")
@json_option
def runs_diff_command(a: str, b: str, as_json: bool) -> None:
    """Compare runs A and B: the figures that differ (patients, facts, items per task and
    split, policy, settings, releases) and how their patients and items overlap."""
    from kgverify.api import diff_runs

    result = diff_runs(a, b, Settings()).model_dump()
    emit(result, as_json, lambda: print_runs_diff(result))


def print_runs_diff(result: dict[str, Any]) -> None:
    console = _console("stdout")
    a, b = result["a"]["id"], result["b"]["id"]
    rows = [
        {"figure": k, a: json.dumps(v[0], default=str), b: json.dumps(v[1], default=str)}
        for k, v in result["differences"].items()
    ]
    console.print(table(f"What differs: {a} vs {b}", rows))
    overlap = [
        {"what": what, "in both": o["both"], f"only {a}": o["only_a"], f"only {b}": o["only_b"]}
        for what, o in (("patients", result["patients"]), ("items", result["items"]))
    ]
    console.print(table("Overlap", overlap))


# -- graph ------------------------------------------------------------------------------------
@cli.command("summary")
@json_option
def summary_command(as_json: bool) -> None:
    """Counts of concepts, relationships and releases in the graph."""
    from kgverify.api import graph_summary

    summary = graph_summary(Settings()).model_dump()
    emit(summary, as_json, lambda: print_summary(summary))


def print_summary(summary: dict[str, list[dict[str, Any]]]) -> None:
    _console("stdout").print(table("Releases", summary["releases"]))
    _console("stdout").print(table("Concepts", summary["concepts"]))
    _console("stdout").print(table("Relationships", summary["relationships"]))
    _console("stdout").print(table("Patient facts", summary["facts"]))


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
    rows = find_concepts(text, limit=limit, settings=Settings())

    def render() -> None:
        if any(row["close"] for row in rows):
            _console("stdout").print(table(f"Concepts matching {text!r}", rows))
            return
        # Nothing reaches the linker's threshold: the rows are neighbours, not matches, and
        # the first of them must not read as the concept the text names.
        # One entry per name: a concept is often in several vocabularies under one name.
        first_of_name: dict[str, dict[str, Any]] = {}
        for row in rows:
            first_of_name.setdefault(str(row["name"]).casefold(), row)
        nearest = ", ".join(
            f"{row['name']} ({row['score']:.2f})" for row in list(first_of_name.values())[:3]
        )
        _console("stdout").print(table(f"Nearest names to {text!r} (no close match)", rows))
        click.echo(
            f"{text!r} is not in the loaded vocabularies: "
            + (f"the nearest names are {nearest}" if rows else "no name comes near it")
        )

    emit(rows, as_json, render)


def lucene_words(text: str) -> str:
    """``kgverify.api.lucene_words`` (imported on use: the API is slow to import)."""
    from kgverify.api import lucene_words as words

    return words(text)


@cli.group()
def graph() -> None:
    """Maintenance of the graph itself."""


@graph.command("reset")
@click.option("--yes", is_flag=True, help="Confirm deleting every node and relationship.")
@json_option
def graph_reset(yes: bool, as_json: bool) -> None:
    """Delete all data in the database (schema stays)."""
    from kgverify.graph import Graph, delete_all

    if not yes:
        raise click.UsageError("refusing to delete everything without --yes")
    settings = Settings()
    with Graph.connect(settings) as g:
        delete_all(g)
    emit(
        {"emptied": True, "database": settings.neo4j_database},
        as_json,
        lambda: click.echo("graph emptied"),
    )


@cli.command("queries")
@click.argument("name", required=False)
@json_option
def queries_command(name: str | None, as_json: bool) -> None:
    """List the named Cypher statements, or show one with its parameters."""
    from kgverify.graph.queries import get_query, list_queries

    if name is None:
        rows = [{"name": n, "description": get_query(n).description[:90]} for n in list_queries()]
        emit(rows, as_json, lambda: _console("stdout").print(table("Queries", rows)))
        return
    q = get_query(name)
    data = {
        "name": q.name,
        "description": q.description,
        "params": q.params,
        "returns": q.returns,
        "text": q.text,
    }
    emit(data, as_json, lambda: click.echo(f"{q.description}\n\n{q.text}"))


@cli.command("cypher")
@click.argument("statement")
@click.option(
    "--param",
    "-p",
    "params",
    multiple=True,
    metavar="KEY=VALUE",
    help='A $parameter (repeatable): numbers, true/false, null and JSON ([..], {..}, "..") '
    "are typed, anything else is a string.",
)
@click.option("--write", is_flag=True, help="Run in a write transaction (default: read only).")
@click.option(
    "--max-rows",
    type=click.IntRange(0),
    default=1000,
    show_default=True,
    help="Rows printed at most (0: all); the statement always runs to its end.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (columns, rows, counters).")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV (a header, then one line a row).")
def cypher_command(
    statement: str,
    params: tuple[str, ...],
    write: bool,
    max_rows: int,
    as_json: bool,
    as_csv: bool,
) -> None:
    """Run one Cypher statement against the graph and print its rows (`-` reads stdin).

    Read-only unless --write: a statement that writes is refused in a read transaction and
    nothing changes (docs/graph-browser.md).

    \b
    kgverify cypher "MATCH (c:Concept) RETURN c.id, c.name LIMIT 5"
    kgverify cypher "MATCH (c:Concept {id: \\$id}) RETURN c" -p id=SNOMEDCT:44054006 --json
    kgverify cypher "MATCH (a:Assertion) RETURN a.verdict, count(*)" --csv
    """
    from kgverify.api import cypher, cypher_param

    if as_json and as_csv:
        raise click.UsageError("--json and --csv exclude each other")
    text = sys.stdin.read() if statement == "-" else statement
    given = dict(cypher_param(p) for p in params)
    result = cypher(text, given, write=write, max_rows=max_rows, settings=Settings())
    more = f"; only the first {max_rows} shown (--max-rows 0 for all)" if result.truncated else ""
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(result), indent=2, default=str))
    elif as_csv:
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(result.columns)
        for row in result.rows:
            out.writerow(
                [_spreadsheet_cell(row.get(c), _cypher_text(row.get(c))) for c in result.columns]
            )
        if more:
            click.echo(f"note: {len(result.rows)} rows{more}", err=True)
    else:
        _print_cypher(result.columns, result.rows, f"{len(result.rows)} rows{more}")
    if result.counters:
        changes = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in result.counters.items())
        click.echo(changes, err=as_json or as_csv)


def _cypher_text(value: Any) -> str:
    """A value as one cell: strings as they are, null empty, the rest as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str, ensure_ascii=False)


def _print_cypher(columns: list[str], rows: list[dict[str, Any]], title: str) -> None:
    t = Table(title=title, title_justify="left")
    for column in columns:
        t.add_column(column, overflow="fold")
    for row in rows:
        t.add_row(*(_cypher_text(row.get(c)) for c in columns))
    _console("stdout").print(t)


# -- main job ---------------------------------------------------------------------------------
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
        _console("stderr").print("Starting the local Neo4j (the first start builds it) ...")
    report = run_sample(
        Settings(),
        progress=None if quiet else rich_progress,
        on_step=None if quiet else print_step,
        bars=None if quiet else step_bar,
    )
    result = report.model_dump()
    emit(result, as_json, lambda: print_pipeline_report(result))


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
    result = pipeline_from_config(
        config,
        settings=Settings(),
        engine=engine,
        progress=progress,
        on_step=None if as_json else print_step,
        bars=None if as_json else step_bar,
    ).model_dump()
    emit(result, as_json, lambda: print_pipeline_report(result))


def step_bar(label: str, total: int | None) -> AbstractContextManager[Callable[[int], None]]:
    """A pipeline step's bar of records done (``pipeline.CountBars``), on a terminal."""
    return count_progress(label, total=total, enabled=True)


def print_step(event: StepEvent) -> None:
    """One line on stderr as a pipeline step starts, one as it ends (with what it did)."""
    console = _console("stderr")
    if event.status == "started":
        console.print(f"[{event.number}] {event.step} ...")
    else:
        console.print(f"[{event.number}] {event.step}: {event.summary} ({event.seconds:.1f} s)")


def print_pipeline_report(result: dict[str, Any]) -> None:
    """What each stage of a pipeline run did (``kgverify sample``, ``kgverify run``)."""
    for report in result["loads"]:
        print_load_report(report, False)
    print_source_result("Ingested", result["ingest"]["ingest"], result["ingest"])
    print_extract_result(result["extract"])
    for linked in result["link"]:
        print_link_report(linked)
    for verified in result["verify"]:
        print_verify_report(verified)
    print_derive_report(result["derive"]["qa"])
    if result["derive"]["facts"] is not None:
        print_facts_report(result["derive"]["facts"])
    if result["dialogues"] is not None:
        print_dialogue_report(result["dialogues"])
    print_summary(result["summary"])
    console = _console("stdout")
    steps = [
        {"step": r["step"], "seconds": r["seconds"], "what it did": r["summary"]}
        for r in result["steps"]
    ]
    console.print(table(f"Run {result['run']}", steps))
    if result.get("run_file"):
        record = json.loads(Path(result["run_file"]).read_text(encoding="utf-8"))
        graph = record["graph"]
        console.print(
            f"Run record: {result['run_file']}. Graph: {graph['bolt']}"
            + (f"; Neo4j Browser: {graph['browser']}" if graph.get("browser") else "")
            + (f"; stop the server with `{graph['stop']}`" if graph.get("stop") else "")
            + "."
        )
    console.print(
        "Audit it: `kgverify audit filter_rates`, `kgverify audit --list`; compare runs: "
        "`kgverify runs`; after a newer release, `kgverify reverify` (docs/audit.md)."
    )


cli.add_command(fhir_group)  # kgverify fhir ... (kgverify/fhir_cli.py)
for _command in ACTION_COMMANDS:  # kgverify check-actions, grade (kgverify/actions_cli.py)
    cli.add_command(_command)
_with_verbose(cli)


def main() -> None:
    cli(prog_name="kgverify")
