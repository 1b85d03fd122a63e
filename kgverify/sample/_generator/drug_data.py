"""Drug content: ingredient-level UMLS mapping, new (non-Eunomia) RxNorm concepts, and the clinical relations."""

from __future__ import annotations

from typing import Any

# The ATC classes and derivation additions live in drug_classes (module size); the
# generator reads every table through this module.
from kgverify.sample._generator.drug_classes import (
    ATC_CLASS as ATC_CLASS,
)
from kgverify.sample._generator.drug_classes import (
    ATC_CLASS_DERIVE as ATC_CLASS_DERIVE,
)
from kgverify.sample._generator.drug_classes import (
    ATC_CLASS_UPPER as ATC_CLASS_UPPER,
)
from kgverify.sample._generator.drug_classes import (
    ATC_IN as ATC_IN,
)
from kgverify.sample._generator.drug_classes import (
    ATC_NONE as ATC_NONE,
)
from kgverify.sample._generator.drug_classes import (
    CONTRAINDICATED_DERIVE as CONTRAINDICATED_DERIVE,
)
from kgverify.sample._generator.drug_classes import (
    DUE_TO_DERIVE as DUE_TO_DERIVE,
)
from kgverify.sample._generator.drug_classes import (
    IN_UMLS_DERIVE as IN_UMLS_DERIVE,
)
from kgverify.sample._generator.drug_classes import (
    MAY_PREVENT_ADDED as MAY_PREVENT_ADDED,
)
from kgverify.sample._generator.drug_classes import (
    MAY_PREVENT_DERIVE as MAY_PREVENT_DERIVE,
)
from kgverify.sample._generator.drug_classes import (
    MAY_TREAT_ADDED as MAY_TREAT_ADDED,
)
from kgverify.sample._generator.drug_classes import (
    MAY_TREAT_DERIVE as MAY_TREAT_DERIVE,
)
from kgverify.sample._generator.drug_classes import (
    NO_INDICATION as NO_INDICATION,
)

# Ingredients placed in UMLS.  rxcui | CUI ('' = synthetic) | source | TUIs | MeSH id | SNOMED substance sctid
IN_UMLS = r"""
161 | C0000970 | WK | T109,T121 | D000082 | 387517004
1191 | C0004057 | WK | T109,T121 | D001241 | 387458008
723 | C0002645 | WK | T109,T195 | D000658 | 372687004
5640 | C0020740 | WK | T109,T121 | D007052 | 387207008
6809 | C0025598 | WK | T109,T121 | D008687 | 372567009
29046 | C0065374 | WK | T116,T121 | D017706 | 386873009
17767 | C0051696 | WK | T109,T121 | D017311 |
5487 | C0020261 | WK | T109,T121 | D006852 |
83367 | C0286651 | WK | T109,T121 | D000069059 | 373444002
36567 | C0074554 | WK | T109,T121 | D019821 |
11289 | C0043031 | WK | T109,T121 | D014859 |
32968 | C0070166 | WK | T109,T121 | D000077144 | 386952008
4603 | C0016860 | WK | T109,T121 | D005665 |
6918 | C0025859 | WK | T109,T121 | D008790 |
435 | C0001927 | WK | T109,T121 | D000420 |
41126 | C0082607 | WK | T109,T121 | D000068298 |
6851 | C0025677 | WK | T109,T121 | D008727 |
7646 | C0028978 | WK | T109,T121 | D009853 |
18631 | C0052796 | WK | T109,T195 | D017963 | 387531004
7984 |  | SYN | T109,T195 | D010404 |
7454 |  | SYN | T109,T195 | D009582 |
3407 | C0012265 | WK | T109,T121 | D004077 |
8640 | C0032952 | WK | T109,T121 | D011241 |
140587 | C0538927 | WK | T109,T121 | D000068579 |
3355 | C0012091 | WK | T109,T121 | D004008 |
7258 | C0027396 | WK | T109,T121 | D009288 |
274783 | C0907402 | WK | T116,T121 | D000069036 |
36117 |  | SYN | T109,T121 |  |
10582 |  | SYN | T109,T125 | D013974 |
46041 |  | SYN | T109,T121 | D019386 |
135447 |  | SYN | T109,T121 | D000077265 |
6719 |  | SYN | T109,T121 | D008559 |
4637 |  | SYN | T109,T121 | D005702 |
6901 |  | SYN | T109,T121 | D008774 |
38400 |  | SYN | T109,T121 | D000069445 |
2002 | C0006949 | WK | T109,T121 | D002220 |
24947 |  | SYN | T197,T121 |  |
11248 |  | SYN | T109,T127 | D014805 |
28889 |  | SYN | T109,T121 | D017336 |
20610 |  | SYN | T109,T121 | D017332 |
87636 |  | SYN | T109,T121 | C093230 |
42328 |  | SYN | T109,T121 | D016589 |
42330 |  | SYN | T109,T121 | D016593 |
3992 | C0014563 | WK | T109,T121,T125 | D004837 | 387362001
3498 | C0012522 | WK | T109,T121 | D004155 |
5492 | C0020268 | WK | T109,T121,T125 | D006854 |
703 | C0002598 | WK | T109,T121 | D000638 |
11170 | C0042523 | WK | T109,T121 | D014700 |
8410 |  | SYN | T116,T126 | D010959 |
4917 | C0017887 | WK | T109,T121 | D005996 |
3640 | C0013090 | WK | T109,T195 | D004318 |
2194 |  | SYN | T109,T195 | D002444 |
2176 |  | SYN | T109,T195 | D002433 |
3289 |  | SYN | T109,T121 | D003915 |
8120 |  | SYN | T109,T121 | D010621 |
7980 |  | SYN | T109,T195 | D010400 |
337623 |  | SYN | T116,T126 | C568813 |
7880 |  | SYN | T116,T126 | D010194 |
5224 | C0019134 | WK | T109,T121 | D006493 |
733 | C0002680 | WK | T109,T195 |  |
8339 |  | SYN | T109,T195 |  |
48203 |  | SYN | T109,T121 |  |
"""

# Ingredients not in Eunomia (RXCUI, name) - real, well-known RXCUIs
NEW_IN = [
    ("6809", "Metformin"),
    ("29046", "Lisinopril"),
    ("5487", "Hydrochlorothiazide"),
    ("18631", "Azithromycin"),
    ("4603", "Furosemide"),
    ("6918", "Metoprolol"),
    ("7646", "Omeprazole"),
    ("274783", "Insulin Glargine"),
]

# Clinical drugs not in Eunomia: (rxcui or '' for synthetic, name, source)
NEW_SCD = [
    ("861007", "Metformin hydrochloride 500 MG Oral Tablet", "WK"),
    ("314076", "Lisinopril 10 MG Oral Tablet", "WK"),
    ("310798", "Hydrochlorothiazide 25 MG Oral Tablet", "WK"),
    ("308460", "Azithromycin 250 MG Oral Tablet", "WK"),
    ("313988", "Furosemide 40 MG Oral Tablet", "WK"),
    ("866924", "Metoprolol Tartrate 25 MG Oral Tablet", "WK"),
    ("", "Omeprazole 20 MG Delayed Release Oral Capsule", "SYN"),
    ("", "Insulin Glargine 100 UNT/ML Injectable Solution", "SYN"),
]

# Brand names: name -> (rxcui or '' synthetic, source)
BRANDS = {
    "Tylenol": ("202433", "WK"),
    "Advil": ("153010", "WK"),
    "Lipitor": ("153165", "WK"),
    "Glucophage": ("", "SYN"),
    "Zithromax": ("", "SYN"),
    "Plavix": ("", "SYN"),
}
# Branded drugs not in Eunomia (all synthetic RXCUIs): (SCD name, brand)
NEW_SBD = [
    ("Acetaminophen 325 MG Oral Tablet", "Tylenol"),
    ("Ibuprofen 200 MG Oral Tablet", "Advil"),
    ("atorvastatin 80 MG Oral Tablet", "Lipitor"),
    ("Metformin hydrochloride 500 MG Oral Tablet", "Glucophage"),
    ("Azithromycin 250 MG Oral Tablet", "Zithromax"),
    ("clopidogrel 75 MG Oral Tablet", "Plavix"),
]

# Precise ingredients named in clinical drug names -> IN rxcui (all PIN RXCUIs are synthetic)
PIN_OF = {
    "Metformin hydrochloride": "6809",
    "Metoprolol Tartrate": "6918",
    "Penicillin V Potassium": "7984",
    "Naproxen sodium": "7258",
    "Hydrocodone Bitartrate": "5489",
    "Oxycodone Hydrochloride": "7804",
    "Doxycycline Monohydrate": "3640",
    "Warfarin Sodium": "11289",
    "Meperidine Hydrochloride": "6754",
    "Methylphenidate Hydrochloride": "6901",
    "Phenazopyridine hydrochloride": "8120",
    "Diphenhydramine Hydrochloride": "3498",
    "Fexofenadine hydrochloride": "87636",
    "cetirizine hydrochloride": "20610",
    "Donepezil hydrochloride": "135447",
    "Memantine hydrochloride": "6719",
    "Levothyroxine Sodium": "10582",
    "Chlorpheniramine Maleate": "2400",
    "Dextromethorphan Hydrobromide": "3289",
    "doxylamine succinate": "3642",
    "Alendronic acid": "46041",
    "Atropine Sulfate": "1223",
    "Amiodarone hydrochloride": "703",
    "Fluticasone propionate": "41126",
    "medroxyprogesterone acetate": "6691",
    "Morphine Sulfate": "7052",
    "rocuronium bromide": "68139",
    "Verapamil hydrochloride": "11170",
    "Diclofenac Sodium": "3355",
    "NITROFURANTOIN, MACROCRYSTALS": "7454",
    "norethindrone acetate": "7514",
    "cyclosporine, modified": "3008",
    "estradiol valerate": "4083",
}

# Dose forms with real RXCUIs (others synthetic)
DF_REAL = {"Oral Tablet": "317541", "Oral Capsule": "316965", "Injectable Solution": "316949"}
DOSE_FORMS = [
    "Extended Release Oral Capsule",
    "Extended Release Oral Tablet",
    "Delayed Release Oral Capsule",
    "Delayed Release Oral Tablet",
    "Metered Dose Inhaler",
    "Dry Powder Inhaler",
    "Inhalant Solution",
    "Injectable Solution",
    "Intrauterine System",
    "Transdermal System",
    "Prefilled Syringe",
    "Chewable Tablet",
    "Oral Suspension",
    "Oral Solution",
    "Oral Capsule",
    "Oral Tablet",
    "Topical Cream",
    "Mucosal Spray",
    "Drug Implant",
    "Auto-Injector",
    "Vaginal Ring",
    "Injection",
]

# Core clinical drugs whose RxNorm neighbourhood (SCDC, PIN, SBD, BN) is also loaded into the UMLS sample
UMLS_CORE_SCD = [
    "861007",
    "313782",
    "310965",
    "308192",
    "243670",
    "259255",
    "314076",
    "834061",
    "308460",
    "309362",
]

# UNII codes (SAB=MTHSPL, TTY=SU) - real FDA UNIIs
MTHSPL_SU = [
    ("161", "ACETAMINOPHEN", "362O9ITL9D"),
    ("1191", "ASPIRIN", "R16CO5Y76E"),
    ("5640", "IBUPROFEN", "WK2XYI10QM"),
    ("PIN:Metformin hydrochloride", "METFORMIN HYDROCHLORIDE", "786Z46389E"),
]

# SNOMEDCT_US substance atoms carried in RXNCONSO: rxcui -> sctid
RX_SNOMED = {
    "161": "387517004",
    "1191": "387458008",
    "6809": "372567009",
    "723": "372687004",
    "5640": "387207008",
}

# NDC attributes (real mappings recorded in Eunomia's CONCEPT_RELATIONSHIP 'Maps to')
NDC = [("855926", "00781178901"), ("213469", "00025152531")]

# RxNorm obsolete (suppressed) concept
OBSOLETE_RX = "197378"  # Astemizole 10 MG Oral Tablet

# RxNorm 02032025 diff
DIFF_RX: dict[str, Any] = {
    "remove_sbd": ("Azithromycin 250 MG Oral Tablet", "Zithromax"),
    "fix_dose_form": "665078",  # Loratadine 5 MG Chewable Tablet: has_dose_form Oral Tablet -> Chewable Tablet
}

# ---------------- clinical relations (ingredient RXCUI, disease SNOMED key) ----------------
MAY_TREAT = [
    ("6809", "44054006"),
    ("274783", "44054006"),
    ("274783", "46635009"),
    ("29046", "38341003"),
    ("17767", "38341003"),
    ("5487", "38341003"),
    ("6918", "38341003"),
    ("18631", "233604007"),
    ("3640", "233604007"),
    ("7984", "43878008"),
    ("723", "43878008"),
    ("18631", "43878008"),
    ("7980", "43878008"),
    ("1191", "22298006"),
    ("32968", "22298006"),
    ("6918", "22298006"),
    ("8410", "22298006"),
    ("435", "195967001"),
    ("41126", "195967001"),
    ("36117", "195967001"),
    ("8640", "195967001"),
    ("4603", "84114007"),
    ("29046", "84114007"),
    ("6918", "84114007"),
    ("3407", "84114007"),
    ("3407", "49436004"),
    ("6918", "49436004"),
    ("703", "49436004"),
    ("11170", "49436004"),
    ("83367", "55822004"),
    ("36567", "55822004"),
    ("83367", "13644009"),
    ("36567", "13644009"),
    ("435", "13645005"),
    ("41126", "13645005"),
    ("36117", "13645005"),
    ("6851", "69896004"),
    ("8640", "69896004"),
    ("7258", "69896004"),
    ("140587", "69896004"),
    ("7646", "13200003"),
    ("7646", "16761005"),
    ("723", "75498004"),
    ("3640", "75498004"),
    ("2194", "75498004"),
    ("723", "65363002"),
    ("2194", "65363002"),
    ("2176", "65363002"),
    ("7454", "68566005"),
    ("7454", "38822007"),
    ("7454", "301011002"),
    ("161", "396275006"),
    ("5640", "396275006"),
    ("7258", "396275006"),
    ("140587", "396275006"),
    ("3355", "396275006"),
    ("46041", "64859006"),
    ("10582", "40930008"),
    ("135447", "26929004"),
    ("6719", "26929004"),
    ("4637", "26929004"),
    ("6901", "192127007"),
    ("38400", "192127007"),
    ("2002", "84757009"),
    ("24947", "271737000"),
    ("11248", "271737000"),
    ("28889", "367498001"),
    ("20610", "367498001"),
    ("87636", "367498001"),
    ("42330", "367498001"),
    ("28889", "446096008"),
    ("20610", "446096008"),
    ("3992", "241929008"),
    ("3498", "241929008"),
    ("5492", "24079001"),
    ("5492", "40275004"),
    ("3992", "410429000"),
    ("703", "410429000"),
    ("8410", "230690007"),
    ("4917", "53741008"),
    ("8640", "64766004"),
    ("337623", "190905008"),
    ("7880", "190905008"),
    ("161", "386661006"),
    ("5640", "386661006"),
    ("1191", "386661006"),
    ("161", "25064002"),
    ("5640", "25064002"),
    ("1191", "25064002"),
    ("3289", "49727002"),
    ("8120", "49650001"),
]
MAY_PREVENT = [
    ("1191", "22298006"),
    ("83367", "22298006"),
    ("36567", "22298006"),
    ("32968", "22298006"),
    ("11289", "230690007"),
    ("1191", "230690007"),
    ("46041", "443165006"),
]
# disease has_contraindicated_drug drug
CONTRAINDICATED = [
    ("5640", "13200003"),
    ("7258", "13200003"),
    ("1191", "13200003"),
    ("3355", "13200003"),
    ("5640", "709044004"),
    ("7258", "709044004"),
    ("6809", "433146000"),
    ("6918", "195967001"),
    ("11289", "74474003"),
    ("1191", "74474003"),
    ("32968", "74474003"),
    ("11170", "84114007"),
]
# disease has_manifestation finding (SNOMED keys)
MANIFESTATIONS = {
    "44054006": ["28442001", "17173007", "80394007", "84229001", "111516008", "89362005"],
    "73211009": ["80394007", "28442001"],
    "38341003": ["24184005", "25064002"],
    "233604007": ["386661006", "49727002", "267036007", "29857009", "3424008"],
    "43878008": ["386661006", "162397003", "30746006", "25064002"],
    "195662009": ["162397003", "49727002", "68235000", "386661006"],
    "22298006": ["29857009", "267036007", "52613005", "422587007", "80313002"],
    "709044004": ["166717003", "29738008", "267038008", "84229001", "14140009"],
    "195967001": ["56018004", "267036007", "49727002"],
    "84114007": ["267036007", "62744007", "267038008", "84229001"],
    "49436004": ["80313002", "267036007", "3424008", "271594007"],
    "55822004": ["13644009"],
    "13645005": ["267036007", "49727002", "56018004"],
    "69896004": ["57676002", "271771009", "84445001", "84229001"],
    "48724000": ["267036007", "80313002", "84229001"],
    "13200003": ["21522001", "422587007", "2901004", "8765009"],
    "36971009": ["68235000", "25064002", "386661006"],
    "65363002": ["16001004", "386661006", "15188001"],
    "68566005": ["49650001", "162116003", "34436003", "386661006"],
    "38822007": ["49650001", "162116003", "34436003"],
    "45816000": ["386661006", "49650001", "422587007", "422400008"],
    "10509002": ["49727002", "56018004"],
    "396275006": ["57676002", "84445001"],
    "26929004": ["386807006"],
    "84757009": ["91175000"],
    "271737000": ["84229001", "267036007", "3424008"],
    "74474003": ["2901004", "8765009"],
    "367498001": ["68235000", "418290006"],
    "24079001": ["418290006"],
    "241929008": ["418290006", "56018004", "267036007"],
    "74400008": ["21522001", "422587007", "422400008", "386661006"],
    "65275009": ["21522001", "422587007", "386661006"],
    "64766004": ["21522001", "89362005"],
    "190905008": ["49727002"],
    "410429000": ["271594007"],
}

# Drug-disease pairs that sound plausible but are NOT may_treat anywhere in the sample (hallucination tests)
NOT_MAY_TREAT = [
    ("723", "44054006", "amoxicillin for type 2 diabetes"),
    ("723", "10509002", "amoxicillin for acute bronchitis (usually viral)"),
    ("723", "444814009", "amoxicillin for viral sinusitis"),
    ("723", "195662009", "amoxicillin for acute viral pharyngitis"),
    ("6809", "38341003", "metformin for hypertension"),
    ("6809", "709044004", "metformin for chronic kidney disease (contraindicated in stage 5)"),
    ("5640", "13200003", "ibuprofen for peptic ulcer (contraindicated)"),
    ("1191", "74474003", "aspirin for gastrointestinal hemorrhage (contraindicated)"),
    ("6918", "195967001", "metoprolol for asthma (contraindicated)"),
    ("83367", "38341003", "atorvastatin for hypertension"),
    ("83367", "44054006", "atorvastatin for type 2 diabetes"),
    ("29046", "44054006", "lisinopril for type 2 diabetes"),
    ("7646", "22298006", "omeprazole for myocardial infarction"),
    ("6851", "396275006", "methotrexate for osteoarthritis"),
    ("46041", "396275006", "alendronate for osteoarthritis"),
    ("7454", "233604007", "nitrofurantoin for pneumonia"),
    ("7454", "43878008", "nitrofurantoin for streptococcal sore throat"),
    ("435", "84114007", "albuterol for heart failure"),
    ("3407", "38341003", "digoxin for hypertension"),
]
