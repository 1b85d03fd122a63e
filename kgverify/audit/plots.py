"""Pictures of the hallucination filter for the notebooks (needs the ``notebooks`` extra:
matplotlib). Each function takes what an audit query or API call returned and an optional
matplotlib ``Axes``, draws, and returns the axes; nothing here reads the graph.

    from kgverify.api import audit
    from kgverify.audit.plots import plot_verdict_shares
    plot_verdict_shares(audit("filter_rates"))
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx

from kgverify.verify.model import VerdictKind

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.backend_bases import RendererBase
    from matplotlib.text import Text
    from matplotlib.transforms import Bbox

    from kgverify.derive.model import PolicyYield
    from kgverify.verify.verifier import FilterPolicy

# One colour per verdict, the same in every plot.
VERDICT_COLOURS = {
    VerdictKind.SUPPORTED.value: "#2e7d32",
    VerdictKind.CONTRADICTED.value: "#c62828",
    VerdictKind.UNSUPPORTED.value: "#ef6c00",
    VerdictKind.AMBIGUOUS.value: "#6a1b9a",
    VerdictKind.UNLINKED.value: "#757575",
    VerdictKind.TYPE_MISMATCH.value: "#1565c0",
}
# One colour per dialogue verdict (docs/dialogue.md): the relation verdicts' where they match.
MENTION_COLOURS = {
    "grounded": VERDICT_COLOURS[VerdictKind.SUPPORTED.value],
    "leak": "#6a1b9a",
    "contradicted": VERDICT_COLOURS[VerdictKind.CONTRADICTED.value],
    "unsupported": VERDICT_COLOURS[VerdictKind.UNSUPPORTED.value],
    "unlinked": VERDICT_COLOURS[VerdictKind.UNLINKED.value],
}
KIND_COLOURS = {
    "item": "#263238",
    "assertion": "#8d6e63",
    "answer": "#2e7d32",
    "distractor": "#c62828",
    "concept": "#90caf9",
}


def _axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, made = plt.subplots(figsize=size)
    return made


def plot_verdict_shares(rates: list[dict[str, Any]], ax: Axes | None = None) -> Axes:
    """Stacked bars: the share of each verdict per predicate and extractor (rows of the
    ``filter_rates`` audit query), with the relation count on each bar."""
    ax = _axes(ax, (9, 0.6 * len(rates) + 1.5))
    labels = [f"{r['predicate']} / {r['extractor']}" for r in rates]
    left = [0.0] * len(rates)
    for verdict, colour in VERDICT_COLOURS.items():
        shares = [r[verdict] / r["relations"] if r["relations"] else 0.0 for r in rates]
        ax.barh(labels, shares, left=left, color=colour, label=verdict)
        left = [a + b for a, b in zip(left, shares, strict=True)]
    for n, r in enumerate(rates):
        ax.text(1.01, n, f"n={r['relations']}", va="center", fontsize=8)
    ax.set_xlim(0, 1.12)
    ax.set_xlabel("share of relations")
    ax.set_title("Verdicts per predicate and extractor")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3, fontsize=8)
    return ax


def plot_rule_hits(hits: list[dict[str, Any]], ax: Axes | None = None) -> Axes:
    """Bars per rule version: assertions it decided and items resting on them (rows of
    the ``rule_hits`` audit query)."""
    ax = _axes(ax, (8, 0.5 * len(hits) + 1.5))
    labels = [r["rule"] for r in hits]
    ys = list(range(len(hits)))
    ax.barh([y - 0.2 for y in ys], [r["assertions"] for r in hits], 0.4, label="assertions")
    ax.barh([y + 0.2 for y in ys], [r["items"] for r in hits], 0.4, label="items")
    ax.set_yticks(ys, labels)
    ax.set_xlabel("count")
    ax.set_title("Rule hits")
    ax.legend(fontsize=8)
    return ax


def plot_dialogue_verdicts(summary: list[dict[str, Any]], ax: Axes | None = None) -> Axes:
    """Stacked bars: mentions per verdict in each checked dialogue (rows of the
    ``dialogue_summary`` audit query), with the patient turns checked on each bar."""
    ax = _axes(ax, (8, 0.45 * len(summary) + 1.8))
    labels = [r["dialogue"] for r in summary]
    left = [0] * len(summary)
    for verdict, colour in MENTION_COLOURS.items():
        counts = [r[verdict] for r in summary]
        ax.barh(labels, counts, left=left, color=colour, label=verdict)
        left = [a + b for a, b in zip(left, counts, strict=True)]
    for n, r in enumerate(summary):
        ax.text(left[n] + 0.2, n, f"{r['turns']} turns", va="center", fontsize=8)
    ax.set_xlim(0, max(left, default=0) * 1.25 + 1)
    ax.invert_yaxis()
    ax.set_xlabel("mentions")
    ax.set_title("What the checker found in each simulated-patient dialogue")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=5, fontsize=8)
    return ax


def plot_filter_sweep(sweep: Sequence[PolicyYield], ax: Axes | None = None) -> Axes:
    """Items per task for each filter policy (the result of ``api.filter_sweep``)."""
    ax = _axes(ax, (8, 4))
    labels = [
        f"{'+'.join(s.accept)}\nscore>={s.min_score}\nconf>={s.min_confidence}" for s in sweep
    ]
    tasks = sorted({t for s in sweep for t in s.items})
    bottom = [0] * len(sweep)
    for task in tasks:
        counts = [s.items.get(task, 0) for s in sweep]
        ax.bar(labels, counts, bottom=bottom, label=task)
        bottom = [a + b for a, b in zip(bottom, counts, strict=True)]
    ax.set_ylabel("items")
    ax.set_title("Items derived under each filter policy")
    ax.legend(fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    return ax


def plot_score_distributions(
    rows: list[dict[str, Any]],
    policy: FilterPolicy | None = None,
    axes: Sequence[Axes] | None = None,
) -> tuple[Axes, Axes]:
    """Two histograms, score and extractor confidence, with one bar per verdict in each bin
    (rows of the ``relation_scores`` audit query). Bars are the share of that verdict's
    relations, so a verdict of 100 relations reads beside one of 1,000; the legend gives each
    verdict's count. ``policy`` draws its thresholds as dashed lines."""
    if axes is None:
        import matplotlib.pyplot as plt

        _, made = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
        axes = list(made)
    score_ax, confidence_ax = axes[0], axes[1]
    verdicts = [v for v in VERDICT_COLOURS if any(r["verdict"] == v for r in rows)]
    edges = [round(i * 0.1, 1) for i in range(11)]
    width = 0.1 / (len(verdicts) + 1)
    for ax, field, threshold, name in (
        (score_ax, "score", policy.min_score if policy else None, "score"),
        (confidence_ax, "confidence", policy.min_confidence if policy else None, "confidence"),
    ):
        for k, verdict in enumerate(verdicts):
            values = [float(r[field] or 0.0) for r in rows if r["verdict"] == verdict]
            counts = [0] * 10
            for v in values:
                counts[min(9, max(0, int(v * 10 + 1e-9)))] += 1
            shares = [c / len(values) for c in counts]
            xs = [edges[b] + width * (k + 1) for b in range(10)]
            ax.bar(
                xs,
                shares,
                width,
                color=VERDICT_COLOURS[verdict],
                label=f"{verdict} (n={len(values)})",
            )
        if threshold is not None:
            ax.axvline(threshold, color="black", linestyle="--", linewidth=1)
            ax.text(
                threshold + 0.012,
                0.5,
                f"policy: {name} >= {threshold:g}",
                fontsize=8,
                rotation=90,
                va="center",
                transform=ax.get_xaxis_transform(),
            )
        ax.set_xlim(0, 1.0)
        ax.set_xticks(edges)
        ax.set_xlabel(f"{name} (bins of 0.1; the last includes 1.0)")
        ax.set_title(f"{name.capitalize()} per verdict")
    score_ax.set_ylabel("share of the verdict's relations")
    score_ax.set_ylim(0, 1.05)
    handles, labels = score_ax.get_legend_handles_labels()
    score_ax.figure.legend(
        handles,
        labels,
        fontsize=8,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=max(1, len(verdicts)),
        title="verdict (relations)",
        title_fontsize=8,
    )
    return score_ax, confidence_ax


def plot_policy_precision(precision: list[dict[str, Any]], ax: Axes | None = None) -> Axes:
    """Per policy (rows of ``audit.quality.policy_precision``): the share of the reviewed
    relations it keeps that reviewers judged true and, when item reviews were given, the
    share of the reviewed items it keeps that reviewers accepted; each bar with its 95%
    Wilson interval and the counts behind it ("7/9"). A policy that keeps nothing reviewed
    has no bar and says so."""
    ax = _axes(ax, (max(8.0, 2.1 * len(precision)), 5.0))
    with_items = any(p.get("item_precision") is not None for p in precision)
    series = [("relations judged true", "", "true", "reviewed", "#2e7d32")]
    if with_items:
        series.append(("items accepted", "item_", "items_accepted", "items_reviewed", "#1565c0"))
    width = 0.8 / len(series)
    xs = list(range(len(precision)))
    for k, (name, prefix, hits, total, colour) in enumerate(series):
        shift = (k - (len(series) - 1) / 2) * width
        shown = False
        for x, p in zip(xs, precision, strict=True):
            value, n = p[f"{prefix}precision"], p[total]
            if value is None:
                ax.text(x + shift, 0.02, "none\nreviewed", ha="center", fontsize=7, color="#757575")
                continue
            low, high = p[f"{prefix}low"], p[f"{prefix}high"]
            ax.bar(x + shift, value, width * 0.9, color=colour, label=None if shown else name)
            shown = True
            ax.errorbar(
                x + shift,
                value,
                yerr=[[value - low], [high - value]],
                color="black",
                capsize=3,
                linewidth=1,
            )
            ax.text(x + shift, high + 0.02, f"{value:.2f}\n{p[hits]}/{n}", ha="center", fontsize=7)
    labels = [
        "\n".join(
            (
                "+".join(p["accept"]),
                f"score >= {p['min_score']:g}",
                f"conf >= {p['min_confidence']:g}",
                f"keeps {p['kept']} relations",
            )
        )
        for p in precision
    ]
    ax.set_xticks(xs, labels, fontsize=7)
    ax.set_ylim(0, 1.4)
    ax.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_ylabel("precision against the review")
    ax.set_xlabel("filter policy")
    ax.set_title("Precision of each filter policy against reviewed labels (95% Wilson interval)")
    handles, names = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, names, fontsize=8, loc="upper center", ncol=len(series))
    return ax


def concept_label(node: str, name: str | None, width: int = 24) -> str:
    """A concept's label: its name wrapped to ``width`` (two lines at most), then its id with
    the vocabulary prefix (``RXNORM:8410``)."""
    lines = textwrap.wrap(name or "", width)
    if len(lines) > 2:
        lines = [lines[0], _short(" ".join(lines[1:]), width)]
    return "\n".join([*lines, node])


def _node_text(g: nx.DiGraph[str], node: str) -> str:
    data = g.nodes[node]
    kind = data.get("kind", "concept")
    label = str(data.get("label") or "")
    if kind == "item":
        return f"{label}\n{node}"
    if kind == "assertion":
        wrapped = textwrap.wrap(label, 26)
        if len(wrapped) > 3:
            wrapped = [*wrapped[:2], _short(" ".join(wrapped[2:]), 26)]
        return "\n".join([*wrapped, f"assertion {node}"])
    return concept_label(node, label if label != node else None)


def evidence_layout(g: nx.DiGraph[str]) -> dict[str, tuple[float, float]]:
    """Columns by distance from the item (ignoring direction), so every edge joins the same
    or neighbouring columns; rows ordered by the mean row of each node's neighbours in the
    column before (a few sweeps both ways, which uncrosses most edges). The tallest column
    is spaced evenly, the others level with their neighbours, a row's height apart at least.
    Parts not connected to the item (edges a distractor's justification cites) are laid out
    the same way from their best-connected node, below, from the second column. Positions
    are in inches (``COLUMN_WIDTH``, ``ROW_HEIGHT``), the first row at 0."""
    undirected = g.to_undirected(as_view=True)
    items = sorted(n for n, d in g.nodes(data=True) if d.get("kind") == "item")
    parts = sorted(
        (sorted(c) for c in nx.connected_components(undirected)),
        key=lambda c: (not any(n in items for n in c), -len(c), c[0]),
    )
    pos: dict[str, tuple[float, float]] = {}
    top = 0.0
    for k, part in enumerate(parts):
        root = next((n for n in part if n in items), None) or min(
            part, key=lambda n: (-undirected.degree(n), n)
        )
        first = 0 if k == 0 or len(part) == 1 else 1
        block = _layered(undirected.subgraph(part), root, first)
        highest = max(y for _, y in block.values())
        pos.update({n: (x, y - highest + top) for n, (x, y) in block.items()})
        top = min(y for _, y in pos.values()) - ROW_HEIGHT * 1.3
    return pos


def _layered(undirected: nx.Graph[str], root: str, first: int) -> dict[str, tuple[float, float]]:
    """One connected part in columns by distance from ``root`` (the first at ``first``)."""
    depth = dict(nx.single_source_shortest_path_length(undirected, root))
    columns: dict[int, list[str]] = {}
    for node in sorted(undirected, key=lambda n: (str(undirected.nodes[n].get("kind")), n)):
        columns.setdefault(depth[node], []).append(node)
    row = {n: float(i) for col in columns.values() for i, n in enumerate(col)}
    order = sorted(columns)
    for sweep in range(6):
        for c in order if sweep % 2 == 0 else reversed(order):
            near = c - 1 if sweep % 2 == 0 else c + 1
            if near not in columns:
                continue

            def centre(n: str, near: int = near) -> float:
                around = [row[m] for m in undirected[n] if depth[m] == near]
                return sum(around) / len(around) if around else row[n]

            columns[c].sort(key=lambda n: (centre(n), row[n], n))
            row.update({n: float(i) for i, n in enumerate(columns[c])})
    # The tallest column is spaced evenly; the others, column by column away from it, sit
    # level with their neighbours there, pushed apart to a row's height.
    tallest = max(order, key=lambda c: (len(columns[c]), -c))
    y = {n: -i * ROW_HEIGHT for i, n in enumerate(columns[tallest])}
    for c in [*range(tallest + 1, order[-1] + 1), *range(tallest - 1, order[0] - 1, -1)]:
        near = c - 1 if c > tallest else c + 1
        wanted = []
        for n in columns[c]:
            around = [y[m] for m in undirected[n] if depth[m] == near and m in y] or [
                y[m] for m in undirected[n] if m in y
            ]
            wanted.append(sum(around) / len(around) if around else 0.0)
        ranked = sorted(zip(columns[c], wanted, strict=True), key=lambda p: -p[1])
        y.update(_pack([n for n, _ in ranked], [w for _, w in ranked]))
    return {n: (float(depth[n] + first) * COLUMN_WIDTH, y[n]) for n in undirected}


def _pack(nodes: list[str], wanted: list[float]) -> dict[str, float]:
    """Rows (top to bottom, y decreasing) as near the wanted heights as a row's height apart
    allows, in the given order: pushed down where too close, then the block shifted so the
    mean displacement is zero."""
    placed: list[float] = []
    for w in wanted:
        placed.append(min(w, placed[-1] - ROW_HEIGHT) if placed else w)
    shift = sum(w - p for w, p in zip(wanted, placed, strict=True)) / len(placed) if placed else 0
    return {n: p + shift for n, p in zip(nodes, placed, strict=True)}


# Evidence subgraph geometry, in inches of the figure it makes itself.
COLUMN_WIDTH = 2.9
ROW_HEIGHT = 0.78


def draw_evidence_graph(
    g: nx.DiGraph[str], ax: Axes | None = None, title: str | None = None
) -> Axes:
    """The evidence subgraph of an item (``audit.evidence_graph``) in columns by distance
    from the item: each node a box coloured by kind, labelled with its name and its id
    (concepts with their vocabulary prefix, ``RXNORM:8410``); arrows labelled with the
    relationship type, each label placed along its arrow where it covers no box and no
    other label. The title names the item (default ``Evidence subgraph of <task> item
    <id>``)."""
    from matplotlib.patches import Patch

    pos = evidence_layout(g)
    columns = round(max((x for x, _ in pos.values()), default=0.0) / COLUMN_WIDTH) + 1
    low = min((y for _, y in pos.values()), default=0.0) - ROW_HEIGHT / 2
    high = max((y for _, y in pos.values()), default=0.0) + ROW_HEIGHT / 2
    if ax is None:
        import matplotlib.pyplot as plt

        width, height = columns * COLUMN_WIDTH, high - low + 1.3
        fig = plt.figure(figsize=(width, height))
        ax = fig.add_axes((0.0, 0.6 / height, 1.0, (high - low) / height))
    ax.set_xlim(-COLUMN_WIDTH / 2, (columns - 0.5) * COLUMN_WIDTH)
    ax.set_ylim(low, high)
    ax.set_axis_off()
    boxes = {}
    for node in g:
        kind = str(g.nodes[node].get("kind", "concept"))
        colour = KIND_COLOURS.get(kind, KIND_COLOURS["concept"])
        boxes[node] = ax.text(
            *pos[node],
            _node_text(g, node),
            ha="center",
            va="center",
            fontsize=7,
            color="white" if kind in ("item", "assertion", "answer", "distractor") else "black",
            bbox={"boxstyle": "round,pad=0.3", "facecolor": colour, "edgecolor": colour},
            zorder=3,
        )
    renderer = _renderer(ax)
    placed = [_extent(boxes[n], renderer) for n in g]
    widest: dict[int, float] = {}
    for n, extent in zip(g, placed, strict=True):
        column = round(pos[n][0] / COLUMN_WIDTH)
        widest[column] = max(widest.get(column, 0.0), extent.width)
    dpi = ax.figure.dpi
    size = dict(zip(g, placed, strict=True))
    for a, b, data in sorted(g.edges(data=True), key=lambda e: (pos[e[0]][0], e[0], e[1])):
        (xa, ya), (xb, yb) = pos[a], pos[b]
        # Arrows stop at the boxes: shrunk by the box's reach along the arrow, in points
        # (patchA/patchB would read the boxes before they are placed in the first drawing).
        (pa, qa), (pb, qb) = ax.transData.transform([pos[a], pos[b]])
        shrink_a = _reach(size[a], pb - pa, qb - qa) * 72 / dpi + 2
        shrink_b = _reach(size[b], pa - pb, qa - qb) * 72 / dpi + 2
        if abs(xa - xb) < 1e-9:
            # Same column: out to the right of both boxes, along, and back in, so the arrow
            # passes no other box of the column.
            arm = widest[round(xa / COLUMN_WIDTH)] / 2 * 72 / dpi + 12
            style = f"arc,angleA=0,angleB=0,armA={arm:.0f},armB={arm:.0f},rad=4"
            shrink_a = size[a].width / 2 * 72 / dpi + 2
            shrink_b = size[b].width / 2 * 72 / dpi + 2
            xs = xa + _inches(ax, arm)
            candidates = [(xs + d, ya + (yb - ya) * t) for d in _ASIDE for t in _ALONG]
        else:
            style = "arc3,rad=0"
            candidates = [
                (xa + (xb - xa) * t, ya + (yb - ya) * t + d) for d in _ASIDE for t in _ALONG
            ]
        ax.annotate(
            "",
            xy=pos[b],
            xytext=pos[a],
            arrowprops={
                "arrowstyle": "-|>",
                "color": "#546e7a",
                "linewidth": 0.9,
                "shrinkA": shrink_a,
                "shrinkB": shrink_b,
                "connectionstyle": style,
            },
            zorder=1,
        )
        text = str(data.get("type", ""))
        if text:
            placed.append(_edge_label(ax, renderer, candidates, text, placed))
    handles = [
        Patch(facecolor=c, edgecolor=c, label=kind)
        for kind, c in KIND_COLOURS.items()
        if any(g.nodes[n].get("kind", "concept") == kind for n in g)
    ]
    ax.legend(
        handles=handles,
        fontsize=8,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.01),
        ncol=len(handles),
        frameon=False,
    )
    if title is None:
        items = [(n, d) for n, d in g.nodes(data=True) if d.get("kind") == "item"]
        task = str(items[0][1].get("label") or "item").removesuffix(" item") if items else ""
        title = f"Evidence subgraph of {task} item {items[0][0]}" if items else "Evidence"
    ax.set_title(title, fontsize=11)
    return ax


def _renderer(ax: Axes) -> RendererBase:
    """A renderer for measuring texts: the figure's own, or an Agg one where its canvas has
    none (a figure the notebook backend has already shown and closed)."""
    figure = ax.get_figure(root=True)
    assert figure is not None
    get = getattr(figure.canvas, "get_renderer", None)
    if get is None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        get = FigureCanvasAgg(figure).get_renderer
    renderer: RendererBase = get()
    return renderer


# Where along an edge its label may go, in order of preference (0: start, 1: end).
_ALONG = (0.5, 0.42, 0.58, 0.34, 0.66, 0.26, 0.74, 0.18, 0.82)
# and how far beside it, in inches, when no point on it is free
_ASIDE = (0.0, 0.09, -0.09, 0.16, -0.16)


def _reach(box: Bbox, dx: float, dy: float) -> float:
    """How far from its centre a box's edge is in the direction (dx, dy), display units."""
    along = math.hypot(dx, dy)
    if along == 0:
        return 0.0
    limits = []
    if dx:
        limits.append(box.width / 2 / abs(dx))
    if dy:
        limits.append(box.height / 2 / abs(dy))
    return min(limits) * along


def _inches(ax: Axes, points: float) -> float:
    """``points`` as x data units of ``ax`` (inches in the evidence subgraph's own figure)."""
    left, right = ax.get_xlim()
    width = ax.get_window_extent().width / ax.figure.dpi * 72
    return points * (right - left) / width if width else 0.0


def _edge_label(
    ax: Axes,
    renderer: RendererBase,
    candidates: list[tuple[float, float]],
    text: str,
    placed: list[Bbox],
) -> Bbox:
    """Put an edge's label at the first candidate point where it overlaps nothing placed
    (else where it overlaps least); returns its extent."""
    label = ax.text(
        0,
        0,
        text,
        fontsize=6.5,
        ha="center",
        va="center",
        color="#37474f",
        bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none"},
        zorder=2,
    )
    best: tuple[float, tuple[float, float], Bbox] | None = None
    for point in candidates:
        label.set_position(point)
        extent = _extent(label, renderer)
        covered = sum(_overlap(extent, other) for other in placed)
        if best is None or covered < best[0]:
            best = (covered, point, extent)
        if covered == 0:
            break
    assert best is not None
    label.set_position(best[1])
    return best[2]


def _overlap(a: Bbox, b: Bbox) -> float:
    """The area two boxes share (0 when apart)."""
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def _extent(text: Text, renderer: RendererBase) -> Bbox:
    """Where a text is drawn, its box included, in display units."""
    patch = text.get_bbox_patch()
    if patch is None:
        return text.get_window_extent(renderer)
    text.update_bbox_position_size(renderer)
    return patch.get_window_extent(renderer)


def label_overlaps(ax: Axes) -> list[tuple[str, str]]:
    """Pairs of texts drawn on ``ax`` whose boxes overlap (the evidence subgraph's node and
    edge labels): empty when every label can be read."""
    renderer = _renderer(ax)
    texts = [t for t in ax.texts if t.get_text() and t.get_visible()]
    extents = [_extent(t, renderer) for t in texts]
    return [
        (texts[i].get_text(), texts[j].get_text())
        for i in range(len(texts))
        for j in range(i + 1, len(texts))
        if extents[i].overlaps(extents[j])
    ]


def _short(text: str, width: int = 28) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
