"""The EHR sources: name -> reader (docs/trajectories.md), the registry that
``kgverify ingest|trajectories|extract SOURCE`` and the API's ``source`` read.

A source is read from a descriptor: a path (files and folders) or a URL (a server), as its
entry says (``EhrSource.takes``); ``source_descriptor`` checks one per source, before
anything is read or written. Adding a source: its reader module beside these
(``read_<name>(source, ledger, *, salt, workdir=None, memory_limit=None, settings=None)``,
streaming one patient at a time), one entry here, and, when its trajectories are a format
of their own, its name in ``kgverify.ehr.model.SourceName`` (the ``source`` field every
trajectory carries: ``fhir-rest`` reads FHIR and gives ``fhir`` trajectories). Every
``SourceName`` is some entry's ``trajectories`` and every entry's is a ``SourceName``: the
import fails otherwise (``_check_names``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, get_args

from kgverify.config import Settings
from kgverify.ehr.common import Ledger, SourceError
from kgverify.ehr.fhir import read_fhir
from kgverify.ehr.fhir_rest import check_rest_source, read_fhir_rest
from kgverify.ehr.mimic import read_mimic
from kgverify.ehr.model import SourceName, Trajectory
from kgverify.ehr.omop import read_omop
from kgverify.registry import Entry, Registry


class EhrReader(Protocol):
    """Trajectories of a source, one patient at a time, every row counted in ``ledger``.

    ``source`` is a path, or a URL for a source that reads a server; ``settings`` gives a
    server source its connection settings (page size, timeouts, retries, token)."""

    def __call__(
        self,
        source: Path | str,
        ledger: Ledger,
        *,
        salt: str,
        workdir: Path | None = None,
        memory_limit: str | None = None,
        settings: Settings | None = None,
    ) -> Iterator[Trajectory]: ...


@dataclass(frozen=True)
class EhrSource:
    """A registered source: its reader, what it reads from, and the ``source`` name its
    trajectories carry."""

    read: EhrReader
    trajectories: SourceName
    takes: Literal["path", "url"] = "path"
    # A URL source's check before reading (parse, and ask the server it is one).
    check_url: Callable[[str, Settings], object] | None = None


# The descriptions are the CLI's SOURCE help and what the docs say each path is.
EHR_SOURCES: Registry[EhrSource] = Registry(
    "EHR source",
    [
        Entry(
            "omop", EhrSource(read_omop, "omop"), "a DuckDB file or a folder of CSV/Parquet tables"
        ),
        Entry("mimic", EhrSource(read_mimic, "mimic"), "a MIMIC-IV hosp folder"),
        Entry("fhir", EhrSource(read_fhir, "fhir"), "R4 bundles / NDJSON"),
        Entry(
            "fhir-rest",
            EhrSource(read_fhir_rest, "fhir", "url", check_rest_source),
            "a FHIR R4 server's base URL, e.g. http://127.0.0.1:8080/fhir",
        ),
    ],
)


def _check_names() -> None:
    # The trajectory formats and the readers that give them stay one list: a name without a
    # reader, or a reader giving an undeclared format, fails at import.
    given = {source.trajectories for _, source in EHR_SOURCES.items()}
    if given != set(get_args(SourceName)):
        raise RuntimeError(
            f"EHR sources give {sorted(given)}, SourceName is {get_args(SourceName)}"
        )


_check_names()


def _is_url(text: str) -> bool:
    return text.split("://", 1)[0].lower() in ("http", "https") and "://" in text


def source_descriptor(
    name: str, given: str | Path, settings: Settings | None = None, *, probe: bool = False
) -> Path | str:
    """``given`` checked as what source ``name`` reads: an existing path, or an http(s) URL
    (with ``probe``, also answered by a FHIR server). One ``SourceError`` line otherwise."""
    source = EHR_SOURCES.pick(name)
    text = str(given)
    if source.takes == "url":
        if not _is_url(text):
            raise SourceError(f"{name} reads a server's URL (http(s)://host/...), not {text!r}")
        if probe and source.check_url is not None:
            source.check_url(text, settings or Settings())
        return text
    if _is_url(text):
        urls = [n for n, s in EHR_SOURCES.items() if s.takes == "url"]
        hint = f"; for a server use {' or '.join(urls)}" if urls else ""
        raise SourceError(f"{name} reads a file or folder, not a URL ({text}){hint}")
    path = Path(given)
    if not path.exists():
        raise SourceError(f"{name} source {path} does not exist")
    return path
