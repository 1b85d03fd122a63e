"""Static review pages: one self-contained HTML file per item (no JavaScript, no external
assets, a little inline CSS) and an index. Every value from the item, the graph or the
record goes through :func:`esc` (``html.escape``), so a question holding ``<script>`` is
shown as text. Pure functions: the graph reads happen in :mod:`kgverify.review.export`."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field

from kgverify.audit.lineage import Lineage, LineageAssertion
from kgverify.derive.model import CitedEdge, DistractorWhy, QAItem
from kgverify.review.words import (
    assertion_label,
    evidence_sentence,
    joined,
    role_words,
    why_wrong_sentence,
)
from kgverify.verify.model import Edge, EvidencePath

EdgeKey = tuple[str, str, str]

CSS = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:1.5rem auto;padding:0 1rem;
line-height:1.45;color:#1a1a1a}
h1{font-size:1.3rem}h2{font-size:1.1rem;border-bottom:1px solid #ccc;margin-top:1.8rem}
h3{font-size:1rem;margin-bottom:.3rem}
.question{white-space:pre-wrap;background:#f6f6f6;padding:.8rem;border-left:4px solid #888}
.answer{background:#e6f4e6;font-weight:600}.id{color:#666;font-size:.85em;font-family:monospace}
.edge{font-family:monospace;font-size:.9em}.muted{color:#666}.flag{color:#a00}
table{border-collapse:collapse;margin:.4rem 0}td,th{border:1px solid #ddd;padding:.2rem .5rem;
text-align:left;vertical-align:top}ul.options{list-style:none;padding-left:0}
ul.options li{padding:.2rem .4rem;margin:.1rem 0}code{font-size:.9em}
details{margin:.3rem 0 .8rem}summary{color:#555;cursor:pointer;font-size:.9em}
.because{margin-bottom:.2rem}.why p{margin:.3rem 0}
""".strip()


class EdgeSource(BaseModel):
    model_config = ConfigDict(frozen=True)

    sab: str | None = None
    first_release: str | None = None
    release: str | None = None
    active: bool = True


class DrawnEdge(BaseModel):
    """An evidence edge with the names of its ends and where the graph says it comes from."""

    model_config = ConfigDict(frozen=True)

    start: str
    type: str
    end: str
    start_name: str | None = None
    end_name: str | None = None
    known_type: bool = Field(default=True, description="type is a kgverify RelType")
    sources: list[EdgeSource] = Field(default_factory=list)


def esc(value: object) -> str:
    """Text as HTML text (quotes escaped too, for attribute values)."""
    return html.escape("" if value is None else str(value), quote=True)


def page_name(item_id: str) -> str:
    """The file name of an item's page (ids are hashes; anything else is made safe)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", item_id).lstrip(".") + ".html"


def _document(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n"
    )


def _concept(concept_id: str | None, names: Mapping[str, str | None]) -> str:
    if concept_id is None:
        return '<span class="muted">(not linked)</span>'
    name = names.get(concept_id)
    ident = f'<span class="id">{esc(concept_id)}</span>'
    return f"{esc(name)} {ident}" if name else ident


def _release(first: str | None, last: str | None) -> str:
    if first and last and first != last:
        return f"{first}..{last}"
    return first or last or "release unknown"


def source_text(sources: Iterable[EdgeSource]) -> str:
    """``MED-RT, UMLS@2025AA`` per asserting source, ``; `` between them."""
    parts = []
    for s in sources:
        text = f"{s.sab or 'source unknown'}, {_release(s.first_release, s.release)}"
        parts.append(text if s.active else text + ", retired")
    return "; ".join(parts)


def edge_line(
    start: str,
    start_name: str | None,
    rel: str,
    end: str,
    end_name: str | None,
    source: str,
) -> str:
    """One edge drawn readably: ``Diclofenac -[MAY_TREAT, MED-RT, UMLS@2025AA]-> Osteoarthritis``
    with the concept ids beside the names."""
    label = esc(rel) + (f", {esc(source)}" if source else "")

    def end_html(cid: str, name: str | None) -> str:
        return f'<b>{esc(name)}</b> <span class="id">{esc(cid)}</span>' if name else esc(cid)

    return (
        f'<span class="edge">{end_html(start, start_name)} -[{label}]-&gt; '
        f"{end_html(end, end_name)}</span>"
    )


def _drawn(edge: Edge, edges: Mapping[EdgeKey, DrawnEdge], names: Mapping[str, str | None]) -> str:
    found = edges.get((edge.start, edge.type, edge.end))
    if found is None:
        return edge_line(
            edge.start,
            names.get(edge.start),
            edge.type,
            edge.end,
            names.get(edge.end),
            "source not read",
        )
    if not found.known_type:
        source = "not a kgverify relationship type"
    elif not found.sources:
        source = "not in the graph now"
    else:
        source = source_text(found.sources)
    return edge_line(
        found.start,
        found.start_name or names.get(found.start),
        found.type,
        found.end,
        found.end_name or names.get(found.end),
        source,
    )


def _cited(edge: CitedEdge, names: Mapping[str, str | None]) -> str:
    source = ", ".join(x for x in (edge.source, edge.release) if x)
    return edge_line(
        edge.start,
        edge.start_name or names.get(edge.start),
        edge.type,
        edge.end,
        edge.end_name or names.get(edge.end),
        source,
    )


def _path(
    path: EvidencePath, edges: Mapping[EdgeKey, DrawnEdge], names: Mapping[str, str | None]
) -> str:
    head = (
        f"<p><code>{esc(path.rule)}@{esc(path.rule_version)}</code>: {esc(path.stance)}, "
        f"score {path.score:.3f}, {path.depth} is-a step(s) from the object</p>"
    )
    if not path.edges:
        return head + '<p class="muted">(no edges: the two sides are one concept)</p>'
    lines = "".join(f"<li>{_drawn(e, edges, names)}</li>" for e in path.edges)
    return f"{head}<ol>{lines}</ol>"


def _assertion(
    a: LineageAssertion, edges: Mapping[EdgeKey, DrawnEdge], names: Mapping[str, str | None]
) -> str:
    """What the answer's relation rests on, for the fold: the relation with ids, verdicts,
    rule, extractor, re-check, evidence paths and the record rows it came from."""
    rows = [
        (
            "relation",
            f"{_concept(a.subject, names)} <b>{esc(a.predicate)}</b> {_concept(a.object, names)}",
        ),
        ("assertion", f'<span class="id">{esc(a.id)}</span>'),
        ("as extracted", f"{esc(a.subject_text)} &rarr; {esc(a.object_text)}"),
        ("verdict", f"{esc(a.verdict)} (standing: {esc(a.standing_verdict)})"),
        ("rule", f"<code>{esc(a.rule)}</code>"),
        ("extractor", f"{esc(a.extractor)}, confidence {esc(a.confidence)}"),
        ("verified at", esc(a.verified_at)),
    ]
    if a.recheck is not None:
        r = a.recheck
        rows.append(
            (
                "re-checked",
                f"{esc(r.verdict)} in run {esc(r.run)} ({esc(r.checked_at)}): {esc(r.reason)}",
            )
        )
    table = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    paths = "".join(_path(p, edges, names) for p in a.evidence) or (
        '<p class="muted">(no evidence paths)</p>'
    )
    facts = "".join(
        f'<tr><td class="id">{esc(f.id)}</td><td>{esc(f.table)}</td><td>{esc(f.row)}</td>'
        f"<td>{esc(f.code)}</td><td>{esc(f.display)}</td></tr>"
        for f in a.facts
    )
    fact_table = (
        "<table><tr><th>fact</th><th>source table</th><th>row</th><th>code</th>"
        f"<th>as recorded</th></tr>{facts}</table>"
        if facts
        else '<p class="muted">(no source facts)</p>'
    )
    return (
        f"<table>{table}</table><h4>Evidence paths (best first)</h4>{paths}"
        f"<h4>Extracted from these record rows</h4>{fact_table}"
    )


def _fold(summary: str, body: str) -> str:
    """Detail for engineers, closed until opened (no script: ``<details>``)."""
    return f"<details><summary>{esc(summary)}</summary>{body}</details>"


def _why(why: DistractorWhy, names: Mapping[str, str | None]) -> str:
    """The fold of one distractor: its rules and versions, cited edges, compared sets."""
    distance = "beyond the search depth" if why.distance is None else f"{why.distance} is-a step(s)"
    parts = [
        f'<p>{esc(why.label)}. {esc(why.text)} <span class="id">{esc(why.concept_id)}</span>; '
        f"lure: {esc(why.lure)}; distance from the topic: {esc(distance)}</p>"
    ]
    for j in why.justifications:
        parts.append(f"<p><code>{esc(j.rule)}@{esc(j.version)}</code>: {esc(j.reason)}</p>")
        if j.edges:
            parts.append(
                "<ul>" + "".join(f"<li>{_cited(e, names)}</li>" for e in j.edges) + "</ul>"
            )
        if j.sets:
            rows = "".join(
                f"<tr><th>{esc(name)}</th><td>"
                + ", ".join(_concept(cid, names) for cid in ids)
                + "</td></tr>"
                for name, ids in sorted((named.name, named.ids) for named in j.sets)
            )
            parts.append(f"<table>{rows}</table>")
    return "".join(parts)


def names_of(item: QAItem, lineage: Lineage, edges: Iterable[DrawnEdge]) -> dict[str, str | None]:
    """Concept names known for a page: options, lineage concepts, drawn and cited edges."""
    names: dict[str, str | None] = {o.concept_id: o.text for o in item.options}
    for e in edges:
        names.setdefault(e.start, e.start_name)
        names.setdefault(e.end, e.end_name)
    for a in lineage.assertions:
        for c in a.evidence_concepts:
            if c.name:
                names.setdefault(c.id, c.name)
    for why in item.why_wrong:
        for j in why.justifications:
            for ce in j.edges:
                names.setdefault(ce.start, ce.start_name)
                names.setdefault(ce.end, ce.end_name)
    for fact in item.context:
        if fact.concept_id:
            names.setdefault(fact.concept_id, fact.text)
    return names


def page_concepts(item: QAItem, lineage: Lineage) -> set[str]:
    """Every concept id a page shows (whose name export reads when no edge names it)."""
    ids = {o.concept_id for o in item.options} | {item.topic}
    ids |= {c.concept_id for c in item.context if c.concept_id}
    for a in lineage.assertions:
        ids |= {x for x in (a.subject, a.object) if x}
    for why in item.why_wrong:
        for j in why.justifications:
            ids |= {cid for named in j.sets for cid in named.ids}
    return ids


def _patient(item: QAItem, lineage: Lineage) -> str:
    """Who and what the question shows, one fact a line: ``Condition: Asthma, recorded
    2021-03-04``."""
    facts = []
    for c in item.context:
        when = f", recorded {c.start[:10]}" if c.start else ""
        if c.end:
            when += f", ended {c.end[:10]}"
        facts.append(f"<li>{esc(role_words(c.role))}: {esc(c.text)}{esc(when)}</li>")
    status = "current" if lineage.current else "replaced by a later derivation"
    status += ", stands" if lineage.standing else ", does not stand"
    head = (
        f'<p class="muted">Patient <span class="id">{esc(item.patient_id)}</span>, episode '
        f'<span class="id">{esc(item.episode)}</span>; split {esc(item.split)}; {esc(status)}.'
        "</p>"
    )
    if not facts:
        return head + "<p>The question shows no facts from the patient's record.</p>"
    return (
        head + "<p>The question shows from the patient's record:</p><ul>" + "".join(facts) + "</ul>"
    )


def _options(item: QAItem) -> str:
    """Each option labelled once (``A. Penicillin V``), the answer marked."""
    rows = []
    for o in item.options:
        correct = o.label == item.answer
        cls = ' class="answer"' if correct else ""
        mark = " &#10003; the answer" if correct else ""
        rows.append(f"<li{cls}><b>{esc(o.label)}.</b> {esc(o.text)}{mark}</li>")
    return '<ul class="options">' + "".join(rows) + "</ul>"


def _answer(
    item: QAItem,
    lineage: Lineage,
    edges: Mapping[EdgeKey, DrawnEdge],
    names: Mapping[str, str | None],
) -> str:
    """The answer, then the relation it rests on as a sentence with its sources; the path,
    rule and record rows behind a fold."""
    text = next((o.text for o in item.options if o.label == item.answer), "")
    out = [f"<p>The answer is <b>{esc(item.answer)}. {esc(text)}</b>.</p>"]
    if not lineage.assertions:
        out.append('<p class="muted">(it rests on no relation in the graph)</p>')
    for a in lineage.assertions:
        out.append(f'<p class="because">Because: {esc(evidence_sentence(a))}</p>')
        out.append(_fold("Evidence path, rule and record rows", _assertion(a, edges, names)))
    return "".join(out)


def _wrong(item: QAItem, names: Mapping[str, str | None]) -> str:
    """``Why C is wrong: <one sentence>``, the vocabularies' reasons below it, rules and
    edges behind a fold."""
    out = []
    for why in item.why_wrong:
        reasons = " ".join(j.reason.rstrip(".") + "." for j in why.justifications)
        out.append(
            f'<div class="why"><p><b>Why {esc(why.label)} is wrong:</b> '
            f"{esc(why_wrong_sentence(item, why, names))}</p>"
            f'<p class="muted">In the vocabularies: {esc(reasons)}</p>'
            + _fold("Rules, edges and concept sets", _why(why, names))
            + "</div>"
        )
    return "".join(out) or '<p class="muted">(no reasons recorded)</p>'


def _record(item: QAItem, names: Mapping[str, str | None]) -> str:
    record = [
        ("item", item.item_id),
        ("options", "; ".join(f"{o.label}. {o.text} ({o.concept_id})" for o in item.options)),
        ("releases", ", ".join(item.releases)),
        ("filter policy", item.policy),
        ("difficulty", "unknown" if item.difficulty is None else f"{item.difficulty:.2f}"),
        ("topic", f"{names.get(item.topic) or ''} {item.topic}".strip()),
        ("content key", item.content_key),
        ("content group", item.content_group),
        ("template", item.template),
        ("seed", str(item.seed)),
        ("rules", ", ".join(item.rules)),
        (
            "distractor checks",
            "; ".join(f"{c.slot} of {c.predicate} with {c.fixed}" for c in item.checks),
        ),
        ("reviewed", ", ".join(item.reviewed) or "none"),
        (
            "patient facts shown",
            "; ".join(f"{c.role} {c.text}: fact {c.fact_id}, {c.concept_id}" for c in item.context),
        ),
    ]
    return (
        "<table>"
        + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in record)
        + "</table>"
    )


def _in_the_sheet(item: QAItem, lineage: Lineage, row: int | None) -> str:
    """Where the reviewer writes what they decide: the item's row, then one row per
    relation (export writes them in this order)."""
    distractors = joined([o.label for o in item.options if o.label != item.answer])
    where = f"row {row}" if row is not None else f"the row of item {item.item_id}"
    out = [
        f"<p>In <code>sheet.csv</code>, {esc(where)} is this item: write <b>accept</b> or "
        "<b>reject</b> in <code>decision</code>. If one of the wrong options "
        f"({esc(distractors)}) is in fact a defensible answer, write its letter in "
        "<code>veto_labels</code> and why in <code>veto_reason</code>.</p>"
    ]
    if lineage.assertions:
        rows = "".join(
            f"<li>{'' if row is None else f'row {row + n}: '}{esc(assertion_label(a))}</li>"
            for n, a in enumerate(lineage.assertions, 1)
        )
        out.append(
            "<p>The rows below it name the relations the answer rests on; write <b>true</b> "
            "or <b>false</b> in <code>decision</code> when you know whether one holds:</p>"
            f"<ul>{rows}</ul>"
        )
    return "".join(out)


def item_page(
    item: QAItem,
    lineage: Lineage,
    edges: Mapping[EdgeKey, DrawnEdge],
    known: Mapping[str, str | None] | None = None,
    row: int | None = None,
) -> str:
    """The review page of one item, top-down in sentences: the patient, the question, the
    options, the answer and why, why each distractor is wrong, where to write the decision;
    the engineers' detail (paths, rules, ids) behind folds. ``known`` names concepts no edge
    or option names; ``row`` is the item's row in the sheet."""
    names = names_of(item, lineage, edges.values())
    for cid, name in (known or {}).items():
        if name and not names.get(cid):
            names[cid] = name
    out = [
        '<p><a href="../index.html">&larr; all items</a></p>'
        f"<h1>{esc(item.task.value.capitalize())} question</h1>",
    ]
    if lineage.flags:
        out.append(
            "<ul>" + "".join(f'<li class="flag">{esc(f)}</li>' for f in lineage.flags) + "</ul>"
        )
    out.append("<h2>Patient</h2>" + _patient(item, lineage))
    out.append(f'<h2>Question</h2><div class="question">{esc(item.question)}</div>')
    out.append("<h2>Options</h2>" + _options(item))
    out.append("<h2>Answer</h2>" + _answer(item, lineage, edges, names))
    out.append("<h2>Why the other options are wrong</h2>" + _wrong(item, names))
    out.append("<h2>Your decision</h2>" + _in_the_sheet(item, lineage, row))
    out.append(_fold("Item record (ids, releases, rules)", _record(item, names)))
    return _document(f"{item.task.value} item {item.item_id}", "\n".join(out))


def index_page(
    items: Iterable[QAItem], title: str = "kgverify review", rows: Iterable[int] | None = None
) -> str:
    """The index: every exported item, linked, in sheet order, with its sheet row."""
    lines = []
    places = list(rows) if rows is not None else None
    for n, item in enumerate(items):
        answer = next((o.text for o in item.options if o.label == item.answer), "")
        question = item.question if len(item.question) <= 140 else item.question[:139] + "…"
        row = places[n] if places is not None else n + 2
        lines.append(
            f"<tr><td>{row}</td><td>{esc(item.task.value)}</td>"
            f'<td><a href="items/{esc(page_name(item.item_id))}">{esc(question)}</a></td>'
            f"<td>{esc(item.answer)}. {esc(answer)}</td></tr>"
        )
    body = (
        f"<h1>{esc(title)}</h1><p>{len(lines)} items. Open each question, then write your "
        "decision in <code>sheet.csv</code> on the row shown (how: <code>README.txt</code>), "
        "and run <code>kgverify review import sheet.csv</code>.</p>"
        "<table><tr><th>sheet row</th><th>task</th><th>question</th><th>answer</th></tr>"
        + "".join(lines)
        + "</table>"
    )
    return _document(title, body)
