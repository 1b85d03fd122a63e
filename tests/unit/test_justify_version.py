"""The lock on the justification rules' version: every justification records the declared
``justify.RULES_VERSION``, so a change of what the rules read, decide or say must not go by
unnoticed. The test pins a fingerprint of those inputs: the queries in ``justify.QUERIES``,
justify.py itself and each task's declared rules (``model.TASK_RULES``); a change fails it
until someone decides whether the version moves."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, replace
from pathlib import Path

from kgverify.derive import justify
from kgverify.derive.model import TASK_RULES, Task, TaskRules
from kgverify.graph.queries import get_query

FINGERPRINT = "a5304d68b9faff9d"


def fingerprint(queries: Mapping[str, str], module: bytes, rules: Mapping[Task, TaskRules]) -> str:
    """A hash of the justification's inputs, each part length-prefixed so no two splits of
    the same bytes agree."""
    digest = hashlib.sha256()
    declared = json.dumps({t.value: asdict(r) for t, r in rules.items()}, sort_keys=True)
    parts = [*(f"{n}\n{t}".encode() for n, t in sorted(queries.items())), module]
    for part in [*parts, declared.encode()]:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()[:16]


def current() -> str:
    return fingerprint(
        {name: get_query(name).text for name in justify.QUERIES},
        Path(justify.__file__).read_bytes(),
        TASK_RULES,
    )


def test_the_justification_inputs_are_the_pinned_ones() -> None:
    new = current()
    assert new == FINGERPRINT, (
        "the justification rules' inputs changed: if what they decide or say changed, bump "
        "RULES_VERSION in kgverify/derive/justify.py; either way set FINGERPRINT in this test "
        f"to {new}"
    )


def test_the_lock_sees_each_input_change() -> None:
    queries = {name: get_query(name).text for name in justify.QUERIES}
    module = Path(justify.__file__).read_bytes()
    base = fingerprint(queries, module, TASK_RULES)
    first = justify.QUERIES[0]
    edited = {**queries, first: queries[first] + "\n// edited"}
    renamed = {**TASK_RULES, Task.PROGNOSIS: replace(TASK_RULES[Task.PROGNOSIS], clues="causes")}
    assert fingerprint(edited, module, TASK_RULES) != base
    assert fingerprint(queries, module + b"\n", TASK_RULES) != base
    assert fingerprint(queries, module, renamed) != base


def test_every_task_declares_its_rules() -> None:
    assert set(TASK_RULES) == set(Task)
    for task, rules in TASK_RULES.items():
        assert rules.elsewhere, task
        assert rules.contraindicated if rules.way == "drugs" else rules.clues, task


def test_the_version_is_the_declared_one() -> None:
    assert justify.rules_version() == justify.RULES_VERSION
