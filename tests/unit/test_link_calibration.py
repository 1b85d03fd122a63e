"""The TF-IDF score read as an estimated precision: the isotonic fit (pool-adjacent-
violators), the calibration error, the maps fitted at index-build time on held-out synonyms
of a real index (scispaCy TF-IDF, nmslib HNSW, SQLite), and their use by the linker."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from kgverify.link.calibration import (
    EDIT,
    TFIDF,
    Calibration,
    calibration_error,
    isotonic,
    knots_of,
)
from kgverify.link.index import LinkerIndex, build_index
from kgverify.link.linker import Linker, MentionQuery
from kgverify.link.model import Method
from tests.unit.hand_kb import PARAMS, SETTINGS
from tests.unit.test_link_rerank import vocabulary


def test_isotonic_pools_violators_and_rises() -> None:
    # 0.2 right, 0.4 wrong, 0.6 right, 0.8 right: the middle pair violates and is pooled.
    xs, ys = isotonic([0.2, 0.4, 0.6, 0.8], [1, 0, 1, 1])
    assert ys == sorted(ys) and len(set(ys)) == len(ys)
    assert xs[0] == pytest.approx(0.3) and ys[0] == pytest.approx(0.5)
    assert ys[-1] == pytest.approx(1.0)


def test_isotonic_of_a_monotone_sample_keeps_each_point() -> None:
    xs, ys = isotonic([0.1, 0.5, 0.9], [0.0, 0.5, 1.0])
    assert xs == [0.1, 0.5, 0.9] and ys == [0.0, 0.5, 1.0]


def test_the_map_rises_strictly_and_is_anchored() -> None:
    rng = random.Random(1)
    scores = [rng.random() for _ in range(500)]
    labels = [float(rng.random() < s * s) for s in scores]
    xs, ys = knots_of(scores, labels)
    assert (xs[0], ys[0], xs[-1], ys[-1]) == (0.0, 0.0, 1.0, 1.0)
    assert all(b > a for a, b in pairwise(ys))
    calibration = Calibration({TFIDF: (xs, ys)})
    low, high = (calibration.estimate(Method.TFIDF, s) for s in (0.5, 0.9))
    # the labels were drawn right with probability s squared
    assert low == pytest.approx(0.25, abs=0.12) and high == pytest.approx(0.81, abs=0.12)


def test_calibration_error_is_zero_when_estimates_match_and_large_when_not() -> None:
    labels = [1.0] * 8 + [0.0] * 2
    assert calibration_error([0.8] * 10, labels) == pytest.approx(0.0)
    assert calibration_error([0.3] * 10, labels) == pytest.approx(0.5)
    assert calibration_error([], []) == 0.0


def test_only_tfidf_and_edit_scores_are_mapped() -> None:
    calibration = Calibration({TFIDF: ([0.0, 1.0], [0.0, 0.5]), EDIT: ([0.0, 1.0], [0.7, 0.7])})
    assert calibration.estimate(Method.TFIDF, 0.8) == pytest.approx(0.4)
    assert calibration.estimate(Method.EDIT, 0.9) == pytest.approx(0.7)
    assert calibration.estimate(Method.EXACT, 1.0) == 1.0
    assert calibration.estimate(Method.VARIANT, 0.9) == 0.9
    # no map fitted for re-ranked scores: they pass unchanged
    assert calibration.estimate(Method.TFIDF, 0.8, reranked=True) == 0.8
    assert not Calibration().fitted


def test_a_map_of_another_version_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    Calibration({TFIDF: ([0.0, 1.0], [0.0, 0.5])}, {"queries": 9}).save(path)
    assert Calibration.load(path).estimate(Method.TFIDF, 0.8) == pytest.approx(0.4)
    payload = json.loads(path.read_text())
    path.write_text(json.dumps(payload | {"version": 0}))
    assert not Calibration.load(path).fitted


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LinkerIndex]:
    directory = tmp_path_factory.mktemp("index") / "idx"
    info = build_index(vocabulary(400), directory, SETTINGS, key="t", source={"label": "cal"})
    assert info.calibration["queries"] >= 30
    opened = LinkerIndex(directory, ef_search=100, threads=1)
    yield opened
    opened.close()


def test_the_build_fits_maps_on_held_out_synonyms(index: LinkerIndex) -> None:
    calibration = index.calibration
    assert calibration.fitted and TFIDF in calibration.maps
    stats = calibration.stats[TFIDF]
    # measured on synonyms kept out of the fit: closer to the truth than the raw cosine
    assert stats["held_out_ece"] < stats["raw_ece"]
    assert index.info.calibration == calibration.stats


def test_the_linker_scores_neighbours_as_estimated_precision(index: LinkerIndex) -> None:
    [entry] = [e for e in vocabulary(400) if e.id == "R:7"]
    misspelt = entry.name[:3] + entry.name[4] + entry.name[3] + entry.name[5:] + " syndrome"
    calibrated = Linker(index, PARAMS.model_copy(update={"threshold": 0.0}))
    raw = Linker(
        index, PARAMS.model_copy(update={"threshold": 0.0, "disabled": frozenset({"calibration"})})
    )
    [on] = calibrated.link([MentionQuery(misspelt)])
    [off] = raw.link([MentionQuery(misspelt)])
    top_on, top_off = on.candidates[0], off.candidates[0]
    assert top_on.concept_id == top_off.concept_id  # a monotone map: the same ranking
    assert top_off.method is Method.TFIDF
    expected = index.calibration.estimate(Method.TFIDF, top_off.score)
    assert top_on.score == pytest.approx(expected, abs=1e-3)
    assert top_on.score != pytest.approx(top_off.score, abs=1e-3)
