"""Writing derived items and sheets: JSONL in a Hugging Face ``datasets`` layout (one config
per task, one file per split, a dataset card whose YAML names them), the JSON schema beside
them, and the items into Neo4j as provenance. Output folders are written as ``OUT.partial``
and renamed when complete, so an interrupted run leaves the previous output whole."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel

from kgverify.derive.model import DeriveReport, QAItem, Task
from kgverify.derive.qa import SPLITS
from kgverify.graph.driver import Graph, batched


@contextmanager
def partial_dir(out: Path) -> Iterator[Path]:
    """A fresh ``OUT.partial`` folder, renamed to ``out`` (replacing it) on success."""
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        yield partial
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    shutil.rmtree(out, ignore_errors=True)
    partial.rename(out)


def write_schema(model: type[BaseModel], path: Path) -> None:
    path.write_text(json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n")


def dataset_card(files: dict[str, list[str]]) -> str:
    """README.md with the YAML ``configs`` block that ``datasets.load_dataset`` reads: one
    config per task and ``all`` (the default) over every task."""
    lines = ["---", "configs:"]
    present = [s for s in SPLITS if any(s in splits for splits in files.values())]
    lines += ["- config_name: all", "  default: true", "  data_files:"]
    for split in present:
        lines += [f"  - split: {split}", f'    path: "*/{split}.jsonl"']
    for task, splits in sorted(files.items()):
        lines += [f"- config_name: {task}", "  data_files:"]
        for split in (s for s in SPLITS if s in splits):
            lines += [f"  - split: {split}", f"    path: {task}/{split}.jsonl"]
    lines += [
        "---",
        "",
        "# kgverify QA items",
        "",
        "Diagnosis, treatment and prognosis items derived by `kgverify derive qa` from",
        "assertions the vocabulary graph validated. One JSON object per line; the schema",
        "is `schema.json` (the `QAItem` model, docs/derivation.md). Splits are by patient.",
        "",
        "```python",
        "from datasets import load_dataset",
        'items = load_dataset("path/to/this/folder", "treatment")',
        "```",
        "",
    ]
    return "\n".join(lines)


class QAWriter:
    """Streams finished items to their task/split files and, in batches, to the graph."""

    def __init__(
        self, folder: Path, graph: Graph | None, run: str, report: DeriveReport, batch: int
    ) -> None:
        self.folder = folder
        self.graph = graph
        self.run = run
        self.report = report
        self.batch = batch
        self._files: dict[tuple[str, str], IO[str]] = {}

    def write(self, items: Iterable[QAItem]) -> None:
        try:
            for chunk in batched(items, self.batch):
                for item in chunk:
                    self._line(item)
                if self.graph is not None:
                    rows = [_item_row(i) for i in chunk]
                    for row in self.graph.write("derive/write_items", rows=rows, run=self.run):
                        self.report.written += int(row["written"])
        finally:
            for handle in self._files.values():
                handle.close()
        files: dict[str, list[str]] = {}
        for task, split in self._files:
            files.setdefault(task, []).append(split)
        (self.folder / "README.md").write_text(dataset_card(files))
        write_schema(QAItem, self.folder / "schema.json")

    def _line(self, item: QAItem) -> None:
        key = (item.task.value, item.split)
        if key not in self._files:
            (self.folder / item.task.value).mkdir(exist_ok=True)
            self._files[key] = (self.folder / item.task.value / f"{item.split}.jsonl").open(
                "w", encoding="utf-8"
            )
        self._files[key].write(item.model_dump_json() + "\n")
        per_split = self.report.items.setdefault(item.task.value, {})
        per_split[item.split] = per_split.get(item.split, 0) + 1
        positions = self.report.positions.setdefault(item.task.value, {})
        positions[item.answer] = positions.get(item.answer, 0) + 1


def retire(graph: Graph, tasks: set[Task], run: str) -> int:
    rows = graph.write("derive/retire_items", tasks=sorted(t.value for t in tasks), run=run)
    return int(rows[0]["retired"]) if rows else 0


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
        "options": json.dumps([o.model_dump() for o in item.options]),
        "template": item.template,
        "seed": item.seed,
        "basis": item.basis,
        "rules": item.rules,
        "checks": json.dumps([c.model_dump() for c in item.checks]),
        "facts": [c.fact_id for c in item.context],
        "distractors": [
            {"label": o.label, "concept": o.concept_id}
            for o in item.options
            if o.label != item.answer
        ],
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
