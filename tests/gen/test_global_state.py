"""gen/ holds no mutable module-level state (CONTRIBUTING.md section 1): no memo tables that
outlive a run, no containers that functions fill, no `global` rebinding, no process-wide switches
flipped outside the one place that restores them. Scanned from the sources (ast), so a new
module is covered without being listed."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from genutil import REPO

GEN = REPO / "gen"
_MODULES = sorted(GEN.rglob("*.py"))
_CONTAINER_CALLS = {"list", "dict", "set", "defaultdict", "OrderedDict", "deque", "Counter", "bytearray"}
_MUTATORS = {"append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem", "clear",
             "remove", "discard", "appendleft", "extendleft", "sort", "reverse", "__setitem__"}
_CACHES = {"lru_cache", "cache"}  # functools' memo decorators: a table per process, not per run


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def _is_container(value: ast.expr | None) -> bool:
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    return (isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute))
            and (value.func.id if isinstance(value.func, ast.Name) else value.func.attr) in _CONTAINER_CALLS)


def _containers(tree: ast.Module) -> set[str]:
    """The names `tree` binds at module level to a mutable container."""
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if _is_container(getattr(node, "value", None)):
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Subscript):
        node = node.value
    return node


def _named(node: ast.expr, own: set[str], others: set[str]) -> str | None:
    """The container `node` is (its own module's by name, another module's as `module.NAME`), if any."""
    node = _root(node)
    if isinstance(node, ast.Name) and node.id in own:
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in others:
        return node.attr
    return None


def _mutations(tree: ast.Module, own: set[str], others: set[str] = frozenset()) -> list[str]:
    names = lambda node: _named(node, own, others)  # noqa: E731
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.append(f"line {node.lineno}: global {', '.join(node.names)}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS
              and not isinstance(node.func.value, ast.Subscript) and names(node.func.value)):
            found.append(f"line {node.lineno}: {names(node.func.value)}.{node.func.attr}()")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                if isinstance(t, (ast.Subscript, ast.Attribute)) and names(t.value):
                    found.append(f"line {node.lineno}: {names(t.value)}[...] changed")
    return sorted(found, key=lambda f: int(f.split()[1].rstrip(":")))


@pytest.mark.parametrize("path", _MODULES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_module_level_container_is_changed(path: Path) -> None:
    """A module-level list, dict or set is a constant: nothing in gen/ changes it, and no
    function rebinds a module's names with `global`."""
    others = set().union(*(_containers(_tree(p)) for p in _MODULES if p != path))
    assert _mutations(_tree(path), _containers(_tree(path)), others) == []


def test_the_scan_finds_what_it_looks_for() -> None:
    tree = ast.parse("X = []\ndef f():\n    global Y\n    X.append(1)\n    X[0] = 2\n    m.X.clear()\n")
    assert _mutations(tree, {"X"}, {"X"}) == ["line 3: global Y", "line 4: X.append()", "line 5: X[...] changed",
                                       "line 6: X.clear()"]
    assert _caches(ast.parse("import functools\n@functools.lru_cache(maxsize=None)\ndef f(): pass\n"
                             "@cache\ndef g(): pass\n")) == ["line 3: f", "line 5: g"]


def _caches(tree: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for d in node.decorator_list:
                target = d.func if isinstance(d, ast.Call) else d
                name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
                if name in _CACHES:
                    found.append(f"line {node.lineno}: {node.name}")
    return found


def test_no_process_wide_memo_tables() -> None:
    """Memo tables belong to a run's objects (Note [Signature caches] in gen/api/__init__.py)."""
    found = {str(p.relative_to(REPO)): _caches(_tree(p)) for p in _MODULES}
    assert {path: caches for path, caches in found.items() if caches} == {}


def test_signatures_are_memoized_per_schema_object() -> None:
    from gen.api import cpp, dispatcher, native
    from gen.model.schema import FunctionSchema
    text = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    first, second = FunctionSchema.parse(text), FunctionSchema.parse(text)
    for signature in (cpp.function_signature, cpp.redispatch_signature, dispatcher.signature,
                      dispatcher.api_signature, lambda f: native.signature(f, "add_cpu")):
        assert signature(first) is signature(first)   # computed once for this schema
        assert signature(first) == signature(second)  # and the same for an equal one
    assert cpp.function_signature(first, frozenset({"alpha"})) != cpp.function_signature(first)


def test_the_cycle_collector_is_switched_in_one_place() -> None:
    """gc.disable()/gc.enable() only in gen/pipeline.py, which restores what it found."""
    users = sorted(str(p.relative_to(REPO)) for p in _MODULES
                   if any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "gc"
                          and n.attr in ("disable", "enable") for n in ast.walk(_tree(p))))
    assert users == ["gen/pipeline.py"]
