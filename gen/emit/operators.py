"""ops/<group>_ops.h (one `opcore::_ops` struct per overload: the typed entry points into
the dispatcher that every other API calls), their definitions in the Operators_<i>.cpp
shards, and Operators.h, which includes every group's header. See Note [One-op rebuilds]."""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import dispatcher
from gen.emit.common import (NUM_SHARDS, FileSpec, aggregate_header, cpp_string_literal, join_args,
                             library_path, ops_header, schema_comment, sharded)
from gen.model.native_function import NativeFunction
from gen.model.spec import Spec


@dataclass(frozen=True, slots=True)
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
    excluded: bool           # left out of a selective build: call and redispatch throw why


def operator_view(f: NativeFunction, excluded: bool = False) -> OperatorView:
    sig = dispatcher.signature(f.func)
    struct = dispatcher.struct_name(f.func)
    return OperatorView(
        comment=schema_comment(f),
        struct_name=struct,
        handle_factory=f"create_{struct}_typed_handle",
        schema_type=sig.type(),
        name_literal=cpp_string_literal(f"{f.namespace}::{f.func.name.base}"),
        overload_literal=cpp_string_literal(f.func.name.overload),
        schema_literal=cpp_string_literal(str(f.func)),
        call_decl=sig.decl("call"),
        redispatch_decl=sig.decl("redispatch", keyset=True),
        call_defn=sig.defn(f"{struct}::call"),
        redispatch_defn=sig.defn(f"{struct}::redispatch", keyset=True),
        call_args=join_args(sig.call_exprs()),
        redispatch_args=join_args(sig.call_exprs(keyset=True)),
        excluded=excluded,
    )


def emit(spec: Spec, excluded: frozenset[str] = frozenset()) -> list[FileSpec]:
    """`excluded`: the names of the operators a selective build leaves out."""
    groups, namespace = spec.operator_groups, spec.namespace
    views = {name: [operator_view(f, f.name in excluded) for f in fns] for name, fns in groups.items()}
    files = [FileSpec(ops_header(namespace, name, "_ops"), "PerOperator_ops.h.j2", {"group": name, "ops": ops})
             for name, ops in views.items()]
    files.append(aggregate_header(library_path(namespace, "Operators.h"), "Operators",
                                  [ops_header(namespace, name, "_ops") for name in groups]))
    for i, shard in enumerate(sharded(groups)):
        context = {"shard": i, "num_shards": NUM_SHARDS,
                   "includes": [ops_header(namespace, name, "_ops") for name in shard],
                   "ops": [v for name in shard for v in views[name]]}
        files.append(FileSpec(library_path(namespace, f"Operators_{i}.cpp"), "Operators.cpp.j2", context))
    return files
