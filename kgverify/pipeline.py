"""The parameters and the report of one whole run (``kgverify.api.pipeline`` and
``pipeline_from_config``): vocabularies loaded, an EHR source ingested, relations
extracted, linked and verified, QA items and fact sheets derived.

``PipelineConfig`` checks every parameter before anything runs, whether they come as
keyword arguments or from a TOML file, so a wrong name or value is one line naming the key.
It sits beside the API (it names the loaders' report, which only the API may import) and
imports no stage code beyond the registries and the report models.
"""

from __future__ import annotations

import difflib
import time
import tomllib
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from kgverify.derive.model import DeriveReport, FactsReport, Task
from kgverify.dialogue.model import DialogueReport
from kgverify.ehr.report import SourceIngestReport
from kgverify.ehr.sources import EHR_SOURCES
from kgverify.engines import ENGINES
from kgverify.errors import ConfigError
from kgverify.extract.registry import EXTRACTORS
from kgverify.extract.run import ExtractReport
from kgverify.graph.summary import GraphSummary
from kgverify.link.relations import LinkReport
from kgverify.verify.report import VerifyReport
from loaders import LOADERS
from loaders.report import LoadReport


def _resolved(path: Path, info: ValidationInfo) -> Path:
    """A relative path from a config file is relative to the file's folder."""
    base = info.context.get("base") if isinstance(info.context, dict) else None
    return base / path if base is not None and not path.is_absolute() else path


def _existing(path: Path, info: ValidationInfo) -> Path:
    """``path`` (resolved), which must exist: a long run fails before it starts."""
    path = _resolved(path, info)
    if not path.exists():
        raise ValueError(f"no such file or folder: {path}")
    return path


def _registered(check: Callable[[str], str], name: str) -> str:
    try:
        return check(name)
    except ConfigError as exc:  # pydantic names the key only for a ValueError
        raise ValueError(str(exc)) from None


class RelationsInput(BaseModel):
    """A relation file from elsewhere (an LLM's, hand-written: candidate relation JSONL),
    linked and verified beside the extracted relations, to ``out/linked_<stem>.jsonl`` and
    ``out/verdicts_<stem>.jsonl``; ``trajectories`` (JSONL) gives note text for linking."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: Path
    trajectories: Path | None = None

    @field_validator("path", "trajectories")
    @classmethod
    def _exists(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        return None if value is None else _existing(value, info)

    @property
    def stem(self) -> str:
        """The file's name up to its first dot (``llm_style.jsonl.gz`` -> ``llm_style``)."""
        return self.path.name.split(".")[0]


class PipelineConfig(BaseModel):
    """The parameters of :func:`kgverify.api.pipeline`; a TOML file for
    ``pipeline_from_config`` has the same keys (``[vocabularies]`` a table of name = path,
    ``[[relations]]`` tables of path and trajectories)."""

    model_config = ConfigDict(extra="forbid")

    source: str = Field(description="the EHR source kind (kgverify.ehr.sources.EHR_SOURCES)")
    source_path: Path | str = Field(
        description="the EHR source: a file or a folder, or a server's URL (fhir-rest)"
    )
    out: Path = Field(description="the folder every output goes to")
    vocabularies: dict[str, Path] = Field(
        default_factory=dict, description="vocabulary -> release folder, loaded first, in order"
    )
    extractor: str = Field("template", description="kgverify.extract.registry.EXTRACTORS")
    model: str | None = Field(None, description="LLM extractors: the model")
    base_url: str | None = Field(None, description="openai: the server's API root")
    api_key: str | None = Field(None, repr=False, description="openai: bearer token, if any")
    concurrency: int = Field(4, ge=1, le=256, description="openai: requests in flight")
    relations: list[RelationsInput] = Field(
        default_factory=list, description="more relation files to link and verify"
    )
    tasks: list[str] | None = Field(None, description="QA tasks; None: every task")
    facts: bool = Field(True, description="derive fact sheets too")
    dialogues: Path | None = Field(
        None, description="dialogue JSONL to check against the fact sheets (needs facts)"
    )
    engine: str = Field("local", description="how the stages run: " + ", ".join(ENGINES))

    @field_validator("source_path")
    @classmethod
    def _source_path(cls, value: Path | str, info: ValidationInfo) -> Path | str:
        # Checked as the source reads it: a URL for a server source, else an existing path.
        source = info.data.get("source")
        if isinstance(source, str) and EHR_SOURCES[source].takes == "url":
            if not str(value).startswith(("http://", "https://")):
                raise ValueError(f"{source} reads a server's URL (http(s)://host/...)")
            return str(value)
        return _existing(Path(value), info)

    @field_validator("dialogues")
    @classmethod
    def _exists(cls, value: Path | None, info: ValidationInfo) -> Path | None:
        return None if value is None else _existing(value, info)

    @field_validator("out")
    @classmethod
    def _out(cls, value: Path, info: ValidationInfo) -> Path:
        return _resolved(value, info)

    @field_validator("vocabularies")
    @classmethod
    def _vocabularies(cls, value: dict[str, Path], info: ValidationInfo) -> dict[str, Path]:
        return {_registered(LOADERS.check, k): _existing(p, info) for k, p in value.items()}

    @field_validator("source")
    @classmethod
    def _source(cls, value: str) -> str:
        return _registered(EHR_SOURCES.check, value)

    @field_validator("extractor")
    @classmethod
    def _extractor(cls, value: str) -> str:
        return _registered(EXTRACTORS.check, value)

    @field_validator("tasks")
    @classmethod
    def _tasks(cls, value: list[str] | None) -> list[str] | None:
        known = [t.value for t in Task]
        for task in value or ():
            if task not in known:
                raise ValueError(f"unknown task {task!r} (known: {', '.join(known)})")
        return value

    @field_validator("engine")
    @classmethod
    def _engine(cls, value: str) -> str:
        return _registered(ENGINES.check, value)

    @model_validator(mode="after")
    def _together(self) -> PipelineConfig:
        if self.dialogues is not None and not self.facts:
            raise ValueError("dialogues are checked against the fact sheets: set facts = true")
        stems = [r.stem for r in self.relations]
        for stem in stems:
            if stems.count(stem) > 1:
                raise ValueError(f"relations: two files named {stem!r} would share outputs")
        return self


def pipeline_config(data: dict[str, Any], where: str, base: Path | None = None) -> PipelineConfig:
    """``data`` checked as a ``PipelineConfig``; the first problem is one ``ConfigError``
    line, ``<where>: <key>: <what is wrong>``. ``base``: the folder relative paths start."""
    try:
        return PipelineConfig.model_validate(data, context={"base": base})
    except ValidationError as exc:
        raise ConfigError(f"{where}: {_first_problem(exc)}") from None


def read_pipeline_config(path: Path) -> PipelineConfig:
    """A TOML file of ``PipelineConfig`` keys; relative paths in it start at its folder."""
    if not path.is_file():
        raise ConfigError(f"no such pipeline config: {path}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    return pipeline_config(data, str(path), base=path.parent)


def _first_problem(exc: ValidationError) -> str:
    errors = exc.errors()
    # An unknown key first: a misspelt key also makes the key it meant "missing".
    error = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    key = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"]).lstrip(".")
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    if error["type"] == "extra_forbidden":
        known = _known_keys(error["loc"])
        close = difflib.get_close_matches(str(error["loc"][-1]), known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"unknown key {key!r}{hint}{more}"
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"{key}: {message}{more}" if key else f"{message}{more}"


def _known_keys(loc: tuple[int | str, ...]) -> list[str]:
    model: type[BaseModel] = RelationsInput if loc[0] == "relations" else PipelineConfig
    return sorted(model.model_fields)


class DerivedReports(BaseModel):
    """What derivation made: QA items, and fact sheets unless ``facts`` was false."""

    qa: DeriveReport
    facts: FactsReport | None = None


class StepEvent(BaseModel):
    """A pipeline step starting or finished: what :func:`kgverify.api.pipeline` hands its
    ``on_step`` callback (``kgverify sample`` and ``kgverify run`` print them as they come)."""

    step: str = Field(description="e.g. 'load umls', 'ingest', 'derive qa'")
    number: int = Field(description="1-based, in the order the steps run")
    status: Literal["started", "finished"]
    seconds: float | None = Field(None, description="when finished: how long it took")
    summary: str = Field("", description="when finished: what it did, in one line")


StepListener = Callable[[StepEvent], None]
"""What ``on_step`` takes."""

Tick = Callable[[int], None]
"""Told how many records a step has done so far."""
CountBars = Callable[[str, int | None], AbstractContextManager[Tick]]
"""A bar of records done around a step: (label, total or None) -> a ``Tick``; what
``api.pipeline``'s ``bars`` takes (``kgverify sample`` draws them with rich)."""


def _no_tick(done: int) -> None:
    """A step's count when no bar is drawn."""


class StepRecord(BaseModel):
    """One finished step in the run record."""

    step: str
    seconds: float
    summary: str


T = TypeVar("T")


class Steps:
    """Runs the steps of a pipeline one after another, timing each, telling ``listener``
    when one starts and ends, and keeping the records for ``run.json``."""

    def __init__(self, listener: StepListener | None = None, bars: CountBars | None = None):
        self.listener = listener
        self.bars = bars
        self.records: list[StepRecord] = []
        self.started = datetime.now(UTC)

    def run(
        self,
        name: str,
        work: Callable[[Tick], T],
        summary: Callable[[T], str],
        *,
        unit: str | None = None,
        total: int | None = None,
    ) -> T:
        """Run ``work``; with ``unit`` (what it counts) and ``bars``, a bar of ``unit`` done
        (out of ``total`` when known) is drawn while it runs."""
        number = len(self.records) + 1
        if self.listener is not None:
            self.listener(StepEvent(step=name, number=number, status="started"))
        began = time.perf_counter()
        if self.bars is not None and unit is not None:
            with self.bars(f"[{number}] {name}: {unit}", total) as tick:
                result = work(tick)
        else:
            result = work(_no_tick)
        record = StepRecord(
            step=name, seconds=round(time.perf_counter() - began, 2), summary=summary(result)
        )
        self.records.append(record)
        if self.listener is not None:
            self.listener(
                StepEvent(
                    step=name,
                    number=number,
                    status="finished",
                    seconds=record.seconds,
                    summary=record.summary,
                )
            )
        return result


class GraphAddress(BaseModel):
    """Where a run's graph is (``run.json``'s ``graph``)."""

    bolt: str | None = Field(description="the server's Bolt address")
    browser: str | None = Field(description="Neo4j Browser, when the local server serves it")
    stop: str | None = Field(
        description="the command that stops the local server; None for a server of your own"
    )


class RunFile(BaseModel):
    """``run.json``, written beside a pipeline run's outputs: what ran, how long each step
    took, what it gave, and where the graph is (docs/runs.md)."""

    run: str | None = Field(description="the (:Run) of the ingest: `kgverify runs`")
    source: str
    source_path: str
    out: str
    started_at: str
    finished_at: str
    seconds: float
    steps: list[StepRecord]
    counts: dict[str, int] = Field(description="the run's headline figures")
    graph: GraphAddress = Field(description="where the graph is")


class PipelineReport(BaseModel):
    """One report per stage of a :func:`kgverify.api.pipeline` run, in the order they ran
    (``kgverify sample --json`` prints the sample's)."""

    run: str | None = Field(None, description="the run (`kgverify runs`): its patients only")
    steps: list[StepRecord] = Field(default_factory=list, description="each step, timed")
    run_file: str | None = Field(None, description="run.json beside the outputs")

    loads: list[LoadReport] = Field(default_factory=list, description="one per vocabulary")
    ingest: SourceIngestReport
    extract: ExtractReport
    link: list[LinkReport] = Field(description="the extracted relations, then each `relations`")
    verify: list[VerifyReport] = Field(description="the same files' verdicts, in that order")
    derive: DerivedReports
    dialogues: DialogueReport | None = Field(None, description="when `dialogues` was given")
    summary: GraphSummary = Field(description="the graph after the run")
