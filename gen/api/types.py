"""Schema types, returns and defaults to C++: the only place these decisions are made.

The C++ API, the dispatcher and the native kernels use the same types for now; each has its
own signature module so that they can diverge (e.g. SymInt) without touching the others.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from gen.model.dtypes import SUPPORTED_PYTHON_NAMES, by_schema_default, unsupported_message
from gen.model.errors import did_you_mean
from gen.model.schema import Argument, Return, SchemaType


class ApiError(ValueError):
    """A schema the C++ API cannot express; callers add the entry's location."""


@dataclass(frozen=True, slots=True)
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


# Note [C++ types of schema types]
# Every base type has one C++ value type (_VALUE_TYPES); the shape of the suffix decides how
# it is wrapped. Arguments:
#   T            V, or `const V&` for the refcounted ones (_BY_REFERENCE)
#   T?           std::optional<V> (`const std::optional<V>&` for _BY_REFERENCE)
#   T[] / T[N]   ArrayRef<V>, with the names TensorList, IntArrayRef, DimnameList;
#                bool[N] is std::array<bool, N> (its size matters, as in output_mask)
#   T[]?         OptionalArrayRef<V> (OptionalIntArrayRef); bool[N]? std::optional<std::array<...>>
#   T?[]         ArrayRef<std::optional<V>>; Tensor?[] is OptionalTensorList
#   T?[]?        OptionalArrayRef<std::optional<V>>
# Mutable tensors: Tensor(a!) is `Tensor&`; Tensor(a!)? and Tensor(a!)[] are passed like
# their immutable forms (the callee writes through the shared TensorImpl).
# Returns own their values: V (str is std::string), std::optional<V>, std::vector<V> for lists
# (std::array<bool, N> for bool[N]), `Tensor&` for Tensor(a!). Every combination is
# expressible; the ones that mean nothing are errors: an alias annotation on a non-Tensor
# type, and a mutable return other than a plain Tensor(a!) (return `()` for a mutated list).
_VALUE_TYPES = {
    "Tensor": "Tensor",
    "Scalar": "Scalar",
    "int": "int64_t",
    "SymInt": "int64_t",
    "DeviceIndex": "DeviceIndex",  # int8_t, as in c10
    "float": "double",
    "bool": "bool",
    "SymBool": "bool",  # as SymInt is int64_t
    "str": "std::string_view",
    "ScalarType": "ScalarType",
    "Device": "Device",
    "Layout": "Layout",
    "MemoryFormat": "MemoryFormat",
    "QScheme": "QScheme",
    "Dimname": "Dimname",
    "Generator": "Generator",
    "Storage": "Storage",
    "Stream": "Stream",
}
_BY_REFERENCE = frozenset({"Tensor", "Scalar", "Generator", "Storage"})
_LIST_NAMES = {"Tensor": "TensorList", "int": "IntArrayRef", "SymInt": "IntArrayRef", "Dimname": "DimnameList"}
_OPTIONAL_LIST_NAMES = {"int": "OptionalIntArrayRef", "SymInt": "OptionalIntArrayRef"}
_OPTIONAL_ELEMENT_LIST_NAMES = {"Tensor": "OptionalTensorList"}
_RETURN_VALUE_TYPES = {**_VALUE_TYPES, "str": "std::string"}

_DEVICE_DEFAULTS = {
    "cpu": "Device(DeviceType::CPU)",
    "cuda": "Device(DeviceType::CUDA)",
    "meta": "Device(DeviceType::Meta)",
}
_LAYOUT_DEFAULTS = {
    "strided": "Layout::Strided",
    "sparse_coo": "Layout::Sparse",
    "sparse_csr": "Layout::SparseCsr",
}
_MEMORY_FORMAT_DEFAULTS = {
    "contiguous_format": "MemoryFormat::Contiguous",
    "preserve_format": "MemoryFormat::Preserve",
    "channels_last": "MemoryFormat::ChannelsLast",
    "channels_last_3d": "MemoryFormat::ChannelsLast3d",
}
_NAMED_DEFAULTS = {
    "Device": _DEVICE_DEFAULTS,
    "Layout": _LAYOUT_DEFAULTS,
    "MemoryFormat": _MEMORY_FORMAT_DEFAULTS,
}
_SPECIAL_FLOATS = {
    "inf": "std::numeric_limits<double>::infinity()",
    "-inf": "-std::numeric_limits<double>::infinity()",
    "nan": "std::numeric_limits<double>::quiet_NaN()",
    "-nan": "std::numeric_limits<double>::quiet_NaN()",
}
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


# `int reduction=Mean`: the enumerators of runtime/opcore/core/Reduction.h, which convert to int64_t.
_INT_ENUM_DEFAULTS = {"Mean": "Reduction::Mean", "Sum": "Reduction::Sum"}
_CPP_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _check_type(t: SchemaType, what: str) -> None:
    if t.alias is not None and t.base != "Tensor":
        raise ApiError(f"{what} type {t} has an alias annotation, but only tensors can alias or be mutated")


def argument_type(t: SchemaType) -> str:
    """The C++ parameter type of a schema argument type; see Note [C++ types of schema types]."""
    _check_type(t, "argument")
    if t.is_mutable and t.shape == "":
        return "Tensor&"
    value = _VALUE_TYPES[t.base]
    shape = t.shape
    if shape == "":
        return f"const {value}&" if t.base in _BY_REFERENCE else value
    if shape == "?":
        return f"const std::optional<{value}>&" if t.base in _BY_REFERENCE else f"std::optional<{value}>"
    if t.base == "bool" and shape.startswith("[N]"):
        array = f"std::array<bool, {t.list_size}>"
        return array if shape == "[N]" else f"std::optional<{array}>"
    if shape in ("[]", "[N]"):
        return _LIST_NAMES.get(t.base, f"ArrayRef<{value}>")
    if shape in ("[]?", "[N]?"):
        return _OPTIONAL_LIST_NAMES.get(t.base, f"OptionalArrayRef<{value}>")
    if shape in ("?[]", "?[N]"):
        return _OPTIONAL_ELEMENT_LIST_NAMES.get(t.base, f"ArrayRef<std::optional<{value}>>")
    assert shape in ("?[]?", "?[N]?"), f"schema shape {shape} not handled: generator bug"
    return f"OptionalArrayRef<std::optional<{value}>>"


def _return_type(r: Return) -> str:
    t = r.type
    _check_type(t, "return")
    if t.is_mutable:
        if t.shape != "":
            raise ApiError(f"return type {t} cannot be returned: only a plain Tensor(a!) can be returned "
                           f"by reference (an operator that mutates a list returns `()`)")
        return "Tensor&"
    return owning_type(t)


def owning_type(t: SchemaType) -> str:
    """The C++ type that owns a value of schema type `t` (alias annotations ignored): what
    returns are, and what autograd nodes save arguments as (`int[]` -> std::vector<int64_t>,
    `str?` -> std::optional<std::string>)."""
    _check_type(SchemaType(t.base, None, t.suffix), "saved")
    value = _RETURN_VALUE_TYPES[t.base]
    shape = t.shape
    if shape == "":
        return value
    if shape == "?":
        return f"std::optional<{value}>"
    if t.base == "bool" and shape.startswith("[N]"):
        array = f"std::array<bool, {t.list_size}>"
        return array if shape == "[N]" else f"std::optional<{array}>"
    element = f"std::optional<{value}>" if shape.startswith("?") else value
    vector = f"std::vector<{element}>"
    return f"std::optional<{vector}>" if shape.endswith("?") else vector


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
    if not t.is_optional:
        return braces
    # An optional list needs its type spelled out to take a braced list.
    if t.base == "bool" and t.list_size is not None:
        return f"std::array<bool, {t.list_size}>{braces}"
    element = _VALUE_TYPES[t.base]
    if "?" in t.suffix[:-1]:  # T?[]?
        element = f"std::optional<{element}>"
    return ("IntArrayRef" if element == "int64_t" else f"ArrayRef<{element}>") + braces


def _scalar_default(base: str, value: str) -> str:
    if value in ("True", "False"):
        return value.lower()
    if base == "ScalarType":
        return scalar_type_default(value)
    if base in _NAMED_DEFAULTS:
        return _lookup(_NAMED_DEFAULTS[base], value, base)
    if value in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[value]
    if base == "str":
        return _string_default(value)
    if base == "int" and value in _INT_ENUM_DEFAULTS:
        return _INT_ENUM_DEFAULTS[value]
    if re.fullmatch(r"-?[0-9]+", value):
        return _int_default(value)
    if re.fullmatch(r"-?[0-9][0-9.eE+-]*", value):
        if float(value) in (float("inf"), float("-inf")):
            raise ApiError(f"default '{value}' does not fit in a double")
        return value
    raise ApiError(f"default '{value}' of type {base} has no C++ equivalent yet")


def scalar_type_default(value: str) -> str:
    """`ScalarType::Half` for `ScalarType dtype=half` (or `float16`): torch's Python names of the
    dtypes opcore's tensors hold (Note [Dtype names] in gen/model/dtypes.py); raises ApiError."""
    d = by_schema_default(value)
    if d is None:
        hint = did_you_mean(value, SUPPORTED_PYTHON_NAMES) or \
            f" (expected one of torch's dtype names: {', '.join(SUPPORTED_PYTHON_NAMES)})"
        raise ApiError(f"unknown ScalarType default '{value}'{hint}")
    if not d.supported:
        raise ApiError(f"ScalarType default '{value}': {unsupported_message(d)}")
    return f"ScalarType::{d.name}"


def _string_default(value: str) -> str:
    """A schema string default (either quote, escapes \\\\ \\' \\") as a C++ string literal."""
    text = re.sub(r"\\(.)", r"\1", value[1:-1])
    return '"' + "".join(_CPP_ESCAPES.get(c, c) for c in text) + '"'


def _int_default(value: str) -> str:
    n = int(value)
    if not _INT64_MIN <= n <= _INT64_MAX:
        raise ApiError(f"default '{value}' does not fit in int64_t")
    # -9223372036854775808 is not a C++ literal: the minus applies to a literal too large for int64_t.
    return "std::numeric_limits<int64_t>::min()" if n == _INT64_MIN else value


def _lookup(table: dict[str, str], value: str, what: str) -> str:
    if value not in table:
        raise ApiError(f"unknown {what} default '{value}' (expected one of: {', '.join(table)})")
    return table[value]


# Note [std as an operator name]
# PyTorch has operators named `std` (and arguments named `std`), so the generated code has a
# struct opcore::_ops::std, a method Tensor::std, functions opcore::std and native::std, and
# parameters named std. Only a type hides namespace std in a qualified name (C++ looks up the
# name before `::` among namespaces, types and templates whose specializations are types): the
# functions, methods and parameters are harmless, the struct is not. Inside namespace
# opcore::_ops (and inside struct std itself), `std::optional` would name a member of the
# struct. So the dispatcher signature, which declares and defines the _ops structs' members,
# spells the standard library from the global namespace (`::std::optional<int64_t>`); the
# C++ API and the kernels, declared elsewhere, keep `std::`.
_STD_QUALIFIER = re.compile(r"(?<![\w:])std::")


def from_global_namespace(cpp_type: str) -> str:
    """`cpp_type` with every `std::` written `::std::` (see Note [std as an operator name])."""
    return _STD_QUALIFIER.sub("::std::", cpp_type)


def trim_defaults(bindings: list[Binding]) -> tuple[Binding, ...]:
    """Keeps a default only when every later parameter has one too (C++ requires it)."""
    result: list[Binding] = []
    keep = True
    for b in reversed(bindings):
        keep = keep and b.default is not None
        result.append(b if keep or b.default is None else b.without_default())
    return tuple(reversed(result))
