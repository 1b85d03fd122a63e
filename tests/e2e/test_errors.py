"""Connection failures are one clear line, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from kgverify.config import Settings
from kgverify.errors import GraphAuthError, GraphUnavailableError
from kgverify.graph import Graph
from tests.conftest import free_port

pytestmark = pytest.mark.neo4j


def test_wrong_password_is_one_clear_error(settings: Settings, graph: Graph) -> None:
    bad = Settings(NEO4J_URI=graph.uri, NEO4J_PASSWORD="not-the-password")
    with pytest.raises(GraphAuthError, match="rejected the credentials for user 'neo4j'"):
        Graph.connect(bad)


def test_dead_server_is_one_clear_error() -> None:
    dead = Settings(NEO4J_URI=f"bolt://127.0.0.1:{free_port()}", NEO4J_PASSWORD="x")
    with pytest.raises(GraphUnavailableError, match="cannot reach Neo4j"):
        Graph.connect(dead)


def test_missing_database_is_one_clear_error(settings: Settings, graph: Graph) -> None:
    with pytest.raises(GraphUnavailableError, match="database 'nosuchdb'"):
        Graph.connect(settings.model_copy(update={"neo4j_database": "nosuchdb"}))


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"NEO4J_PASSWORD": "not-the-password"}, "rejected the credentials"),
        ({"NEO4J_URI": "bolt://127.0.0.1:{port}", "NEO4J_PASSWORD": "x"}, "cannot reach Neo4j"),
        ({"NEO4J_URI": "bolt://127.0.0.1:{port}"}, "NEO4J_PASSWORD is not"),
    ],
)
def test_cli_prints_one_line_and_exits_non_zero(
    graph: Graph, env: dict[str, str], expected: str
) -> None:
    port = free_port()
    full = {"PATH": "/usr/bin:/bin", "NEO4J_URI": graph.uri, "HOME": "/tmp"}
    full.update({k: v.format(port=port) for k, v in env.items()})
    done = subprocess.run(
        [sys.executable, "-m", "kgverify", "summary"],
        env=full,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    assert expected in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
