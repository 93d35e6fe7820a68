"""ops/<group>_native.h: the declarations of the hand-written kernels named in the `dispatch:`
entries of one operator; NativeFunctions.h includes them all. See Note [One-op rebuilds]."""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import native, structured
from gen.emit.common import FileSpec, aggregate_header, library_path, operator_groups, ops_header, schema_comment
from gen.emit.functions import redispatch_view
from gen.model.native_function import NativeFunction


@dataclass(frozen=True, slots=True)
class KernelView:
    """One kernel declaration and the (operator, keys) that use it, one comment line each."""

    comments: tuple[str, ...]  # ("aten::add.out — CPU",)
    decl: str                  # "Tensor& add_out(const Tensor& self, ..., Tensor& out)"


def kernel_views(functions: tuple[NativeFunction, ...]) -> list[KernelView]:
    """One view per distinct (kernel name, parameter types), in order of first use.

    Kernels used under several keys of one entry (`CPU, CUDA: view`) get one comment line.
    signature_checks.py guarantees that uses sharing parameter types share the return type.
    """
    decls: dict[tuple, str] = {}
    comments: dict[tuple, dict[str, list[str]]] = {}
    for f in functions:
        for k in f.native_kernels:
            sig = native.kernel_signature(f, k.kernel)
            key = (sig.name, sig.parameter_types())
            decls.setdefault(key, sig.decl())
            comments.setdefault(key, {}).setdefault(f.qualified_name, []).append(k.key.value)
    return [
        KernelView(tuple(f"{op} — {', '.join(keys)}" for op, keys in comments[key].items()), decl)
        for key, decl in decls.items()
    ]


@dataclass(frozen=True)
class MetaView:
    """The result struct and declaration of a structured overload's meta function."""

    comment: str               # "aten::add.out(Tensor self, ...) -> Tensor(a!)"
    struct_name: str           # "add_out"
    fields: tuple[str, ...]    # ("TensorSpec out",)
    decl: str                  # "add_out add(const Tensor& self, const Tensor& other, const Scalar& alpha)"


def meta_view(f: NativeFunction) -> MetaView:
    sig = structured.meta_signature(f)
    return MetaView(schema_comment(f), sig.struct_name, tuple(f"{t} {n}" for t, n in sig.fields), sig.decl())


def emit(functions: tuple[NativeFunction, ...], namespace: str) -> list[FileSpec]:
    groups = operator_groups(functions)
    files = []
    for name, fns in groups.items():
        metas = [meta_view(f) for f in fns if f.structured]
        context = {"group": name, "ops_include": ops_header(namespace, name, "_ops"), "kernels": kernel_views(fns),
                   "metas": metas, "has_metas": bool(metas), "redispatch": [redispatch_view(f) for f in fns]}
        files.append(FileSpec(ops_header(namespace, name, "_native"), "PerOperator_native.h.j2", context))
    files.append(aggregate_header(library_path(namespace, "NativeFunctions.h"), "NativeFunctions",
                                  [ops_header(namespace, name, "_native") for name in groups]))
    return files
