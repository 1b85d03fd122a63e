"""A small FHIR REST client on the standard library: JSON in and out, a bearer token, timeouts,
retries with backoff on 429 and 5xx (``Retry-After`` honoured), searches followed page by page
through ``Bundle.link[next]``.

The token is read from the ``fhir_token`` setting or from an owner-only ``fhir_token_file``;
it goes into the ``Authorization`` header and nowhere else (not in errors, logs or reprs),
and only to the server's own origin: a ``next`` link to another host is refused.
"""

from __future__ import annotations

import json
import logging
import stat
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from kgverify.config import Settings
from kgverify.ehr.common import SourceError
from kgverify.errors import ConfigError

log = logging.getLogger(__name__)

FHIR_JSON = "application/fhir+json"
RETRIED = frozenset({429, 500, 502, 503, 504})


class FhirHttpError(SourceError):
    """A FHIR request failed for good: one line with the method, path, status and reason."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def read_token(settings: Settings) -> str | None:
    """The bearer token: ``fhir_token``, else the owner-only ``fhir_token_file``, else None."""
    if settings.fhir_token is not None:
        return settings.fhir_token.get_secret_value()
    path = settings.fhir_token_file
    if path is None:
        return None
    try:
        mode = path.stat().st_mode
    except OSError:
        raise ConfigError(f"KGVERIFY_FHIR_TOKEN_FILE: no such file: {path}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConfigError(
            f"KGVERIFY_FHIR_TOKEN_FILE: {path} is readable by others; chmod 600 it first"
        )
    token = path.read_text().strip()
    if not token:
        raise ConfigError(f"KGVERIFY_FHIR_TOKEN_FILE: {path} is empty")
    return token


def _diagnostics(body: bytes) -> str:
    """The first issue of an OperationOutcome, else the body's start, on one line."""
    try:
        outcome = json.loads(body)
    except ValueError:
        return " ".join(body[:200].decode(errors="replace").split())
    issues = outcome.get("issue") if isinstance(outcome, dict) else None
    if isinstance(issues, list) and issues and isinstance(issues[0], dict):
        text = issues[0].get("diagnostics") or issues[0].get("code") or ""
        return " ".join(str(text).split())[:300]
    return ""


@dataclass
class FhirClient:
    """Requests to one FHIR server (``base``: its root, e.g. ``http://127.0.0.1:8080/fhir``)."""

    base: str
    timeout_s: float = 60.0
    retries: int = 4
    token: str | None = field(default=None, repr=False)
    backoff_s: float = 0.5
    sleep: Callable[[float], None] = time.sleep
    requests: int = 0  # sent, retries included
    retried: int = 0
    # Requests may come from several threads (fhir-rest reads patients at once).
    _counting: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        self.base = self.base.rstrip("/")
        parts = urlsplit(self.base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SourceError(f"not a FHIR server URL: {self.base!r} (expected http(s)://host/...)")
        self._origin = (parts.scheme, parts.netloc)

    @classmethod
    def from_settings(cls, base: str, settings: Settings) -> FhirClient:
        return cls(
            base,
            timeout_s=settings.fhir_timeout_s,
            retries=settings.fhir_retries,
            token=read_token(settings),
        )

    def url(self, path: str, params: Mapping[str, str] | None = None) -> str:
        query = f"?{urlencode(params)}" if params else ""
        return f"{self.base}/{path.lstrip('/')}{query}"

    def get(self, path: str, params: Mapping[str, str] | None = None) -> dict[str, Any]:
        return self.request("GET", self.url(path, params))

    def transaction(self, bundle: Mapping[str, Any]) -> dict[str, Any]:
        return self.request("POST", self.base, bundle)

    def pages(self, path: str, params: Mapping[str, str] | None = None) -> Iterator[dict[str, Any]]:
        """Each page (a Bundle) of a search or operation, following ``link[next]``."""
        url: str | None = self.url(path, params)
        while url is not None:
            page = self.request("GET", url)
            url = next_link(page)
            if url is not None:
                self._same_origin(url)
            yield page

    # -- one request ----------------------------------------------------------------------
    def _same_origin(self, url: str) -> None:
        parts = urlsplit(url)
        if (parts.scheme, parts.netloc) != self._origin:
            raise FhirHttpError(
                f"FHIR server {self.base}: a next link leaves the server "
                f"({parts.scheme}://{parts.netloc}); not followed"
            )

    def request(
        self, method: str, url: str, body: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """One JSON request, retried on 429, 5xx and connection failures."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Accept": FHIR_JSON}
        if data is not None:
            headers["Content-Type"] = FHIR_JSON
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        where = f"{method} {_shown(url, self.base)}"
        attempt = 0
        while True:
            with self._counting:
                self.requests += 1
            wait: float | None = None
            try:
                # http(s) only: the base is checked in __post_init__, next links by origin
                request = urllib.request.Request(url, data=data, headers=headers, method=method)  # noqa: S310
                with urllib.request.urlopen(request, timeout=self.timeout_s) as answer:  # noqa: S310
                    payload = answer.read()
                try:
                    parsed = json.loads(payload) if payload else {}
                except ValueError:
                    raise FhirHttpError(f"FHIR server {self.base}: {where}: not JSON") from None
                if not isinstance(parsed, dict):
                    raise FhirHttpError(f"FHIR server {self.base}: {where}: not a JSON object")
                return parsed
            except urllib.error.HTTPError as exc:
                status = exc.code
                reason = _diagnostics(exc.read())
                failure = f"{status} {exc.reason}" + (f": {reason}" if reason else "")
                if status not in RETRIED:
                    raise FhirHttpError(
                        f"FHIR server {self.base}: {where}: {failure}", status
                    ) from None
                wait = _retry_after(exc.headers.get("Retry-After"))
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                status = None
                cause = exc.reason if isinstance(exc, urllib.error.URLError) else exc
                failure = f"cannot reach the server ({cause})"
            if attempt >= self.retries:
                tries = f" after {attempt + 1} tries" if attempt else ""
                raise FhirHttpError(f"FHIR server {self.base}: {where}: {failure}{tries}", status)
            delay = wait if wait is not None else self.backoff_s * 2**attempt
            log.info("FHIR %s: %s; retrying in %.1fs", where, failure, delay)
            self.sleep(min(delay, 60.0))
            attempt += 1
            with self._counting:
                self.retried += 1


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None  # an HTTP date: the backoff decides


def _shown(url: str, base: str) -> str:
    """The URL as errors show it: relative to the server's root, paging tokens kept."""
    return url[len(base) :].lstrip("/") or "/" if url.startswith(base) else url


def next_link(bundle: Mapping[str, Any]) -> str | None:
    """``Bundle.link`` with relation ``next``, if any."""
    for link in bundle.get("link") or []:
        if isinstance(link, dict) and link.get("relation") == "next" and link.get("url"):
            return str(link["url"])
    return None


def entries(bundle: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A bundle's entries that are objects (anything else is the caller's reject)."""
    found = bundle.get("entry") or []
    return [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []
