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
from typing import Callable, Optional

from gen.api.autograd import AutogradKind, autograd_kind
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


def _kept(spec: Spec, names: Optional[frozenset[str]]) -> Spec:
    """`spec` with only the operators `names` has (a selective build's kept or trained ones: Note
    [Selective builds] in gen/emit/selection.py) and their derivatives.yaml entries."""
    if names is None:
        return spec
    return replace(spec, functions=tuple(f for f in spec.functions if f.name in names),
                   derivatives=tuple(d for d in spec.derivatives if d.name in names))


def _inference_only(spec: Spec, kept: Spec) -> tuple[str, ...]:
    """The qualified names of the operators a selective build keeps without the derivative
    formulas a training build gives them (they are not among its trained ones)."""
    if spec.trained is None:
        return ()
    return tuple(f.qualified_name for f in kept.functions if f.name not in spec.trained
                 and autograd_kind(f, spec.derivative_for(f)) == AutogradKind.FORMULAS)


def _emitters(spec: Spec, helper: bool) -> tuple[Callable[[], list[FileSpec]], ...]:
    """The emitters of `spec`'s namespace, ready to run on it: the C++ API of every operator,
    the registrations, bindings and tests of those a selective build keeps. `helper`: the part
    run by the helper process (Note [Generation in two processes]), else the others."""
    fns, ns = spec.functions, spec.namespace
    kept, trained = _kept(spec, spec.kept), _kept(spec, spec.trained)
    if helper:
        python = (lambda: python_bindings.emit(kept.functions, spec.tags), lambda: python_tests.emit(kept))
        return (lambda: autograd.emit(trained), lambda: gradcheck.emit(trained)) + (python if ns == ATEN else ())
    excluded = tuple(f for f in fns if f.name not in spec.kept) if spec.kept is not None else ()
    library = (lambda: operators.emit(spec, frozenset(f.name for f in excluded)), lambda: functions.emit(spec),
               lambda: native_functions.emit(spec),
               lambda: register.emit(kept, tuple(f.qualified_name for f in excluded), _inference_only(spec, kept)))
    if ns != ATEN:
        return library + (lambda: impls.emit(spec),)
    return library + (lambda: docs.emit(kept), lambda: python_stubs.emit(kept.functions))


# Note [Generation in two processes]
# The emitters of a run do not depend on each other, and on a large YAML (PyTorch's) working
# out their views and rendering them is most of the run. So Generation.outputs()
# (gen/pipeline.py) splits them in two parts of about equal work: a forked helper process runs
# one part (the autograd kernels, the gradcheck tests, the Python bindings and their tests:
# every output of it a fixed one) and renders its outputs, while this process runs the
# other part, renders its outputs and writes them, then the helper's as their turn in the one
# order comes (emit_part, output_order). On a machine with one processor, the helper's part runs
# in this process instead, as when it cannot fork; the outputs are the same bytes either way
# (tests/gen/test_parallel.py).
def emit_part(spec: Spec, helper: bool) -> list[FileSpec]:
    """The outputs of one part of the emitters (Note [Generation in two processes]), each
    template also reading namespace_context. Precondition: check_functions() passed."""
    namespace = namespace_context(spec.namespace)
    return [replace(output, context=output.context | namespace)
            for emitter in _emitters(spec, helper) for output in emitter()]


def output_order(namespace: str, paths: list[str]) -> list[str]:
    """The one order of the outputs: fixed_outputs in order, then the per-operator headers
    sorted by path. `paths`: the outputs of the emitters of this process's part, which holds
    every per-operator header (the helper's are all fixed outputs)."""
    assert len(set(paths)) == len(paths), "two emitters produce the same file: generator bug"
    fixed = fixed_outputs(namespace)
    per_operator = set(paths) - set(fixed)
    per_operator_dir = library_path(namespace, "ops/")
    assert all(p.startswith(per_operator_dir) for p in per_operator), "unexpected output: generator bug"
    return list(fixed) + sorted(per_operator)
