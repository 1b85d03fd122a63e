"""The database reads no host files (issue 35): the local server refuses LOAD CSV of a file,
APOC's file loads and exports and every URL fetch, to a session that may write, too; and
`kgverify cypher` refuses a statement that reads files or URLs before it reaches any server.
CSV output never hands a spreadsheet a formula."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import Any

import neo4j
import pytest
from click.testing import CliRunner
from neo4j import exceptions as neo4j_errors

from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.graph import Graph

pytestmark = pytest.mark.neo4j
local_only = pytest.mark.skipif(bool(os.environ.get("NEO4J_URI")), reason="external server in use")


def _salt_file(settings: Settings) -> Path:
    settings.salt()  # made on first use: owner-only, under the cache folder
    path = settings.cache_dir / "pseudonym-salt"
    assert path.is_file()
    return path


def _cypher(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["cypher", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout, result.stderr


def _reads(tmp_path: Path, settings: Settings) -> list[str]:
    """Statements that would read host files (or, on the last, a loopback URL)."""
    host_json = tmp_path / "host.json"
    host_json.write_text('{"secret": "host file"}\n')
    salt = _salt_file(settings)
    return [
        "LOAD CSV FROM 'file:///etc/passwd' AS l RETURN l LIMIT 2",
        f"LOAD CSV FROM 'file://{salt}' AS l RETURN l",
        f"CALL apoc.load.json('file://{host_json}') YIELD value RETURN value",
        f"CALL apoc.load.json('{host_json}') YIELD value RETURN value",
        "CALL apoc.load.csv('file:///etc/passwd') YIELD list RETURN list",
        f"LOAD CSV FROM 'http://127.0.0.1:{settings.http_port}/browser/' AS l RETURN l",
    ]


@pytest.mark.usefixtures("cli_env")
def test_cypher_refuses_file_reads_in_one_line(
    fresh_graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    for statement in _reads(tmp_path, settings):
        code, out, err = _cypher(statement)
        assert code == 2 and out == "", (statement, out)
        assert err.count("\n") == 1 and err.startswith("error: the statement reads files"), err
        assert "root:" not in err
    # A string that only names LOAD CSV is no file read.
    code, out, err = _cypher(
        "MATCH (c:Concept) WHERE c.name = 'load csv from file' OR $x = 'apoc.load.json' "
        "RETURN count(c) AS n",
        "-p",
        "x=y",
    )
    assert code == 0, err


@local_only
@pytest.mark.usefixtures("cli_env")
def test_with_write_the_server_still_refuses(
    fresh_graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    for statement in _reads(tmp_path, settings):
        code, out, err = _cypher(statement, "--write")
        assert code == 2 and out == "", (statement, out)
        # LOAD CSV: refused by the server's setting; APOC's loads: its missing library.
        assert err.count("\n") == 1 and err.startswith(
            ("error: Neo4j refused the statement", "error: Neo4j failed")
        ), err
        assert "root:" not in err


@local_only
def test_the_server_reads_no_host_files(
    fresh_graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    """A raw session, write access: the server's own settings refuse, not only the client.

    LOAD CSV of a file is refused by ``dbms.security.allow_csv_import_from_file_urls``. APOC's
    file loads and every URL fetch fail earlier in this build (APOC's URL handling needs
    woodstox, which the launcher does not ship); the launcher's APOC settings and URL
    blocklist keep them refused in a build that has it, which these lines guard."""
    exported = tmp_path / "export.csv"
    statements = [
        *_reads(tmp_path, settings)[:4],
        f"LOAD CSV FROM 'http://127.0.0.1:{settings.http_port}/browser/' AS l RETURN l",
        "CALL apoc.import.json('file:///etc/passwd')",
        f"CALL apoc.export.csv.all('{exported}', {{}})",
    ]

    def run(tx: neo4j.ManagedTransaction, statement: str) -> list[dict[str, Any]]:
        return tx.run(statement).data()

    with fresh_graph._driver.session(database=fresh_graph.database) as session:
        for statement in statements:
            with pytest.raises(neo4j_errors.Neo4jError) as refused:
                session.execute_write(run, statement)
            assert "root:" not in str(refused.value)
    assert not exported.exists()
    home = settings.local_home / "dbms" / "import"
    assert home.is_dir() and list(home.iterdir()) == []
    assert home.stat().st_mode & 0o777 == 0o700


@pytest.mark.usefixtures("cli_env")
def test_csv_cells_never_run_as_formulas(fresh_graph: Graph) -> None:
    code, out, err = _cypher(
        "RETURN '=HYPERLINK(\"http://x\",\"y\")' AS reviewer, -1 AS n, '-1' AS s, "
        "'@SUM(A1)' AS a, 'plain' AS p",
        "--csv",
    )
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[1] == ['\'=HYPERLINK("http://x","y")', "-1", "'-1", "'@SUM(A1)", "plain"]
