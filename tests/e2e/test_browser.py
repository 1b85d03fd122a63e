"""Neo4j Browser and the HTTP API served by the local launcher (loopback only, behind the
password), and `kgverify cypher` (read-only unless --write; table, JSON, CSV).

No web browser is needed here: the page is fetched over HTTP. The check in a real headless
browser (Debian's chromium) is docs/scripts/browser_check.py (docs/graph-browser.md).
"""

from __future__ import annotations

import base64
import csv
import io
import json
import os
import re
import urllib.error
import urllib.request

import pytest
from click.testing import CliRunner

from kgverify.api import cypher_param
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.graph import Graph
from kgverify.server import LocalServer

local_only = pytest.mark.skipif(bool(os.environ.get("NEO4J_URI")), reason="external server in use")
LOOPBACK = {"0100007F", "0000000000000000FFFF00000100007F"}  # 127.0.0.1 (v4 or v4-mapped)


def _listening(port: int) -> set[str]:
    """Local addresses (hex, as /proc/net shows them) listening on ``port``."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            next(rows)
            for row in rows:
                local, state = row.split()[1], row.split()[3]
                address, hex_port = local.rsplit(":", 1)
                if state == "0A" and int(hex_port, 16) == port:
                    found.add(address)
    return found


def _http(
    url: str, body: object = None, auth: tuple[str, str] | None = None
) -> tuple[int, str, str]:
    """Status, content type and text of a GET (or a JSON POST with ``body``)."""
    assert url.startswith("http://127.0.0.1:")
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data)  # noqa: S310 (loopback http only)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if auth is not None:
        token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            return response.status, response.headers["Content-Type"] or "", response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["Content-Type"] or "", exc.read().decode()


# -- the Browser and the HTTP API ---------------------------------------------------------------
@pytest.mark.neo4j
@local_only
def test_browser_is_served_on_loopback_only(settings: Settings) -> None:
    status = LocalServer(settings).status()
    base = f"http://127.0.0.1:{settings.http_port}"
    assert status.browser == f"{base}/browser/" and status.http == base
    listening = _listening(settings.http_port)
    assert listening and listening <= LOOPBACK
    code, kind, page = _http(status.browser)
    assert code == 200 and kind.startswith("text/html")
    assert "<title>Neo4j Browser</title>" in page and '<div id="mount">' in page
    # The page's own scripts come from the same jar.
    app = re.search(r'src="(app-[0-9a-f]+\.js)"', page)
    assert app is not None
    code, kind, script = _http(f"{base}/browser/{app.group(1)}")
    assert code == 200 and "javascript" in kind and len(script) > 100_000


@pytest.mark.neo4j
@local_only
def test_discovery_points_the_browser_at_loopback_bolt(settings: Settings) -> None:
    code, _, text = _http(f"http://127.0.0.1:{settings.http_port}/")
    found = json.loads(text)
    assert code == 200 and found["bolt_direct"] == f"bolt://127.0.0.1:{settings.bolt_port}"
    assert found["neo4j_version"].startswith("5.26")


@pytest.mark.neo4j
@local_only
def test_http_api_asks_for_the_generated_password(settings: Settings) -> None:
    url = f"http://127.0.0.1:{settings.http_port}/db/neo4j/tx/commit"
    body = {"statements": [{"statement": "RETURN 1 AS one"}]}
    code, _, text = _http(url, body)
    assert code == 401 and "Unauthorized" in text
    code, _, text = _http(url, body, ("neo4j", "neo4j"))  # the stock password is no more
    assert code == 401
    code, _, text = _http(url, body, ("neo4j", LocalServer(settings).password()))
    answer = json.loads(text)
    assert code == 200 and answer["errors"] == []
    assert answer["results"][0]["data"][0]["row"] == [1]


@pytest.mark.usefixtures("cli_env")
@pytest.mark.neo4j
@local_only
def test_cli_status_names_the_browser(settings: Settings) -> None:
    url = f"http://127.0.0.1:{settings.http_port}/browser/"
    result = CliRunner().invoke(cli, ["neo4j", "status"])
    assert result.exit_code == 0 and f"Neo4j Browser at {url}" in result.stdout
    shown = json.loads(CliRunner().invoke(cli, ["neo4j", "status", "--json"]).stdout)
    assert shown["browser"] == url


# -- kgverify cypher ----------------------------------------------------------------------------
def _cypher(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["cypher", *args])
    return result.exit_code, result.stdout, result.stderr


def _count_probes(graph: Graph) -> int:
    return int(graph._driver.execute_query("MATCH (p:Probe) RETURN count(p) AS n").records[0]["n"])


@pytest.mark.usefixtures("cli_env")
@pytest.mark.neo4j
def test_cypher_refuses_a_write_without_write(fresh_graph: Graph) -> None:
    code, out, err = _cypher("CREATE (:Probe {name: 'a'})")
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and "--write" in err
    assert _count_probes(fresh_graph) == 0


@pytest.mark.usefixtures("cli_env")
@pytest.mark.neo4j
def test_cypher_writes_with_write_and_reads_typed_parameters(fresh_graph: Graph) -> None:
    code, out, _ = _cypher(
        "UNWIND $names AS name CREATE (:Probe {name: name, rank: $rank, ok: $ok})",
        "--write",
        "-p",
        'names=["aspirin", "metformin", "ibuprofen"]',
        "-p",
        "rank=1.5",
        "-p",
        "ok=true",
    )
    assert code == 0 and "nodes created: 3" in out
    assert _count_probes(fresh_graph) == 3
    # LIMIT needs an integer: a string "2" would be refused.
    code, out, err = _cypher(
        "MATCH (p:Probe) WHERE p.ok AND p.rank = $rank RETURN p.name AS name "
        "ORDER BY name LIMIT $n",
        "-p",
        "n=2",
        "-p",
        "rank=1.5",
    )
    assert code == 0, err
    assert "2 rows" in out and "aspirin" in out and "ibuprofen" in out
    assert "metformin" not in out


@pytest.mark.usefixtures("cli_env")
@pytest.mark.neo4j
def test_cypher_json_and_csv(fresh_graph: Graph) -> None:
    fresh_graph._driver.execute_query(
        "CREATE (:Probe {name: 'metformin', codes: ['6809', '860975'], rank: 1})"
    )
    text = "MATCH (p:Probe) RETURN p.name AS name, p.codes AS codes, p.rank AS rank, null AS none"
    code, out, _ = _cypher(text, "--json")
    shown = json.loads(out)
    assert code == 0 and shown["columns"] == ["name", "codes", "rank", "none"]
    assert shown["rows"] == [
        {"name": "metformin", "codes": ["6809", "860975"], "rank": 1, "none": None}
    ]
    assert shown["truncated"] is False and shown["counters"] == {}
    code, out, _ = _cypher(text, "--csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0
    assert rows == [["name", "codes", "rank", "none"], ["metformin", '["6809", "860975"]', "1", ""]]
    # Nodes come back as their properties.
    code, out, _ = _cypher("MATCH (p:Probe) RETURN p", "--json")
    assert code == 0 and json.loads(out)["rows"][0]["p"]["name"] == "metformin"
    # No rows: the header still names the columns.
    code, out, _ = _cypher("MATCH (p:Probe {name: 'none'}) RETURN p.name AS name", "--csv")
    assert code == 0 and out == "name\n"


@pytest.mark.usefixtures("cli_env")
@pytest.mark.neo4j
def test_cypher_max_rows(fresh_graph: Graph) -> None:
    code, out, err = _cypher("UNWIND range(1, 5) AS i RETURN i", "--max-rows", "2", "--csv")
    assert code == 0 and out == "i\n1\n2\n" and "only the first 2" in err
    code, out, _ = _cypher("UNWIND range(1, 5) AS i RETURN i", "--max-rows", "0", "--json")
    assert code == 0 and len(json.loads(out)["rows"]) == 5


@pytest.mark.usefixtures("cli_env")
@pytest.mark.neo4j
def test_cypher_errors_are_one_line(fresh_graph: Graph) -> None:
    code, out, err = _cypher("MATCH (c:Concept RETURN c")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("error: Neo4j refused the statement: Invalid input")
    code, _, err = _cypher("MATCH (c:Concept) WHERE c.id = $id RETURN c")
    assert code == 2 and err.startswith("error: ") and "id" in err and err.count("\n") == 1
    # Needs an implicit transaction; kgverify cypher runs managed ones only.
    code, _, err = _cypher("UNWIND [1] AS i CALL { WITH i RETURN i AS j } IN TRANSACTIONS RETURN j")
    assert code == 2 and err.startswith("error: Neo4j refused the statement: "), err
    assert err.count("\n") == 1 and "IN TRANSACTIONS" in err
    code, _, err = _cypher("RETURN 1", "-p", "novalue")
    assert code == 2 and err == "error: a parameter is KEY=VALUE, got 'novalue'\n"
    code, _, err = _cypher("RETURN 1", "--json", "--csv")
    assert code == 2 and "exclude each other" in err


def test_cypher_parameters_are_typed() -> None:
    assert dict(
        cypher_param(text)
        for text in (
            "a=1",
            "b=-2",
            "c=0.25",
            "d=1e3",
            "e=TRUE",
            "f=false",
            "g=null",
            "h=[1, 2]",
            'i={"k": [true]}',
            'j="42"',
            "k=007",
            "l=type 2 diabetes",
            "m=SNOMEDCT:44054006",
            "n=",
            "o=a=b",
        )
    ) == {
        "a": 1,
        "b": -2,
        "c": 0.25,
        "d": 1000.0,
        "e": True,
        "f": False,
        "g": None,
        "h": [1, 2],
        "i": {"k": [True]},
        "j": "42",
        "k": "007",
        "l": "type 2 diabetes",
        "m": "SNOMEDCT:44054006",
        "n": "",
        "o": "a=b",
    }
    with pytest.raises(ConfigError, match="not valid JSON"):
        cypher_param("x=[1,")
