"""Constraints and indexes: every file under ``queries/schema/``, in name order, idempotent."""

from __future__ import annotations

from kgverify.graph.driver import Graph
from kgverify.graph.queries import list_queries


def ensure_schema(graph: Graph) -> list[str]:
    """Create the constraints and indexes that do not exist yet; return the queries run."""
    names = [n for n in list_queries() if n.startswith("schema/")]
    for name in names:
        graph.write_autocommit(name)
    return names


def delete_all(graph: Graph) -> None:
    """Remove every node and relationship (schema stays): the relationships first, so no
    transaction holds a high-degree node's relationships at once."""
    graph.write_autocommit("admin/delete_relationships")
    graph.write_autocommit("admin/delete_all")
