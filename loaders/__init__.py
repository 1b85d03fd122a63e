"""Vocabulary loaders, one module per source format, on the shared base in ``loaders.base``.

>>> from loaders import get_loader
>>> get_loader("umls").__name__
'UmlsLoader'
"""

from __future__ import annotations

from kgverify.registry import Entry, Registry
from kgverify.rows import FileReport, RejectedRow
from loaders.base import LoadOptions, Release, Step, VocabularyLoader
from loaders.report import LoadReport
from loaders.rxnorm import RxNormLoader
from loaders.snomed import SnomedLoader
from loaders.umls import UmlsLoader

# The registry of vocabulary loaders (``kgverify.registry``): ``kgverify load VOCABULARY``
# and ``api.load_vocabulary`` read it; a loader's description is its source format. It
# lives here, not in kgverify, because loaders imports kgverify and not the reverse.
LOADERS: Registry[type[VocabularyLoader]] = Registry(
    "vocabulary",
    [Entry(cls.name, cls, cls.source_format) for cls in (UmlsLoader, SnomedLoader, RxNormLoader)],
)


def get_loader(name: str) -> type[VocabularyLoader]:
    """The loader class registered under ``name``; an unknown name raises one
    ``UnknownNameError`` line (a ``ConfigError``)."""
    return LOADERS.pick(name)


__all__ = [
    "LOADERS",
    "FileReport",
    "LoadOptions",
    "LoadReport",
    "RejectedRow",
    "Release",
    "RxNormLoader",
    "SnomedLoader",
    "Step",
    "UmlsLoader",
    "VocabularyLoader",
    "get_loader",
]
