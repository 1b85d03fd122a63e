"""The command line without a graph: `kgverify trajectories`, the top-level help, option
defaults, `-v` after a subcommand, `--json` everywhere, one-line errors, and tables that fit
80 columns. Commands that need Neo4j are tested in tests/e2e/test_cli_output.py."""

from __future__ import annotations

import json
import logging
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from kgverify.api import sample_path
from kgverify.api.models import LinkReport, LoadReport, VerifyReport
from kgverify.cli import (
    WIRE_LOGGERS,
    WORKFLOW,
    cli,
    print_link_report,
    print_load_report,
    print_verify_report,
)
from kgverify.ehr import read_jsonl
from kgverify.ehr.episodes import episodes
from kgverify.link.relations import Contexts

OMOP = str(sample_path("omop", "eunomia_sample"))


def invoke(*args: str, columns: int = 80) -> Result:
    return CliRunner().invoke(cli, list(args), env={"COLUMNS": str(columns)})


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


# --- kgverify trajectories -----------------------------------------------------------------


def test_trajectories_writes_the_file_link_and_verify_read(tmp_path: Path) -> None:
    out = tmp_path / "t" / "trajectories.jsonl"
    result = invoke("trajectories", "omop", OMOP, "-o", str(out), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    written = list(read_jsonl(out))
    assert report["patients"] == len(written) == 39
    assert report["encounters"] == sum(len(t.encounters) for t in written)
    assert report["episodes"] == sum(len(episodes(t)) for t in written) > 2000
    assert report["items_outside_encounters"] > 4000 and report["undated_items"] == 0
    assert report["out"] == str(out) and report["rejects"] is None
    assert all(r["read"] == r["loaded"] + r["skipped"] + r["rejected"] for r in report["rows"])
    assert stat.S_IMODE(out.stat().st_mode) == 0o600  # pseudonyms, dated facts, notes
    assert [p.name for p in out.parent.iterdir()] == [out.name]  # no partial file left
    Contexts.from_file(out)  # what `link --trajectories` / `verify --trajectories` read

    table = invoke("trajectories", "omop", OMOP, "-o", str(tmp_path / "t2.jsonl.gz"))
    assert table.exit_code == 0, table.output
    assert table.stdout.startswith("39 trajectories (20 encounters, ")
    assert len(list(read_jsonl(tmp_path / "t2.jsonl.gz"))) == 39


def test_trajectories_rejects_as_every_reader_does(tmp_path: Path) -> None:
    bad = tmp_path / "not_fhir.json"
    bad.write_text('{"hello": "world"}\n', encoding="utf-8")
    rejects = tmp_path / "r.jsonl"
    result = invoke(
        "trajectories", "fhir", str(bad), "-o", str(tmp_path / "t.jsonl"), "--rejects", str(rejects)
    )
    assert result.exit_code == 3, result.output
    assert "Source rows" in result.stdout  # the report first
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: trajectories fhir: 1 of 1 rows rejected")
    assert rejects.read_text().strip()


# --- help ----------------------------------------------------------------------------------


def _commands_section(text: str) -> list[str]:
    return text.split("Commands:\n", 1)[1].splitlines()


def test_top_level_help_lists_commands_in_workflow_order_with_whole_summaries() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    lines = _commands_section(result.stdout)
    names = [line.split()[0] for line in lines]
    assert names[:5] == ["neo4j", "load", "ingest", "trajectories", "extract"]
    assert names == [n for n in WORKFLOW if n in cli.commands] + sorted(
        set(cli.commands) - set(WORKFLOW)
    )
    assert set(names) == set(cli.commands)
    for name, line in zip(names, lines, strict=True):
        assert "..." not in line and len(line) <= 80, line  # one whole line each
        if name in WORKFLOW:
            assert line.split(None, 1)[1] == WORKFLOW[name]


def test_option_defaults_name_their_settings() -> None:
    link = " ".join(invoke("link", "--help").stdout.split())
    assert "[default: 0.7, setting link_threshold;" in link
    assert "[default: 0.05, setting link_margin;" in link
    load = " ".join(invoke("load", "--help").stdout.split())
    assert "[default: 10000, setting batch_size;" in load
    assert "[default: 0.01, setting max_reject_share;" in load
    assert "[default: 0.05, setting max_retire_share;" in load
    derive = " ".join(invoke("derive", "qa", "--help").stdout.split())
    assert "[default: 13, setting derive_seed]" in derive
    assert "[default: 4, setting derive_options;" in derive


# --- -v after the subcommand -----------------------------------------------------------------


@pytest.fixture
def wire_levels() -> Iterator[None]:
    saved = {name: logging.getLogger(name).level for name in WIRE_LOGGERS}
    yield
    for name, level in saved.items():
        logging.getLogger(name).setLevel(level)


@pytest.mark.usefixtures("wire_levels")
def test_verbose_is_accepted_after_the_subcommand(tmp_path: Path) -> None:
    assert invoke("queries").exit_code == 0
    assert logging.getLogger("neo4j").level == logging.CRITICAL + 1  # silent by default
    assert invoke("queries", "-v").exit_code == 0
    assert logging.getLogger("neo4j").level == logging.WARNING  # as `kgverify -v queries`
    result = invoke("queries", "-vvv")
    assert result.exit_code == 0 and logging.getLogger("neo4j").level == logging.NOTSET
    assert invoke("-v", "queries", "-vv").exit_code == 0  # adds up: -vvv
    assert logging.getLogger("neo4j").level == logging.NOTSET
    # Everywhere, nested commands included, with the group's meaning.
    relations = tmp_path / "r.jsonl"
    relations.write_text("", encoding="utf-8")
    link = cli.commands["link"]
    link.make_context("link", [str(relations), "-o", str(tmp_path / "o.jsonl"), "-v"])
    derive = cli.commands["derive"]
    assert isinstance(derive, click.Group)
    derive.commands["qa"].make_context("qa", ["-o", str(tmp_path / "qa"), "-vv"])


# --- --json and errors ---------------------------------------------------------------------


def _leaves(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from _leaves(command, (*path, name))
        else:
            yield (*path, name)


def test_every_command_takes_json() -> None:
    missing = []
    for path in _leaves(cli):
        help_text = invoke(*path, "--help").stdout
        if not re.search(r"^\s+--json\b", help_text, re.M):
            missing.append(" ".join(path))
    assert missing == []


@pytest.mark.parametrize(
    "args",
    [
        ("graph", "reset", "--json"),  # refused without --yes
        ("link", "no-such-file.jsonl", "-o", "x.jsonl", "--json"),
        ("prov", "--json"),  # no item given
        ("load", "umls", ".", "--batch-size", "0", "--json"),
        ("extract", "--extractor", "openai", "omop", OMOP, "-o", "x.jsonl", "--json"),
        ("calibrate", "no-such-folder", "--model", "m", "--base-url", "http://x/v1", "--json"),
    ],
)
def test_errors_under_json_are_one_plain_line(args: tuple[str, ...]) -> None:
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and "Traceback" not in line and "{" not in line


# --- tables at 80 columns --------------------------------------------------------------------


def _rendered(print_report: Any, *args: Any) -> list[str]:
    runner = CliRunner()

    @click.command()
    def show() -> None:
        print_report(*args)

    result = runner.invoke(show, [], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()


def _fits(lines: list[str]) -> None:
    assert lines
    too_long = [line for line in lines if len(line) > 80]
    assert too_long == []
    assert not any("…" in line for line in lines), "\n".join(lines)


VERDICTS = ("supported", "contradicted", "unsupported", "ambiguous", "unlinked", "type_mismatch")


def test_verify_link_and_load_reports_fit_80_columns() -> None:
    by_predicate = {
        p: dict.fromkeys(VERDICTS, 1234)
        for p in ("contraindicated_for", "indicates", "leads_to", "treats")
    }
    verify = {
        "verified": 1596,
        "out": "/home/someone/.cache/kgverify/sample/verdicts.jsonl",
        "passed": 310,
        "written": 1596,
        "not_written": 0,
        "by_predicate": by_predicate,
        "read": 1596,
        "rejected": 0,
        "relations_per_second": 812.5,
        "unknown_patients": 0,
        "unknown_encounters": 0,
        "rejects": None,
    }
    lines = _rendered(print_verify_report, VerifyReport.model_validate(verify))
    _fits(lines)
    assert any("type_mismatch" in line for line in lines)
    link = {
        "linked_relations": 1596,
        "out": "/home/someone/.cache/kgverify/sample/linked.jsonl",
        "both_linked": 1500,
        "index": "0123456789abcdef",
        "by_status": {"linked": 3000, "ambiguous": 100, "unlinked": 92},
        "by_method": {
            k: 100
            for k in ("abbreviation", "code", "exact", "normalized", "mined", "fallback", "typo")
        }
        | {"tfidf": 5, "reranked": 2, "one_edit": 3},
        "read": 1596,
        "rejected": 0,
        "mentions_per_second": 1234.5,
        "rejects": None,
    }
    lines = _rendered(print_link_report, LinkReport.model_validate(link))
    _fits(lines)
    assert any("abbreviation" in line for line in lines)
    load = {
        "loader": "snomed",
        "release": "SNOMEDCT@20250101",
        "mode": "batched",
        "seconds": 12.3,
        "status": "complete",
        "files": [
            {
                "file": "sct2_Description_Snapshot-en_INT_20250101.txt",
                "read": 1234567,
                "loaded": 1234000,
                "skipped": 567,
                "rejected": 0,
            },
            {
                "file": "der2_cRefset_LanguageSnapshot-en_INT_20250101.txt",
                "read": 7654321,
                "loaded": 7654321,
                "skipped": 0,
                "rejected": 0,
            },
        ],
        "retired_concepts": 1,
        "retired_relationships": 2,
        "rejects_path": None,
    }
    _fits(_rendered(print_load_report, LoadReport.model_validate(load), False))
