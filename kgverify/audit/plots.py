"""Pictures of the hallucination filter for the notebooks (needs the ``notebooks`` extra:
matplotlib). Each function takes what an audit query or API call returned and an optional
matplotlib ``Axes``, draws, and returns the axes; nothing here reads the graph.

    from kgverify.api import audit
    from kgverify.audit.plots import plot_verdict_shares
    plot_verdict_shares(audit("filter_rates"))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import networkx as nx

from kgverify.verify.model import VerdictKind

if TYPE_CHECKING:
    from matplotlib.axes import Axes

# One colour per verdict, the same in every plot.
VERDICT_COLOURS = {
    VerdictKind.SUPPORTED.value: "#2e7d32",
    VerdictKind.CONTRADICTED.value: "#c62828",
    VerdictKind.UNSUPPORTED.value: "#ef6c00",
    VerdictKind.AMBIGUOUS.value: "#6a1b9a",
    VerdictKind.UNLINKED.value: "#757575",
    VerdictKind.TYPE_MISMATCH.value: "#1565c0",
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


def plot_filter_sweep(sweep: list[dict[str, Any]], ax: Axes | None = None) -> Axes:
    """Items per task for each filter policy (the result of ``api.filter_sweep``)."""
    ax = _axes(ax, (8, 4))
    labels = [
        f"{'+'.join(s['accept'])}\nscore>={s['min_score']}\nconf>={s['min_confidence']}"
        for s in sweep
    ]
    tasks = sorted({t for s in sweep for t in s["items"]})
    bottom = [0] * len(sweep)
    for task in tasks:
        counts = [s["items"].get(task, 0) for s in sweep]
        ax.bar(labels, counts, bottom=bottom, label=task)
        bottom = [a + b for a, b in zip(bottom, counts, strict=True)]
    ax.set_ylabel("items")
    ax.set_title("Items derived under each filter policy")
    ax.legend(fontsize=8)
    ax.tick_params(axis="x", labelsize=7)
    return ax


def draw_evidence_graph(g: nx.DiGraph[str], ax: Axes | None = None) -> Axes:
    """The evidence subgraph of an item (``audit.evidence_graph``): nodes coloured by kind,
    edges labelled with their relationship type."""
    ax = _axes(ax, (11, 7))
    pos = nx.kamada_kawai_layout(g) if len(g) > 2 else nx.spring_layout(g, seed=13)
    colours = [KIND_COLOURS.get(g.nodes[n].get("kind", "concept"), "#90caf9") for n in g]
    nx.draw_networkx_nodes(g, pos, node_color=colours, node_size=500, ax=ax)
    nx.draw_networkx_edges(g, pos, ax=ax, arrows=True, arrowsize=12, node_size=500)
    labels = {n: _short(str(g.nodes[n].get("label") or n)) for n in g}
    nx.draw_networkx_labels(g, pos, labels, font_size=7, ax=ax)
    edge_labels = {(a, b): d.get("type", "") for a, b, d in g.edges(data=True)}
    nx.draw_networkx_edge_labels(g, pos, edge_labels, font_size=6, ax=ax)
    for kind, colour in KIND_COLOURS.items():
        ax.scatter([], [], color=colour, label=kind)
    ax.legend(fontsize=7, loc="lower left")
    ax.set_axis_off()
    return ax


def _short(text: str, width: int = 28) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
