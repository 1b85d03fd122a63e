"""Distractor justifications: a distractor is admissible only when the graph gives a positive
reason that it is wrong for this item, never because the graph is silent about it
(vocabularies are incomplete). Each task declares which way its candidates are judged and
the names its rules record (``model.TASK_RULES``): the drug way (treatment) or the pointer
way (diagnosis, prognosis); the code here names no task. The reasons (docs/derivation.md):

* ``treatment.indications_elsewhere``: the drug's known indications (its own MAY_TREAT /
  MAY_PREVENT edges, or its classes') all lie outside the neighbourhood of the item's
  condition, and it shares no class with a drug known to treat the condition;
* ``treatment.contraindicated``: the drug (or a class of it) is contraindicated for the
  condition or an ancestor of it;
* ``treatment.contraindicated_for_patient``: the drug treats the condition (an indication of
  it or a class of it to the condition, a generalisation of it or a kind of it: is-a
  related, not merely near), but it (or a class of it) is contraindicated for a condition
  the question shows the patient has: wrong for *this* patient, and only the record tells
  (a context-necessary distractor). A drug only near the condition, or sharing a class
  with a treatment, stays refused: that it would treat this condition is not shown;
* ``diagnosis.clues_elsewhere``: every condition that the clues (the drugs started, the
  findings seen) are known to point at lies outside the distractor's neighbourhood;
* ``diagnosis.agent_mismatch``: the clues that point near the distractor are all drugs
  started that act on one kind of organism only (their WHO ATC groups, ``ACTS_ON``: J01
  antibacterials act on bacteria), and the distractor's causative agent (SNOMED CT's
  attribute) is of another kind: penicillin V started points at a streptococcal sore
  throat, not at an acute viral pharyngitis, though the two are near. The bacterial and
  the viral infection of one organ is the lure a clinician weighs; the agent, not the
  vocabularies' silence, rules it out;
* ``prognosis.outcomes_elsewhere``: every outcome the shown conditions are known to lead to
  lies outside the distractor's neighbourhood.

The **neighbourhood** of a concept is everything below its non-hub is-a ancestors up to
``derive_near_depth`` steps (across MAPS_TO), its body systems left out (top groupings with
no morphology: they locate, a lesion kind characterizes): two concepts are *near* when they
share such an ancestor. The treatment rules read a narrower one, ``derive_drug_near_depth``
steps (default 1: the condition's parents, children and siblings): at 3, every drug known
for any heart disease was refused beside atrial fibrillation, so amlodipine (coronary
disease) never met verapamil as a lure; a shared class below ATC level 2 and an indication
to the condition's close kin still refuse. A candidate that something refutes (an
indication near the condition, a class shared with a known treatment, a clue pointing near
it) is refused with
the reason; one that nothing justifies is refused too.

Every admitted candidate also says what kind of lure it is (``model.LURES``): specific to
this patient, in the answer's therapeutic area (a shared WHO ATC level-2 group) or body system
(a shared top non-hub is-a ancestor, e.g. "Disorder of respiratory system"), or farther. A
class shared with a known treatment refuses a drug only below ATC level 2: a therapeutic
subgroup (J01, antibacterials for systemic use) is the area, not a reason. The graph reads
are the four ``queries/derive`` files named in ``QUERIES``; results are cached per run in
bounded maps.

Every justification records ``RULES_VERSION``, which is declared: the lock test
tests/unit/test_justify_version.py fails whenever the rules' inputs change.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, TypeVar

from kgverify.derive.model import (
    CitedEdge,
    ConceptSet,
    ContextFact,
    Justification,
    Lure,
    Task,
)
from kgverify.graph.driver import Graph, batched

QUERIES = (
    "derive/up_sets",
    "derive/drug_profiles",
    "derive/clue_targets",
    "derive/treaters",
    "derive/lesion_kinds",
    "derive/causative_agents",
    "derive/contraindication_ends",
)
# Edges cited per justification at most: a drug with 40 indications needs no 40 lines.
MAX_CITED = 12
CACHE_SIZE = 200_000

K = TypeVar("K")
V = TypeVar("V")


# What the drugs of a WHO ATC level-2 group act on, for ``agent_mismatch``: the groups'
# names say it (J01 "antibacterials for systemic use"); a drug counts only when every group
# it belongs to is here (doxycycline is also A01, stomatological: it does not count).
ACTS_ON: dict[str, tuple[str, str]] = {
    "J01": ("bacteria", "antibacterials for systemic use"),
    "J04": ("bacteria", "antimycobacterials"),
    "J02": ("fungi", "antimycotics for systemic use"),
    "J05": ("viruses", "antivirals for systemic use"),
}
# The organism kinds, by the concepts that head them in the loaded vocabularies (SNOMED CT,
# UMLS): an agent is of a kind when the kind's concept is among its is-a ancestors.
KINGDOMS: dict[str, str] = {
    "SNOMEDCT:409822003": "bacteria",  # Domain Bacteria
    "UMLS:C0004611": "bacteria",  # Bacteria
    "SNOMEDCT:49872002": "viruses",  # Virus
    "UMLS:C0042776": "viruses",  # Viruses
    "SNOMEDCT:414561005": "fungi",  # Kingdom Fungi
    "UMLS:C0016832": "fungi",  # Fungi
}

RULES_VERSION = "c4e0d9a71b52"
"""The justification rules' version, recorded in every justification, so a changed rule shows
in every item it justifies. Declared, not computed: bump it when what the rules decide or say
changes (``QUERIES``, this module, ``model.TASK_RULES``). tests/unit/test_justify_version.py
pins a fingerprint of those inputs and fails on any change of them until it is updated, so
no change goes by without that decision. (This value is the last one computed, when it was
a hash of the queries and this module.)"""


def rules_version() -> str:
    """The justification rules' version: ``RULES_VERSION``, kept by the lock test
    tests/unit/test_justify_version.py."""
    return RULES_VERSION


class _Bounded(Generic[K, V]):
    """A dict that forgets everything when it grows past ``size`` (per-run caches must not
    grow with the input)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self.data: dict[K, V] = {}

    def missing(self, keys: Iterable[K]) -> list[K]:
        return [k for k in dict.fromkeys(keys) if k not in self.data]

    def put(self, key: K, value: V) -> None:
        if len(self.data) >= self.size:
            self.data.clear()
        self.data[key] = value

    def __getitem__(self, key: K) -> V:
        return self.data[key]

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for ``key``, else ``make()``'s, kept."""
        found = self.data.get(key)
        if found is None:
            found = make()
            self.put(key, found)
        return found


@dataclass(frozen=True)
class Up:
    """A concept's ancestors: fewest is-a steps to each (hubs included), and which are
    reached without passing a hub."""

    depth: dict[str, int]
    clean: frozenset[str]


@dataclass(frozen=True)
class DrugProfile:
    id: str
    name: str | None
    side: frozenset[str]
    classes: dict[str, str | None]  # class id -> name
    indications: tuple[CitedEdge, ...]
    contraindications: tuple[CitedEdge, ...]
    areas: frozenset[str] = frozenset()  # WHO ATC level-2 codes (therapeutic subgroups)
    broad: frozenset[str] = frozenset()  # its classes that are ATC level-1 or -2 groups

    @property
    def close_classes(self) -> set[str]:
        """Classes a shared membership with a known treatment refuses on."""
        return set(self.classes) - self.broad


@dataclass
class Request:
    """One item's distractor question: which candidates are wrong, and why."""

    task: Task
    topic: str  # the condition (treatment), the answer (diagnosis), the cause (prognosis)
    answer: str
    clues: list[tuple[str, str]]  # (concept, "treats" | "indicates" | "leads_to")
    conditions: list[str]  # concepts of the patient's recorded conditions
    candidates: list[str]
    # The patient's conditions the question shows: what may rule a drug out for this
    # patient (treatment), with the record fact a reason cites.
    shown: list[ContextFact] = field(default_factory=list)


@dataclass
class Outcome:
    """A candidate judged: admissible with its justifications, or the reason it is
    refused. Justifications are built when first asked for: most admissible candidates
    are not chosen, and building their records is most of the cost."""

    refused: str | None = None  # report key
    distance: int | None = None  # is-a steps to the topic through any shared ancestor
    # The same through a shared non-hub ancestor only: what "near in the graph" means for
    # choosing (two disorders that meet only at "Disease" are not near); None when none.
    closeness: int | None = None
    lure: Lure = "other_area"
    # The patient's conditions that rule a patient-specific lure out (concept ids).
    ruled_by: tuple[str, ...] = ()
    # The concept with its MAPS_TO group and non-hub is-a parents (body systems left out):
    # two options that share any are chosen together at most once (three kinds of
    # concussion side by side are ruled out as a group).
    kin: frozenset[str] = frozenset()
    build: Callable[[], list[Justification]] | None = None
    _built: list[Justification] | None = field(default=None, repr=False)

    @property
    def admissible(self) -> bool:
        return self.refused is None and (self.build is not None or self._built is not None)

    @property
    def justifications(self) -> list[Justification]:
        if self._built is None:
            self._built = self.build() if self.build is not None else []
        return self._built

    def __getstate__(self) -> dict[str, Any]:
        # Sent to another process (a Ray actor's screened page): built here, since ``build``
        # is bound to this process's Justifier and its connection.
        state = dict(self.__dict__)
        state["_built"], state["build"] = self.justifications, None
        return state


_DrugKey = tuple[Task, str, str]  # (task, condition, answer)
_PointerKey = tuple[Task, str, tuple[tuple[str, str], ...]]  # (task, answer, clues)


@dataclass(frozen=True)
class _Treats:
    """A drug that may treat a condition near the item's: refused (``otherwise``) unless
    it treats the condition itself (``treats``) and a condition the patient has rules it
    out, which only the request's record tells."""

    drug: DrugProfile
    treats: list[CitedEdge]
    otherwise: Outcome


@dataclass(frozen=True)
class _TreatingContext:
    """What the candidates of one (task, condition, answer) are judged against."""

    hood: frozenset[str]
    treaters: list[str]
    classes: dict[str, str]  # class -> the first known treatment in it
    close_classes: frozenset[str]


@dataclass(frozen=True)
class _PointingContext:
    """Where the clues of one (task, answer, clues) point."""

    pointed: list[tuple[str, CitedEdge]]
    target_ups: dict[tuple[str, str], list[frozenset[str]]]


class Justifier:
    """Judges distractor candidates with the rules above, a batch of requests at a time."""

    def __init__(
        self, graph: Graph, hubs: dict[str, bool], near_depth: int, drug_depth: int
    ) -> None:
        self.graph = graph
        self.hubs = hubs
        self.near_depth = near_depth
        self.drug_depth = drug_depth  # the treatment rules' neighbourhood (drug answers)
        self.version = rules_version()
        self._ups: _Bounded[str, Up] = _Bounded()
        self._drugs: _Bounded[str, DrugProfile] = _Bounded()
        self._targets: _Bounded[tuple[str, str], tuple[tuple[str, CitedEdge], ...]] = _Bounded()
        self._treaters: _Bounded[str, tuple[str, ...]] = _Bounded()
        self._lesion: _Bounded[str, bool] = _Bounded()  # top grouping -> names a lesion
        # condition -> its causative agents: (cited edge, the agent's organism kinds)
        self._agents: _Bounded[str, tuple[tuple[CitedEdge, frozenset[str]], ...]] = _Bounded()
        # Per judge call, once its reads are done (None outside): tops and neighbourhoods.
        self._memo_tops: dict[str, frozenset[str]] | None = None
        self._memo_hood: dict[tuple[str, int], frozenset[str]] | None = None
        # Outcomes as far as they do not depend on the patient, per (request key, candidate),
        # and what a request key's candidates are judged against: the same contents recur
        # across a run's patients (the graph does not change while a Justifier lives).
        self._treated: _Bounded[tuple[_DrugKey, str], Outcome | _Treats] = _Bounded()
        self._treating_of: _Bounded[_DrugKey, _TreatingContext] = _Bounded()
        self._pointer_of: _Bounded[tuple[_PointerKey, str], tuple[Outcome, bool]] = _Bounded()
        self._pointing_of: _Bounded[_PointerKey, _PointingContext] = _Bounded()
        # (drug, a patient's condition) -> the drug's contraindications that reach it
        self._contraindicated: _Bounded[tuple[str, str], tuple[CitedEdge, ...]] = _Bounded()
        self._ci_ends: frozenset[str] | None = None  # every contraindication's end, read once

    # -- graph reads, batched and cached ------------------------------------------------------

    def _load_ups(self, ids: Iterable[str]) -> None:
        for chunk in batched(self._ups.missing(ids), 500):
            found = set()
            for row in self.graph.read("derive/up_sets", ids=chunk, hubs=self.hubs):
                found.add(row["id"])
                depth = {u["id"]: int(u["d"]) for u in row["up"]}
                clean = frozenset(u["id"] for u in row["up"] if u["clean"])
                self._ups.put(row["id"], Up(depth, clean | {row["id"]}))
            for missing in set(chunk) - found:
                self._ups.put(missing, Up({missing: 0}, frozenset({missing})))

    def _load_drugs(self, ids: Iterable[str]) -> None:
        for chunk in batched(self._drugs.missing(ids), 500):
            found = set()
            for row in self.graph.read("derive/drug_profiles", ids=chunk, hubs=self.hubs):
                found.add(row["id"])
                codes = [*row["atc"], *(c for k in row["classes"] for c in k["atc"])]
                self._drugs.put(
                    row["id"],
                    DrugProfile(
                        id=row["id"],
                        name=row["name"],
                        side=frozenset(row["side"]),
                        classes={k["id"]: k["name"] for k in row["classes"]},
                        indications=tuple(CitedEdge(**e) for e in row["indications"]),
                        contraindications=tuple(CitedEdge(**e) for e in row["contraindications"]),
                        areas=frozenset(_atc_area(c) for c in codes if _atc_level(c) >= 2),
                        broad=frozenset(
                            k["id"]
                            for k in row["classes"]
                            if k["atc"] and all(_atc_level(c) <= 2 for c in k["atc"])
                        ),
                    ),
                )
            for missing in set(chunk) - found:
                self._drugs.put(missing, DrugProfile(missing, None, frozenset(), {}, (), ()))

    def _load_targets(self, keys: Iterable[tuple[str, str]]) -> None:
        for chunk in batched(self._targets.missing(keys), 500):
            rows = [{"concept": c, "predicate": p} for c, p in chunk]
            found = set()
            for row in self.graph.read("derive/clue_targets", rows=rows):
                key = (row["concept"], row["predicate"])
                found.add(key)
                # The edge keeps its direction (a disease HAS_MANIFESTATION the finding);
                # the target is what the clue points at, whichever end it is.
                self._targets.put(
                    key,
                    tuple(
                        (e["target"], CitedEdge(**{k: v for k, v in e.items() if k != "target"}))
                        for e in row["edges"]
                    ),
                )
            for missing in set(chunk) - found:
                self._targets.put(missing, ())

    def _load_lesions(self, ids: Iterable[str]) -> None:
        for chunk in batched(self._lesion.missing(ids), 500):
            found = {row["id"] for row in self.graph.read("derive/lesion_kinds", ids=chunk)}
            for concept in chunk:
                self._lesion.put(concept, concept in found)

    def _load_agents(self, ids: Iterable[str]) -> None:
        for chunk in batched(self._agents.missing(ids), 500):
            found = set()
            for row in self.graph.read("derive/causative_agents", ids=chunk):
                found.add(row["id"])
                self._agents.put(
                    row["id"],
                    tuple(
                        (
                            CitedEdge(**{k: v for k, v in a.items() if k != "up"}),
                            frozenset(KINGDOMS[u] for u in a["up"] if u in KINGDOMS),
                        )
                        for a in row["agents"]
                    ),
                )
            for missing in set(chunk) - found:
                self._agents.put(missing, ())

    def _load_treaters(self, ids: Iterable[str]) -> None:
        for chunk in batched(self._treaters.missing(ids), 500):
            found = set()
            for row in self.graph.read("derive/treaters", ids=chunk, hubs=self.hubs):
                found.add(row["id"])
                self._treaters.put(row["id"], tuple(row["treaters"]))
            for missing in set(chunk) - found:
                self._treaters.put(missing, ())

    def treaters(self, topics: Iterable[str]) -> dict[str, tuple[str, ...]]:
        """The drugs known to treat each condition (derive/treaters), read once per run."""
        wanted = list(dict.fromkeys(topics))
        self._load_treaters(wanted)
        return {t: self._treaters[t] for t in wanted}

    # -- geometry ------------------------------------------------------------------------------

    def near(self, topic: str, other: str) -> str | None:
        """The witness that ``other`` lies in topic's neighbourhood: the nearest shared
        non-hub ancestor within ``near_depth`` of topic, or None (both up-sets must have
        been read, e.g. by :meth:`judge`)."""
        mine, theirs = self._ups[topic], self._ups[other]
        shared = self._near_set(topic) & theirs.clean
        if not shared:
            return None
        return min(shared, key=lambda a: (mine.depth[a] + theirs.depth.get(a, 99), a))

    def distance(self, a: str, b: str, *, clean: bool = False) -> int | None:
        """Fewest is-a steps between two concepts through a shared ancestor (hubs allowed;
        ``clean``: only through ancestors both reach without passing a hub)."""
        ua, ub = self._ups[a], self._ups[b]
        shared = ua.clean & ub.clean if clean else ua.depth.keys() & ub.depth.keys()
        return min((ua.depth[x] + ub.depth[x] for x in shared if x in ua.depth), default=None)

    # -- judging -------------------------------------------------------------------------------

    def judge(self, requests: list[Request]) -> list[dict[str, Outcome]]:
        """For every request, each candidate's outcome."""
        drug_ids: set[str] = set()
        target_keys: set[tuple[str, str]] = set()
        concepts: set[str] = set()
        treat_topics: set[str] = set()
        systems_of: set[str] = set()  # concepts whose body systems are asked
        agents_of: set[str] = set()  # candidates whose causative agents are asked
        for r in requests:
            concepts.update([r.topic, r.answer, *r.conditions])
            concepts.update(f.concept_id for f in r.shown if f.concept_id)
            if r.task.rules.way == "drugs":
                drug_ids.update([r.answer, *r.candidates])
                treat_topics.add(r.topic)
                systems_of.add(r.topic)
            else:
                concepts.update(r.candidates)
                systems_of.update([r.answer, *r.candidates])
                if r.task.rules.agent_mismatch:
                    agents_of.update(r.candidates)
                for clue, predicate in r.clues:
                    if predicate == "treats":
                        drug_ids.add(clue)
                    else:
                        target_keys.add((clue, predicate))
        self._load_treaters(treat_topics)
        for topic in treat_topics:
            drug_ids.update(self._treaters[topic])
        self._load_drugs(drug_ids)
        self._load_targets(target_keys)
        self._load_agents(agents_of)
        for d in drug_ids:
            profile = self._drugs[d]
            concepts.update(e.end for e in profile.indications)
            concepts.update(e.end for e in profile.contraindications)
        for key in target_keys:
            concepts.update(t for t, _ in self._targets[key])
        self._load_ups(concepts)
        # Body systems need the ancestors' own ancestors (which of them are tops).
        self._load_ups({a for c in systems_of for a in self._ups[c].clean})
        self._load_lesions({t for c in systems_of for t in self._tops(c)})
        # Everything the rules read is loaded: from here a concept's tops and neighbourhood
        # do not change, and the same topics and candidates recur across the page's items.
        self._memo_tops, self._memo_hood = {}, {}
        try:
            return [self._judge_one(r) for r in requests]
        finally:
            self._memo_tops, self._memo_hood = None, None

    def systems(self, concept: str) -> frozenset[str]:
        """The body systems of a concept: its top non-hub is-a ancestors (no non-hub
        ancestor above them, e.g. "Disorder of respiratory system"), or the concept itself
        when it has none (ancestors' up-sets must have been read: :meth:`judge`)."""
        up = self._ups[concept]
        return self._tops(concept) or frozenset(a for a in up.clean if up.depth.get(a, 99) == 0)

    def _tops(self, concept: str) -> frozenset[str]:
        memo = self._memo_tops
        if memo is not None and concept in memo:
            return memo[concept]
        up = self._ups[concept]
        tops = frozenset(a for a in up.clean if up.depth.get(a, 99) > 0 and self._is_top(a))
        if memo is not None:
            memo[concept] = tops
        return tops

    def _is_top(self, concept: str) -> bool:
        up = self._ups.data.get(concept)
        return up is not None and all(up.depth.get(a, 99) == 0 for a in up.clean)

    def may_rule_out(self, patients: list[list[str]]) -> list[bool]:
        """For each list of a patient's conditions: whether a contraindication of some drug
        or class could reach one of them (an active CONTRAINDICATED_FOR edge ends at the
        condition or a non-hub ancestor of it, as ``contraindicated_by`` reads). Where none
        can, no drug is wrong for this patient and no answer conflicts with the record,
        whatever the drug: what a patient-specific lure or a conflict needs is absent. The
        ends are read once per run; the up-sets of all the lists at once."""
        if self._ci_ends is None:
            rows = self.graph.read("derive/contraindication_ends")
            self._ci_ends = frozenset(r["id"] for r in rows)
        ends = self._ci_ends
        self._load_ups({c for concepts in patients for c in concepts})
        ups = self._ups.data  # a concept forgotten since (the cache was full): assume it may
        return [
            any((up := ups.get(c)) is None or bool(up.clean & ends) for c in concepts)
            for concepts in patients
        ]

    def contraindicated_by(self, drug: str, concepts: Iterable[str]) -> list[tuple[CitedEdge, str]]:
        """(contraindication edge, condition) for each of ``concepts`` (the patient's) that
        the drug or a class of it is contraindicated for: the condition or a non-hub
        ancestor of it is the edge's end (profiles and up-sets read by :meth:`judge`)."""
        out: list[tuple[CitedEdge, str]] = []
        for concept in dict.fromkeys(concepts):
            found = self._contraindicated.data.get((drug, concept))
            if found is None:
                up = self._ups.data.get(concept)
                if up is None:
                    continue
                edges = self._drugs[drug].contraindications
                found = tuple(e for e in edges if e.end in up.clean)
                self._contraindicated.put((drug, concept), found)
            out.extend((e, concept) for e in found)
        return out

    def _near_set(self, topic: str, depth: int | None = None) -> frozenset[str]:
        """The non-hub ancestors within ``depth`` (default ``near_depth``) of ``topic`` (and
        itself): a concept is in topic's neighbourhood when its clean ancestors meet this
        set."""
        up, depth = self._ups[topic], self.near_depth if depth is None else depth
        return frozenset(a for a in up.clean if up.depth.get(a, 99) <= depth)

    def _hood(self, concept: str, depth: int | None = None) -> frozenset[str]:
        """The neighbourhood the refusals read: the near set less the body systems. A
        system only locates a concept ("Disorder of respiratory system" above strep throat
        and above allergic rhinitis), so what lies below it decides; a top grouping that
        names a kind of lesion (an ASSOCIATED_MORPHOLOGY: a forearm fracture is a "Fracture
        of bone" as an osteoporotic fracture is) characterizes it and stays
        (lesion flags read by :meth:`judge`)."""
        depth = self.near_depth if depth is None else depth
        memo = self._memo_hood
        if memo is not None and (concept, depth) in memo:
            return memo[(concept, depth)]
        systems = {t for t in self._tops(concept) if not self._lesion.data.get(t, True)}
        hood = self._near_set(concept, depth) - systems
        if memo is not None:
            memo[(concept, depth)] = hood
        return hood

    def _judge_one(self, r: Request) -> dict[str, Outcome]:
        if r.task.rules.way == "drugs":
            return self._treatments(r)
        return self._pointers(r)

    def _treatments(self, r: Request) -> dict[str, Outcome]:
        """Drug answers (treatment): each candidate drug against the topic condition. What
        a candidate's outcome depends on besides the request's (task, condition, answer) is
        this patient's shown conditions, and only for a drug that treats the condition: the
        rest is judged once per run (``_treated``)."""
        key = (r.task, r.topic, r.answer)
        context = self._treating_of.get_or_make(key, partial(self._treating, r))
        out = {}
        for candidate in r.candidates:
            judged = self._treated.get_or_make(
                (key, candidate), partial(self._treatment, r, context, candidate)
            )
            if isinstance(judged, _Treats):
                judged = (
                    self._for_patient(r, judged.drug, judged.treats) if judged.treats else None
                ) or judged.otherwise
            out[candidate] = judged
        return out

    def _treating(self, r: Request) -> _TreatingContext:
        """What every candidate of a (task, condition, answer) is judged against (kept per
        run: ``_treating_of``)."""
        treaters = list(dict.fromkeys([r.answer, *self._treaters[r.topic]]))
        treater_classes: dict[str, str] = {}
        for t in treaters:
            for k in self._drugs[t].classes:
                treater_classes.setdefault(k, t)
        return _TreatingContext(
            hood=self._hood(r.topic, self.drug_depth),
            treaters=treaters,
            classes=treater_classes,
            close_classes=frozenset(k for t in treaters for k in self._drugs[t].close_classes),
        )

    def _treatment(
        self, r: Request, context: _TreatingContext, candidate: str
    ) -> Outcome | _Treats:
        condition, answer = r.topic, self._drugs[r.answer]
        hood = context.hood
        elsewhere = f"{r.task.value}.{r.task.rules.elsewhere}"
        drug = self._drugs[candidate]
        if drug.side & answer.side:
            return Outcome(refused="the same ingredient as the answer")
        treating = [e for e in drug.indications if hood & self._ups[e.end].clean]
        shared = drug.close_classes & context.close_classes
        if treating or shared:
            # Only a drug the vocabularies say treats this very condition (or a kind or a
            # generalisation of it) can be wrong *only* for this patient.
            return _Treats(
                drug=drug,
                treats=[e for e in treating if self._is_a_related(e.end, condition)],
                otherwise=Outcome(
                    refused=f"it may treat a condition near the item's ({elsewhere})"
                    if treating
                    else f"it shares a class with a drug known to treat the condition ({elsewhere})"
                ),
            )
        ci = [e for e in drug.contraindications if e.end in hood]
        if not ci and not drug.indications:
            return Outcome(
                refused="no known indication or contraindication (silence proves nothing)"
            )
        return Outcome(
            distance=_least(self.distance(e.end, condition) for e in drug.indications),
            closeness=_least(self.distance(e.end, condition, clean=True) for e in drug.indications),
            lure="same_area" if drug.areas & answer.areas else "other_area",
            build=partial(
                self._treatment_reasons,
                r.task,
                drug,
                ci,
                hood,
                context.treaters,
                context.classes,
            ),
        )

    def _is_a_related(self, a: str, b: str) -> bool:
        """One is the other, or a non-hub is-a ancestor of it (up-sets read by judge)."""
        return b in self._ups[a].clean or a in self._ups[b].clean

    def _for_patient(
        self, r: Request, drug: DrugProfile, treating: list[CitedEdge]
    ) -> Outcome | None:
        """A drug that treats the condition, which a condition the question shows rules out
        for this patient: admissible as a patient-specific lure, else None."""
        shown = {f.concept_id: f for f in r.shown if f.concept_id}
        hits = self.contraindicated_by(drug.id, shown)
        if not hits:
            return None
        facts = [(edge, shown[concept]) for edge, concept in hits]
        return Outcome(
            distance=_least(self.distance(e.end, r.topic) for e in treating),
            closeness=_least(self.distance(e.end, r.topic, clean=True) for e in treating),
            lure="patient_specific",
            ruled_by=tuple(sorted({concept for _, concept in hits})),
            build=partial(self._patient_reasons, r.task, drug, treating, facts),
        )

    def _patient_reasons(
        self,
        task: Task,
        drug: DrugProfile,
        treating: list[CitedEdge],
        facts: list[tuple[CitedEdge, ContextFact]],
    ) -> list[Justification]:
        edge, fact = facts[0]
        why = f"it may treat {_names_of(treating)}"
        since = f"recorded {fact.start[:10]}" if fact.start else "recorded"
        when = f" ({since}, ended {fact.end[:10]})" if fact.end else f" ({since}, no end recorded)"
        source = ", ".join(x for x in (edge.source, edge.release) if x)
        return [
            Justification(
                rule=f"{task.value}.{task.rules.for_patient}",
                version=self.version,
                reason=f"{_name(drug)}: {why}, but it is contraindicated for "
                f"{edge.end_name or edge.end} [{source}], and the question shows the patient "
                f"has {fact.text}{when}: wrong for this patient",
                edges=[e for e, _ in facts][:MAX_CITED] + treating[: MAX_CITED // 2],
                sets=_sets(
                    contraindicated_for=sorted({e.end for e, _ in facts}),
                    patient_conditions=sorted({str(f.concept_id) for _, f in facts}),
                    record_facts=sorted({f.fact_id for _, f in facts}),
                    indications=sorted({e.end for e in treating}),
                ),
            )
        ]

    def _treatment_reasons(
        self,
        task: Task,
        drug: DrugProfile,
        ci: list[CitedEdge],
        hood: frozenset[str],
        treaters: list[str],
        treater_classes: dict[str, str],
    ) -> list[Justification]:
        justs = []
        if ci:
            justs.append(
                Justification(
                    rule=f"{task.value}.{task.rules.contraindicated}",
                    version=self.version,
                    reason=f"{_name(drug)} is contraindicated for {_names_of(ci)}, which is "
                    "the condition or one of its near ancestors",
                    edges=ci[:MAX_CITED],
                    sets=_sets(contraindicated_for=sorted({e.end for e in ci})),
                )
            )
        if drug.indications:
            justs.append(
                Justification(
                    rule=f"{task.value}.{task.rules.elsewhere}",
                    version=self.version,
                    reason=f"{_name(drug)} is known for {_names_of(drug.indications)}; none of "
                    f"these lies in the neighbourhood of the condition, and it shares no class "
                    f"with the {len(treaters)} drug(s) known to treat it",
                    edges=list(drug.indications[:MAX_CITED]),
                    sets=_sets(
                        indications=sorted({e.end for e in drug.indications}),
                        neighbourhood=sorted(hood),
                        classes=sorted(drug.classes),
                        treaters=treaters,
                        treater_classes=sorted(treater_classes),
                    ),
                )
            )
        return justs

    def _pointers(self, r: Request) -> dict[str, Outcome]:
        """Concept answers (diagnosis, prognosis): where the clues point, against each
        candidate. A candidate's outcome depends on the request's (task, answer, clues),
        judged once per run (``_pointer_of``), and on whether it is a kind of a condition the
        patient has, asked per request."""
        key = (r.task, r.answer, tuple(r.clues))
        context = self._pointing_of.get_or_make(key, partial(self._pointed, r))
        out = {}
        for candidate in r.candidates:
            judged, settled = self._pointer_of.get_or_make(
                (key, candidate), partial(self._pointer, r, context, candidate)
            )
            if not settled:
                cand_up = self._ups[candidate]
                if any(c in cand_up.clean and cand_up.depth.get(c, 99) > 0 for c in r.conditions):
                    judged = Outcome(refused="a kind of a condition the patient has")
            out[candidate] = judged
        return out

    def _pointed(self, r: Request) -> _PointingContext:
        """Where the clues of a (task, answer, clues) point (kept per run: ``_pointing_of``)."""
        by_clue: dict[tuple[str, str], list[tuple[str, CitedEdge]]] = {}
        for clue, predicate in r.clues:
            if predicate == "treats":
                by_clue[(clue, predicate)] = [(e.end, e) for e in self._drugs[clue].indications]
            else:
                by_clue[(clue, predicate)] = list(self._targets[(clue, predicate)])
        return _PointingContext(
            pointed=[p for targets in by_clue.values() for p in targets],
            target_ups={
                k: [self._ups[t].clean for t in dict.fromkeys(t for t, _ in targets)]
                for k, targets in by_clue.items()
            },
        )

    def _pointer(
        self, r: Request, context: _PointingContext, candidate: str
    ) -> tuple[Outcome, bool]:
        """A candidate's outcome whoever the patient is, and whether it is settled: a clue
        pointing near it refuses it before the patient's conditions are asked."""
        hood = self._hood(candidate)
        cand_up = self._ups[candidate]
        near = [k for k, ups in context.target_ups.items() if any(hood & up for up in ups)]
        mismatch = self._agent_mismatch(r, candidate, near) if near else None
        if near and mismatch is None:
            elsewhere = f"{r.task.value}.{r.task.rules.elsewhere}"
            return Outcome(refused=f"a clue points near it ({elsewhere})"), True
        if not context.pointed:
            return Outcome(refused="the clues point nowhere known (silence proves nothing)"), False
        same = self.systems(candidate) & self.systems(r.answer)
        kin = {a for a in cand_up.clean if cand_up.depth.get(a, 99) <= 1}
        admitted = Outcome(
            kin=frozenset(kin - self._tops(candidate)),
            distance=self.distance(candidate, r.answer),
            closeness=self.distance(candidate, r.answer, clean=True),
            lure="same_system" if same else "other_system",
            build=partial(self._agent_reasons, r, candidate, mismatch)
            if mismatch
            else partial(self._pointer_reasons, r, context.pointed, hood),
        )
        return admitted, False

    def _agent_mismatch(
        self, r: Request, candidate: str, near: list[tuple[str, str]]
    ) -> list[tuple[DrugProfile, str, CitedEdge]] | None:
        """For clues ``near`` the candidate: (drug, ATC group, agent edge) for each, when
        every one is a drug started that acts on one kind of organism only (``ACTS_ON``)
        and every causative agent of the candidate is of another kind; else None."""
        agents = self._agents.data.get(candidate, ())
        if not r.task.rules.agent_mismatch or not agents:
            return None
        kinds = [k for _, k in agents]
        if not all(kinds):  # an agent of no known kind: nothing to compare
            return None
        out: list[tuple[DrugProfile, str, CitedEdge]] = []
        for clue, predicate in near:
            drug = self._drugs.data.get(clue) if predicate == "treats" else None
            if drug is None or not drug.areas or not drug.areas <= ACTS_ON.keys():
                return None
            acts_on = {ACTS_ON[a][0] for a in drug.areas}
            if any(k & acts_on for k in kinds):
                return None
            out.extend((drug, group, edge) for group in sorted(drug.areas) for edge, _ in agents)
        return out

    def _agent_reasons(
        self, r: Request, candidate: str, found: list[tuple[DrugProfile, str, CitedEdge]]
    ) -> list[Justification]:
        drugs = list(dict.fromkeys(_name(d) for d, _, _ in found))
        groups = sorted({g for _, g, _ in found})
        edges = list(dict.fromkeys(e for _, _, e in found))
        agents = list(dict.fromkeys(e.end_name or e.end for e in edges))
        what = "; ".join(f"ATC {g}, {ACTS_ON[g][1]}, act on {ACTS_ON[g][0]}" for g in groups)
        sources = ", ".join(
            dict.fromkeys(", ".join(x for x in (e.source, e.release) if x) for e in edges)
        )
        name = edges[0].start_name or candidate
        return [
            Justification(
                rule=f"{r.task.value}.{r.task.rules.agent_mismatch}",
                version=self.version,
                reason=f"the drugs started that point near it ({', '.join(drugs)}) act on "
                f"another kind of organism ({what}); {name} is caused by "
                f"{', '.join(agents)} [{sources}]: they were not started for it",
                edges=edges[:MAX_CITED],
                sets=_sets(
                    clues=sorted({d.id for d, _, _ in found}),
                    atc_groups=[f"ATC:{g}" for g in groups],
                    causative_agents=sorted({e.end for e in edges}),
                ),
            )
        ]

    def _pointer_reasons(
        self, r: Request, pointed: list[tuple[str, CitedEdge]], hood: frozenset[str]
    ) -> list[Justification]:
        return [
            Justification(
                rule=f"{r.task.value}.{r.task.rules.elsewhere}",
                version=self.version,
                reason=f"the {r.task.rules.clues} are known to point at {_names(pointed)}; "
                "none of these lies in this option's neighbourhood",
                edges=[e for _, e in pointed][:MAX_CITED],
                sets=_sets(
                    clue_targets=sorted({t for t, _ in pointed}),
                    clues=sorted({c for c, _ in r.clues}),
                    neighbourhood=sorted(hood),
                ),
            )
        ]


def _atc_level(code: str) -> int:
    """The WHO ATC level of an ``ATC:`` code id: 1 (J), 2 (J01), 3 (J01C), 4 (J01CA),
    5 (J01CA04); 0 for anything else."""
    return {1: 1, 3: 2, 4: 3, 5: 4, 7: 5}.get(len(code) - 4, 0) if code.startswith("ATC:") else 0


def _atc_area(code: str) -> str:
    """The level-2 group (therapeutic subgroup) of an ``ATC:`` code id."""
    return code[4:7]


def _least(values: Iterable[int | None]) -> int | None:
    return min((v for v in values if v is not None), default=None)


def _sets(**named: list[str]) -> list[ConceptSet]:
    return [ConceptSet(name=name, ids=ids) for name, ids in named.items()]


def _name(drug: DrugProfile) -> str:
    return drug.name or drug.id


def _names_of(edges: Iterable[CitedEdge]) -> str:
    """Names of the edges' ends."""
    return _names([(e.end, e) for e in edges])


def _names(pointed: list[tuple[str, CitedEdge]]) -> str:
    """Names of the targets, whichever end of their edge they are: the first six, distinct,
    and how many more."""
    names: dict[str, str] = {}
    for target, e in pointed:
        names.setdefault(target, (e.end_name if e.end == target else e.start_name) or target)
    distinct = list(dict.fromkeys(names.values()))  # a UMLS and a SNOMED CT namesake once
    shown = ", ".join(distinct[:6])
    return shown + (f" and {len(distinct) - 6} more" if len(distinct) > 6 else "")
