"""Faults a new user meets, against the real Neo4j: each is one `error:` line and exit 2, or a
rejected line with the rest of the run intact, and patient values stay out of the logs.

The server "dies mid-command" behind a TCP relay the test cuts, so the session's server
keeps running for the other tests."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgverify.api import sample_path
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.errors import GraphAuthError
from kgverify.graph import Graph
from kgverify.graph.connection import resolve_connection

pytestmark = pytest.mark.neo4j


def _kgverify(
    *args: str, env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kgverify", *args],
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _one_error_line(done: subprocess.CompletedProcess[str], expected: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
    assert expected in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


@pytest.fixture
def login_recovers(settings: Settings) -> Iterator[None]:
    """After a test that trips the login rate limit: wait until the right password works
    again (about 5 s), so later tests are not refused."""
    yield
    deadline = time.monotonic() + 30
    while True:
        try:
            Graph.connect(settings).close()
            return
        except GraphAuthError:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


@pytest.mark.usefixtures("login_recovers")
def test_the_login_rate_limit_is_one_clear_error(settings: Settings, graph: Graph) -> None:
    uri, _, _ = resolve_connection(settings)
    bad = Settings(NEO4J_URI=uri, NEO4J_PASSWORD="not-the-password")
    for _ in range(3):
        with pytest.raises(GraphAuthError):
            Graph.connect(bad)
    # The lock refuses the right password too: the message must not say it is wrong.
    with pytest.raises(GraphAuthError, match=r"refusing logins for user 'neo4j'.*retry in a few"):
        Graph.connect(settings)


@pytest.mark.usefixtures("login_recovers")
def test_the_cli_says_the_server_is_rate_limiting(settings: Settings, graph: Graph) -> None:
    uri, _, _ = resolve_connection(settings)
    env = {"NEO4J_URI": uri, "NEO4J_PASSWORD": "not-the-password"}
    for _ in range(3):
        with pytest.raises(GraphAuthError):
            Graph.connect(Settings(**env))
    # A lock that ran out while the process started is renewed by its failed login.
    seen = []
    for _ in range(3):
        done = _kgverify("summary", env=env)
        _one_error_line(done, f"Neo4j at {uri}")
        seen.append(done.stderr)
        if "refusing logins" in done.stderr:
            break
    assert "refusing logins" in seen[-1], seen


@pytest.mark.parametrize("text", ['a"b', "heart/valve", "NOT", "(", "\\", "Ménière ("])
def test_find_takes_any_text(graph: Graph, cli_env: Settings, text: str) -> None:
    result = CliRunner().invoke(cli, ["find", text, "--json"])
    assert result.exit_code == 0, result.output
    assert isinstance(json.loads(result.stdout), list)


@pytest.mark.parametrize("text", ["", "   "])
def test_find_without_text_is_one_clear_error(graph: Graph, cli_env: Settings, text: str) -> None:
    result = CliRunner().invoke(cli, ["find", text])
    assert result.exit_code == 2
    assert result.stderr == "error: find: the search text is empty\n"


def _with_bad_byte(tmp_path: Path) -> Path:
    lines = sample_path("relations", "llm_style.jsonl").read_bytes().splitlines(keepends=True)
    lines = lines[:3]
    lines[1] = lines[1].replace(b'"text":"aspirin"', b'"text":"aspi\xffrin"', 1)
    path = tmp_path / "relations.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def test_link_and_verify_reject_a_line_that_is_not_utf8(
    sample_graph: Graph,
    sample_settings: Settings,
    cli_env: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(sample_settings.cache_dir))
    relations = _with_bad_byte(tmp_path)
    runs = {
        "link": ["link", str(relations), "-o", str(tmp_path / "linked.jsonl")],
        "verify": ["verify", str(relations), "-o", str(tmp_path / "verdicts.jsonl"), "--no-write"],
    }
    for name, args in runs.items():
        rejects = tmp_path / f"{name}.rejects.jsonl"
        result = CliRunner().invoke(cli, [*args, "--rejects", str(rejects), "--json"])
        assert result.exit_code == 3, result.output  # 1 of 3 rejected: over the share
        report = json.loads(result.stdout)
        done = report["linked_relations"] if name == "link" else report["verified"]
        assert (report["read"], report["rejected"], done) == (3, 1, 2)
        out = Path(args[3])
        assert len(out.read_text(encoding="utf-8").splitlines()) == 2
        [row] = [json.loads(line) for line in rejects.read_text(encoding="utf-8").splitlines()]
        assert (row["file"], row["line"]) == (str(relations), 2)
        assert row["reason"].startswith("invalid UTF-8: byte ")
        assert '"text":"aspi\ufffdrin"' in row["text"]


class CuttingRelay:
    """A TCP relay to the real server that drops every connection, and refuses new ones,
    once the client sends bytes holding ``marker``: to the client the server died."""

    def __init__(self, port: int, marker: bytes) -> None:
        self.target = port
        self.marker = marker
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.cut = threading.Event()
        self.tripped = False  # the marker was seen, not just the test ending
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.cut.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self._lock:
                self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, watch: bool) -> None:
        try:
            while data := src.recv(65536):
                if watch and self.marker in data:
                    self.tripped = True
                    self.kill()
                    return
                dst.sendall(data)
        except OSError:
            pass

    def kill(self) -> None:
        self.cut.set()
        self.listener.close()
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()


def test_a_server_dying_mid_command_prints_only_the_error_line(
    settings: Settings, graph: Graph
) -> None:
    uri, _, password = resolve_connection(settings)
    relay = CuttingRelay(int(uri.rsplit(":", 1)[1]), b"zzcuthere")
    try:
        env = {"NEO4J_URI": f"bolt://127.0.0.1:{relay.port}", "NEO4J_PASSWORD": password}
        # The driver retries for 15 s, logging each retry and the dead connection.
        done = _kgverify("find", "zzcuthere", env=env)
    finally:
        relay.kill()
    assert relay.tripped
    # It answered the connection check first: a server lost mid-run, not one never reached.
    _one_error_line(done, "stopped answering running summary/find_concepts_by_name")
    assert "cannot reach" not in done.stderr


def test_debug_logs_hold_no_statement_parameters(settings: Settings, graph: Graph) -> None:
    uri, _, password = resolve_connection(settings)
    env = {"NEO4J_URI": uri, "NEO4J_PASSWORD": password}
    secret = "zzpatientvalue"
    quiet = _kgverify("-vv", "find", secret, "--json", env=env)
    assert quiet.returncode == 0, quiet.stderr
    assert secret not in quiet.stderr
    loud = _kgverify("-vvv", "find", secret, "--json", env=env)
    assert loud.returncode == 0, loud.stderr
    assert "patient values included" in loud.stderr
    assert secret in loud.stderr  # the explicit opt-in does show the driver's traffic
