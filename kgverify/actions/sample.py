"""The shipped sample tasks and planted agent actions (``kgverify/sample/actions/``), written
against the sample EHR: five tasks on sample patients, each with the actions an agent took
(a good anticoagulant order for atrial fibrillation, an NSAID for a patient with a peptic
ulcer, a duplicate statin, an unknown code, a malformed resource). Patients are named by the
OMOP ``person_id`` (``person``); ``resolve`` gives this installation's pseudonyms, as
``kgverify.dialogue.sample`` does for the sample dialogues. Each planted action carries the
verdict a reader expects (``expected``), which the tests hold the check to."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from kgverify.actions.model import ActionRecord, ActionVerdictKind, Task
from kgverify.actions.server import server_patient
from kgverify.dialogue.sample import SOURCE
from kgverify.ehr.fhir_write import resource_id
from kgverify.ehr.privacy import pseudonym
from kgverify.jsonl import loads_line, read_models, write_models
from kgverify.outputs import make_dirs, write_private

TASKS = "tasks"
ACTIONS = "actions.jsonl"


class SampleAction(BaseModel):
    """A planted action about a sample patient, named by the source's person id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    action_id: str
    task_id: str
    person: str = Field(description="the sample EHR's person_id")
    expected: ActionVerdictKind
    note: str = ""
    resource: dict[str, Any]

    def resolve(self, salt: str) -> ActionRecord:
        return ActionRecord(
            action_id=self.action_id,
            task_id=self.task_id,
            patient_id=pseudonym(salt, f"{SOURCE}:patient", self.person),
            resource=self.resource,
        )


def read_sample_actions(folder: Path) -> list[SampleAction]:
    return list(read_models(folder / ACTIONS, SampleAction))


def read_sample_tasks(folder: Path, salt: str, *, server: bool = False) -> list[Task]:
    """The sample's task files with this installation's pseudonyms: the sample EHR's, or
    with ``server`` those ``fhir-rest`` gives the same patients read back from a FHIR
    server that ``kgverify fhir load`` filled (Patient ``kgv-`` + the EHR's pseudonym)."""
    tasks = []
    for path in sorted((folder / TASKS).glob("*.json")):
        raw = loads_line(path.read_bytes())
        patient = pseudonym(salt, f"{SOURCE}:patient", raw.pop("person"))
        raw["patient_id"] = server_patient(salt, resource_id(patient)) if server else patient
        tasks.append(Task.model_validate(raw))
    return tasks


def write_resolved(
    folder: Path, out: Path, salt: str, *, server: bool = False
) -> tuple[Path, Path]:
    """The sample's tasks (one JSON file each) and actions (JSONL) with this installation's
    pseudonyms, under ``out`` (owner-only): what ``kgverify grade`` reads. The actions name
    the sample EHR's patients; ``post_actions`` turns them into the server's."""
    tasks_dir = out / TASKS
    make_dirs(tasks_dir)
    for task in read_sample_tasks(folder, salt, server=server):
        write_private(tasks_dir / f"{task.task_id}.json", task.model_dump_json(indent=2) + "\n")
    actions = out / ACTIONS
    write_models(_resolved(read_sample_actions(folder), salt), actions)
    return tasks_dir, actions


def _resolved(actions: Iterable[SampleAction], salt: str) -> Iterable[ActionRecord]:
    for a in actions:
        yield a.resolve(salt)
