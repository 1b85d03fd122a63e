"""A re-ranker for the TF-IDF stage's candidates, learned from the loaded graph itself.

No external labels: at index-build time a seeded sample of concepts each gives up one
synonym as a query; the query's TF-IDF neighbours (its own alias removed, so the index must
find the concept through its other names) are the candidates, and a candidate is right when
it is that concept or one MAPS_TO joins to it. A logistic regression learns from features
of the query/candidate pair (cosine, word overlap, edit similarity, numbers that differ,
the concept's preferred name and number of names, its MAPS_TO degree, mined substitutions);
its output is then Platt-calibrated on held-out queries, so a score of 0.8 reads as "about
80% of held-out candidates scoring this are right". Stored with the index as JSON.
"""

from __future__ import annotations

import json
import logging
import math
import random
import time
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt
from rapidfuzz.distance import Levenshtein
from sklearn.linear_model import LogisticRegression

from kgverify.link.kb import EXACT, NORMALIZED, REORDERED, KbEntry, KbStore
from kgverify.link.mined import MinedTables
from kgverify.link.model import Method
from kgverify.link.normalize import bag_key, exact_key, normalized_key
from kgverify.link.scoring import Hit

log = logging.getLogger(__name__)

RERANK_VERSION = 2
"""Bumped when the features or the training change; part of the index cache key."""

MAX_QUERIES = 2_000
"""Held-out synonyms used for training and calibration: seconds on any KB size."""

HOLDOUT = 0.3
"""Share of the queries kept apart to calibrate the score."""

SEED = 16

FEATURES = (
    "cosine",
    "gap_to_best",
    "rank",
    "word_jaccard",
    "query_words_covered",
    "alias_words_covered",
    "edit_similarity",
    "length_ratio",
    "numbers_differ",
    "preferred_name",
    "log_names",
    "log_degree",
    "substitution",
)


@lru_cache(maxsize=200_000)
def _words(text: str) -> frozenset[str]:
    return frozenset(normalized_key(text).split())


@lru_cache(maxsize=200_000)
def normalized_alias(text: str) -> str:
    """``normalized_key`` of an indexed alias, cached: the same aliases recur as candidates."""
    return normalized_key(text)


def _numbers(words: frozenset[str]) -> frozenset[str]:
    return frozenset(w for w in words if w[0].isdigit() or len(w) == 1)


@lru_cache(maxsize=200_000)
def _alias_words(alias: str) -> tuple[frozenset[str], frozenset[str]]:
    """An alias's words and its numbers and letters, cached: the same aliases are candidates
    of many queries."""
    words = _words(alias)
    return words, _numbers(words)


class Candidate(NamedTuple):
    """One TF-IDF candidate of a query, with what the features need (a tuple: a batch
    builds tens of thousands)."""

    alias: str
    cosine: float
    rank: int
    entry: KbEntry
    names: int
    substitution: bool


def features(query: str, candidates: Sequence[Candidate], k: int) -> npt.NDArray[np.float64]:
    """The feature rows (``FEATURES``) of one query's candidates."""
    q_words = _words(query)
    q_numbers = _numbers(q_words)
    q_count = len(q_words) or 1
    q_length = len(query)
    similarity = Levenshtein.normalized_similarity
    best = max((c.cosine for c in candidates), default=0.0)
    rows: list[list[float]] = []
    for c in candidates:
        a_words, a_numbers = _alias_words(c.alias)
        common = len(q_words & a_words)
        union = len(q_words | a_words) or 1
        a_length = len(c.alias)
        rows.append(
            [
                c.cosine,
                best - c.cosine,
                c.rank / k,
                common / union,
                common / q_count,
                common / (len(a_words) or 1),
                similarity(query, c.alias),
                min(q_length, a_length) / (max(q_length, a_length) or 1),
                float(q_numbers != a_numbers),
                float(exact_key(c.entry.name) == c.alias),
                math.log1p(c.names),
                math.log1p(len(c.entry.equivalents)),
                float(c.substitution),
            ]
        )
    return np.asarray(rows, dtype=np.float64).reshape(len(rows), len(FEATURES))


class Reranker:
    """The trained model (or none: then the caller keeps the cosine)."""

    def __init__(self, model: dict[str, Any] | None, name_counts: npt.NDArray[np.int32]) -> None:
        self.model = model
        self.name_counts = name_counts
        if model is not None:
            self._mean = np.asarray(model["mean"])
            self._scale = np.asarray(model["scale"])
            self._coef = np.asarray(model["coef"])

    @property
    def trained(self) -> bool:
        return self.model is not None

    def names(self, row: int) -> int:
        return int(self.name_counts[row]) if row < len(self.name_counts) else 1

    def score(self, x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Calibrated probability that each candidate is right."""
        if self.model is None or not len(x):
            return np.zeros(len(x))
        # A row-wise sum, not ``@``: on a batch's matrix the BLAS product starts threads that
        # spin after the work and take the cores the neighbour search runs on (issue 38).
        z = (((x - self._mean) / self._scale) * self._coef).sum(axis=1) + self.model["intercept"]
        t = self.model["platt_a"] * z + self.model["platt_b"]
        out: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-t))
        return out

    def save(self, directory: Path) -> None:
        np.save(directory / "name_counts.npy", self.name_counts)
        payload = {"version": RERANK_VERSION, "features": list(FEATURES), "model": self.model}
        (directory / "reranker.json").write_text(json.dumps(payload, indent=1))

    @classmethod
    def load(cls, directory: Path) -> Reranker:
        payload = json.loads((directory / "reranker.json").read_text())
        counts = np.load(directory / "name_counts.npy")
        fits = payload.get("version") == RERANK_VERSION and payload["features"] == list(FEATURES)
        return cls(payload["model"] if fits else None, counts)


def name_counts(store: KbStore) -> npt.NDArray[np.int32]:
    """Names per concept row (a feature: a concept with many names draws many neighbours)."""
    counts = np.ones(store.count(), dtype=np.int32)
    for row, keys in store.names_by_concept(EXACT):
        counts[row] = len(keys)
    return counts


class TrainingIndex(Protocol):
    """What training reads of the finished index (``index.LinkerIndex``, which builds the
    re-ranker and so is not imported here)."""

    store: KbStore
    aliases: list[str]

    def rows_of_alias(self, position: int) -> list[int]: ...

    def neighbours(self, texts: list[str], k: int) -> list[list[tuple[int, float]]]: ...


def _sample(
    index: TrainingIndex, limit: int, seed: int, exclude: frozenset[int] = frozenset()
) -> list[tuple[int, list[str]]]:
    """Reservoir sample of concepts with at least two names (seeded, one pass)."""
    rng = random.Random(seed)  # noqa: S311  # seeded sampling, not security
    sample: list[tuple[int, list[str]]] = []
    seen = 0
    for row, keys in index.store.names_by_concept(EXACT):
        if len(keys) < 2 or row in exclude:
            continue
        seen += 1
        if len(sample) < limit:
            sample.append((row, keys))
        else:
            at = rng.randrange(seen)
            if at < limit:
                sample[at] = (row, keys)
    return sample


def held_out_queries(
    index: TrainingIndex, limit: int, seed: int, exclude: frozenset[int] = frozenset()
) -> list[tuple[int, str]]:
    """Up to ``limit`` (concept row, one of its synonyms) pairs, seeded: the synonym is the
    query and the concept the answer. Only synonyms no name stage would resolve through
    another name (of that concept or any other) are kept: those are the mentions that
    reach the TF-IDF stage. Concepts in ``exclude`` are never drawn."""
    rng = random.Random(seed)  # noqa: S311  # seeded sampling, not security
    sample = _sample(index, limit, seed, exclude)
    store = index.store
    entries = store.concepts(row for row, _ in sample)
    queries: list[tuple[int, str]] = []
    for row, keys in sample:
        preferred = exact_key(entries[row].name)
        others = sorted(key for key in keys if key != preferred)
        if not others:
            continue
        held = rng.choice(others)
        rest = [key for key in keys if key != held]
        # A query an earlier stage resolves through another name never reaches TF-IDF.
        if normalized_key(held) in {normalized_key(r) for r in rest}:
            continue
        if bag_key(held) and bag_key(held) in {bag_key(r) for r in rest}:
            continue
        queries.append((row, held))
    found = {
        stage: store.lookup([key_of(q) for _, q in queries], stage)
        for stage, key_of in (
            (EXACT, exact_key),
            (NORMALIZED, normalized_key),
            (REORDERED, bag_key),
        )
    }
    return [
        (row, q)
        for row, q in queries
        if all(
            set(found[stage].get(key_of(q), [])) <= {row}
            for stage, key_of in (
                (EXACT, exact_key),
                (NORMALIZED, normalized_key),
                (REORDERED, bag_key),
            )
        )
    ]


MONOTONE = frozenset(
    {
        "cosine",
        "word_jaccard",
        "query_words_covered",
        "alias_words_covered",
        "edit_similarity",
        "length_ratio",
    }
)
"""Features that say how alike the query and the alias are: a candidate more like the
mention must never score lower for it, all else equal (``_fit_monotone``)."""


def _fit_monotone(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.int64], seed: int
) -> tuple[npt.NDArray[np.float64], float]:
    """Logistic regression whose likeness features (``MONOTONE``) weigh 0 or more: one that
    fits below 0 is dropped and the rest refitted. Held-out synonyms are mostly paraphrases
    ("little finger" / "pinky") while their wrong neighbours are near-copies (siblings such
    as "abnormality of the left ..."), so an unconstrained fit learned that a closer string
    is a worse candidate; a mention from another vocabulary is most often a near-copy of
    the right name, and the fit then ranked the right concept down (MONDO -> HPO)."""
    active = list(range(x.shape[1]))
    while True:
        model = LogisticRegression(C=1.0, max_iter=1_000, random_state=seed)
        model.fit(x[:, active], y)
        weights = model.coef_[0]
        wrong = [
            column
            for column, weight in zip(active, weights.tolist(), strict=True)
            if weight < 0 and FEATURES[column] in MONOTONE
        ]
        if not wrong:
            break
        active = [column for column in active if column not in wrong]
    coef = np.zeros(x.shape[1])
    coef[active] = weights
    return coef, float(model.intercept_[0])


def train(
    index: TrainingIndex,
    tables: MinedTables,
    counts: npt.NDArray[np.int32],
    *,
    k: int = 30,
    max_queries: int = MAX_QUERIES,
    seed: int = SEED,
) -> dict[str, Any] | None:
    """Fit and calibrate the model on held-out synonyms; None when the KB is too small."""
    started = time.perf_counter()
    queries = held_out_queries(index, max_queries, seed)
    rng = random.Random(seed + 1)  # noqa: S311  # the training / calibration split
    store = index.store
    entries = store.concepts(row for row, _ in queries)
    if len(queries) < 50:
        log.info("re-ranker not trained: %d usable held-out synonyms", len(queries))
        return None
    neighbours = index.neighbours([q for _, q in queries], k + 1)
    rows_needed = {
        index_row for hits in neighbours for p, _ in hits for index_row in index.rows_of_alias(p)
    }
    entries |= store.concepts(rows_needed - entries.keys())
    ids = store.identities(rows_needed | {row for row, _ in queries})
    xs: list[npt.NDArray[np.float64]] = []
    ys: list[int] = []
    groups: list[int] = []
    for n, ((gold, query), hits) in enumerate(zip(queries, neighbours, strict=True)):
        rewrites = set(tables.rewrites(normalized_key(query)))
        best: dict[int, Candidate] = {}
        for rank, (position, cosine) in enumerate(h for h in hits if index.aliases[h[0]] != query):
            alias = index.aliases[position]
            if cosine <= 0.0:
                continue
            for row in index.rows_of_alias(position):
                if row not in best or cosine > best[row].cosine:
                    best[row] = Candidate(
                        alias,
                        cosine,
                        rank,
                        entries[row],
                        int(counts[row]),
                        normalized_alias(alias) in rewrites,
                    )
        if not best:
            continue
        candidates = list(best.values())
        xs.append(features(query, candidates, k))
        gold_ids = ids.get(gold, set())
        ys.extend(int(r == gold or bool(ids.get(r, set()) & gold_ids)) for r in best)
        groups.extend([n] * len(candidates))
    x = np.vstack(xs)
    y = np.asarray(ys)
    group = np.asarray(groups)
    calibrate = np.asarray([rng.random() < HOLDOUT for _ in range(len(queries))])[group]
    if len(set(y[~calibrate].tolist())) < 2 or len(set(y[calibrate].tolist())) < 2:
        log.info("re-ranker not trained: held-out candidates are all one class")
        return None
    mean = x[~calibrate].mean(axis=0)
    scale = x[~calibrate].std(axis=0)
    scale[scale == 0] = 1.0
    coef, intercept = _fit_monotone((x[~calibrate] - mean) / scale, y[~calibrate], seed)
    z = ((x[calibrate] - mean) / scale) @ coef + intercept
    platt = LogisticRegression(C=1e6, max_iter=1_000, random_state=seed)
    platt.fit(z.reshape(-1, 1), y[calibrate])
    payload: dict[str, Any] = {
        "mean": mean.tolist(),
        "scale": scale.tolist(),
        "coef": coef.tolist(),
        "intercept": intercept,
        "platt_a": float(platt.coef_[0][0]),
        "platt_b": float(platt.intercept_[0]),
    }
    scored = Reranker(payload, counts).score(x[calibrate])
    high = scored >= 0.8
    payload["training"] = {
        "queries": len(queries),
        "candidates": len(y),
        "positives": int(y.sum()),
        "calibration_candidates": int(calibrate.sum()),
        # On the calibration part: how precise a 0.8 threshold is there.
        "calibration_precision_at_0.8": round(float(y[calibrate][high].mean()), 4)
        if high.any()
        else None,
        "calibration_share_at_0.8": round(float(high.mean()), 4),
        "seconds": round(time.perf_counter() - started, 2),
    }
    log.info("re-ranker trained: %s", payload["training"])
    return payload


def rescore(
    query: str,
    hits: list[Hit],
    reranker: Reranker,
    entries: Mapping[int, KbEntry],
    tables: MinedTables,
    k: int,
) -> None:
    """The re-ranker's probability in place of each TF-IDF hit's cosine (the calibration's
    fit: one query at a time, as the linker's ``rescore_all`` scores a batch)."""
    rescore_all([(query, hits)], reranker, entries, tables, k)


def rescore_all(
    queries: Sequence[tuple[str, list[Hit]]],
    reranker: Reranker,
    entries: Mapping[int, KbEntry],
    tables: MinedTables,
    k: int,
) -> None:
    """``rescore`` for a batch of queries and their hits, with one model evaluation for the
    whole batch: a call per query cost more in array set-up than in arithmetic."""
    scored: list[Hit] = []
    rows: list[npt.NDArray[np.float64]] = []
    for query, hits in queries:
        tfidf = sorted(
            (h for h in hits if h.method is Method.TFIDF), key=lambda h: (-h.score, h.row)
        )
        if not tfidf:
            continue
        rewrites = set(tables.rewrites(normalized_key(query)))
        candidates = [
            Candidate(
                h.alias,
                h.score,
                rank,
                entries[h.row],
                reranker.names(h.row),
                normalized_alias(h.alias) in rewrites,
            )
            for rank, h in enumerate(tfidf)
        ]
        rows.append(features(exact_key(query), candidates, k))
        scored.extend(tfidf)
    if not scored:
        return
    scores: npt.NDArray[np.float64] = reranker.score(np.concatenate(rows))
    for h, score in zip(scored, scores.tolist(), strict=True):
        h.score = score
