"""Question templates, kept as files (``kgverify/derive/templates/<task>.txt``) and filled
with ``string.Template``: no logic in them, and a version (hash of the file) on every item,
so changing a template's wording changes the ids of the items it renders."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from string import Template

from kgverify.derive.model import ContextFact, Task

# How each context role is introduced, in the order the lines appear.
ROLE_LINES: dict[str, str] = {
    "condition": "Conditions at this visit",
    "finding": "Findings",
    "test": "Tests done",
    "procedure": "Procedures done",
    "medication": "Medications started",
    # Earlier conditions the record gives no end by this visit: what may rule an option out
    # for this patient, so the question says they had not ended (a peptic ulcer shown as
    # merely "earlier" would leave the reader a reason they cannot see).
    "history_open": "Earlier conditions not ended by this visit",
    "history": "Earlier conditions",
}
SEX_WORDS = {"F": "female", "M": "male"}


@dataclass(frozen=True)
class QuestionTemplate:
    task: Task
    text: str

    @property
    def version(self) -> str:
        return f"{self.task.value}@{hashlib.sha256(self.text.encode()).hexdigest()[:12]}"

    def render(self, **values: str) -> str:
        return Template(self.text).substitute(values).strip()


@cache
def template(task: Task) -> QuestionTemplate:
    text = resources.files("kgverify.derive").joinpath("templates", f"{task.value}.txt")
    return QuestionTemplate(task, text.read_text(encoding="utf-8"))


def describe_patient(age_band: str | None, sex: str | None) -> str:
    """'patient aged 40-49, female' style wording from the pseudonymized demographics."""
    parts = ["patient"]
    if age_band:
        parts.append(f"aged {age_band}")
    words = " ".join(parts)
    return f"{SEX_WORDS[sex]} {words}" if sex in SEX_WORDS else words


def describe_context(context: list[ContextFact], date: str | None = None) -> str:
    """One line per role, names in the order given; a line saying so when there is none.
    Earlier conditions not ended by ``date`` (the episode's) have a line of their own."""

    def role_of(f: ContextFact) -> str:
        return "history_open" if f.role == "history" and not f.ended_by(date) else f.role

    lines = []
    for role, label in ROLE_LINES.items():
        names = list(dict.fromkeys(f.text for f in context if role_of(f) == role))
        if names:
            lines.append(f"{label}: {'; '.join(names)}.")
    return "\n".join(lines) if lines else "Nothing else is recorded for this visit."
