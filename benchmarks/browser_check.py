"""Neo4j Browser in a real headless browser: log in, run a query, take a screenshot.

Starts a private local Neo4j (fresh data folder, free ports, the shared Maven build), loads
the shipped sample vocabularies, opens ``http://127.0.0.1:<http>/browser/`` in Debian's
``chromium`` (headless) and drives it over the DevTools protocol on a pipe (no Python
package needed): the connect form is filled with the generated password, kgverify's style
and audit guide must come up on their own (the server's ``browser.post_connect_cmd``), a
query is run, its nodes must be captioned by name, and the page is saved as a PNG (default
``docs/img/neo4j-browser.png``). Exit 0 only when all of that happened.

With ``--running`` it uses the local server the environment names (``KGVERIFY_*``: e.g.
one ``kgverify sample`` filled) instead, loads nothing, and leaves it running; ``--query``
runs another statement, ``--expect`` names a caption that must show.

    apt-get install chromium          # Debian 12: chromium 156
    .venv/bin/python -m benchmarks.browser_check [--out PNG] [--no-sample]
    .venv/bin/python -m benchmarks.browser_check --running --query SUBGRAPH --out PNG

See docs/graph-browser.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from base64 import b64decode
from pathlib import Path
from typing import Any

from kgverify.config import Settings
from kgverify.server import LocalServer

ROOT = Path(__file__).resolve().parents[1]
QUERY = "MATCH p = (:Concept)-[:IS_A]->(:Concept) RETURN p LIMIT 40"
# A small subgraph of a sample run: one item, the patient it is about, its answer and its
# distractors, the assertion it rests on with its concepts, and three facts it shows with
# their concepts.
SUBGRAPH = (
    "MATCH (i:Item {current: true})-[:ABOUT]->(p:Patient) "
    "WITH i, p ORDER BY i.task DESC, i.id LIMIT 1 "
    "MATCH about = (i)-[:ABOUT]->(p) "
    "MATCH options = (i)-[:ANSWER|DISTRACTOR]->(:Concept) "
    "OPTIONAL MATCH basis = (i)-[:RESTS_ON]->(:Assertion)-[:SUBJECT|OBJECT]->(:Concept) "
    "CALL (i) { OPTIONAL MATCH f = (i)-[:FROM_FACT]->(:Fact)-[:CODED_AS]->(:Concept) "
    "RETURN collect(f)[..3] AS facts } "
    "RETURN about, options, basis, facts"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Chromium:
    """Headless chromium driven over ``--remote-debugging-pipe`` (fd 3 in, fd 4 out)."""

    def __init__(self, binary: str, profile: Path, size: tuple[int, int]) -> None:
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def wire() -> None:  # in the child: its fd 3 reads our commands, fd 4 answers
            high_r, high_w = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(
            [
                binary,
                "--headless=new",
                "--no-sandbox",  # root in a container
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                f"--window-size={size[0]},{size[1]}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=wire,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.size = size
        self._next = 0
        self._buffer = b""
        self.session: str | None = None

    def send(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> Any:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if kw.get("session", self.session):
            message["sessionId"] = kw.get("session", self.session)
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            answer = self._read()
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def open(self, url: str) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=None)
        attached = self.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, session=None
        )
        self.session = attached["sessionId"]
        width, height = self.size
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        self.send("Page.enable")
        self.send("Page.navigate", {"url": url})

    def js(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, what: str, timeout_s: float = 60.0) -> Any:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            value = self.js(f"!!({expression})")
            if value:
                return value
            time.sleep(0.5)
        raise RuntimeError(f"timed out waiting for {what}")

    def type_into(self, selector: str, text: str) -> None:
        """Focus the element and type as a user would (React sees real input events)."""
        self.js(f"document.querySelector({json.dumps(selector)}).focus(); true")
        self.send("Input.insertText", {"text": text})

    def enter(self) -> None:
        """Press Enter (with its text, so forms and editors see a real key press)."""
        common = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13}
        self.send("Input.dispatchKeyEvent", {"type": "keyDown", "text": "\r", **common})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", **common})

    def click_button(self, label: str) -> bool:
        found = self.js(
            "(() => { const b = [...document.querySelectorAll('button')]"
            f".find(b => b.innerText.trim() === {json.dumps(label)});"
            " if (b) { b.click(); return true; } return false; })()"
        )
        return bool(found)

    def screenshot(self, out: Path) -> None:
        shot = self.send("Page.captureScreenshot", {"format": "png"})
        out.write_bytes(b64decode(shot["data"]))

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.send("Browser.close", session=None)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._to_chrome)
        os.close(self._from_chrome)


PASSWORD_INPUT = "input[type=password]"  # noqa: S105 (a CSS selector)
CONNECTED = (
    "!document.querySelector('input[type=password]') && "
    "document.body.innerText.includes('You are connected as user')"
)
EDITOR = ".monaco-editor textarea"
# The result frame: "Displaying 41 nodes, 40 relationships." in the graph view, "Started
# streaming 40 records after 9 ms ..." in the table view, "Completed after ..." for no records.
ROWS_SHOWN = (
    "/Displaying [1-9]\\d* nodes|Started streaming [1-9]\\d* records/.test(document.body.innerText)"
)
DONE = "Started streaming|Completed after"
DONE_SHOWN = f"/{DONE}/.test(document.body.innerText)"
# The audit guide the server's post-connect command opens (after applying the style).
GUIDE_SHOWN = "document.body.innerText.includes('kgverify audit queries')"
# The frame of the style's :style command (the style's rules as text).
STYLE_FRAME = (
    "[...document.querySelectorAll('[data-testid=\"frame\"]')]"
    ".find(f => f.innerText.startsWith(':style http') && f.innerText.includes('caption'))"
)
# The node captions of the graph view, one SVG text per line of a caption.
CAPTIONS = "[...document.querySelectorAll('svg text.caption')].map(t => t.textContent)"


def _click_runnable(chrome: Chromium, text: str) -> None:
    """Click the play icon of the guide's runnable block that holds ``text``."""
    clicked = chrome.js(
        "(() => { const pre = [...document.querySelectorAll('pre.runnable')]"
        f".find(p => p.textContent.trim() === {json.dumps(text)});"
        " const icon = pre && pre.querySelector('i');"
        " if (icon) { icon.click(); return true; } return false; })()"
    )
    if not clicked:
        raise RuntimeError(f"the guide has no runnable block {text[:40]!r}")


def check_guide(chrome: Chromium) -> None:
    """Run one audit query from the guide as a user would: its :param block, then the
    statement; RuntimeError unless both ran (LIMIT $limit needs an integer)."""
    from kgverify.audit.browser import param_block
    from kgverify.audit.catalog import get_audit
    from kgverify.graph.queries import get_query

    _click_runnable(chrome, param_block(get_audit("rejected_relations")))
    newest = "document.querySelector('[data-testid=\"frame\"]').innerText"
    chrome.wait_for(f"{newest}.startsWith(':param verdict')", "the :param frame")
    time.sleep(5)  # each `=>` value is a Cypher query of its own, run one after the other
    _click_runnable(chrome, get_query("audit/rejected_relations").text)
    failed = r"Neo\.(Client|Database|Transient)Error"
    chrome.wait_for(
        f"{newest}.startsWith('MATCH') && /{DONE}|{failed}/.test({newest})",
        "the audit query's result",
    )
    if re.search(failed, str(chrome.js(newest))):
        raise RuntimeError(f"the audit query failed: {str(chrome.js(newest))[:300]}")


def check_captions(chrome: Chromium, expect: str | None) -> list[str]:
    """The captions shown; RuntimeError unless ``expect`` is among them (without it: unless
    some caption is a word, not a code or an id)."""
    captions = [str(c) for c in chrome.js(CAPTIONS) or []]
    words = " ".join(captions)
    found = expect in words if expect else re.search(r"[a-z]{4,}", words) is not None
    if not found:
        wanted = repr(expect) if expect else "by a name"
        raise RuntimeError(f"no node captioned {wanted}; captions: {captions[:20]}")
    return captions


def check(
    out: Path,
    *,
    sample: bool,
    size: tuple[int, int],
    running: bool = False,
    query: str = QUERY,
    expect: str | None = None,
    graph_out: Path | None = None,
) -> None:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        raise SystemExit("error: no chromium on PATH (Debian: apt-get install chromium)")
    with tempfile.TemporaryDirectory(prefix="kgverify-browser-") as tmp:
        settings = (
            Settings()
            if running
            else Settings(
                neo4j_home=Path(tmp) / "neo4j",
                bolt_port=free_port(),
                http_port=free_port(),
                neo4j_heap="768m",
                neo4j_pagecache="256m",
                cache_dir=Settings().cache_dir,  # the shared Maven build
            )
        )
        server = LocalServer(settings)
        status = server.status() if running else server.start()
        if running and not status.running:
            raise RuntimeError(f"no local server runs in {settings.local_home}: start it first")
        chrome: Chromium | None = None
        try:
            print(f"server: {status.uri}, Browser at {status.browser}")
            if status.browser is None:
                raise RuntimeError(f"the server serves no Browser (http: {status.http})")
            if sample and not running:
                from kgverify.api import SAMPLE_RELEASES, load_vocabulary, sample_path

                for name, parts in SAMPLE_RELEASES.items():
                    load_vocabulary(name, sample_path(*parts), settings=settings)
                print("sample vocabularies loaded")
            chrome = Chromium(binary, Path(tmp) / "profile", size)
            url = f"{status.browser}?dbms=bolt://neo4j@127.0.0.1:{settings.bolt_port}&db=neo4j"
            chrome.open(url)
            chrome.wait_for(f"document.querySelector('{PASSWORD_INPUT}')", "the connect form")
            print("connect form shown")
            chrome.type_into(PASSWORD_INPUT, server.password())
            if not chrome.click_button("Connect"):
                chrome.enter()
            chrome.wait_for(CONNECTED, "the connection")
            print("connected as neo4j")
            chrome.wait_for(GUIDE_SHOWN, "the audit guide (browser.post_connect_cmd)")
            chrome.wait_for(f"{STYLE_FRAME}", "the style frame (browser.post_connect_cmd)")
            print("the post-connect command applied the style and opened the audit guide")
            # The guide, not the style's text, below the result.
            chrome.js(f"{STYLE_FRAME}.querySelector('button[title=\"Close\"]').click(); true")
            chrome.wait_for(f"document.querySelector('{EDITOR}')", "the editor")
            chrome.type_into(EDITOR, query)
            chrome.enter()
            shown = sample or running
            chrome.wait_for(ROWS_SHOWN if shown else DONE_SHOWN, "the query's result")
            # More room for the graph: fold the overview panel away.
            chrome.js(
                "document.querySelector('[aria-label=\"Collapse the node properties "
                "display\"]')?.click(); true"
            )
            time.sleep(4)  # let the force layout settle
            if shown:
                captions = check_captions(chrome, expect)
                print(f"captions: {', '.join(captions[:12])}")
            out.parent.mkdir(parents=True, exist_ok=True)
            chrome.screenshot(out)
            print(f"query ran; screenshot: {out}")
            if graph_out is not None:  # the result frame alone, its graph fitted to the window
                chrome.js("document.querySelector('button[title=\"Fullscreen\"]').click(); true")
                time.sleep(1)
                chrome.js("document.querySelector('[aria-label=\"zoom-to-fit\"]').click(); true")
                time.sleep(2)
                chrome.screenshot(graph_out)
                print(f"graph screenshot: {graph_out}")
                chrome.js("document.querySelector('button[title=\"Close fullscreen\"]').click(); 1")
            check_guide(chrome)
            print("the guide's :param block and its query ran")
        except RuntimeError:
            if chrome is not None:
                failed = out.with_name(out.stem + "-failed.png")
                chrome.screenshot(failed)
                print(f"page at the failure: {failed}", file=sys.stderr)
            raise
        finally:
            if chrome is not None:
                chrome.close()
            if not running:
                server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "neo4j-browser.png")
    parser.add_argument("--no-sample", action="store_true", help="Skip loading the sample.")
    parser.add_argument("--size", default="1280x800", help="Window size, WIDTHxHEIGHT.")
    parser.add_argument(
        "--running", action="store_true", help="Use the running local server of KGVERIFY_*."
    )
    parser.add_argument(
        "--query", default=None, help="The statement to run (SUBGRAPH: an item's subgraph)."
    )
    parser.add_argument("--expect", default=None, help="A word some caption must show.")
    parser.add_argument(
        "--graph-out", type=Path, default=None, help="Also save the result frame in fullscreen."
    )
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    width, height = (int(v) for v in args.size.lower().split("x"))
    query = SUBGRAPH if args.query == "SUBGRAPH" else args.query or QUERY
    try:
        check(
            args.out,
            sample=not args.no_sample,
            size=(width, height),
            running=args.running,
            query=query,
            expect=args.expect,
            graph_out=args.graph_out,
        )
    except RuntimeError as exc:
        raise SystemExit(f"error: {exc}") from exc


if __name__ == "__main__":
    main()
