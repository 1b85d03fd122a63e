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
text-align:left;vertical-align:top}ol.options li{padding:.2rem .4rem;margin:.1rem 0}
code{font-size:.9em}
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
    rows = [
        (
            "relation",
            f"{_concept(a.subject, names)} <b>{esc(a.predicate)}</b> {_concept(a.object, names)}",
        ),
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
        f'<h3>Assertion <span class="id">{esc(a.id)}</span></h3><table>{table}</table>'
        f"<h4>Evidence paths (best first)</h4>{paths}"
        f"<h4>Extracted from these record rows</h4>{fact_table}"
    )


def _why(why: DistractorWhy, names: Mapping[str, str | None]) -> str:
    distance = "beyond the search depth" if why.distance is None else f"{why.distance} is-a step(s)"
    parts = [
        f'<h3>{esc(why.label)}. {esc(why.text)} <span class="id">{esc(why.concept_id)}</span></h3>',
        f'<p class="muted">distance from the topic: {esc(distance)}</p>',
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


def item_page(
    item: QAItem,
    lineage: Lineage,
    edges: Mapping[EdgeKey, DrawnEdge],
    known: Mapping[str, str | None] | None = None,
) -> str:
    """The review page of one item; ``known`` names concepts no edge or option names."""
    names = names_of(item, lineage, edges.values())
    for cid, name in (known or {}).items():
        if name and not names.get(cid):
            names[cid] = name
    status = "current" if lineage.current else "replaced by a later derivation"
    status += ", stands" if lineage.standing else ", does not stand"
    out = [
        f'<p><a href="../index.html">&larr; all items</a></p>'
        f'<h1>{esc(item.task.value.capitalize())} item <span class="id">{esc(item.item_id)}'
        "</span></h1>",
        f'<p>split {esc(item.split)}; patient <span class="id">{esc(item.patient_id)}</span>, '
        f'episode <span class="id">{esc(item.episode)}</span>; {esc(status)}</p>',
    ]
    if lineage.flags:
        out.append(
            "<ul>" + "".join(f'<li class="flag">{esc(f)}</li>' for f in lineage.flags) + "</ul>"
        )
    out.append(f'<h2>Question</h2><div class="question">{esc(item.question)}</div>')
    options = []
    for o in item.options:
        correct = o.label == item.answer
        mark = " &#10003; correct answer" if correct else ""
        cls = ' class="answer"' if correct else ""
        options.append(
            f"<li{cls}><b>{esc(o.label)}.</b> {esc(o.text)} "
            f'<span class="id">{esc(o.concept_id)}</span>{mark}</li>'
        )
    out.append('<h2>Options</h2><ol class="options" type="A">' + "".join(options) + "</ol>")
    context = "".join(
        f"<tr><td>{esc(c.role)}</td><td>{esc(c.text)}</td><td>{esc(c.start)}</td>"
        f'<td class="id">{esc(c.concept_id)}</td><td class="id">{esc(c.fact_id)}</td></tr>'
        for c in item.context
    )
    out.append(
        "<h2>Patient facts the question shows</h2>"
        + (
            "<table><tr><th>role</th><th>text</th><th>date</th><th>concept</th><th>fact</th>"
            f"</tr>{context}</table>"
            if context
            else '<p class="muted">(none)</p>'
        )
    )
    out.append("<h2>Why the answer is right: the relations it rests on</h2>")
    out.extend(_assertion(a, edges, names) for a in lineage.assertions)
    out.append("<h2>Why each distractor is wrong</h2>")
    out.extend(_why(w, names) for w in item.why_wrong)
    if not item.why_wrong:
        out.append('<p class="muted">(no justifications recorded)</p>')
    record = [
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
    ]
    out.append(
        "<h2>Item record</h2><table>"
        + "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in record)
        + "</table>"
    )
    distractors = ";".join(o.label for o in item.options if o.label != item.answer)
    basis = ";".join(f"{a}=false" for a in item.basis)
    out.append(
        "<h2>In the sheet</h2><p>Row <code>"
        + esc(item.item_id)
        + "</code>: <code>decision</code> accept or reject; <code>veto_labels</code> any of "
        + f"<code>{esc(distractors)}</code> that is a defensible answer, with a "
        + "<code>veto_reason</code>; <code>relation_decisions</code> e.g. "
        + f"<code>{esc(basis)}</code> for a relation that is false (or "
        + "<code>=true</code>: true though the vocabularies do not say so).</p>"
    )
    return _document(f"{item.task.value} item {item.item_id}", "\n".join(out))


def index_page(items: Iterable[QAItem], title: str = "kgverify review") -> str:
    """The index: every exported item, linked, in sheet order."""
    rows = []
    for n, item in enumerate(items, 1):
        answer = next((o.text for o in item.options if o.label == item.answer), "")
        question = item.question if len(item.question) <= 140 else item.question[:139] + "…"
        rows.append(
            f"<tr><td>{n}</td><td>{esc(item.task.value)}</td>"
            f'<td><a href="items/{esc(page_name(item.item_id))}">{esc(item.item_id)}</a></td>'
            f"<td>{esc(question)}</td><td>{esc(item.answer)}. {esc(answer)}</td></tr>"
        )
    body = (
        f"<h1>{esc(title)}</h1><p>{len(rows)} items. Fill <code>sheet.csv</code> (one row per "
        "item; columns in <code>README.txt</code>), then run "
        "<code>kgverify review import sheet.csv</code>.</p>"
        "<table><tr><th>#</th><th>task</th><th>item</th><th>question</th><th>answer</th></tr>"
        + "".join(rows)
        + "</table>"
    )
    return _document(title, body)
