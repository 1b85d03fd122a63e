"""EHR ingest: OMOP CDM, MIMIC-IV and FHIR R4 sources -> encounter-level patient trajectories.

Each adapter streams ``Trajectory`` objects one patient at a time and counts every source row
in a ``Ledger`` (loaded, skipped with a reason, or rejected into a ``RejectSink``). The schema
and the privacy rules are in docs/trajectories.md.

```python
from kgverify.ehr import Ledger, read_omop, write_jsonl
from kgverify.rows import RejectSink

ledger = Ledger(RejectSink(Path("rejects.jsonl")))
write_jsonl(read_omop(Path("cdm.duckdb"), ledger, salt=secret), Path("trajectories.jsonl"))
assert ledger.reconciles
```
"""

from __future__ import annotations

from kgverify.ehr.common import Ledger, SourceError
from kgverify.ehr.fhir import read_fhir
from kgverify.ehr.mimic import read_mimic
from kgverify.ehr.model import (
    Condition,
    DrugExposure,
    Encounter,
    ItemLists,
    Measurement,
    Note,
    Patient,
    Procedure,
    SourceRef,
    Trajectory,
    read_jsonl,
    write_jsonl,
)
from kgverify.ehr.omop import read_omop
from kgverify.ehr.sources import EHR_SOURCES

__all__ = [
    "EHR_SOURCES",
    "Condition",
    "DrugExposure",
    "Encounter",
    "ItemLists",
    "Ledger",
    "Measurement",
    "Note",
    "Patient",
    "Procedure",
    "SourceError",
    "SourceRef",
    "Trajectory",
    "read_fhir",
    "read_jsonl",
    "read_mimic",
    "read_omop",
    "write_jsonl",
]
