"""The re-ranker trained at index-build time on held-out synonyms of a KB (seeded, built
here with real scispaCy TF-IDF, nmslib HNSW, SQLite and scikit-learn), and its use by the
linker's TF-IDF stage."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from kgverify.link.index import IndexSettings, LinkerIndex, build_index
from kgverify.link.kb import KbEntry
from kgverify.link.linker import Linker, LinkParams, MentionQuery
from kgverify.link.mined import MinedTables
from kgverify.link.model import Method
from kgverify.link.normalize import exact_key, normalized_key
from kgverify.link.rerank import (
    FEATURES,
    Candidate,
    Reranker,
    features,
    rescore_all,
    train,
)
from kgverify.link.scoring import Hit

SETTINGS = IndexSettings(min_df=1, m=16, ef_construction=100, ef_search=100, threads=1)
PARAMS = LinkParams(threshold=0.8, margin=0.05, k=30, rerank=True)
NO_RERANK = LinkParams(threshold=0.8, margin=0.05, k=30)


def _word(rng: random.Random) -> str:
    consonants, vowels = "bcdfghklmnprstvz", "aeiou"
    return "".join(rng.choice(consonants) + rng.choice(vowels) for _ in range(rng.randint(3, 5)))


def _misspelt(word: str, rng: random.Random) -> str:
    at = rng.randrange(1, len(word) - 2)
    return word[:at] + word[at + 1] + word[at] + word[at + 2 :]


def vocabulary(concepts: int, seed: int = 3) -> list[KbEntry]:
    """Two-word names with spelling variants and a qualifier: what a held-out synonym can
    only be found through by its concept's other names."""
    rng = random.Random(seed)
    entries = []
    for n in range(concepts):
        head, tail = _word(rng), _word(rng)
        names = [f"{_misspelt(head, rng)} {tail}", f"{head} {tail} disease", f"{head}ic {tail}"]
        entries.append(
            KbEntry(id=f"R:{n}", vocab="R", name=f"{head} {tail}", names=names, kinds=["disorder"])
        )
    return entries


ENTRIES = vocabulary(400)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LinkerIndex]:
    directory = tmp_path_factory.mktemp("index") / "idx"
    info = build_index(ENTRIES, directory, SETTINGS, key="test", source={"label": "rerank"})
    assert info.reranker is not None and info.reranker["queries"] >= 300
    opened = LinkerIndex(directory, ef_search=100, threads=1)
    yield opened
    opened.close()


def test_the_model_is_trained_calibrated_and_stored(index: LinkerIndex) -> None:
    reranker = index.reranker
    assert reranker.trained and reranker.model is not None
    figures = reranker.model["training"]
    assert figures["positives"] > 0 and figures["candidates"] > figures["positives"]
    # Calibrated on held-out queries: what clears 0.8 there is mostly right.
    precision = figures["calibration_precision_at_0.8"]
    assert precision is not None and precision >= 0.8
    assert reranker.names(0) == 4  # preferred name and three synonyms


def test_training_is_deterministic(index: LinkerIndex) -> None:
    counts = index.reranker.name_counts
    first = train(index, index.mined, counts)
    again = train(index, index.mined, counts)
    assert first is not None and again is not None
    first.pop("training")
    again.pop("training")
    assert first == again


def test_the_right_concept_scores_above_a_wrong_one(index: LinkerIndex) -> None:
    entry = ENTRIES[7]
    other = ENTRIES[8]
    right = Candidate(entry.names[1], 0.7, 0, entry, 4, False)
    wrong = Candidate(other.name, 0.3, 1, other, 4, False)
    query = entry.name.replace(" ", "") + " disorder"
    scores = index.reranker.score(features(query, [right, wrong], 30))
    assert scores.shape == (2,) and scores[0] > 2 * scores[1]
    assert scores[1] < 0.1


def test_the_linker_uses_the_calibrated_score_behind_a_switch(index: LinkerIndex) -> None:
    entry = ENTRIES[11]
    head, tail = entry.name.split()
    mention = f"{head}y {tail} diseases syndrome"  # no name, no typo: the TF-IDF stage
    [on] = Linker(index, PARAMS).link([MentionQuery(mention)])
    [off] = Linker(index, NO_RERANK).link([MentionQuery(mention)])
    cosines = {c.concept_id: c.score for c in off.candidates if c.method is Method.TFIDF}
    rescored = {c.concept_id: c.score for c in on.candidates if c.method is Method.TFIDF}
    assert cosines and rescored.keys() == cosines.keys()
    assert rescored != cosines  # the calibrated probability, not the cosine
    assert on.candidates[0].concept_id == entry.id


def test_a_batch_is_rescored_as_each_query_alone(index: LinkerIndex) -> None:
    # The linker scores a batch's candidates in one model evaluation: every hit must get the
    # probability the model gives its own query's candidates evaluated alone.
    queries = [f"{e.name.split()[0]}y {e.name.split()[1]} syndrome" for e in ENTRIES[20:60]]
    found = index.neighbours(queries, 30)
    rows = {row for hits in found for p, _ in hits for row in index.rows_of_alias(p)}
    entries = index.store.concepts(rows)
    reranker, mined = index.reranker, index.mined
    batch = [
        (
            q,
            [
                Hit(r, s, Method.TFIDF, index.aliases[p])
                for p, s in h
                for r in index.rows_of_alias(p)
            ],
        )
        for q, h in zip(queries, found, strict=True)
    ]
    expected: dict[tuple[int, int], float] = {}
    for n, (query, hits) in enumerate(batch):
        ranked = sorted(hits, key=lambda h: (-h.score, h.row))
        rewrites = set(mined.rewrites(normalized_key(query)))
        candidates = [
            Candidate(
                h.alias,
                h.score,
                rank,
                entries[h.row],
                reranker.names(h.row),
                normalized_key(h.alias) in rewrites,
            )
            for rank, h in enumerate(ranked)
        ]
        alone = reranker.score(features(exact_key(query), candidates, 30))
        expected.update(((n, h.row), float(p)) for h, p in zip(ranked, alone, strict=True))
    rescore_all(batch, reranker, entries, mined, 30)
    got = {(n, h.row): h.score for n, (_, hits) in enumerate(batch) for h in hits}
    assert len(got) > 200 and got.keys() == expected.keys()
    assert got == pytest.approx(expected, abs=1e-12)
    assert len(set(got.values())) > 100  # varied probabilities, not one constant


def test_a_tiny_kb_trains_nothing_and_keeps_the_cosine(tmp_path: Path) -> None:
    small = vocabulary(10, seed=5)
    info = build_index(small, tmp_path / "idx", SETTINGS, key="tiny", source={"label": "tiny"})
    assert info.reranker is None
    index = LinkerIndex(tmp_path / "idx", ef_search=100, threads=1)
    try:
        assert not index.reranker.trained
        mention = small[0].name.replace(" ", "") + " thing"
        [on] = Linker(index, PARAMS).link([MentionQuery(mention)])
        [off] = Linker(index, NO_RERANK).link([MentionQuery(mention)])
        assert on.candidates == off.candidates
    finally:
        index.close()


def test_a_model_of_another_feature_set_is_not_used(index: LinkerIndex, tmp_path: Path) -> None:
    index.reranker.save(tmp_path)
    assert Reranker.load(tmp_path).trained
    text = (tmp_path / "reranker.json").read_text()
    (tmp_path / "reranker.json").write_text(text.replace(f'"{FEATURES[0]}"', '"other"', 1))
    stale = Reranker.load(tmp_path)
    assert not stale.trained
    assert np.array_equal(stale.score(np.zeros((2, len(FEATURES)))), np.zeros(2))
    assert MinedTables().rewrites("x") == []
