"""What an ad-hoc statement (``kgverify cypher``) may not do without ``--write``: read files
or URLs (``LOAD CSV``, APOC's load, import and run-file procedures).

The local server refuses file and URL access itself (docker/neo4j-local); this check is the
client's own, so a statement is refused with one line before it reaches any server, a
remote one included. It reads the statement's code only: comments and string literals are
taken out first, so ``WHERE n.note = 'load csv'`` is not refused, and backtick-quoted names
are read as names (``CALL `apoc`.`load`.json(...)``). A string handed to a procedure that
runs Cypher (``apoc.cypher.run``, ``apoc.periodic.iterate``, ...) is read as code, too.
Statements assembled at run time are beyond it; the server's settings stop those.

>>> file_access("MATCH (n) WHERE n.note CONTAINS 'LOAD CSV' RETURN n") is None
True
>>> file_access("load  csv from 'file:///etc/passwd' AS l RETURN l")
'LOAD CSV'
>>> file_access("CALL `apoc`.`load` . json('file:///x') YIELD value RETURN value")
'apoc.load.json'
"""

from __future__ import annotations

import re

# What reads files or URLs: LOAD CSV, and APOC's procedures that take a file or URL.
_READS = re.compile(
    r"\bload\s+csv\b"
    r"|\bapoc\.(?:load|import)\.[a-z0-9_.]+"
    r"|\bapoc\.cypher\.run(?:schema)?files?\b"
)
# APOC procedures and functions that run a string as Cypher: their strings are code.
_RUNS_STRINGS = re.compile(r"\bapoc\.(?:cypher|periodic|do|when\b|case\b)")
_DOTS = re.compile(r"\s*\.\s*")


def _split(text: str) -> tuple[str, list[str]]:
    """The statement's code with comments and string literals blanked (backtick-quoted
    names unquoted), and the strings' contents."""
    code: list[str] = []
    strings: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            code.append(" ")
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            code.append(" ")
        elif c in "'\"":
            i += 1
            chars: list[str] = []
            while i < n and text[i] != c:
                if text[i] == "\\" and i + 1 < n:
                    chars.append(text[i + 1])
                    i += 2
                    continue
                chars.append(text[i])
                i += 1
            i += 1  # the closing quote
            strings.append("".join(chars))
            code.append(" '' ")
        elif c == "`":
            i += 1
            chars = []
            while i < n:
                if text[i] == "`":
                    if text.startswith("``", i):  # a doubled backtick is one in the name
                        chars.append("`")
                        i += 2
                        continue
                    break
                chars.append(text[i])
                i += 1
            i += 1
            # A name, never a clause: a label `load csv` must not read as LOAD CSV.
            code.append(re.sub(r"\s", "_", "".join(chars)))
        else:
            code.append(c)
            i += 1
    return "".join(code), strings


def _found(code: str) -> str | None:
    hit = _READS.search(_DOTS.sub(".", code.lower()))
    if hit is None:
        return None
    return "LOAD CSV" if hit.group().startswith("load") else hit.group()


def file_access(text: str, depth: int = 0) -> str | None:
    """What in the statement reads files or URLs (``LOAD CSV``, ``apoc.load.json``, ...),
    or None."""
    code, strings = _split(text)
    found = _found(code)
    if found is not None or depth > 3:
        return found
    if _RUNS_STRINGS.search(_DOTS.sub(".", code.lower())):
        for inner in strings:
            if (found := file_access(inner, depth + 1)) is not None:
                return found
    return None
