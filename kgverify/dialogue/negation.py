"""The context of a mention as ConText reads it (Harkema et al., 2009): is it negated,
possible (hedged), hypothetical, historical, or someone else's (a relative's)? And is it
said to be over (cessation)? Cues are words and phrases of patient speech with a direction
and a scope, on the tokens of spaCy's blank English tokenizer (which splits "don't" into
"do" and "n't"); docs/dialogue.md, "How a turn is read", says why these are implemented
here and not taken from medspaCy or negspacy.

Scopes:

- a **denial** ("no", "not", "n't", "never", "without") reaches forward within its clause
  (eight tokens), unless the word it denies is about something else: a verb of how things
  act ("it doesn't mix with my verapamil", "I don't like aspirin") or a preposition after
  an unrelated word ("I don't take aspirin for my headaches": the headaches are not
  denied; "I didn't need it after the stroke"). Denials that agree ("I don't have no
  pain") stay one denial; a denial of a clause ("it's not that", "I don't think", "I
  can't say") turns the clause over, so "It's not that I don't take my Plavix" affirms
  Plavix. A past denial ("never", "didn't", "haven't", a denial with "ever": "I don't
  think I've ever had") is marked ``ever``: it denies the whole record, a present one ("I
  don't take") only what is active at the encounter;
- **cessation** before the mention ("stopped", "used to", "no longer", "done with"),
  carried off like a denial ("I don't take Aleve anymore because of the bleeding": not the
  bleeding), after it in its clause ("not anymore", "the cough is gone", "has all cleared
  up now"), or in the next clause when that clause is about it ("I had a rash, but it went
  away", "..., but I've already stopped it", "the nitro spray, but I stopped that one");
- a **hedge** ("maybe", "I think", "not sure") anywhere in the mention's clause, or opening
  its sentence;
- **hypothetical** ("if", "in case", "what if", "whether") forward within the sentence;
- **historical** ("years ago", "as a child", "in the past", "history of") in the clause;
- **family** (experiencer other than the patient): a relative before the mention in its
  sentence with no first-person word between ("My father had coronary artery disease";
  not "my mother says I have asthma"), or "in the family" after it in its clause ("no
  epilepsy in the family").

Clauses end at sentence punctuation, at contrastive words ("but", "although") and where a
new subject starts ("..., and I take aspirin")."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from spacy.tokens import Doc, Span

DENIAL = frozenset(
    {"no", "not", "n't", "never", "without", "denies", "deny", "denied", "none", "nor", "neither",
     "nobody"}
)  # fmt: skip
"""A cue that denies what follows in its clause."""

AVOIDING = frozenset(
    {("stay", "off"), ("stay", "away"), ("keep", "off"), ("keep", "away"), ("steer", "clear")}
)
"""Two-token cues that say the patient does not take it now ("I stay off Advil", "I stay away
from aspirin"): a present denial."""

_PAST_AUX = frozenset({"did", "have", "has", "had", "was", "were", "'ve"})
"""Before "n't"/"not", these make a denial past ("didn't", "haven't"): it reaches the whole
record, not only what is active now."""

CEASED = frozenset({"stopped", "quit", "anymore", "discontinued", "ceased"})
"""A cue that says something is over (a single token; "no longer", "used to", "any more"
are two-token cues below)."""

CEASED_PAIRS = frozenset(
    {("no", "longer"), ("used", "to"), ("any", "more"), ("no", "more"), ("done", "with")}
)

ENDED = frozenset(
    {"gone", "resolved", "healed", "disappeared", "cleared", "stopped", "ended", "fixed"}
)
"""After a mention: it is over ("the rash cleared up", "it's gone"); not "better", which
says it is easing, not over."""
ENDED_PAIRS = frozenset(
    {("went", "away"), ("gone", "away"), ("is", "over"), ("'s", "over"), ("was", "over"),
     ("all", "better"), ("cleared", "up"), ("healed", "up")}
)  # fmt: skip
# What may stand between a mention and its ending ("the rash has all cleared up now").
_ENDED_GAP = frozenset(
    {"has", "have", "had", "is", "'s", "are", "was", "were", "'ve", "all", "now", "completely",
     "finally", "totally", "just", "since", "pretty", "much", "mostly", "it", "they", "that",
     "those", "these", "both", "then", "got", "get", "gotten", "kind", "of", "but", "and",
     ",", "though", "so", "luckily", "thankfully"}
)  # fmt: skip
# When the mention was, between it and its ending ("an ulcer in the fifties but it healed up
# long ago", "a rash back in 1990 that's all cleared up").
_WHEN = frozenset(
    {"in", "the", "back", "ago", "years", "long", "while", "a", "twenties", "thirties",
     "forties", "fifties", "sixties", "seventies", "eighties", "nineties"}
)  # fmt: skip
# After a one-word ending only these may follow ("the pain stopped." but not "I take
# aspirin, stopped ibuprofen", nor "my digoxin has gone up").
_ENDED_NEXT = frozenset(
    {"", ".", ",", "!", "?", ";", "now", "completely", "entirely", "already", "last", "a",
     "about", "after", "since", "by", "and", "but", "so", "though", "then"}
)  # fmt: skip

HEDGES = frozenset(
    {"maybe", "perhaps", "possibly", "probably", "might", "may", "unsure", "guess", "suppose"}
)
HEDGE_PAIRS = frozenset(
    {("i", "think"), ("not", "sure"), ("could", "be"), ("kind", "of"), ("sort", "of")}
)
HEDGE_PAIRS |= {("wonder", "if"), ("worried", "it"), ("afraid", "it"), ("n't", "know")}

HYPOTHETICAL = frozenset({"if", "whether", "unless"})
HYPOTHETICAL_PAIRS = frozenset({("in", "case"), ("what", "if")})

HISTORICAL = frozenset({"ago", "previously", "formerly", "childhood"})
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)  # fmt: skip  (not "may": "in may" is rarer than "it may")
HISTORICAL_PHRASES = frozenset(
    {("the", "past"), ("history", "of"), ("as", "a", "child"), ("as", "a", "kid"),
     ("as", "a", "girl"), ("as", "a", "boy"), ("as", "a", "baby"), ("as", "a", "teenager"),
     ("when", "i", "was"), ("years", "back"), ("long", "time"), ("while", "back"),
     ("last", "winter"), ("last", "spring"), ("last", "summer"), ("last", "fall"),
     ("last", "year"), ("in", "the", "spring"), ("in", "the", "summer"), ("in", "the", "fall"),
     ("in", "the", "winter")} | {("in", month) for month in _MONTHS}
)  # fmt: skip

FAMILY = frozenset(
    {"father", "mother", "dad", "mom", "mum", "daddy", "mommy", "brother", "sister", "son",
     "daughter", "grandmother", "grandfather", "grandma", "grandpa", "granddad", "aunt",
     "uncle", "cousin", "parents", "parent", "sibling", "siblings", "niece", "nephew",
     "husband", "wife", "grandparents", "relatives", "relative", "family", "twin",
     "granddaughter", "grandson", "grandchildren", "grandkids", "stepmother", "stepfather",
     "stepson", "stepdaughter"}
)  # fmt: skip
"""A relative (or spouse): what follows in the sentence is theirs, until the patient speaks
of themself again."""
_NOT_RELATIVE_AFTER = frozenset({"doctor", "physician", "practice", "medicine", "gp"})
""""my family doctor" is the patient's doctor, not a relative."""
_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself"})
_IN_FAMILY = frozenset({("in", "the", "family"), ("in", "my", "family"), ("in", "our", "family")})

# A denial of a clause ("it's not that ...", "I don't think ..."): it turns over what the
# clause says, denied or not.
_CLAUSE_DENIERS = frozenset({"say", "think", "believe", "mean"})
_CLAUSE_AFTER_NOT = frozenset({"that", "like", "as"})
# Verbs of how things act or what one likes: a denial of them denies no fact of the record
# ("these pills don't mix with my verapamil", "I don't want warfarin").
_RELATION_VERBS = frozenset(
    {"mix", "interact", "combine", "go", "work", "agree", "help", "matter", "like", "love",
     "mind", "want", "trust", "react", "respond", "bother", "know", "affect"}
)  # fmt: skip
# A preposition after a word other than these takes the denial off to another thing ("I
# don't take aspirin for my headaches"); after these it is part of the denied claim ("not
# allergic to penicillin", "never diagnosed with diabetes"); "account": "they stopped it on
# account of the bleeding".
_LINKS = frozenset(
    {"with", "to", "into", "for", "against", "about", "than", "because", "after", "before",
     "since", "during", "account"}
)  # fmt: skip
_LICENSING = frozenset(
    {"diagnosed", "allergic", "suffer", "suffers", "suffered", "suffering", "treated",
     "history", "sign", "signs", "symptoms", "come", "came", "put", "allergy", "allergies"}
)  # fmt: skip
_AUX = frozenset(
    {"do", "does", "did", "be", "been", "being", "am", "is", "are", "was", "were", "'m", "'re",
     "'s", "have", "has", "had", "'ve", "ever", "even", "really", "actually", "currently",
     "always", "usually", "yet", "at", "all", "any", "longer", "i", "you"}
)  # fmt: skip

# Before a denial, these make it a norm or a preference, not a fact ("I shouldn't be on
# anti-inflammatories", "I'd rather not take Aleve"): the mention is a supposition.
_NORMATIVE = frozenset({"should", "ought", "must", "shall", "rather"})
# After a past denial and its mention, "since" says the thing was so before ("I haven't had
# an ear infection since I was a girl"): a past affirmation, not a denial.
_SINCE = "since"
_SINCE_REACH = 3
# After a past denial and its mention, "in years", "for a long time" deny it now, not that
# it ever was ("I haven't had Celebrex in years").
_LAPSE_WORDS = frozenset({"years", "ages", "decades", "months", "while", "time"})
_LAPSE_BEFORE = frozenset(
    {"a", "the", "last", "past", "many", "several", "few", "couple", "of", "long", "good", "so"}
)
_PRONOUN_RELATIVES = frozenset({"she", "he"})

# "not sure" hedges, it does not deny; "no idea", "not only", "no problem" neither.
_NOT_DENIAL_AFTER = frozenset({"sure", "certain", "idea", "doubt", "only", "just", "matter"})

_ENDING_VERBS = frozenset({"healed", "heal", "resolved", "stopped", "stop", "ended", "improved"})
_ENDING_PARTICLES = {"went": "away", "go": "away", "goes": "away", "gone": "away",
                     "got": "better", "get": "better", "gets": "better", "cleared": "up",
                     "clear": "up"}  # fmt: skip
"""After a denial, an ending denied ("that never went away", "it hasn't cleared up", "it
never healed"): the condition goes on, and the denial says nothing of what follows."""
_ENDING_FILLERS = frozenset({"really", "fully", "completely", "totally", "quite", "ever"})

_SENTENCE_END = frozenset({".", "!", "?", ";"})
_CONTRAST = frozenset({"but", "however", "although", "though", "except", "yet", "whereas"})
_SUBORDINATE = frozenset({"because"})
"""A reason clause after the mention is its own: "I can't take Advil because of the bleeding
I had years back" says nothing historical of Advil."""
_SUBJECTS = frozenset({"i", "he", "she", "we", "they", "it", "my", "you"})
# "I've never had pneumonia, just bronchitis": "just", "only", "except" open what is had.
_OPENERS = _SUBJECTS | HEDGES | {"so", "then", "also", "just", "only", "except"}

WINDOW = 8
"""Tokens a denial or cessation cue before a mention reaches, at most."""


@dataclass(frozen=True)
class Cues:
    negated: bool = False
    ceased: bool = False
    hedged: bool = False
    hypothetical: bool = False
    historical: bool = False
    family: bool = False
    ever: bool = False  # the denial is past ("never", "didn't"): it reaches the whole record
    words: tuple[str, ...] = ()


def _lower(doc: Doc, i: int) -> str:
    """Token ``i`` lower-cased ("" outside the doc); a denial typed without its apostrophe
    ("dont", "didnt", "havent": spaCy splits off "nt", its norm "not") reads as "n't"."""
    if not 0 <= i < len(doc):
        return ""
    token = doc[i]
    return "n't" if token.lower_ == "nt" and token.norm_ == "not" else token.lower_


def _ends_sentence(doc: Doc, i: int) -> bool:
    """Sentence punctuation, or a token the tokenizer kept its full stop on ("38.5 C.")."""
    text = doc[i].text
    return text in _SENTENCE_END or (len(text) > 1 and text[-1] in ".!?" and text[-2] != ".")


def _breaks(doc: Doc, i: int) -> bool:
    """A comma or "and" that starts a new clause: a subject or a hedge follows."""
    return _lower(doc, i) in {",", "and"} and _lower(doc, i + 1) in _OPENERS


def clause_start(doc: Doc, at: int) -> int:
    """The first token of the clause holding token ``at``."""
    i = at - 1
    while i >= 0:
        word = _lower(doc, i)
        if _ends_sentence(doc, i) or word in _CONTRAST:
            return i + 1
        if _breaks(doc, i):
            return i + 1
        i -= 1
    return 0


_NOW = frozenset({"still", "now", "lately", "currently", "nowadays", "anymore"})


def said_of_now(doc: Doc, span: Span) -> bool:
    """Whether the mention's clause says it holds now ("The whiplash I got two years ago
    still gives me a stiff neck"): a symptom of a condition that is over, claimed."""
    start = clause_start(doc, span.start)
    return any(_lower(doc, i) in _NOW for i in range(start, clause_end(doc, span.start)))


def clause_end(doc: Doc, at: int) -> int:
    """One past the last token of the clause holding token ``at``."""
    i = at + 1
    while i < len(doc):
        word = _lower(doc, i)
        if _ends_sentence(doc, i):
            return i + (doc[i].text not in _SENTENCE_END)  # "C." ends it and belongs to it
        if word in _CONTRAST or word in _SUBORDINATE or _breaks(doc, i):
            return i
        i += 1
    return len(doc)


def sentence_bounds(doc: Doc, span: Span) -> tuple[int, int]:
    start = span.start
    while start > 0 and not _ends_sentence(doc, start - 1):
        start -= 1
    end = span.end
    while end < len(doc) and not _ends_sentence(doc, end):
        end += 1
    return start, min(len(doc), end + 1)


def _phrase_at(doc: Doc, i: int, phrases: Iterable[tuple[str, ...]]) -> str | None:
    for phrase in phrases:
        if all(_lower(doc, i + k) == w for k, w in enumerate(phrase)):
            return " ".join(phrase)
    return None


_QUESTION_AUX = frozenset(
    {"do", "does", "did", "is", "are", "was", "were", "have", "has", "had", "will", "wo",
     "would", "can", "ca", "could", "should", "shall"}
)  # fmt: skip
"""Auxiliaries that open a negative question ("Doesn't ...?", "Won't ...?", "Can't ...?")."""


def _negative_question(doc: Doc, cue: int) -> bool:
    """Whether the "n't"/"not" at ``cue`` follows an auxiliary that opens a question
    ("Doesn't that bother my ulcer?", "Isn't warfarin a blood thinner?"): it asks, it
    denies nothing."""
    aux = cue - 1
    if (
        aux < 0
        or _lower(doc, aux) not in _QUESTION_AUX
        or (aux > 0 and _lower(doc, aux - 1) not in _SENTENCE_END)
    ):
        return False
    end = next((k for k in range(cue, len(doc)) if _lower(doc, k) in _SENTENCE_END), None)
    return end is not None and _lower(doc, end) == "?"


def _denies(doc: Doc, cue: int, target: int) -> bool:
    """Whether the denial at ``cue`` is about the words at ``target``, not about a verb or
    a preposition's object in between."""
    head = cue + 1
    while head < target and _lower(doc, head) in _AUX | {"n't", "not"}:
        head += 1
    if head < target and _lower(doc, head) in _RELATION_VERBS:
        return False
    for k in range(cue + 1, target):
        if _lower(doc, k) in _LINKS and _lower(doc, k - 1) not in _LICENSING:
            return False
    return True


def _denies_an_ending(doc: Doc, i: int) -> bool:
    """Whether the denial at ``i`` denies an ending: "never went away", "didn't clear up",
    "hasn't really healed" (not "never got pneumonia": an ending verb needs its particle or
    is one of its own)."""
    k = i + 1
    while _lower(doc, k) in _ENDING_FILLERS | _AUX:
        k += 1
    verb = _lower(doc, k)
    if verb in _ENDING_PARTICLES:
        return _lower(doc, k + 1) == _ENDING_PARTICLES[verb]
    return verb in _ENDING_VERBS


def _denied_at(doc: Doc, i: int) -> bool:
    """Whether a denial stands right before token ``i`` (fillers between)."""
    k = i - 1
    while _lower(doc, k) in _ENDING_FILLERS | _AUX:
        k -= 1
    return _lower(doc, k) in DENIAL


def _clause_denier(doc: Doc, i: int) -> bool:
    """A denial of a clause: "it's not that ...", "not like ...", "I don't think ...",
    "I can't say ..."."""
    after = _lower(doc, i + 1)
    return after in _CLAUSE_DENIERS or (_lower(doc, i) == "not" and after in _CLAUSE_AFTER_NOT)


def _ended_after(doc: Doc, span: Span, *, denied: bool = False) -> str | None:
    """An ending said after the mention ("the rash has cleared up", "..., but it went
    away"), or the patient stopping it ("..., but I've already stopped it"), within its
    sentence; not when denied ("it never went away"). With ``denied``, only a denied one
    ("it's not that my epilepsy is gone")."""
    stop = sentence_bounds(doc, span)[1]
    i = span.end
    while i < stop:
        word = _lower(doc, i)
        if word in _STOPPED and _lower(doc, i + 1) in _PRONOUNS:
            said = any(_lower(doc, k) in DENIAL for k in range(clause_start(doc, i), i))
            return f"{word} {_lower(doc, i + 1)}" if said == denied else None
        pair = _phrase_at(doc, i, ENDED_PAIRS)
        if pair is not None or (word in ENDED and _lower(doc, i + 1) in _ENDED_NEXT):
            said = any(_lower(doc, k) in DENIAL for k in range(clause_start(doc, i), i))
            return (pair or word) if said == denied else None
        dated = word in _WHEN or doc[i].like_num  # "an ulcer in the fifties, but it healed"
        if word not in _ENDED_GAP | _STOPPING | _FORMS and word not in DENIAL and not dated:
            return None
        i += 1
    return None


_GOVERNING = frozenset({"for", "since", "after", "before", "during", "from"})
_DETERMINERS = frozenset({"my", "the", "his", "her", "their", "our", "a", "an", "this", "that"})


def _governed(doc: Doc, span: Span) -> bool:
    """Whether the mention is the object of a preposition of reason or time ("for my AFib",
    "since my stroke"), other than after a word that makes it the claim ("treated for",
    "diagnosed with")."""
    k = _head_before(doc, span.start)
    return _lower(doc, k) in _GOVERNING and _lower(doc, k - 1) not in _LICENSING


def _head_before(doc: Doc, i: int) -> int:
    """The token before the noun phrase that token ``i`` opens: its determiners ("my",
    "the") passed over, so "for my AFib" and "at my uncle's" give "for" and "at"."""
    k = i - 1
    while _lower(doc, k) in _DETERMINERS:
        k -= 1
    return k


_FORMS = frozenset(
    {"spray", "pill", "pills", "tablet", "tablets", "capsule", "capsules", "inhaler", "patch",
     "patches", "cream", "ointment", "drops", "shot", "shots", "injection", "injections"}
)  # fmt: skip
"""A drug's form said after its name ("the nitroglycerin spray, but I stopped that one"):
still the drug, between it and its ending."""
_STOPPED = frozenset({"stopped", "quit", "discontinued"})
_PRONOUNS = frozenset({"it", "that", "them", "those", "this"})
_STOPPING = frozenset({"i", "we", "'ve", "already", "they", "doctor", "the"})
"""Who stops it, between the mention and "stopped it" ("..., but I've already stopped
it", "..., but the doctor stopped it")."""


def _relative_in(doc: Doc, first: int, last: int) -> str | None:
    """The last relative named in tokens ``first`` to ``last`` (backwards), unless the
    patient speaks of themself after it."""
    for i in range(last, first - 1, -1):
        word = _lower(doc, i)
        # A relative's place ("at my uncle's farm and cut my leg"): where, not whose the
        # mention is; "my dad's hands were twisted with rheumatism" is the dad's.
        owned = _lower(doc, i + 1) in {"'s", "\u2019s"} and _placed(doc, i)
        if word in FAMILY and _lower(doc, i + 1) not in _NOT_RELATIVE_AFTER and not owned:
            return word
        if word in _FIRST_PERSON:
            return None
        if word in _REPORTING and _lower(doc, i + 1) in _THIS_ONE:
            return None  # "My son says it's probably whiplash": of the patient's complaint
    return None


_PLACE_BEFORE = frozenset(
    {"at", "in", "on", "to", "from", "near", "by", "into", "outside", "behind", "over"}
)


def _placed(doc: Doc, i: int) -> bool:
    """Whether the relative at ``i`` is named inside a place phrase ("at my uncle's")."""
    return _lower(doc, _head_before(doc, i)) in _PLACE_BEFORE


_REPORTING = frozenset(
    {"says", "said", "thinks", "thought", "reckons", "figures", "guesses", "believes", "swears"}
)
_THIS_ONE = frozenset({"it", "it's", "this", "that", "that's"})
"""What a relative is reported to say of ("my son says it's whiplash"): the patient's
complaint, not the relative's own illness."""


def _family(doc: Doc, span: Span) -> str | None:
    """The relative the mention is about, if it is about one: named before it in its
    sentence, or named in the sentence before when this one opens on "she" or "he" ("Like
    my mother? She had dementia.")."""
    first, _ = sentence_bounds(doc, span)
    relative = _relative_in(doc, first, span.start - 1)
    if relative is not None:
        return relative
    if any(_lower(doc, i) in _FIRST_PERSON for i in range(first, span.start)):
        return None
    if first > 0 and _lower(doc, first) in _PRONOUN_RELATIVES:
        before = sentence_bounds(doc, doc[first - 1 : first])[0]
        relative = _relative_in(doc, before, first - 1)
        if relative is not None:
            return relative
    for i in range(span.end, clause_end(doc, span.end - 1)):
        found = _phrase_at(doc, i, _IN_FAMILY)
        if found is not None:
            return found
    return None


def _since_after(doc: Doc, span: Span) -> bool | None:
    """Whether "since" comes within a few tokens after the mention, in its clause, opening
    a time ("since I was a girl": True); None for "since" said alone or as "since then"
    ("I never had a colonoscopy since"): the time since some earlier one, which says
    nothing of before."""
    end = min(span.end + _SINCE_REACH, clause_end(doc, span.end - 1))
    at = next((i for i in range(span.end, end) if _lower(doc, i) == _SINCE), None)
    if at is None:
        return False
    after = _lower(doc, at + 1)
    if at + 1 >= len(doc) or after in {"then", "that", ","} or _ends_sentence(doc, at + 1):
        return None
    return True


def _lapsed_after(doc: Doc, span: Span) -> str | None:
    """ "in years", "for a long time" just after the mention, in its clause: the words."""
    end = min(span.end + _SINCE_REACH, clause_end(doc, span.end - 1))
    for i in range(span.end, end):
        if _lower(doc, i) not in ("in", "for"):
            continue
        k = i + 1
        while k < len(doc) and k <= i + 3 and (_lower(doc, k) in _LAPSE_BEFORE or doc[k].like_num):
            k += 1
        if k < len(doc) and _lower(doc, k) in _LAPSE_WORDS:
            return doc[i : k + 1].text.lower()
    return None


_ADVICE = frozenset(
    {("should", "i"), ("shall", "i"), ("will", "i"), ("would", "i"), ("do", "i", "need"),
     ("do", "i", "have", "to"), ("will", "it"), ("would", "it"), ("will", "that"),
     ("will", "this"), ("am", "i", "going", "to"), ("is", "it", "going", "to"),
     ("can", "i", "take"), ("could", "i", "take"), ("can", "i", "try"),
     ("could", "i", "try"), ("can", "i", "use"), ("can", "i", "get"), ("could", "i", "get")}
)  # fmt: skip
_REQUEST = frozenset({("can", "i", "have"), ("could", "i", "have"), ("may", "i", "have")})
"""Asking for a drug or a procedure ("Can I have codeine instead?"); of a condition the same
words wonder ("Could I have diabetes?"), so they count only for what can be given."""
_ADVICE_OPENERS = frozenset({"and", "or", "so", "but", "then", "also", "now", "doctor", ","})
_HAS_IT = frozenset(
    {"my", "keep", "keeps", "still", "again", "continue", "stop", "back", "more", "another",
     "same", "refill", "last"}
)  # fmt: skip
"""Words that say the patient has or had it ("Should I stop my Fosamax?", "Will I need the
cast again?", "another spirometry test", "Can I have Cipro like last time?"): the question
then claims it. Read up to the end of the mention's phrase (``_ADVICE_TAIL_ENDS``):
"stitches, with my warfarin" claims the warfarin, not stitches."""
_ADVICE_TAIL_ENDS = frozenset({",", "with", "for", "because", "since", "and", "or", "if"})


def _in_a_year(doc: Doc, i: int) -> str | None:
    """ "in 1988", "in '88" at ``i``: a time of the past, said as a year."""
    if _lower(doc, i) != "in":
        return None
    year = _lower(doc, i + 1)
    if re.fullmatch(r"(?:18|19|20)\d\d", year):
        return f"in {year}"
    if year in {"'", "\u2019"} and re.fullmatch(r"\d\d", _lower(doc, i + 2)):
        return f"in '{_lower(doc, i + 2)}"
    return None


def _advice_words(
    doc: Doc, first: int, stop: int, *, request: bool = False
) -> tuple[int, tuple[str, ...] | None]:
    """Where the question opening at ``first`` starts after its openers, and its advice
    words (``_ADVICE``; with ``request``, ``_REQUEST`` too) if it opens on them before
    ``stop``."""
    k = first
    while k < stop and _lower(doc, k) in _ADVICE_OPENERS:
        k += 1
    asked = _ADVICE | _REQUEST if request else _ADVICE
    words = next((p for p in asked if tuple(_lower(doc, k + n) for n in range(len(p))) == p), None)
    return k, (words if words is not None and k + len(words) <= stop else None)


def _advice_asked(doc: Doc, span: Span, *, request: bool = False) -> str | None:
    """The words of a question about what is to come or what to do, opening the mention's
    sentence ("Will I need a pacemaker?", "Should I take calcium?", "Do I need an
    inhaler?", "Can I take Sudafed?"), or of the one before when this one only adds to it
    ("Will I need stitches? And a tetanus shot?"): advice asked for, nothing claimed of the
    record. None when the sentence is no such question, or says the patient has or had the
    thing (``_HAS_IT``)."""
    first, last = sentence_bounds(doc, span)
    if not doc[last - 1].text.endswith("?"):
        return None
    k, words = _advice_words(doc, first, span.start, request=request)
    if words is None:
        # The question after a clause of its own: "Since the appendicitis is gone now, can
        # I take Percocet for the pain?"
        for comma in (j for j in range(span.start - 1, first, -1) if _lower(doc, j) == ","):
            k, words = _advice_words(doc, comma + 1, span.start, request=request)
            if words is not None:
                break
    # An elliptical question ("Or a cast?"): no verb of its own before the mention, after
    # an advice question.
    elliptical = all(
        _lower(doc, j) in _ADVICE_OPENERS | _DETERMINERS for j in range(first, span.start)
    )
    if words is None and elliptical and _lower(doc, first) in {"and", "or"} and first > 0:
        before = sentence_bounds(doc, doc[first - 1 : first])[0]
        if _lower(doc, first - 1) == "?":
            _, words = _advice_words(doc, before, first - 1)
    if words is None:
        return None
    after = span.end
    while after < last and _lower(doc, after) not in _ADVICE_TAIL_ENDS:
        after += 1
    # "my" says it is had before the mention ("my Fosamax"), not in a phrase after it ("an
    # MRI of my neck").
    if any(_lower(doc, j) in _HAS_IT for j in range(k, span.start)) or any(
        _lower(doc, j) in _HAS_IT - {"my"} for j in range(span.end, after)
    ):
        return None
    return " ".join(words)


def cues(
    doc: Doc, span: Span, others: frozenset[int] = frozenset(), *, given: bool = False
) -> Cues:
    """The ConText cues that reach ``span``; a word of another mention (``others``, token
    indices) is no cue: "My heart stopped in '61, cardiac arrest at 15" ends nothing.
    ``given``: the mention is a thing a patient is given (a drug, a procedure), so "Can I
    have ...?" asks for it."""
    ceased = hedged = hypothetical = historical = ever = normative = False
    words: list[str] = []
    denials = 0  # denials of the mention's words ("I don't take ..."): any one denies
    aside = 0  # denials of a verb or an object in between ("I don't like ...")
    turned = 0  # denials of its clause ("it's not that ..."): each turns it over
    start = clause_start(doc, span.start)
    for i in range(max(start, span.start - WINDOW), span.start):
        word, after = _lower(doc, i), _lower(doc, i + 1)
        if i in others:
            continue
        if (word, after) in CEASED_PAIRS:
            # Carried off like a denial: "I used to take Tegretol for my seizures".
            if _denies(doc, i + 1, span.start):
                ceased = True
                words.append(f"{word} {after}")
        elif (word, after) in AVOIDING and _denies(doc, i + 1, span.start):
            denials += 1  # "I stay off Advil": a present denial
            words.append(f"{word} {after}")
        elif word in DENIAL and after not in _NOT_DENIAL_AFTER:
            if _lower(doc, i - 1) in {"no", "not", "n't"} or word == after:
                continue  # "not not" is read once, at its first word
            if word in {"n't", "not"} and _lower(doc, i - 1) in _NORMATIVE:
                if _denies(doc, i, span.start):
                    normative = True  # "I shouldn't be on ...": a norm, no fact denied
                    words.append(f"{_lower(doc, i - 1)} {word}")
                continue
            if _clause_denier(doc, i):
                continue  # counted below, over the whole clause
            if word in {"n't", "not"} and _negative_question(doc, i):
                continue  # "Doesn't that bother my ulcer?": a question
            if _denies_an_ending(doc, i):
                continue  # "sinusitis that never went away, and arthritis": it goes on
            if _denies(doc, i, span.start):
                denials += 1
                past = word in {"n't", "not"} and _lower(doc, i - 1) in _PAST_AUX
                ever |= word == "never" or past
                words.append(word)
            else:
                aside += 1  # a denial of a verb or a preposition's object in between
        elif word in CEASED and _denies(doc, i, span.start) and not _denied_at(doc, i):
            # not "I don't take Aleve anymore because of the bleeding", nor "I never
            # stopped the warfarin"
            ceased = True
            words.append(word)
    for i in range(start, span.start):
        if _lower(doc, i) in DENIAL and _clause_denier(doc, i):
            turned += 1
            words.append(f"{_lower(doc, i)} {_lower(doc, i + 1)}")
        elif _lower(doc, i) in {"n't", "not"} and _lower(doc, i + 1) in {"n't", "not"}:
            turned += 1  # "I don't not take it"
            words.append("not not")
    # A clause denial turns over a denial about something in between, not the mention:
    # "It's not that I don't like antibiotics" says nothing of taking them.
    negated = (denials > 0) != (turned % 2 == 1) and not (turned and aside and not denials)
    if negated and turned and not denials and _ended_after(doc, span, denied=True):
        # "It's not that my epilepsy is gone": the clause denies the ending; it goes on
        negated = False
        words.append("not gone")
    lapse = _lapsed_after(doc, span) if negated and ever else None
    since = _since_after(doc, span) if negated and ever else False
    if lapse is None and since is None:
        lapse = _SINCE  # "never had a colonoscopy since": not since then
    if lapse is not None:
        # "I haven't had Celebrex in years" denies it now, not that it ever was: a
        # present denial (a drug recorded decades ago agrees, a current one does not).
        ever = False
        words.append(lapse)
    elif since:
        # "I haven't had an ear infection since I was a girl": it was so, before.
        negated, historical = False, True
        words.append(_SINCE)
    # "ever" under a denial is past ("I don't think I've ever had a UTI", "not ever").
    ever |= negated and any(_lower(doc, k) == "ever" for k in range(start, span.start))
    # After the mention, within its clause: "aspirin? not anymore". Not for the object of
    # a preposition ("I don't need the digoxin for my AFib anymore", "since my stroke I'm
    # not on Plavix any more", "prednisone for my arthritis but stopped it"): the drug or
    # the verb before it is what stopped.
    governed = _governed(doc, span)
    for i in range(span.end, clause_end(doc, span.end - 1)):
        word, after = _lower(doc, i), _lower(doc, i + 1)
        if governed:
            break
        if word in {"anymore"} or (word, after) in {("any", "more"), ("no", "more")}:
            ceased = True
            words.append(word if word == "anymore" else f"{word} {after}")
    ended = _ended_after(doc, span)
    if ended is not None and not (governed and ended.split()[0] in _STOPPED):
        ceased = True
        words.append(ended)
    opening = sentence_bounds(doc, span)[0]
    # The mention's clause, and the sentence's first two words ("I think I have strep").
    scope = [*range(opening, min(opening + 2, span.start))]
    scope += range(start, clause_end(doc, span.end - 1))
    for i in dict.fromkeys(scope):
        if span.start <= i < span.end:
            continue
        word, after = _lower(doc, i), _lower(doc, i + 1)
        if word in HEDGES or (word, after) in HEDGE_PAIRS:
            hedged = True
            words.append(word if word in HEDGES else f"{word} {after}")
        phrase = _phrase_at(doc, i, HISTORICAL_PHRASES) or _in_a_year(doc, i)
        if word in HISTORICAL or phrase is not None:
            historical = True
            words.append(phrase or word)
    if historical and any(_lower(doc, k) == "still" for k in range(start, span.start)):
        # "the whiplash I got two years ago still gives me a stiff neck": now, not then
        historical = False
        words.append("still")
    for i in range(opening, span.start):
        word, after = _lower(doc, i), _lower(doc, i + 1)
        if word in _CONTRAST:  # "if it rains I stay in, but I take aspirin"
            hypothetical = False
        elif word in HYPOTHETICAL or (word, after) in HYPOTHETICAL_PAIRS:
            hypothetical = True
            words.append(word if word in HYPOTHETICAL else f"{word} {after}")
    hypothetical |= normative
    asked = _advice_asked(doc, span, request=given)
    if asked is not None and not hypothetical:
        hypothetical = True
        words.append(asked)
    relative = _family(doc, span)
    if relative is not None:
        words.append(relative)
    return Cues(
        negated=negated,
        ceased=ceased,
        hedged=hedged,
        hypothetical=hypothetical,
        historical=historical,
        family=relative is not None,
        ever=ever or historical,
        words=tuple(words),
    )
