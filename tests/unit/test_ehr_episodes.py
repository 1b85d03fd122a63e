"""Episodes: one encounter, or one day of the items outside encounters; the same for the
template extractor, the LLM prompts and the records derivation reads back."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Any

from kgverify.derive.records import _record
from kgverify.ehr.episodes import UNDATED, episode_key, episodes, undated_items
from kgverify.ehr.model import (
    Condition,
    DrugExposure,
    Encounter,
    ItemLists,
    Patient,
    Procedure,
    SourceRef,
    Trajectory,
)
from kgverify.extract.prompting import build_prompts
from kgverify.extract.template import TemplateExtractor

EST = timezone(timedelta(hours=-5))


def _ref(row: str) -> SourceRef:
    return SourceRef(table="t", row=row, code_system="x", code=row)


def trajectory() -> Trajectory:
    late = datetime(2020, 1, 1, 21, 0, tzinfo=EST)  # 2020-01-02 in UTC
    flu = Condition(
        item_id="c-flu", source=_ref("1"), code_system="SNOMEDCT", code="6142004", start=late
    )
    drug = DrugExposure(
        item_id="d-osel",
        source=_ref("2"),
        code_system="RXNORM",
        code="260101",
        start=date(2020, 1, 2),
    )
    xray = Procedure(
        item_id="p-xray", source=_ref("3"), code_system="SNOMEDCT", code="399208008"
    )  # undated: no episode
    visit = Encounter(
        encounter_id="e1",
        start=date(2020, 1, 2),
        kind="outpatient",
        conditions=[flu.model_copy(update={"item_id": "c-flu-2", "start": date(2020, 1, 2)})],
    )
    empty = Encounter(encounter_id="e0", start=date(2019, 6, 1), kind="other")
    return Trajectory(
        source="omop",
        patient=Patient(patient_id="p1"),
        encounters=[empty, visit],
        items_outside_encounters=ItemLists(
            conditions=[flu], drug_exposures=[drug], procedures=[xray]
        ),
    )


def test_items_outside_encounters_are_grouped_by_utc_day() -> None:
    t = trajectory()
    found = episodes(t)
    assert [e.key for e in found] == ["e0", "day:2020-01-02", "e1"]
    day = found[1]
    assert day.encounter is None and [i.item_id for i in day.items()] == ["c-flu", "d-osel"]
    assert undated_items(t) == 1 and episode_key(None, None) == UNDATED
    assert episode_key("e1", date(2020, 1, 2)) == "e1"


def test_both_extractors_read_the_same_episodes() -> None:
    t = trajectory()
    keys = [e.key for e in episodes(t)]
    prompted = [p.episode for p in build_prompts(t)]
    assert prompted == [k for k in keys if k != "e0"]  # the empty encounter has no prompt
    assert [p.encounter_id for p in build_prompts(t)] == [None, "e1"]
    extractor = TemplateExtractor()
    (treats,) = extractor.extract_one(t)  # oseltamivir and flu, the same day outside visits
    assert treats.encounter_id is None and treats.evidence == ["d-osel", "c-flu"]
    assert extractor.episodes == len(keys)


def _raw_fact(fact_id: str, start: Any, encounter: str | None) -> dict[str, Any]:
    return {
        "id": fact_id,
        "kind": "condition",
        "display": None,
        "code_system": "SNOMEDCT",
        "code": "6142004",
        "start": start,
        "end": None,
        "value": None,
        "unit": None,
        "flag": None,
        "source_table": "t",
        "source_row": "1",
        "encounter": encounter,
        "encounter_start": date(2020, 1, 2) if encounter else None,
        "encounter_kind": "outpatient" if encounter else None,
        "concept": None,
        "concept_name": None,
        "concept_names": [],
        "concept_kinds": [],
        "concept_active": False,
        "concept_stub": False,
        "concept_group": [],
        "allergy": False,
    }


def test_derivation_keys_facts_as_the_extractors_do() -> None:
    """A fact read back from the graph lands in the episode its item was extracted from,
    also for a time whose UTC day differs from the local one."""
    t = trajectory()
    late = t.items_outside_encounters.conditions[0].start
    row = {
        "patient": {"id": "p1"},
        "facts": [
            _raw_fact("f1", late, None),
            _raw_fact("f2", date(2020, 1, 2), "e1"),
            _raw_fact("f3", None, None),
        ],
        "assertions": [],
    }
    record = _record(row, None)
    assert [e.key for e in record.episodes] == ["day:2020-01-02", "e1"]
    assert record.episodes[0].start == "2020-01-02"
    assert record.facts["f1"].episode == episode_key(None, late) == episodes(t)[1].key
    assert record.facts["f3"].episode == UNDATED
