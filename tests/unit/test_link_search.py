"""How TF-IDF neighbours are found (``KnnSearch``) and the alternatives a resolved mention
lists: a real index built from the hand-made KB of test_link_linker (real scispaCy TF-IDF,
real nmslib HNSW, real SQLite store)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse

from kgverify.api import sample_path
from kgverify.link.index import ALIAS_NEIGHBOURS, KnnSearch, LinkerIndex, build_index
from kgverify.link.kb import KbEntry
from kgverify.link.linker import ALTERNATIVES, Linker, MentionQuery
from kgverify.link.model import LinkStatus, Method
from kgverify.link.normalize import exact_key
from tests.unit.test_link_linker import ENTRIES, PARAMS, SETTINGS

QUERIES = ["myocardial infraction", "hypertensive disease", "metformine", "otitis", "ileitis x"]


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("index") / "idx"
    build_index(ENTRIES, directory, SETTINGS, key="search", source={"label": "hand-made"})
    return directory


@pytest.fixture(scope="module")
def brute(index_dir: Path) -> list[dict[int, float]]:
    """Every alias's cosine for each query, by a dense product over all 3-grams."""
    index = LinkerIndex(index_dir, ef_search=100, threads=1)
    try:
        vectors = scipy.sparse.load_npz(index._paths.tfidf_vectors).toarray()
        queries = index.vectorizer.transform([exact_key(q) for q in QUERIES]).toarray()
        cosine = queries @ vectors.T
        return [
            {int(index.positions[j]): float(row[j]) for j in np.flatnonzero(row > 0)}
            for row in cosine
        ]
    finally:
        index.close()


def neighbours(directory: Path, search: KnnSearch, k: int = 10) -> list[list[tuple[int, float]]]:
    index = LinkerIndex(directory, ef_search=100, threads=1, search=search)
    try:
        return index.neighbours([exact_key(q) for q in QUERIES], k)
    finally:
        index.close()


def test_rare_search_with_every_gram_rare_is_the_exact_search(
    index_dir: Path, brute: list[dict[int, float]]
) -> None:
    found = neighbours(
        index_dir, KnnSearch(mode="rare", rare_df=10_000, rare_share=1.0, rare_pool=1_000)
    )
    for got, want in zip(found, brute, strict=True):
        best = sorted(want.items(), key=lambda pair: -pair[1])[:10]
        assert [p for p, _ in got] == [p for p, _ in best] or (
            # equal similarities may come in either order
            sorted(s for _, s in got) == pytest.approx(sorted(s for _, s in best), abs=1e-5)
        )
        for position, similarity in got:
            assert similarity == pytest.approx(want[position], abs=1e-5)
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)


def test_rare_search_scores_with_all_grams_but_finds_only_through_rare_ones(
    index_dir: Path, brute: list[dict[int, float]]
) -> None:
    """With a low bound, every alias found shares a rare 3-gram with the mention, and it
    carries its full cosine, not the rare part of it."""
    index = LinkerIndex(index_dir, ef_search=100, threads=1)
    try:
        vectors = scipy.sparse.load_npz(index._paths.tfidf_vectors).tocsc()
        frequency = np.diff(vectors.indptr)
        queries = index.vectorizer.transform([exact_key(q) for q in QUERIES]).tocsr()
        row_of = {int(p): r for r, p in enumerate(index.positions)}
        dense = vectors.tocsr()
    finally:
        index.close()
    some = neighbours(index_dir, KnnSearch(mode="rare", rare_df=1, rare_pool=50))
    assert any(some)
    for at, (got, want) in enumerate(zip(some, brute, strict=True)):
        grams = set(queries[at].indices.tolist())
        for position, similarity in got:
            shared = grams & set(dense[row_of[position]].indices.tolist())
            assert any(frequency[g] <= 1 for g in shared)
            assert similarity == pytest.approx(want[position], abs=1e-5)


def test_both_is_at_least_as_good_as_hnsw(index_dir: Path) -> None:
    hnsw = neighbours(index_dir, KnnSearch(mode="hnsw"), k=3)
    both = neighbours(index_dir, KnnSearch(mode="both", rare_df=10_000, rare_share=1.0), k=3)
    for h, b in zip(hnsw, both, strict=True):
        assert len(b) >= len(h)
        # rank by rank at least as similar (float32 sums differ in the last digits)
        for (_, got), (_, had) in zip(b, h, strict=False):
            assert got >= had - 1e-5


def test_the_share_bounds_rare_on_a_small_kb(index_dir: Path) -> None:
    """The bound is the smaller of rare_df and rare_share of the aliases: on a small KB an
    absolute rare_df alone calls every 3-gram rare."""
    from kgverify.link.index import _RareSearch

    index = LinkerIndex(index_dir, ef_search=100, threads=1)
    try:
        vectors = scipy.sparse.load_npz(index._paths.tfidf_vectors).tocsr()
    finally:
        index.close()
    frequency = np.diff(vectors.tocsc().indptr)
    aliases = vectors.shape[0]
    assert frequency.max() > 2  # some 3-gram is common here
    everything = _RareSearch(vectors, rare_df=10_000, rare_share=1.0)
    assert len(everything.rare) == vectors.shape[1]
    bounded = _RareSearch(vectors, rare_df=10_000, rare_share=2 / aliases)
    assert set(bounded.rare.tolist()) == set(np.flatnonzero(frequency <= 2).tolist())
    by_df = _RareSearch(vectors, rare_df=2, rare_share=1.0)
    assert set(by_df.rare.tolist()) == set(bounded.rare.tolist())


def test_rare_search_in_threads_is_the_same_search(index_dir: Path) -> None:
    """The product split over threads gives each mention the same neighbours."""
    search = KnnSearch(mode="rare", rare_df=10_000, rare_share=1.0, rare_pool=5)
    one = LinkerIndex(index_dir, ef_search=100, threads=1, search=search)
    two = LinkerIndex(index_dir, ef_search=100, threads=2, search=search)
    try:
        texts = [exact_key(q) for q in QUERIES] * 3
        assert two.neighbours(texts, 5) == one.neighbours(texts, 5)
    finally:
        one.close()
        two.close()


def link(directory: Path, text: str, alternatives: bool) -> tuple[object, list[str]]:
    index = LinkerIndex(directory, ef_search=100, threads=1, search=KnnSearch(mode="both"))
    try:
        linker = Linker(index, PARAMS.model_copy(update={"alternatives": alternatives}))
        [result] = linker.link([MentionQuery(text)])
    finally:
        index.close()
    return result, [c.concept_id for c in result.candidates]


def test_alternatives_list_neighbours_of_a_name_match_without_changing_the_decision(
    index_dir: Path,
) -> None:
    plain, plain_ids = link(index_dir, "hyponatremia", alternatives=False)
    listed, listed_ids = link(index_dir, "hyponatremia", alternatives=True)
    assert plain.status is listed.status is LinkStatus.LINKED  # type: ignore[attr-defined]
    assert plain.concept_id == listed.concept_id == "UMLS:C0020625"  # type: ignore[attr-defined]
    assert plain.margin == listed.margin  # type: ignore[attr-defined]
    assert listed_ids[: len(plain_ids)] == plain_ids
    # The near name the vocabulary keeps apart is shown after, as a TF-IDF neighbour.
    assert "UMLS:C0020598" in listed_ids[len(plain_ids) :]
    assert "UMLS:C0020598" not in plain_ids
    extra = listed.candidates[len(plain_ids) :]  # type: ignore[attr-defined]
    assert all(c.method is Method.TFIDF for c in extra)


def test_a_searched_mention_gets_no_alternatives(index_dir: Path) -> None:
    plain, plain_ids = link(index_dir, "hypertensive disease", alternatives=False)
    listed, listed_ids = link(index_dir, "hypertensive disease", alternatives=True)
    assert listed_ids == plain_ids
    assert listed.status is plain.status  # type: ignore[attr-defined]


def test_stored_neighbours_are_the_hnsw_search_of_the_name(index_dir: Path) -> None:
    index = LinkerIndex(index_dir, ef_search=100, threads=1, search=KnnSearch(mode="hnsw"))
    try:
        for alias in ("hyponatremia", "hypernatremia", "metformin"):
            stored = index.stored_neighbours(alias)
            assert stored is not None, alias
            [live] = index.neighbours([alias], ALIAS_NEIGHBOURS)
            # Names sharing no 3-gram (cosine 0) come in any order; neither list uses them.
            stored, live = [n for n in stored if n[1] > 0], [n for n in live if n[1] > 0]
            assert [p for p, _ in stored] == [p for p, _ in live], alias
            assert [s for _, s in stored] == pytest.approx([s for _, s in live], abs=1e-6)
            assert index.aliases[stored[0][0]] == alias  # itself first, at cosine 1
        assert index.stored_neighbours("hyponatraemia") is None  # not an indexed name
    finally:
        index.close()


def test_a_mention_that_is_no_indexed_name_lists_its_concepts_neighbours(index_dir: Path) -> None:
    # British spelling: resolved by the normalized name, listed from "hyponatremia"'s
    # stored neighbours without a search.
    found, ids = link(index_dir, "Hyponatraemia", alternatives=True)
    assert found.concept_id == "UMLS:C0020625"  # type: ignore[attr-defined]
    assert found.method is Method.NORMALIZED  # type: ignore[attr-defined]
    assert "UMLS:C0020598" in ids[1:]


def test_a_resolved_mention_lists_at_most_five_concepts(index_dir: Path) -> None:
    for text in ("hyponatremia", "metformin", "Hyponatraemia"):
        _, ids = link(index_dir, text, alternatives=True)
        assert 1 < len(set(ids)) <= ALTERNATIVES, (text, ids)


def _sample_snomed_entries() -> list[KbEntry]:
    """The shipped sample's SNOMED CT descriptions (RF2), a concept's terms as one entry."""
    folder = sample_path("snomed") / "SnomedCT_InternationalRF2_PRODUCTION_20250601T120000Z"
    [file] = (folder / "Snapshot" / "Terminology").glob("sct2_Description_Snapshot-*.txt")
    terms: dict[str, list[str]] = {}
    with file.open(encoding="utf-8") as rows:
        next(rows)  # header
        for line in rows:
            cols = line.rstrip("\n").split("\t")
            if cols[2] == "1":  # active
                terms.setdefault(f"SNOMEDCT:{cols[4]}", []).append(cols[7])
    return [KbEntry(id=c, vocab="SNOMEDCT", name=t[0], names=t[1:]) for c, t in terms.items()]


def test_two_builds_on_one_thread_give_the_same_index(tmp_path: Path) -> None:
    # nmslib's level generator lives per thread and a build advances it: built twice on
    # this thread, the HNSW graph (and the neighbours stored from it) differed.
    entries = _sample_snomed_entries()
    assert len(entries) > 300
    built = []
    for name in ("first", "second"):
        build_index(entries, tmp_path / name, SETTINGS, key="same", source={"label": "sample"})
        files = sorted((tmp_path / name).iterdir())
        built.append(
            {
                f.name: _untimed(json.loads(f.read_text()))
                if f.suffix == ".json"
                else f.read_bytes()
                for f in files
            }
        )
    assert "nmslib_index.bin" in built[0] and "alias_neighbours.npy" in built[0]
    assert [k for k in built[0] if built[0][k] != built[1].get(k)] == []


def _untimed(value: Any) -> Any:
    """A JSON value without its "seconds" and "build_seconds" fields (how long a step took)."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if not k.endswith("seconds")}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value
