"""The rule table and the pieces of the verdict logic that need no graph."""

from __future__ import annotations

import dataclasses

import pytest

from kgverify.extract.relation import Predicate
from kgverify.graph.model import RelType
from kgverify.graph.queries import get_query
from kgverify.verify.model import VerdictKind
from kgverify.verify.rules import CONTRADICT, RULES, SUPPORT, Rule
from kgverify.verify.verifier import FilterPolicy, lay_synonyms


def test_every_rule_is_a_query_with_a_stable_distinct_version() -> None:
    versions = set()
    for rule in RULES:
        query = get_query(rule.query)
        assert {"rows", "specs", "max_paths"} <= set(query.params), rule.name
        assert "predicate" in query.description.lower() or "Serves" in query.description
        assert len(rule.version) == 12
        versions.add(rule.version)
    assert len(versions) == len(RULES)


def test_a_changed_rule_text_changes_its_version(monkeypatch: pytest.MonkeyPatch) -> None:
    import kgverify.verify.rules as rules

    before = Rule("direct", 0).version
    edited = dataclasses.replace(get_query("verify/direct"), text="MATCH (n) RETURN n")
    monkeypatch.setattr(rules, "get_query", lambda name: edited)
    assert Rule("direct", 0).version != before


def test_edge_tables_use_only_the_fixed_types_and_cover_every_predicate() -> None:
    assert set(SUPPORT) == set(CONTRADICT) == set(Predicate)
    for table in (SUPPORT, CONTRADICT):
        for specs in table.values():
            for spec in specs:
                assert isinstance(spec.type, RelType) and 0 < spec.weight <= 1
    param = Rule.specs()
    assert {s["stance"] for s in param["treats"]} == {"support", "contradict"}
    assert all(s["type"] in {t.value for t in RelType} for v in param.values() for s in v)


def test_filter_policy() -> None:
    policy = FilterPolicy(
        accept=frozenset({VerdictKind.SUPPORTED}), min_score=0.5, min_confidence=0.3
    )
    assert policy.passes(VerdictKind.SUPPORTED, 0.85, 0.9)
    assert not policy.passes(VerdictKind.SUPPORTED, 0.4, 0.9)
    assert not policy.passes(VerdictKind.SUPPORTED, 0.9, 0.2)
    assert not policy.passes(VerdictKind.UNSUPPORTED, 1.0, 1.0)


def test_lay_synonyms_are_short_plain_and_not_the_preferred_name() -> None:
    names = [
        ["Myocardial infarction", "MI", "heart attack", "Infarction, myocardial"],
        ["Myocardial infarction (disorder)", "Heart attack", "cardiac infarction"],
    ]
    assert lay_synonyms(names, "Myocardial infarction") == ["Heart attack", "cardiac infarction"]
