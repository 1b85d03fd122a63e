"""The on-disk staging of a release's concepts that the release guard compares with the
graph before anything is written (loaders/staging.py)."""

from __future__ import annotations

from loaders.staging import StagedConcepts


def test_a_concept_split_over_rows_keeps_the_name_the_upsert_would_keep() -> None:
    with StagedConcepts() as staged:
        staged.add_many([("RXNORM:1", True, "Zeta", 9), ("SNOMEDCT:2", False, None, None)])
        staged.add_many([("RXNORM:1", True, "Beta", 0), ("RXNORM:3", True, "Gamma", 0)])
        staged.add_many([("RXNORM:1", True, "Alpha", 9), ("RXNORM:3", True, "Delta", 0)])
        pages = list(staged.pages(2))
        assert pages == [  # rank 0 before 9, then the smallest string
            [("RXNORM:1", True, "Beta"), ("RXNORM:3", True, "Delta")],
            [("SNOMEDCT:2", False, None)],
        ]
        assert staged.contains_many(["RXNORM:1", "RXNORM:9", "SNOMEDCT:2"]) == {
            "RXNORM:1",
            "SNOMEDCT:2",
        }
