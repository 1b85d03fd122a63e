"""Entity linking: every mention of a candidate relation to vocabulary concepts, or an
honest *ambiguous* / *unlinked* (see docs/linking.md).

    from kgverify.api import open_linker
    from kgverify.link import MentionQuery

    linker = open_linker()              # builds the index from the graph on first use
    [link] = linker.link([MentionQuery("heart attack")])
    link.status, link.concept_id        # ('linked', 'UMLS:C0027051')

The names below are imported on first use (``kgverify.lazy``): the models of
``kgverify.link.model`` are read by verification, derivation and the audit queries, which
must not pay for scispaCy and spaCy (``index``, ``linker``) to read them.
"""

from typing import TYPE_CHECKING

from kgverify.lazy import lazy_face

if TYPE_CHECKING:
    from kgverify.link.index import IndexInfo, IndexSettings, LinkerIndex, LinkerIndexError
    from kgverify.link.linker import Linker, LinkParams, MentionQuery
    from kgverify.link.model import (
        LinkCandidate,
        LinkedRelation,
        LinkStatus,
        MentionLink,
        Method,
        read_linked,
        write_linked,
    )
    from kgverify.link.relations import Contexts, LinkReport, link_relations

__getattr__ = lazy_face(
    __name__,
    {
        "index": ["IndexInfo", "IndexSettings", "LinkerIndex", "LinkerIndexError"],
        "linker": ["Linker", "LinkParams", "MentionQuery"],
        "model": [
            "LinkCandidate",
            "LinkedRelation",
            "LinkStatus",
            "MentionLink",
            "Method",
            "read_linked",
            "write_linked",
        ],
        "relations": ["Contexts", "LinkReport", "link_relations"],
    },
)

__all__ = [
    "Contexts",
    "IndexInfo",
    "IndexSettings",
    "LinkCandidate",
    "LinkParams",
    "LinkReport",
    "LinkStatus",
    "LinkedRelation",
    "Linker",
    "LinkerIndex",
    "LinkerIndexError",
    "MentionLink",
    "MentionQuery",
    "Method",
    "link_relations",
    "read_linked",
    "write_linked",
]
