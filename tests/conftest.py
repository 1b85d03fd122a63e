"""Test session set-up: one real Neo4j for the whole session.

With NEO4J_URI set, the tests use that server (its database is wiped per module!). Without
it, the session builds and starts the project's own local Neo4j on a free port with a fresh
data folder, and stops it at the end. Nothing is mocked.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from kgverify.config import Settings, use_config_file
from kgverify.graph import Graph, delete_all, ensure_schema
from kgverify.server import LocalServer

# Every named query the suite reaches must return values only (kgverify.graph.driver,
# plain_rows); set before any Settings is read, so CLI runs in the tests inherit it.
os.environ["KGVERIFY_STRICT_ROWS"] = "1"

SAMPLE = Path(__file__).resolve().parents[1] / "kgverify" / "sample"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(autouse=True)
def _no_config_file_left_behind() -> Iterator[None]:
    """``kgverify --config`` sets the process's config file (``use_config_file``); a CLI test
    run in-process must not hand it to the tests after it."""
    yield
    use_config_file(None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings pointing at the session's Neo4j (started here unless NEO4J_URI is set)."""
    if os.environ.get("NEO4J_URI"):
        yield Settings()
        return
    home = tmp_path_factory.mktemp("neo4j-home")
    # Rejects and bulk CSVs go to a temporary cache; the Maven build stays shared.
    cache = Settings().cache_dir
    s = Settings(
        neo4j_home=home,
        bolt_port=free_port(),
        http_port=free_port(),
        neo4j_heap="768m",
        neo4j_pagecache="256m",
        cache_dir=cache,
    )
    server = LocalServer(s)
    server.start()
    try:
        yield s
    finally:
        server.stop()


@pytest.fixture(scope="session")
def fhir_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """Settings pointing at the session's local FHIR server (HAPI FHIR JPA, R4), started on
    first use with a fresh data folder and stopped at the end; skipped only where Java or
    Maven is missing."""
    import shutil

    from kgverify.server.fhir import LocalFhirServer

    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the local FHIR server needs Java 17 and Maven ({', '.join(missing)} missing)")
    s = Settings(
        fhir_home=tmp_path_factory.mktemp("fhir-home"),
        fhir_port=free_port(),
        fhir_heap="768m",
        cache_dir=Settings().cache_dir,  # the Maven build stays shared
    )
    server = LocalFhirServer(s)
    server.start()
    try:
        yield s
    finally:
        server.stop()


@pytest.fixture(scope="module")
def graph(settings: Settings) -> Iterator[Graph]:
    """A connection to an emptied database (once per test module)."""
    with Graph.connect(settings) as g:
        delete_all(g)
        ensure_schema(g)
        yield g


@pytest.fixture(scope="module")
def sample_settings(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The session's server with a cache of the module's own (linker indexes, rejects)."""
    return settings.model_copy(update={"cache_dir": tmp_path_factory.mktemp("cache")})


@pytest.fixture(scope="module")
def sample_graph(graph: Graph, sample_settings: Settings) -> Graph:
    """The module's emptied database with the three shipped sample releases loaded."""
    from kgverify.api import SAMPLE_RELEASES, load_vocabulary, sample_path

    for name, parts in SAMPLE_RELEASES.items():
        load_vocabulary(name, sample_path(*parts), settings=sample_settings, graph=graph)
    return graph


@pytest.fixture
def fresh_graph(graph: Graph) -> Graph:
    """The module's connection, emptied before this test."""
    delete_all(graph)
    return graph


@pytest.fixture
def cli_env(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Point the CLI (which reads the environment) at the test session's server."""
    monkeypatch.setenv("KGVERIFY_NEO4J_HOME", str(settings.local_home))
    monkeypatch.setenv("KGVERIFY_BOLT_PORT", str(settings.bolt_port))
    monkeypatch.setenv("KGVERIFY_CACHE_DIR", str(settings.cache_dir))
    return settings
