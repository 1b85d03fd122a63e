"""What the linker's operating points depend on (issue 38, MONDO -> HPO read at stock's
precision): partial neighbours keep their order under the coverage guard, the re-ranker
never scores a candidate lower for being more like the mention, and the calibration map
reads one score as ``np.interp`` does. Through a real index where a model is involved
(scispaCy TF-IDF, nmslib HNSW, SQLite, scikit-learn)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt
import pytest
from rapidfuzz.distance import Levenshtein

from kgverify.link.calibration import TFIDF, Calibration, _interpolate
from kgverify.link.index import LinkerIndex, build_index
from kgverify.link.model import Method
from kgverify.link.normalize import normalized_key
from kgverify.link.rerank import FEATURES, MONOTONE, _fit_monotone
from kgverify.link.scoring import (
    MIN_COVERAGE,
    MIN_TYPO_LENGTH,
    PARTIAL_SCORE,
    TYPO_SIMILARITY,
    Hit,
    cover_the_mention,
    partial,
    partial_score,
)
from tests.unit.test_link_rerank import SETTINGS, vocabulary


def _hits(*scored: tuple[str, float]) -> list[Hit]:
    return [Hit(row, score, Method.TFIDF, alias) for row, (alias, score) in enumerate(scored)]


# -- the coverage guard ---------------------------------------------------------------------


def test_partial_neighbours_keep_their_order_below_the_partial_score() -> None:
    # "leukemia" and "leukemias" each cover half of the mention's letters: both partial.
    hits = _hits(("leukemia", 0.9), ("leukemias", 0.8), ("malignant leukemia", 0.7))
    cover_the_mention("leukemia, malignant", hits)
    first, second, full = (h.score for h in hits)
    # A cap tied them at 0.5; scaled, the closer one stays ahead, both at most 0.5.
    assert first == pytest.approx(0.9 * PARTIAL_SCORE) and second == pytest.approx(0.4)
    assert PARTIAL_SCORE >= first > second
    assert full == 0.7  # the neighbour that names the whole mention is untouched


def test_the_guard_leaves_one_word_mentions_and_other_methods_alone() -> None:
    hits = _hits(("leukemia", 0.9))
    cover_the_mention("leukemias", hits)
    assert hits[0].score == 0.9
    edit = [Hit(0, 0.9, Method.EDIT, "leukemia")]
    cover_the_mention("leukemia, malignant", edit)
    assert edit[0].score == 0.9
    assert partial_score(1.0) == PARTIAL_SCORE  # a perfect partial cosine reads 0.5 as before


def _letters_covered(words: list[str], alias: str) -> float:
    """The guard's rule, counted over every word (as before issue 38's early decision)."""
    named = normalized_key(alias).split()
    joined = "".join(named)
    covered = sum(
        len(w)
        for w in words
        if w in named
        or (len(w) >= 3 and w in joined)
        or (
            len(w) >= MIN_TYPO_LENGTH
            and any(Levenshtein.normalized_similarity(w, n) >= TYPO_SIMILARITY for n in named)
        )
    )
    return covered / max(1, sum(len(w) for w in words))


def test_the_guard_decides_early_as_the_full_count_does() -> None:
    # Mentions and names of overlapping words, run-together words and misspellings, in
    # every order: where the decision is taken must not change it.
    rng = random.Random(38)
    pool = [
        "chronic",
        "kidney",
        "disease",
        "diseases",
        "kidny",
        "renal",
        "failure",
        "of",
        "type",
        "2",
        "diabetes",
        "mellitus",
        "betablocker",
        "beta",
        "blocker",
        "acute",
    ]
    cases = 0
    for _ in range(3000):
        mention = " ".join(rng.sample(pool, rng.randint(2, 5)))
        alias = " ".join(rng.sample(pool, rng.randint(1, 4)))
        words = normalized_key(mention).split()
        [hit] = _hits((alias, 0.8))
        cover_the_mention(mention, [hit])
        expected = len(words) > 1 and _letters_covered(words, alias) < MIN_COVERAGE
        assert hit.partial is expected, (mention, alias)
        assert partial(words, alias) is expected
        cases += expected
    assert 300 < cases < 2700  # both answers were tested, often


# -- the re-ranker's likeness features ------------------------------------------------------


def test_a_likeness_feature_that_fits_below_zero_is_dropped() -> None:
    rng = np.random.default_rng(0)
    n = 4_000
    x = rng.normal(size=(n, len(FEATURES)))
    at = {name: FEATURES.index(name) for name in ("cosine", "edit_similarity", "rank")}
    # The sample says: higher cosine is right, higher edit similarity and rank are wrong.
    z = 2 * x[:, at["cosine"]] - 1.5 * x[:, at["edit_similarity"]] - x[:, at["rank"]]
    y = (rng.random(n) < 1 / (1 + np.exp(-z))).astype(np.int64)
    coef, _ = _fit_monotone(x, y, seed=0)
    assert coef[at["edit_similarity"]] == 0.0  # a likeness feature: never below zero
    assert coef[at["cosine"]] > 1.0  # what it is fitted to
    assert coef[at["rank"]] < -0.5  # not a likeness feature: its sign is the data's
    assert all(coef[FEATURES.index(name)] >= 0.0 for name in MONOTONE)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LinkerIndex]:
    directory = tmp_path_factory.mktemp("index") / "idx"
    build_index(vocabulary(400), directory, SETTINGS, key="test", source={"label": "ops"})
    opened = LinkerIndex(directory, ef_search=100, threads=1)
    yield opened
    opened.close()


def test_a_candidate_more_like_the_mention_never_scores_lower(index: LinkerIndex) -> None:
    reranker = index.reranker
    assert reranker.trained and reranker.model is not None
    weights = dict(zip(FEATURES, reranker.model["coef"], strict=True))
    assert all(weights[name] >= 0.0 for name in MONOTONE)
    # Candidates like the training's: about its mean feature row.
    rng = np.random.default_rng(1)
    mean = np.asarray(reranker.model["mean"], dtype=np.float64)
    scale = np.asarray(reranker.model["scale"], dtype=np.float64)
    base: npt.NDArray[np.float64] = mean + 0.5 * scale * rng.normal(size=(50, len(FEATURES)))
    for name in MONOTONE:
        closer = base.copy()
        closer[:, FEATURES.index(name)] += 0.2
        assert (reranker.score(closer) >= reranker.score(base)).all(), name
    # A feature that is not likeness may lower the score: a lower rank among the neighbours.
    later = base.copy()
    later[:, FEATURES.index("rank")] += 0.5
    assert (reranker.score(later) < reranker.score(base)).all()


# -- the calibration map --------------------------------------------------------------------


def test_the_map_reads_a_score_as_np_interp_does() -> None:
    knots = ([0.0, 0.2, 0.5, 0.9, 1.0, 1.0], [0.0, 0.01, 0.3, 0.7, 0.999, 1.0])
    rng = random.Random(2)
    for score in [*(rng.random() for _ in range(2_000)), *knots[0], -0.1, 1.2, 0.2, 0.5]:
        expected = float(np.interp(score, knots[0], knots[1]))
        assert _interpolate(score, knots) == pytest.approx(expected, abs=1e-12), score
    # Flat maps (one share for every edit) stay flat.
    assert _interpolate(0.3, ([0.0, 1.0], [0.45, 0.45])) == 0.45


def test_a_partial_neighbour_is_never_read_above_the_partial_score() -> None:
    # A map fitted on few synonyms that reads a halved 0.46 as 0.79 precise, as the sample's
    # did once a sweep of consumer terms was added ("Ménières Disease" -> "Disease").
    generous = Calibration(maps={TFIDF: ([0.0, 0.46, 1.0], [0.0, 0.79, 1.0])})
    hits = _hits(("disease", 0.92), ("meniere disease", 0.92))
    cover_the_mention("Ménières Disease", hits)
    part, whole = hits
    assert part.partial and not whole.partial and part.score == pytest.approx(0.46)
    # Read up to the guard's bound, never past it: a partial neighbour clears no threshold
    # above PARTIAL_SCORE, whatever the map.
    assert generous.estimate(Method.TFIDF, part.score, partial=part.partial) == PARTIAL_SCORE
    assert generous.estimate(Method.TFIDF, part.score) == pytest.approx(0.79)  # the map alone
    # A whole neighbour reads as the map says, up or down; a partial one may go down.
    assert generous.estimate(Method.TFIDF, whole.score) > whole.score
    strict = Calibration(maps={TFIDF: ([0.0, 1.0], [0.0, 0.5])})
    assert strict.estimate(Method.TFIDF, 0.46, partial=True) == pytest.approx(0.23)
