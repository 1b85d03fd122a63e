"""Every loader module registers a loader, and every loader has its end-to-end test."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import loaders
from loaders.base import VocabularyLoader

# The modules of the registered loaders (loaders.LOADERS): each defines exactly one.
FORMAT_MODULES = {cls.__module__.rpartition(".")[2] for cls in loaders.LOADERS.values()}


def test_every_format_module_defines_a_registered_loader() -> None:
    found = {}
    for module in pkgutil.iter_modules(loaders.__path__):
        mod = importlib.import_module(f"loaders.{module.name}")
        for obj in vars(mod).values():
            if (
                isinstance(obj, type)
                and issubclass(obj, VocabularyLoader)
                and obj is not VocabularyLoader
                and obj.__module__ == mod.__name__
            ):
                found[module.name] = obj
    assert set(found) == FORMAT_MODULES
    for name, cls in found.items():
        assert loaders.LOADERS[cls.name] is cls, name
        assert cls.license and cls.source_format and cls.vocab


def test_every_loader_has_an_e2e_test() -> None:
    e2e = Path(__file__).resolve().parents[1] / "e2e"
    for name in loaders.LOADERS:
        assert (e2e / f"test_{name}_load.py").is_file(), name
