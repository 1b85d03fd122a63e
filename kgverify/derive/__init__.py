"""Derivation: QA items and patient fact sheets from the validated graph (docs/derivation.md)."""

from kgverify.derive.export import read_items
from kgverify.derive.model import (
    CitedEdge,
    ConceptSet,
    ContextFact,
    DeriveReport,
    DistractorWhy,
    EncounterSheet,
    FactSheet,
    FactsReport,
    Justification,
    Option,
    PolicyYield,
    QAItem,
    SheetCheck,
    SheetFact,
    Task,
)
from kgverify.derive.run import run_facts, run_qa

__all__ = [
    "CitedEdge",
    "ConceptSet",
    "ContextFact",
    "DeriveReport",
    "DistractorWhy",
    "EncounterSheet",
    "FactSheet",
    "FactsReport",
    "Justification",
    "Option",
    "PolicyYield",
    "QAItem",
    "SheetCheck",
    "SheetFact",
    "Task",
    "read_items",
    "run_facts",
    "run_qa",
]
