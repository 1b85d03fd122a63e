"""An extraction run: candidate relations from trajectories to a JSONL file, LLM failures
beside it, and what the run did (``ExtractReport``). The Python API
(``kgverify.api.extract_relations``, with an extractor from ``extract.registry``) and
``kgverify extract`` call it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, Field

from kgverify.config import Settings
from kgverify.ehr.model import Trajectory
from kgverify.extract.relation import CandidateRelation, ExtractionFailure, write_relations
from kgverify.extract.template import TemplateExtractor
from kgverify.jsonl import whole_file
from kgverify.outputs import make_dirs
from kgverify.rows import FileReport, open_private

if TYPE_CHECKING:
    from kgverify.extract.llm import ExtractionCounts, LLMExtractor


class ExtractReport(BaseModel):
    """What one extraction did (``kgverify extract --json`` prints it)."""

    extractor: str = Field(description="template, openai or vllm")
    patients: int = Field(0, description="trajectories read")
    episodes: int = Field(0, description="encounters, and days of items outside them")
    relations: int = Field(0, description="candidate relations written to `out`")
    by_predicate: dict[str, int] = Field(default_factory=dict)
    failures: int = Field(0, description="LLM answers still invalid after the retries")
    llm: dict[str, Any] | None = Field(
        None, description="LLM extractors: prompts, requests, cached answers, failures by kind"
    )
    out: str
    failures_out: str | None = None
    rows: list[FileReport] = Field(
        default_factory=list, description="the source rows: loaded, skipped or rejected"
    )
    rejects: str | None = Field(None, description="the rejected source rows, when any")


@dataclass(frozen=True)
class ExtractorSpec:
    """Which extractor a run uses and its model options: what opens it, in this process or
    in each worker of an engine (``kgverify.extract.registry.EXTRACTORS``)."""

    name: str = "template"
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    concurrency: int = 4

    def open(
        self, settings: Settings, progress: Callable[[int, int], None] | None = None
    ) -> TemplateExtractor | LLMExtractor:
        from kgverify.extract.registry import EXTRACTORS

        return EXTRACTORS.pick(self.name)(
            settings,
            model=self.model,
            base_url=self.base_url,
            api_key=self.api_key,
            concurrency=self.concurrency,
            progress=progress,
        )


class Extracting(Protocol):
    """An opened extraction as a run uses it: proposals in input order; once they have all
    been read, the episodes seen and (LLM extractors) the model-call counts."""

    @property
    def episodes(self) -> int: ...

    @property
    def llm(self) -> ExtractionCounts | None: ...

    def extract(
        self, trajectories: Iterable[Trajectory]
    ) -> Iterator[CandidateRelation | ExtractionFailure]: ...


class LocalExtraction:
    """One extractor in this process."""

    def __init__(self, extractor: TemplateExtractor | LLMExtractor) -> None:
        self.extractor = extractor
        self._llm: ExtractionCounts | None = None

    @property
    def episodes(self) -> int:
        if isinstance(self.extractor, TemplateExtractor):
            return self.extractor.episodes
        return self._llm.episodes if self._llm is not None else 0

    @property
    def llm(self) -> ExtractionCounts | None:
        return self._llm

    def extract(
        self, trajectories: Iterable[Trajectory]
    ) -> Iterator[CandidateRelation | ExtractionFailure]:
        yield from self.extractor.extract(trajectories)
        if not isinstance(self.extractor, TemplateExtractor):  # its counts are per call
            if self._llm is None:
                from kgverify.extract.llm import ExtractionCounts

                self._llm = ExtractionCounts()
            self._llm.add(self.extractor.counts)

    def close(self) -> None:
        if not isinstance(self.extractor, TemplateExtractor) and self.extractor.cache is not None:
            self.extractor.cache.close()


@contextmanager
def local_extraction(
    settings: Settings,
    spec: ExtractorSpec,
    progress: Callable[[int, int], None] | None,
) -> Iterator[Extracting]:
    """The extractor of ``spec`` in this process (the local engine's)."""
    extraction = LocalExtraction(spec.open(settings, progress))
    try:
        yield extraction
    finally:
        extraction.close()


def run_extraction(
    extraction: Extracting,
    kind: str,
    trajectories: Iterable[Trajectory],
    out: Path,
) -> ExtractReport:
    """Relations from ``trajectories`` to ``out``; LLM failures, with the raw answer and the
    reason, to ``out`` with suffix ``.failures.jsonl`` (owner-only, removed when empty).
    The report's ``rows`` and ``rejects`` are the reader's, for the caller to fill in."""
    per_predicate: Counter[str] = Counter()
    counter = {"patients": 0, "failures": 0}
    failures_path = out.with_suffix(".failures.jsonl")

    def counted(items: Iterable[Trajectory]) -> Iterator[Trajectory]:
        for trajectory in items:
            counter["patients"] += 1
            yield trajectory

    proposals = iter(extraction.extract(counted(trajectories)))
    make_dirs(out.parent)

    def relations(failures: IO[str]) -> Iterator[CandidateRelation]:
        for proposal in proposals:
            if isinstance(proposal, ExtractionFailure):
                counter["failures"] += 1
                failures.write(proposal.model_dump_json() + "\n")
                continue
            per_predicate[proposal.predicate.value] += 1
            yield proposal

    try:
        with whole_file(out) as partial, open_private(failures_path) as failures:
            written = write_relations(relations(failures), partial)  # raw model answers too
    finally:
        if not counter["failures"]:
            failures_path.unlink(missing_ok=True)
    llm = extraction.llm
    return ExtractReport(
        extractor=kind,
        patients=counter["patients"],
        episodes=extraction.episodes,
        relations=written,
        by_predicate=dict(sorted(per_predicate.items())),
        failures=counter["failures"],
        llm=llm.as_dict() if llm is not None else None,
        out=str(out),
        failures_out=str(failures_path) if counter["failures"] else None,
    )
