"""Everything that talks to Neo4j: the driver wrapper, named queries, schema, graph model."""

from kgverify.graph.driver import Graph, batched
from kgverify.graph.model import Kind, RelType, Vocab
from kgverify.graph.queries import Query, get_query, list_queries
from kgverify.graph.schema import delete_all, ensure_schema

__all__ = [
    "Graph",
    "Kind",
    "Query",
    "RelType",
    "Vocab",
    "batched",
    "delete_all",
    "ensure_schema",
    "get_query",
    "list_queries",
]
