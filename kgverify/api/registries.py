"""The registries of the extension points (``kgverify.registry``), for whoever offers their
names: the CLI's choices and help texts read these, on first use (each import loads its
stage)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kgverify.registry import Registry


def vocabulary_loaders() -> Registry[Any]:
    """``loaders.LOADERS``: the vocabularies ``load_vocabulary`` loads."""
    from loaders import LOADERS

    return LOADERS


def ehr_sources() -> Registry[Any]:
    """``kgverify.ehr.sources.EHR_SOURCES``: the EHR sources, each with what its path is."""
    from kgverify.ehr.sources import EHR_SOURCES

    return EHR_SOURCES


def extractors() -> Registry[Any]:
    """``kgverify.extract.registry.EXTRACTORS``: who proposes candidate relations."""
    from kgverify.extract.registry import EXTRACTORS

    return EXTRACTORS


def qa_tasks() -> Registry[Any]:
    """``kgverify.derive.qa.TASKS``: the QA tasks ``derive_qa`` derives."""
    from kgverify.derive.qa import TASKS

    return TASKS


def engines() -> Registry[Any]:
    """``kgverify.engines.ENGINES``: where batches and pages of patients run."""
    from kgverify.engines import ENGINES

    return ENGINES
