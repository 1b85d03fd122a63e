"""Vocabulary loaders, one module per source format, on the shared base in ``loaders.base``.

>>> from loaders import get_loader
>>> get_loader("umls").__name__
'UmlsLoader'
"""

from __future__ import annotations

from kgverify.rows import FileReport, RejectedRow
from loaders.base import LoadOptions, Release, Step, VocabularyLoader
from loaders.report import LoadReport
from loaders.rxnorm import RxNormLoader
from loaders.snomed import SnomedLoader
from loaders.umls import UmlsLoader

LOADERS: dict[str, type[VocabularyLoader]] = {
    cls.name: cls for cls in (UmlsLoader, SnomedLoader, RxNormLoader)
}


def get_loader(name: str) -> type[VocabularyLoader]:
    """The loader class registered under ``name``; KeyError-free: unknown names raise LoadError."""
    from kgverify.errors import LoadError

    try:
        return LOADERS[name]
    except KeyError:
        raise LoadError(f"no loader named {name!r}; known: {', '.join(sorted(LOADERS))}") from None


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
