"""A check-dialogue run: dialogues JSONL in, one verdict line per dialogue out, the fact
sheets of the dialogues' patients read once, bad lines rejected with their line number."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from kgverify.dialogue.checker import DialogueChecker
from kgverify.dialogue.model import (
    Dialogue,
    DialogueCounts,
    DialogueReport,
    DialogueVerdicts,
    MentionVerdictKind,
)
from kgverify.dialogue.record import SheetFile, view
from kgverify.dialogue.store import VerdictStore
from kgverify.jsonl import BadLine, read_models_or_rejects, write_models


def _patients(path: Path) -> set[str]:
    return {
        item.patient_id
        for item in read_models_or_rejects(path, Dialogue)
        if isinstance(item, Dialogue)
    }


def _tally(result: DialogueVerdicts, leaks: Counter[str], invented: Counter[str]) -> None:
    """What the auditor asks first: what leaked (by section), what was made up (by kind)."""
    for turn in result.turns:
        for m in turn.mentions:
            if m.verdict is MentionVerdictKind.LEAK:
                leaks["code" if m.kind == "code" else (m.evidence[0].section or "?")] += 1
            elif m.verdict is MentionVerdictKind.UNSUPPORTED and m.claimed:
                invented[m.kind] += 1


def check_file(
    checker: DialogueChecker,
    dialogues: Path,
    facts: Path,
    partial: Path,
    reject: Callable[[int, str, str], None],
    progress: Callable[[int], None] | None = None,
    store: VerdictStore | None = None,
) -> DialogueReport:
    """Judge every dialogue of ``dialogues`` against the sheets in ``facts``; verdicts go
    to ``partial`` (the caller renames it into place) and, with ``store``, to the graph."""
    report = DialogueReport()
    started = time.perf_counter()
    sheets = SheetFile(facts, _patients(dialogues))
    verdicts: dict[str, int] = {}
    leaks: Counter[str] = Counter()
    invented: Counter[str] = Counter()

    def judged() -> Iterator[DialogueVerdicts]:
        for item in read_models_or_rejects(dialogues, Dialogue):
            if isinstance(item, BadLine):
                report.rejected += 1
                reject(item.line, item.reason, item.text)
                continue
            sheet = sheets.get(item.patient_id)
            if sheet is None:
                report.unknown_patients += 1
            elif view(sheet, item.encounter_id) is None:
                report.unknown_encounters += 1
            result = checker.check_dialogue(item, sheet)
            report.dialogues += 1
            report.turns += len(result.turns)
            for key, n in result.counts.items():
                verdicts[key] = verdicts.get(key, 0) + n
                report.mentions += n
            _tally(result, leaks, invented)
            report.by_dialogue.append(
                DialogueCounts(
                    dialogue_id=item.dialogue_id,
                    found=result.found,
                    turns=len(result.turns),
                    counts=result.counts,
                )
            )
            if store is not None:
                store.add(result)
            if progress is not None:
                progress(report.dialogues)
            yield result

    write_models(judged(), partial)
    if store is not None:
        store.flush()
        report.written, report.not_written = store.written, store.not_written
    report.verdicts = dict(sorted(verdicts.items()))
    report.leaks_by_section = dict(leaks.most_common())
    report.invented_by_kind = dict(invented.most_common())
    report.seconds = round(time.perf_counter() - started, 3)
    if report.seconds:
        report.turns_per_second = round(report.turns / report.seconds, 1)
    return report
