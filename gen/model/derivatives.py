"""yaml/derivatives.yaml: backward formulas, one entry per differentiable overload, named by
its schema as in PyTorch (docs/derivatives.md):

    - name: mul.Tensor(Tensor self, Tensor other) -> Tensor
      self: sum_to(grad * other, self.sizes())     # the gradient of one argument
      other: sum_to(grad * self, other.sizes())
      # a, b: <one expression returning std::tuple<Tensor, Tensor>>   (grad_input_mask tells which)
      # indices: non_differentiable
      # output_differentiability: [True, False]
      # result: auto_element_wise | auto_linear | <expr>   (forward mode: checked, not generated)
      samples:
        - {self: [2, 3], other: [3]}

Each entry is parsed on its own here (keys, arguments, samples); the rules that need
native_functions.yaml (the operator exists, names in formulas, every differentiable input has
a formula) are in cross_entry_checks.py. In-place and out= overloads use the entry of their
functional overload (Spec.derivative_for, torchgen's rule).

Note [torchgen's derivatives format]
With --pytorch-yaml (ParseOptions.torchgen_derivatives) the file is read with torchgen's rules,
so that PyTorch's own derivatives.yaml parses whole; opcore's own format is the strict subset:
- `dispatch:` inside an entry maps autograd keys to blocks of formulas; the `Default` block is
  read as the entry's formulas, the others (AutogradNestedTensor: a key opcore lacks) are not.
- A key naming outputs (`L`, `eigenvalues, eigenvectors`, or `result` for several outputs) is a
  forward-mode formula for them (opcore: only `result`, for one output).
- An argument may be named `grad`; in a formula `grad` is still the output's gradient, and a
  key `grad:` gives the argument's formula.
- A key naming several arguments may include tensor lists (`input, hx, params: ...`): the
  formula returns a tuple whose list elements are vectors of gradients.
- `output_differentiability: ["condition"]`: the one output is differentiable when the C++
  condition holds (the autograd kernel records no node otherwise).
- `not_implemented("name", kMessage)`: a constant giving the reason.
- `non_differentiable` may be written for any argument, not only tensors.
- An input with no formula is simply not differentiable (opcore: a located error, since it is
  usually a forgotten formula).
Formulas may call the names of --formula-helpers FILE besides opcore's operators and helpers.
"""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Optional

from gen.model.errors import Loc, SpecError, TextLoc, close_match, did_you_mean
from gen.model.formulas import (APPLY_LOCALS, GRADIENT_NAMES, checked_expression, not_implemented_message,
                                 not_implemented_reason, result_index, uses)
from gen.model.options import ParseOptions
from gen.model.samples import Sample, parse_samples
from gen.model.schema import Argument, FunctionSchema
from gen.model.schema_checks import parse_schema
from gen.model.yaml_loader import LocDict, LocList, describe, top_level_entries

# The keys an entry may have besides its formulas (keyed by argument names), in opcore's format
# and in torchgen's (where `result` is one of the forward formulas' keys).
ENTRY_KEYS = ("name", "output_differentiability", "result", "samples", "supports_gradgrad")
TORCHGEN_ENTRY_KEYS = ("name", "output_differentiability", "dispatch", "samples")
# The autograd key whose block of a torchgen `dispatch:` opcore reads.
DEFAULT_BLOCK = "Default"
NON_DIFFERENTIABLE = "non_differentiable"
# The shapes of tensor arguments that have gradients: Tensor, Tensor?, Tensor[], Tensor[N].
_DIFFERENTIABLE_SHAPES = ("", "?", "[]", "[N]")
_KEY_NAMES = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:, [A-Za-z_][A-Za-z0-9_]*)*")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_differentiable_type(a: Argument) -> bool:
    """Tensor, Tensor?, Tensor[] and Tensor[N] arguments have gradients."""
    return a.type.is_tensor and a.type.shape in _DIFFERENTIABLE_SHAPES


class ForwardKind(enum.Enum):
    """`result:`: how the forward-mode derivative is given (PyTorch's meaning)."""

    auto_element_wise = "auto_element_wise"  # elementwise op: the backward formula applied to the tangent
    auto_linear = "auto_linear"              # linear op: the op applied to the tangents
    formula = "formula"                      # an expression of the primals (x_p) and tangents (x_t)


@dataclass(frozen=True)
class ForwardDerivative:
    """`result:` of an entry (torchgen: or a key naming outputs, `L:`). opcore has no
    forward-mode AD: it is checked and recorded only. `expr` is the formula ("" for the auto_
    kinds); `loc` where it is written; `outputs` the key's names."""

    kind: ForwardKind
    expr: str
    loc: TextLoc
    outputs: tuple[str, ...] = ("result",)


@dataclass(frozen=True)
class Condition:
    """torchgen's `output_differentiability: ["<C++ condition>"]`, and where it is written."""

    expr: str
    loc: TextLoc


@dataclass(frozen=True)
class Formula:
    """One `<arguments>: <expression>` key of an entry.

    names <- the key (`self`, or `self, other` for one expression computing both gradients);
    expr <- the value; "" with non_differentiable (`indices: non_differentiable`);
    key_loc, loc <- where the key and the expression are written.
    """

    names: tuple[str, ...]
    expr: str
    key_loc: TextLoc
    loc: TextLoc
    non_differentiable: bool = False

    @property
    def not_implemented(self) -> Optional[str]:
        """The reason of `not_implemented("reason")`, else None."""
        return not_implemented_reason(self.expr)

    @property
    def not_implemented_message(self) -> Optional[str]:
        """The constant of torchgen's `not_implemented("name", kMessage)`, else None."""
        return not_implemented_message(self.expr)

    def name_loc(self, index: int) -> Loc:
        """Where names[index] is written in the key."""
        return self.key_loc.at(len(", ".join(self.names[:index])) + (2 if index else 0))


@dataclass(frozen=True)
class Derivative:
    """One derivatives.yaml entry.

    func <- `name:` (the overload's schema); loc <- where that schema starts; entry_loc <- the entry
    formulas <- the argument keys, in YAML order
    output_differentiability <- `output_differentiability:` (None: every Tensor output);
        output_differentiability_loc <- where it is written
    output_condition <- torchgen's condition form of output_differentiability (None: absent)
    forwards <- `result:` (torchgen: and the keys naming outputs)
    samples <- `samples:` (empty: derived from the schema, see gen/api/gradcheck.py)
    supports_gradgrad <- `supports_gradgrad:` (opcore's format; default true): false where, as in
        PyTorch, the formulas' backward operator has no derivatives, so that the generated test
        checks that a double backward says so instead of gradgradchecking
    """

    func: FunctionSchema
    loc: TextLoc
    entry_loc: Loc
    formulas: tuple[Formula, ...] = ()
    output_differentiability: Optional[tuple[bool, ...]] = None
    output_differentiability_loc: Optional[Loc] = None
    output_condition: Optional[Condition] = None
    forwards: tuple[ForwardDerivative, ...] = ()
    samples: tuple[Sample, ...] = ()
    supports_gradgrad: bool = True

    @property
    def name(self) -> str:
        """`neg`, `add.Tensor`: the overload the formulas are for."""
        return str(self.func.name)

    @property
    def differentiable_outputs(self) -> tuple[int, ...]:
        """The indices of the returns that get gradients: the Tensor ones that
        output_differentiability does not turn off."""
        flags = self.output_differentiability or (True,) * len(self.func.returns)
        return tuple(i for i, (r, flag) in enumerate(zip(self.func.returns, flags)) if flag and r.type.is_tensor)

    def formula_for(self, argument: str) -> Optional[Formula]:
        return next((f for f in self.formulas if argument in f.names), None)

    @property
    def backward_formulas(self) -> tuple[Formula, ...]:
        """The formulas that compute gradients (not `non_differentiable`)."""
        return tuple(f for f in self.formulas if not f.non_differentiable)

    @property
    def differentiable_arguments(self) -> tuple[Argument, ...]:
        """The arguments with a gradient formula, in schema order: the node's next edges."""
        names = {n for f in self.backward_formulas for n in f.names}
        return tuple(a for a in self.func.arguments if a.name in names)

    @property
    def result_names(self) -> tuple[str, ...]:
        """What formulas may call the outputs: `result` for one, `result0`... for several, and
        the returns' names."""
        n = len(self.func.returns)
        numbered = ("result",) if n == 1 else tuple(f"result{i}" for i in range(n)) if n > 1 else ()
        return numbered + tuple(r.name for r in self.func.returns if r.name)

    def output_index(self, name: str) -> Optional[int]:
        """Which return `name` (a result name) is."""
        if name == "result" and len(self.func.returns) == 1:
            return 0
        index = result_index(name)
        if index is not None and len(self.func.returns) > 1:
            return index if index < len(self.func.returns) else None
        return next((i for i, r in enumerate(self.func.returns) if r.name and r.name == name), None)


def parse_derivatives(data: object, path: str,
                      options: ParseOptions = ParseOptions()) -> tuple[tuple[Derivative, ...], list[SpecError]]:
    """Parses the loaded derivatives.yaml. Returns the valid entries and the errors found."""
    entries, errors = top_level_entries(data, path, "derivative entries ('- name: <schema>')")
    derivatives: list[Derivative] = []
    for item, loc in entries:
        try:
            derivatives.append(_parse_entry(item, loc, options.torchgen_derivatives))
        except SpecError as e:
            errors.append(e)
    return tuple(derivatives), errors


def _parse_entry(item: object, loc: Loc, torchgen: bool) -> Derivative:
    if not isinstance(item, LocDict):
        raise SpecError(loc, "a derivative entry must be a mapping ('- name: <schema>')")
    if "name" not in item:
        raise SpecError(item.loc, "missing required key 'name'")
    text = item["name"]
    name_loc = item.value_locs["name"]
    if not isinstance(text, str):
        raise SpecError(name_loc if text is not None else item.key_locs["name"],
                        "'name' must be the schema of an operator in native_functions.yaml")
    func = parse_schema(text, name_loc)
    formulas: list[Formula] = []
    forwards: list[ForwardDerivative] = []
    for block, key in _formula_keys(item, torchgen):
        if torchgen and _names_outputs(key, func):
            forwards.append(_parse_forward(block, key, func, torchgen))
        else:
            formulas.append(_parse_formula(block, key, func, formulas, torchgen))
    if not torchgen and "result" in item:
        forwards.append(_parse_forward(item, "result", func, torchgen))
    flags, flags_loc, condition = _parse_output_differentiability(item, func, torchgen)
    derivative = Derivative(
        func=func, loc=name_loc, entry_loc=item.loc, formulas=tuple(formulas),
        output_differentiability=flags, output_differentiability_loc=flags_loc, output_condition=condition,
        forwards=tuple(forwards),
        samples=parse_samples(item["samples"], _value_loc(item, "samples"), func) if "samples" in item else (),
        supports_gradgrad=_parse_supports_gradgrad(item),
    )
    if not torchgen:
        _check_names_free(derivative)
    for forward in derivative.forwards:
        _check_forward(derivative, forward)
    return derivative


def _parse_supports_gradgrad(item: LocDict) -> bool:
    if "supports_gradgrad" not in item:
        return True
    value = item["supports_gradgrad"]
    if not isinstance(value, bool):
        raise SpecError(_value_loc(item, "supports_gradgrad"), f"'supports_gradgrad' must be true or false, not {value!r}")
    return value


def _formula_keys(item: LocDict, torchgen: bool) -> list[tuple[LocDict, str]]:
    """(mapping, key) of every formula key: the entry's own keys besides ENTRY_KEYS, and in
    torchgen's format those of its `dispatch:` Default block."""
    entry_keys = TORCHGEN_ENTRY_KEYS if torchgen else ENTRY_KEYS
    keys = [(item, key) for key in item if key not in entry_keys]
    if not torchgen or "dispatch" not in item:
        return keys
    blocks = item["dispatch"]
    if not isinstance(blocks, LocDict) or not blocks:
        raise SpecError(_value_loc(item, "dispatch"), "'dispatch' must map autograd keys (Default, "
                                                      f"AutogradNestedTensor, ...) to formulas, got {describe(blocks)}")
    if keys:
        raise SpecError(keys[0][0].key_locs[keys[0][1]], f"the formula for '{keys[0][1]}' is outside 'dispatch': "
                                                         "with 'dispatch', every formula goes in its blocks")
    for key in blocks:
        if key != DEFAULT_BLOCK and not (key.startswith("Autograd") and len(key) > len("Autograd")):
            raise SpecError(blocks.key_locs[key], f"unknown autograd key '{key}'{did_you_mean(key, [DEFAULT_BLOCK])} "
                                                  "(torchgen's blocks are Default and Autograd<Backend> keys such as "
                                                  "AutogradNestedTensor; opcore reads Default)")
        if not isinstance(blocks[key], LocDict):
            raise SpecError(_value_loc(blocks, key), f"'dispatch: {key}' must map arguments to formulas, "
                                                     f"got {describe(blocks[key])}")
    default = blocks.get(DEFAULT_BLOCK)
    return [(default, key) for key in default] if default is not None else []


def _names_outputs(key: str, func: FunctionSchema) -> bool:
    """torchgen: a key whose names are all outputs (`result`, `result1`, a return's name) gives
    a forward-mode formula."""
    outputs = {r.name for r in func.returns if r.name} | {"result"}
    return all(n in outputs or result_index(n) is not None for n in key.split(", ")) and \
        func.argument(key.split(", ")[0]) is None


def _value_loc(item: LocDict, key: str) -> Loc:
    return item.value_locs[key] if item[key] is not None else item.key_locs[key]


def _parse_formula(item: LocDict, key: str, func: FunctionSchema, earlier: list[Formula],
                   torchgen: bool) -> Formula:
    """An argument key (`self`, `self, other`) and its expression or `non_differentiable`."""
    key_loc = item.key_locs[key]
    names = _parse_key(key, key_loc, func, torchgen)
    formula = Formula(names, "", key_loc, key_loc)
    value = item[key]
    # torchgen accepts non_differentiable for any argument.
    any_type = torchgen and isinstance(value, str) and value.strip() == NON_DIFFERENTIABLE
    for i, name in enumerate(names):
        _check_formula_argument(func, name, formula.name_loc(i), earlier, names[:i], any_type)
    if not isinstance(value, str) or not value.strip():
        raise SpecError(_value_loc(item, key), f"the formula for '{key}' must be a C++ expression or "
                                               f"'{NON_DIFFERENTIABLE}', got {describe(value)}")
    loc = item.value_locs[key]
    if value.strip() == NON_DIFFERENTIABLE:
        return Formula(names, "", key_loc, loc, non_differentiable=True)
    for i, name in enumerate(names):
        arg = func.argument(name)
        if not is_differentiable_type(arg):
            raise SpecError(formula.name_loc(i), f"'{name}' is a {arg.type.without_alias()}: only Tensor, Tensor? and "
                                                 f"Tensor[] arguments have gradients (write '{name}: {NON_DIFFERENTIABLE}')")
    lists = [n for n in names if func.argument(n).type.is_list]
    if len(names) > 1 and lists and not torchgen:
        raise SpecError(formula.name_loc(names.index(lists[0])),
                        f"'{lists[0]}' is a tensor list: its gradients need a formula of their own")
    # The name, not the text, decides (torchgen's not_implemented_list is a helper); only a formula
    # with that text that is not the call is scanned twice.
    if "not_implemented" in value and not_implemented_reason(value) is None and \
            uses(checked_expression(value, loc, f"the formula for '{key}'"), "not_implemented"):
        raise SpecError(loc, 'not_implemented("reason") must be the whole formula, with a string literal')
    if not torchgen and not_implemented_message(value) is not None:
        raise SpecError(loc, 'not_implemented("reason") takes one argument (the form with a message constant '
                             "is torchgen's: read with --pytorch-yaml)")
    return Formula(names, checked_expression(value, loc, f"the formula for '{key}'"), key_loc, loc)


def _parse_key(key: str, key_loc: TextLoc, func: FunctionSchema, torchgen: bool) -> tuple[str, ...]:
    """The argument names of a formula key; a key that is none is an unknown key."""
    arguments = [a.name for a in func.arguments]
    entry_keys = TORCHGEN_ENTRY_KEYS if torchgen else ENTRY_KEYS
    if not _KEY_NAMES.fullmatch(key):
        hint = did_you_mean(key, entry_keys) or (" (expected one of: " + ", ".join(entry_keys) +
                                                 ", or argument names separated by ', ')")
        raise SpecError(key_loc, f"unknown key '{key}'{hint}")
    if key == "dispatch" and func.argument(key) is None:
        raise SpecError(key_loc, "'dispatch:' blocks of formulas per autograd key are torchgen's format (read "
                                 "with --pytorch-yaml); opcore has one autograd key: write the formulas in the entry")
    outputs = [r.name for r in func.returns if r.name]
    if _IDENT.fullmatch(key) and func.argument(key) is None and key not in outputs and result_index(key) is None:
        entry_key = close_match(key, entry_keys)
        if entry_key is not None and close_match(key, arguments) is None:
            raise SpecError(key_loc, f"unknown key '{key}' (did you mean '{entry_key}'?)")
    return tuple(key.split(", "))


def _check_formula_argument(func: FunctionSchema, name: str, loc: Loc, earlier: list[Formula],
                            before: tuple[str, ...], any_type: bool) -> None:
    arg = func.argument(name)
    if arg is None:
        raise SpecError(loc, f"'{name}' is not an argument of '{func.name}'{_not_an_argument_hint(func, name)}")
    if not arg.type.is_tensor and not any_type:
        raise SpecError(loc, f"'{name}' is not a tensor ({arg.type}): only tensor arguments have gradients")
    first = next((f for f in earlier if name in f.names), None)
    if first is not None or name in before:
        line = first.key_loc.line if first is not None else loc.line
        raise SpecError(loc, f"'{name}' is given twice (first at line {line})")


def _not_an_argument_hint(func: FunctionSchema, name: str) -> str:
    returns = [r.name for r in func.returns if r.name]
    if name in returns or result_index(name) is not None or name == "result":
        return (f": '{name}' is an output; a forward-mode formula is written 'result:' "
                "(for an operator with one output)")
    return did_you_mean(name, [a.name for a in func.arguments]) or \
        f" (its arguments: {', '.join(a.name for a in func.arguments) or 'none'})"


def _parse_output_differentiability(item: LocDict, func: FunctionSchema, torchgen: bool
                                    ) -> tuple[Optional[tuple[bool, ...]], Optional[Loc], Optional[Condition]]:
    if "output_differentiability" not in item:
        return None, None, None
    value = item["output_differentiability"]
    loc = _value_loc(item, "output_differentiability")
    if not isinstance(value, LocList) or not value:
        raise SpecError(loc, "'output_differentiability' must be a list of True/False, one per output, "
                             f"got {describe(value) if value != [] else 'an empty list'}")
    if torchgen and any(isinstance(v, str) for v in value):
        return (True,), loc, _parse_condition(value, loc, func)
    for v, at in zip(value, value.item_locs):
        if not isinstance(v, bool):
            condition = (" (a condition, as torchgen allows for one output: read with --pytorch-yaml)"
                         if isinstance(v, str) else "")
            raise SpecError(at, "'output_differentiability' must be a list of True/False, one per output, "
                                f"got {describe(v)}{condition}")
    if len(value) != len(func.returns):
        raise SpecError(loc, f"'output_differentiability' has {len(value)} value(s), but '{func.name}' "
                             f"returns {len(func.returns)} output(s)")
    return tuple(value), loc, None


def _parse_condition(value: LocList, loc: Loc, func: FunctionSchema) -> Condition:
    """torchgen's `output_differentiability: ["<condition>"]`: one C++ condition, for an
    operator with one output."""
    if len(value) != 1 or len(func.returns) != 1:
        raise SpecError(loc, "a condition in 'output_differentiability' is for an operator with one output, "
                             f"as the list's only value; '{func.name}' returns {len(func.returns)} output(s)")
    text, at = value[0], value.item_locs[0]
    if not isinstance(text, str) or not text.strip():
        raise SpecError(at, f"'output_differentiability' must be [True/False...] or [\"<condition>\"], "
                            f"got {describe(text)}")
    return Condition(checked_expression(text, at, "the output_differentiability condition"), at)


def _parse_forward(item: LocDict, key: str, func: FunctionSchema, torchgen: bool) -> ForwardDerivative:
    """A forward-mode formula: `result:` (torchgen: or a key naming outputs)."""
    value = item[key]
    loc = item.value_locs[key] if value is not None else item.key_locs[key]
    if not isinstance(value, str) or not value.strip():
        raise SpecError(loc, f"the forward derivative '{key}' must be auto_element_wise, auto_linear "
                             f"or a C++ expression, got {describe(value)}")
    if len(func.returns) != 1 and not torchgen:
        raise SpecError(item.key_locs[key], f"a forward derivative ('result') is for an operator with one "
                                            f"output; '{func.name}' returns {len(func.returns)}")
    outputs = tuple(key.split(", "))
    text = value.strip()
    if text in (ForwardKind.auto_element_wise.value, ForwardKind.auto_linear.value):
        return ForwardDerivative(ForwardKind(text), "", loc, outputs)
    return ForwardDerivative(ForwardKind.formula, checked_expression(value, loc, "the forward derivative"), loc,
                             outputs)


def _check_names_free(d: Derivative) -> None:
    """Formulas name the gradients and outputs; an argument may not take those names."""
    if not d.backward_formulas:
        return
    for i, a in enumerate(d.func.arguments):
        if a.name in GRADIENT_NAMES + APPLY_LOCALS or a.name in d.result_names:
            raise SpecError(d.loc.at(d.func.argument_name_offset(i)),
                            f"argument '{a.name}' has a name formulas use for the gradients or outputs")


def _check_forward(d: Derivative, forward: ForwardDerivative) -> None:
    """auto_element_wise has PyTorch's meaning: an elementwise function of one differentiable
    input, whose forward derivative is its backward formula applied to the tangent."""
    if not d.differentiable_outputs:
        raise SpecError(forward.loc, f"a forward derivative for '{d.name}', which has no differentiable output")
    if forward.kind == ForwardKind.auto_element_wise:
        formulas = d.backward_formulas
        if len(formulas) != 1 or len(formulas[0].names) != 1 or formulas[0].not_implemented is not None:
            raise SpecError(forward.loc, "auto_element_wise needs exactly one differentiable input with a "
                                         f"backward formula; '{d.name}' has "
                                         f"{sum(len(f.names) for f in formulas)}")
