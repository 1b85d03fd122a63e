"""Item calibration: every derived QA item asked of a panel of LLMs, one answer per model.

The prompt (``prompts/calibrate_v1.txt``, its hash the ``prompt_version``) shows the
question and the labelled options and asks for the letter only. Answers are free text (no
structured output: the model is asked, not forced) at temperature 0 with a seed, and a label
is read only from a strict form: ``B``, ``B.``, ``(B)``, ``Answer: B`` (``parse_label``).
Anything else (a label the item does not have, too) is recorded as ``unparsed``, never
guessed; a prompt the backend could not answer after ``max_attempts`` is ``failed``.

Models are the extractor's backends (``extract.backends``: ``OpenAIBackend`` for any
OpenAI-compatible server such as ``vllm serve``, ``VLLMBackend`` for the offline engine),
with the extractor's response cache (``extract.cache``): a rerun with the same model,
prompt and parameters makes no model call. The cache holds the raw answers; the output does
not: ``calibration.jsonl`` keeps the parsed label and the answer's length only, since an
answer may echo the question's patient facts. Both output files are owner-only.
"""

from __future__ import annotations

import gc
import hashlib
import json
import logging
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from string import Template
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from kgverify.derive.model import QAItem, Task
from kgverify.derive.qa import TASKS
from kgverify.derive.splits import SPLITS
from kgverify.errors import ConfigError
from kgverify.extract.backends import Backend, Completion, CompletionError, LLMError
from kgverify.extract.cache import ResponseCache, cache_key
from kgverify.jsonl import BadLine, partial_path, read_models_or_rejects
from kgverify.rows import open_private, private_dir

log = logging.getLogger(__name__)

PROMPT_TEMPLATE = "calibrate_v1.txt"
BACKENDS = ("openai", "vllm")
ROWS_FILE = "calibration.jsonl"
REPORT_FILE = "report.json"

Outcome = Literal["correct", "wrong", "unparsed", "failed"]
Progress = Callable[[int, int], None]
"""Called with (answers done, answers in all: items x models)."""

# The whole answer, stripped: an optional "Answer:" (any case), then the label alone, in
# parentheses, or followed by one full stop.
_LABEL = re.compile(r"(?:(?i:answer)\s*:\s*)?(?:\((?P<paren>[A-Z])\)|(?P<bare>[A-Z])\.?)")


@cache
def load_prompt() -> str:
    """The prompt template's text (shipped in the package)."""
    return files("kgverify.derive").joinpath("prompts", PROMPT_TEMPLATE).read_text("utf-8")


@cache
def prompt_version() -> str:
    """``calibrate@<hash of the template file>``: on the report and every row."""
    digest = hashlib.sha256(load_prompt().encode()).hexdigest()[:12]
    return f"calibrate@{digest}"


def render_prompt(item: QAItem) -> str:
    """The item's question and options, and the request for the letter."""
    labels = [o.label for o in item.options]
    listed = ", ".join(labels[:-1]) + f" or {labels[-1]}" if len(labels) > 1 else labels[0]
    return Template(load_prompt()).substitute(
        question=item.question.strip(),
        options="\n".join(f"{o.label}. {o.text}" for o in item.options),
        labels=listed,
    )


def parse_label(answer: str, labels: Sequence[str]) -> str | None:
    """The label an answer names, or None: only ``B``, ``B.``, ``(B)``, ``Answer: B`` (and
    ``Answer: (B)``, ``Answer: B.``), with whitespace around; the label must be one of
    ``labels``. Nothing is guessed from longer text."""
    found = _LABEL.fullmatch(answer.strip())
    if found is None:
        return None
    label = found["paren"] or found["bare"]
    return label if label in labels else None


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CalibrationRow(_Frozen):
    """One item's answer by one model (``calibration.jsonl``): no question or answer text."""

    item_id: str
    task: Task
    split: str
    model: str
    chosen: str | None = Field(description="the parsed label; None when unparsed or failed")
    correct: bool
    outcome: Outcome
    answer_chars: int | None = Field(
        description="length of the raw answer (its text is not kept); None when failed"
    )
    prompt: str = Field(description="prompt version, 'calibrate@<hash>'")


class ModelScore(_Frozen):
    """A model's answers over one task and split (``task``/``split`` "all": over every item)."""

    model: str
    task: str
    split: str
    items: int
    correct: int
    wrong: int
    unparsed: int
    failed: int
    accuracy: float = Field(description="correct / items (unparsed and failed count as wrong)")


class CalibrationReport(BaseModel):
    """What ``calibrate_items`` asked and how each model did (``OUT/report.json``)."""

    model_config = ConfigDict(extra="forbid")

    qa_dir: str
    out: str
    rows: str = Field(description="the per-item, per-model rows (calibration.jsonl)")
    backend: str
    models: list[str]
    prompt: str = Field(description="prompt version, 'calibrate@<hash>'")
    params: dict[str, Any] = Field(description="sampling parameters sent with every prompt")
    items: dict[str, dict[str, int]] = Field(description="items asked, per task and split")
    scores: list[ModelScore] = Field(description="per model, task and split")
    totals: list[ModelScore] = Field(description="per model, over every item")
    solved_by_all: list[str] = Field(
        description="item ids every model answered correctly: flagged as too easy"
    )
    solved_by_none: list[str] = Field(description="item ids no model answered correctly")
    unparsed: dict[str, int] = Field(description="answers with no readable label, per model")
    failed: dict[str, int] = Field(description="prompts the backend never answered, per model")
    cached: int = Field(description="answers read from the response cache")
    model_calls: int = Field(description="prompts sent to a model (retries included)")
    seconds: float = Field(description="time spent asking (model loads included for vllm)")


@dataclass(frozen=True)
class Panel:
    """How to reach the models: ``open(model)`` gives a backend (``extract.backends``)."""

    backend: str
    open: Callable[[str], Backend]


def read_qa_items(
    folder: Path,
    tasks: Sequence[str] | None = None,
    splits: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[QAItem]:
    """The items of a derived folder (``OUT/<task>/<split>.jsonl``), task by task, split by
    split, in file order; ``limit``: the first that many of each task. A line that is not a
    QA item is a one-line ``ConfigError`` naming the file and line."""
    if not folder.is_dir():
        raise ConfigError(f"no QA folder at {folder} (run `kgverify derive qa -o {folder}` first)")
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be at least 1, got {limit}")
    tasks = [TASKS.check(task) for task in tasks or ()]
    unknown = sorted(set(splits or ()) - set(SPLITS))
    if unknown:
        raise ConfigError(f"unknown split {unknown[0]!r} (known: {', '.join(SPLITS)})")
    found = [folder / task.value / f"{split}.jsonl" for task in Task for split in SPLITS]
    if not any(path.is_file() for path in found):
        raise ConfigError(
            f"no QA items in {folder}: no <task>/<split>.jsonl files "
            "(a folder written by `kgverify derive qa -o`)"
        )
    items: list[QAItem] = []
    for task in Task:
        if tasks and task.value not in tasks:
            continue
        taken = 0
        for split in SPLITS:
            path = folder / task.value / f"{split}.jsonl"
            if (splits and split not in splits) or not path.is_file():
                continue
            for item in _read(path):
                if limit is not None and taken >= limit:
                    break
                items.append(item)
                taken += 1
    if not items:
        chosen = ", ".join([*(tasks or ["every task"]), *(splits or ["every split"])])
        raise ConfigError(f"no QA items in {folder} for {chosen}")
    return items


def _read(path: Path) -> Iterator[QAItem]:
    for item in read_models_or_rejects(path, QAItem):
        if isinstance(item, BadLine):
            raise ConfigError(f"{path}: line {item.line}: not a QA item ({item.reason})")
        yield item


def calibrate(
    items: Sequence[QAItem],
    models: Sequence[str],
    panel: Panel,
    out: Path,
    *,
    qa_dir: Path,
    params: dict[str, Any],
    cache: ResponseCache | None,
    max_attempts: int = 3,
    batch_size: int = 64,
    progress: Progress | None = None,
) -> CalibrationReport:
    """Ask every item of every model in turn; write ``out/calibration.jsonl`` (written as
    ``.partial`` and renamed when complete) and ``out/report.json``, both owner-only."""
    if not models:
        raise ConfigError("calibration needs at least one --model")
    if max_attempts < 1 or batch_size < 1:
        raise ConfigError("max_attempts and batch_size must be at least 1")
    models = list(dict.fromkeys(models))
    prompts = [render_prompt(item) for item in items]
    began = time.monotonic()
    asker = _Asker(len(items) * len(models), cache, max_attempts, progress)
    if not out.is_dir():
        private_dir(out)  # owner-only when made here; a folder given is left as it is
    final = out / ROWS_FILE
    partial = partial_path(final)
    rows: list[CalibrationRow] = []
    try:
        with open_private(partial) as sink:
            for model in models:
                backend = panel.open(model)
                try:
                    for start in range(0, len(items), batch_size):
                        chunk = items[start : start + batch_size]
                        answers = asker.ask(backend, prompts[start : start + batch_size])
                        for item, answer in zip(chunk, answers, strict=True):
                            row = _row(item, model, answer)
                            rows.append(row)
                            sink.write(row.model_dump_json() + "\n")
                finally:
                    del backend
                    gc.collect()  # the offline engine's memory, before the next model
        os.replace(partial, final)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    report = _report(items, models, rows, panel.backend, params, qa_dir, out, asker)
    report.seconds = round(time.monotonic() - began, 2)
    with open_private(out / REPORT_FILE) as handle:
        handle.write(json.dumps(report.model_dump(), indent=2) + "\n")
    log.info(
        "calibration: %d items x %d models, %d answers cached, %d model calls",
        len(items),
        len(models),
        asker.cached,
        asker.model_calls,
    )
    return report


class _Asker:
    """Answers from the cache where it has them, from the backend otherwise; backend errors
    sent again up to ``max_attempts``; progress over every answer of the run (never going
    back: an answer that failed and is sent again is counted once)."""

    def __init__(
        self, total: int, cache: ResponseCache | None, max_attempts: int, progress: Progress | None
    ) -> None:
        self.total = total
        self.cache = cache
        self.max_attempts = max_attempts
        self.progress = progress
        self.done = 0
        self.shown = 0
        self.cached = 0
        self.model_calls = 0

    def ask(self, backend: Backend, prompts: list[str]) -> list[Completion]:
        keys = [
            cache_key(backend.kind, backend.model, backend.params, backend.schema, prompt)
            for prompt in prompts
        ]
        answers: list[Completion | None] = [
            self.cache.get(key) if self.cache is not None else None for key in keys
        ]
        self.cached += sum(a is not None for a in answers)
        self._advance(sum(a is not None for a in answers))
        for attempt in range(1, self.max_attempts + 1):
            missing = [
                i for i, a in enumerate(answers) if a is None or isinstance(a, CompletionError)
            ]
            if not missing:
                break
            fresh = backend.complete([prompts[i] for i in missing], progress=self._from(self.done))
            if len(fresh) != len(missing):
                raise LLMError(f"the backend gave {len(fresh)} answers to {len(missing)} prompts")
            self.model_calls += len(missing)
            for i, answer in zip(missing, fresh, strict=True):
                answers[i] = answer
            got = {keys[i]: a for i, a in zip(missing, fresh, strict=True) if isinstance(a, str)}
            if self.cache is not None and got:
                self.cache.put_many(got)
            last = attempt == self.max_attempts
            self._advance(sum(isinstance(a, str) or last for a in fresh))
        return [a if a is not None else CompletionError("no answer") for a in answers]

    def _from(self, base: int) -> Progress:
        """The backend's progress within one call, as progress of the run."""

        def report(done: int, total: int) -> None:
            self._show(base + done)

        return report

    def _advance(self, count: int) -> None:
        self.done += count
        self._show(self.done)

    def _show(self, done: int) -> None:
        done = min(done, self.total)
        if self.progress is not None and done > self.shown:
            self.shown = done
            self.progress(done, self.total)


def _row(item: QAItem, model: str, answer: Completion) -> CalibrationRow:
    chosen: str | None = None
    chars: int | None = None
    outcome: Outcome = "failed"
    if not isinstance(answer, CompletionError):
        chosen = parse_label(answer, [o.label for o in item.options])
        chars = len(answer)
        outcome = "unparsed" if chosen is None else "correct" if chosen == item.answer else "wrong"
    return CalibrationRow(
        item_id=item.item_id,
        task=item.task,
        split=item.split,
        model=model,
        chosen=chosen,
        correct=outcome == "correct",
        outcome=outcome,
        answer_chars=chars,
        prompt=prompt_version(),
    )


def _score(model: str, task: str, split: str, rows: list[CalibrationRow]) -> ModelScore:
    counts = Counter(row.outcome for row in rows)
    return ModelScore(
        model=model,
        task=task,
        split=split,
        items=len(rows),
        correct=counts["correct"],
        wrong=counts["wrong"],
        unparsed=counts["unparsed"],
        failed=counts["failed"],
        accuracy=round(counts["correct"] / len(rows), 4) if rows else 0.0,
    )


def _report(
    items: Sequence[QAItem],
    models: list[str],
    rows: list[CalibrationRow],
    backend: str,
    params: dict[str, Any],
    qa_dir: Path,
    out: Path,
    asker: _Asker,
) -> CalibrationReport:
    per_split: dict[str, dict[str, int]] = {}
    for item in items:
        splits = per_split.setdefault(item.task.value, {})
        splits[item.split] = splits.get(item.split, 0) + 1
    groups: dict[tuple[str, str, str], list[CalibrationRow]] = {}
    by_model: dict[str, list[CalibrationRow]] = {model: [] for model in models}
    solvers: dict[str, int] = {item.item_id: 0 for item in items}
    for row in rows:
        groups.setdefault((row.model, row.task.value, row.split), []).append(row)
        by_model[row.model].append(row)
        solvers[row.item_id] += row.correct
    order = {task.value: n for n, task in enumerate(Task)} | {s: n for n, s in enumerate(SPLITS)}
    scores = [
        _score(model, task, split, group)
        for (model, task, split), group in sorted(
            groups.items(),
            key=lambda kv: (models.index(kv[0][0]), order[kv[0][1]], order.get(kv[0][2], 9)),
        )
    ]
    totals = [_score(model, "all", "all", by_model[model]) for model in models]
    ids = list(dict.fromkeys(item.item_id for item in items))
    return CalibrationReport(
        qa_dir=str(qa_dir),
        out=str(out),
        rows=str(out / ROWS_FILE),
        backend=backend,
        models=models,
        prompt=prompt_version(),
        params=params,
        items=per_split,
        scores=scores,
        totals=totals,
        solved_by_all=[i for i in ids if solvers[i] == len(models)],
        solved_by_none=[i for i in ids if solvers[i] == 0],
        unparsed={t.model: t.unparsed for t in totals},
        failed={t.model: t.failed for t in totals},
        cached=asker.cached,
        model_calls=asker.model_calls,
        seconds=0.0,
    )


def open_panel(
    backend: str,
    *,
    base_url: str | None,
    api_key: str | None,
    concurrency: int,
    timeout_s: float,
    params: dict[str, Any],
    engine_kwargs: dict[str, Any] | None = None,
) -> Panel:
    """What opens each model of the panel, with the settings checked before any work.

    "openai": an ``OpenAIBackend`` per model on ``base_url`` (one server may serve several
    models, or each run names one); "vllm": a ``VLLMBackend`` per model, loaded in this
    process one after another (``engine_kwargs`` go to ``vllm.LLM``).
    """
    from kgverify.extract.backends import OpenAIBackend, VLLMBackend

    if backend == "openai":
        if not base_url:
            raise ConfigError("--backend openai needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        options: dict[str, Any] = {
            "api_key": api_key,
            "concurrency": concurrency,
            "timeout_s": timeout_s,
            "params": params,
            "structured": False,
        }
        OpenAIBackend(base_url, "-", **options)  # a bad URL or option: refused here, not later

        def remote(model: str) -> Backend:
            return OpenAIBackend(base_url, model, **options)

        return Panel("openai", remote)
    if backend == "vllm":

        def offline(model: str) -> Backend:
            return VLLMBackend(model, params=params, structured=False, **(engine_kwargs or {}))

        return Panel("vllm", offline)
    raise ConfigError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
