"""Symptoms said of a body part ("my knees ache", "my back hurts", "pain in my hip",
"tightness in my chest", "my knuckles are swollen", "my heart skips"): the words a patient
uses for the findings the vocabularies name by the part ("knee" is a joint: "joint pain",
"stiff joints", "swollen joints"; "chest pain", "stomach pain"; palpitations).
``body_forms`` gives the names to look such a span up under; the matcher takes the first
the vocabularies hold, so a part the sample names no finding for ("my leg hurts") stays no
mention. Injuries said as a verb and a part ("cut my thigh", "burned my hand") the same
way: ``injury_forms``."""

from __future__ import annotations

from spacy.tokens import Span

JOINTS = frozenset(
    {"knee", "hip", "finger", "knuckle", "shoulder", "elbow", "wrist", "ankle", "toe", "joint",
     "hand"}
)  # fmt: skip
"""Parts a patient names for their joints ("my knees ache", "my hands are stiff")."""

PARTS = frozenset(
    {"back", "chest", "stomach", "belly", "tummy", "head", "ear", "throat", "neck", "leg",
     "arm", "foot", "face", "eye", "side"}
) | JOINTS  # fmt: skip
_PLURALS = {"knees": "knee", "hips": "hip", "fingers": "finger", "knuckles": "knuckle",
            "shoulders": "shoulder", "elbows": "elbow", "wrists": "wrist", "ankles": "ankle",
            "toes": "toe", "joints": "joint", "hands": "hand", "ears": "ear", "legs": "leg",
            "arms": "arm", "feet": "foot", "eyes": "eye"}  # fmt: skip

PAIN = frozenset(
    {"ache", "aches", "aching", "ached", "achy", "hurt", "hurts", "hurting", "sore", "pain",
     "pains", "painful", "throbbing", "throbs", "throbbed", "tight", "tightness", "pressure",
     "heaviness", "squeezing", "burning", "burns", "cramp", "cramps", "cramping"}
)  # fmt: skip
"""Words of pain and discomfort said of a part: "pressure in my chest" is chest pain as a
patient says it."""
STIFF = frozenset({"stiff", "stiffness"})
SWOLLEN = frozenset({"swollen", "swell", "swells", "swelling", "puffy"})

_GAP = frozenset(
    {"'s", "\u2019s", "is", "are", "was", "were", "has", "have", "'ve", "been", "keeps", "kept",
     "get", "gets", "got", "getting", "feel", "feels", "felt", "always", "just", "really",
     "very", "so", "quite", "pretty", "all", "a", "bit", "little", "kind", "of", "sort"}
)  # fmt: skip
"""Words between the part and what it does ("my knee's been aching", "my chest gets
tight")."""
_MAX_GAP = 4
_IN = frozenset({"in", "of"})
_OWNER = frozenset({"my", "the", "both", "his", "her", "your"})


HEART = frozenset({"heart", "pulse", "heartbeat"})
BEATING = frozenset(
    {"racing", "races", "pounding", "pounds", "fluttering", "flutters", "thumping", "thumps",
     "skipping", "skips", "galloping", "jumping", "hammering", "beating"}
)  # fmt: skip
"""What a patient says their heart does for palpitations ("my heart's been fluttering",
"my heart skips")."""


def _state(word: str) -> str | None:
    if word in PAIN:
        return "pain"
    if word in STIFF:
        return "stiff"
    if word in SWOLLEN:
        return "swollen"
    return None


def _part(word: str) -> str | None:
    part = _PLURALS.get(word, word)
    return part if part in PARTS else None


def body_forms(tokens: Span) -> list[str]:
    """The finding names a span says of a body part, most specific first: "knees ache" ->
    "knee pain", "joint pain", "joints ache"; "pain in my back" -> "back pain"; "heart's
    been fluttering" -> "heart racing" (palpitations); [] when the span is no such symptom
    (a part first and its state last with only fillers between, or a state, "in" or "of",
    maybe "my", and a part)."""
    words = [t.lower_ for t in tokens]
    if len(words) < 2:
        return []
    gap = words[1:-1]
    between = len(gap) <= _MAX_GAP and all(w in _GAP for w in gap)
    if words[0] in HEART and words[-1] in BEATING and between:
        return ["heart racing", "palpitations", "heart palpitations"]
    part = state = None
    first, last = _part(words[0]), _state(words[-1])
    if first and last and between:
        part, state = first, last
    elif _state(words[0]) and words[1] in _IN and _part(words[-1]):
        middle = words[2:-1]
        if len(middle) <= 1 and all(w in _OWNER for w in middle):
            part, state = _part(words[-1]), _state(words[0])
    if part is None or state is None:
        return []
    forms = {
        "pain": [f"{part} pain", f"{part} ache"],
        "stiff": [f"stiff {part}", f"{part} stiffness"],
        "swollen": [f"swollen {part}", f"{part} swelling"],
    }[state]
    if part in JOINTS:
        forms += {
            "pain": ["joint pain", "joints ache", "aching joints"],
            "stiff": ["stiff joints", "joint stiffness"],
            "swollen": ["swollen joints", "joint swelling"],
        }[state]
    return forms


INJURIES = {
    # a blow to the head is a head injury ("hit my head", "bumped my head on the ground")
    "hit": "injury",
    "bumped": "injury",
    "banged": "injury",
    "knocked": "injury",
    "cut": "laceration",
    "gashed": "laceration",
    "sliced": "laceration",
    "burned": "burn",
    "burnt": "burn",
    "scalded": "burn",
}
"""Verbs a patient says an injury with, and the kind of injury the vocabularies name."""
_FACE = frozenset({"chin", "forehead", "cheek", "lip", "eyebrow", "nose"})
"""Parts of the face: a cut of one is a facial laceration ("a cut on my chin")."""
INJURED = PARTS | _FACE | {"thigh", "forearm", "scalp", "shin", "calf", "palm", "thumb"}
_INJURED_PLURALS = _PLURALS | {"thighs": "thigh", "forearms": "forearm", "lips": "lip",
                               "shins": "shin", "calves": "calf", "thumbs": "thumb"}  # fmt: skip
_LAY_PART = {"arm": "forearm", "leg": "thigh"}
"""The part a cut of a whole limb most often names ("I cut my arm": a forearm laceration),
tried after the part as said."""
_INJURY_GAP = frozenset({"on", "in", "a", "an"}) | _OWNER


def injury_forms(tokens: Span) -> list[str]:
    """The names an injury said as a verb and a part goes under, most specific first: "cut
    my thigh", "cut on my foot" -> "laceration of thigh", "thigh laceration"; "cut my face"
    also "facial laceration", "cut my arm" also "laceration of forearm"; "burned my hand",
    "scalded my arm" -> "burn of hand", "burn"; "hit my head", "bumped my head" -> "head
    injury" (a blow to another part names nothing); [] when the span is no such injury
    (an injury verb first, a part last, at most two of "my", "the", "on", "a" between)."""
    words = [t.lower_ for t in tokens]
    if len(words) < 2 or words[0] not in INJURIES:
        return []
    between = words[1:-1]
    part = _INJURED_PLURALS.get(words[-1], words[-1])
    if len(between) > 2 or not all(w in _INJURY_GAP for w in between) or part not in INJURED:
        return []
    if INJURIES[words[0]] == "burn":
        return [f"burn of {part}", f"{part} burn", "burn"]
    if INJURIES[words[0]] == "injury":
        return ["head injury"] if part == "head" else []
    forms = [f"laceration of {part}", f"{part} laceration"]
    if part == "face" or part in _FACE:
        forms.append("facial laceration")
    if part in _LAY_PART:
        forms.append(f"laceration of {_LAY_PART[part]}")
    return forms


TROUBLES = ("trouble", "problems", "problem", "issues", "issue")
"""Head words a patient uses alike for a part's disorder ("sinus problems", "sinus trouble",
"heart issues"): consumer vocabularies spell each name with one or two of them."""


def trouble_forms(tokens: Span) -> list[str]:
    """The other spellings of "<part> trouble" ("sinus problems" -> "sinus trouble",
    "sinus problem", ...), in ``TROUBLES`` order; [] unless the span is one or two words
    before such a head word."""
    words = [t.lower_ for t in tokens]
    if not 2 <= len(words) <= 3 or words[-1] not in TROUBLES:
        return []
    stem = " ".join(words[:-1])
    return [f"{stem} {head}" for head in TROUBLES if head != words[-1]]
