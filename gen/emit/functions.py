"""The C++ API: Functions.h (`opcore::add`), Tensor.h (`t.add`) and RedispatchFunctions.h
(`opcore::redispatch::add`), all thin inline calls into `_ops::<op>::call`/`redispatch`."""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import cpp, dispatcher
from gen.emit.common import FileSpec, join_args, schema_comment
from gen.model.native_function import NativeFunction, Variant


@dataclass(frozen=True)
class InlineFunctionView:
    """One inline definition: `inline {head} { return {body}; }` under `// {comment}`."""

    comment: str  # "aten::add.Tensor(Tensor self, ...) -> Tensor"
    head: str     # "Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1)"
    body: str     # "_ops::add_Tensor::call(self, other, alpha)"


def _view(f: NativeFunction, head: str, sig: cpp.CppSignature, entry: str) -> InlineFunctionView:
    struct = dispatcher.struct_name(f.func)
    return InlineFunctionView(schema_comment(f), head, f"_ops::{struct}::{entry}({join_args(sig.call_exprs())})")


def function_views(f: NativeFunction) -> list[InlineFunctionView]:
    """Functions.h: `add` for `variants: function`; `add_out`/`add_outf` for every out= overload."""
    if f.func.is_out:
        sigs = [cpp.out_signature(f.func), cpp.outf_signature(f.func)]
    elif Variant.function in f.variants:
        sigs = [cpp.function_signature(f.func)]
    else:
        sigs = []
    return [_view(f, sig.decl(), sig, "call") for sig in sigs]


def redispatch_view(f: NativeFunction) -> InlineFunctionView:
    sig = cpp.redispatch_signature(f.func)
    return _view(f, sig.decl(), sig, "redispatch")


@dataclass(frozen=True)
class MethodView:
    """A Tensor method: declared in the class (with defaults), defined inline after it."""

    decl: str                   # "Tensor add(const Tensor& other, const Scalar& alpha = 1) const"
    defn: InlineFunctionView    # head: "Tensor Tensor::add(const Tensor& other, ...) const"


def method_view(f: NativeFunction) -> MethodView:
    sig = cpp.method_signature(f.func)
    return MethodView(sig.decl(), _view(f, sig.defn(scope="Tensor::"), sig, "call"))


def emit(functions: tuple[NativeFunction, ...]) -> list[FileSpec]:
    methods = [method_view(f) for f in functions if Variant.method in f.variants]
    free = [view for f in functions for view in function_views(f)]
    redispatch = [redispatch_view(f) for f in functions]
    return [
        FileSpec("opcore/Tensor.h", "Tensor.h.j2", {"methods": methods}),
        FileSpec("opcore/Functions.h", "Functions.h.j2", {"functions": free}),
        FileSpec("opcore/RedispatchFunctions.h", "RedispatchFunctions.h.j2", {"functions": redispatch}),
    ]
