"""How the per-patient and per-relation stages run: extraction, linking, verification and
derivation in this process ("local", the default) or fanned out to Ray actors ("ray", the
``kgverify[ray]`` extra).

An engine opens what a run needs: the extraction of ``extract_relations``, a
:class:`BatchLinker` for ``link_relations_file``, a :class:`FileVerifier` for
``verify_relations_file``, and the worked pages of patients for ``derive qa`` and ``derive
facts`` (``kgverify.derive.pages``). Reading the input (the EHR source included),
rejecting bad lines with their numbers, the item store, counting and writing the output
stay with the run, in this process, whatever the engine: an engine changes where a batch
or a page is worked on, never what is read, kept or written, so its outputs are the local
path's byte for byte (``tests/e2e/test_cli_output.py``). ``ENGINES`` is the registry; the
pipeline's config check, the CLI's ``--engine`` and the docs read it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from kgverify.config import Settings
from kgverify.derive.pages import (
    QAJob,
    QAPage,
    QAPagesOpener,
    SheetPages,
    SheetPagesOpener,
    local_qa_pages,
    local_sheet_pages,
)
from kgverify.extract.run import Extracting, ExtractorSpec, local_extraction
from kgverify.graph.driver import Graph
from kgverify.graph.schema import ensure_schema
from kgverify.link.linker import Linker
from kgverify.link.relations import BatchLinker, Contexts, LinkReport
from kgverify.registry import Entry, Registry
from kgverify.verify.model import Verdict
from kgverify.verify.verifier import Relation, Verifier


class FileVerifier(Protocol):
    """What verifying a relation stream needs: verdicts in input order, the write-back's
    counts, and a hook for verdicts whose assertion the database refused."""

    on_refused: Callable[[Verdict, str], None] | None
    written: int
    not_written: int
    not_written_reasons: Counter[str]
    unknown_patients: int
    unknown_encounters: int
    evidence_read: int
    evidence_cached: int
    link_report: LinkReport

    def iter_verify(
        self, relations: Iterable[Relation], batch_size: int = ...
    ) -> Iterator[Verdict]: ...


ExtractionOpener = Callable[
    [Settings, ExtractorSpec, Callable[[int, int], None] | None],
    AbstractContextManager[Extracting],
]


@dataclass(frozen=True)
class Engine:
    """Opens the linker and the verifier of a file run, and the page workers of a
    derivation run; each is closed on leaving."""

    # (settings, extractor and its options, LLM progress) -> the extraction
    extraction: ExtractionOpener
    # (settings, graph) -> the linker
    linker: Callable[[Settings, Graph], AbstractContextManager[BatchLinker]]
    # (settings, graph, write back, trajectories JSONL for abbreviations) -> the verifier
    verifier: Callable[[Settings, Graph, bool, Path | None], AbstractContextManager[FileVerifier]]
    # (settings, graph, job) -> every page of patients with its screened item candidates
    qa_pages: QAPagesOpener
    # (settings, graph) -> every patient's fact sheet, and their counts
    sheet_pages: SheetPagesOpener


@contextmanager
def local_linker(settings: Settings, graph: Graph) -> Iterator[BatchLinker]:
    """The graph's linker in this process."""
    linker = Linker.open(settings, graph)
    try:
        yield linker
    finally:
        linker.index.close()


@contextmanager
def local_verifier(
    settings: Settings, graph: Graph, write: bool, trajectories: Path | None
) -> Iterator[FileVerifier]:
    """A verifier in this process."""
    if write:
        ensure_schema(graph)
    contexts = Contexts.from_file(trajectories) if trajectories is not None else None
    with Verifier(graph, settings, write=write, contexts=contexts) as verifier:
        yield verifier


def _ray_extraction(
    settings: Settings, spec: ExtractorSpec, progress: Callable[[int, int], None] | None
) -> AbstractContextManager[Extracting]:
    from kgverify.engines.on_ray import ray_extraction

    return ray_extraction(settings, spec, progress)


def _ray_linker(settings: Settings, graph: Graph) -> AbstractContextManager[BatchLinker]:
    from kgverify.engines.on_ray import ray_linker

    return ray_linker(settings, graph)


def _ray_verifier(
    settings: Settings, graph: Graph, write: bool, trajectories: Path | None
) -> AbstractContextManager[FileVerifier]:
    from kgverify.engines.on_ray import ray_verifier

    return ray_verifier(settings, graph, write, trajectories)


def _ray_qa_pages(
    settings: Settings, graph: Graph, job: QAJob
) -> AbstractContextManager[Iterator[QAPage]]:
    from kgverify.engines.on_ray import ray_qa_pages

    return ray_qa_pages(settings, graph, job)


def _ray_sheet_pages(settings: Settings, graph: Graph) -> AbstractContextManager[SheetPages]:
    from kgverify.engines.on_ray import ray_sheet_pages

    return ray_sheet_pages(settings, graph)


ENGINES: Registry[Engine] = Registry(
    "engine",
    [
        Entry(
            "local",
            Engine(
                local_extraction, local_linker, local_verifier, local_qa_pages, local_sheet_pages
            ),
            "this process, one batch or page at a time",
        ),
        Entry(
            "ray",
            Engine(_ray_extraction, _ray_linker, _ray_verifier, _ray_qa_pages, _ray_sheet_pages),
            "each batch or page of patients split over Ray actors, ray_workers of them "
            "(pip install 'kgverify[ray]')",
        ),
    ],
)
