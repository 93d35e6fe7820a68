"""The autograd calling convention: which autograd kernel an operator gets, how its backward
node is named, and what the node saves (Note [What a node saves]).

    autograd_kind(f, d)          # AutogradKind.FORMULAS for mul.Tensor with its entry d
    node_names(derivatives)      # {"add.Tensor": "AddBackward0", "add.Scalar": "AddBackward1", ...}
    saved_values(f, d)           # (SavedValue(field="self_", ...), SavedValue(field="other_", ...))

Note [What a node saves]
A node saves what its formulas name, scanned from their text (gen/model/formulas.py):
- a Tensor argument used only as `x.sizes()`, `x.dim()` or `x.scalar_type()` is saved as those
  values (`std::vector<int64_t> x_sizes_`, `int64_t x_dim_`, `ScalarType x_scalar_type_`),
  which replace the calls in the formula: the node keeps no tensor alive for a shape;
- other tensor arguments are saved as SavedVariable(x, false) (lists as one per element);
  an in-place overload saves a clone of `self` taken before the call (the formula means the
  value `self` had), recorded by autograd so that double backward sees it;
- outputs (`result`, `result0`, a return's name) are saved after the call as
  SavedVariable(out, true) (in-place: `self` after the call), so that they keep no reference
  to the node that saves them;
- other arguments are saved by value, as the type that owns them (types.owning_type:
  IntArrayRef -> std::vector<int64_t>, str? -> std::optional<std::string>), and are given back
  to the formula with the kernel's parameter type.
Each value is saved only when the gradient of an input whose formula uses it is needed
(shouldComputeOutput of that input's next edge).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Callable, Optional

from gen.api.types import ApiError, argument_type, owning_type
from gen.model.derivatives import Derivative, Formula, is_differentiable_type
from gen.model.dispatch import DispatchKey
from gen.model.formulas import GRADIENT_NAMES, TENSOR_PROPERTIES, property_uses, uses
from gen.model.native_function import NativeFunction
from gen.model.schema import Argument, SchemaType


class AutogradKind(enum.Enum):
    """The Autograd kernel an operator gets (see docs/derivatives.md)."""

    NONE = "none"                        # no kernel: CompositeImplicitAutograd, no tensor argument, manual
    PLAIN = "plain"                      # redispatch only: nothing to differentiate
    OUT = "out"                          # out=: fails when an argument requires grad, then redispatches
    FORMULAS = "formulas"                # records a node of derivatives.yaml
    NOT_IMPLEMENTED = "not_implemented"  # records a NotImplemented node (no entry)


def has_autograd_layer(f: NativeFunction) -> bool:
    """Whether `f` gets generated Autograd and ADInplaceOrView kernels: it takes a tensor, and
    it is neither CompositeImplicitAutograd (autograd sees the operators it calls) nor
    registered by hand."""
    if f.manual_kernel_registration or any(k.key == DispatchKey.CompositeImplicitAutograd for k in f.dispatch):
        return False
    return any(a.type.is_tensor for a in f.func.arguments)


def differentiable_inputs(f: NativeFunction) -> tuple[Argument, ...]:
    """The Tensor, Tensor?, Tensor[] arguments: the next edges of a NotImplemented node."""
    return tuple(a for a in f.func.arguments if is_differentiable_type(a))


def autograd_kind(f: NativeFunction, d: Optional[Derivative]) -> AutogradKind:
    """`d`: the derivatives.yaml entry f uses (Spec.derivative_for), or None."""
    if not has_autograd_layer(f):
        return AutogradKind.NONE
    if f.func.is_out:
        return AutogradKind.OUT
    if d is not None and not (f.func.is_inplace and _self_without_gradient(d)):
        return AutogradKind.FORMULAS if d.differentiable_outputs and d.differentiable_arguments else AutogradKind.PLAIN
    has_outputs = any(r.type.is_tensor for r in f.func.returns) or any(a.type.is_mutable for a in f.func.arguments)
    return AutogradKind.NOT_IMPLEMENTED if has_outputs and differentiable_inputs(f) else AutogradKind.PLAIN


def _self_without_gradient(d: Derivative) -> bool:
    """An in-place overload's node must have `self` as its first next edge (rebaseHistory
    moves self's history onto it); an entry without a formula for `self` cannot give it one,
    so such an overload records a NotImplemented node instead."""
    args = d.differentiable_arguments
    return not args or args[0].name != "self"


def node_names(derivatives: tuple[Derivative, ...]) -> dict[str, str]:
    """Entry name -> its node class, as PyTorch names them: the base name in CamelCase,
    `Backward`, and the entry's index among those of the same base name in file order
    (add.Tensor -> AddBackward0, add.Scalar -> AddBackward1; copy_ -> CopyBackward0)."""
    counts: dict[str, int] = {}
    names = {}
    for d in derivatives:
        base = d.func.name.functional_base
        index = counts.get(base, 0)
        counts[base] = index + 1
        names[d.name] = "".join(part.capitalize() for part in base.split("_")) + f"Backward{index}"
    return names


@dataclass(frozen=True)
class EdgeRange:
    """Where a differentiable argument's gradients go among the node's next edges: from
    `begin` (a C++ index expression), one edge, or `size` of them for a Tensor[]."""

    argument: Argument
    begin: str
    size: Optional[str] = None


def edge_ranges(arguments: tuple[Argument, ...], list_size: Callable[[str], str]) -> tuple[EdgeRange, ...]:
    """The next edges of `arguments` in order; `list_size(name)` is the C++ size of a Tensor[]
    argument where the expressions are used (`tensors.size()` in a kernel, `tensors_size_` in
    apply())."""
    ranges = []
    constant, terms = 0, []
    for a in arguments:
        begin = " + ".join(([str(constant)] if constant or not terms else []) + terms)
        if a.type.is_list:
            size = list_size(a.name)
            ranges.append(EdgeRange(a, begin, size))
            terms.append(size)
        else:
            ranges.append(EdgeRange(a, begin))
            constant += 1
    return tuple(ranges)


def list_size_field(name: str) -> str:
    """The node field holding the length of Tensor[] argument `name`."""
    return f"{name}_size_"


@dataclass(frozen=True)
class SavedValue:
    """One field of a node and how it is filled and read (Note [What a node saves]).

    field, type: the member (`self_`, `SavedVariable`); init: its initializer ("" or "{}")
    save: the expression assigned in the kernel (`SavedVariable(self, false)`), reading the
        kernel's arguments; an output's reads `{out}`, to be replaced by its expression
        (output_expressions)
    restore: the statement of apply() defining the formula's name, or "" when the formula
        reads the field itself (a property)
    release: the statement of releaseVariables(), or ""
    users: the arguments whose formulas use it: it is saved when one of their gradients is needed
    output: which return it is, for an output (saved after the call); None for an argument
    """

    field: str
    type: str
    init: str
    save: str
    restore: str
    release: str
    users: tuple[str, ...]
    output: Optional[int] = None


_PROPERTY_FIELDS = {"sizes": ("sizes", "std::vector<int64_t>", ".sizes().vec()"),
                    "dim": ("dim", "int64_t", ".dim()"),
                    "scalar_type": ("scalar_type", "ScalarType", ".scalar_type()")}
_NEEDS_INIT = ("int64_t", "double", "bool", "ScalarType", "Layout", "MemoryFormat", "QScheme")


def _users(d: Derivative, name: str, formulas: tuple[Formula, ...]) -> tuple[str, ...]:
    return tuple(n for f in formulas for n in f.names if uses(f.expr, name))


def property_only(d: Derivative, a: Argument) -> Optional[tuple[str, ...]]:
    """The properties a plain Tensor argument is used through, when the formulas use it only
    that way; else None (see Note [What a node saves])."""
    if not (a.type.is_tensor and a.type.shape == ""):
        return None
    found = [u for f in d.backward_formulas for u in property_uses(f.expr, a.name)]
    if not found or any(u.prop is None for u in found):
        return None
    return tuple(p for p in TENSOR_PROPERTIES if any(u.prop == p for u in found))


def property_field(name: str, prop: str) -> str:
    return f"{name}_{_PROPERTY_FIELDS[prop][0]}_"


def _property_values(d: Derivative, a: Argument, props: tuple[str, ...]) -> list[SavedValue]:
    values = []
    for prop in props:
        _, type_, call = _PROPERTY_FIELDS[prop]
        users = tuple(n for f in d.backward_formulas for n in f.names
                      if any(u.prop == prop for u in property_uses(f.expr, a.name)))
        values.append(SavedValue(property_field(a.name, prop), type_, "{}" if type_ in _NEEDS_INIT else "",
                                 f"{a.name}{call}", "", "", users))
    return values


def _tensor_value(f: NativeFunction, a: Argument, users: tuple[str, ...]) -> SavedValue:
    field, shape, name = f"{a.name}_", a.type.shape, a.name
    if shape == "":
        source = f"{name}.clone()" if f.func.is_inplace and a is f.func.arguments[0] else name
        return SavedValue(field, "SavedVariable", "", f"SavedVariable({source}, false)",
                          f"const Tensor {name} = {field}.unpack();", f"{field}.reset();", users)
    if shape == "?":
        return SavedValue(field, "SavedVariable", "", f"SavedVariable({name}.value_or(Tensor()), false)",
                          f"const std::optional<Tensor> {name} = unpackOptional({field});",
                          f"{field}.reset();", users)
    if shape in ("[]", "[N]", "?[]"):
        optional = "Optional" if shape == "?[]" else ""
        element = "std::optional<Tensor>" if optional else "Tensor"
        return SavedValue(field, "std::vector<SavedVariable>", "", f"save{optional}List({name}, false)",
                          f"const std::vector<{element}> {name} = unpack{optional}List({field});",
                          f"resetAll({field});", users)
    raise ApiError(f"formulas cannot use '{name}' ({a.type}) yet: a node cannot save that type")


def _value(a: Argument, users: tuple[str, ...]) -> SavedValue:
    """A non-tensor argument, saved as its owning type (see Note [What a node saves])."""
    t = SchemaType(a.type.base, None, a.type.suffix)
    if t.base == "str" and t.is_list:
        raise ApiError(f"formulas cannot use '{a.name}' ({a.type}) yet: a node cannot save that type")
    owned, param, name, field = owning_type(t), argument_type(t), a.name, f"{a.name}_"
    if param in (owned, f"const {owned}&"):
        save, restore = name, f"const {owned}& {name} = {field};"
    elif param.startswith(("OptionalArrayRef", "OptionalIntArrayRef")):
        save = f"{name} ? std::make_optional({name}->vec()) : std::nullopt"
        restore = f"const {param} {name} = {field} ? {param}(*{field}) : {param}();"
    elif param == "std::optional<std::string_view>":
        save = f"{name} ? std::make_optional(std::string(*{name})) : std::nullopt"
        restore = f"const {param} {name} = {field} ? {param}(*{field}) : std::nullopt;"
    elif param == "std::string_view":
        save, restore = f"std::string({name})", f"const {param} {name} = {field};"
    else:  # an ArrayRef, viewing the saved std::vector
        save, restore = f"{name}.vec()", f"const {param} {name} = {field};"
    return SavedValue(field, owned, "{}" if owned in _NEEDS_INIT else "", save, restore, "", users)


def output_expressions(f: NativeFunction, result: str) -> tuple[str, ...]:
    """The C++ expression of each output after the call, in a kernel whose call's value is
    `result`: `self` for an in-place overload, `std::get<i>(result)` for several outputs."""
    if f.func.is_inplace:
        return ("self",)
    if len(f.func.returns) == 1:
        return (result,)
    return tuple(f"std::get<{i}>({result})" for i in range(len(f.func.returns)))


def _output_value(d: Derivative, name: str, index: int, users: tuple[str, ...]) -> SavedValue:
    """`{out}` in `save` stands for the output's expression (output_expressions)."""
    t = d.func.returns[index].type
    field, is_output = f"{name}_", str(index in d.differentiable_outputs).lower()
    if t.is_tensor and t.shape == "":
        return SavedValue(field, "SavedVariable", "", f"SavedVariable({{out}}, {is_output})",
                          f"const Tensor {name} = {field}.unpack(shared_from_this());", f"{field}.reset();", users, index)
    if t.is_tensor and t.shape == "[]":
        return SavedValue(field, "std::vector<SavedVariable>", "", f"saveList({{out}}, {is_output})",
                          f"const std::vector<Tensor> {name} = unpackList({field}, shared_from_this());",
                          f"resetAll({field});", users, index)
    if t.is_tensor:
        raise ApiError(f"formulas cannot use the output '{name}' ({t}) yet: a node cannot save that type")
    owned = owning_type(t)
    return SavedValue(field, owned, "{}" if owned in _NEEDS_INIT else "", "{out}",
                      f"const {owned}& {name} = {field};", "", users, index)


def saved_values(f: NativeFunction, d: Derivative) -> tuple[SavedValue, ...]:
    """What the node of `d` saves when used by `f` (f is d's operator, or an in-place overload
    sharing it): arguments in schema order, then outputs. Raises ApiError for a value no node
    can save yet."""
    formulas = d.backward_formulas
    values: list[SavedValue] = []
    for a in f.func.arguments:
        # torchgen lets an argument be named `grad`; in a formula the name is the gradient's.
        users = () if a.name in GRADIENT_NAMES else _users(d, a.name, formulas)
        if not users:
            continue
        props = property_only(d, a)
        if props is not None:
            values += _property_values(d, a, props)
        elif a.type.is_tensor:
            values.append(_tensor_value(f, a, users))
        else:
            values.append(_value(a, users))
    for name in d.result_names:
        users = _users(d, name, formulas)
        if users:
            values.append(_output_value(d, name, d.output_index(name), users))
    return tuple(values)


def formula_expression(d: Derivative, formula: Formula, namespace: str) -> str:
    """The C++ expression computing `formula` in apply(): property calls replaced by the saved
    fields, and `not_implemented("reason")` given the operator's name."""
    if formula.not_implemented is not None:
        reason = formula.not_implemented_message or f'"{formula.not_implemented}"'
        return f'not_implemented("{namespace}::{d.name}", {reason})'
    spans = []
    for a in d.func.arguments:
        if property_only(d, a) is not None:
            spans += [(u.start, u.end, property_field(a.name, u.prop)) for u in property_uses(formula.expr, a.name)]
    text = formula.expr
    for start, end, field in sorted(spans, reverse=True):
        text = text[:start] + field + text[end:]
    return text.strip().replace("\n", " ")
