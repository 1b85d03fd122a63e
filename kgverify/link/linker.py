"""Linking mentions to vocabulary concepts, in stages (docs/linking.md):

1. **code**: a code the source gave, mapped through the graph (a stub code such as LOINC
   reaches the UMLS concept that contains it);
2. **exact**: a concept name equal to the mention up to case and spacing;
3. **normalized**: equal after inverted forms, punctuation, plurals and stop words are undone;
   then **reordered**: the same words in another order, where order cannot matter;
4. **tfidf**: scispaCy's char-3-gram TF-IDF nearest neighbours (variants); a neighbour one
   typo away from the mention scores as **edit**.

A later stage runs only for mentions that no earlier stage resolved to a plausible
candidate (one whose kinds fit the relation slot and whose score clears the threshold).
Abbreviations are expanded from context text first, when there is any. The decision
(linked, ambiguous, unlinked) compares *groups* of candidates, so a CUI and the SNOMED code
it contains never compete with each other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from kgverify.collector import fewer_collections
from kgverify.config import Settings
from kgverify.graph.driver import Graph
from kgverify.graph.model import Kind, concept_id
from kgverify.link.abbreviations import AbbreviationExpander
from kgverify.link.drugnames import DRUG_VARIANTS
from kgverify.link.index import IndexSettings, LinkerIndex, ensure_index
from kgverify.link.kb import (
    EXACT,
    NORMALIZED,
    REORDERED,
    STAGE_KEYS,
    KbEntry,
)
from kgverify.link.model import LinkStatus, MentionLink, Method
from kgverify.link.normalize import (
    FIRST_FOUND,
    OWN_KEYS,
    VARIANTS,
    bag_key,
    exact_key,
    normalized_key,
    spelling_key,
)
from kgverify.link.rerank import rescore_all
from kgverify.link.scoring import (
    TIE_FACTOR,
    Hit,
    cap_neighbours,
    neighbour_hit,
    partial,
    partial_score,
)
from kgverify.link.slots import fits

NORMALIZED_SCORE = 0.95
"""Score of a normalized-name match: below an exact name, above any default threshold."""

REORDERED_SCORE = 0.9
"""Score of a match on the same words in another order."""

VOCAB_PREFERENCE = ("UMLS", "SNOMEDCT", "RXNORM")
"""Which member of a group becomes ``concept_id`` when scores tie (the rest are equivalents)."""


VARIANT_SCORE = 0.9
"""Score of a fallback key (``normalize.VARIANTS``): a form of the name, not the name."""

MINED_SCORE = 0.85
"""Score of a name reached through mined substitutions (mined.py): below a direct name
match, above the default threshold."""

ENTRY_CACHE = 20_000
"""Concept entries a linker keeps between batches (its index never changes under it)."""

MAX_CANDIDATES = 10

ALTERNATIVES = 5
"""A mention a name resolved to fewer concepts than this lists its TF-IDF neighbours too,
up to this many concepts in all."""


class LinkParams(BaseModel):
    """Decision settings (defaults in ``Settings``; see docs/configuration.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    threshold: float = Field(ge=0.0, le=1.0)
    margin: float = Field(ge=0.0, le=1.0)
    k: int = Field(ge=1)
    disabled: frozenset[str] = Field(
        default=frozenset(), description="named stages switched off (``SWITCHABLE``)"
    )
    rerank: bool = Field(
        default=False, description="score TF-IDF candidates with the learned re-ranker"
    )
    alternatives: bool = Field(
        default=False,
        description="list TF-IDF neighbours after the candidates of a mention a name resolved",
    )

    @classmethod
    def from_settings(cls, settings: Settings) -> LinkParams:
        return cls(
            threshold=settings.link_threshold,
            margin=settings.link_margin,
            k=settings.link_k,
            rerank=settings.link_rerank,
            alternatives=settings.link_alternatives,
        )


@dataclass(frozen=True)
class MentionQuery:
    """One mention to link: its text, the source's code if any, the slot's kinds, context."""

    text: str
    code_system: str | None = None
    code: str | None = None
    allowed: frozenset[Kind] | None = None
    context: str | None = field(default=None, repr=False)


@dataclass
class _Work:
    query: MentionQuery
    text: str
    expanded_from: str | None = None
    hits: dict[int, Hit] = field(default_factory=dict)
    code_only: dict[str, Hit] = field(default_factory=dict)
    searched: bool = False  # the TF-IDF stage ran for this mention
    alternatives: list[Hit] = field(default_factory=list)  # listed, never decided on

    def add(self, hit: Hit) -> None:
        best = self.hits.get(hit.row)
        if best is None or hit.score > best.score:
            self.hits[hit.row] = hit


class Linker:
    """Links batches of mentions against one index (and the graph, for codes)."""

    def __init__(
        self,
        index: LinkerIndex,
        params: LinkParams,
        graph: Graph | None = None,
        abbreviations: AbbreviationExpander | None = None,
    ) -> None:
        self.index = index
        self.params = params
        self.graph = graph
        self.abbreviations = abbreviations or AbbreviationExpander()
        self.stage_counts: dict[str, int] = {m.value: 0 for m in Method} | {"none": 0}
        self._name_key_cache: dict[int, str] = {}
        # Concept entries repeat across mentions and batches; bounded like the name keys.
        self._entry_cache: dict[int, KbEntry] = {}

    @classmethod
    def open(cls, settings: Settings, graph: Graph, *, rebuild: bool = False) -> Linker:
        """A linker over the graph's index (built first when needed); codes are mapped
        through ``graph``, which must stay open while the linker is used."""
        directory = ensure_index(graph, settings, rebuild=rebuild)
        index_settings = IndexSettings.from_settings(settings)
        index = LinkerIndex(
            directory,
            index_settings.ef_search,
            index_settings.threads,
            search=index_settings.search,
        )
        return cls(index, LinkParams.from_settings(settings), graph)

    @property
    def index_key(self) -> str:
        return self.index.info.key

    def name_score(self, text: str, names: list[str]) -> float:
        """The score the TF-IDF stage would give the nearest of ``names`` as a neighbour of
        ``text``: its cosine, capped when it covers only a small part of a multi-word text
        (``partial_score``), as ``_decide`` caps it, read as an estimated precision like the
        linker's own (on the cosine's map). ``kgverify find`` scores the full-text matches the
        linker did not list with it, so they share the linker's scale."""
        words = normalized_key(text).split()
        guard = "coverage" not in self.params.disabled
        best, part = max(
            (
                (partial_score(cosine), True) if guard and partial(words, name) else (cosine, False)
                for name, cosine in zip(names, self.index.similarities(text, names), strict=True)
            ),
            default=(0.0, False),
        )
        if "calibration" in self.params.disabled:
            return best
        return self.index.calibration.estimate(Method.TFIDF, best, partial=part)

    def link(self, queries: Sequence[MentionQuery]) -> list[MentionLink]:
        """Link a batch; one result per query, in order."""
        # A batch allocates hundreds of thousands of short-lived objects (hits, entries,
        # candidates): collection passes were a fifth of the linker's time on ChEBI and HPO.
        with fewer_collections():
            return self._link(queries)

    def _link(self, queries: Sequence[MentionQuery]) -> list[MentionLink]:
        work = [self._prepare(q) for q in queries]
        entries: dict[int, KbEntry] = {}
        self._by_code(work)
        stages = (Method.EXACT, Method.NORMALIZED, Method.REORDERED, Method.VARIANT, Method.TFIDF)
        pending = work
        for stage in stages:
            # Only the mentions the last stage worked on have new candidates, and a mention
            # resolved stays resolved: each stage looks at what the last one left.
            self._fetch(pending, entries)  # one store query per stage for the whole batch
            pending = [w for w in pending if not self._plausible(w, entries)]
            if not pending:
                break
            if stage is Method.TFIDF:
                self._by_tfidf(pending)
                self._rerank(pending, entries)
                self._by_mined(pending)
            elif stage is Method.VARIANT:
                self._by_variant(pending)
            else:
                self._by_name(pending, stage)
        if self.params.alternatives:
            resolved = [w for w in work if not w.searched and len(w.hits) < ALTERNATIVES]
            self._alternatives(resolved, entries)
        self._fetch(work, entries)
        return [self._decide(w, entries) for w in work]

    # -- stages ---------------------------------------------------------------------------

    def _prepare(self, query: MentionQuery) -> _Work:
        long_form = self.abbreviations.expand(query.text, query.context)
        if long_form:
            return _Work(query, long_form, expanded_from=query.text)
        return _Work(query, query.text)

    def _by_code(self, work: list[_Work]) -> None:
        coded = [w for w in work if w.query.code and w.query.code_system]
        if not coded or self.graph is None:
            return
        ids = {concept_id(w.query.code_system or "", w.query.code or "") for w in coded}
        targets: dict[str, list[str]] = {}
        for row in self.graph.read("link/concepts_by_code", ids=sorted(ids)):
            targets.setdefault(row["code_id"], []).append(row["id"])
        rows = self.index.store.rows_of(sorted({t for ts in targets.values() for t in ts}))
        for w in coded:
            code_id = concept_id(w.query.code_system or "", w.query.code or "")
            for target in targets.get(code_id, []):
                if target in rows:
                    w.add(Hit(rows[target], 1.0, Method.CODE, code_id))

    def _by_name(self, work: list[_Work], stage: Method) -> None:
        score, kind = _NAME_STAGES[stage]
        self._look_up([(w, STAGE_KEYS[kind](w.text)) for w in work], kind, score, stage)

    def _look_up(
        self, pairs: list[tuple[_Work, str]], kind: int, score: float, method: Method
    ) -> None:
        """Each mention's concepts under its key of that kind, all in one store query."""
        if not pairs:
            return
        found = self.index.store.lookup([key for _, key in pairs], kind)
        for w, key in pairs:
            for row in found.get(key, []):
                w.add(Hit(row, score, method, key))

    def _by_variant(self, work: list[_Work]) -> None:
        """Fallback keys (``VARIANTS``: qualifier, salt, stereo, Greek, inverted,
        letter-plural, classical-plural, locant, role, spacing and spelling forms; drugnames.py's
        foreign endings and maker prefixes) looked up
        among the normalized names (among the names' own keys for ``OWN_KEYS``), one store
        query per kind of key; a ``FIRST_FOUND`` stage's keys as alternatives, the first
        that is a name winning. Only for mentions no name matched."""
        wanted: dict[int, list[tuple[_Work, str]]] = {NORMALIZED: []}
        wanted.update({_OWN_KEY_STAGES[key_of]: [] for key_of in OWN_KEYS.values()})
        ordered: list[tuple[_Work, list[str]]] = []
        for name, keys_of in _VARIANTS.items():
            if name in self.params.disabled:
                continue
            if name in FIRST_FOUND:
                ordered.extend((w, keys) for w in work if (keys := keys_of(w.text)))
                continue
            kind = _OWN_KEY_STAGES[_OWN_KEYS[name]] if name in _OWN_KEYS else NORMALIZED
            wanted[kind].extend((w, key) for w in work for key in keys_of(w.text))
        for kind, pairs in wanted.items():
            self._look_up(pairs, kind, VARIANT_SCORE, Method.VARIANT)
        self._look_up_first(ordered)

    def _look_up_first(self, ordered: list[tuple[_Work, list[str]]]) -> None:
        """Each mention's first key (of a ``FIRST_FOUND`` stage's list, best first) that is a
        normalized name, all keys in one store query: a longer salt form the vocabulary has
        is the link, never also its parent."""
        if not ordered:
            return
        found = self.index.store.lookup([k for _, keys in ordered for k in keys], NORMALIZED)
        for w, keys in ordered:
            key = next((k for k in keys if found.get(k)), "")
            for row in found.get(key, []):
                w.add(Hit(row, VARIANT_SCORE, Method.VARIANT, key))

    def _by_tfidf(self, work: list[_Work]) -> None:
        keys = [exact_key(w.text) for w in work]
        neighbours = self.index.neighbours(keys, self.params.k)
        for w, key, hits in zip(work, keys, neighbours, strict=True):
            w.searched = True
            for position, similarity in hits:
                if similarity <= 0.0:
                    continue  # no 3-gram in common: not a candidate at all
                alias = self.index.aliases[position]
                for row in self.index.rows_of_alias(position):
                    w.add(neighbour_hit(key, alias, similarity, row))

    def _alternatives(self, work: list[_Work], entries: dict[int, KbEntry]) -> None:
        """A mention a name resolved lists its nearest other names too: the exact name of one
        concept is often a synonym the vocabulary gave a neighbour as well, and an auditor
        (and recall@5) needs those. They come after the candidates and never enter the
        decision, so a resolved mention stays resolved. The neighbours are those the build
        stored for the mention, when it is an indexed name, or else for the preferred name
        of its best candidate ("Acid, Ascorbic" lists the neighbours of "ascorbic acid");
        only a mention with neither is searched."""
        searched: list[_Work] = []
        for w in work:
            stored = self.index.stored_neighbours(exact_key(w.text))
            if stored is None and w.hits:
                best = max(w.hits.values(), key=lambda h: (h.score, -h.row))
                stored = self.index.stored_neighbours(exact_key(entries[best.row].name))
            if stored is None:
                searched.append(w)
            else:
                self._add_alternatives(w, stored)
        if searched:
            found = self.index.neighbours([exact_key(w.text) for w in searched], ALTERNATIVES * 2)
            for w, hits in zip(searched, found, strict=True):
                self._add_alternatives(w, hits)

    def _add_alternatives(self, w: _Work, hits: list[tuple[int, float]]) -> None:
        """The nearest concepts not already candidates, one hit each, until the list would
        hold ``ALTERNATIVES`` concepts: each costs an entry fetch and a listed candidate."""
        room = ALTERNATIVES - len(w.hits)
        taken: set[int] = set()
        for position, similarity in hits:
            if similarity <= 0.0:
                continue
            alias = self.index.aliases[position]
            for row in self.index.rows_of_alias(position):
                if len(taken) >= room:
                    return
                if row not in w.hits and row not in taken:
                    taken.add(row)
                    w.alternatives.append(Hit(row, min(1.0, similarity), Method.TFIDF, alias))

    def _by_mined(self, work: list[_Work]) -> None:
        """Mentions rewritten with the substitutions and acronyms mined from the KB's own
        synonyms (mined.py), looked up among the normalized names in one store query; with
        the word-level rules (``word_synonym``), also among the names in any word order."""
        if "mined" in self.params.disabled:
            return
        words = "word_synonym" not in self.params.disabled
        rewrites = self.index.mined.rewrites
        wanted = [(w, key) for w in work for key in rewrites(normalized_key(w.text), words=words)]
        self._look_up(wanted, NORMALIZED, MINED_SCORE, Method.MINED)
        if words:
            bags = [(w, bag) for w, key in wanted if (bag := bag_key(key))]
            self._look_up(bags, REORDERED, MINED_SCORE, Method.MINED)

    def _rerank(self, work: list[_Work], entries: dict[int, KbEntry]) -> None:
        """TF-IDF candidates rescored by the re-ranker learned at build time (rerank.py): a
        calibrated probability replaces the cosine. Other methods keep their scores."""
        reranker = self.index.reranker
        if not self.params.rerank or not reranker.trained:
            return
        self._fetch(work, entries)
        batch = [(w.text, list(w.hits.values())) for w in work]
        rescore_all(batch, reranker, entries, self.index.mined, self.params.k)

    # -- decision -------------------------------------------------------------------------

    def _calibrate(self, hits: Iterable[Hit]) -> None:
        """TF-IDF and edit scores read as estimated precisions (calibration.py): the map
        fitted for the score the stage gave (the cosine, or the re-ranker's)."""
        reranked = self.params.rerank and self.index.reranker.trained
        estimate = self.index.calibration.estimate
        for hit in hits:
            hit.score = estimate(hit.method, hit.score, reranked=reranked, partial=hit.partial)

    def _name_keys(self, ranked: list[Hit], entries: dict[int, KbEntry]) -> dict[int, str]:
        """Normalized preferred names, computed once per concept for the linker's life."""
        cache = self._name_key_cache
        for hit in ranked:
            if hit.row not in cache:
                if len(cache) > 200_000:
                    cache.clear()
                cache[hit.row] = normalized_key(entries[hit.row].name)
        return {hit.row: cache[hit.row] for hit in ranked}

    def _group_names(self, ranked: list[Hit], entries: dict[int, KbEntry]) -> dict[int, str]:
        """The name keys ``_group`` needs: none when the candidates share one vocabulary
        (names group only across vocabularies), which spares most of them a normalization."""
        if len({entries[hit.row].vocab for hit in ranked}) < 2:
            return {}
        return self._name_keys(ranked, entries)

    def _prefer_named(self, w: _Work, entries: dict[int, KbEntry]) -> None:
        """A name one concept has as its preferred name and others only as a synonym belongs to
        the first ("vesicoureteral reflux" is the name of MONDO's vesicoureteral reflux and a
        synonym of "vesicoureteral reflux 1"): the others' name matches drop below it by more
        than the default margin, so the mention links instead of ending ambiguous."""
        named = [h for h in w.hits.values() if h.method in _NAME_METHODS]
        if len(named) < 2:
            return
        names = self._name_keys(named, entries)
        target = normalized_key(w.text)
        preferred = [h for h in named if names[h.row] == target]
        if not preferred:
            return
        cap = max(h.score for h in preferred) * TIE_FACTOR
        for hit in named:
            if names[hit.row] != target:
                hit.score = min(hit.score, cap)

    def _fetch(self, work: Iterable[_Work], entries: dict[int, KbEntry]) -> None:
        missing = {row for w in work for row in w.hits if row not in entries}
        missing |= {h.row for w in work for h in w.alternatives if h.row not in entries}
        if not missing:
            return
        cache = self._entry_cache
        known = missing & cache.keys()
        entries.update((row, cache[row]) for row in known)
        fetched = self.index.store.concepts(missing - known)
        entries.update(fetched)
        if len(cache) + len(fetched) > ENTRY_CACHE:
            cache.clear()
        cache.update(fetched)

    def _plausible(self, w: _Work, entries: dict[int, KbEntry]) -> list[Hit]:
        return [
            hit
            for hit in w.hits.values()
            if hit.score >= self.params.threshold and fits(entries[hit.row].kinds, w.query.allowed)
        ]

    def _decide(self, w: _Work, entries: dict[int, KbEntry]) -> MentionLink:
        # Capped here, after any re-scoring of the neighbours, so nothing can undo it.
        # Within a capped tier the list keeps the similarity order: a capped neighbour is a
        # worse link, not a worse alternative to show (recall@5, issue 16).
        uncapped = {row: hit.score for row, hit in w.hits.items()}
        cap_neighbours(w.text, list(w.hits.values()), self.params.disabled)
        if "preferred" not in self.params.disabled:
            self._prefer_named(w, entries)
        if "calibration" not in self.params.disabled:
            self._calibrate(w.hits.values())
        # Candidates that fit the slot come first in the output, not only in the decision: a
        # drug mention's list is otherwise often topped by disorders (issue 16).
        slot_first = "slot_order" not in self.params.disabled
        ranked = sorted(
            w.hits.values(),
            key=lambda h: (
                slot_first and not fits(entries[h.row].kinds, w.query.allowed),
                -h.score,
                -uncapped[h.row],
                _METHOD_ORDER[h.method],
                _vocab_rank(entries[h.row]),
                h.row,
            ),
        )[: self.params.k]
        groups = _group(ranked, entries, self._group_names(ranked, entries))
        plausible = {h.row for h in self._plausible(w, entries)}
        group_best: dict[int, float] = {}
        for hit in ranked:
            if hit.row in plausible:
                group_best.setdefault(groups[hit.row], hit.score)
        scores = sorted(group_best.values(), reverse=True)
        best = scores[0] if scores else 0.0
        margin = best - (scores[1] if len(scores) > 1 else 0.0)
        listed = ranked[:MAX_CANDIDATES]
        shown = groups
        if w.alternatives:
            listed += _alternatives_after(w, ranked, entries)[: MAX_CANDIDATES - len(listed)]
            # Grouped again with the alternatives for the listing only; the decision above
            # used the candidates' own groups.
            shown = _group(listed, entries, self._group_names(listed, entries))
        # Plain dicts, validated with the link in one call: a model per candidate cost a
        # validator call each, a twentieth of the linker's time (issue 38).
        candidates = [
            {
                "concept_id": (entry := entries[h.row]).id,
                "name": entry.name,
                "vocab": entry.vocab,
                "kinds": entry.kinds,
                "score": round(h.score, 4),
                "method": h.method,
                "alias": h.alias,
                "type_ok": fits(entry.kinds, w.query.allowed),
                "group": shown[h.row],
            }
            for h in listed
        ]
        base = {
            "query": w.text,
            "expanded_from": w.expanded_from,
            "candidates": candidates,
            "score": round(best, 4),
            "margin": round(margin, 4),
        }
        if not scores:
            self.stage_counts["none"] += 1
            return MentionLink(status=LinkStatus.UNLINKED, **base)
        top = next(h for h in ranked if h.row in plausible)
        if margin < self.params.margin:
            return MentionLink(status=LinkStatus.AMBIGUOUS, method=top.method, **base)
        self.stage_counts[top.method.value] += 1
        top_group = groups[top.row]
        members = [entries[h.row] for h in ranked if groups[h.row] == top_group]
        chosen = entries[top.row]
        equivalents = {e.id for e in members} | {x for e in members for x in e.equivalents}
        equivalents.discard(chosen.id)
        return MentionLink(
            status=LinkStatus.LINKED,
            concept_id=chosen.id,
            equivalents=sorted(equivalents),
            method=top.method,
            **base,
        )


_METHOD_ORDER = {method: order for order, method in enumerate(Method)}


def _alternatives_after(w: _Work, ranked: list[Hit], entries: dict[int, KbEntry]) -> list[Hit]:
    """The mention's alternatives not already ranked, best first (those that fit the slot
    first), one per concept."""
    seen = {h.row for h in ranked}
    best: dict[int, Hit] = {}
    for hit in w.alternatives:
        if hit.row not in seen and (hit.row not in best or hit.score > best[hit.row].score):
            best[hit.row] = hit
    return sorted(
        best.values(),
        key=lambda h: (not fits(entries[h.row].kinds, w.query.allowed), -h.score, h.row),
    )


_VARIANTS = VARIANTS | DRUG_VARIANTS
"""Every fallback key, in the order tried: normalize.py's, then drugnames.py's."""

_OWN_KEYS = OWN_KEYS | {name: spelling_key for name in DRUG_VARIANTS}
"""drugnames.py's keys are spelling keys, looked up among the names' own."""

SWITCHABLE = (
    "slot_order",
    *_VARIANTS,
    "mined",
    "word_synonym",
    "coverage",
    "numbers",
    "preferred",
    "calibration",
)
"""Stages ``LinkParams.disabled`` can switch off (the benchmark's ablation)."""

_NAME_STAGES: dict[Method, tuple[float, int]] = {
    Method.EXACT: (1.0, EXACT),
    Method.NORMALIZED: (NORMALIZED_SCORE, NORMALIZED),
    Method.REORDERED: (REORDERED_SCORE, REORDERED),
}
"""Score and store stage of each name stage (its key function: ``STAGE_KEYS``)."""


_NAME_METHODS = frozenset(_NAME_STAGES)

_OWN_KEY_STAGES = {key_of: stage for stage, key_of in STAGE_KEYS.items()}
"""The store stage holding the names' keys of each ``OWN_KEYS`` function."""


def _vocab_rank(entry: KbEntry) -> int:
    return VOCAB_PREFERENCE.index(entry.vocab) if entry.vocab in VOCAB_PREFERENCE else 99


def _group(ranked: list[Hit], entries: dict[int, KbEntry], names: dict[int, str]) -> dict[int, int]:
    """Group numbers for candidates (the first-ranked group is 0). Two candidates are one
    concept when MAPS_TO joins them (directly or through a shared CUI), or when they come
    from *different* vocabularies and their preferred names normalize alike (metformin in
    UMLS, SNOMED CT and RxNorm). Two concepts of one vocabulary are never merged by name:
    the vocabulary keeps them apart for a reason. Union-find over keys: linear in the
    candidates."""
    parent: dict[int, int] = {}

    def root(row: int) -> int:
        while parent[row] != row:
            parent[row] = parent[parent[row]]
            row = parent[row]
        return row

    def union(a: int, b: int) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            # The earlier-ranked root stays the root, so group 0 is the best candidate's.
            first, second = sorted((ra, rb), key=rank.__getitem__)
            parent[second] = first

    rank = {hit.row: at for at, hit in enumerate(ranked)}
    owner_of_id: dict[str, int] = {}
    by_name: dict[str, list[int]] = {}
    for hit in ranked:
        row, entry = hit.row, entries[hit.row]
        parent[row] = row
        for key in (entry.id, *entry.equivalents):
            if key in owner_of_id:
                union(owner_of_id[key], row)
            else:
                owner_of_id[key] = row
        if names:
            same_name = by_name.setdefault(names[row], [])
            for other in same_name:
                if entries[other].vocab != entry.vocab:
                    union(other, row)
            same_name.append(row)
    renumber = {r: n for n, r in enumerate(dict.fromkeys(root(h.row) for h in ranked))}
    return {hit.row: renumber[root(hit.row)] for hit in ranked}
