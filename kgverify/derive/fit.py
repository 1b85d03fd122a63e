"""Age and sex fit of distractors: an option must be plausible for the patient shown. The
vocabularies rarely say who a concept is for (SNOMED CT has few age- or sex-restricted
concepts, RxNorm none), so the cohort says it: a distractor fits a patient when at least
``derive_fit_min_patients`` patients of the same sex and life stage (child, young adult,
middle-aged adult, older adult, at the date of the fact, when the age band then lies wholly
in one stage: a band straddling two is no evidence for either) have a fact coded as it (the
concept itself, its MAPS_TO group, or a drug's ingredients: ``derive/coded_reach``; no is-a
ancestors, so a grouping such as "Ischemic heart disease", which nobody is coded with, is
never an option). A concept no such patient has is refused, whatever else the graph says:
galantamine is not offered to a child when the cohort's children never receive it.

The profile is read once per run (``derive/cohort_ages``, a page of patients at a time) and
kept as counts per (sex, stage, concept): bounded by the vocabularies, not the patients.
"""

from __future__ import annotations

from collections import Counter

from kgverify.derive.records import moved_band, patient_pages, whole_stage
from kgverify.graph.driver import Graph, batched

FITS_KEPT = 500_000
"""Answers of ``fits`` kept at most (then forgotten): a run asks few distinct ones."""


class CohortFit:
    """Which concepts occur in the cohort's patients of each sex and life stage."""

    def __init__(self, graph: Graph, min_patients: int = 1, run: str | None = None) -> None:
        self.graph = graph
        self.run = run  # the derivation's patients are the cohort (None: every patient)
        self.min_patients = min_patients
        self.patients = 0
        self._seen: dict[str, Counter[tuple[str, str]]] | None = None
        # Answers kept: asked once per distractor and item, of few distinct groups.
        self._fits: dict[tuple[str, str | None, str | None], bool] = {}

    def _build(self) -> dict[str, Counter[tuple[str, str]]]:
        seen: dict[str, Counter[tuple[str, str]]] = {}
        for ids in patient_pages(self.graph, run=self.run):
            rows = self.graph.read("derive/cohort_ages", patients=ids)
            coded = sorted({cid for row in rows for cid, _ in row["coded"]})
            reached = {
                r["id"]: frozenset(r["reach"])
                for chunk in batched(coded, 2_000)
                for r in self.graph.read("derive/coded_reach", ids=chunk)
            }
            for row in rows:
                self.patients += 1
                sex = row["sex"] or "unknown"
                mine: set[tuple[str, str]] = set()  # (stage, concept), once per patient
                stages: dict[str | None, str] = {}  # a patient's facts share few years
                for cid, year in row["coded"]:
                    stage = stages.get(year)
                    if stage is None:
                        stage = stages[year] = _stage_then(row["age_band"], row["first"], year)
                    mine.update((stage, c) for c in reached.get(cid, (cid,)))
                for stage, concept in mine:
                    counts = seen.get(concept)
                    if counts is None:  # not setdefault: that made a Counter per pair
                        counts = seen[concept] = Counter()
                    counts[(sex, stage)] += 1
        return seen

    def fits(self, concept: str, sex: str | None, stage: str | None) -> bool:
        """At least ``min_patients`` patients of ``sex`` and ``stage`` (None: any) have it."""
        key = (concept, sex, stage)
        known = self._fits.get(key)
        if known is not None:
            return known
        if self._seen is None:
            self._seen = self._build()
        groups = self._seen.get(concept)
        fits = bool(groups) and self.min_patients <= sum(
            count
            for (s, st), count in (groups or {}).items()
            if (sex is None or s == sex) and (stage is None or st == stage)
        )
        if len(self._fits) >= FITS_KEPT:
            self._fits.clear()
        self._fits[key] = fits
        return fits


def _stage_then(band: str | None, first: str | None, year: str | None) -> str:
    """The life stage in ``year`` of a patient whose ``band`` was stated for ``first``;
    "between stages" when the band then straddles two (it counts only where any stage
    does: a patient of unknown age)."""
    if not band:
        return "unknown"
    if first and year and year.isdigit():
        band = moved_band(band, int(year) - int(first[:4])) or band
    return whole_stage(band) or "between stages"
