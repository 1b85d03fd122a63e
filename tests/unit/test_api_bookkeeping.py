"""The run bookkeeping every API run over an EHR source shares (``api.bookkeeping``): one
rejects file per step and source in the cache's owner-only folder unless one is given, and
the ledger's rows and the rejects path stamped on the report."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from kgverify.api import extract_relations, sample_path, write_trajectories
from kgverify.api.bookkeeping import source_run
from kgverify.config import Settings
from kgverify.ehr.report import TrajectoriesReport

OMOP = sample_path("omop", "eunomia_sample")


def _not_fhir(tmp_path: Path) -> Path:
    bad = tmp_path / "not_fhir.json"
    bad.write_text('{"hello": "world"}\n', encoding="utf-8")
    return bad


def test_a_rejected_row_goes_to_the_step_s_file_in_the_cache(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path / "cache")
    out = tmp_path / "t.jsonl"
    report = write_trajectories("fhir", _not_fhir(tmp_path), out, settings=settings)
    folder = tmp_path / "cache" / "rejects"
    assert report.rejects == str(folder / "trajectories-fhir.jsonl")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700  # raw patient rows
    [row] = [json.loads(line) for line in Path(report.rejects).read_text().splitlines()]
    assert row["reason"]
    assert [(r.read, r.rejected) for r in report.rows] == [(1, 1)]


def test_each_step_has_its_own_file_and_a_given_one_wins(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path / "cache")
    given = tmp_path / "mine.jsonl"
    report = extract_relations(
        "fhir", _not_fhir(tmp_path), tmp_path / "r.jsonl", settings=settings, rejects_path=given
    )
    assert report.rejects == str(given) and given.read_text().strip()
    assert not (tmp_path / "cache" / "rejects" / "extract-fhir.jsonl").exists()
    clean = extract_relations("omop", OMOP, tmp_path / "r2.jsonl", settings=settings)
    assert clean.rejects is None and clean.rows and clean.patients == 39


def test_the_report_is_stamped_with_the_ledger_s_rows(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path / "cache")
    with source_run("trajectories", "omop", settings, None) as run:
        report = TrajectoriesReport(source="omop", out="-")
        assert sum(1 for _ in report.count(run.trajectories("omop", OMOP))) == 39
    stamped = run.stamp(report)
    assert stamped is report and report.patients == 39 and report.rejects is None
    assert report.rows and all(r.read == r.loaded + r.skipped + r.rejected for r in report.rows)
