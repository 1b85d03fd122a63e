"""The walks a Cypher statement takes, read from its text: its relationship patterns (types,
direction, ``*low..high``) joined into one graph by their node variables (a path's
``last(nodes(p)) AS a`` is the end node of ``p``), and the one route between two of its
nodes as a ``Walk``. What tests/unit/test_rule_walks.py compares with the walks each rule
declares (kgverify/verify/rules.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from kgverify.graph.model import RelType
from kgverify.verify.walks import Direction, Step, Walk

UNBOUNDED = 1_000_000  # `*` or `*2..`: no upper bound

_NODE = re.compile(r"\(\s*(\w*)\s*(?::[\w\s:|]*)?(\{[^{}]*\})?\s*\)")
_REL = re.compile(r"(<)?-\s*(?:\[([^\]]*)\])?\s*-(>)?")
_CHAIN = re.compile(
    rf"(?:(\w+)\s*=\s*)?({_NODE.pattern}(?:\s*{_REL.pattern}\s*{_NODE.pattern})+)", re.S
)
_INNER = re.compile(
    r"\s*(\w*)\s*(?::\s*([A-Z_|\s]+?))?\s*(?:(\*)\s*(\d*)\s*(?:(\.\.)\s*(\d*))?)?\s*(\{.*\})?\s*",
    re.S,
)
_LAST = re.compile(r"last\(\s*nodes\(\s*(\w+)\s*\)\s*\)\s+AS\s+(\w+)")


@dataclass(frozen=True)
class Rel:
    """One relationship pattern between two nodes of the statement's graph, as written."""

    var: str
    start: str  # the node written on its left
    end: str
    types: frozenset[str]
    direction: Direction  # as written, left to right
    low: int
    high: int

    def __str__(self) -> str:
        left, right = {"out": ("-", "->"), "in": ("<-", "-"), "either": ("-", "-")}[self.direction]
        types = "|".join(sorted(self.types))
        return f"({self.start}){left}[:{types}*{self.low}..{self.high}]{right}({self.end})"

    def step(self, forward: bool) -> Step:
        """As a step taken left to right (``forward``) or right to left."""
        step = Step(frozenset(RelType(t) for t in self.types), self.direction, self.low, self.high)
        return step if forward else step.reversed()


@dataclass
class Pattern:
    """A statement's relationship patterns, chains as written, its nodes' properties."""

    rels: list[Rel]
    chains: list[list[Rel]]
    props: dict[str, str]  # node -> its `{...}` text

    def anchor(self, text: str) -> str:
        """The one node whose properties contain ``text`` (e.g. ``row.subject``)."""
        found = {n for n, p in self.props.items() if text in p}
        assert len(found) == 1, f"{len(found)} nodes with {text} in their properties"
        return found.pop()

    def routes(self, start: str, ends: set[str], skip: set[str]) -> list[list[tuple[Rel, bool]]]:
        """Every simple route from ``start`` to a node of ``ends``, relationships named in
        ``skip`` left out: (relationship, taken left to right) in order."""
        found: list[list[tuple[Rel, bool]]] = []

        def go(node: str, seen: set[str], route: list[tuple[Rel, bool]]) -> None:
            if node in ends and route:
                found.append(route)
            for rel in self.rels:
                if rel.var in skip or rel in (r for r, _ in route):
                    continue
                for here, there, forward in (
                    (rel.start, rel.end, True),
                    (rel.end, rel.start, False),
                ):
                    if here == node and there not in seen:
                        go(there, seen | {there}, [*route, (rel, forward)])

        go(start, {start}, [])
        return found


def walk_of(route: list[tuple[Rel, bool]]) -> Walk:
    return Walk(tuple(rel.step(forward) for rel, forward in route))


def _tokens(chain: str) -> Iterator[re.Match[str]]:
    """A chain's nodes and relationships in turn."""
    at, pattern = 0, _NODE
    while at < len(chain):
        while chain[at].isspace():
            at += 1
        m = pattern.match(chain, at)
        assert m is not None, f"unparsed pattern at {chain[at:]!r}"
        yield m
        at, pattern = m.end(), _REL if pattern is _NODE else _NODE


def parse(text: str) -> Pattern:
    """The relationship patterns of a statement, comments left out."""
    text = re.sub(r"//[^\n]*", "", text)
    parents: dict[str, str] = {}

    def root(node: str) -> str:
        while parents.get(node, node) != node:
            node = parents[node]
        return node

    raw: list[list[tuple[str, str, str, str]]] = []  # per chain: inner, start, end, arrows
    props: dict[str, str] = {}
    path_ends: dict[str, str] = {}
    anonymous = 0
    for m in _CHAIN.finditer(text):
        nodes: list[str] = []
        rels: list[tuple[str, str]] = []  # inner text, arrows
        for n, token in enumerate(_tokens(m.group(2))):
            if n % 2 == 0:
                name = token.group(1)
                if not name:
                    anonymous += 1
                    name = f"_{anonymous}"
                nodes.append(name)
                if token.group(2):
                    props[name] = props.get(name, "") + token.group(2)
            else:
                rels.append((token.group(2) or "", (token.group(1) or "") + (token.group(3) or "")))
        if m.group(1):
            path_ends[m.group(1)] = nodes[-1]
        raw.append(
            [(inner, nodes[k], nodes[k + 1], arrows) for k, (inner, arrows) in enumerate(rels)]
        )
    for path, alias in _LAST.findall(text):
        parents[root(alias)] = root(path_ends[path])
    chains: list[list[Rel]] = []
    for chain in raw:
        rels_of: list[Rel] = []
        for inner, start, end, arrows in chain:
            parts = _INNER.fullmatch(inner)
            assert parts is not None, f"unparsed relationship pattern [{inner}]"
            var, types, star, low, dots, high = parts.groups()[:6]
            if not star:
                bounds = (1, 1)
            elif dots:
                bounds = (int(low or 1), int(high) if high else UNBOUNDED)
            else:
                bounds = (int(low), int(low)) if low else (1, UNBOUNDED)
            direction: Direction = "in" if arrows == "<" else "out" if arrows == ">" else "either"
            names = frozenset(t.strip() for t in types.split("|")) if types else frozenset()
            rels_of.append(Rel(var, root(start), root(end), names, direction, *bounds))
        chains.append(rels_of)
    merged = {root(n): p for n, p in props.items()}
    return Pattern([r for c in chains for r in c], chains, merged)
