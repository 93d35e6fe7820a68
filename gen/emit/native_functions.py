"""ops/<group>_native.h: the declarations of the hand-written kernels named in the `dispatch:`
entries of one operator; NativeFunctions.h includes them all. See Note [One-op rebuilds]."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from gen.api import native, structured
from gen.api.structured import ImplSignature
from gen.emit import kernel_keys
from gen.emit.common import FileSpec, aggregate_header, library_path, ops_header, schema_comment
from gen.emit.functions import redispatch_view
from gen.model.native_function import NativeFunction
from gen.model.spec import Spec


@dataclass(frozen=True, slots=True)
class KernelView:
    """One kernel declaration and the (operator, keys) that use it, one comment line each."""

    comments: tuple[str, ...]  # ("aten::add.out — CPU",)
    decl: str                  # "Tensor& add_out(const Tensor& self, ..., Tensor& out)"


@dataclass(frozen=True, slots=True)
class KernelBlock:
    """The kernels declared in one C++ namespace other than the library's own `native` one
    (ExecuTorch's `kernel_name: mylib::f` is mylib::native::f: Note [Kernel keys])."""

    namespace: str                   # "mylib"
    kernels: tuple[KernelView, ...]


# One kernel use: (C++ namespace, "" for the library's own; the signature; the operator; its key).
KernelUse = tuple[str, Union[native.NativeSignature, ImplSignature], str, str]


def kernel_uses(f: NativeFunction) -> list[KernelUse]:
    """The hand-written kernels `f` names: in `dispatch:` and in `kernels:` (at CPU)."""
    uses = [("", native.kernel_signature(f, k.kernel), f.qualified_name, k.key.value) for k in f.native_kernels]
    return uses + kernel_keys.kernel_uses(f, f.kernels, f.namespace)


def kernel_declarations(uses: list[KernelUse]) -> tuple[list[KernelView], list[KernelBlock]]:
    """One view per distinct (namespace, kernel name, parameter types), in order of first use:
    those of the library's own namespace, then a block per other namespace.

    Kernels used under several keys of one entry (`CPU, CUDA: view`) get one comment line.
    signature_checks.py guarantees that uses sharing parameter types share the return type.
    """
    decls: dict[tuple, str] = {}
    comments: dict[tuple, dict[str, list[str]]] = {}
    for namespace, sig, op, key in uses:
        k = (namespace, sig.name, sig.parameter_types())
        decls.setdefault(k, sig.decl())
        keys = comments.setdefault(k, {}).setdefault(op, [])
        keys += [key] if key not in keys else []
    views: dict[str, list[KernelView]] = {}
    for k, decl in decls.items():
        views.setdefault(k[0], []).append(
            KernelView(tuple(f"{op} — {', '.join(keys)}" for op, keys in comments[k].items()), decl))
    return views.pop("", []), [KernelBlock(ns, tuple(v)) for ns, v in views.items()]


def kernel_views(functions: tuple[NativeFunction, ...]) -> tuple[list[KernelView], list[KernelBlock]]:
    """The declarations of the kernels `functions` name (kernel_declarations)."""
    return kernel_declarations([use for f in functions for use in kernel_uses(f)])


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


def emit(spec: Spec) -> list[FileSpec]:
    groups, namespace = spec.operator_groups, spec.namespace
    files = []
    for name, fns in groups.items():
        metas = [meta_view(f) for f in fns if f.structured]
        kernels, blocks = kernel_views(fns)
        context = {"group": name, "ops_include": ops_header(namespace, name, "_ops"), "kernels": kernels,
                   "kernel_blocks": blocks, "metas": metas, "has_metas": bool(metas),
                   "redispatch": [redispatch_view(f) for f in fns]}
        files.append(FileSpec(ops_header(namespace, name, "_native"), "PerOperator_native.h.j2", context))
    files.append(aggregate_header(library_path(namespace, "NativeFunctions.h"), "NativeFunctions",
                                  [ops_header(namespace, name, "_native") for name in groups]))
    return files
