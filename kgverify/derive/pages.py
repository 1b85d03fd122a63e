"""Derivation's per-patient work, a page of patient ids at a time: what an engine runs, in
this process (``local_qa_pages``, ``local_sheet_pages``) or on Ray actors
(``kgverify.engines.on_ray``).

A page worker reads its patients' records and turns them into what the run keeps: for QA,
the item candidates with their screened distractors and the page's counts; for fact
sheets, the sheets. Everything that depends on the order of the whole run (the item store's
duplicate checks, answer positions, the output files and the graph's items) stays with the
run in ``kgverify.derive.run``, so the run's result does not depend on which worker made a
page or on how the patients were split into pages. (A worker in the run's process leaves
out the screening of candidates the run would drop as repeats of a content it has served:
``ServedContents``.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field

from kgverify.ahead import mapped_ahead
from kgverify.config import Settings
from kgverify.derive.candidate import Candidate, Screened, ServedContents
from kgverify.derive.facts import SheetBuilder
from kgverify.derive.model import FactSheet, FactsReport, Task
from kgverify.derive.qa import DistractorScreen, candidates_for, filter_reason
from kgverify.derive.records import PatientRecord, RecordReader, patient_pages, scoped_run
from kgverify.graph.driver import Graph
from kgverify.review.state import ReviewState
from kgverify.verify.verifier import FilterPolicy, Verifier

PAGE = 200
"""Patients per page (per worker and round on Ray)."""


@dataclass(frozen=True)
class QAJob:
    """What every QA page worker of one run is given: the same for all of them (``served``
    is the run's, in its own process; see ``ServedContents``)."""

    settings: Settings
    tasks: frozenset[Task]
    policy: FilterPolicy | None
    reviews: ReviewState
    served: ServedContents = field(default_factory=ServedContents, compare=False)


@dataclass
class QAPage:
    """One page of patients worked on: its candidates (in record order), each with its
    screened distractors, and the page's counts."""

    patients: int = 0
    candidates: list[Candidate] = field(default_factory=list)
    screened: list[Screened] = field(default_factory=list)
    verdicts: Counter[str] = field(default_factory=Counter)  # assertions per verdict
    filtered: Counter[str] = field(default_factory=Counter)  # assertions not passed, why
    found: Counter[str] = field(default_factory=Counter)  # candidates per task
    skipped: Counter[str] = field(default_factory=Counter)  # candidates not made, why


def _verifier(graph: Graph, settings: Settings) -> Verifier:
    # Judges (clue, candidate) pairs with the verification rules; writes and links nothing.
    return Verifier(graph, settings, write=False, enrich=False)


class QAPageWorker:
    """Reads a page of patients and screens its item candidates; open on one connection."""

    def __init__(self, graph: Graph, job: QAJob) -> None:
        self.job = job
        self.verifier = _verifier(graph, job.settings)
        self.screen = DistractorScreen(graph, self.verifier, job.settings, job.reviews)
        # Items rest on passed assertions only: the others are read to be counted.
        whole = [] if job.policy is None else sorted(v.value for v in job.policy.accept)
        self.reader = RecordReader(
            graph, allergy_roots=job.settings.facts_allergy_roots, policy=job.policy, whole=whole
        )

    def page(self, ids: list[str]) -> QAPage:
        return self.work(self.reader.read(ids))

    def work(self, records: list[PatientRecord]) -> QAPage:
        """The candidates of a page of records, screened."""
        out = QAPage()
        for record in records:
            out.patients += 1
            for a in record.assertions:
                out.verdicts[a.verdict] += 1
                if not a.passed:
                    out.filtered[filter_reason(a)] += 1
            for candidate in candidates_for(record, self.job.settings, out.skipped):
                if candidate.task in self.job.tasks:
                    out.found[candidate.task.value] += 1
                    out.candidates.append(candidate)
        # Repeats of a content the run has served, left unscreened where screening could
        # not change what the run does with them (``ServedContents``).
        candidates = out.candidates
        repeats = [n for n, c in enumerate(candidates) if c.content_group in self.job.served]
        settled = self.screen.settled([candidates[n] for n in repeats])
        skipped = [False] * len(candidates)
        for n, skip in zip(repeats, settled, strict=True):
            skipped[n] = skip
        worked = [c for c, skip in zip(candidates, skipped, strict=True) if not skip]
        screened = iter(self.screen.screen(worked))
        out.screened = [Screened(served=True) if skip else next(screened) for skip in skipped]
        return out

    def close(self) -> None:
        self.verifier.close()


class SheetPageWorker:
    """Reads a page of patients and builds their fact sheets; open on one connection.
    ``report`` counts every page it built."""

    def __init__(self, graph: Graph, settings: Settings) -> None:
        self.verifier = _verifier(graph, settings)
        self.builder = SheetBuilder(self.verifier, settings)
        # Sheets cite passed assertions, and contradicted ones as checks (``SheetBuilder``).
        self.reader = RecordReader(
            graph, allergy_roots=settings.facts_allergy_roots, whole=["contradicted"]
        )

    def page(self, ids: list[str]) -> list[FactSheet]:
        return self.work(self.reader.read(ids))

    def work(self, records: list[PatientRecord]) -> list[FactSheet]:
        return list(self.builder.build(records))

    @property
    def report(self) -> FactsReport:
        return self.builder.report

    def close(self) -> None:
        self.verifier.close()


@dataclass
class SheetPages:
    """An engine's fact sheets in patient id order; ``report`` is complete once they have
    all been read."""

    sheets: Iterator[FactSheet]
    report: FactsReport = field(default_factory=FactsReport)


QAPagesOpener = Callable[[Settings, Graph, QAJob], AbstractContextManager[Iterator[QAPage]]]
"""An engine's QA pages: (settings, graph, job) -> every page of patients, worked on."""
SheetPagesOpener = Callable[[Settings, Graph], AbstractContextManager[SheetPages]]
"""An engine's fact sheets: (settings, graph) -> every sheet in patient order, and counts."""


def read_ahead(
    reader: RecordReader, pages: Iterator[list[str]]
) -> AbstractContextManager[Iterator[list[PatientRecord]]]:
    """The records of each page, the next page's read on a reader thread while this one
    is worked on: the records query is mostly the database's time (on the other core), and
    the work on a page is this process's. One read in flight, in page order; the thread is
    stopped (after its read) when the block ends, also on an error."""
    return mapped_ahead(reader.read, pages, workers=1, ahead=1, name="kgverify-records")


@contextmanager
def local_qa_pages(settings: Settings, graph: Graph, job: QAJob) -> Iterator[Iterator[QAPage]]:
    """Every page of the graph's patients, worked on in this process (the next page read
    beside the work)."""
    worker = QAPageWorker(graph, job)
    try:
        pages = patient_pages(graph, PAGE, scoped_run(graph, settings))
        with read_ahead(worker.reader, pages) as records:
            yield (worker.work(page) for page in records)
    finally:
        worker.close()


@contextmanager
def local_sheet_pages(settings: Settings, graph: Graph) -> Iterator[SheetPages]:
    """Every patient's fact sheet, built in this process (the next page read beside the
    work)."""
    worker = SheetPageWorker(graph, settings)
    out = SheetPages(iter(()), worker.report)
    try:
        pages = patient_pages(graph, PAGE, scoped_run(graph, settings))
        with read_ahead(worker.reader, pages) as records:
            out.sheets = (sheet for page in records for sheet in worker.work(page))
            yield out
    finally:
        worker.close()
