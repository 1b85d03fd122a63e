"""Completeness checks per format (issue 35, part 2), through the CLI on copies of the
shipped sample's newer releases, damaged, loaded over the older ones.

A release missing a file its names come from (UMLS MRCONSO; RxNorm RXNCONSO and RXNSAT;
SNOMED CT descriptions and the language refset), or with one of them empty, is refused
(exit 2); a file whose last line has no newline (a copy cut mid-line), or a SNOMED CT
release that would leave a concept without a name, is stopped by the release guard
(exit 4). Each says what is wrong in one ``error:`` line naming the file, and leaves the
graph as it was: nothing written, no Release node, the older release current.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner

from kgverify.api import load_vocabulary
from kgverify.cli import cli
from kgverify.config import Settings
from kgverify.graph import Graph, delete_all, ensure_schema
from tests.conftest import SAMPLE
from tests.e2e.helpers import fingerprint, inactivate_rf2, rename_rxcuis, rows

pytestmark = pytest.mark.neo4j
OLDER = {
    "umls": SAMPLE / "umls" / "2025AA",
    "rxnorm": SAMPLE / "rxnorm" / "RxNorm_full_01062025",
    "snomed": SAMPLE / "snomed" / "SnomedCT_InternationalRF2_PRODUCTION_20250101T120000Z",
}
NEWER = {
    "umls": SAMPLE / "umls" / "2025AB",
    "rxnorm": SAMPLE / "rxnorm" / "RxNorm_full_02032025",
    "snomed": SAMPLE / "snomed" / "SnomedCT_InternationalRF2_PRODUCTION_20250601T120000Z",
}
SCT_DESCRIPTIONS = "sct2_Description_Snapshot-en_INT_20250601.txt"
SCT_LANGUAGE = "der2_cRefset_LanguageSnapshot-en_INT_20250601.txt"


@pytest.fixture(scope="module")
def current(graph: Graph, settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Graph:
    """An emptied graph holding the older sample release of each vocabulary, current."""
    delete_all(graph)
    ensure_schema(graph)
    rejects = tmp_path_factory.mktemp("rej") / "r.jsonl"
    for vocabulary, path in OLDER.items():
        load_vocabulary(vocabulary, path, settings=settings, graph=graph, rejects_path=rejects)
    return graph


def _releases(graph: Graph) -> dict[str, tuple[str, bool]]:
    found = rows(graph, "MATCH (r:Release) RETURN r.id AS id, r.status AS s, r.current AS c")
    return {row["id"]: (row["s"], row["c"]) for row in found}


# -- the damage done to a copy of the newer release ------------------------------------------
def _remove(name: str) -> Callable[[Path], None]:
    return lambda release: next(release.rglob(name)).unlink()


def _empty(name: str) -> Callable[[Path], None]:
    """Nothing left but the header (RF2) or nothing at all (RRF)."""

    def damage(release: Path) -> None:
        path = next(release.rglob(name))
        header = path.read_text(encoding="utf-8").splitlines(keepends=True)[:1]
        path.write_text("".join(header) if path.suffix == ".txt" else "", encoding="utf-8")

    return damage


def _cut(name: str, short: int) -> Callable[[Path], None]:
    """The file ``short`` bytes short: an interrupted copy, its last line cut mid-way."""

    def damage(release: Path) -> None:
        path = next(release.rglob(name))
        data = path.read_bytes()
        path.write_bytes(data[:-short])
        assert not path.read_bytes().endswith(b"\n")

    return damage


CASES = [
    # (vocabulary, damage, extra CLI arguments, exit code, error line pattern)
    ("umls", _remove("MRCONSO.RRF"), (), 2, r"no MRCONSO\.RRF under"),
    ("umls", _empty("MRCONSO.RRF"), (), 2, r"MRCONSO\.RRF holds no rows"),
    ("umls", _cut("MRCONSO.RRF", 40), (), 4, r"MRCONSO\.RRF: the last line has no newline"),
    ("rxnorm", _remove("RXNSAT.RRF"), (), 2, r"no RXNSAT\.RRF under"),
    ("rxnorm", _empty("RXNSAT.RRF"), (), 2, r"RXNSAT\.RRF holds no rows"),
    ("rxnorm", _empty("RXNCONSO.RRF"), (), 2, r"RXNCONSO\.RRF holds no rows"),
    ("rxnorm", _cut("RXNCONSO.RRF", 40), (), 4, r"RXNCONSO\.RRF: the last line has no newline"),
    ("rxnorm", _cut("RXNSAT.RRF", 10), (), 4, r"RXNSAT\.RRF: the last line has no newline"),
    ("snomed", _remove(SCT_LANGUAGE), (), 2, r"no der2_cRefset_LanguageSnapshot\*\.txt under"),
    ("snomed", _empty(SCT_LANGUAGE), (), 2, rf"{SCT_LANGUAGE} holds no rows"),
    ("snomed", _remove(SCT_DESCRIPTIONS), (), 2, r"no sct2_Description_Snapshot\*\.txt under"),
    ("snomed", _empty(SCT_DESCRIPTIONS), (), 2, rf"{SCT_DESCRIPTIONS} holds no rows"),
    ("snomed", _cut(SCT_DESCRIPTIONS, 40), (), 4, rf"{SCT_DESCRIPTIONS}: the last line has no"),
    (
        "snomed",
        partial(inactivate_rf2, pattern="sct2_Description_Snapshot*"),
        (),
        4,
        rf"330 of 330 active concepts would have no name: {SCT_DESCRIPTIONS} gives them no "
        r"active FSN or synonym in en \(e\.g\. \d+",
    ),
    (
        "snomed",
        lambda release: None,  # the release is whole; the language asked for is not in it
        ("--language", "SPA"),
        4,
        rf"330 of 330 active concepts would have no name: {SCT_DESCRIPTIONS} .* in es ",
    ),
]


@pytest.mark.parametrize(
    ("vocabulary", "damage", "args", "code", "reason"),
    CASES,
    ids=[
        "umls-mrconso-missing",
        "umls-mrconso-empty",
        "umls-mrconso-cut",
        "rxnorm-rxnsat-missing",
        "rxnorm-rxnsat-empty",
        "rxnorm-rxnconso-empty",
        "rxnorm-rxnconso-cut",
        "rxnorm-rxnsat-cut",
        "snomed-language-missing",
        "snomed-language-empty",
        "snomed-descriptions-missing",
        "snomed-descriptions-empty",
        "snomed-descriptions-cut",
        "snomed-descriptions-all-inactive",
        "snomed-language-not-in-release",
    ],
)
def test_an_incomplete_release_is_refused_and_writes_nothing(
    current: Graph,
    cli_env: Settings,
    tmp_path: Path,
    vocabulary: str,
    damage: Callable[[Path], None],
    args: tuple[str, ...],
    code: int,
    reason: str,
) -> None:
    release = tmp_path / NEWER[vocabulary].name
    shutil.copytree(NEWER[vocabulary], release)
    damage(release)
    before, releases = fingerprint(current), _releases(current)
    done = CliRunner().invoke(
        cli, ["load", vocabulary, str(release), "--rejects", str(tmp_path / "r.jsonl"), *args]
    )
    assert done.exit_code == code, done.output
    errors = [line for line in done.output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, done.output
    assert re.search(reason, errors[0]), errors[0]
    if code == 4:  # the release guard's pre-flight: nothing written, said so
        assert errors[0].endswith("nothing was written"), errors[0]
    assert fingerprint(current) == before  # no Release node, nothing written or retired
    assert _releases(current) == releases
    assert all(status == "complete" and is_current for status, is_current in releases.values())


# -- the release guard, decided before any write (issue 35, part 1) --------------------------
HELD = [
    (
        "snomed",
        partial(inactivate_rf2, pattern="sct2_Concept_Snapshot*"),
        r"SNOMEDCT@20250601 would retire (\d+) and inactivate (\d+) of the (\d+) active SNOMEDCT "
        r"concepts, and rename 0; more than 5% \(e\.g\. SNOMEDCT:\d+ .*\); held, nothing was "
        "written",
    ),
    (
        "rxnorm",
        partial(rename_rxcuis, share=0.2),
        r"RXNORM@2025-02-03 would retire \d+ and inactivate 0 of the (\d+) active RXNORM "
        r"concepts, and rename (\d+); more than 5% \(e\.g\. RXNORM:\d+ .*\); held, nothing "
        "was written",
    ),
]


@pytest.mark.parametrize(
    ("vocabulary", "change", "reason"), HELD, ids=["snomed-all-inactive", "rxnorm-renamed"]
)
def test_a_held_release_writes_nothing(
    current: Graph,
    cli_env: Settings,
    tmp_path: Path,
    vocabulary: str,
    change: Callable[[Path], None],
    reason: str,
) -> None:
    """The guard counts what the release would retire, inactivate and rename before any
    write: held, the graph is as it was, every property of it."""
    release = tmp_path / NEWER[vocabulary].name
    shutil.copytree(NEWER[vocabulary], release)
    change(release)
    before, releases = fingerprint(current), _releases(current)
    done = CliRunner().invoke(
        cli, ["load", vocabulary, str(release), "--rejects", str(tmp_path / "r.jsonl")]
    )
    assert done.exit_code == 4, done.output
    errors = [line for line in done.output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, done.output
    found = re.search(reason, errors[0])
    assert found, errors[0]
    counts = [int(group) for group in found.groups()]
    if vocabulary == "snomed":  # every concept the graph holds active: inactivated (or gone)
        assert counts[0] + counts[1] == counts[2] > 250 and counts[1] > 250
    else:  # at least the fifth renamed (a release's own renames come on top)
        assert counts[1] >= counts[0] * 0.19
    assert fingerprint(current) == before  # no Release node, no row written, nothing retired
    assert _releases(current) == releases
