"""Fact-sheet counts from several workers (the ray engine's actors) add up to one run's."""

from __future__ import annotations

from kgverify.derive.model import FactsReport


def test_reports_add_up_with_sorted_counts() -> None:
    total = FactsReport(patients=2, sheets=2, encounters=5, facts={"symptom": 3, "lab": 1})
    total.add(
        FactsReport(
            patients=1,
            sheets=1,
            encounters=2,
            facts={"symptom": 1, "allergy": 2},
            excluded={"no date and no encounter": 4},
            checks={"date_order": 1},
        )
    )
    assert (total.patients, total.sheets, total.encounters) == (3, 3, 7)
    assert total.facts == {"allergy": 2, "lab": 1, "symptom": 4}
    assert list(total.facts) == sorted(total.facts)
    assert total.excluded == {"no date and no encounter": 4}
    assert total.checks == {"date_order": 1}
    total.add(FactsReport())
    assert total.facts == {"allergy": 2, "lab": 1, "symptom": 4}
