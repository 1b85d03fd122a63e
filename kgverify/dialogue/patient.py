"""A reference simulated patient: an LLM on any OpenAI-compatible server (``vllm serve``) or
the offline vLLM engine, through the extractor's backends, prompted only with what the fact
sheet says the patient may say (in lay words), and guarded by the dialogue checker: a reply
that leaks a record-only fact, contradicts the record or invents a clinical claim is sent
back once per retry with the reasons, and only a reply that passes is kept.

The prompt never holds a ``record_only`` fact (the diagnosis to find, labs, codes): the
guard catches what the model makes up or guesses, the prompt keeps what it could copy out.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from kgverify.derive.model import FactSheet
from kgverify.dialogue.checker import DialogueChecker
from kgverify.dialogue.model import MentionVerdict, Role, Turn, TurnVerdict
from kgverify.dialogue.record import RecordView, view
from kgverify.errors import ConfigError
from kgverify.extract.backends import Backend, CompletionError, LLMError

log = logging.getLogger(__name__)

REPLY_SCHEMA = {
    "type": "object",
    "properties": {"reply": {"type": "string"}},
    "required": ["reply"],
    "additionalProperties": False,
}
"""Structured output: one field, the patient's words."""

_SECTIONS = {
    "symptom": "What you feel now",
    "current_drug": "Medicines you take now",
    "history": "Illnesses you had before",
    "allergy": "Your allergies",
}


class Attempt(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    problems: list[str] = Field(description="why the guard sent it back (empty: kept)")


class PatientTurn(BaseModel):
    """One patient reply, with what the guard found and the attempts it sent back."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    accepted: bool = Field(description="False: no attempt passed; the last one is kept")
    verdict: TurnVerdict
    attempts: list[Attempt]


def persona(record: RecordView, sheet: FactSheet) -> str:
    """The patient's brief: age band, sex, and the sayable facts in lay words, by section."""
    lines = [
        "You are a patient talking to a doctor. Stay in role.",
        f"Age: {record.age_band or 'unknown'}; sex: {sheet.sex or 'unknown'}.",
    ]
    by_section: dict[str, list[str]] = {}
    for fact, where in record.sayable:
        if where == "this encounter" or where == "the record":
            by_section.setdefault(fact.section, []).append(fact.text)
    for section, title in _SECTIONS.items():
        facts = list(dict.fromkeys(by_section.get(section, [])))
        if facts:
            lines.append(f"{title}: {'; '.join(facts)}.")
    lines.append(
        "Say only what is listed above, in plain words. You do not know your diagnosis or "
        "any test results: never name them or guess them. If asked about anything not "
        "listed, say you do not know or have not had it. Answer in one to three sentences."
    )
    return "\n".join(lines)


def _problem(m: MentionVerdict) -> str:
    return f"{m.text!r}: {m.verdict.value} ({m.reason})"


@dataclass
class SimulatedPatient:
    """A patient of one fact sheet at one encounter; ``reply`` answers the doctor."""

    backend: Backend
    sheet: FactSheet
    encounter_id: str | None
    checker: DialogueChecker
    retries: int = 2
    turns: list[Turn] = field(default_factory=list)

    def __post_init__(self) -> None:
        record = view(self.sheet, self.encounter_id)
        if record is None:
            raise ConfigError(
                f"patient {self.sheet.patient_id} has no encounter {self.encounter_id!r}"
            )
        self.record = record
        self.brief = persona(record, self.sheet)

    def prompt(self, rejected: list[Attempt]) -> str:
        talk = [f"{'Doctor' if t.role is Role.DOCTOR else 'Patient'}: {t.text}" for t in self.turns]
        parts = [self.brief, "", "The consultation so far:", *talk]
        for attempt in rejected:
            parts += [
                "",
                f"Your answer {attempt.text!r} was rejected: "
                + "; ".join(attempt.problems)
                + ". Answer again without those claims.",
            ]
        parts += ["", 'Reply as JSON: {"reply": "<what the patient says>"}']
        return "\n".join(parts)

    def reply(self, doctor: str) -> PatientTurn:
        """The patient's answer to the doctor's words, guarded."""
        self.turns.append(Turn(role=Role.DOCTOR, text=doctor))
        attempts: list[Attempt] = []
        for _ in range(self.retries + 1):
            text = self._ask(self.prompt(attempts))
            verdict = self.checker.check_turn(text, self.record, len(self.turns))
            problems = [_problem(m) for m in verdict.problems()]
            attempts.append(Attempt(text=text, problems=problems))
            if not problems:
                break
            # Counts only: patient words stay out of logs at info level.
            log.info("guard sent a reply back: %d problems", len(problems))
        self.turns.append(Turn(role=Role.PATIENT, text=attempts[-1].text))
        return PatientTurn(
            text=attempts[-1].text,
            accepted=not attempts[-1].problems,
            verdict=verdict,
            attempts=attempts,
        )

    def _ask(self, prompt: str) -> str:
        [answer] = self.backend.complete([prompt])
        if isinstance(answer, CompletionError):
            raise LLMError(f"the patient model gave no answer: {answer.reason}")
        try:
            reply = json.loads(answer)["reply"]
        except (ValueError, LookupError, TypeError):
            reply = answer  # a server without structured output: the text as it came
        text = " ".join(str(reply).split())
        if not text:
            raise LLMError("the patient model answered with nothing")
        return text[:5_000]
