"""Common conditions, symptoms and drugs that no sample patient has (issue 37, fourth pass).

A licensed UMLS load knows migraine, gout, Eliquis and Zoloft whether or not a cohort's
records do; the sample, cut to what Eunomia's records code, did not, so a patient's "I get
migraines" or "I take Eliquis" (an affirmed condition or drug the record lacks: the checker's
``unsupported``) went unfound. These concepts give the sample that breadth: UMLS concepts
with synthetic CUIs (``C99...``, after every earlier one), each with consumer-term atoms (SAB
``CHV``, TTY ``PT`` for the first term and ``SY`` for the others, one synthetic CHV code per
concept, after the earlier ones) and its semantic types in MRSTY. Their only relationships
are the symptoms sample conditions manifest (``MANIFESTATIONS``), so nothing here is
evidence for a treatment or an outcome, and derivation never offers them (its cohort fit
refuses a concept no patient has).

The list is a sweep of what primary-care patients commonly name (frequent chronic and acute
conditions, symptoms, cancers, habits, and the most prescribed and over-the-counter drugs
with their US brand names), written from general clinical knowledge, not copied from a CHV
or UMLS release. Left out on purpose: procedures, vaccines and tests (Eunomia records them
with codes the sample does not load, so a new concept for "stitches" or "flu shot" would call
a recorded one unsupported); words that are mostly plain English ("fit", "confused", "cold",
"MS", "ED", "the pill", bare "pain" and "calcium").

umls_waves.add_derivation calls ``add_common_concepts`` after the consumer terms and the
manifestations, so every earlier identifier stays as it was; make_readme.py calls
``readme_section``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kgverify.sample._generator import lay_terms

# (key, TUI, terms): the first term is the CHV preferred one. TUIs: T047 Disease or
# Syndrome, T048 Mental or Behavioral Dysfunction, T191 Neoplastic Process, T046 Pathologic
# Function, T037 Injury or Poisoning, T184 Sign or Symptom, T033 Finding, T121
# Pharmacologic Substance, T109 Organic Chemical, T127 Vitamin, T197 Inorganic Chemical.
CONDITIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("migraine", "T047", ("migraine", "migraines", "migraine headache", "migraine headaches")),
    ("gout", "T047", ("gout", "gouty arthritis")),
    ("kidney-stone", "T047", ("kidney stones", "kidney stone", "renal calculi", "nephrolithiasis")),
    ("pregnancy", "T033", ("pregnant", "pregnancy", "expecting a baby")),
    ("smoker", "T033", ("smoker", "smoking", "smoke", "smoked", "cigarettes", "tobacco use")),
    ("colon-cancer", "T191", ("colon cancer", "bowel cancer", "colorectal cancer")),
    ("stomach-cancer", "T191", ("stomach cancer", "gastric cancer")),
    ("breast-cancer", "T191", ("breast cancer",)),
    ("lung-cancer", "T191", ("lung cancer",)),
    ("prostate-cancer", "T191", ("prostate cancer",)),
    ("skin-cancer", "T191", ("skin cancer",)),
    ("melanoma", "T191", ("melanoma",)),
    ("brain-tumor", "T191", ("brain tumor", "brain tumour")),
    ("leukemia", "T191", ("leukemia", "leukaemia", "blood cancer")),
    ("lymphoma", "T191", ("lymphoma",)),
    ("cancer", "T191", ("cancer", "tumor", "tumour")),
    (
        "parkinson",
        "T047",
        ("Parkinson's disease", "Parkinson's", "Parkinsons", "Parkinson disease"),
    ),
    ("crohn", "T047", ("Crohn's disease", "Crohn's", "Crohns")),
    ("dvt", "T047", ("deep vein thrombosis", "DVT", "blood clot in my leg", "clot in my leg")),
    ("thrombus", "T046", ("blood clot", "blood clots")),
    ("pulmonary-embolism", "T047", ("pulmonary embolism", "blood clot in my lung")),
    ("mononucleosis", "T047", ("mononucleosis", "mono", "glandular fever", "kissing disease")),
    ("diverticulitis", "T047", ("diverticulitis",)),
    ("angina", "T184", ("angina", "angina pectoris")),
    ("tia", "T047", ("transient ischemic attack", "TIA", "mini stroke", "mini-stroke")),
    ("anaphylaxis", "T046", ("anaphylaxis", "anaphylactic shock", "anaphylactic reaction")),
    ("urticaria", "T047", ("hives", "urticaria")),
    ("lupus", "T047", ("lupus", "systemic lupus erythematosus")),
    ("hepatitis", "T047", ("hepatitis", "liver inflammation")),
    ("tinnitus", "T184", ("tinnitus", "ringing in my ears", "ringing in the ears")),
    ("thalassemia", "T047", ("thalassemia", "thalassaemia")),
    ("epistaxis", "T184", ("nosebleeds", "nosebleed", "nose bleeds", "nose bleed", "epistaxis")),
    ("numbness", "T184", ("numbness", "numb", "pins and needles", "tingling")),
    ("dizziness", "T184", ("dizziness", "dizzy", "lightheaded", "light-headed", "woozy")),
    ("vertigo", "T184", ("vertigo", "room spinning")),
    ("diarrhea", "T184", ("diarrhea", "diarrhoea", "loose stools")),
    ("constipation", "T184", ("constipation", "constipated")),
    ("muscle-cramp", "T184", ("muscle cramps", "leg cramps", "muscle cramp")),
    ("menorrhagia", "T047", ("heavy periods", "menorrhagia")),
    ("irregular-menses", "T047", ("irregular periods", "irregular menstruation")),
    ("spotting", "T184", ("spotting", "bleeding between periods")),
    (
        "intracranial-hemorrhage",
        "T046",
        ("brain bleed", "bleeding in the brain", "brain hemorrhage", "brain haemorrhage"),
    ),
    ("depression", "T048", ("depression", "depressed", "clinical depression")),
    ("anxiety", "T048", ("anxiety", "anxiety disorder", "panic attacks")),
    ("insomnia", "T184", ("insomnia", "trouble sleeping", "can't sleep")),
    ("glaucoma", "T047", ("glaucoma",)),
    ("cataract", "T047", ("cataracts", "cataract")),
    ("psoriasis", "T047", ("psoriasis",)),
    ("acne", "T047", ("acne",)),
    ("hyperthyroidism", "T047", ("hyperthyroidism", "overactive thyroid")),
    ("gerd", "T047", ("acid reflux", "reflux", "GERD", "gastroesophageal reflux")),
    ("heartburn", "T184", ("heartburn", "indigestion")),
    ("ibs", "T047", ("irritable bowel syndrome", "irritable bowel", "IBS")),
    ("hemorrhoids", "T047", ("hemorrhoids", "haemorrhoids", "piles")),
    ("hernia", "T047", ("hernia",)),
    ("bph", "T047", ("enlarged prostate", "BPH")),
    ("erectile-dysfunction", "T047", ("erectile dysfunction", "impotence")),
    ("incontinence", "T184", ("incontinence", "leaking urine", "bladder leakage")),
    ("cellulitis", "T047", ("cellulitis",)),
    ("shingles", "T047", ("shingles", "herpes zoster")),
    ("chickenpox", "T047", ("chickenpox", "chicken pox")),
    ("measles", "T047", ("measles",)),
    ("mumps", "T047", ("mumps",)),
    ("tuberculosis", "T047", ("tuberculosis", "TB")),
    ("hiv", "T047", ("HIV", "HIV infection")),
    ("sleep-apnea", "T047", ("sleep apnea", "sleep apnoea")),
    ("varicose-veins", "T047", ("varicose veins",)),
    ("multiple-sclerosis", "T047", ("multiple sclerosis",)),
    ("bipolar", "T048", ("bipolar disorder", "bipolar")),
    ("schizophrenia", "T048", ("schizophrenia",)),
    ("alcoholism", "T048", ("alcoholism", "alcohol dependence")),
    ("pancreatitis", "T047", ("pancreatitis",)),
    ("cirrhosis", "T047", ("cirrhosis", "liver cirrhosis")),
    ("celiac", "T047", ("celiac disease", "coeliac disease", "celiac")),
    ("scoliosis", "T047", ("scoliosis",)),
    ("carpal-tunnel", "T047", ("carpal tunnel syndrome", "carpal tunnel")),
    ("sciatica", "T184", ("sciatica",)),
    ("fibromyalgia", "T047", ("fibromyalgia",)),
    ("back-pain", "T184", ("back pain", "bad back", "backache", "sore back", "lower back pain")),
    ("rash", "T184", ("rash", "skin rash")),
    ("weight-gain", "T033", ("weight gain", "gained weight", "gain weight", "putting on weight")),
    ("obesity", "T047", ("obesity", "obese", "overweight")),
    ("dehydration", "T047", ("dehydration", "dehydrated")),
    ("hypoglycemia", "T047", ("low blood sugar", "hypoglycemia", "hypoglycaemia")),
    ("tonsillitis", "T047", ("tonsillitis",)),
    ("conjunctivitis", "T047", ("pink eye", "conjunctivitis")),
    ("common-cold", "T047", ("common cold", "head cold")),
    ("heart-murmur", "T033", ("heart murmur",)),
    ("penicillin-allergy", "T046", ("allergic to penicillin", "penicillin allergy")),
    ("sulfa-allergy", "T046", ("allergic to sulfa", "sulfa allergy")),
    ("rheumatism", "T047", ("rheumatism",)),
    ("dysarthria", "T184", ("slurred speech", "speech was slurred", "slurring my words")),
    ("facial-droop", "T184", ("facial droop", "face drooping", "face was drooping")),
    ("sputum", "T184", ("phlegm", "coughing up phlegm", "sputum", "mucus")),
    ("pallor", "T184", ("pale", "pallor", "looking pale")),
    ("blister", "T184", ("blisters", "blister", "blistered")),
    ("facial-pain", "T184", ("facial pain", "face hurts", "face pain")),
)

DRUGS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("ciprofloxacin", "T121", ("ciprofloxacin", "Cipro")),
    ("apixaban", "T121", ("apixaban", "Eliquis")),
    ("rivaroxaban", "T121", ("rivaroxaban", "Xarelto")),
    ("dabigatran", "T121", ("dabigatran", "Pradaxa")),
    ("famotidine", "T121", ("famotidine", "Pepcid")),
    ("ranitidine", "T121", ("ranitidine", "Zantac")),
    ("pantoprazole", "T121", ("pantoprazole", "Protonix")),
    ("esomeprazole", "T121", ("esomeprazole", "Nexium")),
    ("calcium-carbonate", "T197", ("calcium carbonate", "Tums", "Rolaids")),
    ("bismuth-subsalicylate", "T121", ("bismuth subsalicylate", "Pepto-Bismol", "Pepto")),
    ("loperamide", "T121", ("loperamide", "Imodium")),
    ("vitamin-d", "T127", ("vitamin D", "vitamin D3", "cholecalciferol")),
    ("multivitamin", "T127", ("multivitamin", "multivitamins", "multi-vitamin")),
    ("fish-oil", "T121", ("fish oil", "omega-3")),
    ("codeine", "T121", ("codeine",)),
    ("tramadol", "T121", ("tramadol", "Ultram")),
    ("gabapentin", "T121", ("gabapentin", "Neurontin")),
    ("sertraline", "T121", ("sertraline", "Zoloft")),
    ("fluoxetine", "T121", ("fluoxetine", "Prozac")),
    ("citalopram", "T121", ("citalopram", "Celexa")),
    ("escitalopram", "T121", ("escitalopram", "Lexapro")),
    ("bupropion", "T121", ("bupropion", "Wellbutrin")),
    ("trazodone", "T121", ("trazodone",)),
    ("zolpidem", "T121", ("zolpidem", "Ambien")),
    ("alprazolam", "T121", ("alprazolam", "Xanax")),
    ("clonazepam", "T121", ("clonazepam", "Klonopin")),
    ("losartan", "T121", ("losartan", "Cozaar")),
    ("atenolol", "T121", ("atenolol", "Tenormin")),
    ("rosuvastatin", "T121", ("rosuvastatin", "Crestor")),
    ("pravastatin", "T121", ("pravastatin", "Pravachol")),
    ("montelukast", "T121", ("montelukast", "Singulair")),
    ("allopurinol", "T121", ("allopurinol", "Zyloprim")),
    ("colchicine", "T121", ("colchicine",)),
    ("tamsulosin", "T121", ("tamsulosin", "Flomax")),
    ("finasteride", "T121", ("finasteride", "Proscar", "Propecia")),
    ("sildenafil", "T121", ("sildenafil", "Viagra")),
    ("sumatriptan", "T121", ("sumatriptan", "Imitrex")),
    ("levetiracetam", "T121", ("levetiracetam", "Keppra")),
    ("phenytoin", "T121", ("phenytoin", "Dilantin")),
    ("valproate", "T121", ("valproic acid", "valproate", "Depakote")),
    ("lamotrigine", "T121", ("lamotrigine", "Lamictal")),
    ("glipizide", "T121", ("glipizide", "Glucotrol")),
    ("sitagliptin", "T121", ("sitagliptin", "Januvia")),
    ("spironolactone", "T121", ("spironolactone", "Aldactone")),
    ("mesalamine", "T121", ("mesalamine", "mesalazine", "Asacol", "Lialda")),
    ("cyclobenzaprine", "T121", ("cyclobenzaprine", "Flexeril")),
    ("nicotine", "T121", ("nicotine patch", "nicotine gum", "nicotine")),
    ("melatonin", "T121", ("melatonin",)),
    (
        "sulfamethoxazole-trimethoprim",
        "T121",
        ("sulfamethoxazole-trimethoprim", "Bactrim", "Septra", "sulfa drugs", "sulfa"),
    ),
    ("cephalexin", "T121", ("cephalexin", "Keflex")),
    ("clarithromycin", "T121", ("clarithromycin", "Biaxin")),
    ("metronidazole", "T121", ("metronidazole", "Flagyl")),
    ("fluconazole", "T121", ("fluconazole", "Diflucan")),
    ("valacyclovir", "T121", ("valacyclovir", "Valtrex")),
    ("acyclovir", "T121", ("acyclovir", "Zovirax")),
    ("oseltamivir", "T121", ("oseltamivir", "Tamiflu")),
)

MANIFESTATIONS: dict[str, tuple[str, ...]] = {
    # sample condition (SNOMED CT key) -> the symptoms above it presents with (keys above)
    "271737000": ("dizziness", "pallor"),  # anemia
    "49436004": ("dizziness",),  # atrial fibrillation
    "698247007": ("dizziness",),  # cardiac arrhythmia
    "230690007": ("dizziness", "numbness", "dysarthria", "facial-droop"),  # stroke
    "110030002": ("dizziness",),  # concussion
    "53741008": ("angina",),  # coronary arteriosclerosis
    "414545008": ("angina",),  # ischemic heart disease
    "40275004": ("rash",),  # contact dermatitis
    "24079001": ("rash",),  # atopic dermatitis
    "241929008": ("rash", "urticaria"),  # acute allergic reaction
    "13200003": ("heartburn",),  # peptic ulcer
    "24526004": ("diarrhea",),  # inflammatory bowel disease
    "64766004": ("diarrhea",),  # ulcerative colitis
    "397881000": ("constipation",),  # diverticular disease
    "40930008": ("constipation", "weight-gain"),  # hypothyroidism
    "32398004": ("sputum",),  # bronchitis
    "233604007": ("sputum",),  # pneumonia
    "13645005": ("sputum",),  # chronic obstructive lung disease
    "403191005": ("blister",),  # second degree burn
    "36971009": ("facial-pain",),  # sinusitis
}
"""What the sample's conditions manifest among these symptoms (SAB MTH, as lay_terms.py's
rows), so that a patient describing a symptom of the visit's condition reaches it instead of
an invented symptom; stated from the conditions' common presentations."""

MORE_MANIFESTATIONS: dict[str, tuple[str, ...]] = {
    # sample condition -> findings the sample already had (SNOMED CT keys), which it presents
    # with: an injury of or beside a joint its pain and swelling (as the sprains have)
    "263102004": ("57676002", "271771009"),  # fracture subluxation of wrist
    "16114001": ("57676002", "271771009"),  # fracture of ankle
    "359817006": ("57676002",),  # closed fracture of hip
    "239720000": ("57676002", "271771009"),  # tear of meniscus of knee
    "30832001": ("57676002", "271771009"),  # rupture of patellar tendon
    "444470001": ("57676002", "271771009"),  # injury of anterior cruciate ligament
    "307731004": ("57676002",),  # injury of tendon of the rotator cuff of shoulder
    "62106007": ("422400008",),  # concussion without loss of consciousness: vomiting
    "62564004": ("422400008",),  # concussion with loss of consciousness
    "110030002": ("422400008",),  # concussion injury of brain
    "127295002": ("25064002", "422400008", "386807006"),  # traumatic brain injury
    "16761005": ("COMMON:heartburn",),  # esophagitis
}
"""A second sweep over the sample's visit diagnoses that manifested nothing a patient says
of them, or not their usual complaint (a joint injury's pain and swelling, a head injury's
vomiting, esophagitis's heartburn); keys of the build's key -> CUI map."""

THIRD_MANIFESTATIONS: dict[str, tuple[str, ...]] = {
    # issue 37, fifth pass, after sets 4 and 5 were scored: complaints patients there gave of
    # these conditions that the sample did not tie to them (rows after every earlier one)
    "65275009": ("422400008",),  # acute cholecystitis: vomiting
    "235919008": ("422400008",),  # gallstone (biliary colic): vomiting
    "58150001": ("57676002", "267038008"),  # fracture of clavicle: shoulder pain, swelling
    "396275006": ("271771009",),  # osteoarthritis: joint swelling
    "49436004": ("84229001",),  # atrial fibrillation: fatigue
    "38822007": ("21522001",),  # cystitis: (lower) abdominal pain
    "301011002": ("21522001",),  # E. coli urinary tract infection: (lower) abdominal pain
    "110030002": ("111516008",),  # concussion injury of brain: blurred vision
    "64859006": ("COMMON:back-pain",),  # osteoporosis: back pain of vertebral fractures
    "230690007": ("25064002", "111516008"),  # stroke: sudden headache, blurred or lost vision
    # sprains and fractures of a limb: the swelling of the injured part (edema)
    "70704007": ("267038008",),  # sprain of wrist
    "44465007": ("267038008",),  # sprain of ankle
    "65966004": ("267038008",),  # fracture of forearm
    "263102004": ("267038008",),  # fracture subluxation of wrist
    "16114001": ("267038008",),  # fracture of ankle
    "444448004": ("267038008",),  # injury of medial collateral ligament of knee
    "444470001": ("267038008",),  # injury of anterior cruciate ligament
    "239720000": ("267038008",),  # tear of meniscus of knee
    "30832001": ("267038008",),  # rupture of patellar tendon
}
"""A third sweep: usual complaints of visit diagnoses, found missing on the fourth and fifth
sets (so those sets are no longer blind to them); keys of the build's key -> CUI map."""

SIXTH_MANIFESTATIONS: dict[str, tuple[str, ...]] = {
    # issue 37, sixth pass, after set 10 was scored: complaints patients there gave of these
    # visit diagnoses that the sample did not tie to them (rows after every earlier one)
    "10509002": ("267036007", "29857009", "386661006"),  # acute bronchitis: breathlessness,
    # chest tightness or discomfort, fever
    "284551006": ("50960005",),  # laceration of foot: bleeding
    "283371005": ("50960005",),  # laceration of forearm
    "284549007": ("50960005",),  # laceration of hand
    "283385000": ("50960005",),  # laceration of thigh
    "370247008": ("50960005",),  # facial laceration
    "33737001": ("29857009",),  # fracture of rib: chest pain (it hurts to breathe)
    "443165006": ("COMMON:back-pain",),  # pathological fracture due to osteoporosis
}
"""A fourth sweep, from the tenth evaluation set (no longer blind to it); keys of the build's
key -> CUI map."""

EXTRA_TERMS: dict[str, tuple[str, ...]] = {
    # sample concepts (SNOMED CT keys) -> more consumer terms for them
    "36971009": ("sinuses",),  # sinusitis
    "397881000": ("diverticulosis",),  # diverticular disease
    "74474003": ("GI bleed", "GI bleeding", "stomach bleed"),  # gastrointestinal hemorrhage
    "68496003": ("polyps", "polyp"),  # polyp of colon
    "64859006": ("weak bones",),  # osteoporosis
    "62564004": ("knocked unconscious", "knocked out"),  # concussion with loss of consciousness
    "422400008": ("threw up", "throw up"),  # vomiting
    "73211009": ("diabetic",),  # diabetes mellitus
    # dysuria as patients say it (added after the blind sets were scored)
    "49650001": ("burns when I pee", "burning when I pee", "hurts to pee", "stings when I pee"),
}
"""Consumer terms for concepts the sample already had, added after every other atom (their
LUIs and SUIs numbered last), each on the concept's CHV code where it has one."""

FIFTH_TERMS: dict[str, tuple[str, ...]] = {
    # issue 37, fifth pass (after sets 4 and 5 were scored), a sixth id wave
    "127295002": ("brain injury",),  # traumatic brain injury
}
"""Consumer terms of the fifth pass, on concepts that have a CHV code, numbered after every
other atom (``UmlsState.late5_aui0``)."""

SIXTH_TERMS: dict[str, tuple[str, ...]] = {
    # issue 37, sixth pass, after set 12 was scored: "chest congestion" is the phlegm in the
    # chest that bronchitis manifests, not a stuffy nose
    "COMMON:sputum": ("chest congestion",),
}
"""Consumer terms of the sixth pass, on concepts with a CHV code, numbered after every other
atom (``UmlsState.late6_aui0``)."""

SEVENTH_MANIFESTATIONS: dict[str, tuple[str, ...]] = {
    # issue 37, seventh pass, after sets 10 to 18 were scored: usual presentations those
    # sets' patients gave that the sample did not tie to their condition (rows after every
    # earlier one)
    "43878008": ("21522001",),  # streptococcal sore throat: abdominal pain (in children)
    "65966004": ("271771009",),  # fracture of forearm: joint swelling (the wrist)
    "424802006": ("74474003",),  # angiodysplasia of stomach: gastrointestinal hemorrhage
    "40275004": ("COMMON:blister",),  # contact dermatitis: blisters (vesicles)
    "13200003": ("422400008",),  # peptic ulcer: vomiting
}
"""A fifth sweep, from the tenth to eighteenth evaluation sets (no longer blind to them);
keys of the build's key -> CUI map."""

EIGHTH_MANIFESTATIONS: dict[str, tuple[str, ...]] = {
    # issue 37, eighth pass, after sets 19 and 20 were scored: usual presentations those
    # sets' patients gave that the sample did not tie to their condition (rows after every
    # earlier one)
    "36971009": ("49727002", "162397003"),  # sinusitis: cough, sore throat (post-nasal drip)
    "74474003": ("COMMON:dizziness",),  # gastrointestinal hemorrhage: light-headedness
    "65966004": ("57676002",),  # fracture of forearm: joint pain (the wrist)
}
"""A sixth sweep, from the nineteenth and twentieth evaluation sets (no longer blind to
them); keys of the build's key -> CUI map."""

MOVED_TERMS: dict[str, tuple[str, tuple[str, ...]]] = {
    # issue 37, eighth pass: "bone density test" and the scan's names had been put on the
    # DXA T-score (the LOINC result) before the sample had procedures; patients mean the
    # scan. Their atoms on the lab are suppressed (SUPPRESS=E, as editors retire a misplaced
    # string: the lines stay where they were) and the procedure carries them, after every
    # other atom. "bone density scan" is the procedure's own preferred name already.
    "LNC:38265-5": (
        "312681000",
        ("bone density scan", "DEXA", "DEXA scan", "DXA scan", "bone density test"),
    ),
}
"""Consumer terms moved from one sample concept to another: source key -> (target key,
terms)."""

SEVENTH_TERMS: dict[str, tuple[str, ...]] = {
    # issue 37, seventh pass: short forms and lay names patients and charts use for them
    "192127007": ("ADD",),  # child attention deficit disorder
    "396275006": ("DJD",),  # osteoarthritis (degenerative joint disease)
    "70704007": ("twisted wrist",),  # sprain of wrist (as "twisted ankle" is the ankle's)
    "13200003": ("PUD",),  # peptic ulcer disease
}
"""Consumer terms of the seventh pass, on concepts with a CHV code, numbered after every
other atom (``UmlsState.late7_aui0``)."""

KEY_PREFIX = "COMMON:"
"""Keys of these concepts in the build's key -> CUI map (``UmlsState.key2cui``)."""


LATER: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    # issue 37, fifth pass: what sets 4 to 7 showed patients naming that the sweep above
    # lacked, numbered after every other concept and atom (``UmlsState.late5_aui0``)
    ("bruising", "T184", ("bruise", "bruises", "bruising", "black and blue")),
    # a tendency, not an injury's bruise: its own concept, which no condition manifests
    (
        "easy-bruising",
        "T184",
        (
            "easy bruising",
            "bruise easily",
            "bruises easily",
            "bruised easily",
            "bruising easily",
            "bruise too easily",
            "bruising too easily",
        ),
    ),
    ("neck-pain", "T184", ("neck pain", "sore neck", "stiff neck", "neck stiffness")),
    ("muscle-aches", "T184", ("muscle aches", "muscle ache", "sore muscles", "myalgia")),
    ("sneezing", "T184", ("sneezing", "sneezes")),
    ("menstrual-cramps", "T184", ("period cramps", "menstrual cramps", "painful periods")),
    ("frozen-shoulder", "T047", ("frozen shoulder", "adhesive capsulitis")),
    ("h-pylori", "T047", ("H. pylori", "H pylori", "Helicobacter pylori")),
    ("pseudoephedrine", "T121", ("pseudoephedrine", "Sudafed")),
    ("cimetidine", "T121", ("cimetidine", "Tagamet")),
    ("isotretinoin", "T121", ("isotretinoin", "Accutane")),
    ("adalimumab", "T121", ("adalimumab", "Humira")),
    ("psyllium", "T121", ("psyllium", "Metamucil")),
    ("glucosamine", "T121", ("glucosamine",)),
    ("antacid", "T121", ("Maalox", "Mylanta")),
)
"""Concepts of the fifth pass (conditions and symptoms, then drugs), after every other."""

LATER_MANIFESTATIONS: dict[str, tuple[str, ...]] = {
    # the bruising of a fracture or sprain, the neck pain of whiplash, the sneezing of
    # allergic rhinitis (keys of the build's map; rows after every earlier one)
    "58150001": ("COMMON:bruising",),  # fracture of clavicle
    "33737001": ("COMMON:bruising",),  # fracture of rib
    "65966004": ("COMMON:bruising",),  # fracture of forearm
    "16114001": ("COMMON:bruising",),  # fracture of ankle
    "263102004": ("COMMON:bruising",),  # fracture subluxation of wrist
    "359817006": ("COMMON:bruising",),  # closed fracture of hip
    "44465007": ("COMMON:bruising",),  # sprain of ankle
    "70704007": ("COMMON:bruising",),  # sprain of wrist
    "39848009": ("COMMON:neck-pain",),  # whiplash injury to neck
    "61582004": ("COMMON:sneezing",),  # allergic rhinitis
}


def every() -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """Conditions, then drugs, in the order their CUIs and CHV codes are numbered."""
    return CONDITIONS + DRUGS


def add_common_concepts(
    ucon: Callable[..., Any],
    atom: Callable[..., dict[str, Any]],
    earlier_strings: set[str],
    first_code: int,
    entries: tuple[tuple[str, str, tuple[str, ...]], ...] | None = None,
) -> list[str]:
    """One synthetic-CUI concept per entry (``every()`` by default; ``ucon`` numbers the
    CUI), its CHV atoms with CHV codes from ``first_code``; refuses a term an earlier atom
    already spells (``claim``, which adds each new term to ``earlier_strings``). The new
    CUIs in order."""
    added = []
    for n, (key, tui, terms) in enumerate(every() if entries is None else entries):
        code = f"{first_code + n:010d}"
        u = ucon(KEY_PREFIX + key, "", "SYN", [tui])
        for at, term in enumerate(terms):
            claim(term, key, earlier_strings)
            atom(u, "CHV", "PT" if at == 0 else "SY", code, term, scui=code)
        added.append(u.cui)
    return added


def claim(term: str, key: str, known: set[str]) -> None:
    """Adds ``term`` to ``known``; refuses one already there (any case): a name two concepts
    shared would make a record's concept ambiguous with one nothing reaches."""
    if term.lower() in known:
        raise ValueError(f"term {term!r} ({key}) is already a sample name")
    known.add(term.lower())


def add_extra_terms(
    concepts: dict[str, Any],
    key2cui: dict[str, str],
    atom: Callable[..., dict[str, Any]],
    earlier_strings: set[str],
    first_code: int | None,
    table: Mapping[str, Sequence[str]] = EXTRA_TERMS,
) -> int:
    """The CHV atoms of ``table`` (SY; PT and a new CHV code from ``first_code`` for a
    concept without CHV atoms, which ``first_code`` None refuses); refuses a term an earlier
    atom spells. The atoms added."""
    added = 0
    new_codes = 0
    for key, terms in table.items():
        u = concepts[key2cui[key]]
        code = next((a["code"] for a in u.atoms if a["sab"] == "CHV"), None)
        tty = "SY"
        if code is None:
            if first_code is None:
                raise ValueError(f"{key} has no CHV code to add terms to")
            code, tty = f"{first_code + new_codes:010d}", "PT"
            new_codes += 1
        for term in terms:
            claim(term, key, earlier_strings)
            atom(u, "CHV", tty, code, term, scui=code)
            tty = "SY"
            added += 1
    return added


def move_terms(
    concepts: dict[str, Any],
    key2cui: dict[str, str],
    atom: Callable[..., dict[str, Any]],
    table: Mapping[str, tuple[str, Sequence[str]]] = MOVED_TERMS,
) -> int:
    """The CHV atoms of ``table`` suppressed where they were (SUPPRESS=E) and written again,
    as SY atoms on the target concept's CHV code, unless the target spells them already.
    The atoms added."""
    added = 0
    for source, (target, terms) in table.items():
        wanted = {t.lower() for t in terms}
        for a in concepts[key2cui[source]].atoms:
            if a["sab"] == "CHV" and a["str"].lower() in wanted:
                a["suppress"] = "E"
        u = concepts[key2cui[target]]
        code = next(a["code"] for a in u.atoms if a["sab"] == "CHV")
        spelled = {a["str"].lower() for a in u.atoms}
        for term in terms:
            if term.lower() not in spelled:
                atom(u, "CHV", "SY", code, term, scui=code)
                added += 1
    return added


def add_manifestations(
    pair: Callable[..., None], key2cui: dict[str, str], table: dict[str, tuple[str, ...]]
) -> int:
    """The has_manifestation rows of ``table`` (``MANIFESTATIONS``: findings among the common
    concepts; ``MORE_MANIFESTATIONS``: keys of the build's map), written as lay_terms.py
    writes its own (both directions, SAB MTH); the pairs added."""
    resolved = {
        condition: [f if f in key2cui else KEY_PREFIX + f for f in findings]
        for condition, findings in table.items()
    }
    return lay_terms.add_manifestations(pair, key2cui, {}, resolved)


def readme_section(w: Callable[[str], None], k2c: dict[str, str], pref: dict[str, str]) -> None:
    """The README's section on these concepts (the build's key -> CUI map)."""
    w("## Common conditions, symptoms and drugs no sample patient has (issue 37, fourth pass)")
    w("")
    w(
        "A licensed UMLS load knows migraine, gout, Eliquis and Zoloft whether or not a cohort's "
        "records code them; the sample, cut to Eunomia's records, did not, so a patient who said "
        '"I get migraines" or "I take Eliquis" (an affirmed condition or drug the record lacks) '
        f"was never found. Both UMLS releases now carry {len(CONDITIONS)} common conditions, "
        f"symptoms and habits and {len(DRUGS)} commonly prescribed or over-the-counter drugs as "
        "concepts with synthetic CUIs (after every earlier one) whose atoms are consumer terms "
        "(SAB `CHV`, first term `PT`, others `SY`, one synthetic CHV code per concept after the "
        "earlier ones; a drug's US brand names are among them) and whose semantic types are in "
        "MRSTY. Their only relationships are what sample conditions manifest among the symptoms "
        "(SAB `MTH` `has_manifestation`, below): nothing here supports a treatment or outcome "
        "relation, and derivation never offers them (no sample patient has them). The list is "
        "a sweep of what primary-care patients commonly name, written from general clinical "
        "knowledge, not copied from a release. Procedures and tests are not among them (they "
        "have their own section below, with the codes Eunomia records them by), nor are "
        'vaccines ("flu shot": no sample fact is one). Nor are words that are '
        'mostly plain English ("fit", "confused", "cold", "MS", "ED", "the pill", bare "pain").'
    )
    w("")
    w("| concept (CHV preferred term) | CUI | TUI | other terms |")
    w("|---|---|---|---|")
    for key, tui, terms in every():
        w(f"| {terms[0]} | {k2c[KEY_PREFIX + key]} | {tui} | {', '.join(terms[1:])} |")
    w("")
    w("| sample condition | manifests |")
    w("|---|---|")
    names = {KEY_PREFIX + key: terms[0] for key, _, terms in every()}
    for condition, findings in MANIFESTATIONS.items():
        w(f"| {pref[k2c[condition]]} | {', '.join(names[KEY_PREFIX + f] for f in findings)} |")
    w("")
    w(
        "And a second sweep over the visit diagnoses whose usual complaint the sample did not "
        "tie to them (after the rows above):"
    )
    w("")
    w("| sample condition | manifests |")
    w("|---|---|")
    for condition, findings in MORE_MANIFESTATIONS.items():
        shown = [pref[k2c[f]] if f in k2c else names[f] for f in findings]
        w(f"| {pref[k2c[condition]]} | {', '.join(shown)} |")
    w("")
    w(
        "And a third, from the complaints of the fourth and fifth evaluation sets (after every "
        "earlier row):"
    )
    w("")
    w("| sample condition | manifests |")
    w("|---|---|")
    for condition, findings in THIRD_MANIFESTATIONS.items():
        w(f"| {pref[k2c[condition]]} | {', '.join(pref[k2c[f]] for f in findings)} |")
    w("")
    w(
        "More consumer terms for concepts the sample already had, after every other atom (so "
        "their LUIs and SUIs come last), each on the concept's CHV code:"
    )
    w("")
    w("| concept | CUI | more consumer terms (CHV) |")
    w("|---|---|---|")
    for key, terms in (EXTRA_TERMS | FIFTH_TERMS | SIXTH_TERMS | SEVENTH_TERMS).items():
        w(f"| {pref[k2c[key]]} | {k2c[key]} | {', '.join(terms)} |")
    w("")
    w(
        "Concepts of the fifth pass, what patients in the fourth to seventh evaluation sets "
        "named that the sweep above lacked, after every other concept and atom, and what "
        "sample conditions manifest among them:"
    )
    w("")
    w("| CUI | consumer terms (CHV) |")
    w("|---|---|")
    for key, _, terms in LATER:
        w(f"| {k2c[KEY_PREFIX + key]} | {', '.join(terms)} |")
    w("")
    w("| sample condition | manifests |")
    w("|---|---|")
    for condition, findings in LATER_MANIFESTATIONS.items():
        w(f"| {pref[k2c[condition]]} | {', '.join(pref[k2c[f]] for f in findings)} |")
    w("")
    w(
        "And a fourth sweep, from the tenth evaluation set, after every earlier row and the "
        "procedures (issue 37, sixth pass):"
    )
    w("")
    w("| sample condition | manifests |")
    w("|---|---|")
    for condition, findings in SIXTH_MANIFESTATIONS.items():
        w(f"| {pref[k2c[condition]]} | {', '.join(pref[k2c[f]] for f in findings)} |")
    w("")
    w(
        "And a fifth, from the tenth to eighteenth evaluation sets, after every earlier row "
        "(issue 37, seventh pass):"
    )
    w("")
    w("| sample condition | manifests |")
    w("|---|---|")
    for condition, findings in SEVENTH_MANIFESTATIONS.items():
        w(f"| {pref[k2c[condition]]} | {', '.join(pref[k2c[f]] for f in findings)} |")
    w("")
    w(
        "And a sixth, from the nineteenth and twentieth evaluation sets, after every earlier "
        "row (issue 37, eighth pass; CDC and textbook presentations):"
    )
    w("")
    w("| sample condition | manifests |")
    w("|---|---|")
    for condition, findings in EIGHTH_MANIFESTATIONS.items():
        w(f"| {pref[k2c[condition]]} | {', '.join(pref[k2c[f]] for f in findings)} |")
    w("")
    for source, (target, terms) in MOVED_TERMS.items():
        w(
            f"The consumer terms {', '.join(repr(t) for t in terms)} had been put on "
            f"{pref[k2c[source]]} ({k2c[source]}), the result, before the sample had "
            f"procedures; patients mean the scan. Their atoms there are suppressed "
            f"(SUPPRESS=E, lines in place) and {pref[k2c[target]]} ({k2c[target]}) carries "
            "them, after every other atom (issue 37, eighth pass)."
        )
        w("")
