"""Linking mentions to concepts: the index (``build_linker_index``), a ``Linker``
(``open_linker``), names looked up (``find_concepts``), relation files linked
(``link_relations_file``); docs/linking.md."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from kgverify.api.bookkeeping import file_run, graph_of, relation_batch
from kgverify.collector import batch_work
from kgverify.config import Settings
from kgverify.graph.driver import Graph

if TYPE_CHECKING:
    from kgverify.extract.relation import CandidateRelation
    from kgverify.jsonl import BadLine
    from kgverify.link.index import IndexInfo
    from kgverify.link.linker import Linker
    from kgverify.link.model import ConceptMatch
    from kgverify.link.relations import LinkReport


def build_linker_index(
    settings: Settings | None = None, graph: Graph | None = None, *, rebuild: bool = False
) -> IndexInfo:
    """The linker index of the graph's current releases, built only if they changed.

    ``rebuild`` builds it anyway. Cached under ``<cache_dir>/linker/<key>``; see
    docs/linking.md.
    """
    from kgverify.link.index import IndexInfo, ensure_index

    settings = settings or Settings()
    with graph_of(settings, graph) as g:
        directory = ensure_index(g, settings, rebuild=rebuild)
    return IndexInfo.model_validate_json((directory / "meta.json").read_text())


def open_linker(
    settings: Settings | None = None, graph: Graph | None = None, *, rebuild: bool = False
) -> Linker:
    """A ``Linker`` over the graph's index (built first when needed).

    Codes are mapped through ``graph``, which must stay open while the linker is used.

    >>> from kgverify.link import MentionQuery
    >>> linker = open_linker(settings, graph)
    >>> [link] = linker.link([MentionQuery("heart attack")])
    >>> link.status, link.concept_id
    ('linked', 'UMLS:C0027051')
    """
    from kgverify.link.linker import Linker

    settings = settings or Settings()
    return Linker.open(settings, graph or Graph.connect(settings), rebuild=rebuild)


def find_concepts(
    text: str, *, limit: int = 10, settings: Settings | None = None, graph: Graph | None = None
) -> list[ConceptMatch]:
    """Concepts for a name, as the linker sees it (``kgverify find``).

    The linker's candidates come first, in its order, with its method (``found_by``
    "linker"), then the full-text matches over names and synonyms it did not list
    (``method`` "fulltext", ``found_by`` "full-text search"). Every match's ``score`` is on
    the linker's scale, 0 to 1: a full-text match gets the score the linker gave a
    candidate of the same name, else the score its TF-IDF stage would give its nearest name
    (``Linker.name_score``; Lucene's own score, unbounded, is not comparable). ``close``
    says whether the score reaches ``link_threshold``: when no
    match is close, the text is not in the loaded vocabularies and the matches are only its
    nearest names. With no release loaded there is no index: only the full-text search
    runs, its scores are Lucene's divided by the best one, and no match is close.

    >>> [(m.id, m.name, m.close) for m in find_concepts("heart attack", limit=3)]
    """
    from kgverify.link.index import LinkerIndexError
    from kgverify.link.linker import MentionQuery
    from kgverify.link.model import ConceptMatch
    from kgverify.link.normalize import fold_accents

    settings = settings or Settings()
    rows: list[dict[str, Any]] = []
    with graph_of(settings, graph) as g:
        try:
            # An auditor looking a name up wants its neighbours even when the name matched.
            linker = open_linker(settings.model_copy(update={"link_alternatives": True}), g)
        except LinkerIndexError:
            linker = None
        try:
            if linker is not None:
                [link] = linker.link([MentionQuery(text)])
                for candidate in link.candidates:
                    rows.append(
                        {
                            "id": candidate.concept_id,
                            "name": candidate.name,
                            "vocab": candidate.vocab,
                            "kinds": candidate.kinds,
                            "active": True,  # the index holds active concepts only
                            "score": candidate.score,
                            "method": candidate.method.value,
                            "found_by": "linker",
                            "linked": candidate.concept_id == link.concept_id,
                        }
                    )
            listed = {row["id"] for row in rows}
            # The full-text index does not fold accents as the linker does: the folded words
            # are searched beside the text's own ("népafénac" finds "Nepafenac").
            words = lucene_words(text)
            if (folded := fold_accents(text)) != text:
                words = f"{words} {lucene_words(folded)}"
            found = [
                row
                for row in g.read("summary/find_concepts_by_name", text=words, limit=limit)
                if row["id"] not in listed
            ]
            best = max((row["score"] for row in found), default=0.0) or 1.0
            # A name the linker scored keeps its score (re-ranked, calibrated); the others
            # get the estimate the TF-IDF stage would give their nearest name.
            scored = {r["name"].lower(): r["score"] for r in rows if r["method"] == "tfidf"}
            for row in found:
                names = row.pop("names")
                if linker is None:
                    score = row["score"] / best
                elif row["name"].lower() in scored:
                    score = scored[row["name"].lower()]
                else:
                    score = linker.name_score(text, names)
                rows.append(
                    row
                    | {
                        "score": round(score, 4),
                        "method": "fulltext",
                        "found_by": "full-text search",
                        "linked": False,
                    }
                )
        finally:
            if linker is not None:
                linker.index.close()
    # Without an index nothing is loaded to be close to, and Lucene's relative scores say
    # nothing about closeness.
    return [
        ConceptMatch(**row, close=linker is not None and row["score"] >= settings.link_threshold)
        for row in rows[:limit]
    ]


_LUCENE_SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/')


def lucene_words(text: str) -> str:
    """Search text as plain words for the full-text index.

    Lucene's operators are escaped and AND / OR / NOT lower-cased (the index lower-cases
    anyway), so quotes, slashes and the like are searched for instead of failing to parse.
    """
    return "".join("\\" + c if c in _LUCENE_SPECIAL else c for c in text.lower())


@batch_work
def link_relations_file(
    relations: Path,
    out: Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    trajectories: Path | None = None,
    rejects_path: Path | None = None,
    rebuild_index: bool = False,
    engine: str = "local",
    progress: Callable[[int], None] | None = None,
) -> LinkReport:
    """Link both mentions of every candidate relation in a JSONL file.

    Links against the loaded vocabularies and writes ``LinkedRelation`` JSONL to ``out``
    (replaced only when the run completes). ``trajectories`` (JSONL) gives note text for
    abbreviations. Bad lines go, with their line number, to the rejects file. ``engine``
    (``kgverify.engines.ENGINES``): "local", or "ray" to split each batch over Ray actors
    (the same output).

    Raises:
        ConfigError: ``relations`` does not exist, or ``engine`` is unknown.
        RejectThresholdError: more lines were rejected than ``max_reject_share`` allows.
    """
    from kgverify.engines import ENGINES
    from kgverify.firstseen import FirstSeen
    from kgverify.link.index import ensure_index
    from kgverify.link.model import write_linked
    from kgverify.link.relations import Contexts, LinkReport, link_relations
    from kgverify.verify.report import read_relations_any

    settings = settings or Settings()
    run_on = ENGINES.pick(engine)
    report = LinkReport(out=str(out))
    contexts = Contexts.from_file(trajectories) if trajectories is not None else None
    with (
        file_run(relations, out, rejects_path) as run,
        graph_of(settings, graph) as g,
        FirstSeen() as seen,
    ):
        if rebuild_index:
            ensure_index(g, settings, rebuild=True)
        with run_on.linker(settings, g) as linker:
            linked = link_relations(
                # A repeated relation_id is a rejected line: ids stay one relation each.
                cast(
                    "Iterator[CandidateRelation | BadLine]",
                    read_relations_any(relations, seen=seen, candidates_only=True),
                ),
                linker,
                report,
                contexts=contexts,
                on_reject=run.reject,
                batch_size=relation_batch(settings),
                progress=progress,
            )
            write_linked(linked, run.partial)
    report.rejects = run.rejects
    return report
