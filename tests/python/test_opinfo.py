"""Every operator of the table in tests/python/opinfo.py against its reference (issue #32): the
functional form for every sample and dtype, the out= and in-place forms against the functional
one, gradcheck, the errors of unsupported dtypes, and that every operator of
yaml/native_functions.yaml has a row. The reference is torch where it is installed, numpy
otherwise (OPCORE_OPINFO_REFERENCE=numpy picks numpy where torch is installed too)."""
from __future__ import annotations

import pathlib
import re
import warnings

import numpy as np
import pytest

import opcore

import opinfo
from opinfo import EXEMPT, KNOWN_FAILURES, ROWS, torch
from opinfo_samples import COMPLEX, DTYPES, INTEGRAL, Maker, name

YAML = pathlib.Path(__file__).resolve().parents[2] / "yaml" / "native_functions.yaml"
_UPCAST = {opcore.float16: opcore.float64, opcore.bfloat16: opcore.float64, opcore.float32: opcore.float64,
           opcore.complex64: opcore.complex128}
_C10 = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
        "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
        "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def samples_of(row, dtype):
    return row.samples(Maker(dtype, seed=sum(map(ord, row.name + name(dtype))), low=row.low, high=row.high))


def _supported():
    return [pytest.param(row, d, id=f"{row.name}-{name(d)}") for row in ROWS for d in row.dtypes]


def _unsupported():
    return [pytest.param(row, d, id=f"{row.name}-{name(d)}") for row in ROWS for d in DTYPES if d not in row.dtypes]


# --- conversions to the reference -------------------------------------------------------------------


def to_numpy(t) -> np.ndarray:
    """A copy of opcore tensor t's values; float16, bfloat16 and float32 as float64, complex64 as
    complex128 (exact), integers and bool as they are."""
    t = t.detach()
    if t.dtype in _UPCAST:
        t = t.to(_UPCAST[t.dtype])
    return np.array(t.numpy(), order="C")


def _torch_to_numpy(t) -> np.ndarray:
    t = t.detach().resolve_conj().resolve_neg()
    return np.array((t.float() if t.dtype == torch.bfloat16 else t).numpy())


def _torch_tensor(array):
    # contiguous strides: numpy gives an empty array strides (0, 0), which view_as_complex refuses
    t = torch.from_numpy(array)
    return torch.empty_like(t, memory_format=torch.contiguous_format).copy_(t)


def to_reference(value, use_torch, upcast):
    """An argument as the reference takes it: a tensor as numpy or torch, in the dtype `upcast`
    maps its dtype to (exact); a dtype as torch's upcast one (numpy references take opcore's)."""
    if isinstance(value, opcore.Tensor):
        array = to_numpy(value)
        target = upcast.get(value.dtype)
        if target is opcore.bfloat16 and use_torch:   # exact: the values are bfloat16's
            return _torch_tensor(array).to(torch.bfloat16)
        if target is not None and target is not opcore.bfloat16:
            array = array.astype(np.dtype(name(target)))
        return _torch_tensor(array) if use_torch else array
    if isinstance(value, (list, tuple)):
        return type(value)(to_reference(v, use_torch, upcast) for v in value)
    if use_torch and isinstance(value, type(opcore.float32)):
        return opinfo.torch_dtype(_UPCAST.get(value, value))
    return value


def reference(row, sample, dtype):
    args, kwargs = list(sample.args), dict(sample.kwargs)
    if row.number_operand and len(args) > 1 and isinstance(args[1], (float, complex)):
        args[1] = round_to(np.array(args[1]), dtype).item()
    if row.number_operand and isinstance(kwargs.get("alpha"), (float, complex)):
        # alpha too is converted to the operands' dtype, as PyTorch's alpha.to<scalar_t>()
        kwargs["alpha"] = round_to(np.array(kwargs["alpha"]), dtype).item()
    use_torch = torch is not None
    upcast = {**_UPCAST, **row.upcast}
    args = [to_reference(a, use_torch, upcast) for a in args]
    kwargs = {k: to_reference(v, use_torch, upcast) for k, v in kwargs.items()}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        result = (row.ref if use_torch else row.np_ref)(*args, **kwargs)
    if isinstance(result, tuple):
        result = result[0]
    return _torch_to_numpy(result) if use_torch else np.asarray(result)


def round_to(values: np.ndarray, dtype) -> np.ndarray:
    """values rounded to dtype (to nearest even), kept as float64 / complex128 / int / bool."""
    if dtype in COMPLEX:
        v = values.astype(np.complex128)
        real = {opcore.complex64: opcore.float32}.get(dtype, opcore.float64)
        out = np.empty(v.shape, dtype=np.complex128)  # not re + 1j * im: 1j * inf is nan+infj
        out.real, out.imag = round_to(v.real, real), round_to(v.imag, real)
        return out
    if dtype is opcore.bool:
        return values.astype(bool)
    if dtype in INTEGRAL:
        return values.astype(np.dtype(name(dtype)))
    with np.errstate(all="ignore"):
        v = np.asarray(values).real.astype(np.float64)
        if dtype is opcore.float16:
            return v.astype(np.float16).astype(np.float64)
        f = v.astype(np.float32)
        if dtype is opcore.bfloat16:
            bits = f.view(np.uint32).astype(np.uint64)
            bits = ((bits + np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1))) & np.uint64(0xFFFF0000))
            bits = bits.astype(np.uint32)
            f = np.where(np.isnan(f), f, bits.view(np.float32))
        return f.astype(np.float64) if dtype is not opcore.float64 else v


# --- comparisons ------------------------------------------------------------------------------------


def mismatch(actual, expected: np.ndarray, dtype, rtol: float, atol: float):
    """None when opcore tensor `actual` has `dtype`, expected's shape and its values (within
    rtol/atol; NaN equals NaN); otherwise what differs."""
    if actual.dtype is not dtype:
        return f"dtype {actual.dtype}, expected {dtype}"
    if tuple(actual.shape) != expected.shape:
        return f"shape {tuple(actual.shape)}, expected {expected.shape}"
    a = to_numpy(actual)
    if dtype is opcore.bool or dtype in INTEGRAL:
        bad = a != expected
    else:
        # torch.isclose's rule: a complex number with a NaN part is NaN, and NaN equals NaN;
        # otherwise |a - e| <= atol + rtol * |e| (or equal: infinities).
        e = expected.astype(a.dtype)
        with np.errstate(all="ignore"):
            ok = (a == e) | (np.isnan(a) & np.isnan(e)) | (np.abs(a - e) <= atol + rtol * np.abs(e))
        bad = ~ok
    if not bad.any():
        return None
    where = np.argwhere(bad)[:4]
    shown = ", ".join(f"at {tuple(int(i) for i in w)}: {a[tuple(w)]!r} vs {expected[tuple(w)]!r}" for w in where)
    return f"{int(bad.sum())} of {bad.size} values differ ({shown})"


def _check_functional(row, dtype, sample):
    if sample.error:
        try:
            row.op(*sample.args, **sample.kwargs)
        except Exception as e:  # noqa: BLE001 -- the class is checked: PyTorch's (docs/python.md)
            if type(e) is not sample.error_type or not re.search(sample.error, str(e)):
                return f"raised {e!r}, expected {sample.error_type.__name__} matching {sample.error!r}"
            return None
        return f"no error (expected one matching {sample.error!r})"
    expected = reference(row, sample, dtype)        # first: copy_ and fill_ write into args[0]
    actual = row.op(*sample.args, **sample.kwargs)
    want = sample.dtype or row.result_dtype(dtype)
    if row.check == "max":
        return _check_max(sample, actual, expected, want)
    rtol, atol = row.tolerance(want)
    return mismatch(actual, round_to(expected, want), want, rtol, atol)


def _check_max(sample, actual, expected, want):
    values, indices = actual
    problem = mismatch(values, round_to(expected, want), want, 0.0, 0.0)
    if problem or indices.dtype is not opcore.int64 or tuple(indices.shape) != tuple(values.shape):
        return problem or f"indices {indices.dtype} {tuple(indices.shape)}"
    x, dim = to_numpy(sample.args[0]), sample.args[1] % max(sample.args[0].dim(), 1)
    idx = to_numpy(indices)
    if x.ndim == 0:
        return None if (idx == 0).all() else f"index {idx} of a 0-dim tensor"
    keep = idx.ndim == x.ndim  # keepdim, or a sort / topk (issue #33): indices as many dimensions as x
    picked = np.take_along_axis(x, idx if keep else np.expand_dims(idx, dim), dim)
    picked = picked if keep else picked.squeeze(dim)
    return mismatch(values, picked, want, 0.0, 0.0) and f"indices do not point at the maxima: {to_numpy(indices)}"


def _known(row, dtype, sample) -> bool:
    return (row.name, name(dtype), sample.desc) in KNOWN_FAILURES


@pytest.mark.parametrize("row, dtype", _supported())
def test_functional_matches_the_reference(row, dtype):
    failures = []
    for sample in samples_of(row, dtype):
        if _known(row, dtype, sample):
            continue
        problem = _check_functional(row, dtype, sample)
        if problem:
            failures.append(f"{sample.desc}: {problem}")
    assert not failures, f"{row.name} {name(dtype)} against {'torch' if torch else 'numpy'}:\n" + "\n".join(failures)


@pytest.mark.parametrize("row, dtype, desc", [
    pytest.param(next(r for r in ROWS if r.name == key[0]), getattr(opcore, key[1]), key[2],
                 marks=pytest.mark.xfail(strict=True, reason=reason), id=f"{key[0]}-{key[1]}-{key[2]}")
    for key, reason in KNOWN_FAILURES.items()])
def test_known_failures(row, dtype, desc):
    sample = next(s for s in samples_of(row, dtype) if s.desc == desc)
    problem = _check_functional(row, dtype, sample)
    assert problem is None, problem


# --- out= and in-place ------------------------------------------------------------------------------


def _outs_like(results, make):
    return tuple(make(r) for r in results)


def _overlaps(t) -> bool:
    return any(stride == 0 and size > 1 for size, stride in zip(t.shape, t.stride()))


@pytest.mark.parametrize("row, dtype", [p for p in _supported() if p.values[0].out and not p.values[0].mutates])
def test_out_matches_the_functional_form(row, dtype):
    failures = []
    for sample in samples_of(row, dtype):
        if not sample.out or sample.error or _known(row, dtype, sample):
            continue
        expected = row.op(*sample.args, **sample.kwargs)
        expected = expected if isinstance(expected, tuple) else (expected,)
        makers = {"empty": lambda r: opcore.empty(0, dtype=r.dtype),
                  "wrong size": lambda r: opcore.empty(r.numel() + 3, dtype=r.dtype)}
        if expected[0].dim() >= 2:
            makers["transposed"] = lambda r: opcore.empty(*r.shape[:-2], r.shape[-1], r.shape[-2],
                                                          dtype=r.dtype).transpose(-1, -2)
        for how, make in makers.items():
            outs = _outs_like(expected, make)
            strides = [o.stride() for o in outs]
            kwargs = dict(sample.kwargs)
            if row in opinfo.FACTORIES:
                kwargs.pop("dtype")  # out= gives it
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = row.op(*sample.args, **kwargs, out=outs[0] if len(outs) == 1 else tuple(outs))
            result = result if isinstance(result, tuple) else (result,)
            for r, o, e, before in zip(result, outs, expected, strides):
                problem = ("not the out tensor" if r is not o else
                           mismatch(o, to_numpy(e), e.dtype, *row.tolerance(e.dtype)) or
                           (how == "transposed" and o.stride() != before and "strides not kept"))
                if problem:
                    failures.append(f"{sample.desc}, out {how}: {problem}")
        # (a factory's out= gives the dtype: arange(2, 9, out=int64_tensor) is right)
        if len(expected) == 1 and (expected[0].is_floating_point() or expected[0].is_complex()) \
                and row not in opinfo.FACTORIES:
            try:  # a floating result into an integer out: PyTorch's "can't be cast" RuntimeError
                row.op(*sample.args, **sample.kwargs, out=opcore.empty(0, dtype=opcore.int64))
                failures.append(f"{sample.desc}: a {expected[0].dtype} result went into an int64 out")
            except RuntimeError:
                pass
    assert not failures, "\n".join(failures)


def _inplace_views(t):
    """Fresh non-contiguous tensors holding t's values: every other element of a wider base, and
    a transposed one; each with the base, whose other elements must stay zero."""
    shape = tuple(t.shape)
    base = opcore.zeros(*shape[:-1], 2 * shape[-1], dtype=t.dtype)
    views = [("step-sliced", base[..., ::2], base[..., 1::2])]
    if t.dim() >= 2:
        views.append(("transposed", opcore.zeros(*shape[:-2], shape[-1], shape[-2], dtype=t.dtype).transpose(-1, -2),
                      None))
    for _, view, _ in views:
        view.copy_(t)
    return views


def _check_inplace(row, sample):
    self, rest = sample.args[0], sample.args[1:]
    expected = row.op(*sample.args, **sample.kwargs)
    method = lambda t: getattr(t, row.inplace)(*rest, **sample.kwargs)  # noqa: E731
    if (_overlaps(self) or tuple(expected.shape) != tuple(self.shape)
            or not opcore.can_cast(expected.dtype, self.dtype)):
        try:
            method(self.clone() if not _overlaps(self) else self)
        except RuntimeError:
            return []
        return ["no error (PyTorch raises: overlapping, broadcast or uncastable self)"]
    want = to_numpy(expected.to(self.dtype))
    tol = row.tolerance(self.dtype)
    copy = self.clone()
    failures = []
    if method(copy) is not copy:
        failures.append("returns another tensor")
    failures.append(mismatch(copy, want, self.dtype, *tol))
    function = getattr(opcore, row.inplace, None)   # variants: function too (relu_, conj_physical_)
    if function is not None:
        copy = self.clone()
        if function(copy, *rest, **sample.kwargs) is not copy:
            failures.append(f"opcore.{row.inplace} returns another tensor")
        failures.append(mismatch(copy, want, self.dtype, *tol))
    if self.dim() >= 1 and self.numel() > 0:
        for how, view, rest_of_base in _inplace_views(self):
            method(view)
            problem = mismatch(view, want, self.dtype, *tol)
            if rest_of_base is not None and to_numpy(rest_of_base).any():
                problem = "wrote outside the view"
            failures.append(problem and f"{how}: {problem}")
    return [f for f in failures if f]


@pytest.mark.parametrize("row, dtype", [p for p in _supported() if p.values[0].inplace])
def test_inplace_matches_the_functional_form(row, dtype):
    failures = []
    for sample in samples_of(row, dtype):
        if not sample.error and not _known(row, dtype, sample):
            failures += [f"{sample.desc}: {p}" for p in _check_inplace(row, sample)]
    assert not failures, "\n".join(failures)


# --- autograd ---------------------------------------------------------------------------------------


def _gradcheck_params():
    params = []
    for row in ROWS:
        if not row.autograd:
            continue
        for dtype in (opcore.float64, opcore.complex128):
            if dtype in row.dtypes and (dtype is opcore.float64 or row.grad_complex):
                params.append(pytest.param(row, dtype, id=f"{row.name}-{name(dtype)}"))
    return params


@pytest.mark.parametrize("row, dtype", _gradcheck_params())
def test_gradcheck(row, dtype):
    grad_samples = [s for s in samples_of(row, dtype) if s.grad][:3]
    assert grad_samples, f"{row.name} is differentiable but has no sample marked grad"
    for sample in grad_samples:
        positions = [i for i, a in enumerate(sample.args)
                     if isinstance(a, opcore.Tensor) and (a.is_floating_point() or a.is_complex())]
        inputs = [sample.args[i].detach().clone().contiguous().requires_grad_() for i in positions]

        def fn(*tensors, sample=sample, positions=positions):
            args = list(sample.args)
            for i, t in zip(positions, tensors):
                args[i] = t
            if row.mutates:
                args[0] = args[0].clone()
            return row.op(*args, **sample.kwargs)

        outputs = fn(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        assert any(o.is_floating_point() or o.is_complex() for o in outputs), f"{sample.desc}: nothing to check"
        assert opcore.autograd.gradcheck(fn, tuple(inputs)), sample.desc


# --- unsupported dtypes -----------------------------------------------------------------------------


@pytest.mark.parametrize("row, dtype", _unsupported())
def test_unsupported_dtype_raises_a_clear_error(row, dtype):
    sample = samples_of(row, dtype)[0]
    with pytest.raises((RuntimeError, TypeError)) as info:
        row.op(*sample.args, **sample.kwargs)
    words = (_C10[name(dtype)], name(dtype), "complex", "bool", "floating", "integ", "unsigned")
    message = str(info.value)
    assert any(w.lower() in message.lower() for w in words), f"{row.name} on {name(dtype)}: {message!r}"


# --- the table itself -------------------------------------------------------------------------------


def yaml_overloads():
    return {m.group(1) for m in re.finditer(r"^- func: ([\w.]+)\(", YAML.read_text(), re.M)}


def autogen_overloads():
    """The overloads entries generate (`autogen: relu.out` or `autogen: fill.Scalar, fill.Scalar_out`)."""
    return {name.strip() for m in re.finditer(r"^  autogen: (.+)$", YAML.read_text(), re.M)
            for name in m.group(1).split(",")}


def test_every_operator_has_a_row_or_an_exemption():
    covered = {o for row in ROWS for o in row.covers} | set(EXEMPT)
    overloads = yaml_overloads()
    missing = sorted(overloads - covered)
    assert missing == [], ("operators of native_functions.yaml with no row in tests/python/opinfo.py "
                           "(add one, or an EXEMPT entry saying why)")
    # A row may also name a generated overload it exercises (relu.out through out=).
    unknown = sorted(covered - overloads - autogen_overloads())
    assert unknown == [], "rows or exemptions naming overloads native_functions.yaml lacks"
    assert len({row.name for row in ROWS}) == len(ROWS), "two rows with one name"


# Rows whose samples cannot hold some kind of input, and why.
_KINDS_NOT_APPLICABLE = {
    "0-dim": {"mm": "takes matrices", "bmm": "takes 3-D tensors", "view_as_complex": "needs a last dimension of 2",
              "pixel_shuffle": "takes images", "pixel_unshuffle": "takes images",
              "index": "indexes a dimension", "max.dim": "reduces a dimension"},
    "extremes": {"view": "moves no values", "reshape": "moves no values", "transpose": "moves no values",
                 "t": "moves no values", "expand": "moves no values", "unsqueeze": "moves no values",
                 "squeeze": "moves no values", "select": "moves no values", "slice": "moves no values",
                 "index": "moves values without computing",
                 "repeat_interleave.Tensor": "its values are counts: extremes would ask for 2^63 elements"},
    "non-contiguous": {"as_strided": "reads the storage, which the reference's copy of a view does not share"},
    "empty": {"view_as_complex": "has one"},
}

# Embedding bags (issue #34): 1-D indices and offsets into a 2-D weight; the rows of the index
# results leave the strided samples to test_nn.py (the reference's contiguous copies take
# torch's sum fast path where opcore's strided inputs do not).
for _row in ("_embedding_bag", "_embedding_bag (offset2bag)", "_embedding_bag (bag_size)", "_embedding_bag (max_indices)",
             "_embedding_bag_dense_backward", "_embedding_bag_per_sample_weights_backward", "embedding_bag"):
    _KINDS_NOT_APPLICABLE["0-dim"][_row] = "takes 1-D indices and offsets of a 2-D weight"
for _row in ("_embedding_bag (offset2bag)", "_embedding_bag (bag_size)", "_embedding_bag (max_indices)"):
    _KINDS_NOT_APPLICABLE["non-contiguous"][_row] = "the _embedding_bag row has the strided samples (see opinfo.py)"


def _kinds(sample):
    tensors = [a for a in sample.args if isinstance(a, opcore.Tensor)]
    tensors += [t for a in sample.args if isinstance(a, list) for t in a if isinstance(t, opcore.Tensor)]
    kinds = {"extremes"} if "extreme" in sample.desc else set()
    for t in tensors[:2]:
        if t.dim() == 0:
            kinds.add("0-dim")
        if t.numel() == 0:
            kinds.add("empty")
        if not t.is_contiguous() or 0 in t.stride():
            kinds.add("non-contiguous")
    return kinds


@pytest.mark.parametrize("row", [pytest.param(r, id=r.name) for r in ROWS if r not in opinfo.FACTORIES])
def test_every_row_has_samples_of_every_kind(row):
    dtype = opcore.float32 if opcore.float32 in row.dtypes else row.dtypes[-1]
    found = set().union(*(_kinds(s) for s in samples_of(row, dtype)))
    missing = sorted(k for k, exempt in _KINDS_NOT_APPLICABLE.items() if k not in found and row.name not in exempt)
    assert missing == [], f"{row.name}: no sample with these kinds of input"


def test_integer_division_of_int_min_by_minus_one_wraps():
    # torch 1.13 dies of SIGFPE here, so the table leaves -1 out of its integral divisors.
    for dtype in (opcore.int32, opcore.int64):
        low = opcore.iinfo(dtype).min
        x, y = opcore.tensor([low], dtype=dtype), opcore.tensor([-1], dtype=dtype)
        for mode in ("trunc", "floor"):
            assert opcore.div(x, y, rounding_mode=mode).tolist() == [low], (dtype, mode)


# --- type promotion ---------------------------------------------------------------------------------


def _promotion_rows():
    return [pytest.param(row, id=row.name) for row in ROWS if row.number_operand]


def _common(x, y):
    """The dtype x and y are computed in: torch's answer where torch is installed, else
    opcore.result_type (checked against PyTorch's table in test_dtypes.py)."""
    if torch is not None:
        tx = torch.zeros(tuple(x.shape), dtype=opinfo.torch_dtype(x.dtype))
        ty = torch.zeros(tuple(y.shape), dtype=opinfo.torch_dtype(y.dtype))
        common = str(torch.result_type(tx, ty)).removeprefix("torch.")
        # opcore has no complex32: float16 with a complex gives complex64 (docs/dtypes.md)
        common = getattr(opcore, "complex64" if common == "complex32" else common)
    else:
        common = opcore.result_type(x, y)
    return common


@pytest.mark.parametrize("row", _promotion_rows())
def test_mixed_dtypes_promote_as_in_pytorch(row):
    """Every pair of the row's dtypes, as two tensors with dimensions and as a tensor and a
    0-dim tensor (which counts only when its category is higher)."""
    failures, checked = [], 0
    for a in row.dtypes:
        for b in row.dtypes:
            if a is b or (row.name == "sub" and opcore.bool in (a, b)):
                continue  # same dtype: the main test; sub refuses bool operands
            x = Maker(a, 11, row.low, row.high).make((2, 3))
            # nonzero: a complex divided by zero has no agreed value (see _div_samples in opinfo.py)
            for y, what in ((Maker(b, 12, row.low, row.high).make((3,), kind="nonzero"), "3"),
                            (Maker(b, 13, row.low, row.high).make((), kind="nonzero"), "0-dim")):
                common = _common(x, y)
                want = row.result_dtype(common)
                # PyTorch converts both operands to the common dtype, then computes (a float32
                # 0-dim tensor added to float16 ones is rounded to float16 first): so does the
                # reference's input
                sample = opinfo.SampleInput((x.to(common), y.to(common)), desc=f"{name(a)} 2x3, {name(b)} {what}")
                expected = reference(row, sample, want)
                actual = row.op(x, y)
                problem = mismatch(actual, round_to(expected, want), want, *row.tolerance(want))
                if problem:
                    failures.append(f"{sample.desc}: {problem}")
                checked += 1
    assert not failures, "\n".join(failures)
    assert checked > 0


# --- views ------------------------------------------------------------------------------------------


def _span(t):
    """[first, last) byte addresses t's elements occupy."""
    low = sum(min(0, (n - 1) * st) for n, st in zip(t.shape, t.stride()))
    high = sum(max(0, (n - 1) * st) for n, st in zip(t.shape, t.stride())) + 1
    size = t.element_size()
    return t.data_ptr() + low * size, t.data_ptr() + high * size


def shares_memory(a, b) -> bool:
    (a0, a1), (b0, b1) = _span(a), _span(b)
    return a.numel() > 0 and b.numel() > 0 and a0 < b1 and b0 < a1


@pytest.mark.parametrize("row", [pytest.param(r, id=r.name) for r in ROWS if r.view is not None])
def test_views_share_memory_and_copies_do_not(row):
    failures = []
    for dtype in {row.dtypes[0], row.dtypes[-1]}:
        for sample in samples_of(row, dtype):
            if sample.error or sample.args[0].numel() == 0:
                continue
            result = row.op(*sample.args, **sample.kwargs)
            if result.numel() > 0 and shares_memory(result, sample.args[0]) != row.view:
                failures.append(f"{name(dtype)} {sample.desc}: {'a copy' if row.view else 'a view'}")
    assert not failures, "\n".join(failures)


# --- method variants --------------------------------------------------------------------------------


def _method_rows():
    return [pytest.param(row, id=row.name) for row in ROWS
            if row.op is getattr(opcore, row.name.split(".")[0], None) and hasattr(opcore.Tensor, row.name.split(".")[0])]


@pytest.mark.parametrize("row", _method_rows())
def test_method_matches_the_function(row):
    """t.op(...) (variants: method) gives the function's result, on every sample of two dtypes."""
    method = row.name.split(".")[0]
    failures = []
    for dtype in {row.dtypes[0], row.dtypes[-1]}:
        for sample in samples_of(row, dtype):
            if sample.error or row.mutates:
                continue
            expected = row.op(*sample.args, **sample.kwargs)
            if row.name == "where":  # the method's self is where.self's `self`: x.where(condition, y)
                actual = sample.args[1].where(sample.args[0], sample.args[2])
            else:
                actual = getattr(sample.args[0], method)(*sample.args[1:], **sample.kwargs)
            for a, e in zip(actual if isinstance(actual, tuple) else (actual,),
                            expected if isinstance(expected, tuple) else (expected,)):
                problem = mismatch(a, to_numpy(e), e.dtype, 0.0, 0.0)
                if problem:
                    failures.append(f"{name(dtype)} {sample.desc}: {problem}")
    assert not failures, "\n".join(failures)
