"""An extension's kernels for opcore's operators (`- op:` entries; OperatorImpl in
gen/model/native_function.py): NativeImpls.h declares them, RegisterImpls.cpp wraps them and
registers each at its key in library `aten`, above opcore's own kernels while the extension is
loaded (the dispatcher's latest registration at a key wins; unloading restores the previous)."""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import native
from gen.emit import kernel_keys, register
from gen.emit.autogen import GeneratedWrapperView
from gen.emit.common import FileSpec, library_path, ops_header, wrapper_name
from gen.emit.native_functions import kernel_declarations
from gen.model.native_function import DispatchKey
from gen.model.operators import group_name
from gen.model.spec import Spec


@dataclass(frozen=True, slots=True)
class ImplBlock:
    """One OPCORE_LIBRARY_IMPL block: the wrappers registered at one key."""

    key: str
    wrappers: tuple[GeneratedWrapperView, ...]


def emit(spec: Spec) -> list[FileSpec]:
    ns = spec.namespace
    by_key: dict[DispatchKey, list[GeneratedWrapperView]] = {}
    uses = []
    for impl in spec.impls:
        f = impl.function
        for k in impl.dispatch:
            w = register.wrapper_view(f, k.key, k.kernel)
            by_key.setdefault(k.key, []).append(
                GeneratedWrapperView(w.comment, w.name, w.defn, w.device + (f"return {w.body};",), w.op_literal))
            uses.append(("", native.signature(f.func, k.kernel), f.qualified_name, k.key.value))
        if impl.kernels:
            by_key.setdefault(DispatchKey.CPU, []).append(
                kernel_keys.wrapper_view(f, impl.kernels, wrapper_name(f, DispatchKey.CPU), ns))
            uses += kernel_keys.kernel_uses(f, impl.kernels, ns)
    kernels, blocks = kernel_declarations(uses)
    header = library_path(ns, "NativeImpls.h")
    includes = sorted({ops_header(impl.function.namespace, group_name(impl.function), "_ops")
                       for impl in spec.impls if not impl.own_kernels})
    return [
        FileSpec(header, "NativeImpls.h.j2", {"kernels": kernels, "kernel_blocks": blocks, "includes": includes}),
        FileSpec(library_path(ns, "RegisterImpls.cpp"), "RegisterImpls.cpp.j2", {
            "header": header, "has_impls": any(not impl.own_kernels for impl in spec.impls),
            "has_device_guards": any(key in register.DEVICE_GUARD_KEYS for key in by_key),
            "wrappers": [w for key in DispatchKey for w in by_key.get(key, [])],
            "blocks": [ImplBlock(key.value, tuple(by_key[key])) for key in DispatchKey if key in by_key]}),
    ]
