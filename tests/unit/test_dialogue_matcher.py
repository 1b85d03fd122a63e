"""The offline mention matcher: the graph's names under the linker's normalization, only
patient-talkable kinds, longest match, abbreviations only as written, coordinations split.
Entries are real ``KbEntry`` records as the linker's export gives them; the tokenizer is
spaCy's blank English one."""

from __future__ import annotations

from kgverify.dialogue.matcher import MentionMatcher
from kgverify.link.kb import KbEntry


def entry(cid: str, name: str, kinds: list[str], names: list[str] | None = None) -> KbEntry:
    return KbEntry(id=cid, vocab=cid.split(":")[0], name=name, names=names or [], kinds=kinds)


MATCHER = MentionMatcher(
    [
        entry("UMLS:C0036689", "Streptococcal sore throat", ["disorder"], ["Strep throat"]),
        entry("UMLS:C0027051", "Myocardial Infarction", ["disorder"], ["Heart attack", "MI"]),
        entry("UMLS:C0003873", "Arthritis, Rheumatoid", ["disorder"], ["RA"]),
        entry("UMLS:C0020538", "Hypertension", ["disorder"]),
        entry("UMLS:C0018681", "Headache", ["finding"]),
        entry("RXNORM:161", "Acetaminophen", ["ingredient"]),
        entry("RXNORM:723", "Amoxicillin", ["ingredient"]),
        entry("RXNORM:48203", "Clavulanate", ["ingredient"]),
        entry("RXNORM:9900083", "Amoxicillin / Clavulanate", ["ingredient"]),
        entry("RXNORM:202433", "Tylenol", ["brand"]),
        entry("UMLS:C0018787", "Heart", ["anatomy"]),  # not talkable
        entry("SNOMEDCT:64572001", "Disease", ["disorder"]),  # a category name
        entry("UMLS:C0001", "All", ["disorder"], ["ALL"]),  # a stop word as a name
    ]
)


def found(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(m.span.text, m.concepts) for m in MATCHER.find(MATCHER.doc(text))]


def test_lay_words_brands_and_inverted_names_are_found() -> None:
    assert found("I had strep throat and took Tylenol for rheumatoid arthritis.") == [
        ("strep throat", ("UMLS:C0036689",)),
        ("Tylenol", ("RXNORM:202433",)),
        ("rheumatoid arthritis", ("UMLS:C0003873",)),
    ]


def test_the_longest_name_wins_and_plurals_are_normalized() -> None:
    assert found("Two heart attacks") == [("heart attacks", ("UMLS:C0027051",))]


def test_abbreviations_match_only_as_written() -> None:
    assert found("My MI and RA") == [("MI", ("UMLS:C0027051",)), ("RA", ("UMLS:C0003873",))]
    assert found("mi casa, ra ra, that is all") == []


def test_untalkable_kinds_categories_and_stop_words_never_match() -> None:
    assert found("my heart has a disease") == []


def test_a_coordination_is_two_mentions() -> None:
    assert [t for t, _ in found("amoxicillin and clavulanate")] == ["amoxicillin", "clavulanate"]
    assert [t for t, _ in found("amoxicillin / clavulanate")] == ["amoxicillin / clavulanate"]
    assert [t for t, _ in found("hypertension, headache")] == ["hypertension", "headache"]
