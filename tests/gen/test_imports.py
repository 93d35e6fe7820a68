"""The generator's imports (CONTRIBUTING.md section 1): they go one way only, model <- api <-
emit <- output <- parallel <- pipeline <- __main__, and no gen module imports itself back
through others. The same holds for the Python package python/opcore (Note [The layers of
opcore's Python modules] in python/opcore/_ops.py): opcore._C <- opcore._schema <-
opcore._mode_stack <- opcore._ops <- opcore.utils._python_dispatch <- opcore.library, and no cycle
between its modules.

Every import statement counts, wherever it is (module level, inside a function, under
TYPE_CHECKING) and however it is spelled (`from gen.emit import x`, `from gen import emit`,
`import gen.emit.x`, `from ..emit import x`): an import hidden in a function to dodge a cycle
is still a cycle. Function-local imports themselves are allowed (pipeline.py and __main__.py
import jinja2 and the pipeline lazily, so that `--help` and `--list-outputs` stay light).
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator, Optional

import pytest
from genutil import REPO

GEN = REPO / "gen"
# A module may import from its own layer and the layers before it.
LAYERS = ("model", "api", "emit", "output", "parallel", "pipeline", "__main__")


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(GEN.rglob("*.py"))}


def imports(name: str, is_package: bool, text: str, modules: frozenset[str],
            root: str = "gen") -> Iterator[tuple[int, str]]:
    """(line, module) for every module of package `root` the source `text` of module `name`
    imports. `from P import x` imports module P.x when there is one (`modules`), else P."""
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                if node.level - 1 >= len(parts):
                    raise AssertionError(f"{name}:{node.lineno}: relative import beyond the top-level package")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
        else:
            continue
        yield from ((node.lineno, t) for t in targets if t == root or t.startswith(root + "."))


def layer(module: str) -> Optional[int]:
    """The index of `module`'s layer in LAYERS; None for the `gen` package itself."""
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 else None


def wrong_way(name: str, is_package: bool, text: str, modules: frozenset[str]) -> list[str]:
    """The imports of module `name` that go against LAYERS, one message each."""
    own = layer(name)
    problems = []
    for line, target in imports(name, is_package, text, modules):
        theirs = layer(target)
        if own is not None and theirs is not None and theirs > own:
            problems.append(f"{name}:{line} imports {target}: {LAYERS[own]} may not import from {LAYERS[theirs]}")
    return problems


def import_graph() -> dict[str, set[str]]:
    known = frozenset(MODULES)
    return {name: {t for _, t in imports(name, path.name == "__init__.py", path.read_text(encoding="utf-8"), known)
                   if t in known and t != name}
            for name, path in MODULES.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of `graph` with more than one module, each sorted
    (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = stack[stack.index(node):]
                    del stack[stack.index(node):]
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in stack:
                low[node] = min(low[node], index[child])
    return found


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_go_one_way(name: str) -> None:
    path = MODULES[name]
    assert wrong_way(name, path.name == "__init__.py", path.read_text(encoding="utf-8"), frozenset(MODULES)) == []


def test_no_import_cycles() -> None:
    graph = import_graph()
    assert "gen.model.native_function" in graph["gen.model.autogen"]  # the graph is not empty
    assert cycles(graph) == []


_SPELLINGS = {
    "from gen.emit.common import FileSpec": "gen.emit.common",
    "from gen import emit": "gen.emit",
    "from gen.emit import common": "gen.emit.common",
    "import gen.emit.common": "gen.emit.common",
    "import gen.emit.common as c": "gen.emit.common",
    "from ..emit import common": "gen.emit.common",
    "from .. import emit": "gen.emit",
    "from ..emit.common import FileSpec": "gen.emit.common",
    "def f():\n    from gen.emit.common import FileSpec": "gen.emit.common",
    "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import gen.emit": "gen.emit",
}


@pytest.mark.parametrize("source", _SPELLINGS)
def test_every_spelling_of_an_import_is_checked(source: str) -> None:
    target = _SPELLINGS[source]
    problems = wrong_way("gen.model.example", False, source, frozenset(MODULES))
    assert problems == [f"gen.model.example:{source.count(chr(10)) + 1} imports {target}: "
                        "model may not import from emit"]
    assert wrong_way("gen.emit.example", False, source, frozenset(MODULES)) == []
    assert wrong_way("gen.pipeline", False, source.replace("..", "."), frozenset(MODULES)) == []


def test_relative_imports_resolve_from_a_package() -> None:
    """In gen/model/__init__.py, `.` is gen.model itself."""
    assert list(imports("gen.model", True, "from . import schema\nfrom .. import api", frozenset(MODULES))) == [
        (1, "gen.model.schema"), (2, "gen.api")]


def test_a_cycle_is_found_through_a_function_local_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    known = frozenset({"gen.model.x", "gen.model.y"})
    hidden = {"gen.model.x": set(imports("gen.model.x", False, "def f():\n    from gen.model import y", known)),
              "gen.model.y": set(imports("gen.model.y", False, "from gen.model.x import X", known))}
    assert cycles({name: {t for _, t in edges} for name, edges in hidden.items()}) == [["gen.model.x", "gen.model.y"]]


# --- python/opcore ------------------------------------------------------------------------------

PYTHON = REPO / "python"
# The modules of python/opcore, and opcore._C (the extension: `from opcore import _C` imports it,
# not the package).
PY_MODULES = {module_name(p).removeprefix("python."): p for p in sorted((PYTHON / "opcore").rglob("*.py"))}
PY_KNOWN = frozenset(PY_MODULES) | {"opcore._C"}
# A module of this list may import those before it, never those after it.
PY_LAYERS = ("opcore._C", "opcore._schema", "opcore._mode_stack", "opcore._ops", "opcore.utils._python_dispatch",
             "opcore.library")


def py_imports(name: str, text: str) -> set[str]:
    return {t for _, t in imports(name, PY_MODULES[name].name == "__init__.py" if name in PY_MODULES else False, text,
                                  PY_KNOWN, root="opcore")}


def py_wrong_way(name: str, text: str) -> list[str]:
    """The imports of python/opcore module `name` that go against PY_LAYERS, one message each."""
    if name not in PY_LAYERS:
        return []
    own = PY_LAYERS.index(name)
    return [f"{name} imports {target}, a layer above it ({' <- '.join(PY_LAYERS)})"
            for target in sorted(py_imports(name, text)) if target in PY_LAYERS[own + 1:]]


@pytest.mark.parametrize("name", PY_LAYERS[1:])
def test_opcore_python_imports_go_one_way(name: str) -> None:
    assert py_wrong_way(name, PY_MODULES[name].read_text(encoding="utf-8")) == []


def test_opcore_python_modules_import_no_cycle() -> None:
    """Between the modules below the package: `opcore/__init__.py` imports them all, and a
    module may use the package's attributes at call time (`import opcore` in gradcheck)."""
    graph = {name: py_imports(name, path.read_text(encoding="utf-8")) - {name, "opcore"}
             for name, path in PY_MODULES.items() if name != "opcore"}
    assert "opcore._ops" in graph["opcore.library"]  # the graph is not empty
    assert cycles(graph) == []


def test_a_function_local_import_in_opcore_python_counts() -> None:
    hidden = "def f():\n    from opcore.library import Library\n"
    assert py_wrong_way("opcore._ops", hidden) == [
        "opcore._ops imports opcore.library, a layer above it (opcore._C <- opcore._schema <- opcore._mode_stack <- "
        "opcore._ops <- opcore.utils._python_dispatch <- opcore.library)"]
    assert py_wrong_way("opcore._ops", "from opcore.utils import _python_dispatch as pd") == [
        "opcore._ops imports opcore.utils._python_dispatch, a layer above it (opcore._C <- opcore._schema <- "
        "opcore._mode_stack <- opcore._ops <- opcore.utils._python_dispatch <- opcore.library)"]
    assert py_wrong_way("opcore.library", hidden.replace("library import Library", "_ops import ops")) == []
