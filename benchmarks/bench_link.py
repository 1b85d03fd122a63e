"""Entity-linking benchmark on real public data: kgverify's linker against scispaCy's stock
index settings in one run, and an index of 1,000,000 real aliases. Writes JSON and prints
Markdown tables.

    python -m benchmarks.bench_link --json docs/benchmarks/link.json

(Run it as a module from the repository root: ``pysbd``, a scispaCy dependency, installs a
top-level ``benchmarks`` package of its own that shadows this folder otherwise.)

Labelled sets (``benchmarks/link_data.py``): DOID names against MONDO, MONDO names against
HPO (shared UMLS CUI), MeSH names against ChEBI. For each set and KB:

- **kgverify**: an index with kgverify's default settings, mentions linked by ``Linker`` in
  batches (exact and normalized SQLite stages, then TF-IDF), with the default threshold,
  margin and k;
- **scispaCy stock**: an index with ``SCISPACY_STOCK`` settings (min_df 10, M 100,
  efConstruction 2000, efSearch 200), linked the way scispaCy's ``EntityLinker`` does:
  ``GraphCandidateGenerator(index)(texts, k=30)``, score = max similarity per concept, kept
  when > 0.7, top-1 = highest score. No definition filter: MONDO and ChEBI here carry no
  definitions, so scispaCy's default filter (drop < 0.95 without a definition) would drop all
  but near-exact matches;
- kgverify's linker on the stock index (the index differs, the pipeline is the same).

Metrics: accuracy@1 (linked concept in gold, over all mentions), recall@5 (a gold id among
the first 5 distinct candidate concept ids; for scispaCy the top 5 by score, unthresholded),
precision (correct among linked), coverage (share linked), share ambiguous, and mentions/s
over the linking calls only. Each figure also on the *non-exact* subset: mentions whose
exact key (``kgverify.link.normalize.exact_key``) is not a surface form of a gold record.

Scale: an index of ``--scale-aliases`` real surface forms (``alias_corpus``), its build time,
size on disk and peak RSS, its load time, and linking throughput on ``--throughput`` mentions
drawn from the three labelled sets.

Every build and every run is a child process (this script, sub-command ``_child``), so each
peak RSS is that child's own ``ru_maxrss``. Indexes and inputs live under
``$KGVERIFY_CACHE_DIR/bench-link/``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SETS = {"doid-mondo": "mondo", "mondo-hpo": "hpo", "mesh-chebi": "chebi"}
SET_LABELS = {
    "doid-mondo": "DOID -> MONDO",
    "mondo-hpo": "MONDO -> HPO (shared UMLS CUI)",
    "mesh-chebi": "MeSH -> ChEBI",
}
SCISPACY_THRESHOLD = 0.7  # EntityLinker's default
SCISPACY_K = 30  # EntityLinker's default
RECALL_AT = 5


def _cache_dir() -> Path:
    return Path(os.environ.get("KGVERIFY_CACHE_DIR", "~/.cache/kgverify")).expanduser()


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):  # not ru_maxrss: that carries the spawning parent's size
            return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError("no VmHWM")


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def _disk_mb(directory: Path) -> float:
    size = sum(p.stat().st_size for p in directory.rglob("*") if p.is_file())
    return round(size / 2**20, 1)


def _index_settings(preset: str) -> Any:
    from kgverify.config import Settings
    from kgverify.link.index import SCISPACY_STOCK, IndexSettings

    ours = IndexSettings.from_settings(Settings())
    if preset == "kgverify":
        return ours
    return IndexSettings(**SCISPACY_STOCK, threads=ours.threads)


# --- child: prepare inputs -------------------------------------------------------------------


def _prepare(spec: dict[str, Any]) -> dict[str, Any]:
    """KB JSONL files, mention files (sampled) and the throughput draw."""
    from benchmarks import link_data as ld
    from kgverify.jsonl import write_models
    from kgverify.link.kb import KbEntry
    from kgverify.link.normalize import exact_key

    work = Path(spec["work"])
    readers: dict[str, Callable[[], Iterator[ld.KbRecord]]] = {
        "mondo": ld.mondo_records,
        "hpo": ld.hpo_records,
        "chebi": ld.chebi_records,
    }
    set_readers: dict[str, Callable[[], Iterator[ld.LabelledMention]]] = {
        "doid-mondo": ld.doid_to_mondo_mentions,
        "mondo-hpo": ld.mondo_to_hpo_mentions,
        "mesh-chebi": ld.mesh_to_chebi_mentions,
    }

    def entry(record: ld.KbRecord) -> KbEntry:
        return KbEntry(
            id=record.id,
            vocab=record.id.split(":", 1)[0],
            name=record.name,
            names=list(record.aliases),
            kinds=list(record.kinds),
            definition=record.definition,
        )

    out: dict[str, Any] = {"kbs": {}, "sets": {}}
    for kb in spec["kbs"]:
        records = list(readers[kb]())
        path = work / f"kb-{kb}.jsonl"
        write_models((entry(r) for r in records), path)
        out["kbs"][kb] = {
            "records": len(records),
            "surface_forms": sum(len(ld.surface_forms(r)) for r in records),
        }
    rng = random.Random(spec["seed"])
    draw: list[str] = []
    for name, reader in set_readers.items():
        mentions = list(reader())
        draw.extend(m.text for m in mentions)
        if name not in spec["sets"]:
            continue
        kb_records = {r.id: r for r in readers[SETS[name]]()}
        chosen: Sequence[int] = range(len(mentions))
        if spec["limit"] and spec["limit"] < len(mentions):
            chosen = sorted(random.Random(spec["seed"]).sample(range(len(mentions)), spec["limit"]))
        rows = []
        for i in chosen:
            m = mentions[i]
            gold = sorted(m.gold)
            forms = {
                exact_key(f)
                for g in gold
                if g in kb_records
                for f in ld.surface_forms(kb_records[g])
            }
            rows.append(
                {
                    "text": m.text,
                    "gold": gold,
                    "gold_names": [kb_records[g].name if g in kb_records else "?" for g in gold],
                    "exact": exact_key(m.text) in forms,
                    "source": m.source,
                }
            )
        (work / f"mentions-{name}.json").write_text(json.dumps(rows))
        out["sets"][name] = {
            "mentions_total": len(mentions),
            "mentions": len(rows),
            "non_exact": sum(not r["exact"] for r in rows),
        }
    if spec["throughput"]:
        texts = rng.sample(draw, min(spec["throughput"], len(draw)))
        (work / "mentions-throughput.json").write_text(json.dumps(texts))
        out["throughput_mentions"] = len(texts)
    if spec["corpus"]:
        n = forms_n = 0
        path = work / f"kb-corpus-{spec['corpus']}.jsonl"

        def counted() -> Iterator[KbEntry]:
            nonlocal n, forms_n
            for record in ld.alias_corpus(target=spec["corpus"]):
                n += 1
                forms_n += len(ld.surface_forms(record))
                yield entry(record)

        write_models(counted(), path)
        out["kbs"][f"corpus-{spec['corpus']}"] = {"records": n, "surface_forms": forms_n}
    return out


# --- child: build ----------------------------------------------------------------------------


class _FirstLog(logging.Handler):
    """When the first log message came (``build_index`` logs once the store is written)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.at: float | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self.at is None:
            self.at = time.perf_counter()


def _build(spec: dict[str, Any]) -> dict[str, Any]:
    from kgverify.jsonl import read_models
    from kgverify.link.index import build_index
    from kgverify.link.kb import KbEntry

    settings = _index_settings(spec["preset"])
    directory = Path(spec["index"])
    baseline = _rss_mb()
    marks = _FirstLog()
    logging.getLogger("kgverify.link.index").addHandler(marks)
    logging.getLogger("kgverify.link.index").setLevel(logging.INFO)
    started = time.perf_counter()
    info = build_index(
        read_models(Path(spec["kb_file"]), KbEntry),
        directory,
        settings,
        key=f"bench-{spec['kb']}-{spec['preset']}",
        source={"benchmark": "bench_link", "kb": spec["kb"]},
    )
    wall = time.perf_counter() - started
    store_s = marks.at
    return {
        "kb": spec["kb"],
        "preset": spec["preset"],
        "settings": settings.build_key() | {"ef_search": settings.ef_search},
        "concepts": info.concepts,
        "aliases": info.aliases,
        "indexed_aliases": info.indexed_aliases,
        "build_s": round(wall, 1),
        "build_index_s": round(info.build_seconds, 1),
        # until build_index's first log line: JSONL parsing, SQLite store and alias arrays;
        # the rest is TF-IDF fit, HNSW build and saving the files
        "store_s": round(store_s - started, 1) if store_s else None,
        "tfidf_hnsw_s": round(wall - (store_s - started), 1) if store_s else None,
        "disk_mb": _disk_mb(directory),
        "rss_before_mb": baseline,
        "peak_rss_mb": _peak_mb(),
    }


# --- child: quality and throughput -----------------------------------------------------------


@dataclass
class _Prediction:
    status: str  # linked / ambiguous / unlinked
    concept: str | None  # the chosen concept (linked only)
    top: str | None  # the first candidate's id, for error listings
    score: float
    method: str | None
    top_k: list[str]  # first RECALL_AT distinct candidate concept ids


def _kgverify_predict(
    index: Any,
    texts: Sequence[str],
    batch: int,
    disabled: Sequence[str] = (),
    alternatives: bool | None = None,
    rerank: bool | None = None,
) -> tuple[list[_Prediction], Any]:
    from kgverify.config import Settings
    from kgverify.link.linker import Linker, LinkParams, MentionQuery

    params = LinkParams.from_settings(Settings())
    update: dict[str, Any] = {"disabled": frozenset(disabled)}
    if alternatives is not None:
        update["alternatives"] = alternatives
    if rerank is not None:
        update["rerank"] = rerank
    linker = Linker(index, params.model_copy(update=update))
    found: list[_Prediction] = []
    for start in range(0, len(texts), batch):
        links = linker.link([MentionQuery(t) for t in texts[start : start + batch]])
        for link in links:
            ids = list(dict.fromkeys(c.concept_id for c in link.candidates))[:RECALL_AT]
            first = link.candidates[0] if link.candidates else None
            found.append(
                _Prediction(
                    status=link.status.value,
                    concept=link.concept_id,
                    top=first.concept_id if first else None,
                    score=first.score if first else 0.0,
                    method=link.method.value if link.method else None,
                    top_k=ids,
                )
            )
    return found, linker.stage_counts


def _scispacy_predict(index: Any, texts: Sequence[str], batch: int) -> list[_Prediction]:
    from kgverify.link.pipe import GraphCandidateGenerator

    generator = GraphCandidateGenerator(index)
    found: list[_Prediction] = []
    for start in range(0, len(texts), batch):
        for candidates in generator(list(texts[start : start + batch]), SCISPACY_K):
            # EntityLinker: max similarity per concept, kept above the threshold, stable sort.
            scored = sorted(
                ((c.concept_id, max(c.similarities)) for c in candidates),
                key=lambda pair: pair[1],
                reverse=True,
            )
            kept = [pair for pair in scored if pair[1] > SCISPACY_THRESHOLD]
            found.append(
                _Prediction(
                    status="linked" if kept else "unlinked",
                    concept=kept[0][0] if kept else None,
                    top=scored[0][0] if scored else None,
                    score=round(scored[0][1], 4) if scored else 0.0,
                    method="tfidf" if scored else None,
                    top_k=[cid for cid, _ in scored[:RECALL_AT]],
                )
            )
    return found


def _metrics(pairs: Iterable[tuple[dict[str, Any], _Prediction]]) -> dict[str, Any]:
    n = linked = correct = ambiguous = recall = 0
    for mention, p in pairs:
        gold = set(mention["gold"])
        n += 1
        linked += p.status == "linked"
        ambiguous += p.status == "ambiguous"
        correct += p.concept in gold
        recall += bool(gold & set(p.top_k))
    return {
        "mentions": n,
        "accuracy_at_1": round(correct / n, 4) if n else None,
        "recall_at_5": round(recall / n, 4) if n else None,
        "precision": round(correct / linked, 4) if linked else None,
        "coverage": round(linked / n, 4) if n else None,
        "ambiguous": round(ambiguous / n, 4) if n else None,
    }


def _named(concept: str | None, names: dict[str, str]) -> str | None:
    return None if concept is None else f"{concept} {names.get(concept, '?')}"


def _quality(spec: dict[str, Any]) -> dict[str, Any]:
    from kgverify.link.index import LinkerIndex

    mentions: list[dict[str, Any]] = json.loads(Path(spec["mentions"]).read_text())
    texts = [m["text"] for m in mentions]
    settings = _index_settings(spec["preset"])
    baseline = _rss_mb()
    started = time.perf_counter()
    # scispaCy's own scoring keeps its own HNSW search; kgverify's linker searches its way.
    search = settings.search if spec["linker"] == "kgverify" else None
    index = LinkerIndex(Path(spec["index"]), settings.ef_search, settings.threads, search=search)
    load_s = time.perf_counter() - started
    stage_counts: dict[str, int] | None = None
    started = time.perf_counter()
    if spec["linker"] == "kgverify":
        predictions, stage_counts = _kgverify_predict(
            index,
            texts,
            spec["batch"],
            spec.get("disabled", []),
            spec.get("alternatives"),
            spec.get("rerank"),
        )
    else:
        predictions = _scispacy_predict(index, texts, spec["batch"])
    link_s = time.perf_counter() - started

    curve = calibration = None
    scored_run = spec.get("disabled", []) in ([], ["calibration"]) and "alternatives" not in spec
    if spec["linker"] == "kgverify" and scored_run:
        curve, calibration = _curve(
            index, mentions, spec["batch"], spec.get("disabled", []), spec.get("rerank")
        )
    pairs = list(zip(mentions, predictions, strict=True))
    by_method: dict[str, list[int]] = {}
    for m, p in pairs:
        if p.status == "linked" and p.method:
            tally = by_method.setdefault(p.method, [0, 0])
            tally[0] += 1
            tally[1] += p.concept in m["gold"]
    wrong = [i for i, (m, p) in enumerate(pairs) if p.concept not in m["gold"]]
    sample = sorted(random.Random(spec["seed"]).sample(wrong, min(spec["errors"], len(wrong))))
    shown = [p.top for i in sample if (p := predictions[i]).top]
    rows = index.store.rows_of(shown)
    names = {e.id: e.name for e in index.store.concepts(rows.values()).values()}
    index.close()
    errors = [
        {
            "mention": mentions[i]["text"],
            "gold": [
                f"{g} {n}"
                for g, n in zip(mentions[i]["gold"], mentions[i]["gold_names"], strict=True)
            ],
            "exact": mentions[i]["exact"],
            "status": predictions[i].status,
            "predicted": _named(predictions[i].top, names),
            "score": predictions[i].score,
            "method": predictions[i].method,
        }
        for i in sample
    ]
    wrong_status = Counter(pairs[i][1].status for i in wrong)
    return {
        "set": spec["set"],
        "kb": spec["kb"],
        "linker": spec["linker"],
        "preset": spec["preset"],
        "all": _metrics(pairs),
        "non_exact": _metrics((m, p) for m, p in pairs if not m["exact"]),
        "linked_by_method": {k: {"linked": v[0], "correct": v[1]} for k, v in by_method.items()},
        "wrong_by_status": dict(wrong_status),
        "stage_counts": stage_counts,
        "link_s": round(link_s, 2),
        "mentions_per_s": round(len(texts) / link_s) if link_s else None,
        "load_s": round(load_s, 2),
        "rss_before_mb": baseline,
        "peak_rss_mb": _peak_mb(),
        "errors": errors,
        "curve": curve,
        "calibration": calibration,
        "coverage_at_095": coverage_at_precision(curve, 0.95),
    }


CURVE_POINTS = 200


def _curve(
    index: Any,
    mentions: list[dict[str, Any]],
    batch: int,
    disabled: Sequence[str] = (),
    rerank: bool | None = None,
) -> tuple[list[list[float]], dict[str, Any]]:
    """Precision against accuracy@1 over every score threshold (no margin): the linker with
    threshold 0 and margin 0, its first candidate per mention. Points (threshold, precision,
    accuracy@1, coverage), at most ``CURVE_POINTS``, highest threshold first. Says what the
    linker's ranking and scores could give at another operating point, e.g. scispaCy's
    precision. With it, the calibration error (ECE, 10 bins) of the first candidate's score
    read as the probability that it is right: over every mention with a candidate, and over
    those whose first candidate came from TF-IDF or one edit (the scores calibration maps)."""
    from kgverify.config import Settings
    from kgverify.link.calibration import calibration_error
    from kgverify.link.linker import Linker, LinkParams, MentionQuery

    update: dict[str, Any] = {"threshold": 0.0, "margin": 0.0, "disabled": frozenset(disabled)}
    if rerank is not None:
        update["rerank"] = rerank
    params = LinkParams.from_settings(Settings()).model_copy(update=update)
    linker = Linker(index, params)
    scored: list[tuple[float, bool]] = []
    neighbours: list[tuple[float, bool]] = []
    for start in range(0, len(mentions), batch):
        chunk = mentions[start : start + batch]
        for m, link in zip(
            chunk, linker.link([MentionQuery(x["text"]) for x in chunk]), strict=True
        ):
            top = link.candidates[0] if link.candidates else None
            scored.append((top.score, top.concept_id in m["gold"]) if top else (0.0, False))
            if top and top.method.value in ("tfidf", "edit"):
                neighbours.append(scored[-1])
    with_candidate = [pair for pair in scored if pair[0] > 0]

    def ece(pairs: list[tuple[float, bool]]) -> float | None:
        if not pairs:
            return None
        return round(calibration_error([s for s, _ in pairs], [float(g) for _, g in pairs]), 4)

    calibration = {
        "ece": ece(with_candidate),
        "ece_tfidf": ece(neighbours),
        "tfidf_tops": len(neighbours),
        "tfidf_precision": round(sum(g for _, g in neighbours) / len(neighbours), 4)
        if neighbours
        else None,
        "tfidf_mean_score": round(sum(s for s, _ in neighbours) / len(neighbours), 4)
        if neighbours
        else None,
    }
    scored.sort(key=lambda pair: -pair[0])
    n = len(scored)
    points: list[list[float]] = []
    correct = 0
    for at, (score, good) in enumerate(scored, 1):
        correct += good
        last = at == n or scored[at][0] != score
        if last and score > 0:
            points.append(
                [round(score, 4), round(correct / at, 4), round(correct / n, 4), round(at / n, 4)]
            )
    step = max(1, len(points) // CURVE_POINTS)
    points = points[::step] + ([points[-1]] if points and (len(points) - 1) % step else [])
    return points, calibration


def coverage_at_precision(curve: list[list[float]] | None, precision: float) -> float | None:
    """The largest coverage any score threshold reaches with at least this precision."""
    if not curve:
        return None
    reached = [coverage for _, p, _, coverage in curve if p >= precision]
    return max(reached) if reached else 0.0


def acc_at_precision(curve: list[list[float]] | None, precision: float | None) -> float | None:
    """The best accuracy@1 any score threshold reaches with at least this precision."""
    if not curve or precision is None:
        return None
    reached = [acc for _, p, acc, _ in curve if p >= precision]
    return max(reached) if reached else 0.0


def _throughput(spec: dict[str, Any]) -> dict[str, Any]:
    from kgverify.config import Settings
    from kgverify.link.index import LinkerIndex
    from kgverify.link.normalize import exact_key

    texts: list[str] = json.loads(Path(spec["mentions"]).read_text())
    settings = _index_settings("kgverify")
    baseline = _rss_mb()
    started = time.perf_counter()
    index = LinkerIndex(
        Path(spec["index"]), settings.ef_search, settings.threads, search=settings.search
    )
    load_s = time.perf_counter() - started
    rss_loaded = _rss_mb()
    started = time.perf_counter()
    predictions, stage_counts = _kgverify_predict(index, texts, spec["batch"])
    link_s = time.perf_counter() - started
    # Most of these texts are exact aliases of so large a KB; the TF-IDF stage's own cost per
    # mention: char-3-gram vectors and HNSW queries (k=30) for every text, nothing else.
    k = Settings().link_k
    started = time.perf_counter()
    for start in range(0, len(texts), spec["batch"]):
        index.neighbours([exact_key(t) for t in texts[start : start + spec["batch"]]], k)
    knn_s = time.perf_counter() - started
    index.close()
    status = Counter(p.status for p in predictions)
    return {
        "mentions": len(texts),
        "load_s": round(load_s, 2),
        "link_s": round(link_s, 2),
        "mentions_per_s": round(len(texts) / link_s) if link_s else None,
        "tfidf_knn_s": round(knn_s, 2),
        "tfidf_knn_per_s": round(len(texts) / knn_s) if knn_s else None,
        "status": {key: round(v / len(texts), 4) for key, v in sorted(status.items())},
        "stage_counts": stage_counts,
        "rss_before_mb": baseline,
        "rss_loaded_mb": rss_loaded,
        "peak_rss_mb": _peak_mb(),
    }


TASKS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "prepare": _prepare,
    "build": _build,
    "quality": _quality,
    "throughput": _throughput,
}


def _child(task: str, spec_path: Path, out_path: Path) -> None:
    spec = json.loads(spec_path.read_text())
    result = TASKS[task](spec)
    out_path.write_text(json.dumps(result))


# --- parent ----------------------------------------------------------------------------------


def _hwm_mb(pid: int) -> float | None:
    """A live process's peak RSS (VmHWM), or None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _run_child(task: str, spec: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
    """Run one task in a fresh interpreter; its result, or ``{"error": ...}`` (with the peak
    RSS seen so far when it ran out of time)."""
    with tempfile.TemporaryDirectory(prefix="bench-link-") as tmp:
        spec_path, out_path = Path(tmp) / "spec.json", Path(tmp) / "out.json"
        spec_path.write_text(json.dumps(spec))
        command = [sys.executable, "-m", "benchmarks.bench_link", "_child", task]
        started = time.perf_counter()
        proc = subprocess.Popen([*command, str(spec_path), str(out_path)], cwd=ROOT)
        peak: float | None = None
        while proc.poll() is None:
            peak = _hwm_mb(proc.pid) or peak
            if timeout is not None and time.perf_counter() - started > timeout:
                proc.kill()
                proc.wait()
                return {
                    "error": f"stopped after {timeout:.0f} s",
                    "elapsed_s": round(time.perf_counter() - started, 1),
                    "peak_rss_mb_when_stopped": peak,
                }
            time.sleep(0.5)
        if proc.returncode != 0 or not out_path.is_file():
            return {"error": f"exit status {proc.returncode}"}
        result: dict[str, Any] = json.loads(out_path.read_text())
        result["child_wall_s"] = round(time.perf_counter() - started, 1)
        return result


def _git(*args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return proc.stdout.strip()


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


LINKER_LABELS = {
    ("kgverify", "kgverify"): "kgverify (default index)",
    ("scispacy", "stock"): "scispaCy stock (stock index, EntityLinker scoring)",
    ("kgverify", "stock"): "kgverify pipeline on the stock index",
}


def markdown(report: dict[str, Any]) -> str:
    lines: list[str] = []
    header = (
        "| set | linker | mentions | acc@1 | recall@5 | precision | coverage | ambiguous "
        "| mentions/s |"
    )
    for subset, title in (("all", "All mentions"), ("non_exact", "Non-exact mentions")):
        lines += [f"{title}:", "", header, "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for q in report["quality"]:
            if "error" in q:
                lines.append(f"| {q['label']} | {q['linker_label']} | {q['error']} ||||||||")
                continue
            m = q[subset]
            rate = _fmt(q["mentions_per_s"]) if subset == "all" else ""
            lines.append(
                f"| {SET_LABELS[q['set']]} | {q['linker_label']} | "
                f"{_fmt(m['mentions'])} | {_fmt(m['accuracy_at_1'])} | "
                f"{_fmt(m['recall_at_5'])} | {_fmt(m['precision'])} | {_fmt(m['coverage'])} | "
                f"{_fmt(m['ambiguous'])} | {rate} |"
            )
        lines.append("")
    stock = {
        q["set"]: q["all"]
        for q in report["quality"]
        if q.get("linker") == "scispacy" and "error" not in q
    }
    ours = [
        q
        for q in report["quality"]
        if (q.get("linker"), q.get("preset")) == ("kgverify", "kgverify") and q.get("curve")
    ]
    if ours:
        lines += [
            "Operating points (kgverify, default index; accuracy@1 reachable with a score "
            "threshold alone, no margin, at a given precision):",
            "",
            "| set | kgverify default: precision / acc@1 | at precision >= 0.93 | "
            "scispaCy stock: precision / acc@1 | kgverify at stock's precision |",
            "|---|---|---:|---|---:|",
        ]
        for q in ours:
            sp = stock.get(q["set"])
            at_stock = acc_at_precision(q["curve"], sp["precision"]) if sp else None
            lines.append(
                f"| {SET_LABELS[q['set']]} | {_fmt(q['all']['precision'])} / "
                f"{_fmt(q['all']['accuracy_at_1'])} | {_fmt(acc_at_precision(q['curve'], 0.93))} | "
                f"{(_fmt(sp['precision']) + ' / ' + _fmt(sp['accuracy_at_1'])) if sp else ''} | "
                f"{_fmt(at_stock)} |"
            )
        lines.append("")
    lines += [
        "Indexes:",
        "",
        "| KB | settings | concepts | aliases | indexed | build s | of which store s "
        "| on disk MB | build peak RSS MB |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for b in report["indexes"]:
        if "error" in b:
            lines.append(f"| {b['kb']} | {b['preset']} | {b['error']} ||||||")
            continue
        s = b["settings"]
        setting = (
            f"{b['preset']}: min_df {s['min_df']}, M {s['m']}, "
            f"efC {s['ef_construction']}, efS {s['ef_search']}"
        )
        lines.append(
            f"| {b['kb']} | {setting} | {_fmt(b['concepts'])} | {_fmt(b['aliases'])} | "
            f"{_fmt(b['indexed_aliases'])} | {_fmt(b['build_s'], 1)} | "
            f"{_fmt(b['store_s'], 1)} | {_fmt(b['disk_mb'], 1)} | {_fmt(b['peak_rss_mb'], 0)} |"
        )
    lines.append("")
    loads = [q for q in report["quality"] if "error" not in q]
    if loads:
        lines += [
            "Quality runs (each its own process):",
            "",
            "| set | linker | index load s | link s | peak RSS MB |",
            "|---|---|---:|---:|---:|",
        ]
        for q in loads:
            lines.append(
                f"| {SET_LABELS[q['set']]} | {q['linker_label']} | {_fmt(q['load_s'], 2)} | "
                f"{_fmt(q['link_s'], 2)} | {_fmt(q['peak_rss_mb'], 0)} |"
            )
        lines.append("")
    scale = report.get("scale")
    if scale:
        b, t = scale["build"], scale.get("throughput") or {}
        lines += [
            "Scale (kgverify default settings):",
            "",
            "| aliases | indexed | build s | on disk MB | build peak RSS MB | load s | "
            "mentions | mentions/s | TF-IDF kNN only, mentions/s | link peak RSS MB |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        if "error" in b:
            peak = b.get("peak_rss_mb_when_stopped")
            lines.append(
                f"| {scale['target']:,} (target) | build {b['error']} | "
                f"{_fmt(b.get('elapsed_s'), 1)} | | {_fmt(peak, 0)} (when stopped) ||||||"
            )
        else:
            lines.append(
                f"| {_fmt(b['aliases'])} | {_fmt(b['indexed_aliases'])} | "
                f"{_fmt(b['build_s'], 1)} | {_fmt(b['disk_mb'], 1)} | "
                f"{_fmt(b['peak_rss_mb'], 0)} | "
                f"{_fmt(t.get('load_s'), 2)} | {_fmt(t.get('mentions'))} | "
                f"{_fmt(t.get('mentions_per_s'))} | {_fmt(t.get('tfidf_knn_per_s'))} | "
                f"{_fmt(t.get('peak_rss_mb'), 0)} |"
            )
        lines.append("")
    return "\n".join(lines)


def calibration_markdown(report: dict[str, Any]) -> str:
    """Per set: the calibration error of the first candidate's score (all mentions with a
    candidate; those whose first candidate is a TF-IDF or edit neighbour), the coverage any
    score threshold reaches at precision >= 0.95, for the defaults, with calibration off and
    with the re-ranker switched from its default, all from the same run."""
    default = {
        q["set"]: q
        for q in report["quality"]
        if (q.get("linker"), q.get("preset")) == ("kgverify", "kgverify") and "error" not in q
    }
    off = {
        a["set"]: a
        for a in report.get("ablation", [])
        if a.get("stage") == "calibration" and "error" not in a
    }
    flipped = {r["set"]: r for r in report.get("rerank", []) if "error" not in r}
    state = "on" if report["meta"]["link_params"]["rerank"] else "off"
    other = "off" if state == "on" else "on"
    lines = [
        f"Calibration (re-ranker {state} by default; ECE over 10 bins of the first "
        "candidate's score; coverage at precision >= 0.95 by a score threshold alone):",
        "",
        "| set | run | ECE, all | ECE, TF-IDF / edit first | coverage at precision >= 0.95 "
        "| acc@1 | precision | coverage |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, q in default.items():
        runs = [("defaults", q), ("calibration off", off.get(name))]
        runs.append((f"re-ranker {other}", flipped.get(name)))
        for label, r in runs:
            if r is None:
                continue
            c = r.get("calibration") or {}
            lines.append(
                f"| {SET_LABELS[name]} | {label} | {_fmt(c.get('ece'))} | "
                f"{_fmt(c.get('ece_tfidf'))} | {_fmt(r.get('coverage_at_095'))} | "
                f"{_fmt(r['all']['accuracy_at_1'])} | {_fmt(r['all']['precision'])} | "
                f"{_fmt(r['all']['coverage'])} |"
            )
    lines.append("")
    return "\n".join(lines)


def alternatives_markdown(report: dict[str, Any]) -> str:
    """recall@5 and speed of the linker's list with ``link_alternatives`` (the neighbours of
    name matches listed) switched from its default, beside the default, in the same run."""
    default = {
        q["set"]: q
        for q in report["quality"]
        if (q.get("linker"), q.get("preset")) == ("kgverify", "kgverify") and "error" not in q
    }
    on = report["meta"]["link_params"]["alternatives"]
    state = "on" if on else "off"
    flipped = "off" if on else "on"
    lines = [
        f"Alternatives {flipped} (`link_alternatives`; its default is {state}; decisions "
        "unchanged):",
        "",
        f"| set | recall@5 default ({state}) / {flipped} | non-exact recall@5 | "
        f"mentions/s default / {flipped} |",
        "|---|---|---|---|",
    ]
    for a in report["alternatives"]:
        if "error" in a or a["set"] not in default:
            continue
        d = default[a["set"]]
        lines.append(
            f"| {SET_LABELS[a['set']]} | {_fmt(d['all']['recall_at_5'])} / "
            f"{_fmt(a['all']['recall_at_5'])} | {_fmt(d['non_exact']['recall_at_5'])} / "
            f"{_fmt(a['non_exact']['recall_at_5'])} | {d['mentions_per_s']:,} / "
            f"{a['mentions_per_s']:,} |"
        )
    return "\n".join(lines)


def ablation_markdown(report: dict[str, Any]) -> str:
    """What each stage adds: the full pipeline against the same run with one stage off."""
    full = {q["set"]: q for q in report["quality"] if q.get("preset") == "kgverify"}
    full = {k: v for k, v in full.items() if v.get("linker") == "kgverify" and "error" not in v}
    lines = [
        "Ablation (kgverify, default index; each figure: stage on / off, off = the same run "
        "with only that stage switched off):",
        "",
        "| set | stage | acc@1 | recall@5 | precision | coverage | non-exact acc@1 "
        "| non-exact recall@5 | mentions/s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for a in report.get("ablation", []):
        on = full.get(a["set"])
        if on is None or "error" in a:
            lines.append(f"| {SET_LABELS[a['set']]} | {a['stage']} | {a.get('error', '')} ||||||")
            continue

        def pair(subset: str, metric: str, on: dict[str, Any] = on, a: dict[str, Any] = a) -> str:
            return f"{_fmt(on[subset][metric])} / {_fmt(a[subset][metric])}"

        lines.append(
            f"| {SET_LABELS[a['set']]} | {a['stage']} | {pair('all', 'accuracy_at_1')} | "
            f"{pair('all', 'recall_at_5')} | {pair('all', 'precision')} | "
            f"{pair('all', 'coverage')} | {pair('non_exact', 'accuracy_at_1')} | "
            f"{pair('non_exact', 'recall_at_5')} | "
            f"{_fmt(on['mentions_per_s'])} / {_fmt(a['mentions_per_s'])} |"
        )
    lines.append("")
    return "\n".join(lines)


def _print_errors(q: dict[str, Any]) -> None:
    print(f"\n{len(q['errors'])} wrong: {SET_LABELS[q['set']]}, {q['linker_label']}")
    for e in q["errors"]:
        tag = "exact" if e["exact"] else "non-exact"
        print(
            f"  {e['mention']!r} [{tag}] gold={e['gold']} -> {e['status']} "
            f"{e['predicted']!r} score={e['score']} method={e['method']}"
        )


def _variant_spec(name: str, work: Path, args: argparse.Namespace, **change: Any) -> dict[str, Any]:
    """A quality run of kgverify's linker on its default index with one thing changed."""
    kb = SETS[name]
    return {
        "set": name,
        "kb": kb,
        "linker": "kgverify",
        "preset": "kgverify",
        "mentions": str(work / f"mentions-{name}.json"),
        "index": str(work / f"{kb}-kgverify"),
        "batch": args.batch,
        "seed": args.seed,
        "errors": 0,
    } | change


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default="doid-mondo,mondo-hpo,mesh-chebi")
    parser.add_argument(
        "--stock-sets", default="doid-mondo,mondo-hpo", help="sets also run with the stock index"
    )
    parser.add_argument("--limit", type=int, default=0, help="mentions per set (0 = all)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--batch", type=int, default=2_000)
    parser.add_argument("--errors", type=int, default=15, help="wrong examples kept per run")
    parser.add_argument(
        "--scale-aliases", type=int, default=1_000_000, help="0 skips the scale run"
    )
    parser.add_argument("--scale-timeout", type=float, default=900.0, help="seconds")
    parser.add_argument("--throughput", type=int, default=10_000)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--ablate",
        default="all",
        help="stages to switch off one at a time (comma-separated names of "
        "kgverify.link.linker.SWITCHABLE; 'all' = every one, '' = no ablation)",
    )
    parser.add_argument(
        "--alternatives",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also measure the list with link_alternatives switched from its default",
    )
    parser.add_argument(
        "--rerank",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also measure the linker with link_rerank switched from its default",
    )
    parser.add_argument(
        "--reuse-indexes",
        action="store_true",
        help="keep an index folder already built with the current format (development runs)",
    )
    args = parser.parse_args()

    sets = [s for s in args.sets.split(",") if s]
    stock_sets = [s for s in args.stock_sets.split(",") if s in sets]
    for name in sets:
        if name not in SETS:
            parser.error(f"unknown set {name}; known: {', '.join(SETS)}")
    work = _cache_dir() / "bench-link"
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    from kgverify.config import Settings
    from kgverify.link.index import INDEX_FORMAT
    from kgverify.link.linker import SWITCHABLE, LinkParams

    ablate = list(SWITCHABLE) if args.ablate == "all" else [s for s in args.ablate.split(",") if s]
    for stage in ablate:
        if stage not in SWITCHABLE:
            parser.error(f"unknown stage {stage}; switchable: {', '.join(SWITCHABLE)}")
    params = LinkParams.from_settings(Settings())
    meta: dict[str, Any] = {
        "machine": platform.machine(),
        "cpu_count": len(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d"),
        "commit": _git("rev-parse", "--short", "HEAD"),
        "tracked_changes": bool(_git("status", "--porcelain", "--untracked-files=no")),
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
        "command": "python -m benchmarks.bench_link " + " ".join(sys.argv[1:]),
        "limit": args.limit or None,
        "seed": args.seed,
        "batch": args.batch,
        "link_params": params.model_dump(mode="json"),
        "kgverify_index": _index_settings("kgverify").model_dump(),
        "stock_index": _index_settings("stock").model_dump(),
        "scispacy": {"threshold": SCISPACY_THRESHOLD, "k": SCISPACY_K, "definition_filter": False},
        "recall_at_5": "first 5 distinct candidate concept ids",
    }
    print(json.dumps(meta), flush=True)

    kbs = sorted({SETS[s] for s in sets})
    prepared = _run_child(
        "prepare",
        {
            "work": str(work),
            "kbs": kbs,
            "sets": sets,
            "seed": args.seed,
            "limit": args.limit,
            "throughput": args.throughput if args.scale_aliases else 0,
            "corpus": args.scale_aliases,
        },
    )
    if "error" in prepared:
        sys.exit(f"preparing the inputs failed: {prepared['error']}")
    meta["data"] = prepared
    print(json.dumps(prepared), flush=True)

    report: dict[str, Any] = {"meta": meta, "indexes": [], "quality": []}
    builds: dict[tuple[str, str], dict[str, Any]] = {}
    for kb in kbs:
        presets = ["kgverify"]
        if any(SETS[s] == kb for s in stock_sets):
            presets.append("stock")
        for preset in presets:
            spec = {
                "kb": kb,
                "preset": preset,
                "kb_file": str(work / f"kb-{kb}.jsonl"),
                "index": str(work / f"{kb}-{preset}"),
            }
            meta_file = work / f"{kb}-{preset}" / "meta.json"
            if args.reuse_indexes and meta_file.is_file():
                info = json.loads(meta_file.read_text())
                if info["format"] == INDEX_FORMAT:
                    result = {"kb": kb, "preset": preset, "reused": True} | info
                    print(json.dumps(result), flush=True)
                    builds[(kb, preset)] = result
                    continue
            result = {"kb": kb, "preset": preset} | _run_child("build", spec)
            print(json.dumps(result), flush=True)
            builds[(kb, preset)] = result
            report["indexes"].append(result)

    for name in sets:
        kb = SETS[name]
        runs = [("kgverify", "kgverify")]
        if name in stock_sets:
            runs += [("scispacy", "stock"), ("kgverify", "stock")]
        for linker, preset in runs:
            head = {
                "set": name,
                "kb": kb,
                "linker": linker,
                "preset": preset,
                "label": SET_LABELS[name],
                "linker_label": LINKER_LABELS[(linker, preset)],
            }
            if "error" in builds[(kb, preset)]:
                report["quality"].append(head | {"error": "index build failed"})
                continue
            spec = head | {
                "mentions": str(work / f"mentions-{name}.json"),
                "index": str(work / f"{kb}-{preset}"),
                "batch": args.batch,
                "seed": args.seed,
                "errors": args.errors,
            }
            result = head | _run_child("quality", spec)
            shown = {k: v for k, v in result.items() if k != "errors"}
            print(json.dumps(shown), flush=True)
            report["quality"].append(result)

    report["ablation"] = []
    for name in sets:
        kb = SETS[name]
        for stage in ablate:
            head = {"set": name, "kb": kb, "stage": stage}
            if "error" in builds[(kb, "kgverify")]:
                report["ablation"].append(head | {"error": "index build failed"})
                continue
            off = _variant_spec(name, work, args, disabled=[stage])
            result = head | _run_child("quality", off)
            result.pop("errors", None)
            print(json.dumps(result), flush=True)
            report["ablation"].append(result)

    # The same decisions with the neighbours of name matches listed or not (the default's
    # opposite): what they add to recall@5 and what they cost.
    # The same run with the re-ranker switched from its default (calibrated either way).
    report["rerank"] = []
    for name in sets if args.rerank else ():
        if "error" in builds[(SETS[name], "kgverify")]:
            continue
        result = {"set": name} | _run_child(
            "quality", _variant_spec(name, work, args, rerank=not params.rerank)
        )
        result.pop("errors", None)
        print(json.dumps({k: v for k, v in result.items() if k != "curve"}), flush=True)
        report["rerank"].append(result)

    report["alternatives"] = []
    for name in sets if args.alternatives else ():
        kb = SETS[name]
        if "error" in builds[(kb, "kgverify")]:
            continue
        result = {"set": name} | _run_child(
            "quality", _variant_spec(name, work, args, alternatives=not params.alternatives)
        )
        result.pop("errors", None)
        print(json.dumps(result), flush=True)
        report["alternatives"].append(result)

    if args.scale_aliases:
        kb = f"corpus-{args.scale_aliases}"
        directory = work / f"{kb}-kgverify"
        build = {"kb": kb, "preset": "kgverify"} | _run_child(
            "build",
            {
                "kb": kb,
                "preset": "kgverify",
                "kb_file": str(work / f"kb-{kb}.jsonl"),
                "index": str(directory),
            },
            timeout=args.scale_timeout,
        )
        print(json.dumps(build), flush=True)
        for stale in work.glob(".building-*"):  # left by a stopped build
            shutil.rmtree(stale, ignore_errors=True)
        scale: dict[str, Any] = {"target": args.scale_aliases, "build": build}
        if "error" not in build:
            scale["throughput"] = _run_child(
                "throughput",
                {
                    "index": str(directory),
                    "mentions": str(work / "mentions-throughput.json"),
                    "batch": args.batch,
                },
            )
            print(json.dumps(scale["throughput"]), flush=True)
        report["scale"] = scale

    meta["total_s"] = round(time.perf_counter() - started, 1)
    meta["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    for q in report["quality"]:
        if q.get("errors"):
            _print_errors(q)
    print()
    print(markdown(report))
    if report["ablation"]:
        print(ablation_markdown(report))
    if report["alternatives"]:
        print(alternatives_markdown(report))
    print(calibration_markdown(report))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "_child":
        _child(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
    else:
        main()
