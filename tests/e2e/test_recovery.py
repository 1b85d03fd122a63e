"""A JVM killed mid-write (SIGKILL) recovers on the next start, and the start says so.

A private server (its own home and port; the session's server is left alone): writes in
acknowledged transactions, a kill while one is in flight, a start that replays the log.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from neo4j.exceptions import Neo4jError, ServiceUnavailable, SessionExpired

from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.graph import Graph
from kgverify.server import LocalServer
from tests.conftest import free_port

pytestmark = [
    pytest.mark.neo4j,
    pytest.mark.slow,
    pytest.mark.skipif(bool(os.environ.get("NEO4J_URI")), reason="external server in use"),
]

ROWS = 2000  # nodes per transaction: a kill lands inside one


def _write_until_killed(graph: Graph, acknowledged: list[int], stop: threading.Event) -> None:
    """Autocommit transactions (no driver retries), each a Tick and its ROWS nodes."""
    with graph._driver.session(database="neo4j") as session:
        tick = 0
        while not stop.is_set():
            try:
                session.run(
                    "UNWIND range(1, $rows) AS x CREATE (:Row {tick: $tick, x: x}) "
                    "WITH count(*) AS written CREATE (:Tick {n: $tick, rows: written})",
                    rows=ROWS,
                    tick=tick,
                ).consume()
            except (ServiceUnavailable, SessionExpired, Neo4jError, OSError):
                return
            acknowledged.append(tick)
            tick += 1


def _env(settings: Settings) -> dict[str, str]:
    return {
        "KGVERIFY_NEO4J_HOME": str(settings.local_home),
        "KGVERIFY_BOLT_PORT": str(settings.bolt_port),
        "KGVERIFY_CACHE_DIR": str(settings.cache_dir),
    }


def test_a_killed_server_recovers_every_acknowledged_write(tmp_path: Path) -> None:
    # Not the session's server: the shared cache only for the Maven build, as conftest does.
    private = Settings(
        neo4j_home=tmp_path / "neo4j",
        bolt_port=free_port(),
        neo4j_heap="512m",
        neo4j_pagecache="128m",
        start_timeout_s=180.0,
        cache_dir=Settings().cache_dir,
    )
    server = LocalServer(private)
    try:
        first = server.start()
        assert first.pid is not None
        acknowledged: list[int] = []
        stop = threading.Event()
        graph = Graph.connect(private)
        writer = threading.Thread(
            target=_write_until_killed, args=(graph, acknowledged, stop), daemon=True
        )
        writer.start()
        deadline = time.monotonic() + 120
        while len(acknowledged) < 10 and writer.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(first.pid, signal.SIGKILL)
        writer.join(timeout=60)
        stop.set()
        graph.close()
        assert len(acknowledged) >= 10, "the writer stopped before the kill"
        last = acknowledged[-1]

        # Launched as `neo4j start` would, then seen as starting and waited for by a second
        # start, which must attach to it rather than launch another JVM on the same store.
        proc = server._launch()
        # Right after the fork the child is not java yet (its /proc cmdline is still
        # Python's): wait for the exec before asking, as a second `start` would see it.
        exec_deadline = time.monotonic() + 10
        while not server._alive(proc.pid) and time.monotonic() < exec_deadline:
            time.sleep(0.01)
        during = server.status()
        assert during.starting and not during.running and during.pid == proc.pid
        status = CliRunner().invoke(cli, ["neo4j", "status"], env=_env(private))
        assert status.exit_code == 1 and f"not answering yet (pid {proc.pid}" in status.stdout
        said: list[str] = []
        again = server.start(on_progress=said.append)
        assert again.running and again.pid == proc.pid != first.pid
        assert again.password_file == str(server.password_file)
        # The start read the replay in debug.log and told each step, ending with completion.
        assert said and said[-1].startswith("database recovery completed (")
        assert "neo4j done" in said[-1]
        assert all(m.startswith("database recovery ") for m in said)

        with Graph.connect(private) as after:
            rows = after._driver.execute_query(
                "MATCH (t:Tick) OPTIONAL MATCH (r:Row {tick: t.n}) "
                "RETURN t.n AS n, t.rows AS rows, count(r) AS found ORDER BY n"
            ).records
            orphans = after._driver.execute_query(
                "MATCH (r:Row) WHERE NOT EXISTS { MATCH (:Tick {n: r.tick}) } RETURN count(r) AS c"
            ).records[0]["c"]
        ticks = [r["n"] for r in rows]
        # Every acknowledged transaction survived; the one in flight is whole or absent.
        assert ticks[: last + 1] == list(range(last + 1))
        assert ticks in (list(range(last + 1)), list(range(last + 2)))
        assert all(r["rows"] == ROWS and r["found"] == ROWS for r in rows)
        assert orphans == 0
    finally:
        server.stop()
    assert not server.status().running
