"""The typed results of the API's functions, in one place: what a caller (the CLI's
printers among them) names without reaching into the stages that make them. Importing this
module imports those stages' models; ``kgverify.api`` itself does not."""

from kgverify.actions.model import ActionsReport, GradeReport
from kgverify.api.auditing import ProvReport
from kgverify.api.graphs import GraphReset
from kgverify.audit.catalog import Audit, AuditRows
from kgverify.audit.lineage import Lineage
from kgverify.audit.reverify import ReverifyReport
from kgverify.derive.calibrate import CalibrationReport
from kgverify.derive.model import DeriveReport, FactSheet, FactsReport, PolicyYield
from kgverify.dialogue.model import DialogueReport, ForgetReport
from kgverify.dialogue.patient import PatientTurn
from kgverify.ehr.fhir_write import FhirLoadReport
from kgverify.ehr.report import SourceIngestReport, TrajectoriesReport
from kgverify.extract.run import ExtractReport
from kgverify.graph.driver import AdhocResult
from kgverify.graph.queries import Query
from kgverify.graph.summary import GraphSummary
from kgverify.link.index import IndexInfo
from kgverify.link.model import ConceptMatch
from kgverify.link.relations import LinkReport
from kgverify.pipeline import GraphAddress, PipelineReport, StepEvent
from kgverify.review.model import ReviewExportReport, ReviewImportReport
from kgverify.runs import RunDiff, RunRecord
from kgverify.server.fhir import FhirServerStatus
from kgverify.server.local import ServerStatus
from kgverify.verify.check import CheckResult, Explanation
from kgverify.verify.report import VerifyReport
from loaders import LoadReport

__all__ = [
    "ActionsReport",
    "AdhocResult",
    "Audit",
    "AuditRows",
    "CalibrationReport",
    "CheckResult",
    "ConceptMatch",
    "DeriveReport",
    "DialogueReport",
    "Explanation",
    "ExtractReport",
    "FactSheet",
    "FactsReport",
    "FhirLoadReport",
    "FhirServerStatus",
    "ForgetReport",
    "GradeReport",
    "GraphAddress",
    "GraphReset",
    "GraphSummary",
    "IndexInfo",
    "Lineage",
    "LinkReport",
    "LoadReport",
    "PatientTurn",
    "PipelineReport",
    "PolicyYield",
    "ProvReport",
    "Query",
    "ReverifyReport",
    "ReviewExportReport",
    "ReviewImportReport",
    "RunDiff",
    "RunRecord",
    "ServerStatus",
    "SourceIngestReport",
    "StepEvent",
    "TrajectoriesReport",
    "VerifyReport",
]
