"""Drug content, second part: the WHO ATC classes of the sample's ingredients, the main
indications added with them, and the additions for derivation (issue 33, part 5). The
first part, ingredients and the clinical relations, is ``drug_data``, which re-exports
these names."""

from __future__ import annotations

# ---------------- drug classes (WHO ATC) ----------------
# Added after the rest of the sample: the build emits everything below after every earlier atom, concept and
# relation, so that the identifiers of the earlier sample (AUIs, LUIs, SUIs, RUIs, ATUIs, CUIs, NUIs) stay as they were.
#
# Real WHO ATC level-5 codes of the ingredients of IN_UMLS (well-known; ATC/DDD index).
# rxcui | ATC level-5 code(s) | string of the UMLS ATC atom (SAB=ATC, TTY=RXN_PT: the RxNorm-normalized ingredient name)
# Level 4 = the first 5 characters of the code, level 3 = the first 4.  Only the codes that match the sample's
# indications are given (aspirin: analgesic and antiplatelet; fluticasone: inhaled and nasal; hydrocortisone:
# systemic and dermatological).  Clavulanate (48203) has no ATC code of its own (only amoxicillin and
# beta-lactamase inhibitor, J01CR02), so it has no ATC atom.
ATC_IN = r"""
161 | N02BE01 | acetaminophen
1191 | N02BA01,B01AC06 | aspirin
723 | J01CA04 | amoxicillin
5640 | M01AE01 | ibuprofen
6809 | A10BA02 | metformin
29046 | C09AA03 | lisinopril
17767 | C08CA01 | amlodipine
5487 | C03AA03 | hydrochlorothiazide
83367 | C10AA05 | atorvastatin
36567 | C10AA01 | simvastatin
11289 | B01AA03 | warfarin
32968 | B01AC04 | clopidogrel
4603 | C03CA01 | furosemide
6918 | C07AB02 | metoprolol
435 | R03AC02 | albuterol
41126 | R03BA05,R01AD08 | fluticasone
6851 | L04AX03 | methotrexate
7646 | A02BC01 | omeprazole
18631 | J01FA10 | azithromycin
7984 | J01CE02 | penicillin V
7454 | J01XE01 | nitrofurantoin
3407 | C01AA05 | digoxin
8640 | H02AB07 | prednisone
140587 | M01AH01 | celecoxib
3355 | M01AB05 | diclofenac
7258 | M01AE02 | naproxen
274783 | A10AE04 | insulin glargine
36117 | R03AC12 | salmeterol
10582 | H03AA01 | levothyroxine
46041 | M05BA04 | alendronate
135447 | N06DA02 | donepezil
6719 | N06DX01 | memantine
4637 | N06DA04 | galantamine
6901 | N06BA04 | methylphenidate
38400 | N06BA09 | atomoxetine
2002 | N03AF01 | carbamazepine
24947 | B03AA07 | ferrous sulfate
11248 | B03BA01 | vitamin B12
28889 | R06AX13 | loratadine
20610 | R06AE07 | cetirizine
87636 | R06AX26 | fexofenadine
42328 | R06AX11 | astemizole
42330 | R06AX12 | terfenadine
3992 | C01CA24 | epinephrine
3498 | R06AA02 | diphenhydramine
5492 | H02AB09,D07AA02 | hydrocortisone
703 | C01BD01 | amiodarone
11170 | C08DA01 | verapamil
8410 | B01AD02 | alteplase
4917 | C01DA02 | nitroglycerin
3640 | J01AA02 | doxycycline
2194 | J01DC02 | cefuroxime
2176 | J01DC04 | cefaclor
3289 | R05DA09 | dextromethorphan
8120 | G04BX06 | phenazopyridine
7980 | J01CE01 | penicillin G
337623 | R05CB13 | dornase alfa
7880 | A09AA02 | pancreatin
5224 | B01AB01 | heparin
733 | J01CA01 | ampicillin
8339 | J01CA12 | piperacillin
"""
# Ingredients of IN_UMLS without an ATC atom, and why
ATC_NONE = {
    "48203": "no ATC code of its own (only in amoxicillin and beta-lactamase inhibitor, J01CR02)"
}

# WHO ATC names of the level-4 and level-3 classes used above (level 3 upper case, level 4 mixed case, as WHO writes them)
ATC_CLASS = {
    "A02B": "DRUGS FOR PEPTIC ULCER AND GASTRO-OESOPHAGEAL REFLUX DISEASE (GORD)",
    "A02BC": "Proton pump inhibitors",
    "A09A": "DIGESTIVES, INCL. ENZYMES",
    "A09AA": "Enzyme preparations",
    "A10A": "INSULINS AND ANALOGUES",
    "A10AE": "Insulins and analogues for injection, long-acting",
    "A10B": "BLOOD GLUCOSE LOWERING DRUGS, EXCL. INSULINS",
    "A10BA": "Biguanides",
    "B01A": "ANTITHROMBOTIC AGENTS",
    "B01AA": "Vitamin K antagonists",
    "B01AB": "Heparin group",
    "B01AC": "Platelet aggregation inhibitors excl. heparin",
    "B01AD": "Enzymes",
    "B03A": "IRON PREPARATIONS",
    "B03AA": "Iron bivalent, oral preparations",
    "B03B": "VITAMIN B12 AND FOLIC ACID",
    "B03BA": "Vitamin B12 (cyanocobalamin and analogues)",
    "C01A": "CARDIAC GLYCOSIDES",
    "C01AA": "Digitalis glycosides",
    "C01B": "ANTIARRHYTHMICS, CLASS I AND III",
    "C01BD": "Antiarrhythmics, class III",
    "C01C": "CARDIAC STIMULANTS EXCL. CARDIAC GLYCOSIDES",
    "C01CA": "Adrenergic and dopaminergic agents",
    "C01D": "VASODILATORS USED IN CARDIAC DISEASES",
    "C01DA": "Organic nitrates",
    "C03A": "LOW-CEILING DIURETICS, THIAZIDES",
    "C03AA": "Thiazides, plain",
    "C03C": "HIGH-CEILING DIURETICS",
    "C03CA": "Sulfonamides, plain",
    "C07A": "BETA BLOCKING AGENTS",
    "C07AB": "Beta blocking agents, selective",
    "C08C": "SELECTIVE CALCIUM CHANNEL BLOCKERS WITH MAINLY VASCULAR EFFECTS",
    "C08CA": "Dihydropyridine derivatives",
    "C08D": "SELECTIVE CALCIUM CHANNEL BLOCKERS WITH DIRECT CARDIAC EFFECTS",
    "C08DA": "Phenylalkylamine derivatives",
    "C09A": "ACE INHIBITORS, PLAIN",
    "C09AA": "ACE inhibitors, plain",
    "C10A": "LIPID MODIFYING AGENTS, PLAIN",
    "C10AA": "HMG CoA reductase inhibitors",
    "D07A": "CORTICOSTEROIDS, PLAIN",
    "D07AA": "Corticosteroids, weak (group I)",
    "G04B": "UROLOGICALS",
    "G04BX": "Other urologicals",
    "H02A": "CORTICOSTEROIDS FOR SYSTEMIC USE, PLAIN",
    "H02AB": "Glucocorticoids",
    "H03A": "THYROID PREPARATIONS",
    "H03AA": "Thyroid hormones",
    "J01A": "TETRACYCLINES",
    "J01AA": "Tetracyclines",
    "J01C": "BETA-LACTAM ANTIBACTERIALS, PENICILLINS",
    "J01CA": "Penicillins with extended spectrum",
    "J01CE": "Beta-lactamase sensitive penicillins",
    "J01D": "OTHER BETA-LACTAM ANTIBACTERIALS",
    "J01DC": "Second-generation cephalosporins",
    "J01F": "MACROLIDES, LINCOSAMIDES AND STREPTOGRAMINS",
    "J01FA": "Macrolides",
    "J01X": "OTHER ANTIBACTERIALS",
    "J01XE": "Nitrofuran derivatives",
    "L04A": "IMMUNOSUPPRESSANTS",
    "L04AX": "Other immunosuppressants",
    "M01A": "ANTIINFLAMMATORY AND ANTIRHEUMATIC PRODUCTS, NON-STEROIDS",
    "M01AB": "Acetic acid derivatives and related substances",
    "M01AE": "Propionic acid derivatives",
    "M01AH": "Coxibs",
    "M05B": "DRUGS AFFECTING BONE STRUCTURE AND MINERALIZATION",
    "M05BA": "Bisphosphonates",
    "N02B": "OTHER ANALGESICS AND ANTIPYRETICS",
    "N02BA": "Salicylic acid and derivatives",
    "N02BE": "Anilides",
    "N03A": "ANTIEPILEPTICS",
    "N03AF": "Carboxamide derivatives",
    "N06B": "PSYCHOSTIMULANTS, AGENTS USED FOR ADHD AND NOOTROPICS",
    "N06BA": "Centrally acting sympathomimetics",
    "N06D": "ANTI-DEMENTIA DRUGS",
    "N06DA": "Anticholinesterases",
    "N06DX": "Other anti-dementia drugs",
    "R01A": "DECONGESTANTS AND OTHER NASAL PREPARATIONS FOR TOPICAL USE",
    "R01AD": "Corticosteroids",
    "R03A": "ADRENERGICS, INHALANTS",
    "R03AC": "Selective beta-2-adrenoreceptor agonists",
    "R03B": "OTHER DRUGS FOR OBSTRUCTIVE AIRWAY DISEASES, INHALANTS",
    "R03BA": "Glucocorticoids",
    "R05C": "EXPECTORANTS, EXCL. COMBINATIONS WITH COUGH SUPPRESSANTS",
    "R05CB": "Mucolytics",
    "R05D": "COUGH SUPPRESSANTS, EXCL. COMBINATIONS WITH EXPECTORANTS",
    "R05DA": "Opium alkaloids and derivatives",
    "R06A": "ANTIHISTAMINES FOR SYSTEMIC USE",
    "R06AA": "Aminoalkyl ethers",
    "R06AE": "Piperazine derivatives",
    "R06AX": "Other antihistamines for systemic use",
}

# ---------------- main indications added with the drug classes ----------------
# Well-known labelled indications (US prescribing information) or guideline-standard uses, restricted to diseases
# the sample already has; emitted after the original MED-RT rows (see above).  (ingredient rxcui, SNOMED key, why)
MAY_TREAT_ADDED = [
    (
        "1191",
        "69896004",
        "aspirin: rheumatoid arthritis (professional labelling, rheumatologic indications)",
    ),
    (
        "1191",
        "396275006",
        "aspirin: osteoarthritis (professional labelling, rheumatologic indications)",
    ),
    ("5640", "69896004", "ibuprofen: signs and symptoms of rheumatoid arthritis (label)"),
    ("3355", "69896004", "diclofenac: rheumatoid arthritis (label)"),
    (
        "29046",
        "22298006",
        "lisinopril: acute myocardial infarction, haemodynamically stable (label)",
    ),
    (
        "17767",
        "53741008",
        "amlodipine: coronary artery disease, chronic stable and vasospastic angina (label)",
    ),
    ("5487", "267038008", "hydrochlorothiazide: oedema (label)"),
    ("4603", "267038008", "furosemide: oedema of heart failure, cirrhosis, renal disease (label)"),
    ("4603", "38341003", "furosemide: hypertension (oral tablets, label)"),
    ("11289", "49436004", "warfarin: thromboembolic complications of atrial fibrillation (label)"),
    (
        "41126",
        "61582004",
        "fluticasone: seasonal and perennial allergic rhinitis (nasal spray, label)",
    ),
    ("18631", "75498004", "azithromycin: acute bacterial sinusitis (label)"),
    ("18631", "65363002", "azithromycin: acute otitis media (paediatric label)"),
    ("8640", "13645005", "prednisone: exacerbations of COPD (guideline standard)"),
    ("8640", "24079001", "prednisone: atopic dermatitis (label, allergic states)"),
    ("8640", "40275004", "prednisone: contact dermatitis (label, allergic states)"),
    (
        "8640",
        "241929008",
        "prednisone: severe allergic conditions, drug hypersensitivity reactions (label)",
    ),
    ("3498", "367498001", "diphenhydramine: seasonal allergic rhinitis, hay fever (label)"),
    ("5492", "64766004", "hydrocortisone: ulcerative colitis (rectal and systemic, label)"),
    ("11170", "38341003", "verapamil: hypertension (label)"),
    ("5224", "49436004", "heparin: atrial fibrillation with embolization (label)"),
    (
        "5224",
        "22298006",
        "heparin: acute myocardial infarction, acute coronary syndrome (guideline standard)",
    ),
    ("733", "233604007", "ampicillin: respiratory tract infections, pneumonia (label)"),
    ("733", "68566005", "ampicillin: urinary tract infections (label)"),
    (
        "8339",
        "233604007",
        "piperacillin (with tazobactam): nosocomial and community-acquired pneumonia (label)",
    ),
    (
        "8339",
        "74400008",
        "piperacillin (with tazobactam): appendicitis (label, intra-abdominal infections)",
    ),
    (
        "8339",
        "47693006",
        "piperacillin (with tazobactam): appendicitis complicated by rupture (label)",
    ),
    (
        "2194",
        "43878008",
        "cefuroxime: pharyngitis and tonsillitis due to Streptococcus pyogenes (label)",
    ),
]
MAY_PREVENT_ADDED = [
    ("83367", "230690007", "atorvastatin: reduces the risk of stroke (label)"),
    ("36567", "230690007", "simvastatin: reduces the risk of stroke (label)"),
    (
        "32968",
        "230690007",
        "clopidogrel: reduces the rate of stroke after recent stroke, MI or PAD (label)",
    ),
    ("11289", "22298006", "warfarin: reduces the risk of recurrent myocardial infarction (label)"),
]
# Ingredients of IN_UMLS with no may_treat / may_prevent row, and why
NO_INDICATION = {
    "42328": "astemizole: withdrawn worldwide in 1999 (its clinical drug is obsolete in the RxNorm sample)",
    "48203": "clavulanate: a beta-lactamase inhibitor with no indication of its own; it is given only with amoxicillin, "
    "whose indications carry the combination",
}

# ---------------- added for derivation (issue 33, part 5) ----------------
# Emitted after everything above (a third wave: its CUIs, AUIs, LUIs, SUIs, RUIs, ATUIs and NUIs are numbered after
# every earlier one), so that the identifiers of the earlier sample stay as they were.
#
# ATC levels 1 and 2: the WHO names of the anatomical main groups (level 1, one letter) and therapeutic subgroups
# (level 2, three characters) above the level-3 classes of ATC_CLASS (WHO ATC/DDD index, stated from knowledge).
# Several level-2 names equal their only level-3 child's name, as in ATC itself (B01/B01A, A09/A09A, C07/C07A,
# G04/G04B, L04/L04A, N03/N03A, R06/R06A).
ATC_CLASS_UPPER = {
    "A": "ALIMENTARY TRACT AND METABOLISM",
    "A02": "DRUGS FOR ACID RELATED DISORDERS",
    "A09": "DIGESTIVES, INCL. ENZYMES",
    "A10": "DRUGS USED IN DIABETES",
    "B": "BLOOD AND BLOOD FORMING ORGANS",
    "B01": "ANTITHROMBOTIC AGENTS",
    "B03": "ANTIANEMIC PREPARATIONS",
    "C": "CARDIOVASCULAR SYSTEM",
    "C01": "CARDIAC THERAPY",
    "C03": "DIURETICS",
    "C07": "BETA BLOCKING AGENTS",
    "C08": "CALCIUM CHANNEL BLOCKERS",
    "C09": "AGENTS ACTING ON THE RENIN-ANGIOTENSIN SYSTEM",
    "C10": "LIPID MODIFYING AGENTS",
    "D": "DERMATOLOGICALS",
    "D07": "CORTICOSTEROIDS, DERMATOLOGICAL PREPARATIONS",
    "G": "GENITO URINARY SYSTEM AND SEX HORMONES",
    "G04": "UROLOGICALS",
    "H": "SYSTEMIC HORMONAL PREPARATIONS, EXCL. SEX HORMONES AND INSULINS",
    "H02": "CORTICOSTEROIDS FOR SYSTEMIC USE",
    "H03": "THYROID THERAPY",
    "J": "ANTIINFECTIVES FOR SYSTEMIC USE",
    "J01": "ANTIBACTERIALS FOR SYSTEMIC USE",
    "L": "ANTINEOPLASTIC AND IMMUNOMODULATING AGENTS",
    "L04": "IMMUNOSUPPRESSANTS",
    "M": "MUSCULO-SKELETAL SYSTEM",
    "M01": "ANTIINFLAMMATORY AND ANTIRHEUMATIC PRODUCTS",
    "M05": "DRUGS FOR TREATMENT OF BONE DISEASES",
    "N": "NERVOUS SYSTEM",
    "N02": "ANALGESICS",
    "N03": "ANTIEPILEPTICS",
    "N06": "PSYCHOANALEPTICS",
    "R": "RESPIRATORY SYSTEM",
    "R01": "NASAL PREPARATIONS",
    "R03": "DRUGS FOR OBSTRUCTIVE AIRWAY DISEASES",
    "R05": "COUGH AND COLD PREPARATIONS",
    "R06": "ANTIHISTAMINES FOR SYSTEMIC USE",
}

# Labelled indications (US prescribing information, stated from knowledge) of the sample's ingredients for the
# sample's diseases that Eunomia patients have, missing so far (and of the ingredients of IN_UMLS_DERIVE, below).  MED-RT may_treat rows like the others, at ingredient
# level (no class-level indication: MED-RT attaches indications to ingredients).  Never on a parent of a deliberate
# false pair's disease (Sinusitis, Pharyngitis, Bronchitis ...): the `ancestor` rule would carry it down to the false
# pair.  (ingredient rxcui, SNOMED key, why)
MAY_TREAT_DERIVE = [
    (
        "7980",
        "65363002",
        "penicillin G: pneumococcal infections of the respiratory tract including otitis media (penicillin G "
        "benzathine/procaine label)",
    ),
    (
        "7980",
        "233604007",
        "penicillin G: pneumonia due to susceptible streptococci and pneumococci (label)",
    ),
    (
        "723",
        "68566005",
        "amoxicillin: infections of the genitourinary tract due to E. coli, P. mirabilis, E. faecalis (label)",
    ),
    ("2194", "68566005", "cefuroxime: uncomplicated urinary tract infections (label)"),
    (
        "2194",
        "233604007",
        "cefuroxime: lower respiratory tract infections including pneumonia (label)",
    ),
    (
        "2176",
        "68566005",
        "cefaclor: urinary tract infections, including pyelonephritis and cystitis (label)",
    ),
    ("2176", "38822007", "cefaclor: urinary tract infections, including cystitis (label)"),
    ("2176", "45816000", "cefaclor: urinary tract infections, including pyelonephritis (label)"),
    (
        "2176",
        "233604007",
        "cefaclor: lower respiratory tract infections, including pneumonia (label)",
    ),
    (
        "2176",
        "43878008",
        "cefaclor: pharyngitis and tonsillitis caused by Streptococcus pyogenes (label)",
    ),
    (
        "36567",
        "53741008",
        "simvastatin: reduces CHD death, non-fatal MI and revascularization in adults with established coronary heart "
        "disease (label)",
    ),
    (
        "83367",
        "53741008",
        "atorvastatin: reduces MI, stroke, revascularization and angina in adults with clinically evident coronary "
        "heart disease (label)",
    ),
    (
        "5492",
        "241929008",
        "hydrocortisone: severe allergic states, drug hypersensitivity reactions, anaphylaxis adjunct (systemic, label)",
    ),
    ("5492", "195967001", "hydrocortisone: bronchial asthma (allergic states, systemic, label)"),
    (
        "8640",
        "61582004",
        "prednisone: seasonal or perennial allergic rhinitis (allergic states, label)",
    ),
    ("20610", "61582004", "cetirizine: seasonal and perennial allergic rhinitis (label)"),
    (
        "36117",
        "87433001",
        "salmeterol: bronchospasm of COPD, including emphysema and chronic bronchitis (label)",
    ),
    # ingredients placed in UMLS for derivation (IN_UMLS_DERIVE)
    (
        "3322",
        "84757009",
        "diazepam: adjunctively in convulsive disorders (tablets); status epilepticus and bouts of increased seizure "
        "activity in epilepsy (injection, rectal gel) (label)",
    ),
    (
        "1223",
        "410429000",
        "atropine: bradyasystolic cardiac arrest (injection label; no longer recommended routinely by the AHA ACLS "
        "guidelines since 2010)",
    ),
    (
        "2400",
        "61582004",
        "chlorpheniramine: hay fever and other upper respiratory allergies (OTC label)",
    ),
    (
        "3008",
        "69896004",
        "cyclosporine: severe active rheumatoid arthritis not adequately responsive to methotrexate (modified, label)",
    ),
    (
        "10318",
        "26929004",
        "tacrine: mild to moderate dementia of the Alzheimer's type (label; withdrawn from the US market in 2013)",
    ),
]

# Preventive indications (label), as MED-RT may_prevent rows; for ingredients placed in UMLS for derivation
MAY_PREVENT_DERIVE = [
    (
        "26225",
        "422587007",
        "ondansetron: prevention of postoperative and chemotherapy-induced nausea (label)",
    ),
    (
        "26225",
        "422400008",
        "ondansetron: prevention of postoperative and chemotherapy-induced vomiting (label)",
    ),
]

# Contraindications (disease has_contraindicated_drug drug): (ingredient rxcui, SNOMED key, why).  Renal ones whose
# label names severe or significant renal impairment sit on Chronic kidney disease stage 5 (which CKD stage 1 is not:
# the `ancestor` rule would carry a row on Chronic kidney disease down to stage 1); cyclosporine's label names any
# abnormal renal function.
CONTRAINDICATED_DERIVE = [
    (
        "140587",
        "13200003",
        "celecoxib: active peptic ulceration (EU SmPC contraindication; US boxed warning, GI ulceration and bleeding)",
    ),
    (
        "140587",
        "74474003",
        "celecoxib: active gastrointestinal bleeding (EU SmPC contraindication; US boxed warning)",
    ),
    (
        "5640",
        "74474003",
        "ibuprofen: active gastrointestinal bleeding (EU SmPC contraindication; US boxed warning)",
    ),
    (
        "7258",
        "74474003",
        "naproxen: active gastrointestinal bleeding (EU SmPC contraindication; US boxed warning)",
    ),
    (
        "3355",
        "74474003",
        "diclofenac: active gastrointestinal bleeding (EU SmPC contraindication; US boxed warning)",
    ),
    (
        "3355",
        "433146000",
        "diclofenac: severe renal failure (EU SmPC contraindication; US: not recommended in advanced renal disease)",
    ),
    (
        "140587",
        "433146000",
        "celecoxib: severe renal impairment (EU SmPC contraindication; US: not recommended in severe renal "
        "insufficiency)",
    ),
    ("5224", "74474003", "heparin: uncontrolled active bleeding (label contraindication)"),
    ("8410", "74474003", "alteplase: active internal bleeding (label contraindication)"),
    (
        "11289",
        "13200003",
        "warfarin: bleeding tendencies associated with active ulceration of the gastrointestinal tract (label "
        "contraindication)",
    ),
    (
        "32968",
        "13200003",
        "clopidogrel: active pathological bleeding such as peptic ulcer (label contraindication)",
    ),
    (
        "7454",
        "433146000",
        "nitrofurantoin: anuria, oliguria or significant impairment of renal function, creatinine clearance under "
        "60 mL/min (label contraindication)",
    ),
    ("8120", "433146000", "phenazopyridine: renal insufficiency (label contraindication)"),
    # ingredients placed in UMLS for derivation (IN_UMLS_DERIVE)
    (
        "3008",
        "709044004",
        "cyclosporine: rheumatoid arthritis or psoriasis patients with abnormal renal function (modified, label)",
    ),
]

# Documented causes among the sample's diseases, for prognosis (`leads_to`): the outcome is due to the cause.  MRREL
# rows SAB=MTH, RELA due_to / cause_of, both directions, STYPE CUI and no AUIs, like the has_manifestation rows: a
# sample assertion (real UMLS carries due_to from SNOMED CT, whose concepts state a cause only when it defines them).
# A row names a documented cause, not the only one.  Each pair occurs in this order in Eunomia (same person, the cause
# first or the same day).  (outcome SNOMED key, cause SNOMED key, why)
DUE_TO_DERIVE = [
    (
        "22298006",
        "53741008",
        "myocardial infarction: atherosclerotic plaque rupture in a coronary artery",
    ),
    (
        "410429000",
        "53741008",
        "cardiac arrest: coronary artery disease, the commonest cause of sudden cardiac arrest",
    ),
    ("230690007", "49436004", "stroke: cardioembolism from atrial fibrillation"),
    (
        "65275009",
        "235919008",
        "acute cholecystitis: gallstones obstructing the cystic duct (calculous cholecystitis)",
    ),
    (
        "698754002",
        "1734006",
        "chronic paralysis due to lesion of spinal cord: spinal cord injury with vertebral fracture",
    ),
    ("74474003", "13200003", "gastrointestinal hemorrhage: bleeding peptic ulcer"),
    ("74474003", "16761005", "gastrointestinal hemorrhage: erosive esophagitis"),
    ("74474003", "424802006", "gastrointestinal hemorrhage: bleeding angiodysplasia"),
    ("74474003", "397881000", "gastrointestinal hemorrhage: diverticular bleeding"),
    (
        "74474003",
        "64766004",
        "gastrointestinal hemorrhage: ulcerative colitis (bloody diarrhoea, rectal bleeding)",
    ),
    ("359817006", "64859006", "hip fracture: osteoporotic fragility fracture"),
]

# Eunomia ingredients that were only in the RxNorm sample and have a labelled indication for a disease of the sample:
# placed in UMLS here (synthetic CUIs, an RXNORM IN atom, a MED-RT atom, an ATC atom and class chain like the others;
# no MeSH atom).  rxcui | TUIs | ATC level-5 code | string of the ATC atom
IN_UMLS_DERIVE = r"""
3322 | T109,T121 | N05BA01 | diazepam
1223 | T109,T121 | A03BA01 | atropine
2400 | T109,T121 | R06AB04 | chlorpheniramine
26225 | T109,T121 | A04AA01 | ondansetron
3008 | T109,T121 | L04AD01 | cyclosporine
10318 | T109,T121 | N06DA01 | tacrine
"""
# WHO names of the ATC classes (levels 2 to 4) that only these ingredients use
ATC_CLASS_DERIVE = {
    "A03": "DRUGS FOR FUNCTIONAL GASTROINTESTINAL DISORDERS",
    "A03B": "BELLADONNA AND DERIVATIVES, PLAIN",
    "A03BA": "Belladonna alkaloids, tertiary amines",
    "A04": "ANTIEMETICS AND ANTINAUSEANTS",
    "A04A": "ANTIEMETICS AND ANTINAUSEANTS",
    "A04AA": "Serotonin (5HT3) antagonists",
    "L04AD": "Calcineurin inhibitors",
    "N05": "PSYCHOLEPTICS",
    "N05B": "ANXIOLYTICS",
    "N05BA": "Benzodiazepine derivatives",
    "R06AB": "Substituted alkylamines",
}
