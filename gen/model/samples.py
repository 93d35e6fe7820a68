"""`samples:` of a derivatives.yaml entry: the inputs of its generated gradcheck tests.

    samples:
      - {self: [2, 3], other: {shape: [3], low: 0.5, high: 2.0}, alpha: 2}
      - {self: {values: [[1, 0], [0, 1]], dtype: Long}, dim: [0], rounding_mode: null}
      - {self: [4], indices: {cpp: "{std::optional<Tensor>(opcore::arange(2))}"}}

Each sample maps argument names to values, checked against the argument's schema type:
- Tensor: a list of ints (the shape of a random float64 tensor, uniform in [-1, 1]), or
  {shape: [..], low: a, high: b, dtype: ComplexDouble} (dtype Double, the default, or
  ComplexDouble: real and imaginary parts each uniform in [low, high)), or {values: nested list, dtype: Long} (explicit elements;
  dtype defaults to Double). Tensor[]: a list of those; Tensor?[] may hold null.
- int, float, bool, str, Scalar, and lists of them: the YAML value; ScalarType: its name (Long).
A dtype is c10's name of one opcore's tensors hold: Byte, Char, Short, Int, Long, Half, Float,
Double, ComplexFloat, ComplexDouble, Bool, BFloat16 (Note [Dtype names] in gen/model/dtypes.py).
- any optional argument: null.
- any argument: {cpp: "C++ expression"} (the only way to give a Device, a Generator, ...).
An argument with a default may be left out; one without must be given.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Union

from gen.model.dtypes import SUPPORTED_NAMES, by_name, unsupported_message
from gen.model.errors import Loc, SpecError, TextLoc, did_you_mean
from gen.model.formulas import ExpressionError, Expr
from gen.model.schema import Argument, FunctionSchema, SchemaType
from gen.model.yaml_loader import LocDict, LocList, describe

_LITERAL_BASES = ("int", "SymInt", "float", "bool", "str", "Scalar", "ScalarType")

# The dtypes of a random sample tensor: those gradcheck takes finite differences in.
RANDOM_DTYPES = ("Double", "ComplexDouble")


@dataclass(frozen=True)
class RandomTensor:
    """`[2, 3]` or `{shape: [2, 3], low: 0.5, high: 2.0, dtype: ComplexDouble}`: uniform in
    [low, high) (both parts of a complex element); `dtype` Double or ComplexDouble."""

    shape: tuple[int, ...]
    low: float = -1.0
    high: float = 1.0
    dtype: str = "Double"


@dataclass(frozen=True)
class TensorValues:
    """`{values: [[1, 2], [3, 4]], dtype: Long}`: `values` in row-major order."""

    shape: tuple[int, ...]
    values: tuple[Union[bool, int, float], ...]
    dtype: str = "Double"


@dataclass(frozen=True)
class CppValue:
    """`{cpp: "opcore::arange(2)"}`: a C++ expression of the argument's type."""

    expr: str


@dataclass(frozen=True)
class Literal:
    """A value for a non-tensor argument: int, float, bool, str (a ScalarType by name), None,
    or a tuple of those for a list."""

    value: object


@dataclass(frozen=True)
class TensorListValue:
    """A Tensor[] or Tensor?[] value: one tensor (None: a null element) per item."""

    items: tuple[Optional[Union[RandomTensor, TensorValues, CppValue]], ...]


SampleValue = Union[RandomTensor, TensorValues, CppValue, Literal, TensorListValue]


@dataclass(frozen=True)
class Sample:
    """One item of `samples:`: (argument name, value) pairs in YAML order; `loc`: the item's."""

    values: tuple[tuple[str, SampleValue], ...]
    loc: Loc

    def get(self, name: str) -> Optional[SampleValue]:
        return dict(self.values).get(name)


def parse_samples(value: object, loc: Loc, func: FunctionSchema) -> tuple[Sample, ...]:
    """`samples:`: a list of mappings from argument names to values; raises SpecError."""
    if not isinstance(value, LocList) or not value:
        raise SpecError(loc, "'samples' must be a list of mappings from argument names to values, "
                             "e.g. '- {self: [2, 3]}'")
    return tuple(_parse_sample(item, item_loc, func) for item, item_loc in zip(value, value.item_locs))


def _parse_sample(item: object, loc: Loc, func: FunctionSchema) -> Sample:
    if not isinstance(item, LocDict):
        raise SpecError(loc, f"a sample must be a mapping from argument names to values, got {describe(item)}")
    values = []
    for name in item:
        arg = func.argument(name)
        if arg is None:
            hint = did_you_mean(name, [a.name for a in func.arguments])
            raise SpecError(item.key_locs[name], f"sample names '{name}', which is not an argument of "
                                                 f"'{func.name}'{hint}")
        values.append((name, _parse_value(item[name], _value_loc(item, name), arg)))
    missing = [a.name for a in func.arguments if a.default is None and a.name not in item]
    if missing:
        raise SpecError(item.loc, f"sample lacks the argument '{missing[0]}' of '{func.name}', which has no default")
    return Sample(tuple(values), item.loc)


def _value_loc(item: LocDict, key: str) -> Loc:
    return item.value_locs[key] if item[key] is not None else item.key_locs[key]


def _is_cpp(value: object) -> bool:
    return isinstance(value, LocDict) and list(value) == ["cpp"]


def _checked_cpp(expr: str, loc: TextLoc, arg: Argument) -> str:
    """A `cpp:` value, which must be one C++ expression as a formula is (Note [Formula syntax]
    in gen/model/formulas.py), or a braced list of them; stripped, its comments blanked (the
    generated code holds it on one line)."""
    text = expr.strip()
    braced = text.startswith("{") and text.endswith("}")
    inner, shift = (text[1:-1], 1) if braced else (text, 0)
    shift += len(expr) - len(expr.lstrip())
    try:
        checked = str(Expr(inner))
    except ExpressionError as e:
        raise SpecError(loc.at(e.offset + shift),
                        f"the C++ value of '{arg.name}' is not one C++ expression: {e.message}") from None
    return ("{" + checked + "}" if braced else checked).strip()


def _parse_value(value: object, loc: Loc, arg: Argument) -> SampleValue:
    t = arg.type
    if _is_cpp(value):
        expr = value["cpp"]
        if not isinstance(expr, str) or not expr.strip():
            raise SpecError(_value_loc(value, "cpp"), "'cpp' must be a C++ expression (a non-empty string)")
        return CppValue(_checked_cpp(expr, value.value_locs["cpp"], arg))
    if value is None:
        if not t.is_optional:
            raise SpecError(loc, f"'{arg.name}' ({t}) is not optional, so it cannot be null")
        return Literal(None)
    if t.is_tensor:
        return _parse_tensor_argument(value, loc, arg)
    if t.base not in _LITERAL_BASES:
        raise SpecError(loc, f"give '{arg.name}' ({t}) as {{cpp: \"<C++ expression>\"}}")
    if t.is_list:
        return Literal(_parse_list(value, loc, arg))
    return Literal(_parse_scalar(value, loc, arg, t.base))


def _parse_list(value: object, loc: Loc, arg: Argument) -> tuple:
    if not isinstance(value, LocList):
        raise SpecError(loc, f"'{arg.name}' ({arg.type}) takes a list, got {describe(value)}")
    # Only bool[N] has a fixed size in C++ (std::array); int[2] takes any length, as in PyTorch.
    if arg.type.base == "bool" and arg.type.list_size is not None and len(value) != arg.type.list_size:
        raise SpecError(loc, f"'{arg.name}' ({arg.type}) takes {arg.type.list_size} values, got {len(value)}")
    items = []
    for item, item_loc in zip(value, value.item_locs):
        if item is None and "?[" in arg.type.suffix:  # T?[]: null elements
            items.append(None)
        else:
            items.append(_parse_scalar(item, item_loc, arg, arg.type.base))
    return tuple(items)


def _parse_scalar(value: object, loc: Loc, arg: Argument, base: str) -> object:
    ok = {
        "int": isinstance(value, int) and not isinstance(value, bool),
        "float": isinstance(value, (int, float)) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
        "str": isinstance(value, str),
        "Scalar": isinstance(value, (int, float, bool)),
        "ScalarType": True,  # checked below
    }["int" if base == "SymInt" else base]
    if not ok:
        expected = {"int": "an integer", "SymInt": "an integer", "float": "a number", "bool": "true or false",
                    "str": "a string", "Scalar": "a number or a boolean"}[base]
        raise SpecError(loc, f"'{arg.name}' ({arg.type}) takes {expected}, got {describe(value)}")
    problem = _dtype_problem(value) if base == "ScalarType" else None
    if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**63:
        problem = f"{value} is out of int64_t's range (C++ would not compile it)"
    if problem:
        raise SpecError(loc, f"'{arg.name}' ({arg.type}): {problem}")
    return value


def _dtype_problem(value: object) -> Optional[str]:
    """None when `value` is c10's name of a dtype opcore's tensors hold, else what is wrong."""
    d = by_name(value)
    if d is not None:
        return None if d.supported else unsupported_message(d)
    hint = did_you_mean(value, SUPPORTED_NAMES) if isinstance(value, str) else ""
    return f"unknown dtype {describe(value)}{hint} (expected one of: {', '.join(SUPPORTED_NAMES)})"


def _parse_tensor_argument(value: object, loc: Loc, arg: Argument) -> SampleValue:
    t = arg.type
    if not t.is_list:
        return _parse_tensor(value, loc, arg)
    if not isinstance(value, LocList) or any(isinstance(v, int) for v in value):
        raise SpecError(loc, f"'{arg.name}' ({t}) takes a list of tensors (shapes such as [[2, 3], [3]], "
                             f"or mappings), got {describe(value)}")
    items = []
    for item, item_loc in zip(value, value.item_locs):
        if item is None and "?[" in t.suffix:
            items.append(None)
        else:
            items.append(_parse_tensor(item, item_loc, arg))
    return TensorListValue(tuple(items))


def _parse_tensor(value: object, loc: Loc, arg: Argument) -> Union[RandomTensor, TensorValues, CppValue]:
    if _is_cpp(value):
        return _parse_value(value, loc, Argument(SchemaType("Tensor"), arg.name))
    if isinstance(value, LocList):
        return RandomTensor(_parse_shape(value, loc, arg))
    if isinstance(value, LocDict) and "values" in value:
        return _parse_values(value, arg)
    if isinstance(value, LocDict) and "shape" in value:
        return _parse_random(value, arg)
    raise SpecError(loc, f"'{arg.name}' takes a tensor: a shape such as [2, 3], {{shape: [2, 3], low: 0, high: 1}}, "
                         f"{{values: [[1, 2], [3, 4]], dtype: Long}} or {{cpp: \"...\"}}; got {describe(value)}")


# The most elements a random sample tensor may have: gradcheck perturbs each one, and a size
# past int64_t would not even compile.
_MAX_SAMPLE_ELEMENTS = 1 << 24


def _parse_shape(value: object, loc: Loc, arg: Argument) -> tuple[int, ...]:
    """A sample's shape; the first size that is no integer >= 0 is the error's place."""
    what = f"the shape of '{arg.name}' must be a list of sizes (integers >= 0)"
    if not isinstance(value, LocList):
        raise SpecError(loc, f"{what}, got {describe(value)}")
    for n, at in zip(value, value.item_locs):
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise SpecError(at, f"{what}, got {describe(n)}")
    elements = math.prod(value)
    if elements > _MAX_SAMPLE_ELEMENTS:
        raise SpecError(loc, f"the sample tensor '{arg.name}' would have {elements} elements, more than "
                             f"{_MAX_SAMPLE_ELEMENTS}: a sample is for gradcheck, which evaluates each one")
    return tuple(value)


def _check_keys(value: LocDict, allowed: tuple[str, ...], arg: Argument) -> None:
    for key in value:
        if key not in allowed:
            hint = did_you_mean(key, allowed) or f" (expected one of: {', '.join(allowed)})"
            raise SpecError(value.key_locs[key], f"unknown key '{key}' in the tensor of '{arg.name}'{hint}")


def _parse_random(value: LocDict, arg: Argument) -> RandomTensor:
    _check_keys(value, ("shape", "low", "high", "dtype"), arg)
    shape = _parse_shape(value["shape"], _value_loc(value, "shape"), arg)
    bounds = []
    for key, default in (("low", -1.0), ("high", 1.0)):
        bound = value.get(key, default)
        if isinstance(bound, bool) or not isinstance(bound, (int, float)):
            raise SpecError(_value_loc(value, key), f"'{key}' must be a number, got {describe(bound)}")
        bounds.append(float(bound))
    if not bounds[0] < bounds[1]:
        raise SpecError(value.loc, f"'low' ({bounds[0]}) must be less than 'high' ({bounds[1]})")
    dtype = value.get("dtype", "Double")
    if dtype not in RANDOM_DTYPES:
        problem = _dtype_problem(dtype) or f"a random tensor is one of {', '.join(RANDOM_DTYPES)}, not {dtype}"
        raise SpecError(_value_loc(value, "dtype"), problem + " (for other dtypes give values:)")
    return RandomTensor(shape, bounds[0], bounds[1], dtype)


def _parse_values(value: LocDict, arg: Argument) -> TensorValues:
    _check_keys(value, ("values", "dtype"), arg)
    dtype = value.get("dtype", "Double")
    problem = _dtype_problem(dtype)
    if problem:
        raise SpecError(_value_loc(value, "dtype"), problem)
    shape, flat = _flatten(value["values"], _value_loc(value, "values"))
    for item, loc in flat:
        if not _fits_dtype(item, dtype):
            bounds = by_name(dtype).value_range()
            holds = f" ({dtype} holds {bounds[0]} to {bounds[1]})" if bounds and type(item) is int else ""
            raise SpecError(loc, f"{describe(item)} is not a {dtype} value{holds}")
    return TensorValues(shape, tuple(item for item, _ in flat), dtype)


def _fits_dtype(item: object, dtype: str) -> bool:
    """Bool takes true and false; an integral dtype the integers it holds (Byte: 0 to 255); a
    floating or complex one any number (a complex element is real: YAML has no complex numbers)."""
    d = by_name(dtype)
    if d.kind == "bool":
        return isinstance(item, bool)
    if isinstance(item, bool):
        return False
    bounds = d.value_range()
    if bounds is None:
        return isinstance(item, (int, float))
    return isinstance(item, int) and bounds[0] <= item <= bounds[1]


def _flatten(value: object, loc: Loc) -> tuple[tuple[int, ...], list[tuple[object, Loc]]]:
    """The shape of a nested list (rectangular) and its elements in row-major order."""
    if not isinstance(value, LocList):
        return (), [(value, loc)]
    parts = [_flatten(item, item_loc) for item, item_loc in zip(value, value.item_locs)]
    shapes = {shape for shape, _ in parts}
    if len(shapes) > 1:
        raise SpecError(loc, "'values' must be a rectangular nested list (every row the same length)")
    inner = shapes.pop() if shapes else ()
    return (len(value),) + inner, [element for _, elements in parts for element in elements]
