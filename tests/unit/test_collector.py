"""The collector settings for batch work: a CLI run sets them for its process, a library
batch raises the young threshold for itself only."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from kgverify import collector
from kgverify.cli import cli


@pytest.fixture
def threshold() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold()
    gc.set_threshold(*before)


def test_a_cli_run_sets_them_for_its_process(threshold: tuple[int, int, int]) -> None:
    result = CliRunner().invoke(cli, ["queries", "--json"])
    assert result.exit_code == 0, result.output
    assert gc.get_threshold() == (collector.YOUNG, *collector.OLDER) != threshold


def test_a_library_batch_restores_the_callers(threshold: tuple[int, int, int]) -> None:
    with collector.fewer_collections():
        assert gc.get_threshold() == (collector.YOUNG, 10, 10)
    assert gc.get_threshold() == threshold
    gc.set_threshold(50_000, 10, 10)
    with collector.fewer_collections():
        assert gc.get_threshold()[0] == 50_000
    assert gc.get_threshold()[0] == 50_000
