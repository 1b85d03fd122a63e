"""The verdict of every clinical mention in a patient turn (docs/dialogue.md).

A mention is found by the matcher, linked by the project's linker (candidates kept) and set
against the record as the patient's fact sheet shows it at the encounter:

- **grounded**: it names a fact the patient may say, as the same concept (or its MAPS_TO
  counterpart), by a synonym or abbreviation, as an is-a ancestor of the fact's concept
  ("sinusitis" for acute bacterial sinusitis), or through a shared ingredient (a brand, the
  ingredient of a recorded product);
- **leak**: it names a record-only fact (the diagnosis to be found, another condition of
  the visit, a lab, a procedure) or says one of the record's codes, of any system;
- **contradicted**: it denies a recorded fact the patient may say ("I don't take aspirin"
  while aspirin is a current drug; "I never had a stroke" with a stroke in the history),
  says an active one is over, a number disagrees with the recorded one after unit
  conversion, or the graph forbids it (a drug the record does not hold, said in one breath
  with a condition it is contraindicated for);
- **unsupported**: no fact of the record is behind it. This says the record is silent, not
  that the claim is false. A relative's illness is always this, with ``experiencer:
  family``: the sheet holds the patient's facts only;
- **unlinked**: the words name no single concept and none of their candidates meets a fact.

ConText's categories (negated, possible, hypothetical, historical, family) and cessation are
flags on every mention (``negation.cues``). A present denial or an ending contradicts only
what is active at the encounter (``RecordView.active``), a past denial the whole record; a
supposition contradicts nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache

from spacy.tokens import Doc, Span

from kgverify.derive.model import FactSheet, SheetFact
from kgverify.dialogue.matcher import TALKABLE, Match, MentionMatcher, is_general, lay_text
from kgverify.dialogue.model import (
    Dialogue,
    DialogueVerdicts,
    Evidence,
    MentionVerdict,
    MentionVerdictKind,
    Number,
    Role,
    TurnVerdict,
)
from kgverify.dialogue.naming import names
from kgverify.dialogue.negation import Cues, cues, said_of_now, sentence_bounds
from kgverify.dialogue.numbers import (
    Quantity,
    agrees,
    duration_agrees,
    elapsed_days,
    quantity,
    said,
    strengths,
)
from kgverify.dialogue.record import (
    TOLD_SECTIONS,
    Reach,
    ReachCache,
    RecordView,
    code_key,
    view,
)
from kgverify.dialogue.spelling import covers, spelled, typo
from kgverify.dialogue.spoken import (
    DRUG_KINDS,
    SpokenMention,
    owner,
    spoken_codes,
    takes_dose,
)
from kgverify.errors import ConfigError
from kgverify.graph.model import Kind
from kgverify.link.linker import Linker, MentionQuery
from kgverify.link.model import LinkCandidate, LinkStatus, MentionLink, Method
from kgverify.link.normalize import normalized_key
from kgverify.verify.verifier import Verifier

V = MentionVerdictKind
CONDITION_KINDS = frozenset({Kind.DISORDER, Kind.FINDING})
CONDITION_VALUES = frozenset(k.value for k in CONDITION_KINDS)
GIVEN_KINDS = frozenset({k.value for k in DRUG_KINDS} | {Kind.PROCEDURE.value})
"""What a patient asks to be given ("Can I have codeine?")."""
DOSE_TOLERANCE = 0.01
SPEECH_THRESHOLD = 0.8
"""The raw TF-IDF similarity at which the checker's linker takes a candidate."""
SPAN_SCORE = 0.9
"""The least score at which a span no name matched is a mention when the linker reached it
by TF-IDF alone; its other stages (a typo, another word order, a variant or mined key) are
confident at their own scores."""
CONFIDENT = frozenset(
    {Method.EXACT, Method.NORMALIZED, Method.REORDERED, Method.VARIANT, Method.MINED, Method.EDIT}
)
VALUE_TOLERANCE = 0.05


def _edges(raw: list[dict[str, str]]) -> list[str]:
    return [f"{e['start']} -{e['type']}-> {e['end']}" for e in raw]


@dataclass(frozen=True)
class _Hit:
    fact: SheetFact
    where: str
    via: str
    path: list[str]
    sayable: bool
    concept: str


class DialogueChecker:
    """Judges patient turns against fact sheets and the graph; reads only."""

    def __init__(
        self,
        verifier: Verifier,
        *,
        matcher: MentionMatcher | None = None,
        max_depth: int = 3,
    ) -> None:
        if verifier.write:
            raise ConfigError("the dialogue checker never writes: give it write=False")
        self.verifier = verifier
        # Speech is linked on the raw similarity its span rules were measured at (docs/
        # dialogue.md): the calibration is fitted on the vocabularies' own synonyms, not on
        # how patients talk, and the re-ranker learned from those synonyms too.
        base = verifier.linker
        params = base.params.model_copy(
            update={
                "threshold": SPEECH_THRESHOLD,
                "rerank": False,
                "disabled": base.params.disabled | {"calibration"},
            }
        )
        self.linker: Linker = Linker(base.index, params, base.graph, base.abbreviations)
        self.matcher = matcher or MentionMatcher.from_graph(verifier.graph)
        self.reach = ReachCache(verifier.graph, verifier.hubs, max_depth)

    # -- public ---------------------------------------------------------------------------

    def check_dialogue(self, dialogue: Dialogue, sheet: FactSheet | None) -> DialogueVerdicts:
        record = view(sheet, dialogue.encounter_id) if sheet is not None else None
        turns = []
        if record is not None:
            self.reach.get(f.concept_id for f in record.facts)  # the record's reaches at once
            said = [(at, t.text) for at, t in enumerate(dialogue.turns) if t.role is Role.PATIENT]
            turns = self.check_turns(said, record)
        counts: dict[str, int] = {}
        for turn in turns:
            for key, n in turn.counts.items():
                counts[key] = counts.get(key, 0) + n
        return DialogueVerdicts(
            dialogue_id=dialogue.dialogue_id,
            patient_id=dialogue.patient_id,
            encounter_id=dialogue.encounter_id,
            found=record is not None,
            turns=turns,
            counts=dict(sorted(counts.items())),
        )

    def check_turn(self, text: str, record: RecordView, turn: int = 0) -> TurnVerdict:
        """Every mention of one patient turn, judged against ``record``."""
        return self.check_turns([(turn, text)], record)[0]

    def check_turns(self, turns: list[tuple[int, str]], record: RecordView) -> list[TurnVerdict]:
        """Every mention of each (index, text) patient turn, judged against ``record``; the
        names and spans of all of them linked in one batch."""
        docs = [self.matcher.doc(text) for _, text in turns]
        matches = [self.matcher.find(doc) for doc in docs]
        spans = [self.matcher.spans(doc, found) for doc, found in zip(docs, matches, strict=True)]
        queries = [
            MentionQuery(t, allowed=TALKABLE, context=doc.text)
            for doc, found, proposed in zip(docs, matches, spans, strict=True)
            for t in [m.alias for m in found] + [lay_text(s) or s.text for s in proposed]
        ]
        links = self.linker.link(queries) if queries else []
        out = []
        mapped = cache(lambda: self._counterparts(record))  # once, and only if a code is said
        for (at, text), doc, found, proposed in zip(turns, docs, matches, spans, strict=True):
            mine, links = links[: len(found) + len(proposed)], links[len(found) + len(proposed) :]
            mentions = self._mentions(doc, found, proposed, mine)
            out.append(self._turn(doc, text, mentions, record, at, mapped))
        return out

    def _turn(
        self,
        doc: Doc,
        text: str,
        mentions: list[SpokenMention],
        record: RecordView,
        turn: int,
        mapped: Callable[[], Mapping[str, tuple[str, SheetFact]]],
    ) -> TurnVerdict:
        reaches = self.reach.get(
            [i for m in mentions for i in m.ids] + [f.concept_id for f in record.facts]
        )
        # The ingredients of the record's drugs, for their classes ("blood thinner").
        ingredients = {i for f in record.facts if f.concept_id in reaches
                       for i in reaches[f.concept_id].ingredients}  # fmt: skip
        reaches |= self.reach.get(ingredients)
        # A span only the linker proposed, ambiguous, is a mention when one of its
        # candidates reaches the record; otherwise it is words, not a claim.
        mentions = [
            m
            for m in mentions
            if not (m.proposed and m.link.status is not LinkStatus.LINKED)
            or self._resolve(m, record, reaches)[0]
        ]
        codes = spoken_codes(doc, text, record, turn, mentions, mapped)
        self._attach_numbers(doc, text, mentions, [(c.start, c.end) for c in codes])
        # What the patient names in each sentence (each mention's first fact): a symptom
        # said in the sentence of its condition is of that condition, over or not ("I had a
        # rash from some soap, the contact dermatitis, but that's all cleared up now").
        resolved = [self._resolve(m, record, reaches) for m in mentions]
        sentence = [sentence_bounds(doc, m.match.span)[0] for m in mentions]
        named: dict[int, set[str]] = {}
        for m, (hits, _, _), at in zip(mentions, resolved, sentence, strict=True):
            if m.cues.family or m.cues.negated or m.cues.hypothetical:
                continue
            if hits and hits[0].via != "manifestation":
                named.setdefault(at, set()).add(hits[0].fact.fact_id)
        verdicts = []
        for m, first, at in zip(mentions, resolved, sentence, strict=True):
            near = frozenset(named.get(at, ()))
            if near and not said_of_now(doc, m.match.span):
                first = self._resolve(m, record, reaches, near)  # its symptoms count too
            verdicts.append(self._judge(m, record, turn, first))
        verdicts = self._contraindicated(mentions, verdicts)
        verdicts += codes
        verdicts.sort(key=lambda v: v.start)
        return TurnVerdict(turn=turn, text=text, mentions=verdicts)

    def _counterparts(self, record: RecordView) -> dict[str, tuple[str, SheetFact]]:
        """The codes of the record's systems the graph maps each fact's concept to (MAPS_TO,
        up to two steps: "I48.91" for a SNOMED CT fact, through its UMLS concept), under
        ``code_key``, with the fact."""
        facts = list(record.facts)
        first = self.reach.get(f.concept_id for f in facts)
        near = self.reach.get(s for r in first.values() for s in r.same)
        out: dict[str, tuple[str, SheetFact]] = {}
        for fact in facts:
            reach = first.get(fact.concept_id)
            ids = sorted(reach.same) if reach is not None else []
            for concept in sorted({c for i in ids if i in near for c in near[i].same}):
                system, _, code = concept.partition(":")
                if system in CODE_SYSTEMS and len(key := code_key(code)) >= 3:
                    out.setdefault(key, (concept, fact))
        return out

    # -- mentions -------------------------------------------------------------------------

    def _mentions(
        self, doc: Doc, matches: list[Match], spans: list[Span], links: list[MentionLink]
    ) -> list[SpokenMention]:
        """The matcher's names, and the other spans the linker resolves confidently (its typo
        tolerance, word order, variant and mined keys; TF-IDF only at ``SPAN_SCORE``), all
        linked with the slot's kinds (``links``: the names', then the spans'); overlapping
        spans give way to the longest, then the surest."""
        pairs = list(zip(matches, links, strict=False))
        proposed = [
            (Match(span, (), span.text), link)
            for span, link in (
                (span, spelled(link))
                for span, link in zip(spans, links[len(matches) :], strict=True)
            )
            if self._confident(link)
        ]
        proposed.sort(
            key=lambda p: (
                p[1].status is not LinkStatus.LINKED,
                -len(p[0].span),
                -p[1].score,
                p[0].span.start,
            )
        )
        taken: set[int] = set()
        for match, link in proposed:
            at = set(range(match.span.start, match.span.end))
            if not at & taken:
                taken |= at
                pairs.append((match, link))
        out = []
        covered = [set(range(m.span.start, m.span.end)) for m, _ in pairs]
        for match, link in sorted(pairs, key=lambda p: p[0].span.start):
            if link.status is LinkStatus.LINKED and link.concept_id is not None:
                ids = [link.concept_id, *link.equivalents]
                best = [c for c in link.candidates if c.concept_id in ids]
            else:
                # The groups the linker could not choose between (plausible, above its
                # threshold), then what the dictionary matched; not the far TF-IDF tail.
                floor = self.linker.params.threshold
                best = [c for c in link.candidates if c.type_ok and c.score >= floor]
                ids = [c.concept_id for c in best] + list(match.concepts)
            kinds = {k for c in best for k in c.kinds}
            ids = list(dict.fromkeys(ids))
            mine = set(range(match.span.start, match.span.end))
            others = frozenset(i for c in covered if not c & mine for i in c)
            given = bool(kinds & GIVEN_KINDS)
            said = cues(doc, match.span, others, given=given)
            mention = SpokenMention(match, link, said, ids, kinds)
            mention.proposed = not match.concepts
            if link.status is not LinkStatus.LINKED:
                mention.groups = _groups(best, match.concepts)
            out.append(mention)
        return out

    def _confident(self, link: MentionLink) -> bool:
        """Whether a span no name matched is a mention: the linker linked it to a talkable
        concept by a confident stage (or TF-IDF at ``SPAN_SCORE``), or found it ambiguous
        between such concepts, or between names that are the span with a qualifier of a
        letter or two ("penicillin": Penicillin V, Penicillin G); an ambiguous one is then
        judged through its candidates (``_resolve``) and dropped when none reaches the
        record."""
        if is_general(link.query):
            return False  # "an injury", "the disease": a category, never a claim
        floor = self.linker.params.threshold
        talkable = {k.value for k in TALKABLE}
        fit = [
            c for c in link.candidates if c.type_ok and c.score >= floor and set(c.kinds) & talkable
        ]
        sure = [
            c
            for c in fit
            if (c.method in CONFIDENT or (c.score >= SPAN_SCORE and covers(link.query, c.alias)))
            and (c.method is not Method.EDIT or typo(link.query, c.alias))
        ]
        if link.status is LinkStatus.LINKED:
            return any(c.concept_id == link.concept_id for c in sure)
        if link.status is not LinkStatus.AMBIGUOUS:
            return False
        if link.method is Method.EDIT and any(c.method is Method.EDIT for c in sure):
            return True  # a misspelling (``spelled``): kept when it reaches the record
        words = set(normalized_key(link.query).split())
        qualified = [
            c
            for c in fit
            if (extra := set(normalized_key(c.alias).split()) - words)
            and words <= set(normalized_key(c.alias).split())
            and all(len(w) <= 2 for w in extra)
        ]
        return len({c.group for c in sure}) >= 2 or len({c.group for c in qualified}) >= 2

    def _attach_numbers(
        self, doc: Doc, text: str, mentions: list[SpokenMention], codes: list[tuple[int, int]]
    ) -> None:
        """Each number of the turn goes to the mention syntax gives it (``_owner``)."""
        taken = [(m.match.span.start_char, m.match.span.end_char) for m in mentions] + codes
        for mention in mentions:
            span = mention.match.span
            if takes_dose(mention):
                # "naproxen 500 mg" names a strength the record may not hold: compare it.
                mention.numbers += [
                    q for q in said(text, span.start_char, span.end_char) if q.dimension
                ]
        for q in said(text):
            if any(a <= q.start < b for a, b in taken):
                continue  # a number inside a name ("Aspirin 81 MG ...") or a code is theirs
            holder = owner(doc, mentions, q)
            if holder is not None:
                holder.numbers.append(q)

    # -- verdicts -------------------------------------------------------------------------

    def _judge(
        self,
        m: SpokenMention,
        record: RecordView,
        turn: int,
        resolved: tuple[list[_Hit], str, tuple[str, list[str], set[str]] | None],
    ) -> MentionVerdict:
        """The mention's verdict from what it reaches (``resolved``: ``_resolve``'s answer)."""
        span = m.match.span
        base = {
            "turn": turn,
            "start": span.start_char,
            "end": span.end_char,
            "text": span.text,
            "kind": ",".join(sorted(m.kinds)) or "unknown",
            "negated": m.cues.negated,
            "hedged": m.cues.hedged,
            "hypothetical": m.cues.hypothetical,
            "historical": m.cues.historical,
            "experiencer": "family" if m.cues.family else "patient",
            "status": m.link.status,
            "concept_id": m.link.concept_id,
            "concept_name": _name(m.link),
            "candidates": m.link.candidates,
        }
        hits, ambiguity, chosen = resolved
        if chosen is not None:  # an ambiguous mention judged through its one candidate
            base["concept_id"], base["concept_name"] = chosen[1][0], chosen[0]
            base["kind"] = ",".join(sorted(chosen[2])) or base["kind"]
        numbers, disagreeing = self._numbers(m, hits, record)
        base["numbers"] = numbers
        flags = _flags(m.cues) + ambiguity
        if not m.ids:
            return MentionVerdict(
                **base, verdict=V.UNLINKED, reason=f"no concept for {span.text!r}{flags}"
            )
        if m.cues.family:
            # The sheet holds the patient's facts only: a relative's illness neither grounds,
            # leaks nor contradicts one of them ("my father had coronary artery disease").
            return MentionVerdict(
                **base,
                verdict=V.UNSUPPORTED,
                reason=f"about a relative, not the patient: the record holds no family "
                f"history{flags}",
                evidence=[Evidence(via="family", detail=" ".join(m.cues.words))],
            )
        said_ok = [h for h in hits if h.sayable]
        if m.cues.ceased and said_ok and said_ok[0].via == "class":
            # A class word names no one drug: "I used to be on a blood thinner" is the one
            # that is over (warfarin years ago), not the current clopidogrel.
            past = [h for h in said_ok if h.via == "class" and not record.active(h.fact)]
            said_ok = past + [h for h in said_ok if h not in past]
        if m.cues.negated and not (m.cues.ever or m.cues.ceased or m.cues.hypothetical):
            # A present denial ("I don't have any sinus problems") is about what holds now:
            # judged against a fact active at the encounter (a chronic sinusitis never
            # ended) before one that is over (a sinusitis of 1961 the history lists first).
            # Not an ending: "I used to have sinusitis" is the sinusitis that is over.
            active = [h for h in said_ok if h.via != "manifestation" and record.active(h.fact)]
            said_ok = active + [h for h in said_ok if h not in active]
        hit = (said_ok or hits)[0] if hits else None
        if hit is None:
            if m.link.status is not LinkStatus.LINKED:
                return MentionVerdict(
                    **base,
                    verdict=V.UNLINKED,
                    reason=f"{m.link.status.value}: no single concept, and no candidate meets "
                    f"a fact of the record{flags}",
                    evidence=[Evidence(via="none", detail=_offered(m.link))],
                )
            return MentionVerdict(
                **base,
                verdict=V.UNSUPPORTED,
                reason=f"no fact in the record behind it{flags}",
                evidence=[Evidence(via="none")],
            )
        shown = {_evidence(h).model_dump_json(): _evidence(h) for h in (said_ok or hits)[:3]}
        evidence = list(shown.values())
        if hit.via == "manifestation":
            # A symptom of a condition the record holds, at the encounter: what a patient
            # with it says, never the condition's name (no leak); denying a symptom denies
            # no fact of the record.
            if m.cues.negated or m.cues.hypothetical:
                return MentionVerdict(
                    **base,
                    verdict=V.UNSUPPORTED,
                    reason=f"no such symptom in the record; a symptom of a recorded "
                    f"{_words(hit.fact.section)}, not asserted{flags}",
                    evidence=evidence,
                )
            return MentionVerdict(
                **base,
                verdict=V.GROUNDED,
                reason=f"a manifestation of a recorded {_words(hit.fact.section)} "
                f"({hit.where}){flags}",
                evidence=evidence,
            )
        if disagreeing and not m.cues.hypothetical:
            wrong = "; ".join(f"said {n.text}, recorded {n.recorded}" for n in disagreeing)
            return MentionVerdict(
                **base,
                verdict=V.CONTRADICTED,
                reason=f"a number disagrees with the record: {wrong}",
                evidence=[*evidence, Evidence(via="number", detail=wrong)],
            )
        # A supposition ("if I stopped my warfarin") denies nothing; a present denial ("I
        # don't take warfarin") or an ending only what holds at the encounter; a past one
        # ("I never had a stroke") the whole record.
        said_of = not m.cues.hypothetical and (m.cues.ever or record.active(hit.fact))
        if hit.sayable:
            denied = m.cues.negated and not m.cues.ceased and said_of
            # A procedure is done, not ended: "the ablation fixed it" says nothing is over.
            over = (
                m.cues.ceased
                and not m.cues.hypothetical
                and hit.fact.section != "procedure"
                and record.active(hit.fact)
            )
            if m.cues.negated and not (denied or m.cues.ceased or m.cues.hypothetical):
                flags += "; not active at the encounter: the denial agrees"
            if denied or over:
                recorded = f"a recorded {_words(hit.fact.section)} ({hit.fact.text}, {hit.where})"
                said = f"denies {recorded}" if denied else f"says {recorded} is over"
                return MentionVerdict(
                    **base,
                    verdict=V.CONTRADICTED,
                    reason=f"the patient {said}{flags}",
                    evidence=[*evidence, Evidence(via="negation", detail=" ".join(m.cues.words))],
                )
            return MentionVerdict(
                **base,
                verdict=V.GROUNDED,
                reason=f"{_words(hit.fact.section)} of {hit.where}, via {hit.via}{flags}",
                evidence=evidence,
            )
        if m.cues.negated and not m.cues.ceased and not m.cues.hypothetical:
            return MentionVerdict(
                **base,
                verdict=V.CONTRADICTED,
                reason=f"the patient denies a recorded {_words(hit.fact.section)} "
                f"({hit.fact.text}){flags}",
                evidence=[*evidence, Evidence(via="negation", detail=" ".join(m.cues.words))],
            )
        return MentionVerdict(
            **base,
            verdict=V.LEAK,
            reason=f"record-only {_words(hit.fact.section)} ({hit.fact.text}), "
            f"via {hit.via}{flags}",
            evidence=evidence,
        )

    def _resolve(
        self,
        m: SpokenMention,
        record: RecordView,
        reaches: dict[str, Reach],
        named: frozenset[str] = frozenset(),
    ) -> tuple[list[_Hit], str, tuple[str, list[str], set[str]] | None]:
        """The facts a mention reaches, a note for its reason, and the candidate it was
        judged through. A linked mention reaches what its concept reaches; an ambiguous one
        what its one candidate that reaches the record reaches ("penicillin": Penicillin V,
        a current drug, not Penicillin G), the ambiguity said in the reason; when candidates
        reach different facts, nothing."""
        if m.link.status is LinkStatus.LINKED or not m.groups:
            return self._hits(m, m.ids, m.kinds, record, reaches, named), "", None
        reached = [
            (group, hits)
            for group in m.groups
            if (hits := self._hits(m, group[1], group[2], record, reaches, named))
        ]
        if not reached:
            return [], "", None
        if len({hits[0].fact.fact_id for _, hits in reached}) > 1:
            names = ", ".join(group[0] for group, _ in reached)
            if not any(hits[0].sayable for _, hits in reached):
                # Whichever is meant, it is a fact only the record holds ("DEXA" at the visit
                # that records both the scan and its T-score): judged through the best.
                group, hits = reached[0]
                note = f"; ambiguous ({names}), each reading record-only: judged through {group[0]}"
                return hits, note, group
            return [], f"; ambiguous: its candidates {names} reach different facts", None
        group, hits = reached[0]
        among = f"among {len(m.groups)} concepts" if len(m.groups) > 1 else "a misspelling"
        note = f"; ambiguous ({among}), judged through the one that reaches the record: {group[0]}"
        return hits, note, group

    def _hits(
        self,
        m: SpokenMention,
        ids: list[str],
        kinds: set[str],
        record: RecordView,
        reaches: dict[str, Reach],
        named: frozenset[str] = frozenset(),
    ) -> list[_Hit]:
        """Facts the concepts ``ids`` reach, sayable first, then the closest way first; a
        symptom a recorded condition manifests comes after every other way (``named``: the
        facts the mention's sentence names, whose symptoms count whether over or not)."""
        mine = [reaches[i] for i in ids if i in reaches]
        same = {s for r in mine for s in r.same}
        ingredients = {i: (r, e) for r in mine for i, e in r.ingredients.items()}
        drug = bool(kinds & {k.value for k in DRUG_KINDS})
        # A combination ("Percocet": oxycodone and acetaminophen) is a drug that holds each
        # of its RxNorm ingredients (a salt's precise ingredient aside), not one holding
        # some of them: "not the Percocet" denies no recorded acetaminophen tablet.
        combination = {
            i
            for i, (_, edges) in ingredients.items()
            if i.startswith("RXNORM:")
            and i not in same
            and not (edges and edges[-1]["type"] == "HAS_PRECISE_INGREDIENT")
        }
        alias = _alias(m.link)
        # The mention's is-a parents, for a sibling the record names (conditions only).
        parents: dict[str, list[dict[str, str]]] = {}
        if kinds & CONDITION_VALUES:
            for r in mine:
                for p, u in r.up.items():
                    if u["depth"] == 1:
                        parents.setdefault(p, u["edges"])
        said_names = [n for n in (m.match.span.text, _name(m.link), alias) if n]
        out: list[tuple[int, _Hit]] = []
        candidates = [(f, where, True) for f, where in record.sayable]
        candidates += [(f, "this encounter", False) for f in record.record_only]
        for fact, where, sayable in candidates:
            theirs = reaches.get(fact.concept_id)
            if theirs is None:
                continue
            if same & theirs.same:
                via = "same concept"
                if m.match.span.text.isupper() and len(m.match.span.text) <= 6:
                    via = "abbreviation"
                elif alias and normalized_key(alias) != normalized_key(_name(m.link) or alias):
                    via = "lay synonym"
                out.append((0, _Hit(fact, where, via, [], sayable, fact.concept_id)))
                continue
            # The closest ancestor, ties by id: ``same`` is a set, and its order changes from
            # run to run.
            up = min(
                (theirs.up[s] for s in same if s in theirs.up),
                key=lambda u: (u["depth"], len(u["edges"]), u["id"]),
                default=None,
            )
            if up is not None:
                path = _edges(up["edges"])
                out.append((1 + up["depth"], _Hit(fact, where, "is-a", path, sayable, up["id"])))
                continue
            # The fact's morphology said for it ("my ulcer" for a recorded peptic ulcer, "the
            # bleeding" for a gastrointestinal hemorrhage): the patient's word for the lesion.
            shape = next((s for s in sorted(same) if s in theirs.morphologies), None)
            if shape is not None:
                path = _edges(theirs.morphologies[shape])
                out.append((4, _Hit(fact, where, "morphology", path, sayable, shape)))
                continue
            # A sibling the record's own name says ("emphysema" for a recorded emphysematous
            # bronchitis, both under chronic obstructive lung disease): the patient's word for
            # the diagnosis given (``kgverify.dialogue.naming``).
            sibling = min(
                (p for p in parents if theirs.up.get(p, {}).get("depth") == 1), default=None
            )
            if sibling is not None and any(names(said, fact.text) for said in said_names):
                path = _edges(parents[sibling]) + _edges(theirs.up[sibling]["edges"])
                out.append((4, _Hit(fact, where, "named sibling", path, sayable, sibling)))
                continue
            if drug:
                covered = len(combination) < 2 or combination <= theirs.ingredients.keys()
                shared = min(
                    (i for i in theirs.ingredients if i in ingredients and covered),
                    key=lambda i: (len(ingredients[i][1]) + len(theirs.ingredients[i]), i),
                    default=None,
                )
                if shared is not None:
                    mine_edges = ingredients[shared][1]
                    brand = any(e["type"] == "TRADENAME_OF" for e in mine_edges)
                    path = _edges(mine_edges) + _edges(theirs.ingredients[shared])
                    via = "brand" if brand else "ingredient"
                    out.append((5, _Hit(fact, where, via, path, sayable, shared)))
                    continue
                # A class word ("blood thinner"): a class of the fact's ingredient (ATC).
                classed = min(
                    (
                        (up["depth"], i, up)
                        for i in theirs.ingredients
                        if i in reaches
                        for s in same
                        if (up := reaches[i].up.get(s)) is not None
                    ),
                    key=lambda t: (t[0], t[1], t[2]["id"]),
                    default=None,
                )
                if classed is not None:
                    _, i, up = classed
                    path = _edges(theirs.ingredients[i]) + _edges(up["edges"])
                    out.append((6 + up["depth"], _Hit(fact, where, "class", path, sayable, i)))
                continue
            # A symptom of a condition recorded at this encounter ("short of breath" for the
            # visit's heart failure), whichever section holds it: what the patient comes
            # with; or of a disease diagnosed at an earlier visit and still active at this
            # one ("my knees ache" with osteoarthritis diagnosed years before, never ended):
            # what the patient lives with. One of an older condition recorded beside a
            # visit's diagnosis, or of one that is over, is no fact of the visit.
            shown = next((f for f in sorted(same) if f in theirs.manifests), None)
            # An earlier condition some encounter up to this one lists as history is the same
            # fact (one id), so it counts as the earlier diagnosis it is, even where this
            # encounter's sheet no longer shows it (the sheet lists the most recent only);
            # said of the past ("years ago I had a skin rash"), a symptom meets a condition
            # of then, over or not.
            lived = sayable and (fact.section in TOLD_SECTIONS or fact.fact_id in record.told)
            had = lived and (record.active(fact) or m.cues.historical)
            current = _of_visit(fact, where, record) or had or fact.fact_id in named
            if shown is not None and current:
                path = _edges(theirs.manifests[shown])
                out.append((10, _Hit(fact, where, "manifestation", path, sayable, shown)))
        # Sayable first, this encounter before earlier ones, then the closest way; a symptom
        # of a condition only when nothing else meets the record.
        out.sort(
            key=lambda pair: (
                pair[1].via == "manifestation",
                not pair[1].sayable,
                "earlier" in pair[1].where,
                pair[0],
            )
        )
        return [hit for _, hit in out]

    def _numbers(
        self, m: SpokenMention, hits: list[_Hit], record: RecordView
    ) -> tuple[list[Number], list[Number]]:
        numbers: list[Number] = []
        # The facts of the best way in (sayable ones when there are): a number agrees when
        # it agrees with any of them ("2 years ago": the last of several otitis episodes).
        best = [h.fact for h in hits if h.sayable == hits[0].sayable] if hits else []
        if hits and hits[0].via == "manifestation":
            best = []  # a symptom's number is not the condition's
        # A dose said of now ("Pen VK, 250 milligrams") is the current product's: a strength
        # the patient took decades ago does not make it agree. Said of the past, or of a
        # drug not current at the encounter, any of them.
        now = not (m.cues.historical or m.cues.ceased or m.cues.negated)
        current = [f for f in best if f.section == "current_drug" and record.active(f)]
        for q in m.numbers:
            dose = q.dimension != "duration"
            facts = current if now and dose and current else best
            compared = [_compare(q, fact, record.start) for fact in facts] or [(None, None)]
            recorded, agree = next(
                (c for c in compared if c[1] is True),
                next((c for c in compared if c[1] is False), compared[0]),
            )
            numbers.append(
                Number(
                    text=q.text,
                    value=q.value,
                    unit=q.unit,
                    recorded=recorded,
                    agrees=agree,
                    vague=q.vague,
                )
            )
        return numbers, [n for n in numbers if n.agrees is False]

    def _contraindicated(
        self, mentions: list[SpokenMention], verdicts: list[MentionVerdict]
    ) -> list[MentionVerdict]:
        """A drug the record does not hold, said with a condition the graph says it is
        contraindicated for: contradicted, with the rule's path. Both must be ``claimed``:
        "my father takes ibuprofen for his peptic ulcer" is no claim of the patient's."""
        drug_kinds = {k.value for k in DRUG_KINDS}
        pairs: dict[tuple[str, str, str], list[int]] = {}
        names: dict[str, str] = {}
        for n, (m, v) in enumerate(zip(mentions, verdicts, strict=True)):
            if v.verdict is not V.UNSUPPORTED or not v.claimed or not m.kinds & drug_kinds:
                continue
            if m.cues.ceased:
                continue  # "I haven't touched Advil in years": not taken with it now
            if m.link.concept_id is None:
                continue
            for other, said_of in zip(mentions, verdicts, strict=True):
                if other is m or not said_of.claimed or not other.kinds & CONDITION_VALUES:
                    continue
                # The condition as said, and the recorded one its word stands for ("my
                # ulcer": the recorded peptic ulcer, by its morphology or an is-a step).
                conditions = [other.link.concept_id]
                for e in said_of.evidence:
                    if e.via in _STANDS_FOR and e.fact_concept is not None:
                        conditions.append(e.fact_concept)
                        names.setdefault(e.fact_concept, e.fact_text or "")
                for condition in dict.fromkeys(c for c in conditions if c is not None):
                    triple = (m.link.concept_id, condition, "contraindicated_for")
                    pairs.setdefault(triple, []).append(n)
                names[m.link.concept_id] = _name(m.link) or ""
                names.setdefault(other.link.concept_id or "", _name(other.link) or "")
        if not pairs:
            return verdicts
        found = self.verifier.evidence_for(list(pairs))
        out = list(verdicts)
        done: set[int] = set()
        for triple, at in pairs.items():
            support = next((p for p in found.get(triple, []) if p.stance == "support"), None)
            if support is None:
                continue
            for n in at:
                if n in done:
                    continue
                done.add(n)
                path = [f"{e.start} -{e.type}-> {e.end}" for e in support.edges]
                out[n] = out[n].model_copy(
                    update={
                        "verdict": V.CONTRADICTED,
                        "reason": f"the graph says {_named(triple[0], names)} is "
                        f"contraindicated for {_named(triple[1], names)}, said in the same "
                        f"turn ({support.rule})",
                        "evidence": [
                            *out[n].evidence,
                            Evidence(
                                fact_concept=triple[1],
                                via="contraindicated",
                                path=path,
                                detail=support.rule,
                            ),
                        ],
                    }
                )
        return out


# -- helpers ------------------------------------------------------------------------------


CODE_SYSTEMS = frozenset({"SNOMEDCT", "LNC", "ICD10CM", "RXNORM", "NDC"})
"""The systems of a record's codes: a fact's counterpart in one of them, said aloud, is the
fact's code ("I48.91" for atrial fibrillation recorded in SNOMED CT)."""


_STANDS_FOR = frozenset({"is-a", "morphology"})
"""Ways a condition word reaches a recorded condition it stands for."""


def _of_visit(fact: SheetFact, where: str, record: RecordView) -> bool:
    """Whether ``fact`` was recorded at the encounter (began on or after its start)."""
    if where not in ("this encounter", "the record") or record.start is None:
        return False
    return fact.start is not None and fact.start[:10] >= record.start[:10]


def _groups(
    best: list[LinkCandidate], concepts: tuple[str, ...]
) -> list[tuple[str, list[str], set[str]]]:
    """An ambiguous mention's candidates as concepts, best first: (name, ids, kinds) per
    candidate group, those holding a concept the words name exactly before the others,
    then each matched concept no candidate names."""
    grouped: dict[int, tuple[str, list[str], set[str]]] = {}
    for c in best:
        _, ids, kinds = grouped.setdefault(c.group, (c.name, [], set()))
        ids.append(c.concept_id)
        kinds.update(c.kinds)
    out = sorted(grouped.values(), key=lambda g: not set(g[1]) & set(concepts))
    named = {i for _, ids, _ in out for i in ids}
    out += [(c, [c], set()) for c in concepts if c not in named]
    return out


def _named(concept: str, names: dict[str, str]) -> str:
    """A concept as people read it: its name with its id, or the id alone."""
    name = names.get(concept)
    return f"{name} ({concept})" if name else concept


def _words(section: str) -> str:
    """A fact-sheet section as words ("current_drug" -> "current drug")."""
    return section.replace("_", " ")


def _name(link: MentionLink) -> str | None:
    best = _best(link)
    return best.name if best is not None else None


def _alias(link: MentionLink) -> str | None:
    best = _best(link)
    return best.alias if best is not None else None


def _best(link: MentionLink) -> LinkCandidate | None:
    if link.concept_id is None:
        return None
    return next((c for c in link.candidates if c.concept_id == link.concept_id), None)


def _offered(link: MentionLink) -> str:
    names = list(dict.fromkeys(f"{c.name} ({c.concept_id})" for c in link.candidates[:3]))
    return "candidates: " + (", ".join(names) or "none")


def _flags(c: Cues) -> str:
    flags = (
        ("negated", c.negated),
        ("ceased", c.ceased),
        ("hedged", c.hedged),
        ("hypothetical", c.hypothetical),
        ("historical", c.historical),
        ("family", c.family),
    )
    words = [w for w, on in flags if on]
    return f" [{', '.join(words)}: {' '.join(c.words)}]" if words else ""


def _evidence(hit: _Hit) -> Evidence:
    return Evidence(
        fact_id=hit.fact.fact_id,
        section=hit.fact.section,
        fact_text=hit.fact.text,
        fact_concept=hit.fact.concept_id,
        via=hit.via,
        path=hit.path,
        detail=hit.where,
    )


def _compare(q: Quantity, fact: SheetFact | None, at: str | None) -> tuple[str | None, bool | None]:
    """The recorded value a said number is set against, and whether they agree."""
    if fact is None or q.vague or q.between:
        return None, None  # "a few years ago", "two years later": no number of days
    if q.dimension == "duration":
        if fact.section == "procedure" and not q.ago:
            # "a cast for six weeks": a treatment's course, which no procedure fact records
            return None, None
        until = at if q.ago or fact.end is None else fact.end
        days = elapsed_days(fact.start, until)
        if days is None:
            return None, None
        drug = fact.section == "current_drug"
        if drug and not q.ago and fact.end is not None and not duration_agrees(q, days):
            # "I was on it for two years": one prescription's days, or the time since it
            # began (refills are other facts of the same drug, or none in the record).
            since = elapsed_days(fact.start, at)
            if since is not None and since >= days and duration_agrees(q, since):
                return f"{since:g} days since it began", True
        return f"{days:g} days", duration_agrees(q, days)
    if fact.value is not None and isinstance(fact.value, (int, float)):
        recorded = quantity(float(fact.value), fact.unit)
        shown = f"{fact.value:g} {fact.unit or ''}".strip()
        return shown, agrees(q, recorded, VALUE_TOLERANCE)
    doses = strengths(fact.text)
    if q.dimension is None:
        # Without a unit, only against a product of one strength ("Coumadin 5" for warfarin
        # 5 mg); "250" for amoxicillin 250 mg / clavulanate 125 mg could be either.
        if len(doses) != 1 or doses[0].dimension != "mass":
            return None, None
        return doses[0].text, agrees(q, doses[0], DOSE_TOLERANCE)
    comparable = [d for d in doses if d.dimension == q.dimension]
    if not comparable:
        return None, None
    shown = ", ".join(d.text for d in comparable)
    return shown, any(agrees(q, d, DOSE_TOLERANCE) for d in comparable)
