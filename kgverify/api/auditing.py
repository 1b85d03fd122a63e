"""The audit: named read-only queries (``audit``, ``audits``), an item's lineage and its
PROV-O, re-verification after a newer release (``reverify``); docs/audit.md."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from kgverify.api.bookkeeping import graph_of
from kgverify.api.verification import open_verifier
from kgverify.collector import batch_work
from kgverify.config import Settings
from kgverify.graph.driver import Graph

if TYPE_CHECKING:
    from kgverify.audit import Audit, Lineage
    from kgverify.audit.catalog import AuditRows, Resolved
    from kgverify.audit.reverify import ReverifyReport


def audit(
    name: str,
    params: dict[str, Any] | None = None,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    resolved: Callable[[Resolved], None] | None = None,
) -> AuditRows:
    """Run an audit query from ``queries/audit/`` (read-only) and return its rows.

    Values are checked and converted against the query's declared parameters; one that
    does not fit is a ``ConfigError`` naming the parameter. A concept parameter may name
    the concept instead of giving its id: the name is linked (as ``find_concepts`` looks it
    up), the link is passed to ``resolved``, and a name that links nothing is a
    ``ConfigError``.

    >>> audit("items_on_concept", {"concept": "SNOMEDCT:43878008"})[0]["role"]
    'answer'
    >>> audit("items_on_concept", {"concept": "metformin"}, resolved=print)
    >>> audit("rejected_relations", {"verdict": "unsupported", "limit": 5})
    """
    from kgverify.audit.catalog import AuditRows, run_audit

    settings = settings or Settings()
    with graph_of(settings, graph) as g:
        rows = run_audit(g, name, settings=settings, resolved=resolved, **(params or {}))
    return AuditRows(rows)


def audits() -> list[Audit]:
    """Every audit query with what it does and its parameters (``kgverify audit --list``)."""
    from kgverify.audit import list_audits

    return list_audits()


def lineage(
    item_id: str, *, settings: Settings | None = None, graph: Graph | None = None
) -> Lineage:
    """Why an item exists, as one model.

    Its assertions, their evidence paths, concepts, source rows and extractors (what
    ``kgverify audit item_lineage --param item=ID`` shows).

    >>> lin = lineage("8fa4f73c707f9c1d1d75")
    >>> lin.assertions[0].rule, lin.assertions[0].facts[0].table
    """
    from kgverify.audit import item_lineage

    with graph_of(settings or Settings(), graph) as g:
        return item_lineage(g, item_id)


def export_prov(
    item_id: str,
    fmt: str = "turtle",
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> str:
    """An item's lineage as W3C PROV-O, serialized as Turtle or JSON-LD (``fmt``)."""
    from kgverify.audit import serialize_prov

    return serialize_prov(lineage(item_id, settings=settings, graph=graph), fmt)


@batch_work
def reverify(
    releases: Iterable[str] | None = None,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    progress: Callable[[int], None] | None = None,
) -> ReverifyReport:
    """Re-verify the assertions a newer vocabulary release could change (docs/audit.md).

    After the release is loaded: re-run the rules for the assertions whose evidence could
    touch what the ``releases`` changed (default: every current release not re-verified
    yet that some assertion was judged before), record the new verdicts beside the old,
    and flag the items that no longer stand.

    >>> load_vocabulary("umls", "path/to/2025AB")
    >>> report = reverify()
    >>> report.rechecked, report.items_flagged, report.flags
    """
    from kgverify.audit.reverify import Reverifier
    from kgverify.graph.schema import ensure_schema

    settings = settings or Settings()
    with graph_of(settings, graph) as g, open_verifier(settings, g, write=False) as verifier:
        ensure_schema(g)  # the run's indexes (concept_touched, assertion_touched)
        return Reverifier(verifier, progress=progress).run(
            list(releases) if releases is not None else None
        )


def audit_query(name: str) -> Audit:
    """One audit query as ``audits`` describes it (its parameters, its columns).

    Raises:
        ConfigError: no audit query of that name (the message names the nearest ones).
    """
    from kgverify.audit import get_audit

    return get_audit(name)


def lineage_of_rows(rows: AuditRows | list[dict[str, Any]]) -> Lineage:
    """The lineage model of the rows of the ``item_lineage`` audit query."""
    from kgverify.audit.lineage import lineage_from_rows

    return lineage_from_rows(list(rows))


def write_evidence_graphml(lin: Lineage, path: Path) -> Path:
    """An item's evidence subgraph (its concepts and the edges its paths cite) as GraphML
    at ``path``, owner-only (it names the patient's facts)."""
    from kgverify.audit.lineage import evidence_graph, write_graphml

    write_graphml(evidence_graph(lin), path)
    return path


class ProvReport(BaseModel):
    """An item's PROV-O written or printed (``kgverify prov --json``): with no ``out``, the
    document itself."""

    item: str
    format: str
    out: str | None
    bytes: int
    document: str | None = None


def write_prov(
    item_id: str,
    fmt: str = "turtle",
    out: Path | None = None,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> ProvReport:
    """:func:`export_prov` written to ``out`` (owner-only, whole or not at all: the lineage
    names patients), or, with no ``out``, returned in the report's ``document``."""
    from kgverify.outputs import write_private

    text = export_prov(item_id, fmt, settings=settings, graph=graph)
    size = len(text.encode("utf-8"))
    if out is None:
        return ProvReport(item=item_id, format=fmt, out=None, bytes=size, document=text)
    partial = out.with_name(out.name + ".partial")
    write_private(partial, text)
    partial.replace(out)
    return ProvReport(item=item_id, format=fmt, out=str(out), bytes=size)
