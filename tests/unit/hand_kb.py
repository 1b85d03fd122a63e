"""A small hand-made knowledge base behind a real linker (scispaCy TF-IDF, nmslib HNSW,
SQLite store), for the unit tests of linking decisions and defects."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kgverify.link.index import IndexSettings, LinkerIndex, build_index
from kgverify.link.kb import KbEntry
from kgverify.link.linker import Linker, LinkParams, MentionQuery

SETTINGS = IndexSettings(min_df=1, m=16, ef_construction=100, ef_search=100, threads=1)
PARAMS = LinkParams(threshold=0.8, margin=0.05, k=30)


def entry(cid: str, name: str, *names: str, kinds: str = "disorder") -> KbEntry:
    return KbEntry(id=cid, vocab=cid.split(":")[0], name=name, names=list(names), kinds=[kinds])


def hand_index(entries: list[KbEntry], directory: Path) -> Iterator[LinkerIndex]:
    """The index of ``entries`` built under ``directory`` and opened (a fixture's body)."""
    build_index(entries, directory, SETTINGS, key="test", source={"label": "hand-made"})
    opened = LinkerIndex(directory, ef_search=100, threads=1)
    yield opened
    opened.close()


def link(index: LinkerIndex, text: str, *disabled: str) -> Any:
    """One mention linked with the default parameters, the ``disabled`` stages off."""
    linker = Linker(index, PARAMS.model_copy(update={"disabled": frozenset(disabled)}))
    [found] = linker.link([MentionQuery(text)])
    return found
