"""String keys for the exact and normalized name stages of linking.

``exact_key`` is what the TF-IDF index and the exact stage store: accents folded,
case-folded, whitespace collapsed, surrounding punctuation dropped ("Hemophilia." =
"hemophilia", "Népafénac" = "nepafenac").

``normalized_key`` further undoes the vocabularies' inverted forms ("Diabetes mellitus,
type 2" = "type 2 diabetes mellitus", "Arthritis, Rheumatoid" = "rheumatoid arthritis"),
drops punctuation, possessives and a few stop words, reduces plurals and maps roman
numerals after words like "type" ("type II" = "type 2"). It keeps what tells concepts
apart: word order ("left to right shunt" is not "right to left shunt"), numbers with their
decimal point ("0.1" is not "1.0"), signs ("T-B+" is not "T-B-") and single letters
("hemophilia A" is not "hemophilia"). Both are pure functions of the string, so the index
and the linker always agree. ``bag_key`` (sorted words) serves a later, weaker stage, and
only for names in which order cannot matter.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from itertools import combinations

_SPACE = re.compile(r"\s+")
_EDGES = " \t.,;:!?\"'`"
_POSSESSIVE = re.compile(r"['\u2019]s\b")
# Words, decimal numbers, and signs that end a token ("T-B+", "HLA-B27-", "Rh+").
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+|(?<=\w)[+-](?=\W|$)|\+", re.UNICODE)
_STOP = frozenset({"of", "the", "and", "or", "with", "in", "on", "to", "by", "an", "nos"})
_ROMAN = {
    "i": "1",
    "ii": "2",
    "iii": "3",
    "iv": "4",
    "v": "5",
    "vi": "6",
    "vii": "7",
    "viii": "8",
    "ix": "9",
    "x": "10",
    "xi": "11",
    "xii": "12",
}
# Roman numerals are mapped only after these words: elsewhere "i" and "v" are letters.
_NUMBERED = frozenset({"type", "class", "grade", "stage", "complex", "factor", "phase", "group"})
# Word endings that look plural but are not (diabetes, virus, pelvis, analysis, ...).
_KEEP_S = ("ss", "us", "is", "ics", "ous", "itis", "sis", "xis", "betes", "pes")
# Singular words and disease names that end like plurals ("rabies" is not a "raby").
_NOT_PLURAL = frozenset(
    {
        "measles",
        "rabies",
        "scabies",
        "caries",
        "series",
        "species",
        "herpes",
        "diabetes",
        "mumps",
        "rickets",
        "shingles",
        "ascites",
        "feces",
        "faeces",
        "lues",
        "pubes",
        "hives",
        "tabes",
        "mores",
    }
)


def fold_accents(text: str) -> str:
    """The text without accents and with compatibility forms spelled plainly (NFKD, combining
    marks dropped): "népafénac" -> "nepafenac", "Ménière" -> "Meniere", the micro sign -> the
    Greek mu. Vocabularies and mentions write the same names both ways, and TF-IDF ignores
    the 3-grams of an accented word it has never seen, so a half-seen mention would be
    scored on its other words alone."""
    if text.isascii():  # nearly every name: no decomposition to do
        return text
    return "".join(
        ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch)
    )


@lru_cache(maxsize=1 << 17)
def exact_key(text: str) -> str:
    """Accents folded, case-folded text, runs of whitespace made one space, surrounding
    punctuation cut. Every other key starts from this one, so the index's names and the
    mentions are folded alike. Cached: a mention's key is asked for by several stages, and
    the re-ranker asks for each candidate concept's name key."""
    return _SPACE.sub(" ", fold_accents(text)).strip(_EDGES).casefold()


@lru_cache(maxsize=1 << 16)
def singular(word: str) -> str:
    """A conservative English singular: enough for vocabulary names, never a stemmer.
    Cached: a store's build asks for every word of every name, and words recur."""
    if not word.endswith("s") or len(word) <= 3 or not word.isalpha() or word in _NOT_PLURAL:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("aches"):  # headaches, backaches, earaches: "-ache" + s
        return word[:-1]
    if word.endswith(("ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(_KEEP_S):
        return word[:-1]
    return word


def _uninverted(text: str) -> str:
    """ "Head, modifier" -> "modifier head", the inverted form UMLS and MeSH names use;
    only for a single comma, so lists ("A, B, and C") stay as they are."""
    if text.count(",") == 1:
        head, modifier = (part.strip() for part in text.split(","))
        if head and modifier:
            return f"{modifier} {head}"
    return text


# British spellings of medical stems, as whole-stem rewrites (a general "ae" -> "e" would
# break "aerobic" and "aeruginosa"): MONDO, HPO and UMLS mix both ("anaemia", "oedema").
_SPELLING = (
    ("haem", "hem"),
    ("aemia", "emia"),
    ("aemic", "emic"),
    ("oedem", "edem"),
    ("oesophag", "esophag"),
    ("oestr", "estr"),
    ("foet", "fet"),
    ("coeliac", "celiac"),
    ("rrhoea", "rrhea"),
    ("pnoea", "pnea"),
    ("paed", "ped"),
    ("gynaec", "gynec"),
    ("anaesth", "anesth"),
    ("aetiol", "etiol"),
    ("caec", "cec"),
    ("tumour", "tumor"),
    ("colour", "color"),
    ("behaviour", "behavior"),
    ("humour", "humor"),
    ("aluminium", "aluminum"),
    ("caesium", "cesium"),
    ("sulph", "sulf"),
)


_BRITISH = re.compile("|".join(british for british, _ in _SPELLING))
_AMERICAN = dict(_SPELLING)


def american(text: str) -> str:
    """The American spelling of British medical stems ("anaemia" -> "anemia"), in one pass."""
    return _BRITISH.sub(lambda m: _AMERICAN[m.group()], text)


@lru_cache(maxsize=1 << 16)
def normalized_key(text: str) -> str:
    """Content words in order, uninverted, singular, American spelling, roman numerals mapped
    (may be empty). Cached: the linker asks for one mention's key in several stages."""
    words: list[str] = []
    for token in _TOKEN.findall(_POSSESSIVE.sub("", american(_uninverted(exact_key(text))))):
        if token in _STOP:
            continue
        if token in _ROMAN and words and words[-1] in _NUMBERED:
            words.append(_ROMAN[token])
            continue
        words.append(singular(token))
    return " ".join(words)


# Words whose order carries meaning ("left to right shunt", "alpha/beta ratio").
_ORDERED = frozenset(
    {
        "left",
        "right",
        "upper",
        "lower",
        "anterior",
        "posterior",
        "superior",
        "inferior",
        "proximal",
        "distal",
        "medial",
        "lateral",
        "alpha",
        "beta",
        "gamma",
        "delta",
        "from",
        "into",
        "pre",
        "post",
        "donor",
        "recipient",
        "maternal",
        "paternal",
    }
)


def bag_key(text: str) -> str:
    """The normalized words sorted, for word-order variants ("cancer of the esophagus" =
    "esophagus cancer"); empty when order could matter: numbers, signs, single letters or
    words of direction."""
    words = normalized_key(text).split()
    if any(w[0].isdigit() or len(w) == 1 or w in _ORDERED for w in words):
        return ""
    return " ".join(sorted(words))


_BRACKETS = re.compile(r"[()\[\]{}]")


def compact_key(text: str) -> str:
    """The normalized words run together, brackets dropped, for spacing and bracketing
    variants ("methane sulfinic acid" = "methanesulfinic acid", "4-(dimethylamino)phenol" =
    "4-dimethylaminophenol", "beta blocker" = "betablocker"). Two numbers in a row stay
    apart, so "1,2-dichloroethane" is not "12-dichloroethane". Looked up among the names'
    own compact keys (a store stage of its own), as the ``spacing`` fallback."""
    parts: list[str] = []
    for word in normalized_key(_BRACKETS.sub("", text)).split():
        if parts and parts[-1][-1].isdigit() and word[0].isdigit():
            parts.append(" ")
        parts.append(word)
    return "".join(parts)


def spacing_keys(text: str) -> list[str]:
    """``compact_key`` as a fallback key (see there)."""
    key = compact_key(text)
    return [key] if key else []


# Letters that spell one sound in the names of one substance across INN, BAN, older and
# other-language spellings: "cyclophenil" / "cyclofenil", "isophenphos" / "isofenphos",
# "pyracetam" / "piracetam", "oestradiol" / "estradiol", "kresol" / "cresol".
_RESPELLINGS = (("ph", "f"), ("th", "t"), ("y", "i"), ("ae", "e"), ("oe", "e"), ("k", "c"))
_DOUBLED = re.compile(r"([a-z])\1")
_ACRONYM = re.compile(r"\b([A-Z]{2,})s?\b")
MIN_RESPELLED = 5
"""Shorter words (and acronyms, numbers, single letters) keep their letters: in "PHID",
"factor K" or "AMML" the letters are the name."""


def spelling_key(text: str) -> str:
    """``normalized_key`` with the words of ``MIN_RESPELLED`` letters or more respelled: ph
    as f, th as t, y as i, ae and oe as e, k as c, doubled letters single ("perennial" =
    "perenial"). Acronyms in the text (two capitals or more) stay as they are. Spacing is
    left to ``compact_key``, so each stage is measured on its own. Looked up among the
    names' own spelling keys (a store stage of its own), as the ``spelling`` fallback."""
    acronyms = {form for a in _ACRONYM.findall(text) for form in (a.casefold(), f"{a.casefold()}s")}
    return " ".join(
        _respelled(word) if len(word) >= MIN_RESPELLED and word not in acronyms else word
        for word in normalized_key(text).split()
    )


@lru_cache(maxsize=1 << 16)
def _respelled(word: str) -> str:
    if not word.isalpha():
        return word
    for written, sound in _RESPELLINGS:
        word = word.replace(written, sound)
    return _DOUBLED.sub(r"\1", word)


def spelling_keys(text: str) -> list[str]:
    """``spelling_key`` as a fallback key (see there)."""
    key = spelling_key(text)
    return [key] if key else []


# Roman numerals of more than one letter read as numbers anywhere in ``discriminators``;
# "i", "v" and "x" only after a numbering word ("type I"), as in ``normalized_key``.
_ROMAN_NUMBER = {roman: number for roman, number in _ROMAN.items() if len(roman) > 1}
_LETTER_DIGITS = re.compile(r"^([a-z])(\d+)$|^(\d+)([a-z])$")


@lru_cache(maxsize=1 << 16)
def discriminators(text: str) -> tuple[str, ...]:
    """The parts of a name that tell numbered or lettered members of a family apart: numbers,
    roman numerals, single letters, and letter-number pairs split ("type 1A" -> 1, a;
    "B12" -> b, 12). Sorted, as a multiset, so "1,1-dichloro" and "1,2-dichloro" differ.
    Char 3-grams barely see them ("Stickler syndrome 2" is nearer "Stickler syndrome" than
    "Stickler syndrome type 2"; "factor VIII" / "factor VII" have cosine 0.9)."""
    found: list[str] = []
    previous = ""
    for word in re.findall(r"[^\W_]+", exact_key(text)):
        split = _LETTER_DIGITS.match(word)
        if split:
            found.extend(str(int(g)) if g.isdigit() else g for g in split.groups() if g)
        elif word.isdigit():
            found.append(str(int(word)))
        elif word in _ROMAN_NUMBER:
            found.append(_ROMAN_NUMBER[word])
        elif word in _ROMAN and previous in _NUMBERED:
            found.append(_ROMAN[word])
        elif len(word) == 1 and word.isalpha():
            found.append(word)
        previous = word
    return tuple(sorted(found))


# -- Fallback keys ------------------------------------------------------------------------
# Each function below gives keys in the normalized key space for a mention that no exact,
# normalized or reordered name matched. They are tried only then, so a salt, stereoisomer or
# inverted name that is its own concept in the vocabulary still links to itself first. Each
# is a named stage (``VARIANTS``) the linker can switch off, so the benchmark measures what
# each adds and breaks (docs/linking.md, "Fallback keys").

# What a vocabulary writes after a name to say which hierarchy or record it is in, not what
# it names: SNOMED CT's semantic tags ("Gastric ulcer (disorder)"), MONDO's "(disease)",
# "(formerly)" and "[dup]". Not "(type)", "(subtype)" or "(histologic variant)": those say
# the name is a kind of something, so the bare name is another concept.
QUALIFIERS = frozenset(
    {
        "disease",
        "disorder",
        "finding",
        "morphologic abnormality",
        "situation",
        "event",
        "procedure",
        "regime/therapy",
        "observable entity",
        "body structure",
        "substance",
        "product",
        "medicinal product",
        "medicinal product form",
        "clinical drug",
        "organism",
        "physical object",
        "qualifier value",
        "disposition",
        "formerly",
        "former name",
        "dup",
    }
)
_QUALIFIER = re.compile(
    r"\s*[(\[](?:" + "|".join(re.escape(q) for q in sorted(QUALIFIERS)) + r")[)\]]\s*$",
    re.IGNORECASE,
)


def qualifier_keys(text: str) -> list[str]:
    """The name without the vocabulary's trailing qualifiers: "ventricular fibrillation
    (disease)", "Gastric ulcer (disorder)", "malignant peripheral nerve sheath tumor [dup]
    (morphologic abnormality)" -> the name itself. Any other bracket stays ("hemophilia A
    (type)", "carvone, (+--)-")."""
    name = text.strip()
    stripped = name
    while match := _QUALIFIER.search(stripped):
        stripped = stripped[: match.start()]
    if stripped == name:
        return []
    key = normalized_key(stripped.rstrip(" -,;"))
    return [key] if key else []


# Counter-ions, ester groups and hydrate words that name a form of a parent substance
# ("saccharin sodium", "dequalinium dichloride", "metformin hydrochloride", "cortisone
# acetate", "... monohydrate"). A fixed list: anything not on it is kept.
SALT_WORDS = frozenset(
    {
        # anions and acid salts
        "hydrochloride",
        "hydrobromide",
        "hydroiodide",
        "chloride",
        "bromide",
        "iodide",
        "fluoride",
        "sulfate",
        "sulphate",
        "bisulfate",
        "hydrogensulfate",
        "nitrate",
        "phosphate",
        "acetate",
        "maleate",
        "fumarate",
        "tartrate",
        "bitartrate",
        "citrate",
        "succinate",
        "hemisuccinate",
        "mesylate",
        "mesilate",
        "besylate",
        "besilate",
        "tosylate",
        "lactate",
        "gluconate",
        "stearate",
        "palmitate",
        "propionate",
        "valerate",
        "butyrate",
        "benzoate",
        "oxalate",
        "malate",
        "pamoate",
        "napsylate",
        "embonate",
        "bicarbonate",
        "carbonate",
        "hydroxide",
        "decanoate",
        "enanthate",
        "cypionate",
        "furoate",
        # cations and bases
        "sodium",
        "potassium",
        "calcium",
        "magnesium",
        "lithium",
        "zinc",
        "ammonium",
        "meglumine",
        "tromethamine",
        "trometamol",
        # water of crystallization
        "hydrate",
        "anhydrous",
    }
)
# Counting prefixes of salt words: "dichloride", "disodium", "monohydrate", "sesquihydrate".
_SALT_WORD = re.compile(r"(?:mono|di|tri|tetra|penta|hexa|hepta|hemi|sesqui|bis)?(\w+)")
# Alkyl words of esters: "methyl salicylate" is not a form of "methyl".
_ALKYL = frozenset({"methyl", "ethyl", "propyl", "isopropyl", "butyl", "hydrogen", "acid"})


# Nucleosides and the vitamer whose phosphates are substances of their own, not salts:
# "adenosine triphosphate" (ATP) is not a form of adenosine, nor "pyridoxal phosphate" of
# pyridoxal. Matched as word endings, so "deoxyadenosine" counts too.
_PHOSPHATE_BEARERS = (
    "adenosine",
    "guanosine",
    "cytidine",
    "uridine",
    "thymidine",
    "inosine",
    "pyridoxal",
)
_PHOSPHATES = frozenset({"phosphate", "monophosphate", "diphosphate", "triphosphate"})
MAX_SALT_FORMS = 8
"""Salt forms a mention gives at most (its salt words taken off in every combination, fewest
first): more than three salt words in one name is a list, not a salt."""


def _is_salt_word(word: str) -> bool:
    match = _SALT_WORD.fullmatch(word)
    return word in SALT_WORDS or (match is not None and match.group(1) in SALT_WORDS)


def _salt_positions(words: list[str]) -> list[int]:
    """Where the salt words are, leaving out a phosphate word whose previous word (numbers
    skipped, as in "adenosine 5 triphosphate") is a nucleoside or pyridoxal."""
    found: list[int] = []
    before = ""
    for at, word in enumerate(words):
        if word in _PHOSPHATES and before.endswith(_PHOSPHATE_BEARERS):
            pass
        elif _is_salt_word(word):
            found.append(at)
        if not word[0].isdigit():
            before = word
    return found


def salt_keys(text: str) -> list[str]:
    """The forms of a salt, ester or hydrate with salt words taken off one at a time, the
    longest first: "mometasone furoate anhydrous" -> "mometasone furoate", then
    "mometasone"; "saccharin sodium" -> "saccharin", "dichloride, dequalinium" ->
    "dequalinium". The linker takes the first form that is a name (``FIRST_FOUND``), so a
    salt the vocabulary has is not stripped to its parent. Among forms of one length, the
    one keeping earlier words comes first (hydrate words come last). Nothing when only salt
    words would remain ("sodium chloride", "magnesium sulfate heptahydrate" are substances
    of their own) or only an alkyl word ("methyl salicylate"), and never a nucleotide's or
    pyridoxal's phosphate ("adenosine triphosphate" is ATP, not adenosine)."""
    words = normalized_key(text).split()
    salts = _salt_positions(words)
    if not salts or not any(w not in _ALKYL for at, w in enumerate(words) if at not in salts):
        return []
    forms: list[tuple[int, tuple[int, ...]]] = []
    for size in range(1, len(salts) + 1):
        for removed in combinations(salts, size):
            kept = tuple(at for at in range(len(words)) if at not in removed)
            forms.append((size, kept))
            if len(forms) >= MAX_SALT_FORMS:
                break
        if len(forms) >= MAX_SALT_FORMS:
            break
    return list(dict.fromkeys(" ".join(words[at] for at in kept) for _, kept in sorted(forms)))


# Stereo and optical-rotation prefixes at the start of a word: "(S)-", "(R,S)-", "L-", "D-",
# "dl-", "(+)-", "(-)-", "(±)-", "R-", "rac-".
_STEREO = re.compile(
    r"(?:(?<=^)|(?<=[\s,(]))(?:\((?:[+\-±]|\d*[rs](?:,\s*\d*[rs])*|[dl]{1,2})\)|dl|[dlrs]|[+±]|rac)-",
    re.IGNORECASE,
)


def stereo_keys(text: str) -> list[str]:
    """The name without stereo descriptors ("(S)-ibuprofen" -> "ibuprofen", "L-dopa" ->
    "dopa", MeSH's "Ondansetron, (+,-)-Isomer" and "S-isomer Etiracetam" -> the parent):
    a fallback only, since enantiomers are distinct concepts where the vocabulary lists
    them. Not for a name that reads as a phrase: in "L-transposition of the great
    arteries" the L is levo-, a clinical descriptor, and chemical names carry no "of",
    "the" or "with"."""
    folded = exact_key(text)
    if _STOP.intersection(folded.split()):
        return []
    stripped = _STEREO.sub("", _unisomered(folded))
    if stripped == folded:
        return []
    key = normalized_key(stripped)
    return [key] if key else []


# MeSH's isomer descriptors: "X, (S)-Isomer", "X, ((R*,R*)-(+-))-isomer", "L-Isomer X",
# "X (mixed isomers)", and a bare rotation after the last comma: "X, (+-)-", "X, (+,-)",
# "X, (R)-". A bare letter is never one ("Hepatitis, D" is hepatitis D).
_ISOMER_FIRST = re.compile(r"^\(?[dlrs+\-±,]+\)?[\s-]*isomers?\s+(?P<name>.+)$")
_ISOMER_WORD = re.compile(r"[\s-]*isomers?$")
_ROTATION = re.compile(r"^\s*(?:\(?[+\-±,]+\)?|\(\d*[rs](?:,\s*\d*[rs])*\))-?\s*$")
_MIXED = re.compile(r"\s*\(mixed isomers\)$")


def _unisomered(folded: str) -> str:
    """The name without a MeSH isomer descriptor (unchanged when it has none)."""
    if first := _ISOMER_FIRST.match(folded):
        return first.group("name")
    if mixed := _MIXED.search(folded):
        return folded[: mixed.start()]
    comma = _last_open_comma(folded)
    if comma < 0:
        return folded
    tail = folded[comma + 1 :]
    if _ISOMER_WORD.search(tail) or _ROTATION.match(tail):
        return folded[:comma]
    return folded


def _last_open_comma(text: str) -> int:
    """Where the last comma outside brackets is (-1: none)."""
    depth, found = 0, -1
    for at, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            found = at
    return found


_GREEK_NAMES = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau"
    " phi chi psi omega"
).split()
# Built from the Unicode names, so the source holds no letters that look like Latin ones.
# (Unicode spells lambda "LAMDA".)
GREEK = {
    unicodedata.lookup(f"GREEK SMALL LETTER {n.upper().replace('LAMBDA', 'LAMDA')}"): n
    for n in _GREEK_NAMES
}
_GREEK_SYMBOL = re.compile("|".join(GREEK))
_GREEK_WORD = re.compile(r"\b(" + "|".join(v for v in GREEK.values() if len(v) > 2) + r")\b")
_SYMBOL_OF = {word: symbol for symbol, word in GREEK.items()}


def _spelled(match: re.Match[str]) -> str:
    # A space only where the letter is glued to a word (alpha + "thalassemia"); TNF-alpha
    # written with the symbol stays one hyphenated name, "tnf alpha" after normalization.
    after = match.string[match.end() : match.end() + 1]
    return GREEK[match.group(0)] + (" " if after.isalnum() else "")


def greek_keys(text: str) -> list[str]:
    """Greek letters the other way round: the beta symbol + "-blocker" -> "beta blocker",
    "alpha thalassemia" -> the alpha symbol + " thalassemia" (names use both). The letter
    itself is kept, never dropped: "alpha" and "beta" forms are different concepts.
    Two-letter names (mu, nu, xi, pi) are only spelled out, never turned into symbols: they
    are words or abbreviations too."""
    folded = exact_key(text)
    keys: list[str] = []
    spelled = _GREEK_SYMBOL.sub(_spelled, folded)
    if spelled != folded:
        keys.append(normalized_key(spelled))
    symbols = _GREEK_WORD.sub(lambda m: _SYMBOL_OF[m.group(1)], folded)
    if symbols != folded:
        keys.append(normalized_key(symbols))
    return [k for k in dict.fromkeys(keys) if k]


def inverted_keys(text: str) -> list[str]:
    """Inverted forms with more than one comma or the head elsewhere: "Leukemia, Myeloid,
    Acute" -> "acute myeloid leukemia", and each comma tried as the point of inversion
    ("Carcinoma, squamous cell, of skin"). ``normalized_key`` already undoes the single
    comma. Lists ("A, B, and C") are left alone."""
    parts = [p.strip() for p in exact_key(text).split(",")]
    if len(parts) < 3 or not all(parts) or any(p.split()[0] in _LIST_WORDS for p in parts):
        return []
    keys = [normalized_key(" ".join(reversed(parts)))]
    for at in range(1, len(parts)):
        keys.append(normalized_key(" ".join(parts[at:] + parts[:at])))
    plain = normalized_key(text)
    return [k for k in dict.fromkeys(keys) if k and k != plain]


_LIST_WORDS = frozenset({"and", "or", "nor", "etc"})
# A letter with a plural s: "Hemophilia As" -> "hemophilia a", "von Willebrand disease
# type 2Bs"; "as", "is" and "us" are words elsewhere, so this is a fallback key only.
_LETTER_PLURAL = re.compile(r"^([a-z])s$")


def letter_plural_keys(text: str) -> list[str]:
    """Plurals of letter-suffixed names ("Hemophilia As" -> "hemophilia a"), which
    ``singular`` leaves alone (it never touches words of three letters or fewer)."""
    words = normalized_key(text).split()
    if len(words) < 2:
        return []
    changed = [words[0]] + [m.group(1) if (m := _LETTER_PLURAL.match(w)) else w for w in words[1:]]
    return [" ".join(changed)] if changed != words else []


# Latin and Greek plurals of medical words, as (plural ending, singular ending), tried in
# order: "hydronephroses" -> "hydronephrosis", "stomatitides" -> "stomatitis", "carcinomata"
# -> "carcinoma", "appendices" -> "appendix", "vertebrae" -> "vertebra", "fungi" -> "fungus",
# "diverticula" -> "diverticulum". Never applied by ``singular``: "doses", "bases",
# "kinases" and "diseases" are English plurals, and "anemia" is no plural at all, so these
# forms are only looked up, after the usual rule found nothing.
_CLASSICAL = (
    ("itides", ("itis",)),
    ("omata", ("oma",)),
    ("oses", ("osis",)),
    ("ases", ("asis",)),
    ("eses", ("esis",)),
    ("ides", ("is",)),
    ("ices", ("ix", "ex")),
    ("ae", ("a",)),
    ("i", ("us",)),
    ("a", ("um",)),
)
MIN_CLASSICAL = 4
"""Shorter words ("ova", "bi", "hi") keep their letters: too short to tell a plural."""
_WORDS = re.compile(r"[^\W\d_]+")


def _classical_singulars(word: str) -> tuple[str, ...]:
    if len(word) < MIN_CLASSICAL:
        return ()
    for plural, singulars in _CLASSICAL:
        if word.endswith(plural) and len(word) > len(plural) + 2:
            return tuple(word[: -len(plural)] + one for one in singulars)
    return ()


def classical_plural_keys(text: str) -> list[str]:
    """The name with a Latin or Greek plural made singular (``_CLASSICAL``):
    "Hydronephroses" -> "hydronephrosis", "Stomatitides" -> "stomatitis", "renal calculi"
    -> "renal calculus". Each plural word on its own, then all of them together (the first
    singular of each). A fallback only: ``normalized_key`` keeps the usual English rule
    ("hydronephroses" -> "hydronephrose"), and a classical form counts only when it is a
    name of the index."""
    folded = exact_key(text)
    words = [(m.start(), m.end(), _classical_singulars(m.group())) for m in _WORDS.finditer(folded)]
    changed = [(start, end, singulars) for start, end, singulars in words if singulars]

    def rewritten(replace: list[tuple[int, int, str]]) -> str:
        out, last = [], 0
        for start, end, word in replace:
            out += [folded[last:start], word]
            last = end
        return normalized_key("".join([*out, folded[last:]]))

    keys = [
        rewritten([(start, end, one)]) for start, end, singulars in changed for one in singulars
    ]
    if len(changed) > 1:
        keys.append(rewritten([(start, end, singulars[0]) for start, end, singulars in changed]))
    plain = normalized_key(text)
    return [k for k in dict.fromkeys(keys) if k and k != plain]


# The letters in lower case only (a capital "O-" or "N-" is a substituent atom); the words
# spelled out in any case ("Para-aminobenzoic acid"). Before a word or a bracketed group.
_LOCANT = re.compile(r"(?<![\w-])((?i:ortho|meta|para)|[omp])-(?=[A-Za-z]{3}|\()")
_NORMAL_CHAIN = re.compile(r"(?<![\w-])n-(?=[A-Za-z]{4})")
_LOCANT_NUMBER = {"o": "2", "m": "3", "p": "4", "ortho": "2", "meta": "3", "para": "4"}


def locant_keys(text: str) -> list[str]:
    """Ortho, meta and para as ring positions ("o-bromophenol" -> "2-bromophenol", "p-cresol"
    -> "4-cresol", "para-nitroaniline" -> "4-nitroaniline", "p-(benzyloxy)phenol" ->
    "4-(benzyloxy)phenol"), and the normal-chain prefix dropped ("n-pentadecane" ->
    "pentadecane"). Case matters for the letters: a capital "N-" is a nitrogen substituent
    ("N-methylaniline") and stays."""
    changed = _NORMAL_CHAIN.sub(
        "", _LOCANT.sub(lambda m: _LOCANT_NUMBER[m.group(1).lower()] + "-", text)
    )
    return [normalized_key(changed)] if changed != text else []


# Head words that name one role: "antiviral agent" / "antiviral drug" / "antiviral
# medication" (ChEBI lists "antiviral drug" as a synonym of "antiviral agent").
_ROLE_HEADS = ("agent", "drug", "medication")
# One word that reads as an adjective ("antitussive", "anticoagulant", "antifungal"): ChEBI
# names such roles bare, MeSH as plural nouns ("Antihypertensives"). "central nervous
# system" (from "... agents") is never made bare.
_ROLE_ADJECTIVE = re.compile(r"[a-z]{3,}(?:ive|ic|al|ar|ant|ent|ory|ary)")
# What a receptor ligand is named for: "beta-adrenergic receptor agonist" / "beta-adrenergic
# agonist" (MeSH keeps "receptor", ChEBI mostly not, and the other way round).
_LIGAND_ROLE = frozenset({"agonist", "antagonist", "blocker", "modulator", "ligand"})


def role_keys(text: str) -> list[str]:
    """A pharmacological role under its other head words, or bare: MeSH's "Agents,
    Antitubercular", "Antitussive Drugs" and "Medication, Antidepressant" against ChEBI's
    "antitubercular agent", "antitussive" and "antidepressant"; a single adjective with a
    head ("Antihypertensives" -> "antihypertensive agent"). The bare form only when one
    adjective remains, so a body part or a substance never stands in for a drug class.
    A receptor ligand's role with or without the word "receptor" ("Receptor Agonists,
    beta-Adrenergic" -> "beta adrenergic agonist", "Antagonist, Bradykinin" -> "bradykinin
    receptor antagonist"), and "X blocking agent" as "X blocker"; the receptor itself is
    never a key."""
    words = normalized_key(text).split()
    if len(words) == 1 and _ROLE_ADJECTIVE.fullmatch(words[0]):
        return [f"{words[0]} {head}" for head in _ROLE_HEADS]
    if len(words) < 2:
        return []
    keys = []
    if words[-1] in _LIGAND_ROLE:
        if "receptor" in words[:-1]:
            keys.append(" ".join(w for w in words if w != "receptor"))
        else:
            keys.append(" ".join([*words[:-1], "receptor", words[-1]]))
    heads = [at for at, word in enumerate(words) if word in _ROLE_HEADS]
    if len(heads) == 1:
        at = heads[0]
        before, after = words[:at], words[at + 1 :]
        keys.extend(" ".join([*before, h, *after]) for h in _ROLE_HEADS if h != words[at])
        rest = before + after
        if len(rest) == 1 and _ROLE_ADJECTIVE.fullmatch(rest[0]):
            keys.append(rest[0])
        if len(before) > 1 and before[-1] == "blocking" and not after:
            keys.append(" ".join([*before[:-1], "blocker"]))
    return keys


VARIANTS: dict[str, Callable[[str], list[str]]] = {
    "qualifier": qualifier_keys,
    "salt": salt_keys,
    "stereo": stereo_keys,
    "greek": greek_keys,
    "inverted": inverted_keys,
    "letter_plural": letter_plural_keys,
    "classical_plural": classical_plural_keys,
    "locant": locant_keys,
    "role": role_keys,
    "spacing": spacing_keys,
    "spelling": spelling_keys,
}
"""The fallback keys, by stage name, in the order the linker tries them. All are looked up
among the normalized names except those in ``OWN_KEYS``."""
FIRST_FOUND = frozenset({"salt"})
"""Fallback stages whose keys are alternatives, best first: only the first key that is a name
counts ("mometasone furoate anhydrous" links "mometasone furoate" where both it and
"mometasone" are names)."""
OWN_KEYS: dict[str, Callable[[str], str]] = {"spacing": compact_key, "spelling": spelling_key}
"""Fallback stages whose keys are looked up among the names' own keys of that function (a
store stage each), not among the normalized names."""
