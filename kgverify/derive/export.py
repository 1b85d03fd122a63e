"""Writing derived items and sheets: JSONL in a Hugging Face ``datasets`` layout (one config
per task, one file per split, a dataset card whose YAML names them), the JSON schema beside
them, and the items into Neo4j as provenance. Output folders are written as ``OUT.partial``
and renamed when complete, so an interrupted run leaves the previous output whole; QA items
are written to the graph pending and published there in one transaction just before the
rename (``partial_dir``), so the folder never names items the graph does not hold current."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel

from kgverify.__about__ import __version__
from kgverify.dates import DateShift
from kgverify.derive.model import DeriveReport, QAItem, Task
from kgverify.derive.splits import SPLITS
from kgverify.graph.driver import Graph, batched
from kgverify.outputs import make_dir, make_dirs, open_private, write_private
from kgverify.verify.verifier import refusal_kind


@contextmanager
def partial_dir(out: Path, publish: Callable[[], None] | None = None) -> Iterator[Path]:
    """A fresh, owner-only ``OUT.partial`` folder, renamed to ``out`` (replacing it) on
    success. ``publish`` (the graph's flip to the new items, one transaction) runs after the
    old ``out`` is moved to ``OUT.previous`` and before the rename, so ``out``, whenever it
    exists, holds the items the graph holds as current: a run killed before that leaves the
    old folder and the old items, one killed after it no folder until a rerun. A publish
    that fails leaves no folder either (whether its transaction committed is not known);
    the old one stays in ``OUT.previous`` until the next run."""
    partial = out.with_name(out.name + ".partial")
    previous = out.with_name(out.name + ".previous")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.rmtree(previous, ignore_errors=True)
    make_dir(partial)
    try:
        yield partial
        if publish is not None:
            if out.exists():
                out.rename(previous)
            publish()
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    shutil.rmtree(out, ignore_errors=True)
    partial.rename(out)
    shutil.rmtree(previous, ignore_errors=True)


def write_schema(model: type[BaseModel], path: Path) -> None:
    write_private(path, json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n")


@dataclass(frozen=True)
class CardFacts:
    """What the dataset card states beside the counts."""

    settings: str  # hash of the derive_* and verify_* settings
    policy: dict[str, Any] | None  # the re-applied policy; None: the stored passed flags
    reviews: dict[str, int]
    near_depth: int
    drug_near_depth: int  # the treatment rules' neighbourhood
    justify_version: str
    dates: DateShift  # how dates are published (kgverify/dates.py)


def _size_category(n: int) -> str:
    """The Hugging Face ``size_categories`` tag of ``n`` items."""
    for bound, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < bound:
            return name
    return "100K<n<1M" if n < 1_000_000 else "n>1M"


def dataset_card(
    files: dict[str, list[str]], report: DeriveReport, facts: CardFacts, run_config: str = ""
) -> str:
    """README.md: the Hub metadata (licence, language, task categories, size) and the YAML
    ``configs`` block that ``datasets.load_dataset`` reads (the default config named for
    this run's items, so a cache never serves an earlier derivation's rows; ``all`` over
    every task; one config per task), then what the dataset is: counts per task and split,
    the yield funnel, lure kinds, releases, filter policy, kgverify version and settings
    hash, review state, how distractors are justified, licence caveats and known limits."""
    total = sum(sum(per.values()) for per in report.items.values())
    lines = [
        "---",
        "license: other",
        "license_name: source-vocabulary-and-ehr-terms",
        "language:",
        "- en",
        "task_categories:",
        "- question-answering",
        "- multiple-choice",
        "size_categories:",
        f"- {_size_category(total)}",
        "pretty_name: kgverify QA items",
        "configs:",
    ]
    present = [s for s in SPLITS if any(s in splits for splits in files.values())]
    for name in dict.fromkeys([run_config or "all", "all"]):
        lines += [f"- config_name: {name}"]
        lines += ["  default: true"] if name == (run_config or "all") else []
        lines += ["  data_files:"]
        for split in present:
            lines += [f"  - split: {split}", f'    path: "*/{split}.jsonl"']
    for task, splits in sorted(files.items()):
        lines += [f"- config_name: {task}", "  data_files:"]
        for split in (s for s in SPLITS if s in splits):
            lines += [f"  - split: {split}", f"    path: {task}/{split}.jsonl"]
    lines += ["---", "", "# kgverify QA items", ""]
    lines += [
        "Diagnosis, treatment and prognosis items derived by `kgverify derive qa` from",
        "assertions the vocabulary graph validated. One JSON object per line; the schema is",
        "`schema.json` (the `QAItem` model, docs/derivation.md of kgverify).",
        "",
        "```python",
        "from datasets import load_dataset",
        'items = load_dataset("path/to/this/folder", "treatment")',
        "```",
        "",
        "## Counts",
        "",
        "| task | " + " | ".join(SPLITS) + " |",
        "|---|" + "---:|" * len(SPLITS),
    ]
    for task, per_split in sorted(report.items.items()):
        lines.append(f"| {task} | " + " | ".join(str(per_split.get(s, 0)) for s in SPLITS) + " |")
    rejected = sum(report.distractors_rejected.values())
    lines += [
        "",
        "## Yield and lures",
        "",
        *_funnel_lines(report),
        "",
        "## How it was built",
        "",
        f"- kgverify {__version__}; settings hash `{facts.settings}` (derive_* and verify_*).",
        "- Patients: "
        + (
            f"those of run `{report.run}` only ({report.patients} read; `kgverify runs`)."
            if report.run
            else f"every patient in the graph ({report.patients} read; no run chosen)."
        ),
        "- Vocabulary releases: " + (", ".join(f"`{r}`" for r in report.releases) or "none"),
        f"- Dates: {facts.dates.described}.",
        _policy_line(report.policy, facts.policy),
        "- Every item rests on assertions the policy passed and has exactly one correct",
        "  option. Every distractor carries `why_wrong`: a positive reason from the graph",
        "  that it is wrong (rule, version, the cited vocabulary edges with their source and",
        "  release, the compared concept sets). A candidate the graph is merely silent about",
        f"  is never used. Justification rules version `{facts.justify_version}`,",
        f"  neighbourhood depth {facts.near_depth} ({facts.drug_near_depth} for the treatment"
        " rules); per rule: "
        + (", ".join(f"{k} {v}" for k, v in report.justifications.items()) or "none")
        + f"; {rejected} candidates refused (reasons in the run report).",
        "- One item per clinical content (task, topic, the other stem concepts, answer):",
        f"  `content_key` and `content_group` on every item. Splits are by `{report.split_by}`",
        "  (`split_group` on every item): "
        + SPLIT_MEANING.get(report.split_by, "")
        + f"; a patient may appear in more than one split ({report.patients_in_several_splits}"
        " do).",
        "- Difficulty: `why_wrong[].lure` says what kind of lure each distractor is;",
        "  `difficulty` is the share of hard lures (specific to this patient, or in the",
        "  answer's therapeutic area or body system) and `context_necessary` marks items",
        "  that need the patient's record. `why_wrong[].distance` is the is-a distance to",
        "  the topic; chosen distractors per distance: "
        + (", ".join(f"{k}: {v}" for k, v in report.difficulty.items()) or "none")
        + ".",
        "- Review state: "
        + (", ".join(f"{k} {v}" for k, v in sorted(facts.reviews.items())) or "not reviewed")
        + " (kgverify review export / import).",
        "",
        "## Licence and caveats",
        "",
        "- Concept names and codes come from UMLS, SNOMED CT and RxNorm: publishing them",
        "  requires the licences of those sources (UMLS Metathesaurus Licence, SNOMED CT",
        "  Affiliate Licence). The items are derived from patient records: share them only",
        "  under the data-use agreement of the source EHR.",
        "- Known limits: vocabularies are incomplete, so a justification says what the",
        "  vocabularies state, not every clinical truth; the age and sex fit of distractors",
        "  is read from this cohort (an option occurs in patients of the same sex and life",
        "  stage), not from the vocabularies; questions name the recorded condition, not",
        "  always the most specific one. A clinician review (kgverify review) is the check",
        "  of record.",
        "",
    ]
    return "\n".join(lines)


SPLIT_MEANING = {
    "topic_answer": "no test or validation pair of task, topic and answer occurs in train",
    "topic": "no test or validation topic occurs in train",
    "content": "no test or validation clinical content occurs in train",
    "patient": "every patient's items are in one split",
}


def _funnel_lines(report: DeriveReport) -> list[str]:
    funnel = report.funnel
    lines = [
        f"- Yield: {funnel.get('candidates', 0)} item candidates -> "
        f"{funnel.get('content_groups', 0)} content groups -> {funnel.get('items', 0)} items; "
        f"the limiting cause: {funnel.get('limiting') or 'none'}.",
    ]
    for task, kinds in report.lures.items():
        shown = ", ".join(f"{k} {v}" for k, v in kinds.items())
        necessary = report.context_necessary.get(task, 0)
        lines.append(
            f"- {task}: distractors by lure kind: {shown}; context-necessary items: {necessary}."
        )
    return lines


def _policy_line(key: str, values: dict[str, Any] | None) -> str:
    if values is None:
        return (
            "- Filter policy: stored. Each assertion's own `passed` flag, decided when it was"
            "\n  verified (or re-verified, or reviewed), chose what entered; no policy was"
            "\n  re-applied (`policy.json`)."
        )
    return (
        f"- Filter policy `{key}`, re-applied to the stored verdicts, scores and confidences:"
        f"\n  {json.dumps(values, sort_keys=True)} (`policy.json`)."
    )


def policy_record(key: str, values: dict[str, Any] | None) -> dict[str, Any]:
    """``policy.json`` of a derived folder: the filter policy the items were derived under."""
    if values is None:
        return {
            "policy": key,
            "applied": False,
            "meaning": "each assertion's stored passed flag (from verification, re-verification "
            "or review) decided; no policy was re-applied",
        }
    return {
        "policy": key,
        "applied": True,
        "meaning": "re-applied to every assertion's stored verdict, score and confidence",
        **values,
    }


class QAWriter:
    """Streams finished items to their task/split files and, in batches, to the graph."""

    def __init__(
        self,
        folder: Path,
        graph: Graph | None,
        run: str,
        report: DeriveReport,
        batch: int,
        card: CardFacts,
    ) -> None:
        self.card = card
        self.folder = folder
        self.graph = graph
        self.run = run
        self.report = report
        self.batch = batch
        self._files: dict[tuple[str, str], IO[str]] = {}

    def write(self, items: Iterable[QAItem]) -> None:
        """Items to their files and, pending publication (``publish_items``), the graph."""
        ids = hashlib.sha256()
        try:
            for chunk in batched(items, self.batch):
                for item in chunk:
                    self._line(item)
                    ids.update(item.item_id.encode())
                if self.graph is not None:
                    self._write_back(self.graph, chunk)
        finally:
            for handle in self._files.values():
                handle.close()
        files: dict[str, list[str]] = {}
        for task, split in self._files:
            files.setdefault(task, []).append(split)
        run_config = f"run_{ids.hexdigest()[:12]}"
        write_private(
            self.folder / "README.md", dataset_card(files, self.report, self.card, run_config)
        )
        write_schema(QAItem, self.folder / "schema.json")
        record = policy_record(self.report.policy, self.card.policy)
        write_private(
            self.folder / "policy.json", json.dumps(record, indent=2, sort_keys=True) + "\n"
        )

    def _write_back(self, graph: Graph, chunk: list[QAItem]) -> None:
        rows = [_item_row(i) for i in chunk]

        def refused(row: dict[str, Any], reason: str) -> None:
            # The item stays in its file; the report says it is not in the graph, and why.
            kind = refusal_kind(reason)
            self.report.not_written += 1
            self.report.not_written_reasons[kind] = self.report.not_written_reasons.get(kind, 0) + 1

        for results in graph.write_rows(
            "derive/write_items", rows, refused, run=self.run, source_run=self.report.run
        ):
            self.report.written += sum(int(row["written"]) for row in results)

    def _line(self, item: QAItem) -> None:
        key = (item.task.value, item.split)
        if key not in self._files:
            folder = make_dirs(self.folder / item.task.value)
            self._files[key] = open_private(folder / f"{item.split}.jsonl")
        # The graph keeps the recorded dates; the published file, this installation's.
        self._files[key].write(self.card.dates.text(item.patient_id, item.model_dump_json()) + "\n")
        per_split = self.report.items.setdefault(item.task.value, {})
        per_split[item.split] = per_split.get(item.split, 0) + 1
        positions = self.report.positions.setdefault(item.task.value, {})
        positions[item.answer] = positions.get(item.answer, 0) + 1


def publish_items(graph: Graph, tasks: set[Task], run: str) -> int:
    """Make the run's written items current and retire the other current items of its
    tasks, in one transaction (derive/publish_items); the number retired."""
    rows = graph.write("derive/publish_items", tasks=sorted(t.value for t in tasks), run=run)
    return int(rows[0]["retired"]) if rows else 0


def clear_pending(graph: Graph, run: str, page: int = 10_000) -> int:
    """Clear what derivation runs killed before publishing left in the graph (items written,
    never made current; derive/clear_pending), a page per transaction; the number cleared."""
    cleared = 0
    while n := int(graph.write("derive/clear_pending", run=run, limit=page)[0]["cleared"]):
        cleared += n
    return cleared


def _item_row(item: QAItem) -> dict[str, Any]:
    return {
        "id": item.item_id,
        "task": item.task.value,
        "split": item.split,
        "patient_id": item.patient_id,
        "episode": item.episode,
        "question": item.question,
        "answer": item.answer,
        "answer_concept": item.answer_concept,
        # The correct option's text: what Neo4j Browser's style captions an item with.
        "answer_text": next((o.text for o in item.options if o.label == item.answer), None),
        "options": json.dumps([o.model_dump() for o in item.options]),
        "template": item.template,
        "seed": item.seed,
        "basis": item.basis,
        "rules": item.rules,
        "checks": json.dumps([c.model_dump() for c in item.checks]),
        "facts": [c.fact_id for c in item.context],
        "distractors": [
            {
                "label": w.label,
                "concept": w.concept_id,
                "rules": [j.rule for j in w.justifications],
                "distance": w.distance,
            }
            for w in item.why_wrong
        ],
        "topic": item.topic,
        "content_key": item.content_key,
        "content_group": item.content_group,
        "why_wrong": json.dumps([w.model_dump() for w in item.why_wrong]),
        "difficulty": item.difficulty,
        "releases": item.releases,
        "policy": item.policy,
    }


def read_items(folder: Path) -> Iterator[QAItem]:
    """Every item of a derived dataset folder, task by task, split by split."""
    for task in Task:
        for split in SPLITS:
            path = folder / task.value / f"{split}.jsonl"
            if path.exists():
                with path.open(encoding="utf-8") as lines:
                    for line in lines:
                        yield QAItem.model_validate_json(line)
