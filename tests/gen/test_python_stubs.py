"""The type stubs of opcore._C (gen/emit/python_stubs.py): valid Python naming every bound
operator, the same signatures as the bindings' __doc__, and accepted by mypy (with a typed
script using opcore, tests/python/typed_usage.py)."""
from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from genutil import FIXTURES, REPO

from gen.api import python
from gen.emit.common import cpp_string_literal, shard_of
from gen.emit.files import FIXED_OUTPUTS
from gen.emit.python_stubs import stub_paths
from gen.model.native_functions_yaml import PYTHON_MODULES
from gen.model.operators import group_name
from gen.pipeline import generate, load_spec

YAML_DIRS = [REPO / "yaml", FIXTURES / "mini", FIXTURES / "types", FIXTURES / "keys"]
INIT = "python/opcore/_C/__init__.pyi"


def _defs(body: list[ast.stmt]) -> dict[str, int]:
    """Function name -> how many `def`s of it `body` holds."""
    counts: dict[str, int] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef):
            counts[node.name] = counts.get(node.name, 0) + 1
    return counts


def _stubs(yaml_dir: Path) -> dict[str, str]:
    return {rel: text for rel, text in generate(str(yaml_dir)).files if rel.endswith(".pyi")}


def test_one_stub_per_python_module_whatever_the_yaml() -> None:
    assert stub_paths() == (INIT,) + tuple(f"python/opcore/_C/_{m}.pyi" for m in PYTHON_MODULES)
    assert set(stub_paths()) <= set(FIXED_OUTPUTS)


@pytest.mark.parametrize("yaml_dir", YAML_DIRS, ids=lambda p: p.name)
def test_stubs_parse_and_name_every_group(yaml_dir: Path) -> None:
    """Every Python name of function_groups() and method_groups() is in the stubs, with one
    `def` per signature (python.signature_texts), @overload when there are several."""
    stubs = _stubs(yaml_dir)
    assert sorted(stubs) == sorted(stub_paths())
    trees = {rel: ast.parse(text, rel) for rel, text in stubs.items()}
    functions = load_spec(str(yaml_dir)).functions
    [tensor] = [n for n in trees[INIT].body if isinstance(n, ast.ClassDef) and n.name == "Tensor"]
    left_out = re.findall(r"^#   (\S+)$", stubs[INIT], re.MULTILINE)
    generated_start = stubs[INIT].index("# The operator functions.")
    for name, fns in python.method_groups(functions).items():
        if f"Tensor.{name}" in left_out:
            continue
        expected = len(dict.fromkeys(t for f in fns for t in python.signature_texts(f, True, python.STUB)))
        assert _defs(tensor.body).get(name) == expected, f"Tensor.{name}"
    # Each stub's generated part: its `def`s counted, and those with a decorator (@overload).
    generated = {rel: ast.parse(stubs[INIT][generated_start:]).body if rel == INIT else tree.body
                 for rel, tree in trees.items()}
    defs = {rel: _defs(body) for rel, body in generated.items()}
    decorated = {rel: _defs([n for n in body if isinstance(n, ast.FunctionDef) and n.decorator_list])
                 for rel, body in generated.items()}
    for (module, name), fns in python.function_groups(functions).items():
        if not module and name in left_out:
            continue
        rel = f"python/opcore/_C/_{module}.pyi" if module else INIT
        expected = len(dict.fromkeys(t for f in fns for t in python.signature_texts(f, False, python.STUB)))
        assert defs[rel].get(name) == expected, f"{rel}: {name}"
        assert decorated[rel].get(name, 0) == (expected if expected > 1 else 0), f"{rel}: {name}"


def test_a_generated_name_clashing_with_a_hand_written_one_is_left_out() -> None:
    """The mini fixture binds a method `_version`, which is also a hand-written property."""
    stub = _stubs(FIXTURES / "mini")[INIT]
    assert "#   Tensor._version\n" in stub
    assert stub.count("def _version(") == 1


def test_help_and_stubs_show_the_same_signatures() -> None:
    """One path: the bindings' __doc__ holds signature_texts(HELP) and the stubs hold
    signature_texts(STUB) of the same overloads, parameter for parameter."""
    yaml_dir = FIXTURES / "mini"
    rendered = dict(generate(str(yaml_dir)).files)
    functions = load_spec(str(yaml_dir)).functions
    groups = [(fns, False) for fns in python.function_groups(functions).values()]
    groups += [(fns, True) for name, fns in python.method_groups(functions).items()
               if f"#   Tensor.{name}\n" not in rendered[INIT]]
    for fns, method in groups:
        shard = rendered[f"python/PythonFunctions_{shard_of(group_name(fns[0]))}.cpp"]
        for f in fns:
            help_texts = python.signature_texts(f, method, python.HELP)
            stub_texts = python.signature_texts(f, method, python.STUB)
            assert len(help_texts) == len(stub_texts)
            for text in help_texts:
                assert cpp_string_literal(text)[1:-1] in shard
            for text in stub_texts:
                assert f"def {text}: ..." in rendered[f"python/opcore/_C/_{f.python_module}.pyi" if f.python_module
                                                      and not method else INIT]
            for varargs in (False, True)[:len(help_texts)]:
                names = [p.split(":")[0] for p in python.parameter_texts(f.func, method, python.HELP, varargs)]
                stub_names = [p.split(":")[0].removesuffix("_") for p in
                              python.parameter_texts(f.func, method, python.STUB, varargs) if p != "/"]
                assert stub_names == [n.removesuffix("_") for n in names], f.func


def test_stub_spelling() -> None:
    """Note [Stub spelling]: private aliases, `...` for defaults Python cannot write, keyword
    names positional-only, no default before a required positional parameter."""
    functions = load_spec(str(FIXTURES / "mini")).functions
    by_name = {str(f.func.name): f for f in functions}
    assert python.signature_text(by_name["blend"], False, python.STUB) == \
        "blend(input: Tensor, alpha: _float, other: Tensor) -> Tensor"
    assert python.signature_text(by_name["blend"], False) == \
        "blend(input: Tensor, alpha: float = 0.5, other: Tensor) -> Tensor"
    assert "cap: _float = ..." in python.signature_text(by_name["loss"], False, python.STUB)
    assert "cap: float = inf" in python.signature_text(by_name["loss"], False)
    functions = load_spec(str(REPO / "yaml")).functions
    by_name = {str(f.func.name): f for f in functions}
    assert python.signature_text(by_name["uniform_"], True, python.STUB) == \
        "uniform_(self, from_: _float = 0, /, to: _float = 1, *, generator: Optional[_Generator] = None) -> Tensor"
    assert python.signature_texts(by_name["view"], True) == (
        "view(self, size: Sequence[int]) -> Tensor", "view(self, *size: int) -> Tensor")


# ---- mypy ------------------------------------------------------------------------------------

def _mypy(args: list[str], cwd: Path, mypypath: Path | None = None) -> subprocess.CompletedProcess:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (Debian package mypy; scripts/setup.sh installs it)")
    env = dict(os.environ)
    env.pop("MYPYPATH", None)
    if mypypath is not None:
        env["MYPYPATH"] = str(mypypath)
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", "", "--cache-dir", str(cwd / ".mypy_cache"),
                           "--no-error-summary", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("yaml_dir", YAML_DIRS, ids=lambda p: p.name)
def test_mypy_accepts_the_stubs(tmp_path: Path, yaml_dir: Path) -> None:
    out = tmp_path / "out"
    for rel, text in _stubs(yaml_dir).items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")
    stub_dir = out / "python" / "opcore" / "_C"
    result = _mypy([str(stub_dir / "__init__.pyi"), *(str(stub_dir / f"_{m}.pyi") for m in PYTHON_MODULES)], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_checks_a_script_using_opcore(tmp_path: Path) -> None:
    """opcore (python/opcore and the stubs of opcore._C in one package) type-checks a script:
    good calls pass, the line marked `# mypy: error` does not. Errors inside the package itself
    are not this test's concern (--follow-imports=silent)."""
    package = tmp_path / "opcore"
    shutil.copytree(REPO / "python" / "opcore", package, ignore=shutil.ignore_patterns("__pycache__"))
    for rel, text in _stubs(REPO / "yaml").items():
        (package / "_C").mkdir(exist_ok=True)
        (package / "_C" / Path(rel).name).write_text(text, encoding="utf-8")
    script = REPO / "tests" / "python" / "typed_usage.py"
    lines = script.read_text(encoding="utf-8").splitlines()
    marked = [i for i, line in enumerate(lines, 1) if line.endswith("  # mypy: error")]
    assert len(marked) == 1
    result = _mypy(["--follow-imports=silent", str(script)], tmp_path, mypypath=tmp_path)
    errors = re.findall(r"^(.*?):(\d+): error: (.*)$", result.stdout, re.MULTILINE)
    assert [(Path(path).name, int(line)) for path, line, _ in errors] == [("typed_usage.py", marked[0])], result.stdout
    assert 'No overload variant of "add"' in errors[0][2], result.stdout
