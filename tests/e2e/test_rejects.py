"""Malformed input: every row is loaded, skipped with a reason, or rejected with its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgverify.api import load_vocabulary
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.errors import RejectThresholdError
from kgverify.graph import Graph
from tests.conftest import FIXTURES

pytestmark = pytest.mark.neo4j
BAD = FIXTURES / "umls_bad" / "2024AA"


def _rejects(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_bad_rows_are_rejected_with_file_line_and_reason(
    fresh_graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    rejects = tmp_path / "rejects.jsonl"
    with pytest.raises(RejectThresholdError) as caught:
        load_vocabulary("umls", BAD, settings=settings, graph=fresh_graph, rejects_path=rejects)
    report = caught.value.report
    files = {f.file: f for f in report.files}  # type: ignore[attr-defined]
    for f in files.values():
        assert f.read == f.loaded + f.skipped + f.rejected, f
    assert (files["MRCONSO.RRF"].read, files["MRCONSO.RRF"].loaded) == (10, 5)
    assert files["MRCONSO.RRF"].skipped == 2 and files["MRCONSO.RRF"].rejected == 3
    assert (files["MRSTY.RRF"].loaded, files["MRSTY.RRF"].rejected) == (4, 1)
    assert (files["MRREL.RRF"].loaded, files["MRREL.RRF"].skipped, files["MRREL.RRF"].rejected) == (
        2,
        3,
        2,
    )

    got = {(r["file"], r["line"], str(r["reason"]).split(":")[0]) for r in _rejects(rejects)}
    assert got == {
        ("MRCONSO.RRF", 6, "wrong column count"),
        ("MRCONSO.RRF", 8, "malformed concept id"),
        ("MRCONSO.RRF", 9, "invalid UTF-8"),
        ("MRSTY.RRF", 5, "dangling reference"),
        ("MRREL.RRF", 3, "unknown relation name"),
        ("MRREL.RRF", 4, "dangling reference"),
    }
    # What was good is in the graph, whatever was bad around it.
    edge = fresh_graph._driver.execute_query(
        "MATCH (:Concept {id: 'UMLS:C0025598'})-[r:MAY_TREAT]->(:Concept {id: 'UMLS:C0011860'}) "
        "RETURN count(r) AS n"
    ).records[0]["n"]
    assert edge == 1
    release = fresh_graph.read("summary/releases")[0]
    assert release["status"] == "rejected" and release["rows_rejected"] == 6


@pytest.mark.usefixtures("cli_env")
def test_reject_threshold_decides_the_exit_code(fresh_graph: Graph, tmp_path: Path) -> None:
    runner = CliRunner()
    strict = runner.invoke(cli, ["load", "umls", str(BAD), "--rejects", str(tmp_path / "a.jsonl")])
    assert strict.exit_code == 3
    assert "rows rejected" in strict.stderr and "Traceback" not in strict.output
    lenient = runner.invoke(
        cli,
        [
            "load",
            "umls",
            str(BAD),
            "--max-reject-share",
            "0.5",
            "--rejects",
            str(tmp_path / "b.jsonl"),
            "--json",
        ],
    )
    assert lenient.exit_code == 0, lenient.output
    report = json.loads(lenient.stdout)
    assert report["status"] == "complete"
    assert sum(f["rejected"] for f in report["files"]) == 6


def test_options_bring_back_skipped_atoms(
    fresh_graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    lenient = settings.model_copy(update={"max_reject_share": 1.0})
    load_vocabulary(
        "umls",
        BAD,
        settings=lenient,
        graph=fresh_graph,
        rejects_path=tmp_path / "r.jsonl",
        languages=("ENG", "SPA"),
        include_suppressed=True,
    )
    names = fresh_graph._driver.execute_query(
        "MATCH (c:Concept {id: 'UMLS:C0011860'}) RETURN c.names AS names"
    ).records[0]["names"]
    assert "Diabetes Mellitus Tipo 2" in names and "Old obsolete name for T2DM" in names

    suppressed_edge = fresh_graph._driver.execute_query(
        "MATCH (:Concept {id: 'UMLS:C0025598'})-[r:MAY_TREAT]->(:Concept {id: 'UMLS:C0027051'}) "
        "RETURN count(r) AS n"
    ).records[0]["n"]
    assert suppressed_edge == 1
