"""The limits of the dtypes (opcore.finfo, opcore.iinfo) and the dtype questions about a tensor
(opcore.is_floating_point, opcore.is_complex), as torch has them; the dtype objects and
promote_types, can_cast and result_type are opcore._C's (runtime/opcore/python/Types.cpp)."""
from __future__ import annotations

import difflib
import sys
from typing import Any, Optional

from opcore import _C

# Bits, eps (2**-mantissa bits), max, the smallest normal number and the decimal digits
# (std::numeric_limits<T>::digits10) of each floating dtype: IEEE 754's binary16, binary32,
# binary64, and bfloat16 (binary32's exponent with a 7-bit mantissa).
_FLOAT_LIMITS = {
    _C.float16: (16, 2.0 ** -10, 65504.0, 2.0 ** -14, 3),
    _C.bfloat16: (16, 2.0 ** -7, (2.0 - 2.0 ** -7) * 2.0 ** 127, 2.0 ** -126, 2),
    _C.float32: (32, 2.0 ** -23, (2.0 - 2.0 ** -23) * 2.0 ** 127, 2.0 ** -126, 6),
    _C.float64: (64, 2.0 ** -52, sys.float_info.max, 2.0 ** -1022, 15),
}


def _dtype_names() -> list[str]:
    """Every dtype's name in opcore, primary names and aliases ("float16", "half", ...)."""
    return sorted(name for name, value in vars(_C).items() if isinstance(value, _C.dtype))


def _check_dtype(fn: str, type: Any) -> _C.dtype:
    if type is None:
        return _C.get_default_dtype()
    if not isinstance(type, _C.dtype):
        raise TypeError(f"{fn}(): argument 'type' must be opcore.dtype, not {type.__class__.__name__}")
    return type


class finfo:
    """finfo(type=None): the limits of a floating-point (or complex: of its real part) dtype,
    as torch.finfo: bits, eps, max, min, tiny (= smallest_normal), resolution, and dtype, the
    name of the (real) dtype.

        opcore.finfo(opcore.float16).max == 65504.0
    """
    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type: Optional[_C.dtype] = None) -> None:
        t = _check_dtype("finfo", type)
        if not (t.is_floating_point or t.is_complex):
            raise TypeError(f"opcore.finfo() requires a floating point input type. Use opcore.iinfo to handle '{t!r}'")
        real = t.to_real()
        bits, eps, max_, tiny, digits = _FLOAT_LIMITS[real]
        self.bits: int = bits
        self.eps: float = eps
        self.max: float = max_
        self.min: float = -max_
        self.tiny: float = tiny
        self.smallest_normal: float = tiny
        self.resolution: float = 10.0 ** -digits
        self.dtype: str = repr(real).removeprefix("opcore.")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and self.dtype == other.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """iinfo(type): the limits of an integer (or bool) dtype, as torch.iinfo: bits, min, max,
    and dtype, the dtype's name.

        opcore.iinfo(opcore.uint8).max == 255
    """
    __slots__ = ("bits", "min", "max", "dtype")

    def __init__(self, type: _C.dtype) -> None:
        t = _check_dtype("iinfo", type)
        if t.is_floating_point or t.is_complex:
            raise TypeError(f"opcore.iinfo() requires an integer input type. Use opcore.finfo to handle '{t!r}'")
        self.dtype: str = repr(t).removeprefix("opcore.")
        if t is _C.bool:
            self.bits, self.min, self.max = 8, 0, 1
            return
        self.bits = 8 * t.itemsize
        self.min = -(2 ** (self.bits - 1)) if t.is_signed else 0
        self.max = 2 ** (self.bits - 1) - 1 if t.is_signed else 2 ** self.bits - 1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and self.dtype == other.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def _check_tensor(fn: str, input: Any) -> _C.Tensor:
    if not isinstance(input, _C.Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {input.__class__.__name__}")
    return input


def is_floating_point(input: _C.Tensor) -> bool:
    """Whether input's dtype is a floating-point type (float16, bfloat16, float32, float64)."""
    return _check_tensor("is_floating_point", input).is_floating_point()


def is_complex(input: _C.Tensor) -> bool:
    """Whether input's dtype is a complex type (complex64, complex128)."""
    return _check_tensor("is_complex", input).is_complex()


def close_dtype_name(name: str) -> Optional[str]:
    """The dtype name `name` was probably meant to be ("flaot16" -> "float16"), or None."""
    matches = difflib.get_close_matches(name, _dtype_names(), n=1, cutoff=0.8)
    return matches[0] if matches else None
