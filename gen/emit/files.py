"""The generated files and the emitter run for all of them.

FIXED_OUTPUTS does not depend on the YAML (a Register<Key>_<i>.cpp exists even when no
operator of shard i uses that key), so the build can ask for it (`--list-outputs`) before the
YAML is valid: it names every .cpp file CMake compiles (tests/Gradcheck.cpp into the test
executable, python/ into the Python extension opcore._C, the others into the library) and the
type stubs of opcore._C (python/opcore/_C/*.pyi). The per-operator headers under
opcore/ops/ depend on the YAML's operator names; the manifest written after a run lists them.
"""
from __future__ import annotations

from typing import Callable

from gen.emit import (autograd, docs, functions, gradcheck, native_functions, operators, python_bindings, python_stubs, python_tests,
                      register)
from gen.emit.common import NUM_SHARDS, FileSpec
from gen.model.native_function import DispatchKey
from gen.model.spec import Spec

FIXED_OUTPUTS: tuple[str, ...] = (
    "opcore/Tensor.h",
    "opcore/Operators.h",
    "opcore/Functions.h",
    "opcore/NativeFunctions.h",
    "opcore/RegisterSchema.cpp",
) + tuple(f"opcore/Operators_{i}.cpp" for i in range(NUM_SHARDS)) + tuple(
    f"opcore/Register{key.value}_{i}.cpp" for key in DispatchKey for i in range(NUM_SHARDS)
) + tuple(f"opcore/Autograd_{i}.cpp" for i in range(NUM_SHARDS)) + (
    "tests/Gradcheck.cpp",
    "tests/test_python_bindings.py",
    "docs/operators.md",
    "python/PythonFunctions.h",
) + tuple(f"python/PythonFunctions_{i}.cpp" for i in range(NUM_SHARDS)) + python_stubs.stub_paths()

# Where the per-operator headers go (opcore/ops/<group>{,_ops,_native}.h).
PER_OPERATOR_DIR = "opcore/ops/"

# The directories under the output directory that hold generated files (for stale files).
OUTPUT_DIRS: tuple[str, ...] = ("opcore", "tests", "docs", "python")


def _emitters(spec: Spec) -> tuple[Callable[[], list[FileSpec]], ...]:
    """Every emitter, ready to run on `spec`."""
    fns = spec.functions
    return (lambda: operators.emit(fns), lambda: functions.emit(fns), lambda: native_functions.emit(fns),
            lambda: register.emit(fns), lambda: autograd.emit(spec), lambda: gradcheck.emit(spec),
            lambda: docs.emit(spec), lambda: python_bindings.emit(fns, spec.tags),
            lambda: python_tests.emit(spec), lambda: python_stubs.emit(fns))


def _check_paths(paths: list[str]) -> None:
    assert len(set(paths)) == len(paths), "two emitters produce the same file: generator bug"
    per_operator = set(paths) - set(FIXED_OUTPUTS)
    assert set(FIXED_OUTPUTS) <= set(paths), "emitters and FIXED_OUTPUTS disagree: generator bug"
    assert all(p.startswith(PER_OPERATOR_DIR) for p in per_operator), "unexpected output: generator bug"
    assert {p.split("/")[0] for p in FIXED_OUTPUTS} == set(OUTPUT_DIRS), "OUTPUT_DIRS is stale: generator bug"


def emit_all(spec: Spec) -> list[FileSpec]:
    """Every output's view, in the one order of the outputs: FIXED_OUTPUTS in order, then the
    per-operator headers sorted by path. Precondition: check_functions() passed."""
    by_path: dict[str, FileSpec] = {}
    paths = []
    for emitter in _emitters(spec):
        for output in emitter():
            paths.append(output.path)
            by_path[output.path] = output
    _check_paths(paths)
    return [by_path[path] for path in list(FIXED_OUTPUTS) + sorted(set(by_path) - set(FIXED_OUTPUTS))]
