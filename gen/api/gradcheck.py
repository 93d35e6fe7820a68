"""The generated gradcheck tests (tests/Gradcheck.cpp): what each derivatives.yaml entry's test
checks, its inputs, and the C++ spelling of its sample values (Note [Gradcheck tests]).

Note [Gradcheck tests]
Each sample of an entry becomes one GoogleTest. The differentiable inputs (the arguments with
a formula other than not_implemented) are built once, random ones from a generator seeded per
test, and `fn` maps them to the outputs by calling the operator through
`opcore::_ops::<op>::call`; every other argument is built once before `fn` (tensors: their
values must not change between calls) or written in the call (other values, and {cpp: ...}
expressions, evaluated inside fn). What is checked depends on the entry (CheckKind). An entry
without samples gets one derived from its schema when every argument is a Tensor (shape
[2, 3]) or has a default; otherwise its test fails, saying so: every entry is checked.
"""
from __future__ import annotations

import enum
import math
import zlib
from typing import Optional

from gen.api.types import argument_type, default_value
from gen.model.derivatives import Derivative, is_differentiable_type
from gen.model.dtypes import by_name
from gen.model.samples import (CppValue, Literal, RandomTensor, Sample, SampleValue, TensorListValue,
                               TensorValues)
from gen.model.schema import Argument, SchemaType

# The shape of a tensor argument in a sample derived from the schema.
DERIVED_SHAPE = (2, 3)


class CheckKind(enum.Enum):
    GRADIENTS = "gradients"              # gradcheck and gradgradcheck (and in-place overloads: gradcheck)
    NO_GRADIENTS = "no_gradients"        # no output is differentiable: outputs never require grad
    NOT_IMPLEMENTED = "not_implemented"  # every formula is not_implemented: backward throws


def check_kind(d: Derivative) -> CheckKind:
    formulas = d.backward_formulas
    if not d.differentiable_outputs or not formulas:
        return CheckKind.NO_GRADIENTS
    if all(f.not_implemented is not None for f in formulas):
        return CheckKind.NOT_IMPLEMENTED
    return CheckKind.GRADIENTS


def input_arguments(d: Derivative) -> tuple[Argument, ...]:
    """The arguments `fn` takes as inputs: those whose gradient is checked (GRADIENTS), whose
    gradient throws (NOT_IMPLEMENTED), or every Tensor, Tensor?, Tensor[] (NO_GRADIENTS)."""
    kind = check_kind(d)
    if kind == CheckKind.NO_GRADIENTS:
        return tuple(a for a in d.func.arguments if is_differentiable_type(a))
    implemented = {n for f in d.backward_formulas for n in f.names
                   if f.not_implemented is None or kind == CheckKind.NOT_IMPLEMENTED}
    return tuple(a for a in d.differentiable_arguments if a.name in implemented)


def derived_sample(d: Derivative) -> Optional[Sample]:
    """The sample of an entry without `samples:`: a Tensor of shape [2, 3] for each Tensor
    argument, defaults for the others; None when some argument is neither."""
    values = []
    for a in d.func.arguments:
        if a.default is not None:
            continue
        if not (a.type.is_tensor and a.type.shape == ""):
            return None
        values.append((a.name, RandomTensor(DERIVED_SHAPE)))
    return Sample(tuple(values), d.entry_loc)


def test_name(d: Derivative) -> str:
    """`AddTensor` for add.Tensor, `CopyInplace` for copy_ (GoogleTest names: UpperCamel)."""
    name = d.func.name
    parts = name.functional_base.split("_") + (["inplace"] if name.is_inplace else []) + name.overload.split("_")
    return "".join(p[0].upper() + p[1:] for p in parts if p)


def seed(name: str) -> int:
    """A fixed seed per test, from its name (stable across runs and machines)."""
    return zlib.crc32(name.encode("utf-8")) % (2**31)


def _double(value: float) -> str:
    if math.isinf(value):
        return f"{'-' if value < 0 else ''}std::numeric_limits<double>::infinity()"
    if math.isnan(value):
        return "std::numeric_limits<double>::quiet_NaN()"
    text = repr(float(value))
    return text if any(c in text for c in ".en") else f"{text}.0"


def _sizes(shape: tuple[int, ...]) -> str:
    return "{" + ", ".join(map(str, shape)) + "}"


def tensor_expression(value: SampleValue) -> str:
    """A C++ expression making one tensor of a sample (`g` is the test's generator)."""
    if isinstance(value, RandomTensor):
        dtype = "" if value.dtype == "Double" else f", ScalarType::{value.dtype}"
        return f"uniformInput({_sizes(value.shape)}, {_double(value.low)}, {_double(value.high)}, g{dtype})"
    if isinstance(value, TensorValues):
        element = by_name(value.dtype).cpp_type  # Note [Dtype names] in gen/model/dtypes.py
        items = ", ".join(_element(v, value.dtype) for v in value.values)
        return f"inputFromValues<{element}>({{{items}}}, {_sizes(value.shape)})"
    assert isinstance(value, CppValue), f"not a tensor value: {value}: generator bug"
    return value.expr


def _element(v: object, dtype: str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v) if by_name(dtype).kind == "integral" else _double(v)


def _scalar_literal(v: object, base: str) -> str:
    if v is None:
        return "std::nullopt"
    if isinstance(v, bool):
        return "true" if v else "false"
    if base == "ScalarType":
        return f"ScalarType::{v}"
    if base == "str":
        escaped = str(v).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'"{escaped}"'
    if isinstance(v, float) or base == "float":
        return _double(v)
    return str(v)


def literal(a: Argument, value: Literal) -> str:
    """A non-tensor sample value as a C++ argument of a's type (lists spelled with their type,
    so that `[]` stays an empty list for an optional one)."""
    t = a.type
    if value.value is None:
        return "std::nullopt"
    if not t.is_list:
        return _scalar_literal(value.value, t.base)
    plain = SchemaType(t.base, None, t.suffix[:-1] if t.suffix.endswith("?") else t.suffix)
    items = ", ".join(_scalar_literal(v, t.base) for v in value.value)
    return f"{argument_type(plain)}{{{items}}}"


def default_expression(a: Argument) -> str:
    """What the call passes for an argument the sample leaves out."""
    value = default_value(a)
    assert value is not None, f"sample without required '{a.name}' passed the model: generator bug"
    return value


def tensor_list_items(value: SampleValue) -> tuple[Optional[SampleValue], ...]:
    """The tensors of a Tensor[] or Tensor?[] value (None: a null element)."""
    assert isinstance(value, TensorListValue), f"not a tensor list: {value}: generator bug"
    return value.items
