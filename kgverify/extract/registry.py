"""The extractors: name -> what opens it, the registry that ``kgverify extract --extractor``
and the API's ``extractor`` read (docs/extraction.md).

An opener takes the settings and the run's model options and returns an extractor, whose
``extract(trajectories)`` yields candidate relations (and, for LLM ones,
``ExtractionFailure`` records). Adding a backend: its class in ``backends.py`` (the
``Backend`` protocol) and one opener and entry here; the LLM side is imported when an
LLM extractor is opened (vllm is an optional extra).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from kgverify.config import Settings
from kgverify.errors import ConfigError
from kgverify.extract.template import TemplateExtractor
from kgverify.registry import Entry, Registry

if TYPE_CHECKING:
    from kgverify.extract.backends import Backend
    from kgverify.extract.llm import LLMExtractor


class OpenExtractor(Protocol):
    def __call__(
        self,
        settings: Settings,
        *,
        model: str | None,
        base_url: str | None,
        api_key: str | None,
        concurrency: int,
        progress: Callable[[int, int], None] | None,
    ) -> TemplateExtractor | LLMExtractor: ...


def _template(
    settings: Settings,
    *,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    concurrency: int,
    progress: Callable[[int, int], None] | None,
) -> TemplateExtractor:
    return TemplateExtractor()


def _llm(
    kind: str,
    settings: Settings,
    model: str | None,
    open_backend: Callable[[str], Backend],
    progress: Callable[[int, int], None] | None,
) -> LLMExtractor:
    from kgverify.extract.cache import ResponseCache
    from kgverify.extract.llm import LLMExtractor

    if not model:
        raise ConfigError(f"--extractor {kind} needs --model")
    backend = open_backend(model)
    cache = ResponseCache(settings.cache_dir / "llm-cache.sqlite")
    return LLMExtractor(backend, cache=cache, progress=progress)


def _openai(
    settings: Settings,
    *,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    concurrency: int,
    progress: Callable[[int, int], None] | None,
) -> LLMExtractor:
    from kgverify.extract.backends import OpenAIBackend

    def backend(model: str) -> Backend:
        if not base_url:
            raise ConfigError("--extractor openai needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        return OpenAIBackend(base_url, model, api_key=api_key, concurrency=concurrency)

    return _llm("openai", settings, model, backend, progress)


def _vllm(
    settings: Settings,
    *,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    concurrency: int,
    progress: Callable[[int, int], None] | None,
) -> LLMExtractor:
    from kgverify.extract.backends import VLLMBackend

    return _llm("vllm", settings, model, VLLMBackend, progress)


EXTRACTORS: Registry[OpenExtractor] = Registry(
    "extractor",
    [
        Entry("template", _template, "deterministic rules over each episode, no model"),
        Entry("openai", _openai, "an OpenAI-compatible server (vllm serve): --base-url, --model"),
        Entry("vllm", _vllm, "the offline vLLM engine in this process: --model"),
    ],
)
