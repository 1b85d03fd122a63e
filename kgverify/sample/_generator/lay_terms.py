"""Lay language for the sample concepts (issue 37): consumer terms as the UMLS source the
Consumer Health Vocabulary is (SAB ``CHV`` atoms in MRCONSO, a row in MRSAB), and brand names
as RxNorm carries them (``BN`` atoms in RXNCONSO, ``tradename_of`` / ``has_tradename`` rows in
RXNREL, ``RXN_BN_CARDINALITY`` in RXNSAT), so that a patient's words ("short of breath",
"blood thinner", "Coumadin") reach the graph through the loaders as they are.

build.py calls ``add_brands`` once RxNorm is built and ``add_consumer_terms`` after every
other UMLS row, so every earlier identifier stays as it was; make_readme.py calls
``readme_section``. The strings are written for the sample (common consumer wording), not
copied from a CHV release; their CHV codes and the brands' RXCUIs are synthetic."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

CHV_SOURCE = (
    "CHV_2011_02",
    "Consumer Health Vocabulary",
    "2011_02",
    "Consumer Health Vocabulary Initiative",
)
"""MRSAB's VSAB, SON, SVER and source of the CHV row, as the real 2011 release names them."""

CHV_SRL = "0"

CHV_CODE_BASE = 9900000000
"""CHV codes are ten digits ("0000005791"); the sample's start at 99..., a range the real
vocabulary does not use."""

CONSUMER_TERMS: dict[str, tuple[str, ...]] = {
    # conditions (SNOMED CT keys of the sample); the first term is the CHV preferred one
    "21522001": ("stomach ache", "stomach pain", "belly pain", "tummy ache"),
    "36971009": ("sinus infection", "sinus infections", "sinus trouble"),
    "40055000": ("chronic sinus infection", "chronic sinus infections"),
    "444814009": ("viral sinus infection",),
    "10509002": ("chest cold",),
    "32398004": ("bronchial infection",),
    "195662009": ("viral sore throat",),
    "43878008": ("strep", "strep infection"),
    "61582004": ("nasal allergies",),
    "367498001": ("seasonal allergies", "spring allergies"),
    "26929004": ("Alzheimer's", "Alzheimers", "Alzheimer"),
    "271737000": ("low blood count", "low red blood cell count", "anaemia"),
    "74400008": ("inflamed appendix",),
    "49436004": ("a-fib", "afib", "a fib", "atrial fib"),
    "698247007": ("irregular heartbeat", "irregular heart beat", "irregular heart rhythm"),
    "34436003": ("bloody urine", "blood in the urine"),
    "111516008": ("blurry vision", "blurred vision"),
    "230690007": ("brain attack",),
    "29857009": ("chest pains",),
    "709044004": ("chronic kidney failure", "chronic kidney problems"),
    "90708001": ("kidney problems", "kidney trouble"),
    "359817006": ("broken hip", "hip fracture", "fractured hip"),
    "16114001": ("broken ankle", "ankle fracture", "fractured ankle"),
    "263102004": ("broken wrist", "wrist fracture", "fractured wrist"),
    "58150001": ("broken collarbone", "broken collar bone"),
    "65966004": ("broken arm", "broken forearm"),
    "33737001": ("broken rib", "cracked rib"),
    "125605004": ("broken bone", "broken bones"),
    "53741008": ("hardening of the arteries", "clogged arteries", "blocked arteries"),
    "49727002": ("coughing",),
    "38822007": ("bladder infection", "bladder infections"),
    "44054006": ("type 2 diabetes", "adult onset diabetes", "type two diabetes"),
    "73211009": ("diabetes", "sugar diabetes"),
    "267036007": (
        "short of breath",
        "breathlessness",
        "trouble breathing",
        "out of breath",
        "hard to breathe",
        "winded",
    ),
    "49650001": ("painful urination", "burning urination", "burning on urination"),
    "267038008": ("swelling", "fluid retention", "water retention", "swollen ankles"),
    "52613005": ("heavy sweating", "sweating a lot", "night sweats"),
    "17173007": ("very thirsty", "always thirsty"),
    "84229001": (
        "tiredness",
        "tired",
        "fatigued",
        "tired all the time",
        "exhaustion",
        "exhausted",
        "worn out",
        "run down",
        "no energy",
    ),
    "386661006": ("high temperature", "feverish", "running a fever"),
    "235919008": ("gallstones", "gall stones"),
    "65275009": ("gallbladder attack", "inflamed gallbladder"),
    "74474003": ("stomach bleeding", "internal bleeding"),
    "25064002": ("head ache", "head pain", "head pounding", "pounding headache"),
    "15188001": ("hard of hearing", "deafness"),
    "84114007": ("weak heart", "congestive heart failure"),
    "8765009": ("vomiting blood", "throwing up blood"),
    "13644009": ("high cholesterol",),
    "55822004": ("high blood fats", "high lipids"),
    "80394007": ("high blood sugar", "high sugar"),
    "14140009": ("high potassium",),
    "40930008": ("underactive thyroid", "low thyroid", "slow thyroid"),
    "162116003": ("frequent urination", "peeing a lot", "going to the bathroom a lot"),
    "28442001": ("passing a lot of urine",),
    "418290006": ("itchy skin", "itchiness", "itchy"),
    "57676002": ("achy joints", "sore joints", "aching joints", "joints ache"),
    "84445001": ("stiff joints",),
    "271771009": ("swollen joints",),
    "30746006": ("swollen glands", "swollen lymph nodes"),
    "2901004": ("black stools", "black tarry stools"),
    "386807006": (
        "memory loss",
        "forgetfulness",
        "memory problems",
        "forgetful",
        "forgetting things",
    ),
    "48724000": ("leaky heart valve", "leaky valve"),
    "68235000": ("stuffy nose", "blocked nose", "stuffed up nose", "congestion", "congested"),
    "422587007": ("feeling sick", "queasy", "sick to my stomach", "nauseous", "nauseated"),
    "396275006": ("wear and tear arthritis", "degenerative arthritis"),
    "64859006": ("brittle bones", "thin bones"),
    "16001004": ("earache", "ear ache", "ear pain", "earaches"),
    "65363002": ("ear infection", "ear infections", "middle ear infection"),
    "162397003": ("throat pain", "scratchy throat"),
    "80313002": (
        "racing heart",
        "heart racing",
        "pounding heart",
        "heart pounding",
        "fluttering in the chest",
        "heart palpitations",
    ),
    "13200003": ("stomach ulcer", "stomach ulcers"),
    "233604007": ("lung infection", "chest infection"),
    "68496003": ("colon polyp", "colon polyps"),
    "45816000": ("kidney infection",),
    "197927001": ("recurring bladder infections", "repeated urine infections"),
    "68566005": ("urine infection", "urinary infection", "water infection"),
    "91175000": ("convulsion", "convulsions"),
    "44465007": ("sprained ankle", "twisted ankle", "ankle sprain"),
    "70704007": ("sprained wrist", "wrist sprain"),
    "271594007": (
        "fainting",
        "passing out",
        "passed out",
        "blacked out",
        "fainting spells",
        "blackouts",
    ),
    "3424008": ("fast heartbeat", "rapid heartbeat", "fast heart rate", "heart beating fast"),
    "239720000": ("torn meniscus", "torn knee cartilage"),
    "444470001": ("torn ACL", "ACL tear"),
    "307731004": ("torn rotator cuff", "rotator cuff tear"),
    "127295002": ("head injury",),
    "422400008": ("throwing up", "being sick"),
    "89362005": ("losing weight",),
    "56018004": ("wheeze", "wheezy"),
    "39848009": ("whiplash",),
    "24079001": ("eczema",),
    "406602003": ("staph infection",),
    "410429000": ("heart stopped",),
    "64766004": ("colitis",),
    "87433001": ("emphysema",),
    # ingredients (RX:<RXCUI> keys): the consumer's name for one drug
    "RX:1191": ("baby aspirin",),
    "RX:4917": ("nitro",),
    "RX:24947": ("iron pills", "iron tablets"),
    "RX:161": ("paracetamol",),
    "RX:11248": ("B12", "vitamin B12 shots"),
    # drug classes (ATC:<code> keys): what patients call the drugs of a class
    "ATC:B01A": ("blood thinner", "blood thinners", "anticoagulant", "anticoagulants"),
    "ATC:B01AC": ("antiplatelet",),
    "ATC:C03": ("water pill", "water pills", "water tablets", "diuretic", "diuretics"),
    "ATC:C10AA": ("statin", "statins", "cholesterol pill", "cholesterol pills"),
    "ATC:C07A": ("beta blocker", "beta blockers", "beta-blocker"),
    "ATC:C09A": ("ACE inhibitor", "ACE inhibitors"),
    "ATC:C08": ("calcium channel blocker", "calcium channel blockers"),
    "ATC:J01": ("antibiotic", "antibiotics"),
    "ATC:N02": ("painkiller", "painkillers", "pain pills", "pain medicine"),
    "ATC:M01A": ("anti-inflammatory", "anti-inflammatories", "NSAID", "NSAIDs"),
    "ATC:R06A": ("antihistamine", "antihistamines", "allergy pills", "allergy medicine"),
    "ATC:H03A": ("thyroid pill", "thyroid pills", "thyroid medicine"),
    "ATC:A10B": ("diabetes pills", "diabetes medicine"),
    "ATC:A02B": ("acid reducer", "stomach acid pills"),
    "ATC:H02AB": ("steroid pills", "steroids"),
    "ATC:R03A": ("rescue inhaler",),
    # lab tests (LNC:<code> keys): what patients call them
    "LNC:3016-3": ("TSH", "thyroid stimulating hormone", "thyroid test", "thyroid level"),
    "LNC:4548-4": ("A1C", "HbA1c", "hemoglobin A1c", "sugar average"),
    "LNC:2345-7": ("blood sugar", "blood glucose", "sugar level", "glucose level"),
    "LNC:2093-3": ("cholesterol level", "cholesterol test"),
    "LNC:13457-7": ("LDL", "bad cholesterol"),
    "LNC:718-7": ("hemoglobin", "hemoglobin level", "haemoglobin"),
    "LNC:26464-8": ("white blood cell count", "white count"),
    "LNC:26515-7": ("platelet count",),
    "LNC:2160-0": ("creatinine level", "kidney function"),
    "LNC:2823-3": ("potassium level",),
    "LNC:38265-5": ("bone density", "bone density scan"),
}
"""Consumer terms per sample concept, by the build's concept keys."""

MORE_CONSUMER_TERMS: dict[str, tuple[str, ...]] = {
    # issue 37, second pass, written after every earlier atom so that their ids stay: a
    # concept of CONSUMER_TERMS keeps its CHV code and gains SY atoms. The second pass was
    # kept few: every new name moves the linker's calibration fit (docs/linking.md), and a
    # wider pass had made it read partial neighbours as confident links. The third pass went
    # wide once the linker bounded a partial neighbour's estimate (PARTIAL_SCORE).
    "230690007": ("CVA",),
    "69896004": ("rheumatoid",),
    "LNC:38265-5": ("T-score", "DEXA", "DEXA scan", "DXA scan", "bone density test"),
    "LNC:20570-8": ("hematocrit",),
    "LNC:19926-5": ("breathing test", "FEV1", "spirometry", "lung function test"),
    "LNC:8331-1": ("temperature", "temp"),
    # issue 37, third pass: a sweep over every sample condition, allergy, ingredient and
    # drug class that had no consumer wording, for the names patients use for them
    # (abbreviations, lay names, "allergic to ..."), not picked from a test set's misses.
    # Words that are also plain English ("ADD") are left out: the mention finder would
    # read them in any sentence.
    "192127007": ("ADHD", "attention deficit disorder", "attention deficit"),
    "53741008": ("CAD", "coronary artery disease", "coronary heart disease"),
    "24526004": ("IBD",),
    "64766004": ("UC",),
    "46635009": ("type 1 diabetes", "type one diabetes", "juvenile diabetes"),
    "190905008": ("CF",),
    "230265002": ("early onset Alzheimer's",),
    "241929008": ("allergic reaction",),
    "91935009": ("peanut allergy", "allergic to peanuts"),
    "91934008": ("nut allergy", "tree nut allergy", "allergic to nuts"),
    "91930004": ("egg allergy", "allergic to eggs"),
    "417532002": ("fish allergy", "allergic to fish"),
    "425525006": ("dairy allergy", "milk allergy", "allergic to milk", "allergic to dairy"),
    "714035009": ("soy allergy", "allergic to soy"),
    "420174000": ("wheat allergy", "allergic to wheat"),
    "424213003": ("bee sting allergy", "allergic to bee stings", "allergic to bees"),
    "418689008": ("grass allergy", "allergic to grass"),
    "419263009": ("tree pollen allergy", "allergic to tree pollen"),
    "232350006": ("dust mite allergy", "dust allergy", "allergic to dust"),
    "419474003": ("mold allergy", "allergic to mold"),
    "232347008": ("pet allergy", "cat allergy", "dog allergy", "allergic to cats"),
    "300913006": ("allergic to shellfish",),
    "300916003": ("allergic to latex", "latex sensitivity"),
    "29738008": ("protein in the urine", "protein in urine"),
    "166717003": ("high creatinine",),
    "56265001": ("heart trouble", "heart problems", "heart problem"),
    "368009": ("heart valve problem", "valve problem"),
    "47693006": ("ruptured appendix", "burst appendix"),
    "444448004": ("torn MCL", "MCL tear", "MCL injury"),
    "30832001": ("torn patellar tendon",),
    "235998001": ("kidney abscess",),
    "75498004": ("bacterial sinus infection",),
    "16761005": ("inflamed esophagus", "inflammation of the esophagus"),
    "301011002": ("E. coli UTI", "E. coli bladder infection"),
    "RX:8410": ("tPA", "clot buster"),
    "RX:3992": ("adrenaline",),
    "RX:10582": ("thyroxine", "thyroid hormone"),
    "RX:7984": ("pen VK",),
    "ATC:N05BA": ("benzodiazepine", "benzodiazepines", "benzo", "benzos"),
    "ATC:N06D": ("dementia medicine", "memory medicine"),
    "ATC:N03A": ("seizure medicine", "anti-seizure medicine", "epilepsy medicine"),
    "ATC:A10A": ("insulin",),
    "ATC:R05D": ("cough medicine", "cough syrup", "cough suppressant"),
    "ATC:A04A": ("anti-nausea medicine", "nausea pills"),
    "ATC:C01DA": ("nitrates",),
    "ATC:M05BA": ("bisphosphonate", "bisphosphonates"),
    "ATC:L04A": ("immunosuppressant", "immunosuppressants", "anti-rejection medicine"),
    "ATC:N06BA": ("stimulant", "stimulants", "ADHD medicine"),
    "ATC:J01DC": ("cephalosporin", "cephalosporins"),
    "ATC:J01FA": ("macrolide", "macrolides"),
    "ATC:A02BC": ("PPI", "proton pump inhibitor", "proton pump inhibitors"),
    "ATC:B03A": ("iron supplement", "iron supplements"),
    "ATC:C03CA": ("loop diuretic", "loop diuretics"),
    "ATC:C03AA": ("thiazide", "thiazides"),
    "ATC:M01AH": ("COX-2 inhibitor",),
    # lab tests by the names on a referral or a patient portal: each allergen's IgE test
    # (added after the third set was scored; so are the spirometry and bone density names
    # on the second pass's keys above)
    "LNC:6206-7": ("peanut IgE", "peanut test", "peanut allergy test"),
    "LNC:6833-8": ("cat dander IgE", "cat dander test", "cat allergy test"),
    "LNC:6106-9": ("egg IgE", "egg white IgE", "egg allergy test"),
    "LNC:6246-3": ("shrimp IgE", "shrimp test", "shrimp allergy test"),
    "LNC:6844-5": ("bee venom IgE", "bee IgE", "bee sting test"),
    "LNC:6095-4": ("dust mite IgE", "dust mite test"),
    "LNC:7258-7": ("milk IgE", "milk allergy test"),
    "LNC:6082-2": ("codfish IgE", "cod IgE", "fish allergy test"),
    "LNC:6276-0": ("wheat IgE", "wheat allergy test"),
    "LNC:6189-5": ("oak IgE", "oak pollen test"),
    "LNC:6273-7": ("walnut IgE", "walnut test", "walnut allergy test"),
    "LNC:6158-0": ("latex IgE", "latex allergy test"),
    "LNC:6075-6": ("mold IgE", "mold test"),
    "LNC:6085-5": ("ragweed IgE", "ragweed test", "ragweed allergy test"),
    "LNC:6248-9": ("soy IgE", "soy allergy test"),
}
"""Consumer terms added later, after every atom of ``CONSUMER_TERMS``."""

MANIFESTATIONS: dict[str, tuple[str, ...]] = {
    # condition -> findings (SNOMED CT keys), for the visit diagnoses of the sample EHR that
    # had none: what a patient with them comes in saying
    "44465007": ("57676002", "271771009"),  # sprain of ankle: joint pain, joint swelling
    "70704007": ("57676002", "271771009"),  # sprain of wrist
    "62106007": ("25064002", "422587007", "386807006"),  # concussion: headache, nausea, memory
    "62564004": ("25064002", "422587007", "386807006", "271594007"),
    "110030002": ("25064002", "422587007", "386807006"),
    "39848009": ("25064002", "84445001"),  # whiplash: headache, stiffness
    "53741008": ("29857009", "267036007", "84229001"),  # coronary arteriosclerosis
    "414545008": ("29857009", "267036007"),  # ischemic heart disease
    "16761005": ("29857009", "422587007"),  # esophagitis
    "68496003": ("2901004",),  # polyp of colon: melena
    "424802006": ("2901004", "8765009", "84229001"),  # angiodysplasia of stomach
    "397881000": ("21522001",),  # diverticular disease: abdominal pain
    "301011002": ("49650001", "162116003", "386661006"),  # E. coli urinary tract infection
    "128613002": ("91175000",),  # seizure disorder
    "235919008": ("21522001", "422587007"),  # gallstone
    "40930008": ("84229001",),  # hypothyroidism
    "185086009": ("49727002", "267036007", "56018004"),  # emphysematous bronchitis
    "40275004": ("418290006",),  # contact dermatitis
    "61582004": ("68235000", "418290006"),  # allergic rhinitis
    "230690007": ("386807006",),  # cerebrovascular accident
    "36971009": ("25064002", "68235000"),  # sinusitis (besides its earlier findings)
}
"""has_manifestation rows (SAB MTH, as the sample's earlier ones) added with the lay terms;
a pair already in the sample is skipped."""

BRAND_NAMES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Coumadin", ("Warfarin",)),
    ("Jantoven", ("Warfarin",)),
    ("Aleve", ("Naproxen",)),
    ("Naprosyn", ("Naproxen",)),
    ("Lasix", ("Furosemide",)),
    ("Zestril", ("Lisinopril",)),
    ("Prinivil", ("Lisinopril",)),
    ("Lopressor", ("Metoprolol",)),
    ("Toprol", ("Metoprolol",)),
    ("Prilosec", ("Omeprazole",)),
    ("Lanoxin", ("Digoxin",)),
    ("Calan", ("Verapamil",)),
    ("Isoptin", ("Verapamil",)),
    ("Synthroid", ("levothyroxine",)),
    ("Levoxyl", ("levothyroxine",)),
    ("Norvasc", ("Amlodipine",)),
    ("Zocor", ("Simvastatin",)),
    ("Amoxil", ("Amoxicillin",)),
    ("Augmentin", ("Amoxicillin", "Clavulanate")),
    ("Motrin", ("Ibuprofen",)),
    ("Bayer", ("Aspirin",)),
    ("Ecotrin", ("Aspirin",)),
    ("Lantus", ("Insulin Glargine",)),
    ("Microzide", ("Hydrochlorothiazide",)),
    ("Ventolin", ("Albuterol",)),
    ("ProAir", ("Albuterol",)),
    ("Flonase", ("fluticasone",)),
    ("Advair", ("fluticasone", "salmeterol")),
    ("Claritin", ("Loratadine",)),
    ("Zyrtec", ("Cetirizine",)),
    ("Allegra", ("fexofenadine",)),
    ("Benadryl", ("Diphenhydramine",)),
    ("Namenda", ("Memantine",)),
    ("Razadyne", ("Galantamine",)),
    ("Fosamax", ("Alendronate",)),
    ("Macrobid", ("Nitrofurantoin",)),
    ("Nitrostat", ("Nitroglycerin",)),
    ("Cordarone", ("Amiodarone",)),
    ("Ritalin", ("Methylphenidate",)),
    ("Strattera", ("atomoxetine",)),
    ("Zofran", ("Ondansetron",)),
    ("Vicodin", ("Acetaminophen", "Hydrocodone")),
    ("Percocet", ("Acetaminophen", "Oxycodone")),
    ("Voltaren", ("Diclofenac",)),
    ("Pyridium", ("Phenazopyridine",)),
    ("Vibramycin", ("Doxycycline",)),
    ("Ceftin", ("Cefuroxime",)),
    ("Ativan", ("Lorazepam",)),
    ("EpiPen", ("Epinephrine",)),
    # issue 37, third pass: a US brand (from the FDA labels' proprietary names) for every
    # sample ingredient that had none and has one patients name, after every earlier brand
    ("Alfenta", ("Alfentanil",)),
    ("Principen", ("Ampicillin",)),
    ("Hismanal", ("Astemizole",)),
    ("AtroPen", ("Atropine",)),
    ("Ceclor", ("Cefaclor",)),
    ("Chlor-Trimeton", ("Chlorpheniramine",)),
    ("Delsym", ("Dextromethorphan",)),
    ("Unisom", ("Doxylamine",)),
    ("Estrace", ("Estradiol",)),
    ("Duragesic", ("Fentanyl",)),
    ("Sublimaze", ("Fentanyl",)),
    ("Feosol", ("ferrous sulfate",)),
    ("Cortef", ("Hydrocortisone",)),
    ("Forane", ("Isoflurane",)),
    ("Depo-Provera", ("Medroxyprogesterone",)),
    ("Provera", ("Medroxyprogesterone",)),
    ("Demerol", ("Meperidine",)),
    ("Ortho-Novum", ("Mestranol", "Norethindrone")),
    ("Micronor", ("Norethindrone",)),
    ("Trexall", ("Methotrexate",)),
    ("Versed", ("Midazolam",)),
    ("MS Contin", ("Morphine",)),
    ("Pfizerpen", ("Penicillin G",)),
    ("Bicillin", ("Penicillin G",)),
    ("Veetids", ("Penicillin V",)),
    ("Zosyn", ("Piperacillin", "tazobactam")),
    ("Diprivan", ("Propofol",)),
    ("Zemuron", ("Rocuronium",)),
    ("Sufenta", ("Sufentanil",)),
    ("Cognex", ("Tacrine",)),
    ("Seldane", ("Terfenadine",)),
    ("Nascobal", ("Vitamin B 12",)),
    ("Activase", ("alteplase",)),
    ("Suprane", ("desflurane",)),
    ("Natazia", ("dienogest", "Estradiol")),
    ("Yasmin", ("drospirenone", "Ethinyl Estradiol")),
    ("Yaz", ("drospirenone", "Ethinyl Estradiol")),
    ("Xulane", ("norelgestromin", "Ethinyl Estradiol")),
    ("Ortho Tri-Cyclen", ("norgestimate", "Ethinyl Estradiol")),
    ("Ultiva", ("remifentanil",)),
    ("Ultane", ("sevoflurane",)),
    ("Macrodantin", ("Nitrofurantoin",)),
    ("Norco", ("Acetaminophen", "Hydrocodone")),
    ("Lortab", ("Acetaminophen", "Hydrocodone")),
)
"""Brand names (RxNorm BN) and the ingredients (IN names of the sample) they are trade names
of. The sample's other brands (Tylenol, Advil, Lipitor, ...) come with their branded drugs."""

LATER_BRANDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Namzaric", ("Memantine", "donepezil")),
    ("Pen-Vee K", ("Penicillin V",)),
    ("Norplant", ("Levonorgestrel",)),
)
"""Brands of the fourth pass, added after the packs' components (so after every earlier RXCUI)."""


def add_brands(
    rx_add: Callable[..., Any],
    rx_rel: Callable[..., None],
    in_by_name: dict[str, Any],
    rxsat: list[tuple[str, str, str, str]],
    brands: tuple[tuple[str, tuple[str, ...]], ...] = BRAND_NAMES,
) -> list[str]:
    """The BN concepts of ``brands`` (synthetic RXCUIs, after every other one), each
    ``tradename_of`` its ingredients in both directions, with its RXN_BN_CARDINALITY; the
    new RXCUIs in order."""
    added = []
    for name, ingredients in brands:
        brand = rx_add("", "BN", name, "SYN (brand name, issue 37)")
        for ingredient in ingredients:
            rx_rel(brand.rxcui, "tradename_of", in_by_name[ingredient].rxcui, "has_tradename")
        cardinality = "multiple" if len(ingredients) > 1 else "single"
        rxsat.append((brand.rxcui, brand.atoms[0][0], "RXN_BN_CARDINALITY", cardinality))
        added.append(brand.rxcui)
    return added


def add_consumer_terms(
    umls_concepts: dict[str, Any],
    key2cui: dict[str, str],
    atom: Callable[..., dict[str, Any]],
    srl_of: dict[str, str],
    sab_info: dict[str, tuple[str, str, str, str]],
) -> int:
    """CHV atoms for ``CONSUMER_TERMS`` on the concepts' CUIs: one CHV code per concept, its
    first term PT and the others SY, as MRCONSO carries CHV; the CHV row of MRSAB (its
    VCUI and RCUI left empty: the sample adds no source concepts for it). Returns the atoms
    added."""
    srl_of["CHV"] = CHV_SRL
    sab_info["CHV"] = CHV_SOURCE
    added = 0
    codes: dict[str, str] = {}
    for n, (key, terms) in enumerate(CONSUMER_TERMS.items(), start=1):
        u = umls_concepts[key2cui[key]]
        code = codes[key] = f"{CHV_CODE_BASE + n:010d}"
        for at, term in enumerate(terms):
            atom(u, "CHV", "PT" if at == 0 else "SY", code, term, scui=code)
            added += 1
    for key, terms in MORE_CONSUMER_TERMS.items():
        u = umls_concepts[key2cui[key]]
        new = key not in codes
        code = codes.setdefault(key, f"{CHV_CODE_BASE + len(codes) + 1:010d}")
        for at, term in enumerate(terms):
            atom(u, "CHV", "PT" if new and at == 0 else "SY", code, term, scui=code)
            added += 1
    return added


def add_manifestations(
    pair: Callable[..., None],
    key2cui: dict[str, str],
    earlier: dict[str, list[str]],
    table: Mapping[str, Sequence[str]] = MANIFESTATIONS,
) -> int:
    """The has_manifestation rows of ``table`` (condition key -> finding keys) not among
    ``earlier`` (both directions, SAB MTH); the pairs added."""
    added = 0
    for condition, findings in table.items():
        for finding in findings:
            if finding in earlier.get(condition, []):
                continue
            pair(
                key2cui[condition], "has_manifestation", key2cui[finding], "manifestation_of", "MTH"
            )
            added += 1
    return added


def readme_section(w: Callable[[str], None], k2c: dict[str, str], pref: dict[str, str]) -> None:
    """The README's section on the lay language (the build's key -> CUI map and preferred
    names from its manifest)."""
    kinds = {"RX:": "ingredients", "ATC:": "drug classes (ATC)", "LNC:": "lab tests (LOINC)"}
    counts: dict[str, int] = {}
    every = _every_term()
    for key, terms in every.items():
        kind = next((v for k, v in kinds.items() if key.startswith(k)), "conditions and findings")
        counts[kind] = counts.get(kind, 0) + len(terms)
    w("## Lay language: consumer terms (CHV) and brand names (issue 37)")
    w("")
    w(
        "So that a patient's own words reach the graph, both UMLS releases carry consumer terms as the "
        "Consumer Health Vocabulary does in a licensed load (SAB `CHV`, TTY `PT` for the first term of a "
        "concept and `SY` for the others, CODE = SCUI = a ten-digit CHV code, SRL 0, one MRSAB row; its "
        "VCUI/RCUI empty, the sample adds no source concepts for it), and both RxNorm releases carry brand "
        "names as RxNorm does (TTY `BN` atoms, `tradename_of` / `has_tradename` RXNREL rows to their "
        "ingredients, `RXN_BN_CARDINALITY` in RXNSAT). The loaders keep them as they are: CHV strings "
        "become synonyms of the UMLS concept, brands `brand` concepts with `TRADENAME_OF` edges. The terms "
        "are common consumer wording written for the sample, not copied from a CHV release; their CHV codes "
        f"(from {CHV_CODE_BASE + 1:010d}) and the brands' RXCUIs are synthetic. Everything was added after "
        "every earlier row, so earlier identifiers are unchanged."
    )
    w("")
    w(
        "CHV atoms by kind of concept: "
        + ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items()))
        + '. Drug classes carry what patients call them ("blood thinner" on ATC B01A, "water pill" on '
        "C03), so a class word reaches a recorded drug through the ATC edges (ingredient -> class)."
    )
    w("")
    w("| concept | CUI | consumer terms (CHV) |")
    w("|---|---|---|")
    for key, terms in every.items():
        cui = k2c[key]
        w(f"| {pref[cui]} | {cui} | {', '.join(terms)} |")
    w("")
    w(
        "The terms of the issue's second pass (CVA, rheumatoid, and the labs by the names on a lab "
        "slip: T-score, hematocrit, breathing test, temperature, temp) come after every earlier atom; a "
        "concept that had CHV atoms keeps its CHV code. They were picked from the mentions the "
        "dialogue checker missed on an independent set (docs/benchmarks.md, issue 37 second pass), "
        "as terms a licensed UMLS load carries for these concepts; they are few on purpose: every "
        "new name moves the linker's calibration fit, and a wider pass changed how the LLM-style "
        "relations link."
    )
    w("")
    w(
        "The third pass is a sweep, not a list of misses: every sample condition, allergy, "
        "ingredient and drug class that had no consumer wording got the names patients use for "
        'it where there are common ones (abbreviations such as ADHD, CAD, IBD, UC, tPA; "allergic '
        'to peanuts"; "heart trouble"; "benzos", "cough syrup", "PPI"), and every sample ingredient '
        "without a brand got its US brand names (the proprietary names of its FDA labels: "
        "Ceclor, Demerol, Depo-Provera, Activase, ...; ingredients without a brand patients name, "
        "such as heparin, stay without). Words that are also plain English (ADD) are left out. "
        "Lab tests got the names patients read on a referral (each allergen's IgE test, FEV1, "
        "DEXA), after the third independent dialogue set was scored. "
        "The packs whose names Eunomia cut at 255 characters are decomposed into the components "
        "before the cut in the same pass, after every other RxNorm id. Concept identifiers (CUI, "
        "RXCUI, CHV code), AUIs and RxNorm's atom ids are unchanged; the writer numbers strings "
        "in concept order, so the LUI and SUI of 306 earlier CHV atoms moved. The sweep moved the "
        "linker's calibration map as the second pass had feared (it read the partial neighbour "
        '"Disease" of "Ménières Disease" as a confident link); the linker now reads a partial '
        "neighbour at most 0.5 whatever the map (docs/linking.md), which made the sweep safe."
    )
    w("")
    w(
        "Manifestations (SAB MTH, as the earlier ones) for the visit diagnoses of the sample EHR that "
        "had none, so that a patient describing the visit's symptoms reaches its diagnosis:"
    )
    w("")
    w("| condition | manifests |")
    w("|---|---|")
    for condition, findings in MANIFESTATIONS.items():
        w(f"| {pref[k2c[condition]]} | {', '.join(pref[k2c[f]] for f in findings)} |")
    w("")
    w("| brand (BN) | tradename of |")
    w("|---|---|")
    for name, ingredients in BRAND_NAMES + LATER_BRANDS:
        w(f"| {name} | {', '.join(ingredients) or '(no sample ingredient)'} |")
    w("")


def chv_codes() -> int:
    """How many CHV codes ``add_consumer_terms`` numbers (one per concept it gives terms)."""
    return len(_every_term())


def _every_term() -> dict[str, tuple[str, ...]]:
    """``CONSUMER_TERMS`` with ``MORE_CONSUMER_TERMS`` after each concept's own."""
    out = dict(CONSUMER_TERMS)
    for key, terms in MORE_CONSUMER_TERMS.items():
        out[key] = out.get(key, ()) + terms
    return out
