"""The import graph of ``kgverify/``, ``loaders/`` and ``benchmarks/`` has no loops, and no
stage imports one above it (docs/architecture.md: data flows one way, and so do imports).
The benchmarks sit above every stage: they may import anything of kgverify and loaders,
and nothing there imports them.

Every ``import`` counts, wherever it stands: module level, inside a function, under
``TYPE_CHECKING``; so does ``importlib.import_module("kgverify.x")`` or
``__import__("kgverify.x")`` with a literal name. A deferred import hides a loop from the
interpreter, not from a reader. The graph is read with ``ast`` from the files themselves,
nothing is imported.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("kgverify", "loaders", "benchmarks")

# The stages from the bottom up; a module may import its own stage and the ones below. A
# name covers that module and everything under it; the longest name that fits decides.
STAGES: list[tuple[str, tuple[str, ...]]] = [
    (
        "base",
        (
            "kgverify.__about__",
            "kgverify.errors",
            "kgverify.outputs",
            "kgverify.bounds",
            "kgverify.secrets",
            "kgverify.config",
            "kgverify.dates",
            "kgverify.jsonl",
            "kgverify.firstseen",
            "kgverify.collector",
            "kgverify.ahead",
            "kgverify.rows",
            "kgverify.registry",
            "kgverify.lazy",
        ),
    ),
    ("graph", ("kgverify.graph",)),
    ("server", ("kgverify.server",)),
    # Vocabulary loaders and EHR readers read side by side; neither imports the other.
    ("readers", ("loaders", "kgverify.ehr")),
    # What a run brought (patients) and what was derived from it: ingest and derive read it.
    ("runs", ("kgverify.runs",)),
    ("extract", ("kgverify.extract",)),
    ("link", ("kgverify.link",)),
    ("verify", ("kgverify.verify",)),
    # The review package's face, its decisions and the state derivation reads (its
    # docstring says so); the review runs themselves sit above audit.
    (
        "review decisions",
        (
            "kgverify.review",
            "kgverify.review.model",
            "kgverify.review.sheet",
            "kgverify.review.state",
        ),
    ),
    ("derive", ("kgverify.derive", "kgverify.dialogue")),
    # An EHR agent's actions judged and graded: over verification and the dialogue matcher.
    ("actions", ("kgverify.actions",)),
    # Audit queries, lineage, and re-verification: it flags derived items and re-judges
    # their distractors with derivation's Justifier, so it sits above derive.
    ("audit", ("kgverify.audit",)),
    (
        "review",
        (
            "kgverify.review.export",
            "kgverify.review.importer",
            "kgverify.review.pages",
            "kgverify.review.words",
        ),
    ),
    # Where linking and verification batches run (local, Ray): above every stage they open.
    ("engines", ("kgverify.engines",)),
    # The whole run's parameters and report (api.pipeline): every stage's report in one.
    ("pipeline", ("kgverify.pipeline",)),
    ("api", ("kgverify.api",)),
    ("package face", ("kgverify",)),
    ("cli", ("kgverify.cli", "kgverify.__main__")),
    # The sample generator (kgverify/sample/_generator, not in the wheel): nothing imports it.
    ("sample generator", ("kgverify.sample",)),
    # Benchmarks and device checks: they drive the whole package; nothing in it reaches them.
    ("benchmarks", ("benchmarks",)),
]
# Within kgverify, only these reach the top-level loaders package (which imports kgverify):
# the API's load, its registry and its models, the pipeline that chains a load, and
# kgverify.pipeline for the loaders' report and registry only.
LOADER_DISPATCH = {
    "kgverify.api.vocabularies",
    "kgverify.api.registries",
    "kgverify.api.models",
    "kgverify.api.chain",
    "kgverify.pipeline",
}
# The command line is a layer over the API: of this tree it imports the API (its functions,
# kgverify.api.models for the types its printers take, kgverify.api.registries for its
# choices), the settings, the errors, the version and itself; never a stage below the API.
CLI_MAY_IMPORT = (
    "kgverify.cli",
    "kgverify.api",
    "kgverify.config",
    "kgverify.errors",
    "kgverify.__about__",
)


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_of(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _named(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = module if is_package else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    for alias in node.names:
        yield f"{base}.{alias.name}"  # a submodule if it is one, else resolved to base below
        yield base


def _literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _argument(call: ast.Call, at: int, keyword: str) -> ast.expr | None:
    if len(call.args) > at:
        return call.args[at]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _dynamic(call: ast.Call) -> str | None:
    """The module a call imports by a literal name: ``importlib.import_module("a.b")`` (or
    ``import_module`` imported by name; a relative name with a literal ``package``), or
    ``__import__("a.b")`` (absolute only). None for any other call, or a name computed at
    run time, which no reader of the source can follow."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        called = func.attr if func.value.id == "importlib" else None
    else:
        called = func.id if isinstance(func, ast.Name) else None
    name = _literal(_argument(call, 0, "name"))
    if name is None:
        return None
    if called == "__import__":
        level = _argument(call, 4, "level")
        absolute = level is None or (isinstance(level, ast.Constant) and level.value == 0)
        return name if absolute else None
    if called != "import_module":
        return None
    if not name.startswith("."):
        return name
    package = _literal(_argument(call, 1, "package"))
    if package is None:
        return None
    rest = name.lstrip(".")
    for _ in range(len(name) - len(rest) - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{rest}" if rest else package


def imports_of(
    tree: ast.AST, module: str, is_package: bool, modules: Iterable[str]
) -> dict[str, int]:
    """{module of ``modules`` that ``tree`` imports: first line}, by statement or by a call
    with a literal name (``_dynamic``)."""
    known = set(modules)
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = list(_named(node, module, is_package))
            if isinstance(node, ast.ImportFrom):
                # `from pkg import name`: the submodule pkg.name when it is one, else pkg.
                pairs = zip(names[::2], names[1::2], strict=True)
                names = [sub if sub in known else base for sub, base in pairs]
        elif isinstance(node, ast.Call) and (dynamic := _dynamic(node)):
            names = [dynamic]
        else:
            continue
        for name in names:
            target = name
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                found.setdefault(target, node.lineno)
    return found


def import_graph() -> dict[str, dict[str, int]]:
    """module -> {imported module of this tree: first line}, for every import statement and
    every import by a literal name."""
    modules = _modules()
    graph: dict[str, dict[str, int]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        graph[module] = imports_of(tree, module, path.name == "__init__.py", modules)
    return graph


def stage_of(module: str) -> int:
    best: tuple[int, int] | None = None  # (length of the name that fits, stage)
    for rank, (_, names) in enumerate(STAGES):
        for name in names:
            fits = module == name or (module.startswith(name + ".") and name != "kgverify")
            if fits and (best is None or len(name) > best[0]):
                best = (len(name), rank)
    assert best is not None, f"{module} is in no stage: add it to STAGES in {__file__}"
    return best[1]


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_is_read() -> None:
    graph = import_graph()
    # A few arrows every reader of docs/architecture.md expects, so a broken reader that
    # finds no imports at all cannot pass the tests below.
    assert "kgverify.graph.driver" in graph["kgverify.verify.verifier"]
    assert "kgverify.rows" in graph["kgverify.ehr.common"]
    assert "kgverify.graph.connection" in graph["kgverify.graph.driver"]
    assert "loaders.pipeline" in graph["kgverify.api.vocabularies"]  # inside load_vocabulary
    assert "kgverify.api" in graph["benchmarks.bench_load"]
    assert "benchmarks.synth_umls" in graph["benchmarks.bench_load"]


def test_verification_reaches_neither_derivation_nor_re_verification() -> None:
    # Issue 40: re-verification manages derived items, so it lives in the audit stage and
    # reads derivation directly; verification, below both, imports neither.
    graph = import_graph()
    assert "kgverify.derive.justify" in graph["kgverify.audit.reverify"]
    above = ("kgverify.derive", "kgverify.dialogue", "kgverify.audit")
    assert all(stage_of(n) > stage_of("kgverify.verify.verifier") for n in above)
    assert stage_of("kgverify.audit.reverify") > stage_of("kgverify.derive.justify")
    reaching = [
        f"{a}:{line} -> {b}"
        for a, targets in sorted(graph.items())
        if a.startswith("kgverify.verify")
        for b, line in sorted(targets.items())
        if b.startswith(above)
    ]
    assert not reaching, "verification imports a stage above it:\n" + "\n".join(reaching)


def test_imports_by_a_literal_name_count() -> None:
    source = """
import importlib
from importlib import import_module

def later():
    importlib.import_module("kgverify.api")
    import_module(".model", package="kgverify.derive")
    import_module("..rules", "kgverify.verify.verifier")
    __import__("kgverify.cli")
    importlib.import_module(name="loaders.pipeline")
    __import__("kgverify.pipeline", globals(), locals(), [], 1)  # relative: not followed
    importlib.import_module(computed)  # a name made at run time: not followed
    __import__("os")  # not of this tree
"""
    found = imports_of(ast.parse(source), "kgverify.graph.driver", False, _modules())
    assert found == {
        "kgverify.api": 6,
        "kgverify.derive.model": 7,
        "kgverify.verify.rules": 8,
        "kgverify.cli": 9,
        "loaders.pipeline": 10,
    }


def test_no_import_loops() -> None:
    graph = import_graph()
    loops = _cycles(graph)
    described = [
        " <-> ".join(loop)
        + ": "
        + "; ".join(f"{a}:{graph[a][b]} -> {b}" for a in loop for b in graph[a] if b in loop)
        for loop in loops
    ]
    assert not loops, "import loops:\n" + "\n".join(described)


def test_every_module_has_a_stage() -> None:
    for module in import_graph():
        stage_of(module)


def test_no_import_points_to_a_higher_stage() -> None:
    graph = import_graph()
    upward = [
        f"{a}:{line} -> {b} ({STAGES[stage_of(a)][0]} imports {STAGES[stage_of(b)][0]})"
        for a, targets in sorted(graph.items())
        for b, line in sorted(targets.items())
        if stage_of(b) > stage_of(a)
    ]
    assert not upward, "imports from a lower stage to a higher one:\n" + "\n".join(upward)


def test_kgverify_reaches_loaders_only_to_dispatch_a_load() -> None:
    graph = import_graph()
    reaching = [
        f"{a}:{line} -> {b}"
        for a, targets in sorted(graph.items())
        if a.split(".")[0] == "kgverify" and a not in LOADER_DISPATCH
        for b, line in sorted(targets.items())
        if b.split(".")[0] == "loaders"
    ]
    assert not reaching, "kgverify imports loaders:\n" + "\n".join(reaching)


def _in(module: str, names: tuple[str, ...]) -> bool:
    return any(module == name or module.startswith(name + ".") for name in names)


def test_the_cli_imports_only_the_api() -> None:
    graph = import_graph()
    cli = [m for m in graph if _in(m, ("kgverify.cli", "kgverify.__main__"))]
    assert "kgverify.cli.app" in cli and "kgverify.cli.audit" in cli  # the package is read
    below = [
        f"{a}:{line} -> {b}"
        for a in sorted(cli)
        for b, line in sorted(graph[a].items())
        if not _in(b, CLI_MAY_IMPORT)
    ]
    assert not below, "the CLI imports below the API:\n" + "\n".join(below)


def test_the_cli_rule_sees_a_reach_below_the_api() -> None:
    # The check above reads what a command imports, in its body too.
    source = (
        "def command():\n    from kgverify.graph import Graph\n    from kgverify.api import audit\n"
    )
    found = imports_of(ast.parse(source), "kgverify.cli.audit", False, _modules())
    assert [b for b in found if not _in(b, CLI_MAY_IMPORT)] == ["kgverify.graph"]


def test_nothing_of_kgverify_or_loaders_imports_benchmarks() -> None:
    graph = import_graph()
    reaching = [
        f"{a}:{line} -> {b}"
        for a, targets in sorted(graph.items())
        if a.split(".")[0] != "benchmarks"
        for b, line in sorted(targets.items())
        if b.split(".")[0] == "benchmarks"
    ]
    assert not reaching, "imports of benchmarks:\n" + "\n".join(reaching)


def test_loaders_first_then_kgverify_imports() -> None:
    # loaders imports kgverify, and the API imports loaders: importing loaders first must
    # not find the API waiting on a half-made loaders (the loop kgverify once hid).
    code = (
        "import loaders, kgverify, kgverify.api; "
        "assert kgverify.api.load_vocabulary and loaders.LOADERS"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)
