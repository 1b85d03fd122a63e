"""Judging relations against the graph: a ``Verifier`` (``open_verifier``), one question
(``check``, ``explain``), relation files (``verify_relations_file``); docs/verification.md."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgverify.api.bookkeeping import file_run, graph_of, relation_batch
from kgverify.collector import batch_work
from kgverify.config import Settings
from kgverify.graph.driver import Graph

if TYPE_CHECKING:
    from kgverify.link.relations import Contexts
    from kgverify.verify.check import CheckResult, Explanation
    from kgverify.verify.report import VerifyReport
    from kgverify.verify.verifier import Verifier


def open_verifier(
    settings: Settings | None = None,
    graph: Graph | None = None,
    *,
    write: bool = False,
    contexts: Contexts | None = None,
) -> Verifier:
    """A ``Verifier`` over ``graph``, which must stay open while it is used.

    Rules come from ``queries/verify/``, the filter policy from ``settings``, the linker is
    opened on first need. It judges without writing; ``write=True`` also writes each
    verdict back as an ``(:Assertion)`` about the relation's patient (what
    ``verify_relations_file`` does). It keeps the rules' evidence per triple between
    batches (``verify_cache``), so it reflects the vocabularies as they were when it read
    them: after loading a release, open a new one.

    >>> with open_verifier(settings, graph) as verifier:
    ...     [verdict] = verifier.verify([relation])
    >>> verdict.verdict, verdict.rule, verdict.evidence[0].edges
    """
    from kgverify.graph.schema import ensure_schema
    from kgverify.verify.verifier import Verifier

    settings = settings or Settings()
    graph = graph or Graph.connect(settings)
    if write:
        ensure_schema(graph)
    return Verifier(graph, settings, write=write, contexts=contexts)


def check(
    subject: str,
    predicate: str,
    obj: str,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> CheckResult:
    """What the vocabularies say about one relation, by name.

    ``check("metformin", "treats", "type 2 diabetes mellitus")``: both names are linked,
    the verification rules run, and the answer comes back with the linked concepts and the
    evidence paths named (each edge with the source that asserts it and its release).
    Nothing is written. An ``unsupported`` verdict means *not in the vocabularies*, not
    false.

    Raises:
        ConfigError: ``predicate`` is not one of indicates, treats, leads_to,
            contraindicated_for.

    >>> result = check("metformin", "treats", "type 2 diabetes mellitus")
    >>> result.verdict, result.evidence[0].text
    ('supported', 'Metformin -[MAY_TREAT, MED-RT, UMLS 2025AA]-> Diabetes Mellitus, ...')
    """
    return _check(subject, predicate, obj, settings, graph, explain=False)


def explain(
    subject: str,
    predicate: str,
    obj: str,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
) -> Explanation:
    """:func:`check` with how the verdict was reached.

    Each side's link (stage, score, the linker's candidates) and every evidence path
    found, one line each (``Explanation.steps``; ``str(result)`` prints them). Nothing is
    written.
    """
    from kgverify.verify.check import Explanation

    result = _check(subject, predicate, obj, settings, graph, explain=True)
    assert isinstance(result, Explanation)
    return result


def _check(
    subject: str,
    predicate: str,
    obj: str,
    settings: Settings | None,
    graph: Graph | None,
    *,
    explain: bool,
) -> CheckResult:
    from kgverify.verify.check import question, run_check

    relation = question(subject, predicate, obj)  # a bad predicate fails before connecting
    settings = settings or Settings()
    with graph_of(settings, graph) as g, open_verifier(settings, g, write=False) as verifier:
        verifier.enrich = False
        return run_check(verifier, relation, explain=explain)


@batch_work
def verify_relations_file(
    relations: Path,
    out: Path,
    *,
    settings: Settings | None = None,
    graph: Graph | None = None,
    trajectories: Path | None = None,
    rejects_path: Path | None = None,
    write: bool = True,
    engine: str = "local",
    progress: Callable[[int], None] | None = None,
) -> VerifyReport:
    """Verify every relation in a JSONL file and write ``Verdict`` JSONL to ``out``.

    ``relations`` holds candidate or linked relations (what is not linked is linked
    first). ``out`` is replaced only when the run completes; verdicts are written back to
    the graph as assertions unless ``write`` is false. Bad lines go, with their line
    number, to the rejects file. ``engine`` as for :func:`link_relations_file` ("ray":
    each batch split by patient over Ray actors, each writing its patients' assertions).

    Raises:
        ConfigError: ``relations`` does not exist, or ``engine`` is unknown.
        RejectThresholdError: more lines were rejected than ``max_reject_share`` allows.
    """
    import time

    from kgverify.engines import ENGINES
    from kgverify.firstseen import FirstSeen
    from kgverify.verify.model import Verdict, write_verdicts
    from kgverify.verify.report import VerifyReport, read_relations_any

    settings = settings or Settings()
    run_on = ENGINES.pick(engine)
    report = VerifyReport(out=str(out))
    started = time.perf_counter()
    with (
        file_run(relations, out, rejects_path) as run,
        graph_of(settings, graph) as g,
        FirstSeen() as seen,
    ):

        def good() -> Iterator[Any]:
            # A repeated relation_id is a rejected line, so one line is one assertion.
            for item in read_relations_any(relations, seen=seen):
                report.read += 1
                if isinstance(item, tuple):
                    report.rejected += 1
                    run.reject(*item)
                    continue
                yield item
                if progress is not None:
                    progress(report.read)

        def refused(verdict: Verdict, reason: str) -> None:
            # Verified but not in the graph: the rejects file says which line and why.
            line = seen.line_of(verdict.relation_id)
            run.reject(line, f"assertion not written: {reason}", verdict.relation.model_dump_json())

        with run_on.verifier(settings, g, write, trajectories) as verifier:
            verifier.on_refused = refused
            verdicts = verifier.iter_verify(good(), relation_batch(settings))
            write_verdicts(report.count(verdicts), run.partial)
    report.written = verifier.written
    report.not_written = verifier.not_written
    report.not_written_reasons = dict(sorted(verifier.not_written_reasons.items()))
    report.unknown_patients = verifier.unknown_patients
    report.unknown_encounters = verifier.unknown_encounters
    report.evidence_read = verifier.evidence_read
    report.evidence_cached = verifier.evidence_cached
    report.link = verifier.link_report if verifier.link_report.read else None
    report.seconds = round(time.perf_counter() - started, 3)
    if report.seconds:
        report.relations_per_second = round(report.verified / report.seconds, 1)
    report.rejects = run.rejects
    return report
