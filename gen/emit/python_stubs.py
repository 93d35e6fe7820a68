"""The type stubs of opcore._C: python/opcore/_C/__init__.pyi (the hand-written names of
templates/_C_handwritten.pyi, then opcore.Tensor's operator methods and the module functions)
and python/opcore/_C/_<module>.pyi (the functions of each `python_module:`; one per module
the YAML may name, so that the outputs do not depend on the YAML).

Every signature is python.signature_texts(f, method, python.STUB): the same overloads, in the
same order, as the bindings' __doc__ (gen/emit/python_bindings.py, python.HELP), spelled as
Python a type checker reads (Note [Stub spelling] in gen/api/python.py).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from gen.api import python
from gen.emit.common import FileSpec
from gen.model.native_function import NativeFunction
from gen.model.native_functions_yaml import PYTHON_MODULES

# Included first by PythonStubs.pyi.j2; read here for the names it defines.
HANDWRITTEN = "_C_handwritten.pyi"
_HANDWRITTEN_PATH = Path(__file__).resolve().parent.parent / "templates" / HANDWRITTEN

STUB_DIR = "python/opcore/_C/"


def stub_paths() -> tuple[str, ...]:
    """The stub files, whatever the YAML: opcore._C's, then one per python_module."""
    return (f"{STUB_DIR}__init__.pyi",) + tuple(f"{STUB_DIR}_{m}.pyi" for m in PYTHON_MODULES)


@dataclass(frozen=True, slots=True)
class StubGroupView:
    """One Python name: `def` lines for each of its signatures, `@overload` when several."""

    defs: tuple[str, ...]  # "def add(input: Tensor, other: Tensor, *, alpha: Number = 1) -> Tensor: ..."
    overloaded: bool


def _group(fns: tuple[NativeFunction, ...], method: bool) -> StubGroupView:
    # Two schema overloads may read the same in Python (int and SymInt are both `int`).
    texts = dict.fromkeys(text for f in fns for text in python.signature_texts(f, method, python.STUB))
    return StubGroupView(tuple(f"def {text}: ..." for text in texts), len(texts) > 1)


def _handwritten_names(source: str) -> tuple[frozenset[str], frozenset[str]]:
    """The names the hand-written stub defines at module level and in class Tensor."""
    def names(body: list[ast.stmt]) -> set[str]:
        found: set[str] = set()
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                found.add(node.name)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                found.add(node.target.id)
            elif isinstance(node, ast.ImportFrom):
                found.update(alias.asname or alias.name for alias in node.names)
        return found
    module = ast.parse(source)
    tensor = [node for node in module.body if isinstance(node, ast.ClassDef) and node.name == "Tensor"]
    assert len(tensor) == 1 and module.body[-1] is tensor[0], f"{HANDWRITTEN} must end with class Tensor: generator bug"
    return frozenset(names(module.body)), frozenset(names(tensor[0].body))


def emit(functions: tuple[NativeFunction, ...]) -> list[FileSpec]:
    module_names, tensor_names = _handwritten_names(_HANDWRITTEN_PATH.read_text(encoding="utf-8"))
    # A generated name the hand-written part also defines is left out (a stub defines a name
    # once; the hand-written methods come first in Tensor's method table, so Python finds them),
    # and named in a comment of the stub.
    left_out: list[str] = []
    methods = []
    for name, fns in python.method_groups(functions).items():
        if name in tensor_names:
            left_out.append(f"Tensor.{name}")
        else:
            methods.append(_group(fns, method=True))
    by_module: dict[str, list[StubGroupView]] = {m: [] for m in ("",) + PYTHON_MODULES}
    for (module, name), fns in python.function_groups(functions).items():
        if not module and name in module_names:
            left_out.append(name)
        else:
            by_module[module].append(_group(fns, method=False))
    files = [FileSpec(stub_paths()[0], "PythonStubs.pyi.j2",
                      {"module": "", "hand_written": True, "handwritten_part": HANDWRITTEN, "methods": methods,
                       "functions": by_module[""], "left_out": left_out})]
    files += [FileSpec(path, "PythonStubs.pyi.j2",
                       {"module": m, "hand_written": False, "handwritten_part": HANDWRITTEN, "methods": [],
                        "functions": by_module[m], "left_out": []})
              for m, path in zip(PYTHON_MODULES, stub_paths()[1:])]
    return files
