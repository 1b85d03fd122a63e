"""Checked dialogues into the graph (``queries/dialogue/write_verdicts.cypher``), so the
audit queries (``dialogue_summary``, ``dialogue_leaks``, ``dialogue_invented``) can read
them. Text-free: ids, verdicts, kinds, sections, offsets and reasons with the patient's
words taken out; what the patient said stays in the verdicts JSONL."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from kgverify.dialogue.model import (
    DialogueVerdicts,
    ForgetReport,
    MentionVerdict,
    MentionVerdictKind,
)
from kgverify.errors import KgverifyError
from kgverify.graph.driver import Graph, batched


class DialogueNotFoundError(KgverifyError):
    """A dialogue id the graph does not hold."""


WORDS = "<the words said>"


def text_free_reason(m: MentionVerdict) -> str:
    """The verdict's reason without the mention's own words (an unlinked mention's reason
    quotes them)."""
    return m.reason.replace(repr(m.text), WORDS)


def mention_row(m: MentionVerdict) -> dict[str, Any]:
    first = m.evidence[0] if m.evidence else None
    return {
        "turn": m.turn,
        "start": m.start,
        "end": m.end,
        "verdict": m.verdict.value,
        "kind": m.kind,
        "section": first.section if first else None,
        "via": first.via if first else None,
        "fact_id": first.fact_id if first else None,
        "concept_id": m.concept_id,
        "status": m.status.value if m.status is not None else None,
        "negated": m.negated,
        "hedged": m.hedged,
        "hypothetical": m.hypothetical,
        "experiencer": m.experiencer,
        "claimed": m.claimed,
        "reason": text_free_reason(m),
    }


def dialogue_row(result: DialogueVerdicts) -> dict[str, Any]:
    judged = [mention_row(m) for t in result.turns for m in t.mentions]
    return {
        "id": result.dialogue_id,
        "patient_id": result.patient_id,
        "encounter_id": result.encounter_id,
        "found": result.found,
        "turns": len(result.turns),
        "mentions": len(judged),
        **{v.value: result.counts.get(v.value, 0) for v in MentionVerdictKind},
        "judged": judged,
    }


class VerdictStore:
    """Buffers checked dialogues and writes them ``batch`` at a time; a dialogue the
    database refuses costs only itself (``Graph.write_rows`` bisects) and is counted."""

    def __init__(self, graph: Graph, batch: int = 500) -> None:
        self.graph = graph
        self.batch = max(1, batch)
        self.rows: list[dict[str, Any]] = []
        self.written = 0
        self.not_written = 0

    def add(self, result: DialogueVerdicts) -> None:
        self.rows.append(dialogue_row(result))
        if len(self.rows) >= self.batch:
            self.flush()

    def flush(self) -> None:
        rows, self.rows = self.rows, []
        if not rows:
            return

        def refused(row: dict[str, Any], reason: str) -> None:
            # The dialogue stays in the verdicts file; the report counts it as not stored.
            self.not_written += 1

        for results in self.graph.write_rows("dialogue/write_verdicts", rows, refused):
            self.written += sum(int(r["written"]) for r in results)


def forget(graph: Graph, ids: Sequence[str] | None, batch: int = 500) -> ForgetReport:
    """Remove stored dialogues from the graph, ``batch`` per transaction: those of ``ids``,
    or every one when ``ids`` is None (read a page of ids at a time, never all at once).

    Every given id must be stored: one that is not raises :class:`DialogueNotFoundError`
    before anything is removed, so a mistyped id forgets nothing.
    """
    report = ForgetReport()
    if ids is not None:
        for chunk in batched(ids, batch):
            found = {r["id"] for r in graph.read("dialogue/existing", ids=chunk)}
            missing = [i for i in chunk if i not in found]
            if missing:
                raise DialogueNotFoundError(
                    f"no such dialogue in the graph: {', '.join(missing[:5])}"
                    + (f" (and {len(missing) - 5} more)" if len(missing) > 5 else "")
                    + "; nothing was forgotten (kgverify audit dialogue_summary lists them)"
                )
        pages: Iterable[list[str]] = batched(ids, batch)
    else:
        pages = _all_ids(graph, batch)
    for page in pages:
        for row in graph.write("dialogue/forget", ids=page):
            report.dialogues += int(row["found"])
            report.mentions += int(row["mentions"])
    return report


def _all_ids(graph: Graph, batch: int) -> Iterator[list[str]]:
    # Each page is forgotten before the next is read, so the first page is always new.
    while page := [r["id"] for r in graph.read("dialogue/ids_page", limit=batch)]:
        yield page
