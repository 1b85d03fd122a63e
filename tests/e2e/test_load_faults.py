"""Damaged releases and input order (issue 15, points 1, 3 and 7), on the shipped sample.

A newer release that is empty, cut short, or would retire much of the vocabulary never
retires anything without ``allow_retire``; a load that fails its pre-flight check leaves
the graph and its release bookkeeping untouched; the same release in another line order
gives the same graph.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from kgverify.api import load_vocabulary
from kgverify.bounds import MAX_ID_CHARS, MAX_NAME_CHARS
from kgverify.config import Settings
from kgverify.errors import LoadError, RejectThresholdError, ReleaseGuardError
from kgverify.graph import Graph, delete_all, ensure_schema
from loaders.report import LoadReport
from tests.conftest import SAMPLE
from tests.e2e.helpers import fingerprint, rows, value

pytestmark = pytest.mark.neo4j
AA = SAMPLE / "umls" / "2025AA"
AB = SAMPLE / "umls" / "2025AB"
RX = SAMPLE / "rxnorm" / "RxNorm_full_01062025"
SCT = SAMPLE / "snomed" / "SnomedCT_InternationalRF2_PRODUCTION_20250101T120000Z"


def _fresh(graph: Graph) -> Graph:
    delete_all(graph)
    ensure_schema(graph)
    return graph


def _load(graph: Graph, settings: Settings, path: Path, tmp: Path, **options: Any) -> LoadReport:
    return load_vocabulary(
        "umls", path, settings=settings, graph=graph, rejects_path=tmp / "r.jsonl", **options
    )


def _copy(release: Path, into: Path) -> Path:
    """A writable copy of a sample release folder, under the same folder name."""
    target = into / release.name
    shutil.copytree(release, target)
    return target


def _releases(graph: Graph) -> dict[str, dict[str, object]]:
    found = rows(graph, "MATCH (r:Release) RETURN r.id AS id, r {.status, .current, .path} AS r")
    return {row["id"]: row["r"] for row in found}


@pytest.fixture
def current_aa(graph: Graph, settings: Settings, tmp_path: Path) -> Graph:
    """An emptied graph holding UMLS 2025AA, current."""
    _load(_fresh(graph), settings, AA, tmp_path)
    return graph


def test_an_empty_concept_file_writes_nothing(
    current_aa: Graph, settings: Settings, tmp_path: Path
) -> None:
    damaged = _copy(AB, tmp_path)
    (damaged / "META" / "MRCONSO.RRF").write_text("")
    before = fingerprint(current_aa)
    with pytest.raises(LoadError, match=r"MRCONSO\.RRF holds no rows"):
        _load(current_aa, settings, damaged, tmp_path)
    assert fingerprint(current_aa) == before  # no Release node, nothing retired


def test_a_file_cut_short_writes_nothing_unless_allowed(
    current_aa: Graph, settings: Settings, tmp_path: Path
) -> None:
    damaged = _copy(AB, tmp_path)
    conso = damaged / "META" / "MRCONSO.RRF"
    lines = conso.read_text(encoding="utf-8").splitlines(keepends=True)
    conso.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")  # interrupted copy
    before = fingerprint(current_aa)
    with pytest.raises(ReleaseGuardError, match=r"MRCONSO.RRF has [\d,]+ lines, UMLS@2025AA's"):
        _load(current_aa, settings, damaged, tmp_path)
    assert fingerprint(current_aa) == before
    # Allowed, it loads; the rows of the missing concepts are dangling rejects, and a load
    # over the reject threshold retires nothing.
    with pytest.raises(RejectThresholdError, match="rows rejected"):
        _load(current_aa, settings, damaged, tmp_path, allow_retire=True)
    assert value(current_aa, "MATCH (c:UMLS {active: false}) RETURN count(c)") == 0


def _renamed_release(into: Path, share: float) -> tuple[Path, set[str]]:
    """2025AA relabelled as 2025AB with ``share`` of its CUIs renamed in every file: no file
    shrinks and nothing dangles, yet the old CUIs are gone (as if a release were built from
    the wrong source)."""
    target = into / "2025AB"
    shutil.copytree(AA, target)
    conso = (target / "META" / "MRCONSO.RRF").read_text(encoding="utf-8")
    cuis = sorted({line.split("|", 1)[0] for line in conso.splitlines()})
    renamed = set(random.Random(7).sample(cuis, int(len(cuis) * share)))
    mapping = {cui: "C7" + cui[2:] for cui in renamed}
    assert not set(mapping.values()) & set(cuis) and len(set(mapping.values())) == len(mapping)
    for dat in target.rglob("release.dat"):
        dat.write_text(dat.read_text().replace("2025AA", "2025AB"))
    for path in (target / "META").glob("*.RRF"):
        text = path.read_text(encoding="utf-8")
        path.write_text(
            re.sub(r"\bC\d{7}\b", lambda m: mapping.get(m.group(0), m.group(0)), text),
            encoding="utf-8",
        )
    return target, {f"UMLS:{cui}" for cui in renamed}


def test_a_release_that_would_retire_too_much_is_held(
    current_aa: Graph, settings: Settings, tmp_path: Path
) -> None:
    suspicious, gone = _renamed_release(tmp_path, 0.4)
    before, releases = fingerprint(current_aa), _releases(current_aa)
    with pytest.raises(ReleaseGuardError, match="would retire") as caught:
        _load(current_aa, settings, suspicious, tmp_path)
    report = caught.value.report
    assert isinstance(report, LoadReport)
    assert report.status == "held" and report.retired_concepts == 0
    assert report.would_retire_concepts == len(gone)
    assert report.would_inactivate_concepts == 0
    assert {e.split(" ", 1)[0] for e in report.would_retire_examples} <= gone
    # Decided before any write: no Release node, no row written, nothing retired.
    assert fingerprint(current_aa) == before
    assert _releases(current_aa) == releases

    # Allowed, the same release completes and retires what it dropped, edges included.
    report = _load(current_aa, settings, suspicious, tmp_path, allow_retire=True)
    assert report.status == "complete" and report.retired_concepts == len(gone)
    retired = value(current_aa, "MATCH (c:UMLS {active: false}) RETURN collect(c.id)")
    assert set(retired) == gone
    dangling_active = value(
        current_aa,
        "MATCH (s)-[r {active: true}]->(e) WHERE (s:UMLS AND NOT s.active) "
        "OR (e:UMLS AND NOT e.active) RETURN count(r)",
    )
    assert dangling_active == 0
    assert _releases(current_aa)["UMLS@2025AB"]["current"] is True


def test_the_guard_share_is_a_setting(
    current_aa: Graph, settings: Settings, tmp_path: Path
) -> None:
    suspicious, gone = _renamed_release(tmp_path, 0.4)
    lenient = settings.model_copy(update={"max_retire_share": 0.5})
    report = _load(current_aa, lenient, suspicious, tmp_path)
    assert report.retired_concepts == len(gone)


def test_a_failed_preflight_leaves_release_bookkeeping_alone(
    current_aa: Graph, settings: Settings, tmp_path: Path
) -> None:
    _load(current_aa, settings, AB, tmp_path)
    before = _releases(current_aa)
    # A rerun of the current release from a folder that lost MRCONSO.
    broken = _copy(AB, tmp_path)
    (broken / "META" / "MRCONSO.RRF").unlink()
    with pytest.raises(LoadError, match=r"no MRCONSO\.RRF"):
        _load(current_aa, settings, broken, tmp_path, release="2025AB")
    # A new release missing its relationships file.
    newer = tmp_path / "newer" / "2025BA"
    shutil.copytree(AB, newer)
    (newer / "META" / "MRREL.RRF").unlink()
    with pytest.raises(LoadError, match=r"no MRREL\.RRF"):
        _load(current_aa, settings, newer, tmp_path)
    assert _releases(current_aa) == before  # no "loading" node, path and status unchanged
    # The older-release guard still holds.
    with pytest.raises(LoadError, match="older than the loaded UMLS@2025AB"):
        _load(current_aa, settings, AA, tmp_path)


def _shuffled(release: Path, into: Path, files: tuple[str, ...]) -> Path:
    target = _copy(release, into)
    for name in files:
        path = next(target.rglob(name))
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        header = 1 if path.suffix == ".txt" else 0  # RF2 keeps its header first
        body = lines[header:]
        random.Random(3).shuffle(body)
        path.write_text("".join(lines[:header] + body), encoding="utf-8")
    return target


@pytest.mark.parametrize(
    ("vocabulary", "release", "files"),
    [
        ("umls", AA, ("MRCONSO.RRF", "MRSTY.RRF", "MRDEF.RRF", "MRREL.RRF")),
        ("rxnorm", RX, ("RXNCONSO.RRF", "RXNREL.RRF", "RXNSAT.RRF")),
        ("snomed", SCT, ("sct2_Concept_*", "sct2_Description_*", "sct2_Relationship_*", "der2_*")),
    ],
)
def test_line_order_does_not_change_the_graph(
    graph: Graph,
    settings: Settings,
    tmp_path: Path,
    vocabulary: str,
    release: Path,
    files: tuple[str, ...],
) -> None:
    def load(path: Path) -> tuple[int, int, str]:
        load_vocabulary(
            vocabulary,
            path,
            settings=settings,
            graph=_fresh(graph),
            rejects_path=tmp_path / "r.jsonl",
        )
        return fingerprint(graph, concepts_only=True)

    assert load(_shuffled(release, tmp_path, files)) == load(release)


def test_over_long_fields_are_rejected_with_their_line(
    graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    release = _copy(AA, tmp_path)
    conso = release / "META" / "MRCONSO.RRF"
    lines = conso.read_text(encoding="utf-8").splitlines(keepends=True)
    code, name = lines[3].split("|"), lines[5].split("|")
    code[13] = "X" * 100_000  # CODE: would become a concept id past the index key limit
    name[14] = "Y" * 100_000  # STR: would become a name
    lines[3], lines[5] = "|".join(code), "|".join(name)
    conso.write_text("".join(lines), encoding="utf-8")
    report = _load(_fresh(graph), settings, release, tmp_path)
    assert report.status == "complete"
    rejects = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    too_long = {r["line"]: r["reason"] for r in rejects if r["reason"].startswith("field too")}
    assert too_long == {
        4: f"field too long: CODE has 100,000 characters, at most {MAX_ID_CHARS:,}",
        6: f"field too long: STR has 100,000 characters, at most {MAX_NAME_CHARS:,}",
    }
    assert all(len(r["text"]) <= 300 for r in rejects)
    longest = "MATCH (c:Concept) UNWIND c.names AS n RETURN max(size(n)) AS m"
    assert value(graph, longest) <= MAX_NAME_CHARS
    assert value(graph, "MATCH (c:Concept) RETURN max(size(c.id))") <= MAX_ID_CHARS + 20
    conso_report = next(f for f in report.files if f.file == "MRCONSO.RRF")
    assert conso_report.reconciles and conso_report.rejected == 2


def test_one_load_per_vocabulary_at_a_time(
    current_aa: Graph, settings: Settings, tmp_path: Path
) -> None:
    """A release left "loading" (a load running now, or interrupted) blocks another release
    of the same vocabulary before anything is written; the same release may finish it."""
    from loaders import get_loader
    from loaders.base import LoadOptions
    from loaders.pipeline import begin_release

    interrupted = get_loader("umls")(AB, LoadOptions())
    begin_release(current_aa, interrupted, interrupted.release(), "batched")
    newer = tmp_path / "newer" / "2025BA"
    shutil.copytree(AB, newer)
    for dat in newer.rglob("release.dat"):
        dat.write_text(dat.read_text().replace("2025AB", "2025BA"))
    before = fingerprint(current_aa)
    with pytest.raises(LoadError, match=r"another load of UMLS .*UMLS@2025AB \(loading since"):
        _load(current_aa, settings, newer, tmp_path)
    assert fingerprint(current_aa) == before
    # Abandoning the interrupted load lets the other release go on.
    report = _load(current_aa, settings, newer, tmp_path, abandon_interrupted=True)
    assert report.status == "complete"
    releases = _releases(current_aa)
    assert releases["UMLS@2025AB"]["status"] == "abandoned"
    assert releases["UMLS@2025BA"]["current"] is True
