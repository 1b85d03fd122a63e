"""Re-verification after a newer vocabulary release: a living benchmark.

A release changes a few concepts and relationships. Only the assertions whose rules could
read something that changed are judged again (``reverify/touched.cypher`` says which), by
the same rules and the same decision as the first verification; the new verdicts are
recorded beside the old ones as ``(:Recheck)`` nodes, one per assertion and set of
releases, so a rerun after a killed run replaces them rather than adding more. Then every
current item is checked: it no longer stands when an assertion it rests on no longer
passes, when its answer or a distractor concept was retired, or when a rule now supports
one of its distractors (the item would have two right answers). Flags say which. Nothing is deleted.

    from kgverify.api import reverify
    report = reverify()          # against every release loaded since the last judgement
    report.items_flagged, report.flags
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel, Field

from kgverify.derive.justify import Justifier, Request
from kgverify.derive.model import ContextFact, DistractorCheck, Task
from kgverify.errors import ConfigError
from kgverify.graph.driver import Graph, batched
from kgverify.verify.verifier import Triple, Verifier, edge_keys, judge_evidence

log = logging.getLogger(__name__)
_PAGE = 2_000
# Why an item no longer stands (keys of ReverifyReport.flags).
FLAG_BASIS = "an assertion it rests on no longer passes"
FLAG_RETIRED = "its answer or a distractor concept was retired"
FLAG_DISTRACTOR = "a rule now supports a distractor"
FLAG_JUSTIFICATION = "a distractor's justification no longer holds"
FLAG_REVIEW = "a reviewer's decision"
# Flags that review import writes start with this; re-verification keeps them.
REVIEW_FLAG_PREFIX = "review:"


class ReverifyReport(BaseModel):
    """What a re-verification run did (also stored on its ``(:Reverification)`` node)."""

    run: str
    releases: list[str] = Field(description="releases whose changes were re-checked")
    concepts_changed: int = Field(0, description="concepts the releases added, retired or revived")
    edges_changed: int = Field(0, description="relationships they added, retired or revived")
    assertions: int = Field(0, description="assertions in the graph")
    judged_by_links: int = Field(0, description="decided by link status: no rule to re-run")
    rechecked: int = Field(0, description="assertions whose rules could read a change")
    verdicts_changed: int = 0
    no_longer_passing: int = 0
    now_passing: int = 0
    items: int = Field(0, description="current items checked")
    distractor_checks: int = Field(0, description="(item, distractor) checks re-run")
    justification_checks: int = Field(
        0, description="items whose distractor justifications were re-judged"
    )
    items_flagged: int = Field(0, description="items that no longer stand")
    items_restored: int = Field(0, description="items flagged before that stand again")
    flags: dict[str, int] = Field(
        default_factory=dict, description="items not standing after the run, per kind of flag"
    )
    seconds: float = 0.0


def recheck_key(releases: list[str]) -> str:
    """What a ``(:Recheck)`` is keyed by beside its assertion: the set of releases re-checked,
    so a rerun over the same releases (after a killed run) replaces its rechecks."""
    return ",".join(sorted(set(releases)))


def pending_releases(graph: Graph) -> list[str]:
    """Current releases not re-verified yet that some assertion was judged before."""
    return [r["id"] for r in graph.read("reverify/pending_releases")]


class Reverifier:
    """Re-checks what a set of releases changed; see the module docstring."""

    def __init__(
        self,
        verifier: Verifier,
        *,
        progress: Callable[[int], None] | None = None,
    ):
        self.verifier = verifier
        self.graph = verifier.graph
        self.settings = verifier.settings
        self.progress = progress
        # Derivation's justification rules, re-judging the distractors of stored items.
        self.justifier = Justifier(
            self.graph,
            verifier.hubs,
            self.settings.derive_near_depth,
            self.settings.derive_drug_near_depth,
        )

    def run(self, releases: list[str] | None = None) -> ReverifyReport:
        started = time.perf_counter()
        known = {r["id"] for r in self.graph.read("summary/releases")}
        chosen = sorted(set(releases)) if releases else pending_releases(self.graph)
        unknown = [r for r in chosen if r not in known]
        if unknown:
            raise ConfigError(
                f"no such release in the graph: {', '.join(unknown)}; "
                f"loaded: {', '.join(sorted(known)) or 'none'}"
            )
        current = [r["id"] for r in self.graph.read("verify/current_releases")]
        report = ReverifyReport(run=uuid.uuid4().hex[:16], releases=chosen)
        changed = self._mark_changes(chosen, report)
        log.info(
            "reverify %s against %s: %d concepts, %d relationships changed",
            report.run,
            ", ".join(chosen) or "no release",
            report.concepts_changed,
            report.edges_changed,
        )
        self.graph.write("reverify/begin_run", run=report.run, releases=chosen, current=current)
        self._recheck_assertions(changed, report)
        log.info(
            "re-checked %d of %d assertions: %d verdicts changed, %d no longer pass",
            report.rechecked,
            report.assertions,
            report.verdicts_changed,
            report.no_longer_passing,
        )
        flags = self._check_items(changed, report)
        log.info(
            "items: %d checked, %d flagged, %d restored",
            report.items,
            report.items_flagged,
            report.items_restored,
        )
        report.flags = dict(sorted(flags.items()))
        report.seconds = round(time.perf_counter() - started, 3)
        self.graph.write(
            "reverify/finish_run",
            run=report.run,
            releases=chosen,
            report=report.model_dump_json(),
            flagged=report.items_flagged,
        )
        return report

    # -- what changed ---------------------------------------------------------------------

    def _mark_changes(self, releases: list[str], report: ReverifyReport) -> bool:
        """Mark what the releases changed in the graph (the set can be large: it stays
        there); True when anything changed."""
        if not releases:
            return False
        params = {"releases": releases, "run": report.run}
        [concepts] = self.graph.write_autocommit("reverify/mark_changed_concepts", **params)
        [edges] = self.graph.write_autocommit("reverify/mark_changed_edges", **params)
        report.concepts_changed, report.edges_changed = int(concepts["n"]), int(edges["n"])
        if not (report.concepts_changed or report.edges_changed):
            return False
        # What the rules' walks from a subject or an object could reach of the change.
        self.graph.write_autocommit("reverify/mark_reach_subject", run=report.run)
        self.graph.write_autocommit(
            "reverify/mark_reach_object",
            run=report.run,
            hubs=self.verifier.hubs,
            max_depth=self.settings.verify_max_depth,
        )
        self.graph.write_autocommit("reverify/mark_evidence", run=report.run)
        return True

    def _touched(self, rows: list[dict[str, Any]], run: str) -> set[int]:
        found = self.graph.read("reverify/touched", rows=rows, run=run)
        return {int(r["rid"]) for r in found}

    # -- assertions -----------------------------------------------------------------------

    def _pages(self, name: str, **params: Any) -> Iterator[list[dict[str, Any]]]:
        after = ""
        while page := self.graph.read(name, after=after, limit=_PAGE, **params):
            yield page
            after = page[-1]["id"]

    def _recheck_assertions(self, changed: bool, report: ReverifyReport) -> None:
        [counts] = self.graph.read("reverify/assertion_counts")
        report.assertions = int(counts["assertions"])
        report.judged_by_links = int(counts["judged_by_links"])
        if not changed:
            return
        key = recheck_key(report.releases)
        for page in self._pages("reverify/touched_page", run=report.run, key=key):
            ruled = [
                a
                for a in page
                if a["judged"] != "links" and a["subject"] is not None and a["object"] is not None
            ]
            if ruled:
                self._recheck(ruled, report)
            if self.progress is not None:
                self.progress(report.rechecked)

    def _recheck(self, assertions: list[dict[str, Any]], report: ReverifyReport) -> None:
        triples: list[Triple] = [(a["subject"], a["object"], a["predicate"]) for a in assertions]
        evidence = self.verifier.evidence_for(triples)
        rows = []
        for a, triple in zip(assertions, triples, strict=True):
            paths = evidence[triple]
            kind, reason, deciding = judge_evidence(paths)
            score = deciding.score if deciding is not None else 0.0
            passed = self.verifier.policy.passes(kind, score, float(a["confidence"] or 0.0))
            edges = edge_keys(paths)
            changed = kind.value != a["verdict"] or passed != a["passed"]
            changed = changed or edges != sorted(a["evidence_edges"])
            report.rechecked += 1
            report.verdicts_changed += kind.value != a["verdict"]
            report.no_longer_passing += bool(a["passed"]) and not passed
            report.now_passing += passed and not a["passed"]
            rows.append(
                {
                    "id": a["id"],
                    "verdict": kind.value,
                    "score": score,
                    "passed": passed,
                    "rule": deciding.rule if deciding is not None else None,
                    "rule_version": deciding.rule_version if deciding is not None else None,
                    "reason": reason,
                    "evidence": [p.model_dump_json() for p in paths],
                    "evidence_edges": edges,
                    "changed": changed,
                }
            )
        for part in batched(rows, 1_000):
            self.graph.write(
                "reverify/write_rechecks",
                rows=part,
                run=report.run,
                key=recheck_key(report.releases),
            )

    # -- items ----------------------------------------------------------------------------

    def _check_items(self, changed: bool, report: ReverifyReport) -> Counter[str]:
        flags: Counter[str] = Counter()
        for page in self._pages("reverify/items_page"):
            report.items += len(page)
            supported = self._supported_distractors(page, changed, report)
            unjustified = self._unjustified(page, changed, report)
            rows = []
            for item in page:
                found = [
                    (FLAG_BASIS, f"rests on assertion {b['id']}, now {b['verdict']}")
                    for b in item["basis"]
                    if not b["passed"]
                ]
                found += [
                    (FLAG_RETIRED, f"concept {c['id']} retired in {c['release']}")
                    for c in sorted(item["retired"], key=lambda c: str(c["id"]))
                ]
                found += [
                    (FLAG_DISTRACTOR, f"distractor {d} now supported ({rule})")
                    for d, rule in sorted(supported.get(item["id"], {}).items())
                ]
                found += [
                    (FLAG_JUSTIFICATION, f"distractor {d} no longer justified: {why}")
                    for d, why in sorted(unjustified.get(item["id"], {}).items())
                ]
                found += [
                    (FLAG_REVIEW, flag)
                    for flag in item["flags"]
                    if str(flag).startswith(REVIEW_FLAG_PREFIX)
                ]
                flags.update({kind for kind, _ in found})
                reasons = [text for _, text in found]
                standing = not reasons
                if standing == item["standing"] and reasons == list(item["flags"]):
                    continue
                if not standing and item["standing"]:
                    report.items_flagged += 1
                if standing and not item["standing"]:
                    report.items_restored += 1
                rows.append({"id": item["id"], "standing": standing, "flags": reasons})
            if rows:
                self.graph.write("reverify/flag_items", rows=rows, run=report.run)
        return flags

    def _unjustified(
        self, items: list[dict[str, Any]], changed: bool, report: ReverifyReport
    ) -> dict[str, dict[str, str]]:
        """Per item, the distractors whose justification no longer holds: re-judged for the
        items whose topic or distractors a change touched, and for items flagged before."""
        pairs = [(item, d) for item in items for d in item["distractors"]]
        # The pair as the rules read it: the distractor in its task's slot (a drug is a
        # subject, a condition an object), the topic in the other.
        rows = [
            {"rid": n, "subject": d, "object": item["topic"]}
            if Task(item["task"]).rules.distractor_slot == "subject"
            else {"rid": n, "subject": item["topic"], "object": d}
            for n, (item, d) in enumerate(pairs)
            if item["topic"]
        ]
        touched = self._touched(rows, report.run) if changed and rows else set()
        ids = {pairs[n][0]["id"] for n in touched}
        # Items derived before justifications existed have no topic: nothing to re-judge.
        todo = [i for i in items if i["topic"] and (i["id"] in ids or not i["standing"])]
        report.justification_checks += len(todo)
        return recheck_items(self.justifier, todo) if todo else {}

    def _supported_distractors(
        self, items: list[dict[str, Any]], changed: bool, report: ReverifyReport
    ) -> dict[str, dict[str, str]]:
        """Per item, the distractors a rule now supports, with the rule. Only the checks a
        change touched are re-run, and every check of an item flagged before (so a flag
        lifts when the evidence goes again)."""
        checks: list[tuple[str, str, Triple]] = []  # (item, distractor, filled triple)
        for item in items:
            # A patient-specific lure treats the condition (a rule may well support it): the
            # patient's record rules it out, and derivation admitted it with that support.
            for_patient = {
                w.get("concept_id")
                for w in json.loads(item.get("why_wrong") or "[]")
                if w.get("lure") == "patient_specific"
            }
            for spec in json.loads(item["checks"]):
                check = DistractorCheck.model_validate(spec)
                checks.extend(
                    (item["id"], d, check.triple(d))
                    for d in item["distractors"]
                    if d not in for_patient
                )
        if not checks:
            return {}
        flagged = {item["id"] for item in items if not item["standing"]}
        rows = [{"rid": n, "subject": t[0], "object": t[1]} for n, (_, _, t) in enumerate(checks)]
        touched = self._touched(rows, report.run) if changed else set()
        todo = [c for n, c in enumerate(checks) if n in touched or c[0] in flagged]
        report.distractor_checks += len(todo)
        out: dict[str, dict[str, str]] = {}
        if not todo:
            return out
        evidence = self.verifier.evidence_for(t for _, _, t in todo)
        for item_id, d, triple in todo:
            support = [p for p in evidence[triple] if p.stance == "support"]
            if support:
                out.setdefault(item_id, {}).setdefault(d, support[0].rule)
        return out


def recheck_items(justifier: Justifier, items: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Re-judge the distractors of stored items (rows of ``reverify/items_page``: task,
    topic, answer, checks JSON, distractors, shown conditions): item id -> distractor -> why
    it is no longer justified. The clues are the fixed places of the item's distractor
    checks; the conditions the question shows are its FROM_FACT conditions (what a
    patient-specific lure rests on); the patient's other conditions are not re-read."""
    requests = []
    for item in items:
        checks = [DistractorCheck.model_validate(c) for c in json.loads(item["checks"])]
        clues = [(c.fixed, c.predicate) for c in checks if c.slot == "object"]
        requests.append(
            Request(
                task=Task(item["task"]),
                topic=item["topic"],
                answer=item["answer"],
                clues=clues,
                conditions=[],
                candidates=list(item["distractors"]),
                shown=[ContextFact(role="condition", **fact) for fact in item.get("shown") or []],
            )
        )
    out: dict[str, dict[str, str]] = {}
    for item, outcomes in zip(items, justifier.judge(requests), strict=True):
        for d, outcome in outcomes.items():
            if not outcome.admissible:
                out.setdefault(item["id"], {})[d] = outcome.refused or "no justification"
    return out
