"""Word and phrase substitutions mined from the loaded vocabularies (docs/linking.md).

Two names of one concept that differ in a short span ("breast neoplasm" / "breast tumour")
say that the spans ("neoplasm" / "tumour") can stand for each other. Counted over many
concepts, such pairs become rewrite rules for mentions no name matches directly; a name that
is the initials of another name of its concept ("copd" / "chronic obstructive pulmonary
disease") gives an acronym rule. Nothing comes from outside the graph: the tables are
learned when the index is built and stored beside it, so a new release relearns them.

A rule must be *precise*: applied to the names of the whole KB, it must turn a name into a
name of the same concept, not into a name of a different concept. "hyperkalemia" /
"hypokalemia" may sit together in a noisy synonym list, but rewriting the concept
"hyperkalemia" gives the name of the concept "hypokalemia": that conflict rejects the rule.

Word-level rules come from names whose words differ by one word each in any order ("tumor
of the breast" / "breast neoplasm": tumor / neoplasm), which the span alignment cannot pair;
they are kept apart (``words``) so the linker can switch them off (``word_synonym``), and a
rewrite by one is looked up among the names in any word order.
"""

from __future__ import annotations

import heapq
import json
import logging
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from kgverify.link.kb import NORMALIZED, REORDERED, KbStore
from kgverify.link.normalize import normalized_key

log = logging.getLogger(__name__)

MINED_VERSION = 2
"""Bumped when what is mined (or how) changes; part of the index cache key."""

MIN_SUPPORT = 3
"""Distinct concepts that must show a substitution (acronyms need one: their own concept)."""

MIN_PRECISION = 0.95
"""Share of a rule's applications to KB names that land on the same concept, of those that
land on any concept."""

MAX_SPAN = 3
"""Longest span (in words) a substitution replaces."""

MAX_NAMES = 16
"""Names per concept aligned pairwise (a concept with hundreds of brand strings would
otherwise dominate the time and the counts)."""

MAX_PAIRS_IN_MEMORY = 2_000_000
"""Above this many distinct candidate pairs, pairs seen once are dropped (lossy counting):
the memory stays bounded at the 940k-alias scale."""

MAX_CHECKS = 1_000
"""Applications of one rule checked against the KB names (in row order): enough to measure
a precision of 95%, and it bounds the check's time on a KB of a million names."""

MAX_REWRITES = 12
"""Rewritten keys tried per mention at query time."""


@dataclass
class MinedTables:
    """Substitutions (both directions) and acronyms, with the evidence kept for each."""

    substitutions: dict[str, list[str]] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)
    rules: list[dict[str, object]] = field(default_factory=list)
    words: dict[str, list[str]] = field(default_factory=dict)

    @cached_property
    def with_words(self) -> dict[str, list[str]]:
        """The substitutions and the word-level rules together."""
        merged = {k: list(v) for k, v in self.substitutions.items()}
        for word, others in self.words.items():
            merged[word] = sorted({*merged.get(word, []), *others})
        return merged

    def save(self, path: Path) -> None:
        payload = {
            "version": MINED_VERSION,
            "substitutions": self.substitutions,
            "words": self.words,
            "stats": self.stats,
            "rules": self.rules,
        }
        path.write_text(json.dumps(payload, sort_keys=True))

    @classmethod
    def load(cls, path: Path) -> MinedTables:
        payload = json.loads(path.read_text())
        if payload.get("version") != MINED_VERSION:
            return cls()  # an older table: no rules rather than wrong ones
        return cls(payload["substitutions"], payload["stats"], payload["rules"], payload["words"])

    def rewrites(self, key: str, limit: int = MAX_REWRITES, *, words: bool = True) -> list[str]:
        """Normalized keys the mention's normalized ``key`` may stand for: each rule applied
        once at each place it fits (longest span first), then all non-overlapping places
        together with their first alternative. ``words``: the word-level rules too."""
        table = self.with_words if words else self.substitutions
        if not table or not key:
            return []
        tokens = key.split()
        found: dict[str, None] = {}
        combined: list[str] = []
        at = 0
        while at < len(tokens):
            step = 1
            for n in range(min(MAX_SPAN, len(tokens) - at), 0, -1):
                alternatives = table.get(" ".join(tokens[at : at + n]))
                if not alternatives:
                    continue
                for alt in alternatives:
                    found[" ".join([*tokens[:at], alt, *tokens[at + n :]])] = None
                if step == 1 and not combined[at:]:
                    combined.append(alternatives[0])
                    step = n
                break
            else:
                combined.append(tokens[at])
            at += step
        whole = " ".join(combined)
        if whole != key:
            found[whole] = None
        found.pop(key, None)
        return list(found)[:limit]


def _spans(a: list[str], b: list[str]) -> tuple[str, str] | None:
    """The differing spans of two names, when both are short, non-empty and have shared
    words around them (two whole different names teach nothing reusable)."""
    pre = 0
    while pre < min(len(a), len(b)) and a[pre] == b[pre]:
        pre += 1
    suf = 0
    while suf < min(len(a), len(b)) - pre and a[-1 - suf] == b[-1 - suf]:
        suf += 1
    x, y = a[pre : len(a) - suf], b[pre : len(b) - suf]
    if not x or not y or pre + suf == 0 or len(x) > MAX_SPAN or len(y) > MAX_SPAN:
        return None
    # Numbers and single letters tell concepts apart ("type 1" / "type 2", "A" / "B").
    if any(len(w) == 1 or w[0].isdigit() for w in (*x, *y)):
        return None
    return " ".join(x), " ".join(y)


def _word_pair(a: list[str], b: list[str]) -> tuple[str, str] | None:
    """The one word each of two names has that the other lacks, when the rest are the same
    words in any order (at least one shared; no number or single letter swapped)."""
    sa, sb = set(a), set(b)
    only_a, only_b = sa - sb, sb - sa
    if len(only_a) != 1 or len(only_b) != 1 or not sa & sb:
        return None
    if len(sa) != len(a) or len(sb) != len(b):
        return None
    [x], [y] = only_a, only_b
    if any(len(w) == 1 or w[0].isdigit() for w in (x, y)):
        return None
    return min(x, y), max(x, y)


def _acronym(short: str, long: list[str]) -> bool:
    """``short`` is the initials of ``long`` (a number counts whole: "t2dm")."""
    if len(long) < 2 or not 2 <= len(short) <= 8 or " " in short:
        return False
    return short == "".join(w if w.isdigit() else w[0] for w in long)


def _concept_keys(store: KbStore) -> Iterator[tuple[int, list[str]]]:
    """(row, its normalized name keys, sorted, at most MAX_NAMES) per concept."""
    for row, keys in store.names_by_concept(NORMALIZED):
        yield row, sorted(keys)[:MAX_NAMES]


def mine(
    store: KbStore,
    *,
    min_support: int = MIN_SUPPORT,
    min_precision: float = MIN_PRECISION,
) -> MinedTables:
    """Learn substitutions and acronyms from the names in ``store`` (two streaming passes)."""
    pairs: Counter[tuple[str, str]] = Counter()
    word_pairs: Counter[tuple[str, str]] = Counter()
    acronyms: Counter[tuple[str, str]] = Counter()
    concepts = 0
    for _row, keys in _concept_keys(store):
        concepts += 1
        tokens = [k.split() for k in keys]
        seen: set[tuple[str, str]] = set()
        seen_words: set[tuple[str, str]] = set()
        for i, a in enumerate(tokens):
            for b in tokens[i + 1 :]:
                spans = _spans(a, b)
                if spans:
                    seen.add((min(spans), max(spans)))
                elif word := _word_pair(a, b):
                    seen_words.add(word)
                if len(a) == 1 and _acronym(a[0], b):
                    acronyms[(a[0], " ".join(b))] += 1
                elif len(b) == 1 and _acronym(b[0], a):
                    acronyms[(b[0], " ".join(a))] += 1
        pairs.update(seen)
        word_pairs.update(seen_words)
        if len(pairs) > MAX_PAIRS_IN_MEMORY:
            pairs = Counter({p: n for p, n in pairs.items() if n > 1})
        if len(word_pairs) > MAX_PAIRS_IN_MEMORY:
            word_pairs = Counter({p: n for p, n in word_pairs.items() if n > 1})
    # An acronym must mean one thing in the whole KB.
    meanings = Counter(short for short, _ in acronyms)
    candidates: dict[tuple[str, str], str] = {
        p: "substitution" for p, n in pairs.items() if n >= min_support
    }
    candidates |= {p: "acronym" for p in acronyms if meanings[p[0]] == 1}
    candidates |= {
        p: "word" for p, n in word_pairs.items() if n >= min_support and p not in candidates
    }
    support = {p: pairs.get(p, 0) or acronyms.get(p, 0) or word_pairs.get(p, 0) for p in candidates}
    same, other = _check(store, candidates)
    tables = MinedTables()
    kept: list[tuple[str, str]] = []
    for pair, kind in sorted(candidates.items()):
        hits = same[pair] + other[pair]
        precise = hits > 0 and same[pair] / hits >= min_precision
        tables.rules.append(
            {
                "a": pair[0],
                "b": pair[1],
                "kind": kind,
                "support": support[pair],
                "same": same[pair],
                "conflicts": other[pair],
                "kept": precise,
            }
        )
        if precise:
            kept.append(pair)
    subs: dict[str, set[str]] = {}
    words: dict[str, set[str]] = {}
    for left, right in kept:
        table = words if candidates[(left, right)] == "word" else subs
        table.setdefault(left, set()).add(right)
        table.setdefault(right, set()).add(left)
    tables.substitutions = {k: sorted(v) for k, v in sorted(subs.items())}
    tables.words = {k: sorted(v) for k, v in sorted(words.items())}
    # Keep the report small: the strongest rules and every rejected one with support.
    tables.rules = heapq.nlargest(
        2_000, tables.rules, key=lambda r: (int(str(r["support"])), str(r["a"]), str(r["b"]))
    )
    tables.stats = {
        "concepts": concepts,
        "candidate_pairs": len(candidates),
        "kept_substitutions": sum(1 for p in kept if candidates[p] == "substitution"),
        "kept_acronyms": sum(1 for p in kept if candidates[p] == "acronym"),
        "kept_words": sum(1 for p in kept if candidates[p] == "word"),
        "rejected": len(candidates) - len(kept),
    }
    log.info("mined %s", tables.stats)
    return tables


def _check(
    store: KbStore, candidates: dict[tuple[str, str], str], batch: int = 20_000
) -> tuple[Counter[tuple[str, str]], Counter[tuple[str, str]]]:
    """Apply every candidate rule to every KB name it fits; count, per rule, concepts whose
    rewritten name is their own (``same``) and concepts whose rewritten name belongs only to
    other, unrelated concepts (``other``: the rule would link to the wrong concept)."""
    rules: dict[str, list[tuple[str, tuple[str, str]]]] = {}
    for a, b in candidates:
        rules.setdefault(a, []).append((b, (a, b)))
        rules.setdefault(b, []).append((a, (a, b)))
    same_rows: set[tuple[int, tuple[str, str]]] = set()
    other_rows: set[tuple[int, tuple[str, str]]] = set()
    pending: list[tuple[int, str, tuple[str, str]]] = []

    def settle() -> None:
        found = store.lookup([key for _, key, _ in pending], NORMALIZED)
        bags = [bag for _, key, pair in pending if (bag := _bag(key, pair))]
        found_bags = store.lookup(bags, REORDERED) if bags else {}
        landed = {
            (key, pair): found.get(key) or found_bags.get(_bag(key, pair)) or []
            for _, key, pair in pending
        }
        rows = {r for hits in landed.values() for r in hits}
        ids = store.identities(rows | {row for row, _, _ in pending})
        for row, key, pair in pending:
            hits = landed[(key, pair)]
            if not hits:
                continue  # lands on no name: no evidence either way
            mine_ = ids.get(row, set())
            if row in hits or any(ids.get(h, set()) & mine_ for h in hits):
                same_rows.add((row, pair))
            else:
                other_rows.add((row, pair))
        pending.clear()

    def _bag(key: str, pair: tuple[str, str]) -> str:
        """A word rule's rewrite, sorted: the names' reordered key (names in any order)."""
        return " ".join(sorted(key.split())) if candidates[pair] == "word" else ""

    tried: Counter[tuple[str, str]] = Counter()
    if rules:
        for row, keys in _concept_keys(store):
            own = set(keys)
            own_bags = {" ".join(sorted(k.split())) for k in keys}
            for key in keys:
                words = key.split()
                for at in range(len(words)):
                    for n in range(1, min(MAX_SPAN, len(words) - at) + 1):
                        for alt, pair in rules.get(" ".join(words[at : at + n]), ()):
                            if tried[pair] >= MAX_CHECKS:
                                continue  # enough evidence: bounds the pass on big KBs
                            tried[pair] += 1
                            rewritten = " ".join([*words[:at], alt, *words[at + n :]])
                            if rewritten in own or (
                                candidates[pair] == "word"
                                and " ".join(sorted(rewritten.split())) in own_bags
                            ):
                                same_rows.add((row, pair))
                            else:
                                pending.append((row, rewritten, pair))
            if len(pending) >= batch:
                settle()
        settle()
    same = Counter(pair for _, pair in same_rows)
    # A concept with one rewrite landing home and another elsewhere counts as home.
    other = Counter(pair for row, pair in other_rows if (row, pair) not in same_rows)
    return same, other


def mention_rewrites(tables: MinedTables, text: str) -> list[str]:
    """The normalized keys a mention may stand for under the mined rules."""
    return tables.rewrites(normalized_key(text))
