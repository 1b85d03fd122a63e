"""One registry per extension point: a typed, ordered mapping name -> entry, each with a
one-line description, read by the CLI (its choices), the API (its one-line error for an
unknown name), the docs test and the meta-tests (tests/unit/test_registries.py).

Each registry lives in the lowest stage that may know its entries, beside them, and holds
the objects themselves (no names of modules in strings):

| extension point | registry | entry |
|---|---|---|
| vocabulary loaders | ``loaders.LOADERS`` | the loader class |
| EHR sources | ``kgverify.ehr.sources.EHR_SOURCES`` | the reader function |
| extractors | ``kgverify.extract.registry.EXTRACTORS`` | what builds the extractor |
| QA tasks | ``kgverify.derive.qa.TASKS`` | the candidate function, distractor pool kinds |
| verification rules | ``kgverify.verify.rules.RULES`` | the ``Rule`` |
| engines | ``kgverify.engines.ENGINES`` | what opens a file run's linker and verifier |

``RULES`` stays the tuple it was: a rule is named by its query file, the tuple's order
breaks ties between rules, and no command or API call takes a rule by name, so it needs
no ``pick``; its names, query files and docs are checked with the others.

``loaders/`` is a top-level package that imports ``kgverify``; only ``kgverify.api`` imports
it back (tests/unit/test_imports.py), so its registry stays in ``loaders/__init__.py``.
The CLI reads every registry through ``kgverify.api.registries`` on first use
(``kgverify.cli.options.RegistryChoice``): importing the stages costs seconds that
``kgverify --help`` should not pay. This module is at the bottom of the import graph: it
knows no entry, only what a registry is.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from kgverify.errors import ConfigError

T = TypeVar("T")


class UnknownNameError(ConfigError):
    """A name no registry entry has: ``unknown <what> '<name>' (known: a, b, c)``."""


@dataclass(frozen=True)
class Entry(Generic[T]):
    """One registered name: what the stage needs (``value``) and a line for help and docs."""

    name: str
    value: T
    description: str


class Registry(Mapping[str, T]):
    """name -> value, in registration order (the order the CLI shows); ``pick`` gives the
    one-line error for an unknown name."""

    def __init__(self, what: str, entries: Iterable[Entry[T]]) -> None:
        self.what = what
        self._entries: dict[str, Entry[T]] = {}
        for entry in entries:
            if entry.name in self._entries:
                raise ValueError(f"{what} {entry.name!r} registered twice")
            self._entries[entry.name] = entry

    def __getitem__(self, name: str) -> T:
        return self._entries[name].value

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {list(self._entries)})"

    def entry(self, name: str) -> Entry[T]:
        return self._entries[name]

    def describe(self) -> dict[str, str]:
        """name -> its one-line description, in order."""
        return {name: e.description for name, e in self._entries.items()}

    def check(self, name: str) -> str:
        """``name`` when it is registered, else the one-line ``UnknownNameError``."""
        if name not in self._entries:
            raise UnknownNameError(f"unknown {self.what} {name!r} (known: {', '.join(self)})")
        return name

    def pick(self, name: str) -> T:
        """The value registered under ``name``; an unknown name is one error line."""
        return self._entries[self.check(name)].value
