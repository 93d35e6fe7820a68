"""The operator table (issue #32, PyTorch's OpInfo idea): one row per operator of
yaml/native_functions.yaml reachable from Python, each with its reference, dtypes, samples,
tolerances, forms and autograd support; tests/python/test_opinfo.py runs every row.

ADDING AN OPERATOR means adding one row here (or an EXEMPT entry saying why it has none):
`covers` names the YAML overloads the row exercises, and
test_every_operator_has_a_row_or_an_exemption fails until every overload of
native_functions.yaml is covered or exempt. A unary operator with a torch function of the same
name is one line, `_unary("exp", DTYPES, np.exp, int_to_float)`; one torch lacks takes its
reference as a function: `OpInfo("cube", opcore.cube, lambda x: x * x * x, lambda x: x * x * x,
("cube",), ALL_BUT_BOOL, unary_samples)`."""
from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

import opcore
from opinfo_samples import (ALL_BUT_BOOL, COMPLEX, DTYPES, FLOATING, INTEGRAL, REAL, Maker, SampleInput,
                            binary_samples, extreme_values, from_values, name, unary_samples)

try:
    if os.environ.get("OPCORE_OPINFO_REFERENCE") == "numpy":  # to run the numpy path where torch is
        raise ImportError("numpy reference asked for")
    import torch
except ImportError:
    torch = None

# Tolerances (rtol, atol) of a result of each dtype, as torch.testing.assert_close's defaults:
# the reference is computed in float64 (complex128) and rounded to the result's dtype once.
TOLERANCES = {opcore.float16: (1e-3, 1e-5), opcore.bfloat16: (1.6e-2, 1e-5), opcore.float32: (1.3e-6, 1e-5),
              opcore.float64: (1e-7, 1e-7), opcore.complex64: (1.3e-6, 1e-5), opcore.complex128: (1e-7, 1e-7)}


def same(dtype):
    return dtype


def to_bool(dtype):
    return opcore.bool


def int_to_float(dtype):
    """Integral and bool inputs give the default float dtype (PyTorch's promotes_int_to_float)."""
    return opcore.float32 if dtype in INTEGRAL or dtype is opcore.bool else dtype


def complex_to_real(dtype):
    return {opcore.complex64: opcore.float32, opcore.complex128: opcore.float64}.get(dtype, dtype)


def int_to_int64(dtype):
    return opcore.int64 if dtype in INTEGRAL or dtype is opcore.bool else dtype


@dataclass(frozen=True)
class OpInfo:
    """One operator. `op` calls opcore's functional form; `ref` computes the same with torch
    (torch tensors in the positions of opcore's), `np_ref` with numpy where torch is missing
    (None: the row is checked against torch only). Tensor inputs reach the reference in
    float64 / complex128 (integers and bool as they are), and its result is rounded to
    `result_dtype(dtype)`, the dtype opcore must return."""

    name: str
    op: Callable
    ref: Callable
    np_ref: Optional[Callable]
    covers: tuple                       # the native_functions.yaml overloads this row exercises
    dtypes: tuple                       # PyTorch's CPU set; any other dtype must raise
    samples: Callable                   # Maker -> list[SampleInput]
    result_dtype: Callable = same
    out: tuple = ()                     # the out= arguments (("out",), ("max", "max_values")), which Python
                                        # passes as `out=`, several as one tuple; () none
    inplace: Optional[str] = None       # the in-place method ("add_")
    autograd: bool = False              # gradcheck in float64 on the samples marked grad
    grad_complex: bool = False          # ... and in complex128
    tol: dict = field(default_factory=dict)   # dtype -> (rtol, atol), overriding TOLERANCES
    low: float = -3.0                   # random values are uniform in [low, high]
    high: float = 3.0
    check: str = "values"               # "max": (values, indices) of a max over a dimension
    mutates: bool = False               # op writes into args[0] (copy_, fill_): no out= or in-place form
    # A Python number as args[1] is an operand: it is converted to the tensor's dtype before the
    # operation (Note [Scalar operands] in kernels/common/TypePromotion.cpp), so the reference
    # gets it rounded too.
    number_operand: bool = False
    # The dtype the reference computes in, where it is not float64 / complex128: a reduction
    # accumulates in float32 as PyTorch's does (two float32 maxima sum to inf), a composite
    # rounds after each step as PyTorch's does.
    upcast: dict = field(default_factory=dict)
    # True: the result is a view of args[0] (shares its memory), as PyTorch's; False: new memory;
    # None: either, by the input (reshape, contiguous, to).
    view: Optional[bool] = None

    def tolerance(self, dtype):
        return self.tol.get(dtype, TOLERANCES.get(dtype, (0.0, 0.0)))


def np_dtype(dtype):
    """numpy's dtype a numpy reference computes `dtype` in: float64 / complex128 for the
    floating and complex ones (numpy has no bfloat16), the same for the others."""
    if dtype is None:
        return None
    if dtype in FLOATING:
        return np.dtype(np.float64)
    return np.dtype(np.complex128) if dtype in COMPLEX else np.dtype(name(dtype))


def _t(name):
    return lambda *args, **kwargs: getattr(torch, name)(*args, **kwargs)


def _method(name):
    return lambda self, *args, **kwargs: getattr(self, name)(*args, **kwargs)


# --- elementwise ------------------------------------------------------------------------------------


def _unary(name, dtypes, np_ref, result_dtype=same, autograd=True, grad_complex=True, low=-3.0, high=3.0,
           inplace=None, out=True, covers=None, ref=None, **kwargs):
    return OpInfo(name, getattr(opcore, name), ref or _t(name), np_ref, covers or (name, f"{name}.out"), dtypes,
                  unary_samples, result_dtype, ("out",) if out else (), inplace, autograd,
                  grad_complex and any(d in COMPLEX for d in dtypes), low=low, high=high, **kwargs)


def _np_sign(x):
    return x if x.dtype == bool else np.sign(x)


def _torch_sign(x):
    # sign(NaN) is NaN in opcore (signOf in kernels/cpu/Unary.cpp) and numpy; PyTorch gives 0,
    # which its own issue pytorch/pytorch#41245 (open) calls a divergence, and PyTorch's OpInfo
    # skips sign's extremal values for it. The reference keeps the NaN.
    return torch.where(torch.isnan(x), x, torch.sign(x)) if x.is_floating_point() else torch.sign(x)


def _np_angle(x):
    if x.dtype.kind == "c":
        return np.angle(x)
    return np.where(np.isnan(x), np.nan, np.where(x < 0, math.pi, 0.0))


def _np_relu(x):
    return np.where(x > 0, x, 0).astype(x.dtype) if x.dtype.kind != "f" else np.where(np.isnan(x), x,
                                                                                        np.maximum(x, 0))


def _np_sigmoid(x):
    with np.errstate(all="ignore"):
        return 1 / (1 + np.exp(-np.asarray(x, dtype=np.result_type(x, np.float64))))


def _as_float(f):
    return lambda x: f(np.asarray(x, dtype=np.result_type(x, np.float64)))


def _alpha_samples(m):
    s = binary_samples(m)
    alpha = m.scalar()
    if m.dtype is not opcore.bool:
        s.append(SampleInput((m.make((2, 3)), m.make((3,))), {"alpha": alpha}, "2x3, 3, alpha", grad=True))
    return s


def _div_samples(m):
    # A complex divided by a complex zero is nan+nanj in torch 1.13 and an infinity in C99 Annex G
    # (GCC's __divdc3, which opcore's complex division is) and PyTorch >= 2.1: zero divisors are
    # left out of the complex extremes, as they are of the integer ones for rounding division.
    return binary_samples(m, "nonzero" if m.dtype in COMPLEX else "random")


def _np_add(sign):
    def f(x, y, alpha=1):
        with np.errstate(all="ignore"):
            if isinstance(x, np.ndarray) and x.dtype == bool and alpha == 1:
                return np.logical_or(x, y) if sign > 0 else np.logical_xor(x, y)
            y = np.multiply(y, alpha, dtype=np.result_type(x, y)) if alpha != 1 else y
            return np.add(x, y) if sign > 0 else np.subtract(x, y)
    return f


def _np_mul(x, y):
    with np.errstate(all="ignore"):
        return np.logical_and(x, y) if np.result_type(x, y) == bool else np.multiply(x, y)


def _np_true_div(x, y):
    with np.errstate(all="ignore"):
        return np.true_divide(np.asarray(x, dtype=np.result_type(x, np.float64)), y)


def _wrap(values, like):
    """Python integers wrapped into the integral numpy dtype of `like`, as C++ wraps them."""
    info = np.iinfo(like.dtype)
    span = info.max - info.min + 1
    return np.array([(int(v) - info.min) % span + info.min for v in values.ravel()], dtype=like.dtype).reshape(
        values.shape)


def _python_floor_div(x, y):
    """Python's float floor division, elementwise (IEEE a / b for b == 0): the rule PyTorch's
    kernel follows; torch 1.13's vectorized fmod loses it where the quotient overflows
    (max // denormal is inf, torch gives nan)."""
    x, y = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
    with np.errstate(all="ignore"):
        q = [a / b if b == 0 else float(a) // float(b) for a, b in zip(x.ravel(), y.ravel())]
    return np.array(q, dtype=np.float64).reshape(x.shape)


def _torch_div_mode(x, y, rounding_mode=None):
    if rounding_mode == "floor" and x.is_floating_point():
        return torch.from_numpy(_python_floor_div(x.numpy(), y.numpy()))
    return torch.div(x, y, rounding_mode=rounding_mode)


def _np_div_mode(x, y, rounding_mode=None):
    if rounding_mode is None:
        return _np_true_div(x, y)
    x, y = np.broadcast_arrays(np.asarray(x), np.asarray(y, dtype=np.asarray(x).dtype))
    if x.dtype.kind in "iu":
        q = [int(a) // int(b) if rounding_mode == "floor" else abs(int(a)) // abs(int(b)) * (
            1 if (a < 0) == (b < 0) else -1) for a, b in zip(x.ravel(), y.ravel())]
        return _wrap(np.array(q, dtype=object).reshape(x.shape), x)
    with np.errstate(all="ignore"):
        return _python_floor_div(x, y) if rounding_mode == "floor" else np.trunc(x / y)


def _div_mode_samples(m):
    s = binary_samples(m, "nonzero", scalars=False, extreme=False)
    out = []
    for mode in ("trunc", "floor"):
        out += [SampleInput(x.args, {"rounding_mode": mode}, f"{x.desc}, {mode}", x.grad) for x in s[:7]]
    out.append(SampleInput(s[7].args, {"rounding_mode": None}, f"{s[7].desc}, None", dtype=int_to_float(m.dtype)))
    values = extreme_values(m.dtype)
    # 0 and -1 are left out of the integral divisors: division by zero raises (the error sample
    # below), and INT_MIN // -1 is undefined behaviour in C++, on which torch 1.13 dies of SIGFPE
    # (test_integer_division_of_int_min_by_minus_one_wraps checks opcore). Floats keep both.
    others = values[(values != 0) & (values != -1)] if m.dtype in INTEGRAL else values
    if m.dtype in INTEGRAL:
        for mode in ("trunc", "floor"):
            out.append(SampleInput((m.make((2, 3)), from_values(np.array([1, 0, 2]), (3,), m.dtype)),
                                   {"rounding_mode": mode}, f"integer division by zero, {mode}",
                                   error="ZeroDivisionError"))
    for mode in ("trunc", "floor"):
        out.append(SampleInput((from_values(values, (len(values), 1), m.dtype),
                                from_values(others, (1, len(others)), m.dtype)), {"rounding_mode": mode},
                               f"extremes x extremes, {mode}"))
    return out


def _compare(name, np_name):
    ops = (f"{name}.Tensor", f"{name}_.Tensor", f"{name}.Tensor_out", f"{name}.Scalar", f"{name}_.Scalar",
           f"{name}.Scalar_out")
    dtypes = DTYPES if name in ("eq", "ne") else REAL + (opcore.bool,)
    return OpInfo(name, getattr(opcore, name), _t(name), getattr(np, np_name), ops, dtypes, binary_samples, to_bool,
                  ("out",), f"{name}_", number_operand=True)


def _where_samples(m):
    c = Maker(opcore.bool, 7)
    s = binary_samples(m, scalars=False)
    return [SampleInput((c.make(x.args[0].shape if x.args[0].dim() else (3,)),) + x.args, desc=f"cond, {x.desc}",
                        grad=x.grad) for x in s]


# --- Core ATen part 1 (issue #33): unary pointwise helpers ---


def _float_unary(name, dtypes, np_ref, low=-3.0, high=3.0, ref=None):
    """A floating-point function of the unary family: integral and bool inputs give the default
    float dtype; with in-place and out= forms."""
    return _unary(name, dtypes, _as_float(np_ref), int_to_float, low=low, high=high, ref=ref, inplace=f"{name}_",
                  covers=(name, f"{name}_", f"{name}.out"))


def _torch_atan(x):
    # Complex atan on its branch cuts (the imaginary axis beyond +-i) and at its poles +-i: opcore
    # follows C99 Annex G (glibc's catan, numpy's arctan: atan(-0-2.5j) has real part -pi/2,
    # atan(1j) is infj); torch 1.13's vectorized formula gives +pi/2 and nan+nanj there.
    return torch.from_numpy(np.asarray(np.arctan(x.numpy()))) if x.is_complex() else torch.atan(x)


def _same_unary(name, dtypes, np_ref, ref=None, autograd=True):
    """A unary function keeping self's dtype, with in-place and out= forms."""
    return _unary(name, dtypes, np_ref, ref=ref, autograd=autograd, inplace=f"{name}_",
                  covers=(name, f"{name}_", f"{name}.out"))


def _np_erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x) if x.size else x


def _np_sgn(x):
    if x.dtype.kind != "c":
        return _np_sign(x)
    with np.errstate(all="ignore"):
        return np.where(x == 0, 0, x / np.abs(x))


def _torch_sgn(x):
    # NaN stays NaN, as opcore's sign (see _torch_sign)
    return torch.where(torch.isnan(x), x, torch.sgn(x)) if x.is_floating_point() else torch.sgn(x)


def _round_decimals_samples(m):
    s = []
    for decimals in (2, 0, -1):
        s += [SampleInput(x.args, {"decimals": decimals}, f"{x.desc}, decimals {decimals}", x.grad)
              for x in unary_samples(m)]
    return s


def _np_round_decimals(x, decimals):
    with np.errstate(all="ignore"):
        return np.round(x, decimals)


def _nan_to_num_samples(m):
    s = unary_samples(m)
    e = len(extreme_values(m.dtype))
    for kwargs in ({"nan": 1.5}, {"nan": -2.0, "posinf": 2.5, "neginf": -3.5}, {"posinf": 1e300, "neginf": -1e300}):
        s.append(SampleInput((m.make((e,), kind="extreme"),), kwargs, f"extremes, {kwargs}"))
        s.append(SampleInput((m.make((2, 3)),), kwargs, f"2x3, {kwargs}", grad=True))
    return s


def _np_nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    if x.dtype.kind != "f":
        return x
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


def _nn(name):
    return getattr(opcore._C._nn, name)


def _torch_nn(name):
    return lambda *args, **kwargs: getattr(torch._C._nn, name)(*args, **kwargs)


def _in_place(function, name):
    """An in-place nn function as a functional one, on a copy of self (the abs_ row's way)."""
    return lambda x, *args, **kwargs: function(name)(x.clone(), *args, **kwargs)


def _grad_input(name):
    """An nn backward operator whose out= keyword is grad_input, called with out= as the table does."""
    function = _nn(name)
    return lambda *args, out=None, **kwargs: (function(*args, **kwargs) if out is None
                                              else function(*args, **kwargs, grad_input=out))


def _torch_gelu_backward(grad, x, approximate="none"):
    # torch 1.13's float32 gelu_backward goes to oneDNN, which fails on broadcast operands
    # ("could not create a primitive descriptor for a reorder primitive"): give it them expanded
    grad, x = (t.contiguous() for t in torch.broadcast_tensors(grad, x))
    return torch.ops.aten.gelu_backward(grad, x, approximate=approximate)


def _gelu_samples(m):
    s = unary_samples(m)
    return s + [SampleInput(x.args, {"approximate": "tanh"}, f"{x.desc}, tanh", x.grad) for x in s]


def _backward_samples(m):
    return binary_samples(m, scalars=False)


def _gelu_backward_samples(m):
    s = _backward_samples(m)
    return s + [SampleInput(x.args, {"approximate": "tanh"}, f"{x.desc}, tanh", x.grad) for x in s]


def _np_gelu(x, approximate="none"):
    x = np.asarray(x, dtype=np.float64)
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    return x * 0.5 * (1 + _np_erf(x / math.sqrt(2)))


def _np_silu(x):
    with np.errstate(all="ignore"):
        return x / (1 + np.exp(-x))


_FLOAT_BF16 = (opcore.bfloat16, opcore.float32, opcore.float64)
_HARDTANH = (opcore.int8, opcore.int16, opcore.int32, opcore.int64) + _FLOAT_BF16  # uint8: negative limits


def _with_kwargs(*variants):
    def make(m):
        s = unary_samples(m)
        return s + [SampleInput(x.args, kw, f"{x.desc}, {kw}", x.grad) for kw in variants for x in s[:4]]
    return make


def _elu_backward_samples(m):
    values = extreme_values(m.dtype)
    x = values[~np.isnan(values)]
    return binary_samples(m, scalars=False, extreme=False) + [SampleInput(
        (from_values(values, (len(values), 1), m.dtype), from_values(x, (1, len(x)), m.dtype)),
        desc="extremes x extremes but NaN")]


def _fixed_backward(name, before=(), after=(), tensor_last=False):
    """An nn backward operator with its non-tensor arguments fixed, as (grad, x) -> Tensor, for
    opcore (out= mapped to grad_input) and for torch."""
    def ours(g, x, out=None):
        args = (g, *before, x, *after) if not tensor_last else (g, *before, x)
        f = _nn(name)
        return f(*args) if out is None else f(*args, grad_input=out)

    def theirs(g, x):
        args = (g, *before, x, *after) if not tensor_last else (g, *before, x)
        return getattr(torch.ops.aten, name)(*args)
    return ours, theirs
# The reference computes in float32 for the 16-bit dtypes and float32, as PyTorch's kernels do
# (opmath): at the extremes, (1 - y) * y overflows to inf there and times a zero gradient is NaN.
_OPMATH = {opcore.float16: opcore.float32, opcore.bfloat16: opcore.float32, opcore.float32: opcore.float32}
_FLOAT_BF16_COMPLEX = _FLOAT_BF16 + COMPLEX


def _activation_rows():
    def aten(name):
        return lambda *args, **kwargs: getattr(torch.ops.aten, name)(*args, **kwargs)
    return [
        OpInfo("sigmoid_backward", _grad_input("sigmoid_backward"), aten("sigmoid_backward"), lambda g, y: g * np.conj((1 - y) * y),
               ("sigmoid_backward", "sigmoid_backward.grad_input"), FLOATING + COMPLEX, _backward_samples,
               out=("out",), autograd=True, upcast=_OPMATH),
        OpInfo("tanh_backward", _grad_input("tanh_backward"), aten("tanh_backward"), lambda g, y: g * np.conj(1 - y * y),
               ("tanh_backward", "tanh_backward.grad_input"), _FLOAT_BF16_COMPLEX, _backward_samples,
               out=("out",), autograd=True, upcast=_OPMATH),
        OpInfo("gelu", opcore.nn.functional.gelu, _torch_nn("gelu"), _np_gelu, ("gelu", "gelu.out"), _FLOAT_BF16,
               _gelu_samples, out=("out",), autograd=True, upcast=_OPMATH),
        OpInfo("gelu_", _in_place(_nn, "gelu_"), _in_place(_torch_nn, "gelu_"), _np_gelu, ("gelu_",), _FLOAT_BF16,
               _gelu_samples, autograd=True, upcast=_OPMATH),
        OpInfo("gelu_backward", _grad_input("gelu_backward"), _torch_gelu_backward, None,
               ("gelu_backward", "gelu_backward.grad_input"), _FLOAT_BF16, _gelu_backward_samples,
               out=("out",), autograd=True, upcast=_OPMATH,
               # near the zero of gelu' (x = -0.75) cdf + x * pdf cancels: opcore's (SLEEF's) and
               # torch's float32 erf and exp, each within an ulp or two, differ there by ~1e-6
               tol={opcore.float32: (2e-5, 1e-5)}),
        OpInfo("silu", _nn("silu"), _torch_nn("silu"), _np_silu, ("silu", "silu.out"), _FLOAT_BF16_COMPLEX,
               unary_samples, out=("out",), autograd=True, grad_complex=True, upcast=_OPMATH),
        OpInfo("silu_", _in_place(_nn, "silu_"), _in_place(_torch_nn, "silu_"), _np_silu, ("silu_",),
               _FLOAT_BF16_COMPLEX, unary_samples, autograd=True, upcast=_OPMATH),
        OpInfo("silu_backward", _grad_input("silu_backward"), aten("silu_backward"), None,
               ("silu_backward", "silu_backward.grad_input"), _FLOAT_BF16_COMPLEX, _backward_samples,
               out=("out",), autograd=True, grad_complex=True, upcast=_OPMATH),
        OpInfo("leaky_relu", _nn("leaky_relu"), _torch_nn("leaky_relu"), None, ("leaky_relu", "leaky_relu.out"),
               _FLOAT_BF16, _with_kwargs({"negative_slope": 0.2}), out=("out",), autograd=True),
        OpInfo("leaky_relu_", _in_place(_nn, "leaky_relu_"), _in_place(_torch_nn, "leaky_relu_"), None,
               ("leaky_relu_",), _FLOAT_BF16, _with_kwargs({"negative_slope": 0.2}), autograd=True),
        OpInfo("leaky_relu_backward", *_fixed_backward("leaky_relu_backward", after=(0.2, False)), None,
               ("leaky_relu_backward", "leaky_relu_backward.grad_input"), _FLOAT_BF16, _backward_samples,
               out=("out",), autograd=True, upcast=_OPMATH),
        OpInfo("hardtanh", _nn("hardtanh"), _torch_nn("hardtanh"), None, ("hardtanh", "hardtanh.out"), _HARDTANH,
               _with_kwargs({"min_val": -0.5, "max_val": 2}), out=("out",), autograd=True),
        OpInfo("hardtanh_", _in_place(_nn, "hardtanh_"), _in_place(_torch_nn, "hardtanh_"), None, ("hardtanh_",),
               _HARDTANH, _with_kwargs({"min_val": -0.5, "max_val": 2}), autograd=True),
        OpInfo("hardtanh_backward", *_fixed_backward("hardtanh_backward", after=(-0.5, 1.0)), None,
               ("hardtanh_backward", "hardtanh_backward.grad_input"), (opcore.float32, opcore.float64),
               _backward_samples, out=("out",), autograd=True),
        OpInfo("elu", _nn("elu"), _torch_nn("elu"), None, ("elu", "elu.out"), _FLOAT_BF16,
               _with_kwargs({"alpha": 0.5, "scale": 1.5, "input_scale": 2.0}), out=("out",), autograd=True,
               upcast=_OPMATH),
        OpInfo("elu_", _in_place(_nn, "elu_"), _in_place(_torch_nn, "elu_"), None, ("elu_",), _FLOAT_BF16,
               _with_kwargs({"alpha": 0.5}), autograd=True, upcast=_OPMATH),
        OpInfo("elu_backward", *_fixed_backward("elu_backward", before=(0.5, 1.5, 2.0, False), tensor_last=True),
               # no extremes: at a NaN self, torch 1.13's own paths disagree (its float64 and
               # vectorized rows give NaN, as opcore; its float32 scalar tails grad * scale)
               None, ("elu_backward", "elu_backward.grad_input"), _FLOAT_BF16,
               _elu_backward_samples,
               out=("out",), autograd=True, upcast=_OPMATH),
    ]


ELEMENTWISE = [
    OpInfo("add", opcore.add, _t("add"), _np_add(1), ("add.Tensor", "add_.Tensor", "add.out", "add.Scalar",
                                                      "add_.Scalar"), DTYPES, _alpha_samples, same, ("out",), "add_",
           True, True, number_operand=True),
    OpInfo("sub", opcore.sub, _t("sub"), _np_add(-1), ("sub.Tensor", "sub_.Tensor", "sub.out", "sub.Scalar",
                                                       "sub_.Scalar"), ALL_BUT_BOOL, _alpha_samples, same, ("out",),
           "sub_", True, True, number_operand=True),
    OpInfo("rsub", opcore.rsub, _t("rsub"), lambda x, y, alpha=1: _np_add(-1)(y, x, alpha),
           ("rsub.Tensor", "rsub.Scalar"), ALL_BUT_BOOL, _alpha_samples, same, ("out",), None, True, True,
           number_operand=True),
    OpInfo("mul", opcore.mul, _t("mul"), _np_mul, ("mul.Tensor", "mul_.Tensor", "mul.out", "mul.Scalar",
                                                   "mul_.Scalar"), DTYPES, binary_samples, same, ("out",), "mul_",
           True, True, number_operand=True),
    OpInfo("div", opcore.div, _t("div"), _np_true_div, ("div.Tensor", "div_.Tensor", "div.out", "div.Scalar",
                                                        "div_.Scalar"), DTYPES, _div_samples, int_to_float,
           ("out",), "div_", True, True, low=0.5, high=3.0, number_operand=True),
    OpInfo("div.rounding_mode", opcore.div, _torch_div_mode, _np_div_mode, ("div.Tensor_mode", "div_.Tensor_mode", "div.out_mode"), REAL,
           _div_mode_samples, out=("out",), inplace="div_", autograd=True, low=0.5, high=3.0),
    _unary("neg", ALL_BUT_BOOL, np.negative, inplace="neg_", covers=("neg", "neg_", "neg.out")),
    _unary("exp", DTYPES, _as_float(np.exp), int_to_float, inplace="exp_", covers=("exp", "exp_", "exp.out")),
    _unary("log", DTYPES, _as_float(np.log), int_to_float, low=0.1, high=4.0, inplace="log_", covers=("log", "log_", "log.out")),
    _unary("sqrt", DTYPES, _as_float(np.sqrt), int_to_float, low=0.1, high=4.0, inplace="sqrt_", covers=("sqrt", "sqrt_", "sqrt.out")),
    _unary("sigmoid", DTYPES, _np_sigmoid, int_to_float, inplace="sigmoid_", covers=("sigmoid", "sigmoid_", "sigmoid.out")),
    _unary("tanh", DTYPES, _as_float(np.tanh), int_to_float, inplace="tanh_", covers=("tanh", "tanh_", "tanh.out")),
    _unary("relu", REAL, _np_relu, inplace="relu_", covers=("relu", "relu_", "relu.out")),
    _unary("abs", ALL_BUT_BOOL, np.abs, complex_to_real),
    _unary("sign", REAL + (opcore.bool,), _np_sign, inplace="sign_", covers=("sign", "sign_", "sign.out"),
           ref=_torch_sign),
    _unary("angle", DTYPES, _np_angle, lambda d: complex_to_real(int_to_float(d))),
    _unary("conj_physical", DTYPES, np.conj, inplace="conj_physical_",
           covers=("conj_physical", "conj_physical_", "conj_physical.out")),
    *[_compare(n, np_n) for n, np_n in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"),
                                        ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal"))],
    OpInfo("where", opcore.where, _t("where"), np.where, ("where.self", "where.self_out"), DTYPES, _where_samples,
           out=("out",), autograd=True, grad_complex=True),
    # Core ATen part 1 (issue #33): unary pointwise
    *[_float_unary(n, DTYPES, getattr(np, npn), lo, hi) for n, npn, lo, hi in (
        ("sin", "sin", -3.0, 3.0), ("cos", "cos", -3.0, 3.0), ("tan", "tan", -1.2, 1.2),
        ("asin", "arcsin", -0.95, 0.95), ("acos", "arccos", -0.95, 0.95),
        ("sinh", "sinh", -3.0, 3.0), ("cosh", "cosh", -3.0, 3.0), ("asinh", "arcsinh", -3.0, 3.0),
        ("acosh", "arccosh", 1.1, 4.0), ("atanh", "arctanh", -0.95, 0.95), ("log10", "log10", 0.1, 4.0),
        ("log2", "log2", 0.1, 4.0))],
    _float_unary("atan", DTYPES, np.arctan, ref=_torch_atan),
    _float_unary("reciprocal", DTYPES, lambda x: 1 / x, 0.5, 3.0),
    _float_unary("rsqrt", DTYPES, lambda x: 1 / np.sqrt(x), 0.1, 4.0),
    *[_float_unary(n, REAL + (opcore.bool,), np_ref, lo, hi) for n, np_ref, lo, hi in (
        ("log1p", np.log1p, -0.9, 3.0), ("expm1", np.expm1, -3.0, 3.0), ("exp2", np.exp2, -3.0, 3.0),
        ("erf", _np_erf, -3.0, 3.0))],
    _unary("erfinv", REAL + (opcore.bool,), None, int_to_float, low=-0.95, high=0.95, inplace="erfinv_",
           covers=("erfinv", "erfinv_", "erfinv.out")),
    *[_same_unary(n, REAL, getattr(np, n)) for n in ("ceil", "floor", "trunc")],
    _same_unary("round", REAL, np.round),
    OpInfo("round.decimals", opcore.round, _t("round"), _np_round_decimals,
           ("round.decimals", "round_.decimals", "round.decimals_out"), FLOATING, _round_decimals_samples,
           out=("out",), inplace="round_", autograd=True,
           # computed in float, as PyTorch's opmath (an x * 10^d of float32 may round onto a half)
           upcast={opcore.float16: opcore.float32, opcore.bfloat16: opcore.float32, opcore.float32: opcore.float32}),
    _same_unary("frac", FLOATING, lambda x: x - np.trunc(x)),
    _same_unary("sgn", DTYPES, _np_sgn, ref=_torch_sgn),
    _same_unary("bitwise_not", INTEGRAL + (opcore.bool,), np.invert, autograd=False),
    _unary("logical_not", DTYPES, np.logical_not, to_bool, autograd=False, inplace="logical_not_",
           covers=("logical_not", "logical_not_", "logical_not.out")),
    # (isnan.out and isinf.out are autogen: overloads of no YAML entry)
    _unary("isnan", DTYPES, np.isnan, to_bool, autograd=False, covers=("isnan",)),
    _unary("isinf", DTYPES, np.isinf, to_bool, autograd=False, covers=("isinf",)),
    _unary("isfinite", DTYPES, np.isfinite, to_bool, autograd=False, out=False, covers=("isfinite",)),
    OpInfo("nan_to_num", opcore.nan_to_num, _t("nan_to_num"), _np_nan_to_num,
           ("nan_to_num", "nan_to_num_", "nan_to_num.out"), REAL + (opcore.bool,), _nan_to_num_samples,
           out=("out",), inplace="nan_to_num_", autograd=True),
    # abs_ refuses complex tensors (their magnitudes are real), as PyTorch's: a row of its own
    OpInfo("abs_", lambda x: opcore.abs_(x.clone()), lambda x: torch.abs_(x.clone()), lambda x: np.abs(x), ("abs_",),
           REAL, unary_samples, autograd=True),
    # Core ATen part 1 (issue #33): binary and ternary pointwise
    *__import__("opinfo_binary").ROWS,  # tests/python/opinfo_binary.py (it imports this module's helpers)
    # Neural network, activations (issue #34): opcore.nn.functional's (python_module: nn), against
    # torch.nn.functional / torch._C._nn; the in-place forms (functions only) in rows of their own.
    *_activation_rows(),
]


# --- reductions, linear algebra, loss ------------------------------------------------------------


def _reduce_samples(dtype_kwarg, whole_out=False):
    """whole_out: an out= overload takes the reduction of every element (mean.dtype_out)."""
    def make(m):
        s = []
        for x in unary_samples(m):
            s.append(SampleInput(x.args, {}, f"{x.desc}, all", x.grad, out=whole_out))
            if x.args[0].dim() >= 1:
                s.append(SampleInput(x.args + ([0],), {}, f"{x.desc}, dim [0]"))
                s.append(SampleInput(x.args + ([-1],), {"keepdim": True}, f"{x.desc}, dim [-1] keepdim", x.grad))
            if x.args[0].dim() >= 2:
                s.append(SampleInput(x.args + ([0, 1],), {}, f"{x.desc}, dims [0, 1]", x.grad))
        x = m.make((2, 3))
        s.append(SampleInput((x, []), {}, "2x3, dim []"))
        s.append(SampleInput((x, None), {"keepdim": True}, "2x3, dim None keepdim"))
        for target in dtype_kwarg(m.dtype):
            s.append(SampleInput((x, [1]), {"dtype": target}, f"2x3, dim [1], dtype {target}", dtype=target))
            s.append(SampleInput((x,), {"dtype": target}, f"2x3, all, dtype {target}", dtype=target, out=whole_out))
        return s
    return make


def _sum_dtypes(dtype):
    return (opcore.float64, opcore.int64) if dtype not in COMPLEX else (opcore.complex128,)


def _mean_dtypes(dtype):
    return (opcore.float64,) if dtype not in COMPLEX else (opcore.complex128,)


def _np_sum(x, dim=None, keepdim=False, dtype=None):
    axis = None if dim is None or list(dim) == [] else tuple(dim)
    dtype = np_dtype(dtype)
    if dtype is None and x.dtype.kind in "biu":
        dtype = np.int64
    with np.errstate(all="ignore"):
        return np.asarray(np.sum(x, axis=axis, keepdims=keepdim, dtype=dtype))


def _np_mean(x, dim=None, keepdim=False, dtype=None):
    axis = None if dim is None or list(dim) == [] else tuple(dim)
    with np.errstate(all="ignore"):
        return np.asarray(np.mean(x, axis=axis, keepdims=keepdim, dtype=np_dtype(dtype)))


def _max_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        if t.dim() >= 1 and t.numel() > 0:
            s.append(SampleInput((t, 0), {}, f"{x.desc}, dim 0", x.grad))
            s.append(SampleInput((t, -1, True), {}, f"{x.desc}, dim -1 keepdim"))
    s.append(SampleInput((m.make((0, 3)), 1), {}, "empty 0x3, dim 1"))
    return s


def _np_max(x, dim, keepdim=False):
    return np.max(x, axis=dim, keepdims=keepdim), None  # np.max propagates NaN, as max.dim does


def _mm_samples(m):
    e = extreme_values(m.dtype)
    return [SampleInput((m.make((2, 3)), m.make((3, 4))), desc="2x3 @ 3x4", grad=True),
            SampleInput((m.make((2, 3), "t"), m.make((3, 4), "step")), desc="transposed @ step-sliced"),
            SampleInput((m.make((2, 4), "step"), m.make((4, 3), "t")), desc="step-sliced @ transposed"),
            SampleInput((m.make((3, 5), "expand"), m.make((5, 2))), desc="expanded @ 5x2"),
            SampleInput((m.make((2, 0)), m.make((0, 3))), desc="2x0 @ 0x3 (zeros)"),
            SampleInput((m.make((0, 3)), m.make((3, 2))), desc="0x3 @ 3x2"),
            SampleInput((m.make((1, 1)), m.make((1, 1))), desc="1x1 @ 1x1", grad=True),
            SampleInput((from_values(e, (len(e), 1), m.dtype), from_values(e[::-1].copy(), (1, len(e)), m.dtype)),
                        desc="extremes outer product"),
            SampleInput((from_values(e, (2, len(e) // 2), m.dtype), from_values(e, (len(e) // 2, 2), m.dtype)),
                        desc="extremes 2xk @ kx2")]


def _bmm_samples(m):
    e = extreme_values(m.dtype)
    return [SampleInput((m.make((2, 2, 3)), m.make((2, 3, 4))), desc="2x2x3 @ 2x3x4", grad=True),
            SampleInput((m.make((2, 2, 3), "t"), m.make((2, 3, 4), "step")), desc="transposed @ step-sliced"),
            SampleInput((m.make((3, 2, 3), "expand"), m.make((3, 3, 1))), desc="expanded batch @ 3x3x1"),
            SampleInput((m.make((0, 2, 3)), m.make((0, 3, 4))), desc="empty batch"),
            SampleInput((m.make((2, 2, 0)), m.make((2, 0, 3))), desc="k = 0 (zeros)"),
            SampleInput((from_values(e, (2, len(e), 1), m.dtype), from_values(e, (2, 1, len(e)), m.dtype)),
                        desc="extremes outer products"),
            SampleInput((m.make((2, 3)), m.make((2, 3, 4))), desc="2-D batch1", error="batch1 must be a 3D tensor"),
            SampleInput((m.make((2, 2, 3)), m.make((3, 4))), desc="2-D batch2", error="batch2 must be a 3D tensor"),
            SampleInput((m.make((2, 2, 3)), m.make((3, 3, 4))), desc="batch sizes differ",
                        error="Expected size for first two dimensions of batch2 tensor"),
            SampleInput((m.make((2, 2, 3)), m.make((2, 4, 4))), desc="inner sizes differ",
                        error="Expected size for first two dimensions of batch2 tensor")]


def _matmul_samples(m):
    e = extreme_values(m.dtype)
    return [SampleInput((m.make((3,)), m.make((3,))), desc="dot 3 . 3", grad=True),
            SampleInput((m.make((2, 3)), m.make((3,))), desc="2x3 @ 3", grad=True),
            SampleInput((m.make((3,)), m.make((3, 2))), desc="3 @ 3x2", grad=True),
            SampleInput((m.make((2, 3)), m.make((3, 4), "t")), desc="2x3 @ transposed 3x4"),
            SampleInput((m.make((2, 2, 3)), m.make((3, 2))), desc="batched 2x2x3 @ 3x2", grad=True),
            SampleInput((m.make((2, 1, 2, 3)), m.make((3, 3, 2), "step")), desc="broadcast batches 2x1 and 3"),
            SampleInput((m.make((3,)), m.make((2, 3, 2))), desc="3 @ 2x3x2"),
            SampleInput((m.make((0, 3)), m.make((3,))), desc="0x3 @ 3"),
            SampleInput((m.make((0,)), m.make((0,))), desc="dot of empty vectors"),
            SampleInput((from_values(e, (len(e),), m.dtype), from_values(e[::-1].copy(), (len(e), 1), m.dtype)),
                        desc="extremes vector @ matrix"),
            SampleInput((m.make(()), m.make((3,))), desc="0-dim @ 3", error="at least 1D")]


def _np_mse(x, y, reduction):
    with np.errstate(all="ignore"):
        d = (x - y) ** 2
        return d if reduction == 0 else np.asarray(d.mean() if reduction == 1 else d.sum())


# ---- issue #34, pointwise losses: the operators (int reduction) with their extra float argument
# (beta, delta) as `more`; the backward operators take (grad_output, self, target, reduction, *more).

def _pointwise_loss_samples(name, more=(), bad_more=None):
    def samples(m):
        s = []
        for reduction in (1, 0, 2):  # mean first: l1_loss of integers takes none and sum, as torch's
            s += [SampleInput((m.make((2, 3)), m.make((2, 3)), reduction, *more), desc=f"2x3, reduction {reduction}",
                              grad=True),
                  SampleInput((m.make(()), m.make(()), reduction, *more), desc=f"0-dim, reduction {reduction}"),
                  SampleInput((m.make((3, 4), "t"), m.make((3, 4), "step"), reduction, *more),
                              desc=f"transposed, step-sliced, reduction {reduction}"),
                  SampleInput((m.make((2, 3)), m.make((3,)), reduction, *more), desc=f"broadcast, reduction {reduction}",
                              grad=reduction == 1),
                  SampleInput((m.make((3, 4), "expand"), m.make((3, 4)), reduction, *more),
                              desc=f"expanded, reduction {reduction}")]
        s.append(SampleInput((m.make((300, 70)), m.make((300, 70)), 1, *more), desc="21000 elements, mean"))
        e = extreme_values(m.dtype)
        s.append(SampleInput((from_values(e, (len(e), 1), m.dtype), from_values(e, (1, len(e)), m.dtype).expand(
            len(e), len(e)).contiguous(), 0, *more), desc="extremes x extremes, none"))
        s.append(SampleInput((m.make((0, 3)), m.make((0, 3)), 2, *more), desc="empty, sum"))
        s.append(SampleInput((m.make((0, 3)), m.make((0, 3)), 1, *more), desc="empty, mean (NaN)"))
        s.append(SampleInput((m.make((2, 3)), m.make((2, 3)), 7, *more), desc="reduction 7",
                             error=rf"{name}: reduction must be 0 \(none\), 1 \(mean\) or 2 \(sum\), got 7"))
        s.append(SampleInput((m.make((2, 3)), m.make((4,)), 1, *more), desc="shapes that do not broadcast",
                             error="must match the size"))
        if bad_more is not None:
            s.append(SampleInput((m.make((2, 3)), m.make((2, 3)), 1, *bad_more[0]), desc="bad argument",
                                 error=bad_more[1]))
        return s
    return samples


def _pointwise_loss_backward_samples(more=()):
    def samples(m):
        s = []
        for reduction in (0, 1, 2):
            g = m.make((2, 3)) if reduction == 0 else m.make(())
            s += [SampleInput((g, m.make((2, 3)), m.make((2, 3)), reduction, *more),
                              desc=f"2x3, reduction {reduction}", grad=True),
                  SampleInput((g, m.make((2, 3), "t"), m.make((3,)), reduction, *more),
                              desc=f"transposed, broadcast target, reduction {reduction}")]
        s.append(SampleInput((m.make(()), m.make(()), m.make(()), 1, *more), desc="0-dim"))
        s.append(SampleInput((m.make(()), m.make((0, 3)), m.make((0, 3)), 2, *more), desc="empty"))
        e = extreme_values(m.dtype)
        s.append(SampleInput((m.make((len(e), len(e))), from_values(e, (len(e), 1), m.dtype),
                              from_values(e, (1, len(e)), m.dtype), 0, *more), desc="extremes x extremes"))
        return s
    return samples


def _probabilities(m, shape, layout="contig"):
    # uniform in [0.05, 0.95]: inside binary_cross_entropy's domain, away from its poles;
    # "t" transposed, "step" every other column
    if layout == "t":
        return _probabilities(m, tuple(reversed(shape))).t()
    if layout == "step":
        return _probabilities(m, (shape[0], 2 * shape[1]))[:, ::2]
    return ((m.make(shape).double() / 3 + 1) * 0.45 + 0.05).to(m.dtype)


def _bce_samples(m):
    s = []
    for reduction in (0, 1, 2):
        s += [SampleInput((_probabilities(m, (2, 3)), _probabilities(m, (2, 3)), None, reduction),
                          desc=f"2x3, reduction {reduction}", grad=True),
              SampleInput((_probabilities(m, (2, 3)), _probabilities(m, (2, 3))), {"weight": m.make((3,)),
                          "reduction": reduction}, desc=f"weight row, reduction {reduction}", grad=reduction == 1),
              SampleInput((_probabilities(m, ()), _probabilities(m, ()), None, reduction), desc=f"0-dim, reduction {reduction}"),
              SampleInput((_probabilities(m, (3, 4), "t"), _probabilities(m, (3, 4), "step"), None, reduction),
                          desc=f"transposed, step-sliced, reduction {reduction}")]
    s.append(SampleInput((_probabilities(m, (300, 70)), _probabilities(m, (300, 70)), None, 1), desc="21000 elements, mean"))
    edges = from_values([0.0, 1.0, 0.0, 1.0, 1e-30 if m.dtype is opcore.float64 else 1e-20, 0.5], (6,), m.dtype)
    s.append(SampleInput((edges, from_values([0.0, 1.0, 1.0, 0.0, 1.0, 0.25], (6,), m.dtype), None, 0),
                         desc="extremes: logs of 0 clamped at -100, none"))
    s.append(SampleInput((m.make((0, 3)), m.make((0, 3)), None, 2), desc="empty, sum"))
    s.append(SampleInput((m.make((0, 3)), m.make((0, 3)), None, 1), desc="empty, mean (NaN)"))
    s.append(SampleInput((from_values([0.5, 1.5], (2,), m.dtype), from_values([0.5, 0.5], (2,), m.dtype), None, 1),
                         desc="input above 1", error="all elements of input should be between 0 and 1"))
    s.append(SampleInput((from_values([0.5, float("nan")], (2,), m.dtype), from_values([0.5, 0.5], (2,), m.dtype), None,
                          0), desc="NaN input", error="all elements of input should be between 0 and 1"))
    return s


def _positive(m, shape):
    return (m.make(shape).double().abs() + 0.25).to(m.dtype)


def _bce_backward_samples(m):
    s = []
    for reduction in (0, 1, 2):
        g = m.make((2, 3)) if reduction == 0 else m.make(())
        s += [SampleInput((g, _probabilities(m, (2, 3)), _probabilities(m, (2, 3)), None, reduction),
                          desc=f"2x3, reduction {reduction}", grad=True),
              SampleInput((g, _probabilities(m, (2, 3), "t"), _probabilities(m, (2, 3))), {"weight": m.make((3,)),
                          "reduction": reduction}, desc=f"transposed, weight row, reduction {reduction}")]
    s.append(SampleInput((m.make(()), _probabilities(m, ()), _probabilities(m, ()), None, 1), desc="0-dim"))
    s.append(SampleInput((m.make(()), m.make((0, 3)), m.make((0, 3)), None, 2), desc="empty"))
    s.append(SampleInput((m.make((6,)), from_values([0.0, 1.0, 0.0, 1.0, 0.5, 0.5], (6,), m.dtype),
                          from_values([1.0, 0.0, 0.0, 1.0, 0.0, 1.0], (6,), m.dtype), None, 0),
                         desc="extremes: 0 and 1 (the 1e-12 floor)"))
    return s


def _bce_logits_samples(m):
    s = []
    for reduction in (0, 1, 2):
        s += [SampleInput((m.make((2, 3)), _probabilities(m, (2, 3)), None, None, reduction),
                          desc=f"2x3, reduction {reduction}", grad=True),
              SampleInput((m.make((2, 3)), _probabilities(m, (2, 3))), {"weight": m.make((3,)),
                          "pos_weight": _positive(m, (3,)), "reduction": reduction},
                          desc=f"weight and pos_weight rows, reduction {reduction}", grad=reduction == 1),
              SampleInput((m.make((2, 3)), _probabilities(m, (2, 3))), {"pos_weight": _positive(m, (3,)),
                          "reduction": reduction}, desc=f"pos_weight row, reduction {reduction}"),
              SampleInput((m.make(()), _probabilities(m, ()), None, None, reduction), desc=f"0-dim, reduction {reduction}"),
              SampleInput((m.make((3, 4), "t"), _probabilities(m, (3, 4), "step"), None, None, reduction),
                          desc=f"transposed, step-sliced, reduction {reduction}")]
    s.append(SampleInput((m.make((300, 70)), _probabilities(m, (300, 70)), None, None, 1), desc="21000 elements, mean"))
    e = extreme_values(m.dtype)
    s.append(SampleInput((from_values(e, (len(e),), m.dtype), from_values([0.0, 1.0] * (len(e) // 2) + [0.5] * (len(e) % 2),
                                                                          (len(e),), m.dtype), None, None, 0),
                         desc="extremes, none"))
    s.append(SampleInput((m.make((0, 3)), m.make((0, 3)), None, None, 2), desc="empty, sum"))
    s.append(SampleInput((m.make((2, 3)), m.make((2, 3))), {"weight": m.make((4,))}, desc="weight of 4 for 3 columns",
                         error="does not broadcast|must match the size"))
    return s


def _kl_div_samples(m):
    s = []
    for reduction in (0, 1, 2):
        s += [SampleInput((m.make((2, 3)), _probabilities(m, (2, 3)), reduction), desc=f"2x3, reduction {reduction}",
                          grad=True),
              SampleInput((m.make((2, 3)), m.make((2, 3)), reduction), {"log_target": True},
                          desc=f"log target, reduction {reduction}", grad=True),
              SampleInput((m.make(()), _probabilities(m, ()), reduction), desc=f"0-dim, reduction {reduction}"),
              SampleInput((m.make((3, 4), "t"), _probabilities(m, (3, 4), "step"), reduction),
                          desc=f"transposed, step-sliced, reduction {reduction}")]
    e = extreme_values(m.dtype)
    s.append(SampleInput((from_values(e, (len(e), 1), m.dtype), from_values([0.0, 0.5, 1.0], (1, 3), m.dtype), 0),
                         desc="extremes, target 0 gives 0, none"))
    s.append(SampleInput((m.make((0, 3)), m.make((0, 3)), 2), desc="empty, sum"))
    return s


def _one_hot_samples(m):
    idx = lambda values: opcore.tensor(values, dtype=opcore.int64)  # noqa: E731
    # the first sample in the row's dtype: one_hot takes int64 only (others are refused)
    return [SampleInput((idx([0, 2, 1]).to(m.dtype),), desc="3 indices, classes inferred"),
            SampleInput((idx([[0, 2], [1, 1]]), 4), desc="2x2, 4 classes"),
            SampleInput((idx(3), 5), desc="0-dim"),
            SampleInput((idx([[0, 1, 2], [2, 0, 1]]).t(),), desc="transposed"),
            SampleInput((opcore.zeros(0, dtype=opcore.int64), 3), desc="empty, 3 classes"),
            SampleInput((idx([0, 9223372036854775807 % 7, 6]), 7), desc="extremes: the last class"),
            SampleInput((opcore.zeros(0, dtype=opcore.int64),), desc="empty, classes inferred",
                        error="Can not infer total number of classes from empty tensor."),
            SampleInput((idx([0, 3]), 3), desc="index 3 of 3 classes",
                        error="Class values must be smaller than num_classes."),
            SampleInput((idx([0, -1]),), desc="negative index", error="Class values must be non-negative."),
            SampleInput((opcore.zeros(2),), desc="float indices",
                        error=r"one_hot is only applicable to index tensor. Got Float.")]


def _pad_samples(m):
    s = [SampleInput((m.make((2, 3)), [1, 2]), desc="2x3, last dimension", grad=True),
         SampleInput((m.make((2, 3, 4)), [1, 0, 2, 1]), {"value": 1.5}, desc="last two dimensions, value 1.5", grad=True),
         SampleInput((m.make((2, 3, 4)), [-1, 2]), desc="negative pad", grad=True),
         SampleInput((m.make((1, 2, 3)), [1, 2], "circular"), desc="circular 1-d", grad=True),
         SampleInput((m.make((1, 2, 3, 4)), [2, 1, 1, 3], "circular"), desc="circular 2-d"),
         SampleInput((m.make((1, 2, 3, 4)), [-1, 1, 0, 2], "circular"), desc="circular, a negative pad"),
         SampleInput((m.make((2, 3, 4), "t"), [1, 1, 1, 1]), desc="transposed"),
         SampleInput((m.make((0, 3)), [1, 1]), desc="empty"),
         SampleInput((m.make(()), []), desc="0-dim, no padding")]
    e = extreme_values(m.dtype)
    s.append(SampleInput((from_values(e, (1, 1, len(e)), m.dtype), [min(2, len(e)), min(3, len(e))], "circular"),
                         desc="extremes, circular"))
    s.append(SampleInput((m.make((2, 3)), [1]), desc="odd pad length", error="Padding length must be divisible by 2"))
    s.append(SampleInput((m.make((2, 3)), [1, 1], "wrap"), desc="unknown mode", error="Unrecognised padding mode wrap",
                         error_type=NotImplementedError))
    s.append(SampleInput((m.make((1, 2, 3)), [1, 1], "circular", 2.0), desc="circular with a value",
                         error="Padding mode \"circular\" doesn't take in value argument"))
    s.append(SampleInput((m.make((1, 2, 3)), [4, 1], "circular"), desc="circular, wrapping twice",
                         error="Padding value causes wrapping around more than once."))
    s.append(SampleInput((m.make((2, 3)), [1, 1], "circular"), desc="circular, unbatched",
                         error=r"Invalid padding size, expected 0 but got 2"))
    if m.dtype in FLOATING + COMPLEX:
        # reflect and replicate: reflection_pad1d/2d/3d and replication_pad1d/2d/3d (issue #34)
        for mode in ("reflect", "replicate"):
            s.append(SampleInput((m.make((2, 3, 4)), [2, 1], mode), desc=f"{mode} 1-d", grad=True))
            s.append(SampleInput((m.make((3, 4)), [1, -1], mode), desc=f"{mode} 1-d, unbatched", grad=True))
            s.append(SampleInput((m.make((1, 2, 3, 4)), [2, 1, 1, 2], mode), desc=f"{mode} 2-d", grad=True))
            s.append(SampleInput((m.make((2, 3, 4), "t"), [1, 1, 2, 0], mode), desc=f"{mode} 2-d, unbatched, transposed"))
            s.append(SampleInput((m.make((1, 2, 3, 4, 2)), [1, 1, 1, 1, 1, 0], mode), desc=f"{mode} 3-d", grad=True))
            s.append(SampleInput((m.make((2, 3, 4, 2)), [1, 0, 1, 1, 1, 1], mode), desc=f"{mode} 3-d, unbatched"))
        s.append(SampleInput((m.make((2, 3, 4)), [4, 0], "reflect"), desc="reflect, pad as wide as the input",
                             error="Padding size should be less than the corresponding input dimension"))
        s.append(SampleInput((m.make((4,)), [1, 1], "reflect"), desc="reflect 1-d input",
                             error="Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now",
                             error_type=NotImplementedError))
    return s


def _aten(name):
    return lambda *a, **k: getattr(torch.ops.aten, name)(*a, **k)


def _aten_backward(name):
    # torch's out= keyword of the backward operators is grad_input
    def ref(*a, grad_input=None, **k):
        return getattr(torch.ops.aten, name)(*a, **k)
    return ref


def _grad_input_out(f):
    # the backward operators' out= is `grad_input=` (PyTorch's name); the table passes out=
    def op(*args, out=None, **kwargs):
        return f(*args, **kwargs) if out is None else f(*args, grad_input=out, **kwargs)
    return op


_ACCUMULATE = {opcore.float16: opcore.float32, opcore.bfloat16: opcore.float32, opcore.float32: opcore.float32,
               opcore.complex64: opcore.complex64}


def _torch_baddbmm(s, a, b, beta=1, alpha=1, out=None):
    # torch 1.13's baddbmm with beta=0 sometimes gives NaN where the product is finite (it reads
    # memory it did not write: it varies from run to run); PyTorch documents that self is not
    # read then, so the reference is alpha * bmm.
    if beta == 0:
        return torch.bmm(a, b) * alpha
    return torch.baddbmm(s, a, b, beta=beta, alpha=alpha)


def _addmm_samples(m):
    e = extreme_values(m.dtype)
    return [SampleInput((m.make((2, 4)), m.make((2, 3)), m.make((3, 4))), desc="[2, 4] + 2x3 @ 3x4", grad=True),
            SampleInput((m.make((4,)), m.make((2, 3)), m.make((3, 4))), {"beta": 0.5, "alpha": 2},
                        desc="bias row, beta 0.5, alpha 2", grad=True),
            SampleInput((m.make((2, 1)), m.make((2, 3), "t"), m.make((3, 4), "step")),
                        desc="column + transposed @ step-sliced"),
            SampleInput((m.make(()), m.make((3, 5), "expand"), m.make((5, 2))), desc="0-dim self + expanded @ 5x2"),
            SampleInput((m.make((2, 3)), m.make((2, 0)), m.make((0, 3))), {"beta": 2}, desc="k = 0: beta * self"),
            SampleInput((m.make((0, 2)), m.make((0, 3)), m.make((3, 2))), desc="0x3 @ 3x2"),
            SampleInput((from_values(e, (len(e), 1), m.dtype), m.make((len(e), 3)), m.make((3, 2))), {"beta": 0},
                        desc="beta 0: extreme self not read"),
            SampleInput((m.make((len(e), len(e))), from_values(e, (len(e), 1), m.dtype),
                         from_values(e[::-1].copy(), (1, len(e)), m.dtype)), desc="extremes outer product"),
            SampleInput((m.make((3,)), m.make((2, 3)), m.make((3, 4))), desc="self [3] for [2, 4]",
                        error=r"The expanded size of the tensor \(4\) must match the existing size \(3\)"),
            SampleInput((m.make((4,)), m.make((3,)), m.make((3, 4))), desc="1-D mat1", error="mat1 must be a matrix"),
            SampleInput((m.make((4,)), m.make((2, 3)), m.make((2, 4))), desc="2x3 @ 2x4",
                        error=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x4\)")]


def _addmv_samples(m):
    e = extreme_values(m.dtype)
    return [SampleInput((m.make((2,)), m.make((2, 3)), m.make((3,))), desc="[2] + 2x3 @ [3]", grad=True),
            SampleInput((m.make(()), m.make((4, 3)), m.make((3,))), {"beta": 0.5, "alpha": 2},
                        desc="0-dim self, beta 0.5, alpha 2", grad=True),
            SampleInput((m.make((1,)), m.make((3, 2), "t"), m.make((2,), "step")),
                        desc="[1] + transposed @ step-sliced"),
            SampleInput((m.make((2,)), m.make((2, 0)), m.make((0,))), {"beta": 2}, desc="m = 0: beta * self"),
            SampleInput((m.make((0,)), m.make((0, 3)), m.make((3,))), desc="0x3 @ [3]"),
            SampleInput((from_values(e, (len(e),), m.dtype), m.make((len(e), 3)), m.make((3,))), {"beta": 0},
                        desc="beta 0: extreme self not read"),
            SampleInput((m.make((len(e),)), from_values(e, (len(e), 1), m.dtype), from_values(e[:1].copy(), (1,), m.dtype)),
                        desc="extremes column @ [1]"),
            SampleInput((m.make((3,)), m.make((2, 3)), m.make((3,))), desc="self [3] for [2]",
                        error=r"size mismatch, got input \(3\), mat \(2x3\), vec \(3\)"),
            SampleInput((m.make((2,)), m.make((2, 3)), m.make((3, 1))), desc="2-D vec",
                        error=r"vector \+ matrix @ vector expected, got 1, 2, 2")]


def _np_addmv(s, a, v, beta=1, alpha=1):
    return _np_addmm(s, a, v, beta, alpha)


def _mv_samples(m):
    e = extreme_values(m.dtype)
    return [SampleInput((m.make((2, 3)), m.make((3,))), desc="2x3 @ [3]", grad=True),
            SampleInput((m.make((3, 2), "t"), m.make((2,), "step")), desc="transposed @ step-sliced", grad=True),
            SampleInput((m.make((2, 0)), m.make((0,))), desc="2x0 @ [0]: zeros"),
            SampleInput((m.make((0, 3)), m.make((3,))), desc="0x3 @ [3]"),
            SampleInput((from_values(e, (len(e), 1), m.dtype), from_values(e[-1:].copy(), (1,), m.dtype)),
                        desc="extremes column @ [1]"),
            SampleInput((m.make((2, 3)), m.make((4,))), desc="2x3 @ [4]", error=r"size mismatch"),
            SampleInput((m.make(()), m.make((3,))), desc="0-dim matrix",
                        error=r"vector \+ matrix @ vector expected")]


def _baddbmm_samples(m):
    e = extreme_values(m.dtype)
    return [SampleInput((m.make((2, 2, 4)), m.make((2, 2, 3)), m.make((2, 3, 4))), desc="[2, 2, 4] + 2 x 2x3 @ 3x4",
                        grad=True),
            SampleInput((m.make((4,)), m.make((2, 2, 3)), m.make((2, 3, 4))), {"beta": 0.5, "alpha": 2},
                        desc="bias row, beta 0.5, alpha 2", grad=True),
            SampleInput((m.make((2, 1, 1)), m.make((2, 3, 2), "t"), m.make((2, 2, 4), "step")),
                        desc="broadcast self + transposed @ step-sliced"),
            SampleInput((m.make(()), m.make((1, 3, 5), "expand"), m.make((1, 5, 2))), desc="0-dim self + expanded"),
            SampleInput((m.make((2, 2, 3)), m.make((2, 2, 0)), m.make((2, 0, 3))), {"beta": 2},
                        desc="k = 0: beta * self"),
            SampleInput((m.make((0, 2, 2)), m.make((0, 2, 3)), m.make((0, 3, 2))), desc="empty batch"),
            SampleInput((from_values(e, (1, len(e), 1), m.dtype), m.make((1, len(e), 3)), m.make((1, 3, 2))),
                        {"beta": 0}, desc="beta 0: extreme self not read"),
            SampleInput((m.make((1, len(e), len(e))), from_values(e, (1, len(e), 1), m.dtype),
                         from_values(e[::-1].copy(), (1, 1, len(e)), m.dtype)), desc="extremes outer products"),
            SampleInput((m.make((3, 2, 4)), m.make((2, 2, 3)), m.make((2, 3, 4))), desc="self [3, 2, 4] for [2, 2, 4]",
                        error=r"The expanded size of the tensor \(2\) must match the existing size \(3\)"),
            SampleInput((m.make((2, 4)), m.make((2, 3)), m.make((2, 3, 4))), desc="2-D batch1",
                        error="batch1 must be a 3D tensor"),
            SampleInput((m.make((2, 2, 4)), m.make((2, 2, 3)), m.make((3, 3, 4))), desc="batch sizes differ",
                        error=r"Expected size for first two dimensions of batch2 tensor to be: \[2, 3\] but got: "
                              r"\[3, 3\]")]


def _np_addmm(s, a, b, beta=1, alpha=1):
    with np.errstate(all="ignore"):
        product = alpha * np.matmul(a, b)
        return np.asarray(product if beta == 0 else beta * s + product)


def _linear_samples(m):
    e = extreme_values(m.dtype)
    return [SampleInput((m.make((2, 3)), m.make((4, 3)), m.make((4,))), desc="2x3, weight 4x3, bias", grad=True),
            SampleInput((m.make((2, 3)), m.make((4, 3))), desc="no bias", grad=True),
            SampleInput((m.make((2, 5, 3)), m.make((4, 3)), m.make((4,))), desc="3-D input, bias", grad=True),
            SampleInput((m.make((3,)), m.make((4, 3)), m.make((4,))), desc="1-D input"),
            SampleInput((m.make((2, 3), "t"), m.make((4, 3), "t"), m.make((4,), "step")),
                        desc="transposed input and weight, step-sliced bias"),
            SampleInput((m.make((0, 3)), m.make((4, 3)), m.make((4,))), desc="empty batch"),
            SampleInput((from_values(e, (2, len(e) // 2), m.dtype), from_values(e, (3, len(e) // 2), m.dtype),
                         m.make((3,))), desc="extremes"),
            SampleInput((m.make(()), m.make((4, 3))), desc="0-dim input",
                        error="both arguments to matmul need to be at least 1D"),
            SampleInput((m.make((2, 3)), m.make((4, 5))), desc="in-features mismatch",
                        error=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 5x4\)")]


def _np_linear(x, w, b=None):
    with np.errstate(all="ignore"):
        y = np.matmul(x, w.T)
        return np.asarray(y if b is None else y + b)


def _nll_samples(m):
    x, t = m.make((3, 4)), _long([1, 0, 3])
    extremes = extreme_values(m.dtype)
    rows = len(extremes) // 2
    s = [SampleInput((x, t), desc="3x4, mean", grad=True),
         SampleInput((x, t), {"reduction": "sum"}, desc="3x4, sum", grad=True),
         SampleInput((x, t), {"reduction": "none"}, desc="3x4, none", grad=True),
         SampleInput((x, _long([1, 2, 3])), {"weight": m.make((4,)), "ignore_index": 2}, desc="weight, ignore_index 2",
                     grad=True),
         SampleInput((x, _long([-100, -100, -100])), desc="every target ignored: mean is NaN"),
         SampleInput((m.make((4,)), _long(3)), desc="1-D input, 0-dim target", grad=True),
         SampleInput((m.make((2, 4, 3)), _long([[0, 3, 1], [2, 2, 0]])), {"reduction": "none"},
                     desc="[2, 4, 3], none", grad=True),
         SampleInput((m.make((2, 3, 2, 2)), _long([[[0, 1], [2, 0]], [[1, 1], [2, 2]]])), desc="4-D, mean"),
         SampleInput((m.make((0, 4)), opcore.zeros(0, dtype=opcore.int64)), {"reduction": "sum"}, desc="empty, sum"),
         SampleInput((m.make((3, 4), "t"), _long([0, 3, 1])), {"weight": m.make((4,), "step")},
                     desc="transposed, step-sliced weight"),
         SampleInput((from_values(extremes[:2 * rows], (rows, 2), m.dtype), _long([i % 2 for i in range(rows)])),
                     {"reduction": "none"}, desc="extremes, none"),
         SampleInput((m.make(()), _long(0)), desc="0-dim input", error=r"Expected 1 or more dimensions \(got 0\)",
                     error_type=ValueError),
         SampleInput((x, _long([1, 0])), desc="batch mismatch",
                     error=r"Expected input batch_size \(3\) to match target batch_size \(2\)", error_type=ValueError),
         SampleInput((x, _long([1, 4, 0])), desc="target out of range", error="Target 4 is out of bounds.",
                     error_type=IndexError),
         SampleInput((x, t), {"weight": m.make((3,))}, desc="3 weights for 4 classes",
                     error="weight tensor should be defined either for all 4 classes or no classes"),
         SampleInput((m.make((2, 4, 3)), _long([[0, 1], [2, 3]])), desc="[2, 4, 3] with target [2, 2]",
                     error=r"Expected target size \[2, 3\], got \[2, 2\]")]
    return s


def _cross_entropy_samples(m):
    x, t = m.make((3, 4)), _long([1, 0, 3])
    extremes = extreme_values(m.dtype)
    rows = len(extremes) // 2
    return [SampleInput((x, t), desc="3x4 logits, class indices, mean", grad=True),
            SampleInput((x, t), {"reduction": "sum"}, desc="sum", grad=True),
            SampleInput((x, t), {"reduction": "none"}, desc="none", grad=True),
            SampleInput((x, _long([1, 2, 3])), {"weight": m.make((4,)), "ignore_index": 2}, desc="weight, ignore_index 2",
                        grad=True),
            SampleInput((x, _long([1, 2, 3])), {"weight": m.make((4,)), "ignore_index": 2, "label_smoothing": 0.1},
                        desc="weight, ignore_index, label_smoothing 0.1", grad=True),
            SampleInput((x, t), {"label_smoothing": 0.25, "reduction": "none"}, desc="label_smoothing 0.25, none",
                        grad=True),
            SampleInput((x, m.make((3, 4))), desc="class probabilities, mean", grad=True),
            SampleInput((x, m.make((3, 4))), {"weight": m.make((4,)), "label_smoothing": 0.2, "reduction": "none"},
                        desc="class probabilities, weight, label_smoothing 0.2, none", grad=True),
            SampleInput((m.make((4,)), _long(3)), desc="1-D logits, 0-dim target", grad=True),
            SampleInput((m.make((2, 4, 3)), _long([[0, 3, 1], [2, 2, 0]])), {"reduction": "sum"},
                        desc="[2, 4, 3] logits, sum", grad=True),
            SampleInput((m.make((0, 4)), opcore.zeros(0, dtype=opcore.int64)), {"reduction": "sum"}, desc="empty, sum"),
            SampleInput((m.make((3, 4), "t"), _long([0, 3, 1])), desc="transposed logits"),
            SampleInput((from_values(extremes[:2 * rows], (rows, 2), m.dtype), _long([i % 2 for i in range(rows)])),
                        {"reduction": "none"}, desc="extremes, none"),
            SampleInput((m.make(()), _long(0)), desc="0-dim logits and target",
                        error="Expected floating point type for target with class probabilities, got Long"),
            SampleInput((x, t), {"label_smoothing": 1.5}, desc="label_smoothing 1.5",
                        error=r"label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
            SampleInput((x, m.make((3, 4))), {"ignore_index": 1}, desc="probabilities with ignore_index",
                        error="ignore_index is not supported for floating point target")]


def _torch_matmul(x, y):
    # torch 1.13's complex dot (through the system BLAS's zdotu) returns 0 here: a sum of products
    if x.dim() == 1 and y.dim() == 1:
        return (x * y).sum()
    return torch.matmul(x, y)


# Core ATen part 1 (issue #33): reductions, scans and sorting -- samples and numpy references.


def _dims_of(dim, ndim):
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return None
    dims = dim if isinstance(dim, (list, tuple)) else [dim]
    return tuple(sorted(d % max(ndim, 1) for d in dims)) if ndim else None


def _extreme_samples(fn):
    def make(m):
        s = []
        for x in unary_samples(m):
            t = x.args[0]
            if t.numel() > 0:
                s.append(SampleInput((t,), {}, f"{x.desc}, all", x.grad))
            if t.dim() >= 1:
                s.append(SampleInput((t, [t.dim() - 1]), {}, f"{x.desc}, dim [-1]"))
                if t.numel() > 0:
                    s.append(SampleInput((t, [0]), {"keepdim": True}, f"{x.desc}, dim [0] keepdim", x.grad))
            if t.dim() >= 2 and t.numel() > 0:
                s.append(SampleInput((t, [0, -1]), {}, f"{x.desc}, dims [0, -1]"))
        s.append(SampleInput((m.make((0, 3)),), desc="empty, all", error=r"Expected reduction dim to be specified",
                             error_type=IndexError))
        s.append(SampleInput((m.make((0, 3)), [0]), desc="empty, dim 0", error=r"Expected reduction dim 0 to have non",
                             error_type=IndexError))
        return s
    return make


def _np_extreme(f):
    def ref(x, dim=(), keepdim=False):
        axis = None if len(dim) == 0 or x.ndim == 0 else tuple(dim)
        return np.asarray(f(x, axis=axis, keepdims=keepdim))  # numpy's max and min propagate NaN
    return ref


def _arg_samples(fn):
    def make(m):
        s = []
        for x in unary_samples(m):
            t = x.args[0]
            if t.numel() > 0:
                s.append(SampleInput((t,), {}, f"{x.desc}, flattened"))
                s.append(SampleInput((t, -1), {}, f"{x.desc}, dim -1"))
                s.append(SampleInput((t, 0, True), {}, f"{x.desc}, dim 0 keepdim"))
                s.append(SampleInput((t, None, True), {}, f"{x.desc}, flattened keepdim"))
        s.append(SampleInput((m.make((0, 3)), 1), desc="empty 0x3, dim 1"))
        s.append(SampleInput((m.make((0, 3)),), desc="empty, flattened", error=r"Expected reduction dim",
                             error_type=IndexError))
        s.append(SampleInput((m.make((0, 3)), 0), desc="empty, dim 0", error=r"Expected reduction dim 0",
                             error_type=IndexError))
        s.append(SampleInput((m.make((2, 3)), 2), desc="dim out of range", error=r"(?i)dimension out of range",
                             error_type=IndexError))
        return s
    return make


def _np_arg(arg, extreme):
    def ref(x, dim=None, keepdim=False):
        # the first NaN where there is one (numpy's argmax finds it too)
        if dim is None:
            r = np.asarray(arg(x.reshape(-1)))
            return r.reshape((1,) * x.ndim) if keepdim else r
        if x.ndim == 0:
            return np.asarray(0)
        return np.asarray(arg(x, axis=dim) if not keepdim else np.expand_dims(arg(x, axis=dim), dim))
    return ref


def _all_samples(fn):
    def make(m):
        s = [SampleInput((x.args[0],), {}, x.desc, x.grad) for x in unary_samples(m) if x.args[0].numel() > 0]
        s.append(SampleInput((m.make((0, 3)),), desc="empty", error=rf"{fn}\(\): Expected reduction dim to be specified"))
        return s
    return make


def _np_min(x, dim, keepdim=False):
    return np.min(x, axis=dim, keepdims=keepdim), None


def _any_all_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        s.append(SampleInput((t,), {}, f"{x.desc}, all"))
        if t.dim() >= 1:
            s.append(SampleInput((t, -1), {}, f"{x.desc}, dim -1"))
            s.append(SampleInput((t, 0, True), {}, f"{x.desc}, dim 0 keepdim"))
            s.append(SampleInput((t, [0]), {"keepdim": True}, f"{x.desc}, dims [0] keepdim"))
        if t.dim() >= 2:
            s.append(SampleInput((t, [0, 1]), {}, f"{x.desc}, dims [0, 1]"))
    s.append(SampleInput((m.make((2, 3)), None), {"keepdim": True}, "2x3, dims None keepdim"))
    s.append(SampleInput((m.make((2, 3)), []), {}, "2x3, dims []"))
    s.append(SampleInput((m.make((2, 3)) * 0,), {}, "zeros"))
    return s


def _any_all_dtype(dtype):
    return opcore.uint8 if dtype is opcore.uint8 else opcore.bool


def _np_any_all(f):
    def ref(x, dim=None, keepdim=False):
        axis = None if dim is None or (isinstance(dim, list) and not dim) or x.ndim == 0 else (
            tuple(dim) if isinstance(dim, list) else dim)
        r = np.asarray(f(x != 0, axis=axis, keepdims=keepdim))
        return r.astype(np.uint8) if x.dtype == np.uint8 else r
    return ref


def _via_numpy(np_ref):
    """A torch reference computed by a numpy one (torch 1.13 lacks the overload: any.dims)."""
    def ref(x, *args, **kwargs):
        return torch.from_numpy(np.array(np_ref(x.numpy(), *args, **kwargs)))
    return ref


def _prod_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        s.append(SampleInput((t,), {}, f"{x.desc}, all", x.grad))
        if t.dim() >= 1:
            s.append(SampleInput((t, -1), {}, f"{x.desc}, dim -1", x.grad))
            s.append(SampleInput((t, 0, True), {}, f"{x.desc}, dim 0 keepdim"))
    x = m.make((2, 3))
    for target in (_sum_dtypes(m.dtype)):
        s.append(SampleInput((x, 1), {"dtype": target}, f"2x3, dim 1, dtype {target}", dtype=target))
        s.append(SampleInput((x,), {"dtype": target}, f"2x3, all, dtype {target}", dtype=target))
    return s


def _np_prod(x, dim=None, keepdim=False, dtype=None):
    dtype = np_dtype(dtype)
    if dtype is None and x.dtype.kind in "biu":
        dtype = np.int64
    with np.errstate(all="ignore"):
        return np.asarray(np.prod(x, axis=dim if x.ndim else None, keepdims=keepdim, dtype=dtype))


def _var_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        grad = x.grad and t.numel() > 1  # one element: N - 1 = 0, NaN
        s.append(SampleInput((t,), {}, f"{x.desc}, all", grad))
        s.append(SampleInput((t, False), {}, f"{x.desc}, all, biased", out=False))
        if t.dim() >= 1:
            s.append(SampleInput((t, [-1]), {}, f"{x.desc}, dim [-1]", grad))
            s.append(SampleInput((t, [0]), {"unbiased": False, "keepdim": True}, f"{x.desc}, dim [0] biased keepdim"))
            s.append(SampleInput((t, [0]), {"correction": 0}, f"{x.desc}, dim [0] correction 0", grad))
        if t.dim() >= 2:
            s.append(SampleInput((t, [0, 1]), {"correction": 2, "keepdim": True}, f"{x.desc}, dims [0, 1] correction 2"))
    s.append(SampleInput((m.make((2, 3)),), {"dim": None, "correction": 0}, "2x3, dim None correction 0"))
    s.append(SampleInput((m.make((1, 3)), [0]), {}, "1x3, dim [0] (N - 1 = 0)"))
    return s


def _np_moments(x, dim=None, unbiased=True, keepdim=False, correction=None):
    if isinstance(dim, bool):   # var(x, False): the unbiased form
        dim, unbiased = None, dim
    ddof = correction if correction is not None else (1 if unbiased else 0)
    axis = None if dim is None or x.ndim == 0 else tuple(dim)
    n = x.size if axis is None else math.prod(x.shape[a] for a in axis)
    with np.errstate(all="ignore"):
        mean = np.mean(x, axis=axis, keepdims=True)
        d = np.abs(x - mean) ** 2
        var = np.sum(d, axis=axis, keepdims=keepdim) / max(0, n - ddof)
        return var, np.mean(x, axis=axis, keepdims=keepdim)


def _np_var(*args, **kwargs):
    return np.asarray(_np_moments(*args, **kwargs)[0])


def _np_std(*args, **kwargs):
    return np.sqrt(_np_var(*args, **kwargs))


def _np_var_mean_mean(*args, **kwargs):
    return np.asarray(_np_moments(*args, **kwargs)[1])


def _part(f, i):
    return lambda *args, **kwargs: f(*args, **kwargs)[i]


def _logsumexp_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        if t.dim() >= 1:
            s.append(SampleInput((t, [-1]), {}, f"{x.desc}, dim [-1]", x.grad))
            s.append(SampleInput((t, [0]), {"keepdim": True}, f"{x.desc}, dim [0] keepdim", x.grad))
        else:
            s.append(SampleInput((t, [0]), {}, f"{x.desc}, dim [0]", x.grad))
        if t.dim() >= 2:
            s.append(SampleInput((t, [0, 1]), {}, f"{x.desc}, dims [0, 1]"))
    return s


def _np_logsumexp(x, dim, keepdim=False):
    axis = None if x.ndim == 0 else tuple(dim)
    with np.errstate(all="ignore"):
        x = x.astype(np.float64)
        big = np.max(x, axis=axis, keepdims=True) if x.size else np.zeros([1] * x.ndim)
        big = np.where(np.isinf(big), 0, big)
        r = np.log(np.sum(np.exp(x - big), axis=axis, keepdims=True)) + big
        return r if keepdim else (np.squeeze(r, axis=axis) if axis is not None else r)


def _last_and_first_dim_samples(m):
    """Every kind of input of unary_samples along its last dimension, and along dimension 0
    where it has two or more: the samples of an operator along one dimension (a scan, softmax)."""
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        s.append(SampleInput((t, -1), {}, f"{x.desc}, dim -1", x.grad))
        if t.dim() >= 2:
            s.append(SampleInput((t, 0), {}, f"{x.desc}, dim 0", x.grad))
    return s


def _scan_samples(m):
    s = _last_and_first_dim_samples(m)
    x = m.make((2, 3))
    for target in (_sum_dtypes(m.dtype)):
        s.append(SampleInput((x, 1), {"dtype": target}, f"2x3, dim 1, dtype {target}", dtype=target))
    s.append(SampleInput((x, 2), {}, "dim out of range", error=r"(?i)dimension out of range", error_type=IndexError))
    return s


def _np_scan(f):
    def ref(x, dim, dtype=None):
        dtype = np_dtype(dtype)
        if dtype is None and x.dtype.kind in "biu":
            dtype = np.int64
        with np.errstate(all="ignore"):
            return np.asarray(f(x.reshape(1) if x.ndim == 0 else x, axis=dim if x.ndim else 0, dtype=dtype)).reshape(x.shape)
    return ref


def _min_samples(m):
    return _max_samples(m) + [SampleInput((m.make(()), 0), {}, "0-dim, dim 0", True)]


def _sort_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        s.append(SampleInput((t, -1), {}, f"{x.desc}, dim -1"))
        s.append(SampleInput((t, 0, True), {}, f"{x.desc}, dim 0 descending"))
    e = extreme_values(m.dtype)
    s.append(SampleInput((from_values(np.resize(e, 300), (300,), m.dtype), 0), {}, "300 extremes (radix)"))
    s.append(SampleInput((from_values(np.resize(e, 300), (300,), m.dtype), 0, True), {}, "300 extremes descending"))
    s.append(SampleInput((m.make((2, 3)), 2), desc="dim out of range", error=r"(?i)dimension out of range",
                         error_type=IndexError))
    return s


def _sort_stable(f):
    return lambda x, dim=-1, descending=False, **kwargs: f(x, stable=True, dim=dim, descending=descending, **kwargs)


def _np_sort_order(x, dim, descending):
    """numpy's stable order, NaN last ascending and first descending (-0.0 equal to 0.0)."""
    if x.ndim == 0:
        return np.zeros((), dtype=np.int64)
    key = np.where(x == 0, 0, x) if x.dtype.kind == "f" else x
    _, rank = np.unique(key.reshape(-1), return_inverse=True)  # NaN ranks last
    rank = rank.reshape(x.shape).astype(np.int64)
    return np.argsort(-rank if descending else rank, axis=dim, kind="stable")


def _np_sort(x, dim=-1, descending=False):
    order = _np_sort_order(x, dim, descending)
    return (x if x.ndim == 0 else np.take_along_axis(x, order, dim)), order


def _np_argsort(x, dim=-1, descending=False, stable=False):
    return _np_sort_order(x, dim, descending)


def _torch_argsort(x, dim=-1, descending=False, stable=False):
    return torch.sort(x, dim=dim, descending=descending, stable=True)[1]


def _dim_first(f):
    """f(x, k, dim, ...) as f(x, dim, k, ...): the table's index check reads dim from args[1]."""
    return lambda x, dim, k, *args, **kwargs: f(x, k, dim, *args, **kwargs)


def _topk_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        n = t.shape[-1] if t.dim() else 1
        s.append(SampleInput((t, -1, min(2, n)), {}, f"{x.desc}, dim -1, k 2"))
        s.append(SampleInput((t, 0, min(1, t.shape[0] if t.dim() else 1), False), {}, f"{x.desc}, dim 0, smallest"))
    s.append(SampleInput((m.make((2, 3)), 1, 0), desc="k 0"))
    s.append(SampleInput((m.make((2, 3)), 1, 3, False), desc="k 3 of 3, smallest"))
    s.append(SampleInput((m.make((2, 3)), 1, 4), desc="k out of range", error=r"selected index k out of range"))
    return s


def _np_topk(x, dim, k, largest=True, sorted=True):
    v, order = _np_sort(x, dim, largest)
    if x.ndim == 0:
        return v, order
    return np.take(v, range(k), axis=dim), None


def _kthvalue_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        if t.numel() == 0:
            continue
        n = t.shape[-1] if t.dim() else 1
        s.append(SampleInput((t, -1, (n + 1) // 2), {}, f"{x.desc}, dim -1, k middle", x.grad))
        s.append(SampleInput((t, 0, 1, True), {}, f"{x.desc}, dim 0, k 1 keepdim"))
    s.append(SampleInput((m.make((0, 3)), 1, 1), desc="empty 0x3, dim 1"))
    s.append(SampleInput((m.make((2, 3)), 1, 4), desc="k out of range", error=r"k out of range"))
    s.append(SampleInput((m.make((0, 3)), 0, 1), desc="empty dim", error=r"Expected reduction dim 0",
                         error_type=IndexError))
    return s


def _np_kthvalue(x, dim, k, keepdim=False):
    v, _ = _np_sort(x, dim, False)
    if x.ndim == 0:
        return v, None
    r = np.take(v, [k - 1], axis=dim)
    return (r if keepdim else np.squeeze(r, axis=dim)), None


def _median_all_samples(m):
    s = [SampleInput((x.args[0],), {}, x.desc, x.grad) for x in unary_samples(m)
         if x.args[0].numel() > 0 or m.dtype in FLOATING]
    s.append(SampleInput((m.make((4,)),), {}, "4 (even: the lower median)"))
    return s


def _np_median_all(x):
    if x.size == 0:
        return np.asarray(np.nan)
    flat = np.sort(np.where(x == 0, 0, x).reshape(-1) if x.dtype.kind == "f" else x.reshape(-1), kind="stable")
    if x.dtype.kind == "f" and np.isnan(x).any():
        return np.asarray(np.nan)
    return np.asarray(flat[(flat.size - 1) // 2])


def _median_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        s.append(SampleInput((t, -1), {}, f"{x.desc}, dim -1", x.grad and t.numel() > 0))
        if t.dim() >= 1 and t.numel() > 0:
            s.append(SampleInput((t, 0, True), {}, f"{x.desc}, dim 0 keepdim"))
    s.append(SampleInput((m.make((2, 4)), 1), {}, "2x4, dim 1 (even: the lower median)"))
    s.append(SampleInput((m.make((0, 3)), 0), desc="empty dim", error=r"Expected reduction dim 0",
                         error_type=IndexError))
    return [x for x in s if x.error or x.args[0].numel() > 0 or x.args[0].shape[x.args[1]] > 0]


def _np_median(x, dim, keepdim=False):
    if x.ndim == 0:
        return x, None
    r = np.apply_along_axis(lambda row: _np_median_all(row), dim, x) if x.size else np.take(x, [], axis=dim).sum(
        axis=dim)
    return (np.expand_dims(r, dim) if keepdim else r), None


def _mode_samples(m):
    s = []
    for x in unary_samples(m, extreme=False):
        t = x.args[0]
        s.append(SampleInput((t, -1), {}, f"{x.desc}, dim -1", x.grad and t.numel() > 0))
        if t.dim() >= 1 and t.numel() > 0:
            s.append(SampleInput((t, 0, True), {}, f"{x.desc}, dim 0 keepdim"))
    e = extreme_values(m.dtype)
    if m.dtype in FLOATING:
        e = e[~np.isnan(e)]  # torch 1.13's mode compares NaN with <, which orders nothing
    s.append(SampleInput((from_values(np.concatenate([e, e[:3]]), (2, len(e) + 3), m.dtype), 1), {},
                         "extremes without NaN, repeated"))
    s.append(SampleInput((from_values(np.array([1, 2, 2, 3, 3, 0]), (2, 3), m.dtype), 1), {}, "repeats"))
    s.append(SampleInput((m.make((0, 3)), 0), desc="empty dim", error=r"Expected reduction dim 0",
                         error_type=IndexError))
    return [x for x in s if x.error or x.args[0].numel() > 0 or x.args[0].shape[x.args[1]] > 0]


def _np_mode(x, dim=-1, keepdim=False):
    def row_mode(row):
        values, counts = np.unique(np.where(row == 0, 0, row) if row.dtype.kind == "f" else row, return_counts=True)
        return values[np.argmax(counts)]
    if x.ndim == 0:
        return x, None
    r = np.apply_along_axis(row_mode, dim, x)
    return (np.expand_dims(r, dim) if keepdim else r), None


def _unique_part(f, i):
    """Part i of unique's result (0: the values, 1: the inverse, 2: the counts), all asked for."""
    return lambda x, **kwargs: f(x, sorted=True, return_inverse=True, return_counts=True, **kwargs)[i]


def _without_nan(m):
    e = extreme_values(m.dtype)
    # torch 1.13's unique sorts with <, which orders no NaN: the table leaves NaN out
    return e[~np.isnan(e)] if m.dtype in FLOATING else e


def _unique_samples(m):
    s = [SampleInput(x.args, {}, x.desc) for x in unary_samples(m, extreme=False)]
    e = _without_nan(m)
    s.append(SampleInput((from_values(np.concatenate([e, e[::-1]]), (2, len(e)), m.dtype),), {}, "extremes, twice"))
    s.append(SampleInput((from_values(np.array([3, 1, 2, 3, 1, 0]), (2, 3), m.dtype).t(),), {}, "repeats, transposed"))
    from opinfo_samples import LARGE
    s.append(SampleInput((m.make(LARGE),), {}, "large"))
    return s


def _unique_dim_samples(m):
    rows = from_values(np.array([1, 2, 0, 1, 2, 0, 0, 1, 2]), (3, 3), m.dtype)
    return [SampleInput((rows,), {"dim": 0}, "3x3 with a repeated row, dim 0"),
            SampleInput((rows.t(),), {"dim": 1}, "transposed, dim 1"),
            SampleInput((m.make((2, 3)),), {"dim": -1}, "2x3, dim -1"),
            SampleInput((m.make((2, 4, 3), "t"),), {"dim": 1}, "transposed 2x4x3, dim 1"),
            SampleInput((m.make(()),), {"dim": 0}, "0-dim, dim 0", error=r"Dimension specified as 0 but tensor has no "
                        r"dimensions", error_type=IndexError),
            SampleInput((m.make((0, 3)),), {"dim": 0}, "empty 0x3, dim 0"),
            SampleInput((m.make((0, 3)),), {"dim": 1}, "empty 0x3, dim 1",
                        error=r"There are 0 sized dimensions, and they aren't selected"),
            SampleInput((from_values(_without_nan(m), (1, len(_without_nan(m))), m.dtype).expand(
                2, len(_without_nan(m))),), {"dim": 0}, "extremes expanded, dim 0")]


def _norm_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        grad = x.grad and t.numel() > 0
        s.append(SampleInput((t,), {}, f"{x.desc}, all, p 2", grad, out=False))
        s.append(SampleInput((t, 1), {}, f"{x.desc}, all, p 1", grad))
        if t.dim() >= 1:
            for p in (2, 1, 3, 0.5, 0, math.inf):
                if t.numel() > 0 or p != math.inf:
                    s.append(SampleInput((t, p, [-1]), {}, f"{x.desc}, p {p}, dim [-1]", grad and p != 0))
            if t.numel() > 0:
                s.append(SampleInput((t, -math.inf, [0], True), {}, f"{x.desc}, p -inf, dim [0] keepdim"))
        if t.dim() >= 2:
            s.append(SampleInput((t, None, [0, 1]), {}, f"{x.desc}, p None, dims [0, 1]"))
    x = m.make((2, 3))
    target = opcore.complex128 if m.dtype in COMPLEX else opcore.float64
    s.append(SampleInput((x, 2, [1], False), {"dtype": target}, "2x3, dim [1], dtype", dtype=complex_to_real(target)))
    s.append(SampleInput((x, 3), {"dtype": target}, "2x3, all, dtype", dtype=complex_to_real(target), out=False))
    s.append(SampleInput((m.make((0, 3)), math.inf, [0]), desc="empty, inf norm over the empty dim",
                         error=r"cannot compute the inf norm"))
    return s


def _torch_norm(x, p=2, dim=None, keepdim=False, dtype=None):
    if dim is None:
        return torch.linalg.vector_norm(x, 2 if p is None else p, dtype=dtype)
    return torch.linalg.vector_norm(x, 2 if p is None else p, dim, keepdim, dtype=dtype)


def _np_norm(x, p=2, dim=None, keepdim=False, dtype=None):
    p = 2 if p is None else p
    a = np.abs(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))
    axis = None if dim is None or x.ndim == 0 else tuple(dim)
    with np.errstate(all="ignore"):
        if p == math.inf:
            r = np.max(a, axis=axis, keepdims=keepdim)
        elif p == -math.inf:
            r = np.min(a, axis=axis, keepdims=keepdim)
        elif p == 0:
            r = np.sum(a != 0, axis=axis, keepdims=keepdim).astype(np.float64)
        else:
            r = np.sum(a ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)
    return np.asarray(r)


def _vector_norm_samples(m):
    s = []
    for x in _norm_samples(m):
        args = list(x.args)
        kwargs = dict(x.kwargs)
        if len(args) > 2 and args[2] is not None:
            kwargs["dim"] = args[2]
        if len(args) > 3:
            kwargs["keepdim"] = args[3]
        ord_ = args[1] if len(args) > 1 and args[1] is not None else 2
        s.append(SampleInput((args[0], ord_), kwargs, x.desc, x.grad, dtype=x.dtype, out=True, error=x.error))
    return s


# --- issue 34: the softmax family -------------------------------------------------------------------


def _softmax_samples(m, dtypes=True):
    """Along the last dimension and dimension 0 of every kind of input (the column-block
    kernel: Note [Softmax rows] in kernels/cpu/Softmax.cpp), a middle one, dtype=, errors."""
    s = _last_and_first_dim_samples(m)
    s.append(SampleInput((m.make((2, 3, 4)), 1), {}, "2x3x4, dim 1", True))
    s.append(SampleInput((m.make((3, 5, 4), "t"), 0), {}, "transposed 3x4x5, dim 0"))
    x = m.make((2, 3))
    if dtypes:
        for target in (opcore.float32, opcore.float64):  # dtype= converts self first
            s.append(SampleInput((x, 1), {"dtype": target}, f"2x3, dim 1, dtype {name(target)}", dtype=target))
    s.append(SampleInput((x, 2), {}, "dim out of range", error=r"(?i)dimension out of range", error_type=IndexError))
    return s


def _private_softmax_samples(m):
    """_softmax's and _log_softmax's: half_to_float=False, and True for Half and BFloat16 (a
    float result); True refused for the others."""
    s = [SampleInput(x.args + (False,), x.kwargs, x.desc, x.grad, error=x.error, error_type=x.error_type)
         for x in _softmax_samples(m, dtypes=False)]
    if m.dtype in (opcore.float16, opcore.bfloat16):
        s.append(SampleInput((m.make((2, 3)), 1, True), {}, "2x3, dim 1, half_to_float", dtype=opcore.float32))
        s.append(SampleInput((m.make((3, 4, 5)), 0, True), {}, "3x4x5, dim 0, half_to_float", dtype=opcore.float32))
    else:
        s.append(SampleInput((m.make((2, 3)), 1, True), {}, "half_to_float", error="Half and BFloat16"))
    return s


def _softmax_backward_samples(m):
    """(grad_output, output, dim, input_dtype): grad_output of every kind, output random."""
    s = []
    for x in unary_samples(m):
        g = x.args[0]
        y = m.make(tuple(g.shape))
        s.append(SampleInput((g, y, -1, m.dtype), {}, f"{x.desc}, dim -1", x.grad))
        if g.dim() >= 2:
            s.append(SampleInput((g, y, 0, m.dtype), {}, f"{x.desc}, dim 0", x.grad))
    g, y = m.make((2, 3, 4)), m.make((2, 3, 4), "step")
    s.append(SampleInput((g, y, 1, m.dtype), {}, "2x3x4, step-sliced output, dim 1", True))
    if m.dtype is opcore.float32:  # the gradient of a half_to_float softmax: in input_dtype
        for reduced in (opcore.float16, opcore.bfloat16):
            s.append(SampleInput((g, y, 1, reduced), {}, f"2x3x4, dim 1, input_dtype {name(reduced)}", dtype=reduced))
    s.append(SampleInput((g, m.make((2, 3, 3)), 1, m.dtype), {}, "sizes differ", error="same size"))
    s.append(SampleInput((g, y, 3, m.dtype), {}, "dim out of range", error=r"(?i)dimension out of range",
                         error_type=IndexError))
    return s


def _np_softmax(log):
    def ref(x, dim, dtype=None, half_to_float=False):
        x = np.asarray(x, dtype=np.float64)
        if x.size == 0:
            return x
        axis = dim if x.ndim else None
        with np.errstate(all="ignore"):
            shifted = x - np.max(x, axis=axis, keepdims=True)
            log_sum = np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))
            return shifted - log_sum if log else np.exp(shifted - log_sum)
    return ref


def _np_softmax_backward(log):
    def ref(grad, output, dim, input_dtype=None):
        g, y = np.asarray(grad, dtype=np.float64), np.asarray(output, dtype=np.float64)
        axis = dim if g.ndim else None
        with np.errstate(all="ignore"):
            if log:
                return g - np.exp(y) * np.sum(g, axis=axis, keepdims=True)
            return y * (g - np.sum(g * y, axis=axis, keepdims=True))
    return ref


def _private_softmax_ref(f):
    # torch 1.13's CPU kernels refuse half_to_float; the reference input is float64 anyway
    return lambda x, dim, half_to_float: getattr(torch, f)(x, dim, False)


def _backward_with_out(f):
    # out= of the backward operators is `grad_input=` for _softmax_backward_data (PyTorch's name)
    def op(grad, output, dim, input_dtype, out=None):
        if out is None:
            return f(grad, output, dim, input_dtype)
        if f is opcore._softmax_backward_data:
            return f(grad, output, dim, input_dtype, grad_input=out)
        return f(grad, output, dim, input_dtype, out=out)
    return op


# The backward operators' intermediate sums overflow float32 where float64's do not (finfo.max
# times an output of 2): the reference of float32 and bfloat16 (computed in float) runs in float32.
_SOFTMAX_BACKWARD_UPCAST = {opcore.float32: opcore.float32, opcore.bfloat16: opcore.float32}
_SOFTMAX_TOL = {opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 1e-3), opcore.bfloat16: (1.6e-2, 1e-2)}


# ---- normalization (issue #34)

def _layer_norm_samples(m):
    """(input, normalized_shape, weight, bias) of every layout, rows shorter and longer than the
    kernel's lanes, empty inputs, extremes and PyTorch's errors."""
    x = m.make((3, 4))
    s = [SampleInput((x, [4]), desc="3x4", grad=True),
         SampleInput((x, [4], m.make((4,)), m.make((4,))), desc="3x4, weight, bias", grad=True),
         SampleInput((m.make((2, 3, 4)), [3, 4], m.make((3, 4)), m.make((3, 4))), {"eps": 0.5},
                     desc="2x3x4 over [3, 4], eps 0.5", grad=True),
         SampleInput((m.make((2, 5)), [5], m.make((5,)), None), desc="weight only"),
         SampleInput((m.make((4, 2)), [2], None, m.make((2,))), desc="bias only"),
         SampleInput((m.make((5,)), [5]), desc="1-D input"),
         SampleInput((m.make((3, 70)), [70], m.make((70,)), m.make((70,))), desc="3x70 (lanes and a tail)"),
         SampleInput((m.make((2, 4, 6), "t"), [6]), desc="transposed input"),
         SampleInput((m.make((3, 8), "step"), [8], m.make((8,), "step"), m.make((8,), "step")),
                     desc="step-sliced input, weight, bias"),
         SampleInput((m.make((0, 4)), [4]), desc="no rows"),
         SampleInput((m.make((2, 3, 0)), [3, 0]), desc="empty rows")]
    if m.dtype in FLOATING:  # float32's largest values overflow the variance, as in torch's float32 kernel
        finite = [v for v in extreme_values(m.dtype) if not (math.isfinite(v) and abs(v) > 1e4)]
        s.append(SampleInput((from_values(np.array(finite), (3, 4), m.dtype), [4]), desc="extremes (no overflow)"))
    s.append(SampleInput((m.make(()), [1]), desc="0-dim input",
                         error=r"Given normalized_shape=\[1\], expected input with shape \[\*, 1\], but got input of "
                               r"size\[\]"))
    s += [SampleInput((x, []), desc="empty normalized_shape",
                      error=r"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                            r"element, but got normalized_shape = \[\]"),
          SampleInput((x, [3]), desc="normalized_shape not the input's last sizes",
                      error=r"Given normalized_shape=\[3\], expected input with shape \[\*, 3\], but got input of "
                            r"size\[3, 4\]"),
          SampleInput((x, [2, 3, 4]), desc="normalized_shape longer than the input",
                      error=r"expected input with shape \[\*, 2, 3, 4\], but got input of size\[3, 4\]"),
          SampleInput((x, [4], m.make((3,))), desc="weight of another shape",
                      error=r"Expected weight to be of same shape as normalized_shape, but got weight of shape \[3\] "
                            r"and normalized_shape = \[4\]"),
          SampleInput((x, [4], None, m.make((2, 2))), desc="bias of another shape",
                      error=r"Expected bias to be of same shape as normalized_shape, but got bias of shape \[2, 2\] "
                            r"and normalized_shape = \[4\]")]
    return s


def _batch_norm_samples(m):
    """F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps):
    training (with and without running statistics) and evaluation, [N, C], [N, C, L] and
    [N, C, H, W] of every layout, empty inputs, extremes and PyTorch's errors."""
    def stats(c):
        return m.make((c,)), from_values(np.linspace(0.5, 2.0, c), (c,), m.dtype)  # variances above zero
    s = [SampleInput((m.make((4, 3)), None, None, m.make((3,)), m.make((3,)), True), desc="4x3, training", grad=True),
         SampleInput((m.make((2, 3, 4)), None, None, m.make((3,)), None, True, 0.1, 0.5),
                     desc="2x3x4, training, eps 0.5", grad=True),
         SampleInput((m.make((2, 2, 3, 3)), None, None, None, m.make((2,)), True), desc="2x2x3x3, training, bias only",
                     grad=True)]
    rm, rv = stats(3)
    s.append(SampleInput((m.make((2, 3, 5)), rm, rv, m.make((3,)), m.make((3,)), True, 0.3),
                         desc="training with running statistics"))
    rm, rv = stats(3)
    s.append(SampleInput((m.make((2, 3, 5)), rm, rv, m.make((3,)), m.make((3,))), desc="evaluation"))
    rm, rv = stats(4)
    s.append(SampleInput((m.make((3, 4, 2), "t"), rm, rv), desc="evaluation, transposed input"))
    s.append(SampleInput((m.make((3, 4, 6), "step"), None, None, m.make((4,), "step"), None, True),
                         desc="training, step-sliced input and weight"))
    s.append(SampleInput((m.make((2, 3, 70)), None, None, None, None, True), desc="training, chunks of 70"))
    rm, rv = stats(3)
    s.append(SampleInput((m.make((0, 3, 2)), rm, rv, None, None, False), desc="evaluation, no samples"))
    s.append(SampleInput((m.make((2, 0, 3)), m.make((0,)), m.make((0,)), None, None, True), desc="no channels"))
    if m.dtype in FLOATING:
        finite = [v for v in extreme_values(m.dtype) if not (math.isfinite(v) and abs(v) > 1e4)]
        rm, rv = stats(2)
        s.append(SampleInput((from_values(np.array(finite), (3, 2, 2), m.dtype), rm, rv), desc="extremes, evaluation"))
    x = m.make((2, 3))
    s += [SampleInput((m.make((1, 3)), None, None, None, None, True), desc="one value per channel",
                      error=r"Expected more than 1 value per channel when training", error_type=ValueError),
          SampleInput((x, None, None), desc="evaluation without running statistics",
                      error="running_mean must be defined in evaluation mode"),
          SampleInput((x, m.make((4,)), None, None, None, True), desc="running_mean of 4 for 3 channels",
                      error="running_mean should contain 3 elements not 4"),
          SampleInput((x, None, None, m.make((2,)), None, True), desc="weight of 2 for 3 channels",
                      error="weight should contain 3 elements not 2"),
          SampleInput((m.make(()), None, None, None, None, False), desc="0-dim input",
                      error="expected an input of 2 or more dimensions")]
    return s


def _group_norm_samples(m):
    """F.group_norm(input, num_groups, weight, bias, eps): groups of one and several channels,
    [N, C], [N, C, L], [N, C, H, W] of every layout, empty inputs, extremes, PyTorch's errors."""
    s = [SampleInput((m.make((2, 4, 3)), 2, m.make((4,)), m.make((4,))), desc="2x4x3, 2 groups", grad=True),
         SampleInput((m.make((3, 2, 2, 2)), 1), {"eps": 0.5}, desc="3x2x2x2, 1 group, eps 0.5", grad=True),
         SampleInput((m.make((2, 3, 2)), 3, m.make((3,))), desc="a group per channel, weight only", grad=True),
         SampleInput((m.make((4, 6)), 3, None, m.make((6,))), desc="[N, C], bias only"),
         SampleInput((m.make((2, 4, 70)), 2, m.make((4,)), m.make((4,))), desc="2x4x70 (lanes and a tail)"),
         SampleInput((m.make((2, 4, 3, 5), "t"), 4), desc="transposed input"),
         SampleInput((m.make((2, 4, 6), "step"), 2, m.make((4,), "step")), desc="step-sliced input and weight"),
         SampleInput((m.make((0, 4, 3)), 2), desc="no samples")]
    if m.dtype in FLOATING:
        finite = [v for v in extreme_values(m.dtype) if not (math.isfinite(v) and abs(v) > 1e4)]
        s.append(SampleInput((from_values(np.array(finite), (2, 4, 2), m.dtype), 2), desc="extremes (no overflow)"))
    x = m.make((2, 4, 3))
    s += [SampleInput((x, 3), desc="channels not divisible by num_groups",
                      error=r"Expected number of channels in input to be divisible by num_groups, but got input of "
                            r"shape \[2, 4, 3\] and num_groups=3"),
          SampleInput((x, 2, m.make((3,))), desc="weight of 3 for 4 channels",
                      error=r"Expected weight to be a vector of size equal to the number of channels in input, but "
                            r"got weight of shape \[3\] and input of shape \[2, 4, 3\]"),
          SampleInput((m.make((1, 2)), 2), desc="one value per group", error="Expected more than 1 value per channel",
                      error_type=ValueError),
          SampleInput((m.make((4,)), 2), desc="1-D input",
                      error="Expected at least 2 dimensions for input tensor but received 1"),
          SampleInput((m.make(()), 1), desc="0-dim input",
                      error="Expected at least 2 dimensions for input tensor but received 0")]
    return s



REDUCTIONS = [
    OpInfo("sum", opcore.sum, _t("sum"), _np_sum, ("sum", "sum.dim_IntList", "sum.IntList_out"), DTYPES,
           _reduce_samples(_sum_dtypes), int_to_int64, ("out",), autograd=True, grad_complex=True, upcast=_ACCUMULATE,
           tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("mean", opcore.mean, _t("mean"), _np_mean, ("mean", "mean.dim", "mean.out", "mean.dtype_out"),
           FLOATING + COMPLEX,
           _reduce_samples(_mean_dtypes, whole_out=True), out=("out",), autograd=True, grad_complex=True, upcast=_ACCUMULATE,
           tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("max.dim", opcore.max, _t("max"), _np_max, ("max.dim", "max.dim_max"), REAL + (opcore.bool,),
           _max_samples, out=("max", "max_values"), autograd=True, check="max"),
    OpInfo("mm", opcore.mm, _t("mm"), np.matmul, ("mm", "mm.out"), ALL_BUT_BOOL, _mm_samples, out=("out",),
           autograd=True, grad_complex=True, tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("bmm", opcore.bmm, _t("bmm"), np.matmul, ("bmm", "bmm.out"), ALL_BUT_BOOL, _bmm_samples, out=("out",), autograd=True,
           grad_complex=True, tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("matmul", opcore.matmul, _torch_matmul, np.matmul, ("matmul",), ALL_BUT_BOOL, _matmul_samples,
           autograd=True, grad_complex=True, tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("addmm", opcore.addmm, _t("addmm"), _np_addmm, ("addmm", "addmm_", "addmm.out"), ALL_BUT_BOOL,
           _addmm_samples, out=("out",), inplace="addmm_", autograd=True, grad_complex=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("addmv", opcore.addmv, _t("addmv"), _np_addmv, ("addmv", "addmv_", "addmv.out"), ALL_BUT_BOOL,
           _addmv_samples, out=("out",), inplace="addmv_", autograd=True, grad_complex=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("mv", opcore.mv, _t("mv"), np.matmul, ("mv", "mv.out"), ALL_BUT_BOOL, _mv_samples, out=("out",),
           autograd=True, grad_complex=True, tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("baddbmm", opcore.baddbmm, _torch_baddbmm, _np_addmm, ("baddbmm", "baddbmm_", "baddbmm.out"),
           ALL_BUT_BOOL, _baddbmm_samples, out=("out",), inplace="baddbmm_", autograd=True, grad_complex=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("linear", opcore.nn.functional.linear, lambda *a: torch.nn.functional.linear(*a), _np_linear,
           ("linear", "linear.out"), ALL_BUT_BOOL, _linear_samples, out=("out",), autograd=True, grad_complex=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("nll_loss", opcore.nn.functional.nll_loss, lambda *a, **k: torch.nn.functional.nll_loss(*a, **k), None,
           ("nll_loss", "nll_loss_forward", "nll_loss_backward"), (opcore.float32, opcore.float64, opcore.bfloat16),
           _nll_samples, autograd=True, tol={opcore.float32: (1e-5, 1e-5), opcore.bfloat16: (1e-2, 1e-2)}),
    OpInfo("cross_entropy", opcore.nn.functional.cross_entropy,
           lambda *a, **k: torch.nn.functional.cross_entropy(*a, **k), None, ("cross_entropy_loss",),
           (opcore.float32, opcore.float64, opcore.bfloat16), _cross_entropy_samples, autograd=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.bfloat16: (2e-2, 2e-2)}),
    # normalization (issue #34)
    OpInfo("layer_norm", opcore.nn.functional.layer_norm, lambda *a, **k: torch.nn.functional.layer_norm(*a, **k),
           None, ("layer_norm", "native_layer_norm"), FLOATING, _layer_norm_samples, autograd=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 1e-3), opcore.bfloat16: (1.6e-2, 1e-2)}),
    OpInfo("batch_norm", opcore.nn.functional.batch_norm, lambda *a, **k: torch.nn.functional.batch_norm(*a, **k),
           None, ("batch_norm", "native_batch_norm"), FLOATING, _batch_norm_samples, autograd=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 1e-3), opcore.bfloat16: (1.6e-2, 1e-2)}),
    OpInfo("group_norm", opcore.nn.functional.group_norm, lambda *a, **k: torch.nn.functional.group_norm(*a, **k),
           None, ("group_norm", "native_group_norm"), FLOATING, _group_norm_samples, autograd=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 1e-3), opcore.bfloat16: (1.6e-2, 1e-2)}),
    # issue #34: the pointwise losses' operators (F's Python functions, with reduction strings, are
    # checked in test_nn.py)
    OpInfo("mse_loss", opcore._C._nn.mse_loss, _aten("mse_loss"), _np_mse, ("mse_loss", "mse_loss.out"), FLOATING,
           _pointwise_loss_samples("mse_loss"), out=("out",), autograd=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 1e-3)}),
    OpInfo("mse_loss_backward", _grad_input_out(opcore._C._nn.mse_loss_backward),
           _aten_backward("mse_loss_backward"), None,
           ("mse_loss_backward", "mse_loss_backward.grad_input"), (opcore.float32, opcore.float64, opcore.bfloat16),
           _pointwise_loss_backward_samples(), out=("out",), autograd=True, upcast=_ACCUMULATE),
    OpInfo("l1_loss", opcore._C._nn.l1_loss, _aten("l1_loss"), None, ("l1_loss",), FLOATING + COMPLEX,
           _pointwise_loss_samples("l1_loss"), complex_to_real, autograd=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 1e-3)}),
    OpInfo("smooth_l1_loss", opcore._C._nn.smooth_l1_loss, _aten("smooth_l1_loss"), None,
           ("smooth_l1_loss", "smooth_l1_loss.out"), FLOATING,
           _pointwise_loss_samples("smooth_l1_loss", (0.75,), ((-1.0,), "smooth_l1_loss does not support negative "
                                                                          "values for beta.")),
           out=("out",), autograd=True, tol={opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 1e-3)}),
    OpInfo("smooth_l1_loss_backward", _grad_input_out(opcore._C._nn.smooth_l1_loss_backward),
           _aten_backward("smooth_l1_loss_backward"),
           None, ("smooth_l1_loss_backward", "smooth_l1_loss_backward.grad_input"),
           (opcore.float32, opcore.float64, opcore.bfloat16), _pointwise_loss_backward_samples((0.75,)),
           out=("out",), autograd=True, upcast=_ACCUMULATE),
    OpInfo("huber_loss", opcore._C._nn.huber_loss, _aten("huber_loss"), None, ("huber_loss", "huber_loss.out"),
           FLOATING, _pointwise_loss_samples("huber_loss", (1.5,), ((0.0,), "huber_loss does not support non-positive "
                                                                             "values for delta.")),
           out=("out",), autograd=True, tol={opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 1e-3)}),
    OpInfo("binary_cross_entropy", opcore._C._nn.binary_cross_entropy, _aten("binary_cross_entropy"), None,
           ("binary_cross_entropy", "binary_cross_entropy.out"), (opcore.float32, opcore.float64), _bce_samples,
           out=("out",), autograd=True, tol={opcore.float32: (1e-5, 1e-5)}),
    OpInfo("binary_cross_entropy_backward", _grad_input_out(opcore._C._nn.binary_cross_entropy_backward),
           _aten_backward("binary_cross_entropy_backward"), None,
           ("binary_cross_entropy_backward", "binary_cross_entropy_backward.grad_input"),
           (opcore.float32, opcore.float64), _bce_backward_samples, out=("out",), autograd=True),
    OpInfo("binary_cross_entropy_with_logits", opcore.binary_cross_entropy_with_logits,
           _t("binary_cross_entropy_with_logits"), None,
           ("binary_cross_entropy_with_logits", "binary_cross_entropy_with_logits.out"),
           (opcore.float32, opcore.float64, opcore.bfloat16), _bce_logits_samples, out=("out",), autograd=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.bfloat16: (2e-2, 1e-2)}),
    OpInfo("kl_div", opcore.kl_div, _t("kl_div"), None, ("kl_div",), FLOATING, _kl_div_samples, autograd=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 1e-3), opcore.bfloat16: (2e-2, 1e-2)}),
    OpInfo("one_hot", opcore.nn.functional.one_hot, lambda *a: torch.nn.functional.one_hot(*a), None, ("one_hot",),
           (opcore.int64,), _one_hot_samples),
    OpInfo("pad", opcore.nn.functional.pad, lambda *a, **k: torch.nn.functional.pad(*a, **k), None,
           ("pad", "_pad_circular"), DTYPES, _pad_samples, autograd=True),
    OpInfo("huber_loss_backward", _grad_input_out(opcore._C._nn.huber_loss_backward),
           _aten_backward("huber_loss_backward"), None,
           ("huber_loss_backward", "huber_loss_backward.out"), FLOATING, _pointwise_loss_backward_samples((1.5,)),
           out=("out",), autograd=True, upcast=_ACCUMULATE),
    # Core ATen part 1 (issue #33): reductions, scans and sorting
    OpInfo("amax", opcore.amax, _t("amax"), _np_extreme(np.max), ("amax", "amax.out"), REAL + (opcore.bool,),
           _extreme_samples("amax"), out=("out",), autograd=True),
    OpInfo("amin", opcore.amin, _t("amin"), _np_extreme(np.min), ("amin", "amin.out"), REAL + (opcore.bool,),
           _extreme_samples("amin"), out=("out",), autograd=True),
    OpInfo("argmax", opcore.argmax, _t("argmax"), _np_arg(np.argmax, np.max), ("argmax", "argmax.out"),
           REAL, _arg_samples("argmax"), lambda d: opcore.int64, out=("out",)),
    OpInfo("argmin", opcore.argmin, _t("argmin"), _np_arg(np.argmin, np.min), ("argmin", "argmin.out"),
           REAL, _arg_samples("argmin"), lambda d: opcore.int64, out=("out",)),
    OpInfo("max", opcore.max, _t("max"), lambda x: np.max(x), ("max", "max.unary_out"), REAL + (opcore.bool,),
           _all_samples("max"), out=("out",), autograd=True),
    OpInfo("min", opcore.min, _t("min"), lambda x: np.min(x), ("min", "min.unary_out"), REAL + (opcore.bool,),
           _all_samples("min"), out=("out",), autograd=True),
    OpInfo("min.dim", opcore.min, _t("min"), _np_min, ("min.dim", "min.dim_min"), REAL + (opcore.bool,),
           _min_samples, out=("min", "min_indices"), autograd=True, check="max"),
    OpInfo("any", opcore.any, _via_numpy(_np_any_all(np.any)), _np_any_all(np.any),
           ("any", "any.dim", "any.dims", "any.out", "any.dims_out", "any.all_out"), DTYPES, _any_all_samples,
           _any_all_dtype, out=("out",)),
    OpInfo("all", opcore.all, _via_numpy(_np_any_all(np.all)), _np_any_all(np.all),
           ("all", "all.dim", "all.dims", "all.out", "all.dims_out", "all.all_out"), DTYPES, _any_all_samples,
           _any_all_dtype, out=("out",)),
    OpInfo("prod", opcore.prod, _t("prod"), _np_prod, ("prod", "prod.dim_int", "prod.int_out"), DTYPES,
           _prod_samples, int_to_int64, ("out",), autograd=True, grad_complex=True, upcast=_ACCUMULATE, low=-1.5,
           high=1.5, tol={opcore.float32: (1e-4, 1e-5), opcore.complex64: (1e-4, 1e-5)}),
    OpInfo("var", opcore.var, _t("var"), _np_var, ("var", "var.dim", "var.correction", "var.out", "var.correction_out"),
           FLOATING + COMPLEX, _var_samples, complex_to_real, ("out",), autograd=True, grad_complex=True),
    OpInfo("std", opcore.std, _t("std"), _np_std, ("std", "std.dim", "std.correction", "std.out", "std.correction_out"),
           FLOATING + COMPLEX, _var_samples, complex_to_real, ("out",), autograd=True, grad_complex=True),
    OpInfo("var_mean", _part(opcore.var_mean, 0), _part(_t("var_mean"), 0), _np_var,
           ("var_mean", "var_mean.dim", "var_mean.correction"), FLOATING + COMPLEX, _var_samples, complex_to_real,
           autograd=True, grad_complex=True),
    OpInfo("var_mean (mean)", _part(opcore.var_mean, 1), _part(_t("var_mean"), 1), _np_var_mean_mean, (),
           FLOATING + COMPLEX, _var_samples, autograd=True, grad_complex=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("std_mean", _part(opcore.std_mean, 0), _part(_t("std_mean"), 0), _np_std,
           ("std_mean", "std_mean.dim", "std_mean.correction"), FLOATING + COMPLEX, _var_samples, complex_to_real,
           autograd=True, grad_complex=True),
    OpInfo("logsumexp", opcore.logsumexp, _t("logsumexp"), _np_logsumexp, ("logsumexp", "logsumexp.out"),
           REAL + (opcore.bool,), _logsumexp_samples, int_to_float, ("out",), autograd=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 1e-3), opcore.bfloat16: (1.6e-2, 1e-2)}),
    OpInfo("cumsum", opcore.cumsum, _t("cumsum"), _np_scan(np.cumsum), ("cumsum", "cumsum_", "cumsum.out"), DTYPES,
           _scan_samples, int_to_int64, ("out",), inplace="cumsum_", autograd=True, grad_complex=True,
           tol={opcore.float16: (2e-3, 1e-3), opcore.bfloat16: (1.6e-2, 1e-2)}),
    OpInfo("cumprod", opcore.cumprod, _t("cumprod"), _np_scan(np.cumprod), ("cumprod", "cumprod_", "cumprod.out"),
           DTYPES, _scan_samples, int_to_int64, ("out",), inplace="cumprod_", autograd=True, grad_complex=True,
           low=-1.5, high=1.5, tol={opcore.float16: (2e-3, 1e-3), opcore.bfloat16: (1.6e-2, 1e-2)}),
    OpInfo("sort", opcore.sort, _t("sort"), _np_sort, ("sort", "sort.values"), REAL + (opcore.bool,), _sort_samples,
           out=("values", "indices"), check="max"),
    OpInfo("sort.stable", _sort_stable(opcore.sort), _sort_stable(_t("sort")), _np_sort,
           ("sort.stable", "sort.values_stable"), REAL + (opcore.bool,), _sort_samples, out=("values", "indices"),
           check="max"),
    OpInfo("argsort", opcore.argsort, _torch_argsort, _np_argsort, ("argsort", "argsort.stable"), REAL + (opcore.bool,),
           _sort_samples, lambda d: opcore.int64),
    OpInfo("topk", _dim_first(opcore.topk), _dim_first(_t("topk")), _np_topk, ("topk", "topk.values"),
           REAL, _topk_samples, out=("values", "indices"), check="max"),
    OpInfo("kthvalue", _dim_first(opcore.kthvalue), _dim_first(_t("kthvalue")), _np_kthvalue,
           ("kthvalue", "kthvalue.values"), REAL, _kthvalue_samples, out=("values", "indices"),
           autograd=True, check="max"),
    OpInfo("median", opcore.median, _t("median"), _np_median_all, ("median",), REAL,
           _median_all_samples, autograd=True),
    OpInfo("median.dim", opcore.median, _t("median"), _np_median, ("median.dim", "median.dim_values"),
           REAL, _median_samples, out=("values", "indices"), autograd=True, check="max"),
    OpInfo("mode", opcore.mode, _t("mode"), _np_mode, ("mode", "mode.values"), REAL + (opcore.bool,), _mode_samples,
           out=("values", "indices"), autograd=True, check="max"),
    OpInfo("unique", _unique_part(opcore.unique, 0), _unique_part(_t("unique"), 0), None, ("_unique2",),
           REAL + (opcore.bool,), _unique_samples),
    OpInfo("unique (inverse)", _unique_part(opcore.unique, 1), _unique_part(_t("unique"), 1), None, (),
           REAL + (opcore.bool,), _unique_samples, lambda d: opcore.int64),
    OpInfo("unique (counts)", _unique_part(opcore.unique, 2), _unique_part(_t("unique"), 2), None, (),
           REAL + (opcore.bool,), _unique_samples, lambda d: opcore.int64),
    OpInfo("unique_dim", _unique_part(opcore.unique, 0), _unique_part(_t("unique"), 0), None, ("unique_dim",),
           REAL + (opcore.bool,), _unique_dim_samples),
    OpInfo("unique_dim (inverse)", _unique_part(opcore.unique, 1), _unique_part(_t("unique"), 1), None, (),
           REAL + (opcore.bool,), _unique_dim_samples, lambda d: opcore.int64),
    OpInfo("norm", opcore.norm, _torch_norm, _np_norm,
           ("norm.Scalar", "norm.ScalarOpt_dtype", "norm.ScalarOpt_dim", "norm.ScalarOpt_dim_dtype", "norm.out",
            "norm.dtype_out"), FLOATING + COMPLEX, _norm_samples, complex_to_real, ("out",), autograd=True,
           grad_complex=True, tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("linalg_vector_norm", opcore.linalg.vector_norm, _torch_norm, _np_norm,
           ("linalg_vector_norm", "linalg_vector_norm.out"), FLOATING + COMPLEX, _vector_norm_samples,
           complex_to_real, ("out",), autograd=True, grad_complex=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    # --- issue 34: the softmax family ---
    OpInfo("softmax", opcore.softmax, _t("softmax"), _np_softmax(False), ("softmax.int", "softmax.int_out"), FLOATING,
           _softmax_samples, out=("out",), autograd=True, tol=_SOFTMAX_TOL),
    OpInfo("log_softmax", opcore.log_softmax, _t("log_softmax"), _np_softmax(True),
           ("log_softmax.int", "log_softmax.int_out"), FLOATING, _softmax_samples, out=("out",), autograd=True,
           tol=_SOFTMAX_TOL),
    OpInfo("_softmax", opcore._softmax, _private_softmax_ref("_softmax"), _np_softmax(False),
           ("_softmax", "_softmax.out"), FLOATING, _private_softmax_samples, out=("out",), autograd=True,
           tol=_SOFTMAX_TOL),
    OpInfo("_log_softmax", opcore._log_softmax, _private_softmax_ref("_log_softmax"), _np_softmax(True),
           ("_log_softmax", "_log_softmax.out"), FLOATING, _private_softmax_samples, out=("out",), autograd=True,
           tol=_SOFTMAX_TOL),
    OpInfo("_softmax_backward_data", _backward_with_out(opcore._softmax_backward_data), _t("_softmax_backward_data"),
           _np_softmax_backward(False), ("_softmax_backward_data", "_softmax_backward_data.out"), FLOATING,
           _softmax_backward_samples, out=("out",), autograd=True, tol=_SOFTMAX_TOL,
           upcast=_SOFTMAX_BACKWARD_UPCAST),
    OpInfo("_log_softmax_backward_data", _backward_with_out(opcore._log_softmax_backward_data),
           _t("_log_softmax_backward_data"), _np_softmax_backward(True),
           ("_log_softmax_backward_data", "_log_softmax_backward_data.out"), FLOATING, _softmax_backward_samples,
           out=("out",), autograd=True, tol=_SOFTMAX_TOL, upcast=_SOFTMAX_BACKWARD_UPCAST),
]


# --- views and copies -----------------------------------------------------------------------------


def _view_samples(make_args, zero_dim_error=""):
    """unary_samples, each with the arguments make_args(tensor) gives; on a 0-dim tensor an
    IndexError matching zero_dim_error where that is given (select and slice, as in PyTorch)."""
    def make(m):
        s = []
        for x in unary_samples(m):
            error = zero_dim_error if x.args[0].dim() == 0 else ""
            for extra, kwargs in make_args(x.args[0]):
                s.append(SampleInput(x.args + tuple(extra), kwargs, f"{x.desc}, {extra} {kwargs or ''}",
                                     x.grad and not error, error=error, error_type=IndexError))
        if make_args is _shapes_for_view:
            s.append(SampleInput((m.make((3, 4), "t"), [-1]), desc="transposed, view [-1]", error="strides"))
        return s
    return make


def _shapes_for_view(t):
    n = t.numel()
    if not t.is_contiguous():  # the same shape always fits the strides; a flat one does not
        return [((list(t.shape),), {})]
    return [((list(t.shape),), {}), (([-1],), {}), (([1, n, 1],), {})]


def _shapes_for_reshape(t):
    n = t.numel()
    return [((list(t.shape),), {}), (([-1],), {}), (([n, 1],), {})] + ([(([2, -1],), {})] if n % 2 == 0 else [])


def _dim_pairs(t):
    d = max(t.dim(), 1)
    return [((0, d - 1), {}), ((-1, 0), {})]


def _t_args(t):
    return [((), {})] if t.dim() <= 2 else []


def _expand_args(t):
    return [(((2,) + tuple(t.shape),), {}), ((tuple([-1] * t.dim()),), {})]


def _unsqueeze_args(t):
    return [((0,), {}), ((t.dim(),), {}), ((-1,), {})]


def _squeeze_args(t):
    return [((d,), {}) for d in range(t.dim())] or [((0,), {})]


def _select_args(t):
    return [((d, i), {}) for d in range(t.dim()) for i in (0, -1) if t.shape[d] > 0] or [((0, 0), {})]


def _slice_args(t):
    if t.dim() == 0:
        return [((0, 0, 1, 1), {})]  # an IndexError (_view_samples)
    return [((0, 0, 2, 1), {}), ((-1, 1, None, 2), {}), ((0, None, None, 3), {}), ((t.dim() - 1, -2, 100, 1), {}),
            ((0, 5, 2, 1), {})]


def _slice_ref(x, dim=0, start=None, end=None, step=1):
    index = [slice(None)] * x.ndim
    index[dim] = slice(start, end, step)
    return x[tuple(index)]


def _np_transpose(x, d0, d1):
    return np.swapaxes(x, d0, d1) if x.ndim else x


def _np_squeeze(x, d):
    return np.squeeze(x, d) if x.ndim and x.shape[d] == 1 else x


def _np_expand(x, size):
    size = tuple(x.shape[i - len(size) + x.ndim] if s == -1 else s for i, s in enumerate(size))
    return np.broadcast_to(x, size)


def _to_samples(m):
    s = []
    for target in DTYPES:
        x = m.make((2, 3))
        s.append(SampleInput((x, target), {}, f"2x3 to {target}", dtype=target,
                             grad=target in (opcore.float64, opcore.complex128)))
        s.append(SampleInput((m.make((3, 4), "t"), target), {}, f"transposed to {target}", dtype=target))
        s.append(SampleInput((m.make(()), target), {"copy": True}, f"0-dim to {target}, copy", dtype=target))
        s.append(SampleInput((x, "cpu", target), {}, f"2x3 to cpu, {target}", dtype=target))
        s.append(SampleInput((m.make((0, 3)), target), {}, f"empty to {target}", dtype=target))
        # NaN, inf and out-of-range floats into an integer are undefined behaviour in C++
        # (PyTorch's values for them are whatever the compiler gives): the extremes go only
        # into floating and complex dtypes, or from an integer into any.
        if target in FLOATING + COMPLEX or m.dtype in INTEGRAL + (opcore.bool,):
            e = extreme_values(m.dtype)
            s.append(SampleInput((m.make((len(e),), kind="extreme"), target), {}, f"extremes to {target}",
                                 dtype=target))
    return s


def _np_to(x, *args, copy=False):
    target = args[-1]
    with np.errstate(all="ignore"):
        if x.dtype.kind == "c" and target not in COMPLEX:
            x = x.real
        if target is opcore.bool:
            return x != 0
        if target in INTEGRAL:
            wide = x if x.dtype.kind in "iub" else np.trunc(x)
            return _wrap(np.asarray(wide, dtype=object), np.empty(0, dtype=np.dtype(repr(target)[7:])))
        return x.astype(np.complex128 if target in COMPLEX else np.float64)


def _torch_to(x, *args, copy=False):
    target = args[-1]
    if x.is_complex() and not target.is_complex:  # torch warns that the imaginary part goes
        x = x.real
    return x.to(*args[:-1], target, copy=copy)


def _copy_samples(m):
    s = []
    for x in unary_samples(m):
        dst = x.args[0]
        if 0 in dst.stride() and dst.numel() > 1:
            continue  # an expanded destination: its elements overlap (checked by test_inplace_errors)
        s.append(SampleInput((dst, m.make(tuple(dst.shape), "t") if dst.dim() >= 2 else m.make(tuple(dst.shape))),
                             desc=f"{x.desc} <- same shape"))
        if dst.dim() >= 1:
            src = m.make(tuple(dst.shape)[1:]) if dst.dim() > 1 else m.make(())
            s.append(SampleInput((dst, src), desc=f"{x.desc} <- broadcast"))
    for other in (opcore.float64, opcore.int64, opcore.bool):
        s.append(SampleInput((m.make((2, 3)), Maker(other, 3).make((2, 3), "t")), desc=f"2x3 <- {other} transposed"))
    s[0].grad = True
    return s


def _np_copy(dst, src):
    with np.errstate(all="ignore"):
        if dst.dtype.kind != "c" and np.asarray(src).dtype.kind == "c":
            src = np.real(src)
        dst[...] = src
        return dst


def _torch_copy(dst, src):
    if not dst.is_complex() and src.is_complex():
        src = src.real
    return dst.copy_(src)


def _fill_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        if 0 in t.stride() and t.numel() > 1:
            continue
        s.append(SampleInput((t, m.scalar()), desc=f"{x.desc} <- number", grad=x.grad))
        if m.dtype in FLOATING + COMPLEX:
            for v in (math.nan, -math.inf, -0.0):
                s.append(SampleInput((t, v), desc=f"{x.desc} <- {v}"))
        if m.dtype in INTEGRAL:
            s.append(SampleInput((t, opcore.iinfo(m.dtype).min), desc=f"{x.desc} <- min"))
    s.append(SampleInput((m.make((2, 3)), m.make(())), desc="2x3 <- 0-dim tensor", grad=True))
    s.append(SampleInput((m.make((2, 3)), m.make((1,))), desc="2x3 <- 1-dim tensor",
                         error="only supports 0-dimension value tensor"))
    return s


def _np_fill(t, v):
    t[...] = v
    return t


def _index_samples(m):
    x = m.make((4, 3))
    long = lambda values: opcore.tensor(values, dtype=opcore.int64)  # noqa: E731
    return [SampleInput((x, [long([2, 0, -1])]), desc="long index dim 0", grad=True),
            SampleInput((x, [None, long([[1, 0], [2, 2]])]), desc="2-D long index dim 1", grad=True),
            SampleInput((x, [long([0, 3]), long([2, -3])]), desc="two long indices"),
            SampleInput((x, [opcore.tensor([True, False, True, True])]), desc="bool mask dim 0"),
            SampleInput((x, [long([], )]), desc="empty index"),
            SampleInput((m.make((3, 4), "t"), [long([1])]), desc="transposed, long index"),
            SampleInput((m.make((4, 6), "step"), [None, long([0, 2])]), desc="step-sliced, index dim 1"),
            SampleInput((m.make((4, 3), "expand"), [long([3, 3])]), desc="expanded, repeated index"),
            # x[True] adds a dimension in Python's indexing; aten::index.Tensor itself takes no
            # 0-dim bool index (torch 1.13 fails an internal assert on one): a clear error here
            SampleInput((m.make(()), [opcore.tensor(True)]), desc="0-dim, bool 0-dim mask",
                        error="0-dimensional Bool index"),
            SampleInput((x, [long([4])]), desc="index out of range", error="out of (range|bounds)",
                        error_type=IndexError),
            SampleInput((x, [opcore.tensor([True, False])]), desc="bool mask of the wrong size", error="shape|size")]


def _index_ref(x, indices):
    return x[tuple(slice(None) if i is None else i for i in indices)]


# Core ATen part 1 (issue #33): shape and view operators. Operators returning a list of views
# (split, chunk, unbind) are checked through their pieces flattened and joined, in order
# (_joined); test_shape_ops.py checks the pieces' shapes and that they are views.
from opinfo_samples import LARGE  # noqa: E402  (here, not above: one import line per family region)


def _joined(pieces, lib, like):
    """The pieces of a split of `like` (opcore or torch tensors, `lib` the library) flattened and joined in order."""
    return lib.cat([p.reshape(-1) for p in pieces]) if pieces else lib.zeros(0, dtype=like.dtype)


def _listed(name, method=False):
    """opcore's `name` with its list of results joined (_joined)."""
    if method:
        return lambda x, *args, **kwargs: _joined(getattr(x, name)(*args, **kwargs), opcore, x)
    return lambda x, *args, **kwargs: _joined(getattr(opcore, name)(x, *args, **kwargs), opcore, x)


def _torch_listed(name):
    return lambda x, *args, **kwargs: _joined(getattr(torch, name)(x, *args, **kwargs), torch, x)


def _joined_np(pieces):
    return np.concatenate([np.asarray(p).reshape(-1) for p in pieces]) if len(pieces) else np.zeros(0)


def _permutations(t):
    n = t.dim()
    perms = {0: [[]], 1: [[0], [-1]], 2: [[1, 0], [0, 1]], 3: [[2, 0, 1], [-1, 1, 0]]}[n]
    return [((p,), {}) for p in perms]


def _permute_samples(m):
    s = _view_samples(_permutations)(m)
    s.append(SampleInput((m.make((2, 3)), [0, 0]), desc="repeated dim", error="duplicate dims"))
    s.append(SampleInput((m.make((2, 3)), [0]), desc="too few dims", error="does not match"))
    s.append(SampleInput((m.make((2, 3)), [0, 2]), desc="dim out of range", error="out of range",
                         error_type=IndexError))
    return s


def _cat_samples(stack):
    def make(m):
        s = []
        for x in unary_samples(m):
            t = x.args[0]
            if t.dim() == 0:
                if not stack:
                    s.append(SampleInput((t, t), {"dim": 0}, f"{x.desc} x2", error="zero-dimensional"))
                    continue
                s.append(SampleInput((t, m.make(())), {"dim": 0}, f"{x.desc} and 0-dim, dim 0", x.grad))
                continue
            other = m.make(tuple(t.shape))
            s.append(SampleInput((t, other), {"dim": 0}, f"{x.desc} and its shape, dim 0", x.grad))
            s.append(SampleInput((other, t, other), {"dim": -1}, f"{x.desc} between two, dim -1", x.grad))
        if stack:
            s.append(SampleInput((m.make((2, 3)), m.make((3, 2))), {"dim": 0}, "sizes differ", error="equal size"))
            s.append(SampleInput((m.make((2, 3)), m.make((2, 3))), {"dim": 2}, "2x3 x2, dim 2 (new last)", True))
            s.append(SampleInput((m.make(LARGE), m.make(LARGE, "t")), {"dim": 1}, "large, transposed, dim 1"))
        else:
            s.append(SampleInput((m.make((2, 3)), m.make((1, 3)), m.make((4, 3), "t")), {"dim": 0},
                                 "2x3, 1x3, transposed 4x3, dim 0", True))
            s.append(SampleInput((m.make((2, 3)), m.make((0,)), m.make((2, 1))), {"dim": 1},
                                 "2x3, legacy empty [0], 2x1, dim 1", True))
            s.append(SampleInput((m.make((0,)), m.make((0,))), {"dim": 0}, "legacy empty [0] x2"))
            s.append(SampleInput((m.make((0, 3)), m.make((2, 3))), {"dim": 0}, "empty 0x3, 2x3"))
            s.append(SampleInput((m.make(LARGE), m.make(LARGE, kind="scattered")), {"dim": 0},
                                 "large x2, dim 0"))
            s.append(SampleInput((m.make((5000, 3)), m.make((5000, 2), "step")), {"dim": 1},
                                 "5000x3, step-sliced 5000x2, dim 1"))
            s.append(SampleInput((m.make((2, 3)), m.make((2, 4))), {"dim": 0}, "sizes differ",
                                 error="Sizes of tensors must match except in dimension 0"))
            s.append(SampleInput((m.make((2, 3)), m.make((3,))), {"dim": 0}, "ranks differ",
                                 error="same number of dimensions"))
            s.append(SampleInput((m.make((2, 3)), m.make((2, 3))), {"dim": 2}, "dim out of range",
                                 error=r"range of \[-2, 1\], but got 2", error_type=IndexError))
        return s
    return make


def _cat_op(name):
    f = getattr(opcore, name)
    return lambda *tensors, dim=0, **kwargs: f(list(tensors), dim, **kwargs)


def _cat_ref(name):
    return lambda *tensors, dim=0: getattr(torch, name)(list(tensors), dim)


def _flatten_args(t):
    args = [((), {}), ((0, -1), {})]
    if t.dim() >= 2:
        args += [((1, -1), {}), ((-2, -1), {}), ((0, 0), {})]
    return args


def _np_flatten(x, start=0, end=-1):
    if x.ndim == 0:
        return x.reshape(1)
    start, end = start % x.ndim, end % x.ndim
    return x.reshape(x.shape[:start] + (-1,) + x.shape[end + 1:]) if x.size else x.reshape(
        x.shape[:start] + (int(np.prod(x.shape[start:end + 1])),) + x.shape[end + 1:])


def _unflatten_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        if t.dim() == 0:
            s.append(SampleInput((t, 0, (1,)), desc=f"{x.desc}, 0 -> (1,)", error="no dimensions",
                                 error_type=IndexError))
            continue
        n = t.shape[-1]
        s.append(SampleInput((t, -1, (1, n)), desc=f"{x.desc}, -1 -> (1, {n})", grad=x.grad))
        if t.numel() > 0:  # -1 is ambiguous in an empty tensor
            s.append(SampleInput((t, 0, (t.shape[0], -1)), desc=f"{x.desc}, 0 -> ({t.shape[0]}, -1)", grad=x.grad))
    s.append(SampleInput((m.make((2, 6)), 1, (3, -1, 2)), desc="2x6, 1 -> (3, -1, 2)", grad=True))
    s.append(SampleInput((m.make((2, 6)), 1, (4, 2)), desc="2x6, 1 -> (4, 2)", error="multiply up"))
    s.append(SampleInput((m.make((2, 6)), 1, ()), desc="2x6, 1 -> ()", error="non-empty"))
    return s


def _split_samples(kind):
    def args_of(t):
        if t.dim() == 0:
            return [({"split": (1,), "chunk": (1,), "split_with_sizes": ([1],), "unbind": (0,)}[kind], {})]
        size = t.shape[-1]
        if kind == "split":
            return [((2, -1), {}), ((1,), {}), ((max(size, 1) + 3,), {})]
        if kind == "chunk":
            return [((2, -1), {}), ((3,), {}), ((size + 2, -1), {})]
        if kind == "split_with_sizes":
            return [(([size // 2, size - size // 2], -1), {}), (([t.shape[0]],), {})]
        return [((0,), {}), ((-1,), {})]

    def make(m):
        error = {"split": "at least a 1-dimensional", "chunk": "at least a 1-dimensional",
                 "split_with_sizes": "at least a 1-dimensional", "unbind": "has no dimensions"}[kind]
        s = []
        for x in unary_samples(m):
            zero = x.args[0].dim() == 0
            for extra, kwargs in args_of(x.args[0]):
                s.append(SampleInput(x.args + extra, kwargs, f"{x.desc}, {extra}", x.grad and not zero,
                                     error=error if zero else "",
                                     error_type=IndexError if zero and kind == "unbind" else RuntimeError))
        if kind == "split":
            s.append(SampleInput((m.make((5,)), 0), desc="size 0 of 5", error="can only be 0"))
            s.append(SampleInput((m.make((0, 3)), 0), desc="empty, size 0"))
        if kind == "split_with_sizes":
            s.append(SampleInput((m.make((5,)), [2, 2]), desc="sizes sum to 4 of 5", error="sum exactly to 5"))
            s.append(SampleInput((m.make((5, 2)), [2, 3]), {"how": "split"}, desc="split.sizes [2, 3]", grad=True))
            s.append(SampleInput((m.make((5,)), [0, 5, 0]), desc="zero-size pieces"))
        if kind == "chunk":
            s.append(SampleInput((m.make((5,)), 0), desc="0 chunks", error="greater than 0"))
            s.append(SampleInput((m.make((0, 3)), 3), desc="empty into 3 chunks"))
        return s
    return make


def _split_sizes(x, sizes, dim=0, how="split_with_sizes"):
    """split_with_sizes, or split.sizes (the same under split's name) when `how` says so."""
    return _joined(getattr(opcore, how)(x, sizes, dim), opcore, x)


def _torch_split_sizes(x, sizes, dim=0, how=None):
    return _joined(torch.split(x, sizes, dim), torch, x)


def _narrow_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        if t.dim() == 0:
            s.append(SampleInput((t, 0, 0, 1), desc=f"{x.desc}, 0, 0, 1", error="0-dim"))
            continue
        n = t.shape[-1]
        s.append(SampleInput((t, -1, 0, n), desc=f"{x.desc}, -1, 0, {n}", grad=x.grad))
        if n >= 2:
            s.append(SampleInput((t, -1, 1, n - 1), desc=f"{x.desc}, -1, 1, {n - 1}", grad=x.grad))
            s.append(SampleInput((t, -1, -2, 1), desc=f"{x.desc}, -1, -2, 1"))
            s.append(SampleInput((t, -1, opcore.tensor(1), 1), desc=f"{x.desc}, -1, tensor(1), 1"))
    s.append(SampleInput((m.make((5,)), 0, 2, 5), desc="past the end", error=r"exceeds dimension size \(5\)"))
    s.append(SampleInput((m.make((5,)), 0, 6, 1), desc="start out of range", error="out of range",
                         error_type=IndexError))
    return s


def _torch_narrow(x, dim, start, length):
    return torch.narrow(x, dim, int(start) if not isinstance(start, int) else start, length)


def _np_narrow(x, dim, start, length):
    start = int(start)
    start = start + x.shape[dim] if start < 0 else start
    return np.take(x, range(start, start + length), axis=dim)


def _like_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        s.append(SampleInput((t, m.make(tuple(t.shape))), desc=f"{x.desc}, same shape", grad=x.grad))
        if t.numel() > 0 and t.is_contiguous():
            s.append(SampleInput((t, m.make((t.numel(),))), desc=f"{x.desc}, flat", grad=x.grad))
    return s


def _expand_as_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        s.append(SampleInput((t, m.make((2,) + tuple(t.shape))), desc=f"{x.desc}, 2 x its shape", grad=x.grad))
    s.append(SampleInput((m.make((2, 3)), m.make((3, 3))), desc="2x3 as 3x3", error="must match"))
    return s


def _squeeze_all_args(t):
    return [((), {})]


def _squeeze_samples(m):
    s = _view_samples(lambda t: [((list(range(t.dim())),), {}), (([-1, 0],) if t.dim() >= 2 else ([0],), {})])(m)
    s.append(SampleInput((m.make((1, 2, 1)), [0, -1]), desc="1x2x1, [0, -1]", grad=True))
    s.append(SampleInput((m.make((1, 2, 1)), [0, 0]), desc="1x2x1, [0, 0]", error="multiple times"))
    return s


def _torch_squeeze_dims(x, dims):
    # torch 1.13 has no squeeze.dims: the dimensions of size 1 among `dims`, last first
    for d in sorted({d % max(x.dim(), 1) for d in dims}, reverse=True):
        x = x.squeeze(d) if x.dim() else x
    return x


def _np_squeeze_dims(x, dims):
    axes = tuple(sorted({d % max(x.ndim, 1) for d in dims if x.ndim and x.shape[d] == 1}))
    return np.squeeze(x, axes) if axes else x


def _flip_args(t):
    if t.dim() == 0:
        return [(([],), {}), (([0],), {})]
    return [(([0],), {}), (([-1],), {}), ((list(range(t.dim())),), {}), (([],), {})]


def _flip_samples(m):
    s = _view_samples(_flip_args)(m)
    s.append(SampleInput((m.make((2, 3)), [0, -2]), desc="repeated dim", error="multiple times"))
    s.append(SampleInput((m.make(LARGE, "t"), [0]), desc="large transposed, [0]"))
    return s


def _np_flip(x, dims):
    return np.flip(x, tuple(dims)) if x.ndim and dims else x


def _roll_args(t):
    if t.dim() == 0:
        return [(([1],), {})]
    args = [(([1],), {}), (([-2], [0]), {}), (([7], [-1]), {})]
    if t.dim() >= 2:
        args.append((([1, -1], [0, 1]), {}))
    return args


def _roll_samples(m):
    s = _view_samples(_roll_args)(m)
    s.append(SampleInput((m.make((2, 3)), [1, 2], [0]), desc="shifts and dims differ", error="must align"))
    s.append(SampleInput((m.make(LARGE), [100, -3], [0, 1]), desc="large, two dims"))
    return s


def _np_roll(x, shifts, dims=()):
    return np.roll(x, shifts[0] if not dims else shifts, None if not dims else tuple(dims))


def _triangle_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        if t.dim() < 2:
            s.append(SampleInput((t,), desc=f"{x.desc}", error="at least 2 dimensions|out of range",
                                 error_type=RuntimeError if t.dim() == 1 else RuntimeError))
            continue
        for k in (0, 1, -1, 5, -5):
            s.append(SampleInput((t, k), desc=f"{x.desc}, {k}", grad=x.grad and k in (0, 1)))
    s.append(SampleInput((m.make((2, 3, 4)), -1), desc="2x3x4, -1", grad=True))
    return s


def _repeat_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        s.append(SampleInput((t, [2] * t.dim()), desc=f"{x.desc}, 2s", grad=x.grad))
        s.append(SampleInput((t, [3] + [1] * t.dim()), desc=f"{x.desc}, new dim 3", grad=x.grad))
        s.append(SampleInput((t, [0] + [1] * t.dim()), desc=f"{x.desc}, new dim 0"))
    s.append(SampleInput((m.make((2, 3)), [2]), desc="2x3, too few repeats", error="can not be smaller"))
    return s


def _repeat_op(x, repeats, out=None):
    # repeat is a method only, as torch's: its out= form is reached through opcore.ops
    return x.repeat(repeats) if out is None else opcore.ops.aten.repeat.out(x, repeats, out=out)


def _np_repeat(x, repeats):
    return np.tile(x, repeats)


def _tile_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        s.append(SampleInput((t, [2]), desc=f"{x.desc}, [2]", grad=x.grad))
        s.append(SampleInput((t, [2, 1, 3]), desc=f"{x.desc}, [2, 1, 3]", grad=x.grad))
    return s


def _pixel_shuffle_samples(shuffle):
    """(self, factor) of pixel_shuffle (shuffle) or pixel_unshuffle: one image, a batch of two
    dimensions, transposed and step-sliced inputs, a factor of 1 (nothing moves, and the result is
    still a new tensor), an empty batch, extremes and large scattered ones, and PyTorch's errors."""
    def make(m):
        def shape(c, h, w, r):  # the input of a result of c channels and h x w pixels, factor r
            return (c * r * r, h, w) if shuffle else (c, h * r, w * r)
        e = len(extreme_values(m.dtype))
        s = [SampleInput((m.make((1,) + shape(2, 3, 2, 2)), 2), desc="1 image, factor 2", grad=True),
             SampleInput((m.make((2, 3) + shape(1, 2, 2, 3)), 3), desc="2x3 batch, factor 3", grad=True),
             SampleInput((m.make((2,) + shape(2, 2, 3, 2), "t"), 2), desc="transposed, factor 2"),
             SampleInput((m.make(shape(1, 3, 2, 2), "step"), 2), desc="step-sliced, no batch"),
             SampleInput((m.make((4, 2, 3)), 1), desc="factor 1"),
             SampleInput((m.make((0,) + shape(1, 2, 2, 2)), 2), desc="empty batch"),
             SampleInput((m.make((e, 1, 1), kind="extreme"), 1), desc="extremes, factor 1"),
             SampleInput((m.make((2,) + shape(4, 16, 8, 2), kind="scattered"), 2), desc="extremes scattered"),
             SampleInput((m.make((4, 4)), 2), desc="2-dim", error="at least 3 dimensions, but got input with 2"),
             SampleInput((m.make((4, 2, 2)), 0), desc="factor 0", error="expects a positive")]
        if shuffle:
            s.append(SampleInput((m.make((3, 2, 2)), 2), desc="3 channels, factor 2",
                                 error=r"input.size\(-3\)=3 is not divisible by 4"))
        else:
            s += [SampleInput((m.make((1, 3, 4)), 2), desc="height 3", error=r"input.size\(-2\)=3 is not divisible by 2"),
                  SampleInput((m.make((1, 4, 3)), 2), desc="width 3", error=r"input.size\(-1\)=3 is not divisible by 2")]
        return s
    return make


def _np_pixel_shuffle(x, r):
    *batch, c, h, w = x.shape
    y = x.reshape(*batch, c // (r * r), r, r, h, w)
    n = len(batch)
    y = y.transpose(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return y.reshape(*batch, c // (r * r), h * r, w * r)


def _torch_pixel_unshuffle(x, r):
    # torch 1.13 returns an empty input as it is, in its own shape; the shape is the reshaped one.
    if x.numel() == 0 and x.dim() >= 3 and r > 0:
        return x.reshape(*x.shape[:-3], x.shape[-3] * r * r, x.shape[-2] // r, x.shape[-1] // r)
    return torch.pixel_unshuffle(x, r)


def _np_pixel_unshuffle(x, r):
    *batch, c, h, w = x.shape
    y = x.reshape(*batch, c, h // r, r, w // r, r)
    n = len(batch)
    y = y.transpose(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return y.reshape(*batch, c * r * r, h // r, w // r)


def _diagonal_args(t):
    if t.dim() < 2:
        return [((), {})]
    return [((), {}), ((1,), {}), ((-1, 1, 0), {}), ((10,), {}), ((0, -1, -2), {})]


def _diagonal_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        for extra, _ in _diagonal_args(t):
            error = "out of range" if t.dim() < 2 else ""
            s.append(SampleInput(x.args + extra, desc=f"{x.desc}, {extra}", grad=x.grad and not error, error=error,
                                 error_type=IndexError))
    s.append(SampleInput((m.make((2, 3)), 0, 1, 1), desc="same dims", error="cannot be identical"))
    return s


def _np_diagonal(x, offset=0, dim1=0, dim2=1):
    return np.diagonal(x, offset, dim1, dim2)


def _movedim_args(t):
    n = t.dim()
    if n == 0:
        return [((0, 0), {}), (([0], [-1]), {})]
    return [((0, -1), {}), ((-1, 0), {}), (([0, -1], [-1, 0]) if n >= 2 else ([0], [0]), {})]


def _movedim_samples(m):
    s = _view_samples(_movedim_args)(m)
    s.append(SampleInput((m.make((2, 3, 4)), [0, 1], [2, 0]), desc="2x3x4, [0, 1] -> [2, 0]", grad=True))
    s.append(SampleInput((m.make((2, 3)), [0, 0], [1, 0]), desc="repeated source", error="repeated dim in `source`"))
    s.append(SampleInput((m.make((2, 3)), [0], [1, 0]), desc="lengths differ", error="same number of dims"))
    return s


def _as_strided_samples(m):
    s = []
    for shape in ((2, 3), (3, 4), (), (0, 3), (5,)):
        t = m.make(shape)
        n = t.numel()
        s.append(SampleInput((t, list(shape), [x.stride() for x in [t]][0]), desc=f"{shape} as itself", grad=True))
        if n >= 4:
            s.append(SampleInput((t, [2, 2], [1, 2], 1), desc=f"{shape}, 2x2 strides (1, 2) offset 1", grad=True))
            s.append(SampleInput((t, [n // 2], [2]), desc=f"{shape}, every other"))
            s.append(SampleInput((t, [2, 3], [0, 1]), desc=f"{shape}, overlapping rows"))
    e = len(extreme_values(m.dtype))
    s.append(SampleInput((m.make((e,), kind="extreme"), [e // 2, 2], [1, e // 2]), desc="extremes as columns"))
    s.append(SampleInput((m.make((3,)), [2], [2], 1), desc="past the storage", error="out of bounds"))
    return s


def _np_as_strided(x, size, stride, offset=0):
    flat = np.ascontiguousarray(x).reshape(-1)
    return np.lib.stride_tricks.as_strided(flat[offset:], size, [st * flat.itemsize for st in stride]).copy()


def _pad_samples(m):
    s = []
    for x in unary_samples(m):
        t = x.args[0]
        if t.dim() == 0:
            s.append(SampleInput((t, []), desc=f"{x.desc}, no pad"))
            continue
        s.append(SampleInput((t, [1, 2]), desc=f"{x.desc}, [1, 2]", grad=x.grad))
        s.append(SampleInput((t, [0, 1], m.scalar()), desc=f"{x.desc}, [0, 1], value", grad=x.grad))
        if t.dim() >= 2:
            s.append(SampleInput((t, [1, 0, 2, 1]), desc=f"{x.desc}, [1, 0, 2, 1]", grad=x.grad))
            if t.shape[-1] >= 2 and t.shape[-2] >= 1:
                s.append(SampleInput((t, [-1, 2, 0, -1]), desc=f"{x.desc}, [-1, 2, 0, -1]"))
    s.append(SampleInput((m.make((2, 3)), [1, 2, 3]), desc="odd pad length", error="must be even"))
    s.append(SampleInput((m.make((2, 3)), [1, 1, 1, 1, 1, 1]), desc="pad too long", error="no more than twice"))
    s.append(SampleInput((m.make((2, 3)), [-4, 0]), desc="negative size", error=r"exceeds|negative output size|non-negative"))
    return s


def _torch_pad(x, pad, value=0):
    return torch.constant_pad_nd(x, pad, value)


VIEWS = [
    OpInfo("view", _method("view"), _method("view"), lambda x, size: x.reshape(size), ("view",), DTYPES,
           _view_samples(_shapes_for_view), view=True, autograd=True, grad_complex=True),
    OpInfo("reshape", opcore.reshape, _t("reshape"), np.reshape, ("reshape",), DTYPES,
           _view_samples(_shapes_for_reshape), autograd=True, grad_complex=True),
    OpInfo("transpose", opcore.transpose, _t("transpose"), _np_transpose, ("transpose.int",), DTYPES,
           _view_samples(_dim_pairs), view=True, autograd=True, grad_complex=True),
    OpInfo("t", opcore.t, _t("t"), lambda x: x.T, ("t",), DTYPES, _view_samples(_t_args), view=True, autograd=True),
    OpInfo("expand", _method("expand"), _method("expand"), _np_expand, ("expand",), DTYPES,
           _view_samples(_expand_args), view=True, autograd=True),
    OpInfo("unsqueeze", opcore.unsqueeze, _t("unsqueeze"), np.expand_dims, ("unsqueeze",), DTYPES,
           _view_samples(_unsqueeze_args), view=True, autograd=True),
    OpInfo("squeeze", opcore.squeeze, _t("squeeze"), _np_squeeze, ("squeeze.dim",), DTYPES,
           _view_samples(_squeeze_args), view=True, autograd=True),
    OpInfo("select", opcore.select, _t("select"), lambda x, d, i: np.take(x, i, axis=d), ("select.int",), DTYPES,
           _view_samples(_select_args, "0-dim"), view=True, autograd=True),
    OpInfo("slice", opcore.slice, _slice_ref, _slice_ref, ("slice.Tensor",), DTYPES, _view_samples(_slice_args, "0-dim"),
           view=True, autograd=True),
    OpInfo("contiguous", _method("contiguous"), _method("contiguous"), lambda x: np.array(x, order="C"), ("contiguous",), DTYPES,
           unary_samples, autograd=True),
    OpInfo("clone", opcore.clone, _t("clone"), np.copy, ("clone",), DTYPES, unary_samples, view=False, autograd=True,
           grad_complex=True),
    OpInfo("conj", opcore.conj, lambda x: torch.conj(x).resolve_conj(), np.conj, ("conj",), DTYPES, unary_samples,
           autograd=True, grad_complex=True),
    OpInfo("real", opcore.real, _t("real"), np.real, ("real",), DTYPES, unary_samples, complex_to_real,
           autograd=True, grad_complex=True),
    OpInfo("imag", opcore.imag, _t("imag"), np.imag, ("imag",), COMPLEX, unary_samples, complex_to_real,
           view=True, autograd=True, grad_complex=True),
    OpInfo("view_as_real", opcore.view_as_real, _t("view_as_real"),
           lambda x: np.stack([x.real, x.imag], axis=-1), ("view_as_real",), COMPLEX,
           lambda m: [s for s in unary_samples(m) if s.args[0].dim() == 0 or s.args[0].stride()[-1] == 1],
           complex_to_real, view=True, autograd=True, grad_complex=True),
    OpInfo("view_as_complex", opcore.view_as_complex, _t("view_as_complex"),
           lambda x: x[..., 0] + 1j * x[..., 1], ("view_as_complex",), (opcore.float32, opcore.float64),
           lambda m: [SampleInput((m.make((3, 2)),), desc="3x2", grad=True), SampleInput((m.make((2,)),), desc="2"),
                      SampleInput((m.make((0, 2)),), desc="empty 0x2"),
                      SampleInput((m.make((4, 3, 2))[:, 1:],), desc="sliced 4x2x2"),
                      SampleInput((m.make((7,), kind="extreme")[:6].view(3, 2),), desc="extremes")],
           lambda d: {opcore.float32: opcore.complex64, opcore.float64: opcore.complex128}.get(d, d), view=True, autograd=True,
           grad_complex=False),
    OpInfo("to", _method("to"), _torch_to, _np_to, ("to.dtype", "to.device"), DTYPES, _to_samples, autograd=True,
           grad_complex=True),
    OpInfo("copy_", lambda dst, src: dst.copy_(src), _torch_copy, _np_copy, ("copy_",), DTYPES, _copy_samples,
           autograd=True, mutates=True),
    OpInfo("fill_", lambda t, v: t.fill_(v), lambda t, v: t.fill_(v), _np_fill, ("fill_.Scalar", "fill_.Tensor"), DTYPES,
           _fill_samples, autograd=True, mutates=True),
    OpInfo("index", opcore.index, _index_ref, _index_ref, ("index.Tensor", "index.Tensor_out"), DTYPES, _index_samples,
           out=("out",), autograd=True, grad_complex=True),
    # Core ATen part 1 (issue #33): shape and view operators
    OpInfo("permute", opcore.permute, _t("permute"), np.transpose, ("permute",), DTYPES, _permute_samples, view=True,
           autograd=True, grad_complex=True),
    OpInfo("cat", _cat_op("cat"), _cat_ref("cat"), None, ("cat", "cat.out"), DTYPES, _cat_samples(False),
           out=("out",), view=False, autograd=True, grad_complex=True),
    OpInfo("stack", _cat_op("stack"), _cat_ref("stack"), None, ("stack", "stack.out"), DTYPES, _cat_samples(True),
           out=("out",), view=False, autograd=True),
    OpInfo("flatten", opcore.flatten, _t("flatten"), _np_flatten, ("flatten.using_ints",), DTYPES,
           _view_samples(_flatten_args), autograd=True),
    OpInfo("unflatten", opcore.unflatten, _t("unflatten"), None, ("unflatten.int",), DTYPES, _unflatten_samples,
           view=True, autograd=True),
    OpInfo("split", _listed("split"), _torch_listed("split"), None, ("split.Tensor",), DTYPES, _split_samples("split"),
           autograd=True),
    OpInfo("split_with_sizes", _split_sizes, _torch_split_sizes, None, ("split_with_sizes", "split.sizes"),
           DTYPES, _split_samples("split_with_sizes"), autograd=True),
    OpInfo("chunk", _listed("chunk"), _torch_listed("chunk"), None, ("chunk",), DTYPES, _split_samples("chunk"),
           autograd=True),
    OpInfo("unbind", _listed("unbind"), _torch_listed("unbind"), None, ("unbind.int",), DTYPES,
           _split_samples("unbind"), autograd=True),
    OpInfo("narrow", opcore.narrow, _torch_narrow, _np_narrow, ("narrow", "narrow.Tensor"), DTYPES, _narrow_samples,
           view=True, autograd=True),
    OpInfo("expand_as", _method("expand_as"), _method("expand_as"), lambda x, o: np.broadcast_to(x, o.shape),
           ("expand_as",), DTYPES, _expand_as_samples, view=True, autograd=True),
    OpInfo("view_as", _method("view_as"), lambda x, o: x.reshape(o.shape), lambda x, o: x.reshape(o.shape),
           ("view_as",), DTYPES, lambda m: [s for s in _like_samples(m) if s.args[0].is_contiguous()] + [
               SampleInput((m.make((3, 4), "t"), m.make((12,))), desc="transposed as flat", error="strides")],
           autograd=True),
    OpInfo("squeeze.all", opcore.squeeze, _t("squeeze"), np.squeeze, ("squeeze",), DTYPES,
           lambda m: _view_samples(_squeeze_all_args)(m) + [SampleInput((m.make((1, 2, 1, 3)),), desc="1x2x1x3",
                                                                        grad=True)],
           view=True, autograd=True),
    OpInfo("squeeze.dims", opcore.squeeze, _torch_squeeze_dims, _np_squeeze_dims, ("squeeze.dims",), DTYPES,
           _squeeze_samples, view=True, autograd=True),
    OpInfo("flip", opcore.flip, _t("flip"), _np_flip, ("flip",), DTYPES, _flip_samples, out=("out",),
           view=False, autograd=True, grad_complex=True),
    OpInfo("roll", opcore.roll, _t("roll"), _np_roll, ("roll",), DTYPES, _roll_samples, out=("out",),
           view=False, autograd=True),
    OpInfo("tril", opcore.tril, _t("tril"), lambda x, k=0: np.tril(x, k), ("tril", "tril_", "tril.out"), DTYPES,
           _triangle_samples, out=("out",), inplace="tril_", view=False, autograd=True, grad_complex=True),
    OpInfo("triu", opcore.triu, _t("triu"), lambda x, k=0: np.triu(x, k), ("triu", "triu_", "triu.out"), DTYPES,
           _triangle_samples, out=("out",), inplace="triu_", view=False, autograd=True),
    OpInfo("repeat", _repeat_op, _method("repeat"), _np_repeat, ("repeat",), DTYPES, _repeat_samples,
           out=("out",), view=False, autograd=True, grad_complex=True),
    OpInfo("tile", opcore.tile, _t("tile"), np.tile, ("tile",), DTYPES, _tile_samples, autograd=True),
    OpInfo("pixel_shuffle", opcore.pixel_shuffle, _t("pixel_shuffle"), _np_pixel_shuffle,
           ("pixel_shuffle", "pixel_shuffle.out"), DTYPES, _pixel_shuffle_samples(True), out=("out",), view=False,
           autograd=True, grad_complex=True),
    OpInfo("pixel_unshuffle", opcore.pixel_unshuffle, _torch_pixel_unshuffle, _np_pixel_unshuffle,
           ("pixel_unshuffle", "pixel_unshuffle.out"), DTYPES, _pixel_shuffle_samples(False), out=("out",),
           view=False, autograd=True),
    OpInfo("diagonal", opcore.diagonal, _t("diagonal"), _np_diagonal, ("diagonal",), DTYPES, _diagonal_samples,
           view=True, autograd=True, grad_complex=True),
    OpInfo("movedim", opcore.movedim, _t("movedim"), np.moveaxis, ("movedim.intlist", "movedim.int"), DTYPES,
           _movedim_samples, view=True, autograd=True),
    OpInfo("alias", opcore.alias, lambda x: x.view(x.shape), lambda x: x, ("alias",), DTYPES, unary_samples,
           view=True, autograd=True),
    OpInfo("as_strided", opcore.as_strided, _t("as_strided"), _np_as_strided, ("as_strided",), DTYPES,
           _as_strided_samples, view=True, autograd=True),
    OpInfo("constant_pad_nd", opcore.constant_pad_nd, _torch_pad, None, ("constant_pad_nd",),
           DTYPES, _pad_samples, out=("out",), view=False, autograd=True, grad_complex=True),
]


# --- factories ------------------------------------------------------------------------------------


def _factory_samples(make_args):
    def make(m):
        return [SampleInput(args, {"dtype": m.dtype}, f"{args}", out=out) for args, out in make_args(m)]
    return make


def _size_args(m):
    return [(((2, 3),), False), (((0, 4),), False), (((),), False), (((5,),), False)]


def _full_args(m):
    values = [m.scalar()] + [v.item() for v in from_values(extreme_values(m.dtype), (len(extreme_values(m.dtype)),),
                                                           m.dtype)]
    return [(((2, 3), v), False) for v in values] + [(((0,), m.scalar()), False), (((), m.scalar()), False)]


def _arange_args(m):
    args = [((5,), False), ((0,), False), ((2, 9), True), ((9, 2, -2), True), ((1, 1), True), ((-3, 4, 3), True)]
    if m.dtype in FLOATING:
        args += [((0, 1, 0.125), True), ((-1.5, 2.25, 0.75), True), ((2.5,), False)]
    return args


def _torch_factory(name):
    def f(*args, dtype):
        return getattr(torch, name)(*args, dtype=dtype)
    return f


def _np_factory(name):
    def f(*args, dtype):
        dtype = np_dtype(dtype)
        if name == "arange":
            return np.arange(*args, dtype=np.float64 if dtype.kind == "f" else dtype)
        if name == "full":
            return np.full(args[0], args[1], dtype=dtype)
        return getattr(np, name)(args[0], dtype=dtype)
    return f


def _factory(name, dtypes, make_args, covers, out=()):
    return OpInfo(name, getattr(opcore, name), _torch_factory(name), _np_factory(name), covers, dtypes,
                  _factory_samples(make_args), out=out)


# Core ATen part 1 (issue #33): factories and conversions.


def _full_like_samples(m):
    s = []
    for x in unary_samples(m):
        s.append(SampleInput((x.args[0], m.scalar()), desc=f"{x.desc}, number"))
    for target in (opcore.float64, opcore.int64, opcore.bool):
        s.append(SampleInput((m.make((2, 3)), 1), {"dtype": target}, f"2x3, 1 as {target}", dtype=target))
    return s


def _filled_like_samples(m):
    """zeros_like / ones_like: every kind of self (unary_samples'), whose values are not read, then
    other dtypes."""
    s = [SampleInput((x.args[0],), desc=x.desc) for x in unary_samples(m)]
    for target in (opcore.float64, opcore.int64, opcore.bool):
        s.append(SampleInput((m.make((2, 3)),), {"dtype": target}, f"2x3 as {target}", dtype=target))
    return s


def _new_samples(fill):
    """new_zeros / new_ones / new_full (fill: with a fill value): every kind of self, whose
    dtype the result takes and whose values are not read; sizes; other dtypes."""
    def make(m):
        def args(self, size):
            return (self, size, m.scalar()) if fill else (self, size)
        s = [SampleInput(args(x.args[0], (2, 3)), desc=f"{x.desc} self") for x in unary_samples(m)]
        s += [SampleInput(args(m.make((2,)), size), desc=f"size {size}") for size in ((), (0, 4), (5,))]
        if fill:
            s += [SampleInput((m.make((2,)), (3,), v.item()), desc=f"extreme fill {i}")
                  for i, v in enumerate(from_values(extreme_values(m.dtype), (len(extreme_values(m.dtype)),), m.dtype))]
        for target in (opcore.float64, opcore.int64, opcore.bool):
            s.append(SampleInput(args(m.make((2, 3)), (3, 2))[:2] + ((1,) if fill else ()), {"dtype": target},
                                 f"3x2 as {target}", dtype=target))
        return s
    return make


def _np_new(fill_value=None):
    def f(self, size, *value, dtype=None):
        return np.full(size, value[0] if value else fill_value, dtype=np_dtype(dtype) or np.asarray(self).dtype)
    return f


def _scalar_tensor_samples(m):
    values = [m.scalar()] + [v.item() for v in from_values(extreme_values(m.dtype), (len(extreme_values(m.dtype)),),
                                                           m.dtype)]
    return [SampleInput((v,), {"dtype": m.dtype}, f"{v!r}", out=False) for v in values]


def _eye_args(m):
    return [((3,), True), ((0,), True), ((2, 4), True), ((4, 1), True), ((0, 3), True)]


def _linspace_args(m):
    args = [((0, 10, 5), True), ((-3, 3, 7), True), ((2, 2, 1), True), ((1, 5, 0), True), ((10, 0, 4), True)]
    if m.dtype in FLOATING + COMPLEX:
        args += [((0.5, -1.25, 6), True), ((0, 1, 101), True)]
    return args


def _to_copy_samples(m):
    s = []
    for x in unary_samples(m):
        s.append(SampleInput(x.args, {}, f"{x.desc}", x.grad))
    for target in (opcore.float64, opcore.int32, opcore.complex128, opcore.bool):
        if target in FLOATING + COMPLEX or m.dtype in INTEGRAL + (opcore.bool,) or target is opcore.bool:
            s.append(SampleInput((m.make((3, 4), "t"),), {"dtype": target}, f"transposed to {target}", dtype=target))
    return s


def _torch_to_copy(x, dtype=None):
    if x.is_complex() and dtype is not None and not dtype.is_complex:
        x = x.real
    return x.to(dtype or x.dtype, copy=True)


def _local_scalar_samples(m):
    e = extreme_values(m.dtype)
    return [SampleInput((m.make((1,)),), desc="1 element"), SampleInput((m.make(()),), desc="0-dim"),
            SampleInput((m.make((1, 1), "t"),), desc="1x1 transposed")] + [
        SampleInput((from_values(e[i:i + 1], (), m.dtype),), desc=f"extreme {i}") for i in range(len(e))] + [
        SampleInput((m.make((2,)),), desc="2 elements", error="cannot be converted to Scalar")]


def _local_scalar(x):
    return opcore.full([], opcore._local_scalar_dense(x), dtype=x.dtype)


FACTORIES = [
    _factory("zeros", DTYPES, _size_args, ("zeros", "zeros.out"), out=("out",)),
    _factory("ones", DTYPES, _size_args, ("ones", "ones.out"), out=("out",)),
    _factory("full", DTYPES, _full_args, ("full", "full.out"), out=("out",)),
    _factory("arange", REAL, _arange_args, ("arange", "arange.start", "arange.start_step", "arange.start_out",
                                            "arange.out"), out=("out",)),
    # Core ATen part 1 (issue #33): factories and conversions
    OpInfo("full_like", opcore.full_like, _t("full_like"), lambda x, v, dtype=None: np.full(x.shape, v, dtype=np_dtype(dtype) or x.dtype),
           ("full_like",), DTYPES, _full_like_samples),
    OpInfo("zeros_like", opcore.zeros_like, _t("zeros_like"),
           lambda x, dtype=None: np.zeros(np.shape(x), dtype=np_dtype(dtype) or np.asarray(x).dtype), ("zeros_like",),
           DTYPES, _filled_like_samples),
    OpInfo("ones_like", opcore.ones_like, _t("ones_like"),
           lambda x, dtype=None: np.ones(np.shape(x), dtype=np_dtype(dtype) or np.asarray(x).dtype), ("ones_like",),
           DTYPES, _filled_like_samples),
    OpInfo("new_zeros", _method("new_zeros"), _method("new_zeros"), _np_new(0), ("new_zeros",), DTYPES,
           _new_samples(fill=False)),
    OpInfo("new_ones", _method("new_ones"), _method("new_ones"), _np_new(1), ("new_ones",), DTYPES,
           _new_samples(fill=False)),
    OpInfo("new_full", _method("new_full"), _method("new_full"), _np_new(), ("new_full",), DTYPES,
           _new_samples(fill=True)),
    OpInfo("scalar_tensor", opcore.scalar_tensor, _t("scalar_tensor"), lambda v, dtype: np.array(v, dtype=np_dtype(dtype)),
           ("scalar_tensor",), DTYPES, _scalar_tensor_samples),
    OpInfo("eye", opcore.eye, _torch_factory("eye"), lambda *a, dtype: np.eye(*a, dtype=np_dtype(dtype)),
           ("eye", "eye.m", "eye.out", "eye.m_out"), DTYPES, _factory_samples(_eye_args), out=("out",)),
    OpInfo("linspace", opcore.linspace, _torch_factory("linspace"), None, ("linspace", "linspace.out"),
           ALL_BUT_BOOL, _factory_samples(_linspace_args), out=("out",)),
    OpInfo("_to_copy", opcore._to_copy, _torch_to_copy, None, ("_to_copy",), DTYPES, _to_copy_samples, view=False,
           autograd=True, grad_complex=True),
    OpInfo("copy", opcore.copy, lambda d, s: _torch_copy(d.clone(), s), lambda d, s: _np_copy(d.copy(), s), ("copy",),
           DTYPES, _copy_samples, view=False, autograd=True),
    OpInfo("_local_scalar_dense", _local_scalar, lambda x: x.reshape(()).clone(), lambda x: np.asarray(x).reshape(()),
           ("_local_scalar_dense",), DTYPES, _local_scalar_samples),
]

# --- indexing (issue #33) ----------------------------------------------------------------------------

from opinfo_samples import LARGE  # noqa: E402  (kept in this family's region)


def _long(values):
    return opcore.tensor(values, dtype=opcore.int64)


def _random_index(m, shape, high):
    return opcore.tensor(m.rng.integers(0, high, size=shape), dtype=opcore.int64)


def _other_dtype(dtype):
    return opcore.float32 if dtype is opcore.float64 else opcore.float64


# Reductions accumulate in the element's dtype, in order along dim, as PyTorch's CPU kernels do:
# the reference computes in the same dtype (and order), not in float64.
_SAME_DTYPE = {opcore.float16: opcore.float16, opcore.bfloat16: opcore.bfloat16, opcore.float32: opcore.float32,
               opcore.complex64: opcore.complex64}


def _gather_samples(m):
    x = m.make((3, 4))
    e = len(extreme_values(m.dtype))
    return [SampleInput((x, 1, _long([[0, 3, 3], [1, 0, 2], [2, 2, 2]])), desc="3x4, dim 1", grad=True),
            SampleInput((x, 0, _long([[2, 0], [1, 1]])), desc="3x4, dim 0, smaller index", grad=True),
            SampleInput((x, -1, _long([[3], [0], [1]])), desc="3x4, dim -1"),
            SampleInput((m.make(()), 0, _long(0)), desc="0-dim", grad=True),
            SampleInput((m.make((3,)), 0, _long(2)), desc="1-d, 0-dim index"),
            SampleInput((m.make((0, 3)), 1, opcore.zeros(0, 2, dtype=opcore.int64)), desc="empty 0x3"),
            SampleInput((x, 1, opcore.zeros(3, 0, dtype=opcore.int64)), desc="empty index"),
            SampleInput((m.make((4, 3), "t"), 1, _long([[0, 1, 2, 2], [2, 1, 0, 0]]).t()), desc="transposed, transposed index"),
            SampleInput((m.make((3, 4), "step"), 0, _long([[2, 1, 0, 0]])), desc="step-sliced"),
            SampleInput((m.make((3, 4), "expand"), 0, _long([[2, 1, 0, 0]]).expand(2, 4)), desc="expanded, expanded index"),
            SampleInput((m.make((e,), kind="extreme"), 0, _long(list(range(e - 1, -1, -1)) + [0, 0])), desc="extremes"),
            SampleInput((m.make(LARGE, kind="scattered"), 1, _random_index(m, LARGE, LARGE[1])),
                        desc="large, extremes scattered"),
            SampleInput((m.make((70000,)), 0, _random_index(m, (140000,), 70000)), desc="large 1-d (one row, split)"),
            SampleInput((x, 0, _long([[3]])), desc="index out of range", error="out of bounds", error_type=IndexError),
            SampleInput((x, 0, _long([[-1]])), desc="negative index", error="out of bounds", error_type=IndexError),
            SampleInput((x, 0, opcore.tensor([[0]], dtype=opcore.int32)), desc="int32 index", error="int64"),
            SampleInput((x, 0, _long([0])), desc="index of another rank", error="same number of dimensions"),
            SampleInput((x, 0, _long([[0, 0, 0, 0, 0]])), desc="index larger than self", error="Size does not match")]


def _scatter_samples(value=False, kwargs=None, unique=False):
    """scatter-like samples: (self, dim, index, src or a number); unique: no place receives
    two elements (where the order of a reduction would show)."""
    kwargs = kwargs or {}

    def make(m):
        e = len(extreme_values(m.dtype))

        def src(shape, layout="contig", kind="random"):
            return m.scalar(kind if kind != "extreme" else "random") if value else m.make(shape, layout, kind)
        x = m.make((3, 4))
        dup = _long([[0, 3, 3], [1, 0, 2], [2, 2, 2]])
        s = [SampleInput((x, 1, _long([[0, 3], [1, 0], [2, 1]]), src((3, 2))), dict(kwargs), "3x4, dim 1", grad=True),
             # src larger than index: PyTorch's formula (grad.gather) has index's shape, which its
             # engine and opcore's refuse for src: not a gradcheck sample
             SampleInput((x, 0, _long([[2, 0, 1, 1]]), src((2, 4))), dict(kwargs), "3x4, dim 0, smaller index"),
             SampleInput((x, 0, _long([[2, 0, 1, 1]]), src((1, 4))), dict(kwargs), "3x4, dim 0", grad=True),
             SampleInput((m.make(()), 0, _long(0), src(())), dict(kwargs), "0-dim", grad=True),
             SampleInput((m.make((0, 3)), 1, opcore.zeros(0, 3, dtype=opcore.int64), src((0, 3))), dict(kwargs),
                         "empty 0x3"),
             SampleInput((x, 1, opcore.zeros(3, 0, dtype=opcore.int64), src((3, 0))), dict(kwargs), "empty index"),
             SampleInput((m.make((4, 3), "t"), 1, _long([[0, 1, 2, 2], [2, 1, 0, 0]]).t(), src((4, 2), "step")),
                         dict(kwargs), "transposed, transposed index, step-sliced src"),
             SampleInput((m.make((3, 4), "step"), 0, _long([[2, 1, 0, 0]]).expand(1, 4), src((3, 4), "expand")),
                         dict(kwargs), "step-sliced, expanded src"),
             SampleInput((m.make((e,), kind="extreme"), 0, _long(list(range(e - 1, -1, -1))), src((e,), kind="extreme")),
                         dict(kwargs), "extremes")]
        if not unique:
            s += [SampleInput((x, -1, dup, src((3, 3))), dict(kwargs), "3x4, dim -1, repeated places"),
                  SampleInput((m.make(LARGE, kind="scattered"), 1, _random_index(m, LARGE, LARGE[1]),
                               src(LARGE, kind="scattered")), dict(kwargs), "large, extremes scattered")]
        s += [SampleInput((x, 0, _long([[3]]), src((1, 1))), dict(kwargs), "index out of range", error="out of bounds",
                          error_type=IndexError),
              SampleInput((x, 0, opcore.tensor([[0]], dtype=opcore.int32), src((1, 1))), dict(kwargs), "int32 index",
                          error="int64"),
              SampleInput((x, 0, _long([[0, 0, 0, 0, 0]]), src((1, 5))), dict(kwargs), "index larger than self",
                          error="smaller")]
        if not value:
            s.append(SampleInput((x, 0, _long([[0]]), Maker(_other_dtype(m.dtype), 1).make((1, 1))), dict(kwargs),
                                 "src of another dtype", error="dtype"))
        return s
    return make


def _np_gather(x, dim, index):
    index = np.asarray(index)
    if np.ndim(x) == 0:
        return np.asarray(x)[()] if index.ndim == 0 else np.broadcast_to(x, index.shape).copy()
    x = np.asarray(x)
    if index.ndim == 0:
        index = index.reshape(1)
    grids = np.meshgrid(*[np.arange(n) for n in index.shape], indexing="ij")
    grids[dim if dim >= 0 else dim + x.ndim] = index
    return x[tuple(grids)]


def _scatter_reduce_samples(reduce):
    def make(m):
        s = []
        for include_self in (True, False):
            for x in _scatter_samples()(m):
                kwargs = {} if include_self else {"include_self": False}
                desc = x.desc if include_self else f"{x.desc}, include_self=False"
                s.append(SampleInput(x.args + (reduce,), kwargs, desc, error=x.error, error_type=x.error_type))
        return s
    return make


def _scatter_reduce_row(reduce, dtypes):
    return OpInfo(f"scatter_reduce.{reduce}", opcore.scatter_reduce, _t("scatter_reduce"), None,
                  ("scatter_reduce.two", "scatter_reduce_.two", "scatter_reduce.two_out"), dtypes,
                  _scatter_reduce_samples(reduce), out=("out",), inplace="scatter_reduce_", upcast=_SAME_DTYPE)


def _index_select_samples(m):
    x = m.make((3, 4))
    e = len(extreme_values(m.dtype))
    return [SampleInput((x, 0, _long([2, 0, 2])), desc="3x4, dim 0", grad=True),
            SampleInput((x, 1, opcore.tensor([3, 1], dtype=opcore.int32)), desc="3x4, dim 1, int32 index", grad=True),
            SampleInput((x, -1, _long(1)), desc="3x4, 0-dim index"),
            SampleInput((m.make(()), 0, _long([0])), desc="0-dim", grad=True),
            SampleInput((m.make((0, 3)), 1, _long([0, 2])), desc="empty 0x3"),
            SampleInput((x, 0, _long([])), desc="empty index"),
            SampleInput((m.make((4, 3), "t"), 1, _long([2, 0])), desc="transposed"),
            SampleInput((m.make((3, 4), "step"), 1, _long([3, 3, 0])), desc="step-sliced"),
            SampleInput((m.make((3, 4), "expand"), 0, _long([2, 1])), desc="expanded"),
            SampleInput((m.make((2, 3, 4)), 1, _long([2, 0, 1, 1])), desc="2x3x4, dim 1"),
            SampleInput((m.make((e,), kind="extreme"), 0, _long(list(range(e - 1, -1, -1)))), desc="extremes"),
            SampleInput((m.make(LARGE, kind="scattered"), 0, _random_index(m, (300,), LARGE[0])),
                        desc="large, extremes scattered, dim 0"),
            SampleInput((m.make(LARGE, kind="scattered"), 1, _random_index(m, (300,), LARGE[1])),
                        desc="large, extremes scattered, dim 1"),
            SampleInput((x, 0, _long([3])), desc="index out of range", error="out of (range|bounds)",
                        error_type=IndexError),
            SampleInput((x, 0, _long([-1])), desc="negative index", error="out of (range|bounds)", error_type=IndexError),
            SampleInput((x, 0, _long([[0]])), desc="2-d index", error="vector", error_type=IndexError),
            SampleInput((x, 2, _long([0])), desc="dim out of range", error="out of range", error_type=IndexError)]


def _index_add_samples(m):
    x = m.make((3, 4))
    e = len(extreme_values(m.dtype))
    return [SampleInput((x, 0, _long([2, 0, 2]), m.make((3, 4))), desc="3x4, dim 0, repeated", grad=True),
            SampleInput((x, 1, opcore.tensor([3, 1], dtype=opcore.int32), m.make((3, 2))), {"alpha": m.scalar()},
                        desc="3x4, dim 1, int32 index, alpha", grad=True),
            SampleInput((m.make(()), 0, _long([0]), m.make(())), desc="0-dim", grad=True),
            SampleInput((m.make((0, 3)), 1, _long([0, 2]), m.make((0, 2))), desc="empty 0x3"),
            SampleInput((x, 0, _long([]), m.make((0, 4))), desc="empty index"),
            SampleInput((m.make((4, 3), "t"), 1, _long([2, 0]), m.make((4, 2), "step")), desc="transposed, step-sliced"),
            SampleInput((m.make((3, 4), "step"), 0, _long([2, 1]), m.make((2, 4), "expand")), desc="expanded source"),
            SampleInput((m.make((e,), kind="extreme"), 0, _long(list(range(e - 1, -1, -1))), m.make((e,), kind="extreme")),
                        desc="extremes"),
            SampleInput((m.make(LARGE, kind="scattered"), 0, _random_index(m, (300,), LARGE[0]),
                         m.make((300, LARGE[1]), kind="scattered")), desc="large, extremes scattered"),
            SampleInput((x, 0, _long([3]), m.make((1, 4))), desc="index out of range", error="out of (range|bounds)",
                        error_type=IndexError),
            SampleInput((x, 0, _long([0, 1]), m.make((3, 4))), desc="wrong number of indices", error="Number of indices"),
            SampleInput((x, 0, _long([0]), m.make((1, 3))), desc="slices of another shape", error="slice shapes")]


INDEXING = [
    # Core ATen part 1 (issue #33): indexing
    OpInfo("gather", opcore.gather, _t("gather"), _np_gather, ("gather", "gather.out"), DTYPES, _gather_samples,
           out=("out",), autograd=True, grad_complex=True),
    OpInfo("scatter", opcore.scatter, _t("scatter"), None, ("scatter.src", "scatter_.src", "scatter.src_out"), DTYPES,
           _scatter_samples(), out=("out",), inplace="scatter_", autograd=True, grad_complex=True),
    OpInfo("scatter.value", opcore.scatter, _t("scatter"), None, ("scatter.value", "scatter_.value",
                                                                  "scatter.value_out"), DTYPES,
           _scatter_samples(value=True), out=("out",), inplace="scatter_", autograd=True),
    OpInfo("scatter.reduce", opcore.scatter, _t("scatter"), None, ("scatter.reduce", "scatter_.reduce",
                                                                   "scatter.reduce_out"), DTYPES,
           lambda m: _scatter_samples(kwargs={"reduce": "add"})(m) + _scatter_samples(kwargs={"reduce": "multiply"})(m),
           out=("out",), inplace="scatter_", upcast=_SAME_DTYPE),
    OpInfo("scatter.value_reduce", opcore.scatter, _t("scatter"), None,
           ("scatter.value_reduce", "scatter_.value_reduce", "scatter.value_reduce_out"), DTYPES,
           lambda m: (_scatter_samples(True, {"reduce": "add"})(m) + _scatter_samples(True, {"reduce": "multiply"})(m)),
           out=("out",), inplace="scatter_", upcast=_SAME_DTYPE),
    OpInfo("scatter_add", opcore.scatter_add, _t("scatter_add"), None, ("scatter_add", "scatter_add_", "scatter_add.out"),
           DTYPES, _scatter_samples(), out=("out",), inplace="scatter_add_", autograd=True, grad_complex=True,
           upcast=_SAME_DTYPE),
    _scatter_reduce_row("sum", DTYPES),
    _scatter_reduce_row("prod", DTYPES),
    _scatter_reduce_row("mean", ALL_BUT_BOOL),
    _scatter_reduce_row("amax", REAL + (opcore.bool,)),
    _scatter_reduce_row("amin", REAL + (opcore.bool,)),
    OpInfo("index_select", opcore.index_select, _t("index_select"), lambda x, d, i: np.take(x, i, axis=d),
           ("index_select", "index_select.out"), DTYPES, _index_select_samples, out=("out",), autograd=True,
           grad_complex=True),
    OpInfo("index_add", opcore.index_add, _t("index_add"), None, ("index_add", "index_add_", "index_add.out"), DTYPES,
           _index_add_samples, out=("out",), inplace="index_add_", autograd=True, grad_complex=True,
           upcast=_SAME_DTYPE),
]


def _index_put_samples(m):
    x = m.make((4, 3))
    e = len(extreme_values(m.dtype))
    acc = {"accumulate": True}
    return [SampleInput((x, [_long([2, 0])], m.make((2, 3))), desc="rows", grad=True),
            SampleInput((x, [None, _long([[1, 0], [2, 2]])], m.make((4, 2, 2))), desc="2-D index dim 1 (repeats)"),
            SampleInput((x, [_long([2, 0, 2])], m.make((3,))), acc, "accumulate, repeats, broadcast values", grad=True),
            SampleInput((x, [_long([0, 3]), _long([2, -3])], m.make(())), desc="two indices, 0-dim value", grad=True),
            SampleInput((x, [opcore.tensor([True, False, True, True])], m.make((3,))), desc="bool mask"),
            SampleInput((x, [_long([])], m.make(())), desc="empty index"),
            SampleInput((m.make((0, 3)), [None, _long([1])], m.make((0, 1))), desc="empty 0x3"),
            SampleInput((m.make((3, 4), "t"), [_long([1])], m.make((4,), "step")), desc="transposed, step-sliced values"),
            SampleInput((m.make((4, 6), "step"), [None, _long([0, 2])], m.make((4, 2), "expand")),
                        desc="step-sliced, expanded values"),
            SampleInput((m.make((e,), kind="extreme"), [_long(list(range(e - 1, -1, -1)))], m.make((e,), kind="extreme")),
                        desc="extremes"),
            SampleInput((m.make(LARGE, kind="scattered"), [_random_index(m, (300,), LARGE[0])],
                         m.make((300, LARGE[1]), kind="scattered")), acc, "large, accumulate, extremes scattered"),
            SampleInput((x, [_long([4])], m.make(())), desc="index out of range", error="out of bounds",
                        error_type=IndexError),
            SampleInput((x, [_long([0])], Maker(_other_dtype(m.dtype), 1).make(())), desc="values of another dtype",
                        error="dtypes match"),
            SampleInput((x, [_long([0, 1])], m.make((3, 3))), desc="values of the wrong shape", error="shape mismatch")]


def _torch_index_put(x, indices, values, accumulate=False):
    # torch 1.13's torch.index_put binding refuses None in indices (a Tensor[] there); its operator takes Tensor?[].
    return torch.ops.aten.index_put(x, list(indices), values, accumulate)


def _mask(m, shape, seed_kind="random"):
    return Maker(opcore.bool, 5).make(shape)


def _masked_fill_samples(tensor_value):
    def make(m):
        e = len(extreme_values(m.dtype))
        b = Maker(opcore.bool, 17)

        def value(kind="random"):
            return m.make(()) if tensor_value else m.scalar(kind)
        s = [SampleInput((m.make((2, 3)), b.make((2, 3)), value()), desc="2x3", grad=True),
             SampleInput((m.make((2, 3)), b.make((3,)), value()), desc="2x3, broadcast mask", grad=True),
             SampleInput((m.make((3,)), b.make((2, 3)), value()), desc="3, 2x3 mask (broadcast self)"),
             SampleInput((m.make(()), opcore.tensor(True), value()), desc="0-dim", grad=True),
             SampleInput((m.make((0, 3)), b.make((0, 3)), value()), desc="empty 0x3"),
             SampleInput((m.make((3, 4), "t"), b.make((3, 4), "step"), value()), desc="transposed, step-sliced mask"),
             SampleInput((m.make((3, 4), "step"), b.make((3, 4), "t"), value()), desc="step-sliced, transposed mask"),
             SampleInput((m.make((e,), kind="extreme"), b.make((e,)), value()), desc="extremes"),
             SampleInput((m.make(LARGE, kind="scattered"), b.make(LARGE), value()), desc="large, extremes scattered"),
             SampleInput((m.make((2, 3)), opcore.ones(2, 3, dtype=opcore.int64), value()), desc="int64 mask",
                         error="boolean")]
        if m.dtype in FLOATING:
            for v in (math.nan, -math.inf):
                s.append(SampleInput((m.make((2, 3)), b.make((2, 3)), opcore.tensor(v).to(m.dtype) if tensor_value else v),
                                     desc=f"extreme value {v}"))
        if tensor_value:
            s.append(SampleInput((m.make((2, 3)), b.make((2, 3)), m.make((1,))), desc="1-d value", error="0-dimensional"))
        return s
    return make


def _masked_scatter_samples(m):
    b = Maker(opcore.bool, 23)
    e = len(extreme_values(m.dtype))
    return [SampleInput((m.make((2, 3)), b.make((2, 3)), m.make((6,))), desc="2x3", grad=True),
            SampleInput((m.make((2, 3)), b.make((3,)), m.make((2, 4))), desc="2x3, broadcast mask, 2-D source", grad=True),
            SampleInput((m.make((3,)), b.make((2, 3)), m.make((7,))), desc="3, 2x3 mask (broadcast self)"),
            SampleInput((m.make(()), opcore.tensor(True), m.make(())), desc="0-dim", grad=True),
            SampleInput((m.make((0, 3)), b.make((0, 3)), m.make((0,))), desc="empty 0x3"),
            SampleInput((m.make((3, 4), "t"), b.make((3, 4), "step"), m.make((4, 3), "t")), desc="transposed, step-sliced mask"),
            SampleInput((m.make((e,), kind="extreme"), b.make((e,)), m.make((e,), kind="extreme")), desc="extremes"),
            SampleInput((m.make(LARGE, kind="scattered"), b.make(LARGE), m.make(LARGE, kind="scattered")),
                        desc="large, extremes scattered"),
            SampleInput((m.make((2, 3)), opcore.ones(2, 3, dtype=opcore.bool), m.make((5,))), desc="source too small",
                        error="source"),
            SampleInput((m.make((2, 3)), b.make((2, 3)), Maker(_other_dtype(m.dtype), 1).make((6,))),
                        desc="source of another dtype", error="dtype")]


def _masked_select_samples(m):
    b = Maker(opcore.bool, 29)
    e = len(extreme_values(m.dtype))
    return [SampleInput((m.make((2, 3)), b.make((2, 3))), desc="2x3", grad=True),
            SampleInput((m.make((2, 3)), b.make((3,))), desc="2x3, broadcast mask", grad=True),
            SampleInput((m.make((3,)), b.make((2, 3))), desc="3, 2x3 mask (broadcast self)", grad=True),
            SampleInput((m.make(()), opcore.tensor(True)), desc="0-dim"),
            SampleInput((m.make((0, 3)), b.make((0, 3))), desc="empty 0x3"),
            SampleInput((m.make((3, 4), "t"), b.make((3, 4), "step")), desc="transposed, step-sliced mask"),
            SampleInput((m.make((3, 4), "expand"), b.make((3, 4))), desc="expanded"),
            SampleInput((m.make((e,), kind="extreme"), b.make((e,))), desc="extremes"),
            SampleInput((m.make(LARGE, kind="scattered"), b.make(LARGE)), desc="large, extremes scattered"),
            SampleInput((m.make((2, 3)), opcore.ones(2, 3, dtype=opcore.int64)), desc="int64 mask", error="boolean")]


def _nonzero_samples(m):
    e = len(extreme_values(m.dtype))
    sparse = m.make(LARGE, kind="scattered")
    return [SampleInput((m.make((2, 3)),), desc="2x3"),
            SampleInput((m.make(()),), desc="0-dim"),
            SampleInput((opcore.zeros((), dtype=m.dtype),), desc="0-dim zero"),
            SampleInput((m.make((0, 3)),), desc="empty 0x3"),
            SampleInput((m.make((3, 4), "t"),), desc="transposed"),
            SampleInput((m.make((2, 3, 4), "step"),), desc="step-sliced 2x3x4"),
            SampleInput((m.make((3, 4), "expand"),), desc="expanded"),
            SampleInput((m.make((e,), kind="extreme"),), desc="extremes"),
            SampleInput((m.make((e, 2), "t", kind="extreme"),), desc="extremes transposed"),
            SampleInput((sparse,), desc="large, extremes scattered"),
            SampleInput((opcore.zeros(300, 400, dtype=m.dtype),), desc="large, all zero")]


def _take_samples(m):
    e = len(extreme_values(m.dtype))
    return [SampleInput((m.make((2, 3)), _long([[5, 0], [-1, 2]])), desc="2x3, 2-D index", grad=True),
            SampleInput((m.make(()), _long(0)), desc="0-dim", grad=True),
            SampleInput((m.make((3,)), _long([])), desc="empty index"),
            SampleInput((m.make((0, 3)), _long([])), desc="empty self, empty index"),
            SampleInput((m.make((3, 4), "t"), _long([11, 1, 1])), desc="transposed (row-major order)"),
            SampleInput((m.make((3, 4), "step"), _long([[0, 7], [3, 4]]).t()), desc="step-sliced, transposed index"),
            SampleInput((m.make((e,), kind="extreme"), _long(list(range(e - 1, -e - 1, -1)))), desc="extremes"),
            SampleInput((m.make(LARGE, kind="scattered"), _random_index(m, (200000,), LARGE[0] * LARGE[1])),
                        desc="large, extremes scattered"),
            SampleInput((m.make((2, 3)), _long([6])), desc="index out of range", error="out of range",
                        error_type=IndexError),
            SampleInput((m.make((2, 3)), _long([-7])), desc="negative index out of range", error="out of range",
                        error_type=IndexError),
            SampleInput((m.make((2, 3)), opcore.tensor([0], dtype=opcore.int32)), desc="int32 index", error="long")]


def _put_samples(m):
    e = len(extreme_values(m.dtype))
    acc = {"accumulate": True}
    return [SampleInput((m.make((2, 3)), _long([5, 0, 2]), m.make((3,))), desc="2x3", grad=True),
            SampleInput((m.make((2, 3)), _long([[5, 0], [5, -1]]), m.make((2, 2))), acc, "accumulate, repeats",
                        grad=True),
            SampleInput((m.make(()), _long(0), m.make(())), desc="0-dim", grad=True),
            SampleInput((m.make((3,)), _long([]), m.make((0,))), desc="empty index"),
            SampleInput((m.make((0, 3)), _long([]), m.make((0,))), desc="empty self"),
            SampleInput((m.make((3, 4), "t"), _long([11, 1, 4]), m.make((3,))), desc="transposed (row-major order)"),
            SampleInput((m.make((3, 4), "step"), _long([0, 7]), m.make((2, 2), "t")[0]), desc="step-sliced"),
            SampleInput((m.make((e,), kind="extreme"), _long(list(range(e - 1, -1, -1))), m.make((e,), kind="extreme")),
                        desc="extremes"),
            SampleInput((m.make(LARGE, kind="scattered"), _random_index(m, (20000,), LARGE[0] * LARGE[1]),
                         m.make((20000,), kind="scattered")), acc, "large, accumulate, extremes scattered"),
            SampleInput((m.make((2, 3)), _long([6]), m.make((1,))), desc="index out of range", error="out of range",
                        error_type=IndexError),
            SampleInput((m.make((2, 3)), _long([0, 1]), m.make((3,))), desc="source of another size",
                        error="same number of elements")]


def _index_fill_samples(tensor_value):
    def make(m):
        e = len(extreme_values(m.dtype))

        def value():
            return m.make(()) if tensor_value else m.scalar()
        s = [SampleInput((m.make((3, 4)), 1, _long([3, 0]), value()), desc="3x4, dim 1", grad=True),
             SampleInput((m.make((3, 4)), 0, _long([2, 0, 2]), value()), desc="3x4, dim 0, repeats", grad=True),
             SampleInput((m.make((3, 4)), -1, _long(-1), value()), desc="0-dim negative index"),
             SampleInput((m.make(()), 0, _long([0]), value()), desc="0-dim", grad=True),
             SampleInput((m.make((0, 3)), 1, _long([2]), value()), desc="empty 0x3"),
             SampleInput((m.make((3, 4)), 0, _long([]), value()), desc="empty index"),
             SampleInput((m.make((3, 4), "t"), 1, _long([1]), value()), desc="transposed"),
             SampleInput((m.make((3, 4), "step"), 1, _long([3, 1]), value()), desc="step-sliced"),
             SampleInput((m.make((e,), kind="extreme"), 0, _long([0, e - 1]), value()), desc="extremes"),
             SampleInput((m.make(LARGE, kind="scattered"), 1, _random_index(m, (50,), LARGE[1]), value()),
                         desc="large, extremes scattered"),
             SampleInput((m.make((3, 4)), 0, _long([3]), value()), desc="index out of range", error="out of bounds",
                         error_type=IndexError),
             SampleInput((m.make((3, 4)), 0, opcore.tensor([0], dtype=opcore.int32), value()), desc="int32 index",
                         error="int64")]
        if tensor_value:
            s.append(SampleInput((m.make((3, 4)), 0, _long([0]), m.make((1,))), desc="1-d value", error="0-dimensional"))
        return s
    return make


def _select_scatter_samples(m):
    e = len(extreme_values(m.dtype))
    return [SampleInput((m.make((3, 4)), m.make((4,)), 0, -1), desc="3x4, row", grad=True),
            SampleInput((m.make((3, 4)), m.make((3,)), 1, 2), desc="3x4, column", grad=True),
            SampleInput((m.make((3,)), m.make(()), 0, 1), desc="0-dim src", grad=True),
            SampleInput((m.make((0, 3)), m.make((0,)), 1, 2), desc="empty 0x3"),
            SampleInput((m.make((3, 4), "t"), m.make((4,), "step"), 0, 1), desc="transposed, step-sliced src"),
            SampleInput((m.make((3, 4), "expand"), m.make((3,)), 1, 0), desc="expanded self"),
            SampleInput((m.make((e, 2), "t", kind="extreme"), m.make((e,), kind="extreme"), 1, 1), desc="extremes"),
            SampleInput((m.make(LARGE, kind="scattered"), m.make(LARGE[1:], kind="scattered"), 0, 100),
                        desc="large, extremes scattered"),
            SampleInput((m.make((3, 4)), m.make((4,)), 0, 3), desc="index out of range", error="out of range",
                        error_type=IndexError),
            SampleInput((m.make((3, 4)), m.make((3,)), 0, 0), desc="src of the wrong size", error="size")]


def _torch_slice_scatter(self, src, dim=0, start=None, end=None, step=1):
    # torch 1.13's own slice_scatter takes a slice of the wrong size when start > 0 (slice_scatter(zeros(3, 4),
    # ones(2, 4), 0, 1) refuses: "slice size = [1, 4]"); the reference writes src through the slice view instead.
    result = self.clone()
    result[(slice(None),) * (dim % self.dim()) + (slice(start, end, step),)] = src
    return result


def _slice_scatter_samples(m):
    e = len(extreme_values(m.dtype))
    return [SampleInput((m.make((3, 4)), m.make((3, 2)), 1, 0, None, 2), desc="3x4, step 2", grad=True),
            SampleInput((m.make((3, 4)), m.make((1, 4))), {"start": -1}, desc="3x4, last row", grad=True),
            SampleInput((m.make((5,)), m.make((2,)), 0, 1, 4, 2), desc="1-d"),
            SampleInput((m.make((0, 3)), m.make((0, 1)), 1, 2), desc="empty 0x3"),
            SampleInput((m.make((3, 4)), m.make((0, 4)), 0, 2, 2), desc="empty slice"),
            SampleInput((m.make((3, 4), "t"), m.make((2, 4), "step"), 0, 1), desc="transposed, step-sliced src"),
            SampleInput((m.make((3, 4), "expand"), m.make((3, 2)), 1, 1, 3), desc="expanded self"),
            SampleInput((m.make((e, 2), "t", kind="extreme"), m.make((e - 2, 2), kind="extreme"), 0, 2), desc="extremes"),
            SampleInput((m.make(LARGE, kind="scattered"), m.make((LARGE[0], 130), kind="scattered"), 1, 0, None, 2),
                        desc="large, extremes scattered"),
            SampleInput((m.make(()), m.make(())), desc="0-dim", error="0-dim", error_type=IndexError),
            SampleInput((m.make((3, 4)), m.make((3, 3)), 1, 0, None, 2), desc="src of the wrong size", error="size")]


INDEXING += [
    OpInfo("index_put", opcore.index_put, _torch_index_put, None, ("index_put", "index_put_", "index_put.out"), DTYPES,
           _index_put_samples, out=("out",), inplace="index_put_", autograd=True, grad_complex=True, upcast=_SAME_DTYPE),
    OpInfo("masked_fill", opcore.masked_fill, _t("masked_fill"), None, ("masked_fill.Scalar", "masked_fill_.Scalar", "masked_fill.Scalar_out"),
           DTYPES, _masked_fill_samples(False), out=("out",), inplace="masked_fill_", autograd=True, grad_complex=True),
    OpInfo("masked_fill.Tensor", opcore.masked_fill, _t("masked_fill"), None,
           ("masked_fill.Tensor", "masked_fill_.Tensor", "masked_fill.Tensor_out"), DTYPES, _masked_fill_samples(True),
           out=("out",), inplace="masked_fill_",
           autograd=True, grad_complex=True),
    OpInfo("masked_scatter", opcore.masked_scatter, _t("masked_scatter"), None, ("masked_scatter", "masked_scatter_"),
           DTYPES, _masked_scatter_samples, inplace="masked_scatter_", autograd=True, grad_complex=True),
    OpInfo("masked_select", opcore.masked_select, _t("masked_select"), None, ("masked_select", "masked_select.out"),
           DTYPES, _masked_select_samples, out=("out",), autograd=True, grad_complex=True),
    OpInfo("nonzero", opcore.nonzero, _t("nonzero"), lambda x: np.argwhere(x), ("nonzero", "nonzero.out"), DTYPES,
           _nonzero_samples, lambda d: opcore.int64, out=("out",)),
    OpInfo("take", opcore.take, _t("take"), None, ("take", "take.out"), DTYPES, _take_samples, out=("out",),
           autograd=True, grad_complex=True),
    OpInfo("put", opcore.put, _t("put"), None, ("put", "put_"), DTYPES, _put_samples, inplace="put_", autograd=True,
           grad_complex=True, upcast=_SAME_DTYPE),
    OpInfo("index_fill", opcore.index_fill, _t("index_fill"), None, ("index_fill.int_Scalar", "index_fill_.int_Scalar"),
           DTYPES, _index_fill_samples(False), inplace="index_fill_", autograd=True, grad_complex=True),
    OpInfo("index_fill.Tensor", opcore.index_fill, _t("index_fill"), None,
           ("index_fill.int_Tensor", "index_fill_.int_Tensor"), DTYPES, _index_fill_samples(True),
           inplace="index_fill_", autograd=True, grad_complex=True),
    OpInfo("select_scatter", opcore.select_scatter, _t("select_scatter"), None,
           ("select_scatter",), DTYPES, _select_scatter_samples, out=("out",), autograd=True,
           grad_complex=True),
    OpInfo("slice_scatter", opcore.slice_scatter, _torch_slice_scatter, None, ("slice_scatter",),
           DTYPES, _slice_scatter_samples, out=("out",), autograd=True, grad_complex=True),
]

def _repeat_interleave_samples(m):
    x = m.make((3, 2))
    e = len(extreme_values(m.dtype))
    return [SampleInput((x, _long([1, 0, 2]), 0), desc="3x2, dim 0", grad=True),
            SampleInput((x, 2), {"dim": 1}, desc="3x2, int repeats, dim 1", grad=True),
            SampleInput((x, 3), desc="flattened", grad=True),
            SampleInput((x, _long(2), -1), desc="0-dim repeats", grad=True),
            SampleInput((x, _long([2]), 0), {"output_size": 6}, desc="one-element repeats, output_size"),
            SampleInput((m.make(()), 2), desc="0-dim self", grad=True),
            SampleInput((m.make((0, 3)), 2, 0), desc="empty 0x3"),
            SampleInput((m.make((2, 3), "t"), opcore.tensor([1, 3], dtype=opcore.int32), 0), desc="transposed, int32"),
            SampleInput((m.make((e,), kind="extreme"), 2), desc="extremes"),
            SampleInput((x, _long([1, -1, 2]), 0), desc="negative repeat", error="repeats can not be negative"),
            SampleInput((x, _long([1, 2]), 0), desc="repeats of the wrong size", error="same size as input"),
            SampleInput((x, 2, 0), {"output_size": 6}, desc="int repeats, output_size"),
            SampleInput((m.make((3, 2), "t"), 2, 1), desc="transposed, int repeats, dim 1", grad=True),
            SampleInput((m.make(()), 3, 0), desc="0-dim self, dim 0", error="has no dimensions", error_type=IndexError),
            SampleInput((m.make(()), _long([3]), 0), desc="0-dim self, dim 0, tensor repeats",
                        error="has no dimensions", error_type=IndexError),
            SampleInput((x, -1, 0), desc="negative int repeats", error="repeats can not be negative"),
            SampleInput((x, 2, 0), {"output_size": 5}, desc="int repeats, wrong output_size",
                        error="does not match"),
            SampleInput((x, 2, 2), desc="dim out of range", error="out of range", error_type=IndexError)]


def _repeat_counts_samples(m):
    return [SampleInput((m.make((4,)),), desc="4 counts"),
            SampleInput((m.make((0,)),), desc="no counts"),
            SampleInput((m.make((6,), "step"),), {"output_size": None}, desc="step-sliced"),
            SampleInput((m.make((2, 2)),), desc="2-d", error="1D vector"),
            SampleInput((m.make(()),), desc="0-dim", error="1D vector"),
            SampleInput((opcore.tensor([1, -2], dtype=m.dtype),), desc="negative", error="can not be negative")]


SHAPE_REPEATS = [
    OpInfo("repeat_interleave", opcore.repeat_interleave, _t("repeat_interleave"), None,
           ("repeat_interleave.self_Tensor", "repeat_interleave.self_int"), DTYPES, _repeat_interleave_samples,
           autograd=True, grad_complex=True),
    # (a function of its own, so that the method test, which needs a self, passes it by)
    OpInfo("repeat_interleave.Tensor", lambda repeats, **kw: opcore.repeat_interleave(repeats, **kw),
           _t("repeat_interleave"), None,
           ("repeat_interleave.Tensor",), (opcore.int32, opcore.int64), _repeat_counts_samples, low=0.0, high=4.0),
]

# --- issue #34: embedding, dropout, attention -------------------------------------------------


def _embedding_samples(m):
    w, idx = m.make((5, 3)), _long([[0, 2], [4, 2]])
    extremes = extreme_values(m.dtype)
    rows = len(extremes) // 2
    return [SampleInput((w, idx), desc="[2, 2] indices of 5x3", grad=True),
            # (the padding row takes no gradient and scale_grad_by_freq scales it, by definition:
            # not gradcheck samples; test_nn_layers.py compares these gradients with torch's)
            SampleInput((w, _long([1, 1, 3, 0]), 1, True), desc="padding_idx 1, scale_grad_by_freq"),
            SampleInput((w, opcore.tensor([3, 0, 3], dtype=opcore.int32)), desc="int32 indices", grad=True),
            SampleInput((w, _long(2)), desc="0-dim index", grad=True),
            SampleInput((w, opcore.zeros(0, dtype=opcore.int64)), desc="no indices"),
            SampleInput((m.make((3, 5), "t"), _long([[0, 2], [1, 1]])), desc="transposed weight"),
            SampleInput((w, _long([[0, 1, 2, 3]]).t()), desc="transposed indices"),
            SampleInput((from_values(extremes[:2 * rows], (rows, 2), m.dtype), _long(list(range(rows))[::-1])),
                        desc="extremes"),
            SampleInput((w, _long([0, 5])), desc="index out of range", error="out of bounds", error_type=IndexError),
            SampleInput((w, _long([-1])), desc="negative index", error="out of bounds", error_type=IndexError),
            SampleInput((m.make((5,)), _long([0])), desc="1-D weight", error="'weight' must be 2-D"),
            SampleInput((w, opcore.tensor([0.0])), desc="float indices",
                        error="Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                              "Long, Int; but got Float")]


def _embedding_backward_samples(m):
    g = m.make((2, 2, 3))
    idx = _long([[0, 2], [4, 2]])
    extremes = extreme_values(m.dtype)
    rows = len(extremes) // 3
    return [SampleInput((g, idx, 5, -1, False), desc="[2, 2] indices, 5 weights", grad=True),
            SampleInput((m.make((4, 3)), _long([1, 1, 3, 0]), 5, 0, True), desc="padding_idx 0, scale_grad_by_freq",
                        grad=True),
            SampleInput((m.make((3,)), _long(1), 2, -1, False), desc="0-dim index", grad=True),
            SampleInput((m.make((0, 3)), opcore.zeros(0, dtype=opcore.int64), 4, -1, False), desc="no indices"),
            SampleInput((m.make((2, 0)), _long([1, 1]), 3, -1, True), desc="0 columns"),
            SampleInput((m.make((4, 3), "t"), _long([1, 0, 1, 2]), 3, -1, False), desc="transposed grad"),
            SampleInput((from_values(extremes[:3 * rows], (rows, 3), m.dtype), _long([i % 2 for i in range(rows)]), 2,
                         -1, False), desc="extremes summed into two rows"),
            SampleInput((g, idx, 4, -1, False), desc="index out of range", error="index 4 is out of range for 4 weights",
                        error_type=IndexError),
            SampleInput((m.make((3, 3)), idx, 5, -1, False), desc="grad of the wrong shape",
                        error=r"expected grad_output of shape indices.shape \+ \[embedding_dim\]")]


def _dropout_samples(m):
    x = m.make((3, 4))
    extremes = extreme_values(m.dtype)
    return [SampleInput((x, 0.5, False), desc="not training", grad=True),
            SampleInput((x, 0.0, True), desc="p 0", grad=True),
            SampleInput((x, 1.0, True), desc="p 1"),
            SampleInput((m.make(()), 0.3, False), desc="0-dim, not training"),
            SampleInput((m.make((0, 3)), 0.5, True), desc="empty"),
            SampleInput((m.make((4, 3), "t"), 0.0, True), desc="transposed, p 0"),
            SampleInput((from_values(extremes, (len(extremes),), m.dtype), 0.0, True), desc="extremes, p 0"),
            SampleInput((x, 1.5, True), desc="p above 1", error="dropout probability has to be between 0 and 1, but "
                        "got 1.5")]


def _native_dropout_samples(m):
    # train=None trains, as True does
    return _dropout_samples(m) + [SampleInput((m.make((2, 3)), 0.0, None), desc="p 0, train None", grad=True)]


def _dropout_backward_samples(m):
    g = m.make((2, 3))
    mask = opcore.tensor([[True, False, True], [False, False, True]])
    extremes = extreme_values(m.dtype)
    return [SampleInput((g, mask, 2.0), desc="2x3", grad=True),
            SampleInput((g, opcore.tensor([True, False, True]), 0.5), desc="broadcast mask", grad=True),
            SampleInput((m.make(()), opcore.tensor(True), 1.25), desc="0-dim"),
            SampleInput((m.make((0, 3)), opcore.zeros(0, 3, dtype=opcore.bool), 2.0), desc="empty"),
            SampleInput((m.make((2, 3), "t"), mask, 2.0), desc="transposed grad"),
            SampleInput((from_values(extremes, (len(extremes),), m.dtype),
                         opcore.tensor([i % 2 == 0 for i in range(len(extremes))]), 3.0), desc="extremes"),
            SampleInput((g, mask.to(opcore.float32), 2.0), desc="float mask", error="Mask should be Bool Scalar Type")]


def _native_dropout_backward(grad, mask, scale, out=None):
    if out is None:
        return opcore.native_dropout_backward(grad, mask, scale)
    return opcore.native_dropout_backward(grad, mask, scale, out=out)


def _torch_attention(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """torch 1.13 has no scaled_dot_product_attention: its math reference, written out."""
    factor = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    scores = (q * factor) @ k.transpose(-2, -1)
    if is_causal:
        scores = scores.masked_fill(~torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril(), -math.inf)
    elif attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, -math.inf) if attn_mask.dtype == torch.bool else scores + attn_mask
    return scores.softmax(-1) @ v


def _attention_samples(m):
    q, k, v = m.make((2, 3, 4)), m.make((2, 5, 4)), m.make((2, 5, 2))
    extremes = extreme_values(m.dtype)
    finite = extremes[np.isfinite(extremes)]
    bool_mask = opcore.tensor([[True, False, True, True, False]] * 3)
    return [SampleInput((q, k, v), desc="[2, 3, 4] x [2, 5, 4] x [2, 5, 2]", grad=True),
            SampleInput((q, k, v), {"is_causal": True}, desc="causal", grad=True),
            SampleInput((q, k, v), {"attn_mask": bool_mask}, desc="bool mask", grad=True),
            SampleInput((q, k, v), {"attn_mask": m.make((3, 5)), "scale": 0.5}, desc="additive mask, scale 0.5",
                        grad=True),
            SampleInput((m.make((3, 4)), m.make((1, 2, 5, 4)), m.make((5, 2))), desc="broadcast batch dimensions",
                        grad=True),
            SampleInput((m.make((2, 3, 4), "t"), k, m.make((2, 5, 2), "t")), desc="transposed query and value"),
            SampleInput((m.make((0, 3, 4)), m.make((0, 5, 4)), m.make((0, 5, 2))), desc="empty batch"),
            SampleInput((from_values(finite / 1e3, (2, 3, 4), m.dtype) if m.dtype is not opcore.float16 else q, k, v),
                        desc="extremes of the dtype, over 1000"),
            SampleInput((q, k, v), {"attn_mask": bool_mask, "is_causal": True}, desc="mask and causal",
                        error="Explicit attn_mask should not be set when is_causal=True"),
            SampleInput((m.make(()), k, v), desc="0-dim query", error="expected query, key and value of at least 2 "
                        "dimensions")]


def _conv_samples(dims, transposed=False, functional=False):
    """Samples of a `dims`-d convolution: for opcore.convolution (functional False: every
    argument given) or conv{dims}d / conv_transpose{dims}d (their argument orders)."""
    def samples(m):
        def spatial(*sizes):
            return tuple(sizes[:dims])

        def call(x, w, b, stride, padding, dilation, groups=1, output_padding=None):
            output_padding = output_padding or [0] * dims
            if not functional:
                return (x, w, b, list(stride), list(padding), list(dilation), transposed, list(output_padding), groups)
            if transposed:
                return (x, w, b, list(stride), list(padding), list(output_padding), groups, list(dilation))
            return (x, w, b, list(stride), padding if isinstance(padding, str) else list(padding), list(dilation),
                    groups)

        def weight(c_in, c_out, kernel, groups=1):
            # forward: [C_out, C_in / groups, *k]; transposed: [C_in, C_out / groups, *k]
            return m.make((c_in, c_out // groups) + kernel if transposed else (c_out, c_in // groups) + kernel)

        ones, twos, zeros = [1] * dims, [2] * dims, [0] * dims
        x = m.make((2, 4) + spatial(5, 4, 3))
        w, b = weight(4, 6, spatial(3, 2, 2)), m.make((6,))
        extremes = extreme_values(m.dtype)
        lone = spatial(len(extremes), 1, 1)
        s = [SampleInput(call(x, w, b, ones, zeros, ones), desc="plain", grad=True),
             SampleInput(call(x, w, None, twos, [1] * dims, ones), desc="stride 2, padding 1, no bias", grad=True),
             SampleInput(call(x, weight(4, 6, spatial(2, 2, 1), 2), b, ones, zeros, twos, groups=2),
                         desc="groups 2, dilation 2", grad=True),
             SampleInput(call(m.make((2, 4) + spatial(5, 4, 3), "step"), w, b, ones, zeros, ones),
                         desc="step-sliced input"),
             SampleInput(call(m.make((0, 4) + spatial(5, 4, 3)), w, b, ones, zeros, ones), desc="empty batch"),
             # one input channel and a 1-wide kernel: each result is one product, extremes included
             SampleInput(call(from_values(extremes, (1, 1) + lone, m.dtype), weight(1, 3, spatial(1, 1, 1)), None,
                              ones, zeros, ones), desc="extremes times a 1-wide kernel"),
             SampleInput(call(m.make(()), w, b, ones, zeros, ones), desc="0-dim input",
                         error="input|Expected"),
             SampleInput(call(x, w.to(opcore.float64 if m.dtype is not opcore.float64 else opcore.float32), b,
                              ones, zeros, ones), desc="weight of another dtype", error="expected scalar type")]
        if transposed:
            s.append(SampleInput(call(x, w, b, twos, [1] * dims, ones, output_padding=[1] * dims),
                                 desc="stride 2, output_padding 1", grad=True))
            s.append(SampleInput(call(x, w, b, ones, zeros, ones, output_padding=[1] * dims),
                                 desc="output_padding not below stride or dilation",
                                 error="output padding must be smaller than either stride or dilation"))
        else:
            s.append(SampleInput(call(x, weight(4, 6, spatial(6, 6, 6)), b, ones, zeros, ones),
                                 desc="kernel larger than the input",
                                 error="Kernel size can't be greater than actual input size"))
            s.append(SampleInput(call(x, m.make((6, 3) + spatial(3, 2, 2)), b, ones, zeros, ones),
                                 desc="3 channels for 4", error="to have 3 channels, but got 4 channels instead"))
        if functional:
            if not transposed:
                s.append(SampleInput(call(x, w, b, ones, "same", ones), desc="padding same", grad=True))
                s.append(SampleInput(call(x, w, b, ones, "valid", twos), desc="padding valid, dilation 2"))
            s.append(SampleInput(call(m.make((4,) + spatial(5, 4, 3)), w, b, ones, zeros, ones), desc="unbatched",
                                 grad=True))
        return s
    return samples


_CONV_TOL = {opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5), opcore.float16: (2e-3, 2e-3),
             opcore.bfloat16: (2e-2, 2e-2)}


def _torch_conv(name):
    return lambda *a, **k: getattr(torch, name)(*a, **k)


def _max_pool_samples(m):
    x = m.make((2, 3, 6, 5))
    extremes = extreme_values(m.dtype)
    return [SampleInput((x, 2), desc="2x2", grad=True),
            SampleInput((x, [3, 2], [2, 1], 1, [1, 2], True), desc="3x2, stride 2x1, padding 1, dilation 1x2, ceil",
                        grad=True),
            SampleInput((m.make((3, 7, 7)), 3, 2), {"ceil_mode": True}, desc="unbatched, ceil_mode", grad=True),
            SampleInput((m.make((2, 3, 5, 6), "t"), 2), desc="transposed input"),
            SampleInput((m.make((0, 3, 4, 4)), 2), desc="empty batch"),
            SampleInput((from_values(extremes, (1, 2, len(extremes) // 2, 2), m.dtype), [2, 2], [1, 1]),
                        desc="extremes, NaN and infinities"),
            SampleInput((x, 2, 2, 2), desc="padding over half", error="pad should be at most half of kernel size"),
            SampleInput((m.make((1, 1, 1, 1)), 2), desc="output too small", error="Output size is too small"),
            SampleInput((m.make((4, 4)), 2), desc="2-d input", error="non-empty 3D or 4D"),
            SampleInput((m.make(()), 2), desc="0-dim input", error="non-empty 3D or 4D")]


def _im2col_samples(m):
    x = m.make((2, 3, 5, 4))
    e = extreme_values(m.dtype)
    return [SampleInput((x, [2, 2], [1, 1], [0, 0], [1, 1]), desc="2x2 blocks", grad=True),
            SampleInput((x, [3, 2], [1, 2], [1, 2], [2, 1]), desc="3x2, dilation 1x2, padding 1x2, stride 2x1",
                        grad=True),
            SampleInput((m.make((3, 4, 4)), [2, 3], [2, 1], [1, 0], [1, 1]), desc="unbatched", grad=True),
            SampleInput((m.make((2, 3, 4, 5), "t"), [2, 2], [1, 1], [0, 0], [2, 2]), desc="transposed input"),
            SampleInput((m.make((0, 3, 4, 4)), [2, 2], [1, 1], [0, 0], [1, 1]), desc="empty batch"),
            SampleInput((from_values(e, (1, 1, len(e), 1), m.dtype), [2, 1], [1, 1], [1, 0], [1, 1]),
                        desc="extremes, padded"),
            SampleInput((m.make(()), [2, 2], [1, 1], [0, 0], [1, 1]), desc="0-dim input",
                        error=r"Expected 3D or 4D \(batch mode\) tensor"),
            SampleInput((x, [6, 2], [1, 1], [0, 0], [1, 1]), desc="kernel larger than the input",
                        error=r"calculated shape of the array of sliding blocks as \(0, 3\)"),
            SampleInput((x, [0, 2], [1, 1], [0, 0], [1, 1]), desc="0 kernel",
                        error="kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 2"),
            SampleInput((x, [2, 2], [1, 1], [-1, 0], [1, 1]), desc="negative padding",
                        error="padding should be non-negative, but got pad_height: -1 pad_width: 0")]


def _col2im_samples(m):
    e = extreme_values(m.dtype)
    return [SampleInput((m.make((2, 12, 12)), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1]), desc="2x2 blocks of 4x5",
                        grad=True),
            SampleInput((m.make((2, 6, 14)), [4, 5], [3, 2], [1, 2], [1, 2], [2, 1]),
                        desc="3x2, dilation 1x2, padding 1x2, stride 2x1", grad=True),
            SampleInput((m.make((6, 9)), [3, 3], [2, 3], [2, 1], [1, 1], [1, 1]), desc="unbatched", grad=True),
            SampleInput((m.make((12, 2, 12), "t").transpose(0, 1), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1]),
                        desc="non-contiguous columns"),
            SampleInput((m.make((0, 4, 12)), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1]), desc="empty batch"),
            SampleInput((from_values(e, (1, 1, len(e)), m.dtype), [len(e), 1], [1, 1], [1, 1], [0, 0], [1, 1]),
                        desc="extremes"),
            SampleInput((m.make(()), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1]), desc="0-dim input",
                        error=r"Expected 2D or 3D \(batch mode\) tensor"),
            SampleInput((m.make((2, 7, 12)), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1]), desc="channels not divisible",
                        error=r"input.size\(1\)=7 and kernel_size=\(2, 2\)"),
            SampleInput((m.make((2, 12, 11)), [4, 5], [2, 2], [1, 1], [0, 0], [1, 1]), desc="wrong block count",
                        error=r"sliding blocks 3 \* 4 = 12, but got input.size\(2\)=11")]


def _max_pool_backward(*args, out=None):
    # out= of the backward is `grad_input=` (PyTorch's name)
    if out is None:
        return opcore._C._nn.max_pool2d_with_indices_backward(*args)
    return opcore._C._nn.max_pool2d_with_indices_backward(*args, grad_input=out)


def _max_pool_backward_samples(m):
    def sample(x, desc, *args, grad=False):
        # the indices of a pooling of increasing values (any dtype: the row's refusals included)
        ramp = opcore.arange(x.numel(), dtype=opcore.float32).reshape(tuple(x.shape))
        out, indices = opcore._C._nn.max_pool2d_with_indices(ramp, *args)
        return SampleInput((m.make(tuple(out.shape)), x) + args + (indices,), desc=desc, grad=grad)

    extremes = extreme_values(m.dtype)
    at = sample(m.make((1, 2, 6, 6)), "", [2, 2], [], [0, 0], [1, 1], False)
    return [sample(m.make((2, 3, 6, 5)), "2x2", [2, 2], [], [0, 0], [1, 1], False, grad=True),
            sample(m.make((2, 3, 6, 5)), "3x2, stride 2x1, padding 1, dilation 1x2, ceil", [3, 2], [2, 1], [1, 1],
                   [1, 2], True, grad=True),
            sample(m.make((3, 7, 7)), "unbatched, ceil", [3, 3], [2, 2], [0, 0], [1, 1], True, grad=True),
            sample(m.make((2, 3, 5, 6), "t"), "transposed input", [2, 2], [], [0, 0], [1, 1], False),
            sample(m.make((0, 3, 4, 4)), "empty batch", [2, 2], [], [0, 0], [1, 1], False),
            SampleInput((from_values(extremes, (1, 2, 3, 3), m.dtype),) + at.args[1:], desc="extremes as gradients"),
            SampleInput((m.make(()),) + at.args[1:], desc="0-dim gradient", error="expected grad_output of size"),
            SampleInput((m.make((1, 1, 2, 2)), m.make((1, 1, 4, 4)), [2, 2], [], [0, 0], [1, 1], False,
                         opcore.tensor([[[[0, 3], [16, 9]]]])), desc="index out of its plane",
                        error="index 16 is out of range", error_type=IndexError)]


# ---- average pooling (issue #34) -------------------------------------------------------------------

_AVG_POOL_DTYPES = (opcore.float16, opcore.bfloat16, opcore.float32, opcore.float64, opcore.int64)


def _avg_pool_samples(m):
    x = m.make((2, 3, 6, 5))
    extremes = extreme_values(m.dtype)
    return [SampleInput((x, 2), desc="2x2", grad=True),
            SampleInput((x, [3, 2], [2, 1], 1, True, False), desc="3x2, stride 2x1, padding 1, ceil, without the pad",
                        grad=True),
            SampleInput((x, 3, 2, 1, True, True, 2), desc="3x3, stride 2, padding 1, ceil, divisor_override 2",
                        grad=True),
            SampleInput((m.make((3, 7, 7)), 3, 2), {"ceil_mode": True}, desc="unbatched, ceil_mode", grad=True),
            SampleInput((m.make((2, 3, 5, 6), "t"), 2), desc="transposed input"),
            SampleInput((m.make((2, 3, 6, 5), "step"), [2, 3], [1, 2], [1, 1]), desc="step-sliced input, padding 1"),
            SampleInput((m.make((0, 3, 4, 4)), 2), desc="empty batch"),
            SampleInput((from_values(extremes, (1, 2, len(extremes) // 2, 2), m.dtype), [2, 2], [1, 1]),
                        desc="extremes, NaN and infinities"),
            SampleInput((x, 2, 2, 2), desc="padding over half", error="pad should be at most half of kernel size"),
            SampleInput((x, 2, 0), desc="stride 0", error="stride should not be zero"),
            SampleInput((x, [2, 2, 2]), desc="three kernel sizes",
                        error="avg_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
            SampleInput((x, 2, 2, 0, False, True, 0), desc="divisor_override 0", error="divisor must be not zero"),
            SampleInput((m.make((1, 1, 1, 1)), 2), desc="output too small", error="Output size is too small"),
            SampleInput((m.make((2, 0, 4, 4)), 2), desc="no channels", error="Expected 3D or 4D \\(batch mode\\)"),
            SampleInput((m.make((4, 4)), 2), desc="2-d input", error="Expected 3D or 4D \\(batch mode\\)"),
            SampleInput((m.make(()), 2), desc="0-dim input", error="Expected 3D or 4D \\(batch mode\\)")]


def _avg_pool_backward(*args, out=None):
    # out= of the backward is `grad_input=` (PyTorch's name)
    if out is None:
        return opcore._C._nn.avg_pool2d_backward(*args)
    return opcore._C._nn.avg_pool2d_backward(*args, grad_input=out)


def _avg_pool_backward_samples(m):
    def sample(x, desc, *args, grad=False):
        out = opcore._C._nn.avg_pool2d(opcore.zeros(tuple(x.shape)), *args)
        return SampleInput((m.make(tuple(out.shape)), x) + args, desc=desc, grad=grad)

    extremes = extreme_values(m.dtype)
    plain = ([2, 2], [], [0, 0], False, True, None)
    return [sample(m.make((2, 3, 6, 5)), "2x2", *plain, grad=True),
            sample(m.make((2, 3, 6, 5)), "3x2, stride 2x1, padding 1, ceil, without the pad", [3, 2], [2, 1], [1, 1],
                   True, False, None, grad=True),
            sample(m.make((2, 3, 6, 5)), "3x3, stride 2, padding 1, ceil, divisor_override 2", [3, 3], [2, 2],
                   [1, 1], True, True, 2, grad=True),
            sample(m.make((3, 7, 7)), "unbatched, ceil", [3, 3], [2, 2], [0, 0], True, True, None, grad=True),
            sample(m.make((2, 3, 5, 6), "t"), "transposed input", *plain),
            sample(m.make((0, 3, 4, 4)), "empty batch", *plain),
            SampleInput((from_values(extremes, (1, 2, 3, 3), m.dtype), m.make((1, 2, 6, 6))) + plain,
                        desc="extremes as gradients"),
            SampleInput((m.make(()), m.make((1, 2, 6, 6))) + plain, desc="0-dim gradient",
                        error="expected grad_output of size"),
            SampleInput((m.make((1, 2, 3, 2)), m.make((1, 2, 6, 6))) + plain, desc="gradient of another size",
                        error="expected grad_output of size \\[1, 2, 3, 3\\]")]


def _adaptive_avg_pool_samples(m):
    x = m.make((2, 3, 6, 5))
    extremes = extreme_values(m.dtype)
    return [SampleInput((x, [3, 4]), desc="6x5 to 3x4 (overlapping windows)", grad=True),
            SampleInput((x, [6, 5]), desc="the input's size"),
            SampleInput((x, [10, 7]), desc="larger than the input", grad=True),
            SampleInput((m.make((3, 5, 7)), [2, 3]), desc="unbatched", grad=True),
            SampleInput((m.make((2, 3, 5, 6), "t"), [2, 4]), desc="transposed input"),
            SampleInput((m.make((2, 3, 6, 5), "step"), [4, 2]), desc="step-sliced input"),
            SampleInput((m.make((0, 3, 4, 4)), [2, 2]), desc="empty batch"),
            SampleInput((x, [0, 2]), desc="zero output rows"),
            SampleInput((from_values(extremes, (1, 2, len(extremes) // 2, 2), m.dtype), [3, 1]),
                        desc="extremes, NaN and infinities"),
            SampleInput((x, [2, 2, 2]), desc="three output sizes", error="adaptive_avg_pool2d: output_size must be 2"),
            SampleInput((x, [-1, 2]), desc="negative output size",
                        error="elements of output_size must be greater than or equal to 0"),
            SampleInput((m.make((2, 3, 0, 4)), [2, 2]), desc="no rows",
                        error="Expected input to have non-zero size for non-batch dimensions"),
            SampleInput((m.make((4, 4)), [2, 2]), desc="2-d input", error="Expected 3D or 4D tensor"),
            SampleInput((m.make(()), [2, 2]), desc="0-dim input", error="Expected 3D or 4D tensor")]


def _adaptive_avg_pool_backward_samples(m):
    extremes = extreme_values(m.dtype)
    return [SampleInput((m.make((2, 3, 3, 4)), m.make((2, 3, 6, 5))), desc="6x5 to 3x4", grad=True),
            SampleInput((m.make((2, 3, 10, 7)), m.make((2, 3, 6, 5))), desc="larger than the input", grad=True),
            SampleInput((m.make((3, 2, 3)), m.make((3, 5, 7))), desc="unbatched", grad=True),
            SampleInput((m.make((2, 3, 4, 2), "t"), m.make((2, 3, 5, 6), "t")), desc="transposed"),
            SampleInput((m.make((0, 3, 2, 2)), m.make((0, 3, 4, 4))), desc="empty batch"),
            SampleInput((from_values(extremes, (1, 1, len(extremes), 1), m.dtype), m.make((1, 1, 20, 3))),
                        desc="extremes as gradients"),
            SampleInput((m.make((2, 3, 0, 2)), m.make((2, 3, 6, 5))), desc="no output rows",
                        error="Expected grad_output to have non-zero size for non-batch dimensions"),
            SampleInput((m.make((2, 4, 3, 4)), m.make((2, 3, 6, 5))), desc="other channels",
                        error="to match self's"),
            SampleInput((m.make(()), m.make((2, 3, 6, 5))), desc="0-dim gradient", error="Expected 3D or 4D tensor")]


def _adaptive_avg_pool2d_functional_samples(m):
    x = m.make((2, 3, 6, 5))
    return [SampleInput((x, (3, 4)), desc="6x5 to 3x4", grad=True),
            SampleInput((x, 1), desc="1x1: the mean", grad=True),
            SampleInput((m.make((3, 5, 7)), (None, 2)), desc="unbatched, None keeps the rows", grad=True),
            SampleInput((m.make((2, 3, 5, 6), "t"), 3), desc="transposed input, an int"),
            SampleInput((m.make((0, 3, 4, 4)), 2), desc="empty batch"),
            SampleInput((from_values(extreme_values(m.dtype), (1, 2, len(extreme_values(m.dtype)) // 2, 2), m.dtype), 1),
                        desc="extremes, NaN and infinities: the mean"),
            SampleInput((from_values(extreme_values(m.dtype), (1, 2, len(extreme_values(m.dtype)) // 2, 2), m.dtype),
                         (3, 2)), desc="extremes, NaN and infinities"),
            SampleInput((m.make(()), 2), desc="0-dim input", error="Expected 3D or 4D tensor"),
            SampleInput((x, (3,)), desc="one output size", error="adaptive_avg_pool2d: output_size must be 2"),
            SampleInput((x, (-1, 2)), desc="negative output size",
                        error="elements of output_size must be greater than or equal to 0")]


def _avg_pool1d_samples(m):
    x = m.make((2, 3, 9))
    return [SampleInput((x, 2), desc="2", grad=True),
            SampleInput((x, 3, 2, 1, True, False), desc="3, stride 2, padding 1, ceil, without the pad", grad=True),
            SampleInput((m.make((3, 7)), 3), {"ceil_mode": True, "stride": 2}, desc="unbatched", grad=True),
            SampleInput((m.make((2, 9, 3), "t"), 2), desc="transposed input"),
            SampleInput((m.make((0, 3, 4)), 2), desc="empty batch"),
            SampleInput((from_values(extreme_values(m.dtype), (1, 1, len(extreme_values(m.dtype))), m.dtype), 2, 1),
                        desc="extremes, NaN and infinities"),
            SampleInput((m.make(()), 2), desc="0-dim input", error="Expected 2 to 3 dimensions"),
            SampleInput((x, [2, 2]), desc="two kernel sizes",
                        error="avg_pool1d\\(\\) argument 'kernel_size' should contain one int \\(got 2\\)"),
            SampleInput((m.make((2, 3, 4, 5)), 2), desc="4-d input", error="Expected 2 to 3 dimensions"),
            SampleInput((x, 2, 1, 2), desc="padding over half", error="pad should be at most half of kernel size")]


def _adaptive_avg_pool1d_samples(m):
    x = m.make((2, 3, 9))
    return [SampleInput((x, 4), desc="9 to 4", grad=True),
            SampleInput((x, 13), desc="larger than the input", grad=True),
            SampleInput((m.make((3, 7)), [2]), desc="unbatched", grad=True),
            SampleInput((m.make((2, 9, 3), "t"), 2), desc="transposed input"),
            SampleInput((m.make((0, 3, 4)), 2), desc="empty batch"),
            SampleInput((from_values(extreme_values(m.dtype), (1, 1, len(extreme_values(m.dtype))), m.dtype), 5),
                        desc="extremes, NaN and infinities"),
            SampleInput((m.make(()), 2), desc="0-dim input", error="Expected 2 to 3 dimensions"),
            SampleInput((x, [2, 2]), desc="two output sizes",
                        error="adaptive_avg_pool1d\\(\\) argument 'output_size' should contain one int \\(got 2\\)"),
            SampleInput((m.make((5,)), 2), desc="1-d input", error="Expected 2 to 3 dimensions")]

# ---- 3-d pooling (issue #34) ------------------------------------------------------------------------


def _avg_pool3d_samples(m):
    x = m.make((2, 3, 4, 6, 5))
    extremes = extreme_values(m.dtype)
    return [SampleInput((x, 2), desc="2x2x2", grad=True),
            SampleInput((x, [2, 3, 2], [1, 2, 1], 1, True, False),
                        desc="2x3x2, stride 1x2x1, padding 1, ceil, without the pad", grad=True),
            SampleInput((x, 3, 2, 1, True, True, 2), desc="3x3x3, stride 2, padding 1, ceil, divisor_override 2",
                        grad=True),
            SampleInput((m.make((3, 5, 7, 7)), 3, 2), {"ceil_mode": True}, desc="unbatched, ceil_mode", grad=True),
            SampleInput((m.make((2, 3, 4, 5, 6), "t"), 2), desc="transposed input"),
            SampleInput((m.make((2, 3, 3, 6, 5), "step"), [1, 2, 3], [1, 1, 2], [0, 1, 1]),
                        desc="step-sliced input, padding 0x1x1"),
            SampleInput((m.make((0, 3, 4, 4, 4)), 2), desc="empty batch"),
            SampleInput((from_values(extremes, (1, 2, 2, len(extremes) // 2, 2), m.dtype), [2, 2, 2], [1, 1, 1]),
                        desc="extremes, NaN and infinities"),
            SampleInput((x, 2, 2, 2), desc="padding over half",
                        error="pad should be at most half of kernel size, but got pad=2 and kernel_size=2"),
            SampleInput((x, 2, 2, -1), desc="negative padding", error="pad must be non-negative, but got pad: -1"),
            SampleInput((x, 2, 0), desc="stride 0", error="stride should not be zero"),
            SampleInput((x, 2, -1), desc="negative stride",
                        error="stride should be greater than zero, but got dT: -1 dH: -1 dW: -1"),
            SampleInput((x, [2, 2]), desc="two kernel sizes",
                        error="avg_pool3d: kernel_size must be a single int, or a tuple of three ints"),
            SampleInput((x, 2, [1, 1]), desc="two strides",
                        error="avg_pool3d: stride must be omitted, a single int, or a tuple of three ints"),
            SampleInput((x, 2, 1, [1, 1]), desc="two paddings",
                        error="avg_pool3d: padding must be a single int, or a tuple of three ints"),
            SampleInput((x, 2, 2, 0, False, True, 0), desc="divisor_override 0", error="divisor must be not zero"),
            SampleInput((m.make((1, 1, 1, 5, 5)), 2), desc="input smaller than the kernel",
                        error=r"input image \(T: 1 H: 5 W: 5\) smaller than kernel size \(kT: 2 kH: 2 kW: 2\)"),
            SampleInput((m.make((2, 0, 4, 4, 4)), 2), desc="no channels",
                        error="avg_pool3d\\(\\): Expected input's non-batch dimensions to have positive length"),
            SampleInput((m.make((4, 4, 4)), 2), desc="3-d input",
                        error="non-empty 4D or 5D \\(batch mode\\) tensor expected for input"),
            SampleInput((m.make(()), 2), desc="0-dim input",
                        error="non-empty 4D or 5D \\(batch mode\\) tensor expected for input")]


def _avg_pool3d_backward(*args, out=None):
    # out= of the backward is `grad_input=` (PyTorch's name)
    if out is None:
        return opcore._C._nn.avg_pool3d_backward(*args)
    return opcore._C._nn.avg_pool3d_backward(*args, grad_input=out)


def _avg_pool3d_backward_samples(m):
    def sample(x, desc, *args, grad=False):
        out = opcore._C._nn.avg_pool3d(opcore.zeros(tuple(x.shape)), *args)
        return SampleInput((m.make(tuple(out.shape)), x) + args, desc=desc, grad=grad)

    extremes = extreme_values(m.dtype)
    plain = ([2, 2, 2], [], [0, 0, 0], False, True, None)
    return [sample(m.make((2, 3, 4, 6, 5)), "2x2x2", *plain, grad=True),
            sample(m.make((2, 3, 4, 6, 5)), "2x3x2, stride 1x2x1, padding 1, ceil, without the pad", [2, 3, 2],
                   [1, 2, 1], [1, 1, 1], True, False, None, grad=True),
            sample(m.make((2, 3, 4, 6, 5)), "3x3x3, stride 2, padding 1, ceil, divisor_override 2", [3, 3, 3],
                   [2, 2, 2], [1, 1, 1], True, True, 2, grad=True),
            sample(m.make((3, 5, 7, 7)), "unbatched, ceil", [3, 3, 3], [2, 2, 2], [0, 0, 0], True, True, None,
                   grad=True),
            sample(m.make((2, 3, 4, 5, 6), "t"), "transposed input", *plain),
            sample(m.make((0, 3, 4, 4, 4)), "empty batch", *plain),
            SampleInput((from_values(extremes, (1, 2, 2, 3, 3), m.dtype), m.make((1, 2, 4, 6, 6))) + plain,
                        desc="extremes as gradients"),
            SampleInput((m.make(()), m.make((1, 2, 4, 6, 6))) + plain, desc="0-dim gradient",
                        error="expected grad_output of size"),
            SampleInput((m.make((1, 2, 2, 3, 2)), m.make((1, 2, 4, 6, 6))) + plain, desc="gradient of another size",
                        error="expected grad_output of size \\[1, 2, 2, 3, 3\\]")]

def _adaptive_avg_pool3d_samples(m):
    x = m.make((2, 3, 4, 6, 5))
    extremes = extreme_values(m.dtype)
    return [SampleInput((x, [3, 3, 4]), desc="4x6x5 to 3x3x4 (overlapping windows)", grad=True),
            SampleInput((x, [4, 6, 5]), desc="the input's size"),
            SampleInput((x, [5, 10, 7]), desc="larger than the input", grad=True),
            SampleInput((m.make((3, 4, 5, 7)), [2, 2, 3]), desc="unbatched", grad=True),
            SampleInput((m.make((2, 3, 3, 5, 6), "t"), [2, 2, 4]), desc="transposed input"),
            SampleInput((m.make((2, 3, 3, 6, 5), "step"), [2, 4, 2]), desc="step-sliced input"),
            SampleInput((m.make((0, 3, 4, 4, 4)), [2, 2, 2]), desc="empty batch"),
            SampleInput((m.make((0, 4, 4, 4)), [2, 2, 2]), desc="unbatched, no channels"),
            SampleInput((x, [2, 0, 2]), desc="zero output rows"),
            SampleInput((from_values(extremes, (1, 2, 2, len(extremes) // 2, 2), m.dtype), [1, 3, 1]),
                        desc="extremes, NaN and infinities"),
            SampleInput((x, [2, 2]), desc="two output sizes", error="adaptive_avg_pool3d: output_size must be 3"),
            SampleInput((x, [2, -1, 2]), desc="negative output size",
                        error="elements of output_size must be greater than or equal to 0"),
            SampleInput((m.make((2, 3, 0, 4, 4)), [2, 2, 2]), desc="no slices",
                        error="Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                              "\\[2, 3, 0, 4, 4\\] with dimension 2 being empty"),
            SampleInput((m.make((4, 4, 4)), [2, 2, 2]), desc="3-d input",
                        error="adaptive_avg_pool3d\\(\\): Expected 4D or 5D tensor"),
            SampleInput((m.make(()), [2, 2, 2]), desc="0-dim input", error="Expected 4D or 5D tensor")]


def _adaptive_avg_pool3d_backward_samples(m):
    extremes = extreme_values(m.dtype)
    return [SampleInput((m.make((2, 3, 3, 3, 4)), m.make((2, 3, 4, 6, 5))), desc="4x6x5 to 3x3x4", grad=True),
            SampleInput((m.make((2, 3, 5, 10, 7)), m.make((2, 3, 4, 6, 5))), desc="larger than the input",
                        grad=True),
            SampleInput((m.make((3, 2, 2, 3)), m.make((3, 4, 5, 7))), desc="unbatched", grad=True),
            SampleInput((m.make((2, 3, 2, 4, 2), "t"), m.make((2, 3, 3, 5, 6), "t")), desc="transposed"),
            SampleInput((m.make((0, 3, 2, 2, 2)), m.make((0, 3, 4, 4, 4))), desc="empty batch"),
            SampleInput((from_values(extremes, (1, 1, 1, len(extremes), 1), m.dtype), m.make((1, 1, 2, 20, 3))),
                        desc="extremes as gradients"),
            SampleInput((m.make((2, 3, 2, 0, 2)), m.make((2, 3, 4, 6, 5))), desc="no output rows",
                        error="Expected grad_output to have non-zero size for non-batch dimensions"),
            SampleInput((m.make((2, 4, 3, 3, 4)), m.make((2, 3, 4, 6, 5))), desc="other channels",
                        error="to match self's"),
            SampleInput((m.make(()), m.make((2, 3, 4, 6, 5))), desc="0-dim gradient",
                        error="Expected 4D or 5D tensor")]


def _adaptive_avg_pool3d_functional_samples(m):
    x = m.make((2, 3, 4, 6, 5))
    e = extreme_values(m.dtype)
    return [SampleInput((x, (3, 3, 4)), desc="4x6x5 to 3x3x4", grad=True),
            SampleInput((x, 1), desc="1x1x1: the mean", grad=True),
            SampleInput((m.make((3, 4, 5, 7)), (None, 2, None)), desc="unbatched, None keeps the size", grad=True),
            SampleInput((m.make((2, 3, 3, 5, 6), "t"), 3), desc="transposed input, an int"),
            SampleInput((m.make((0, 3, 4, 4, 4)), 2), desc="empty batch"),
            SampleInput((from_values(e, (1, 2, 2, len(e) // 2, 2), m.dtype), 1), desc="extremes: the mean"),
            SampleInput((from_values(e, (1, 2, 2, len(e) // 2, 2), m.dtype), (2, 3, 2)),
                        desc="extremes, NaN and infinities"),
            SampleInput((m.make(()), 2), desc="0-dim input", error="Expected 4D or 5D tensor"),
            SampleInput((x, (3, 3)), desc="two output sizes", error="adaptive_avg_pool3d: output_size must be 3")]


def _adaptive_avg_pool3d_out(*args, out=None):
    # adaptive_avg_pool3d.out: _adaptive_avg_pool3d into out (no mean shortcut, as PyTorch's)
    if out is None:
        return opcore._C._nn.adaptive_avg_pool3d(*args)
    return opcore._C._nn.adaptive_avg_pool3d(*args, out=out)


def _adaptive_avg_pool3d_backward_out(*args, out=None):
    # adaptive_avg_pool3d_backward.grad_input: _adaptive_avg_pool3d_backward into grad_input
    if out is None:
        return opcore._C._nn._adaptive_avg_pool3d_backward(*args)
    return opcore._C._nn.adaptive_avg_pool3d_backward(*args, grad_input=out)

def _max_pool3d_samples(m):
    x = m.make((2, 3, 4, 6, 5))
    extremes = extreme_values(m.dtype)
    return [SampleInput((x, 2), desc="2x2x2", grad=True),
            SampleInput((x, [2, 3, 2], [1, 2, 1], 1, [2, 1, 2], True),
                        desc="2x3x2, stride 1x2x1, padding 1, dilation 2x1x2, ceil", grad=True),
            SampleInput((m.make((3, 5, 7, 7)), 3, 2), {"ceil_mode": True}, desc="unbatched, ceil_mode", grad=True),
            SampleInput((m.make((2, 3, 4, 5, 6), "t"), 2), desc="transposed input"),
            SampleInput((m.make((0, 3, 4, 4, 4)), 2), desc="empty batch"),
            SampleInput((from_values(extremes, (1, 2, 2, len(extremes) // 2, 2), m.dtype), [2, 2, 2], [1, 1, 1]),
                        desc="extremes, NaN and infinities"),
            SampleInput((x, 2, 2, 2), desc="padding over half",
                        error="pad should be at most half of kernel size, but got pad=2 and kernel_size=2"),
            SampleInput((x, 2, 0), desc="stride 0", error="stride should not be zero"),
            SampleInput((x, 2, 1, 0, 0), desc="dilation 0",
                        error="dilation should be greater than zero, but got dilationT: 0 dilationH: 0 dilationW: 0"),
            SampleInput((x, [2, 2]), desc="two kernel sizes",
                        error="max_pool3d: kernel_size must either be a single int, or a tuple of three ints"),
            SampleInput((x, 2, 1, [1, 1]), desc="two paddings",
                        error="max_pool3d: padding must be either be a single int, or a tuple of three ints"),
            SampleInput((m.make((1, 1, 1, 5, 5)), 2), desc="output too small",
                        error=r"Given input size: \(1x1x5x5\). Calculated output size: \(1x0x2x2\). "
                              "Output size is too small"),
            SampleInput((m.make((2, 0, 4, 4, 4)), 2), desc="no channels",
                        error="Expected input's non-batch dimensions to have positive length"),
            SampleInput((m.make((4, 4, 4)), 2), desc="3-d input",
                        error="non-empty 4D or 5D \\(batch mode\\) tensor expected for input"),
            SampleInput((m.make(()), 2), desc="0-dim input",
                        error="non-empty 4D or 5D \\(batch mode\\) tensor expected for input")]


def _max_pool3d_backward(*args, out=None):
    # out= of the backward is `grad_input=` (PyTorch's name)
    if out is None:
        return opcore._C._nn.max_pool3d_with_indices_backward(*args)
    return opcore._C._nn.max_pool3d_with_indices_backward(*args, grad_input=out)


def _max_pool3d_backward_samples(m):
    def sample(x, desc, *args, grad=False):
        # the indices of a pooling of increasing values (any dtype: the row's refusals included)
        ramp = opcore.arange(x.numel(), dtype=opcore.float32).reshape(tuple(x.shape))
        out, indices = opcore._C._nn.max_pool3d_with_indices(ramp, *args)
        return SampleInput((m.make(tuple(out.shape)), x) + args + (indices,), desc=desc, grad=grad)

    extremes = extreme_values(m.dtype)
    plain = ([2, 2, 2], [], [0, 0, 0], [1, 1, 1], False)
    at = sample(m.make((1, 2, 4, 6, 6)), "", *plain)
    return [sample(m.make((2, 3, 4, 6, 5)), "2x2x2", *plain, grad=True),
            sample(m.make((2, 3, 4, 6, 5)), "2x3x2, stride 1x2x1, padding 1, dilation 2x1x2, ceil", [2, 3, 2],
                   [1, 2, 1], [1, 1, 1], [2, 1, 2], True, grad=True),
            sample(m.make((3, 5, 7, 7)), "unbatched, ceil", [3, 3, 3], [2, 2, 2], [0, 0, 0], [1, 1, 1], True,
                   grad=True),
            sample(m.make((2, 3, 4, 5, 6), "t"), "transposed input", *plain),
            sample(m.make((0, 3, 4, 4, 4)), "empty batch", *plain),
            SampleInput((from_values(extremes, (1, 2, 2, 3, 3), m.dtype),) + at.args[1:], desc="extremes as gradients"),
            SampleInput((m.make(()),) + at.args[1:], desc="0-dim gradient", error="expected grad_output of size"),
            SampleInput((m.make((1, 1, 1, 2, 2)), m.make((1, 1, 2, 4, 4))) + plain +
                        (opcore.tensor([[[[[0, 3], [32, 9]]]]]),), desc="index out of its volume",
                        error="index 32 is out of range", error_type=IndexError)]

# --- issue #34: reflection and replication padding -----------------------------------------------

# (batched shape, its pads, unbatched shape, its pads: a negative one) per padded dimensions
_PAD_GEOMETRY = {1: ((2, 3, 5), [2, 1], (3, 5), [-1, 3]), 2: ((2, 3, 4, 5), [2, 1, 1, 3], (3, 3, 4), [0, -2, 2, 1]),
                 3: ((1, 2, 3, 4, 3), [2, 1, 1, 2, 1, 1], (2, 3, 3, 4), [0, -2, 2, 1, 1, 0])}


def _resample_pad_samples(spatial, mode):
    """Samples of reflection_pad{spatial}d / replication_pad{spatial}d (mode "reflect" /
    "replicate"): (self, padding)."""
    def samples(m):
        batched, pads, unbatched, negative = _PAD_GEOMETRY[spatial]
        extremes = extreme_values(m.dtype)
        n = len(extremes)
        lone = (1, 2) + (1,) * (spatial - 1) + (n,)
        zero = [0] * (2 * spatial)
        wide = [n - 1, n - 1] + [0, 0] * (spatial - 1)
        what = f"{spatial + 1}D or {spatial + 2}D" + r" \(batch mode\) tensor"
        s = [SampleInput((m.make(batched), pads), desc="batched", grad=True),
             SampleInput((m.make(unbatched), negative), desc="unbatched, a negative pad", grad=True),
             SampleInput((m.make(batched, "t"), pads), desc="transposed input"),
             SampleInput((m.make(batched, "step"), pads), desc="step-sliced input"),
             SampleInput((m.make((0,) + batched[1:]), pads), desc="empty batch"),
             SampleInput((m.make(batched), zero), desc="no padding", grad=True),
             SampleInput((from_values(extremes, lone, m.dtype), wide), desc="extremes, padded by n - 1"),
             SampleInput((m.make(()), pads), desc="0-dim input", error=what),
             SampleInput((m.make((2, 0) + batched[2:]), pads), desc="no channels", error=what),
             SampleInput((m.make(batched), [-3, -2] + [0, 0] * (spatial - 1)), desc="nothing left",
                         error=r"is too small. Calculated output")]
        if mode == "reflect":
            for axis, size in enumerate("WHD"[:spatial]):
                pads = [0] * (2 * spatial)
                pads[2 * axis + axis % 2] = batched[-1 - axis]  # the left, bottom or front pad
                s.append(SampleInput((m.make(batched), pads), desc=f"a pad as large as {size}",
                                     error=f"Argument #{4 + 2 * axis}: Padding size should be less than the "
                                           r"corresponding input dimension, but got: padding \("
                                           f"{pads[2 * axis]}, {pads[2 * axis + 1]}" r"\)"))
        else:
            s.append(SampleInput((m.make(batched), [7, 6] * spatial), desc="pads wider than the input", grad=True))
        return s
    return samples


def _resample_pad_backward(name):
    def call(*args, out=None):
        # out= of the backward is `grad_input=` (PyTorch's name)
        f = getattr(opcore._C._nn, name)
        return f(*args) if out is None else f(*args, grad_input=out)
    return call


def _resample_pad_backward_samples(spatial, mode):
    """(grad_output, self, padding) for each forward sample that is not an error: grad_output of
    the padding's output shape (the extremes as gradients, each added once)."""
    forward = _resample_pad_samples(spatial, mode)
    name = f"{'reflection' if mode == 'reflect' else 'replication'}_pad{spatial}d"

    def samples(m):
        s = []
        for x in forward(m):
            if x.error:
                continue
            self, pads = x.args
            shape = tuple(getattr(opcore._C._nn, name)(opcore.zeros(tuple(self.shape)), pads).shape)
            if x.desc.startswith("extremes"):
                e = extreme_values(m.dtype)
                pads = [0] * (2 * spatial)
                s.append(SampleInput((from_values(e, tuple(self.shape), m.dtype), m.make(tuple(self.shape)), pads),
                                     desc="extremes as gradients, no padding"))
                continue
            layout = "t" if x.desc.startswith("transposed") else "contig"
            s.append(SampleInput((m.make(shape, layout), self, pads), desc=x.desc, grad=x.grad))
        batched, pads, _, _ = _PAD_GEOMETRY[spatial]
        s.append(SampleInput((m.make(batched), m.make(batched), pads), desc="grad_output of the input's shape",
                             error=f"{'grad_output' if spatial == 3 else 'gradOutput'} width unexpected"))
        s.append(SampleInput((m.make(()), m.make(batched), pads), desc="0-dim grad_output",
                             error="Expected grad_output of"))
        return s
    return samples


def _resample_pad_rows():
    rows = []
    for mode, kind in (("reflect", "reflection"), ("replicate", "replication")):
        for spatial in (1, 2, 3):
            name = f"{kind}_pad{spatial}d"
            rows.append(OpInfo(name, getattr(opcore._C._nn, name), _aten(name), None, (name, f"{name}.out"),
                               FLOATING + COMPLEX, _resample_pad_samples(spatial, mode), out=("out",), autograd=True))
            rows.append(OpInfo(f"{name}_backward", _resample_pad_backward(f"{name}_backward"),
                               _aten(f"{name}_backward"), None, (f"{name}_backward", f"{name}_backward.grad_input"),
                               FLOATING + COMPLEX, _resample_pad_backward_samples(spatial, mode), out=("out",),
                               autograd=True))
    return rows



# --- issue #34: grid sampling -------------------------------------------------------------------------


def _grid_sampler_samples(m):
    """(input, grid, interpolation_mode, padding_mode, align_corners) of grid_sampler_2d: every
    mode and padding, grid points inside and outside [-1, 1] (the row's values are in
    [-1.5, 1.5])."""
    x, grid = m.make((2, 3, 4, 5)), m.make((2, 3, 6, 2))
    s = []
    for mode, mode_name in enumerate(("bilinear", "nearest", "bicubic")):
        for padding, padding_name in enumerate(("zeros", "border", "reflection")):
            for align in (False, True):
                s.append(SampleInput((x, grid, mode, padding, align), desc=f"{mode_name}, {padding_name}, "
                                     f"align_corners {align}", grad=mode != 1))
    e = extreme_values(m.dtype)
    # the extremes read at the pixels' centres (nearest: copied) and between them (bilinear)
    lone = from_values(e, (1, 1, 1, len(e)), m.dtype)
    centres = np.linspace(-1, 1, len(e)) if len(e) > 1 else np.zeros(1)
    between = np.stack([centres, np.zeros_like(centres)], -1).reshape(1, 1, len(e), 2)
    points = from_values(between, between.shape, m.dtype)
    s += [SampleInput((lone, points, 1, 0, True), desc="extremes, nearest"),
          SampleInput((m.make((2, 3, 4, 5), "t"), m.make((2, 3, 6, 2), "t"), 0, 1, False),
                      desc="transposed input and grid", grad=True),
          SampleInput((m.make((2, 3, 4, 5), "step"), grid, 2, 0, False), desc="step-sliced input"),
          SampleInput((m.make((0, 3, 4, 5)), m.make((0, 3, 6, 2)), 0, 0, False), desc="empty batch"),
          SampleInput((m.make((2, 0, 4, 5)), grid, 0, 0, False), desc="no channels"),
          SampleInput((x, m.make((2, 0, 6, 2)), 0, 0, False), desc="no points"),
          SampleInput((x, m.make((2, 3, 6, 3)), 0, 0, False), desc="3 coordinates per point",
                      error=r"grid_sampler\(\): expected grid to have size 2 in last dimension"),
          SampleInput((x, m.make((3, 3, 6, 2)), 0, 0, False), desc="batch sizes differ",
                      error=r"grid_sampler\(\): expected grid and input to have same batch size"),
          SampleInput((m.make(()), grid, 0, 0, False), desc="0-dim input",
                      error=r"grid_sampler\(\): expected 4D input and grid with same number of dimensions"),
          SampleInput((x, m.make((2, 6, 2)), 0, 0, False), desc="a 3-d grid",
                      error=r"grid_sampler\(\): expected 4D input and grid with same number of dimensions"),
          SampleInput((m.make((2, 3, 0, 5)), grid, 0, 0, False), desc="no rows",
                      error="expected input to have non-empty spatial dimensions"),
          SampleInput((x, grid, 3, 0, False), desc="interpolation mode 3", error="expected interpolation_mode"),
          SampleInput((x, grid, 0, -1, False), desc="padding mode -1", error="expected padding_mode")]
    return s


def _grid_sampler_rows():
    # torch 1.13's CPU kernel has float32 and float64; the 16-bit types are computed in float
    tol = {opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 2e-3), opcore.bfloat16: (2e-2, 2e-2)}
    return [OpInfo("grid_sampler_2d", opcore.grid_sampler_2d, _aten("grid_sampler_2d"), None,
                   ("grid_sampler_2d", "grid_sampler_2d.out", "grid_sampler"), FLOATING, _grid_sampler_samples,
                   out=("out",), autograd=True, tol=tol, low=-1.5, high=1.5)]


# --- issue #34: upsampling ----------------------------------------------------------------------------


def _upsample_samples(bilinear):
    """(self, output_size[, align_corners], scales_h, scales_w) of upsample_nearest2d or
    upsample_bilinear2d."""
    def samples(m):
        x = m.make((2, 3, 4, 5))
        extremes = extreme_values(m.dtype)

        def call(t, size, align=False, *scales):
            return (t, size) + ((align,) if bilinear else ()) + scales

        s = [SampleInput(call(x, [7, 9]), desc="4x5 to 7x9", grad=True),
             SampleInput(call(x, [8, 10]), desc="twice the size", grad=True),
             SampleInput(call(x, [3, 2]), desc="smaller", grad=True),
             SampleInput(call(x, [6, 7], False, 1.5, 1.4), desc="scales given", grad=True),
             SampleInput(call(m.make((2, 3, 4, 5), "t"), [7, 9]), desc="transposed input"),
             SampleInput(call(m.make((0, 3, 4, 5)), [7, 9]), desc="empty batch"),
             # (bilinear: the finite ones over 4, as a weighted mean of infinities with a weight 0 is NaN
             # in opcore but not always in torch, and sums near the largest value overflow in float)
             SampleInput(call(from_values(extremes if not bilinear else extremes[np.isfinite(extremes)] / 4,
                                          (1, 1, 1, len(extremes)), m.dtype), [2, len(extremes)]),
                         desc="extremes, rows doubled"),
             SampleInput(call(m.make(()), [2, 2]), desc="0-dim input",
                         error="It is expected input_size equals to 4, but got size 0"),
             SampleInput(call(m.make((3, 4, 5)), [2, 2]), desc="3-d input",
                         error="It is expected input_size equals to 4, but got size 3"),
             SampleInput(call(x, [0, 6]), desc="output height 0",
                         error=r"Input and output sizes should be greater than 0, but got input \(H: 4, W: 5\) "
                               r"output \(H: 0, W: 6\)"),
             SampleInput(call(m.make((2, 0, 4, 5)), [7, 9]), desc="no channels",
                         error="Non-empty 4D data tensor expected but got a tensor with sizes")]
        if bilinear:
            s += [SampleInput(call(x, [7, 9], True), desc="align_corners", grad=True),
                  SampleInput(call(x, [3, 2], True), desc="smaller, align_corners", grad=True),
                  SampleInput(call(x, [1, 1], True), desc="1x1, align_corners")]
        return s
    return samples


def _upsample_backward(name):
    def call(*args, out=None):
        f = getattr(opcore._C._nn, name)
        return f(*args) if out is None else f(*args, grad_input=out)
    return call


def _upsample_backward_samples(bilinear):
    """(grad_output, output_size, input_size[, align_corners], scales_h, scales_w) for each
    forward sample that is not an error."""
    forward = _upsample_samples(bilinear)

    def samples(m):
        s = []
        for x in forward(m):
            if x.error:
                continue
            self, size, rest = x.args[0], x.args[1], x.args[2:]
            shape = tuple(self.shape[:2]) + tuple(size)
            grad = m.make(shape, "t" if x.desc.startswith("transposed") else "contig")
            if x.desc.startswith("extremes"):
                e = extreme_values(m.dtype)
                grad = from_values(e if not bilinear else e[np.isfinite(e)] / 16, shape, m.dtype)
            s.append(SampleInput((grad, size, list(self.shape)) + rest, desc=x.desc, grad=x.grad))
        extra = (False,) if bilinear else ()
        s.append(SampleInput((m.make((2, 3, 7, 8)), [7, 9], [2, 3, 4, 5]) + extra, desc="grad_output 7x8 for 7x9",
                             error=r"Expected grad_output to have the same shape as output; output.size\(3\) = 9 but "
                                   r"got grad_output.size\(3\) = 8"))
        s.append(SampleInput((m.make((3, 7, 9)), [7, 9], [2, 3, 4, 5]) + extra, desc="3-d grad_output",
                             error="Expected grad_output to be a tensor of dimension 4 but got: dimension 3"))
        s.append(SampleInput((m.make(()), [7, 9], [2, 3, 4, 5]) + extra, desc="0-dim grad_output",
                             error="Expected grad_output to be a tensor of dimension 4 but got: dimension 0"))
        return s
    return samples


def _interpolate_samples(m):
    """Samples of opcore.nn.functional.interpolate: all of them for floating point dtypes,
    those of mode "nearest" for uint8."""
    if m.dtype is opcore.uint8:
        return [s for s in _interpolate_all_samples(m) if "bilinear" not in s.desc]
    return _interpolate_all_samples(m)


def _interpolate_all_samples(m):
    x = m.make((2, 3, 4, 5))
    return [SampleInput((x,), {"size": [7, 9]}, desc="nearest to 7x9", grad=True),
            SampleInput((x,), {"scale_factor": 1.7}, desc="nearest, scale 1.7", grad=True),
            SampleInput((x,), {"scale_factor": (2, 0.5), "recompute_scale_factor": True},
                        desc="nearest, scales 2 and 0.5 recomputed", grad=True),
            SampleInput((x,), {"size": 6, "mode": "bilinear"}, desc="bilinear to 6x6", grad=True),
            SampleInput((x,), {"scale_factor": 1.3, "mode": "bilinear", "align_corners": True},
                        desc="bilinear, scale 1.3, align_corners", grad=True),
            SampleInput((m.make((2, 3, 4, 5), "t"),), {"scale_factor": 2.5, "mode": "bilinear"},
                        desc="bilinear, transposed input"),
            SampleInput((m.make((0, 3, 4, 5)),), {"size": 3}, desc="empty batch"),
            SampleInput((from_values(extreme_values(m.dtype), (1, 1, 2, 6), m.dtype),), {"scale_factor": 2},
                        desc="extremes, nearest"),
            SampleInput((x,), desc="neither size nor scale_factor", error="either size or scale_factor should be "
                        "defined", error_type=ValueError),
            SampleInput((x,), {"size": 3, "align_corners": True}, desc="align_corners with nearest",
                        error="align_corners option can only be set with the interpolating modes",
                        error_type=ValueError),
            SampleInput((x,), {"size": [3, 3, 3]}, desc="3 sizes for 2 dimensions",
                        error="Input and output must have the same number of spatial dimensions",
                        error_type=ValueError),
            SampleInput((m.make((2, 3, 4)),), {"size": 3, "mode": "bilinear"}, desc="bilinear of a 3-d input",
                        error="Got 3D input, but bilinear mode needs 4D input", error_type=NotImplementedError),
            SampleInput((x,), {"size": 3, "mode": "bicubic"}, desc="bicubic",
                        error="mode \"bicubic\" of a 4D input is not implemented", error_type=NotImplementedError),
            SampleInput((m.make(()),), {"size": 3}, desc="0-dim input",
                        error="Only 3D, 4D and 5D input Tensors supported", error_type=NotImplementedError)]


def _upsample_rows():
    nearest_dtypes = FLOATING + (opcore.uint8,)
    tol = {opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 2e-3), opcore.bfloat16: (2e-2, 2e-2)}
    return [
        OpInfo("upsample_nearest2d", opcore._C._nn.upsample_nearest2d, _aten("upsample_nearest2d"), None,
               ("upsample_nearest2d", "upsample_nearest2d.out"), nearest_dtypes, _upsample_samples(False),
               out=("out",), autograd=True),
        OpInfo("upsample_nearest2d_backward", _upsample_backward("upsample_nearest2d_backward"),
               _aten("upsample_nearest2d_backward"), None,
               ("upsample_nearest2d_backward", "upsample_nearest2d_backward.grad_input"), FLOATING,
               _upsample_backward_samples(False), out=("out",), autograd=True, tol=tol),
        OpInfo("upsample_bilinear2d", opcore._C._nn.upsample_bilinear2d, _aten("upsample_bilinear2d"), None,
               ("upsample_bilinear2d", "upsample_bilinear2d.out"), FLOATING, _upsample_samples(True), out=("out",),
               autograd=True, tol=tol),
        OpInfo("upsample_bilinear2d_backward", _upsample_backward("upsample_bilinear2d_backward"),
               _aten("upsample_bilinear2d_backward"), None,
               ("upsample_bilinear2d_backward", "upsample_bilinear2d_backward.grad_input"), FLOATING,
               _upsample_backward_samples(True), out=("out",), autograd=True, tol=tol),
        # uint8: "nearest" only, as upsample_nearest2d takes it and upsample_bilinear2d does not
        OpInfo("interpolate", opcore.nn.functional.interpolate,
               lambda *a, **k: torch.nn.functional.interpolate(*a, **k), None,
               ("upsample_nearest2d.vec", "upsample_bilinear2d.vec"), nearest_dtypes,
               _interpolate_samples, autograd=True, tol=tol),
    ]


# --- issue #34: distances (cdist, pdist) ------------------------------------------------------

_DIST_PS = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf)


def _cdist_samples(m):
    x1, x2 = m.make((3, 4)), m.make((2, 4))
    extremes = extreme_values(m.dtype)
    finite = extremes[np.isfinite(extremes)]
    s = [SampleInput((x1, x2), desc="3x4 and 2x4, p 2", grad=True)]
    s += [SampleInput((x1, x2, p), desc=f"3x4 and 2x4, p {p}", grad=True) for p in _DIST_PS]
    s += [SampleInput((m.make((2, 1, 3, 2)), m.make((4, 5, 2)), 1.0), desc="batches broadcast, p 1", grad=True),
          SampleInput((m.make((2, 3, 2)), m.make((5, 2)), 3.0), desc="one side batched, p 3", grad=True),
          SampleInput((m.make((30, 3)), m.make((4, 3))), desc="30 rows: the matrix product", grad=True),
          SampleInput((m.make((4, 3)), m.make((2, 4, 3)), 2.0, "use_mm_for_euclid_dist"),
                      desc="use_mm_for_euclid_dist, broadcast", grad=True),
          SampleInput((m.make((30, 3)), m.make((4, 3)), 2.0, "donot_use_mm_for_euclid_dist"),
                      desc="30 rows, donot_use_mm_for_euclid_dist", grad=True),
          SampleInput((m.make((4, 3), "t"), m.make((2, 3), "step"), 1.5), desc="transposed and step-sliced"),
          SampleInput((m.make((3, 40)), m.make((2, 40)), 2.0), desc="40 columns (the vector loop and its tail)"),
          SampleInput((m.make((0, 3)), x2[:, :3]), desc="no rows in x1"),
          SampleInput((m.make((2, 0, 4)), x2), desc="empty batch"),
          SampleInput((m.make((3, 0)), m.make((2, 0)), 3.0), desc="no columns: zeros"),
          SampleInput((from_values(extremes, (len(extremes), 1), m.dtype), from_values(extremes[:3], (3, 1), m.dtype),
                       1.0), desc="extremes, p 1"),
          SampleInput((from_values(finite, (len(finite), 1), m.dtype), from_values(finite[-3:], (3, 1), m.dtype),
                       math.inf), desc="finite extremes, p inf"),
          SampleInput((m.make((4,)), x2), desc="1-D x1", error="cdist only supports at least 2D tensors, X1 got: 1D"),
          SampleInput((x1, m.make(())), desc="0-dim x2", error="cdist only supports at least 2D tensors, X2 got: 0D"),
          SampleInput((x1, m.make((2, 3))), desc="columns differ",
                      error="X1 and X2 must have the same number of columns. X1: 4 X2: 3"),
          SampleInput((x1, x2, -1.0), desc="negative p", error="cdist only supports non-negative p values"),
          SampleInput((x1, x2, 2.0, "fast"), desc="unknown compute_mode", error="fast is not a valid value for "
                      "compute_mode", error_type=ValueError),
          SampleInput((m.make((2, 3, 4)), m.make((3, 2, 4))), desc="batches do not broadcast",
                      error=r"The size of tensor a \(2\) must match the size of tensor b \(3\) at non-singleton "
                            "dimension 0")]
    return s


def _cdist_forward_samples(m):
    x1, x2 = m.make((3, 4)), m.make((2, 4))
    extremes = extreme_values(m.dtype)
    finite = extremes[np.isfinite(extremes)]
    return [SampleInput((x1, x2, 2.0, None), desc="3x4 and 2x4, p 2", grad=True),
            *[SampleInput((m.make((2, 3, 3)), m.make((4, 3)), p, 2), desc=f"batched, p {p}", grad=True)
              for p in _DIST_PS],
            SampleInput((m.make((30, 2)), x2[:, :2], 2.0, 0), desc="30 rows, mode 0: the matrix product", grad=True),
            SampleInput((x1, x2, 2.0, 1), desc="mode 1: the matrix product", grad=True),
            SampleInput((m.make((0, 4)), x2, 2.0, None), desc="empty"),
            SampleInput((m.make((3, 4), "t"), m.make((2, 4), "step"), 3.0, None), desc="transposed and step-sliced"),
            SampleInput((from_values(finite, (len(finite), 1), m.dtype), from_values(finite[:3], (3, 1), m.dtype), 1.0,
                         2), desc="finite extremes, p 1"),
            SampleInput((x1, x2, 2.0, 3), desc="mode 3", error="possible modes: 0, 1, 2, but was: 3"),
            SampleInput((m.make(()), x2, 2.0, None), desc="0-dim x1",
                        error="cdist only supports at least 2D tensors, X1 got: 0D")]


def _dist_of(f, *args):
    # The forward result the backward takes, computed in float64 (so that the samples of a
    # dtype the operators refuse reach the operator under test) and rounded to the dtype.
    return f(*[a.to(opcore.float64) if isinstance(a, opcore.Tensor) else a for a in args]).to(args[0].dtype)


def _cdist_backward_samples(m):
    s = []
    for p in _DIST_PS:
        x1, x2 = m.make((2, 3, 4)), m.make((5, 4))
        d = _dist_of(opcore._cdist_forward, x1, x2, p, None)
        s.append(SampleInput((m.make((2, 3, 5)), x1, x2, p, d), desc=f"batched, p {p}"))
    x1, x2 = m.make((3, 4)), m.make((2, 4))
    d = _dist_of(opcore._cdist_forward, x1, x2, 1.0, None)
    s.append(SampleInput((m.make((3, 2), "t"), x1, x2, 1.0, d), desc="transposed grad, p 1"))
    extremes = extreme_values(m.dtype)
    g = from_values(extremes[:6], (3, 2), m.dtype)
    s.append(SampleInput((g, x1, x2, 2.0, d), desc="extreme grad, p 2"))
    x1, x2 = m.make((3, 0)), m.make((2, 0))
    s.append(SampleInput((m.make((3, 2)), x1, x2, 2.0, _dist_of(opcore._cdist_forward, x1, x2, 2.0, None)),
                         desc="no columns"))
    s.append(SampleInput((m.make(()), x1, x2, 2.0, d), desc="0-dim grad", error="_cdist_backward: expected grad"))
    return s


def _pdist_samples(m):
    x = m.make((5, 3))
    extremes = extreme_values(m.dtype)
    s = [SampleInput((x,), desc="5x3, p 2", grad=True)]
    s += [SampleInput((x, p), desc=f"5x3, p {p}", grad=True) for p in _DIST_PS]
    s += [SampleInput((m.make((4, 3), "t"), 1.0), desc="transposed, p 1", grad=True),
          SampleInput((m.make(()),), desc="0-dim", error="pdist only supports 2D tensors, got: 0D"),
          SampleInput((m.make((6, 40)), 2.0), desc="40 columns"),
          SampleInput((m.make((1, 3)),), desc="one row: no pairs"),
          SampleInput((m.make((0, 3)),), desc="no rows"),
          SampleInput((m.make((4, 0)), 3.0), desc="no columns: zeros"),
          SampleInput((from_values(extremes, (len(extremes), 1), m.dtype), 2.0), desc="extremes, p 2"),
          SampleInput((m.make((3,)),), desc="1-D", error="pdist only supports 2D tensors, got: 1D"),
          SampleInput((x, -0.5), desc="negative p", error="pdist only supports non-negative p values")]
    return s


def _pdist_forward_samples(m):
    return [SampleInput((m.make((5, 3)), p), desc=f"5x3, p {p}", grad=True) for p in _DIST_PS] + [
        SampleInput((m.make((1, 3)), 2.0), desc="one row"),
        SampleInput((m.make((0, 3)), 2.0), desc="no rows"),
        SampleInput((m.make((4, 0)), 1.5), desc="no columns: zeros"),
        SampleInput((from_values(extreme_values(m.dtype), (len(extreme_values(m.dtype)), 1), m.dtype), 1.0),
                    desc="extremes, p 1"),
        SampleInput((m.make(()), 2.0), desc="0-dim", error="pdist only supports 2D tensors, got: 0D"),
        SampleInput((m.make((4, 3), "t"), 2.0), desc="not contiguous", error="_pdist_forward requires contiguous input")]


def _pdist_backward_samples(m):
    s = []
    for p in _DIST_PS:
        x = m.make((5, 3))
        s.append(SampleInput((m.make((10,)), x, p, _dist_of(opcore._pdist_forward, x, p)), desc=f"5x3, p {p}"))
    x = m.make((4, 3))
    d = _dist_of(opcore._pdist_forward, x, 2.0)
    s.append(SampleInput((m.make((6,), "step"), x, 2.0, d), desc="step-sliced grad"))
    s.append(SampleInput((from_values(extreme_values(m.dtype)[:6], (6,), m.dtype), x, 1.0, d), desc="extreme grad"))
    s.append(SampleInput((m.make(()), x, 2.0, d), desc="0-dim grad", error="_pdist_backward: expected grad"))
    x = m.make((1, 3))
    s.append(SampleInput((m.make((0,)), x, 2.0, _dist_of(opcore._pdist_forward, x, 2.0)), desc="one row"))
    return s


def _distance_rows():
    # torch computes float32 in float32: the same roundings (p = inf's ties, overflows)
    tol, upcast = {opcore.float32: (1e-5, 1e-5)}, {opcore.float32: opcore.float32}
    return [
        OpInfo("cdist", opcore.cdist, lambda *a, **k: torch.cdist(*a, **k), None,
               ("cdist", "_cdist_forward", "_cdist_backward"), (opcore.float32, opcore.float64), _cdist_samples,
               autograd=True, tol=tol, upcast=upcast),
        OpInfo("_cdist_forward", opcore._cdist_forward, lambda *a: torch.ops.aten._cdist_forward(*a), None,
               ("_cdist_forward", "_cdist_forward.out"), (opcore.float32, opcore.float64), _cdist_forward_samples,
               out=("out",), autograd=True, tol=tol, upcast=upcast),
        OpInfo("_cdist_backward", opcore._cdist_backward, lambda *a: torch.ops.aten._cdist_backward(*a), None,
               ("_cdist_backward", "_cdist_backward.out"), (opcore.float32, opcore.float64), _cdist_backward_samples,
               out=("out",), tol=tol, upcast=upcast),
        OpInfo("pdist", opcore.nn.functional.pdist, lambda *a: torch.nn.functional.pdist(*a), None,
               ("pdist", "_pdist_forward", "_pdist_backward"), (opcore.float32, opcore.float64), _pdist_samples,
               autograd=True, tol=tol, upcast=upcast),
        OpInfo("_pdist_forward", opcore._pdist_forward, lambda *a: torch.ops.aten._pdist_forward(*a), None,
               ("_pdist_forward", "_pdist_forward.out"), (opcore.float32, opcore.float64), _pdist_forward_samples,
               out=("out",), autograd=True, tol=tol, upcast=upcast),
        OpInfo("_pdist_backward", opcore._pdist_backward, lambda *a: torch.ops.aten._pdist_backward(*a), None,
               ("_pdist_backward", "_pdist_backward.out"), (opcore.float32, opcore.float64), _pdist_backward_samples,
               out=("out",), tol=tol, upcast=upcast),
    ]


# --- issue #34: embedding bags -------------------------------------------------------------------
# _embedding_bag's four results have a row each (offset2bag, bag_size and max_indices exactly);
# torch runs in float32 and float16 where opcore does, so that its sum fast path (offset2bag
# left empty) is taken in the same cases. torch 1.13's CPU kernel has no bfloat16: its row is
# checked against torch in float64. scale_grad_by_freq samples of the backward name each index
# equally often: torch 1.13's dense backward divides by the count of another index otherwise
# (test_nn.py checks opcore's against torch's gradient without it, divided by the counts).


def _int(values):
    return opcore.tensor(values, dtype=opcore.int32)


def _embedding_bag_samples(m):
    w = m.make((6, 3))
    idx, off = _long([0, 2, 5, 2, 1, 3, 4]), _long([0, 2, 2, 5])
    extremes = extreme_values(m.dtype)
    rows = max(len(extremes) // 3, 1)
    s = []
    for mode in (0, 1, 2):
        s += [SampleInput((w, idx, off, False, mode), desc=f"mode {mode}", grad=True),
              SampleInput((w, idx, _long([0, 3, 3, 7]), False, mode, False, None, True), grad=True,
                          desc=f"mode {mode}, include_last_offset"),
              SampleInput((w, idx, off, False, mode, False, None, False, 2), desc=f"mode {mode}, padding_idx 2",
                          grad=True),
              SampleInput((w, _int([0, 2, 5, 2]), _int([0, 1]), False, mode), desc=f"mode {mode}, int32", grad=True),
              SampleInput((w, _int([0, 2, 5, 2]), _long([0, 1]), False, mode), desc=f"mode {mode}, int32 and int64"),
              SampleInput((m.make((6, 3), "t"), idx, off, False, mode), desc=f"mode {mode}, transposed weight"),
              SampleInput((w, _long([2, 2, 1]), _long([0, 2]), False, mode, False, None, False, 2),
                          desc=f"mode {mode}, a bag of padding only"),
              SampleInput((w, opcore.zeros(0, dtype=opcore.int64), _long([0, 0]), False, mode), desc=f"mode {mode}, no indices"),
              SampleInput((m.make((6, 0)), idx, off, False, mode), desc=f"mode {mode}, 0 columns"),
              SampleInput((from_values(extremes[:3 * rows], (rows, 3), m.dtype), _long(list(range(rows))[::-1]),
                           _long([0, rows // 2]), False, mode), desc=f"mode {mode}, extremes")]
    # (no offsets, with indices: torch 1.13 writes out of bounds but in float32's fast path;
    # test_nn.py checks opcore's results)
    psw = m.make((7,))
    s += [SampleInput((w, idx, off, False, 0, False, psw), desc="per_sample_weights", grad=True),
          SampleInput((w, idx, off, False, 0, False, psw, False, 5), desc="per_sample_weights, padding_idx 5",
                      grad=True),
          SampleInput((w, idx, off, False, 0, False, m.make((14,))[::2]), desc="strided per_sample_weights"),
          SampleInput((w, _long([0, 6]), _long([0]), False, 1), desc="index out of range",
                      error="Expected idx >= 0 && idx < num_embeddings but found idx to be 6"),
          SampleInput((w, _long([0, -1]), _long([0]), False, 2), desc="negative index",
                      error="Expected idx >= 0 && idx < num_embeddings but found idx to be -1"),
          SampleInput((w, idx, _long([1, 3])), desc="offsets not from 0", error=r"offsets\[0\] has to be 0"),
          SampleInput((w, idx, _long([0, 4, 2])), desc="decreasing offsets", error="offsets must not decrease"),
          SampleInput((w, idx, _long([0, 8])), desc="offsets past the indices",
                      error=r"offsets\[-1\] can not be greater than input's length 7 but got offsets\[-1\] of 8"),
          SampleInput((w, idx, off, False, 1, False, psw), desc="per_sample_weights in mean mode",
                      error="per_sample_weights only supported with mode='sum'"),
          SampleInput((w, idx, off, False, 0, False, m.make((6,))), desc="per_sample_weights of the wrong size",
                      error=r"per_sample_weights.value\(\).numel\(\) == indices.numel\(\)"),
          SampleInput((m.make((6,)), idx, off), desc="1-D weight", error="expected 'weight' to be 2-D"),
          SampleInput((w, _long([[0, 1]]), _long([0])), desc="2-D indices", error="expected 'indices' to be 1-D"),
          SampleInput((w, opcore.tensor([0.0]), _long([0])), desc="float indices",
                      error="Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                            "Long, Int; but got Float"),
          SampleInput((w, idx, off, False, 3), desc="mode 3", error="mode must be 0 \\(sum\\), 1 \\(mean\\) or 2"),
          SampleInput((w, idx, opcore.zeros(0, dtype=opcore.int64), False, 0, False, None, True),
                      desc="include_last_offset without offsets",
                      error="include_last_offset: number of offset should be at least 1")]
    return s


def _embedding_bag_index_samples(m):
    # The rows of the index results: Int when indices and offsets both are; the reference gets
    # contiguous copies, so the strided samples (which take no fast path) are left to test_nn.py.
    return [dataclasses.replace(x, dtype=opcore.int32 if x.desc.endswith(", int32") else None)
            for x in _embedding_bag_samples(m) if "transposed" not in x.desc and "strided" not in x.desc]


def _embedding_bag_dense_backward_samples(m):
    idx, bags = _long([0, 2, 5, 2, 1, 3, 4]), _long([0, 0, 2, 2, 2, 3, 3])
    sizes = _long([2, 0, 3, 2])
    none = opcore.zeros(0, dtype=opcore.int64)
    g = m.make((4, 3))
    extremes = extreme_values(m.dtype)
    maxima = _long([[0, 2, 0], [0, 0, 0], [5, 1, 2], [4, 4, 3]])
    return [SampleInput((g, idx, bags, sizes, sizes, 6, False, 0, None), desc="sum"),
            SampleInput((g, idx, bags, sizes, sizes, 6, False, 1, None), desc="mean"),
            SampleInput((g, idx, bags, sizes, maxima, 6, False, 2, None), desc="max"),
            SampleInput((g, idx, bags, sizes, sizes, 6, False, 0, m.make((7,))), desc="per_sample_weights"),
            SampleInput((g, idx, bags, _long([2, 0, 2, 2]), sizes, 6, False, 1, None, 5), desc="mean, padding_idx 5"),
            SampleInput((g, _long([1, 1, 3, 3]), _long([0, 0, 0, 2]), _long([3, 0, 1, 0]), sizes, 6, True, 1, None),
                        desc="mean, scale_grad_by_freq"),
            SampleInput((m.make((4, 3), "t"), idx, bags, sizes, sizes, 6, False, 0, None), desc="transposed grad"),
            SampleInput((m.make((0, 3)), none, none, none, none, 6, False, 1, None), desc="no bags"),
            SampleInput((from_values(extremes, (len(extremes), 1), m.dtype), _long([i % 2 for i in range(len(extremes))]),
                         _long(list(range(len(extremes)))), sizes, sizes, 2, False, 0, None),
                        desc="extremes summed into two rows"),
            SampleInput((g, _long([0, 6]), _long([0, 0]), sizes, sizes, 6, False, 0, None), desc="index out of range",
                        error="found idx to be 6"),
            SampleInput((g, idx, bags, sizes, _long([[0, 6, 0], [0, 0, 0], [5, 1, 2], [4, 4, 3]]), 6, False, 2, None),
                        desc="maximum index out of range", error="is out of range for 6 weights"),
            SampleInput((g, idx, bags[:3], sizes, sizes, 6, False, 0, None), desc="offset2bag of the wrong size",
                        error="expected offset2bag of indices' shape")]


def _embedding_bag_psw_backward_samples(m):
    idx, off, bags = _long([0, 2, 5, 2, 1, 3, 4]), _long([0, 2, 2, 5]), _long([0, 0, 2, 2, 2, 3, 3])
    g, w = m.make((4, 3)), m.make((6, 3))
    extremes = extreme_values(m.dtype)
    none = opcore.zeros(0, dtype=opcore.int64)
    return [SampleInput((g, w, idx, off, bags, 0), desc="sum"),
            SampleInput((g, w, idx, off, none, 0), desc="offset2bag left empty"),
            SampleInput((g, w, idx, off, bags, 0, 2), desc="padding_idx 2"),
            SampleInput((g, m.make((6, 3), "t"), _int([0, 2, 1]), _int([0, 1]), _int([0, 1, 1]), 0),
                        desc="transposed weight, int32"),
            SampleInput((g, w, none, off, none, 0), desc="no indices"),
            SampleInput((m.make((0, 3)), w, none, none, none, 0), desc="no bags"),
            SampleInput((from_values(extremes, (len(extremes), 1), m.dtype), from_values(extremes[::-1], (2, 1), m.dtype),
                         _long([i % 2 for i in range(len(extremes))]), _long(list(range(len(extremes)))), none, 0),
                        desc="extremes"),
            SampleInput((g, w, idx, off, bags, 1), desc="mean mode",
                        error="per_sample_weights only supported for mode='sum'"),
            SampleInput((g, w, _long([0, 6]), _long([0]), none, 0), desc="index out of range",
                        error="found idx to be 6")]


def _embedding_bag_functional_samples(m):
    w = m.make((6, 3))
    idx, off = _long([0, 2, 5, 2, 1, 3, 4]), _long([0, 2, 2, 5])
    extremes = extreme_values(m.dtype)
    return [SampleInput((idx, w, off), desc="mean (the default)", grad=True),
            SampleInput((idx, w, off), {"mode": "sum", "padding_idx": -1}, desc="sum, padding_idx -1", grad=True),
            SampleInput((idx, w, off), {"mode": "max", "padding_idx": 2}, desc="max, padding_idx 2", grad=True),
            SampleInput((_long([[0, 2, 5], [2, 1, 1]]), w), {"mode": "sum", "per_sample_weights": m.make((2, 3))},
                        desc="2-D input, per_sample_weights", grad=True),
            SampleInput((idx, w, _long([0, 3, 7])), {"include_last_offset": True, "scale_grad_by_freq": True},
                        desc="include_last_offset, scale_grad_by_freq"),
            SampleInput((idx, m.make((6, 3), "t"), off), {"mode": "max"}, desc="transposed weight"),
            SampleInput((opcore.zeros(0, dtype=opcore.int64), w, _long([0, 0])), desc="no indices"),
            SampleInput((_long(list(range(len(extremes)))[::-1]), from_values(extremes, (len(extremes), 1), m.dtype),
                         _long([0, 2])), {"mode": "sum"}, desc="extremes"),
            SampleInput((idx, w, off), {"padding_idx": 6}, desc="padding_idx out of range",
                        error="padding_idx must be within the number of embeddings, -6 through 5, but got 6"),
            SampleInput((idx, w), desc="1-D input without offsets", error="offsets has to be a 1D Tensor but got None",
                        error_type=ValueError),
            SampleInput((idx, w, off), {"mode": "median"}, desc="bad mode",
                        error="mode has to be one of sum, mean or max", error_type=ValueError),
            SampleInput((idx, w, off), {"mode": "mean", "per_sample_weights": m.make((7,))},
                        desc="per_sample_weights in mean mode", error="only supported for mode='sum'",
                        error_type=NotImplementedError)]


def _embedding_bag_rows():
    exact = {opcore.float32: opcore.float32, opcore.float16: opcore.float16}
    return [
        OpInfo("_embedding_bag", _part(opcore._embedding_bag, 0), _aten("_embedding_bag"), None, ("_embedding_bag",),
               FLOATING, _embedding_bag_samples, autograd=True, upcast=exact),
        *(OpInfo(f"_embedding_bag ({what})", _part(opcore._embedding_bag, i), _part(_aten("_embedding_bag"), i), None,
                 (), FLOATING, _embedding_bag_index_samples, lambda d: opcore.int64, upcast=exact)
          for i, what in ((1, "offset2bag"), (2, "bag_size"), (3, "max_indices"))),
        OpInfo("_embedding_bag_dense_backward", opcore._embedding_bag_dense_backward,
               _aten("_embedding_bag_dense_backward"), None,
               ("_embedding_bag_dense_backward", "_embedding_bag_dense_backward.out"), FLOATING,
               _embedding_bag_dense_backward_samples, out=("out",)),
        OpInfo("_embedding_bag_per_sample_weights_backward", opcore._embedding_bag_per_sample_weights_backward,
               _aten("_embedding_bag_per_sample_weights_backward"), None,
               ("_embedding_bag_per_sample_weights_backward", "_embedding_bag_per_sample_weights_backward.out"),
               FLOATING, _embedding_bag_psw_backward_samples, out=("out",)),
        OpInfo("embedding_bag", opcore.nn.functional.embedding_bag,
               lambda *a, **k: torch.nn.functional.embedding_bag(*a, **k), None,
               ("embedding_bag", "embedding_bag.padding_idx", "_embedding_bag_backward"), FLOATING,
               _embedding_bag_functional_samples, autograd=True),
    ]


NN_LAYERS = [
    OpInfo("embedding", opcore.embedding, lambda *a, **k: torch.embedding(*a, **k), None, ("embedding", "embedding.out"),
           DTYPES, _embedding_samples, out=("out",), autograd=True),
    OpInfo("embedding_dense_backward", opcore.embedding_dense_backward,
           lambda *a: torch.ops.aten.embedding_dense_backward(*a), None,
           ("embedding_dense_backward", "embedding_dense_backward.out", "embedding_backward"), FLOATING + COMPLEX,
           _embedding_backward_samples, out=("out",), autograd=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.complex64: (1e-5, 1e-5)}),
    OpInfo("native_dropout", _part(opcore.native_dropout, 0), _part(torch.native_dropout, 0) if torch else None, None,
           ("native_dropout", "native_dropout.out"), FLOATING + COMPLEX, _native_dropout_samples, autograd=True),
    OpInfo("native_dropout (mask)", _part(opcore.native_dropout, 1), _part(torch.native_dropout, 1) if torch else None,
           None, (), FLOATING + COMPLEX, _native_dropout_samples, lambda d: opcore.bool),
    OpInfo("native_dropout_backward", _native_dropout_backward,
           lambda *a: torch.ops.aten.native_dropout_backward(*a), None,
           ("native_dropout_backward", "native_dropout_backward.out"), FLOATING + COMPLEX, _dropout_backward_samples,
           out=("out",), autograd=True),
    # every dtype, as torch's: an integer or bool input raises only when a mask is drawn (these
    # samples draw none; test_nn_layers.py checks that)
    OpInfo("dropout", opcore.dropout, lambda *a: torch.dropout(*a), None, ("dropout",), DTYPES, _dropout_samples,
           autograd=True),
    OpInfo("dropout_", lambda x, *a: opcore.dropout_(x.clone(), *a), lambda x, *a: torch.dropout_(x.clone(), *a), None,
           ("dropout_",), DTYPES, _dropout_samples, autograd=True),
    OpInfo("convolution", opcore.convolution, _torch_conv("convolution"), None,
           ("convolution", "convolution.out", "convolution_backward"), FLOATING, _conv_samples(2),
           out=("out",), autograd=True, tol=_CONV_TOL),
    OpInfo("convolution (1-d, 3-d, transposed)", lambda *a: opcore.convolution(*a), _torch_conv("convolution"), None,
           (), FLOATING, lambda m: _conv_samples(1)(m) + _conv_samples(3)(m) + _conv_samples(2, True)(m),
           autograd=True, tol=_CONV_TOL),
    *(OpInfo(f"conv{d}d", getattr(opcore, f"conv{d}d"), _torch_conv(f"conv{d}d"), None, (f"conv{d}d", f"conv{d}d.padding"),
             FLOATING, _conv_samples(d, functional=True), autograd=True, tol=_CONV_TOL) for d in (1, 2, 3)),
    *(OpInfo(f"conv_transpose{d}d", getattr(opcore, f"conv_transpose{d}d"), _torch_conv(f"conv_transpose{d}d"), None,
             (f"conv_transpose{d}d" if d == 1 else f"conv_transpose{d}d.input",), FLOATING,
             _conv_samples(d, transposed=True, functional=True), autograd=True, tol=_CONV_TOL) for d in (1, 2, 3)),
    OpInfo("max_pool2d", opcore.nn.functional.max_pool2d, lambda *a, **k: torch.nn.functional.max_pool2d(*a, **k), None,
           ("max_pool2d",), (opcore.bfloat16, opcore.float32, opcore.float64), _max_pool_samples, autograd=True),
    # the values and, exactly, the indices (the first maximum's, or the last NaN's, as torch's);
    # test_nn_layers.py checks the .out form
    OpInfo("max_pool2d_with_indices", _part(opcore._C._nn.max_pool2d_with_indices, 0),
           _part(lambda *a, **k: torch.nn.functional.max_pool2d_with_indices(*a, **k), 0), None,
           ("max_pool2d_with_indices", "max_pool2d_with_indices.out"), (opcore.bfloat16, opcore.float32, opcore.float64),
           _max_pool_samples, autograd=True),
    OpInfo("max_pool2d_with_indices (indices)", _part(opcore._C._nn.max_pool2d_with_indices, 1),
           _part(lambda *a, **k: torch.nn.functional.max_pool2d_with_indices(*a, **k), 1), None, (),
           (opcore.bfloat16, opcore.float32, opcore.float64), _max_pool_samples, lambda d: opcore.int64),
    OpInfo("max_pool2d_with_indices_backward", _max_pool_backward,
           lambda *a: torch.ops.aten.max_pool2d_with_indices_backward(*a), None,
           ("max_pool2d_with_indices_backward", "max_pool2d_with_indices_backward.grad_input"),
           (opcore.bfloat16, opcore.float32, opcore.float64), _max_pool_backward_samples, out=("out",),
           autograd=True),
    OpInfo("im2col", opcore._C._nn.im2col, _aten("im2col"), None, ("im2col", "im2col.out"), FLOATING + COMPLEX,
           _im2col_samples, out=("out",), autograd=True, grad_complex=True),
    OpInfo("col2im", opcore._C._nn.col2im, _aten("col2im"), None, ("col2im", "col2im.out"), FLOATING + COMPLEX,
           _col2im_samples, out=("out",), autograd=True, grad_complex=True,
           tol={opcore.float16: (1e-3, 1e-3), opcore.bfloat16: (1e-2, 1e-2)}),
    # ---- average pooling (issue #34): every dtype of torch 1.13's CPU kernels and float16 (PyTorch
    # 2's), sums in float as torch's (the reference in float32 for the 16-bit dtypes and float32);
    # test_nn_layers.py checks gradients against torch's and the Python functions' arguments
    OpInfo("avg_pool2d", lambda *a, **k: opcore._C._nn.avg_pool2d(*a, **k),
           lambda *a, **k: torch._C._nn.avg_pool2d(*a, **k), None, ("avg_pool2d", "avg_pool2d.out"),
           _AVG_POOL_DTYPES, _avg_pool_samples, out=("out",), autograd=True, upcast=_OPMATH),
    OpInfo("avg_pool2d_backward", _avg_pool_backward, lambda *a: torch.ops.aten.avg_pool2d_backward(*a), None,
           ("avg_pool2d_backward", "avg_pool2d_backward.grad_input"), _AVG_POOL_DTYPES, _avg_pool_backward_samples,
           out=("out",), autograd=True, upcast=_OPMATH),
    OpInfo("_adaptive_avg_pool2d", opcore._adaptive_avg_pool2d,
           lambda *a: torch.ops.aten._adaptive_avg_pool2d(*a), None,
           ("_adaptive_avg_pool2d", "_adaptive_avg_pool2d.out"), FLOATING, _adaptive_avg_pool_samples,
           out=("out",), autograd=True, upcast=_OPMATH),
    OpInfo("_adaptive_avg_pool2d_backward", opcore._adaptive_avg_pool2d_backward,
           lambda *a: torch.ops.aten._adaptive_avg_pool2d_backward(*a), None,
           ("_adaptive_avg_pool2d_backward", "_adaptive_avg_pool2d_backward.out"), FLOATING,
           _adaptive_avg_pool_backward_samples, out=("out",), autograd=True, upcast=_OPMATH),
    OpInfo("adaptive_avg_pool2d", opcore.nn.functional.adaptive_avg_pool2d,
           lambda *a: torch.nn.functional.adaptive_avg_pool2d(*a), None, ("adaptive_avg_pool2d",), FLOATING,
           _adaptive_avg_pool2d_functional_samples, autograd=True, upcast=_OPMATH),
    OpInfo("adaptive_avg_pool1d", opcore.nn.functional.adaptive_avg_pool1d,
           lambda *a: torch.nn.functional.adaptive_avg_pool1d(*a), None, ("adaptive_avg_pool1d",), FLOATING,
           _adaptive_avg_pool1d_samples, autograd=True, upcast=_OPMATH),
    OpInfo("avg_pool1d", opcore.nn.functional.avg_pool1d, lambda *a, **k: torch.nn.functional.avg_pool1d(*a, **k),
           None, ("avg_pool1d",), _AVG_POOL_DTYPES, _avg_pool1d_samples, autograd=True, upcast=_OPMATH),
    # ---- 3-d pooling (issue #34): the 2-d rows' dtypes (torch 1.13's CPU avg_pool3d has
    # float32, float64 and int64; the 16-bit ones are checked against its float32)
    OpInfo("avg_pool3d", lambda *a, **k: opcore._C._nn.avg_pool3d(*a, **k),
           lambda *a, **k: torch._C._nn.avg_pool3d(*a, **k), None, ("avg_pool3d", "avg_pool3d.out"), _AVG_POOL_DTYPES, _avg_pool3d_samples, out=("out",),
           autograd=True, upcast=_OPMATH),
    OpInfo("avg_pool3d_backward", _avg_pool3d_backward, lambda *a: torch.ops.aten.avg_pool3d_backward(*a), None,
           ("avg_pool3d_backward", "avg_pool3d_backward.grad_input"), _AVG_POOL_DTYPES,
           _avg_pool3d_backward_samples, out=("out",), autograd=True, upcast=_OPMATH),
    OpInfo("_adaptive_avg_pool3d", opcore._adaptive_avg_pool3d,
           lambda *a: torch.ops.aten._adaptive_avg_pool3d(*a), None,
           ("_adaptive_avg_pool3d", "_adaptive_avg_pool3d.out"), FLOATING, _adaptive_avg_pool3d_samples,
           out=("out",), autograd=True, upcast=_OPMATH),
    OpInfo("_adaptive_avg_pool3d_backward", opcore._C._nn._adaptive_avg_pool3d_backward,
           lambda *a: torch.ops.aten._adaptive_avg_pool3d_backward(*a), None,
           ("_adaptive_avg_pool3d_backward", "_adaptive_avg_pool3d_backward.out"), FLOATING,
           _adaptive_avg_pool3d_backward_samples, out=("out",), autograd=True, upcast=_OPMATH),
    OpInfo("adaptive_avg_pool3d_backward.grad_input", _adaptive_avg_pool3d_backward_out,
           lambda *a: torch.ops.aten._adaptive_avg_pool3d_backward(*a), None,
           ("adaptive_avg_pool3d_backward.grad_input",), FLOATING, _adaptive_avg_pool3d_backward_samples,
           out=("out",), upcast=_OPMATH),
    OpInfo("adaptive_avg_pool3d", opcore.nn.functional.adaptive_avg_pool3d,
           lambda *a: torch.nn.functional.adaptive_avg_pool3d(*a), None, ("adaptive_avg_pool3d",), FLOATING,
           _adaptive_avg_pool3d_functional_samples, autograd=True, upcast=_OPMATH),
    OpInfo("adaptive_avg_pool3d.out", _adaptive_avg_pool3d_out,
           lambda *a: torch.ops.aten._adaptive_avg_pool3d(*a), None, ("adaptive_avg_pool3d.out",), FLOATING,
           _adaptive_avg_pool3d_samples, out=("out",), upcast=_OPMATH),
    OpInfo("max_pool3d", opcore.nn.functional.max_pool3d, lambda *a, **k: torch.nn.functional.max_pool3d(*a, **k), None,
           ("max_pool3d",), (opcore.bfloat16, opcore.float32, opcore.float64), _max_pool3d_samples, autograd=True),
    OpInfo("max_pool3d_with_indices", _part(opcore._C._nn.max_pool3d_with_indices, 0),
           _part(lambda *a, **k: torch.nn.functional.max_pool3d_with_indices(*a, **k), 0), None,
           ("max_pool3d_with_indices", "max_pool3d_with_indices.out"), (opcore.bfloat16, opcore.float32, opcore.float64),
           _max_pool3d_samples, autograd=True),
    OpInfo("max_pool3d_with_indices (indices)", _part(opcore._C._nn.max_pool3d_with_indices, 1),
           _part(lambda *a, **k: torch.nn.functional.max_pool3d_with_indices(*a, **k), 1), None, (),
           (opcore.bfloat16, opcore.float32, opcore.float64), _max_pool3d_samples, lambda d: opcore.int64),
    OpInfo("max_pool3d_with_indices_backward", _max_pool3d_backward,
           lambda *a: torch.ops.aten.max_pool3d_with_indices_backward(*a), None,
           ("max_pool3d_with_indices_backward", "max_pool3d_with_indices_backward.grad_input"),
           (opcore.bfloat16, opcore.float32, opcore.float64), _max_pool3d_backward_samples, out=("out",),
           autograd=True),
    OpInfo("scaled_dot_product_attention", opcore.nn.functional.scaled_dot_product_attention, _torch_attention, None,
           ("scaled_dot_product_attention",), FLOATING, _attention_samples, autograd=True,
           tol={opcore.float32: (1e-5, 1e-5), opcore.float16: (2e-3, 1e-3), opcore.bfloat16: (2e-2, 2e-2)}),
    *_resample_pad_rows(),
    *_upsample_rows(),
    *_grid_sampler_rows(),
    *_distance_rows(),
    *_embedding_bag_rows(),
]

ROWS = ELEMENTWISE + REDUCTIONS + VIEWS + FACTORIES + INDEXING + SHAPE_REPEATS + NN_LAYERS

# Overloads of native_functions.yaml with no row, and why.
EXEMPT = {
    "_embedding_bag.out": "test_nn.py checks the out= form against the functional one (the _embedding_bag rows)",
    "native_layer_norm.out": "the layer_norm row reaches the functional form; test_nn.py checks the out= form "
                             "against it",
    "native_layer_norm_backward": "the layer_norm row's gradcheck reaches it (and its double backward); test_nn.py "
                                  "compares it with torch's for every output_mask",
    "native_batch_norm.out": "the batch_norm row reaches the functional form; test_nn.py checks the out= form "
                             "against it",
    "native_batch_norm_backward": "the batch_norm row's gradcheck reaches it (and its double backward); test_nn.py "
                                  "compares it with torch's in training and evaluation",
    "native_group_norm.out": "the group_norm row reaches the functional form",
    "_native_batch_norm_legit": "PyTorch 2's schema (torch 1.13 has none to compare with): test_nn.py checks it "
                                "against native_batch_norm, which the batch_norm row covers",
    "_native_batch_norm_legit.out": "test_nn.py checks it against native_batch_norm",
    "_native_batch_norm_legit.no_stats": "test_nn.py checks it against native_batch_norm",
    "_native_batch_norm_legit.no_stats_out": "test_nn.py checks it against the .no_stats form",
    "_native_batch_norm_legit_no_training": "test_nn.py checks it against native_batch_norm in evaluation",
    "_native_batch_norm_legit_no_training.out": "autogen'd from _native_batch_norm_legit_no_training, which "
                                                "test_nn.py checks",
    "native_group_norm_backward": "the group_norm row's gradcheck reaches it (and its double backward); test_nn.py "
                                  "compares it with torch's for several output_masks",
    "nll_loss_forward.output": "the nll_loss row reaches the functional form; test_nn.py checks the out= form "
                               "against it (values, total_weight, dtype refusal)",
    "nll_loss_backward.grad_input": "the nll_loss row's gradcheck reaches the functional form; test_nn.py checks "
                                    "the out= form against it",
    "empty.memory_format": "uninitialized memory: nothing to compare; shape, dtype and device are checked in "
                           "test_tensor.py, memory formats and layouts in test_factories.py",
    "empty.out": "uninitialized memory; the resize and memory format of out are checked in test_factories.py",
    "randperm": "random: opcore's Philox stream is not torch's; test_factories.py checks that it is a permutation, "
                "reproducible under manual_seed, in every dtype",
    "randperm.out": "random (see randperm); out= is checked in test_factories.py",
    "resize_": "the elements a resize adds are uninitialized; test_factories.py checks sizes, strides, kept values "
               "and errors against torch",
    "empty_strided": "uninitialized memory; its strides are checked in test_bindings.py",
    "empty_like": "uninitialized memory; shape and dtype are checked in test_tensor.py",
    "is_pinned": "pinning needs an accelerator: test_privateuse1.py checks it with the example backend's pinned "
                 "memory, test_cuda.py with the GPU's, both with a machine without either",
    "pin_memory": "pinning needs an accelerator (see is_pinned): values, strides and the gradient are checked in "
                  "test_privateuse1.py and PrivateUse1Test.cpp",
    "_pin_memory": "pin_memory's copy (see pin_memory)",
    "new_empty": "uninitialized memory; shape, dtype, device and contiguity are checked in test_factories.py",
    "new_empty_strided": "uninitialized memory; its strides, dtype and device are checked in test_factories.py",
    "rand_like": "random (see rand); test_factories.py checks its layout and range against rand's",
    "randn_like": "random (see rand); test_factories.py checks its layout and dtype",
    "randint_like": "random (see rand); test_factories.py checks its layout, dtype and range",
    "randint_like.low_dtype": "random (see randint_like)",
    "rand_like.generator": "random (see rand); test_factories.py checks that a generator's state gives the draw",
    "randn_like.generator": "random (see rand_like.generator)",
    "randint_like.generator": "random (see rand_like.generator)",
    "randint_like.low_generator_dtype": "random (see rand_like.generator)",
    "rand": "random: opcore's Philox stream is not torch's, so there is no reference to compare values with",
    "rand.out": "random (see rand); test_factories.py checks it against rand",
    "randn.out": "random (see rand); test_factories.py checks it against randn",
    "randn": "random: opcore's Philox stream is not torch's, so there is no reference to compare values with",
    "uniform_": "random: opcore's Philox stream is not torch's, so there is no reference to compare values with",
    "normal_": "random: opcore's Philox stream is not torch's, so there is no reference to compare values with",
    "randint": "random (see rand); test_random.py checks its forms, shapes and dtypes against torch's and its "
               "range, RandomTest.cpp its values in every dtype",
    "randint.low": "random (see randint)",
    "randint.out": "random (see randint); test_random.py checks it against randint",
    "randint.low_out": "random (see randint); test_random.py checks it against randint.low",
    "random_.from": "random (see rand); test_random.py and RandomTest.cpp check its ranges in every dtype and its "
                    "errors",
    "random_.to": "random (see random_.from)",
    "random_": "random (see random_.from)",
    "bernoulli": "random (see rand); test_random.py checks its forms against torch's, RandomTest.cpp its "
                 "frequencies, broadcasting and errors",
    "bernoulli.out": "random (see bernoulli); test_random.py checks it against bernoulli",
    "bernoulli_.Tensor": "random (see bernoulli)",
    "bernoulli_.float": "random (see bernoulli)",
    "bernoulli.p": "random (see bernoulli)",
    "multinomial": "random (see rand); test_random.py checks its forms against torch's, RandomTest.cpp its "
                   "frequencies with and without replacement and its errors",
    "multinomial.out": "random (see multinomial); test_random.py checks it against multinomial",
    "set_.source_Storage": "not reachable from Python: opcore has no Storage object in Python",
    "grid_sampler_2d_backward": "the grid_sampler_2d row's gradcheck reaches it; test_nn_layers.py compares both "
                                "gradients with torch's for every mode, padding and output_mask",
    "grid_sampler_2d_backward.out": "autogen'd from grid_sampler_2d_backward, which test_nn_layers.py checks",
}


def torch_dtype(dtype):
    """torch's dtype of the same name (torch installed)."""
    return getattr(torch, repr(dtype).removeprefix("opcore."))



_BF16_DENORMALS = ("mm bfloat16 through oneDNN reads denormal inputs as zero (its bf16 dot-product instructions, "
                   "AVX512_BF16 / AMX, do): inf * denormal gives NaN, not inf as in float")


def _bf16_gemm_flushes_denormals() -> bool:
    """Whether this build and CPU take bfloat16 products through oneDNN's denormal-flushing
    kernels (without oneDNN, or on CPUs without bf16 dot products, mm computes in float)."""
    inf = opcore.tensor([[math.inf]]).to(opcore.bfloat16)
    denormal = opcore.tensor([[-3 * 2.0 ** -133]]).to(opcore.bfloat16)
    return math.isnan(opcore.mm(inf, denormal).item())


# _softmax_backward_data's sums of grad * output round each product (opcore is built with
# -ffp-contract=off, so on every machine and device alike). Where the products overflow, the
# column path (dim 0) then gives NaN; torch's vectorized column kernel fuses them and gives inf.
# Its row path rounds them too, and agrees with opcore there.
_SOFTMAX_COLUMNS_UNFUSED = ("the column sums of grad * output round each product: NaN where torch, which fuses them, "
                            "gives inf")


# Samples that fail today, each naming its defect: (row, dtype, sample desc) -> reason. They run
# as strict xfails in test_known_failures, so a fix shows up as an XPASS to remove here.
KNOWN_FAILURES: dict = {
    **{("_softmax_backward_data", d, "large, extremes scattered, dim 0"): _SOFTMAX_COLUMNS_UNFUSED
       for d in ("bfloat16", "float32", "float64")},
    **({("mm", "bfloat16", "extremes outer product"): _BF16_DENORMALS,
        ("mm", "bfloat16", "extremes 2xk @ kx2"): _BF16_DENORMALS,
        ("bmm", "bfloat16", "extremes outer products"): _BF16_DENORMALS} if _bf16_gemm_flushes_denormals() else {}),
}
