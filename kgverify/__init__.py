"""kgverify: a knowledge-graph verification engine for clinical LLM benchmarks.

The vocabularies (UMLS, SNOMED CT, RxNorm) are loaded into Neo4j and used as the judge of
relations that LLMs extract from EHR trajectories. Start with :mod:`kgverify.api`.
"""

from __future__ import annotations

from typing import Any

from kgverify.__about__ import __version__
from kgverify.config import Settings
from kgverify.errors import KgverifyError

__all__ = [
    "Graph",
    "KgverifyError",
    "Settings",
    "__version__",
    "check",
    "explain",
    "graph_summary",
    "load_vocabulary",
    "run_sample",
]

_LAZY = {
    "Graph": "kgverify.graph",
    "check": "kgverify.api",
    "explain": "kgverify.api",
    "graph_summary": "kgverify.api",
    "load_vocabulary": "kgverify.api",
    "run_sample": "kgverify.api",
}


def __getattr__(name: str) -> Any:
    # Imported on first use: kgverify.api needs the top-level `loaders` package, which in
    # turn imports kgverify's errors and graph model.
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(name)
