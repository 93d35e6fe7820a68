"""Sample inputs for the operator table of tests/python/opinfo.py: tensors of one dtype in every
shape and layout that matters (0-dim, empty, broadcast pairs, transposed, sliced with a step,
expanded with stride 0) and value sets with the extremes (NaN, +-inf, -0.0, denormals, the
integer limits). Everything is seeded, so a failure reproduces."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

import opcore

NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
         "complex64", "complex128")
DTYPES = tuple(getattr(opcore, n) for n in NAMES)
FLOATING = (opcore.float16, opcore.bfloat16, opcore.float32, opcore.float64)
COMPLEX = (opcore.complex64, opcore.complex128)
INTEGRAL = (opcore.uint8, opcore.int8, opcore.int16, opcore.int32, opcore.int64)
ALL_BUT_BOOL = INTEGRAL + FLOATING + COMPLEX
REAL = INTEGRAL + FLOATING                   # ALL_TYPES_AND2(Half, BFloat16)

# A shape large enough for the vectorised main loops and for two threads (2 * kGrainSize
# elements, runtime/opcore/core/Parallel.h): small samples reach only scalar tails.
LARGE = (257, 260)

# The smallest positive value of each floating dtype, times 3: a denormal (subnormal) number.
_DENORMAL = {opcore.float16: 3 * 2.0 ** -24, opcore.bfloat16: 3 * 2.0 ** -133, opcore.float32: 3 * 2.0 ** -149,
             opcore.float64: 3 * 2.0 ** -1074}
_REAL_OF = {opcore.complex64: opcore.float32, opcore.complex128: opcore.float64}


def name(dtype) -> str:
    """'float16' for opcore.float16."""
    return repr(dtype).removeprefix("opcore.")


def real_of(dtype):
    return _REAL_OF.get(dtype, dtype)


def extreme_values(dtype) -> np.ndarray:
    """The values an operator must get right at the edges of `dtype`, as float64, complex128,
    int64 or bool."""
    if dtype is opcore.bool:
        return np.array([True, False])
    if dtype in INTEGRAL:
        info = opcore.iinfo(dtype)
        values = {info.min, info.max, info.min + 1, info.max - 1, 0, 1, 2}
        if info.min < 0:
            values |= {-1, -2}
        return np.array(sorted(values), dtype=np.int64)
    real = real_of(dtype)
    big, tiny = opcore.finfo(real).max, _DENORMAL[real]
    reals = [math.nan, math.inf, -math.inf, 0.0, -0.0, tiny, -tiny, big, -big, 1.0, -1.0, 0.5, -2.5]
    if dtype in FLOATING:
        return np.array(reals, dtype=np.float64)
    # Complex extremes are NaN parts and signed zeros only. At infinities, overflow and
    # denormals the references disagree with each other and with C99 Annex G: torch 1.13's
    # naive formulas give exp(inf+0j) = inf+nanj (C99: inf+0j), numpy divides by a denormal
    # through 1/denormal = inf and gets nan (Python: 0); PyTorch's own OpInfo skips complex
    # extremal values for the same reason. Real dtypes keep every extreme.
    reals = [math.nan, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5]
    imags = [0.0, -0.0, 1.0, -2.5, math.nan]
    return np.array([complex(r, i) for r in reals for i in imags], dtype=np.complex128)


def random_values(dtype, n: int, rng: np.random.Generator, low: float, high: float) -> np.ndarray:
    """n values uniform in [low, high] (integers: clipped to the dtype's range; complex: both
    parts)."""
    if dtype is opcore.bool:
        return rng.random(n) < 0.5
    if dtype in INTEGRAL:
        info = opcore.iinfo(dtype)
        lo, hi = max(int(math.floor(low)), info.min), min(int(math.ceil(high)), info.max)
        return rng.integers(lo, hi + 1, size=n, dtype=np.int64)
    values = rng.uniform(low, high, size=n)
    if dtype in COMPLEX:
        values = values + 1j * rng.uniform(low, high, size=n)
    return values


def from_values(values: np.ndarray, shape, dtype):
    """An opcore tensor of `dtype` holding `values` (cycled to fill `shape`)."""
    n = math.prod(shape)
    flat = np.resize(values, n) if n else values[:0]
    return opcore.tensor(np.array(flat.reshape(shape), order="C")).to(dtype)  # not ascontiguousarray: 1-d


@dataclass
class SampleInput:
    """One call: `op(*args, **kwargs)`; args[0] is `self` where the operator has one. `grad`:
    fit for gradcheck (finite, contiguous, away from kinks); `desc` names it in failures."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    desc: str = ""
    grad: bool = False
    dtype: object = None     # the result's dtype when the sample decides it (a dtype= argument)
    out: bool = True         # False: no out= overload takes this call (sum without a dim)
    error: str = ""          # a regex: the call must raise error_type with a message matching it
    error_type: type = RuntimeError

    def __repr__(self) -> str:
        return self.desc


class Maker:
    """Builds the tensors of one (row, dtype): `make(shape, layout, kind)`.

    layout: "contig"; "t" (a transposed view: the last two dimensions swapped); "step" (every
    other element of the last dimension: base[..., ::2]); "expand" (dimension 0 expanded from
    size 1: stride 0, overlapping). kind: "random" (uniform in [low, high]), "extreme"
    (extreme_values, cycled), "nonzero" (random, zeros replaced by ones: integer divisors),
    "scattered" / "scattered nonzero" (random with an extreme value every 17th element)."""

    def __init__(self, dtype, seed: int, low: float = -3.0, high: float = 3.0) -> None:
        self.dtype = dtype
        self.rng = np.random.default_rng(seed)
        self.low, self.high = low, high

    def values(self, n: int, kind: str) -> np.ndarray:
        if kind == "extreme":
            return extreme_values(self.dtype)
        values = random_values(self.dtype, n, self.rng, self.low, self.high)
        if kind.startswith("scattered"):  # every 17th value an extreme one, the others random
            extremes = extreme_values(self.dtype)
            values[::17] = np.resize(extremes, len(values[::17]))
        if kind.endswith("nonzero"):
            values = np.where(values == 0, 1, values).astype(values.dtype)
        return values

    def make(self, shape, layout: str = "contig", kind: str = "random"):
        shape = tuple(shape)
        if layout == "t":
            base = shape[:-2] + (shape[-1], shape[-2])
        elif layout == "step":
            base = shape[:-1] + (2 * shape[-1],)
        elif layout == "expand":
            base = (1,) + shape[1:]
        else:
            base = shape
        t = from_values(self.values(math.prod(base), kind), base, self.dtype)
        if layout == "t":
            return t.transpose(-1, -2)
        if layout == "step":
            return t[..., ::2]
        if layout == "expand":
            return t.expand(*shape)
        return t

    def scalar(self, kind: str = "random"):
        """A Python number of the dtype's category (bool, int, float, complex)."""
        v = self.values(1, kind)[0]
        if self.dtype is opcore.bool:
            return bool(v)
        if self.dtype in INTEGRAL:
            return int(v)
        return complex(v) if self.dtype in COMPLEX else float(v)


def unary_samples(m: Maker, extreme: bool = True) -> list:
    """One tensor argument in every shape and layout; the row adds its other arguments."""
    s = [SampleInput((m.make((2, 3)),), desc="2x3", grad=True),
         SampleInput((m.make(()),), desc="0-dim", grad=True),
         SampleInput((m.make((0, 3)),), desc="empty 0x3"),
         SampleInput((m.make((3, 4), "t"),), desc="transposed 3x4"),
         SampleInput((m.make((2, 3), "step"),), desc="step-sliced 2x3"),
         SampleInput((m.make((3, 4), "expand"),), desc="expanded 3x4 (stride 0)"),
         SampleInput((m.make((2, 2, 3), "t"),), desc="transposed 2x2x3")]
    if extreme:
        e = len(extreme_values(m.dtype))
        s.append(SampleInput((m.make((e,), kind="extreme"),), desc="extremes"))
        s.append(SampleInput((m.make((e, 2), "t", kind="extreme"),), desc="extremes transposed"))
        s.append(SampleInput((m.make(LARGE, kind="scattered"),), desc="large, extremes scattered"))
    return s


def binary_samples(m: Maker, other_kind: str = "random", scalars: bool = True, extreme: bool = True) -> list:
    """Two tensors: same shape, broadcast pairs, 0-dim, empty, views; a Python number other;
    every extreme value against every other (an outer broadcast)."""
    k = other_kind
    s = [SampleInput((m.make((2, 3)), m.make((2, 3), kind=k)), desc="2x3, 2x3", grad=True),
         SampleInput((m.make((2, 3)), m.make((3,), kind=k)), desc="2x3, 3 (broadcast)", grad=True),
         SampleInput((m.make((2, 1, 3)), m.make((4, 1), kind=k)), desc="2x1x3, 4x1 (broadcast both)"),
         SampleInput((m.make(()), m.make((2, 3), kind=k)), desc="0-dim, 2x3", grad=True),
         SampleInput((m.make((2, 3)), m.make((), kind=k)), desc="2x3, 0-dim"),
         SampleInput((m.make(()), m.make((), kind=k)), desc="0-dim, 0-dim"),
         SampleInput((m.make((0, 3)), m.make((3,), kind=k)), desc="empty 0x3, 3"),
         SampleInput((m.make((3, 4), "t"), m.make((3, 4), "step", kind=k)), desc="transposed, step-sliced"),
         SampleInput((m.make((3, 4), "step"), m.make((3, 4), "expand", kind=k)), desc="step-sliced, expanded"),
         SampleInput((m.make((3, 4), "expand"), m.make((3, 4), "t", kind=k)), desc="expanded, transposed")]
    if scalars:
        s.append(SampleInput((m.make((2, 3)), m.scalar(k)), desc="2x3, number"))
        s.append(SampleInput((m.make((3, 4), "t"), m.scalar(k)), desc="transposed, number"))
    if extreme:
        other = "scattered nonzero" if other_kind == "nonzero" else "scattered"
        s.append(SampleInput((m.make(LARGE, kind="scattered"), m.make(LARGE, kind=other)),
                             desc="large, extremes scattered"))
        s.append(SampleInput((m.make(LARGE, kind="scattered"), m.make(LARGE[1:], kind=other)),
                             desc="large, broadcast row, extremes scattered"))
        values = extreme_values(m.dtype)
        if other_kind == "nonzero":
            others = values[values != 0]
        else:
            others = values
        e, f = len(values), len(others)
        s.append(SampleInput((from_values(values, (e, 1), m.dtype), from_values(others, (1, f), m.dtype)),
                             desc="extremes x extremes"))
    return s
