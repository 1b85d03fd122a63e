"""The collector settings for batch work: the API's runs raise the young threshold for
themselves and give the caller's setting back."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from kgverify import api, collector


@pytest.fixture
def threshold() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold()
    gc.set_threshold(*before)


def test_a_batch_raises_it_and_restores_the_callers(threshold: tuple[int, int, int]) -> None:
    with collector.fewer_collections():
        assert gc.get_threshold() == (collector.YOUNG, 10, 10)
    assert gc.get_threshold() == threshold
    gc.set_threshold(50_000, 10, 10)
    with collector.fewer_collections():  # never lowered
        assert gc.get_threshold()[0] == 50_000
    assert gc.get_threshold()[0] == 50_000


def test_a_decorated_run_sees_it_also_when_it_fails(threshold: tuple[int, int, int]) -> None:
    seen: list[tuple[int, int, int]] = []

    @collector.batch_work
    def run(fail: bool) -> int:
        """A run."""
        seen.append(gc.get_threshold())
        if fail:
            raise ValueError("bad input")
        return 7

    assert run(False) == 7 and run.__doc__ == "A run."
    with pytest.raises(ValueError):
        run(True)
    assert seen == [(collector.YOUNG, 10, 10)] * 2
    assert gc.get_threshold() == threshold


@pytest.mark.parametrize(
    "name",
    [
        "load_vocabulary",
        "ingest_source",
        "write_trajectories",
        "extract_relations",
        "link_relations_file",
        "verify_relations_file",
        "derive_qa",
        "derive_facts",
        "check_dialogues",
        "reverify",
        "pipeline",
    ],
)
def test_the_api_runs_are_batch_work(name: str) -> None:
    assert getattr(getattr(api, name), "__wrapped__", None) is not None
