"""Auditing the benchmark: the audit queries (``queries/audit/``), an item's lineage, and
its export as W3C PROV. Re-verification on a new release lives in
``kgverify.verify.reverify``."""

from kgverify.audit.catalog import Audit, AuditParam, get_audit, list_audits, run_audit
from kgverify.audit.lineage import Lineage, evidence_graph, item_lineage, write_graphml
from kgverify.audit.prov import lineage_prov, serialize_prov

__all__ = [
    "Audit",
    "AuditParam",
    "Lineage",
    "evidence_graph",
    "get_audit",
    "item_lineage",
    "lineage_prov",
    "list_audits",
    "run_audit",
    "serialize_prov",
    "write_graphml",
]
