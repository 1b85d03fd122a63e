"""An interrupted load, run again, ends in exactly the graph of an uninterrupted one."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kgverify.api import load_vocabulary
from kgverify.config import Settings
from kgverify.graph import Graph, delete_all
from loaders.pipeline import ProgressFactory
from tests.conftest import SAMPLE
from tests.e2e.helpers import fingerprint, value

pytestmark = pytest.mark.neo4j
AA = SAMPLE / "umls" / "2025AA"


def _interrupt_after(batches: int) -> ProgressFactory:
    seen = {"n": 0}

    @contextmanager
    def progress(label: str, total: int) -> Iterator[Callable[[int], None]]:
        def advance(done: int) -> None:
            seen["n"] += 1
            if "MRREL" in label and seen["n"] > batches:
                raise KeyboardInterrupt  # as a user's Ctrl-C between two batches

        yield advance

    return progress


def test_rerun_after_interruption_completes_without_duplicates(
    fresh_graph: Graph, settings: Settings, tmp_path: Path
) -> None:
    small = settings.model_copy(update={"batch_size": 100})
    load_vocabulary(
        "umls", AA, settings=small, graph=fresh_graph, rejects_path=tmp_path / "clean.jsonl"
    )
    clean = fingerprint(fresh_graph)

    delete_all(fresh_graph)
    with pytest.raises(KeyboardInterrupt):
        load_vocabulary(
            "umls",
            AA,
            settings=small,
            graph=fresh_graph,
            rejects_path=tmp_path / "cut.jsonl",
            progress=_interrupt_after(8),
        )
    assert value(fresh_graph, "MATCH (r:Release) RETURN r.status") == "loading"
    assert fingerprint(fresh_graph) != clean  # really cut short

    load_vocabulary(
        "umls", AA, settings=small, graph=fresh_graph, rejects_path=tmp_path / "rerun.jsonl"
    )
    assert fingerprint(fresh_graph) == clean
    assert value(fresh_graph, "MATCH (r:Release) RETURN r.status") == "complete"
