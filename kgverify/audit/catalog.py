"""The audit queries: every ``queries/audit/*.cypher`` file, with typed parameters.

An audit query's header declares each parameter as ``// @param name: type[ = default]:
meaning`` with type ``str``, ``int``, ``float`` or ``bool``; a parameter with a default is
optional (``null`` means "no filter"). Three phrases in the meaning are checked too:

* ``one of a, b, c`` (or ``one of RelType``, ``one of VerdictKind``, ``one of Predicate``:
  the model's list) names the allowed values; a value is matched case-insensitively and
  replaced by its spelling in the list (``may_treat`` -> ``MAY_TREAT``), anything else is
  refused with the list;
* ``existing item`` (``assertion``, ``concept``, ``rule``, ``run``, ``dialogue``) says the
  value is an id the graph must hold: before the query runs, ``lookup/exists`` asks, and an
  unknown id is "no such item: X" rather than an empty answer. A concept may be given by
  name instead (``-p concept=metformin``): a value not shaped like an id is linked the way
  ``kgverify find`` looks it up, and only a linked name is taken (:func:`resolve_concept`);
* ``(at least N)`` bounds a number from below (``limit``: a negative one is refused with
  one line here, not by the server in the middle of a run).

``kgverify audit NAME --param key=value`` and :func:`run_audit` check and convert values
against that declaration, so the files stay the one place that documents them.

    from kgverify.audit import list_audits, run_audit
    [a.name for a in list_audits()]
    run_audit(graph, "items_on_concept", concept="SNOMEDCT:43878008")
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel, RootModel

from kgverify.config import Settings
from kgverify.errors import ConfigError, QueryError
from kgverify.extract.relation import Predicate
from kgverify.graph.driver import Graph
from kgverify.graph.model import RelType
from kgverify.graph.queries import get_query, list_queries
from kgverify.verify.model import VerdictKind

PREFIX = "audit/"
_DECLARED = re.compile(r"^(str|int|float|bool)(?:\s*=\s*([^:]*?))?\s*:\s*(.+)$")
_TRUE = {"true", "yes", "1"}
_FALSE = {"false", "no", "0"}
_ONE_OF = re.compile(r"\bone of ([^():;]+)")
_EXISTING = re.compile(r"\bexisting (item|assertion|concept|rule|run|dialogue)\b")
_AT_LEAST = re.compile(r"\(at least (-?\d+)\)")
# What a concept id looks like (``UMLS:C0025598``, ``SNOMEDCT:22298006``): a value of this
# shape that the graph does not hold is a mistyped id, anything else a name to link.
_CONCEPT_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*:\S+$")
# Columns holding what the engine stores as JSON text (a node property holds no nested
# map): the item's why_wrong, options and checks, an assertion's evidence paths.
STORED_JSON = ("why_wrong", "options", "checks", "evidence")
# Lists a header may name instead of spelling them out: the model's own enumerations.
MODEL_LISTS: dict[str, list[str]] = {
    "RelType": [t.value for t in RelType],
    "VerdictKind": [v.value for v in VerdictKind],
    "Predicate": [p.value for p in Predicate],
}


class AuditParam(BaseModel):
    name: str
    type: str
    required: bool
    default: str | int | float | bool | None = None
    description: str
    choices: list[str] | None = None
    names: str | None = None  # item, assertion, concept, rule, run, dialogue: must exist
    minimum: int | None = None  # "(at least N)": the lowest value a number may have


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


def _choices(description: str) -> list[str] | None:
    """The allowed values a parameter's meaning lists after ``one of``."""
    m = _ONE_OF.search(description)
    if m is None:
        return None
    words = [w.strip() for w in re.split(r",|\bor\b", m.group(1)) if w.strip()]
    if len(words) == 1 and words[0] in MODEL_LISTS:
        return MODEL_LISTS[words[0]]
    return words


def _choose(p: AuditParam, value: Any, where: str) -> Any:
    """``value`` as spelled in the parameter's list (case-insensitive), or ConfigError."""
    if p.choices is None or not isinstance(value, str) or value in p.choices:
        return value
    folded = [c for c in p.choices if c.lower() == value.lower()]
    if len(folded) == 1:
        return folded[0]
    raise ConfigError(f"{where}: {value!r} is not one of {', '.join(p.choices)}")


def nearest(name: str, known: list[str]) -> list[str]:
    """The names of ``known`` closest to ``name`` (difflib's ratio at least 0.6 and within
    0.1 of the best): a typo gets its word, not every name sharing a prefix."""
    scored = sorted(
        ((difflib.SequenceMatcher(None, name, k).ratio(), k) for k in known), reverse=True
    )
    if not scored or scored[0][0] < 0.6:
        return []
    return [k for r, k in scored if r >= max(0.6, scored[0][0] - 0.1)]


def get_audit(name: str) -> Audit:
    """The audit query ``name`` (with or without the ``audit/`` prefix)."""
    full = name if name.startswith(PREFIX) else PREFIX + name
    if full not in list_queries():
        known = [n.removeprefix(PREFIX) for n in list_queries() if n.startswith(PREFIX)]
        near = nearest(name.removeprefix(PREFIX), known)
        if near:
            raise ConfigError(
                f"no audit query {name!r}; did you mean {' or '.join(near)}? "
                "(`kgverify audit --list` describes them all)"
            )
        raise ConfigError(f"no audit query {name!r}; known: {', '.join(known)}")
    query = get_query(full)
    params = []
    for pname, declared in query.params.items():
        m = _DECLARED.match(declared)
        if m is None:
            raise QueryError(f"{full}: parameter {pname} has no type (str, int, float, bool)")
        kind, default, description = m.group(1), m.group(2), m.group(3)
        existing = _EXISTING.search(description)
        at_least = _AT_LEAST.search(description)
        params.append(
            AuditParam(
                name=pname,
                type=kind,
                required=default is None,
                default=_convert(kind, default, f"{full} {pname}") if default is not None else None,
                description=description.strip(),
                choices=_choices(description),
                names=existing.group(1) if existing else None,
                minimum=int(at_least.group(1)) if at_least else None,
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
        value = _convert(p.type, value, where) if isinstance(value, str) else value
        if (
            p.minimum is not None
            and isinstance(value, int | float)
            and not isinstance(value, bool)
            and value < p.minimum
        ):
            raise ConfigError(f"{where}: must be at least {p.minimum}, got {value}")
        out[p.name] = _choose(p, value, where)
    return out


class Resolved(BaseModel):
    """A concept parameter given by name, and the concept the linker linked it to."""

    param: str
    text: str
    concept_id: str
    name: str
    method: str
    score: float

    def line(self) -> str:
        """``concept: metformin -> UMLS:C0025598 Metformin (linked by exact, score 1.00)``"""
        return (
            f"{self.param}: {self.text} -> {self.concept_id} {self.name} "
            f"(linked by {self.method}, score {self.score:.2f})"
        )


def resolve_concept(graph: Graph, settings: Settings, param: str, text: str) -> Resolved:
    """The concept the linker links ``text`` to, as ``kgverify find`` looks names up (no
    slot, no context); ConfigError pointing to ``kgverify find`` when it links none."""
    # Imported here: only a name needs the linker (scispaCy, spaCy: seconds to import).
    from kgverify.link.index import LinkerIndexError
    from kgverify.link.linker import Linker, MentionQuery

    hint = f"look it up with `kgverify find {json.dumps(text)}` and pass an id"
    try:
        linker = Linker.open(settings, graph)
    except LinkerIndexError as exc:
        raise ConfigError(f"no such concept: {text} ({exc}); {hint}") from None
    try:
        [link] = linker.link([MentionQuery(text)])
    finally:
        linker.index.close()
    chosen = next((c for c in link.candidates if c.concept_id == link.concept_id), None)
    if chosen is None:
        raise ConfigError(f"no concept named {text!r} ({link.status.value}); {hint}")
    return Resolved(
        param=param,
        text=text,
        concept_id=chosen.concept_id,
        name=chosen.name,
        method=chosen.method.value,
        score=chosen.score,
    )


def check_ids(
    graph: Graph,
    audit: Audit,
    params: dict[str, Any],
    *,
    settings: Settings | None = None,
    resolved: Callable[[Resolved], None] | None = None,
) -> dict[str, Any]:
    """``params`` with concept names replaced by the concepts they link to (each one
    reported to ``resolved``); ConfigError "no such item: X" when a parameter that names an
    existing node (item, assertion, concept, rule, run, dialogue) names none."""
    out = dict(params)
    for p in audit.params:
        value = params.get(p.name)
        if p.names is None or value is None:
            continue
        [row] = graph.read("lookup/exists", kind=p.names, id=str(value))
        if row["found"]:
            continue
        if p.names != "concept" or _CONCEPT_ID.match(str(value)):
            hint = " (`kgverify find NAME` looks a name up)" if p.names == "concept" else ""
            raise ConfigError(f"no such {p.names}: {value}{hint}")
        found = resolve_concept(graph, settings or Settings(), p.name, str(value))
        if resolved is not None:
            resolved(found)
        out[p.name] = found.concept_id
    return out


class AuditRows(RootModel[list[dict[str, Any]]]):
    """The rows of an audit query (``api.audit``), in the query's order: a list of column ->
    value maps (each query declares its columns; ``kgverify audit --list``). It reads like
    the list it holds (``rows[0]["item"]``, ``len(rows)``, ``pd.DataFrame(rows)``, ``==``);
    ``model_dump()`` is that list."""

    def __iter__(self) -> Iterator[dict[str, Any]]:  # type: ignore[override]
        return iter(self.root)

    def __getitem__(self, index: int) -> dict[str, Any]:
        return self.root[index]

    def __len__(self) -> int:
        return len(self.root)

    def __bool__(self) -> bool:
        return bool(self.root)

    def __eq__(self, other: object) -> bool:
        # Equal to the list it holds, as the list of rows it replaced was.
        if isinstance(other, list):
            return self.root == other
        return super().__eq__(other)

    @property
    def rows(self) -> list[dict[str, Any]]:
        return self.root

    def decoded(self) -> list[dict[str, Any]]:
        """The rows with their stored JSON columns decoded (``decode_stored_json``)."""
        return decode_stored_json(self.root)


def run_audit(
    graph: Graph,
    name: str,
    *,
    settings: Settings | None = None,
    resolved: Callable[[Resolved], None] | None = None,
    **params: Any,
) -> list[dict[str, Any]]:
    """Run one audit query (read-only) and return its rows. A concept given by name is
    linked first (``settings``: where the linker index is), and reported to ``resolved``."""
    audit = get_audit(name)
    checked = audit_params(audit, params)
    checked = check_ids(graph, audit, checked, settings=settings, resolved=resolved)
    return graph.read(PREFIX + audit.name, **checked)


def decode_stored_json(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with the columns of ``STORED_JSON`` decoded (a JSON text, or a list of them), so
    ``--json`` nests them as objects rather than as strings."""

    def decoded(value: Any) -> Any:
        if isinstance(value, str):
            return json.loads(value)
        if isinstance(value, list):
            return [decoded(v) for v in value]
        return value

    return [{k: decoded(v) if k in STORED_JSON else v for k, v in row.items()} for row in rows]
