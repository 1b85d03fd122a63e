"""The streaming RRF/RF2 readers: every line is yielded, or rejected with its line number."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgverify.errors import LoadError
from kgverify.rows import RejectSink, Tally
from loaders.rrf import read_rf2, read_rrf

COLS = ("A", "B", "C")


def _tally(tmp_path: Path) -> tuple[Tally, RejectSink]:
    sink = RejectSink(tmp_path / "rejects.jsonl")
    return Tally("X.RRF", sink), sink


def test_rrf_rows_bad_utf8_and_column_counts(tmp_path: Path) -> None:
    path = tmp_path / "X.RRF"
    path.write_bytes(b"a|b|c|\na|b|\na|b|c\n\xff\xfe|b|c|\n\nx|y|z|\r\n")
    tally, sink = _tally(tmp_path)
    rows = list(read_rrf(path, COLS, tally))
    sink.close()
    assert [r.number for r in rows] == [1, 6]
    assert rows[1].fields == {"A": "x", "B": "y", "C": "z"}
    report = tally.report()
    assert (report.read, report.rejected) == (6, 4)
    lines = sink.path.read_text().splitlines()
    assert len(lines) == 4
    assert '"line": 2' in lines[0] and "wrong column count" in lines[0]
    assert '"line": 3' in lines[1]  # no trailing pipe
    assert '"line": 4' in lines[2] and "invalid UTF-8" in lines[2]
    assert '"line": 5' in lines[3] and "empty line" in lines[3]


def test_rf2_header_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "sct2_X.txt"
    path.write_text("id\tactive\n1\t1\n2\n")
    tally, _sink = _tally(tmp_path)
    rows = list(read_rf2(path, ("id", "active"), tally))
    assert [r.fields["id"] for r in rows] == ["1"]
    report = tally.report()
    assert (report.read, report.skipped, report.rejected) == (3, 1, 1)
    path.write_text("id\tbogus\n")
    with pytest.raises(LoadError, match="header"):
        list(read_rf2(path, ("id", "active"), _tally(tmp_path)[0]))


def test_reader_streams_without_reading_everything(tmp_path: Path) -> None:
    path = tmp_path / "big.RRF"
    with path.open("w") as out:
        for i in range(50_000):
            out.write(f"{i}|b|c|\n")
    tally, _ = _tally(tmp_path)
    first = next(read_rrf(path, COLS, tally))
    assert first.fields["A"] == "0"
    assert tally.read == 1  # only one line was consumed


def test_column_lists_match_the_published_formats() -> None:
    from loaders import rrf_common, rxnorm, snomed, umls

    assert len(rrf_common.CONSO_COLUMNS) == 18
    assert len(rrf_common.REL_COLUMNS_UMLS) == len(rrf_common.REL_COLUMNS_RXNORM) == 16
    # RXNREL puts DIR before RG; MRREL the other way round.
    assert rrf_common.REL_COLUMNS_UMLS[12:14] == ("RG", "DIR")
    assert rrf_common.REL_COLUMNS_RXNORM[12:14] == ("DIR", "RG")
    assert (len(umls.STY_COLUMNS), len(umls.DEF_COLUMNS), len(umls.SAB_COLUMNS)) == (6, 8, 25)
    assert len(rxnorm.SAT_COLUMNS) == 13
    assert len(snomed.CONCEPT_COLUMNS) == 5 and len(snomed.DESCRIPTION_COLUMNS) == 9
    assert len(snomed.RELATIONSHIP_COLUMNS) == 10 and len(snomed.LANGUAGE_COLUMNS) == 7
