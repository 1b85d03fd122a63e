"""What linking produces: ranked candidates, a status, and the relation with both sides
linked. JSONL in and out (schema in docs/linking.md).

A mention is *linked* when its best plausible candidate clears the threshold and leads the
next plausible group by at least the margin; *ambiguous* when plausible groups lie within the
margin (the candidates are kept, none is chosen); *unlinked* when nothing plausible clears the
threshold. Candidates that are the same thing in two vocabularies (a CUI and the SNOMED code
it contains) form one group and never make a mention ambiguous.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from kgverify.extract.relation import CandidateRelation, Id
from kgverify.jsonl import read_models, write_models


class LinkStatus(StrEnum):
    LINKED = "linked"
    AMBIGUOUS = "ambiguous"
    UNLINKED = "unlinked"


class Method(StrEnum):
    """How a candidate was found, in the order the pipeline tries them."""

    CODE = "code"  # the source's code, mapped through the graph
    EXACT = "exact"  # a name equal to the mention up to case and spacing
    NORMALIZED = "normalized"  # equal after inversion, punctuation and plurals are undone
    REORDERED = "reordered"  # the same words in another order (when order cannot matter)
    VARIANT = "variant"  # a fallback key (normalize.VARIANTS): qualifier, salt, locant, role, ...
    MINED = "mined"  # a name after substitutions mined from the vocabularies (mined.py)
    EDIT = "edit"  # a TF-IDF neighbour one typo (edit) away from the mention
    TFIDF = "tfidf"  # scispaCy char-3-gram TF-IDF nearest neighbours


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LinkCandidate(_Frozen):
    """One concept a mention may denote."""

    concept_id: Id
    name: str
    vocab: str
    kinds: list[str] = Field(default_factory=list)
    score: float = Field(ge=0.0, le=1.0)
    method: Method
    alias: str = Field(description="the indexed name (or code) that matched")
    type_ok: bool = Field(description="its kinds fit the relation slot (or are unknown)")
    group: int = Field(ge=0, description="candidates with one group number are one concept")


class ConceptMatch(BaseModel):
    """A concept a name may denote, as ``kgverify find`` (``api.find_concepts``) lists it:
    the linker's candidates first, then the full-text matches it did not list."""

    id: str
    name: str | None = None
    vocab: str | None = None
    kinds: list[str] | None = None
    active: bool | None = None
    score: float = Field(description="on the linker's scale, 0 to 1")
    method: str = Field(description="the linker's stage, or fulltext")
    found_by: str = Field(description='"linker" or "full-text search"')
    linked: bool = Field(description="the concept the linker links the name to")
    close: bool = Field(description="the score reaches link_threshold")


class MentionLink(_Frozen):
    """The linking result for one mention."""

    status: LinkStatus
    concept_id: Id | None = Field(default=None, description="set only when linked")
    equivalents: list[Id] = Field(
        default_factory=list, description="the chosen concept's group and MAPS_TO neighbours"
    )
    score: float = Field(default=0.0, ge=0.0, le=1.0, description="best plausible score")
    margin: float = Field(
        default=0.0, ge=0.0, le=1.0, description="best minus second plausible group's score"
    )
    method: Method | None = None
    query: str = Field(description="the text looked up (the long form when expanded)")
    expanded_from: str | None = Field(
        default=None, description="the abbreviation in the context that was expanded"
    )
    candidates: list[LinkCandidate] = Field(default_factory=list)


class LinkedRelation(_Frozen):
    """A candidate relation with both mentions linked."""

    relation: CandidateRelation
    subject: MentionLink
    object: MentionLink
    index: Id = Field(description="key of the linker index used (the releases it was built on)")

    @property
    def linked(self) -> bool:
        return self.subject.status is LinkStatus.LINKED and self.object.status is LinkStatus.LINKED


def write_linked(relations: Iterable[LinkedRelation], path: Path) -> int:
    """Write linked relations as JSONL; returns how many."""
    return write_models(relations, path)


def read_linked(path: Path) -> Iterator[LinkedRelation]:
    """Linked relations from JSONL (files kgverify wrote; a bad line raises)."""
    return read_models(path, LinkedRelation)
