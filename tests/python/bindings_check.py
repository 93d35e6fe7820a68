"""Runs one case of the generated tests/test_python_bindings.py: builds the sample's arguments
(the same values for every call, fresh tensors each time, so in-place operators start alike),
calls the operator through the binding's function and method and through the boxed dispatcher
path (its OpOverload), and asserts that results and mutated arguments agree exactly."""
import functools
import math
import zlib

import opcore
from opcore._ops import _lookup_overload

# c10's names (gen/model/dtypes.py) of the dtypes a sample may name.
_DTYPES = {"Byte": opcore.uint8, "Char": opcore.int8, "Short": opcore.int16, "Int": opcore.int32,
           "Long": opcore.int64, "Half": opcore.float16, "Float": opcore.float32, "Double": opcore.float64,
           "ComplexFloat": opcore.complex64, "ComplexDouble": opcore.complex128, "Bool": opcore.bool,
           "BFloat16": opcore.bfloat16}


def _build(value, seed):
    kind = value[0]
    if kind == "none":
        return None
    if kind == "rand":  # uniform in [low, high); a complex element in both of its parts
        _, shape, low, high, dtype = value
        opcore.manual_seed(seed)
        pairs = dtype == "ComplexDouble"
        t = opcore.rand(list(shape) + [2] * pairs, dtype=opcore.float64) * (high - low) + low
        return opcore.view_as_complex(t) if pairs else t
    if kind == "values":
        _, shape, values, dtype = value
        return opcore.tensor(list(values), dtype=_DTYPES[dtype]).reshape(list(shape))
    if kind == "dtype":
        return _DTYPES[value[1]]
    if kind == "list":
        return [_build(item, seed + i) for i, item in enumerate(value[1])]
    return value[1]


def _arguments(case_id, args):
    """(positional, keyword-only) values in schema order, built afresh."""
    base = zlib.crc32(case_id.encode())
    positional, keywords = [], {}
    for i, (name, value, kwarg_only) in enumerate(args):
        built = _build(value, base + i)
        if kwarg_only:
            keywords[name] = built
        else:
            positional.append(built)
    return positional, keywords


def _same(a, b, what, values=True):
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), f"{what}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{what}[{i}]", values)
        return
    if not isinstance(a, opcore.Tensor):
        assert a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)), f"{what}: {a!r} vs {b!r}"
        return
    assert isinstance(b, opcore.Tensor), f"{what}: a Tensor vs {b!r}"
    assert (a.shape, a.dtype) == (b.shape, b.dtype), f"{what}: {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
    if values:
        assert a.tolist() == b.tolist() or repr(a) == repr(b), f"{what}: {a} vs {b}"


def check_case(case_id, name, overload, function, method, args, flags):
    values = "uninitialized" not in flags

    def call(fn, *positional, **keywords):
        if "seeded" in flags:
            opcore.manual_seed(zlib.crc32(case_id.encode()))
        return fn(*positional, **keywords)

    positional, keywords = _arguments(case_id, args)
    expected = call(_lookup_overload(name, overload), *positional, **keywords)
    expected_args = positional + list(keywords.values())
    if function is not None:
        positional, keywords = _arguments(case_id, args)
        result = call(functools.reduce(getattr, function.split("."), opcore), *positional, **keywords)
        _same(result, expected, f"opcore.{function}", values)
        _same(positional + list(keywords.values()), expected_args, f"opcore.{function} arguments", values)
    if method is not None:
        positional, keywords = _arguments(case_id, args)
        names = [a[0] for a in args if not a[2]]
        self_index = names.index("self")
        self = positional.pop(self_index)
        result = call(getattr(self, method), *positional, **keywords)
        positional.insert(self_index, self)
        _same(result, expected, f"Tensor.{method}", values)
        _same(positional + list(keywords.values()), expected_args, f"Tensor.{method} arguments", values)
