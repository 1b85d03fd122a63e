"""Verification: every candidate relation judged against the vocabulary graph by Cypher rules
(docs/verification.md).

The models are here; the verifier (``kgverify.verify.verifier``), ad-hoc questions
(``check``) and re-verification on a new release (``reverify``) are imported from their
modules, as :mod:`kgverify.api` does.
"""

from kgverify.verify.model import (
    DistractorCheck,
    Edge,
    Enrichment,
    EvidencePath,
    Verdict,
    VerdictKind,
    read_verdicts,
    write_verdicts,
)

__all__ = [
    "DistractorCheck",
    "Edge",
    "Enrichment",
    "EvidencePath",
    "Verdict",
    "VerdictKind",
    "read_verdicts",
    "write_verdicts",
]
