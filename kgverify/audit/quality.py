"""How good each filter policy is, not only how much it keeps: computed from the rows of the
``relation_scores`` audit query (every judged relation with its standing verdict, score,
confidence and reviewers' label), so the notebooks and an auditor's script see the same
numbers. Nothing here reads the graph.

    from kgverify.api import audit
    from kgverify.audit.quality import policy_precision, policy_steps, rejected_but_true
    rows = audit("relation_scores")
    policy_precision(rows, policies, audit("reviewed_items"))  # per policy: precision, counts
    policy_steps(rows, policies)       # what each step from one policy to the next removes
    rejected_but_true(rows, policies)  # relations a policy keeps out that reviewers judged true

A relation's *label* is the reviewers' relation decision (a relation row's ``decision`` in
the review sheet, docs/review.md): ``True`` judged true, ``False`` judged false, ``None`` not
judged. A policy's *precision* is the share judged true among the relations it keeps that
have a label; it is ``None`` when it keeps no labelled relation, and always comes with the
count behind it. For items, the label is the reviewers' accept or reject, and a policy keeps
an item when it keeps every relation the item rests on.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from kgverify.verify.model import VerdictKind
from kgverify.verify.verifier import FilterPolicy

# The columns of an example relation in the tables below.
EXAMPLE_COLUMNS = (
    "assertion",
    "predicate",
    "subject",
    "object",
    "verdict",
    "score",
    "confidence",
    "extractor",
    "label",
)


def policy_label(policy: FilterPolicy, sep: str = "; ") -> str:
    """ "supported; score >= 0.5; confidence >= 0.0": the policy in words."""
    accept = "+".join(sorted(v.value for v in policy.accept))
    return sep.join(
        (accept, f"score >= {policy.min_score:g}", f"confidence >= {policy.min_confidence:g}")
    )


def passes(row: dict[str, Any], policy: FilterPolicy) -> bool:
    """Whether the policy lets the relation of one ``relation_scores`` row through."""
    return policy.passes(
        VerdictKind(row["verdict"]), float(row["score"] or 0.0), float(row["confidence"] or 0.0)
    )


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """The Wilson score interval (95% by default) of a proportion; None when n is 0."""
    if n <= 0:
        return None
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def keeps_item(item: dict[str, Any], policy: FilterPolicy) -> bool:
    """Whether the policy lets every relation an item rests on through (a row of the
    ``reviewed_items`` audit query)."""
    return bool(item["basis"]) and all(passes(r, policy) for r in item["basis"])


def policy_precision(
    rows: Sequence[dict[str, Any]],
    policies: Iterable[FilterPolicy],
    items: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """Per policy: ``kept`` relations, ``reviewed`` (kept and labelled), ``true`` and
    ``false`` among them, ``precision`` (true / reviewed, None without a reviewed relation)
    with its 95% Wilson interval (``low``, ``high``), and for what it keeps out:
    ``rejected_reviewed`` and ``rejected_true`` (kept out though judged true).

    With ``items`` (rows of the ``reviewed_items`` audit query), the same for the reviewed
    items whose every basis relation the policy keeps: ``items_reviewed``,
    ``items_accepted``, ``item_precision`` (accepted / reviewed), ``item_low``,
    ``item_high``."""
    out = []
    for policy in policies:
        kept_items = [i for i in items if keeps_item(i, policy)]
        accepted = sum(1 for i in kept_items if i["decision"] == "accept")
        item_interval = wilson(accepted, len(kept_items))
        kept = [r for r in rows if passes(r, policy)]
        left = [r for r in rows if not passes(r, policy)]
        true = sum(1 for r in kept if r["label"] is True)
        false = sum(1 for r in kept if r["label"] is False)
        reviewed = true + false
        interval = wilson(true, reviewed)
        out.append(
            {
                "policy": policy_label(policy),
                "accept": sorted(v.value for v in policy.accept),
                "min_score": policy.min_score,
                "min_confidence": policy.min_confidence,
                "kept": len(kept),
                "reviewed": reviewed,
                "true": true,
                "false": false,
                "precision": round(true / reviewed, 4) if reviewed else None,
                "low": round(interval[0], 4) if interval else None,
                "high": round(interval[1], 4) if interval else None,
                "rejected_reviewed": sum(1 for r in left if r["label"] is not None),
                "rejected_true": sum(1 for r in left if r["label"] is True),
                "items_reviewed": len(kept_items),
                "items_accepted": accepted,
                "item_precision": round(accepted / len(kept_items), 4) if kept_items else None,
                "item_low": round(item_interval[0], 4) if item_interval else None,
                "item_high": round(item_interval[1], 4) if item_interval else None,
            }
        )
    return out


def example(row: dict[str, Any]) -> dict[str, Any]:
    """One relation as the example tables show it: concept names (the mention text when a
    side did not link), verdict, score, confidence, extractor, reviewers' label."""
    return {
        "assertion": row["assertion"],
        "predicate": row["predicate"],
        "subject": row.get("subject_name") or row.get("subject_text"),
        "object": row.get("object_name") or row.get("object_text"),
        "verdict": row["verdict"],
        "score": row["score"],
        "confidence": row["confidence"],
        "extractor": row["extractor"],
        "label": row["label"],
    }


def _spread(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """Up to ``n`` rows taking each verdict in turn (most frequent first), so a step that
    removes a thousand unsupported relations and one ambiguous shows both; within a verdict
    the highest scores and confidences first, then by id."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in sorted(
        rows,
        key=lambda r: (-float(r["score"] or 0), -float(r["confidence"] or 0), r["assertion"]),
    ):
        groups.setdefault(r["verdict"], []).append(r)
    order = sorted(groups, key=lambda v: (-len(groups[v]), v))
    picked: list[dict[str, Any]] = []
    while len(picked) < n and any(groups.values()):
        for verdict in order:
            if groups[verdict] and len(picked) < n:
                picked.append(groups[verdict].pop(0))
    return picked


def policy_steps(
    rows: Sequence[dict[str, Any]], policies: Sequence[FilterPolicy], examples: int = 3
) -> list[dict[str, Any]]:
    """What each step of the policy list changes, starting from every judged relation: per
    step ``from`` and ``to`` (policies in words; the first step is from "all relations"),
    ``removed`` (kept before, kept out now) and ``added`` counts, their verdicts
    (``removed_verdicts``), and up to ``examples`` removed and added relations
    (``removed_examples``, ``added_examples``, rows of :func:`example`)."""
    steps = []
    before: FilterPolicy | None = None
    for policy in policies:
        was = [True if before is None else passes(r, before) for r in rows]
        now = [passes(r, policy) for r in rows]
        removed = [r for r, a, b in zip(rows, was, now, strict=True) if a and not b]
        added = [r for r, a, b in zip(rows, was, now, strict=True) if b and not a]
        verdicts: dict[str, int] = {}
        for r in removed:
            verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
        steps.append(
            {
                "from": "all relations" if before is None else policy_label(before),
                "to": policy_label(policy),
                "removed": len(removed),
                "added": len(added),
                "removed_verdicts": dict(sorted(verdicts.items())),
                "removed_examples": [example(r) for r in _spread(removed, examples)],
                "added_examples": [example(r) for r in _spread(added, examples)],
            }
        )
        before = policy
    return steps


def rejected_but_true(
    rows: Sequence[dict[str, Any]], policies: Sequence[FilterPolicy]
) -> list[dict[str, Any]]:
    """Relations reviewers judged true that at least one of the policies keeps out (the
    policies' misses), each with ``rejected_by`` (policies in words) and the current
    ``items`` resting on it; sorted by how many policies reject it, then by id."""
    out = []
    for r in rows:
        if r["label"] is not True:
            continue
        rejected_by = [policy_label(p) for p in policies if not passes(r, p)]
        if rejected_by:
            out.append({**example(r), "items": r["items"], "rejected_by": rejected_by})
    return sorted(out, key=lambda r: (-len(r["rejected_by"]), r["assertion"]))
