"""The linker on a small hand-made knowledge base: real scispaCy TF-IDF, real nmslib HNSW
index, real SQLite store; no graph (the code stage is covered end to end)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kgverify.extract.relation import Predicate
from kgverify.link.index import IndexSettings, LinkerIndex, LinkerIndexError, build_index
from kgverify.link.kb import KbEntry
from kgverify.link.linker import Linker, LinkParams, MentionQuery
from kgverify.link.model import LinkStatus, Method
from kgverify.link.normalize import exact_key, normalized_key
from kgverify.link.slots import fits, slot_kinds

SETTINGS = IndexSettings(min_df=1, m=16, ef_construction=100, ef_search=100, threads=1)
PARAMS = LinkParams(threshold=0.8, margin=0.05, k=30)
TREATS = Predicate.TREATS


def entry(cid: str, name: str, *names: str, kinds: str = "disorder", **extra: Any) -> KbEntry:
    return KbEntry(
        id=cid, vocab=cid.split(":")[0], name=name, names=list(names), kinds=[kinds], **extra
    )


ENTRIES = [
    entry(
        "UMLS:C0027051",
        "Myocardial infarction",
        "MI",
        "heart attack",
        equivalents=["SNOMEDCT:22298006"],
    ),
    entry("SNOMEDCT:22298006", "Myocardial infarction", equivalents=["UMLS:C0027051"]),
    entry("UMLS:C0026266", "Mitral valve insufficiency", "MI", "mitral regurgitation"),
    entry("UMLS:C0003873", "Rheumatoid arthritis", "RA"),
    entry("UMLS:C0225844", "Right atrial structure", "RA", kinds="anatomy"),
    entry("UMLS:C0025598", "Metformin", "metformin hydrochloride", kinds="ingredient"),
    entry("RXNORM:6809", "Metformin", kinds="ingredient"),
    entry("RXNORM:202433", "Tylenol", kinds="brand"),
    entry("UMLS:C0011860", "Diabetes mellitus, type 2", "T2DM", "type 2 diabetes mellitus"),
    entry("UMLS:C0020538", "Hypertensive disorder", "hypertension"),
    entry("UMLS:C0020473", "Hyperlipidemia"),
    entry("UMLS:C0020625", "Hyponatremia"),
    entry("UMLS:C0020598", "Hypernatremia"),
    entry("UMLS:C0029882", "Otitis media"),
    entry("UMLS:C0018681", "Headache", kinds="finding"),
    entry("UMLS:C0004057", "Aspirin", "acetylsalicylic acid", kinds="ingredient"),
    entry("UMLS:C0149514", "Acute bronchitis"),
    entry("UMLS:C0020877", "Ileitis"),
    entry("UMLS:C0022081", "Iritis"),
    entry("CHEBI:16236", "Ethanol", kinds="substance"),
    entry("MONDO:0010602", "Hemophilia A"),
    entry("MONDO:0000001", "Right-to-left shunt"),
    entry("SNOMEDCT:0000002", "Metformin", kinds="substance"),
    entry("UMLS:C0042029", "Urinary tract infection"),
]


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("index") / "idx"
    info = build_index(ENTRIES, directory, SETTINGS, key="test", source={"label": "hand-made"})
    assert info.concepts == len(ENTRIES)
    assert info.aliases == len({exact_key(a) for e in ENTRIES for a in e.aliases()})
    return directory


@pytest.fixture(scope="module")
def linker(index_dir: Path) -> Iterator[Linker]:
    index = LinkerIndex(index_dir, ef_search=100, threads=1)
    yield Linker(index, PARAMS)
    index.close()


def one(linker: Linker, text: str, **kw: Any) -> Any:
    [link] = linker.link([MentionQuery(text, **kw)])
    return link


def test_keys_ignore_case_punctuation_plurals_and_word_order() -> None:
    assert exact_key("  Heart   Attack ") == "heart attack"
    same = {"Diabetes mellitus, type 2", "type II diabetes mellitus", "Type 2 Diabetes Mellitus"}
    assert len({normalized_key(t) for t in same}) == 1
    assert normalized_key("Kidney stones") == normalized_key("kidney stone")
    assert normalized_key("Crohn's disease") == "crohn disease"
    # Words that only look plural keep their s.
    assert normalized_key("diabetes") == "diabetes" and normalized_key("Otitis") == "otitis"


def test_slot_kinds_reject_known_misfits_and_keep_unknowns() -> None:
    drug = slot_kinds(TREATS, "subject")
    assert fits(["ingredient"], drug) and fits(["brand"], drug)
    assert not fits(["disorder"], drug)
    assert fits([], drug) and fits(["other"], drug)
    assert fits(["anatomy"], None)


def test_exact_synonym_links_and_reports_the_group(linker: Linker) -> None:
    link = one(linker, "Heart Attack", allowed=slot_kinds(TREATS, "object"))
    assert link.status is LinkStatus.LINKED and link.method is Method.EXACT
    assert link.concept_id == "UMLS:C0027051"
    assert "SNOMEDCT:22298006" in link.equivalents


def test_same_concept_in_two_vocabularies_is_not_ambiguous(linker: Linker) -> None:
    link = one(linker, "myocardial infarction")
    ids = {c.concept_id for c in link.candidates}
    assert {"UMLS:C0027051", "SNOMEDCT:22298006"} <= ids
    assert {c.group for c in link.candidates if c.score == 1.0} == {0}
    assert link.status is LinkStatus.LINKED and link.concept_id == "UMLS:C0027051"
    # Same preferred name, no MAPS_TO: still one group (metformin in UMLS and RxNorm).
    drug = one(linker, "metformin", allowed=slot_kinds(TREATS, "subject"))
    assert drug.status is LinkStatus.LINKED and drug.concept_id == "UMLS:C0025598"
    assert "RXNORM:6809" in drug.equivalents


def test_an_abbreviation_of_two_disorders_is_ambiguous_without_context(linker: Linker) -> None:
    link = one(linker, "MI", allowed=slot_kinds(TREATS, "object"))
    assert link.status is LinkStatus.AMBIGUOUS and link.concept_id is None
    assert link.margin == 0.0
    assert {c.concept_id for c in link.candidates if c.group < 2} >= {
        "UMLS:C0027051",
        "UMLS:C0026266",
    }


def test_context_defines_the_abbreviation(linker: Linker) -> None:
    note = "Admitted with acute chest pain; mitral valve insufficiency (MI) on echo. MI severe."
    link = one(linker, "MI", allowed=slot_kinds(TREATS, "object"), context=note)
    assert link.status is LinkStatus.LINKED and link.concept_id == "UMLS:C0026266"
    assert link.expanded_from == "MI" and link.query == "mitral valve insufficiency"
    # A context that does not define it changes nothing.
    other = one(linker, "MI", allowed=slot_kinds(TREATS, "object"), context="No history.")
    assert other.status is LinkStatus.AMBIGUOUS and other.expanded_from is None


def test_slot_kinds_resolve_an_abbreviation(linker: Linker) -> None:
    link = one(linker, "RA", allowed=slot_kinds(TREATS, "object"))
    assert link.status is LinkStatus.LINKED and link.concept_id == "UMLS:C0003873"
    anatomy = next(c for c in link.candidates if c.concept_id == "UMLS:C0225844")
    assert not anatomy.type_ok
    # Without a slot both readings stay.
    assert one(linker, "RA").status is LinkStatus.AMBIGUOUS


def test_a_drug_in_a_condition_slot_is_not_linked(linker: Linker) -> None:
    link = one(linker, "metformin", allowed=slot_kinds(TREATS, "object"))
    assert link.status is LinkStatus.UNLINKED
    drug = next(c for c in link.candidates if c.concept_id == "UMLS:C0025598")
    assert not drug.type_ok and drug.score == 1.0
    assert not any(c.type_ok and c.score >= PARAMS.threshold for c in link.candidates)
    assert all(c.score > 0 for c in link.candidates)
    # Candidates that fit the slot come first in the list, even the weaker ones.
    fit = [c.type_ok for c in link.candidates]
    assert fit == sorted(fit, reverse=True) and fit[0] and not fit[-1]


def test_slot_order_can_be_switched_off(index_dir: Path) -> None:
    index = LinkerIndex(index_dir, ef_search=100, threads=1)
    plain = Linker(index, PARAMS.model_copy(update={"disabled": frozenset({"slot_order"})}))
    link = one(plain, "metformin", allowed=slot_kinds(TREATS, "object"))
    index.close()
    assert link.candidates[0].concept_id == "UMLS:C0025598" and not link.candidates[0].type_ok


def test_normalized_and_typo_stages(linker: Linker) -> None:
    link = one(linker, "Hypertensive disorders")
    assert (link.status, link.method, link.concept_id) == (
        LinkStatus.LINKED,
        Method.NORMALIZED,
        "UMLS:C0020538",
    )
    typo = one(linker, "metfromin", allowed=slot_kinds(TREATS, "subject"))
    assert (typo.status, typo.method, typo.concept_id) == (
        LinkStatus.LINKED,
        Method.EDIT,
        "UMLS:C0025598",
    )
    brand = one(linker, "Tylenol", allowed=slot_kinds(TREATS, "subject"))
    assert brand.concept_id == "RXNORM:202433"


def test_typos_link_but_lookalike_concepts_do_not(linker: Linker) -> None:
    assert one(linker, "hyponatremai").concept_id == "UMLS:C0020625"  # transposition
    assert one(linker, "hypenatremia").concept_id == "UMLS:C0020598"  # a missing letter
    # One edit from two concepts: ambiguous, both kept.
    both = one(linker, "ilitis")
    assert both.status is LinkStatus.AMBIGUOUS
    assert {c.concept_id for c in both.candidates[:2]} == {"UMLS:C0020877", "UMLS:C0022081"}
    # A vowel for a vowel is another chemical, not a typo; so is a changed digit.
    ethanal = one(linker, "ethanal")
    assert ethanal.concept_id is None and all(
        c.method is not Method.EDIT for c in ethanal.candidates
    )


def test_normalization_keeps_what_tells_concepts_apart(linker: Linker) -> None:
    for text in ("left to right shunt", "hemophilia", "T2DM type 3"):
        link = one(linker, text)
        assert link.method is not Method.NORMALIZED, (text, link)
    assert one(linker, "Hemophilia A.").concept_id == "MONDO:0010602"  # trailing period
    for a, b in (
        ("left to right shunt", "right-to-left shunt"),
        ("reduced alpha/beta ratio", "reduced beta/alpha ratio"),
        ("visual acuity 1.0 logmar", "visual acuity 0.1 logmar"),
        ("T-B+ SCID", "T-B- SCID"),
        ("complex 1 deficiency type 3", "complex III deficiency type 1"),
        ("hemophilia", "hemophilia A"),
    ):
        assert normalized_key(a) != normalized_key(b), (a, b)


def test_word_order_variants_link_where_order_cannot_matter(linker: Linker) -> None:
    link = one(linker, "infection of the urinary tract")
    assert (link.method, link.concept_id) == (Method.REORDERED, "UMLS:C0042029")
    assert one(linker, "shunt, left to right").method is not Method.REORDERED


def test_same_name_in_one_vocabulary_is_two_concepts(index_dir: Path) -> None:
    # Two entries of one vocabulary with the same preferred name stay apart (ambiguous);
    # across vocabularies they are one concept (see the metformin test above).
    entries = [entry("MONDO:1", "Cardiac defect"), entry("MONDO:2", "Cardiac defect")]
    directory = index_dir.parent / "same-name"
    build_index(entries, directory, SETTINGS, key="same", source={})
    index = LinkerIndex(directory, ef_search=50, threads=1)
    try:
        [link] = Linker(index, PARAMS).link([MentionQuery("cardiac defect")])
    finally:
        index.close()
    assert link.status is LinkStatus.AMBIGUOUS
    assert {c.group for c in link.candidates} == {0, 1}


def test_nonsense_is_unlinked_and_results_keep_input_order(linker: Linker) -> None:
    texts = ["quantum flux capacitor", "otitis media", "zzzz", "aspirin"]
    links = linker.link([MentionQuery(t) for t in texts])
    assert [link.status for link in links] == [
        LinkStatus.UNLINKED,
        LinkStatus.LINKED,
        LinkStatus.UNLINKED,
        LinkStatus.LINKED,
    ]
    assert links[1].concept_id == "UMLS:C0029882" and links[3].concept_id == "UMLS:C0004057"


def test_the_threshold_and_margin_are_settings(index_dir: Path) -> None:
    index = LinkerIndex(index_dir, ef_search=100, threads=1)
    try:
        loose = Linker(index, LinkParams(threshold=0.3, margin=0.05, k=30))
        strict = Linker(index, LinkParams(threshold=0.8, margin=0.05, k=30))
        text = [MentionQuery("otitis")]  # TF-IDF similarity to "otitis media" ~0.76
        assert strict.link(text)[0].status is LinkStatus.UNLINKED
        assert loose.link(text)[0].concept_id == "UMLS:C0029882"
    finally:
        index.close()


def test_missing_or_partial_index_fails_loudly(tmp_path: Path, index_dir: Path) -> None:
    with pytest.raises(LinkerIndexError, match="no linker index"):
        LinkerIndex(tmp_path / "absent", ef_search=10, threads=1)
    partial = tmp_path / "partial"
    partial.mkdir()
    for f in index_dir.iterdir():
        if f.name != "nmslib_index.bin":
            (partial / f.name).write_bytes(f.read_bytes())
    with pytest.raises(LinkerIndexError, match="no linker index"):
        LinkerIndex(partial, ef_search=10, threads=1)


def test_an_empty_kb_builds_nothing(tmp_path: Path) -> None:
    with pytest.raises(LinkerIndexError, match="empty"):
        build_index([], tmp_path / "idx", SETTINGS, key="k", source={})
    assert not (tmp_path / "idx").exists()
    assert list(tmp_path.iterdir()) == []  # the temporary build folder is gone too


def test_the_whole_path_never_touches_the_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """scispaCy falls back to downloading UMLS files when a linker name is not registered;
    kgverify's path (build, open, link, spaCy pipe) must not even try to connect."""
    import spacy
    from scispacy.linking import EntityLinker
    from spacy.tokens import Span

    import kgverify.link.pipe  # noqa: F401

    attempts: list[object] = []

    def refuse(*args: object, **kwargs: object) -> None:
        attempts.append(args)
        raise OSError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    directory = tmp_path / "idx"
    build_index(ENTRIES, directory, SETTINGS, key="offline", source={})
    index = LinkerIndex(directory, ef_search=50, threads=1)
    assert Linker(index, PARAMS).link([MentionQuery("heart attack")])[0].concept_id
    index.close()

    nlp = spacy.blank("en")
    nlp.add_pipe("abbreviation_detector")
    linker = nlp.add_pipe(
        "scispacy_linker",
        config={
            "candidate_generator": {"@misc": "kgverify.candidates.v1", "index_dir": str(directory)},
            "resolve_abbreviations": True,
            "filter_for_definitions": False,
        },
    )
    doc = nlp.make_doc("Seen for acute otitis media and Tylenol overuse.")
    doc.ents = [Span(doc, 2, 5, "DISEASE"), Span(doc, 6, 7, "DRUG")]
    for _, component in nlp.pipeline:
        doc = component(doc)
    first, second = doc.ents
    assert first._.kb_ents[0][0] == "UMLS:C0029882"
    assert second._.kb_ents[0] == ("RXNORM:202433", pytest.approx(1.0))
    assert isinstance(linker, EntityLinker)
    assert linker.kb.cui_to_entity["RXNORM:202433"].canonical_name == "Tylenol"
    assert attempts == []
    # The guard is real: a scispaCy generator built the default way tries to download.
    from scispacy.candidate_generation import CandidateGenerator

    with pytest.raises(Exception):  # noqa: B017  (requests wraps the refusal its own way)
        CandidateGenerator(name="not-registered")
    assert attempts


def test_scispacy_reads_the_index_files_unchanged(index_dir: Path) -> None:
    """The files are scispaCy's LinkerPaths layout: its own loader opens them and finds the
    same neighbours as kgverify's loader (which reads the saved vectors in one step)."""
    from scispacy.candidate_generation import LinkerPaths

    paths = LinkerPaths.from_directory(index_dir)
    aliases, vectorizer, ann = paths.load(ef_search=100)
    [(ids, _)] = ann.knnQueryBatch(vectorizer.transform(["heart attack"]), k=1)
    assert aliases[int(ids[0])] == "heart attack"
    ours = LinkerIndex(index_dir, ef_search=100, threads=1)
    try:
        [[(position, similarity)]] = ours.neighbours(["heart attack"], 1)
        assert ours.aliases[position] == "heart attack" and similarity == pytest.approx(1.0)
    finally:
        ours.close()


def test_a_batch_changes_the_collector_only_while_it_runs(linker: Linker) -> None:
    """The young-generation threshold is raised for a batch (allocation-heavy) and the
    caller's own setting comes back afterwards, also when it was already higher."""
    import gc

    from kgverify import collector

    before = gc.get_threshold()
    seen: list[tuple[int, int, int]] = []
    original = linker.__class__._link

    def spy(self: Linker, queries: Any) -> Any:
        seen.append(gc.get_threshold())
        return original(self, queries)

    try:
        linker.__class__._link = spy  # type: ignore[method-assign]
        one(linker, "hypertension")
        assert seen[-1][0] == max(before[0], collector.YOUNG)
        assert gc.get_threshold() == before
        gc.set_threshold(50_000, *before[1:])
        one(linker, "hypertension")
        assert seen[-1][0] == 50_000 and gc.get_threshold()[0] == 50_000
    finally:
        linker.__class__._link = original  # type: ignore[method-assign]
        gc.set_threshold(*before)


def test_the_entry_cache_is_bounded_and_gives_the_same_links(
    index_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kgverify.link import linker as linker_module

    texts = [e.name for e in ENTRIES] * 2
    index = LinkerIndex(index_dir, ef_search=100, threads=1)
    try:
        fresh = [Linker(index, PARAMS).link([MentionQuery(t)])[0] for t in texts]
        monkeypatch.setattr(linker_module, "ENTRY_CACHE", 3)
        reused = Linker(index, PARAMS)
        again = [reused.link([MentionQuery(t)])[0] for t in texts]
        assert len(reused._entry_cache) <= 3
    finally:
        index.close()
    assert again == fresh
