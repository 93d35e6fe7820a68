"""The generated bindings: overload resolution, argument conversion and error reporting of the
module functions and Tensor methods (Note [Python argument matching] in
runtime/opcore/python/PythonArgParser.h)."""
import numpy as np
import pytest

import opcore

from isolated import describe, run_python

ADD_SIGNATURES = [
    "add(Tensor input, Tensor other, *, Scalar alpha=1)",
    "add(Tensor input, Tensor other, *, Scalar alpha=1, Tensor out)",
    "add(Tensor input, Scalar other, Scalar alpha=1)",
    "add(Tensor input, Scalar other, Scalar alpha=1, *, Tensor out)",
]
MATMUL_SIGNATURE = "matmul(Tensor input, Tensor other)"
ZEROS_SIGNATURE = ("zeros(int[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
                   "bool? pin_memory=None, bool requires_grad=False)")
ZEROS_SIGNATURES = (ZEROS_SIGNATURE, "zeros(SymInt[] size, *, Tensor out)")


def m22():
    return opcore.tensor([[1.0, 2.0], [3.0, 4.0]])


# --- calling operators ---------------------------------------------------------------------------


def test_add_tensor_with_alpha():
    assert opcore.add(m22(), opcore.ones(2, 2), alpha=2).tolist() == [[3.0, 4.0], [5.0, 6.0]]
    assert m22().add(opcore.ones(2, 2), alpha=-1).tolist() == [[0.0, 1.0], [2.0, 3.0]]


def test_add_scalar_overload_takes_alpha_positionally():
    assert opcore.add(m22(), 2).tolist() == [[3.0, 4.0], [5.0, 6.0]]
    assert opcore.add(m22(), 2, 3).tolist() == [[7.0, 8.0], [9.0, 10.0]]
    assert m22().add(1, 2).tolist() == [[3.0, 4.0], [5.0, 6.0]]


def test_tensor_and_scalar_overloads_give_the_dtypes_of_each():
    ints = opcore.tensor([1, 2])
    assert opcore.mul(ints, 2).dtype is opcore.int64
    assert opcore.mul(ints, 2.5).dtype is opcore.float32
    assert opcore.mul(ints, 2.5).tolist() == [2.5, 5.0]
    assert opcore.add(ints, opcore.tensor([0.5, 0.5])).tolist() == [1.5, 2.5]
    assert opcore.add(ints, True).tolist() == [2, 3]
    assert opcore.sub(ints, opcore.tensor([1, 1])).tolist() == [0, 1]


def test_out_overload_returns_the_out_object():
    out = opcore.empty(2, 2)
    result = opcore.add(m22(), opcore.ones(2, 2), out=out)
    assert result is out
    assert out.tolist() == [[2.0, 3.0], [4.0, 5.0]]
    assert opcore.add(m22(), 10, out=out) is out
    assert out.tolist() == [[11.0, 12.0], [13.0, 14.0]]
    assert opcore.exp(opcore.tensor([0.0, 0.0]), out=opcore.empty(2)).tolist() == [1.0, 1.0]
    out3 = opcore.empty(3)
    assert opcore.mm(opcore.ones(3, 2), opcore.ones(2, 1), out=opcore.empty(3, 1)).tolist() == [[2.0]] * 3
    assert opcore.neg(opcore.tensor([1.0, -2.0, 3.0]), out=out3) is out3
    assert out3.tolist() == [-1.0, 2.0, -3.0]


def test_out_is_resized_and_checked():
    a, b = m22(), opcore.ones(2, 2)
    out = opcore.empty(5)
    assert opcore.add(a, b, out=out) is out
    assert out.shape == (2, 2)
    assert out.tolist() == [[2.0, 3.0], [4.0, 5.0]]
    assert opcore.add(a, b, out=a) is a  # out may alias an input
    assert a.tolist() == [[2.0, 3.0], [4.0, 5.0]]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        opcore.add(a, b, out=opcore.empty(2, 2, dtype=opcore.int64))
    with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic differentiation"):
        opcore.add(opcore.ones(2, requires_grad=True), 1, out=opcore.empty(2))


def test_out_overload_with_two_outputs_takes_them_as_one_tuple_and_returns_them():
    # As torch: `out=(values, indices)`, a tuple or a list; the result is the named tuple
    # return_types.max_out of the same objects.
    x = opcore.tensor([[1.0, 5.0], [7.0, 2.0]])
    for outs in ((opcore.empty(2), opcore.empty(2, dtype=opcore.int64)), [opcore.empty(0), opcore.empty(0, dtype=opcore.int64)]):
        result = opcore.max(x, 1, out=outs)
        assert isinstance(result, tuple) and len(result) == 2
        assert result[0] is outs[0] and result[1] is outs[1]
        assert result.values is outs[0] and result.indices is outs[1]
        assert type(result).__name__ == "max_out"
        assert outs[0].tolist() == [5.0, 7.0] and outs[1].tolist() == [1, 0]
    values, indices = opcore.empty(0), opcore.empty(0, dtype=opcore.int64)
    assert opcore.sort(opcore.tensor([3.0, 1.0, 2.0]), out=(values, indices)).indices is indices
    assert values.tolist() == [1.0, 2.0, 3.0] and indices.tolist() == [1, 2, 0]


@pytest.mark.parametrize("out", [(opcore.empty(2),), (opcore.empty(2), opcore.empty(2), opcore.empty(2)),
                                 opcore.empty(2), (opcore.empty(2), 1)])
def test_an_out_tuple_of_the_wrong_length_or_kind_is_a_type_error(out):
    with pytest.raises(TypeError, match="out"):
        opcore.max(opcore.ones(2, 2), 1, out=out)


def test_the_out_tuples_names_of_the_schema_are_not_keywords():
    with pytest.raises(TypeError):
        opcore.max(opcore.ones(2, 2), 1, max=opcore.empty(2), max_values=opcore.empty(2, dtype=opcore.int64))


def test_multiple_returns_are_a_tuple():
    values, indices = opcore.max(opcore.tensor([[1.0, 5.0], [7.0, 2.0]]), 1)
    assert values.tolist() == [5.0, 7.0]
    assert indices.tolist() == [1, 0]
    assert indices.dtype is opcore.int64
    values, indices = opcore.tensor([[1.0, 5.0], [7.0, 2.0]]).max(dim=0, keepdim=True)
    assert values.shape == (1, 2) and indices.tolist() == [[1, 0]]


def test_inplace_methods_return_self():
    a, b = m22(), opcore.ones(2, 2)
    assert a.add_(b) is a
    assert a.tolist() == [[2.0, 3.0], [4.0, 5.0]]
    assert a.add_(1, alpha=2) is a
    assert a.tolist() == [[4.0, 5.0], [6.0, 7.0]]
    assert a.mul_(2) is a
    assert a.sub_(b) is a
    assert a.tolist() == [[7.0, 9.0], [11.0, 13.0]]
    assert a.div_(opcore.full((2, 2), 2.0)) is a
    assert a.tolist() == [[3.5, 4.5], [5.5, 6.5]]
    r = opcore.tensor([-1.0, 2.0])
    assert r.relu_() is r and r.tolist() == [0.0, 2.0]
    assert r.fill_(3) is r and r.tolist() == [3.0, 3.0]


def test_inplace_functions_return_their_first_argument():
    r = opcore.tensor([-1.0, 2.0])
    assert opcore.relu_(r) is r
    assert r.tolist() == [0.0, 2.0]
    assert opcore.fill_(r, 7) is r
    assert r.tolist() == [7.0, 7.0]
    assert opcore.copy_(r, opcore.tensor([5.0, 6.0])) is r
    assert r.tolist() == [5.0, 6.0]


def test_keyword_arguments_and_input_keyword():
    a, b = m22(), opcore.ones(2, 2)
    assert opcore.add(input=a, other=b).tolist() == [[2.0, 3.0], [4.0, 5.0]]
    assert opcore.add(a, other=b, alpha=3).tolist() == [[4.0, 5.0], [6.0, 7.0]]
    assert opcore.matmul(input=a, other=b).tolist() == [[3.0, 3.0], [7.0, 7.0]]
    assert opcore.exp(input=opcore.zeros(2)).tolist() == [1.0, 1.0]
    assert opcore.select(a, dim=1, index=0).tolist() == [1.0, 3.0]
    assert a.mm(mat2=b).tolist() == [[3.0, 3.0], [7.0, 7.0]]
    assert opcore.zeros(size=(2, 3)).shape == (2, 3)


def test_defaults_are_applied():
    a = m22()
    assert opcore.sum(a, 1).shape == (2,)  # keepdim=False
    assert opcore.sum(a, 1, True).shape == (2, 1)
    assert opcore.arange(1, 5).tolist() == [1, 2, 3, 4]  # step=1
    assert opcore.arange(5).dtype is opcore.int64
    assert opcore.arange(1.0, 2.0, 0.25).tolist() == [1.0, 1.25, 1.5, 1.75]
    assert opcore.slice(opcore.arange(5)).tolist() == [0, 1, 2, 3, 4]  # dim=0, start=end=None, step=1
    assert opcore.slice(opcore.arange(5), start=1).tolist() == [1, 2, 3, 4]
    assert opcore.slice(opcore.arange(5), 0, 1, 4, 2).tolist() == [1, 3]
    ones = opcore.ones(3)
    assert ones.dtype is opcore.float32 and not ones.requires_grad and ones.device == opcore.device("cpu")
    assert a.to(opcore.float64).dtype is opcore.float64  # copy=False


def test_optional_arguments_accept_none():
    a = m22()
    assert opcore.sum(a, None).item() == 10.0
    assert opcore.sum(a, dtype=None).item() == 10.0
    assert opcore.div(opcore.tensor([7.0, -7.0]), opcore.tensor([2.0, 2.0]), rounding_mode=None).tolist() == [3.5, -3.5]
    assert opcore.ones(2, dtype=None, device=None).dtype is opcore.float32
    assert opcore.rand(2, generator=None).shape == (2,)


def test_string_arguments():
    num, den = opcore.tensor([7.0, -7.0]), opcore.tensor([2.0, 2.0])
    assert opcore.div(num, den, rounding_mode="floor").tolist() == [3.0, -4.0]
    assert opcore.div(num, den, rounding_mode="trunc").tolist() == [3.0, -3.0]
    with pytest.raises(RuntimeError, match="rounding_mode"):
        opcore.div(num, den, rounding_mode="bad")


def test_varargs_int_lists():
    assert opcore.zeros(2, 3).shape == (2, 3)
    assert opcore.zeros((2, 3)).shape == (2, 3)
    assert opcore.zeros([2, 3]).shape == (2, 3)
    assert opcore.zeros(4).shape == (4,)
    assert opcore.zeros(()).shape == ()
    assert opcore.ones(2, 3, dtype=opcore.int32).dtype is opcore.int32
    t = opcore.arange(6)
    assert t.view(3, 2).shape == (3, 2)
    assert t.view((3, 2)).shape == (3, 2)
    assert t.view([2, 3]).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert t.view(-1).shape == (6,)
    assert t.reshape(2, -1).shape == (2, 3)
    assert opcore.ones(2, 1).expand(2, 4).shape == (2, 4)
    assert opcore.ones(2, 1).expand(-1, 3).stride() == (1, 0)


def test_int_list_of_fixed_size_accepts_a_single_int():
    t = opcore.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert t.sum(1).tolist() == [6.0, 15.0]
    assert t.sum(0).tolist() == [5.0, 7.0, 9.0]
    assert t.sum(dim=1).tolist() == [6.0, 15.0]
    assert t.sum(dim=[0, 1]).item() == 21.0
    assert t.sum((0, 1)).item() == 21.0
    assert t.sum(-1, keepdim=True).shape == (2, 1)
    assert opcore.mean(t, 0).tolist() == [2.5, 3.5, 4.5]
    assert opcore.mean(t, dim=[1]).tolist() == [2.0, 5.0]


def test_numpy_integers_are_ints():
    assert opcore.zeros(np.int64(2), np.int32(3)).shape == (2, 3)
    assert opcore.zeros((np.int64(2), 3)).shape == (2, 3)
    t = opcore.ones(2, 3)
    assert t.sum(np.int64(1)).shape == (2,)
    assert t.view(np.int64(3), np.int64(2)).shape == (3, 2)
    assert opcore.select(t, 0, np.int32(1)).shape == (3,)

    class Index:
        def __index__(self):
            return 2

    assert opcore.zeros(Index(), 1).shape == (2, 1)


def test_numpy_scalars_are_scalars():
    a = opcore.ones(2)
    assert opcore.add(a, np.float32(2.5)).tolist() == [3.5, 3.5]
    assert opcore.add(a, np.float64(0.5)).tolist() == [1.5, 1.5]
    assert opcore.add(a, np.int64(2)).tolist() == [3.0, 3.0]
    assert opcore.add(a, np.int64(2)).dtype is opcore.float32


def test_bools_are_scalars_but_not_ints():
    assert opcore.add(opcore.tensor([1, 2]), True).tolist() == [2, 3]
    assert opcore.full((2,), True).dtype is opcore.bool
    assert opcore.full((2,), True).tolist() == [True, True]
    with pytest.raises(TypeError, match=r"argument 'index' must be int, not bool"):
        opcore.select(opcore.ones(2, 2), 0, True)
    with pytest.raises(TypeError, match=r"argument 'size' must be int\[\], not bool"):
        opcore.zeros(True)
    with pytest.raises(TypeError, match="element 1 is bool"):
        opcore.zeros(2, True)


def test_zero_dim_tensors_are_scalars():
    a = opcore.ones(2)
    assert opcore.full((2,), opcore.tensor(3)).tolist() == [3, 3]
    assert opcore.full((2,), opcore.tensor(3)).dtype is opcore.int64
    assert opcore.full((2,), opcore.tensor(2.5)).tolist() == [2.5, 2.5]
    assert opcore.add(a, a, alpha=opcore.tensor(3.0)).tolist() == [4.0, 4.0]
    assert opcore.ones(2).uniform_(opcore.tensor(2.0), 2.0).tolist() == [2.0, 2.0]


def test_zero_dim_tensors_that_require_grad_or_have_elements_are_not_scalars():
    with pytest.raises(TypeError, match=r"argument 'fill_value' must be Scalar, not Tensor"):
        opcore.full((2,), opcore.tensor(1.0, requires_grad=True))
    with pytest.raises(TypeError, match=r"argument 'fill_value' must be Scalar, not Tensor"):
        opcore.full((2,), opcore.tensor([3]))


def test_factories_with_dtype_device_requires_grad():
    t = opcore.ones(2, 3, dtype=opcore.float64, device="cpu", requires_grad=True)
    assert t.shape == (2, 3)
    assert t.dtype is opcore.float64
    assert t.device == opcore.device("cpu")
    assert t.requires_grad and t.is_leaf
    assert opcore.zeros(2, dtype=opcore.int32).tolist() == [0, 0]
    assert opcore.empty(2, 3, dtype=opcore.int64).dtype is opcore.int64
    assert opcore.full((2,), 7, dtype=opcore.float64).tolist() == [7.0, 7.0]
    assert opcore.arange(3, dtype=opcore.float64).dtype is opcore.float64
    assert opcore.rand(3, dtype=opcore.float64).dtype is opcore.float64
    assert opcore.randn(2, 2, requires_grad=True).requires_grad
    assert opcore.ones(2, device=opcore.device("cpu")).device.type == "cpu"
    assert opcore.empty_strided((2, 3), (1, 2)).stride() == (1, 2)


def test_python_types_as_dtypes():
    assert opcore.ones(2, dtype=float).dtype is opcore.float64
    assert opcore.ones(2, dtype=int).dtype is opcore.int64
    assert opcore.ones(2, dtype=bool).dtype is opcore.bool
    assert opcore.ones(2).to(int).dtype is opcore.int64


def test_to_overloads():
    a = opcore.ones(2)
    assert a.to(opcore.float64).dtype is opcore.float64
    assert a.to(dtype=opcore.int64).dtype is opcore.int64
    assert a.to("cpu").device == opcore.device("cpu")
    assert a.to("cpu", opcore.int32).dtype is opcore.int32


def test_factory_errors():
    with pytest.raises(RuntimeError, match="device type at start of device string: gpu"):
        opcore.ones(2, device="gpu")
    with pytest.raises(ValueError, match="device index -1 is out of range"):
        opcore.ones(2, device=-1)
    with pytest.raises(TypeError, match=r"argument 'dtype' must be ScalarType\?, not str"):
        opcore.ones(2, dtype="float32")
    with pytest.raises(TypeError, match=r"argument 'requires_grad' must be bool, not int"):
        opcore.ones(2, requires_grad=1)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        opcore.zeros(-1)
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype can require gradients"):
        opcore.ones(2, dtype=opcore.int64, requires_grad=True)


# --- errors ----------------------------------------------------------------------------------------


def assert_lists_every_signature(message, qualified, got, signatures):
    assert message.startswith(
        f"{qualified} received an invalid combination of arguments - got {got}, but expected one of:")
    for sig in signatures:
        assert f"\n * {sig}" in message
    assert message.count("\n * ") == len(signatures)


def test_wrong_types_list_every_signature():
    with pytest.raises(TypeError) as info:
        opcore.add("x", 1)
    assert_lists_every_signature(str(info.value), "add()", "(str, int)", ADD_SIGNATURES)


def test_wrong_types_list_every_signature_with_keywords():
    with pytest.raises(TypeError) as info:
        opcore.add(opcore.ones(2), opcore.ones(2), alpha="a")
    assert_lists_every_signature(str(info.value), "add()", "(Tensor, Tensor, alpha=str)", ADD_SIGNATURES)


def test_wrong_types_list_every_method_signature():
    with pytest.raises(TypeError) as info:
        opcore.ones(2).add("x")
    assert_lists_every_signature(str(info.value), "Tensor.add()", "(str)", [
        "add(Tensor other, *, Scalar alpha=1)", "add(Scalar other, Scalar alpha=1)"])


def test_single_overload_names_the_argument():
    with pytest.raises(TypeError) as info:
        opcore.matmul(opcore.ones(2, 2), 1)
    assert str(info.value) == f"matmul(): argument 'other' must be Tensor, not int; expected {MATMUL_SIGNATURE}"
    with pytest.raises(TypeError) as info:
        opcore.ones(2, 2).mm(1)
    assert str(info.value) == "Tensor.mm(): argument 'mat2' must be Tensor, not int; expected mm(Tensor mat2)"
    with pytest.raises(TypeError,
                       match=r"^Tensor.view\(\): argument 'size' must be a sequence of ints, but element 1 is str"):
        opcore.ones(4).view(4, "x")
    with pytest.raises(TypeError,
                       match=r"^zeros\(\): argument 'size' must be a sequence of ints, but element 1 is float"):
        opcore.zeros(2, 3.0)
    with pytest.raises(TypeError,
                       match=r"^zeros\(\): argument 'size' must be int\[\], not list of \(list\)"):
        opcore.zeros([[1]])


def test_unknown_keyword():
    with pytest.raises(TypeError) as info:
        opcore.matmul(opcore.ones(2, 2), opcore.ones(2, 2), foo=1)
    assert str(info.value) == f"matmul(): got an unexpected keyword argument 'foo'; expected {MATMUL_SIGNATURE}"
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'layout'"):
        opcore.matmul(opcore.ones(2, 2), opcore.ones(2, 2), layout=opcore.strided)
    # No signature of zeros (functional, out=) takes `memory_format`: torch lists them all then.
    with pytest.raises(TypeError) as info:
        opcore.zeros(2, memory_format=opcore.contiguous_format)
    assert_lists_every_signature(str(info.value), "zeros()", "(int, memory_format=opcore.memory_format)",
                                 ZEROS_SIGNATURES)
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'self'"):
        opcore.ones(2, 2).mm(self=opcore.ones(2, 2))
    with pytest.raises(TypeError) as info:
        opcore.add(opcore.ones(2), opcore.ones(2), foo=1)
    assert_lists_every_signature(str(info.value), "add()", "(Tensor, Tensor, foo=int)", ADD_SIGNATURES)


def test_too_many_positional_arguments():
    a = opcore.ones(2, 2)
    with pytest.raises(TypeError) as info:
        opcore.matmul(a, a, a)
    assert str(info.value) == f"matmul(): takes 2 positional arguments but 3 were given; expected {MATMUL_SIGNATURE}"
    with pytest.raises(TypeError, match=r"^Tensor.mm\(\): takes 1 positional argument but 2 were given"):
        a.mm(a, a)
    with pytest.raises(TypeError) as info:
        opcore.add(a, a, 1, 2)
    assert_lists_every_signature(str(info.value), "add()", "(Tensor, Tensor, int, int)", ADD_SIGNATURES)


def test_missing_argument():
    with pytest.raises(TypeError) as info:
        opcore.matmul(opcore.ones(2, 2))
    assert str(info.value) == f"matmul(): missing required argument 'other' (Tensor); expected {MATMUL_SIGNATURE}"
    with pytest.raises(TypeError) as info:  # as torch: both signatures need `size`
        opcore.zeros()
    assert_lists_every_signature(str(info.value), "zeros()", "()", ZEROS_SIGNATURES)
    with pytest.raises(TypeError, match=r"missing required argument 'out' \(Tensor\)"):
        opcore.normal(opcore.ones(2))


def test_multiple_values_for_an_argument():
    a = opcore.ones(2, 2)
    with pytest.raises(TypeError) as info:
        opcore.matmul(a, input=a)
    assert str(info.value) == f"matmul(): got multiple values for argument 'input'; expected {MATMUL_SIGNATURE}"
    with pytest.raises(TypeError, match=r"^zeros\(\): got multiple values for argument 'size'"):
        opcore.zeros(2, 3, size=(2,))
    with pytest.raises(TypeError) as info:
        opcore.add(a, other=a, input=a)
    assert_lists_every_signature(str(info.value), "add()", "(Tensor, other=Tensor, input=Tensor)", ADD_SIGNATURES)


@pytest.mark.parametrize("call", [
    lambda: opcore.zeros(2 ** 70),
    lambda: opcore.zeros(2, 2 ** 70),
    lambda: opcore.zeros((2 ** 64,)),
    lambda: opcore.add(opcore.ones(2), 2 ** 70),
    lambda: opcore.add(opcore.ones(2), opcore.ones(2), alpha=-(2 ** 63) - 1),
    lambda: opcore.select(opcore.ones(2, 2), 0, 2 ** 70),
    lambda: opcore.ones(6).view(2 ** 70),
    lambda: opcore.ones(2, device=2 ** 70),
    lambda: opcore.full((2,), 2 ** 64),
], ids=["zeros", "zeros-varargs", "zeros-tuple", "add-scalar", "alpha", "select", "view", "device", "full"])
def test_int_overflow_is_value_error(call):
    with pytest.raises(ValueError, match="Python int too large to convert to a 64-bit integer"):
        call()


@pytest.mark.parametrize("value", [2 ** 63 - 1, -(2 ** 63), 2 ** 53 + 1, -(2 ** 62) - 1])
def test_int64_scalars_convert_exactly(value):
    # Read back through numpy, so that only the Python -> C++ conversion is under test.
    assert int(opcore.full((1,), value).numpy()[0]) == value
    assert int(opcore.add(opcore.zeros(1, dtype=opcore.int64), value).numpy()[0]) == value
    assert int(opcore.zeros(1, dtype=opcore.int64).fill_(np.int64(value)).numpy()[0]) == value
    # A zero-dim int64 tensor as a Scalar.
    assert int(opcore.full((1,), opcore.from_numpy(np.array(value))).numpy()[0]) == value


def test_cpp_errors_are_runtime_errors_with_the_message():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x2 and 3x3\)"):
        opcore.mm(opcore.ones(2, 2), opcore.ones(3, 3))
    with pytest.raises(RuntimeError, match=r"shape '\[5\]' is invalid for input of size 4"):
        opcore.ones(4).view(5)
    with pytest.raises(IndexError,  # as torch: a dimension out of range is an IndexError
                       match=r"dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        opcore.ones(2, 2).sum(2)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(3\)"):
        opcore.add(opcore.ones(2), opcore.ones(3))


def test_errors_do_not_poison_later_calls():
    for _ in range(3):
        with pytest.raises(TypeError):
            opcore.add("x", 1)
        with pytest.raises(RuntimeError):
            opcore.mm(opcore.ones(2, 2), opcore.ones(3, 3))
        assert opcore.add(opcore.ones(1), 1).item() == 2.0


@pytest.mark.parametrize("bad", [object(), 2 ** 100, "x", b"y", [[[]]], [1, [2, [3]]], {1: 2}, 1j, [None, None],
                                 (opcore.ones(1), "x"), lambda: 0, Ellipsis, slice(1)])
def test_weird_arguments_raise_type_or_value_errors(bad):
    a = opcore.ones(2)
    calls = [lambda: opcore.exp(bad), lambda: opcore.zeros(bad), lambda: a.view(bad), lambda: a.sum(bad),
             lambda: opcore.ones(2, dtype=bad), lambda: opcore.where(bad, a, a)]
    if not isinstance(bad, complex):  # a complex number is a Scalar (tests/python/test_dtypes.py)
        calls += [lambda: opcore.add(a, bad), lambda: a.add_(bad)]
    for call in calls:
        with pytest.raises((TypeError, ValueError)):
            call()
    # A string that names no device type is torch's RuntimeError ("Expected one of cpu, ...").
    with pytest.raises(RuntimeError if isinstance(bad, str) else (TypeError, ValueError)):
        opcore.ones(2, device=bad)


def test_none_for_a_required_argument_is_type_error():
    a = opcore.ones(2)
    # exp(None) could only be exp (exp.out needs out=): its own error, as torch's.
    for call, message in ((lambda: opcore.exp(None), r"^exp\(\): argument 'input' must be Tensor, not NoneType"),
                          (lambda: opcore.add(a, None), r"got \(Tensor, NoneType\)"),
                          (lambda: opcore.zeros(None), r"argument 'size' must be int\[\], not NoneType"),
                          (lambda: a.view(None), r"argument 'size' must be int\[\], not NoneType"),
                          (lambda: opcore.matmul(None, a), r"argument 'input' must be Tensor, not NoneType")):
        with pytest.raises(TypeError, match=message):
            call()


def test_exceptions_raised_by_argument_protocols_propagate():
    class BadIndex:
        def __index__(self):
            raise ZeroDivisionError("from __index__")

    class BadFloat:
        def __float__(self):
            raise ZeroDivisionError("from __float__")

    with pytest.raises(ZeroDivisionError, match="from __index__"):
        opcore.zeros(BadIndex(), 2)
    with pytest.raises(ZeroDivisionError, match="from __float__"):
        opcore.add(opcore.ones(2), BadFloat())
    assert opcore.ones(1).item() == 1.0


def test_deeply_nested_junk_does_not_crash():
    # Error messages describe nested arguments ("list of (list of (int))"), and opcore.tensor()
    # walks nested data: neither may recurse without bound on the C stack.
    proc = run_python("""
        import opcore
        nested = 1.0
        for _ in range(200000):
            nested = [nested]
        for name, call in [("tensor", lambda: opcore.tensor(nested)), ("exp", lambda: opcore.exp(nested)),
                           ("zeros", lambda: opcore.zeros(nested)), ("getitem", lambda: opcore.ones(2)[nested]),
                           ("from_numpy", lambda: opcore.from_numpy(nested))]:
            print("calling", name, flush=True)
            try:
                call()
            except (TypeError, ValueError, RuntimeError, IndexError, RecursionError) as e:
                print(name, "raised", type(e).__name__, flush=True)
            else:
                print(name, "returned", flush=True)
        print("done")
    """, timeout=120)
    assert proc.returncode == 0 and proc.stdout.endswith("done\n"), describe(proc)


# --- fuzzing -------------------------------------------------------------------------------------

FUZZ_SCRIPT = """
import random, sys
import numpy as np
import opcore
from opcore import _C

rng = random.Random({seed})
JUNK = [None, object(), 2 ** 100, -2 ** 100, 1, -1, 0, 2.5, float("nan"), float("inf"), True, "cpu", "x", b"b", [], (),
        [[]], [1, [2]], [None], {{1: 2}}, opcore.ones(2), opcore.ones(2, 3), opcore.tensor(1.0), opcore.tensor(3),
        opcore.ones(2, requires_grad=True), opcore.zeros(0), opcore.float32, opcore.device("cpu"), opcore.strided,
        opcore.contiguous_format, np.int64(3), np.array([1.0, 2.0]), np.float32(1.0), [opcore.ones(2), None],
        (1, 2.5), [1, 2 ** 70], lambda: 1, slice(1, 2), Ellipsis, 1j, opcore.int64, int, float, bool,
        opcore.ones(2, dtype=opcore.bool), opcore.ones(3, dtype=opcore.int32), opcore.ones(2, 2)[:, 0],
        opcore.empty(2, device="meta")]
KEYWORDS = ["input", "other", "out", "dim", "dtype", "device", "alpha", "size", "bogus", "requires_grad", "keepdim",
            "self", "memory_format", "generator", "index"]
ALLOWED = (TypeError, ValueError, RuntimeError, IndexError)
names = {names}
bad = []
calls = 0
for name in names:
    fn = getattr({owner}, name)
    for _ in range({per_name}):
        args = [rng.choice(JUNK) for _ in range(rng.randint(0, 4))]
        kwargs = {{}}
        if rng.random() < 0.4:
            kwargs[rng.choice(KEYWORDS)] = rng.choice(JUNK)
        target = fn
        if {methods}:
            target = getattr(rng.choice([opcore.ones(2, 3), opcore.tensor(2.0), opcore.ones(2, dtype=opcore.int64),
                                         opcore.zeros(0), opcore.ones(2, requires_grad=True) * 1,
                                         opcore.empty(2, 3, device="meta")]), name)
        positional = ", ".join(type(a).__name__ for a in args)
        keywords = ", ".join(f"{{k}}={{type(v).__name__}}" for k, v in kwargs.items())
        text = f"{{name}}({{positional}}; {{keywords}})"
        print(text, flush=True)
        calls += 1
        try:
            target(*args, **kwargs)
        except ALLOWED:
            pass
        except BaseException as e:
            bad.append(f"{{text}} raised {{type(e).__name__}}: {{e}}")
        finally:
            _C._set_grad_enabled(True)
print("CALLS", calls)
print("BAD", bad)
"""


def public_functions():
    return sorted(n for n in dir(opcore._C) if not n.startswith("_") and callable(getattr(opcore._C, n)))


def public_methods():
    skip = {"register_hook", "backward", "numpy"}  # take callables / run the engine / import numpy: tested elsewhere
    return sorted(n for n in dir(opcore.Tensor)
                  if not n.startswith("_") and n not in skip and callable(getattr(opcore.Tensor, n)))


def run_fuzz(owner, names, methods, seed, per_name):
    proc = run_python(FUZZ_SCRIPT.format(seed=seed, names=names, owner=owner, methods=methods, per_name=per_name),
                      timeout=240)
    assert proc.returncode == 0, "crashed; the last call printed is the culprit\n" + describe(proc)
    lines = proc.stdout.splitlines()
    assert lines[-2] == f"CALLS {len(names) * per_name}"
    assert lines[-1] == "BAD []", describe(proc)


def test_public_function_list_is_complete():
    names = public_functions()
    for expected in ("add", "mm", "zeros", "tensor", "from_numpy", "device", "manual_seed", "where", "max"):
        assert expected in names
    assert len(names) > 50


@pytest.mark.parametrize("seed", [0, 1])
def test_fuzz_module_functions(seed):
    run_fuzz("_C", public_functions(), False, seed, per_name=30)


@pytest.mark.parametrize("seed", [0, 1])
def test_fuzz_tensor_methods(seed):
    run_fuzz("opcore.Tensor", public_methods(), True, seed, per_name=30)


def test_fuzz_private_autograd_helpers():
    # What opcore.autograd passes to these is always well-formed, but they are reachable from
    # Python, so malformed calls must raise, not crash.
    proc = run_python("""
        import opcore
        from opcore import _C
        t = opcore.ones(2, requires_grad=True)
        calls = [
            lambda: _C._function_apply(1, object(), (), 5),
            lambda: _C._function_apply(1, object(), (t,), "not a tensor"),
            lambda: _C._function_apply(None, None, (), None),
            lambda: _C._function_apply(int, object(), (t,), (1, "x")),
            lambda: _C._backward(1, 2, 3, 4, 5),
            lambda: _C._backward((t,), ("x",), None, False, None),
            lambda: _C._grad((t.sum(),), (1,), None, None, False, False),
            lambda: _C._grad((t.sum(),), (t,), None, 3, False, False),
            lambda: _C._set_grad_enabled(None),
        ]
        for i, call in enumerate(calls):
            print("call", i, flush=True)
            try:
                call()
            except (TypeError, ValueError, RuntimeError, IndexError, AttributeError):
                pass
        _C._set_grad_enabled(True)
        print("done")
    """)
    assert proc.returncode == 0 and proc.stdout.endswith("done\n"), describe(proc)


def test_named_returns_are_named_tuples():
    t = opcore.tensor([[1.0, 5.0], [7.0, 2.0]])
    result = opcore.max(t, 1)
    assert type(result).__name__ == "max" and type(result).__module__ == "opcore.return_types"
    assert isinstance(result, tuple) and result.values.tolist() == [5.0, 7.0] and result.indices.tolist() == [1, 0]
    values, indices = t.max(dim=0)
    assert type(t.max(0)) is type(result)  # the method's result has the same type
    assert (values.tolist(), indices.tolist()) == ([7.0, 5.0], [1, 0])
    assert repr(result).startswith("opcore.return_types.max(values=tensor([5., 7.]), indices=tensor([1, 0]))")


def test_help_shows_signatures_docs_and_schemas():
    doc = opcore.add.__doc__
    assert doc.startswith("add(input: Tensor, other: Tensor, *, alpha: Number = 1) -> Tensor\n")
    assert "`self + alpha * other`, elementwise." in doc  # the YAML doc:
    assert "  aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" in doc
    assert "  aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor" in doc
    assert opcore.Tensor.add_.__doc__.startswith("add_(self, other: Tensor, *, alpha: Number = 1) -> Tensor")
