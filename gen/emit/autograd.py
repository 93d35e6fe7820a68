"""Autograd_<i>.cpp (NUM_SHARDS shards, sharded like Operators_<i>.cpp: see Note [One-op
rebuilds]): for the operators of a shard, the backward nodes of their derivatives.yaml entries
(autograd_nodes.py) and two kernels per operator, registered at the Autograd and
ADInplaceOrView keys. The kinds of Autograd kernels are in gen/api/autograd.py (AutogradKind);
docs/derivatives.md shows each."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from gen.api import autograd, cpp, dispatcher
from gen.api.autograd import AutogradKind
from gen.api.dispatcher import KEYSET
from gen.emit.autograd_nodes import NodeView, node_view, should_compute
from gen.emit.common import (NUM_SHARDS, FileSpec, callable_operators, cpp_string_literal, library_path,
                             ops_header, schema_comment, sharded)
from gen.model.derivatives import Derivative
from gen.model.formulas import unqualified_names
from gen.model.schema import alias_set
from gen.model.native_function import NativeFunction
from gen.model.spec import Spec


@dataclass(frozen=True, slots=True)
class KernelView:
    """An Autograd or ADInplaceOrView kernel (Autograd.cpp.j2 lays it out)."""

    comment: str                  # "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor"
    name: str                     # "wrapper_Autograd_mul_Tensor"
    defn: str                     # "Tensor wrapper_Autograd_mul_Tensor(DispatchKeySet dispatch_key_set, ...)"
    prologue: tuple[str, ...]     # before the node: in-place and out= checks
    has_node: bool
    node_type: str                # "MulBackward0", "NotImplemented"
    node_args: str                # "" or "\"aten::neg\""
    requires_grad: str            # "autograd::computeRequiresGrad(self, other)"
    edges: str                    # "self, other"
    saves: tuple[str, ...]        # inside `if (requires grad)`, after the edges
    has_result: bool              # the call returns a value (kept in `result`)
    result_decl: str              # "Tensor result", "Tensor& result"
    lambda_head: str              # "[&]" or "[&]() -> Tensor&"
    redispatch: str               # "_ops::mul_Tensor::redispatch(dispatch_key_set & kAfterAutogradKeySet, self, other)"
    history: tuple[str, ...]      # inside `if (grad_fn)` after the call
    epilogue: tuple[str, ...]     # after the call (ADInplaceOrView: asView, incrementVersion)
    op_literal: str               # "\"mul.Tensor\""
    grad_fn: str                  # the names of the kernel's locals: "grad_fn", "result", "guard",
    result: str                   # unless an argument has that name (see _local_names)
    guard: str


_LOCALS = ("grad_fn", "result", "guard", "requires_grad")


def _local_names(f: NativeFunction) -> dict[str, str]:
    """The kernel's local variables, each renamed (`result_`) if an argument has its name."""
    taken = {a.name for a in f.func.arguments}
    names = {}
    for local in _LOCALS:
        name = local
        while name in taken:
            name += "_"
        names[local] = name
    return names


def _redispatch(f: NativeFunction, mask: str) -> str:
    sig = cpp.redispatch_signature(f.func)
    args = ", ".join((f"{KEYSET.name} & {mask}",) + sig.call_exprs()[1:])
    return f"_ops::{dispatcher.struct_name(f.func)}::redispatch({args})"


def _kernel(f: NativeFunction, key: str, mask: str, **parts) -> KernelView:
    """A kernel of `f` at `key` redispatching with `mask`; `parts` fill the node fields."""
    sig = dispatcher.signature(f.func)
    name = f"wrapper_{key}_{dispatcher.struct_name(f.func)}"
    local = _local_names(f)
    view = dict(prologue=(), has_node=False, node_type="", node_args="", requires_grad="", edges="", saves=(),
                history=(), epilogue=())
    view.update(parts)
    return KernelView(
        comment=schema_comment(f), name=name, defn=sig.defn(name, keyset=True),
        has_result=sig.returns != "void", result_decl=f"{sig.returns} {local['result']}",
        lambda_head=f"[&]() -> {sig.returns}" if "&" in sig.returns else "[&]",
        redispatch=_redispatch(f, mask), op_literal=cpp_string_literal(f.name),
        grad_fn=local["grad_fn"], result=local["result"], guard=local["guard"], **view)


def _history(f: NativeFunction, outputs: tuple[int, ...], local: dict[str, str]) -> list[str]:
    """Makes the node the grad_fn of the outputs (in-place: of self)."""
    fn = local["grad_fn"]
    if f.func.is_inplace:
        if f.func.arguments[0].type.is_list:
            return [f"for (const Tensor& t : self) autograd::setHistory(t, {fn});"]
        return [f"autograd::rebaseHistory(self, {fn});"]
    exprs = autograd.output_expressions(f, local["result"])
    statements = []
    for i in outputs:
        shape, out = f.func.returns[i].type.shape, exprs[i]
        if shape == "":
            statements.append(f"autograd::setHistory({out}, {fn});")
        elif shape == "?":
            statements.append(f"autograd::setHistory({out}.value_or(Tensor()), {fn});")
        elif shape.startswith("?"):
            statements.append(f"for (const auto& t : {out}) autograd::setHistory(t.value_or(Tensor()), {fn});")
        else:
            statements.append(f"for (const Tensor& t : {out}) autograd::setHistory(t, {fn});")
    return statements


def _node_parts(f: NativeFunction, edges: str, local: dict[str, str], condition: Optional[str] = None) -> dict:
    """requires_grad and prologue: an in-place overload checks self first. `condition`: torchgen's
    output_differentiability condition, without which no node is recorded."""
    requires = f"autograd::computeRequiresGrad({edges})"
    if condition is not None:
        requires = f"{requires} && ({condition})"
    if not f.func.is_inplace:
        return {"requires_grad": requires}
    flag = local["requires_grad"]
    check = (f"for (const Tensor& t : self) autograd::checkInplace(t, {flag});"
             if f.func.arguments[0].type.is_list else f"autograd::checkInplace(self, {flag});")
    return {"requires_grad": flag, "prologue": (f"const bool {flag} = {requires};", check)}


def _guarded(statements: dict[str, list[str]]) -> list[str]:
    """`if (condition) statement;`, or a block for several statements under one condition."""
    lines = []
    for condition, group in statements.items():
        if len(group) == 1:
            lines.append(f"if ({condition}) {group[0]}")
        else:
            lines += [f"if ({condition}) {{"] + [f"  {s}" for s in group] + ["}"]
    return lines


def _formulas_kernel(f: NativeFunction, d: Derivative, node: str) -> KernelView:
    args = d.differentiable_arguments
    ranges = autograd.edge_ranges(args, lambda name: f"{name}.size()")
    by_name = {r.argument.name: r for r in ranges}
    before: dict[str, list[str]] = {}
    after: dict[str, list[str]] = {}
    local = _local_names(f)
    fn, outputs = local["grad_fn"], autograd.output_expressions(f, local["result"])
    for v in autograd.saved_values(f, d):
        condition = " || ".join(dict.fromkeys(should_compute(by_name[u], fn) for u in v.users))
        value = v.save if v.output is None else v.save.replace("{out}", outputs[v.output])
        (before if v.output is None else after).setdefault(condition, []).append(f"{fn}->{v.field} = {value};")
    saves = _guarded(before) + [f"{fn}->{autograd.list_size_field(a.name)} = {a.name}.size();"
                                for a in args if a.type.is_list]
    edges = ", ".join(a.name for a in args)
    condition = d.output_condition.expr.strip() if d.output_condition is not None else None
    return _kernel(f, "Autograd", "kAfterAutogradKeySet", has_node=True, node_type=node, edges=edges,
                   saves=tuple(saves), history=tuple(_history(f, d.differentiable_outputs, local) + _guarded(after)),
                   **_node_parts(f, edges, local, condition))


def _not_implemented_kernel(f: NativeFunction) -> KernelView:
    edges = ", ".join(a.name for a in autograd.differentiable_inputs(f))
    outputs = tuple(i for i, r in enumerate(f.func.returns) if r.type.is_tensor)
    local = _local_names(f)
    return _kernel(f, "Autograd", "kAfterAutogradKeySet", has_node=True, node_type="NotImplemented",
                   node_args=cpp_string_literal(f.qualified_name), edges=edges,
                   history=tuple(_history(f, outputs, local)), **_node_parts(f, edges, local))


def autograd_kernel(f: NativeFunction, d: Optional[Derivative], nodes: dict[str, str]) -> Optional[KernelView]:
    """The Autograd kernel of `f` (None for AutogradKind.NONE)."""
    kind = autograd.autograd_kind(f, d)
    if kind == AutogradKind.NONE:
        return None
    if kind == AutogradKind.FORMULAS:
        return _formulas_kernel(f, d, nodes[d.name])
    if kind == AutogradKind.NOT_IMPLEMENTED:
        return _not_implemented_kernel(f)
    prologue = ()
    if kind == AutogradKind.OUT:
        tensors = ", ".join(a.name for a in f.func.arguments if a.type.is_tensor)
        op = cpp_string_literal(f.func.name.base)
        prologue = (f"autograd::checkOutNotRequiringGrad({op}, autograd::computeRequiresGrad({tensors}));",)
    return _kernel(f, "Autograd", "kAfterAutogradKeySet", prologue=prologue)


def _view_statements(f: NativeFunction) -> list[str]:
    """asView for each output aliasing an argument without writing it (`Tensor(a)`)."""
    statements = []
    outputs = autograd.output_expressions(f, _local_names(f)["result"])
    for r, out in zip(f.func.returns, outputs):
        if r.type.alias is None or r.type.is_mutable:
            continue
        base = next((a for a in f.func.arguments if alias_set(a.type) & alias_set(r.type)), None)
        if base is None or base.type.shape != "" or r.type.shape not in ("", "[]"):
            continue
        if r.type.shape == "":
            statements.append(f"{out} = autograd::asView({base.name}, std::move({out}));")
        else:
            statements.append(f"for (Tensor& t : {out}) t = autograd::asView({base.name}, std::move(t));")
    return statements


def _version_statements(f: NativeFunction) -> list[str]:
    """incrementVersion for each tensor the operator writes and returns (`Tensor(a!)`: in-place
    `self`, out= arguments). One written and not returned (the running statistics of
    _native_batch_norm_legit) is a buffer autograd does not track, as in PyTorch, whose
    ADInplaceOrView kernels bump what the operator returns: bumping it would make the node of
    every earlier call that saved it (each use of one batch norm in a forward) refuse to run."""
    statements = []
    returned = frozenset().union(*(alias_set(r.type) for r in f.func.returns))
    for a in f.func.arguments:
        if not a.type.is_mutable or not alias_set(a.type) & returned:
            continue
        if a.type.shape == "":
            statements.append(f"autograd::incrementVersion({a.name});")
        elif a.type.shape == "?":
            statements.append(f"if ({a.name}) autograd::incrementVersion(*{a.name});")
        elif not a.type.shape.startswith("?"):
            statements.append(f"for (const Tensor& t : {a.name}) autograd::incrementVersion(t);")
    return statements


def inplace_or_view_kernel(f: NativeFunction) -> Optional[KernelView]:
    """The ADInplaceOrView kernel of a view or of an operator writing a tensor, else None."""
    if not autograd.has_autograd_layer(f):
        return None
    epilogue = _version_statements(f) + _view_statements(f)
    if not epilogue:
        return None
    return _kernel(f, "ADInplaceOrView", "kAfterADInplaceOrViewKeySet", epilogue=tuple(epilogue))


def _node_comment(d: Derivative) -> str:
    return f"derivatives.yaml:{d.loc.line}: {d.func}"


def autograd_file(spec: Spec, shard: dict[str, tuple[NativeFunction, ...]], index: int,
                  nodes: dict[str, str], operators: dict[str, str]) -> FileSpec:
    node_views: dict[str, NodeView] = {}
    kernels, views, includes = [], [], set()
    for group, fns in shard.items():
        for f in fns:
            d = spec.derivative_for(f)
            kernel, view = autograd_kernel(f, d, nodes), inplace_or_view_kernel(f)
            kernels += [kernel] if kernel else []
            views += [view] if view else []
            includes |= {ops_header(spec.namespace, group)} if kernel or view else set()
            if kernel is None or kernel.node_type in ("", "NotImplemented") or d.name in node_views:
                continue
            node_views[d.name] = node_view(f, d, nodes[d.name], _node_comment(d))
            for formula in d.backward_formulas:
                includes |= {operators[n.text] for n in unqualified_names(formula.expr) if n.text in operators}
    context = {
        "shard": index, "num_shards": NUM_SHARDS, "includes": sorted(includes),
        "has_kernels": bool(kernels or views), "has_nodes": bool(node_views),
        "nodes": list(node_views.values()), "kernels": kernels, "views": views, "has_views": bool(views),
        "definitions": kernels + views,
    }
    return FileSpec(library_path(spec.namespace, f"Autograd_{index}.cpp"), "Autograd.cpp.j2", context)


def emit(spec: Spec) -> list[FileSpec]:
    nodes = autograd.node_names(spec.derivatives)
    operators = callable_operators(spec)
    shards = sharded(spec.operator_groups)
    return [autograd_file(spec, shard, i, nodes, operators) for i, shard in enumerate(shards)]
