"""Model backends for the LLM extractor, behind one small protocol.

- ``OpenAIBackend``: any OpenAI-compatible ``/v1/chat/completions`` endpoint (``vllm serve``),
  standard library only (urllib and a thread pool), structured output through
  ``response_format={"type": "json_schema", ...}``.
- ``VLLMBackend``: the offline engine ``vllm.LLM``, batched, structured output through
  ``SamplingParams``; ``vllm`` is imported only when one is constructed.

Either sends free text instead with ``structured=False`` (item calibration asks for a
letter, ``kgverify.derive.calibrate``); its ``schema`` is then ``{}``, in the cache key too.

A prompt the backend cannot answer comes back as a ``CompletionError`` in its place, so the
extractor retries it and finally records an ``ExtractionFailure``; a backend that cannot work
at all (server unreachable, wrong URL or model, bad credentials, vllm missing) raises an
``LLMError`` with a one-line message.
"""

from __future__ import annotations

import http.client
import importlib
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, Protocol

from kgverify.errors import ConfigError, KgverifyError
from kgverify.extract.prompting import response_schema

Progress = Callable[[int, int], None]
"""Called with (done, total) as answers arrive."""

DEFAULT_PARAMS: Mapping[str, Any] = {"temperature": 0.0, "max_tokens": 2048}
SCHEMA_NAME = "kgverify_relations"
MAX_REASON_CHARS = 300


class LLMError(KgverifyError):
    """The model backend cannot be used at all."""


class LLMUnavailableError(LLMError):
    """The server cannot be reached, or vllm is not installed."""


class LLMRequestError(LLMError):
    """The server refuses every request: wrong URL or model name, or bad credentials."""


@dataclass(frozen=True)
class CompletionError:
    """A prompt that got no answer; the extractor retries it, then records a failure."""

    reason: str
    unreachable: bool = False


Completion = str | CompletionError


class Backend(Protocol):
    """What the extractor needs from a model: answers to prompts, and what decides them."""

    @property
    def kind(self) -> str:
        """'openai' or 'vllm': the extractor name recorded on each relation."""

    @property
    def model(self) -> str: ...

    @property
    def params(self) -> Mapping[str, Any]:
        """Sampling parameters: part of the cache key."""

    @property
    def schema(self) -> Mapping[str, Any]:
        """The JSON schema the answers are constrained to: part of the cache key."""

    def complete(
        self, prompts: Sequence[str], progress: Progress | None = None
    ) -> list[Completion]:
        """One answer per prompt, in order."""


def _merge_params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    return {**DEFAULT_PARAMS, **(params or {})}


def _schema(schema: Mapping[str, Any] | None, structured: bool) -> dict[str, Any]:
    """The answers' JSON schema: the given one, the relations' by default, ``{}`` for free
    text (``structured=False``)."""
    if not structured:
        return {}
    return dict(schema) if schema is not None else response_schema()


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON_CHARS else text[:MAX_REASON_CHARS] + "..."


class OpenAIBackend:
    """An OpenAI-compatible chat-completions server, ``concurrency`` requests at a time.

    ``base_url`` is the API root, e.g. ``http://127.0.0.1:8000/v1``. ``params`` are merged
    into each request body (defaults: temperature 0, max_tokens 2048), so vLLM's extra
    sampling fields (``top_k``, ``repetition_penalty``, ``seed``, ...) go there too.
    ``structured=False``: no ``response_format`` (the answer is free text).
    """

    kind = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        concurrency: int = 4,
        timeout_s: float = 120.0,
        params: Mapping[str, Any] | None = None,
        schema: Mapping[str, Any] | None = None,
        structured: bool = True,
    ) -> None:
        if urllib.parse.urlsplit(base_url).scheme not in ("http", "https"):
            raise ConfigError(f"LLM server URL must be http(s)://...: {base_url!r}")
        if concurrency < 1:
            raise ConfigError(f"concurrency must be at least 1, not {concurrency}")
        if timeout_s <= 0:
            raise ConfigError(f"timeout_s must be positive, not {timeout_s}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.concurrency = concurrency
        self.timeout_s = timeout_s
        self.params: dict[str, Any] = _merge_params(params)
        self.structured = structured
        self.schema: dict[str, Any] = _schema(schema, structured)
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"

    def request_body(self, prompt: str) -> dict[str, Any]:
        """The chat-completion request for one prompt."""
        body: dict[str, Any] = {
            **self.params,
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
        }
        if self.structured:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": SCHEMA_NAME, "schema": self.schema},
            }
        return body

    def complete(
        self, prompts: Sequence[str], progress: Progress | None = None
    ) -> list[Completion]:
        answers: list[Completion] = [CompletionError("not sent")] * len(prompts)
        if not prompts:
            return answers
        pool = ThreadPoolExecutor(max_workers=min(self.concurrency, len(prompts)))
        try:
            futures = {pool.submit(self._post, prompt): i for i, prompt in enumerate(prompts)}
            for done, future in enumerate(as_completed(futures), start=1):
                answers[futures[future]] = future.result()
                if progress is not None:
                    progress(done, len(prompts))
        finally:
            # On a fatal error, drop the queued requests instead of sending them all.
            pool.shutdown(wait=True, cancel_futures=True)
        if all(isinstance(a, CompletionError) and a.unreachable for a in answers):
            first = answers[0]
            assert isinstance(first, CompletionError)
            raise LLMUnavailableError(first.reason)
        return answers

    def _post(self, prompt: str) -> Completion:
        request = urllib.request.Request(  # noqa: S310 (scheme checked in __init__)
            self.url,
            data=json.dumps(self.request_body(prompt)).encode(),
            headers=self._headers,
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:  # noqa: S310
                payload = response.read()
        except urllib.error.HTTPError as exc:
            message = _error_message(exc.read())
            if exc.code in (401, 403, 404):
                raise LLMRequestError(f"{self.url} answered HTTP {exc.code}: {message}") from None
            return CompletionError(f"HTTP {exc.code}: {message}")
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                return self._timeout()
            return CompletionError(f"cannot reach {self.url}: {exc.reason}", unreachable=True)
        except TimeoutError:
            return self._timeout()
        except (OSError, http.client.HTTPException) as exc:
            return CompletionError(f"connection to {self.url} failed: {type(exc).__name__}")
        return _message_content(payload)

    def _timeout(self) -> CompletionError:
        return CompletionError(f"no answer from {self.url} within {self.timeout_s:g} s")


def _error_message(body: bytes) -> str:
    """The message of an OpenAI-style error body, else its first characters."""
    try:
        data = json.loads(body)
    except ValueError:
        return _cut(body.decode("utf-8", "replace")) or "(no body)"
    if isinstance(data, dict):
        error = data.get("error")
        message = error.get("message") if isinstance(error, dict) else data.get("message")
        if isinstance(message, str):
            return _cut(message)
    return _cut(json.dumps(data))


def _message_content(payload: bytes) -> Completion:
    try:
        content = json.loads(payload)["choices"][0]["message"]["content"]
    except (ValueError, LookupError, TypeError):
        return CompletionError("the server's answer is not a chat completion")
    if not isinstance(content, str):
        return CompletionError("the chat completion has no message content")
    return content


class VLLMBackend:
    """The offline vLLM engine: all prompts of a batch in one ``LLM.chat`` call.

    ``chat=True`` applies the model's chat template (what instruct models expect);
    ``chat=False`` sends the raw prompts through ``LLM.generate``. ``engine_kwargs`` go to
    ``vllm.LLM`` (``max_model_len``, ``gpu_memory_utilization``, ``dtype``, ...).
    ``structured=False``: no structured-output constraint (the answer is free text).
    Written against vLLM 0.10 (``GuidedDecodingParams``) and >= 0.11
    (``StructuredOutputsParams``); which one is used is detected at run time.
    """

    kind = "vllm"

    def __init__(
        self,
        model: str,
        *,
        params: Mapping[str, Any] | None = None,
        schema: Mapping[str, Any] | None = None,
        chat: bool = True,
        structured: bool = True,
        **engine_kwargs: Any,
    ) -> None:
        vllm = _import_vllm()
        self.model = model
        self.chat = chat
        self.schema: dict[str, Any] = _schema(schema, structured)
        self._sampling_params = _merge_params(params)
        self._sampling = _sampling_params(vllm, self._sampling_params, self.schema)
        self._llm = vllm.LLM(model=model, **engine_kwargs)

    @property
    def params(self) -> dict[str, Any]:
        # Chat or raw prompts change what the model sees, so the cache key includes it.
        return {**self._sampling_params, "chat": self.chat}

    def complete(
        self, prompts: Sequence[str], progress: Progress | None = None
    ) -> list[Completion]:
        if not prompts:
            return []
        try:
            answers: list[Completion] = list(self._generate(prompts))
        except Exception as exc:
            # One bad prompt (say, longer than max_model_len) fails the whole call: answer
            # one by one so that only it fails.
            if len(prompts) == 1:
                return [CompletionError(_cut(f"vllm: {type(exc).__name__}: {exc}"))]
            answers = [self.complete([prompt])[0] for prompt in prompts]
        if progress is not None:
            progress(len(prompts), len(prompts))
        return answers

    def _generate(self, prompts: Sequence[str]) -> list[str]:
        if self.chat:
            conversations = [[{"role": "user", "content": prompt}] for prompt in prompts]
            outputs = self._llm.chat(conversations, sampling_params=self._sampling, use_tqdm=False)
        else:
            outputs = self._llm.generate(
                list(prompts), sampling_params=self._sampling, use_tqdm=False
            )
        return [str(output.outputs[0].text) for output in outputs]


def _import_vllm() -> Any:
    try:
        return importlib.import_module("vllm")
    except ImportError as exc:
        raise LLMUnavailableError(
            f"the vllm backend needs vllm ({exc}): pip install 'kgverify[llm]'"
        ) from None


def _sampling_params(vllm: Any, params: Mapping[str, Any], schema: Mapping[str, Any]) -> Any:
    """``SamplingParams`` with the JSON schema as a structured-output constraint (none for
    an empty schema: free text)."""
    if not schema:
        return vllm.SamplingParams(**params)
    module = importlib.import_module("vllm.sampling_params")
    structured = getattr(module, "StructuredOutputsParams", None)
    if structured is not None:  # vLLM >= 0.11; the guided_* names are gone in 0.12
        return vllm.SamplingParams(**params, structured_outputs=structured(json=dict(schema)))
    guided = module.GuidedDecodingParams  # vLLM 0.10
    return vllm.SamplingParams(**params, guided_decoding=guided(json=dict(schema)))
