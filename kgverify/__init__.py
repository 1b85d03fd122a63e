"""kgverify: a knowledge-graph verification engine for clinical LLM benchmarks.

The vocabularies (UMLS, SNOMED CT, RxNorm) are loaded into Neo4j and used as the judge of
relations that LLMs extract from EHR trajectories. Start with :mod:`kgverify.api`.

The package face stays light (no driver, no spaCy): ``kgverify --help`` imports it first.
"""

from kgverify.__about__ import __version__
from kgverify.config import Settings
from kgverify.errors import KgverifyError

__all__ = ["KgverifyError", "Settings", "__version__"]
