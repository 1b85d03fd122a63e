"""The clinician review loop for derived QA items (docs/review.md): export a deterministic
sample as static pages and a sheet, import the filled sheet as ``(:Review)`` provenance
(items flagged, relation judgements marked), and read the standing decisions back for
derivation and re-verification (:class:`ReviewState`).

The package itself exports only what sits below derivation (the decisions as data, the
sheet, the state derivation reads), so ``kgverify.derive`` can read reviews without an
import loop; the export and import runs are ``kgverify.review.export`` and
``kgverify.review.importer``, which read items and lineage from the stages above."""

from kgverify.review.model import (
    Decision,
    RejectedSheetRow,
    Review,
    ReviewExportReport,
    ReviewImportReport,
    SheetRow,
)
from kgverify.review.sheet import COLUMNS, ReviewSheetError, read_sheet
from kgverify.review.state import RelationJudgement, ReviewState

__all__ = [
    "COLUMNS",
    "Decision",
    "RejectedSheetRow",
    "RelationJudgement",
    "Review",
    "ReviewExportReport",
    "ReviewImportReport",
    "ReviewSheetError",
    "ReviewState",
    "SheetRow",
    "read_sheet",
]
