"""The project's own Neo4j: started by the session, loopback only, owner-only password."""

from __future__ import annotations

import json
import os
import stat
import subprocess

import pytest
from click.testing import CliRunner

from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.errors import ServerError
from kgverify.graph import Graph
from kgverify.server import LocalServer
from kgverify.server.local import MAIN_CLASS, classpath, ensure_built
from tests.conftest import free_port

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.skipif(bool(os.environ.get("NEO4J_URI")), reason="external server in use"),
]


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


def test_running_on_loopback_with_apoc(settings: Settings) -> None:
    status = LocalServer(settings).status()
    assert status.running and status.uri == f"bolt://127.0.0.1:{settings.bolt_port}"
    assert status.apoc and status.apoc.startswith("5.26")
    loopback = {"0100007F", "0000000000000000FFFF00000100007F"}  # 127.0.0.1 (v4 or v4-mapped)
    listening = _listening(settings.bolt_port)
    assert listening and listening <= loopback


def test_start_twice_is_a_no_op(settings: Settings) -> None:
    server = LocalServer(settings)
    before = server.status()
    again = server.start()
    assert again.pid == before.pid


def test_password_is_generated_and_owner_only(settings: Settings) -> None:
    server = LocalServer(settings)
    mode = stat.S_IMODE(server.password_file.stat().st_mode)
    assert mode == 0o600
    assert stat.S_IMODE(server.home.stat().st_mode) == 0o700
    password = server.password()
    assert len(password) >= 24 and password != "neo4j"
    assert password not in server.log_file.read_text(errors="replace")


def test_a_second_server_on_the_same_store_fails_clearly(settings: Settings) -> None:
    server = LocalServer(settings)
    build = ensure_built(settings)
    done = subprocess.run(
        [
            "java",
            "-cp",
            classpath(build),
            MAIN_CLASS,
            "--home",
            str(server.data_home),
            "--bolt-port",
            str(free_port()),
            "--password-file",
            str(server.password_file),
            "--plugins",
            str(build / "plugins"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors and "Exception" not in done.stderr.split("error:", 1)[0]


def test_port_in_use_is_one_clear_error(
    settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> None:
    other = settings.model_copy(update={"neo4j_home": tmp_path_factory.mktemp("clash")})
    with pytest.raises(ServerError, match=str(settings.bolt_port)):
        LocalServer(other).start()
    assert not LocalServer(other).status().running


def test_stop_then_start_keeps_the_data(settings: Settings, graph: Graph) -> None:
    graph._driver.execute_query("CREATE (:Probe {kept: 'yes'})")
    server = LocalServer(settings)
    assert server.stop() is True
    assert not server.status().running
    server.start()
    with Graph.connect(settings) as again:
        rows = again._driver.execute_query("MATCH (p:Probe) RETURN p.kept AS kept").records
        assert [r["kept"] for r in rows] == ["yes"]
        again._driver.execute_query("MATCH (p:Probe) DELETE p")


@pytest.mark.usefixtures("cli_env")
def test_cli_status_json() -> None:
    result = CliRunner().invoke(cli, ["neo4j", "status", "--json"])
    assert result.exit_code == 0 and '"running": true' in result.stdout


@pytest.mark.usefixtures("cli_env")
def test_cli_start_and_status_name_the_password_file(settings: Settings) -> None:
    path = str(LocalServer(settings).password_file)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    start = CliRunner().invoke(cli, ["neo4j", "start"])
    assert start.exit_code == 0 and f"user neo4j, password in {path}" in start.stdout
    assert "NEO4J_URI" not in start.stdout
    for command in ("start", "status"):
        result = CliRunner().invoke(cli, ["neo4j", command, "--json"])
        shown = json.loads(result.stdout)
        assert shown["password_file"] == path and shown["neo4j_uri"] is None, command
    status = CliRunner().invoke(cli, ["neo4j", "status"])
    assert status.exit_code == 0 and f"password in {path}" in status.stdout


@pytest.mark.usefixtures("cli_env")
def test_cli_says_when_commands_use_an_external_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example.org:7687")
    monkeypatch.setenv("NEO4J_PASSWORD", "not-this-servers")
    note = "NEO4J_URI is set, so kgverify commands use bolt://db.example.org:7687"
    for command in ("start", "status"):
        result = CliRunner().invoke(cli, ["neo4j", command])
        assert result.exit_code == 0 and note in result.stdout, command
    shown = json.loads(CliRunner().invoke(cli, ["neo4j", "status", "--json"]).stdout)
    assert shown["neo4j_uri"] == "bolt://db.example.org:7687"
