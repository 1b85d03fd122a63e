"""The candidate relation: what an extractor (template or LLM) proposes and the verifier
judges. One schema for every extractor; JSONL in and out (see docs/relations.md).

An unknown predicate, a confidence outside [0, 1] or an unknown field is a validation error,
so a malformed line from a file or a model is rejected with its reason, never half-read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from kgverify.bounds import MAX_ID_CHARS
from kgverify.jsonl import BadLine, read_models_or_rejects, write_models

# Ids and codes become node keys or are looked up by index: bounded (kgverify/bounds.py) so
# an over-long one is a rejected line, never a refused write (docs/relations.md).
Id = Annotated[str, Field(max_length=MAX_ID_CHARS)]


class Predicate(StrEnum):
    """The fixed predicates, with the slot types the verifier will check."""

    INDICATES = "indicates"  # finding or lab result -> diagnosis
    TREATS = "treats"  # drug -> condition
    LEADS_TO = "leads_to"  # condition -> later outcome
    CONTRAINDICATED_FOR = "contraindicated_for"  # drug -> condition


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Mention(_Frozen):
    """One side of a relation: the text as extracted, and a code when the source gave one."""

    text: str = Field(min_length=1, max_length=500)
    code_system: Id | None = Field(default=None, description="SNOMEDCT, RXNORM, LNC, ...")
    code: Id | None = None

    @model_validator(mode="after")
    def _code_pair(self) -> Mention:
        if (self.code is None) != (self.code_system is None):
            raise ValueError("code and code_system go together")
        return self


class ExtractorInfo(_Frozen):
    """Which extractor produced a relation, so an audit can group and re-run by it."""

    name: Id = Field(description="'template', 'vllm', 'openai'")
    version: Id = Field(description="extractor version; for LLMs the prompt template hash")
    model: Id | None = Field(default=None, description="model name, for LLM extractors")


class CandidateRelation(_Frozen):
    """A proposed relation between two mentions in one patient's record."""

    relation_id: Id = Field(default="", description="content hash; filled in when empty")
    patient_id: Id
    encounter_id: Id | None = Field(default=None, description="where the relation was seen")
    subject: Mention
    predicate: Predicate
    object: Mention
    evidence: list[Id] = Field(
        default_factory=list, description="item_ids of the trajectory items it rests on"
    )
    extractor: ExtractorInfo
    confidence: float = Field(ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _identity(self) -> CandidateRelation:
        if not self.relation_id:
            object.__setattr__(self, "relation_id", relation_id_of(self))
        return self


def relation_id_of(relation: CandidateRelation) -> str:
    """Stable id over what the relation says, where, and who said it (not the confidence)."""
    key = json.dumps(
        [
            relation.patient_id,
            relation.encounter_id,
            relation.subject.model_dump(),
            relation.predicate.value,
            relation.object.model_dump(),
            relation.extractor.model_dump(),
        ],
        sort_keys=True,
    )
    return hashlib.sha256(key.encode()).hexdigest()[:20]


class ExtractionFailure(_Frozen):
    """An extraction that produced no valid relation: kept with the raw output and why."""

    patient_id: str
    encounter_id: str | None = None
    extractor: ExtractorInfo
    reason: str
    raw: str = Field(default="", description="the model's raw text, cut to 4,000 characters")
    attempts: int = Field(ge=1, default=1)


def write_relations(relations: Iterable[CandidateRelation], path: Path) -> int:
    """Write relations as JSONL; returns how many."""
    return write_models(relations, path)


def read_relations(path: Path) -> Iterator[CandidateRelation | BadLine]:
    """Relations from JSONL, streamed; a bad line comes back as a ``BadLine``."""
    return read_models_or_rejects(path, CandidateRelation)
