"""The audit queries: every ``queries/audit/*.cypher`` file, with typed parameters.

An audit query's header declares each parameter as ``// @param name: type[ = default]:
meaning`` with type ``str``, ``int``, ``float`` or ``bool``; a parameter with a default is
optional (``null`` means "no filter"). ``kgverify audit NAME --param key=value`` and
:func:`run_audit` check and convert values against that declaration, so the files stay the
one place that documents them.

    from kgverify.audit import list_audits, run_audit
    [a.name for a in list_audits()]
    run_audit(graph, "items_on_concept", concept="SNOMEDCT:43878008")
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from kgverify.errors import ConfigError, QueryError
from kgverify.graph.driver import Graph
from kgverify.graph.queries import get_query, list_queries

PREFIX = "audit/"
_DECLARED = re.compile(r"^(str|int|float|bool)(?:\s*=\s*([^:]*?))?\s*:\s*(.+)$")
_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}


class AuditParam(BaseModel):
    name: str
    type: str
    required: bool
    default: str | int | float | bool | None = None
    description: str


class Audit(BaseModel):
    """One audit query as ``kgverify audit --list`` describes it."""

    name: str
    description: str
    params: list[AuditParam]
    returns: str


def _convert(kind: str, text: str, where: str) -> str | int | float | bool | None:
    if text == "null":
        return None
    try:
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
    except ValueError:
        raise ConfigError(f"{where}: expected {kind}, got {text!r}") from None
    if kind == "bool":
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise ConfigError(f"{where}: expected true or false, got {text!r}")
    return text


def get_audit(name: str) -> Audit:
    """The audit query ``name`` (with or without the ``audit/`` prefix)."""
    full = name if name.startswith(PREFIX) else PREFIX + name
    if full not in list_queries():
        known = ", ".join(a.name for a in list_audits())
        raise ConfigError(f"no audit query {name!r}; known: {known}")
    query = get_query(full)
    params = []
    for pname, declared in query.params.items():
        m = _DECLARED.match(declared)
        if m is None:
            raise QueryError(f"{full}: parameter {pname} has no type (str, int, float, bool)")
        kind, default, description = m.group(1), m.group(2), m.group(3)
        params.append(
            AuditParam(
                name=pname,
                type=kind,
                required=default is None,
                default=_convert(kind, default, f"{full} {pname}") if default is not None else None,
                description=description.strip(),
            )
        )
    return Audit(
        name=full.removeprefix(PREFIX),
        description=query.description,
        params=params,
        returns=query.returns,
    )


def list_audits() -> list[Audit]:
    """Every audit query, by name."""
    return [get_audit(n) for n in list_queries() if n.startswith(PREFIX)]


def audit_params(audit: Audit, given: dict[str, Any]) -> dict[str, Any]:
    """``given`` (strings from the command line, or Python values) checked against the
    declaration, converted, with defaults filled in."""
    declared = {p.name: p for p in audit.params}
    unknown = sorted(set(given) - set(declared))
    if unknown:
        names = ", ".join(declared) or "none"
        raise ConfigError(f"audit {audit.name}: unknown parameter {unknown[0]!r}; takes: {names}")
    out: dict[str, Any] = {}
    for p in audit.params:
        if p.name not in given:
            if p.required:
                raise ConfigError(
                    f"audit {audit.name} needs --param {p.name}=... ({p.type}: {p.description})"
                )
            out[p.name] = p.default
            continue
        value = given[p.name]
        where = f"audit {audit.name} {p.name}"
        out[p.name] = _convert(p.type, value, where) if isinstance(value, str) else value
    return out


def run_audit(graph: Graph, name: str, **params: Any) -> list[dict[str, Any]]:
    """Run one audit query (read-only) and return its rows."""
    audit = get_audit(name)
    return graph.read(PREFIX + audit.name, **audit_params(audit, params))
