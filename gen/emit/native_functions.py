"""NativeFunctions.h: the declarations of the hand-written kernels named in `dispatch:`."""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import native
from gen.emit.common import FileSpec
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
    return [FileSpec("opcore/NativeFunctions.h", "NativeFunctions.h.j2",
                     {"kernels": kernel_views(functions)})]
