"""What the LLM extractor asks and what the model must answer.

Prompts: one per episode (``kgverify.ehr.episodes``: an encounter, or one day of the items
recorded outside encounters, the episodes the template extractor reads too), rendered from
the template files in ``kgverify/extract/prompts/`` (shipped in the wheel, read through
importlib.resources). The answer: ``LLMResponse``, whose
JSON schema (``response_schema()``) is what structured outputs constrain the model to.

Rendering is deterministic: the same trajectory gives the same prompt, byte for byte, so
the response cache (keyed by the prompt) hits on a rerun. Every item line carries its
``item_id`` so the model can cite evidence that the extractor can check.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from importlib.resources import files
from string import Template
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kgverify.ehr.episodes import Episode, episodes
from kgverify.ehr.model import (
    CodedItem,
    Condition,
    DrugExposure,
    Item,
    Measurement,
    Note,
    Procedure,
    Trajectory,
)
from kgverify.extract.relation import Mention, Predicate

RELATIONS_TEMPLATE = "relations_v2.txt"
REPAIR_TEMPLATE = "repair_v1.txt"
NONE = "(none)"
MAX_NOTE_CHARS = 6000
MAX_EARLIER = 50
MAX_PREVIOUS_CHARS = 4000


class LLMRelation(BaseModel):
    """One relation as the model must write it; the extractor adds patient and episode."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    subject: Mention
    predicate: Predicate
    object: Mention
    evidence: list[str] = Field(min_length=1, description="item ids from the prompt's lines")
    confidence: float = Field(ge=0.0, le=1.0)


class LLMResponse(BaseModel):
    """The whole answer for one episode."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    relations: list[LLMRelation]


@cache
def _schema() -> dict[str, Any]:
    return LLMResponse.model_json_schema()


def response_schema() -> dict[str, Any]:
    """The JSON schema of ``LLMResponse`` (a fresh copy; callers may change it)."""
    return copy.deepcopy(_schema())


@cache
def load_template(name: str) -> str:
    """The text of a template file inside the package."""
    return files("kgverify.extract").joinpath("prompts", name).read_text(encoding="utf-8")


@cache
def template_version() -> str:
    """SHA-256 prefix over both template files: the extractor version of every relation.

    The repair template is included because it, too, shapes what the model answers.
    """
    digest = hashlib.sha256()
    for name in (RELATIONS_TEMPLATE, REPAIR_TEMPLATE):
        digest.update(name.encode() + b"\0" + load_template(name).encode() + b"\0")
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class EpisodePrompt:
    """One episode's prompt and the item ids a relation from it may cite."""

    patient_id: str
    encounter_id: str | None
    """The encounter of the episode; None for a day outside encounters."""
    episode: str
    """The episode's key (``episode_key``): the encounter id or ``day:YYYY-MM-DD``."""
    text: str
    item_ids: frozenset[str]
    """The ids of this episode's items: evidence for any predicate."""
    earlier_ids: frozenset[str]
    """The ids of the earlier conditions shown: extra evidence for ``leads_to`` only."""


def build_prompts(
    trajectory: Trajectory,
    *,
    max_note_chars: int = MAX_NOTE_CHARS,
    max_earlier: int = MAX_EARLIER,
) -> list[EpisodePrompt]:
    """One prompt per episode that has items (empty encounters have nothing to cite)."""
    return prompts_of(trajectory, episodes(trajectory), max_note_chars, max_earlier)


def prompts_of(
    trajectory: Trajectory,
    timeline: list[Episode],
    max_note_chars: int = MAX_NOTE_CHARS,
    max_earlier: int = MAX_EARLIER,
) -> list[EpisodePrompt]:
    """``build_prompts`` over episodes already cut (``episodes(trajectory)``)."""
    template = Template(load_template(RELATIONS_TEMPLATE))
    patient = trajectory.patient
    patient_line = f"age band {patient.age_band or 'unknown'}, sex {patient.sex}"
    prompts = []
    for index, episode in enumerate(timeline):
        item_ids = frozenset(item.item_id for item in episode.items())
        if not item_ids:
            continue
        earlier = _earlier_conditions(timeline[:index], max_earlier)
        text = template.substitute(
            patient=patient_line,
            episode=_episode_line(episode),
            conditions=_lines(episode.conditions),
            drugs=_lines(episode.drug_exposures),
            measurements=_lines(episode.measurements),
            procedures=_lines(episode.procedures),
            notes=_notes(episode.notes, max_note_chars),
            earlier=_lines(earlier),
        )
        prompts.append(
            EpisodePrompt(
                patient_id=patient.patient_id,
                encounter_id=episode.encounter_id,
                episode=episode.key,
                text=text,
                item_ids=item_ids,
                earlier_ids=frozenset(c.item_id for c in earlier) - item_ids,
            )
        )
    return prompts


def repair_prompt(prompt: str, previous: str, error: str) -> str:
    """The retry prompt after an unusable answer: the error, the answer, the task again."""
    if len(previous) > MAX_PREVIOUS_CHARS:
        previous = previous[:MAX_PREVIOUS_CHARS] + " [... cut]"
    return Template(load_template(REPAIR_TEMPLATE)).substitute(
        error=error, previous=previous or "(empty)", prompt=prompt
    )


def _when(value: date | datetime | None) -> str:
    return value.isoformat() if value is not None else "?"


def _episode_line(episode: Episode) -> str:
    encounter = episode.encounter
    if encounter is None:
        return f"no encounter; items recorded on {episode.when.date().isoformat()}"
    span = _when(encounter.start)
    if encounter.end is not None:
        span += f" to {_when(encounter.end)}"
    return f"{encounter.kind} encounter, {span}"


def _number(value: float) -> str:
    return format(value, "g")


def _head(item: Item) -> str:
    name = item.display or "(no name)"
    code = f" ({item.code_system} {item.code})" if isinstance(item, CodedItem) else ""
    return f"[{item.item_id}] {name}{code}"


def _details(item: CodedItem) -> list[str]:
    parts: list[str] = []
    if isinstance(item, Measurement):
        value = _number(item.value) if item.value is not None else item.value_text
        if value is not None:
            parts.append(f"{value} {item.unit}" if item.unit else value)
        if item.flag is not None:
            parts.append(item.flag)
        low, high = item.ref_low, item.ref_high
        if low is not None and high is not None:
            parts.append(f"range {_number(low)}-{_number(high)}")
        elif low is not None:
            parts.append(f"range >= {_number(low)}")
        elif high is not None:
            parts.append(f"range <= {_number(high)}")
    if isinstance(item, DrugExposure):
        if item.dose is not None:
            parts.append(f"dose {item.dose} {item.dose_unit or ''}".rstrip())
        if item.route is not None:
            parts.append(f"route {item.route}")
    if item.start is not None:
        span = _when(item.start)
        end = item.end if isinstance(item, Condition | DrugExposure | Procedure) else None
        parts.append(f"from {span} to {_when(end)}" if end is not None else f"on {span}")
    return parts


def _lines(items: Sequence[CodedItem]) -> str:
    if not items:
        return NONE
    lines = []
    for item in items:
        details = _details(item)
        lines.append(f"- {_head(item)}" + (": " + ", ".join(details) if details else ""))
    return "\n".join(lines)


def _notes(notes: list[Note], max_chars: int) -> str:
    if not notes:
        return NONE
    blocks = []
    for note in notes:
        head = f"[{note.item_id}] {note.title or note.display or 'note'}"
        if note.start is not None:
            head += f", {_when(note.start)}"
        text = note.text.strip()
        if len(text) > max_chars:
            text = text[:max_chars] + " [... cut]"
        blocks.append(f"{head}\n<<<\n{text}\n>>>")
    return "\n\n".join(blocks)


def _earlier_conditions(earlier: list[Episode], limit: int) -> list[Condition]:
    """Earlier episodes' conditions, latest episode first, one per code (its latest)."""
    seen: set[tuple[str, str]] = set()
    latest: list[Condition] = []
    for episode in reversed(earlier):
        for condition in episode.conditions:
            key = (condition.code_system, condition.code)
            if key not in seen:
                seen.add(key)
                latest.append(condition)
    return latest[:limit]
