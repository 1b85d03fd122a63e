"""What the graph holds, in four tables (``kgverify summary``): releases, concepts per
vocabulary, relationships per type, patient facts per kind (``queries/summary/``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from kgverify.graph.driver import Graph

Rows = list[dict[str, Any]]


class GraphSummary(BaseModel):
    """The rows of each ``queries/summary/`` table, as the queries return them."""

    releases: Rows = Field(description="every release: status, mode, rows read and rejected")
    concepts: Rows = Field(description="per vocabulary: active and retired concepts")
    relationships: Rows = Field(description="per relationship type: how many")
    facts: Rows = Field(description="patient facts per kind")


def read_summary(graph: Graph) -> GraphSummary:
    """The four tables, read now."""
    return GraphSummary(
        releases=graph.read("summary/releases"),
        concepts=graph.read("summary/concepts_by_vocab"),
        relationships=graph.read("summary/relationships_by_type"),
        facts=graph.read("summary/facts_by_kind"),
    )
