"""The Python API: one function per thing a pipeline does, each usable alone.

from kgverify.api import graph_summary, load_vocabulary

report = load_vocabulary("snomed", "path/to/SnomedCT_InternationalRF2_..._T120000Z")
report.status            # "complete", or raises RejectThresholdError
report.files[0].rejected # rows rejected in the first file, each in the rejects JSONL
graph_summary()["concepts"]
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph
from loaders import LoadOptions, LoadReport, get_loader
from loaders.pipeline import ProgressFactory, load, no_progress


def load_vocabulary(
    vocabulary: str,
    path: str | Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    bulk: bool = False,
    rejects_path: Path | None = None,
    progress: ProgressFactory | None = None,
    **options: Any,
) -> LoadReport:
    """Load one release of ``vocabulary`` ("umls", "snomed", "rxnorm") from ``path``.

    ``options`` are :class:`loaders.LoadOptions` fields (languages, sources,
    include_suppressed, release, force). ``bulk=True`` imports into the empty local database
    with neo4j-admin (see docs/loaders.md); otherwise rows are written in batches.
    """
    settings = settings or Settings()
    try:
        load_options = LoadOptions(**options)
    except ValidationError as exc:
        raise ConfigError(
            f"invalid load options: {exc.errors()[0]['msg']} "
            f"({', '.join(map(str, exc.errors()[0]['loc']))})"
        ) from exc
    loader = get_loader(vocabulary)(Path(path), load_options)
    if bulk:
        from loaders.bulk import bulk_load

        return bulk_load(
            loader, settings=settings, rejects_path=rejects_path, progress=progress or no_progress
        )
    own = graph is None
    g = graph or Graph.connect(settings)
    try:
        return load(
            loader,
            g,
            settings=settings,
            rejects_path=rejects_path,
            progress=progress or no_progress,
        )
    finally:
        if own:
            g.close()


def graph_summary(settings: Settings | None = None, graph: Graph | None = None) -> dict[str, Any]:
    """Releases, concept counts per vocabulary and relationship counts per type."""
    own = graph is None
    g = graph or Graph.connect(settings or Settings())
    try:
        return {
            "releases": g.read("summary/releases"),
            "concepts": g.read("summary/concepts_by_vocab"),
            "relationships": g.read("summary/relationships_by_type"),
        }
    finally:
        if own:
            g.close()


def sample_path(*parts: str) -> Path:
    """A path inside the shipped sample data (``kgverify/sample``)."""
    return Path(str(resources.files("kgverify").joinpath("sample").joinpath(*parts)))


SAMPLE_RELEASES = {
    "umls": ("umls", "2025AA"),
    "snomed": ("snomed", "SnomedCT_InternationalRF2_PRODUCTION_20250101T120000Z"),
    "rxnorm": ("rxnorm", "RxNorm_full_01062025"),
}


def run_sample(
    settings: Settings | None = None, progress: ProgressFactory | None = None
) -> dict[str, Any]:
    """The main job on the shipped sample: local Neo4j up, sample vocabularies loaded."""
    from kgverify.server import LocalServer

    settings = settings or Settings()
    if settings.neo4j_uri is None:
        LocalServer(settings).start()
    with Graph.connect(settings) as graph:
        loads = [
            load_vocabulary(
                name, sample_path(*parts), settings=settings, graph=graph, progress=progress
            ).model_dump()
            for name, parts in SAMPLE_RELEASES.items()
        ]
        return {"loads": loads, "summary": graph_summary(graph=graph)}
