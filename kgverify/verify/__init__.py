"""Verification: every candidate relation judged against the vocabulary graph by Cypher rules
(docs/verification.md).

The models are here; the verifier (``kgverify.verify.verifier``) and ad-hoc questions
(``check``) are imported from their modules, as :mod:`kgverify.api` does. Re-verification
on a new release manages derived items, so it sits above derivation, in
``kgverify.audit.reverify``.
"""

from kgverify.verify.model import (
    Edge,
    Enrichment,
    EvidencePath,
    Verdict,
    VerdictKind,
    read_verdicts,
    write_verdicts,
)

__all__ = [
    "Edge",
    "Enrichment",
    "EvidencePath",
    "Verdict",
    "VerdictKind",
    "read_verdicts",
    "write_verdicts",
]
