"""The fixed set of generated files and the emitter run for all of them.

The set does not depend on the YAML (a Register<Key>.cpp exists even when no operator uses
that key), so the build can ask for it (`--list-outputs`) before the YAML is valid.
"""
from __future__ import annotations

from gen.emit import docs, functions, native_functions, operators, register
from gen.emit.common import FileSpec
from gen.model.native_function import DispatchKey
from gen.model.spec import Spec

OUTPUT_PATHS: tuple[str, ...] = (
    "opcore/Tensor.h",
    "opcore/Operators.h",
    "opcore/Operators.cpp",
    "opcore/Functions.h",
    "opcore/RedispatchFunctions.h",
    "opcore/NativeFunctions.h",
    "opcore/RegisterSchema.cpp",
) + tuple(f"opcore/Register{key.value}.cpp" for key in DispatchKey) + (
    "docs/operators.md",
)

# The directories under the output directory that hold generated files (for stale files).
OUTPUT_DIRS: tuple[str, ...] = ("opcore", "docs")


def emit_all(spec: Spec) -> list[FileSpec]:
    """Every output's view, in OUTPUT_PATHS order. Precondition: check_functions() passed."""
    fns = spec.functions
    specs = (operators.emit(fns) + functions.emit(fns) + native_functions.emit(fns)
             + register.emit(fns) + docs.emit(spec))
    by_path = {s.path: s for s in specs}
    assert len(by_path) == len(specs), "two emitters produce the same file: generator bug"
    assert set(by_path) == set(OUTPUT_PATHS), "emitters and OUTPUT_PATHS disagree: generator bug"
    assert {p.split("/")[0] for p in OUTPUT_PATHS} == set(OUTPUT_DIRS), "OUTPUT_DIRS is stale: generator bug"
    return [by_path[path] for path in OUTPUT_PATHS]
