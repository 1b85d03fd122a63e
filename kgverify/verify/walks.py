"""The walks a verification rule takes through the vocabulary graph, declared: from the
relation's subject (and from its object) to the concept its evidence edge touches, step by
step, each step a relationship pattern's types, direction and hop bounds.

The rules' Cypher files stay the statements that run; these declarations say what they
walk, so that re-verification's reach queries (``queries/reverify/mark_reach_*.cypher``),
which walk every rule's walks back from a change, can be checked against the rules: each
reach walk is the ``cover`` of the rules' walks on its side, ``reversed``.
tests/unit/test_rule_walks.py parses every rule's and reach query's patterns and compares
them with these declarations, side and bound.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from kgverify.graph.model import RelType

Direction = Literal["out", "in", "either"]
"""A step's direction as the walk goes: ``out`` along the stored relationship, ``in``
against it, ``either`` both."""

Side = Literal["subject", "object"]

_FLIPPED: dict[Direction, Direction] = {"out": "in", "in": "out", "either": "either"}


@dataclass(frozen=True)
class Step:
    """One variable-length relationship pattern: ``-[:A|B*low..high]->``."""

    types: frozenset[RelType]
    direction: Direction
    low: int
    high: int

    def reversed(self) -> Step:
        return Step(self.types, _FLIPPED[self.direction], self.low, self.high)

    def optional(self) -> Step:
        """The same step, which may also be taken zero times."""
        return Step(self.types, self.direction, 0, self.high)

    def same_way(self, other: Step) -> bool:
        return self.types == other.types and self.direction == other.direction

    def __str__(self) -> str:
        types = "|".join(sorted(t.value for t in self.types))
        left, right = {"out": ("-", "->"), "in": ("<-", "-"), "either": ("-", "-")}[self.direction]
        return f"{left}[:{types}*{self.low}..{self.high}]{right}"


@dataclass(frozen=True)
class Walk:
    """Steps in order from where the walk starts; ``name`` for a shared fragment."""

    steps: tuple[Step, ...]
    name: str = ""

    def __add__(self, other: Walk) -> Walk:
        return Walk(self.steps + other.steps)

    def reversed(self) -> Walk:
        """The walk from its end back to its start (re-verification's direction)."""
        return Walk(tuple(s.reversed() for s in reversed(self.steps)), self.name)

    def __str__(self) -> str:
        return "()" + "()".join(str(s) for s in self.steps) + "()"


def cover(walks: Iterable[Walk]) -> Walk:
    """The one walk that takes every path any of ``walks`` takes: the longest of them, each
    step widened to the others' bounds, and made optional where one of them lacks it. Every
    walk must be the longest with steps left out (same types and direction, in order);
    ValueError names one that is not, since no single walk back would then cover them."""
    given = list(walks)
    frame = max(given, key=lambda w: len(w.steps))
    low = [s.low for s in frame.steps]
    high = [s.high for s in frame.steps]
    for walk in given:
        at = 0
        matched: set[int] = set()
        for step in walk.steps:
            while at < len(frame.steps) and not frame.steps[at].same_way(step):
                at += 1
            if at == len(frame.steps):
                raise ValueError(f"walk {walk} is not {frame} with steps left out")
            low[at] = min(low[at], step.low)
            high[at] = max(high[at], step.high)
            matched.add(at)
            at += 1
        for n in set(range(len(frame.steps))) - matched:
            low[n] = 0
    return Walk(
        tuple(
            Step(s.types, s.direction, lo, hi)
            for s, lo, hi in zip(frame.steps, low, high, strict=True)
        )
    )
