"""Named Cypher statements, read from the ``.cypher`` files under ``queries/``.

Every statement the engine runs lives in one file. A file starts with a header of ``//``
comment lines: free text saying what it does, then one ``// @param name: meaning`` line per
``$parameter`` and a ``// @returns ...`` line. The header is checked against the body, so a
query that uses an undeclared parameter (or declares one it never uses) fails to load.

Queries are addressed by their path without suffix, for example ``"load/upsert_concepts"``.
In a wheel the folder ships as ``kgverify/queries``; in a source checkout it is the
top-level ``queries/`` folder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from kgverify.errors import QueryError

_PARAM_LINE = re.compile(r"^@param\s+([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.+)$")
_RETURNS_LINE = re.compile(r"^@returns\s*:?\s*(.+)$")
# Strings and comments are removed before looking for $parameters in the body.
_STRINGS_AND_COMMENTS = re.compile(
    r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|//[^\n]*|/\*.*?\*/", re.S
)
_PLACEHOLDER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class Query:
    """One parsed ``.cypher`` file."""

    name: str
    text: str
    description: str
    params: dict[str, str]
    returns: str

    def check_params(self, given: dict[str, object]) -> None:
        """Raise QueryError unless ``given`` has exactly the declared parameters."""
        missing = set(self.params) - set(given)
        extra = set(given) - set(self.params)
        if missing or extra:
            raise QueryError(
                f"query {self.name!r}: missing parameters {sorted(missing)}, "
                f"unexpected {sorted(extra)}"
            )


def queries_root() -> Traversable:
    """The folder holding the query files (packaged copy first, then the source checkout)."""
    packaged = resources.files("kgverify").joinpath("queries")
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[2] / "queries"
    if checkout.is_dir():
        return checkout
    raise QueryError("the queries folder is missing from this installation")


def parse_query(name: str, text: str) -> Query:
    """Parse header and body of one query file; raise QueryError when they disagree."""
    header: list[str] = []
    body_lines: list[str] = []
    in_header = True
    for line in text.splitlines():
        stripped = line.strip()
        if in_header and stripped.startswith("//"):
            header.append(stripped[2:].strip())
            continue
        if in_header and not stripped:
            continue
        in_header = False
        body_lines.append(line)
    body = "\n".join(body_lines).strip()
    if not body:
        raise QueryError(f"query {name!r} has no statement")
    description_parts: list[str] = []
    params: dict[str, str] = {}
    returns = ""
    for line in header:
        if m := _PARAM_LINE.match(line):
            params[m.group(1)] = m.group(2).strip()
        elif m := _RETURNS_LINE.match(line):
            returns = m.group(1).strip()
        elif line:
            description_parts.append(line)
    if not description_parts:
        raise QueryError(f"query {name!r} has no header comment saying what it does")
    if not returns:
        raise QueryError(f"query {name!r} has no '// @returns' line")
    used = set(_PLACEHOLDER.findall(_STRINGS_AND_COMMENTS.sub("''", body)))
    if used != set(params):
        raise QueryError(
            f"query {name!r}: header declares {sorted(params)} but the statement uses "
            f"{sorted(used)}"
        )
    return Query(name, body, " ".join(description_parts), params, returns)


def _walk(folder: Traversable, prefix: str) -> list[str]:
    names: list[str] = []
    for entry in folder.iterdir():
        if entry.is_dir():
            names.extend(_walk(entry, f"{prefix}{entry.name}/"))
        elif entry.name.endswith(".cypher"):
            names.append(prefix + entry.name.removesuffix(".cypher"))
    return names


@cache
def list_queries() -> tuple[str, ...]:
    """Names of all query files, sorted."""
    return tuple(sorted(_walk(queries_root(), "")))


@cache
def get_query(name: str) -> Query:
    """Load and parse a query by name, e.g. ``get_query("load/upsert_concepts")``."""
    if name not in list_queries():
        raise QueryError(f"no query named {name!r}")
    path = queries_root().joinpath(*f"{name}.cypher".split("/"))
    return parse_query(name, path.read_text(encoding="utf-8"))
