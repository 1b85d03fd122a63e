"""Package faces that import on first use (PEP 562).

A package's ``__init__`` that imports every module it re-exports makes importing any one
of its modules pay for all of them: ``kgverify.link.model`` (a few pydantic models) used to
bring in scispaCy, spaCy and scikit-learn through ``kgverify.link.index``, about 2 s on
every ``kgverify audit`` that never links. A face built here names each public name's
module and imports it when the name is first read; the ``TYPE_CHECKING`` imports beside it
keep the names visible to type checkers and to ``tests/unit/test_imports.py``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_face(package: str, modules: dict[str, list[str]]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: ``modules`` maps a submodule (relative
    name) to the public names it holds."""
    where = {name: module for module, names in modules.items() for name in names}

    def attribute(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return attribute
