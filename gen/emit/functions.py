"""The C++ API: ops/<group>.h (`opcore::add`), Tensor.h (`t.add`) and Functions.h (includes
every ops/<group>.h), all thin inline calls into `_ops::<op>::call`; and `opcore::redispatch::add`
(redispatch_view, in ops/<group>_native.h, for kernels). See Note [One-op rebuilds]."""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import cpp, dispatcher
from gen.emit.common import (FileSpec, aggregate_header, join_args, library_path, ops_header,
                             schema_comment)
from gen.model.native_function import ATEN, NativeFunction
from gen.model.spec import Spec


@dataclass(frozen=True, slots=True)
class InlineFunctionView:
    """One inline definition: `inline {head} { {prologue} return {body}; }` under `// {comment}`."""

    comment: str  # "aten::add.Tensor(Tensor self, ...) -> Tensor"
    head: str     # "Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1)"
    body: str     # "_ops::add_Tensor::call(self, other, alpha)"
    prologue: str = ""  # a statement before the call, or ""


def _call(f: NativeFunction, sig: cpp.CppSignature, entry: str) -> str:
    return f"_ops::{dispatcher.struct_name(f.func)}::{entry}({join_args(sig.call_exprs())})"


def _view(f: NativeFunction, head: str, sig: cpp.CppSignature, entry: str) -> InlineFunctionView:
    return InlineFunctionView(schema_comment(f), head, _call(f, sig, entry))


def _options_view(f: NativeFunction, head: str, sig: cpp.CppSignature) -> InlineFunctionView:
    """The TensorOptions overload of a factory (Note [TensorOptions overloads] in gen/api/cpp.py)."""
    has_layout, has_pin_memory = cpp.options_unused_parts(f.func)
    returns_tensor = sig.returns == "Tensor"
    flags = ", ".join(f"/*{name}=*/{'true' if value else 'false'}" for name, value in
                      (("has_layout", has_layout), ("has_pin_memory", has_pin_memory), ("returns_tensor", returns_tensor)))
    prologue = f'detail::checkOptionsWithoutArguments(options, "{f.func.name}", {flags});'
    body = _call(f, sig, "call")
    return InlineFunctionView(schema_comment(f), head, f"detail::applyRequiresGrad({body}, options)"
                              if returns_tensor else body, prologue)


def function_views(f: NativeFunction) -> list[InlineFunctionView]:
    """ops/<op>.h: `add` for `variants: function`; `add_out`/`add_outf` for every out= overload;
    nothing for `manual_cpp_binding: True` (written by hand)."""
    if f.manual_cpp_binding:
        return []
    sigs = cpp.function_signatures(f, f.cpp_no_default_args)
    options = cpp.options_signature(f.func, f.cpp_no_default_args)  # a factory's: its own view, first as in ATen
    return ([_options_view(f, sig.decl(), sig) for sig in sigs if sig == options]
            + [_view(f, sig.decl(), sig, "call") for sig in sigs if sig != options])


def redispatch_view(f: NativeFunction) -> InlineFunctionView:
    sig = cpp.redispatch_signature(f.func)
    return _view(f, sig.decl(), sig, "redispatch")


@dataclass(frozen=True, slots=True)
class MethodView:
    """A Tensor method: declared in the class (with defaults), defined inline after it."""

    decl: str                   # "Tensor add(const Tensor& other, const Scalar& alpha = 1) const"
    defn: InlineFunctionView    # head: "Tensor Tensor::add(const Tensor& other, ...) const"


def _has_method(f: NativeFunction) -> bool:
    """Whether Tensor.h declares a method for `f` (not written by hand: `manual_cpp_binding`)."""
    return f.cpp_names.method is not None and not f.manual_cpp_binding


def method_views(f: NativeFunction) -> list[MethodView]:
    """`t.add(...)`; for a factory method (`new_zeros`), its unpacked and TensorOptions overloads."""
    sigs = cpp.method_signatures(f, f.cpp_no_default_args)
    options = cpp.options_method_signature(f.func, f.cpp_no_default_args)
    return [MethodView(sig.decl(), _options_view(f, sig.defn(scope="Tensor::"), sig) if sig == options
                       else _view(f, sig.defn(scope="Tensor::"), sig, "call")) for sig in sigs]


ITEM_OPERATOR = "_local_scalar_dense"


def emit(spec: Spec) -> list[FileSpec]:
    """Tensor.h for aten only: an extension's operators are not methods."""
    functions, namespace, groups = spec.functions, spec.namespace, spec.operator_groups
    files = []
    for name, fns in groups.items():
        files.append(FileSpec(ops_header(namespace, name), "PerOperator.h.j2", {
            "group": name, "ops_include": ops_header(namespace, name, "_ops"),
            "functions": [v for f in fns for v in function_views(f)]}))
    if namespace == ATEN:
        with_methods = [name for name, fns in groups.items() if any(_has_method(f) for f in fns)]
        methods = [m for f in functions if _has_method(f) for m in method_views(f)]
        # item<T>() reads any device's element through _local_scalar_dense, where it exists.
        item = ITEM_OPERATOR in groups
        includes = with_methods + ([ITEM_OPERATOR] if item and ITEM_OPERATOR not in with_methods else [])
        files.append(FileSpec("opcore/Tensor.h", "Tensor.h.j2",
                              {"methods": methods, "definitions": [m.defn for m in methods], "item": item,
                               "includes": [ops_header(namespace, name, "_ops") for name in includes]}))
    files.append(aggregate_header(library_path(namespace, "Functions.h"), "Functions",
                                  [ops_header(namespace, name) for name in groups]))
    return files
