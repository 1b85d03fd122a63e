"""A batched read that outgrows the server's transaction memory is split, not lost.

A second local server runs here with a small per-transaction limit (the launcher's
``--transaction-memory``, i.e. ``db.memory.transaction.max``; Neo4j Community cannot change
it at run time). Enrichment's read of the patients' own concepts keeps each distinct
patient id of its rows in memory, so rows with long ids need more memory together than the
limit allows, and one row alone fits.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kgverify.config import Settings
from kgverify.errors import ConfigError, TransactionMemoryError
from kgverify.graph import Graph, ensure_schema
from kgverify.server import LocalServer
from tests.conftest import free_port


@pytest.fixture(scope="module")
def small_graph(tmp_path_factory: pytest.TempPathFactory, settings: Settings) -> Iterator[Graph]:
    s = Settings(
        neo4j_home=tmp_path_factory.mktemp("small-neo4j"),
        bolt_port=free_port(),
        http_port=0,
        neo4j_heap="512m",
        neo4j_pagecache="64m",
        neo4j_transaction_memory="8m",
        cache_dir=settings.cache_dir,
    )
    server = LocalServer(s)
    server.start()
    try:
        with Graph.connect(s) as g:
            ensure_schema(g)
            yield g
    finally:
        server.stop()


def rows(count: int, id_length: int) -> list[dict[str, object]]:
    return [{"patient_id": f"{i}:" + "p" * id_length} for i in range(count)]


CODES = "verify/patient_codes"


def test_a_read_too_large_for_one_transaction_is_split(small_graph: Graph) -> None:
    batch = rows(64, 200_000)
    with pytest.raises(TransactionMemoryError) as caught:
        small_graph.read(CODES, rows=batch)
    assert "\n" not in str(caught.value)
    assert CODES in str(caught.value)
    # Split in halves until each part fits: every row is read (no patient exists, so each
    # comes back with no codes; the point is that no part fails).
    found = small_graph.read_rows(CODES, batch)
    assert [r["patient_id"] for r in found] == [r["patient_id"] for r in batch]
    assert all(r["codes"] == [] for r in found)


def test_one_row_that_does_not_fit_is_one_clear_error(small_graph: Graph) -> None:
    with pytest.raises(TransactionMemoryError, match="KGVERIFY_NEO4J_HEAP"):
        small_graph.read_rows(CODES, rows(1, 6_000_000))


def test_a_bad_size_is_one_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="KGVERIFY_NEO4J_TRANSACTION_MEMORY='lots'"):
        Settings(neo4j_home=tmp_path, neo4j_transaction_memory="lots")
