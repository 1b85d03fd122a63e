"""A non-editable install ships what runs: queries, sample data, the launcher sources."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from kgverify.graph.queries import list_queries

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("kgverify-*.whl")
    return built


def test_wheel_contents(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for query in list_queries():
        assert f"kgverify/queries/{query}.cypher" in names, query
    for required in (
        "loaders/umls.py",
        "kgverify/py.typed",
        "kgverify/sample/umls/2025AA/META/MRCONSO.RRF",
        "kgverify/sample/snomed/SnomedCT_InternationalRF2_PRODUCTION_20250101T120000Z/Snapshot/"
        "Terminology/sct2_Concept_Snapshot_INT_20250101.txt",
        "kgverify/server/neo4j-local/pom.xml",
        "kgverify/extract/prompts/relations_v2.txt",
        "kgverify/extract/prompts/repair_v1.txt",
        "kgverify/derive/prompts/calibrate_v1.txt",
        "kgverify/sample/omop/eunomia_sample/person.csv",
        "kgverify/server/neo4j-local/LICENSE",
        "kgverify/server/neo4j-local/src/main/java/org/kgverify/neo4jlocal/LocalServer.java",
        # What the launcher serves Neo4j Browser (docs/graph-browser.md).
        "kgverify/server/neo4j-local/src/main/resources/browser/kgverify/style.grass",
        "kgverify/server/neo4j-local/src/main/resources/browser/kgverify/audit.html",
        "kgverify/server/neo4j-local/src/main/resources/browser/kgverify/audit-favorites.zip",
        # The FHIR server's launcher (docs/fhir.md).
        "kgverify/server/hapi-local/pom.xml",
        "kgverify/server/hapi-local/src/main/java/org/kgverify/hapilocal/LocalFhirServer.java",
    ):
        assert required in names, required
    assert not any("/_generator/" in n for n in names)


def test_installed_wheel_runs_outside_the_checkout(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--quiet",
            "--target",
            str(site),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    probe = (
        "import json, kgverify, loaders\n"
        "from kgverify.graph.queries import list_queries, queries_root\n"
        "from kgverify.server.local import launcher_source\n"
        "from kgverify.api import sample_path\n"
        "print(json.dumps({'pkg': kgverify.__file__, 'loaders': loaders.__file__,\n"
        " 'queries': str(queries_root()), 'n': len(list_queries()),\n"
        " 'launcher': str(launcher_source()), 'sample': sample_path('umls').is_dir()}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    info = json.loads(done.stdout)
    for key in ("pkg", "loaders", "queries", "launcher"):
        assert info[key].startswith(str(site)), (key, info[key])
    assert info["n"] == len(list_queries()) and info["sample"] is True
    cli = subprocess.run(
        [sys.executable, "-m", "kgverify", "queries", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert {q["name"] for q in json.loads(cli.stdout)} == set(list_queries())
