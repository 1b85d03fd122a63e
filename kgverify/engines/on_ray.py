"""The "ray" engine: every batch the local path would work on is split over Ray actors,
worked on at once and put back in input order (for verification and derivation with the
next batch already sent while one is collected). Derivation's pages of patients are split
in patient order; each actor reads its patients' records itself, and the run keeps the
item store, the files and the graph's items (``kgverify.derive.pages``).

Each actor opens its own connection and loads the linker index once (the driver makes
sure the index is built first, so actors never race to build it). Verification batches
are split by patient: every assertion of a patient is written by one actor, so no two
writers create the same assertion or lock the same patient node; concept nodes are shared,
and a deadlock between writers is a transient error the driver's managed transactions
retry. Ray Core actors rather than a Ray Data pipeline: the file run reads, rejects (with
line numbers) and writes on the driver, and a split per batch keeps each batch's order and
write partition exact, which is what makes the outputs the local path's byte for byte.

``ray_address`` None starts a local Ray in this process with at least ``ray_workers``
CPUs; ``"auto"`` or ``"ray://head:10001"`` joins a cluster whose
workers have kgverify installed and reach the same Neo4j (docs/scale.md).
"""

from __future__ import annotations

import logging
import os
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from kgverify.config import Settings
from kgverify.derive.model import FactSheet, FactsReport
from kgverify.derive.pages import (
    PAGE,
    QAJob,
    QAPage,
    QAPageWorker,
    SheetPages,
    SheetPageWorker,
)
from kgverify.derive.records import patient_pages, scoped_run
from kgverify.ehr.model import Trajectory
from kgverify.errors import ConfigError, EngineError, KgverifyError
from kgverify.extract.relation import CandidateRelation, ExtractionFailure
from kgverify.extract.run import ExtractorSpec
from kgverify.extract.template import TemplateExtractor
from kgverify.graph.driver import Graph, batched
from kgverify.graph.schema import ensure_schema
from kgverify.link.index import IndexInfo, ensure_index
from kgverify.link.linker import Linker, MentionQuery
from kgverify.link.model import LinkedRelation, MentionLink
from kgverify.link.relations import BatchLinker, Contexts, LinkReport
from kgverify.verify.model import Verdict
from kgverify.verify.verifier import Relation, Verifier

if TYPE_CHECKING:
    from kgverify.extract.llm import ExtractionCounts, LLMExtractor


def start_ray(settings: Settings) -> ModuleType:
    """The ``ray`` module, connected: to ``ray_address``, or a local Ray started once per
    process with ``ray_workers`` CPUs, or the machine's count if more (a later run in the
    same process may ask for more actors: each holds a CPU while it lives)."""
    try:
        import ray
    except ImportError:
        raise ConfigError("the ray engine needs Ray: pip install 'kgverify[ray]'") from None
    if not ray.is_initialized():
        if settings.ray_address:
            ray.init(address=settings.ray_address, logging_level=logging.WARNING)
        else:
            # A Ray of our own, for this process only: its notices and the actors' logs are
            # not the user's (errors come back as exceptions; the logs stay in Ray's folder).
            ray.init(
                num_cpus=max(settings.ray_workers, os.cpu_count() or 1),
                include_dashboard=False,
                logging_level=logging.ERROR,
                log_to_driver=False,
            )
    return ray


class _Pool:
    """``size`` actors of one class, opened with ``args``; ``map`` sends chunk i to actor i
    and waits for all. An actor's kgverify error is raised here as itself (one line in the
    CLI); anything else, or a dead actor, is one ``EngineError``."""

    def __init__(self, ray: ModuleType, cls: type, size: int, *args: Any, gpus: float = 0) -> None:
        self.ray = ray
        remote = ray.remote(num_cpus=1, num_gpus=gpus)(cls)
        self.actors = [remote.remote() for _ in range(size)]
        try:
            # Opened by a method, not the constructor: a failed method call brings its
            # exception back, a failed constructor only a dead actor.
            self._get([actor.open.remote(*args) for actor in self.actors])
        except BaseException:
            self.close()
            raise

    def map(self, method: str, chunks: Sequence[Sequence[Any]]) -> list[Any]:
        return self.collect(self.submit(method, chunks))

    def submit(self, method: str, chunks: Sequence[Sequence[Any]]) -> list[Any]:
        """Chunk i sent to actor i (None for an empty chunk); ``collect`` waits for them.
        An actor runs its calls one after another, in the order they were sent."""
        return [
            getattr(actor, method).remote(list(chunk)) if chunk else None
            for actor, chunk in zip(self.actors, chunks, strict=True)
        ]

    def collect(self, refs: list[Any]) -> list[Any]:
        done = iter(self._get([ref for ref in refs if ref is not None]))
        return [next(done) if ref is not None else None for ref in refs]

    def each(self, method: str) -> list[Any]:
        return self._get([getattr(actor, method).remote() for actor in self.actors])

    def _get(self, refs: list[Any]) -> list[Any]:
        errors = self.ray.exceptions
        try:
            return list(self.ray.get(refs))
        except errors.RayTaskError as err:
            cause = err.cause
            if isinstance(cause, KgverifyError):
                raise cause from None
            raise EngineError(f"a ray actor failed: {type(cause).__name__}: {cause}") from None
        except errors.RayActorError as err:
            first = _PLAIN.sub("", str(err)).splitlines()[0]
            raise EngineError(f"a ray actor died: {first}") from None

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)


_PLAIN = re.compile(r"\x1b\[[0-9;]*m")  # Ray colours its messages


def _contiguous(items: Sequence[Any], parts: int) -> list[Sequence[Any]]:
    size = max(1, -(-len(items) // parts))
    return [items[i * size : (i + 1) * size] for i in range(parts)]


def _rounds(pool: _Pool, method: str, pages: Iterable[Sequence[Any]]) -> Iterator[Any]:
    """``method``'s result for each actor's part of every page, in input order: each page
    is split in order over the actors, and the next page is sent before one is collected,
    so the actors work while the caller reads and writes."""
    n = len(pool.actors)
    pending: list[Any] | None = None
    for page in pages:
        sent = pool.submit(method, _contiguous(page, n))
        if pending is not None:
            yield from (part for part in pool.collect(pending) if part is not None)
        pending = sent
    if pending is not None:
        yield from (part for part in pool.collect(pending) if part is not None)


# -- extraction ----------------------------------------------------------------------------

EXTRACT_PAGE = 100
"""Trajectories per actor and round."""
GPU_EXTRACTORS = frozenset({"vllm"})
"""Extractors that hold a model in the actor: one GPU each."""

Proposal = CandidateRelation | ExtractionFailure


class ExtractActor:
    """One actor's extractor (for LLM ones its own client, or its own offline engine, and
    its own handle on the answer cache)."""

    extractor: TemplateExtractor | LLMExtractor

    def open(self, settings: Settings, spec: ExtractorSpec) -> None:
        self.extractor = spec.open(settings)

    def extract(
        self, trajectories: list[Trajectory]
    ) -> tuple[list[Proposal], int, ExtractionCounts | None]:
        """The proposals of ``trajectories`` in order, their episodes, and the LLM's counts
        of this call."""
        x = self.extractor
        if isinstance(x, TemplateExtractor):
            before = x.episodes
            return list(x.extract(trajectories)), x.episodes - before, None
        return list(x.extract(trajectories)), x.counts.episodes, x.counts


class RayExtraction:
    """An :class:`~kgverify.extract.run.Extracting` whose trajectories are split, in order,
    over the actors, a page per actor with the next page already sent."""

    def __init__(self, pool: _Pool, progress: Callable[[int, int], None] | None) -> None:
        self.pool = pool
        self.progress = progress
        self.episodes = 0
        self.llm: ExtractionCounts | None = None

    def extract(self, trajectories: Iterable[Trajectory]) -> Iterator[Proposal]:
        pages = batched(trajectories, EXTRACT_PAGE * len(self.pool.actors))
        for proposals, episodes, counts in _rounds(self.pool, "extract", pages):
            self.episodes += episodes
            if counts is not None:
                if self.llm is None:
                    self.llm = type(counts)()
                self.llm.add(counts)
                if self.progress is not None:
                    self.progress(self.llm.requests, self.llm.requests)
            yield from proposals


@contextmanager
def ray_extraction(
    settings: Settings, spec: ExtractorSpec, progress: Callable[[int, int], None] | None
) -> Iterator[RayExtraction]:
    """Extraction on ``ray_workers`` actors; the source is read and the relations written
    by the calling process."""
    ray = start_ray(settings)
    gpus = 0
    if spec.name in GPU_EXTRACTORS:
        # Each actor runs its own offline engine on a GPU of its own; without enough GPUs
        # Ray would leave the actors waiting for ever.
        gpus = 1
        have = int(ray.cluster_resources().get("GPU", 0))
        if have < settings.ray_workers:
            raise ConfigError(
                f"--extractor {spec.name} on the ray engine needs a GPU per actor: "
                f"ray_workers is {settings.ray_workers}, the Ray cluster has {have} GPU(s)"
            )
    pool = _Pool(ray, ExtractActor, settings.ray_workers, settings, spec, gpus=gpus)
    try:
        yield RayExtraction(pool, progress)
    finally:
        # An LLM actor's answer cache commits each batch; stopping the actor loses nothing.
        pool.close()


# -- linking --------------------------------------------------------------------------------


class LinkActor:
    """One actor's linker: its own connection (codes are mapped through the graph) and its
    own copy of the index, loaded once."""

    graph: Graph
    linker: Linker

    def open(self, settings: Settings) -> None:
        self.graph = Graph.connect(settings)
        self.linker = Linker.open(settings, self.graph)

    def link(self, queries: list[MentionQuery]) -> list[MentionLink]:
        return self.linker.link(queries)


class RayLinker:
    """A :class:`BatchLinker` whose batches are split, in order, over the actors."""

    def __init__(self, pool: _Pool, index_key: str) -> None:
        self.pool = pool
        self._key = index_key

    @property
    def index_key(self) -> str:
        return self._key

    def link(self, queries: Sequence[MentionQuery]) -> list[MentionLink]:
        parts = self.pool.map("link", _contiguous(queries, len(self.pool.actors)))
        links = [link for part in parts if part is not None for link in part]
        if len(links) != len(queries):  # nothing may be lost on the way back
            raise EngineError(f"ray actors returned {len(links)} links for {len(queries)} mentions")
        return links


@contextmanager
def ray_linker(settings: Settings, graph: Graph) -> Iterator[BatchLinker]:
    """Linking on ``ray_workers`` actors; the index is built here first when needed."""
    directory = ensure_index(graph, settings)
    key = IndexInfo.model_validate_json((directory / "meta.json").read_text()).key
    pool = _Pool(start_ray(settings), LinkActor, settings.ray_workers, settings)
    try:
        yield RayLinker(pool, key)
    finally:
        pool.close()


# -- verification ---------------------------------------------------------------------------

_COUNTS = (
    "written",
    "not_written",
    "unknown_patients",
    "unknown_encounters",
    "evidence_read",
    "evidence_cached",
)


class VerifyActor:
    """One actor's verifier, with its own connection; it reports what it counted per batch
    and which verdicts the database refused, by relation id."""

    graph: Graph
    verifier: Verifier
    refused: list[tuple[str, str]]

    def open(self, settings: Settings, write: bool, trajectories: Path | None) -> None:
        self.graph = Graph.connect(settings)
        contexts = Contexts.from_file(trajectories) if trajectories is not None else None
        self.verifier = Verifier(self.graph, settings, write=write, contexts=contexts)
        self.refused = []
        self.verifier.on_refused = lambda v, reason: self.refused.append((v.relation_id, reason))

    def verify(
        self, batch: list[Relation]
    ) -> tuple[list[Verdict], list[tuple[str, str]], dict[str, int], dict[str, int]]:
        v = self.verifier
        before = {name: getattr(v, name) for name in _COUNTS}
        reasons_before = Counter(v.not_written_reasons)
        self.refused = []
        verdicts = v.verify(batch)
        counts = {name: getattr(v, name) - before[name] for name in _COUNTS}
        reasons = dict(Counter(v.not_written_reasons) - reasons_before)
        return verdicts, self.refused, counts, reasons

    def link_report(self) -> LinkReport:
        return self.verifier.link_report


def patient_of(relation: Relation) -> str:
    return (relation.relation if isinstance(relation, LinkedRelation) else relation).patient_id


class RayVerifier:
    """A :class:`~kgverify.engines.FileVerifier` whose batches are split by patient over
    the actors and put back in input order."""

    def __init__(self, pool: _Pool) -> None:
        self.pool = pool
        self.on_refused: Callable[[Verdict, str], None] | None = None
        self.written = 0
        self.not_written = 0
        self.not_written_reasons: Counter[str] = Counter()
        self.unknown_patients = 0
        self.unknown_encounters = 0
        self.evidence_read = 0
        self.evidence_cached = 0
        self.link_report = LinkReport()

    def iter_verify(
        self, relations: Iterable[Relation], batch_size: int = 2_000
    ) -> Iterator[Verdict]:
        # One batch in flight while the previous one is collected and written: the actors
        # work while this process reads and writes. A patient's relations always go to the
        # same actor, which runs its batches in order, so its writes stay in input order.
        pending: tuple[int, list[list[int]], list[Any]] | None = None
        for batch in batched(relations, batch_size):
            sent = self._send(batch)
            if pending is not None:
                yield from self._receive(*pending)
            pending = sent
        if pending is not None:
            yield from self._receive(*pending)

    def verify(self, batch: Sequence[Relation]) -> list[Verdict]:
        return self._receive(*self._send(batch))

    def _send(self, batch: Sequence[Relation]) -> tuple[int, list[list[int]], list[Any]]:
        n = len(self.pool.actors)
        # crc32, not hash(): the same patient goes to the same actor in every process.
        parts: list[list[int]] = [[] for _ in range(n)]
        for at, relation in enumerate(batch):
            parts[zlib.crc32(patient_of(relation).encode()) % n].append(at)
        refs = self.pool.submit("verify", [[batch[at] for at in part] for part in parts])
        return len(batch), parts, refs

    def _receive(self, size: int, parts: list[list[int]], refs: list[Any]) -> list[Verdict]:
        results = self.pool.collect(refs)
        out: list[Verdict | None] = [None] * size
        for part, result in zip(parts, results, strict=True):
            if result is None:
                continue
            verdicts, refused, counts, reasons = result
            if len(verdicts) != len(part):  # nothing may be lost on the way back
                raise EngineError(
                    f"a ray actor returned {len(verdicts)} verdicts for {len(part)} relations"
                )
            for at, verdict in zip(part, verdicts, strict=True):
                out[at] = verdict
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + value)
            self.not_written_reasons.update(reasons)
            by_id = {v.relation_id: v for v in verdicts} if refused else {}
            for relation_id, reason in refused:
                if self.on_refused is not None:
                    self.on_refused(by_id[relation_id], reason)
        return [v for v in out if v is not None]  # every part answered in full (above)

    def gather_link_reports(self) -> None:
        for report in self.pool.each("link_report"):
            self.link_report.add(report)


@contextmanager
def ray_verifier(
    settings: Settings, graph: Graph, write: bool, trajectories: Path | None
) -> Iterator[RayVerifier]:
    """Verification on ``ray_workers`` actors. The schema and the linker index are made
    here first, so the actors only read them."""
    if write:
        ensure_schema(graph)
    ensure_index(graph, settings)
    ray = start_ray(settings)
    pool = _Pool(ray, VerifyActor, settings.ray_workers, settings, write, trajectories)
    verifier = RayVerifier(pool)
    try:
        yield verifier
        verifier.gather_link_reports()
    finally:
        pool.close()


# -- derivation -----------------------------------------------------------------------------


def _pages(pool: _Pool, graph: Graph, settings: Settings) -> Iterator[Any]:
    """Each actor's part of every page of patients, in patient order (``PAGE`` patients
    per actor and round)."""
    pages = patient_pages(graph, PAGE * len(pool.actors), scoped_run(graph, settings))
    return _rounds(pool, "page", pages)


class QAActor:
    """One actor's QA page worker, with its own connection."""

    graph: Graph
    worker: QAPageWorker

    def open(self, settings: Settings, job: QAJob) -> None:
        self.graph = Graph.connect(settings)
        self.worker = QAPageWorker(self.graph, job)

    def page(self, ids: list[str]) -> QAPage:
        return self.worker.page(ids)


@contextmanager
def ray_qa_pages(settings: Settings, graph: Graph, job: QAJob) -> Iterator[Iterator[QAPage]]:
    """QA pages worked on by ``ray_workers`` actors; the run keeps the store and writes."""
    pool = _Pool(start_ray(settings), QAActor, settings.ray_workers, settings, job)
    try:
        yield _pages(pool, graph, settings)
    finally:
        pool.close()


class SheetActor:
    """One actor's fact-sheet page worker, with its own connection and counts."""

    graph: Graph
    worker: SheetPageWorker

    def open(self, settings: Settings) -> None:
        self.graph = Graph.connect(settings)
        self.worker = SheetPageWorker(self.graph, settings)

    def page(self, ids: list[str]) -> list[FactSheet]:
        return self.worker.page(ids)

    def report(self) -> FactsReport:
        return self.worker.report


@contextmanager
def ray_sheet_pages(settings: Settings, graph: Graph) -> Iterator[SheetPages]:
    """Fact sheets built by ``ray_workers`` actors; their counts are added up at the end."""
    pool = _Pool(start_ray(settings), SheetActor, settings.ray_workers, settings)
    out = SheetPages(iter(()))

    def sheets() -> Iterator[FactSheet]:
        for part in _pages(pool, graph, settings):
            yield from part
        for report in pool.each("report"):
            out.report.add(report)

    out.sheets = sheets()
    try:
        yield out
    finally:
        pool.close()
