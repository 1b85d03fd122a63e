"""The rule table and the pieces of the verdict logic that need no graph."""

from __future__ import annotations

import dataclasses
import re

import pytest

from kgverify.extract.relation import Predicate
from kgverify.graph.model import RelType
from kgverify.graph.queries import get_query, list_queries
from kgverify.verify.model import VerdictKind
from kgverify.verify.rules import (
    CLIMB_TYPES,
    CONTRADICT,
    EVIDENCE_TYPES,
    NORMALIZATION_TYPES,
    RULES,
    SUPPORT,
    SUPPORT_TYPES,
    UNREAD_TYPES,
    Rule,
)
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

    direct = next(rule for rule in RULES if rule.name == "direct")
    before = direct.version
    edited = dataclasses.replace(get_query("verify/direct"), text="MATCH (n) RETURN n")
    monkeypatch.setattr(rules, "get_query", lambda name: edited)
    assert direct.version != before


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


# -- the relationship types each statement walks (rules.py: why they are written out) -------

_REL = re.compile(r"-\[([^\]]*)\]-")
_REL_PARTS = re.compile(r"\s*(\w*)\s*(?::\s*([A-Z_|\s]+?))?\s*(\*[\d.\s]*)?\s*(\{.*\})?\s*", re.S)
_BARE_REL = re.compile(r"\)\s*<?--\s*>?\s*\(")  # (a)--(b), (a)-->(b)


def relationship_patterns(name: str) -> list[tuple[str, frozenset[str] | None]]:
    """(variable, types or None when untyped) of every relationship pattern in a statement,
    comments left out."""
    text = re.sub(r"//[^\n]*", "", get_query(name).text)
    found: list[tuple[str, frozenset[str] | None]] = []
    for m in _REL.finditer(text):
        parts = _REL_PARTS.fullmatch(m.group(1))
        assert parts is not None, f"{name}: unparsed relationship pattern [{m.group(1)}]"
        types = parts.group(2)
        found.append(
            (parts.group(1), frozenset(t.strip() for t in types.split("|")) if types else None)
        )
    found += [("", None) for _ in _BARE_REL.finditer(text)]
    return found


def types_of(name: str, variable: str) -> set[frozenset[str] | None]:
    return {types for var, types in relationship_patterns(name) if var == variable}


def values(types: frozenset[RelType]) -> frozenset[str]:
    return frozenset(t.value for t in types)


def test_every_relationship_type_is_placed_in_exactly_one_walk_set() -> None:
    sets = (EVIDENCE_TYPES, NORMALIZATION_TYPES, CLIMB_TYPES, UNREAD_TYPES)
    assert sum(len(s) for s in sets) == len(set().union(*sets)), "a type is in two sets"
    assert set().union(*sets) == set(RelType), "a RelType is in no walk set"


def test_each_rule_names_exactly_the_evidence_types_the_tables_can_use() -> None:
    for rule in RULES:
        assert types_of(rule.query, "r") == {values(EVIDENCE_TYPES)}, rule.name


def test_enrichment_names_exactly_the_support_types() -> None:
    assert types_of("verify/enrich", "r") == {values(SUPPORT_TYPES)}
    assert types_of("verify/enrich", "r2") == {values(SUPPORT_TYPES)}


def test_rules_walk_only_typed_vocabulary_relationships() -> None:
    readable = values(EVIDENCE_TYPES | NORMALIZATION_TYPES | CLIMB_TYPES)
    # Enrichment's patient step reads the patient's own facts, starting from the patient.
    own_facts = {"verify/patient_codes": frozenset({"HAS_FACT", "CODED_AS"})}
    checked = ["verify/enrich", "verify/patient_codes", "verify/hub_concepts"]
    for name in [rule.query for rule in RULES] + checked:
        allowed = readable | own_facts.get(name, frozenset())
        for var, types in relationship_patterns(name):
            assert types is not None, f"{name}: untyped relationship pattern ({var})"
            assert types <= allowed, f"{name}: {sorted(types - allowed)}"
    # Normalization steps are one list wherever the subject is normalized.
    for name in ("verify/ingredient", "verify/enrich"):
        steps = {t for _, t in relationship_patterns(name) if t and t & values(NORMALIZATION_TYPES)}
        assert steps == {values(NORMALIZATION_TYPES)}, name


@pytest.mark.parametrize(
    "name",
    [n for n in list_queries() if n.startswith(("verify/", "derive/", "reverify/mark_reach"))],
)
def test_no_untyped_relationship_pattern(name: str) -> None:
    untyped = [var for var, types in relationship_patterns(name) if types is None]
    assert not untyped, f"{name}: untyped relationship patterns {untyped}"


# Re-verification's reach walks against the rules' declared walks, step by step, side and
# bound: tests/unit/test_rule_walks.py.
