"""Neo4j Browser and the HTTP API served by the local launcher (loopback only, behind the
password), kgverify's Browser style and audit guide (served by the launcher, applied on
connect), and `kgverify cypher` (read-only unless --write; table, JSON, CSV).

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
import urllib.parse
import urllib.request
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgverify.api import cypher_param
from kgverify.audit.browser import (
    FAVORITES_PATH,
    GUIDE_PATH,
    STYLE_PATH,
    caption_properties,
    favorite_files,
    param_block,
    parse_grass,
    post_connect_cmd,
    render_favorites,
    render_guide,
    resource,
)
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.graph import Graph
from kgverify.graph.model import Vocab
from kgverify.graph.queries import get_query
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


# -- kgverify's style and audit guide ----------------------------------------------------------
ROOT = Path(__file__).resolve().parents[2]
# Patient properties a caption must never show: ages (bands reach "90+"), names, source ids,
# and the item question, whose stem names the patient's age band.
PRIVATE = {"age", "age_band", "birth_year", "birth_date", "name", "source_id", "question"}


def _model_labels() -> set[str]:
    """Every node label docs/graph-model.md names, and every label a query writes."""
    labels: set[str] = set()
    model = (ROOT / "docs" / "graph-model.md").read_text()
    for found in re.finditer(r"\(:([A-Za-z][A-Za-z:]*)", model):
        labels.update(label for label in found.group(1).split(":") if label)
    for path in (ROOT / "queries").rglob("*.cypher"):
        writes = re.finditer(r"(?:MERGE|CREATE)\s*\(\w*:([A-Z][A-Za-z]*)", path.read_text())
        labels.update(found.group(1) for found in writes)
    return labels


def _style() -> dict[str, dict[str, str]]:
    return parse_grass(resource(STYLE_PATH).read_text(encoding="utf-8"))


def test_style_captions_every_label_by_a_property() -> None:
    style = _style()
    labels = _model_labels()
    assert {"Concept", "Patient", "Item", "Fact", "Assertion", "Review"} <= labels
    assert {v.value for v in Vocab} <= labels
    for label in sorted(labels):
        rule = style.get(f"node.{label}")
        assert rule is not None, f"the style has no rule for {label}"
        assert caption_properties(rule.get("caption", "")), f"{label}: no caption property"
        assert re.fullmatch(r"#[0-9A-F]{6}", rule.get("color", "")), f"{label}: no colour"
    # The captions asked for: concepts by name, patients by pseudonym, items by task and
    # answer, facts by kind and name, assertions by predicate.
    shown = {label: caption_properties(style[f"node.{label}"]["caption"]) for label in labels}
    assert all(shown[v.value] == ["name"] for v in Vocab) and shown["Concept"] == ["name"]
    assert shown["Patient"] == ["id"]
    assert shown["Item"] == ["task", "answer_text"]
    assert shown["Fact"] == ["kind", "display"]
    assert shown["Assertion"][0] == "predicate"
    # Labels differ by colour (a concept's vocabulary label is the only one it shares).
    colours = [style[f"node.{label}"]["color"] for label in sorted(labels)]
    assert len(set(colours)) == len(colours)
    # Nothing that says who a patient is, or how old, becomes a caption.
    for label, props in shown.items():
        assert not (set(props) & PRIVATE) or label in {"Concept", *(v.value for v in Vocab)}
    # Later rules win in the Browser: the vocabulary's colour over the plain concept's.
    order = list(style)
    assert all(order.index(f"node.{v.value}") > order.index("node.Concept") for v in Vocab)


def test_style_reads_as_the_browser_reads_it() -> None:
    text = resource(STYLE_PATH).read_text(encoding="utf-8")
    # The Browser's reader knows no comments and drops a value holding a colon or a quote.
    assert "/*" not in text and "//" not in text
    declared = len(re.findall(r"^\s+[a-z-]+\s*:", text, flags=re.M))
    assert sum(len(props) for props in _style().values()) == declared


class _Guide(HTMLParser):
    """Headings (with their ids) and the text of each runnable block of the guide."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.runnable: list[str] = []
        self._in_runnable = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "h3" and found.get("id"):
            self.ids.append(str(found["id"]))
        if tag == "pre" and "runnable" in (found.get("class") or ""):
            self._in_runnable = True
            self.runnable.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._in_runnable = False

    def handle_data(self, data: str) -> None:
        if self._in_runnable:
            self.runnable[-1] += data


def test_guide_lists_every_audit_query() -> None:
    text = resource(GUIDE_PATH).read_text(encoding="utf-8")
    assert text == render_guide(), "stale guide: run python -m kgverify.audit.browser"
    guide = _Guide()
    guide.feed(text)
    names = sorted(p.stem for p in (ROOT / "queries" / "audit").glob("*.cypher"))
    assert names and guide.ids == names
    from kgverify.audit.catalog import get_audit

    for name in names:
        audit = get_audit(name)
        query = get_query(f"audit/{name}")
        assert query.text in guide.runnable  # the statement, runnable as it is
        if audit.params:  # a :param line per parameter, run as one script
            block = param_block(audit)
            assert block in guide.runnable
            assert [line.split()[1] for line in block.split(";\n")] == list(query.params)
            assert all(line.startswith(":param ") and " => " in line for line in block.split(";\n"))
        from html import escape

        assert escape(audit.description) in text


def _zip_files(data: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name).decode() for name in archive.namelist()}


def test_favorites_zip_holds_every_audit_query() -> None:
    data = resource(FAVORITES_PATH).read_bytes()
    assert data == render_favorites(), "stale zip: run python -m kgverify.audit.browser"
    files = _zip_files(data)
    names = sorted(p.stem for p in (ROOT / "queries" / "audit").glob("*.cypher"))
    # One folder; the Browser takes .cypher entries and titles each by its first line.
    assert sorted(files) == [f"kgverify audit/{name}.cypher" for name in names]
    for name in names:
        text = files[f"kgverify audit/{name}.cypher"]
        first, rest = text.split("\n", 1)
        assert first == f"// {name}"
        assert rest == (ROOT / "queries" / "audit" / f"{name}.cypher").read_text()


def test_post_connect_runs_the_style_then_the_guide() -> None:
    base = "http://127.0.0.1:7474"
    commands = [c.strip() for c in post_connect_cmd(base).split(";")]
    assert commands == [f"style {base}{STYLE_PATH}", f"play {base}{GUIDE_PATH}"]


def _browser_allows(url: str, allowlist: str) -> bool:
    """Neo4j Browser 5's hostIsAllowed: the host name, alone or with its protocol."""
    parsed = urllib.parse.urlsplit(url)
    allowed = [entry.strip().rstrip("/") for entry in allowlist.split(",")]
    return allowlist == "*" or bool(
        {parsed.hostname, f"{parsed.scheme}://{parsed.hostname}"} & set(allowed)
    )


@pytest.mark.neo4j
@local_only
def test_style_and_guide_are_served_and_applied_on_connect(settings: Settings) -> None:
    status = LocalServer(settings).status()
    base = f"http://127.0.0.1:{settings.http_port}"
    assert status.style == base + STYLE_PATH and status.guide == base + GUIDE_PATH
    # Static and public, like the Browser's own files (the Browser fetches them without
    # credentials), and the very files of the sources.
    code, _, style = _http(status.style)
    assert code == 200 and parse_grass(style) == _style()
    code, kind, guide = _http(status.guide)
    assert code == 200 and kind.startswith("text/html")
    assert guide == resource(GUIDE_PATH).read_text(encoding="utf-8")
    with urllib.request.urlopen(base + FAVORITES_PATH, timeout=30) as response:  # noqa: S310
        assert response.status == 200 and _zip_files(response.read()) == favorite_files()
    # The Browser reads its settings with dbms.clientConfig() once connected.
    with Graph.connect(settings) as graph:
        rows = graph._driver.execute_query("CALL dbms.clientConfig()").records
    config = {row["name"]: row["value"] for row in rows}
    assert config["browser.post_connect_cmd"] == post_connect_cmd(base)
    allowlist = config["browser.remote_content_hostname_whitelist"]
    assert _browser_allows(status.style, allowlist) and _browser_allows(status.guide, allowlist)
    assert not _browser_allows("https://guides.neo4j.com/intro", allowlist)
    # The Browser's own page is still the one served.
    code, _, page = _http(status.browser or "")
    assert code == 200 and "<title>Neo4j Browser</title>" in page


@pytest.mark.usefixtures("cli_env")
@pytest.mark.neo4j
@local_only
def test_cli_status_names_the_style_and_the_guide(settings: Settings) -> None:
    shown = json.loads(CliRunner().invoke(cli, ["neo4j", "status", "--json"]).stdout)
    base = f"http://127.0.0.1:{settings.http_port}"
    assert shown["style"] == base + STYLE_PATH and shown["guide"] == base + GUIDE_PATH


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
