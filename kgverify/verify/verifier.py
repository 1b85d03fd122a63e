"""The verifier: links what is not linked yet, runs every rule over a whole batch in read
transactions (one round trip per rule, ``UNWIND`` over the batch), decides each verdict,
enriches the ones that pass, and writes all of them back as provenance.

    from kgverify.api import open_verifier
    with open_verifier() as verifier:
        for verdict in verifier.iter_verify(relations):
            ...
"""

from __future__ import annotations

import sys
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

from kgverify.config import Settings
from kgverify.extract.relation import CandidateRelation
from kgverify.graph.driver import Graph, batched
from kgverify.graph.queries import get_query
from kgverify.link.linker import Linker
from kgverify.link.model import LinkedRelation, LinkStatus, MentionLink
from kgverify.link.normalize import exact_key
from kgverify.link.relations import Contexts, LinkReport, link_relations
from kgverify.verify.model import (
    Edge,
    Enrichment,
    EvidencePath,
    Verdict,
    VerdictKind,
    assertion_id_of,
)
from kgverify.verify.rules import RULES, SNOMED_ROOT, SUPPORT, Rule

Relation = CandidateRelation | LinkedRelation
Triple = tuple[str, str, str]  # (subject concept id, object concept id, predicate)


class FilterPolicy(BaseModel):
    """Which verdicts pass into derivation (defaults in ``Settings``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    accept: frozenset[VerdictKind]
    min_score: float
    min_confidence: float

    @classmethod
    def from_settings(cls, settings: Settings) -> FilterPolicy:
        return cls(
            accept=frozenset(VerdictKind(v) for v in settings.verify_accept),
            min_score=settings.verify_min_score,
            min_confidence=settings.verify_min_confidence,
        )

    def passes(self, verdict: VerdictKind, score: float, confidence: float) -> bool:
        return (
            verdict in self.accept and score >= self.min_score and confidence >= self.min_confidence
        )


class Verifier:
    """Judges candidate relations against the vocabulary graph."""

    def __init__(
        self,
        graph: Graph,
        settings: Settings,
        *,
        linker: Linker | None = None,
        policy: FilterPolicy | None = None,
        write: bool = True,
        enrich: bool = True,
        contexts: Contexts | None = None,
        on_refused: Callable[[Verdict, str], None] | None = None,
    ) -> None:
        self.graph = graph
        self.settings = settings
        self._linker = linker
        self.policy = policy or FilterPolicy.from_settings(settings)
        self.write = write
        self.enrich = enrich
        self.contexts = contexts
        self.link_report = LinkReport()
        self.unknown_patients = 0
        self.unknown_encounters = 0
        self.written = 0
        # Verdicts whose assertion the database refused: counted, and handed to on_refused.
        self.on_refused = on_refused
        self.not_written = 0
        self.not_written_reasons: Counter[str] = Counter()
        # A map, so the rules test hub membership in O(1): $hubs[id] IS NULL.
        self.hubs: dict[str, bool] = {
            row["id"]: True
            for row in graph.read(
                "verify/hub_concepts",
                root=SNOMED_ROOT,
                depth=settings.verify_hub_depth,
                min_children=settings.verify_hub_children,
                extra=settings.verify_hub_ids,
            )
        }
        self.rule_versions = {rule.name: rule.version for rule in RULES}
        self._releases: list[str] | None = None
        # The rules read only vocabulary edges, which a run does not change, and the same
        # triples come back batch after batch (the same drugs and conditions in many
        # patients): their evidence is kept, least recently used out first.
        self._evidence: OrderedDict[Triple, list[EvidencePath]] = OrderedDict()
        # Each triple's enrichment, kept the same way (``_enrichment_of``).
        self._enrichments: OrderedDict[Triple, Enrichment | None] = OrderedDict()
        self.evidence_read = 0  # distinct triples whose rules were run on the graph
        self.evidence_cached = 0  # triple lookups answered from the kept evidence
        # iter_verify's write-back thread: close() waits for it, since a consumer that fails
        # mid-stream leaves the generator unclosed while the driver is shut down under it.
        self._writer: ThreadPoolExecutor | None = None

    @property
    def linker(self) -> Linker:
        if self._linker is None:
            self._linker = Linker.open(self.settings, self.graph)
        return self._linker

    def close(self) -> None:
        """Wait for a write-back in flight (its outcome is not taken) and close the linker."""
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None
        if self._linker is not None:
            self._linker.index.close()

    def __enter__(self) -> Verifier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- public ---------------------------------------------------------------------------

    def verify(self, relations: Sequence[Relation]) -> list[Verdict]:
        """Verdicts for one batch, in input order (with ``write``, written back on return)."""
        verdicts = self._judged(relations)
        if self.write and verdicts:
            self._take(self._write_back(verdicts))
        return verdicts

    def iter_verify(
        self, relations: Iterable[Relation], batch_size: int = 2_000
    ) -> Iterator[Verdict]:
        """Verdicts for a stream, ``batch_size`` relations per round trip.

        With ``write``, a batch's write-back runs on a writer thread while the next batch is
        linked and judged (the database's writes beside this process's work; one write in
        flight). Its counts and refusals are taken on this thread, so when the stream ends
        every verdict is written and counted; a write's error is raised here."""
        if not self.write:
            for batch in batched(relations, batch_size):
                yield from self._judged(batch)
            return
        writer = ThreadPoolExecutor(1, thread_name_prefix="kgverify-write-back")
        self._writer = writer
        with writer:
            pending: Future[_WriteBack] | None = None
            for batch in batched(relations, batch_size):
                verdicts = self._judged(batch)
                if pending is not None:
                    self._take(pending.result())
                    pending = None
                if verdicts:
                    pending = writer.submit(self._write_back, verdicts)
                yield from verdicts
            if pending is not None:
                self._take(pending.result())

    def _judged(self, relations: Sequence[Relation]) -> list[Verdict]:
        linked = self._linked(relations)
        paths = self._paths(linked)
        verdicts = [self._decide(lr, paths.get(at, [])) for at, lr in enumerate(linked)]
        if self.enrich:
            verdicts = self._enriched(verdicts)
        return verdicts

    # -- steps ----------------------------------------------------------------------------

    def _linked(self, relations: Sequence[Relation]) -> list[LinkedRelation]:
        todo = [r for r in relations if isinstance(r, CandidateRelation)]
        # Drained to the end, not pulled one by one: the generator fills the link report
        # (by_status, by_method, seconds) only after its last relation.
        fresh = iter(
            list(link_relations(todo, self.linker, self.link_report, contexts=self.contexts))
            if todo
            else []
        )
        return [r if isinstance(r, LinkedRelation) else next(fresh) for r in relations]

    def evidence_for(self, triples: Iterable[Triple]) -> dict[Triple, list[EvidencePath]]:
        """Every rule's evidence paths for concept-level (subject id, object id, predicate)
        triples, best first; no linking, no verdict, nothing written. Derivation uses it to
        prove a distractor wrong with the same rules that validated the answer."""
        keys = list(dict.fromkeys(triples))
        return dict(zip(keys, self._evidence_of(keys), strict=True))

    def _paths(self, linked: Sequence[LinkedRelation]) -> dict[int, list[EvidencePath]]:
        # Many relations share (subject, object, predicate): each distinct triple is
        # checked once per batch and its paths are shared.
        triples: dict[Triple, list[int]] = {}
        for at, lr in enumerate(linked):
            if lr.subject.concept_id is not None and lr.object.concept_id is not None:
                key = (lr.subject.concept_id, lr.object.concept_id, lr.relation.predicate.value)
                triples.setdefault(key, []).append(at)
        keys = list(triples)
        evidence = self._evidence_of(keys)
        return {at: paths for key, paths in zip(keys, evidence, strict=True) for at in triples[key]}

    def _evidence_of(self, keys: list[Triple]) -> list[list[EvidencePath]]:
        """Ranked evidence of distinct ``keys``, from the kept evidence where it is there."""

        def read(missing: list[Triple]) -> dict[Triple, list[EvidencePath]]:
            found = self._rule_paths(missing)
            return {key: self.ranked(found.get(n, [])) for n, key in enumerate(missing)}

        got, read_count = _kept(self._evidence, keys, read, self.settings.verify_cache)
        self.evidence_cached += len(keys) - read_count
        self.evidence_read += read_count
        return [list(got[key]) for key in keys]  # the caller's own lists: what is kept stays

    def _rule_paths(self, keys: list[Triple]) -> dict[int, list[EvidencePath]]:
        rows: list[dict[str, Any]] = [
            {"rid": n, "subject": s, "object": o, "predicate": p}
            for n, (s, o, p) in enumerate(keys)
        ]
        # Each rule's rows go out in `verify_parallel` chunks, all reads at once: every
        # read is its own session and transaction, so the server works on all cores while
        # this process waits (the driver is thread-safe; sessions are not shared).
        tasks = []
        for rule in RULES:
            served = [row for row in rows if rule.serves(row["predicate"])]
            size = max(1, -(-len(served) // self.settings.verify_parallel))
            tasks += [(rule, served[i : i + size]) for i in range(0, len(served), size)]
        per_triple: dict[int, list[EvidencePath]] = {}
        with ThreadPoolExecutor(max_workers=self.settings.verify_parallel) as pool:
            futures = [
                (rule, pool.submit(self.graph.read, rule.query, **self._rule_params(rule, chunk)))
                for rule, chunk in tasks
            ]
            for rule, future in futures:
                for row in future.result():
                    per_triple.setdefault(row["rid"], []).extend(
                        self._path(rule, p) for p in row["paths"]
                    )
        return per_triple

    def _rule_params(self, rule: Rule, rows: list[dict[str, Any]]) -> dict[str, Any]:
        available = {
            "rows": rows,
            "specs": rule.specs(),
            "hubs": self.hubs,
            "max_depth": self.settings.verify_max_depth,
            "decay": self.settings.verify_decay,
            "max_paths": self.settings.verify_max_paths,
        }
        return {k: v for k, v in available.items() if k in get_query(rule.query).params}

    def _path(self, rule: Rule, raw: dict[str, Any]) -> EvidencePath:
        return EvidencePath(
            rule=rule.path_rule(raw["stance"]),
            rule_version=self.rule_versions[rule.name],
            stance=raw["stance"],
            score=round(min(1.0, float(raw["score"])), 4),
            nodes=_dedupe_consecutive(raw["nodes"]),
            edges=[Edge(**e) for e in raw["edges"]],
            depth=int(raw["depth"]),
        )

    def ranked(self, evidence: list[EvidencePath]) -> list[EvidencePath]:
        """Best first: score, then rule order (direct, ancestor, ingredient), then length."""
        order = {rule.name: rule.order for rule in RULES}
        # The same path can come back twice (once per parallel MAPS_TO edge): keep one.
        distinct = list({p.model_dump_json(): p for p in evidence}.values())
        return sorted(distinct, key=lambda p: (-p.score, order[p.rule.split(".")[0]], len(p.edges)))

    def _decide(self, lr: LinkedRelation, evidence: list[EvidencePath]) -> Verdict:
        evidence = self.ranked(evidence)
        kind, reason, deciding = self._judge(lr, evidence)
        score = deciding.score if deciding is not None else 0.0
        return Verdict(
            relation=lr.relation,
            subject=lr.subject,
            object=lr.object,
            verdict=kind,
            score=score,
            rule=deciding.rule if deciding is not None else None,
            rule_version=deciding.rule_version if deciding is not None else None,
            reason=reason,
            evidence=evidence,
            passed=self.policy.passes(kind, score, lr.relation.confidence),
            link_index=lr.index,
        )

    def _judge(
        self, lr: LinkedRelation, evidence: list[EvidencePath]
    ) -> tuple[VerdictKind, str, EvidencePath | None]:
        for side, link in (("subject", lr.subject), ("object", lr.object)):
            if link.status is LinkStatus.AMBIGUOUS:
                return VerdictKind.AMBIGUOUS, f"the {side} is ambiguous ({_top(link)})", None
        for side, link in (("subject", lr.subject), ("object", lr.object)):
            if link.status is LinkStatus.UNLINKED:
                if self._wrong_kind(link):
                    slot = f"{lr.relation.predicate.value} {side}"
                    return VerdictKind.TYPE_MISMATCH, f"the {side} names no {slot} concept", None
                return VerdictKind.UNLINKED, f"the {side} names no concept", None
        return judge_evidence(evidence)

    def _wrong_kind(self, link: MentionLink) -> bool:
        """Unlinked only because every good enough candidate is of the wrong kind."""
        good = [c for c in link.candidates if c.score >= self.settings.link_threshold]
        return bool(good) and not any(c.type_ok for c in good)

    def _enriched(self, verdicts: list[Verdict]) -> list[Verdict]:
        passed = [at for at, v in enumerate(verdicts) if v.passed]
        if not passed:
            return verdicts
        keys = {at: _triple(verdicts[at]) for at in passed}
        found = self._enrichment_of([key for key in keys.values() if key is not None])
        # A patient's own concepts are left out of its relations' distractors: read once
        # per batch for the patients whose relations have any.
        patients = sorted(
            {
                verdicts[at].relation.patient_id
                for at, key in keys.items()
                if key is not None and (e := found.get(key)) is not None and e.distractors
            }
        )
        codes: dict[str, frozenset[str]] = (
            {
                row["patient_id"]: frozenset(row["codes"])
                for row in self.graph.read_rows(
                    "verify/patient_codes", [{"patient_id": p} for p in patients]
                )
            }
            if patients
            else {}
        )
        limit = self.settings.verify_distractors
        out = list(verdicts)
        for at, key in keys.items():
            enrichment = found.get(key) if key is not None else None
            if enrichment is None:  # a concept not in the graph: no enrichment, as before
                continue
            own = codes.get(out[at].relation.patient_id, frozenset())
            picked = [d for d in enrichment.distractors if d not in own][:limit]
            out[at] = out[at].model_copy(
                update={"enrichment": enrichment.model_copy(update={"distractors": picked})}
            )
        return out

    def _enrichment_of(self, keys: list[Triple]) -> dict[Triple, Enrichment | None]:
        """Each distinct triple's enrichment with every distractor candidate (not yet cut
        for a patient), kept for the run like the rule evidence (``verify_cache`` triples,
        least recently used out first): the vocabulary does not change during a run, and
        the same drugs and conditions come back batch after batch. None for a triple whose
        subject or object is not in the graph."""

        def read(missing: list[Triple]) -> dict[Triple, Enrichment | None]:
            fresh: dict[Triple, Enrichment | None] = dict.fromkeys(missing)
            specs = {p.value: [e.as_param() for e in edges] for p, edges in SUPPORT.items()}
            rows = [
                {"rid": n, "subject": s, "object": o, "predicate": p}
                for n, (s, o, p) in enumerate(missing)
            ]
            for row in self.graph.read_rows("verify/enrich", rows, specs=specs, hubs=self.hubs):
                fresh[missing[row["rid"]]] = Enrichment(
                    subject_name=row["subject_name"] or "",
                    object_name=row["object_name"] or "",
                    codes={"subject": row["subject_codes"], "object": row["object_codes"]},
                    object_ancestors=row["ancestors"],
                    drug_classes=row["classes"],
                    lay_synonyms={
                        "subject": lay_synonyms(row["subject_names"], row["subject_name"]),
                        "object": lay_synonyms(row["object_names"], row["object_name"]),
                    },
                    # One string per concept id across the kept lists (they overlap).
                    distractors=[sys.intern(d) for d in row["distractors"]],
                )
            return fresh

        distinct = list(dict.fromkeys(keys))
        return _kept(self._enrichments, distinct, read, self.settings.verify_cache)[0]

    def _write_back(self, verdicts: list[Verdict]) -> _WriteBack:
        """Write ``verdicts`` as assertions; touches nothing of this object's but the
        releases it reads once, so it can run on a writer thread (``iter_verify``)."""
        now = datetime.now(UTC).isoformat()
        rows = [_assertion_row(v, now) for v in verdicts]
        of_row = {id(row): v for row, v in zip(rows, verdicts, strict=True)}
        if self._releases is None:
            self._releases = [r["id"] for r in self.graph.read("verify/current_releases")]
        done = _WriteBack()

        def refused(row: dict[str, Any], reason: str) -> None:
            # One refused row costs only itself (write_rows bisects the batch).
            done.refused.append((of_row[id(row)], reason))

        # Distinct ids: edges are created, not merged (no check per edge); a batch that
        # repeats an assertion merges them, so the repeat adds none.
        distinct = len({row["id"] for row in rows}) == len(rows)
        statement = "verify/write_assertions" if distinct else "verify/write_assertions_merge"
        for results in self.graph.write_rows(statement, rows, refused, releases=self._releases):
            for result in results:
                done.written += int(result["written"])
                done.unknown_patients += int(result["unknown_patients"])
                done.unknown_encounters += int(result["unknown_encounters"])
        return done

    def _take(self, done: _WriteBack) -> None:
        """A write-back's counts, and its refused verdicts handed to ``on_refused``."""
        self.written += done.written
        self.unknown_patients += done.unknown_patients
        self.unknown_encounters += done.unknown_encounters
        for verdict, reason in done.refused:
            self.not_written += 1
            self.not_written_reasons[refusal_kind(reason)] += 1
            if self.on_refused is not None:
                self.on_refused(verdict, reason)


class _WriteBack:
    """What one write-back did."""

    def __init__(self) -> None:
        self.written = self.unknown_patients = self.unknown_encounters = 0
        self.refused: list[tuple[Verdict, str]] = []


def refusal_kind(reason: str) -> str:
    """A database refusal's reason without the per-row detail (index, element id, size)."""
    return reason.split(",", 1)[0].split(". ", 1)[0]


def _assertion_row(v: Verdict, now: str) -> dict[str, Any]:
    r = v.relation
    return {
        "id": assertion_id_of(r),
        "relation_id": r.relation_id,
        "patient_id": r.patient_id,
        "encounter_id": r.encounter_id,
        "predicate": r.predicate.value,
        "verdict": v.verdict.value,
        "score": v.score,
        "passed": v.passed,
        "rule": v.rule,
        "rule_version": v.rule_version,
        "reason": v.reason,
        "subject_id": v.subject.concept_id,
        "object_id": v.object.concept_id,
        "subject_text": r.subject.text,
        "object_text": r.object.text,
        "items": sorted(set(r.evidence)),
        "evidence_nodes": sorted({n for p in v.evidence for n in p.nodes}),
        "evidence": [p.model_dump_json() for p in v.evidence],
        "distractors": v.enrichment.distractors if v.enrichment is not None else [],
        "extractor": f"{r.extractor.name}@{r.extractor.version}",
        "confidence": r.confidence,
        "index": v.link_index,
        "verified_at": now,
        "evidence_edges": edge_keys(v.evidence),
        "judged": "evidence" if _linked(v.subject) and _linked(v.object) else "links",
    }


K = TypeVar("K")
V = TypeVar("V")


def _kept(
    kept: OrderedDict[K, V], keys: list[K], read: Callable[[list[K]], dict[K, V]], limit: int
) -> tuple[dict[K, V], int]:
    """The values of distinct ``keys``: from ``kept`` where there (each moved to the most
    recently used end), the others from one ``read`` of them all, then kept, at most
    ``limit`` entries (least recently used out first; 0 keeps none). Returns the values
    and how many keys were read."""
    missing = [key for key in keys if key not in kept]
    fresh = read(missing) if missing else {}
    out: dict[K, V] = {}
    for key in keys:
        if key in fresh:
            out[key] = fresh[key]
        else:
            out[key] = kept[key]
            kept.move_to_end(key)
    if limit:
        kept.update(fresh)
    while len(kept) > limit:
        kept.popitem(last=False)
    return out, len(missing)


def _triple(verdict: Verdict) -> Triple | None:
    """A verdict's (subject id, object id, predicate), None when a side is not linked."""
    s, o = verdict.subject.concept_id, verdict.object.concept_id
    if s is None or o is None:
        return None
    return (s, o, verdict.relation.predicate.value)


def _linked(link: MentionLink) -> bool:
    return link.status is LinkStatus.LINKED and link.concept_id is not None


def judge_evidence(evidence: list[EvidencePath]) -> tuple[VerdictKind, str, EvidencePath | None]:
    """The verdict of two linked concepts from their ranked evidence paths (best first),
    with the deciding path and a reason. Verification and re-verification both decide
    through this."""
    support = [p for p in evidence if p.stance == "support"]
    against = [p for p in evidence if p.stance == "contradict"]
    if support and against:
        return (
            VerdictKind.AMBIGUOUS,
            f"evidence both ways: {_say(support[0])}; against: {_say(against[0])}",
            support[0],
        )
    if support:
        return VerdictKind.SUPPORTED, _say(support[0]), support[0]
    if against:
        return VerdictKind.CONTRADICTED, _say(against[0]), against[0]
    return VerdictKind.UNSUPPORTED, "no rule found evidence between the linked concepts", None


def edge_keys(evidence: Iterable[EvidencePath]) -> list[str]:
    """The distinct edges of evidence paths as "start|TYPE|end" keys, sorted."""
    return sorted({f"{e.start}|{e.type}|{e.end}" for p in evidence for e in p.edges})


def _dedupe_consecutive(nodes: list[str]) -> list[str]:
    out: list[str] = []
    for node in nodes:
        if not out or out[-1] != node:
            out.append(node)
    return out


def _say(path: EvidencePath) -> str:
    steps = ", ".join(f"{e.start} {e.type} {e.end}" for e in path.edges if e.type != "MAPS_TO")
    return f"{path.rule}: {steps}" + (f" (object {path.depth} is-a up)" if path.depth else "")


def _top(link: MentionLink) -> str:
    names = list(dict.fromkeys(c.name for c in link.candidates if c.type_ok))[:3]
    return " / ".join(names)


_LAY_MAX_WORDS = 4


def lay_synonyms(names_lists: list[list[str]], preferred: str | None) -> list[str]:
    """Names a patient might use: short, plain words, not the preferred name or a code-like
    string ("heart attack" for myocardial infarction)."""
    taken = {exact_key(preferred or "")}
    out: list[str] = []
    for name in sorted({n for names in names_lists for n in names}, key=lambda n: (len(n), n)):
        key = exact_key(name)
        plain = all(ch.isalpha() or ch in " -'" for ch in name)
        if key in taken or not plain or len(name.split()) > _LAY_MAX_WORDS or name.isupper():
            continue
        taken.add(key)
        out.append(name)
    return out[:5]
