"""What the graph holds and how to look at it: ``graph_summary``, ``runs`` and
``diff_runs`` (docs/runs.md), ad-hoc ``cypher`` (docs/graph-browser.md)."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from kgverify.api.bookkeeping import graph_of
from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.graph.driver import AdhocResult, Graph

if TYPE_CHECKING:
    from kgverify.graph.queries import Query
    from kgverify.graph.summary import GraphSummary
    from kgverify.runs import RunDiff, RunRecord


def graph_summary(settings: Settings | None = None, graph: Graph | None = None) -> GraphSummary:
    """What the graph holds, as ``kgverify summary`` shows it.

    Releases, concept counts per vocabulary, relationship counts per type and patient facts
    per kind, each a list of rows.

    >>> summary = graph_summary()
    >>> summary.concepts[0]["vocab"], summary.relationships[0]["type"]
    """
    from kgverify.graph.summary import read_summary

    with graph_of(settings or Settings(), graph) as g:
        return read_summary(g)


def runs(
    settings: Settings | None = None, graph: Graph | None = None, *, limit: int = 100
) -> list[RunRecord]:
    """The runs the graph holds, newest first (docs/runs.md).

    Each with its source, times, settings hash, patients and the items derived from them.

    >>> [(r.id, r.patients, r.items) for r in runs()]
    """
    from kgverify.runs import list_runs

    with graph_of(settings or Settings(), graph) as g:
        return list_runs(g, limit)


def diff_runs(
    a: str, b: str, settings: Settings | None = None, graph: Graph | None = None
) -> RunDiff:
    """Two runs compared: the figures that differ, and how their patients and items overlap.

    An id the graph does not hold is one :class:`~kgverify.errors.ConfigError` line.

    >>> first, second = runs()[1].id, runs()[0].id
    >>> diff = diff_runs(first, second)
    >>> diff.differences, diff.items.only_b
    """
    from kgverify.runs import diff_runs as compare

    with graph_of(settings or Settings(), graph) as g:
        return compare(g, a, b)


_INT = re.compile(r"[+-]?(0|[1-9]\d*)")  # "007" stays a string

_FLOAT = re.compile(r"[+-]?((0|[1-9]\d*)(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def cypher_param(text: str) -> tuple[str, Any]:
    """One ``KEY=VALUE`` of ``kgverify cypher -p``, the value typed.

    ``true``/``false`` (booleans), ``null``, integers (not ``007``), decimals (``1.5``,
    ``1e-3``), JSON lists, maps and quoted strings (``[1, 2]``, ``{"a": 1}``, ``"42"``);
    anything else is a string.

    >>> cypher_param("limit=5"), cypher_param('ids=["a", "b"]'), cypher_param("code=007")
    (('limit', 5), ('ids', ['a', 'b']), ('code', '007'))
    >>> cypher_param('code="42"'), cypher_param("name=type 2 diabetes")
    (('code', '42'), ('name', 'type 2 diabetes'))
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"a parameter is KEY=VALUE, got {text!r}")
    value = raw.strip()
    lowered = value.lower()
    if lowered in ("true", "false"):
        return key, lowered == "true"
    if lowered == "null":
        return key, None
    if _INT.fullmatch(value):
        return key, int(value)
    if _FLOAT.fullmatch(value):
        return key, float(value)
    if value[:1] in ("[", "{", '"'):
        try:
            return key, json.loads(value)
        except ValueError as exc:
            raise ConfigError(f"parameter {key}: {value[:40]!r} is not valid JSON ({exc})") from exc
    return key, raw


def cypher(
    statement: str,
    params: dict[str, Any] | None = None,
    *,
    write: bool = False,
    max_rows: int = 0,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> AdhocResult:
    """Run one ad-hoc Cypher statement (``kgverify cypher``) in a managed transaction.

    A read transaction, or a write one with ``write=True``; a write in a read transaction
    is refused (nothing changes) with a :class:`~kgverify.errors.QueryError`, as is a
    statement Neo4j rejects.

    The engine's own statements are named queries in ``queries/``; this is for looking at
    the graph while auditing it.

    >>> result = cypher("MATCH (c:Concept) RETURN c.id, c.name LIMIT $n", {"n": 5})
    >>> result.columns, len(result.rows)
    (['c.id', 'c.name'], 5)
    """
    if not statement.strip():
        raise ConfigError("the Cypher statement is empty")
    with graph_of(settings or Settings(), graph) as g:
        return g.run_adhoc(statement, params or {}, write=write, max_rows=max_rows)


class GraphReset(BaseModel):
    """What ``reset_graph`` did (``kgverify graph reset --json``)."""

    emptied: bool
    database: str


def reset_graph(*, settings: Settings | None = None, graph: Graph | None = None) -> GraphReset:
    """Delete every node and relationship of the database (the schema stays)."""
    from kgverify.graph.schema import delete_all

    settings = settings or Settings()
    with graph_of(settings, graph) as g:
        delete_all(g)
    return GraphReset(emptied=True, database=settings.neo4j_database)


def named_queries() -> list[Query]:
    """Every named Cypher statement of ``queries/`` (``kgverify queries``), by name."""
    from kgverify.graph.queries import get_query, list_queries

    return [get_query(name) for name in list_queries()]


def named_query(name: str) -> Query:
    """One named Cypher statement with its description, parameters and text.

    Raises:
        QueryError: no statement of that name.
    """
    from kgverify.graph.queries import get_query

    return get_query(name)
