"""docs/operators.md: the operator reference, from the same YAML as the code (not compiled).

One section per overload (schema, `doc:` text, variants with their C++ names, the dispatch
keys with kernels, whether it is differentiable, tags), an overload x dispatch key coverage
table, and the tags with their descriptions.
"""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import autograd
from gen.api.autograd import AutogradKind
from gen.emit.common import FileSpec
from gen.model.native_function import DispatchKey, NativeFunction
from gen.model.spec import Spec

_MARK = "✓"
# The dispatch keys in order, iterated for every overload: iterating the Enum class itself runs
# a Python generator each time.
_KEYS = tuple(DispatchKey)


@dataclass(frozen=True, slots=True)
class OperatorDocView:
    """One overload's section in operators.md."""

    name: str            # "add.Tensor"
    schema: str          # "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    has_doc: bool
    doc: str             # the `doc:` text, as written (Markdown)
    variants: str        # "function (`opcore::add`), method (`Tensor::add`)"
    kernels: str         # "CPU (`native::add_out`), CUDA (`native::add_out_cuda`)"
    differentiable: str  # "no (no entry in derivatives.yaml)"
    tags: str            # "`core`, `pointwise`" or "none"


@dataclass(frozen=True, slots=True)
class CoverageRowView:
    """One row of the coverage table: the cells after the name, already joined."""

    name: str   # "add.out"
    cells: str  # "✓ | ✓ |   |   |  "


@dataclass(frozen=True)
class TagView:
    name: str   # "pointwise"
    desc: str   # tags.yaml's `desc:`, on one line


def _variants(f: NativeFunction) -> str:
    """The variants, each with the C++ API names it gives (Note [C++ API names] in
    gen/model/native_function.py)."""
    names = f.cpp_names
    parts = []
    if names.functions:
        parts.append("function (" + ", ".join(f"`opcore::{n}`" for n in names.functions) + ")")
    if names.method is not None:
        parts.append(f"method (`Tensor::{names.method}`)")
    return ", ".join(parts)


def _kernels(f: NativeFunction) -> str:
    """Dispatch keys with a kernel, in DispatchKey order (as in the coverage table)."""
    if f.autogen_source:
        return f"{f.dispatch[0].key.value} (generated from `{f.autogen_source}`)"
    by_key = {k.key: k.kernel for k in f.dispatch}
    return ", ".join(f"{key.value} (`native::{by_key[key]}`)" for key in _KEYS if key in by_key)


def differentiable(spec: Spec, f: NativeFunction) -> str:
    """Whether autograd can differentiate `f`, and why: formulas in derivatives.yaml (its own
    or its functional overload's), or a CompositeImplicitAutograd kernel (autograd then
    differentiates the operators it calls). See AutogradKind in gen/api/autograd.py."""
    if any(k.key == DispatchKey.CompositeImplicitAutograd for k in f.dispatch):
        return "yes (through its CompositeImplicitAutograd kernel)"
    d = spec.derivative_for(f)
    kind = autograd.autograd_kind(f, d)
    if kind == AutogradKind.OUT:
        return "no (out= overloads are not differentiable)"
    if kind == AutogradKind.FORMULAS:
        source = "" if d.name == f.name else f" of `{d.name}`"
        return f"yes (formulas{source} in derivatives.yaml)"
    if d is not None:
        return "no (no differentiable output or input in derivatives.yaml)"
    return "no (no entry in derivatives.yaml)"


def operator_doc_view(spec: Spec, f: NativeFunction) -> OperatorDocView:
    return OperatorDocView(
        name=f.name,
        schema=str(f.func),
        has_doc=bool(f.doc),
        doc=f.doc,
        variants=_variants(f),
        kernels=_kernels(f),
        differentiable=differentiable(spec, f),
        tags=", ".join(f"`{t}`" for t in f.tags) or "none",
    )


def coverage_row(f: NativeFunction) -> CoverageRowView:
    keys = {k.key for k in f.dispatch}
    return CoverageRowView(f.name, " | ".join(_MARK if key in keys else " " for key in _KEYS))


def emit(spec: Spec) -> list[FileSpec]:
    context = {
        "count": str(len(spec.functions)),
        "key_header": " | ".join(key.value for key in DispatchKey),
        "key_align": " | ".join(":-:" for _ in DispatchKey),
        "coverage": [coverage_row(f) for f in spec.functions],
        "ops": [operator_doc_view(spec, f) for f in spec.functions],
        "tags": [TagView(t.name, " ".join(t.desc.split())) for t in spec.tags],
    }
    return [FileSpec("docs/operators.md", "operators.md.j2", context)]
