"""The TF-IDF stage's score read as an estimated precision (docs/linking.md, "Calibration").

A cosine of 0.8 is not 80% precise, and how precise it is differs between vocabularies. At
index-build time a seeded sample of concepts each gives up one synonym as a query (the
held-out synonyms of the re-ranker, rerank.py, drawn from other concepts than its training
sample); each query is scored against its TF-IDF neighbours exactly as the linker scores
them (its own alias removed; one typo, opposites, partial names and numbers as in
scoring.py), and its best candidate is right when it is the concept that gave up the
synonym or one MAPS_TO joins to it. Isotonic regression (pool-adjacent-violators) of "right"
on the score gives a monotone map from score to precision, per method (cosine, cosine
re-ranked, one edit), stored with the index as ``calibration.json``. The linker maps every
TF-IDF candidate's score through it, so ``link_threshold 0.95`` keeps the neighbours whose
like were right 95% of the time on the graph's own synonyms.
"""

from __future__ import annotations

import json
import logging
import time
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kgverify.link.mined import MinedTables
from kgverify.link.model import Method
from kgverify.link.normalize import exact_key
from kgverify.link.rerank import (
    MAX_QUERIES,
    SEED,
    Reranker,
    TrainingIndex,
    held_out_queries,
    rescore,
)
from kgverify.link.scoring import PARTIAL_SCORE, Hit, cap_neighbours, neighbour_hit

log = logging.getLogger(__name__)

CALIBRATION_VERSION = 1
"""Bumped when the fit changes; an index with another version links uncalibrated."""

QUERIES = 4_000
"""Held-out synonyms drawn for the fit (seconds of HNSW queries on any KB size)."""

MIN_POINTS = 30
"""Fewest scored queries a method needs for a map of its own."""

TEST_SHARE = 0.3
"""Share of the queries kept out of the fit to measure its calibration error."""

BINS = 10

CERTAIN_GAP = 0.001
"""How far from 0 and 1 a fitted block stays (``knots_of``)."""

TFIDF = "tfidf"
RERANKED = "tfidf_reranked"
EDIT = "edit"


def isotonic(scores: Sequence[float], labels: Sequence[float]) -> tuple[list[float], list[float]]:
    """Pool-adjacent-violators: the non-decreasing step fit of ``labels`` on ``scores``, as
    knots (mean score of each block, the block's share of right answers). Blocks whose
    shares tie are merged, so the knots' shares rise strictly."""
    order = np.argsort(np.asarray(scores, dtype=np.float64), kind="stable")
    xs = np.asarray(scores, dtype=np.float64)[order]
    ys = np.asarray(labels, dtype=np.float64)[order]
    blocks: list[list[float]] = []  # [sum of labels, sum of scores, count]
    for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
        blocks.append([y, x, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][2] >= blocks[-1][0] / blocks[-1][2]:
            y_sum, x_sum, n = blocks.pop()
            blocks[-1][0] += y_sum
            blocks[-1][1] += x_sum
            blocks[-1][2] += n
    return [b[1] / b[2] for b in blocks], [b[0] / b[2] for b in blocks]


def _interpolate(score: float, knots: tuple[list[float], list[float]]) -> float:
    """``np.interp`` for one score (the linker maps every neighbour's score, one at a time:
    a bisection in Python lists costs a tenth of a numpy call there)."""
    xs, ys = knots
    if score <= xs[0]:
        return ys[0]
    if score >= xs[-1]:
        return ys[-1]
    at = bisect_right(xs, score)
    x0, x1, y0, y1 = xs[at - 1], xs[at], ys[at - 1], ys[at]
    return y0 if x1 == x0 else y0 + (y1 - y0) * (score - x0) / (x1 - x0)


def knots_of(scores: Sequence[float], labels: Sequence[float]) -> tuple[list[float], list[float]]:
    """The map's knots: the isotonic fit, anchored at (0, 0) and (1, 1) so the map rises
    strictly over the whole range (two neighbours a cosine apart never tie after it, and the
    decision's margin keeps its meaning) and a perfect cosine reads as a sure link. A block
    all right (or all wrong) reads as 0.999 (0.001): the anchors stay the only certainties."""
    inside = [(x, y) for x, y in zip(*isotonic(scores, labels), strict=True) if 0.0 < x < 1.0]
    return (
        [0.0, *(x for x, _ in inside), 1.0],
        [0.0, *(min(max(y, CERTAIN_GAP), 1.0 - CERTAIN_GAP) for _, y in inside), 1.0],
    )


def calibration_error(
    estimates: Sequence[float], labels: Sequence[float], bins: int = BINS
) -> float:
    """Expected calibration error: over equal-width bins of the estimate, the gap between
    the mean estimate and the share right, weighted by the bin's size."""
    if not estimates:
        return 0.0
    est = np.clip(np.asarray(estimates, dtype=np.float64), 0.0, 1.0)
    lab = np.asarray(labels, dtype=np.float64)
    at = np.minimum((est * bins).astype(int), bins - 1)
    total = 0.0
    for b in range(bins):
        chosen = at == b
        if chosen.any():
            total += abs(float(est[chosen].mean() - lab[chosen].mean())) * int(chosen.sum())
    return total / len(est)


@dataclass
class Calibration:
    """Score -> estimated precision maps per method; none fitted: scores pass unchanged."""

    maps: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def fitted(self) -> bool:
        return bool(self.maps)

    def estimate(
        self, method: Method, score: float, *, reranked: bool = False, partial: bool = False
    ) -> float:
        """The estimated precision of a TF-IDF or edit candidate with this score. A
        ``partial`` neighbour (one the coverage guard scaled: it names a part of the
        mention) is never read above ``PARTIAL_SCORE``, the guard's bound: the map is
        fitted on the vocabulary's own synonyms, and on a small vocabulary a few new names
        moved it to read a halved 0.46 as 0.70 to 0.79 precise ("Ménières Disease" ->
        "Disease")."""
        if method is Method.EDIT:
            key = EDIT
        elif method is Method.TFIDF:
            key = RERANKED if reranked else TFIDF
        else:
            return score
        knots = self.maps.get(key)
        mapped = _interpolate(score, knots) if knots else score
        return min(mapped, PARTIAL_SCORE) if partial else mapped

    def save(self, path: Path) -> None:
        payload = {"version": CALIBRATION_VERSION, "maps": self.maps, "stats": self.stats}
        path.write_text(json.dumps(payload, indent=1))

    @classmethod
    def load(cls, path: Path) -> Calibration:
        payload = json.loads(path.read_text())
        if payload.get("version") != CALIBRATION_VERSION:
            return cls()
        maps = {k: (list(v[0]), list(v[1])) for k, v in payload["maps"].items()}
        return cls(maps, payload["stats"])


def _best(hits: Sequence[Hit]) -> Hit | None:
    return min(hits, key=lambda h: (-h.score, h.row), default=None)


def fit_calibration(
    index: TrainingIndex,
    tables: MinedTables,
    reranker: Reranker,
    *,
    k: int = 15,
    queries: int = QUERIES,
    seed: int = SEED,
) -> Calibration:
    """Fit the maps on held-out synonyms of concepts the re-ranker was not trained on."""
    started = time.perf_counter()
    trained_on = frozenset(row for row, _ in held_out_queries(index, MAX_QUERIES, seed))
    drawn = held_out_queries(index, queries, seed + 2, exclude=trained_on)
    if len(drawn) < MIN_POINTS and reranker.trained:
        # A small KB: the re-ranker trained on (nearly) every concept. The cosine and edit
        # maps are fitted on all of them; the re-ranked score, seen in training, keeps its
        # Platt calibration rather than a map fitted on its own training queries.
        drawn = held_out_queries(index, queries, seed + 2)
        reranker = Reranker(None, reranker.name_counts)
    if len(drawn) < MIN_POINTS:
        log.info("no calibration: %d usable held-out synonyms", len(drawn))
        return Calibration(stats={"queries": len(drawn)})
    store = index.store
    neighbours = index.neighbours([q for _, q in drawn], k + 1)
    rows = {r for hits in neighbours for p, _ in hits for r in index.rows_of_alias(p)}
    entries = store.concepts(rows) if reranker.trained else {}
    ids = store.identities(rows | {row for row, _ in drawn})
    points: dict[str, tuple[list[float], list[float]]] = {TFIDF: ([], []), RERANKED: ([], [])}
    points[EDIT] = ([], [])
    for (gold, query), found in zip(drawn, neighbours, strict=True):
        key = exact_key(query)
        gold_ids = ids.get(gold, set())
        hits: dict[int, Hit] = {}
        for position, similarity in found:
            alias = index.aliases[position]
            if similarity <= 0.0 or alias == key:
                continue
            for row in index.rows_of_alias(position):
                hit = neighbour_hit(key, alias, similarity, row)
                if row not in hits or hit.score > hits[row].score:
                    hits[row] = hit
        if not hits:
            continue
        for reranked in (False, True) if reranker.trained else (False,):
            scored = {row: Hit(h.row, h.score, h.method, h.alias) for row, h in hits.items()}
            if reranked:
                rescore(query, list(scored.values()), reranker, entries, tables, k)
            cap_neighbours(query, list(scored.values()))
            top = _best(list(scored.values()))
            if top is None:
                continue
            right = float(top.row == gold or bool(ids.get(top.row, set()) & gold_ids))
            name = EDIT if top.method is Method.EDIT else RERANKED if reranked else TFIDF
            if name == EDIT and reranked:
                continue  # the edit score does not depend on the re-ranker: counted once
            points[name][0].append(top.score)
            points[name][1].append(right)
    calibration = Calibration()
    stats: dict[str, Any] = {"queries": len(drawn)}
    for name, (scores, labels) in points.items():
        if len(scores) < MIN_POINTS:
            continue
        calibration.maps[name] = _fit_one(name, scores, labels, seed, stats)
    stats["seconds"] = round(time.perf_counter() - started, 2)
    calibration.stats = stats
    log.info("calibration fitted: %s", stats)
    return calibration


def _fit_one(
    name: str, scores: list[float], labels: list[float], seed: int, stats: dict[str, Any]
) -> tuple[list[float], list[float]]:
    """One method's map, from every point; its calibration error measured by a fit on the
    rest of the points against the ``TEST_SHARE`` kept apart (and against the raw score)."""
    rng = np.random.default_rng(seed)
    test = rng.random(len(scores)) < TEST_SHARE
    s, y = np.asarray(scores), np.asarray(labels)
    if name == EDIT:  # one score for every edit: its map is the share right
        share = float(y.mean())
        knots = ([0.0, 1.0], [share, share])
        held = knots
    else:
        knots = knots_of(scores, labels)
        held = knots_of(s[~test].tolist(), y[~test].tolist())
    stats[name] = {
        "points": len(scores),
        "right": round(float(y.mean()), 4),
        "held_out_ece": round(
            calibration_error([_interpolate(v, held) for v in s[test].tolist()], y[test].tolist()),
            4,
        ),
        "raw_ece": round(calibration_error(s[test].tolist(), y[test].tolist()), 4),
    }
    return knots
