"""The EHR sources: name -> reader (docs/trajectories.md), the registry that
``kgverify ingest|trajectories|extract SOURCE`` and the API's ``source`` read.

Adding a source: its reader module beside these (``read_<name>(path, ledger, *, salt,
workdir=None, memory_limit=None)``, streaming one patient at a time), one entry here, and
its name in ``kgverify.ehr.model.SourceName`` (the ``source`` field every trajectory
carries).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from kgverify.ehr.common import Ledger
from kgverify.ehr.fhir import read_fhir
from kgverify.ehr.mimic import read_mimic
from kgverify.ehr.model import Trajectory
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


# The descriptions are the CLI's SOURCE help and what the docs say each path is.
EHR_SOURCES: Registry[EhrReader] = Registry(
    "EHR source",
    [
        Entry("omop", read_omop, "a DuckDB file or a folder of CSV/Parquet tables"),
        Entry("mimic", read_mimic, "a MIMIC-IV hosp folder"),
        Entry("fhir", read_fhir, "R4 bundles / NDJSON"),
    ],
)
