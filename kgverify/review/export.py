"""``kgverify review export``: a deterministic sample of derived items, per task, as static
pages (the question, the options, the evidence with its sources, why each distractor is
wrong, the patient facts) with an index, a README and the sheet to fill.

    DIR/index.html  DIR/items/<item_id>.html  DIR/sheet.csv  DIR/README.txt

Same QA folder, graph and seed: same bytes."""

from __future__ import annotations

import hashlib
import logging
import shutil
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from kgverify.audit.lineage import Lineage, item_lineage
from kgverify.dates import DateShift
from kgverify.derive.export import read_items
from kgverify.derive.model import QAItem, Task
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph, batched
from kgverify.graph.model import RelType
from kgverify.outputs import make_dir, make_dirs, write_private
from kgverify.review.model import ReviewExportReport
from kgverify.review.pages import (
    DrawnEdge,
    EdgeKey,
    EdgeSource,
    index_page,
    item_page,
    page_concepts,
    page_name,
)
from kgverify.review.sheet import COLUMNS, write_sheet
from kgverify.review.words import assertion_label

log = logging.getLogger(__name__)
_EDGE_BATCH = 1_000

README = """kgverify review sheet
=====================

Open index.html in a browser: one page per question (items/<item_id>.html) that reads top
down: the patient, the question, the options, the answer and the relation it rests on (with
the vocabularies and release that say so), and why each other option is wrong. The
evidence paths, rules and ids are behind the folds ("Evidence path, ...") for when you want
them. Each page says which rows of sheet.csv are its own.

Fill sheet.csv (any spreadsheet program; keep it CSV, UTF-8). Each question has one row,
then one row per relation its answer rests on (the relation column names it, e.g.
"Penicillin V — may treat — Streptococcal sore throat"):

  decision      on the question's row: accept | reject | empty (not decided)
                on a relation row: true (the relation holds) | false (it does not) | empty
  veto_labels   question's row only: letters of wrong options that are in fact defensible
                answers, e.g. B;D (never the answer's letter: reject the question instead)
  veto_reason   why; required with veto_labels
  reviewer      your name or initials (a relation row takes its question row's; or pass
                --reviewer to the import)
  notes         anything else; kept with your decisions

Leave item_id, task and assertion_id as they are (the import reads them); question,
answer_text and relation are for reading. A row with nothing filled in is not a review.
Your rows on a question are your whole word on it: if you import a changed sheet, decisions
you took out are retracted (kept, marked retracted).

Then:  kgverify review import sheet.csv [--reviewer NAME] [--json]

Every row is imported, blank, or rejected with its row number (as your spreadsheet shows
it) and the reason; when any row is rejected the import says so and exits non-zero, having
imported the others. See docs/review.md.
"""


def default_qa(cache_dir: Path) -> Path:
    """The sample's QA folder (``kgverify sample`` derives into it)."""
    return cache_dir / "sample" / "qa"


def _order(seed: int, item_id: str) -> str:
    return hashlib.sha256(f"{seed}\x1f{item_id}".encode()).hexdigest()


def pick(items: Iterable[QAItem], sample: int | None, seed: int) -> list[QAItem]:
    """Per task (in task order), the items in seeded hash order, the first ``sample`` of
    them (all when None): the same seed picks the same items, whatever the file order."""
    by_task: dict[Task, list[QAItem]] = {}
    for item in items:
        by_task.setdefault(item.task, []).append(item)
    out: list[QAItem] = []
    for task in Task:
        ordered = sorted(by_task.get(task, []), key=lambda i: _order(seed, i.item_id))
        out.extend(ordered if sample is None else ordered[:sample])
    return out


def edge_sources(graph: Graph, keys: Iterable[EdgeKey]) -> dict[EdgeKey, DrawnEdge]:
    """Names and sources (sab, releases) of evidence edges, read in batches; a type that is
    no :class:`RelType` is not sent to the graph."""
    out: dict[EdgeKey, DrawnEdge] = {}
    known: list[dict[str, str]] = []
    for start, rel, end in sorted(set(keys)):
        if rel in RelType.__members__:
            known.append({"start": start, "type": RelType(rel).value, "end": end})
        else:
            out[(start, rel, end)] = DrawnEdge(start=start, type=rel, end=end, known_type=False)
    for chunk in batched(known, _EDGE_BATCH):
        for row in graph.read("review/edge_sources", edges=chunk):
            edge = DrawnEdge(
                start=row["start"],
                type=row["type"],
                end=row["end"],
                start_name=row["start_name"],
                end_name=row["end_name"],
                sources=[EdgeSource.model_validate(s) for s in row["sources"]],
            )
            out[(edge.start, edge.type, edge.end)] = edge
    return out


def concept_names(graph: Graph, ids: Iterable[str]) -> dict[str, str | None]:
    """Preferred names of concepts, read in batches (ids the graph lacks are absent)."""
    out: dict[str, str | None] = {}
    for chunk in batched(sorted(set(ids)), _EDGE_BATCH):
        for row in graph.read("review/concept_names", ids=chunk):
            out[row["id"]] = row["name"]
    return out


def sheet_rows(item: QAItem, lineage: Lineage) -> list[dict[str, str]]:
    """An item's rows of the sheet: its own (question, answer), then one per relation its
    answer rests on, named in words beside the assertion id the import reads."""
    answer = next((o.text for o in item.options if o.label == item.answer), "")
    row = dict.fromkeys(COLUMNS, "")
    row.update(
        item_id=item.item_id,
        task=item.task.value,
        question=item.question,
        answer_text=f"{item.answer}. {answer}",
    )
    out = [row]
    for a in lineage.assertions:
        relation = dict.fromkeys(COLUMNS, "")
        relation.update(
            item_id=item.item_id,
            task=item.task.value,
            relation=assertion_label(a),
            assertion_id=a.id,
        )
        out.append(relation)
    return out


def check_paths(out: Path, qa: Path, sample: int | None = None) -> None:
    """Refuse, before any graph work, a missing QA folder, a bad sample size, and an output
    folder that is not new or empty (a filled sheet there would be lost)."""
    if sample is not None and sample < 1:
        raise ConfigError(f"--sample must be at least 1, got {sample}")
    if not qa.is_dir():
        raise ConfigError(f"no QA folder at {qa} (run `kgverify derive qa -o {qa}` first)")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(
            f"{out} exists and is not empty (a filled sheet there would be lost); "
            "export to a new folder"
        )


def export_review(
    graph: Graph,
    out: Path,
    qa: Path,
    *,
    tasks: set[Task] | None = None,
    sample: int | None = None,
    seed: int = 13,
    dates: DateShift | None = None,
) -> ReviewExportReport:
    """Write the review folder ``out`` (refused unless new or empty: a filled sheet there
    would be lost). Items the graph does not hold (derived with ``--no-write``, or from
    another graph) are skipped and counted; none at all is an error. The lineage read from
    the graph has its dates published as the items have theirs (``dates``)."""
    started = time.perf_counter()
    check_paths(out, qa, sample)
    report = ReviewExportReport(out=str(out), qa=str(qa), seed=seed, sample=sample)
    items = [i for i in read_items(qa) if tasks is None or i.task in tasks]
    report.items_read = len(items)
    if not items:
        raise ConfigError(f"no derived items in {qa}" + (" for those tasks" if tasks else ""))
    skipped: Counter[str] = Counter()
    chosen: list[tuple[QAItem, Lineage]] = []
    for item in pick(items, sample, seed):
        try:
            lineage = item_lineage(graph, item.item_id)
            if dates is not None:  # the graph's recorded dates, as the item file shows them
                text = dates.text(item.patient_id, lineage.model_dump_json())
                lineage = Lineage.model_validate_json(text)
            chosen.append((item, lineage))
        except ConfigError:
            skipped["not in the graph"] += 1
    report.skipped = dict(skipped)
    if not chosen:
        raise ConfigError(
            f"none of the items in {qa} is in the graph (derived with --no-write, or from "
            "another graph?)"
        )
    keys = [
        (e.start, e.type, e.end)
        for _, lineage in chosen
        for a in lineage.assertions
        for path in a.evidence
        for e in path.edges
    ]
    edges = edge_sources(graph, keys)
    report.edges = len(edges)
    names = concept_names(graph, (c for item, lin in chosen for c in page_concepts(item, lin)))
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    make_dir(partial)
    make_dir(partial / "items")
    rows: list[dict[str, str]] = []
    places: list[int] = []  # each item's row in the sheet (the header is row 1)
    for item, lineage in chosen:
        places.append(len(rows) + 2)
        rows.extend(sheet_rows(item, lineage))
    try:
        for (item, lineage), place in zip(chosen, places, strict=True):
            page = item_page(item, lineage, edges, names, row=place)
            write_private(partial / "items" / page_name(item.item_id), page)
            report.exported[item.task.value] = report.exported.get(item.task.value, 0) + 1
        report.pages = len(chosen)
        exported = [item for item, _ in chosen]
        write_private(partial / "index.html", index_page(exported, rows=places))
        write_sheet(partial / "sheet.csv", rows)
        write_private(partial / "README.txt", README)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    if out.exists():
        out.rmdir()  # empty, checked above
    make_dirs(out.parent)
    partial.rename(out)
    report.sheet = str(out / "sheet.csv")
    report.index = str(out / "index.html")
    report.seconds = round(time.perf_counter() - started, 3)
    log.info("review export: %d pages, %d edges, %s skipped", report.pages, report.edges, skipped)
    return report
