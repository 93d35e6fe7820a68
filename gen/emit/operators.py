"""Operators.h and Operators.cpp: one `opcore::_ops` struct per overload, the typed entry
points into the dispatcher that every other API calls."""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import dispatcher
from gen.emit.common import FileSpec, cpp_string_literal, join_args, schema_comment
from gen.model.native_function import NativeFunction


@dataclass(frozen=True)
class OperatorView:
    """What Operators.h.j2 and Operators.cpp.j2 read about one overload."""

    comment: str             # "aten::add.Tensor(Tensor self, ...) -> Tensor"
    struct_name: str         # "add_Tensor"
    handle_factory: str      # "create_add_Tensor_typed_handle"
    schema_type: str         # "Tensor(const Tensor&, const Tensor&, const Scalar&)"
    name_literal: str        # "\"aten::add\""
    overload_literal: str    # "\"Tensor\""
    schema_literal: str      # "\"add.Tensor(...) -> Tensor\""
    call_decl: str           # "Tensor call(const Tensor& self, ...)"
    redispatch_decl: str     # "Tensor redispatch(DispatchKeySet dispatch_key_set, ...)"
    call_defn: str           # "Tensor add_Tensor::call(const Tensor& self, ...)"
    redispatch_defn: str
    call_args: str           # "self, other, alpha"
    redispatch_args: str     # "dispatch_key_set, self, other, alpha"


def operator_view(f: NativeFunction) -> OperatorView:
    sig = dispatcher.signature(f.func)
    struct = dispatcher.struct_name(f.func)
    return OperatorView(
        comment=schema_comment(f),
        struct_name=struct,
        handle_factory=f"create_{struct}_typed_handle",
        schema_type=sig.type(),
        name_literal=cpp_string_literal(dispatcher.qualified_name(f.func)),
        overload_literal=cpp_string_literal(f.func.name.overload),
        schema_literal=cpp_string_literal(str(f.func)),
        call_decl=sig.decl("call"),
        redispatch_decl=sig.decl("redispatch", keyset=True),
        call_defn=sig.defn(f"{struct}::call"),
        redispatch_defn=sig.defn(f"{struct}::redispatch", keyset=True),
        call_args=join_args(sig.call_exprs()),
        redispatch_args=join_args(sig.call_exprs(keyset=True)),
    )


def emit(functions: tuple[NativeFunction, ...]) -> list[FileSpec]:
    ops = [operator_view(f) for f in functions]
    return [
        FileSpec("opcore/Operators.h", "Operators.h.j2", {"ops": ops}),
        FileSpec("opcore/Operators.cpp", "Operators.cpp.j2", {"ops": ops}),
    ]
