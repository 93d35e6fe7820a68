"""Schema types, returns and defaults to C++: the only place these decisions are made.

The C++ API, the dispatcher and the native kernels use the same types for now; each has its
own signature module so that they can diverge (e.g. SymInt) without touching the others.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from gen.model.schema import Argument, Return, SchemaType


class ApiError(ValueError):
    """A schema the C++ API cannot express; callers add the entry's location."""


@dataclass(frozen=True)
class Binding:
    """One C++ parameter: `const Scalar& alpha = 1`. `default` is a C++ expression or None."""

    type: str
    name: str
    default: Optional[str] = None

    def decl(self, with_default: bool = True) -> str:
        if with_default and self.default is not None:
            return f"{self.type} {self.name} = {self.default}"
        return f"{self.type} {self.name}"

    def without_default(self) -> "Binding":
        return Binding(self.type, self.name)


# (base, shape) -> C++ parameter type; shape is SchemaType.shape ("", "?", "[]", "[N]", ...).
# bool[N] is handled in argument_type(): its C++ type depends on N.
_INT_LIKE = {
    "": "int64_t",
    "?": "std::optional<int64_t>",
    "[]": "IntArrayRef",
    "[N]": "IntArrayRef",
    "[]?": "OptionalIntArrayRef",
    "[N]?": "OptionalIntArrayRef",
}
_ARGUMENT_TYPES = {
    ("Tensor", ""): "const Tensor&",
    ("Tensor", "?"): "const std::optional<Tensor>&",
    ("Tensor", "[]"): "TensorList",
    ("Scalar", ""): "const Scalar&",
    ("Scalar", "?"): "const std::optional<Scalar>&",
    ("float", ""): "double",
    ("float", "?"): "std::optional<double>",
    ("bool", ""): "bool",
    ("bool", "?"): "std::optional<bool>",
    ("str", ""): "std::string_view",
    ("str", "?"): "std::optional<std::string_view>",
    ("ScalarType", ""): "ScalarType",
    ("ScalarType", "?"): "std::optional<ScalarType>",
    ("Device", ""): "Device",
    ("Device", "?"): "std::optional<Device>",
    **{("int", shape): cpp for shape, cpp in _INT_LIKE.items()},
    **{("SymInt", shape): cpp for shape, cpp in _INT_LIKE.items()},
}

_RETURN_TYPES = {
    "Tensor": "Tensor",
    "int": "int64_t",
    "SymInt": "int64_t",
    "float": "double",
    "bool": "bool",
    "Scalar": "Scalar",
}

_SCALAR_TYPE_DEFAULTS = {
    "long": "ScalarType::Long",
    "int": "ScalarType::Int",
    "float": "ScalarType::Float",
    "double": "ScalarType::Double",
    "bool": "ScalarType::Bool",
}
_DEVICE_DEFAULTS = {
    "cpu": "Device(DeviceType::CPU)",
    "cuda": "Device(DeviceType::CUDA)",
    "meta": "Device(DeviceType::Meta)",
}
_SPECIAL_FLOATS = {
    "inf": "std::numeric_limits<double>::infinity()",
    "-inf": "-std::numeric_limits<double>::infinity()",
    "nan": "std::numeric_limits<double>::quiet_NaN()",
    "-nan": "std::numeric_limits<double>::quiet_NaN()",
}


_NUMBER_LITERAL = re.compile(r"-?[0-9][0-9.eE+-]*")


def _unsupported(t: SchemaType) -> ApiError:
    return ApiError(f"type {t} is not supported by the C++ API yet")


def argument_type(t: SchemaType) -> str:
    """The C++ parameter type of a schema argument type."""
    if t.is_mutable:
        if t.base == "Tensor" and not t.suffix:
            return "Tensor&"
        raise _unsupported(t)
    if t.base == "bool" and t.shape == "[N]":
        return f"std::array<bool, {t.list_size}>"
    cpp = _ARGUMENT_TYPES.get((t.base, t.shape))
    if cpp is None:
        raise _unsupported(t)
    return cpp


def _return_type(r: Return) -> str:
    t = r.type
    if t.base == "Tensor" and t.suffix == "[]" and not t.is_mutable:
        return "std::vector<Tensor>"
    cpp = _RETURN_TYPES.get(t.base)
    if cpp is None or t.suffix:
        raise ApiError(f"return type {t} is not supported by the C++ API yet")
    return "Tensor&" if t.is_mutable else cpp


def returns_type(returns: tuple[Return, ...]) -> str:
    """`Tensor`, `Tensor&`, `void` for `()`, `std::tuple<Tensor, Tensor>` for several."""
    if not returns:
        return "void"
    if len(returns) == 1:
        return _return_type(returns[0])
    return f"std::tuple<{', '.join(_return_type(r) for r in returns)}>"


def default_value(arg: Argument) -> Optional[str]:
    """The C++ default expression of `arg`, or None when it has no default."""
    value = arg.default
    if value is None:
        return None
    t = arg.type
    if value == "None":
        return "std::nullopt"
    if t.is_list:
        return _list_default(t, value)
    return _scalar_default(t.base, value)


def _list_default(t: SchemaType, value: str) -> str:
    if value.startswith("["):
        items = [i for i in value[1:-1].split(",") if i]
    else:  # `int[2] x=1` means every element is 1
        items = [value] * (t.list_size or 1)
    braces = "{" + ",".join(_scalar_default(t.base, i) for i in items) + "}"
    # std::optional<IntArrayRef> needs the ArrayRef spelled out to take a braced list.
    return f"IntArrayRef{braces}" if t.is_optional else braces


def _scalar_default(base: str, value: str) -> str:
    if value in ("True", "False"):
        return value.lower()
    if base == "ScalarType":
        return _lookup(_SCALAR_TYPE_DEFAULTS, value, "ScalarType")
    if base == "Device":
        return _lookup(_DEVICE_DEFAULTS, value, "Device")
    if value in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[value]
    if base == "str" or _NUMBER_LITERAL.fullmatch(value):
        return value
    raise ApiError(f"default '{value}' of type {base} has no C++ equivalent yet")


def _lookup(table: dict[str, str], value: str, what: str) -> str:
    if value not in table:
        raise ApiError(f"unknown {what} default '{value}' (expected one of: {', '.join(table)})")
    return table[value]


def trim_defaults(bindings: list[Binding]) -> tuple[Binding, ...]:
    """Keeps a default only when every later parameter has one too (C++ requires it)."""
    result: list[Binding] = []
    keep = True
    for b in reversed(bindings):
        keep = keep and b.default is not None
        result.append(b if keep else b.without_default())
    return tuple(reversed(result))
