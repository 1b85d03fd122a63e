"""The planner's view of the verification and derivation statements in the real Neo4j: no
expansion may read relationships of every type. An untyped pattern (`MATCH (s)-[r]-(o)`
then a type filter) reads every patient-fact (CODED_AS) and provenance edge on a concept,
so the cost of a relation grows with the graph's patients and assertions (issue 18);
Neo4j names the types an operator expands in its `Details`, so a future untyped pattern
fails here whatever the statement's text looks like."""

from __future__ import annotations

import re
from typing import Any

import pytest

from kgverify.graph import Graph
from kgverify.graph.queries import get_query, list_queries
from kgverify.verify.rules import RULES, Rule

pytestmark = pytest.mark.neo4j

STATEMENTS = [rule.query for rule in RULES] + [
    n
    for n in list_queries()
    if n.startswith(("verify/", "derive/", "reverify/mark_reach", "dialogue/", "audit/dialogue_"))
    and n not in {r.query for r in RULES}
]
"""Every rule, then every other verification and derivation statement, re-verification's
rule walks, and the dialogue checker's statements and audit queries."""

_EXPANDS = re.compile(r"Expand|ShortestPath|AllRelationships|RelationshipTypeScan")
_REL = re.compile(r"-\[([^\]]*)\]-")

_VALUES: dict[str, Any] = {
    "specs": Rule.specs(),
    "hubs": {},
    **{key: [] for key in ("rows", "ids", "extra", "kinds", "releases", "patients", "tasks")},
    **dict.fromkeys(["run", "role", "namespace", "after", "root"], "x"),
    **dict.fromkeys(["limit", "max_depth", "max_paths", "distractors", "depth"], 1),
    "min_children": 200,
    "decay": 0.85,
}
"""Parameter values to plan with (nothing runs); any other parameter is planned as null."""


def plan(graph: Graph, name: str) -> dict[str, Any]:
    """The EXPLAIN plan (nothing runs) in an auto-commit transaction, which statements with
    CALL ... IN TRANSACTIONS need."""
    query = get_query(name)
    params = {p: _VALUES.get(p) for p in query.params}
    with graph._driver.session(database=graph.database) as session:
        summary = session.run(f"EXPLAIN {query.text}", params).consume()
    assert summary.plan is not None
    return dict(summary.plan)


def expansions(node: dict[str, Any]) -> list[tuple[str, str]]:
    """(operator, details) of every operator that follows or scans relationships."""
    found = []
    operator = str(node.get("operatorType", ""))
    if _EXPANDS.search(operator):
        details = node.get("args", node.get("arguments", {})).get("Details", "")
        found.append((operator, str(details)))
    for child in node.get("children", []):
        found += expansions(child)
    return found


def untyped(operator: str, details: str) -> bool:
    """True when the operator reads relationships of any type: a scan of all relationships,
    or a relationship pattern in its details without a type."""
    if "AllRelationships" in operator:
        return True
    patterns = _REL.findall(details)
    return not patterns or any(":" not in p for p in patterns)


@pytest.mark.parametrize("name", STATEMENTS)
def test_no_expansion_reads_every_relationship_type(graph: Graph, name: str) -> None:
    found = expansions(plan(graph, name))
    bad = [f"{op}: {details}" for op, details in found if untyped(op, details)]
    assert not bad, f"{name} expands untyped relationships: {bad}"


def test_the_rules_plans_do_expand(graph: Graph) -> None:
    # The check above reads the operators' details: make sure there are some to read.
    for rule in RULES:
        found = expansions(plan(graph, rule.query))
        assert any("MAY_TREAT" in details for _, details in found), rule.name
