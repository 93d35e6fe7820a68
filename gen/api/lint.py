"""Lint across files (`python3 -m gen --lint kernels/`): every kernel that `dispatch:` names
and every meta function a structured overload needs is defined in the kernel sources, and
every tag declared in tags.yaml is used. The YAML itself is validated when it is loaded.

    errors, warnings = lint(spec, {"kernels/cpu/Binary.cpp": text, ...})

A definition is recognized by its head, `<return type> <name>(` at the start of a line (the
way kernels/ is written), so a declaration elsewhere or a call does not count.
"""
from __future__ import annotations

import re
from typing import Mapping

from gen.api import native, structured
from gen.model.errors import SpecError
from gen.model.native_function import NativeFunction
from gen.model.spec import Spec


def _defined(sources: Mapping[str, str], returns: str, name: str) -> bool:
    head = re.compile(rf"^{re.escape(returns)}\s+(?:\w+::)*{re.escape(name)}\s*\(", re.MULTILINE)
    return any(head.search(text) for text in sources.values())


def _kernel_errors(f: NativeFunction, sources: Mapping[str, str], where: str) -> list[SpecError]:
    errors = []
    for k in f.native_kernels:
        sig = native.kernel_signature(f, k.kernel)
        if not _defined(sources, sig.returns, k.kernel):
            errors.append(SpecError(k.kernel_loc, f"kernel '{k.kernel}' ({k.key.value}) is not defined in "
                                                  f"{where} (expected '{sig.decl()} {{')"))
    if f.structured:
        meta = structured.meta_signature(f)
        if not _defined(sources, meta.struct_name, meta.name):
            errors.append(SpecError(f.func_loc.at(0), f"structured operator '{f.name}' has no meta function in "
                                                      f"{where} (expected 'meta::{meta.decl()} {{' "
                                                      "in namespace opcore::meta)"))
    return errors


def lint(spec: Spec, sources: Mapping[str, str], where: str) -> tuple[list[SpecError], list[str]]:
    """(errors, warnings) for `spec` against `sources` (path -> text of every kernel source);
    `where` names the directories searched, for the messages."""
    errors = [e for f in spec.functions for e in _kernel_errors(f, sources, where)]
    used = {t for f in spec.functions for t in f.tags}
    warnings = [f"{t.loc}: warning: tag '{t.name}' is declared but no operator uses it"
                for t in spec.tags if t.name not in used]
    return errors, warnings
