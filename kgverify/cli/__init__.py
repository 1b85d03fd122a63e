"""The ``kgverify`` command line: a thin layer over the Python API, no logic of its own.

Every command prints a readable table by default (fitted to the console, or to ``COLUMNS``)
and JSON with ``--json``, and takes ``-v`` after its name as the group does before it.
Expected failures (Neo4j down, wrong password, bad input, bad options) print one ``error:``
line on stderr, with ``--json`` too, and exit non-zero.

The package, one module per command group:

- ``app``: the root group ``cli`` (error lines and exit codes, help in workflow order,
  ``-v``, ``--config``), ``WORKFLOW`` (each top-level command's one-line summary);
- ``options``: the options several commands share, one decorator each (``json_option``,
  ``rejects_option``, ``out_option``, ``engine_option``, ``policy_options``,
  ``tasks_option`` ...), and the registries' names as choices (``RegistryChoice``);
- ``printing``: the console, ``emit`` (JSON or a rendering), ``table``, progress bars, the
  reject-share exit rule;
- the command groups: ``server`` (neo4j), ``load``, ``ehr`` (ingest, trajectories,
  extract), ``fhir`` (the local FHIR server, loading one), ``actions`` (check-actions,
  grade), ``link`` (link, index, find), ``verify`` (verify, check), ``dialogue``
  (check-dialogue, forget-dialogues, patient), ``derive``, ``calibrate``, ``audit`` (audit,
  reverify, prov), ``review``, ``runs``, ``graph`` (summary, graph, queries, cypher),
  ``pipeline`` (sample, run). Each holds its commands and the printers of their reports,
  which take the API's typed models (``kgverify.api.models``).

Adding a command group: a module here whose commands hang on ``app.cli`` (``@cli.command``
or ``@cli.group``), built from the shared options; each command imports what it calls from
``kgverify.api`` inside its body (importing the API costs a second that ``--help`` should not
pay) and names result types through ``kgverify.api.models`` under ``TYPE_CHECKING``; the
module imported below; its one-line summary in ``app.WORKFLOW``. Nothing here
imports below the API (only ``kgverify.api``, ``config``, ``errors``, ``__about__``:
tests/unit/test_imports.py holds the list): what a command needs of a stage is an API
function with a typed result.
"""

# The command groups: importing each registers its commands on `cli`.
from kgverify.cli import (  # noqa: F401
    actions,
    audit,
    calibrate,
    derive,
    dialogue,
    ehr,
    fhir,
    graph,
    link,
    load,
    pipeline,
    review,
    runs,
    server,
    verify,
)
from kgverify.cli.app import WIRE_LOGGERS, WORKFLOW, cli, configure_logging, with_verbose

with_verbose(cli)

# What tests and scripts import from `kgverify.cli` (the printers take the API's models).
from kgverify.cli.derive import print_derive_report, print_facts_report  # noqa: E402
from kgverify.cli.link import lucene_words, print_link_report  # noqa: E402
from kgverify.cli.load import print_load_report  # noqa: E402
from kgverify.cli.pipeline import print_pipeline_report  # noqa: E402
from kgverify.cli.verify import print_verify_report  # noqa: E402


def main() -> None:
    cli(prog_name="kgverify")


__all__ = [
    "WIRE_LOGGERS",
    "WORKFLOW",
    "cli",
    "configure_logging",
    "lucene_words",
    "main",
    "print_derive_report",
    "print_facts_report",
    "print_link_report",
    "print_load_report",
    "print_pipeline_report",
    "print_verify_report",
]
