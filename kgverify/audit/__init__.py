"""Auditing the benchmark: the audit queries (``queries/audit/``), an item's lineage, and
its export as W3C PROV, and re-verification on a new release (``reverify``: the rules
again on what a release changed, and the derived items that no longer stand flagged).

The names below are imported on first use (``kgverify.lazy``): running an audit query
(``catalog``) needs neither networkx (``lineage``) nor rdflib (``prov``).
"""

from typing import TYPE_CHECKING

from kgverify.lazy import lazy_face

if TYPE_CHECKING:
    from kgverify.audit.catalog import Audit, AuditParam, get_audit, list_audits, run_audit
    from kgverify.audit.lineage import Lineage, evidence_graph, item_lineage, write_graphml
    from kgverify.audit.prov import lineage_prov, serialize_prov

__getattr__ = lazy_face(
    __name__,
    {
        "catalog": ["Audit", "AuditParam", "get_audit", "list_audits", "run_audit"],
        "lineage": ["Lineage", "evidence_graph", "item_lineage", "write_graphml"],
        "prov": ["lineage_prov", "serialize_prov"],
    },
)

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
