"""What reviewers decided, read once for derivation and re-verification to respect.

    state = ReviewState.read(graph)
    state.vetoed("treatment", topic, concept)   # review id, or None
    state.rejected(item.content_key)            # review id, or None
    state.relation(assertion_id)                # RelationJudgement, or None

Only standing reviews count (a retracted one decides nothing). Where reviewers disagree the
cautious decision wins: a reject over an accept, a relation judged false over true. The id
returned is the smallest id of the deciding reviews, so it does not depend on import order.
Reviews are made by people, so holding them all in memory is fine.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict

from kgverify.graph.driver import Graph
from kgverify.review.model import Decision


class StateReview(BaseModel):
    """One standing review as ``review/state`` returns it."""

    model_config = ConfigDict(frozen=True)

    id: str
    decision: Decision
    item: str | None = None
    task: str | None = None
    topic: str | None = None
    concept: str | None = None
    content_key: str | None = None
    assertion: str | None = None
    reviewer: str | None = None
    round: int | None = None


class RelationJudgement(BaseModel):
    model_config = ConfigDict(frozen=True)

    true: bool
    review: str


def _keep_min(table: dict[Any, str], key: Any, review: str) -> None:
    if key not in table or review < table[key]:
        table[key] = review


class ReviewState:
    """The standing reviews, indexed by the keys derivation asks about."""

    def __init__(self, reviews: list[StateReview]) -> None:
        self.reviews = reviews
        self._vetoes: dict[tuple[str, str, str], str] = {}
        self._rejected: dict[str, str] = {}
        self._accepted: dict[str, str] = {}
        falses: dict[str, str] = {}
        trues: dict[str, str] = {}
        for r in reviews:
            if r.decision is Decision.VETO and r.task and r.topic and r.concept:
                _keep_min(self._vetoes, (r.task, r.topic, r.concept), r.id)
            elif r.decision is Decision.REJECT and r.content_key:
                _keep_min(self._rejected, r.content_key, r.id)
            elif r.decision is Decision.ACCEPT and r.content_key:
                _keep_min(self._accepted, r.content_key, r.id)
            elif r.decision is Decision.RELATION_FALSE and r.assertion:
                _keep_min(falses, r.assertion, r.id)
            elif r.decision is Decision.RELATION_TRUE and r.assertion:
                _keep_min(trues, r.assertion, r.id)
        self._relations = {a: RelationJudgement(true=True, review=i) for a, i in trues.items()}
        self._relations |= {a: RelationJudgement(true=False, review=i) for a, i in falses.items()}

    @classmethod
    def read(cls, graph: Graph) -> ReviewState:
        """Every standing review, in one read (``queries/review/state.cypher``)."""
        return cls([StateReview.model_validate(row) for row in graph.read("review/state")])

    def vetoed(self, task: str, topic: str, concept: str) -> str | None:
        """The review that vetoes ``concept`` as a distractor for items of this task and
        topic (a reviewer said it is a defensible answer), or None."""
        return self._vetoes.get((task, topic, concept))

    def rejected(self, content_key: str) -> str | None:
        """The review that rejected items of this content key, or None."""
        return self._rejected.get(content_key)

    def accepted(self, content_key: str) -> str | None:
        """A review that accepted items of this content key (None when none did, or when
        one rejected them: a reject wins)."""
        if content_key in self._rejected:
            return None
        return self._accepted.get(content_key)

    def relation(self, assertion: str) -> RelationJudgement | None:
        """How reviewers judged a relation: true (though unsupported) or false (though
        supported), with the deciding review; None when nobody judged it."""
        return self._relations.get(assertion)

    @property
    def counts(self) -> dict[str, int]:
        """Standing reviews per decision."""
        return dict(sorted(Counter(r.decision.value for r in self.reviews).items()))

    def __len__(self) -> int:
        return len(self.reviews)
