"""QA items from screened candidates: distractors chosen, items drafted into the store (with
the run's funnel and lure counts in its report), then finished with balanced answer positions."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from kgverify.config import Settings
from kgverify.derive.candidate import (
    Candidate,
    Screened,
    ServedContents,
    content_group_of,
    digest,
)
from kgverify.derive.model import HARD_LURES, DeriveReport, DistractorWhy, Option, QAItem
from kgverify.derive.qa import choose
from kgverify.derive.splits import ItemStore, split_of
from kgverify.derive.templates import describe_context, template
from kgverify.review.state import ReviewState

LABELS = "ABCDEFGHIJ"


def display(name: str) -> str:
    """Option text with an upper-case first letter: vocabularies differ in case, and case
    must not tell the answer from the distractors."""
    return name[:1].upper() + name[1:]


@dataclass(frozen=True)
class RunContext:
    """What every item of a run records: the vocabulary releases and the filter policy."""

    releases: list[str]
    policy: str


def content_key(candidate: Candidate, option_ids: Iterable[str]) -> str:
    return digest(
        [candidate.task.value, sorted(candidate.stem), candidate.answer, sorted(option_ids)]
    )


def draft(
    candidate: Candidate,
    screened: Screened,
    distractors: list[tuple[str, str]],
    seed: int,
    run: RunContext,
    split_by: str = "topic_answer",
    group: str | None = None,
) -> dict[str, Any]:
    """The item without split or answer position (those need the whole run); ``group``:
    its content group (``content_group_of``; the candidate's by default)."""
    qt = template(candidate.task)
    answer_text = screened.answer_name or candidate.answer_text
    question = qt.render(
        **candidate.values, context=describe_context(candidate.context, candidate.date)
    )
    options = [(candidate.answer, answer_text), *distractors]
    content = json.dumps(
        [
            candidate.task.value,
            candidate.patient.patient_id,
            candidate.episode,
            question,
            sorted(c for c, _ in options),
            candidate.answer,
            qt.version,
        ]
    )
    why = {
        d: {
            "distance": screened.outcomes[d].distance,
            "lure": screened.outcomes[d].lure,
            "justifications": [j.model_dump() for j in screened.outcomes[d].justifications],
        }
        for d, _ in distractors
    }
    lures = [screened.outcomes[d].lure for d, _ in distractors]
    return {
        "item_id": hashlib.sha256(content.encode()).hexdigest()[:20],
        "task": candidate.task.value,
        "patient_id": candidate.patient.patient_id,
        "episode": candidate.episode,
        "question": question,
        "context": [c.model_dump() for c in candidate.context],
        "answer_option": list(options[0]),
        "distractors": [list(d) for d in distractors],
        "why": why,
        "answer_concept": candidate.answer,
        "basis": candidate.basis,
        "rules": candidate.rules,
        "checks": [c.model_dump() for c in candidate.checks],
        "template": qt.version,
        "seed": seed,
        "topic": candidate.topic,
        "content_key": content_key(candidate, (c for c, _ in options)),
        "content_group": group or candidate.content_group,
        "split_group": candidate.split_group(split_by),
        "difficulty": round(sum(k in HARD_LURES for k in lures) / len(lures), 2),
        "context_necessary": "patient_specific" in lures,
        "releases": run.releases,
        "policy": run.policy,
        "reviewed": candidate.reviewed,
    }


def finish(drafted: dict[str, Any], split: str, position: int) -> QAItem:
    """Place the answer at ``position`` among the distractors and label the options."""
    ordered = [tuple(d) for d in drafted["distractors"]]
    ordered.insert(position, tuple(drafted["answer_option"]))
    options = [
        Option(label=LABELS[i], concept_id=concept, text=display(text))
        for i, (concept, text) in enumerate(ordered)
    ]
    why = [
        DistractorWhy(
            label=o.label,
            concept_id=o.concept_id,
            text=o.text,
            distance=drafted["why"][o.concept_id]["distance"],
            lure=drafted["why"][o.concept_id]["lure"],
            justifications=drafted["why"][o.concept_id]["justifications"],
        )
        for o in options
        if o.concept_id != drafted["answer_concept"]
    ]
    skip = ("answer_option", "distractors", "why")
    fields = {k: v for k, v in drafted.items() if k not in skip}
    return QAItem(**fields, split=split, options=options, answer=LABELS[position], why_wrong=why)


class PageCounts(Protocol):
    """What ``derive_items`` reads of a worked page (``kgverify.derive.pages.QAPage``)."""

    patients: int
    candidates: list[Candidate]
    screened: list[Screened]
    verdicts: Counter[str]
    filtered: Counter[str]
    found: Counter[str]
    skipped: Counter[str]


def derive_items(
    pages: Iterable[PageCounts],
    reviews: ReviewState,
    store: ItemStore,
    settings: Settings,
    report: DeriveReport,
    *,
    run: RunContext,
    on_patient: Callable[[int], None] | None = None,
    served: ServedContents | None = None,
) -> None:
    """Fill ``store`` with the drafted items of every page's screened candidates, in page
    order (the store's duplicate checks are first come, first kept); ``served``: told of
    each content group the store fills, so later pages leave its repeats unscreened."""
    seed, n_options = settings.derive_seed, settings.derive_options
    verdicts: Counter[str] = Counter(report.assertions)
    filtered: Counter[str] = Counter(report.filtered)
    found: Counter[str] = Counter(report.candidates)
    skipped: Counter[str] = Counter(report.skipped)
    rejected: Counter[str] = Counter(report.distractors_rejected)
    justified: Counter[str] = Counter(report.justifications)
    distances: Counter[str] = Counter(report.difficulty)
    lures = {t: Counter(v) for t, v in report.lures.items()}
    necessary: Counter[str] = Counter(report.context_necessary)
    fresh = int(report.funnel.get("content_groups", 0))
    for page in pages:
        report.patients += page.patients
        verdicts.update(page.verdicts)
        filtered.update(page.filtered)
        found.update(page.found)
        skipped.update(page.skipped)
        for candidate, screened in zip(page.candidates, page.screened, strict=True):
            task = candidate.task.value
            if screened.conflict:
                skipped[f"{task}: the answer is {screened.conflict}"] += 1
                continue
            group = content_group_of(candidate, screened)
            variants = store.variants_of(group)
            if variants >= settings.derive_variants:
                skipped[f"{task}: duplicate: the same clinical content (stem and answer)"] += 1
                continue
            if screened.served:  # the page's worker saw this content served: it still is
                raise RuntimeError(f"content {group} was served and is not: a store fault")
            fresh += 1
            # Counted for the candidates that reach distractor choice only, so the counts
            # do not depend on which repeats a worker left unscreened (``ServedContents``).
            rejected.update(screened.rejected)
            distractors = choose(candidate, screened, seed, n_options, skip=variants)
            if distractors is None:
                skipped[f"{task}: fewer than {n_options - 1} justified distractors"] += 1
                continue
            drafted = draft(
                candidate, screened, distractors, seed, run, settings.derive_split_by, group
            )
            if reviews.rejected(drafted["content_key"]):
                skipped[f"{task}: rejected by a reviewer"] += 1
                continue
            split = split_of(drafted["split_group"], seed, settings.derive_splits)
            duplicate = store.add(drafted, split, candidate.dedupe)
            if duplicate:
                skipped[f"{task}: {duplicate}"] += 1
                continue
            if served is not None and store.variants_of(group) >= settings.derive_variants:
                served.add(group)
            for d, _ in distractors:
                outcome = screened.outcomes[d]
                for j in outcome.justifications:
                    justified[j.rule] += 1
                distances["none" if outcome.distance is None else str(outcome.distance)] += 1
                lures.setdefault(task, Counter())[outcome.lure] += 1
            necessary[task] += drafted["context_necessary"]
        if on_patient is not None:
            on_patient(report.patients)
    report.assertions = dict(sorted(verdicts.items()))
    report.filtered = dict(sorted(filtered.items()))
    report.candidates = dict(sorted(found.items()))
    report.skipped = dict(sorted(skipped.items()))
    report.distractors_rejected = dict(sorted(rejected.items()))
    report.justifications = dict(sorted(justified.items()))
    report.difficulty = dict(sorted(distances.items(), key=lambda kv: (len(kv[0]), kv[0])))
    report.lures = {t: dict(sorted(c.items())) for t, c in sorted(lures.items())}
    report.context_necessary = dict(sorted(necessary.items()))
    report.split_by = settings.derive_split_by
    store.assign_splits(settings.derive_splits, seed)
    # Candidates -> those of a content not yet served (each reaches distractor choice) ->
    # items; every drop on the way is in ``skipped``, the largest is the limiting cause.
    report.funnel = {
        "candidates": sum(found.values()),
        "content_groups": fresh,
        "items": store.counts()[0],
        "dropped": report.skipped,
        "limiting": max(report.skipped, key=lambda k: report.skipped[k], default=None),
    }


def finished_items(store: ItemStore, n_options: int) -> Iterator[QAItem]:
    """Every stored item with its split and a balanced answer position: within each task
    and split, items in id order take positions A, B, C, ... in turn."""
    for task, split in store.groups():
        for at, drafted in enumerate(store.read(task, split)):
            yield finish(drafted, split, at % n_options)
