"""The linker index: scispaCy's char-3-gram TF-IDF vectorizer and nmslib HNSW index, built
from a knowledge base, in scispaCy's own file layout (``LinkerPaths``) plus kgverify's
SQLite store and alias arrays.

scispaCy's ``create_tfidf_ann_index`` cannot run with scipy >= 1.11 (it saves float16
sparse vectors) and hard-codes its HNSW settings; this module builds the same artefacts with
float32 vectors and configurable settings, and scispaCy's loader reads them back unchanged.

An index is built in a temporary folder and renamed into place, so an interrupted build
leaves nothing a later run could mistake for an index. Indexes built from the graph are
cached under ``<cache_dir>/linker/<key>``, the key naming the releases loaded and the
settings, so loading a new release (or changing a setting) builds a new index.
"""

from __future__ import annotations

import bisect
import ctypes
import ctypes.util
import gc
import hashlib
import json
import logging
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import joblib
import nmslib
import numpy as np
import numpy.typing as npt
import scipy.sparse
from pydantic import BaseModel, ConfigDict, Field
from scispacy.candidate_generation import LinkerPaths, load_approximate_nearest_neighbours_index
from sklearn.feature_extraction.text import TfidfVectorizer

from kgverify.config import Settings
from kgverify.errors import KgverifyError
from kgverify.graph.driver import Graph
from kgverify.graph.queries import get_query
from kgverify.link.calibration import CALIBRATION_VERSION, Calibration, fit_calibration
from kgverify.link.kb import KbEntry, KbStore, StoreKnowledgeBase, export_entries
from kgverify.link.mined import MINED_VERSION, MinedTables, mine
from kgverify.link.normalize import exact_key
from kgverify.link.rerank import RERANK_VERSION, Reranker, name_counts, train

log = logging.getLogger(__name__)

INDEX_FORMAT = 15  # 15: the HNSW graph built on one thread, the same on every build
"""Bumped whenever the files of an index change meaning; part of the cache key."""

SPACE = "cosinesimil_sparse_fast"
"""nmslib's faster implementation of scispaCy's space (cosine over sparse vectors): the same
distances, about 1.5x faster to build and search here. The HNSW graph it writes is space-
independent, so scispaCy's loader (``cosinesimil_sparse``) reads it unchanged."""


class LinkerIndexError(KgverifyError):
    """A linker index is missing, incomplete or from another format version."""


KnnMode = Literal["hnsw", "rare", "both"]


class KnnSearch(BaseModel):
    """How TF-IDF neighbours are found at query time (docs/linking.md, "Neighbours").

    ``hnsw`` asks scispaCy's approximate HNSW graph. ``rare`` scores exactly every alias
    that shares one of the mention's *rare* 3-grams (found in at most ``rare_df`` aliases and
    at most ``rare_share`` of them: on a small KB an absolute bound calls nearly every 3-gram
    rare and the "short" lists are most of the KB):
    those short posting lists keep the product small, and the best ``rare_pool`` of them per
    mention are then rescored with the full cosine. HNSW with kgverify's light build settings
    misses true neighbours that the exact search finds (docs/benchmarks.md); ``both`` takes
    the union."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: KnnMode = "hnsw"
    rare_df: int = Field(default=3000, ge=1, description="a 3-gram in more aliases is common")
    rare_share: float = Field(
        default=0.025, gt=0.0, le=1.0, description="...or in a larger share of the aliases"
    )
    rare_pool: int = Field(default=50, ge=1, description="aliases rescored per mention")


class IndexSettings(BaseModel):
    """How the TF-IDF vectorizer and the HNSW index are built and searched."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    min_df: int = Field(ge=1, description="drop 3-grams found in fewer aliases")
    m: int = Field(ge=2, description="HNSW M: links per node")
    ef_construction: int = Field(ge=10, description="HNSW efConstruction")
    ef_search: int = Field(ge=1, description="HNSW efSearch (query time; not in the cache key)")
    threads: int = Field(ge=1)
    search: KnnSearch = Field(default_factory=lambda: KnnSearch(), description="query time")

    @classmethod
    def from_settings(cls, settings: Settings) -> IndexSettings:
        return cls(
            min_df=settings.index_min_df,
            m=settings.index_m,
            ef_construction=settings.index_ef_construction,
            ef_search=settings.index_ef_search,
            threads=settings.index_threads,
            search=KnnSearch(
                mode=settings.index_search,
                rare_df=settings.index_rare_df,
                rare_share=settings.index_rare_share,
                rare_pool=settings.index_rare_pool,
            ),
        )

    def build_key(self) -> dict[str, int]:
        """The settings an index's contents depend on."""
        return {"min_df": self.min_df, "m": self.m, "ef_construction": self.ef_construction}


SCISPACY_STOCK = {"min_df": 10, "m": 100, "ef_construction": 2000, "ef_search": 200}
"""The settings scispaCy's ``create_tfidf_ann_index`` hard-codes (for comparisons)."""


class IndexInfo(BaseModel):
    """``meta.json`` of an index: what it was built from and what it holds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    format: int
    key: str
    source: dict[str, Any] = Field(description="releases (graph) or a label (file)")
    settings: dict[str, int]
    concepts: int
    aliases: int
    indexed_aliases: int = Field(description="aliases with a non-empty TF-IDF vector")
    build_seconds: float
    mined: dict[str, int] = Field(default_factory=dict, description="mined.MinedTables.stats")
    reranker: dict[str, Any] | None = Field(
        default=None, description="re-ranker training figures (None: not trained)"
    )
    calibration: dict[str, Any] = Field(
        default_factory=dict, description="calibration.Calibration.stats (fit figures)"
    )


@dataclass(frozen=True)
class _Files:
    """Where each file of an index lives (scispaCy's names for scispaCy's files)."""

    root: Path

    @property
    def scispacy(self) -> LinkerPaths:
        return LinkerPaths.from_directory(self.root)

    @property
    def store(self) -> Path:
        return self.root / "kb.sqlite"

    @property
    def alias_concepts(self) -> Path:
        return self.root / "alias_concepts.npz"

    @property
    def meta(self) -> Path:
        return self.root / "meta.json"

    @property
    def all_aliases(self) -> Path:
        return self.root / "all_aliases.json"

    @property
    def mined(self) -> Path:
        return self.root / "mined.json"

    @property
    def reranker(self) -> Path:
        return self.root / "reranker.json"

    @property
    def calibration(self) -> Path:
        return self.root / "calibration.json"

    @property
    def neighbour_ids(self) -> Path:
        return self.root / "alias_neighbours.npy"

    @property
    def neighbour_similarities(self) -> Path:
        return self.root / "alias_similarities.npy"


def build_index(
    entries: Iterable[KbEntry],
    directory: Path,
    settings: IndexSettings,
    *,
    key: str,
    source: dict[str, Any],
) -> IndexInfo:
    """Build an index from entries into ``directory`` (replaced atomically if present)."""
    started = time.perf_counter()
    directory.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".building-", dir=directory.parent))
    try:
        files = _Files(work)
        store = KbStore(files.store, create=True)
        concepts = store.add(entries)
        aliases, offsets, rows = _alias_arrays(store.exact_aliases())
        # Learned from this KB's own names, so a new release relearns them (mined.py).
        tables = mine(store)
        tables.save(files.mined)
        counts = name_counts(store)
        store.close()
        log.info(
            "stored %d concepts, %d distinct aliases (%.1f s); fitting TF-IDF and HNSW",
            concepts,
            len(aliases),
            time.perf_counter() - started,
        )
        indexed = _build_ann(aliases, offsets, rows, files, settings)
        log.info("index built in %.1f s", time.perf_counter() - started)
        alias_count = len(aliases)
        # The training below opens the finished index beside what the build held: hand the
        # build's memory back first (940k aliases: 2,020 MB peak otherwise, issue 16).
        del aliases, offsets, rows
        release_memory()
        info = IndexInfo(
            format=INDEX_FORMAT,
            key=key,
            source=source,
            settings=settings.build_key(),
            concepts=concepts,
            aliases=alias_count,
            indexed_aliases=indexed,
            build_seconds=round(time.perf_counter() - started, 3),
        )
        # The re-ranker queries the finished TF-IDF index (rerank.py); an untrained one
        # (a tiny KB) leaves the linker on the cosine.
        Reranker(None, counts).save(work)
        Calibration().save(files.calibration)
        files.meta.write_text(info.model_dump_json(indent=2))
        opened = LinkerIndex(
            work, ef_search=settings.ef_search, threads=settings.threads, search=settings.search
        )
        try:
            model = train(opened, tables, counts)
            reranker = Reranker(model, counts)
            reranker.save(work)
            # Fitted on the finished index and re-ranker, which score what it calibrates.
            calibration = fit_calibration(opened, tables, reranker)
        finally:
            opened.close()
        calibration.save(files.calibration)
        info = info.model_copy(
            update={
                "mined": tables.stats,
                "reranker": model["training"] if model else None,
                "calibration": calibration.stats,
                "build_seconds": round(time.perf_counter() - started, 3),
            }
        )
        files.meta.write_text(info.model_dump_json(indent=2))
        if directory.exists():
            shutil.rmtree(directory)
        work.rename(directory)
    finally:
        if work.exists():
            shutil.rmtree(work)
    return info


def release_memory() -> None:
    """Collect garbage and return the C heap's free pages to the system (glibc's
    ``malloc_trim``; nothing elsewhere), so a process that freed a large build before its
    next phase does not keep both at its peak."""
    gc.collect()
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the allocator keeps its pages
        pass


def _alias_arrays(
    pairs: Iterator[tuple[str, int]],
) -> tuple[list[str], npt.NDArray[np.int64], npt.NDArray[np.int32]]:
    """Sorted unique aliases and, CSR-style, the concept rows of each."""
    aliases: list[str] = []
    offsets: list[int] = [0]
    rows: list[int] = []
    for key, row in pairs:
        if not aliases or aliases[-1] != key:
            if aliases:
                offsets.append(len(rows))
            aliases.append(key)
        rows.append(row)
    offsets.append(len(rows))
    if not aliases:
        offsets = [0]
    return aliases, np.asarray(offsets, dtype=np.int64), np.asarray(rows, dtype=np.int32)


def _build_ann(
    aliases: list[str],
    offsets: npt.NDArray[np.int64],
    rows: npt.NDArray[np.int32],
    files: _Files,
    settings: IndexSettings,
) -> int:
    if not aliases:
        raise LinkerIndexError("the knowledge base is empty: load a vocabulary first")
    paths = files.scispacy
    min_df = min(settings.min_df, len(aliases))
    vectorizer = TfidfVectorizer(
        analyzer="char_wb", ngram_range=(3, 3), min_df=min_df, dtype=np.float32
    )
    vectors = vectorizer.fit_transform(aliases)
    # nmslib crashes on all-zero vectors: index only aliases with at least one known 3-gram
    # (the exact and normalized stages still find the others).
    keep = np.asarray(vectors.getnnz(axis=1) > 0)
    kept = [alias for alias, flag in zip(aliases, keep, strict=True) if flag]
    vectors = vectors[keep]
    # The ANN index numbers the kept aliases; map them back to the full alias arrays.
    positions = np.flatnonzero(keep).astype(np.int64)
    joblib.dump(vectorizer, paths.tfidf_vectorizer)
    scipy.sparse.save_npz(paths.tfidf_vectors, vectors.astype(np.float32))
    with open(paths.concept_aliases_list, "w", encoding="utf-8") as out:
        json.dump(kept, out)
    with open(files.all_aliases, "w", encoding="utf-8") as out:
        json.dump(aliases, out)
    np.savez(files.alias_concepts, offsets=offsets, rows=rows, positions=positions)
    index = _hnsw(vectors, settings)
    # save_data writes the vectors next to the graph (<index>.dat): kgverify reloads both in
    # one step; scispaCy's loader ignores the file and re-adds the vectors from the npz.
    index.saveIndex(paths.ann_index, save_data=True)
    index.setQueryTimeParams({"efSearch": min(settings.ef_search, ALIAS_NEIGHBOURS_EF)})
    ids, similarities = _alias_neighbours(index, vectors, positions, len(aliases), settings)
    np.save(files.neighbour_ids, ids)
    np.save(files.neighbour_similarities, similarities)
    return len(kept)


def _hnsw(vectors: scipy.sparse.csr_matrix, settings: IndexSettings) -> Any:
    """The HNSW graph of ``vectors``, built on a thread of its own.

    nmslib draws each node's level from a per-thread generator seeded alike on every thread,
    and a build leaves it advanced: a second build on the same thread gave another graph (and
    other listed alternatives) from the same aliases. A fresh thread starts each build where a
    fresh process does.
    """

    def build() -> Any:
        index = nmslib.init(method="hnsw", space=SPACE, data_type=nmslib.DataType.SPARSE_VECTOR)
        index.addDataPointBatch(vectors)
        index.createIndex(
            {
                "M": settings.m,
                "efConstruction": settings.ef_construction,
                # One thread: HNSW's links depend on the order its threads insert in, so a
                # build on several gave other approximate neighbours each time (the sample's
                # links differed in a sixth of its relations, lower-ranked candidates only).
                # Searches stay parallel (`index_threads`): each query alone is deterministic.
                "indexThreadQty": 1,
                "post": 0,
            },
            print_progress=False,
        )
        return index

    with ThreadPoolExecutor(1) as fresh:
        return fresh.submit(build).result()


ALIAS_NEIGHBOURS = 10
"""Nearest aliases stored per alias at build time (itself among them): a mention a name
resolved lists its neighbours from them without a search (``LinkerIndex.stored_neighbours``)."""

ALIAS_NEIGHBOURS_EF = 20
"""HNSW efSearch of that build-time search (at most the index's own): the lists only feed the
listed alternatives. At 100 the search made the ChEBI build half as long again; 20 against 40
builds it in 58 s instead of 66 and changed recall@5 by -0.0011 on DOID, +0.0002 on ChEBI
(docs/benchmarks.md)."""

_NEIGHBOUR_BATCH = 20_000


def _alias_neighbours(
    index: Any,
    vectors: scipy.sparse.csr_matrix,
    positions: npt.NDArray[np.int64],
    alias_count: int,
    settings: IndexSettings,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
    """Per alias position, the alias positions of its ``ALIAS_NEIGHBOURS`` nearest aliases
    by HNSW and their cosines, best first (-1 / 0 where there are fewer, and for aliases
    without a vector). Queried in batches, so the answers never pile up as Python objects."""
    ids = np.full((alias_count, ALIAS_NEIGHBOURS), -1, dtype=np.int32)
    similarities = np.zeros((alias_count, ALIAS_NEIGHBOURS), dtype=np.float32)
    for start in range(0, vectors.shape[0], _NEIGHBOUR_BATCH):
        batch = vectors[start : start + _NEIGHBOUR_BATCH]
        found = index.knnQueryBatch(batch, k=ALIAS_NEIGHBOURS, num_threads=settings.threads)
        for offset, (ann_ids, distances) in enumerate(found):
            ranked = _ranked(zip(ann_ids.tolist(), (1.0 - distances).tolist(), strict=True))
            row, count = positions[start + offset], len(ranked)
            ids[row, :count] = positions[[i for i, _ in ranked]]
            similarities[row, :count] = [s for _, s in ranked]
    return ids, similarities


def _load_ann(paths: LinkerPaths, ef_search: int) -> Any:
    """The HNSW index with its vectors: from ``<index>.dat`` when the build saved them
    (one read, no re-adding of a million vectors), else scispaCy's way."""
    if not Path(paths.ann_index + ".dat").is_file():
        return load_approximate_nearest_neighbours_index(paths, ef_search=ef_search)
    index = nmslib.init(method="hnsw", space=SPACE, data_type=nmslib.DataType.SPARSE_VECTOR)
    index.loadIndex(paths.ann_index, load_data=True)
    index.setQueryTimeParams({"efSearch": ef_search})
    return index


class _AliasConcepts(Mapping[str, set[str]]):
    """scispaCy's ``alias_to_cuis`` over the sorted alias list and its concept rows."""

    def __init__(self, index: LinkerIndex) -> None:
        self._index = index

    def __getitem__(self, alias: str) -> set[str]:
        position = self._index.alias_position(alias)
        if position is None:
            raise KeyError(alias)
        rows = self._index.rows_of_alias(position)
        return {entry.id for entry in self._index.store.concepts(rows).values()}

    def __iter__(self) -> Iterator[str]:
        return iter(self._index.aliases)

    def __len__(self) -> int:
        return len(self._index.aliases)


class _RareSearch:
    """Exact cosine neighbours through the rare 3-grams (see ``KnnSearch``)."""

    def __init__(self, vectors: scipy.sparse.csr_matrix, rare_df: int, rare_share: float) -> None:
        self.vectors = vectors  # indexed aliases x 3-grams, rows L2-normalized
        by_gram = vectors.T.tocsr()
        frequency = np.diff(by_gram.indptr)
        bound = min(rare_df, max(1, int(rare_share * vectors.shape[0])))
        self.rare = np.flatnonzero(frequency <= bound)
        self.by_rare_gram = by_gram[self.rare]

    def search(
        self, queries: scipy.sparse.csr_matrix, pool: int, threads: int = 1
    ) -> list[dict[int, float]]:
        """Per query, {ANN alias number: cosine} of the best ``pool`` aliases by rare
        3-grams, rescored with all 3-grams. The product runs in ``threads`` slices of the
        queries: scipy's sparse kernels release the GIL, and on a small KB nearly every
        3-gram is rare, so this is most of the linker's time (issue 16)."""
        rows = queries.shape[0]
        step = max(1, -(-rows // max(1, threads)))
        slices = [slice(start, min(rows, start + step)) for start in range(0, rows, step)]
        if len(slices) > 1:
            with ThreadPoolExecutor(len(slices)) as executor:
                parts = list(executor.map(lambda part: self._pick(queries[part], pool), slices))
        else:
            parts = [self._pick(queries, pool)]
        picked = [aliases for part in parts for aliases in part]
        sizes = np.fromiter((len(p) for p in picked), dtype=np.int64, count=len(picked))
        if not sizes.sum():
            return [{} for _ in picked]
        alias_of = np.concatenate(picked)
        query_of = np.repeat(np.arange(len(picked)), sizes)
        cosine = np.asarray(queries[query_of].multiply(self.vectors[alias_of]).sum(axis=1))
        cosine = cosine.ravel()
        found: list[dict[int, float]] = []
        start = 0
        for size in sizes.tolist():
            ids = alias_of[start : start + size].tolist()
            found.append(dict(zip(ids, cosine[start : start + size].tolist(), strict=True)))
            start += size
        return found

    def _pick(self, queries: scipy.sparse.csr_matrix, pool: int) -> list[npt.NDArray[np.int32]]:
        """Per query, the ``pool`` aliases sharing the most rare 3-gram weight with it."""
        shared = (queries[:, self.rare] @ self.by_rare_gram).tocsr()
        picked: list[npt.NDArray[np.int32]] = []
        for row in range(shared.shape[0]):
            start, end = shared.indptr[row], shared.indptr[row + 1]
            aliases = shared.indices[start:end]
            if end - start > pool:
                aliases = aliases[np.argpartition(-shared.data[start:end], pool - 1)[:pool]]
            picked.append(aliases)
        return picked


class LinkerIndex:
    """An index opened for linking: vectorizer, HNSW index, alias arrays and store."""

    def __init__(
        self,
        directory: Path,
        ef_search: int,
        threads: int,
        *,
        search: KnnSearch | None = None,
    ) -> None:
        files = _Files(directory)
        if not files.meta.is_file() or not files.scispacy.is_locally_cached():
            raise LinkerIndexError(f"no linker index in {directory}")
        self.info = IndexInfo.model_validate_json(files.meta.read_text())
        if self.info.format != INDEX_FORMAT:
            raise LinkerIndexError(
                f"index in {directory} has format {self.info.format}, this kgverify reads "
                f"{INDEX_FORMAT}: rebuild it"
            )
        self.directory = directory
        self.threads = threads
        self.search = search or KnnSearch()
        paths = files.scispacy
        self._paths = paths
        # Local paths only: scispaCy's cached_path returns an existing local file unchanged.
        self.vectorizer: TfidfVectorizer = paths.get_tfidf_vectorizer()
        self.ann = _load_ann(paths, ef_search)
        with open(files.all_aliases, encoding="utf-8") as src:
            self.aliases: list[str] = json.load(src)
        arrays = np.load(files.alias_concepts)
        self.offsets: npt.NDArray[np.int64] = arrays["offsets"]
        self.rows: npt.NDArray[np.int32] = arrays["rows"]
        self.positions: npt.NDArray[np.int64] = arrays["positions"]
        needed = (
            files.mined,
            files.reranker,
            files.calibration,
            files.neighbour_ids,
            files.neighbour_similarities,
        )
        if not all(path.is_file() for path in needed):
            raise LinkerIndexError(f"linker index in {directory} lacks its mined or stored tables")
        self.mined = MinedTables.load(files.mined)
        # Read on use, page by page: most aliases are never a resolved mention.
        self.neighbour_ids: npt.NDArray[np.int32] = np.load(files.neighbour_ids, mmap_mode="r")
        self.neighbour_similarities: npt.NDArray[np.float32] = np.load(
            files.neighbour_similarities, mmap_mode="r"
        )
        self.reranker = Reranker.load(directory)
        self.calibration = Calibration.load(files.calibration)
        self.store = KbStore(files.store)
        self.kb = StoreKnowledgeBase(self.store, _AliasConcepts(self))
        if self.search.mode != "hnsw":
            _ = self._rare  # opened with the index, so the first batch is not slower

    @cached_property
    def indexed_aliases(self) -> list[str]:
        """The aliases in ANN order (scispaCy's ``ann_concept_aliases_list``), read on use."""
        aliases: list[str] = self._paths.get_concept_aliases()
        return aliases

    def alias_position(self, alias: str) -> int | None:
        at = bisect.bisect_left(self.aliases, alias)
        return at if at < len(self.aliases) and self.aliases[at] == alias else None

    def stored_neighbours(self, text: str) -> list[tuple[int, float]] | None:
        """The nearest aliases of ``text`` (an exact key) found at build time, as
        ``neighbours`` gives them (HNSW only, ``ALIAS_NEIGHBOURS_EF``); None when ``text`` is
        not an indexed alias."""
        position = self.alias_position(text)
        if position is None or self.neighbour_ids[position, 0] < 0:
            return None
        ids = self.neighbour_ids[position].tolist()
        similarities = self.neighbour_similarities[position].tolist()
        return [(i, s) for i, s in zip(ids, similarities, strict=True) if i >= 0]

    def rows_of_alias(self, position: int) -> list[int]:
        rows: list[int] = self.rows[self.offsets[position] : self.offsets[position + 1]].tolist()
        return rows

    def neighbours(self, texts: list[str], k: int) -> list[list[tuple[int, float]]]:
        """For each text, (alias position, cosine similarity) of its k nearest aliases,
        best first, found as ``self.search`` says."""
        found: list[list[tuple[int, float]]] = [[] for _ in texts]
        if not texts:
            return found
        vectors = self.vectorizer.transform(texts).tocsr()
        nonzero = np.flatnonzero(vectors.getnnz(axis=1) > 0)
        if nonzero.size == 0:
            return found
        mode = self.search.mode
        with ThreadPoolExecutor(1) as executor:
            # HNSW (nmslib's own threads) runs beside the rare-3-gram product: both release
            # the GIL, and together they are most of a TF-IDF mention's time.
            ann = (
                executor.submit(
                    self.ann.knnQueryBatch, vectors[nonzero], k=k, num_threads=self.threads
                )
                if mode != "rare"
                else None
            )
            exact = (
                self._rare.search(vectors, self.search.rare_pool, self.threads)
                if mode != "hnsw"
                else []
            )
            results = ann.result() if ann is not None else None
        if results is not None:
            for at, (ids, distances) in zip(nonzero.tolist(), results, strict=True):
                similarity = 1.0 - distances.astype(np.float64)  # as the store's cosine
                found[at] = _ranked(zip(ids.tolist(), similarity.tolist(), strict=True))
        if mode != "hnsw":
            for at in nonzero.tolist():
                merged = dict(found[at])
                merged.update(exact[at])  # the same cosine either way; exact where both
                found[at] = _ranked(merged.items())[:k]
        for at in nonzero.tolist():
            found[at] = [(int(self.positions[i]), sim) for i, sim in found[at][:k]]
        return found

    def similarities(self, text: str, names: list[str]) -> list[float]:
        """The cosine between ``text`` and each of ``names`` in this index's TF-IDF space
        (exact keys, as the index holds its aliases): the similarity the TF-IDF stage sees
        for a neighbour, 1.0 for the same name."""
        if not names:
            return []
        keys = [exact_key(t) for t in (text, *names)]
        vectors = self.vectorizer.transform(keys)  # rows L2-normalized
        found = (vectors[1:] @ vectors[0].T).toarray().ravel()
        return [float(min(1.0, max(0.0, cosine))) for cosine in found.tolist()]

    @cached_property
    def _rare(self) -> _RareSearch:
        vectors = scipy.sparse.load_npz(self._paths.tfidf_vectors).tocsr()
        return _RareSearch(vectors.astype(np.float32), self.search.rare_df, self.search.rare_share)

    def close(self) -> None:
        self.store.close()


def _ranked(pairs: Iterable[tuple[int, float]]) -> list[tuple[int, float]]:
    """(alias number, cosine) best first, equal cosines by alias number, and none that
    shares no 3-gram: HNSW returns equal distances in no fixed order and pads a short
    answer with arbitrary far aliases, so without this two runs listed other candidates."""
    return sorted(((i, s) for i, s in pairs if s > 0.0), key=lambda pair: (-pair[1], pair[0]))


def graph_index_key(
    graph: Graph, settings: IndexSettings, database: str
) -> tuple[str, dict[str, Any]]:
    """The cache key of the graph's index: current releases (ids, versions, content hashes;
    not load times), settings, format, KB query."""
    releases = graph.read("link/index_releases")
    source = {"database": database, "releases": releases}
    material = json.dumps(
        [
            INDEX_FORMAT,
            MINED_VERSION,
            RERANK_VERSION,
            CALIBRATION_VERSION,
            source,
            settings.build_key(),
            get_query("link/export_concepts").text,
        ],
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()[:16], source


def ensure_index(graph: Graph, settings: Settings, *, rebuild: bool = False) -> Path:
    """The graph's index folder, built from the graph first if the releases changed."""
    index_settings = IndexSettings.from_settings(settings)
    key, source = graph_index_key(graph, index_settings, settings.neo4j_database)
    if not source["releases"]:
        raise LinkerIndexError("no vocabulary release is loaded: run `kgverify load` first")
    directory = settings.cache_dir / "linker" / key
    if rebuild or not (directory / "meta.json").is_file():
        log.info("building the linker index %s from the graph", key)
        build_index(export_entries(graph), directory, index_settings, key=key, source=source)
        _prune(directory.parent, keep=KEEP_INDEXES)
    return directory


KEEP_INDEXES = 3
"""Indexes kept in the cache (newest first): enough to go back a release or two."""


def _prune(root: Path, keep: int) -> None:
    """Remove all but the ``keep`` most recently built indexes (not half-built ones)."""
    built = sorted(
        (d for d in root.iterdir() if (d / "meta.json").is_file()),
        key=lambda d: (d / "meta.json").stat().st_mtime_ns,
        reverse=True,
    )
    for old in built[keep:]:
        shutil.rmtree(old, ignore_errors=True)
