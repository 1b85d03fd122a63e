"""The fallback keys of linking (qualifier, salt, stereo, Greek, inverted, letter-plural,
locant, role, spacing and spelling forms), each on its own and through a real linker
(scispaCy TF-IDF, nmslib HNSW, SQLite store) over a small hand-made knowledge base; and the
substitutions that must never fire."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kgverify.extract.relation import Predicate
from kgverify.link.index import IndexSettings, LinkerIndex, build_index
from kgverify.link.kb import KbEntry
from kgverify.link.linker import SWITCHABLE, Linker, LinkParams, MentionQuery
from kgverify.link.model import LinkStatus, Method
from kgverify.link.normalize import (
    VARIANTS,
    compact_key,
    greek_keys,
    inverted_keys,
    letter_plural_keys,
    locant_keys,
    normalized_key,
    qualifier_keys,
    role_keys,
    salt_keys,
    singular,
    spelling_key,
    stereo_keys,
)
from kgverify.link.slots import slot_kinds

SETTINGS = IndexSettings(min_df=1, m=16, ef_construction=100, ef_search=100, threads=1)
PARAMS = LinkParams(threshold=0.8, margin=0.05, k=30)
DRUG = slot_kinds(Predicate.TREATS, "subject")
CONDITION = slot_kinds(Predicate.TREATS, "object")
ALPHA, BETA = "\N{GREEK SMALL LETTER ALPHA}", "\N{GREEK SMALL LETTER BETA}"


def entry(cid: str, name: str, *names: str, kinds: str = "disorder") -> KbEntry:
    return KbEntry(id=cid, vocab=cid.split(":")[0], name=name, names=list(names), kinds=[kinds])


ENTRIES = [
    entry("CHEBI:1", "saccharin", kinds="substance"),
    entry("CHEBI:2", "dequalinium", kinds="substance"),
    entry("CHEBI:3", "dequalinium dichloride", kinds="substance"),  # the salt is a concept
    entry("CHEBI:4", "metformin", kinds="substance"),
    entry("CHEBI:5", "ibuprofen", kinds="substance"),
    entry("CHEBI:6", "sodium", kinds="substance"),
    entry("CHEBI:7", "chlorine", kinds="substance"),
    entry("CHEBI:8", "cortisone", kinds="substance"),
    entry("MONDO:1", "hemophilia A"),
    entry("MONDO:2", "hemophilia B"),
    entry("MONDO:3", "beta thalassemia"),
    entry("MONDO:4", "acute myeloid leukemia"),
    entry("MONDO:5", "hypokalemia"),
    entry("MONDO:6", "arthrosis"),
    entry("MONDO:7", "measles"),
    entry("MONDO:8", "rabies"),
    entry("UMLS:C1", "beta blocker", kinds="substance"),
    entry("CHEBI:9", "2-bromophenol", kinds="substance"),
    entry("CHEBI:10", "N-methylaniline", kinds="substance"),
    entry("CHEBI:11", "antitussive", kinds="substance"),
    entry("CHEBI:12", "antitubercular agent", kinds="substance"),
    entry("CHEBI:13", "beta-adrenergic agonist", kinds="substance"),
    entry("CHEBI:14", "4-nitroaniline", kinds="substance"),
    entry("UBERON:1", "central nervous system", kinds="anatomy"),
    entry("CHEBI:15", "4-dimethylaminophenol", kinds="substance"),
    entry("CHEBI:16", "12-dichloroethane", kinds="substance"),  # not 1,2-dichloroethane
    entry("CHEBI:17", "cyclofenil", kinds="substance"),
    entry("CHEBI:18", "piracetam", kinds="substance"),
    entry("MONDO:9", "FID syndrome"),  # an acronym of other letters than "PHID"
    entry("MONDO:10", "hydronephrosis"),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LinkerIndex]:
    directory = tmp_path_factory.mktemp("index") / "idx"
    build_index(ENTRIES, directory, SETTINGS, key="test", source={"label": "hand-made"})
    opened = LinkerIndex(directory, ef_search=100, threads=1)
    yield opened
    opened.close()


def link(index: LinkerIndex, text: str, *disabled: str, **kw: Any) -> Any:
    linker = Linker(index, PARAMS.model_copy(update={"disabled": frozenset(disabled)}))
    [found] = linker.link([MentionQuery(text, **kw)])
    return found


# -- each key on its own --------------------------------------------------------------------


def test_qualifier_keys_drop_the_vocabularies_tags_and_nothing_else() -> None:
    for text, key in [
        ("ventricular fibrillation (disease)", "ventricular fibrillation"),
        ("Gastric ulcer (disorder)", "gastric ulcer"),
        ("Dysgammaglobulinemia (finding)", "dysgammaglobulinemia"),
        ("nodular melanoma (Morphologic Abnormality)", "nodular melanoma"),
        ("giant cell tumour of bone NOS (morphologic abnormality)", "giant cell tumor bone"),
        (
            "malignant peripheral nerve sheath tumor [dup] (morphologic abnormality)",
            "malignant peripheral nerve sheath tumor",
        ),
        ("Wagner disease (formerly)", "wagner disease"),
    ]:
        assert qualifier_keys(text) == [key], text
    # Tags that make the name a kind of something, brackets that are part of the name, and a
    # tag with no name before it give no key.
    for text in [
        "mixed spasmodic dysphonia (type)",
        "papillary renal cell carcinoma, familial - (subtype)",
        "clear cell ependymoma (histologic variant)",
        "carvone, (+--)-",
        "Hepatitis (A)",
        "disease",
        "(disorder)",
        "ventricular fibrillation",
    ]:
        assert qualifier_keys(text) == [], text


def test_salt_keys_strip_counter_ions_esters_and_hydrates() -> None:
    assert salt_keys("saccharin sodium") == ["saccharin"]
    assert salt_keys("Dequalinium Dichloride") == ["dequalinium"]
    assert salt_keys("dichloride, dequalinium") == ["dequalinium"]  # inverted, then stripped
    assert salt_keys("metformin hydrochloride") == ["metformin"]
    assert salt_keys("cortisone acetate") == ["cortisone"]
    assert salt_keys("caffeine monohydrate") == ["caffeine"]
    assert salt_keys("Enalapril maleate") == ["enalapril"]


def test_salt_keys_leave_substances_made_only_of_ions_alone() -> None:
    assert salt_keys("sodium chloride") == []
    assert salt_keys("magnesium sulfate heptahydrate") == []
    assert salt_keys("methyl salicylate") == []  # not a form of "methyl"
    assert salt_keys("saccharin") == []  # nothing to strip: no extra key


def test_stereo_keys_drop_prefixes_only_before_a_hyphen() -> None:
    for text, key in [
        ("(S)-ibuprofen", "ibuprofen"),
        ("L-dopa", "dopa"),
        ("D-glucose", "glucose"),
        ("(+)-camphor", "camphor"),
        ("dl-alpha-tocopherol", "alpha tocopherol"),
        ("R-warfarin", "warfarin"),
    ]:
        assert stereo_keys(text) == [key], text
    assert stereo_keys("vitamin D") == [] and stereo_keys("hepatitis D") == []
    # a phrase is no chemical name: L- here is levo-transposition, a clinical descriptor
    assert stereo_keys("L-transposition of the great arteries") == []
    assert stereo_keys("D-transposition of the great arteries") == []
    assert stereo_keys("ibuprofen") == []


def test_stereo_keys_drop_mesh_isomer_descriptors_but_never_a_bare_letter() -> None:
    for text, key in [
        ("Ondansetron, (+,-)-Isomer", "ondansetron"),
        ("Etiracetam, S isomer", "etiracetam"),
        ("L-Isomer Alanine", "alanine"),
        ("Formoterol Fumarate, ((R*,R*)-(+-))-isomer", "formoterol fumarate"),
        ("nemonapride, (cis)-isomer", "nemonapride"),
        ("carvone, (+--)-", "carvone"),
        ("chrysanthemic acid, (+,-)", "chrysanthemic acid"),
        ("Ofloxacin, (S)-", "ofloxacin"),
        ("tetrachlorophenol (mixed isomers)", "tetrachlorophenol"),
    ]:
        assert stereo_keys(text) == [key], text
    # a letter after the comma is part of the name, and a comma inside brackets is no inversion
    assert stereo_keys("Hepatitis, D") == [] and stereo_keys("Vitamin, K") == []
    assert stereo_keys("Diabetes mellitus, type 2") == []
    assert stereo_keys("2-(+,-)-propanol") == []


def test_greek_keys_go_both_ways_and_keep_the_letter() -> None:
    assert greek_keys(f"{BETA}-blocker") == ["beta blocker"]
    assert greek_keys("alpha thalassemia") == [f"{ALPHA} thalassemia"]
    assert greek_keys(f"TNF-{ALPHA}") == ["tnf alpha"]
    assert greek_keys("mu opioid receptor") == []  # two-letter names stay words
    assert greek_keys("thalassemia") == []


def test_inverted_keys_undo_more_than_one_comma_but_not_lists() -> None:
    assert "acute myeloid leukemia" in inverted_keys("Leukemia, Myeloid, Acute")
    assert inverted_keys("Diabetes mellitus, type 2") == []  # normalized_key does this one
    assert normalized_key("Diabetes mellitus, type 2") == "type 2 diabetes mellitus"
    assert normalized_key("Arthritis, Rheumatoid") == "rheumatoid arthritis"
    assert inverted_keys("fever, cough, and rash") == []


def test_letter_plurals_and_words_that_only_look_plural() -> None:
    assert letter_plural_keys("Hemophilia As") == ["hemophilia a"]
    assert letter_plural_keys("hemophilia a") == []
    assert letter_plural_keys("as") == []
    for word in ("diabetes", "measles", "herpes", "rabies", "status", "virus", "scabies"):
        assert singular(word) == word and normalized_key(word) == word, word
    assert singular("stones") == "stone" and singular("arteries") == "artery"
    # "-ache" + s keeps its e; other -ches, -shes, -xes lose "es" (a patient's "headaches")
    assert normalized_key("headaches") == normalized_key("Headache") == "headache"
    assert singular("backaches") == "backache" and singular("branches") == "branch"
    assert singular("rashes") == "rash" and singular("boxes") == "box"


def test_locant_keys_read_ortho_meta_para_and_drop_the_normal_chain() -> None:
    assert locant_keys("o-bromophenol") == [normalized_key("2-bromophenol")]
    assert locant_keys("p-Cresol") == [normalized_key("4-cresol")]
    assert locant_keys("m-xylene") == [normalized_key("3-xylene")]
    assert locant_keys("n-Pentadecane") == ["pentadecane"]
    # capitals are substituent atoms (nitrogen, oxygen), not positions or chains
    # spelled out, in any case, and before a bracketed group
    assert locant_keys("Para-nitroaniline") == [normalized_key("4-nitroaniline")]
    assert locant_keys("ortho-Aminophenol") == [normalized_key("2-aminophenol")]
    assert locant_keys("p-(benzyloxy)phenol") == [normalized_key("4-(benzyloxy)phenol")]
    for text in ("N-methylaniline", "O-methylserine", "2-bromophenol", "co-trimoxazole"):
        assert locant_keys(text) == [], text
    # "para" inside a word is no locant
    assert locant_keys("paracetamol") == [] and locant_keys("metamizole") == []


def test_role_keys_swap_head_words_and_go_bare_only_for_an_adjective() -> None:
    assert role_keys("Agents, Antitussive") == [
        "antitussive drug",
        "antitussive medication",
        "antitussive",
    ]
    assert role_keys("Medication, Antidepressant")[-1] == "antidepressant"
    # a plural adjective is the role under each head
    assert role_keys("Antihypertensives") == [
        "antihypertensive agent",
        "antihypertensive drug",
        "antihypertensive medication",
    ]
    # a receptor ligand with and without "receptor"; a blocking drug is a blocker
    assert role_keys("Receptor Agonists, beta-Adrenergic") == [
        normalized_key("beta adrenergic agonist")
    ]
    assert role_keys("Antagonist, Bradykinin") == ["bradykinin receptor antagonist"]
    assert "calcium channel blocker" in role_keys("Calcium Channel Blocking Drug")
    # a body part or a substance never stands in for a drug class
    assert role_keys("Central Nervous System Agents") == [
        "central nervous system drug",
        "central nervous system medication",
    ]
    assert role_keys("aspirin") == [] and role_keys("agents") == []
    # the receptor itself gives no key
    assert role_keys("Receptor, Adrenergic") == []


def test_no_key_turns_hyper_into_hypo_or_itis_into_osis() -> None:
    for text in ("hyperkalemia", "arthritis", "hyperkalemia sodium", "L-hyperkalemia"):
        keys = [k for make in VARIANTS.values() for k in make(text)]
        assert not any("hypo" in k or "osis" in k for k in keys), (text, keys)


# -- through the linker ---------------------------------------------------------------------


def test_a_salt_links_to_its_parent(index: LinkerIndex) -> None:
    found = link(index, "saccharin sodium", allowed=DRUG)
    assert (found.status, found.concept_id, found.method) == (
        LinkStatus.LINKED,
        "CHEBI:1",
        Method.VARIANT,
    )
    assert found.candidates[0].alias == "saccharin"


def test_a_salt_that_is_its_own_concept_links_to_itself(index: LinkerIndex) -> None:
    for text in ("dequalinium dichloride", "dichloride, dequalinium"):
        found = link(index, text, allowed=DRUG)
        assert found.concept_id == "CHEBI:3", text
        assert found.method in (Method.EXACT, Method.NORMALIZED)


def test_substances_of_ions_are_not_stripped_to_an_ion(index: LinkerIndex) -> None:
    assert link(index, "sodium chloride", allowed=DRUG).concept_id != "CHEBI:6"


def test_each_fallback_stage_links_its_case_and_can_be_switched_off(index: LinkerIndex) -> None:
    cases = {
        "qualifier": ("Hemophilia A (disorder)", "MONDO:1", CONDITION),
        "salt": ("saccharin sodium", "CHEBI:1", DRUG),
        "stereo": ("(S)-ibuprofen", "CHEBI:5", DRUG),
        "greek": (f"{BETA}-blocker", "UMLS:C1", DRUG),
        "inverted": ("Leukemia, Myeloid, Acute", "MONDO:4", CONDITION),
        "letter_plural": ("Hemophilia As", "MONDO:1", CONDITION),
        "classical_plural": ("Hydronephroses", "MONDO:10", CONDITION),
        "locant": ("o-bromophenol", "CHEBI:9", DRUG),
        "role": ("Agents, Antitussive", "CHEBI:11", DRUG),
        "spacing": ("4-(dimethylamino) phenol", "CHEBI:15", DRUG),
        "spelling": ("Cyclophenil", "CHEBI:17", DRUG),
    }
    assert set(cases) == set(VARIANTS) and set(VARIANTS) < set(SWITCHABLE)
    for stage, (text, gold, allowed) in cases.items():
        on = link(index, text, allowed=allowed)
        assert (on.status, on.concept_id) == (LinkStatus.LINKED, gold), stage
        off = link(index, text, stage, allowed=allowed)
        assert off.concept_id != gold or off.method is not Method.VARIANT, stage


def test_hyperkalemia_never_links_to_hypokalemia(index: LinkerIndex) -> None:
    for text, wrong in [("hyperkalemia", "MONDO:5"), ("arthritis", "MONDO:6")]:
        found = link(index, text, allowed=CONDITION)
        assert found.status is LinkStatus.UNLINKED, text
        assert found.concept_id != wrong


def test_disease_names_ending_in_s_link_as_they_are(index: LinkerIndex) -> None:
    assert link(index, "Measles", allowed=CONDITION).concept_id == "MONDO:7"
    assert link(index, "rabies", allowed=CONDITION).concept_id == "MONDO:8"
    # "hemophilia" alone is neither hemophilia A nor B.
    assert link(index, "hemophilia", allowed=CONDITION).status is not LinkStatus.LINKED


def test_a_neighbour_with_a_part_turned_to_its_opposite_is_capped() -> None:
    from kgverify.link.scoring import contrary as _contrary

    for key, alias in [
        ("hyperkalemia", "hypokalemia"),
        ("arthritis", "arthrosis"),
        ("tachycardia", "bradycardia"),
        ("hepatoma", "hepatitis"),
    ]:
        assert _contrary(key, alias) and _contrary(alias, key), (key, alias)
    # The same word, a plural, or an unrelated name is not an opposite.
    for key, alias in [
        ("hyperkalemia", "hyperkalemias"),
        ("hypokalemia", "hypokalemia"),
        ("arthritis", "arthralgia"),
        ("hypertension", "hypotensive disorder"),
    ]:
        assert not _contrary(key, alias), (key, alias)


def test_a_role_links_under_the_other_head_and_never_to_a_body_part(index: LinkerIndex) -> None:
    found = link(index, "Drugs, Antitubercular", allowed=DRUG)
    assert (found.concept_id, found.method) == ("CHEBI:12", Method.VARIANT)
    assert link(index, "Receptor Agonists, beta-Adrenergic", allowed=DRUG).concept_id == "CHEBI:13"
    assert link(index, "para-nitroaniline", allowed=DRUG).concept_id == "CHEBI:14"
    # The role stage gives no bare key for it; TF-IDF still finds the body part by its
    # words (cosine 0.93 here), and a drug slot is what rules that out.
    assert link(index, "Central Nervous System Agents").method is not Method.VARIANT
    assert link(index, "Central Nervous System Agents", allowed=DRUG).concept_id != "UBERON:1"


def test_compact_keys_join_words_and_drop_brackets_but_keep_numbers_apart() -> None:
    assert compact_key("methane sulfinic acid") == compact_key("methanesulfinic acid")
    assert compact_key("4-(dimethylamino)phenol") == compact_key("4-dimethylaminophenol")
    assert compact_key("Beta Blockers") == compact_key("betablocker")
    # two numbers in a row are two numbers
    assert compact_key("1,2-dichloroethane") != compact_key("12-dichloroethane")
    # opposites stay opposites
    assert compact_key("hyper kalemia") != compact_key("hypokalemia")


def test_a_spacing_variant_never_joins_two_numbers(index: LinkerIndex) -> None:
    assert link(index, "1,2-dichloroethane", allowed=DRUG).method is not Method.VARIANT


def test_spelling_keys_read_one_sound_alike_in_long_words() -> None:
    for one, other in [
        ("Cyclophenil", "cyclofenil"),
        ("Pyracetam", "piracetam"),
        ("isophenphos", "isofenphos"),
        ("oestradiol", "estradiol"),
        ("Perenial allergic rhinitis", "perennial allergic rhinitis"),
    ]:
        assert spelling_key(one) == spelling_key(other), (one, other)


def test_spelling_keys_leave_short_words_acronyms_and_opposites_apart() -> None:
    assert spelling_key("factor K") != spelling_key("factor C")  # a letter is a name
    assert spelling_key("PHID syndrome") != spelling_key("FID syndrome")  # acronyms as written
    assert spelling_key("CDG IIs") != spelling_key("CDG Is")  # no doubled numeral made single
    assert spelling_key("hyperkalemia") != spelling_key("hypokalemia")
    assert spelling_key("butanoic acid") != spelling_key("butenoic acid")  # vowels are kept
    assert spelling_key("methane sulfinic acid") != spelling_key("methanesulfinic acid")


def test_a_respelled_drug_links_and_an_acronym_does_not(index: LinkerIndex) -> None:
    found = link(index, "Pyracetam", allowed=DRUG)
    assert (found.concept_id, found.method) == ("CHEBI:18", Method.VARIANT)
    assert found.candidates[0].alias == "piracetam"
    # In this tiny KB the 3-grams alone score "FID syndrome" 0.86; no spelling key joins them.
    assert link(index, "PHID syndrome", allowed=CONDITION).method is not Method.VARIANT
