"""Lint across files (`python3 -m gen --lint kernels/`): every kernel that `dispatch:` or
`kernels:` names (an extension's `- op:` entries' too) and every meta function a structured
overload needs is defined in the kernel sources, and
every tag declared in tags.yaml is used; with a backend YAML (`--backend-yaml`), every kernel
the backend must define (lint_backend). The YAML itself is validated when it is loaded.

    errors, warnings = lint(spec, {"kernels/cpu/Binary.cpp": text, ...})

A definition is recognized by its head, `<return type> <name>(` at the start of a line (the
way kernels/ is written), so a declaration elsewhere or a call does not count.
"""
from __future__ import annotations

import re
from typing import Mapping, Optional

from gen.api import native, structured
from gen.api.backend import kernels as backend_kernels
from gen.api.cpp import cpp_namespace
from gen.model.backend_yaml import BackendYaml
from gen.model.errors import SpecError
from gen.model.native_function import NativeFunction, OperatorImpl
from gen.model.spec import Spec


def _defined(sources: Mapping[str, str], returns: str, name: str) -> bool:
    head = re.compile(rf"^(?:\w+::)*{re.escape(returns)}\s+(?:\w+::)*{re.escape(name)}\s*\(", re.MULTILINE)
    return any(head.search(text) for text in sources.values())


def _kernel_errors(f: NativeFunction, sources: Mapping[str, str], where: str,
                   impl: Optional[OperatorImpl] = None) -> list[SpecError]:
    """The kernels of `f` (or of `impl`, an extension's kernels for `f`) not defined in `sources`."""
    named = [(k.kernel, k.key.value, k.kernel_loc) for k in (impl.dispatch if impl else f.native_kernels)]
    named += [(k.kernel, "CPU, kernels:", k.loc) for k in (impl.kernels if impl else f.kernels)]
    errors = []
    for kernel, key, loc in dict.fromkeys(named):
        sig = native.signature(f.func, kernel) if impl or key.endswith("kernels:") else native.kernel_signature(f, kernel)
        if not _defined(sources, sig.returns, kernel):
            errors.append(SpecError(loc, f"kernel '{kernel}' ({key}) is not defined in {where} (expected "
                                         f"'{sig.decl()} {{')"))
    if impl:
        return errors
    if f.structured:
        meta = structured.meta_signature(f)
        if not _defined(sources, meta.struct_name, meta.name):
            errors.append(SpecError(f.func_loc.at(0), f"structured operator '{f.name}' has no meta function in "
                                                      f"{where} (expected 'meta::{meta.decl()} {{' "
                                                      f"in namespace {cpp_namespace(f.namespace)}::meta)"))
    return errors


def lint(spec: Spec, sources: Mapping[str, str], where: str) -> tuple[list[SpecError], list[str]]:
    """(errors, warnings) for `spec` against `sources` (path -> text of every kernel source);
    `where` names the directories searched, for the messages."""
    errors = [e for f in spec.functions for e in _kernel_errors(f, sources, where)]
    errors += [e for impl in spec.impls for e in _kernel_errors(impl.function, sources, where, impl)]
    used = {t for f in spec.functions for t in f.tags}
    warnings = [f"{t.loc}: warning: tag '{t.name}' is declared but no operator uses it"
                for t in spec.tags if t.name not in used]
    return errors, warnings


def lint_backend(backend: BackendYaml, spec: Spec, sources: Mapping[str, str], where: str) -> list[SpecError]:
    """The kernels `backend`'s YAML asks for (gen/api/backend.py) that `sources` do not define
    (`Tensor NPUNativeFunctions::add(` at the start of a line), each located at the item naming it."""
    errors = []
    for k in backend_kernels(backend, spec):
        sig = k.signature
        what = f"the impl of structured '{k.function.name}'" if k.structured else f"'{k.function.name}'"
        if not _defined(sources, sig.returns, sig.name):
            errors.append(SpecError(k.loc, f"kernel '{backend.class_name}::{sig.name}' ({what}) is not "
                                           f"defined in {where} (expected '{sig.returns} {backend.class_name}::"
                                           f"{sig.decl()[len(sig.returns) + 1:]} {{' in namespace {backend.cpp_namespace})"))
    return errors
