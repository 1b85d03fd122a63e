"""What the local server gives Neo4j Browser: a style, and the audit queries as a guide
and as favorites.

All three are static files in the launcher jar, served next to the Browser's own files (public on
loopback, like them):

* ``/browser/kgverify/style.grass``: a GraSS style, captions by name (a concept's ``name``,
  a patient's pseudonym, an item's task and answer, ...) and a colour per label;
* ``/browser/kgverify/audit.html``: a ``:play`` guide with every ``queries/audit`` query, its
  header text, a runnable ``:param`` block and the statement;
* ``/browser/kgverify/audit-favorites.zip``: the same queries as ``.cypher`` files in one
  folder, which the Browser saves as favorites when the zip is dropped on it (a server
  cannot add favorites: Browser 5 keeps them in the web browser's storage).

The launcher sets ``browser.post_connect_cmd`` so that the Browser applies the style and
opens the guide each time it connects (docs/graph-browser.md). The guide and the zip are made
from the query files (:func:`render_guide`, :func:`render_favorites`);
``python -m kgverify.audit.browser`` writes them again after a query changed (a test says
when they are stale).
"""

from __future__ import annotations

import argparse
import html
import io
import re
import sys
import zipfile
from pathlib import Path
from typing import Any

from kgverify.audit.catalog import PREFIX, Audit, AuditParam, list_audits
from kgverify.graph.queries import get_query, list_queries, queries_root
from kgverify.server.local import FAVORITES_PATH, GUIDE_PATH, STYLE_PATH, launcher_source

__all__ = [
    "FAVORITES_PATH",
    "GUIDE_PATH",
    "STYLE_PATH",
    "parse_grass",
    "post_connect_cmd",
    "render_favorites",
    "render_guide",
]
# The favorites' folder in the Browser (the zip's folder).
FAVORITES_FOLDER = "kgverify audit"
# Where both live in the launcher's sources (Maven copies them into the jar).
RESOURCES = "src/main/resources"

_EXAMPLE = re.compile(r"\be\.g\.\s+([^\s,;()]+)")


def resource(path: str) -> Path:
    """The source file of a served path (``STYLE_PATH``, ``GUIDE_PATH``)."""
    return launcher_source() / RESOURCES / path.lstrip("/")


def style_url(http: str) -> str:
    """The style's address on a server whose HTTP base is ``http`` (``http://127.0.0.1:7474``)."""
    return http + STYLE_PATH


def guide_url(http: str) -> str:
    """The guide's address on a server whose HTTP base is ``http``."""
    return http + GUIDE_PATH


def post_connect_cmd(http: str) -> str:
    """``browser.post_connect_cmd`` as the launcher sets it (the Browser adds the colons)."""
    return f"style {style_url(http)}; play {guide_url(http)}"


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    """Selector -> properties, read the way Neo4j Browser 5 reads a ``.grass`` file.

    The Browser's reader has no comments, drops a property whose value holds a ``:`` and
    strips the quotes of a caption; so does this one.

    >>> parse_grass("node.Concept { caption: '{name}'; color: #C990C0; }")
    {'node.Concept': {'caption': '{name}', 'color': '#C990C0'}}
    """
    rules: dict[str, str] = {}
    keyword, props = "", ""
    in_string = in_props = in_binding = False
    for c in text:
        if c in "'\"":
            in_string = not in_string
            continue
        if c == "{" and not in_string:
            if in_props:
                in_binding = True
            else:
                in_props = True
                continue
        elif c == "}" and not in_string:
            if in_binding:
                in_binding = False
            else:
                in_props = False
                rules[keyword], keyword, props = props, "", ""
                continue
        if in_props:
            props += c
        elif not c.isspace():
            keyword += c
    out: dict[str, dict[str, str]] = {}
    for selector, body in rules.items():
        out[selector] = {}
        for prop in body.split(";"):
            parts = prop.split(":")
            if len(parts) == 2:
                out[selector][parts[0].strip()] = parts[1].strip()
    return out


def caption_properties(caption: str) -> list[str]:
    """The node properties a caption shows (``'{task} · {answer_text}'`` -> task, answer_text)."""
    return re.findall(r"\{([^{}]*)\}", caption)


# -- the guide ----------------------------------------------------------------------------------
def _cypher_literal(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def example_value(param: AuditParam) -> Any:
    """A value to show for an audit parameter: its ``e.g.`` example, its default, or a
    placeholder naming what to paste (``<item id>``)."""
    found = _EXAMPLE.search(param.description)
    if found is not None:
        return found.group(1)
    if not param.required:
        return param.default
    return f"<{param.names or param.name} id>" if param.names else f"<{param.name}>"


def param_block(audit: Audit) -> str:
    """The ``:param`` lines of an audit query (``;``-separated: the Browser runs them as one
    script), or "" when it takes none. ``=>`` makes the Browser evaluate the value as Cypher,
    so ``50`` is an integer (``LIMIT`` refuses a float)."""
    return ";\n".join(
        f":param {p.name} => {_cypher_literal(example_value(p))}" for p in audit.params
    )


def cli_line(audit: Audit) -> str:
    """The same query from the command line."""
    given = [
        f"--param {p.name}={example_value(p)}"
        for p in audit.params
        if p.required or _EXAMPLE.search(p.description)
    ]
    return " ".join(["kgverify audit", audit.name, *given])


def _describe_param(p: AuditParam) -> str:
    need = "required" if p.required else f"default {_cypher_literal(p.default)}"
    return f"<li><code>{p.name}</code> ({p.type}, {need}): {html.escape(p.description)}</li>"


def render_guide() -> str:
    """The ``:play`` guide: every audit query with its header, parameters and statement."""
    audits = list_audits()
    out = [
        "<!-- Made by `python -m kgverify.audit.browser` from queries/audit/*.cypher;"
        " do not edit. -->",
        '<article class="guide">',
        "<h2>kgverify audit queries</h2>",
        "<p>Every query of <code>queries/audit/</code>, as <code>kgverify audit NAME</code>"
        " runs it. Click a block to put it in the editor, or its &#9654; icon to run it."
        " Set the parameters first (<code>:params</code> shows them), then run the"
        " statement. All of them only read.</p>",
        "<p>Queries: " + ", ".join(f"<code>{a.name}</code>" for a in audits) + ".</p>",
        '<p>As saved favorites: download <a download href="'
        + FAVORITES_PATH
        + '">'
        + FAVORITES_PATH.rsplit("/", 1)[1]
        + "</a> and drop it on this window (a folder <code>"
        + FAVORITES_FOLDER
        + "</code> in the favorites).</p>",
        "<p>Nodes are captioned by name with kgverify's style, applied on connect; run"
        " <code>:style</code> to see it, <code>:style reset</code> for the Browser's own, and"
        " <code>:style http://127.0.0.1:PORT" + STYLE_PATH + "</code> to apply it again"
        " (<code>kgverify neo4j status --json</code> gives the address).</p>",
    ]
    for audit in audits:
        body = get_query(PREFIX + audit.name).text
        out += [
            "<hr>",
            f'<h3 id="{audit.name}">{audit.name}</h3>',
            f"<p>{html.escape(audit.description)}</p>",
        ]
        if audit.params:
            out += [
                "<p>Parameters:</p>",
                "<ul>",
                *(_describe_param(p) for p in audit.params),
                "</ul>",
                f'<pre class="runnable">{html.escape(param_block(audit))}</pre>',
            ]
        out += [
            f"<p>Returns: <code>{html.escape(audit.returns)}</code></p>",
            f'<pre class="runnable">{html.escape(body)}</pre>',
            f"<p>Command line: <code>{html.escape(cli_line(audit))}</code></p>",
        ]
    out.append("</article>")
    return "\n".join(out) + "\n"


def favorite_files() -> dict[str, str]:
    """Zip entry -> text of each favorite: an audit query file under a first line naming it
    (the Browser titles a favorite by its first line)."""
    files = {}
    for name in list_queries():
        if name.startswith(PREFIX):
            short = name.removeprefix(PREFIX)
            text = queries_root().joinpath(PREFIX, f"{short}.cypher").read_text(encoding="utf-8")
            files[f"{FAVORITES_FOLDER}/{short}.cypher"] = f"// {short}\n{text}"
    return files


def render_favorites() -> bytes:
    """The favorites zip, byte for byte the same for the same files (stored, fixed dates)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for entry, text in sorted(favorite_files().items()):
            info = zipfile.ZipInfo(entry, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            archive.writestr(info, text.encode("utf-8"))
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the Browser's audit guide again.")
    parser.add_argument("--check", action="store_true", help="Only say whether it is stale.")
    args = parser.parse_args(argv)
    made = {GUIDE_PATH: render_guide().encode("utf-8"), FAVORITES_PATH: render_favorites()}
    stale = []
    for path, content in made.items():
        target = resource(path)
        if not target.is_file() or target.read_bytes() != content:
            stale.append(target)
            if not args.check:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
    if args.check and stale:
        names = ", ".join(str(p) for p in stale)
        sys.stderr.write(f"stale: {names}; run python -m kgverify.audit.browser\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
