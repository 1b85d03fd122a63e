"""Rows that stand for several input lines (UMLS MRSTY, RxNorm RXNSAT: one row per concept)
reject each line with its own number, not the group's first line."""

from __future__ import annotations

import json
from pathlib import Path

from kgverify.rows import RejectSink, Tally
from loaders import RxNormLoader, UmlsLoader
from loaders.base import Row, Step, VocabularyLoader
from loaders.pipeline import reject_if_dangling

MISSING_CUI = "C9999999"  # in MRSTY, not in MRCONSO
MRCONSO = "C0011860|ENG|P|L0011860|PF|S0000001|Y|A0000001||||MTH|PN|NOCODE|Type 2 diabetes|0|N|256|"
MRSTY = [
    "C0011860|T047|B2.2.1.2.1|Disease or Syndrome|AT0000001|256|",
    f"{MISSING_CUI}|T121|A1.4.1.1.1|Pharmacologic Substance|AT0000002|256|",
    f"{MISSING_CUI}|T109|A1.4.1.2.1|Organic Chemical|AT0000003|256|",
    f"{MISSING_CUI}|T200|A1.3.3|Clinical Drug|AT0000004|256|",
]
MISSING_RXCUI = "999999"  # in RXNSAT, not in RXNCONSO
RXNCONSO = "161|ENG||||||90000001|90000001|161||RXNORM|IN|161|Acetaminophen||N|4096|"
RXNSAT = [
    "161|||90000001|AUI|161|AT800000001||RXN_HUMAN_DRUG|RXNORM|US|N|4096|",
    f"{MISSING_RXCUI}|||90000100|AUI|1|AT800000002||RXN_HUMAN_DRUG|RXNORM|US|N|4096|",
    f"{MISSING_RXCUI}|||90000100|AUI|1|AT800000003||RXN_AVAILABLE_STRENGTH|RXNORM|5 MG|N|4096|",
    f"{MISSING_RXCUI}|||90000100|AUI|1|AT800000004||NDC|RXNORM|00000000001|N|4096|",
]


def _write(folder: Path, files: dict[str, list[str]]) -> None:
    folder.mkdir(parents=True)
    for name, lines in files.items():
        (folder / name).write_text("".join(line + "\n" for line in lines))


def _step(loader: VocabularyLoader, label: str) -> Step:
    return next(s for s in loader.steps() if s.label == label)


def _rejected_lines(step: Step, missing: set[str], tmp_path: Path) -> tuple[list[Row], Tally]:
    """The step's rows, then the dangling ones rejected as the load does."""
    sink = RejectSink(tmp_path / "rejects.jsonl")
    tally = Tally(step.file.name, sink)
    rows = list(step.rows(tally))
    for row in rows:
        reject_if_dangling(row, step.references, missing, tally)
    sink.close()
    return rows, tally


def _rejects(tmp_path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (tmp_path / "rejects.jsonl").read_text().splitlines()]


def test_each_mrsty_line_of_a_dangling_concept_is_rejected_at_its_own_line(
    tmp_path: Path,
) -> None:
    meta = tmp_path / "2030AA" / "META"
    _write(meta, {"MRCONSO.RRF": [MRCONSO], "MRSTY.RRF": MRSTY, "MRREL.RRF": []})
    rows, tally = _rejected_lines(
        _step(UmlsLoader(meta.parent), "semantic types"), {f"UMLS:{MISSING_CUI}"}, tmp_path
    )
    assert [(r["id"], r["lines"]) for r in rows] == [
        ("UMLS:C0011860", [1]),
        (f"UMLS:{MISSING_CUI}", [2, 3, 4]),
    ]
    assert [(r["file"], r["line"]) for r in _rejects(tmp_path)] == [
        ("MRSTY.RRF", 2),
        ("MRSTY.RRF", 3),
        ("MRSTY.RRF", 4),
    ]
    report = tally.report()
    assert (report.read, report.loaded, report.rejected) == (4, 1, 3) and report.reconciles


def test_each_rxnsat_line_of_a_dangling_concept_is_rejected_at_its_own_line(
    tmp_path: Path,
) -> None:
    rrf = tmp_path / "RxNorm_full_01062030" / "rrf"
    _write(rrf, {"RXNCONSO.RRF": [RXNCONSO], "RXNREL.RRF": [], "RXNSAT.RRF": RXNSAT})
    rows, tally = _rejected_lines(
        _step(RxNormLoader(rrf.parent), "attributes"), {f"RXNORM:{MISSING_RXCUI}"}, tmp_path
    )
    assert [(r["id"], r["lines"]) for r in rows] == [
        ("RXNORM:161", [1]),
        (f"RXNORM:{MISSING_RXCUI}", [2, 3, 4]),
    ]
    assert [r["line"] for r in _rejects(tmp_path)] == [2, 3, 4]
    report = tally.report()
    assert (report.read, report.loaded, report.rejected) == (4, 1, 3) and report.reconciles
