"""Candidate relations and the extractors that propose them (template rules, LLMs)."""

from kgverify.extract.relation import (
    CandidateRelation,
    ExtractionFailure,
    ExtractorInfo,
    Mention,
    Predicate,
    read_relations,
    write_relations,
)

__all__ = [
    "CandidateRelation",
    "ExtractionFailure",
    "ExtractorInfo",
    "Mention",
    "Predicate",
    "read_relations",
    "write_relations",
]
