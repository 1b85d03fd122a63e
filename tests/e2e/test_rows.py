"""Rows of named queries are the records as the driver decoded them (no ``Record.data()``
copy); the test suite holds every named query it reaches to returning values only
(``strict_rows``, set for the whole session in tests/conftest.py)."""

from __future__ import annotations

import neo4j
import pytest

from kgverify.config import Settings
from kgverify.errors import QueryError
from kgverify.graph import Graph
from kgverify.graph.connection import resolve_connection
from kgverify.graph.driver import plain_rows

pytestmark = pytest.mark.neo4j


def test_the_suite_runs_with_strict_rows(settings: Settings, graph: Graph) -> None:
    assert settings.strict_rows and graph.strict_rows


def test_values_pass_and_entities_are_refused(settings: Settings, graph: Graph) -> None:
    uri, user, password = resolve_connection(settings)
    with (
        neo4j.GraphDatabase.driver(uri, auth=(user, password)) as driver,
        driver.session(database=settings.neo4j_database) as session,
    ):
        session.run("CREATE (:Probe {id: 'p1', names: ['a', 'b']})").consume()
        try:
            values = list(
                session.run(
                    "MATCH (n:Probe) RETURN n.id AS id, {names: n.names, more: [{x: 1}]} AS m"
                )
            )
            assert plain_rows("probe", values, strict=True) == [
                {"id": "p1", "m": {"names": ["a", "b"], "more": [{"x": 1}]}}
            ]
            # The same rows Record.data() gives, for values.
            assert plain_rows("probe", values) == [r.data() for r in values]
            nested = list(session.run("MATCH (n:Probe) RETURN n.id AS id, {of: [n]} AS m"))
            with pytest.raises(QueryError, match="probe returned a node, relationship or path"):
                plain_rows("probe", nested, strict=True)
            assert plain_rows("probe", nested)  # not checked outside the suite
        finally:
            session.run("MATCH (n:Probe) DELETE n").consume()
