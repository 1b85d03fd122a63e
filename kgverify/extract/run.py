"""An extraction run: candidate relations from trajectories to a JSONL file, LLM failures
beside it, and what the run did (``ExtractReport``). The Python API
(``kgverify.api.extract_relations``, with an extractor from ``extract.registry``) and
``kgverify extract`` call it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from kgverify.ehr.model import Trajectory
from kgverify.extract.relation import CandidateRelation, ExtractionFailure, write_relations
from kgverify.extract.template import TemplateExtractor
from kgverify.rows import FileReport, open_private

if TYPE_CHECKING:
    from kgverify.extract.llm import LLMExtractor


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


def run_extraction(
    extractor: TemplateExtractor | LLMExtractor,
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

    proposals: Iterator[CandidateRelation | ExtractionFailure] = iter(
        extractor.extract(counted(trajectories))
    )
    out.parent.mkdir(parents=True, exist_ok=True)

    def relations(failures: IO[str]) -> Iterator[CandidateRelation]:
        for proposal in proposals:
            if isinstance(proposal, ExtractionFailure):
                counter["failures"] += 1
                failures.write(proposal.model_dump_json() + "\n")
                continue
            per_predicate[proposal.predicate.value] += 1
            yield proposal

    llm = None if isinstance(extractor, TemplateExtractor) else extractor
    try:
        with open_private(failures_path) as failures:  # raw model answers: patient text
            written = write_relations(relations(failures), out)
    finally:
        if llm is not None and llm.cache is not None:
            llm.cache.close()
    if not counter["failures"]:
        failures_path.unlink()
    if isinstance(extractor, TemplateExtractor):
        episodes = extractor.episodes
    else:
        episodes = extractor.counts.episodes
    return ExtractReport(
        extractor=kind,
        patients=counter["patients"],
        episodes=episodes,
        relations=written,
        by_predicate=dict(sorted(per_predicate.items())),
        failures=counter["failures"],
        llm=llm.counts.as_dict() if llm is not None else None,
        out=str(out),
        failures_out=str(failures_path) if counter["failures"] else None,
    )
