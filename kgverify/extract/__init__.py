"""Candidate relations and the extractors that propose them (template rules, LLMs).

The LLM side (``kgverify.extract.llm``, ``backends``, ``cache``, ``prompting``) is imported
on use: vllm itself is an optional extra, loaded only by ``VLLMBackend``.
"""

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
