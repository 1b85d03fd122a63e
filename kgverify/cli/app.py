"""The ``kgverify`` group: its error handling (one ``error:`` line, an exit code), its help
(commands in workflow order), ``-v`` and ``--config``. Command modules add to ``cli``."""

from __future__ import annotations

import logging
import sqlite3
import sys
from pathlib import Path
from typing import Any

import click

from kgverify.__about__ import __version__
from kgverify.config import config_file, use_config_file
from kgverify.errors import KgverifyError, RejectThresholdError

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
    "check-actions": "Judge an EHR agent's FHIR orders against record and graph.",
    "grade": "Grade an EHR agent's tasks, checkpoint by checkpoint.",
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


def with_verbose(command: click.Command) -> None:
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
            with_verbose(sub)


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
            from kgverify.api import storage_failure

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
