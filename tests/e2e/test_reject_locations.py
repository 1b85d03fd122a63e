"""Every reject points at its own input line, against the real Neo4j: each MRSTY line of a
concept that is not loaded at its own number, and the bad lines of `verify` and `link`
inputs with their raw text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgverify.api import link_relations_file, load_vocabulary, sample_path, verify_relations_file
from kgverify.config import Settings
from kgverify.errors import RejectThresholdError
from kgverify.graph import Graph

pytestmark = pytest.mark.neo4j

MRCONSO = [
    "C0011860|ENG|P|L0011860|PF|S0000001|Y|A0000001||||MTH|PN|NOCODE|Type 2 diabetes mellitus"
    "|0|N|256|",
    "C0025598|ENG|P|L0025598|PF|S0000007|Y|A0000007||||MTH|PN|NOCODE|Metformin|0|N|256|",
]
MRREL = [
    "C0011860|A0000001|SCUI|RO|C0025598|A0000007|SCUI|may_treat|R000001||MED-RT|MED-RT|||N||",
]
MRSTY = [
    "C0011860|T047|B2.2.1.2.1|Disease or Syndrome|AT0000001|256|",
    "C9999999|T121|A1.4.1.1.1|Pharmacologic Substance|AT0000002|256|",  # not in MRCONSO
    "C9999999|T109|A1.4.1.2.1|Organic Chemical|AT0000003|256|",
    "C9999999|T200|A1.3.3|Clinical Drug|AT0000004|256|",
    "C0025598|T121|A1.4.1.1.1|Pharmacologic Substance|AT0000005|256|",
]


def _rejects(path: Path | str | None) -> list[dict[str, object]]:
    assert path is not None
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def test_each_line_of_a_grouped_row_is_rejected_at_its_own_line(
    fresh_graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    meta = tmp_path / "2030AA" / "META"
    meta.mkdir(parents=True)
    for name, lines in {"MRCONSO.RRF": MRCONSO, "MRREL.RRF": MRREL, "MRSTY.RRF": MRSTY}.items():
        (meta / name).write_text("".join(line + "\n" for line in lines))
    rejects = tmp_path / "rejects.jsonl"
    with pytest.raises(RejectThresholdError) as caught:  # 3 of 8 rows: over the 1% default
        load_vocabulary(
            "umls", meta.parent, settings=settings, graph=fresh_graph, rejects_path=rejects
        )
    files = {f.file: f for f in caught.value.report.files}  # type: ignore[attr-defined]
    assert (files["MRSTY.RRF"].read, files["MRSTY.RRF"].loaded) == (5, 2)
    assert files["MRSTY.RRF"].rejected == 3 and files["MRSTY.RRF"].reconciles
    assert [(r["file"], r["line"], r["text"]) for r in _rejects(rejects)] == [
        ("MRSTY.RRF", 2, "UMLS:C9999999"),
        ("MRSTY.RRF", 3, "UMLS:C9999999"),
        ("MRSTY.RRF", 4, "UMLS:C9999999"),
    ]


BAD_LINES = ["{not json", '{"patient_id": "p"}']


def _with_bad_lines(tmp_path: Path) -> Path:
    """Two good sample relations with a bad line after each (lines 2 and 4)."""
    good = sample_path("relations", "llm_style.jsonl").read_text().splitlines()
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join([good[0], BAD_LINES[0], good[1], BAD_LINES[1]]) + "\n")
    return source


def test_verify_rejects_carry_the_raw_line(
    fresh_graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(["", BAD_LINES[0], "x" * 400, BAD_LINES[1]]) + "\n")
    report = verify_relations_file(
        source, tmp_path / "out.jsonl", settings=settings, graph=fresh_graph, write=False
    )
    assert (report.read, report.verified, report.rejected) == (3, 0, 3)
    rejects = _rejects(report.rejects)
    assert [(r["line"], r["text"]) for r in rejects] == [
        (2, BAD_LINES[0]),
        (3, "x" * 300),  # cut like every reject's text
        (4, BAD_LINES[1]),
    ]


def test_link_rejects_carry_the_raw_line(
    sample_graph: Graph, sample_settings: Settings, tmp_path: Path
) -> None:
    report = link_relations_file(
        _with_bad_lines(tmp_path),
        tmp_path / "out.jsonl",
        settings=sample_settings,
        graph=sample_graph,
    )
    assert (report.read, report.linked_relations, report.rejected) == (4, 2, 2)
    rejects = _rejects(report.rejects)
    assert [(r["line"], r["text"]) for r in rejects] == [(2, BAD_LINES[0]), (4, BAD_LINES[1])]
