"""Vocabulary releases into the graph: ``load_vocabulary`` (docs/loaders.md)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from kgverify.collector import batch_work
from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph

if TYPE_CHECKING:
    from loaders import LoadReport
    from loaders.pipeline import ProgressFactory


@batch_work
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

    Returns:
        The load report: per file rows loaded, skipped and rejected, what was retired.

    Raises:
        ConfigError: an unknown vocabulary or a bad load option.
        LoadError: missing or empty files, a layout the loader does not know, an older
            release (without ``force``), or another load of the vocabulary still marked
            loading; nothing written.
        ReleaseGuardError: files much shorter than the current release's, or a release
            that would retire, inactivate or rename more than ``max_retire_share`` of the
            concepts (held, nothing written) or drop more of the relationships (held after
            the write, nothing retired); ``error.report`` when held.
        RejectThresholdError: more rows rejected than ``max_reject_share`` allows
            (``error.report`` has the counts).
    """
    # The one place kgverify reaches the top-level loaders package, which imports kgverify.
    from loaders import LoadOptions, get_loader
    from loaders.pipeline import load, no_progress

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
