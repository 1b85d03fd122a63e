"""Every verification rule's Cypher walks what the rule declares (kgverify/verify/rules.py),
side and bound; re-verification's reach queries walk back exactly the cover of the rules'
walks on their side; every spelling of the drug normalization is the declared fragment.
Each check is proved to see a one-step change: the mutations below (issue 40) passed every
verification test before these checks existed."""

from __future__ import annotations

import dataclasses
import re

import pytest

from kgverify.config import Settings
from kgverify.graph.queries import get_query, list_queries
from kgverify.verify.rules import (
    CROSS,
    DRUG_NORMALIZATION,
    MAX_CLIMB,
    NORMALIZATION_TYPES,
    RULES,
    Rule,
    is_a_climb,
    reach,
)
from kgverify.verify.walks import Side, Walk, cover
from tests.unit.cypher_walks import Pattern, parse, walk_of

SIDES: tuple[Side, ...] = ("subject", "object")
# The statements that spell the drug normalization (one MAPS_TO step, the RxNorm steps, one
# MAPS_TO step); any other statement that names a normalization type is checked as well.
NORMALIZING = (
    "verify/ingredient",
    "verify/enrich",
    "reverify/mark_reach_subject",
    "derive/drug_profiles",
    "derive/concept_reach",
    "derive/coded_reach",
    "dialogue/reach",
)


def rule_problems(rule: Rule, text: str) -> list[str]:
    """How the rule's Cypher differs from its declared walks: from each side's anchor
    (``{id: row.<side>}``) one route to an end of the evidence edge ``r``, walking what the
    rule declares, and no relationship pattern off those routes."""
    pattern = parse(text)
    evidence = [rel for rel in pattern.rels if rel.var == "r"]
    if len(evidence) != 1:
        return [f"{rule.name}: {len(evidence)} evidence edges (r), not one"]
    ends = {evidence[0].start, evidence[0].end}
    problems: list[str] = []
    walked = {evidence[0]}
    for side in SIDES:
        routes = pattern.routes(pattern.anchor(f"row.{side}"), ends, skip={"r"})
        if len(routes) != 1:
            problems.append(f"{rule.name}: {len(routes)} routes from the {side} to r, not one")
            continue
        walked.update(rel for rel, _ in routes[0])
        found, declared = walk_of(routes[0]), rule.walk(side)
        if found.steps != declared.steps:
            problems.append(f"{rule.name}: the {side} walks {found}, declared {declared}")
    problems += [f"{rule.name}: {rel} is on no walk" for rel in pattern.rels if rel not in walked]
    return problems


def reach_problems(side: Side, text: str, rules: tuple[Rule, ...] = RULES) -> list[str]:
    """How ``reverify/mark_reach_<side>`` differs from the rules' walks on that side,
    covered and reversed: one route from the changed concept (``touched_by = $run``) to
    the concept it marks (``SET x.touched_as_<side>``)."""
    try:
        declared = reach(side, rules)
    except ValueError as e:
        return [f"no reach walk covers the rules' {side} walks: {e}"]
    pattern = parse(text)
    start = re.search(r"WHERE\s+(\w+)\.touched_by\s*=\s*\$run", text)
    marked = re.search(rf"SET\s+(\w+)\.touched_as_{side}\b", text)
    if start is None or marked is None:
        return [f"mark_reach_{side}: no changed concept or no marked one"]
    routes = pattern.routes(start.group(1), {marked.group(1)}, skip=set())
    if len(routes) != 1:
        return [f"mark_reach_{side}: {len(routes)} routes, not one"]
    found = walk_of(routes[0])
    if found.steps != declared.steps:
        return [f"mark_reach_{side} walks {found}; the rules' {side} walks need {declared}"]
    return []


def normalization_problems(name: str, text: str) -> list[str]:
    """Every relationship pattern naming a drug normalization type stands in a chain as the
    declared fragment (forwards, or backwards as re-verification walks it), with the RxNorm
    steps optional or not."""
    forms = {
        DRUG_NORMALIZATION.steps,
        (CROSS, DRUG_NORMALIZATION.steps[1].optional(), CROSS),
    }
    forms |= {Walk(f).reversed().steps for f in forms}
    names = {t.value for t in NORMALIZATION_TYPES}
    problems = []
    for chain in parse(text).chains:
        for at, rel in enumerate(chain):
            if not rel.types & names:
                continue
            window = chain[max(at - 1, 0) : at + 2]
            try:
                steps = tuple(r.step(True) for r in window)
            except ValueError:  # a type that is no vocabulary relationship
                steps = ()
            if steps not in forms:
                problems.append(f"{name}: {' '.join(map(str, window))} is not {DRUG_NORMALIZATION}")
    return problems


def rule_text(rule: Rule) -> str:
    return get_query(rule.query).text


# -- the tree as it is -----------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_each_rule_walks_what_it_declares(rule: Rule) -> None:
    assert rule_problems(rule, rule_text(rule)) == []


@pytest.mark.parametrize("side", SIDES)
def test_each_reach_query_walks_back_the_cover_of_the_rules_walks(side: Side) -> None:
    assert reach_problems(side, get_query(f"reverify/mark_reach_{side}").text) == []


def test_every_drug_normalization_is_the_declared_fragment() -> None:
    # A normalization type inside a relationship pattern's brackets, comments left out.
    typed = re.compile(rf"\[[^\]]*\b({'|'.join(t.value for t in NORMALIZATION_TYPES)})\b[^\]]*\]")
    code = {n: re.sub(r"//[^\n]*", "", get_query(n).text) for n in list_queries()}
    spelling = {n for n, text in code.items() if typed.search(text)}
    assert set(NORMALIZING) <= spelling
    for name in sorted(spelling):
        assert normalization_problems(name, get_query(name).text) == [], name


def test_the_climb_bound_is_the_settings_bound() -> None:
    [bound] = [m.le for m in Settings.model_fields["verify_max_depth"].metadata if hasattr(m, "le")]
    assert bound == MAX_CLIMB


def test_the_cover_of_walks() -> None:
    subject = cover(rule.subject_walk for rule in RULES)
    assert subject.steps == (CROSS, DRUG_NORMALIZATION.steps[1].optional(), CROSS)
    assert cover([is_a_climb(1), is_a_climb(0), Walk((CROSS,))]).steps == is_a_climb(0).steps
    with pytest.raises(ValueError, match="steps left out"):
        cover([DRUG_NORMALIZATION, is_a_climb(1)])


# -- one-step changes each check must see ----------------------------------------------------


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"{old!r} is not in the statement once"
    return text.replace(old, new)


def _rule(name: str) -> Rule:
    return next(r for r in RULES if r.name == name)


def _declared(name: str, side: Side, walk: Walk) -> tuple[Rule, ...]:
    """The rules with one rule's walk on one side declared otherwise."""

    def change(rule: Rule) -> Rule:
        if side == "subject":
            return dataclasses.replace(rule, subject_walk=walk)
        return dataclasses.replace(rule, object_walk=walk)

    return tuple(change(r) if r.name == name else r for r in RULES)


NORM4 = Walk(
    (CROSS, dataclasses.replace(DRUG_NORMALIZATION.steps[1], high=4), CROSS), "normalization"
)
CROSS2 = dataclasses.replace(CROSS, high=2)

RULE_EDITS = {
    "4 normalization steps": ("ingredient", "FORM_OF*1..3]->", "FORM_OF*1..4]->"),
    "normalization made optional": ("ingredient", "FORM_OF*1..3]->", "FORM_OF*0..3]->"),
    "2 MAPS_TO steps from the subject": (
        "direct",
        "row.subject})-[:MAPS_TO*0..1]-",
        "row.subject})-[:MAPS_TO*0..2]-",
    ),
    "2 MAPS_TO steps above the climb": ("ancestor", "(a)-[:MAPS_TO*0..1]-", "(a)-[:MAPS_TO*0..2]-"),
    "2 MAPS_TO steps after normalization": (
        "ingredient",
        "(:Concept)-[:MAPS_TO*0..1]-(s:Concept)",
        "(:Concept)-[:MAPS_TO*0..2]-(s:Concept)",
    ),
    "5 is-a steps": ("ancestor", "[:IS_A*1..4]->", "[:IS_A*1..5]->"),
    "is-a climbed down": ("ancestor", "(o)-[:IS_A*1..4]->", "(o)<-[:IS_A*1..4]-"),
    "is-a from the object itself": ("ancestor", "[:IS_A*1..4]->", "[:IS_A*0..4]->"),
    "a step off the walks": (
        "direct",
        "WHERE o.owner IS NOT NULL\n",
        "WHERE o.owner IS NOT NULL\n  MATCH (o)-[:IS_A]->(:Concept)\n",
    ),
}


@pytest.mark.parametrize("edit", RULE_EDITS, ids=str)
def test_a_one_step_change_of_a_rule_fails_its_declaration(edit: str) -> None:
    name, old, new = RULE_EDITS[edit]
    rule = _rule(name)
    assert rule_problems(rule, _edit(rule_text(rule), old, new))


def test_a_new_rule_climbing_is_a_from_the_subject_fails() -> None:
    # The ancestor rule with its sides swapped: it climbs above the subject.
    ancestor = _rule("ancestor")
    swapped = (
        rule_text(ancestor).replace("row.object", "row.OBJ").replace("row.subject", "row.object")
    )
    text = swapped.replace("row.OBJ", "row.subject")
    # Declared as the ancestor rule is, its Cypher does not match...
    copied = dataclasses.replace(ancestor, name="subject_ancestor", order=3)
    assert rule_problems(copied, text)
    # ...and declared as it walks, no reach walk covers it.
    honest = dataclasses.replace(
        copied, subject_walk=ancestor.object_walk, object_walk=ancestor.subject_walk
    )
    assert rule_problems(honest, text) == []
    assert reach_problems(
        "subject", get_query("reverify/mark_reach_subject").text, (*RULES, honest)
    )


@pytest.mark.parametrize(
    ("side", "rules"),
    [
        ("subject", _declared("ingredient", "subject", NORM4)),
        ("subject", _declared("direct", "subject", Walk((CROSS2,)))),
        ("object", _declared("ancestor", "object", Walk((CROSS, is_a_climb(1).steps[1], CROSS2)))),
        ("object", _declared("ingredient", "object", is_a_climb(0) + Walk((CROSS,)))),
    ],
    ids=[
        "4 normalization steps",
        "2 MAPS_TO steps",
        "2 MAPS_TO above the climb",
        "a third crossing",
    ],
)
def test_a_rule_changed_with_its_declaration_fails_the_reach_query(
    side: Side, rules: tuple[Rule, ...]
) -> None:
    assert reach_problems(side, get_query(f"reverify/mark_reach_{side}").text, rules)


REACH_EDITS: dict[str, tuple[Side, str, str]] = {
    "subject: 4 normalization steps": ("subject", "FORM_OF*0..3]-", "FORM_OF*0..4]-"),
    "subject: normalization required": ("subject", "FORM_OF*0..3]-", "FORM_OF*1..3]-"),
    "subject: normalization forwards": (
        "subject",
        "<-[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*0..3]-",
        "-[:TRADENAME_OF|CONSISTS_OF|HAS_INGREDIENT|HAS_PRECISE_INGREDIENT|FORM_OF*0..3]->",
    ),
    "subject: a type left out": ("subject", "|FORM_OF*0..3]-", "*0..3]-"),
    "object: 3 is-a steps": ("object", "[:IS_A*0..4]", "[:IS_A*0..3]"),
    "object: 2 MAPS_TO steps": ("object", "(y)-[:MAPS_TO*0..1]-", "(y)-[:MAPS_TO*0..2]-"),
}


@pytest.mark.parametrize("edit", REACH_EDITS, ids=str)
def test_a_one_step_change_of_a_reach_query_fails(edit: str) -> None:
    side, old, new = REACH_EDITS[edit]
    text = _edit(get_query(f"reverify/mark_reach_{side}").text, old, new)
    assert reach_problems(side, text)


@pytest.mark.parametrize("name", NORMALIZING)
@pytest.mark.parametrize("edit", ["4 steps", "a MAPS_TO step left out", "a type left out"])
def test_a_changed_drug_normalization_fails(name: str, edit: str) -> None:
    text = get_query(name).text
    steps = re.search(r"FORM_OF\*([01])\.\.3\]", text)
    assert steps is not None
    if edit == "4 steps":
        changed = _edit(text, steps.group(0), f"FORM_OF*{steps.group(1)}..4]")
    elif edit == "a type left out":
        changed = _edit(text, "|" + steps.group(0), steps.group(0)[len("FORM_OF") :])
    else:  # the crossing before the RxNorm steps
        crossing = "-[:MAPS_TO*0..1]-(:Concept)"
        before = text.rfind(crossing, 0, steps.start())
        changed = text[:before] + text[before + len(crossing) :]
    assert normalization_problems(name, changed)


def test_the_parser_reads_each_rule_pattern() -> None:
    # A reader that found nothing would pass nothing above; this pins what it reads.
    pattern: Pattern = parse(rule_text(_rule("ingredient")))
    assert len(pattern.rels) == 7
    assert [(r.low, r.high, r.direction) for r in pattern.chains[0]] == [
        (0, 1, "either"),
        (1, 3, "out"),
        (0, 1, "either"),
    ]
