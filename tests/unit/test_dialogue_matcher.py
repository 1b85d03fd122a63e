"""The offline mention matcher: the graph's names under the linker's normalization, only
patient-talkable kinds, longest match, abbreviations only as written, coordinations split.
Entries are real ``KbEntry`` records as the linker's export gives them; the tokenizer is
spaCy's blank English one."""

from __future__ import annotations

from kgverify.dialogue.matcher import MentionMatcher, is_general, lay_text
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


LAY = MentionMatcher(
    [
        entry("UMLS:C0160081", "Sprain of ankle", ["disorder"], ["Sprained ankle"]),
        entry("UMLS:C0272745", "Closed fracture of hip", ["disorder"], ["Broken hip"]),
        entry("UMLS:C0030252", "Palpitations", ["finding"], ["Heart racing"]),
        entry("UMLS:C0004238", "Atrial fibrillation", ["disorder"], ["a-fib", "AF"]),
        entry("UMLS:C0202230", "Hemoglobin A1c", ["lab"], ["A1C"]),
    ]
)


def lay_found(text: str) -> list[tuple[str, str]]:
    return [(m.span.text, m.alias) for m in LAY.find(LAY.doc(text))]


def test_words_inside_a_name_and_a_past_tense_are_read_as_the_name() -> None:
    """Issue 37: "sprained my ankle", "my heart's been racing", "broke my hip"; the alias is
    what the linker is given."""
    assert lay_found("I sprained my ankle.") == [("sprained my ankle", "sprained ankle")]
    assert lay_found("My heart's been racing") == [("heart's been racing", "heart racing")]
    assert lay_found("I broke my hip") == [("broke my hip", "broken hip")]
    # "some" and "any" inside ("broke some ribs", "never broken any bones"), never at an edge
    assert lay_found("I never broke any hip") == [("broke any hip", "broken hip")]
    assert lay_found("I broke some hip bones") == [("broke some hip", "broken hip")]
    assert lay_found("Any hip pain? I broke some.") == []
    # The plain form and -ing of an injury verb, for a fear or a plan; a break is no injury.
    assert lay_found("I'm afraid I'll break a hip.") == [("break a hip", "broken hip")]
    assert lay_found("Breaking my hip scares me") == [("Breaking my hip", "broken hip")]
    assert lay_found("I need a break from my hip exercises") == []
    assert lay_text(LAY.doc("sprained ankle")[:]) == ""  # nothing to change
    # Fillers only inside: a name never starts or ends on one, nor crosses a coordination.
    assert lay_found("my ankle was sprained") == []
    assert lay_found("I sprained my wrist and my ankle") == []


INJURY = MentionMatcher(
    [
        entry("SNOMEDCT:283385000", "Laceration of thigh", ["disorder"]),
        entry("SNOMEDCT:370247008", "Facial laceration", ["disorder"]),
        entry("SNOMEDCT:125666000", "Burn", ["disorder"]),
        entry("SNOMEDCT:127295002", "Traumatic brain injury", ["disorder"], ["head injury"]),
    ]
)


def injury_found(text: str) -> list[tuple[str, str]]:
    return [(m.span.text, m.alias) for m in INJURY.find(INJURY.doc(text))]


def test_an_injury_said_as_a_verb_and_a_part_is_read_as_its_name() -> None:
    """Issue 37: "cut my thigh", "cut on my face", "burned my hand" go under the names the
    vocabularies give the injury; a verb without a part, or with something else, does not."""
    assert injury_found("I cut my thigh on a fence.") == [("cut my thigh", "laceration of thigh")]
    assert injury_found("a cut on my face") == [("cut on my face", "facial laceration")]
    assert injury_found("I burned my hand on the stove") == [("burned my hand", "burn")]
    assert injury_found("I scalded both arms") == [("scalded both arms", "burn")]
    assert injury_found("I cut down on coffee and burned the toast") == []
    assert injury_found("I cut my hair") == []
    # a blow to the head is a head injury; to another part, nothing named
    assert injury_found("I bumped my head on the ground") == [("bumped my head", "head injury")]
    assert injury_found("I hit my knee on the table") == []
    assert injury_found("I hit the ball") == []
    assert injury_found("a cut on my chin") == [("cut on my chin", "facial laceration")]


def test_a_hyphenated_short_form_and_a_sentence_final_abbreviation() -> None:
    assert lay_found("I had a-fib once.") == [("a-fib", "a-fib")]
    assert lay_found("They checked my A1C.") == [("A1C.", "A1C")]
    assert lay_found("a fib, af, a1c") == []  # "a" alone is a stop word; af, a1c as written


def test_spans_for_the_linker_leave_out_matches_stop_words_and_numbers() -> None:
    doc = LAY.doc("I take warfarine 5 mg and my heart's been racing, the clopidigrel too.")
    taken = LAY.find(doc)
    spans = [s.text for s in LAY.spans(doc, taken)]
    assert "warfarine" in spans and "clopidigrel" in spans and "warfarine 5 mg" in spans
    assert not [s for s in spans if "racing" in s or "heart" in s]  # the match's tokens
    assert not [s for s in spans if s.split()[0].lower() in {"i", "the", "my", "5"}]
    assert not [s for s in spans if "and" in s.split() or "," in s]
    assert LAY.spans(LAY.doc("I am ok, it is 5."), []) == []


def test_a_name_may_end_on_a_particle_but_not_on_another_stop_word() -> None:
    m = MentionMatcher(
        [
            entry("UMLS:C0042963", "Vomiting", ["disorder"], ["Throwing up"]),
            entry("UMLS:C0010200", "Cough", ["finding"]),
        ]
    )
    assert [x.span.text for x in m.find(m.doc("I haven't been throwing up."))] == ["throwing up"]
    assert [x.span.text for x in m.find(m.doc("I cough a lot"))] == ["cough"]


BODY = MentionMatcher(
    [
        entry("UMLS:C0003862", "Arthralgia", ["finding"], ["Joint pain"]),
        entry("UMLS:C0162298", "Joint stiffness", ["finding"], ["Stiff joints"]),
        entry("UMLS:C0152031", "Joint swelling", ["finding"]),
        entry("UMLS:C0004604", "Back Pain", ["finding"]),
        entry("UMLS:C0008031", "Chest Pain", ["finding"]),
    ]
)


def body_found(text: str) -> list[tuple[str, str]]:
    return [(m.span.text, m.alias) for m in BODY.find(BODY.doc(text))]


def test_a_symptom_said_of_a_body_part_is_the_parts_finding() -> None:
    """Issue 37: aches, stiffness and swelling said of a part ("my knees ache", "pain in my
    back"); a joint's are the joint findings; the part's own finding first."""
    assert body_found("My knees ache in the morning.") == [("knees ache", "joint pain")]
    assert body_found("my wrist's been really stiff") == [
        ("wrist's been really stiff", "stiff joints")
    ]
    assert body_found("the knuckles are swollen") == [("knuckles are swollen", "joint swelling")]
    assert body_found("I have pain in my back.") == [("pain in my back", "back pain")]
    assert body_found("My back hurts.") == [("back hurts", "back pain")]  # "back": a stop word
    assert body_found("my chest gets tight on the stairs") == [("chest gets tight", "chest pain")]
    assert body_found("there's pressure in my chest") == [("pressure in my chest", "chest pain")]
    assert body_found("cramping in my chest") == [("cramping in my chest", "chest pain")]


def test_no_part_no_state_or_a_part_without_a_finding_is_no_symptom() -> None:
    assert body_found("My face hurts.") == []  # no facial pain in these vocabularies
    assert body_found("My knees are fine and my back is strong.") == []
    assert body_found("I hurt my knee playing football") == []  # an injury, not an ache
    assert body_found("the knee of my trousers is sore") == []  # too far, and not a gap word
    assert body_found("I came back home") == []


def test_a_name_may_open_on_a_stop_word_as_written() -> None:
    """Issue 37: consumer names that start with a stop word ("out of breath", "back pain");
    never one a stop word only opens in the text ("an ear infection": the name starts after
    it), nor a stop word alone."""
    m = MentionMatcher(
        [
            entry("UMLS:C0013404", "Dyspnea", ["finding"], ["Out of breath"]),
            entry("UMLS:C0004604", "Back Pain", ["finding"]),
            entry("UMLS:C0029882", "Otitis Media", ["disorder"], ["Ear infection"]),
            entry("UMLS:C0030252", "Palpitations", ["finding"], ["Heart racing"]),
        ]
    )
    spans = [(x.span.text, x.alias) for x in m.find(m.doc("I get out of breath and back pain."))]
    assert spans == [("out of breath", "out of breath"), ("back pain", "back pain")]
    assert [x.span.text for x in m.find(m.doc("I had an ear infection"))] == ["ear infection"]
    assert m.find(m.doc("I was out and about, back by noon.")) == []
    # Palpitations as patients say them: the heart and what it does, fillers between.
    beats = [(x.span.text, x.alias) for x in m.find(m.doc("My heart's been fluttering."))]
    assert beats == [("heart's been fluttering", "heart racing")]
    assert [x.span.text for x in m.find(m.doc("my heart skips a beat"))] == ["heart skips"]
    assert m.find(m.doc("my heart is fine and my pulse is slow")) == []


def test_a_category_name_is_general_in_either_number() -> None:
    """The checker refuses a span the linker links when it is only a category name ("an
    injury", "the diseases"): it is never a claim of a fact."""
    assert is_general("injury") and is_general("Injuries") and is_general("diseases")
    assert is_general("disorder") and is_general(" drug ")
    assert not is_general("brain injury") and not is_general("arthritis")


def test_a_cracked_bone_is_a_broken_one_and_a_count_inside_a_name_is_left_out() -> None:
    """Issue 37, fifth pass: "cracked my collarbone", "cracked two ribs" read as the broken
    bone's name; a crack that is no bone's stays nothing."""
    bones = MentionMatcher(
        [
            entry("UMLS:C0159658", "Fracture of clavicle", ["disorder"], ["Broken collarbone"]),
            entry("UMLS:C0035522", "Fracture of rib", ["disorder"], ["Broken rib", "Cracked rib"]),
        ]
    )

    def found(text: str) -> list[tuple[str, str]]:
        return [(m.span.text, m.alias) for m in bones.find(bones.doc(text))]

    assert found("I cracked my collarbone") == [("cracked my collarbone", "broken collarbone")]
    assert found("I think I cracked two ribs") == [("cracked two ribs", "broken ribs")]
    assert found("I'm afraid I'll crack a rib") == [("crack a rib", "broken rib")]
    assert found("a cracked rib") == [("cracked rib", "cracked rib")]
    assert found("the paint cracked on my wall") == []
