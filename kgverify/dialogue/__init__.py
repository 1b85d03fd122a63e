"""Record-grounded simulated patients: every patient turn checked against the fact sheet and
the graph (docs/dialogue.md)."""

from kgverify.dialogue.model import (
    Dialogue,
    DialogueCounts,
    DialogueReport,
    DialogueVerdicts,
    Evidence,
    ForgetReport,
    MentionVerdict,
    MentionVerdictKind,
    Number,
    Role,
    Turn,
    TurnVerdict,
    read_dialogues,
    read_verdicts,
    write_dialogues,
)

__all__ = [
    "Dialogue",
    "DialogueCounts",
    "DialogueReport",
    "DialogueVerdicts",
    "Evidence",
    "ForgetReport",
    "MentionVerdict",
    "MentionVerdictKind",
    "Number",
    "Role",
    "Turn",
    "TurnVerdict",
    "read_dialogues",
    "read_verdicts",
    "write_dialogues",
]
