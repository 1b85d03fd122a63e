"""Entity linking: every mention of a candidate relation to vocabulary concepts, or an
honest *ambiguous* / *unlinked* (see docs/linking.md).

    from kgverify.api import open_linker
    from kgverify.link import MentionQuery

    linker = open_linker()              # builds the index from the graph on first use
    [link] = linker.link([MentionQuery("heart attack")])
    link.status, link.concept_id        # ('linked', 'UMLS:C0027051')
"""

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
