"""Owner-only outputs (issue 35): every file the sample chain writes through the command line
is 0600 and every folder kgverify makes 0700, under a umask that would leave them open to
all; a folder the user had before keeps its mode. And a path that cannot be written, or an
input line that cannot be read, is one ``error:`` line, never a traceback."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kgverify.api import ingest_source, sample_dialogues, sample_path
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.graph import Graph
from kgverify.review.sheet import write_sheet
from tests.e2e.helpers import rows

pytestmark = pytest.mark.neo4j

EUNOMIA = str(sample_path("omop", "eunomia_sample"))


def _env(settings: Settings) -> dict[str, str]:
    return {
        "KGVERIFY_NEO4J_HOME": str(settings.local_home),
        "KGVERIFY_BOLT_PORT": str(settings.bolt_port),
        "KGVERIFY_CACHE_DIR": str(settings.cache_dir),
    }


def _kgverify(settings: Settings, *args: str) -> Result:
    return CliRunner().invoke(cli, list(args), env=_env(settings))


@dataclass
class Chain:
    user: Path  # the user's own folder (0755), every output below it
    out: Path  # the folder kgverify made for them


@pytest.fixture(scope="module")
def chain(
    sample_graph: Graph, sample_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Chain]:
    user = tmp_path_factory.mktemp("user")
    user.chmod(0o755)
    out = user / "made" / "by" / "kgverify"
    ingest_source("omop", EUNOMIA, settings=sample_settings, graph=sample_graph)
    runs = [
        ("trajectories", "omop", EUNOMIA, "-o", str(out / "trajectories.jsonl")),
        ("extract", "omop", EUNOMIA, "-o", str(out / "relations.jsonl")),
        ("link", str(out / "relations.jsonl"), "-o", str(out / "linked.jsonl")),
        ("verify", str(out / "linked.jsonl"), "-o", str(out / "verdicts.jsonl")),
        ("derive", "qa", "-o", str(out / "qa")),
        ("derive", "facts", "-o", str(out / "facts")),
    ]
    old = os.umask(0)  # what the tool sets, not the umask, decides
    try:
        for args in runs:
            result = _kgverify(sample_settings, *args)
            assert result.exit_code == 0, (args, result.output)
        dialogues = sample_dialogues(out / "dialogues.jsonl", settings=sample_settings)
        result = _kgverify(
            sample_settings,
            *("check-dialogue", str(dialogues), "--facts", str(out / "facts")),
            *("-o", str(out / "dialogue_verdicts.jsonl")),
        )
        assert result.exit_code == 0, result.output
        args = ("review", "export", "-o", str(out / "review"), "--qa", str(out / "qa"))
        result = _kgverify(sample_settings, *args)
        assert result.exit_code == 0, result.output
    finally:
        os.umask(old)
    yield Chain(user, out)


def test_every_output_is_owner_only(chain: Chain) -> None:
    files = [p for p in chain.out.rglob("*") if p.is_file()]
    folders = [p for p in chain.out.rglob("*") if p.is_dir()]
    names = {p.relative_to(chain.out).as_posix() for p in files}
    for expected in (
        "trajectories.jsonl",
        "relations.jsonl",
        "linked.jsonl",
        "verdicts.jsonl",
        "qa/README.md",
        "facts/sheets.jsonl",
        "dialogue_verdicts.jsonl",
        "review/sheet.csv",
        "review/index.html",
    ):
        assert expected in names, sorted(names)
    assert any(n.startswith("qa/treatment/") for n in names)
    assert any(n.startswith("review/items/") for n in names)
    loose = {
        p.relative_to(chain.user).as_posix(): oct(stat.S_IMODE(p.stat().st_mode))
        for p in files
        if stat.S_IMODE(p.stat().st_mode) != 0o600
    }
    loose |= {
        p.relative_to(chain.user).as_posix(): oct(stat.S_IMODE(p.stat().st_mode))
        for p in [*folders, chain.out, chain.out.parent, chain.out.parent.parent]
        if stat.S_IMODE(p.stat().st_mode) != 0o700
    }
    assert loose == {}
    # The user's folder is theirs: not tightened.
    assert stat.S_IMODE(chain.user.stat().st_mode) == 0o755


# -- one error line -----------------------------------------------------------------------------
def _one_error(result: Result) -> str:
    """The one ``error:`` line of a failed command (an exception that escaped the CLI would
    be a traceback for a user: CliRunner keeps it in ``result.exception``)."""
    assert result.exit_code != 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "Traceback" not in result.output, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and result.stderr.count("\n") == 1, result.stderr
    return errors[0]


def test_output_under_a_regular_file_is_one_error_line(
    chain: Chain, sample_settings: Settings, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    relations = str(chain.out / "relations.jsonl")
    for args in (
        ("link", relations, "-o", str(blocker / "linked.jsonl")),
        ("verify", relations, "-o", str(blocker / "sub" / "verdicts.jsonl")),
        ("derive", "facts", "-o", str(blocker / "facts")),
    ):
        line = _one_error(_kgverify(sample_settings, *args))
        assert "a-file" in line and "cannot write" in line, line


@contextmanager
def _read_only(folder: Path) -> Iterator[None]:
    """``folder`` unwritable while the block runs: mode 0500, or for root (whom modes do not
    stop) the immutable attribute, where the file system has it."""
    folder.mkdir(mode=0o500)
    immutable = os.geteuid() == 0
    if immutable:
        done = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False)
        if done.returncode != 0:
            pytest.skip("root, and no chattr +i here: nothing makes a folder read-only")
    try:
        yield
    finally:
        if immutable:
            subprocess.run(["chattr", "-i", str(folder)], check=True)
        folder.chmod(0o700)


def test_read_only_output_folder_is_one_error_line(
    chain: Chain, sample_settings: Settings, tmp_path: Path
) -> None:
    locked = tmp_path / "locked"
    relations = str(chain.out / "relations.jsonl")
    with _read_only(locked):
        for args in (
            ("link", relations, "-o", str(locked / "linked.jsonl")),
            ("derive", "qa", "-o", str(locked / "qa")),
            ("review", "export", "-o", str(locked / "review"), "--qa", str(chain.out / "qa")),
        ):
            line = _one_error(_kgverify(sample_settings, *args))
            assert line.startswith(f"error: cannot write {locked}/"), line


@contextmanager
def _full_disk(folder: Path) -> Iterator[None]:
    """``folder`` a 16 KiB file system while the block runs (tmpfs: needs the right to mount,
    which root in a container usually has)."""
    folder.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16k,mode=0700", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip("no right to mount a small file system here: no disk can be filled")
    try:
        yield
    finally:
        # A file a failed command left open keeps it busy: that would be a leak to fix.
        subprocess.run(["umount", str(folder)], check=True)


def test_a_full_disk_is_one_error_line_and_nothing_is_published(
    chain: Chain, sample_graph: Graph, sample_settings: Settings, tmp_path: Path
) -> None:
    full = tmp_path / "full"
    current = "MATCH (i:Item) WHERE i.current RETURN i.id AS id ORDER BY id"
    before = [r["id"] for r in rows(sample_graph, current)]
    assert before
    with _full_disk(full):
        for args in (
            ("trajectories", "omop", EUNOMIA, "-o", str(full / "trajectories.jsonl")),
            ("extract", "omop", EUNOMIA, "-o", str(full / "relations.jsonl")),
            ("verify", str(chain.out / "linked.jsonl"), "-o", str(full / "verdicts.jsonl")),
            # Another seed: a run that got through would change the current items.
            ("derive", "qa", "--seed", "7", "-o", str(full / "qa")),
            ("derive", "facts", "-o", str(full / "facts")),
        ):
            line = _one_error(_kgverify(sample_settings, *args))
            assert line.startswith("error: cannot write the output: "), (args, line)
            assert "no space left on device" in line.lower() or "disk is full" in line, line
            # Nothing cut is left under the final names (the partial files are removed).
            assert sorted(p.name for p in full.rglob("*") if p.stat().st_size) == [], args
    assert [r["id"] for r in rows(sample_graph, current)] == before


def test_deeply_nested_line_is_rejected_with_its_place(
    chain: Chain, sample_settings: Settings, tmp_path: Path
) -> None:
    good = (chain.out / "relations.jsonl").read_text().splitlines()[0]
    deep = "[" * 100_000 + "]" * 100_000
    nested = '{"relation_id": ' + "[" * 500 + "]" * 500 + "}"  # parsed, then invalid
    relations = tmp_path / "relations.jsonl"
    relations.write_text("\n".join([good, deep, nested]) + "\n")
    for command in ("link", "verify"):
        out = tmp_path / f"{command}.jsonl"
        rejects = tmp_path / f"{command}.rejects.jsonl"
        result = _kgverify(
            sample_settings, command, str(relations), "-o", str(out), "--rejects", str(rejects)
        )
        # Two of three lines rejected is over the reject share: exit 3, the output kept.
        assert result.exit_code == 3 and isinstance(result.exception, SystemExit), result.output
        assert "Traceback" not in result.output and "2 of 3 rows rejected" in result.stderr
        assert len(out.read_text().splitlines()) == 1
        reasons = rejects.read_text().splitlines()
        assert len(reasons) == 2, reasons
        assert '"line": 2' in reasons[0] and "nested too deeply" in reasons[0], reasons[0]
        assert '"line": 3' in reasons[1], reasons[1]


def test_negative_audit_limit_is_one_error_line(chain: Chain, sample_settings: Settings) -> None:
    line = _one_error(_kgverify(sample_settings, "audit", "rejected_relations", "-p", "limit=-1"))
    assert line == "error: audit rejected_relations limit: must be at least 0, got -1"
    result = _kgverify(sample_settings, "audit", "rejected_relations", "-p", "limit=0")
    assert result.exit_code == 0, result.output


# -- CSV cells a spreadsheet would run ----------------------------------------------------------
HYPERLINK = '=HYPERLINK("http://x","y")'


def test_review_sheet_round_trips_a_formula_reviewer(
    chain: Chain, sample_settings: Settings, tmp_path: Path
) -> None:
    """A reviewer named like a formula: the sheet kgverify writes quotes it, the import takes
    its own quote off (the stored name is the reviewer's), and CSV out quotes it again."""
    with (chain.out / "review" / "sheet.csv").open(encoding="utf-8", newline="") as handle:
        first = next(csv.DictReader(handle))
    sheet = tmp_path / "filled.csv"
    write_sheet(sheet, [{**first, "decision": "accept", "reviewer": HYPERLINK, "notes": "-ok"}])
    assert "'=HYPERLINK(" in sheet.read_text(encoding="utf-8")
    result = _kgverify(sample_settings, "review", "import", str(sheet), "--json")
    assert result.exit_code == 0, result.output
    statement = "MATCH (r:Review {item: $item}) RETURN r.reviewer AS reviewer, r.notes AS notes"
    param = f"item={first['item_id']}"
    shown = _kgverify(sample_settings, "cypher", statement, "-p", param, "--json")
    assert json.loads(shown.stdout)["rows"] == [{"reviewer": HYPERLINK, "notes": "-ok"}]
    shown = _kgverify(sample_settings, "cypher", statement, "-p", param, "--csv")
    assert list(csv.reader(io.StringIO(shown.stdout))) == [
        ["reviewer", "notes"],
        ["'" + HYPERLINK, "'-ok"],
    ]
