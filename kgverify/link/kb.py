"""The linker's knowledge base: concepts exported from Neo4j page by page into an on-disk
SQLite store, and a scispaCy ``KnowledgeBase`` view over it.

Nothing here holds a whole vocabulary in Python memory: the export streams pages, the store
is written in batches, and ``StoreKnowledgeBase`` answers scispaCy's ``cui_to_entity`` and
``alias_to_cuis`` lookups from SQLite and from the index's alias arrays.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import cast

from pydantic import BaseModel, ConfigDict, Field
from scispacy.linking_utils import Entity, KnowledgeBase

from kgverify.graph.driver import Graph
from kgverify.link.normalize import (
    bag_key,
    compact_key,
    exact_key,
    normalized_key,
    spelling_key,
)


class KbEntry(BaseModel):
    """One concept as the linker sees it (also the JSONL record of an exported KB)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    vocab: str
    name: str
    names: list[str] = Field(default_factory=list, description="synonyms, brand strings, ...")
    kinds: list[str] = Field(default_factory=list)
    semantic_types: list[str] = Field(default_factory=list)
    definition: str | None = None
    equivalents: list[str] = Field(
        default_factory=list, description="concepts joined to this one by MAPS_TO"
    )

    def aliases(self) -> list[str]:
        """Preferred name first, then the other names, each once."""
        return list(dict.fromkeys([self.name, *self.names]))


def export_entries(graph: Graph, page_size: int = 10_000) -> Iterator[KbEntry]:
    """Every indexable concept in the graph, one page (one read transaction) at a time."""
    after = ""
    while True:
        page = graph.read("link/export_concepts", after=after, limit=page_size)
        for row in page:
            yield KbEntry.model_validate(row)
        if len(page) < page_size:
            return
        after = page[-1]["id"]


_SCHEMA = """
CREATE TABLE concepts (
  idx INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, vocab TEXT NOT NULL, name TEXT NOT NULL,
  kinds TEXT NOT NULL, semantic_types TEXT NOT NULL, definition TEXT, equivalents TEXT NOT NULL
);
CREATE TABLE names (key TEXT NOT NULL, stage INTEGER NOT NULL, idx INTEGER NOT NULL);
"""
EXACT, NORMALIZED, REORDERED, COMPACT, SPELLING = 0, 1, 2, 3, 4
STAGE_KEYS: dict[int, Callable[[str], str]] = {
    EXACT: exact_key,
    NORMALIZED: normalized_key,
    REORDERED: bag_key,
    COMPACT: compact_key,
    SPELLING: spelling_key,
}
"""The key function of each store stage: the names are stored under each, and a mention's
key of one is looked up among that stage's keys."""


MMAP_BYTES = 1 << 30
"""How much of the store a reader maps (SQLite's ``mmap_size``; it maps no more than the file)."""


class KbStore:
    """The SQLite file of a linker index: concepts by row number, and name keys."""

    def __init__(self, path: Path, *, create: bool = False) -> None:
        self.path = path
        if create:
            self._db = sqlite3.connect(path)
            self._db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + _SCHEMA)
        else:
            self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            # Read through a memory map: a batch's lookups touch pages all over the file, and
            # through the default 2 MB page cache each was copied in again (issue 38). The map
            # is the OS's file cache, shared by every reader of the index.
            self._db.execute(f"PRAGMA mmap_size={MMAP_BYTES}")

    def add(self, entries: Iterable[KbEntry], batch: int = 5_000) -> int:
        """Store entries (row number = order of arrival); returns how many."""
        count = 0
        concepts: list[tuple[object, ...]] = []
        names: list[tuple[str, int, int]] = []
        for entry in entries:
            concepts.append(
                (
                    count,
                    entry.id,
                    entry.vocab,
                    entry.name,
                    json.dumps(entry.kinds),
                    json.dumps(entry.semantic_types),
                    entry.definition,
                    json.dumps(entry.equivalents),
                )
            )
            aliases = entry.aliases()
            # Sorted: a set's order follows the process's string hashing, and the rows'
            # order is what `lookup` and `names_by_concept` hand on.
            keys = sorted(
                {(key_of(a), stage) for stage, key_of in STAGE_KEYS.items() for a in aliases}
            )
            names.extend((key, stage, count) for key, stage in keys if key)
            count += 1
            if len(concepts) >= batch:
                self._flush(concepts, names)
        self._flush(concepts, names)
        self._db.executescript("CREATE INDEX names_key ON names (key, stage); PRAGMA optimize;")
        self._db.commit()
        return count

    def _flush(self, concepts: list[tuple[object, ...]], names: list[tuple[str, int, int]]) -> None:
        self._db.executemany("INSERT INTO concepts VALUES (?,?,?,?,?,?,?,?)", concepts)
        self._db.executemany("INSERT INTO names VALUES (?,?,?)", names)
        concepts.clear()
        names.clear()

    def exact_aliases(self) -> Iterator[tuple[str, int]]:
        """(exact key, concept row) in key order: the aliases the TF-IDF index holds."""
        yield from self._db.execute(
            "SELECT key, idx FROM names WHERE stage = ? ORDER BY key, idx", (EXACT,)
        )

    def lookup(self, keys: list[str], stage: int) -> dict[str, list[int]]:
        """Concept rows per key for one stage, in one query."""
        found: dict[str, list[int]] = {}
        unique = list(dict.fromkeys(k for k in keys if k))
        # One constant statement; the keys travel as one JSON parameter (no IN-list text).
        rows = self._db.execute(
            "SELECT key, idx FROM names WHERE stage = ? AND key IN "
            "(SELECT value FROM json_each(?))",
            (stage, json.dumps(unique)),
        )
        for key, idx in rows:
            found.setdefault(key, []).append(idx)
        return found

    def names_by_concept(self, stage: int) -> Iterator[tuple[int, list[str]]]:
        """(row, its name keys of one stage) per concept, streamed: ``add`` writes a
        concept's names together, so rowid order groups them without a sort."""
        row, keys = -1, list[str]()
        cursor = self._db.execute(
            "SELECT idx, key FROM names WHERE stage = ? ORDER BY rowid", (stage,)
        )
        for idx, key in cursor:
            if idx != row:
                if keys:
                    yield row, keys
                row, keys = idx, []
            keys.append(key)
        if keys:
            yield row, keys

    def identities(self, rows: Iterable[int]) -> dict[int, set[str]]:
        """Per row, its id and the ids MAPS_TO joins it to: two rows sharing one are one
        thing (a CUI and the SNOMED code it contains)."""
        found: dict[int, set[str]] = {}
        for idx, cid, equivalents in self._db.execute(
            "SELECT idx, id, equivalents FROM concepts"
            " WHERE idx IN (SELECT value FROM json_each(?))",
            (json.dumps(list(dict.fromkeys(rows))),),
        ):
            found[idx] = {cid, *json.loads(equivalents)}
        return found

    def concepts(self, rows: Iterable[int]) -> dict[int, KbEntry]:
        """The stored entries of these concept rows (names are not stored back)."""
        found: dict[int, KbEntry] = {}
        rows_found = self._db.execute(
            "SELECT idx, id, vocab, name, kinds, semantic_types, definition, equivalents"
            " FROM concepts WHERE idx IN (SELECT value FROM json_each(?))",
            (json.dumps(list(dict.fromkeys(rows))),),
        )
        for idx, cid, vocab, name, kinds, stys, definition, equivalents in rows_found:
            found[idx] = KbEntry(
                id=cid,
                vocab=vocab,
                name=name,
                kinds=_json_list(kinds),
                semantic_types=_json_list(stys),
                definition=definition,
                equivalents=_json_list(equivalents),
            )
        return found

    def rows_of(self, concept_ids: list[str]) -> dict[str, int]:
        """Concept rows by id, in one query."""
        found = self._db.execute(
            "SELECT id, idx FROM concepts WHERE id IN (SELECT value FROM json_each(?))",
            (json.dumps(concept_ids),),
        )
        return {cid: int(idx) for cid, idx in found}

    def row_of(self, concept_id: str) -> int | None:
        hit = self._db.execute("SELECT idx FROM concepts WHERE id = ?", (concept_id,)).fetchone()
        return None if hit is None else int(hit[0])

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM concepts").fetchone()[0])

    def close(self) -> None:
        self._db.close()


def _json_list(text: str) -> list[str]:
    """A stored JSON list; most are empty, which needs no parse, and most others are one of
    a few kinds lists, parsed once."""
    return [] if text == "[]" else list(_parsed(text))


@lru_cache(maxsize=4096)
def _parsed(text: str) -> tuple[str, ...]:
    return tuple(cast(list[str], json.loads(text)))


class _EntityView(Mapping[str, Entity]):
    """scispaCy's ``cui_to_entity``, answered from the store one concept at a time."""

    def __init__(self, store: KbStore) -> None:
        self._store = store

    def __getitem__(self, concept_id: str) -> Entity:
        row = self._store.row_of(concept_id)
        if row is None:
            raise KeyError(concept_id)
        entry = self._store.concepts([row])[row]
        return Entity(entry.id, entry.name, [], entry.semantic_types, entry.definition)

    def __iter__(self) -> Iterator[str]:
        for (cid,) in self._store._db.execute("SELECT id FROM concepts ORDER BY idx"):
            yield cid

    def __len__(self) -> int:
        return self._store.count()


class StoreKnowledgeBase(KnowledgeBase):  # type: ignore[misc]  # scispaCy is untyped
    """A scispaCy KnowledgeBase over a kgverify index, without loading it into memory.

    ``alias_to_cuis`` is given by the index (it knows which aliases it holds); this class
    never calls ``KnowledgeBase.__init__``, which would read a KB file into dicts or fetch
    scispaCy's default UMLS KB."""

    def __init__(self, store: KbStore, alias_to_cuis: Mapping[str, set[str]]) -> None:
        self.cui_to_entity = _EntityView(store)
        self.alias_to_cuis = alias_to_cuis
