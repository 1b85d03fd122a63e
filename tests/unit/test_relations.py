"""Normalization of source relation names; the RRF direction convention."""

from __future__ import annotations

import pytest

from kgverify.graph.model import RelType, rel_type, vocab_label
from loaders.relations import RRF_RELA, SNOMED_TYPES, map_rrf


def test_rrf_direction_convention() -> None:
    # Row CUI1=T2DM | RELA=may_treat | CUI2=metformin reads "metformin may_treat T2DM":
    # forward RELAs run CUI2 -> CUI1, their inverses CUI1 -> CUI2: both give one edge.
    forward = map_rrf("RO", "may_treat")
    inverse = map_rrf("RO", "may_be_treated_by")
    assert forward is not None and inverse is not None
    assert forward.type is inverse.type is RelType.MAY_TREAT
    assert (forward.inverse, inverse.inverse) == (False, True)
    assert forward.name == inverse.name == "may_treat"
    child = map_rrf("CHD", "")  # second is child of first: second IS_A first
    parent = map_rrf("PAR", "")
    assert child is not None and parent is not None
    assert (child.type, child.inverse) == (RelType.IS_A, False)
    assert (parent.type, parent.inverse) == (RelType.IS_A, True)


def test_unmodelled_relations_are_none() -> None:
    assert map_rrf("RO", "has_nonsense") is None
    assert map_rrf("SIB", "") is None


def test_every_pair_maps_both_names_to_one_type() -> None:
    for name, mapped in RRF_RELA.items():
        assert RRF_RELA[mapped.name].type is mapped.type, name
    assert SNOMED_TYPES["116680003"].type is RelType.IS_A


def test_labels_and_types_come_only_from_the_fixed_lists() -> None:
    assert rel_type("MAY_TREAT") is RelType.MAY_TREAT
    assert vocab_label("SNOMEDCT").value == "SNOMEDCT"
    for bad in ("MAY_TREAT]->() DETACH DELETE n //", "may_treat", "Concept`"):
        with pytest.raises(ValueError):
            rel_type(bad)
        with pytest.raises(ValueError):
            vocab_label(bad)
