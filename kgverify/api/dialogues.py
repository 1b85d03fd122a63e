"""Simulated-patient dialogues checked against fact sheets and the graph
(docs/dialogue.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgverify.api.bookkeeping import file_run, graph_of, sample_path
from kgverify.api.verification import open_verifier
from kgverify.collector import batch_work
from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph
from kgverify.outputs import make_dirs

if TYPE_CHECKING:
    from kgverify.dialogue.patient import PatientTurn


if TYPE_CHECKING:
    from kgverify.derive.model import FactSheet
    from kgverify.dialogue import DialogueReport, ForgetReport, TurnVerdict
    from kgverify.dialogue.checker import DialogueChecker
    from kgverify.dialogue.patient import SimulatedPatient


def open_dialogue_checker(
    settings: Settings | None = None, graph: Graph | None = None
) -> DialogueChecker:
    """A ``DialogueChecker`` over ``graph``, which must stay open while it is used.

    It holds the mention dictionary built from the graph's names, the linker and a
    read-only verifier. Open it once and hand it to :func:`check_turn` inside an agent
    loop.
    """
    from kgverify.dialogue.checker import DialogueChecker

    settings = settings or Settings()
    graph = graph or Graph.connect(settings)
    verifier = open_verifier(settings, graph, write=False)
    verifier.enrich = False
    return DialogueChecker(verifier)


def check_turn(
    text: str,
    sheet: FactSheet,
    encounter_id: str | None = None,
    *,
    checker: DialogueChecker | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> TurnVerdict:
    """Judge every clinical mention of one patient turn against the record and the graph.

    The record is the patient's fact sheet at ``encounter_id`` (None: the whole record).
    Each mention is grounded, leak, contradicted, unsupported (no fact in the record
    behind it, not false) or unlinked, with evidence. ``result.problems()`` is what a guard
    asks the agent to say again. Nothing is written.

    >>> verdict = check_turn("I think it's strep throat", sheet, "day:1990-02-08")
    >>> [(m.text, m.verdict) for m in verdict.mentions]
    [('strep throat', 'leak')]
    """
    from kgverify.dialogue.record import view

    record = view(sheet, encounter_id)
    if record is None:
        raise ConfigError(f"patient {sheet.patient_id} has no encounter {encounter_id!r}")
    if checker is not None:
        return checker.check_turn(text, record)
    settings = settings or Settings()
    with graph_of(settings, graph) as g:
        return open_dialogue_checker(settings, g).check_turn(text, record)


@batch_work
def check_dialogues(
    dialogues: Path,
    out: Path,
    *,
    facts: Path | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
    rejects_path: Path | None = None,
    progress: Callable[[int], None] | None = None,
    write: bool = True,
) -> DialogueReport:
    """Judge every patient turn of a dialogue JSONL file (docs/dialogue.md).

    Turns are judged against the fact sheets in ``facts`` (a ``derive facts`` folder;
    default: the sample's, ``<cache_dir>/sample/facts``) and the graph; one
    ``DialogueVerdicts`` line per dialogue goes to ``out`` (replaced only when the run
    completes). Bad lines go, with their line number, to the rejects file. With ``write``,
    each dialogue is also stored in the graph, text-free (a ``(:Dialogue)`` and its
    ``(:DialogueMention)`` nodes, replaced on a re-check) for the ``dialogue_*`` audit
    queries.
    """
    from kgverify.dialogue.run import check_file
    from kgverify.dialogue.store import VerdictStore

    if not dialogues.is_file():
        raise ConfigError(f"no such dialogues file: {dialogues}")
    settings = settings or Settings()
    folder = facts if facts is not None else settings.cache_dir / "sample" / "facts"
    with file_run(dialogues, out, rejects_path) as run, graph_of(settings, graph) as g:
        checker = open_dialogue_checker(settings, g)
        store = VerdictStore(g, min(settings.batch_size, 500)) if write else None
        try:
            report = check_file(
                checker, dialogues, folder, run.partial, run.reject, progress, store
            )
        finally:
            checker.verifier.close()
    report.out = str(out)
    report.rejects = run.rejects
    return report


def forget_dialogues(
    ids: Sequence[str] | None = None,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> ForgetReport:
    """Remove checked dialogues from the graph (the verdicts files keep them).

    Removes the ``(:Dialogue)`` nodes of ``ids`` (every stored one when ``ids`` is None)
    with their ``(:DialogueMention)`` nodes, in batches, so the ``dialogue_*`` audit
    queries stop counting them; a dialogue checked again is stored again.

    Raises:
        DialogueNotFoundError: an id the graph does not hold (nothing is removed then).

    Example:
        >>> forget_dialogues(["sample-01"])                   # doctest: +SKIP
        ForgetReport(dialogues=1, mentions=4)
    """
    from kgverify.dialogue.store import forget

    settings = settings or Settings()
    with graph_of(settings, graph) as g:
        return forget(g, ids, min(settings.batch_size, 500))


def simulated_patient(
    sheet: FactSheet,
    encounter_id: str | None = None,
    *,
    base_url: str,
    model: str,
    api_key: str | None = None,
    params: dict[str, Any] | None = None,
    retries: int = 2,
    checker: DialogueChecker | None = None,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> SimulatedPatient:
    """A reference simulated patient on an OpenAI-compatible server (``vllm serve``).

    It is prompted only with the sheet's patient-sayable facts at ``encounter_id``; every
    reply is checked by :func:`check_turn` and asked again (up to ``retries`` times, with
    the reasons) while it leaks, contradicts or invents. ``graph`` (or the checker's) must
    stay open while the patient talks.

    >>> patient = simulated_patient(sheet, "day:1990-02-08", base_url=url, model="m")
    >>> turn = patient.reply("What brings you in today?")
    >>> turn.text, turn.accepted, len(turn.attempts)
    """
    from kgverify.dialogue.patient import REPLY_SCHEMA, SimulatedPatient
    from kgverify.extract.backends import OpenAIBackend

    backend = OpenAIBackend(
        base_url, model, api_key=api_key, concurrency=1, params=params, schema=REPLY_SCHEMA
    )
    if checker is None:
        settings = settings or Settings()
        checker = open_dialogue_checker(settings, graph or Graph.connect(settings))
    return SimulatedPatient(backend, sheet, encounter_id, checker, retries=retries)


def sample_dialogues(out: Path | None = None, *, settings: Settings | None = None) -> Path:
    """Write the shipped sample dialogues with this installation's patient pseudonyms.

    From ``kgverify/sample/dialogues`` to ``out`` (default
    ``<cache_dir>/sample/dialogues.jsonl``), for :func:`check_dialogues` against the
    sample's fact sheets.
    """
    from kgverify.dialogue.model import write_dialogues
    from kgverify.dialogue.sample import read_sample, resolve

    settings = settings or Settings()
    out = out or settings.cache_dir / "sample" / "dialogues.jsonl"
    make_dirs(out.parent)
    shipped = read_sample(sample_path("dialogues", "dialogues.jsonl"))
    write_dialogues(resolve(shipped, settings), out)
    return out


def fact_sheet(
    patient_id: str, *, facts: Path | None = None, settings: Settings | None = None
) -> FactSheet:
    """One patient's fact sheet from ``facts`` (a ``derive facts`` folder or its sheets file;
    default: the sample's, ``<cache_dir>/sample/facts``).

    Raises:
        ConfigError: no sheets there, or none for ``patient_id``.
    """
    from kgverify.dialogue.record import SheetFile

    settings = settings or Settings()
    sheets = SheetFile(facts or settings.cache_dir / "sample" / "facts", [patient_id])
    sheet = sheets.get(patient_id)
    if sheet is None:
        raise ConfigError(f"no fact sheet for patient {patient_id}")
    return sheet


def patient_chat(
    patient_id: str,
    doctor: Iterable[str],
    *,
    encounter_id: str | None = None,
    facts: Path | None = None,
    base_url: str,
    model: str,
    api_key: str | None = None,
    retries: int = 2,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> Iterator[PatientTurn]:
    """A conversation with the simulated patient ``patient_id`` (``kgverify patient chat``):
    each of the ``doctor``'s lines (blank ones skipped) answered by :func:`simulated_patient`,
    one guarded turn at a time, over one graph connection held while it lasts.

    >>> for turn in patient_chat("p1", ["What brings you in?"], base_url=url, model="m"):
    ...     turn.text, turn.accepted
    """
    settings = settings or Settings()
    sheet = fact_sheet(patient_id, facts=facts, settings=settings)
    with graph_of(settings, graph) as g:
        talker = simulated_patient(
            sheet,
            encounter_id,
            base_url=base_url,
            model=model,
            api_key=api_key,
            retries=retries,
            settings=settings,
            graph=g,
        )
        for line in doctor:
            if line.strip():
                yield talker.reply(line.strip())
