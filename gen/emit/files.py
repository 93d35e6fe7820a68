"""The generated files and the emitter run for all of them.

fixed_outputs() does not depend on the YAML (a Register<Key>_<i>.cpp exists even when no
operator of shard i uses that key), so the build can ask for it (`--list-outputs`) before the
YAML is valid: it names every .cpp file CMake compiles (tests/Gradcheck.cpp into the test
executable, python/ into the Python extension opcore._C, the others into the library) and the
type stubs of opcore._C (python/opcore/_C/*.pyi). The per-operator headers under
<ns>/ops/ depend on the YAML's operator names; the manifest written after a run lists them.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from gen.emit import (autograd, docs, functions, gradcheck, impls, native_functions, operators, python_bindings, python_stubs, python_tests,
                      register)
from gen.emit.common import NUM_SHARDS, FileSpec, library_path, namespace_context
from gen.model.native_function import ATEN, DispatchKey
from gen.model.spec import Spec

def fixed_outputs(namespace: str = ATEN) -> tuple[str, ...]:
    """The generated files of `namespace` whatever its YAML, in the order of the outputs: an
    extension's (Note [Operator namespaces] in gen/emit/common.py) are its library and its
    gradcheck tests; aten's also Tensor.h, the Python bindings and stubs, and the docs."""
    def lib(name: str) -> str:
        return library_path(namespace, name)

    shards = tuple(lib(f"Operators_{i}.cpp") for i in range(NUM_SHARDS)) + tuple(
        lib(f"Register{key.value}_{i}.cpp") for key in DispatchKey for i in range(NUM_SHARDS)
    ) + tuple(lib(f"Autograd_{i}.cpp") for i in range(NUM_SHARDS))
    headers = (lib("Operators.h"), lib("Functions.h"), lib("NativeFunctions.h"), lib("RegisterSchema.cpp"))
    if namespace != ATEN:  # and its kernels for opcore's operators (gen/emit/impls.py)
        return headers + (lib("NativeImpls.h"), lib("RegisterImpls.cpp")) + shards + ("tests/Gradcheck.cpp",)
    return (lib("Tensor.h"),) + headers + shards + (
        "tests/Gradcheck.cpp",
        "tests/test_python_bindings.py",
        "docs/operators.md",
        "python/PythonFunctions.h",
    ) + tuple(f"python/PythonFunctions_{i}.cpp" for i in range(NUM_SHARDS)) + python_stubs.stub_paths()


FIXED_OUTPUTS = fixed_outputs(ATEN)


def output_dirs(namespace: str = ATEN) -> tuple[str, ...]:
    """The directories under the output directory that hold generated files (for stale files)."""
    return tuple(dict.fromkeys(p.split("/")[0] for p in fixed_outputs(namespace)))


def _kept(spec: Spec) -> Spec:
    """`spec` without the operators a selective build leaves out (Note [Selective builds] in
    gen/emit/selection.py), and without their derivatives."""
    if spec.kept is None:
        return spec
    return replace(spec, functions=tuple(f for f in spec.functions if f.name in spec.kept),
                   derivatives=tuple(d for d in spec.derivatives if d.name in spec.kept))


def _emitters(spec: Spec) -> tuple[Callable[[], list[FileSpec]], ...]:
    """Every emitter of `spec`'s namespace, ready to run on it: the C++ API of every operator,
    the registrations, bindings and tests of those a selective build keeps."""
    fns, ns = spec.functions, spec.namespace
    kept = _kept(spec)
    excluded = tuple(f for f in fns if f.name not in spec.kept) if spec.kept is not None else ()
    library = (lambda: operators.emit(fns, ns, frozenset(f.name for f in excluded)), lambda: functions.emit(fns, ns), lambda: native_functions.emit(fns, ns),
               lambda: register.emit(kept.functions, ns, tuple(f.qualified_name for f in excluded),
                                     spec.selection_file),
               lambda: autograd.emit(kept), lambda: gradcheck.emit(kept))
    if spec.namespace != ATEN:
        return library + (lambda: impls.emit(spec),)
    return library + (lambda: docs.emit(kept), lambda: python_bindings.emit(kept.functions, spec.tags),
                      lambda: python_tests.emit(kept), lambda: python_stubs.emit(kept.functions))


def _check_paths(paths: list[str], fixed: tuple[str, ...], per_operator_dir: str) -> None:
    assert len(set(paths)) == len(paths), "two emitters produce the same file: generator bug"
    assert set(fixed) <= set(paths), "emitters and fixed_outputs disagree: generator bug"
    assert all(p.startswith(per_operator_dir) for p in set(paths) - set(fixed)), "unexpected output: generator bug"


def emit_all(spec: Spec) -> list[FileSpec]:
    """Every output's view, in the one order of the outputs: fixed_outputs in order, then the
    per-operator headers sorted by path; each template also reads namespace_context.
    Precondition: check_functions() passed."""
    by_path: dict[str, FileSpec] = {}
    paths = []
    for emitter in _emitters(spec):
        for output in emitter():
            paths.append(output.path)
            by_path[output.path] = output
    fixed = fixed_outputs(spec.namespace)
    _check_paths(paths, fixed, library_path(spec.namespace, "ops/"))
    namespace = namespace_context(spec.namespace)
    return [replace(by_path[path], context=by_path[path].context | namespace)
            for path in list(fixed) + sorted(set(by_path) - set(fixed))]
