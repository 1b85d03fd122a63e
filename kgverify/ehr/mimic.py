"""MIMIC-IV ``hosp`` module (v2 / v3 CSV or CSV.gz files) -> trajectories, one subject at a time.

MIMIC files are not sorted by subject and ``labevents`` alone has over 100 million rows, so
nothing is read into Python whole: each file is staged into a scratch DuckDB database (its
malformed lines rejected with their line numbers), then streamed sorted by ``subject_id``
and merged per subject (see ``common``). Admissions are the encounters; diagnoses,
prescriptions and lab events are the items, with their names from ``d_icd_diagnoses`` and
``d_labitems``. An item's ``source.row`` is its line in the file (the header is line 1).
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable, Generator
from contextlib import closing
from pathlib import Path
from typing import Any

import duckdb

from kgverify.config import Settings
from kgverify.ehr import duck
from kgverify.ehr.codes import MIMIC_FORMULARY, MIMIC_LABITEM, NDC, mimic_icd
from kgverify.ehr.common import (
    Fields,
    Ledger,
    RowError,
    SourceError,
    SourceRow,
    TableLayout,
    WhenValue,
    group_by_patient,
    sex_of,
    table_trajectory,
)
from kgverify.ehr.model import (
    Condition,
    DrugExposure,
    EncounterKind,
    Flag,
    Item,
    Measurement,
    Sex,
    SourceRef,
    Trajectory,
)
from kgverify.ehr.privacy import check_salt

log = logging.getLogger(__name__)

REQUIRED_COLUMNS: dict[str, frozenset[str]] = {
    "patients": frozenset("subject_id gender anchor_age anchor_year".split()),
    "admissions": frozenset("subject_id hadm_id admittime dischtime admission_type".split()),
    "diagnoses_icd": frozenset("subject_id hadm_id icd_code icd_version".split()),
    "d_icd_diagnoses": frozenset("icd_code icd_version long_title".split()),
    "prescriptions": frozenset(
        "subject_id hadm_id starttime stoptime drug formulary_drug_cd ndc dose_val_rx "
        "dose_unit_rx route".split()
    ),
    "labevents": frozenset(
        "subject_id hadm_id itemid charttime value valuenum valueuom ref_range_lower "
        "ref_range_upper flag".split()
    ),
    "d_labitems": frozenset("itemid label".split()),
}
"""The columns read from each file; the files may have more (v2 and v3 differ slightly)."""

EVENTS = ("diagnoses_icd", "prescriptions", "labevents")

ADMISSION_KINDS: dict[str, EncounterKind] = {
    "EW EMER.": "emergency",
    "DIRECT EMER.": "emergency",
    "AMBULATORY OBSERVATION": "outpatient",
    "ELECTIVE": "inpatient",
    "URGENT": "inpatient",
    "DIRECT OBSERVATION": "inpatient",
    "EU OBSERVATION": "inpatient",
    "OBSERVATION ADMIT": "inpatient",
    "SURGICAL SAME DAY ADMISSION": "inpatient",
}
"""MIMIC-IV ``admission_type`` values; every admission is a hospital stay except ambulatory
observation, and the two emergency types are kept apart as emergencies."""

_SUFFIXES = (".csv.gz", ".csv")


def read_mimic(
    source: Path | str,
    ledger: Ledger,
    *,
    salt: str,
    workdir: Path | None = None,
    memory_limit: str | None = None,
    settings: Settings | None = None,
) -> Generator[Trajectory, None, None]:
    """Trajectories of every subject of a MIMIC-IV ``hosp`` folder, in subject_id order.

    ``source`` is the ``hosp`` folder or the MIMIC-IV root above it. Missing files or
    columns raise ``SourceError`` here, before any row is read; ``workdir`` holds the
    scratch database (as large as the files it stages; a temporary folder by default).
    """
    source, _ = Path(source), settings  # a path; no connection settings to read
    check_salt(salt)
    files = _locate(source)
    return duck.bounded(_trajectories(files, ledger, salt, workdir, memory_limit))


def _locate(source: Path) -> dict[str, Path]:
    folder = source / "hosp" if (source / "hosp").is_dir() else source
    if not folder.is_dir():
        raise SourceError(f"MIMIC-IV source {source} is not a folder")
    files = {t: duck.find_file(folder, t, _SUFFIXES) for t in REQUIRED_COLUMNS}
    missing = [f"{t}.csv[.gz]" for t, path in files.items() if path is None]
    if missing:
        raise SourceError(f"MIMIC-IV folder {folder} lacks {', '.join(missing)}")
    for table, path in files.items():
        assert path is not None
        names, _ = duck.read_header(path)
        absent = sorted(REQUIRED_COLUMNS[table] - set(names))
        if absent:
            raise SourceError(f"{path.name}: missing columns {', '.join(absent)}")
    return {t: p for t, p in files.items() if p is not None}


def _trajectories(
    files: dict[str, Path],
    ledger: Ledger,
    salt: str,
    workdir: Path | None,
    memory_limit: str | None,
) -> Generator[Trajectory, None, None]:
    with (
        tempfile.TemporaryDirectory(dir=workdir, prefix="kgverify-mimic-") as tmp,
        closing(duck.scratch(Path(tmp), memory_limit)) as con,
    ):
        staged = {t: duck.stage_csv(con, t, p, ledger) for t, p in files.items()}
        _stage_lookups(con, ledger)
        facts = {t: duck.stream(con, _SQL[t], _maker(staged[t])) for t in ("admissions", *EVENTS)}
        subjects = duck.stream(con, _SQL["patients"], _maker(staged["patients"]))
        count = 0
        for subject, rows in group_by_patient(subjects, facts, ledger):
            trajectory = table_trajectory(LAYOUT, subject, rows, ledger, salt)
            if trajectory is not None:
                count += 1
                yield trajectory
        log.info("mimic: %d trajectories", count)


def _stage_lookups(con: duckdb.DuckDBPyConnection, ledger: Ledger) -> None:
    duck.stage_lookup(
        con,
        "_d_icd",
        "d_icd_diagnoses",
        {"icd_code": "upper(trim(icd_code))", "icd_version": "trim(icd_version)"},
        {"long_title": "long_title"},
        ledger.tally("d_icd_diagnoses"),
    )
    duck.stage_lookup(
        con,
        "_d_lab",
        "d_labitems",
        {"itemid": "trim(itemid)"},
        {"label": "label"},
        ledger.tally("d_labitems"),
    )


def _sorted(table: str, joins: str = "", extra: str = "") -> str:
    return (
        f"SELECT TRY_CAST(t.subject_id AS BIGINT) AS _key, t.rowid AS _rid, t.*{extra} "  # noqa: S608
        f"FROM {table} t {joins} ORDER BY _key NULLS FIRST, _rid"
    )


_SQL = {
    "patients": _sorted("patients"),
    "admissions": _sorted("admissions"),
    "diagnoses_icd": _sorted(
        "diagnoses_icd",
        "LEFT JOIN _d_icd d ON d.icd_code = upper(trim(t.icd_code)) "
        "AND d.icd_version = trim(t.icd_version)",
        ", d.long_title",
    ),
    "prescriptions": _sorted("prescriptions"),
    "labevents": _sorted(
        "labevents", "LEFT JOIN _d_lab d ON d.itemid = trim(t.itemid)", ", d.label"
    ),
}


def _maker(staged: duck.StagedCsv) -> Callable[[dict[str, Any]], SourceRow]:
    def make(values: dict[str, Any]) -> SourceRow:
        key = values.pop("_key")
        line = staged.line_of(int(values.pop("_rid")))
        return SourceRow(staged.name, staged.name, str(line), line, key, values)

    return make


# --- rows -> items --------------------------------------------------------------------


def _ref(row: SourceRow, system: str, code: str) -> SourceRef:
    return SourceRef(table=row.table, row=row.row, code_system=system, code=code)


def _diagnosis(row: SourceRow, f: Fields) -> Item:
    raw = f.required("icd_code")
    version = f.integer("icd_version")
    try:
        system, code = mimic_icd(raw, version or 0)
    except ValueError as exc:
        raise RowError(str(exc)) from None
    return Condition(
        source=_ref(row, system, raw),
        code_system=system,
        code=code,
        display=f.text("long_title"),
    )


def _ndc(f: Fields) -> str | None:
    """MIMIC writes a missing NDC as ``0``."""
    ndc = f.text("ndc")
    return ndc if ndc is not None and ndc.strip("0") else None


def _prescription(row: SourceRow, f: Fields) -> Item:
    ndc = _ndc(f)
    if ndc is not None:
        system, code, mapped = NDC, ndc, True
    else:
        system, code, mapped = MIMIC_FORMULARY, f.text("formulary_drug_cd") or "", False
        if not code:
            raise RowError("no ndc and no formulary_drug_cd")
    return DrugExposure(
        source=_ref(row, system, code),
        code_system=system,
        code=code,
        mapped=mapped,
        display=f.text("drug"),
        start=f.when("starttime"),
        end=f.when("stoptime"),
        route=f.text("route"),
        dose=f.text("dose_val_rx"),
        dose_unit=f.text("dose_unit_rx"),
    )


def _lab_flag(f: Fields) -> Flag | None:
    """MIMIC flags only abnormal results; no flag means the range decides (see model)."""
    return "abnormal" if (f.text("flag") or "").lower() == "abnormal" else None


def _lab(row: SourceRow, f: Fields) -> Item:
    itemid = f.required("itemid")
    return Measurement(
        source=_ref(row, MIMIC_LABITEM, itemid),
        code_system=MIMIC_LABITEM,
        code=itemid,
        display=f.text("label"),
        start=f.when("charttime", required=True),
        value=f.number("valuenum"),
        value_text=f.text("value"),
        unit=f.text("valueuom"),
        ref_low=f.number("ref_range_lower"),
        ref_high=f.number("ref_range_upper"),
        flag=_lab_flag(f),
    )


_ITEMS: dict[str, Callable[[SourceRow, Fields], Item]] = {
    "diagnoses_icd": _diagnosis,
    "prescriptions": _prescription,
    "labevents": _lab,
}


def _admission(f: Fields) -> tuple[WhenValue, WhenValue | None, EncounterKind]:
    start = f.when("admittime", required=True)
    assert start is not None
    kind = ADMISSION_KINDS.get((f.text("admission_type") or "").upper(), "other")
    return start, f.when("dischtime"), kind


def _demographics(f: Fields) -> tuple[Sex, int | None]:
    """MIMIC gives the age in an anchor year (shifted like every date): birth year is their
    difference. Ages above 89 are stored as 91, which still lands in the 90+ band."""
    age, year = f.integer("anchor_age"), f.integer("anchor_year")
    birth_year = year - age if year is not None and age is not None else None
    return sex_of(f.text("gender")), birth_year


LAYOUT = TableLayout(
    source="mimic",
    encounters="admissions",
    encounter_id="hadm_id",
    encounter=_admission,
    link="hadm_id",
    items=_ITEMS,
    demographics=_demographics,
)
