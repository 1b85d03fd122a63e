"""The body the loader e2e tests share (``test_umls_load``, ``test_snomed_load``,
``test_rxnorm_load``): the first sample release loaded once per module, and loading it
again changes nothing. Each file adds the checks of its own format.

    RELEASE = SampleRelease("umls", AA)
    loaded = loaded_fixture(RELEASE)
    test_loading_twice_changes_nothing = loading_twice_changes_nothing(RELEASE)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from kgverify.api import load_vocabulary
from kgverify.config import Settings
from kgverify.graph import Graph
from tests.e2e.helpers import fingerprint


@dataclass(frozen=True)
class SampleRelease:
    vocabulary: str
    path: Path


def loaded_fixture(release: SampleRelease) -> Callable[..., Graph]:
    """The module's ``loaded`` fixture: the graph with ``release`` loaded."""

    def loaded(graph: Graph, settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Graph:
        load_vocabulary(
            release.vocabulary,
            release.path,
            settings=settings,
            graph=graph,
            rejects_path=tmp_path_factory.mktemp("rej") / "r.jsonl",
        )
        return graph

    return pytest.fixture(scope="module", name="loaded")(loaded)


def loading_twice_changes_nothing(release: SampleRelease) -> Callable[..., None]:
    """A test: loading ``release`` again retires nothing and leaves the graph as it was."""

    def test(loaded: Graph, settings: Settings, tmp_path: Path) -> None:
        before = fingerprint(loaded)
        report = load_vocabulary(
            release.vocabulary,
            release.path,
            settings=settings,
            graph=loaded,
            rejects_path=tmp_path / "r.jsonl",
        )
        assert report.retired_concepts == 0 and report.retired_relationships == 0
        assert fingerprint(loaded) == before

    return test
