"""A deterministic synthetic EHR at any size: the shipped sample OMOP CDM (39 patients,
kgverify/sample/omop/eunomia_sample) multiplied, copy ``c`` with every row id shifted by
``c * ID_SHIFT`` and every event date by ``c % 365`` days, written as OMOP CSV tables that
kgverify's OMOP reader takes like any other CDM export. Patient ``k`` (0-based) is person
``k % 39`` of copy ``k // 39``, so a range of patients can be written in pieces and copy 0
is the sample itself (same ids, same dates, same pseudonyms).

    python -m benchmarks.synth_ehr OUT --first 0 --patients 10000
"""

from __future__ import annotations

import argparse
import csv
from datetime import date, timedelta
from pathlib import Path

from kgverify.api import sample_path

SAMPLE = sample_path("omop", "eunomia_sample")
ID_SHIFT = 10_000_000
"""Larger than any id of the sample, so shifted ids never meet."""
ID_COLUMNS = frozenset(
    {
        "PERSON_ID",
        "VISIT_OCCURRENCE_ID",
        "PRECEDING_VISIT_OCCURRENCE_ID",
        "CONDITION_OCCURRENCE_ID",
        "DRUG_EXPOSURE_ID",
        "MEASUREMENT_ID",
        "PROCEDURE_OCCURRENCE_ID",
    }
)
EVENT_TABLES = (
    "person",
    "visit_occurrence",
    "condition_occurrence",
    "drug_exposure",
    "measurement",
    "procedure_occurrence",
)


def _read(table: str) -> tuple[list[str], list[dict[str, str]]]:
    with (SAMPLE / f"{table}.csv").open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        return list(reader.fieldnames or []), list(reader)


def persons() -> list[str]:
    """The sample's person ids, in file order."""
    return [row["PERSON_ID"] for row in _read("person")[1]]


def _shift_id(value: str, copy: int) -> str:
    if not value or value == "0":
        return value
    return str(int(float(value)) + copy * ID_SHIFT)


def _shift_date(value: str, days: int) -> str:
    if not days or len(value) < 10:
        return value
    day = date.fromisoformat(value[:10]) + timedelta(days=days)
    return day.isoformat() + value[10:]


def _shifted(row: dict[str, str], copy: int) -> dict[str, str]:
    days = copy % 365
    out = {}
    for column, value in row.items():
        if column in ID_COLUMNS:
            out[column] = _shift_id(value, copy)
        elif column.endswith(("_DATE", "_DATETIME")) and column != "BIRTH_DATETIME":
            out[column] = _shift_date(value, days)
        else:
            out[column] = value
    return out


def write_omop(out: Path, first: int, patients: int) -> int:
    """Patients ``first`` .. ``first + patients - 1`` as OMOP CSV tables in ``out`` (with the
    sample's concept table); returns the number of rows written."""
    out.mkdir(parents=True, exist_ok=True)
    base = persons()
    # copy -> the sample person ids taken from it
    wanted: dict[int, set[str]] = {}
    for k in range(first, first + patients):
        wanted.setdefault(k // len(base), set()).add(base[k % len(base)])
    (out / "concept.csv").write_bytes((SAMPLE / "concept.csv").read_bytes())
    written = 0
    for table in EVENT_TABLES:
        fields, rows = _read(table)
        with (out / f"{table}.csv").open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
            writer.writeheader()
            for copy, people in sorted(wanted.items()):
                for row in rows:
                    if row["PERSON_ID"] in people:
                        writer.writerow(_shifted(row, copy))
                        written += 1
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--patients", type=int, required=True)
    args = parser.parse_args()
    print(write_omop(args.out, args.first, args.patients), "rows")


if __name__ == "__main__":
    main()
