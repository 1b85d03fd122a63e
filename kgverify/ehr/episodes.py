"""Episodes: the stretches of a trajectory that extraction reads and derivation reads back.

An episode is one encounter, or one calendar day of the items recorded outside any
encounter (the day of the item's start, offsets converted to UTC as ``sort_key`` does).
Sources such as OMOP's Eunomia record most facts outside visits, so without the day
episodes most of a record would never reach an extractor. Items outside encounters that
have no date belong to no episode.

Both extractors (``kgverify.extract.template``, ``kgverify.extract.prompting``) take their
episodes from ``episodes``; derivation (``kgverify.derive.records``) reads facts back from
the graph and keys them with ``episode_key``, so a relation, its facts and the question
derived from them all agree on which episode they belong to.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, time

from kgverify.ehr.model import (
    Condition,
    DrugExposure,
    Encounter,
    Item,
    Measurement,
    Note,
    Procedure,
    Trajectory,
    sort_key,
)

UNDATED = "undated"
"""The key of the items outside encounters that have no date (no episode)."""
DAY_PREFIX = "day:"


def day_of(when: date | datetime) -> date:
    """The calendar day an item falls on (UTC for instants with an offset)."""
    return sort_key(when).date()


def episode_key(encounter_id: str | None, start: date | datetime | None) -> str:
    """The episode of an item: its encounter's id, else ``day:YYYY-MM-DD`` of its start,
    else ``UNDATED``."""
    if encounter_id:
        return encounter_id
    if start is None:
        return UNDATED
    return f"{DAY_PREFIX}{day_of(start).isoformat()}"


def episode_day(key: str) -> str | None:
    """The ISO day of a day episode's key; None for an encounter (or undated)."""
    return key.removeprefix(DAY_PREFIX) if key.startswith(DAY_PREFIX) else None


@dataclass
class Episode:
    """One encounter's items, or one day's items outside encounters (``encounter`` None)."""

    key: str
    when: datetime
    encounter: Encounter | None = None
    conditions: list[Condition] = field(default_factory=list)
    drug_exposures: list[DrugExposure] = field(default_factory=list)
    measurements: list[Measurement] = field(default_factory=list)
    procedures: list[Procedure] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)

    @property
    def encounter_id(self) -> str | None:
        return self.encounter.encounter_id if self.encounter is not None else None

    def items(self) -> Iterator[Item]:
        """Every item, list by list (as ``ItemLists.items``)."""
        yield from self.conditions
        yield from self.drug_exposures
        yield from self.measurements
        yield from self.procedures
        yield from self.notes

    def add(self, item: Item) -> None:
        if isinstance(item, Condition):
            self.conditions.append(item)
        elif isinstance(item, DrugExposure):
            self.drug_exposures.append(item)
        elif isinstance(item, Measurement):
            self.measurements.append(item)
        elif isinstance(item, Procedure):
            self.procedures.append(item)
        elif isinstance(item, Note):
            self.notes.append(item)


def episodes(trajectory: Trajectory) -> list[Episode]:
    """The trajectory's episodes in time order (ties: encounters by id after the day's
    items outside encounters); empty encounters included, undated outside items left out."""
    found: list[Episode] = []
    for encounter in trajectory.encounters:
        episode = Episode(encounter.encounter_id, sort_key(encounter.start), encounter)
        for item in encounter.items():
            episode.add(item)
        found.append(episode)
    by_day: dict[str, Episode] = {}
    for item in trajectory.items_outside_encounters.items():
        if item.start is None:
            continue
        key = episode_key(None, item.start)
        if key not in by_day:
            by_day[key] = Episode(key, datetime.combine(day_of(item.start), time()))
        by_day[key].add(item)
    found.extend(by_day.values())
    return sorted(found, key=lambda e: (e.when, e.encounter_id or ""))


def undated_items(trajectory: Trajectory) -> int:
    """Items outside encounters without a date: in no episode, so no extractor reads them."""
    return sum(1 for item in trajectory.items_outside_encounters.items() if item.start is None)
