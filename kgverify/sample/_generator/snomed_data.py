"""Hand-curated SNOMED CT content for the kgverify sample.

Row format (one concept per line, fields separated by ' | '):
  sctid | semantic tag | preferred term (US) | parents (comma sep) | attributes | synonyms (';' sep) | FSN override
attributes: 'type:dest:group' separated by ';'  (type is a short name, see ATTR)
An Eunomia concept's preferred term must equal the Eunomia CONCEPT.concept_name (checked by the builder).
"""

from __future__ import annotations

from typing import Any

ATTR = {
    "isa": "116680003",
    "site": "363698007",
    "agent": "246075003",
    "dueto": "42752001",
    "morph": "116676008",
    "ingr": "127489000",
    "assoc": "47429007",
}

TABLE = r"""
138875005 | SNOMED RT+CTV3 | SNOMED CT Concept |  |  |  |
404684003 | finding | Clinical finding | 138875005 |  |  |
64572001 | disorder | Disease | 404684003 |  | Disorder |
243796009 | situation | Situation with explicit context | 138875005 |  |  |
272379006 | event | Event | 138875005 |  |  |
123037004 | body structure | Body structure | 138875005 |  |  |
442083009 | body structure | Anatomical or acquired body structure | 123037004 |  |  |
91723000 | body structure | Anatomical structure | 442083009 |  |  |
49755003 | morphologic abnormality | Morphologically abnormal structure | 123037004 |  |  |
410607006 | organism | Organism | 138875005 |  |  |
409822003 | organism | Domain Bacteria | 410607006 |  | Bacteria |
49872002 | organism | Virus | 410607006 |  |  |
105590001 | substance | Substance | 138875005 |  |  |
410942007 | substance | Drug or medicament | 105590001 |  |  |
373873005 | product | Pharmaceutical / biologic product | 138875005 |  |  |
763158003 | medicinal product | Medicinal product | 373873005 |  |  |
106237007 | linkage concept | Linkage concept | 138875005 |  |  |
246061005 | attribute | Attribute | 106237007 |  |  |
410662002 | attribute | Concept model attribute | 246061005 |  |  |
762705008 | attribute | Concept model object attribute | 410662002 |  |  |
116680003 | attribute | Is a | 410662002 |  |  |
47429007 | attribute | Associated with | 762705008 |  |  |
42752001 | attribute | Due to | 47429007 |  |  |
246075003 | attribute | Causative agent | 47429007 |  |  |
363698007 | attribute | Finding site | 762705008 |  |  |
116676008 | attribute | Associated morphology | 762705008 |  |  |
127489000 | attribute | Has active ingredient | 762705008 |  |  |
39607008 | body structure | Lung structure | 91723000 |  | Lung |
74281007 | body structure | Myocardium structure | 91723000 |  | Myocardium |
80891009 | body structure | Heart structure | 91723000 |  | Heart |
955009 | body structure | Bronchial structure | 91723000 |  | Bronchus |
54066008 | body structure | Pharyngeal structure | 91723000 |  | Pharynx |
25342003 | body structure | Middle ear structure | 91723000 |  | Middle ear |
2095001 | body structure | Accessory sinus structure | 91723000 |  | Paranasal sinus;Nasal sinus |
89837001 | body structure | Urinary bladder structure | 91723000 |  | Urinary bladder |
64033007 | body structure | Kidney structure | 91723000 |  | Kidney |
91134007 | body structure | Mitral valve structure | 91723000 |  | Mitral valve |
39352004 | body structure | Joint structure | 91723000 |  | Joint |
69695003 | body structure | Stomach structure | 91723000 |  | Stomach |
66754008 | body structure | Appendix structure | 91723000 |  | Vermiform appendix |
71854001 | body structure | Colon structure | 91723000 |  | Colon |
32849002 | body structure | Esophageal structure | 91723000 |  | Esophagus |
73829009 | body structure | Right atrial structure | 91723000 |  | Right atrium |
12738006 | body structure | Brain structure | 91723000 |  | Brain |
41801008 | body structure | Coronary artery structure | 91723000 |  | Coronary artery |
51299004 | body structure | Clavicle structure | 91723000 |  | Clavicle |
344001 | body structure | Ankle region structure | 91723000 |  | Ankle |
122865005 | body structure | Gastrointestinal tract structure | 91723000 |  | Gastrointestinal tract |
122489005 | body structure | Urinary system structure | 91723000 |  | Urinary system |
55641003 | morphologic abnormality | Infarct | 49755003 |  | Infarction |
429040005 | morphologic abnormality | Ulcer | 49755003 |  |  |
23583003 | morphologic abnormality | Inflammation | 49755003 |  |  |
72704001 | morphologic abnormality | Fracture | 49755003 |  |  |
50960005 | morphologic abnormality | Hemorrhage | 49755003 |  | Bleeding |
48333001 | morphologic abnormality | Burn injury | 49755003 |  | Burn |
80166006 | organism | Streptococcus pyogenes | 409822003 |  | Group A Streptococcus |
112283007 | organism | Escherichia coli | 409822003 |  | E. coli |
3092008 | organism | Staphylococcus aureus | 409822003 |  |  |
372567009 | substance | Metformin | 410942007 |  |  |
387458008 | substance | Aspirin | 410942007 |  | Acetylsalicylic acid |
387517004 | substance | Acetaminophen | 410942007 |  | Paracetamol | Paracetamol (substance)
372687004 | substance | Amoxicillin | 410942007 |  |  |
387207008 | substance | Ibuprofen | 410942007 |  |  |
386873009 | substance | Lisinopril | 410942007 |  |  |
373444002 | substance | Atorvastatin | 410942007 |  |  |
386952008 | substance | Clopidogrel | 410942007 |  |  |
387531004 | substance | Azithromycin | 410942007 |  |  |
387362001 | substance | Epinephrine | 410942007 |  | Adrenaline |
7947003 | medicinal product | Aspirin-containing product | 763158003 | ingr:387458008:0 | | Product containing aspirin (medicinal product)
90332006 | medicinal product | Acetaminophen-containing product | 763158003 | ingr:387517004:0 | | Product containing paracetamol (medicinal product)
27658006 | medicinal product | Amoxicillin-containing product | 763158003 | ingr:372687004:0 | | Product containing amoxicillin (medicinal product)
38268001 | medicinal product | Ibuprofen-containing product | 763158003 | ingr:387207008:0 | | Product containing ibuprofen (medicinal product)
75934005 | disorder | Metabolic disease | 64572001 |  | Disorder of metabolism |
126877002 | disorder | Disorder of glucose metabolism | 75934005 |  |  |
362969004 | disorder | Disorder of endocrine system | 64572001 |  | Endocrine disorder |
73211009 | disorder | Diabetes mellitus | 126877002,362969004 |  |  |
44054006 | disorder | Type 2 diabetes mellitus | 73211009 |  | Type II diabetes mellitus;Non-insulin dependent diabetes mellitus | Diabetes mellitus type 2 (disorder)
46635009 | disorder | Type 1 diabetes mellitus | 73211009 |  | Type I diabetes mellitus;Insulin dependent diabetes mellitus | Diabetes mellitus type 1 (disorder)
427089005 | disorder | Diabetes mellitus due to cystic fibrosis | 73211009 | dueto:190905008:1 |  |
55822004 | disorder | Hyperlipidemia | 75934005 |  |  |
49601007 | disorder | Disorder of cardiovascular system | 64572001 |  | Cardiovascular disease |
38341003 | disorder | Hypertensive disorder | 49601007 |  | Hypertension;High blood pressure;Hypertensive disease | Hypertensive disorder, systemic arterial (disorder)
59621000 | disorder | Essential hypertension | 38341003 |  | Primary hypertension |
56265001 | disorder | Heart disease | 49601007 | site:80891009:1 | Cardiac disease |
414545008 | disorder | Ischemic heart disease | 56265001 |  |  |
414024009 | disorder | Disorder of coronary artery | 56265001 | site:41801008:1 |  |
22298006 | disorder | Myocardial infarction | 414545008 | site:74281007:1;morph:55641003:1 | Cardiac infarction;Heart attack;Infarction of heart |
57054005 | disorder | Acute myocardial infarction | 22298006 | site:74281007:1;morph:55641003:1 |  |
53741008 | disorder | Coronary arteriosclerosis | 414024009,414545008 | site:41801008:1 | Coronary artery disease |
84114007 | disorder | Heart failure | 56265001 | site:80891009:1 | Cardiac failure |
698247007 | disorder | Cardiac arrhythmia | 56265001 |  | Arrhythmia |
49436004 | disorder | Atrial fibrillation | 698247007 |  |  |
410429000 | disorder | Cardiac arrest | 56265001 |  |  |
368009 | disorder | Heart valve disorder | 56265001 |  |  |
48724000 | disorder | Mitral valve regurgitation | 368009 | site:91134007:1 | Mitral insufficiency;Mitral regurgitation;Mitral incompetence |
118940003 | disorder | Disorder of nervous system | 64572001 |  | Neurological disorder |
62914000 | disorder | Cerebrovascular disease | 49601007,118940003 | site:12738006:1 |  |
230690007 | disorder | Cerebrovascular accident | 62914000 | site:12738006:1 | Stroke |
50043002 | disorder | Disorder of respiratory system | 64572001 |  | Respiratory disease |
233604007 | disorder | Pneumonia | 50043002 | site:39607008:1;morph:23583003:1 |  |
41427001 | disorder | Disorder of bronchus | 50043002 | site:955009:1 |  |
195967001 | disorder | Asthma | 41427001 | site:955009:1 | Bronchial asthma |
233678006 | disorder | Childhood asthma | 195967001 |  |  |
32398004 | disorder | Bronchitis | 41427001 | site:955009:1;morph:23583003:1 |  |
10509002 | disorder | Acute bronchitis | 32398004 | site:955009:1;morph:23583003:1 |  |
13645005 | disorder | Chronic obstructive lung disease | 50043002 | site:39607008:1 | Chronic obstructive pulmonary disease | Chronic obstructive lung disease (disorder)
87433001 | disorder | Pulmonary emphysema | 13645005 | site:39607008:1 | Emphysema |
185086009 | disorder | Emphysematous bronchitis | 13645005,32398004 |  |  |
405737000 | disorder | Pharyngitis | 50043002 | site:54066008:1;morph:23583003:1 |  |
195662009 | disorder | Acute viral pharyngitis | 405737000,34014006 | site:54066008:1;agent:49872002:2 |  |
43878008 | disorder | Streptococcal sore throat | 405737000,87628006 | site:54066008:1;agent:80166006:2 | Strep throat;Streptococcal pharyngitis;Septic sore throat |
65363002 | disorder | Otitis media | 64572001 | site:25342003:1;morph:23583003:1 | Inflammation of middle ear |
36971009 | disorder | Sinusitis | 50043002 | site:2095001:1;morph:23583003:1 |  |
444814009 | disorder | Viral sinusitis | 36971009,34014006 | site:2095001:1;agent:49872002:2 |  |
75498004 | disorder | Acute bacterial sinusitis | 36971009,87628006 | site:2095001:1 |  |
40055000 | disorder | Chronic sinusitis | 36971009 | site:2095001:1 |  |
61582004 | disorder | Allergic rhinitis | 50043002 |  |  |
446096008 | disorder | Perennial allergic rhinitis | 61582004 |  |  |
367498001 | disorder | Seasonal allergic rhinitis | 61582004 |  | Hay fever |
232353008 | disorder | Perennial allergic rhinitis with seasonal variation | 61582004 |  |  |
190905008 | disorder | Cystic fibrosis | 64572001 |  | Mucoviscidosis |
707577004 | disorder | Female infertility due to cystic fibrosis | 64572001 | dueto:190905008:1 |  |
40733004 | disorder | Infectious disease | 64572001 |  |  |
87628006 | disorder | Bacterial infectious disease | 40733004 |  | Bacterial infection |
34014006 | disorder | Viral disease | 40733004 |  | Viral infection |
406602003 | disorder | Infection due to Staphylococcus aureus | 87628006 | agent:3092008:1 |  |
68566005 | disorder | Urinary tract infectious disease | 40733004 | site:122489005:1 | Urinary tract infection | Urinary tract infectious disease (disorder)
301011002 | disorder | Escherichia coli urinary tract infection | 68566005,87628006 | site:122489005:1;agent:112283007:2 |  |
197927001 | disorder | Recurrent urinary tract infection | 68566005 |  |  |
38822007 | disorder | Cystitis | 64572001 | site:89837001:1;morph:23583003:1 | Inflammation of urinary bladder |
90708001 | disorder | Kidney disease | 64572001 | site:64033007:1 | Renal disease;Disorder of kidney |
709044004 | disorder | Chronic kidney disease | 90708001 | site:64033007:1 |  |
431855005 | disorder | Chronic kidney disease stage 1 | 709044004 |  |  |
433146000 | disorder | Chronic kidney disease stage 5 | 709044004 |  |  |
45816000 | disorder | Pyelonephritis | 90708001 | site:64033007:1;morph:23583003:1 |  |
53619000 | disorder | Disorder of digestive system | 64572001 |  | Digestive system disorder |
13200003 | disorder | Peptic ulcer | 53619000 | morph:429040005:1 | Peptic ulcer disease |
74474003 | disorder | Gastrointestinal hemorrhage | 53619000 | site:122865005:1;morph:50960005:1 | Gastrointestinal bleeding |
24526004 | disorder | Inflammatory bowel disease | 53619000 |  |  |
64766004 | disorder | Ulcerative colitis | 24526004 | site:71854001:1;morph:23583003:1 |  |
16761005 | disorder | Esophagitis | 53619000 | site:32849002:1;morph:23583003:1 |  |
397881000 | disorder | Diverticular disease | 53619000 |  |  |
424802006 | disorder | Angiodysplasia of stomach | 53619000 | site:69695003:1 |  |
68496003 | disorder | Polyp of colon | 53619000 | site:71854001:1 | Colonic polyp |
74400008 | disorder | Appendicitis | 53619000 | site:66754008:1;morph:23583003:1 |  |
47693006 | disorder | Rupture of appendix | 53619000 | site:66754008:1;assoc:74400008:2 |  |
235919008 | disorder | Gallstone | 53619000 |  | Cholelithiasis |
65275009 | disorder | Acute cholecystitis | 53619000 | morph:23583003:1 |  |
928000 | disorder | Disorder of musculoskeletal system | 64572001 |  |  |
3723001 | disorder | Arthritis | 928000 | site:39352004:1;morph:23583003:1 |  |
69896004 | disorder | Rheumatoid arthritis | 3723001 | site:39352004:1 |  |
396275006 | disorder | Osteoarthritis | 3723001 | site:39352004:1 | Degenerative joint disease |
64859006 | disorder | Osteoporosis | 928000 |  |  |
417163006 | disorder | Traumatic AND/OR non-traumatic injury | 404684003 |  | Injury |
125605004 | disorder | Fracture of bone | 417163006 | morph:72704001:1 | Bone fracture |
443165006 | disorder | Pathological fracture due to osteoporosis | 125605004,928000 | morph:72704001:1;dueto:64859006:2 |  |
16114001 | disorder | Fracture of ankle | 125605004 | site:344001:1;morph:72704001:1 |  |
58150001 | disorder | Fracture of clavicle | 125605004 | site:51299004:1;morph:72704001:1 |  |
65966004 | disorder | Fracture of forearm | 125605004 | morph:72704001:1 |  |
33737001 | disorder | Fracture of rib | 125605004 | morph:72704001:1 |  |
1734006 | disorder | Fracture of vertebral column with spinal cord injury | 125605004 | morph:72704001:1 |  |
15724005 | disorder | Fracture of vertebral column without spinal cord injury | 125605004 | morph:72704001:1 |  |
263102004 | disorder | Fracture subluxation of wrist | 125605004 | morph:72704001:1 |  |
359817006 | disorder | Closed fracture of hip | 125605004 | morph:72704001:1 |  |
44465007 | disorder | Sprain of ankle | 417163006 | site:344001:1 | Ankle sprain |
70704007 | disorder | Sprain of wrist | 417163006 |  |  |
39848009 | disorder | Whiplash injury to neck | 417163006 |  |  |
284551006 | disorder | Laceration of foot | 417163006 |  |  |
283371005 | disorder | Laceration of forearm | 417163006 |  |  |
284549007 | disorder | Laceration of hand | 417163006 |  |  |
283385000 | disorder | Laceration of thigh | 417163006 |  |  |
370247008 | disorder | Facial laceration | 417163006 |  |  |
262574004 | disorder | Bullet wound | 417163006 |  | Gunshot wound |
444470001 | disorder | Injury of anterior cruciate ligament | 417163006 |  |  |
444448004 | disorder | Injury of medial collateral ligament of knee | 417163006 |  |  |
307731004 | disorder | Injury of tendon of the rotator cuff of shoulder | 417163006 |  |  |
239720000 | disorder | Tear of meniscus of knee | 417163006 |  |  |
30832001 | disorder | Rupture of patellar tendon | 417163006 |  |  |
127295002 | disorder | Traumatic brain injury | 417163006,118940003 | site:12738006:1 |  |
110030002 | disorder | Concussion injury of brain | 127295002 | site:12738006:1 | Concussion |
62106007 | disorder | Concussion with no loss of consciousness | 110030002 |  |  |
62564004 | disorder | Concussion with loss of consciousness | 110030002 |  |  |
125666000 | disorder | Burn | 417163006 | morph:48333001:1 |  |
403190006 | disorder | First degree burn | 125666000 | morph:48333001:1 | Superficial burn |
403191005 | disorder | Second degree burn | 125666000 | morph:48333001:1 | Partial thickness burn |
403192003 | disorder | Third degree burn | 125666000 | morph:48333001:1 | Full thickness burn |
698754002 | disorder | Chronic paralysis due to lesion of spinal cord | 118940003 |  |  |
74732009 | disorder | Mental disorder | 64572001 |  | Psychiatric disorder |
52448006 | disorder | Dementia | 118940003,74732009 |  |  |
26929004 | disorder | Alzheimer's disease | 52448006 | site:12738006:1 | Alzheimer disease |
230265002 | disorder | Familial Alzheimer's disease of early onset | 26929004 |  |  |
128613002 | disorder | Seizure disorder | 118940003 |  |  |
84757009 | disorder | Epilepsy | 128613002 |  |  |
192127007 | disorder | Child attention deficit disorder | 74732009 |  |  |
40930008 | disorder | Hypothyroidism | 362969004 |  |  |
271737000 | disorder | Anemia | 64572001 |  |  |
95320005 | disorder | Disorder of skin | 64572001 |  | Skin disease |
24079001 | disorder | Atopic dermatitis | 95320005 | morph:23583003:1 | Atopic eczema |
40275004 | disorder | Contact dermatitis | 95320005 | morph:23583003:1 |  |
241929008 | disorder | Acute allergic reaction | 64572001 |  |  |
232347008 | finding | Allergy to animal dander | 404684003 |  |  |
424213003 | finding | Allergy to bee venom | 404684003 |  |  |
425525006 | finding | Allergy to dairy product | 404684003 |  |  |
91930004 | finding | Allergy to eggs | 404684003 |  |  |
417532002 | finding | Allergy to fish | 404684003 |  |  |
418689008 | finding | Allergy to grass pollen | 404684003 |  |  |
232350006 | finding | Allergy to house dust mite | 404684003 |  |  |
419474003 | finding | Allergy to mold | 404684003 |  |  |
91934008 | finding | Allergy to nut | 404684003 |  |  |
91935009 | finding | Allergy to peanuts | 404684003 |  |  |
714035009 | finding | Allergy to soy | 404684003 |  |  |
419263009 | finding | Allergy to tree pollen | 404684003 |  |  |
420174000 | finding | Allergy to wheat | 404684003 |  |  |
300916003 | finding | Latex allergy | 404684003 |  |  |
300913006 | finding | Shellfish allergy | 404684003 |  |  |
428251008 | situation | History of appendectomy | 243796009 |  |  |
429007001 | situation | History of cardiac arrest | 243796009 |  |  |
399211009 | situation | History of myocardial infarction | 243796009 |  |  |
703151001 | situation | History of single seizure | 243796009 |  |  |
287185009 | event | Attempted suicide - cut/stab | 272379006 |  |  |
386661006 | finding | Fever | 404684003 |  | Pyrexia |
49727002 | finding | Cough | 404684003 |  |  |
29857009 | finding | Chest pain | 404684003 |  |  |
267036007 | finding | Dyspnea | 404684003 |  | Shortness of breath;Breathlessness |
28442001 | finding | Polyuria | 404684003 |  |  |
17173007 | finding | Excessive thirst | 404684003 |  | Polydipsia |
80394007 | disorder | Hyperglycemia | 126877002 |  | High blood sugar |
56018004 | finding | Wheezing | 404684003 |  | Wheeze |
162397003 | finding | Pain in throat | 404684003 | site:54066008:1 | Sore throat |
25064002 | finding | Headache | 404684003 |  |  |
68235000 | finding | Nasal congestion | 404684003 |  | Stuffy nose |
16001004 | finding | Otalgia | 404684003 | site:25342003:1 | Earache;Ear pain |
49650001 | finding | Dysuria | 404684003 |  | Painful urination |
162116003 | finding | Increased frequency of urination | 404684003 |  | Frequent urination |
57676002 | finding | Joint pain | 404684003 | site:39352004:1 | Arthralgia |
84229001 | finding | Fatigue | 404684003 |  | Tiredness |
267038008 | finding | Edema | 404684003 |  | Swelling |
80313002 | finding | Palpitations | 404684003 |  |  |
166717003 | finding | Serum creatinine raised | 404684003 |  | Elevated serum creatinine;Increased creatinine level |
34436003 | finding | Blood in urine | 404684003 |  | Hematuria |
3424008 | finding | Tachycardia | 404684003 |  |  |
30746006 | disorder | Lymphadenopathy | 64572001 |  | Swollen lymph nodes |
271771009 | finding | Joint swelling | 404684003 | site:39352004:1 | Swelling of joint |
84445001 | finding | Joint stiffness | 404684003 | site:39352004:1 |  |
89362005 | finding | Weight loss | 404684003 |  |  |
422587007 | finding | Nausea | 404684003 |  |  |
422400008 | disorder | Vomiting | 53619000 |  |  |
21522001 | finding | Abdominal pain | 404684003 |  |  |
2901004 | finding | Melena | 404684003 |  |  |
8765009 | finding | Hematemesis | 404684003 |  | Vomiting blood |
418290006 | finding | Itching | 404684003 |  | Pruritus |
386807006 | finding | Memory impairment | 404684003 |  |  |
91175000 | finding | Seizure | 404684003 |  |  |
111516008 | finding | Blurring of visual image | 404684003 |  | Blurred vision |
29738008 | finding | Proteinuria | 404684003 |  |  |
14140009 | disorder | Hyperkalemia | 75934005 |  |  |
13644009 | disorder | Hypercholesterolemia | 55822004 |  |  |
62744007 | finding | Orthopnea | 404684003 |  |  |
271594007 | finding | Syncope | 404684003 |  | Fainting |
52613005 | finding | Excessive sweating | 404684003 |  | Diaphoresis |
15188001 | disorder | Hearing loss | 64572001 |  | Hypoacusis |
24184005 | finding | Finding of increased blood pressure | 404684003 |  | Increased blood pressure;Elevated blood pressure |
"""

# Retired concept present (active=0) in every snapshot.  235998001 is the SNOMED CT
# editorial guide's own worked example of a concept inactivated as a duplicate.
RETIRED = [
    ("235998001", "disorder", "Perinephric abscess", "20170731"),
]

# Inactive relationship rows kept in the 20250101 snapshot (sample history, not a real-world fact):
# (source, type, dest, group, effectiveTime of inactivation)
INACTIVE_RELS_BASE = [
    (
        "195967001",
        "isa",
        "50043002",
        0,
        "20190731",
    ),  # Asthma was directly under Disorder of respiratory system
    (
        "235998001",
        "isa",
        "90708001",
        0,
        "20170731",
    ),  # is-a of the retired concept, inactivated with it
]

# 20250601 snapshot diff (synthetic sample history, documented in README)
DIFF_0601: dict[str, Any] = {
    "inactivate_concept": "431855005",  # Chronic kidney disease stage 1
    "inactivate_rel": (
        "47693006",
        "assoc",
        "74400008",
        2,
    ),  # Rupture of appendix -Associated with-> Appendicitis
    "add_rel": ("47693006", "dueto", "74400008", 2),  # ... remodelled as Due to
}
