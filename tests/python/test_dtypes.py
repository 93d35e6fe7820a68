"""Every dtype from Python (#31): the dtype objects and their attributes, finfo/iinfo,
promote_types/result_type/can_cast, values and arithmetic per dtype, complex Python numbers as
Scalars, item() and int()/float()/complex()/bool(), repr, numpy round trips, and the errors
(runtime/opcore/python/Types.cpp, Tensor.cpp, Numpy.cpp, PythonArgParser.cpp,
python/opcore/_dtypes.py)."""
import math
import operator

import numpy as np
import pytest

import opcore
from opcore.utils._python_dispatch import TorchDispatchMode

# (dtype, numpy dtype or None, is_floating_point, is_complex, is_signed, itemsize)
DTYPES = [
    (opcore.uint8, np.uint8, False, False, False, 1),
    (opcore.int8, np.int8, False, False, True, 1),
    (opcore.int16, np.int16, False, False, True, 2),
    (opcore.int32, np.int32, False, False, True, 4),
    (opcore.int64, np.int64, False, False, True, 8),
    (opcore.float16, np.float16, True, False, True, 2),
    (opcore.bfloat16, None, True, False, True, 2),
    (opcore.float32, np.float32, True, False, True, 4),
    (opcore.float64, np.float64, True, False, True, 8),
    (opcore.complex64, np.complex64, False, True, True, 8),
    (opcore.complex128, np.complex128, False, True, True, 16),
    (opcore.bool, np.bool_, False, False, False, 1),
]
IDS = [repr(d[0]).removeprefix("opcore.") for d in DTYPES]
NUMPY_DTYPES = [(d[0], d[1]) for d in DTYPES if d[1] is not None]
NUMPY_IDS = [repr(d).removeprefix("opcore.") for d, _ in NUMPY_DTYPES]


# --- the dtype objects ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, np_dtype, floating, complex_, signed, itemsize", DTYPES, ids=IDS)
def test_dtype_attributes(dtype, np_dtype, floating, complex_, signed, itemsize):
    assert (dtype.is_floating_point, dtype.is_complex, dtype.is_signed, dtype.itemsize) == (
        floating, complex_, signed, itemsize)
    name = repr(dtype).removeprefix("opcore.")
    assert repr(dtype) == f"opcore.{name}"
    assert getattr(opcore, name) is dtype
    t = opcore.zeros(2, dtype=dtype)
    assert t.dtype is dtype
    assert (t.is_floating_point(), t.is_complex(), t.is_signed()) == (floating, complex_, signed)
    assert (opcore.is_floating_point(t), opcore.is_complex(t)) == (floating, complex_)
    assert t.element_size() == itemsize


def test_aliases_are_the_same_objects_and_every_dtype_is_unique():
    aliases = {"short": "int16", "int": "int32", "long": "int64", "half": "float16", "float": "float32",
               "double": "float64", "cfloat": "complex64", "cdouble": "complex128"}
    for alias, name in aliases.items():
        assert getattr(opcore, alias) is getattr(opcore, name), alias
    dtypes = [d[0] for d in DTYPES]
    assert len({id(d) for d in dtypes}) == 12
    assert not hasattr(opcore._C, "byte") and not hasattr(opcore._C, "complex32")


def test_to_real_and_to_complex():
    assert opcore.complex64.to_real() is opcore.float32
    assert opcore.complex128.to_real() is opcore.float64
    assert opcore.int32.to_real() is opcore.int32
    assert opcore.float64.to_complex() is opcore.complex128
    assert opcore.float32.to_complex() is opcore.complex64


# --- finfo, iinfo ----------------------------------------------------------------------------------


def test_finfo_values():
    f16 = opcore.finfo(opcore.float16)
    assert (f16.bits, f16.max, f16.min, f16.eps, f16.tiny, f16.resolution, f16.dtype) == (
        16, 65504.0, -65504.0, 2.0 ** -10, 2.0 ** -14, 0.001, "float16")
    assert f16.smallest_normal == f16.tiny
    bf16 = opcore.finfo(opcore.bfloat16)
    assert (bf16.bits, bf16.eps, bf16.tiny, bf16.resolution, bf16.dtype) == (16, 2.0 ** -7, 2.0 ** -126, 0.01,
                                                                             "bfloat16")
    assert bf16.max == 3.3895313892515355e38 and bf16.min == -bf16.max
    for dtype, np_dtype in ((opcore.float16, np.float16), (opcore.float32, np.float32), (opcore.float64, np.float64)):
        fi, ni = opcore.finfo(dtype), np.finfo(np_dtype)
        assert (fi.bits, fi.eps, fi.max, fi.min, fi.tiny) == (
            ni.bits, float(ni.eps), float(ni.max), float(ni.min), float(ni.tiny)), dtype
        assert np_dtype(fi.resolution) == ni.resolution, dtype  # numpy's is rounded to the dtype
    assert opcore.finfo(opcore.complex64) == opcore.finfo(opcore.float32)
    assert opcore.finfo(opcore.complex128).dtype == "float64"
    assert opcore.finfo() == opcore.finfo(opcore.float32)
    assert repr(f16) == ("finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, "
                         "smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)")


def test_finfo_eps_is_the_gap_after_one_in_each_dtype():
    for dtype in (opcore.float16, opcore.bfloat16, opcore.float32, opcore.float64):
        eps = opcore.finfo(dtype).eps
        assert (opcore.tensor(1.0 + eps, dtype=dtype) > 1).item(), dtype
        assert opcore.tensor(1.0 + eps / 4, dtype=dtype).item() == 1.0, dtype
        big = opcore.finfo(dtype).max
        assert opcore.tensor(big, dtype=dtype).item() == big, dtype


@pytest.mark.parametrize("dtype, np_dtype", [(d[0], d[1]) for d in DTYPES[:5]], ids=IDS[:5])
def test_iinfo_values(dtype, np_dtype):
    ii, ni = opcore.iinfo(dtype), np.iinfo(np_dtype)
    assert (ii.bits, ii.min, ii.max, ii.dtype) == (ni.bits, int(ni.min), int(ni.max), repr(dtype)[7:])
    assert opcore.tensor([ii.max, ii.min], dtype=dtype).tolist() == [ii.max, ii.min]


def test_iinfo_uint8_and_repr():
    assert opcore.iinfo(opcore.uint8).max == 255
    assert repr(opcore.iinfo(opcore.uint8)) == "iinfo(min=0, max=255, dtype=uint8)"


def test_finfo_and_iinfo_refuse_the_other_kind():
    with pytest.raises(TypeError) as info:
        opcore.finfo(opcore.int32)
    assert str(info.value) == ("opcore.finfo() requires a floating point input type. Use opcore.iinfo to handle "
                               "'opcore.int32'")
    for dtype in (opcore.float32, opcore.complex64):
        with pytest.raises(TypeError) as info:
            opcore.iinfo(dtype)
        assert str(info.value) == ("opcore.iinfo() requires an integer input type. Use opcore.finfo to handle "
                                   f"'{dtype!r}'")
    with pytest.raises(TypeError, match="argument 'type' must be opcore.dtype, not str"):
        opcore.finfo("float32")


# --- promotion ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("a, b, expected", [
    (opcore.uint8, opcore.int8, opcore.int16),
    (opcore.bool, opcore.uint8, opcore.uint8),
    (opcore.float16, opcore.bfloat16, opcore.float32),
    (opcore.int64, opcore.float16, opcore.float16),
    (opcore.complex64, opcore.float64, opcore.complex128),
    (opcore.uint8, opcore.int64, opcore.int64),
    (opcore.bool, opcore.bool, opcore.bool),
    (opcore.bfloat16, opcore.int32, opcore.bfloat16),
    (opcore.int16, opcore.int32, opcore.int32),
    (opcore.float32, opcore.complex128, opcore.complex128),
])
def test_promote_types(a, b, expected):
    assert opcore.promote_types(a, b) is expected
    assert opcore.promote_types(b, a) is expected
    # What the operators compute in: the same dtype.
    assert (opcore.ones(2, dtype=a) + opcore.ones(2, dtype=b)).dtype is expected


def test_promote_types_takes_dtypes_only():
    with pytest.raises(TypeError):
        opcore.promote_types(opcore.float32, "float64")


def i32(*values):
    return opcore.tensor(list(values) or [1, 2], dtype=opcore.int32)


@pytest.mark.parametrize("a, b, expected", [
    (lambda: i32(), 2.5, opcore.float32),
    (lambda: i32(), 2, opcore.int32),
    (lambda: i32(), True, opcore.int32),
    (lambda: i32(), lambda: opcore.tensor(1.0, dtype=opcore.float64), opcore.float64),
    (lambda: i32(), lambda: opcore.tensor(1, dtype=opcore.int64), opcore.int32),
    (lambda: opcore.ones(2), 1j, opcore.complex64),
    (lambda: opcore.ones(2, dtype=opcore.float64), 1j, opcore.complex128),
    (lambda: i32(), 1j, opcore.complex64),
    (lambda: opcore.ones(2, dtype=opcore.float16), 2.5, opcore.float16),
    (lambda: opcore.ones(2, dtype=opcore.uint8), lambda: opcore.tensor(1, dtype=opcore.int8), opcore.uint8),
    (lambda: opcore.tensor(1, dtype=opcore.uint8), lambda: opcore.tensor(1, dtype=opcore.int8), opcore.int16),
    (2, 2.5, opcore.float32),
    (1, 2, opcore.int64),
])
def test_result_type(a, b, expected):
    a = a() if callable(a) else a
    b = b() if callable(b) else b
    assert opcore.result_type(a, b) is expected
    if isinstance(a, opcore.Tensor):
        assert (a + b).dtype is expected  # the operators agree


def test_result_type_refuses_other_operands():
    with pytest.raises(TypeError, match="expected a Tensor or a number, not str"):
        opcore.result_type(opcore.ones(1), "x")


def test_can_cast():
    assert opcore.can_cast(opcore.int64, opcore.float16)
    assert opcore.can_cast(opcore.float64, opcore.float16)
    assert opcore.can_cast(opcore.float32, opcore.complex64)
    assert not opcore.can_cast(opcore.float32, opcore.int32)
    assert not opcore.can_cast(opcore.complex64, opcore.float64)
    assert not opcore.can_cast(opcore.int32, opcore.bool)
    assert opcore.can_cast(opcore.bool, opcore.uint8)


# --- values per dtype ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, np_dtype", NUMPY_DTYPES, ids=NUMPY_IDS)
def test_arithmetic_matches_numpy(dtype, np_dtype):
    a_values = [3, 0, 1, 7] if dtype is not opcore.bool else [True, False, True, True]
    b_values = [2, 5, 1, 3] if dtype is not opcore.bool else [True, True, False, True]
    a, b = opcore.tensor(a_values, dtype=dtype), opcore.tensor(b_values, dtype=dtype)
    na, nb = np.array(a_values, dtype=np_dtype), np.array(b_values, dtype=np_dtype)
    ops = [operator.mul, operator.eq, operator.lt] if dtype is opcore.bool else [
        operator.add, operator.sub, operator.mul, operator.eq, operator.lt]
    if dtype.is_complex:
        ops.remove(operator.lt)  # complex numbers have no order
    for op in ops:
        if op is operator.mul and dtype is opcore.bool:
            expected = na & nb
        else:
            expected = op(na, nb)
        got = op(a, b)
        assert got.numpy().tolist() == expected.tolist(), (dtype, op)
        assert got.numpy().dtype == expected.dtype, (dtype, op)


def test_uint8_overflow_wraps():
    a = opcore.tensor([200, 255], dtype=opcore.uint8)
    b = opcore.tensor([100, 1], dtype=opcore.uint8)
    assert (a + b).tolist() == [44, 0]
    assert (b - a).tolist() == [156, 2]
    assert (a + b).dtype is opcore.uint8
    assert (opcore.tensor([127], dtype=opcore.int8) + opcore.tensor([1], dtype=opcore.int8)).tolist() == [-128]



def test_a_number_too_large_for_the_dtype_wraps_as_an_element_would():
    # Note [Scalar operands]: the number is converted to the result dtype as a tensor's elements
    # are (the values are torch's).
    u = opcore.tensor([1, 2], dtype=opcore.uint8)
    assert (u + 1000).tolist() == [233, 234]
    assert (300 - u).tolist() == [43, 42]
    assert opcore.bitwise_and(u, 259).tolist() == [1, 2]
    assert opcore.fmod(u, 258).tolist() == [1, 0]
    pow_ = opcore.pow(300, u)
    assert pow_.tolist() == [44, 144] and pow_.dtype is opcore.uint8

def test_half_and_bfloat16_round_to_their_precision():
    assert opcore.tensor([0.1], dtype=opcore.float16).item() == float(np.float16(0.1))
    assert opcore.tensor([1 / 3], dtype=opcore.bfloat16).item() == 0.333984375  # 8 significant bits
    assert opcore.tensor([65520.0], dtype=opcore.float16).item() == math.inf  # past max rounds to inf
    x = opcore.tensor([1.5, 2.25], dtype=opcore.bfloat16)
    assert (x * 2).tolist() == [3.0, 4.5] and (x * 2).dtype is opcore.bfloat16
    assert x.sum().item() == 3.75


def test_complex_values():
    z = opcore.tensor([1 + 2j, 3j])
    assert z.dtype is opcore.complex64
    assert z.tolist() == [1 + 2j, 3j]
    assert (z * 2j).tolist() == [-4 + 2j, -6 + 0j]
    assert (z * z).tolist() == [(1 + 2j) ** 2, (3j) ** 2]
    assert opcore.tensor([1, 2.5, 3j]).dtype is opcore.complex64
    assert opcore.tensor([1j], dtype=opcore.complex128).dtype is opcore.complex128
    assert (opcore.ones(2, dtype=opcore.complex128) / 3).tolist() == [1 / 3 + 0j, 1 / 3 + 0j]


@pytest.mark.parametrize("dtype", [d[0] for d in DTYPES], ids=IDS)
def test_conversion_methods(dtype):
    methods = {opcore.uint8: "byte", opcore.int8: "char", opcore.int16: "short", opcore.int32: "int",
               opcore.int64: "long", opcore.float16: "half", opcore.bfloat16: "bfloat16", opcore.float32: "float",
               opcore.float64: "double", opcore.complex64: "cfloat", opcore.complex128: "cdouble",
               opcore.bool: "bool"}
    t = opcore.tensor([0, 1, 2])
    converted = getattr(t, methods[dtype])()
    assert converted.dtype is dtype
    expected = [False, True, True] if dtype is opcore.bool else [0, 1, 2]
    assert converted.tolist() == expected
    assert converted.long().tolist() == [0, 1, 1] if dtype is opcore.bool else [0, 1, 2]


def test_conversions_between_dtypes():
    assert opcore.tensor([-1.7, 2.9]).char().tolist() == [-1, 2]  # toward zero, as C++ and torch
    assert opcore.tensor([1 + 2j]).float().tolist() == [1.0]  # the real part
    assert opcore.tensor([0j, 1j]).bool().tolist() == [False, True]
    assert opcore.tensor([300]).short().tolist() == [300]
    assert opcore.tensor([1.5], dtype=opcore.bfloat16).half().tolist() == [1.5]


# --- Python numbers --------------------------------------------------------------------------------


def test_complex_numbers_are_scalars_everywhere():
    t = opcore.tensor([1.0, 2.0])
    for got in (t * 2j, 2j * t, opcore.mul(t, 2j), t.mul(2j), opcore.ops.aten.mul.Scalar(t, 2j),
                opcore.ops.aten.mul.Tensor(t, opcore.tensor(2j))):
        assert got.dtype is opcore.complex64
        assert got.tolist() == [2j, 4j]
    assert opcore.add(t, 1 + 1j).tolist() == [2 + 1j, 3 + 1j]
    assert (t - 1j).tolist() == [1 - 1j, 2 - 1j]
    assert (1j - t).tolist() == [-1 + 1j, -2 + 1j]
    assert (2j / opcore.tensor([1, 2], dtype=opcore.int32)).tolist() == [2j, 1j]
    assert (t * np.complex64(2j)).tolist() == [2j, 4j]
    assert opcore.full([2], 1 + 2j, dtype=opcore.complex128).tolist() == [1 + 2j, 1 + 2j]
    z = opcore.zeros(2, dtype=opcore.complex64)
    z[0] = 3 - 1j
    assert z.tolist() == [3 - 1j, 0j]


def test_boxed_calls_carry_complex_numbers_both_ways():
    seen = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((str(func), args[1:], kwargs))
            return func(*args, **(kwargs or {}))

    t = opcore.ones(2, dtype=opcore.complex64)
    with Record():  # Python -> IValue ComplexDouble -> Python complex -> IValue again
        got = opcore.ops.aten.add.Scalar(t, 2 - 1j, alpha=1j)
    assert got.tolist() == [2 + 2j, 2 + 2j]
    assert seen == [("aten.add.Scalar", (2 - 1j, 1j), {})]  # add.Scalar takes alpha by position
    assert type(seen[0][1][0]) is complex


def test_full_infers_the_default_complex_dtype_from_a_complex_fill_value():
    t = opcore.full([2], 1 + 2j)
    assert t.dtype is opcore.complex64
    assert t.tolist() == [1 + 2j, 1 + 2j]


@pytest.mark.parametrize("dtype, value, expected_type", [
    (opcore.uint8, 200, int), (opcore.int8, -3, int), (opcore.int16, 300, int), (opcore.int32, 7, int),
    (opcore.int64, 2 ** 40, int), (opcore.float16, 1.5, float), (opcore.bfloat16, -2.5, float),
    (opcore.float32, 0.25, float), (opcore.float64, 0.1, float), (opcore.complex64, 1 + 2j, complex),
    (opcore.complex128, 0.1 - 3j, complex), (opcore.bool, True, bool),
])
def test_item_types(dtype, value, expected_type):
    item = opcore.tensor([value], dtype=dtype).item()
    assert type(item) is expected_type
    assert item == value


def test_int_float_complex_bool_of_one_element_tensors():
    assert int(opcore.tensor([200], dtype=opcore.uint8)) == 200
    assert int(opcore.tensor(2.7, dtype=opcore.float16)) == 2
    assert float(opcore.tensor(0.5, dtype=opcore.bfloat16)) == 0.5
    assert complex(opcore.tensor(1 - 2j)) == 1 - 2j
    assert complex(opcore.tensor(3, dtype=opcore.int8)) == 3 + 0j
    assert bool(opcore.tensor(1j)) is True
    assert bool(opcore.tensor(0j)) is False
    assert bool(opcore.tensor(0.0, dtype=opcore.float16)) is False
    assert float(opcore.tensor(2 + 0j)) == 2.0
    with pytest.raises(RuntimeError, match="value cannot be converted to type double without overflow"):
        float(opcore.tensor(1 + 1j))
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        int(opcore.tensor(1 + 1j))
    assert [1, 2, 3][opcore.tensor(1, dtype=opcore.uint8)] == 2


def test_a_complex_number_is_not_silently_made_real():
    with pytest.raises(TypeError) as info:
        opcore.tensor([1 + 1j], dtype=opcore.float32)
    assert str(info.value) == "opcore.tensor(): a complex number cannot be an element of a tensor of dtype float32"


# --- repr --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make, text", [
    (lambda: opcore.tensor([1.0, 2.0], dtype=opcore.float16), "tensor([1., 2.], dtype=opcore.float16)"),
    (lambda: opcore.tensor([1.5, 2.0], dtype=opcore.bfloat16), "tensor([1.5000, 2.0000], dtype=opcore.bfloat16)"),
    (lambda: opcore.tensor([1 + 2j, complex(0, -1)]), "tensor([1.+2.j, 0.-1.j])"),
    (lambda: opcore.tensor([-1j]), "tensor([-0.-1.j])"),  # -1j is complex(-0.0, -1.0), as torch prints
    (lambda: opcore.tensor([0.5 - 1j]), "tensor([0.5000-1.0000j])"),
    (lambda: opcore.tensor([1j], dtype=opcore.complex128), "tensor([0.+1.j], dtype=opcore.complex128)"),
    (lambda: opcore.tensor([200, 1], dtype=opcore.uint8), "tensor([200,   1], dtype=opcore.uint8)"),
    (lambda: opcore.tensor([-3], dtype=opcore.int8), "tensor([-3], dtype=opcore.int8)"),
    (lambda: opcore.tensor(7, dtype=opcore.int16), "tensor(7, dtype=opcore.int16)"),
])
def test_repr(make, text):
    assert repr(make()) == text


# --- numpy ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, np_dtype", NUMPY_DTYPES, ids=NUMPY_IDS)
def test_numpy_round_trips(dtype, np_dtype):
    values = [True, False, True] if dtype is opcore.bool else (
        [1 + 2j, -0.5j, 3] if dtype.is_complex else [1, 0, 100] if not dtype.is_signed else [1, -2, 100])
    arr = np.array(values, dtype=np_dtype)
    t = opcore.from_numpy(arr)
    assert t.dtype is dtype
    assert t.tolist() == arr.tolist()
    back = t.numpy()
    assert back.dtype == arr.dtype and np.shares_memory(back, arr)
    copy = opcore.tensor(arr)
    assert copy.dtype is dtype and copy.tolist() == arr.tolist()
    assert not np.shares_memory(copy.numpy(), arr)
    made = opcore.tensor(values, dtype=dtype)
    assert np.array_equal(made.numpy(), arr) and made.numpy().dtype == arr.dtype
    assert np.asarray(made).dtype == arr.dtype


def test_numpy_of_bfloat16_is_refused_as_torch_does():
    t = opcore.ones(2, dtype=opcore.bfloat16)
    with pytest.raises(TypeError) as info:
        t.numpy()
    assert str(info.value) == "Got unsupported ScalarType BFloat16"
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16"):
        np.asarray(t)
    assert t.float().numpy().tolist() == [1.0, 1.0]


def test_unsupported_numpy_dtype_is_named():
    with pytest.raises(TypeError) as info:
        opcore.from_numpy(np.zeros(2, dtype=np.uint16))
    assert str(info.value) == (
        "from_numpy(): can't convert np.ndarray of type numpy.uint16. The only supported types are: float64, "
        "float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.")


# --- errors ---------------------------------------------------------------------------------------------


def test_in_place_results_that_do_not_fit_are_refused():
    long_t = opcore.ones(2, dtype=opcore.int64)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        long_t.add_(1.5)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        long_t += opcore.ones(2)
    with pytest.raises(RuntimeError, match="result type ComplexFloat can't be cast to the desired output type Float"):
        opcore.ones(2).mul_(1j)
    u8 = opcore.ones(2, dtype=opcore.uint8)
    with pytest.raises(RuntimeError, match="result type Half can't be cast to the desired output type Byte"):
        u8 += opcore.ones(2, dtype=opcore.float16)
    assert long_t.tolist() == [1, 1] and u8.tolist() == [1, 1]
    u8 += opcore.ones(2, dtype=opcore.int64)  # integral into integral is allowed, as in torch
    assert u8.tolist() == [2, 2] and u8.dtype is opcore.uint8


def test_dtype_names_as_strings_get_a_clear_error():
    with pytest.raises(TypeError) as info:
        opcore.tensor([1], dtype="flaot16")
    assert str(info.value) == "unknown dtype 'flaot16'; did you mean 'float16'?"
    with pytest.raises(TypeError) as info:
        opcore.tensor([1], dtype="float16")
    assert str(info.value) == "a dtype is an object such as opcore.float16, not the string 'float16'"
    with pytest.raises(TypeError, match=r"\(unknown dtype 'comlex64'; did you mean 'complex64'\?\)"):
        opcore.zeros(2, dtype="comlex64")
    with pytest.raises(TypeError, match="unknown dtype 'int33'; did you mean 'int32'"):
        opcore.ones(2).to(dtype="int33")
    with pytest.raises(TypeError, match=r"unknown dtype 'quaternion' \(the dtypes: uint8, int8"):
        opcore.tensor([1], dtype="quaternion")
    with pytest.raises(RuntimeError, match="for a dtype, pass opcore.float16"):
        opcore.ones(2).to("half")
    with pytest.raises(AttributeError) as info:
        opcore.flaot16
    assert str(info.value) == "module 'opcore' has no attribute 'flaot16'; did you mean 'float16'?"
