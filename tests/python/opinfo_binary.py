"""The rows of the operator table (tests/python/opinfo.py) for the binary and ternary pointwise
operators of issue #33: atan2, the bitwise and logical operators, the shifts, fmod, remainder,
maximum, minimum, pow, clamp, clamp_min, clamp_max, floor_divide, where with numbers, lerp,
addcmul, addcdiv, hypot, copysign and div with a number and a rounding mode.

opinfo.py imports this module while it builds its ELEMENTWISE list (which splices ROWS in), so
the names taken from opinfo below are already defined; import opinfo, not this module."""
from __future__ import annotations

import math

import numpy as np

import opcore
from opinfo import (OpInfo, _np_div_mode, _python_floor_div, _t, _wrap, int_to_float, same, to_bool,  # noqa: F401
                    torch)
from opinfo_samples import (ALL_BUT_BOOL, COMPLEX, DTYPES, FLOATING, INTEGRAL, LARGE, REAL, Maker, SampleInput,
                            binary_samples, extreme_values, from_values, unary_samples)


def _no_scalars(m):
    return binary_samples(m, scalars=False)


def _division_samples(m, scalars=True):
    """Dividends and divisors: integral divisors are never 0 (an error sample of its own) nor -1
    beside the integer limits (MIN / -1 and MIN % -1 are undefined behaviour in C++, on which
    torch 1.13 dies of SIGFPE); floats keep every extreme."""
    if m.dtype not in INTEGRAL:
        return binary_samples(m, scalars=scalars)
    s = binary_samples(m, "nonzero", scalars=scalars, extreme=False)
    values = extreme_values(m.dtype)
    others = values[(values != 0) & (values != -1)]
    s.append(SampleInput((from_values(values, (len(values), 1), m.dtype), from_values(others, (1, len(others)),
                                                                                          m.dtype)),
                         desc="extremes x extremes"))
    divisors = from_values(np.array([1, 2, 3, -2, -3, 7]), LARGE, m.dtype)  # no 0 or -1 (above)
    s.append(SampleInput((m.make(LARGE, kind="scattered"), divisors), desc="large, extremes scattered"))
    s.append(SampleInput((m.make((2, 3)), from_values(np.array([1, 0, 2]), (3,), m.dtype)),
                         desc="integer division by zero", error="ZeroDivisionError"))
    return s


def _binary_row(name, dtypes, np_ref, samples=binary_samples, result_dtype=same, scalar=True, covers=None,
                tensor_overload=".Tensor", out_overload="Tensor_out", ref=None, **kwargs):
    """A binary operator with Tensor (and, with `scalar`, Scalar) overloads: functional,
    in-place (method) and out=."""
    if covers is None:
        covers = (f"{name}{tensor_overload}", f"{name}_{tensor_overload}", f"{name}.{out_overload}")
        if scalar:
            covers += (f"{name}.Scalar", f"{name}_.Scalar", f"{name}.Scalar_out")
    return OpInfo(name, getattr(opcore, name), ref or _t(name), np_ref, covers, dtypes, samples, result_dtype,
                  ("out",), f"{name}_", number_operand=scalar, **kwargs)


def _number_first_samples(m, divisor=False):
    """A number first, a tensor second (the Scalar_Tensor overloads): args are (tensor, number)
    and the row's op swaps them. `divisor`: the tensor divides, so integral ones hold no 0."""
    k = "nonzero" if divisor else "random"
    e = extreme_values(m.dtype)
    if divisor and m.dtype in INTEGRAL:
        e = e[e != 0]
    return [SampleInput((m.make((2, 3), kind=k), m.scalar()), desc="number, 2x3"),
            SampleInput((m.make((), kind=k), m.scalar()), desc="number, 0-dim"),
            SampleInput((m.make((0, 3)), m.scalar()), desc="number, empty 0x3"),
            SampleInput((m.make((3, 4), "t", kind=k), m.scalar()), desc="number, transposed"),
            SampleInput((m.make((3, 4), "expand", kind=k), m.scalar()), desc="number, expanded"),
            SampleInput((from_values(e, (len(e),), m.dtype), m.scalar("nonzero")), desc="number, extremes")]


def _number_first_row(name, dtypes, np_ref, result_dtype=same, samples=_number_first_samples, ref=None,
                      overload="Scalar_Tensor", **kwargs):
    """The number is args[1] of the samples (converted to the dtype first, as a wrapped number
    is: number_operand), and the row's op passes it first."""
    def op(t, number, **kwargs):
        return getattr(opcore, name)(number, t, **kwargs)
    return OpInfo(f"{name}.{overload}", op, ref or (lambda t, number: getattr(torch, name)(number, t)),
                  (lambda t, number: np_ref(number, t)) if np_ref else None,
                  (f"{name}.{overload}",) + ((f"{name}.{overload}_out",) if overload == "Scalar" else ()), dtypes,
                  samples, result_dtype, ("out",), number_operand=True, **kwargs)


def _shift(left):
    """PyTorch's shifts, defined out of range (Note [Shifts out of range] in
    kernels/common/pointwise/Binary.h); torch 1.13's results there are whatever the CPU gives."""
    def np_shift(x, y):
        x = np.asarray(x)
        bits = x.dtype.itemsize * 8
        xs, ys = np.broadcast_arrays(x, np.asarray(y, dtype=np.int64))
        out = []
        for a, b in zip(xs.ravel().tolist(), ys.ravel().tolist()):
            if b < 0 or b >= bits:
                out.append(0 if left or a >= 0 else -1)
            else:
                out.append(a << b if left else a >> b)
        return _wrap(np.array(out, dtype=object).reshape(xs.shape), x)

    def torch_shift(x, y):
        return torch.from_numpy(np_shift(x.numpy(), y.numpy() if isinstance(y, torch.Tensor) else y))
    return torch_shift, np_shift


def _shift_number_first(left):
    torch_shift, np_shift = _shift(left)
    return (lambda t, number: torch_shift(_as_tensor(number, t), t),
            lambda number, t: np_shift(np.asarray(number, dtype=t.dtype), t))


def _np_logical(f):
    return lambda x, y: f(np.asarray(x) != 0, np.asarray(y) != 0)


def _np_fmod(x, y):
    with np.errstate(all="ignore"):
        return np.fmod(x, y)


def _np_remainder(x, y):
    with np.errstate(all="ignore"):
        mod = np.fmod(x, y)
        return np.where((mod != 0) & ((np.asarray(y) < 0) != (mod < 0)), mod + y, mod)


def _exact(np_f, name):
    """torch's function for integers; numpy's (C's fmod: exact) for floats, where torch 1.13's
    vectorized fmod (a - b * trunc(a / b)) gives NaN once the quotient overflows (x % denormal)."""
    def f(x, y):
        if not x.is_floating_point():
            return getattr(torch, name)(x, y)
        return torch.from_numpy(np.asarray(np_f(x.numpy(), y.numpy() if isinstance(y, torch.Tensor) else y)))
    return f


def _as_tensor(number, like):
    return number if isinstance(number, torch.Tensor) else torch.tensor(number, dtype=like.dtype)


def _np_maximum(x, y):
    return np.logical_or(x, y) if np.result_type(x, y) == bool else np.maximum(x, y)


def _np_minimum(x, y):
    return np.logical_and(x, y) if np.result_type(x, y) == bool else np.minimum(x, y)


def _pow_samples(m):
    """Integral exponents of integral tensors are never negative numbers (an error sample):
    negative tensor exponents give 0, 1 or -1 as in PyTorch."""
    s = binary_samples(m, scalars=False)
    number = abs(m.scalar()) if m.dtype in INTEGRAL else m.scalar()
    s.append(SampleInput((m.make((2, 3)), number), desc="2x3, number", grad=m.dtype in FLOATING))
    s.append(SampleInput((m.make((3, 4), "t"), number), desc="transposed, number"))
    for e in (2, 3, 0, 1):
        s.append(SampleInput((m.make((2, 3)), e), desc=f"2x3, {e}"))
    if m.dtype not in INTEGRAL:
        for e in (0.5, -0.5, -1, -2, 2.5):
            s.append(SampleInput((m.make((2, 3)), e), desc=f"2x3, {e}"))
            s.append(SampleInput((m.make((len(extreme_values(m.dtype)),), kind="extreme"), e),
                                 desc=f"extremes, {e}"))
    else:
        s.append(SampleInput((m.make((2, 3)), -2), desc="integer to a negative number power",
                             error="Integers to negative integer powers are not allowed"))
    return s


def _pow_number_first_samples(m):
    s = _number_first_samples(m)
    s.append(SampleInput((m.make((2, 3)), 1), desc="1 ** 2x3"))
    return s


def _bounds(m):
    """Number bounds of the dtype's category (bool ones: clamp refuses Bool, as PyTorch)."""
    if m.dtype is opcore.bool:
        return False, True
    return (-1, 2) if m.dtype in INTEGRAL else (-1.25, 0.75)


def _clamp_samples(m):
    lo, hi = _bounds(m)
    s = [SampleInput((x.args[0], lo, hi), desc=f"{x.desc}, numbers", grad=x.grad) for x in unary_samples(m)]
    s += [SampleInput((m.make((2, 3)), lo, None), desc="2x3, min", grad=True),
          SampleInput((m.make((2, 3)), None, hi), desc="2x3, max", grad=True),
          SampleInput((m.make((2, 3)), hi, lo), desc="2x3, min > max"),
          SampleInput((m.make((2, 3)), m.make((3,)), m.make((2, 3))), desc="2x3, tensor bounds 3 and 2x3"),
          SampleInput((m.make((2, 3)), m.make((3,)), None), desc="2x3, tensor min", grad=True),
          SampleInput((m.make((2, 3)), None, m.make(())), desc="2x3, 0-dim tensor max"),
          SampleInput((m.make((3, 4), "t"), m.make((3, 4), "step"), m.make((3, 4), "expand")),
                      desc="transposed, step-sliced and expanded tensors"),
          SampleInput((m.make(()), m.make((2, 3)), None), desc="0-dim, 2x3 tensor min (broadcast)"),
          SampleInput((m.make((2, 3)), None, None), desc="no bounds", error="At least one of 'min' or 'max'")]
    e = extreme_values(m.dtype)
    s.append(SampleInput((from_values(e, (len(e), 1), m.dtype), from_values(e, (1, len(e)), m.dtype), None),
                         desc="extremes x extremes, tensor min"))
    s.append(SampleInput((from_values(e, (len(e), 1), m.dtype), None, from_values(e, (1, len(e)), m.dtype)),
                         desc="extremes x extremes, tensor max"))
    if m.dtype in FLOATING:
        s.append(SampleInput((m.make((len(e),), kind="extreme"), math.nan, 1.0), desc="extremes, NaN min"))
        s.append(SampleInput((m.make((len(e),), kind="extreme"), -1.0, math.inf), desc="extremes, inf max"))
    return s


def _torch_clamp(x, lo=None, hi=None):
    return torch.clamp(x, lo, hi)


def _np_clamp(x, lo=None, hi=None):
    with np.errstate(all="ignore"):
        if isinstance(lo, np.ndarray) or isinstance(hi, np.ndarray):
            r = x
            if lo is not None:
                r = np.where(np.isnan(lo) | np.isnan(r), np.nan, np.maximum(r, lo)) if r.dtype.kind == "f" \
                    else np.maximum(r, lo)
            if hi is not None:
                r = np.where(np.isnan(hi) | np.isnan(r), np.nan, np.minimum(r, hi)) if r.dtype.kind == "f" \
                    else np.minimum(r, hi)
            return r
        r = x
        if lo is not None:
            r = np.where(r < lo, lo, r)
        if hi is not None:
            r = np.where(hi < r, hi, r)
        return np.where(np.isnan(x), x, r) if x.dtype.kind == "f" else r.astype(x.dtype)


def _clamp_bound_samples(bound):
    def make(m):
        v = _bounds(m)[0] if m.dtype in INTEGRAL + (opcore.bool,) else 0.25
        s = [SampleInput((x.args[0], v), desc=f"{x.desc}, number", grad=x.grad) for x in unary_samples(m)]
        s.append(SampleInput((m.make((2, 3)), m.make((3,))), desc="2x3, tensor 3", grad=True))
        s.append(SampleInput((m.make((3, 4), "t"), m.make((3, 4), "step")), desc="transposed, step-sliced tensor"))
        e = extreme_values(m.dtype)
        s.append(SampleInput((from_values(e, (len(e), 1), m.dtype), from_values(e, (1, len(e)), m.dtype)),
                             desc="extremes x extremes"))
        return s
    return make


def _clamp_bound_row(name):
    return OpInfo(name, getattr(opcore, name), _t(name),
                  (lambda x, b: _np_clamp(x, lo=b)) if name == "clamp_min" else (lambda x, b: _np_clamp(x, hi=b)),
                  (name, f"{name}.Tensor", f"{name}_", f"{name}_.Tensor", f"{name}.out", f"{name}.Tensor_out"), REAL,
                  _clamp_bound_samples(name), out=("out",), inplace=f"{name}_", autograd=True)


def _floor_divide_samples(m):
    """floor_divide.Scalar has no out= overload (nor has PyTorch's)."""
    s = _division_samples(m)
    for x in s:
        if not isinstance(x.args[1], opcore.Tensor):
            x.out = False
    return s


def _torch_floor_divide(x, y):
    if x.is_floating_point():
        y = y.numpy() if isinstance(y, torch.Tensor) else np.asarray(y)
        return torch.from_numpy(_python_floor_div(x.numpy(), y))
    return torch.div(x, y, rounding_mode="floor")


def _np_floor_divide(x, y):
    return _np_div_mode(x, np.asarray(y), "floor")


def _where_number_samples(m):
    c = Maker(opcore.bool, 7)
    default = {opcore.bool: opcore.bool, opcore.complex64: opcore.complex64, opcore.complex128: opcore.complex64}
    both = default.get(m.dtype, opcore.int64 if m.dtype in INTEGRAL else opcore.float32)
    s = []
    for x in unary_samples(m, extreme=False):
        t = x.args[0]
        cond = c.make(t.shape if t.dim() else (3,))
        s.append(SampleInput((cond, t, m.scalar()), desc=f"cond, {x.desc}, number"))
        s.append(SampleInput((cond, m.scalar(), t), desc=f"cond, number, {x.desc}"))
    s.append(SampleInput((c.make((2, 3)), m.scalar(), m.scalar()), desc="cond 2x3, number, number", dtype=both))
    e = len(extreme_values(m.dtype))
    s.append(SampleInput((c.make((e,)), m.make((e,), kind="extreme"), m.scalar()), desc="cond, extremes, number"))
    return s


def _np_where_number(c, a, b):
    return np.where(c, a, b)


def _torch_where_number(c, a, b):
    if not isinstance(a, torch.Tensor) and not isinstance(b, torch.Tensor):
        return torch.where(c, torch.tensor(a), torch.tensor(b))  # torch 1.13 has no where(c, number, number)
    return torch.where(c, a, b)


def _lerp_samples(m):
    w = m.scalar()
    s = [SampleInput((x.args[0], x.args[1], w), desc=f"{x.desc}, number weight", grad=x.grad)
         for x in binary_samples(m, scalars=False)]
    s += [SampleInput((m.make((2, 3)), m.make((3,)), m.make((2, 3))), desc="2x3, 3, 2x3 tensor weight", grad=True),
          SampleInput((m.make((3, 4), "t"), m.make((3, 4), "step"), m.make((3, 4), "expand")),
                      desc="transposed, step-sliced, expanded weight"),
          SampleInput((m.make(()), m.make(()), m.make((2, 1))), desc="0-dim, 0-dim, 2x1 weight"),
          SampleInput((m.make((2, 3)), m.make((2, 3)), 1.0), desc="2x3, weight 1 (end exactly)"),
          SampleInput((m.make((2, 3)), m.make((2, 3)), 0.5), desc="2x3, weight 0.5")]
    return s


def _np_lerp(x, y, w):
    w = np.asarray(w)
    with np.errstate(all="ignore"):
        return np.where(np.abs(w) < 0.5, x + w * (y - x), y - (y - x) * (1 - w))


def _torch_lerp(x, y, w):
    """Current PyTorch's lerp, which starts from `end` when |weight| >= 0.5 (is_lerp_weight_small);
    torch 1.13 compared the weight itself with 0.5, so a weight of -2 started from `self` and
    inf + -2 * (-inf - inf) gave inf where the current rule gives NaN."""
    w = w.numpy() if isinstance(w, torch.Tensor) else w
    return torch.from_numpy(np.asarray(_np_lerp(x.numpy(), y.numpy(), w), dtype=x.numpy().dtype))


# addcmul and addcdiv compute in float32 for float32, float16 and bfloat16 tensors, as PyTorch's
# do: a product that overflows there (max * 3) is inf, which the float64 reference would not be.
_OPMATH = {opcore.float16: opcore.float32, opcore.bfloat16: opcore.float32, opcore.float32: opcore.float32,
           opcore.complex64: opcore.complex64}


def _ternary_samples(value):
    def make(m):
        v = value(m)
        s = [SampleInput((m.make((2, 3)), m.make((2, 3)), m.make((2, 3))), {"value": v}, "2x3 x3", grad=True),
             SampleInput((m.make((2, 3)), m.make((3,)), m.make((2, 1))), {}, "2x3, 3, 2x1 (broadcast)", grad=True),
             SampleInput((m.make(()), m.make((2, 3)), m.make(())), {"value": v}, "0-dim, 2x3, 0-dim", grad=True),
             SampleInput((m.make((0, 3)), m.make((3,)), m.make((0, 3))), {}, "empty"),
             SampleInput((m.make((3, 4), "t"), m.make((3, 4), "step"), m.make((3, 4), "expand")), {"value": v},
                         "transposed, step-sliced, expanded"),
             SampleInput((m.make(LARGE, kind="scattered"), m.make(LARGE), m.make(LARGE[1:], kind="scattered nonzero")),
                         {"value": v}, "large, extremes scattered")]
        e = extreme_values(m.dtype)
        s.append(SampleInput((from_values(e, (len(e), 1), m.dtype), from_values(e, (1, len(e)), m.dtype),
                              m.make((len(e), 1), kind="nonzero")), {}, "extremes x extremes"))
        return s
    return make




def _torch_div_scalar_mode(x, y, rounding_mode=None):
    if rounding_mode == "floor" and x.is_floating_point():
        return torch.from_numpy(_python_floor_div(x.numpy(), np.asarray(y)))
    return torch.div(x, y, rounding_mode=rounding_mode)


def _div_scalar_mode_samples(m):
    n = 3 if m.dtype in INTEGRAL else 2.5  # exact in every dtype: the reference gets the same number
    s = []
    for mode in ("trunc", "floor", None):
        dtype = int_to_float(m.dtype) if mode is None or m.dtype is opcore.bool else None
        kw = {"rounding_mode": mode}
        s += [SampleInput((m.make((2, 3)), n), kw, f"2x3, number, {mode}", grad=mode is None, dtype=dtype),
              SampleInput((m.make((3, 4), "t"), n), kw, f"transposed, number, {mode}", dtype=dtype),
              SampleInput((m.make(()), n), kw, f"0-dim, number, {mode}", dtype=dtype),
              SampleInput((m.make((0, 3)), n), kw, f"empty, number, {mode}", dtype=dtype)]
    e = len(extreme_values(m.dtype))
    if m.dtype in FLOATING:
        for mode in ("trunc", "floor"):
            s.append(SampleInput((m.make((e,), kind="extreme"), -2.5), {"rounding_mode": mode}, f"extremes, {mode}"))
    elif m.dtype in INTEGRAL:
        for mode in ("trunc", "floor"):
            s.append(SampleInput((m.make((e,), kind="extreme"), 3), {"rounding_mode": mode}, f"extremes, {mode}"))
        s.append(SampleInput((m.make((2, 3)), 0), {"rounding_mode": "floor"}, "integer division by zero",
                             error="ZeroDivisionError"))
    return s


ROWS = [
    _binary_row("atan2", REAL + (opcore.bool,), lambda x, y: np.arctan2(np.asarray(x, dtype=np.float64), y),
                _no_scalars, int_to_float,
                scalar=False, covers=("atan2", "atan2_", "atan2.out"), autograd=True),
    *[_binary_row(f"bitwise_{n}", INTEGRAL + (opcore.bool,), getattr(np, f"bitwise_{n}")) for n in ("and", "or", "xor")],
    *[_number_first_row(f"bitwise_{n}", INTEGRAL + (opcore.bool,), getattr(np, f"bitwise_{n}"))
      for n in ("and", "or", "xor")],
    *[_binary_row(f"bitwise_{d}_shift", INTEGRAL, _shift(d == "left")[1], scalar=False, ref=_shift(d == "left")[0],
                  covers=(f"bitwise_{d}_shift.Tensor", f"bitwise_{d}_shift_.Tensor", f"bitwise_{d}_shift.Tensor_out",
                          f"bitwise_{d}_shift.Tensor_Scalar", f"bitwise_{d}_shift_.Tensor_Scalar",
                          f"bitwise_{d}_shift.Tensor_Scalar_out")) for d in ("left", "right")],
    *[_number_first_row(f"bitwise_{d}_shift", INTEGRAL, _shift_number_first(d == "left")[1],
                        ref=_shift_number_first(d == "left")[0]) for d in ("left", "right")],
    *[OpInfo(f"logical_{n}", getattr(opcore, f"logical_{n}"), _t(f"logical_{n}"),
             _np_logical(getattr(np, f"logical_{n}")), (f"logical_{n}", f"logical_{n}_", f"logical_{n}.out"), DTYPES,
             _no_scalars, to_bool, ("out",), f"logical_{n}_") for n in ("and", "or", "xor")],
    _binary_row("fmod", REAL, _np_fmod, _division_samples, ref=_exact(_np_fmod, "fmod"), autograd=True),
    _binary_row("remainder", REAL, _np_remainder, _division_samples, ref=_exact(_np_remainder, "remainder"),
                autograd=True),
    _number_first_row("remainder", REAL, _np_remainder, samples=lambda m: _number_first_samples(m, divisor=True),
                      ref=lambda t, number: _exact(_np_remainder, "remainder")(_as_tensor(number, t), t),
                      low=1.0, high=3.0),  # divisors: integral ones never 0
    OpInfo("maximum", opcore.maximum, _t("maximum"), _np_maximum, ("maximum", "maximum.out"), REAL + (opcore.bool,),
           _no_scalars, out=("out",), autograd=True),
    OpInfo("minimum", opcore.minimum, _t("minimum"), _np_minimum, ("minimum", "minimum.out"), REAL + (opcore.bool,),
           _no_scalars, out=("out",), autograd=True),
    OpInfo("pow", opcore.pow, _t("pow"), np.power, ("pow.Tensor_Tensor", "pow_.Tensor", "pow.Tensor_Tensor_out", "pow.Tensor_Scalar",
                            "pow_.Scalar", "pow.Tensor_Scalar_out"), ALL_BUT_BOOL, _pow_samples, out=("out",),
           inplace="pow_", autograd=True, grad_complex=True, low=0.25, high=2.5, number_operand=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5), opcore.bfloat16: (2e-2, 1e-5),
                opcore.float16: (2e-3, 1e-5)}),
    _number_first_row("pow", ALL_BUT_BOOL, np.power, samples=_pow_number_first_samples, overload="Scalar"),
    OpInfo("clamp", opcore.clamp, _torch_clamp, _np_clamp, ("clamp", "clamp.Tensor", "clamp_", "clamp_.Tensor",
                                                            "clamp.out", "clamp.Tensor_out"), REAL, _clamp_samples,
           out=("out",), inplace="clamp_", autograd=True),
    _clamp_bound_row("clamp_min"),
    _clamp_bound_row("clamp_max"),
    _binary_row("floor_divide", REAL, _np_floor_divide, _floor_divide_samples, ref=_torch_floor_divide,
                covers=("floor_divide", "floor_divide_.Tensor", "floor_divide.out", "floor_divide.Scalar",
                        "floor_divide_.Scalar"), low=0.5, high=3.0),
    OpInfo("where.Scalar", lambda c, a, b: opcore.where(c, a, b), _torch_where_number, _np_where_number,
           ("where.ScalarSelf", "where.ScalarOther", "where.Scalar"), DTYPES, _where_number_samples),
    OpInfo("lerp", opcore.lerp, _torch_lerp, _np_lerp, ("lerp.Scalar", "lerp.Tensor", "lerp_.Scalar", "lerp_.Tensor",
                                                        "lerp.Scalar_out", "lerp.Tensor_out"), FLOATING + COMPLEX,
           _lerp_samples, out=("out",), inplace="lerp_", autograd=True, grad_complex=True,
           tol={opcore.bfloat16: (2e-2, 2e-2), opcore.float16: (2e-3, 2e-3)}),
    OpInfo("addcmul", opcore.addcmul, _t("addcmul"), lambda s, a, b, value=1: s + value * a * b,
           ("addcmul", "addcmul_", "addcmul.out"), ALL_BUT_BOOL,
           _ternary_samples(lambda m: 2 if m.dtype in INTEGRAL else m.scalar()), out=("out",), inplace="addcmul_",
           autograd=True, grad_complex=True, tol={opcore.bfloat16: (2e-2, 2e-2), opcore.float16: (2e-3, 2e-3)},
           upcast=_OPMATH),
    OpInfo("addcdiv", opcore.addcdiv, _t("addcdiv"), lambda s, a, b, value=1: s + value * a / b,
           ("addcdiv", "addcdiv_", "addcdiv.out"), FLOATING + COMPLEX, _ternary_samples(lambda m: m.scalar()),
           out=("out",), inplace="addcdiv_", autograd=True, grad_complex=True, low=0.5, high=3.0,
           tol={opcore.bfloat16: (2e-2, 2e-2), opcore.float16: (2e-3, 2e-3)}, upcast=_OPMATH),
    OpInfo("hypot", opcore.hypot, _t("hypot"), np.hypot, ("hypot", "hypot_", "hypot.out"), FLOATING, _no_scalars,
           out=("out",), inplace="hypot_", autograd=True),
    _binary_row("copysign", REAL + (opcore.bool,), lambda x, y: np.copysign(np.asarray(x, dtype=np.float64), y),
                result_dtype=int_to_float, out_overload="out", autograd=True),
    OpInfo("div.Scalar_mode", opcore.div, lambda x, y, rounding_mode=None: _torch_div_scalar_mode(x, y, rounding_mode),
           lambda x, y, rounding_mode=None: _np_div_mode(x, np.asarray(y), rounding_mode),
           ("div.Scalar_mode", "div_.Scalar_mode"), REAL + (opcore.bool,), _div_scalar_mode_samples,
           out=("out",), inplace="div_", autograd=True, low=0.5, high=3.0),
]
