"""Procedures for the sample (issue 37, sixth pass): the SNOMED CT procedure concepts that
Eunomia's records code (procedure_occurrence, and the measurement rows coded as SNOMED
procedures), a few common procedures no Eunomia patient has, and the consumer terms
patients use for them.

Until this pass the sample loaded no procedure concept, so every procedure fact stayed
ungrounded: fact sheets held none, QA stems showed none, and a patient who said "I had
stitches" or "my appendix out" was no mention at all. Each row is numbered after every
earlier identifier of its vocabulary (RF2 description and relationship ids after the
20250601 diff's, UMLS CUIs, atoms and CHV codes after the fifth pass's), so the rest of the
sample keeps every identifier it had.

The hierarchy is the sample's usual shallow one, not SNOMED CT's: a procedure sits under
one of five groups (diagnostic, imaging, plain radiography, surgical, therapeutic) below
|Procedure|. The consumer terms are written from general clinical knowledge, as
common_terms.py's are; a term a patient could mean of two recorded things is left out
("implant": the contraceptive implant is also a recorded drug; "shot": any injection).
Eunomia's two extension concepts (``LEFT_OUT``) are not loaded: the sample ships the
International release, so those facts stay ungrounded and reported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

ROOT = "71388002"  # |Procedure|
DIAGNOSTIC = "103693007"
IMAGING = "363679005"
RADIOGRAPHY = "168537006"
SURGICAL = "387713003"
THERAPEUTIC = "277132007"


@dataclass(frozen=True)
class Procedure:
    """One procedure concept: RF2 identity, sample parent, UMLS semantic type, the consumer
    terms (CHV) of its concept; ``eunomia`` when Eunomia's records code it (its preferred
    term is then Eunomia's concept name, checked by the builder)."""

    sctid: str
    name: str
    parent: str
    tui: str
    lay: tuple[str, ...] = ()
    synonyms: tuple[str, ...] = ()
    eunomia: bool = True


def _p(
    sctid: str,
    name: str,
    parent: str,
    tui: str,
    *lay: str,
    synonyms: tuple[str, ...] = (),
    eunomia: bool = True,
) -> Procedure:
    return Procedure(sctid, name, parent, tui, lay, synonyms, eunomia)


# T058 Health Care Activity, T060 Diagnostic Procedure, T061 Therapeutic or Preventive
# Procedure. Groups first (parents before children), then Eunomia's, then the common ones.
PROCEDURES: tuple[Procedure, ...] = (
    _p(ROOT, "Procedure", "138875005", "T058", eunomia=False),
    _p(DIAGNOSTIC, "Diagnostic procedure", ROOT, "T060", eunomia=False),
    _p(IMAGING, "Imaging", DIAGNOSTIC, "T060", synonyms=("Imaging procedure",), eunomia=False),
    _p(
        RADIOGRAPHY,
        "Plain radiography",
        IMAGING,
        "T060",
        "x-ray",
        "x-rays",
        "xray",
        synonyms=("Plain X-ray",),
        eunomia=False,
    ),
    _p(SURGICAL, "Surgical procedure", ROOT, "T061", "surgery", "operation", eunomia=False),
    _p(THERAPEUTIC, "Therapeutic procedure", ROOT, "T061", eunomia=False),
    # -- Eunomia's procedure_occurrence, most frequent first
    _p(
        "180256009",
        "Subcutaneous immunotherapy",
        THERAPEUTIC,
        "T061",
        "allergy shots",
        "allergy shot",
        "allergy injections",
    ),
    _p(
        "228557008",
        "Cognitive and behavioral therapy",
        THERAPEUTIC,
        "T061",
        "CBT",
        "cognitive behavioral therapy",
        "cognitive behavioural therapy",
    ),
    _p("288086009", "Suture open wound", SURGICAL, "T061", "stitches", "stitched up", "sutures"),
    _p("274474001", "Bone immobilization", THERAPEUTIC, "T061", "cast", "splint", "in a cast"),
    _p("269911007", "Sputum examination", DIAGNOSTIC, "T060", "sputum test", "sputum sample"),
    _p(
        "180325003",
        "Direct current cardioversion",
        THERAPEUTIC,
        "T061",
        "cardioversion",
        "shocked my heart",
        "shock my heart",
        synonyms=("DC cardioversion",),
    ),
    _p("76601001", "Intramuscular injection", THERAPEUTIC, "T061", "intramuscular shot"),
    _p(
        "15081005", "Pulmonary rehabilitation", THERAPEUTIC, "T061", "pulmonary rehab", "lung rehab"
    ),
    _p(
        "395142003",
        "Allergy screening test",
        DIAGNOSTIC,
        "T060",
        "allergy test",
        "allergy tests",
        "allergy testing",
        "allergy blood test",
        "skin prick test",
    ),
    _p(
        "312681000",
        "Bone density scan",
        IMAGING,
        "T060",
        "bone scan",
    ),
    _p(
        "399208008",
        "Plain chest X-ray",
        RADIOGRAPHY,
        "T060",
        "chest x-ray",
        "chest xray",
        "chest film",
    ),
    _p("1225002", "Radiography of humerus", RADIOGRAPHY, "T060", "arm x-ray", "x-ray of my arm"),
    _p(
        "384700001",
        "Injection of tetanus antitoxin",
        THERAPEUTIC,
        "T061",
        "tetanus shot",
        "tetanus injection",
    ),
    _p("60027007", "Radiography of wrist", RADIOGRAPHY, "T060", "wrist x-ray", "x-ray of my wrist"),
    _p(
        "168594001",
        "Plain X-ray of clavicle",
        RADIOGRAPHY,
        "T060",
        "collarbone x-ray",
        "x-ray of my collarbone",
    ),
    _p("19490002", "Radiography of ankle", RADIOGRAPHY, "T060", "ankle x-ray", "x-ray of my ankle"),
    _p(
        "18286008",
        "Catheter ablation of tissue of heart",
        SURGICAL,
        "T061",
        "ablation",
        "heart ablation",
        "cardiac ablation",
    ),
    _p(
        "74016001",
        "Radiologic examination of knee",
        RADIOGRAPHY,
        "T060",
        "knee x-ray",
        "x-ray of my knee",
    ),
    _p(
        "699253003",
        "Surgical manipulation of joint of knee",
        SURGICAL,
        "T061",
        "knee manipulation",
    ),
    _p(
        "433112001",
        "Percutaneous mechanical thrombectomy of portal vein using fluoroscopic guidance",
        SURGICAL,
        "T061",
        "thrombectomy",
        "clot removed",
    ),
    _p(
        "65200003",
        "Insertion of intrauterine contraceptive device",
        THERAPEUTIC,
        "T061",
        "IUD put in",
        "IUD inserted",
    ),
    _p(
        "313191000",
        "Injection of epinephrine",
        THERAPEUTIC,
        "T061",
        "epinephrine shot",
        "adrenaline shot",
    ),
    _p(
        "80146002",
        "Appendectomy",
        SURGICAL,
        "T061",
        "appendix out",
        "appendix removed",
        "appendix taken out",
    ),
    _p(
        "447365002",
        "Insertion of biventricular implantable cardioverter defibrillator",
        SURGICAL,
        "T061",
        "defibrillator",
        "implanted defibrillator",
    ),
    _p(
        "68254000",
        "Removal of intrauterine device",
        THERAPEUTIC,
        "T061",
        "IUD removed",
        "IUD taken out",
    ),
    _p("268425006", "Pelvis X-ray", RADIOGRAPHY, "T060", "pelvic x-ray", "x-ray of my pelvis"),
    _p("54550000", "Electroencephalogram", DIAGNOSTIC, "T060", "EEG", "brain wave test"),
    _p("112790001", "Nasal sinus endoscopy", DIAGNOSTIC, "T060", "sinus scope", "nasal endoscopy"),
    _p("162676008", "Brief general examination", DIAGNOSTIC, "T058"),
    _p("415300000", "Review of systems", DIAGNOSTIC, "T058"),
    _p("430193006", "Medication Reconciliation", ROOT, "T058"),
    _p("171231001", "Asthma screening", DIAGNOSTIC, "T060"),
    _p(
        "415070008",
        "Percutaneous coronary intervention",
        SURGICAL,
        "T061",
        "angioplasty",
        "stent",
        "stents",
    ),
    _p(
        "232717009",
        "Coronary artery bypass graft",
        SURGICAL,
        "T061",
        "bypass surgery",
        "heart bypass",
        "CABG",
    ),
    _p(
        "46706006",
        "Replacement of intrauterine contraceptive device",
        THERAPEUTIC,
        "T061",
        "IUD replaced",
    ),
    _p("22523008", "Vasectomy", SURGICAL, "T061"),
    _p("169553002", "Insertion of subcutaneous contraceptive", THERAPEUTIC, "T061"),
    _p(
        "29303009",
        "Electrocardiographic procedure",
        DIAGNOSTIC,
        "T060",
        "EKG",
        "ECG",
        "electrocardiogram",
    ),
    _p("52765003", "Intubation", THERAPEUTIC, "T061", "breathing tube", "intubated"),
    _p(
        "38102005",
        "Cholecystectomy",
        SURGICAL,
        "T061",
        "gallbladder out",
        "gallbladder removed",
        "gallbladder taken out",
        "gallbladder surgery",
    ),
    _p("45595009", "Laparoscopic cholecystectomy", "38102005", "T061"),
    _p(
        "387685009",
        "Surgical manipulation of shoulder joint",
        SURGICAL,
        "T061",
        "shoulder manipulation",
    ),
    _p("88039007", "Transplant of lung", SURGICAL, "T061", "lung transplant"),
    _p(
        "301807007",
        "Removal of subcutaneous contraceptive",
        THERAPEUTIC,
        "T061",
        "implant removed",
        "implant taken out",
    ),
    _p("429609002", "Lung volume reduction surgery", SURGICAL, "T061", "lung reduction surgery"),
    _p("287664005", "Bilateral tubal ligation", SURGICAL, "T061", "tubes tied", "tubal ligation"),
    _p(
        "180207008",
        "Intravenous blood transfusion of packed cells",
        THERAPEUTIC,
        "T061",
        "blood transfusion",
        "transfusion",
    ),
    _p("90407005", "Evaluation of psychiatric state of patient", DIAGNOSTIC, "T060"),
    _p("88848003", "Psychiatric follow-up", THERAPEUTIC, "T058"),
    # -- Eunomia's measurement rows coded as SNOMED procedures (their facts are labs)
    _p("117015009", "Throat culture", DIAGNOSTIC, "T060", "throat swab", "strep test"),
    _p(
        "23426006",
        "Measurement of respiratory function",
        DIAGNOSTIC,
        "T060",
    ),
    _p("127783003", "Spirometry", "23426006", "T060", "blowing test"),
    # -- common procedures no Eunomia patient has: said, they are affirmed inventions
    _p("73761001", "Colonoscopy", DIAGNOSTIC, "T060", eunomia=False),
    _p("71651007", "Mammography", IMAGING, "T060", "mammogram", eunomia=False),
    _p(
        "113091000", "Magnetic resonance imaging", IMAGING, "T060", "MRI", "MRI scan", eunomia=False
    ),
    _p(
        "77477000",
        "Computerized axial tomography",
        IMAGING,
        "T060",
        "CT scan",
        "CAT scan",
        eunomia=False,
    ),
    _p(
        "52734007",
        "Total replacement of hip",
        SURGICAL,
        "T061",
        "hip replacement",
        "hip replaced",
        "new hip",
        eunomia=False,
    ),
    _p(
        "609588000",
        "Total knee replacement",
        SURGICAL,
        "T061",
        "knee replacement",
        "knee replaced",
        "new knee",
        eunomia=False,
    ),
    _p(
        "307280005",
        "Implantation of cardiac pacemaker",
        SURGICAL,
        "T061",
        "pacemaker",
        "pacemaker put in",
        eunomia=False,
    ),
    _p("236886002", "Hysterectomy", SURGICAL, "T061", "womb removed", eunomia=False),
    _p(
        "173422009",
        "Tonsillectomy",
        SURGICAL,
        "T061",
        "tonsils out",
        "tonsils removed",
        eunomia=False,
    ),
    _p("11466000", "Cesarean section", SURGICAL, "T061", "C-section", "c section", eunomia=False),
    _p("110473004", "Cataract surgery", SURGICAL, "T061", "cataracts removed", eunomia=False),
)

LEFT_OUT = {
    "426701000119108": "a US Edition concept (ultrasonography of the right upper quadrant)",
    "755621000000101": "a UK Edition concept (reinsertion of a subcutaneous contraceptive)",
}
"""Eunomia's procedure codes the sample does not load, and why."""


def by_id() -> dict[str, Procedure]:
    """The procedures by SCTID (unique: checked)."""
    out: dict[str, Procedure] = {}
    for p in PROCEDURES:
        assert p.sctid not in out, p.sctid
        out[p.sctid] = p
    return out


def readme_section(w: Callable[[str], None], k2c: dict[str, str]) -> None:
    """The README's section on the procedures (the build's key -> CUI map)."""
    groups = {ROOT, DIAGNOSTIC, IMAGING, RADIOGRAPHY, SURGICAL, THERAPEUTIC}
    eunomia = [p for p in PROCEDURES if p.eunomia]
    common = [p for p in PROCEDURES if not p.eunomia and p.sctid not in groups]
    w("## Procedures (issue 37, sixth pass)")
    w("")
    w(
        "Until this pass the sample loaded no procedure concept: every procedure Eunomia records "
        'stayed ungrounded, so fact sheets and QA stems held none and a patient who said "I had '
        f'stitches" was no mention. Both SNOMED CT releases now carry {len(eunomia)} procedures '
        "Eunomia's records code (procedure_occurrence, and the measurement rows coded as SNOMED "
        f"procedures: throat culture, spirometry), {len(common)} common procedures no Eunomia "
        "patient has (said by a patient, they are affirmed inventions), and six grouping concepts "
        "(|Procedure|, diagnostic, imaging, plain radiography, surgical, therapeutic) in a shallow "
        "sample hierarchy, not SNOMED CT's. Their RF2 descriptions and relationships are numbered "
        "after every earlier one (the 20250601 diff's included). Both UMLS releases carry each as "
        "a concept with a synthetic CUI after every earlier one: its SNOMEDCT_US atoms, its "
        "consumer terms (SAB `CHV`, one synthetic CHV code per concept with terms), semantic "
        "type T058, T060 or T061, and its SNOMEDCT_US is-a rows. The consumer terms are written "
        "from general clinical knowledge; a term a patient could mean of two recorded things is "
        'left out ("implant": the contraceptive implant is also a recorded drug; "shot"; the '
        "bone density and spirometry names that the LOINC labs recorded with them already "
        "carry). Not loaded (their facts stay ungrounded and are reported): "
        + "; ".join(f"{k}, {why}" for k, why in LEFT_OUT.items())
        + "."
    )
    w("")
    w(
        "| procedure (SNOMED CT preferred term) | SCTID | CUI | TUI | Eunomia | consumer terms (CHV) |"
    )
    w("|---|---|---|---|---|---|")
    for p in PROCEDURES:
        shown = "yes" if p.eunomia else ""
        w(f"| {p.name} | {p.sctid} | {k2c[p.sctid]} | {p.tui} | {shown} | {', '.join(p.lay)} |")
    w("")
