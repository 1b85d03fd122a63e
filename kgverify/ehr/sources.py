"""The EHR sources: name -> reader (docs/trajectories.md), the registry that
``kgverify ingest|trajectories|extract SOURCE`` and the API's ``source`` read.

The names are ``kgverify.ehr.model.SourceName`` (the ``source`` field every trajectory
carries, which sits below the readers): the registry is built from them, in their order,
each with its reader (``_declared``, whose match mypy checks is exhaustive), so a name
without a reader, or a reader without a name, fails the type check and the import.

Adding a source: its reader module beside these (``read_<name>(path, ledger, *, salt,
workdir=None, memory_limit=None)``, streaming one patient at a time), its name in
``SourceName``, and its case in ``_declared``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, assert_never, get_args

from kgverify.ehr.common import Ledger
from kgverify.ehr.fhir import read_fhir
from kgverify.ehr.mimic import read_mimic
from kgverify.ehr.model import SourceName, Trajectory
from kgverify.ehr.omop import read_omop
from kgverify.registry import Entry, Registry


class EhrReader(Protocol):
    """Trajectories of a source, one patient at a time, every row counted in ``ledger``."""

    def __call__(
        self,
        source: Path,
        ledger: Ledger,
        *,
        salt: str,
        workdir: Path | None = None,
        memory_limit: str | None = None,
    ) -> Iterator[Trajectory]: ...


def _declared(name: SourceName) -> Entry[EhrReader]:
    """A source's reader, with what its PATH is (the CLI's SOURCE help, the docs)."""
    match name:
        case "omop":
            return Entry(name, read_omop, "a DuckDB file or a folder of CSV/Parquet tables")
        case "mimic":
            return Entry(name, read_mimic, "a MIMIC-IV hosp folder")
        case "fhir":
            return Entry(name, read_fhir, "R4 bundles / NDJSON")
        case _:
            assert_never(name)


EHR_SOURCES: Registry[EhrReader] = Registry(
    "EHR source", [_declared(name) for name in get_args(SourceName)]
)
