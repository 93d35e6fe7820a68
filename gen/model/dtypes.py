"""The dtypes, with every spelling of them the YAML may carry: the one table of them in gen/
(Note [Dtype names]). Its C++ side is runtime/opcore/core/ScalarType.h, which
tests/gen/test_dtypes.py compares it with.

    by_name("Half").cpp_type == "opcore::Half";  by_schema_default("half").python_name == "float16"
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

# Note [Dtype names]
# A dtype is written three ways in the inputs, each as the project it comes from writes it:
# - c10's enumerator (`Half`): ExecuTorch's `type_alias:` lists, the `dtype:` of a gradcheck
#   sample's values and a sample's ScalarType argument; the generated C++ says ScalarType::Half.
# - torch's Python name (`float16`, or its other name `half`): a schema's ScalarType default,
#   `ScalarType dtype=half`, as `torch.half`; the generated Python says opcore.float16.
# - c10's number (5): ExecuTorch's kernel keys (`v1/5;0,1`) and its serialized programs. The
#   numbers are c10's, so opcore, PyTorch and ExecuTorch agree on them (Note [Dtypes] in
#   runtime/opcore/core/ScalarType.h).
# opcore's tensors hold twelve of them (`supported`). The others are known by name so that
# ExecuTorch's YAML, written for ExecuTorch, still reads: a kernel key naming one never matches
# (Note [Kernel keys] in gen/model/kernel_keys.py); anywhere else naming one is an error that
# says opcore's tensors cannot hold it, and a name that is no dtype at all is an error with a
# suggestion.


@dataclass(frozen=True)
class Dtype:
    """One row of the table: c10's `name` and `number`, the C++ element type of a tensor of it
    (`cpp_type`, "" when opcore's tensors cannot hold it), torch's `python_name` and its other
    Python names (`aliases`), and its `kind`: "bool", "integral", "floating", "complex", or
    "other" for the quantized, bit and float8 types."""

    name: str                     # "Half": ScalarType::Half
    number: int                   # 5
    cpp_type: str                 # "opcore::Half"
    python_name: str              # "float16": opcore.float16
    aliases: tuple[str, ...]      # ("half",)
    kind: str                     # "floating"
    itemsize: int                 # bytes per element: 2

    @property
    def supported(self) -> bool:
        """Whether opcore's tensors can hold it (isSupportedScalarType in ScalarType.h)."""
        return bool(self.cpp_type)

    @property
    def python_names(self) -> tuple[str, ...]:
        """Every spelling of a schema default: `float16`, `half`."""
        return (self.python_name,) + self.aliases

    def value_range(self) -> Optional[tuple[int, int]]:
        """The values an integral dtype holds (Byte: 0..255), None for the others."""
        if self.kind != "integral":
            return None
        bits = 8 * self.itemsize
        return (0, 2**bits - 1) if self.name == "Byte" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def _row(name: str, number: int, cpp_type: str, python: str, kind: str, itemsize: int) -> Dtype:
    """A row from `python` written "float16/half" (torch's name, then its other names)."""
    names = tuple(python.split("/"))
    return Dtype(name, number, cpp_type, names[0], names[1:], kind, itemsize)


# c10's ScalarType, in its order; those after BFloat16 are ExecuTorch's too (its ScalarType is c10's).
DTYPES = (
    _row("Byte", 0, "uint8_t", "uint8", "integral", 1),
    _row("Char", 1, "int8_t", "int8", "integral", 1),
    _row("Short", 2, "int16_t", "int16/short", "integral", 2),
    _row("Int", 3, "int32_t", "int32/int", "integral", 4),
    _row("Long", 4, "int64_t", "int64/long", "integral", 8),
    _row("Half", 5, "opcore::Half", "float16/half", "floating", 2),
    _row("Float", 6, "float", "float32/float", "floating", 4),
    _row("Double", 7, "double", "float64/double", "floating", 8),
    _row("ComplexHalf", 8, "", "complex32/chalf", "complex", 4),
    _row("ComplexFloat", 9, "opcore::complex<float>", "complex64/cfloat", "complex", 8),
    _row("ComplexDouble", 10, "opcore::complex<double>", "complex128/cdouble", "complex", 16),
    _row("Bool", 11, "bool", "bool", "bool", 1),
    _row("QInt8", 12, "", "qint8", "other", 1),
    _row("QUInt8", 13, "", "quint8", "other", 1),
    _row("QInt32", 14, "", "qint32", "other", 4),
    _row("BFloat16", 15, "opcore::BFloat16", "bfloat16", "floating", 2),
    _row("QUInt4x2", 16, "", "quint4x2", "other", 1),
    _row("QUInt2x4", 17, "", "quint2x4", "other", 1),
    _row("Bits1x8", 18, "", "bits1x8", "other", 1),
    _row("Bits2x4", 19, "", "bits2x4", "other", 1),
    _row("Bits4x2", 20, "", "bits4x2", "other", 1),
    _row("Bits8", 21, "", "bits8", "other", 1),
    _row("Bits16", 22, "", "bits16", "other", 2),
    _row("Float8_e5m2", 23, "", "float8_e5m2", "other", 1),
    _row("Float8_e4m3fn", 24, "", "float8_e4m3fn", "other", 1),
    _row("Float8_e5m2fnuz", 25, "", "float8_e5m2fnuz", "other", 1),
    _row("Float8_e4m3fnuz", 26, "", "float8_e4m3fnuz", "other", 1),
    _row("UInt16", 27, "", "uint16", "other", 2),
    _row("UInt32", 28, "", "uint32", "other", 4),
    _row("UInt64", 29, "", "uint64", "other", 8),
)
SUPPORTED_DTYPES = tuple(d for d in DTYPES if d.supported)
NAMES = tuple(d.name for d in DTYPES)
SUPPORTED_NAMES = tuple(d.name for d in SUPPORTED_DTYPES)
SUPPORTED_PYTHON_NAMES = tuple(n for d in SUPPORTED_DTYPES for n in d.python_names)
_BY_NAME = {d.name: d for d in DTYPES}
_BY_PYTHON_NAME = {n: d for d in DTYPES for n in d.python_names}


def by_name(name: object) -> Optional[Dtype]:
    """The dtype c10 calls `name` (`Half`), supported or not; None for any other value."""
    return _BY_NAME.get(name) if isinstance(name, str) else None


def by_schema_default(spelling: str) -> Optional[Dtype]:
    """The dtype a schema default names as torch's Python names do (`half`, `float16`), or None."""
    return _BY_PYTHON_NAME.get(spelling)


def unsupported_message(d: Dtype) -> str:
    """The end of an error naming a dtype opcore's tensors cannot hold."""
    return f"{d.name} is a dtype opcore's tensors cannot hold (they hold: {', '.join(SUPPORTED_NAMES)})"
