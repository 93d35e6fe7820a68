"""ops/<group>_native.h: the declarations of the hand-written kernels named in the `dispatch:`
entries of one operator; NativeFunctions.h includes them all. See Note [One-op rebuilds]."""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import native
from gen.emit.common import FileSpec, aggregate_header, operator_groups, ops_header
from gen.model.native_function import NativeFunction


@dataclass(frozen=True)
class KernelView:
    """One kernel declaration and the (operator, keys) that use it, one comment line each."""

    comments: tuple[str, ...]  # ("aten::add.out — CPU",)
    decl: str                  # "Tensor& add_out(const Tensor& self, ..., Tensor& out)"


def kernel_views(functions: tuple[NativeFunction, ...]) -> list[KernelView]:
    """One view per distinct (kernel name, parameter types), in order of first use.

    Kernels used under several keys of one entry (`CPU, CUDA: view`) get one comment line.
    check.py guarantees that uses sharing parameter types share the return type.
    """
    decls: dict[tuple, str] = {}
    comments: dict[tuple, dict[str, list[str]]] = {}
    for f in functions:
        for k in f.dispatch:
            sig = native.signature(f.func, k.kernel)
            key = (sig.name, sig.parameter_types())
            decls.setdefault(key, sig.decl())
            comments.setdefault(key, {}).setdefault(f"aten::{f.name}", []).append(k.key.value)
    return [
        KernelView(tuple(f"{op} — {', '.join(keys)}" for op, keys in comments[key].items()), decl)
        for key, decl in decls.items()
    ]


def emit(functions: tuple[NativeFunction, ...]) -> list[FileSpec]:
    groups = operator_groups(functions)
    files = [FileSpec(ops_header(name, "_native"), "PerOperator_native.h.j2",
                      {"group": name, "kernels": kernel_views(fns)})
             for name, fns in groups.items()]
    files.append(aggregate_header("opcore/NativeFunctions.h", "NativeFunctions",
                                  [ops_header(name, "_native") for name in groups]))
    return files
