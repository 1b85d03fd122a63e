"""kgverify's candidate generator for scispaCy's ``scispacy_linker`` pipe.

Use a kgverify index inside a spaCy pipeline for text with entities::

    import spacy
    import kgverify.link.pipe  # registers kgverify.candidates.v1

    nlp = spacy.blank("en")   # or any pipeline that sets doc.ents
    nlp.add_pipe("abbreviation_detector")
    nlp.add_pipe("scispacy_linker", config={
        "candidate_generator": {"@misc": "kgverify.candidates.v1", "index_dir": str(index_dir)},
        "resolve_abbreviations": True,
        "filter_for_definitions": False,   # most vocabulary concepts carry no definition
    })

``GraphCandidateGenerator`` never runs ``CandidateGenerator.__init__``: with no arguments
(or an unregistered ``linker_name``) that fetches scispaCy's UMLS files from the internet.
Everything comes from the local index, which refuses to open when a file is missing.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from scispacy.abbreviation import AbbreviationDetector  # noqa: F401  (registers the factory)
from scispacy.candidate_generation import CandidateGenerator, MentionCandidate
from scispacy.linking import EntityLinker  # noqa: F401  (registers scispacy_linker)
from spacy.util import registry

from kgverify.link.index import LinkerIndex
from kgverify.link.normalize import exact_key


class GraphCandidateGenerator(CandidateGenerator):  # type: ignore[misc]  # scispaCy is untyped
    """scispaCy's candidate generator interface over a kgverify index."""

    def __init__(self, index: LinkerIndex) -> None:
        # Deliberately not super().__init__(): see the module docstring.
        self.index = index
        self.ann_index = index.ann
        self.vectorizer = index.vectorizer
        self.kb = index.kb
        self.umls = index.kb
        self.verbose = False

    @property
    def ann_concept_aliases_list(self) -> list[str]:
        return self.index.indexed_aliases

    def __call__(self, mention_texts: list[str], k: int) -> list[list[MentionCandidate]]:
        neighbours = self.index.neighbours([exact_key(t) for t in mention_texts], k)
        batch: list[list[MentionCandidate]] = []
        rows = {row for hits in neighbours for p, _ in hits for row in self.index.rows_of_alias(p)}
        ids = {row: entry.id for row, entry in self.index.store.concepts(rows).items()}
        for hits in neighbours:
            aliases: dict[str, list[str]] = defaultdict(list)
            similarities: dict[str, list[float]] = defaultdict(list)
            for position, similarity in hits:
                alias = self.index.aliases[position]
                for row in self.index.rows_of_alias(position):
                    aliases[ids[row]].append(alias)
                    similarities[ids[row]].append(similarity)
            batch.append(
                sorted(
                    (MentionCandidate(cid, aliases[cid], similarities[cid]) for cid in aliases),
                    key=lambda c: c.concept_id,
                )
            )
        return batch


def graph_candidates(index_dir: str, ef_search: int = 100, threads: int = 1) -> CandidateGenerator:
    """The spaCy-config entry point: a candidate generator over the index in ``index_dir``."""
    return GraphCandidateGenerator(LinkerIndex(Path(index_dir), ef_search, threads))


registry.misc.register("kgverify.candidates.v1", func=graph_candidates)
