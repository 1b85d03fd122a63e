"""The LLM extractor: trajectories -> candidate relations, through any model backend.

For each episode with items (``kgverify.ehr.episodes``: an encounter, or one day of the items
recorded outside encounters, as the template extractor reads them), one prompt
(``prompting.prompts_of``); prompts are sent in batches across episodes; each answer is
parsed (code fences and leading text stripped, the first JSON object read) and checked
against ``LLMResponse``. An unusable answer (no JSON, or not ``{"relations": [...]}``) is
retried with the repair prompt, a prompt the backend could not answer is sent again, up to
``max_attempts`` in all; then the episode becomes one ``ExtractionFailure``. In a usable
answer each relation is judged on its own: a bad one (unknown predicate, a field out of
schema, evidence that is not an item of the episode, a repeat) becomes an
``ExtractionFailure`` with its reason, and the others are kept. Nothing is dropped silently:
``counts`` reconciles.

Every failure's ``reason`` starts with a ``FailureKind`` (``"invalid_json: ..."``), so
failures can be counted and filtered by kind. Patient text (prompts, notes, answers) is
never logged; logs carry counts only.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from kgverify.ehr.episodes import episodes, undated_items
from kgverify.ehr.model import Trajectory
from kgverify.errors import ConfigError
from kgverify.extract.backends import (
    Backend,
    Completion,
    CompletionError,
    LLMError,
    LLMRequestError,
    LLMUnavailableError,
    OpenAIBackend,
    Progress,
    VLLMBackend,
)
from kgverify.extract.cache import ResponseCache, cache_key
from kgverify.extract.prompting import (
    EpisodePrompt,
    LLMRelation,
    LLMResponse,
    prompts_of,
    repair_prompt,
    response_schema,
    template_version,
)
from kgverify.extract.relation import (
    CandidateRelation,
    ExtractionFailure,
    ExtractorInfo,
    Predicate,
)

__all__ = [
    "ExtractionCounts",
    "FailureKind",
    "LLMError",
    "LLMExtractor",
    "LLMRequestError",
    "LLMResponse",
    "LLMUnavailableError",
    "OpenAIBackend",
    "Progress",
    "ResponseCache",
    "UnusableAnswerError",
    "VLLMBackend",
    "extract_json",
    "failure_kind",
    "parse_answer",
    "response_schema",
]

log = logging.getLogger(__name__)

MAX_RAW_CHARS = 4000
_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.DOTALL)


class FailureKind(StrEnum):
    """The first word of every failure reason."""

    # A whole answer (one episode) after max_attempts:
    BACKEND_ERROR = "backend_error"
    INVALID_JSON = "invalid_json"
    SCHEMA_VIOLATION = "schema_violation"
    # One relation of a usable answer:
    UNKNOWN_PREDICATE = "unknown_predicate"
    INVALID_RELATION = "invalid_relation"
    EVIDENCE_NOT_IN_ENCOUNTER = "evidence_not_in_encounter"
    DUPLICATE_RELATION = "duplicate_relation"


def failure_kind(failure: ExtractionFailure) -> FailureKind:
    """The kind a failure's reason starts with."""
    return FailureKind(failure.reason.split(":", 1)[0])


class UnusableAnswerError(Exception):
    """An answer that is not ``{"relations": [...]}``: retried with the repair prompt."""

    def __init__(self, kind: FailureKind, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


class _Envelope(BaseModel):
    """The outer shape only; each relation is then checked on its own."""

    model_config = ConfigDict(extra="forbid")

    relations: list[dict[str, Any]]


def extract_json(text: str) -> Any:
    """The first JSON object in an answer, inside a code fence if there is one."""
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    start = body.find("{")
    if start < 0:
        raise UnusableAnswerError(FailureKind.INVALID_JSON, "no JSON object in the answer")
    try:
        value, _ = json.JSONDecoder().raw_decode(body, start)
    except json.JSONDecodeError as exc:
        detail = f"{exc.msg} at line {exc.lineno} column {exc.colno}"
        raise UnusableAnswerError(FailureKind.INVALID_JSON, detail) from None
    return value


def parse_answer(text: str) -> list[dict[str, Any]]:
    """The relation objects of an answer; raises ``UnusableAnswerError``."""
    try:
        return _Envelope.model_validate(extract_json(text)).relations
    except ValidationError as exc:
        raise UnusableAnswerError(FailureKind.SCHEMA_VIOLATION, _summary(exc)) from None


def _summary(exc: ValidationError, limit: int = 3) -> str:
    """Where and what, without the offending values (they may be patient text)."""
    errors = exc.errors()
    parts = [
        f"{'.'.join(str(p) for p in e['loc']) or 'answer'}: {e['msg']}" for e in errors[:limit]
    ]
    more = f" (+{len(errors) - limit} more)" if len(errors) > limit else ""
    return "; ".join(parts) + more


def _raw(text: str) -> str:
    return text[:MAX_RAW_CHARS]


@dataclass
class ExtractionCounts:
    """What one ``extract`` run did; ``reconciles`` checks that nothing went missing."""

    patients: int = 0  # trajectories read
    episodes: int = 0  # encounters, and days of items outside encounters
    undated: int = 0  # items outside encounters without a date: in no episode, not sent
    skipped_empty: int = 0  # episodes without items (empty encounters): no prompt
    prompts: int = 0  # episode prompts
    answered: int = 0  # episodes with a usable answer
    failed: int = 0  # episodes without one after max_attempts
    first_attempt_ok: int = 0  # usable on the first answer
    requests: int = 0  # prompts answered, retries and repairs included
    cached: int = 0  # ... from the cache
    model_calls: int = 0  # ... by the backend
    repairs: int = 0  # repair prompts among the requests
    relations: int = 0  # accepted
    rejected: int = 0  # relations of usable answers that were refused
    failures: Counter[str] = field(default_factory=Counter)  # by FailureKind

    @property
    def reconciles(self) -> bool:
        return (
            self.episodes == self.skipped_empty + self.prompts
            and self.prompts == self.answered + self.failed
            and self.requests == self.cached + self.model_calls
            and sum(self.failures.values()) == self.failed + self.rejected
        )

    def add(self, other: ExtractionCounts) -> None:
        """Count ``other``'s run in too (the parts of one run made by several workers)."""
        for name in self.__dataclass_fields__:
            if name != "failures":
                setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures.update(other.failures)

    def as_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["failures"] = dict(sorted(self.failures.items()))
        return data


@dataclass
class _Attempt:
    """One episode's way through the retries."""

    prompt: EpisodePrompt
    send: str  # the next text to send: the prompt, or a repair prompt
    attempts: int = 0
    raw: str = ""  # the last text the model gave
    error: tuple[FailureKind, str] | None = None
    relations: list[dict[str, Any]] | None = None


class LLMExtractor:
    """Candidate relations from trajectories, one prompt per episode.

    ``cache``: a ``ResponseCache`` (answers reused across runs) or None (every prompt goes
    to the backend). ``batch_size``: prompts collected across episodes before one backend
    call (a trajectory's episodes stay together, so a batch may be a little larger).
    ``progress(done, total)``: model calls answered and sent so far; the total grows batch by
    batch, as trajectories are read lazily.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        cache: ResponseCache | None,
        max_attempts: int = 3,
        batch_size: int = 64,
        progress: Progress | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ConfigError(f"max_attempts must be at least 1, not {max_attempts}")
        if batch_size < 1:
            raise ConfigError(f"batch_size must be at least 1, not {batch_size}")
        self.backend = backend
        self.cache = cache
        self.max_attempts = max_attempts
        self.batch_size = batch_size
        self.progress = progress
        self.info = ExtractorInfo(
            name=backend.kind, version=template_version(), model=backend.model
        )
        self.counts = ExtractionCounts()
        self._calls_done = 0
        self._calls_sent = 0

    def extract(
        self, trajectories: Iterable[Trajectory]
    ) -> Iterator[CandidateRelation | ExtractionFailure]:
        """Relations and failures, episode by episode in input order."""
        self.counts = ExtractionCounts()
        self._calls_done = self._calls_sent = 0
        batch: list[EpisodePrompt] = []
        for trajectory in trajectories:
            timeline = episodes(trajectory)
            prompts = prompts_of(trajectory, timeline)
            self.counts.patients += 1
            self.counts.episodes += len(timeline)
            self.counts.undated += undated_items(trajectory)
            self.counts.skipped_empty += len(timeline) - len(prompts)
            batch.extend(prompts)
            if len(batch) >= self.batch_size:
                yield from self._run_batch(batch)
                batch = []
        if batch:
            yield from self._run_batch(batch)
        counts = self.counts
        log.info(
            "LLM extraction: %d prompts for %d episodes of %d patients (%d cached requests, "
            "%d model calls), %d relations, %d failures",
            counts.prompts,
            counts.episodes,
            counts.patients,
            counts.cached,
            counts.model_calls,
            counts.relations,
            sum(counts.failures.values()),
        )

    def _run_batch(
        self, prompts: Sequence[EpisodePrompt]
    ) -> Iterator[CandidateRelation | ExtractionFailure]:
        self.counts.prompts += len(prompts)
        attempts = [_Attempt(prompt=p, send=p.text) for p in prompts]
        pending = attempts
        for number in range(1, self.max_attempts + 1):
            answers = self._complete([a.send for a in pending])
            self.counts.repairs += sum(a.send != a.prompt.text for a in pending)
            retry = []
            for attempt, answer in zip(pending, answers, strict=True):
                attempt.attempts = number
                if not self._judge(attempt, answer):
                    retry.append(attempt)
                elif number == 1:
                    self.counts.first_attempt_ok += 1
            pending = retry
            if not pending:
                break
        log.debug("batch of %d prompts: %d without a usable answer", len(prompts), len(pending))
        for attempt in attempts:
            yield from self._outcome(attempt)

    def _judge(self, attempt: _Attempt, answer: Completion) -> bool:
        """Take a usable answer, or set up the next try; True when usable."""
        if isinstance(answer, CompletionError):
            # The backend failed, not the model: send the same text again.
            attempt.error = (FailureKind.BACKEND_ERROR, answer.reason)
            return False
        attempt.raw = answer
        try:
            attempt.relations = parse_answer(answer)
        except UnusableAnswerError as exc:
            attempt.error = (exc.kind, exc.detail)
            attempt.send = repair_prompt(attempt.prompt.text, answer, str(exc))
            return False
        return True

    def _complete(self, texts: list[str]) -> list[Completion]:
        """Answers from the cache where it has them, from the backend otherwise."""
        backend = self.backend
        keys = [
            cache_key(backend.kind, backend.model, backend.params, backend.schema, text)
            for text in texts
        ]
        answers: list[Completion | None] = [
            self.cache.get(key) if self.cache is not None else None for key in keys
        ]
        missing = [i for i, answer in enumerate(answers) if answer is None]
        self.counts.requests += len(texts)
        self.counts.cached += len(texts) - len(missing)
        self.counts.model_calls += len(missing)
        if missing:
            base = self._calls_done
            self._calls_sent += len(missing)
            fresh = backend.complete([texts[i] for i in missing], progress=self._report(base))
            if len(fresh) != len(missing):
                raise LLMError(f"the backend gave {len(fresh)} answers to {len(missing)} prompts")
            self._calls_done = base + len(missing)
            for i, answer in zip(missing, fresh, strict=True):
                answers[i] = answer
            if self.cache is not None:
                self.cache.put_many(
                    {keys[i]: a for i, a in zip(missing, fresh, strict=True) if isinstance(a, str)}
                )
        return [a if a is not None else CompletionError("no answer") for a in answers]

    def _report(self, base: int) -> Progress | None:
        if self.progress is None:
            return None
        progress = self.progress
        sent = self._calls_sent

        def report(done: int, total: int) -> None:
            progress(base + done, sent)

        return report

    def _outcome(self, attempt: _Attempt) -> Iterator[CandidateRelation | ExtractionFailure]:
        prompt = attempt.prompt
        if attempt.relations is None:
            assert attempt.error is not None
            kind, detail = attempt.error
            self.counts.failed += 1
            self.counts.failures[kind] += 1
            yield self._failure(prompt, kind, detail, attempt.raw, attempt.attempts)
            return
        self.counts.answered += 1
        seen: set[str] = set()
        for index, raw in enumerate(attempt.relations):
            result = self._relation(prompt, raw, seen)
            if isinstance(result, CandidateRelation):
                self.counts.relations += 1
                yield result
                continue
            kind, detail = result
            self.counts.rejected += 1
            self.counts.failures[kind] += 1
            text = json.dumps(raw, ensure_ascii=False)
            yield self._failure(prompt, kind, f"relation {index}: {detail}", text, attempt.attempts)

    def _relation(
        self, prompt: EpisodePrompt, raw: dict[str, Any], seen: set[str]
    ) -> CandidateRelation | tuple[FailureKind, str]:
        try:
            relation = LLMRelation.model_validate(raw)
        except ValidationError as exc:
            if any(e["loc"] == ("predicate",) and e["type"] == "enum" for e in exc.errors()):
                name = str(raw.get("predicate"))[:60]
                allowed = ", ".join(p.value for p in Predicate)
                return FailureKind.UNKNOWN_PREDICATE, f"{name!r} is not one of {allowed}"
            return FailureKind.INVALID_RELATION, _summary(exc)
        evidence = list(dict.fromkeys(relation.evidence))  # repeats dropped, order kept
        allowed_ids = prompt.item_ids
        if relation.predicate is Predicate.LEADS_TO:
            allowed_ids = allowed_ids | prompt.earlier_ids
        unknown = [e for e in evidence if e not in allowed_ids]
        if unknown:
            shown = ", ".join(repr(e[:40]) for e in unknown[:5])
            return FailureKind.EVIDENCE_NOT_IN_ENCOUNTER, f"{shown} not items of this episode"
        if prompt.item_ids.isdisjoint(evidence):
            return FailureKind.EVIDENCE_NOT_IN_ENCOUNTER, "no evidence from this episode"
        candidate = CandidateRelation(
            patient_id=prompt.patient_id,
            encounter_id=prompt.encounter_id,
            subject=relation.subject,
            predicate=relation.predicate,
            object=relation.object,
            evidence=evidence,
            extractor=self.info,
            confidence=relation.confidence,
        )
        if candidate.relation_id in seen:
            return FailureKind.DUPLICATE_RELATION, f"repeats relation {candidate.relation_id}"
        seen.add(candidate.relation_id)
        return candidate

    def _failure(
        self, prompt: EpisodePrompt, kind: FailureKind, detail: str, raw: str, attempts: int
    ) -> ExtractionFailure:
        return ExtractionFailure(
            patient_id=prompt.patient_id,
            encounter_id=prompt.encounter_id,
            extractor=self.info,
            reason=f"{kind}: {detail}",
            raw=_raw(raw),
            attempts=max(attempts, 1),
        )
