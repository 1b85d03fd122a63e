"""Length bounds on input fields that become ids or indexed values in the graph.

Neo4j refuses index keys above about 8 KB (``Property value is too large to index``), and
such an error fails the whole write transaction it is in. Every field that becomes a node
id, a key or an indexed name is therefore checked here, before it reaches the graph, and a
row over its bound is rejected with its location like any other malformed row
(docs/loaders.md, "Field bounds"). The bounds are far above what real releases use.
"""

from __future__ import annotations

from typing import Final

# Ids and codes: concept codes (UMLS CODE, SNOMED CT ids, RXCUIs), relation, patient and
# encounter ids. The longest real source code in UMLS 2025AA is under 100 characters.
MAX_ID_CHARS: Final = 256
# Names: MRCONSO.STR is at most 3,000 characters by NLM's own column definition (MRCOLS),
# an RF2 description term at most 4,096.
MAX_NAME_CHARS: Final = 4096
# Free text stored on a node (definitions, mention text): kept bounded so one row cannot
# blow up a transaction.
MAX_TEXT_CHARS: Final = 100_000


def over_bound(field: str, value: str | None, limit: int) -> str | None:
    """The reject reason when ``value`` is longer than ``limit`` characters, else None."""
    if value is None or len(value) <= limit:
        return None
    return f"field too long: {field} has {len(value):,} characters, at most {limit:,}"


def first_over_bound(fields: dict[str, tuple[str | None, int]]) -> str | None:
    """The reject reason of the first field over its bound (``name -> (value, limit)``)."""
    for name, (value, limit) in fields.items():
        if (reason := over_bound(name, value, limit)) is not None:
            return reason
    return None
