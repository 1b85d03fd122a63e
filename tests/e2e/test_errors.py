"""Connection failures and transactions past their timeout are one clear line, never a
traceback."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.errors import GraphAuthError, GraphUnavailableError, TransactionTimeoutError
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


# A statement that runs about 5 s on the server; the transaction timeout below is 1 s.
SLOW = "CALL apoc.util.sleep(5000) RETURN 1 AS done"


@pytest.mark.usefixtures("cli_env")
def test_a_transaction_past_its_timeout_is_one_error_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KGVERIFY_NEO4J_TX_TIMEOUT_S", "1")
    started = time.monotonic()
    result = CliRunner().invoke(cli, ["cypher", SLOW])
    took = time.monotonic() - started
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
    assert "KGVERIFY_NEO4J_TX_TIMEOUT_S" in result.stderr
    assert "longer than 1 s" in result.stderr
    assert "cannot reach" not in result.stderr and "Traceback" not in result.output
    assert took < 5.0, took  # the server ended it; nobody waited out the sleep


def test_a_named_query_and_the_next_one_after_a_timeout(settings: Settings, graph: Graph) -> None:
    """The timeout reaches every transaction of a graph, and the graph stays usable."""
    quick = settings.model_copy(update={"neo4j_tx_timeout_s": 1.0})
    with Graph.connect(quick) as bounded:
        assert bounded.tx_timeout_s == 1.0
        with pytest.raises(TransactionTimeoutError, match="running the statement"):
            bounded.run_adhoc(SLOW, {})
        assert bounded.read("summary/releases") is not None
        assert bounded.run_adhoc("RETURN 1 AS one", {}).rows == [{"one": 1}]
