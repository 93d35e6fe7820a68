"""opcore.Tensor from Python: properties, repr, Python operators and conversions, dtype and device
objects, random seeding and the *_like factories."""
import math
import operator
import sys
import weakref

import numpy as np
import pytest

import opcore


# --- properties --------------------------------------------------------------------------------


def test_basic_properties():
    t = opcore.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert t.shape == (2, 3)
    assert isinstance(t.shape, tuple)
    assert t.dtype is opcore.float32
    assert t.device == opcore.device("cpu")
    assert t.ndim == 2
    assert not t.requires_grad
    assert t.is_leaf
    assert t.grad_fn is None
    assert t.grad is None
    assert not t.is_cuda
    assert t.itemsize == 4
    assert isinstance(t, opcore.Tensor)
    assert opcore.is_tensor(t) and not opcore.is_tensor([1.0])


def test_tensor_cannot_be_constructed_directly():
    with pytest.raises(TypeError, match="opcore.Tensor cannot be constructed directly"):
        opcore.Tensor()


def test_requires_grad_get_set():
    t = opcore.ones(2)
    t.requires_grad = True
    assert t.requires_grad
    assert t.is_leaf
    t.requires_grad = False
    assert not t.requires_grad
    with pytest.raises(TypeError, match="requires_grad must be a bool"):
        t.requires_grad = 1
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype can require gradients"):
        opcore.ones(2, dtype=opcore.int64).requires_grad = True
    y = opcore.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False


def test_grad_get_set():
    t = opcore.ones(2, requires_grad=True)
    g = opcore.tensor([3.0, 4.0])
    t.grad = g
    assert t.grad.tolist() == [3.0, 4.0]
    assert t.grad.data_ptr() == g.data_ptr()  # the same tensor, not a copy
    t.grad = None
    assert t.grad is None
    t.grad = g
    del t.grad
    assert t.grad is None


def test_grad_set_rejects_shape_and_dtype_mismatch():
    t = opcore.ones(2, requires_grad=True)
    with pytest.raises(ValueError) as info:
        t.grad = opcore.ones(3)
    assert str(info.value) == ("assigned grad has shape [3] and dtype Float, "
                               "but the tensor has shape [2] and dtype Float")
    with pytest.raises(ValueError, match=r"assigned grad has shape \[2\] and dtype Double"):
        t.grad = opcore.ones(2, dtype=opcore.float64)
    with pytest.raises(TypeError, match="assigned grad must be a Tensor or None, not int"):
        t.grad = 3
    assert t.grad is None


def test_is_leaf_and_grad_fn():
    x = opcore.tensor([1.0, 2.0], requires_grad=True)
    c = opcore.tensor([3.0, 4.0])
    y = x * c
    assert not y.is_leaf
    assert y.requires_grad
    assert y.grad_fn.name() == "MulBackward0"
    assert (x * 2).grad_fn.name() == "MulBackward1"
    assert (x + x).grad_fn.name() == "AddBackward0"
    assert repr(y.grad_fn).startswith("<MulBackward0 object at 0x")
    assert y.grad_fn == y.grad_fn
    assert hash(y.grad_fn) == hash(y.grad_fn)
    assert (c * 2).grad_fn is None and (c * 2).is_leaf


def test_next_functions():
    x = opcore.tensor([1.0, 2.0], requires_grad=True)
    c = opcore.tensor([3.0, 4.0])
    y = x * c
    edges = y.grad_fn.next_functions
    assert isinstance(edges, tuple) and len(edges) == 2
    assert edges[0][0].name() == "AccumulateGrad" and edges[0][1] == 0
    assert edges[1] == (None, 0)
    z = y + x
    (first, nr0), (second, nr1) = z.grad_fn.next_functions
    assert first == y.grad_fn and nr0 == 0
    assert second.name() == "AccumulateGrad" and second == edges[0][0]


def test_other_properties():
    x = opcore.tensor([1.0, 2.0], requires_grad=True)
    d = x.data
    assert not d.requires_grad
    assert d.data_ptr() == x.data_ptr()
    assert x._version == 0
    with opcore.no_grad():
        x.add_(1)
    assert x._version == 1
    assert x.output_nr == 0
    assert not x.retains_grad


# --- repr --------------------------------------------------------------------------------------


@pytest.mark.parametrize("make, text", [
    (lambda: opcore.tensor([1.0, 2.0]), "tensor([1., 2.])"),
    (lambda: opcore.tensor([1.5, 2.0]), "tensor([1.5000, 2.0000])"),
    (lambda: opcore.tensor(3.0), "tensor(3.)"),
    (lambda: opcore.tensor([]), "tensor([])"),
    (lambda: opcore.tensor([1, -20]), "tensor([  1, -20])"),
    (lambda: opcore.tensor([1, 2], dtype=opcore.int32), "tensor([1, 2], dtype=opcore.int32)"),
    (lambda: opcore.tensor([1.0, 2.0], dtype=opcore.float64), "tensor([1., 2.], dtype=opcore.float64)"),
    (lambda: opcore.tensor([True, False]), "tensor([ True, False])"),
    (lambda: opcore.tensor([float("nan"), float("inf"), -float("inf")]), "tensor([ nan,  inf, -inf])"),
    (lambda: opcore.tensor([[1.0, 2.0], [3.0, 4.0]]), "tensor([[1., 2.],\n        [3., 4.]])"),
    (lambda: opcore.arange(8).reshape(2, 2, 2),
     "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])"),
    (lambda: opcore.tensor([[1.0, 2.0], [3.0, 4.0]]).t(), "tensor([[1., 3.],\n        [2., 4.]])"),
])
def test_repr_is_the_cpp_format_with_python_dtype_names(make, text):
    assert repr(make()) == text
    assert str(make()) == text


# --- Python operators ----------------------------------------------------------------------------


def test_arithmetic_operators():
    a = opcore.tensor([1.0, 2.0, 3.0])
    b = opcore.tensor([4.0, 5.0, 6.0])
    assert (a + b).tolist() == [5.0, 7.0, 9.0]
    assert (a - b).tolist() == [-3.0, -3.0, -3.0]
    assert (a * b).tolist() == [4.0, 10.0, 18.0]
    assert (b / a).tolist() == [4.0, 2.5, 2.0]
    assert (-a).tolist() == [-1.0, -2.0, -3.0]
    assert +a is a
    m = opcore.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert (m @ m).tolist() == [[7.0, 10.0], [15.0, 22.0]]
    assert (m @ opcore.tensor([1.0, 1.0])).tolist() == [3.0, 7.0]


def test_operators_with_scalars_on_either_side():
    t = opcore.tensor([1.0, 2.0])
    assert (t + 2).tolist() == [3.0, 4.0]
    assert (2 + t).tolist() == [3.0, 4.0]
    assert (t - 2).tolist() == [-1.0, 0.0]
    assert (2 - t).tolist() == [1.0, 0.0]
    assert (t * 3).tolist() == [3.0, 6.0]
    assert (3 * t).tolist() == [3.0, 6.0]
    assert (t / 2).tolist() == [0.5, 1.0]
    assert (2 / t).tolist() == [2.0, 1.0]
    assert (2.5 - t).tolist() == [1.5, 0.5]
    assert (True + t).tolist() == [2.0, 3.0]


def test_reflected_operator_dtypes():
    ints = opcore.tensor([1, 2, 4])
    assert (ints / 2).dtype is opcore.float32
    assert (ints / 2.5).dtype is opcore.float32
    assert (2 / ints).dtype is opcore.float32
    assert (2 / ints).tolist() == [2.0, 1.0, 0.5]
    assert (2.0 / ints).dtype is opcore.float32
    assert (2 - ints).dtype is opcore.int64
    assert (2 - ints).tolist() == [1, 0, -2]
    assert (2.5 - ints).dtype is opcore.float32
    i32 = opcore.tensor([1, 2], dtype=opcore.int32)
    assert (1 + i32).dtype is opcore.int32
    assert (2 - i32).dtype is opcore.int32
    assert (2 / i32).dtype is opcore.float32
    assert (i32 * 2.5).dtype is opcore.float32
    f64 = opcore.tensor([1.0, 2.0], dtype=opcore.float64)
    assert (2 / f64).dtype is opcore.float64
    assert (2.5 - f64).dtype is opcore.float64
    assert (opcore.tensor([1.0]) * 2.5).dtype is opcore.float32


def test_unsupported_operands_raise_type_error():
    t = opcore.tensor([1.0, 2.0])
    for op in (operator.add, operator.sub, operator.mul, operator.truediv, operator.matmul):
        for other in ("x", None, [1, 2], object()):
            # t * "x" and t * [1, 2] end in sequence repetition, which asks the tensor for an
            # index: a TypeError of its own, as in torch.
            repeat = op is operator.mul and isinstance(other, (str, list))
            with pytest.raises(TypeError, match="index" if repeat else "unsupported operand"):
                op(t, other)
            with pytest.raises(TypeError):
                op(other, t)
    with pytest.raises(TypeError, match="unsupported operand"):
        t @ 2


def test_comparisons():
    a = opcore.tensor([1.0, 2.0, 3.0])
    b = opcore.tensor([3.0, 2.0, 1.0])
    assert (a == b).tolist() == [False, True, False]
    assert (a != b).tolist() == [True, False, True]
    assert (a < b).tolist() == [True, False, False]
    assert (a <= b).tolist() == [True, True, False]
    assert (a > b).tolist() == [False, False, True]
    assert (a >= b).tolist() == [False, True, True]
    assert (a == b).dtype is opcore.bool
    assert (a > 1.5).tolist() == [False, True, True]
    assert (2 < a).tolist() == [False, False, True]  # reflected: a > 2
    assert (2 >= a).tolist() == [True, True, False]
    assert (a == 2).tolist() == [False, True, False]


def test_comparisons_with_nan():
    n = opcore.tensor([float("nan"), 1.0])
    assert (n == n).tolist() == [False, True]
    assert (n != n).tolist() == [True, False]
    assert (n < 2).tolist() == [False, True]
    assert (n <= 1).tolist() == [False, True]
    assert (n > 0).tolist() == [False, True]
    assert (n >= 1).tolist() == [False, True]
    assert (n == float("nan")).tolist() == [False, False]


def test_comparison_with_non_numbers_falls_back_to_identity():
    t = opcore.tensor([1.0])
    assert (t == "a") is False
    assert (t == None) is False  # noqa: E711
    assert (t != None) is True  # noqa: E711
    with pytest.raises(TypeError):
        t < "a"


def test_tensors_hash_by_identity():
    t = opcore.tensor([1.0])
    u = opcore.tensor([1.0])
    assert hash(t) == hash(t)
    assert {t: 1, u: 2}[t] == 1


# --- conversions ---------------------------------------------------------------------------------


def test_python_number_conversions_of_one_element_tensors():
    assert bool(opcore.tensor([0.0])) is False
    assert bool(opcore.tensor(2)) is True
    assert bool(opcore.tensor([[True]])) is True
    assert float(opcore.tensor([2.5])) == 2.5
    assert int(opcore.tensor(3.7)) == 3
    assert int(opcore.tensor(-3.7)) == -3
    assert operator.index(opcore.tensor(3)) == 3
    assert operator.index(opcore.tensor([3], dtype=opcore.int32)) == 3
    assert [10, 20, 30, 40][opcore.tensor(2)] == 30


def test_int_of_a_floating_tensor_converts_like_python():
    # int(t) of a floating tensor is int(float(t)): exact for large values, and an error (not
    # an arbitrary number) for NaN and infinity.
    assert int(opcore.tensor(1e30, dtype=opcore.float64)) == int(1e30)
    assert int(opcore.tensor(-3e9)) == -3000000000
    with pytest.raises(ValueError, match="NaN"):
        int(opcore.tensor(float("nan")))
    with pytest.raises(OverflowError):
        int(opcore.tensor(float("inf")))


def test_python_number_conversions_of_other_tensors_raise():
    t = opcore.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        bool(t)
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        float(t)
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        int(t)
    with pytest.raises(RuntimeError):
        bool(opcore.zeros(0))
    with pytest.raises(RuntimeError, match="a Tensor with 0 elements cannot be converted to Scalar"):
        float(opcore.zeros(0))
    with pytest.raises(TypeError, match="only integer tensors of a single element can be converted to an index"):
        operator.index(opcore.tensor([1, 2]))
    with pytest.raises(TypeError, match="only integer tensors of a single element can be converted to an index"):
        operator.index(opcore.tensor(1.0))
    with pytest.raises(TypeError, match="only integer tensors of a single element can be converted to an index"):
        operator.index(opcore.tensor(True))


def test_len_and_iteration():
    m = opcore.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert len(m) == 3
    rows = list(m)
    assert len(rows) == 3
    assert [r.tolist() for r in rows] == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert [float(v) for v in opcore.tensor([1.0, 2.0])] == [1.0, 2.0]
    assert list(opcore.zeros(0)) == []
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(opcore.tensor(1.0))


def test_iterating_a_zero_dim_tensor_is_an_error():
    # len() of a 0-d tensor is a TypeError, so iterating one must not silently give [].
    with pytest.raises(TypeError):
        list(opcore.tensor(1.0))


def test_item_and_tolist():
    assert opcore.tensor([2.5]).item() == 2.5
    assert isinstance(opcore.tensor([7]).item(), int) and opcore.tensor([7]).item() == 7
    assert opcore.tensor(True).item() is True
    assert opcore.tensor([[1.0, 2.0], [3.0, 4.0]]).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert opcore.tensor(2.5).tolist() == 2.5
    assert opcore.tensor([1, 2]).tolist() == [1, 2]
    assert all(isinstance(v, int) for v in opcore.tensor([1, 2]).tolist())
    assert opcore.tensor([True, False]).tolist() == [True, False]
    assert opcore.tensor([[1.0, 2.0], [3.0, 4.0]]).t().tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert opcore.zeros(2, 0).tolist() == [[], []]
    with pytest.raises(RuntimeError, match="item\\(\\): a tensor with 2 elements cannot be converted to a scalar"):
        opcore.tensor([1.0, 2.0]).item()


@pytest.mark.parametrize("value", [2 ** 63 - 1, -(2 ** 63), 2 ** 53 + 1, 2 ** 62 + 1])
def test_large_int64_values_read_back_exactly(value):
    t = opcore.from_numpy(np.array([value], dtype=np.int64))
    assert t.tolist() == [value]
    assert t.item() == value
    assert int(t) == value
    assert operator.index(t) == value
    assert repr(t) == f"tensor([{value}])"


def test_size_stride_dim_numel():
    m = opcore.zeros(2, 3)
    assert m.size() == (2, 3)
    assert m.size(1) == 3
    assert m.size(-1) == 3
    assert m.size(dim=0) == 2
    assert m.stride() == (3, 1)
    assert m.stride(0) == 3
    assert m.t().stride() == (1, 3)
    assert m.dim() == 2 and m.ndimension() == 2
    assert m.numel() == 6
    assert m.element_size() == 4
    assert m.is_contiguous() and not m.t().is_contiguous()
    assert m[:, 1:].storage_offset() == 1
    with pytest.raises(IndexError, match="dimension out of range"):
        m.size(2)
    with pytest.raises(TypeError, match="size\\(\\): argument 'dim' must be int, not str"):
        m.size("a")
    with pytest.raises(TypeError, match="size\\(\\) takes at most 1 argument"):
        m.size(0, 1)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        m.stride(foo=1)


def test_dtype_conversion_methods():
    m = opcore.tensor([[1.5, 2.0], [-3.5, 0.0]])
    assert m.float().dtype is opcore.float32
    assert m.double().dtype is opcore.float64
    assert m.double().tolist() == [[1.5, 2.0], [-3.5, 0.0]]
    assert m.long().dtype is opcore.int64
    assert m.long().tolist() == [[1, 2], [-3, 0]]
    assert m.int().dtype is opcore.int32
    assert m.bool().tolist() == [[True, True], [True, False]]
    assert m.cpu() is m
    assert m.is_floating_point() and not m.long().is_floating_point()


# --- dtype and device objects ---------------------------------------------------------------------


def test_dtype_objects():
    assert opcore.float32 is opcore.float
    assert opcore.float64 is opcore.double
    assert opcore.int64 is opcore.long
    assert opcore.int32 is opcore.int
    assert repr(opcore.float32) == "opcore.float32"
    assert repr(opcore.float) == "opcore.float32"
    assert repr(opcore.int64) == "opcore.int64"
    assert repr(opcore.bool) == "opcore.bool"
    sizes = {opcore.bool: 1, opcore.int32: 4, opcore.int64: 8, opcore.float32: 4, opcore.float64: 8}
    for dtype, size in sizes.items():
        assert dtype.itemsize == size
        assert isinstance(dtype, opcore.dtype)
    assert opcore.float32.is_floating_point and opcore.float64.is_floating_point
    assert not opcore.int64.is_floating_point and not opcore.bool.is_floating_point
    assert opcore.float32 != opcore.float64
    assert opcore.get_default_dtype() is opcore.float32
    with pytest.raises(TypeError):
        opcore.dtype()


def test_device_objects():
    d = opcore.device("cuda:1")
    assert d.index == 1
    assert d.type == "cuda"
    assert repr(d) == "device(type='cuda', index=1)"
    assert str(d) == "cuda:1"
    assert opcore.device("cpu").index is None
    assert repr(opcore.device("cpu")) == "device(type='cpu')"
    assert opcore.device("cuda", 1) == d
    assert opcore.device("cpu") == opcore.device("cpu")
    assert opcore.device("cpu") != opcore.device("cuda")
    assert opcore.device("cuda:0") != opcore.device("cuda:1")
    assert hash(opcore.device("cuda:1")) == hash(opcore.device("cuda", 1))
    assert len({opcore.device("cpu"), opcore.device("cpu"), opcore.device("meta")}) == 2
    assert opcore.device(d) is d
    assert opcore.ones(1).device == opcore.device("cpu")
    assert (opcore.device("cpu") == "cpu") is False


def test_device_errors():
    with pytest.raises(ValueError, match="invalid device index in 'cuda:x'"):
        opcore.device("cuda:x")
    with pytest.raises(ValueError, match="the type string already has an index"):
        opcore.device("cuda:1", 2)
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, meta, privateuseone device type at start of device string: tpu"):
        opcore.device("tpu")
    with pytest.raises(TypeError, match="expected a str such as 'cpu' or 'cuda:0', not int"):
        opcore.device(1)
    with pytest.raises(ValueError, match="out of range"):
        opcore.device("cuda", 1000)
    with pytest.raises(ValueError, match="too large"):
        opcore.device("cuda", 2 ** 100)
    with pytest.raises(TypeError, match="index must be an int, not bool"):
        opcore.device("cuda", True)
    assert opcore.device("cuda", np.int64(1)) == opcore.device("cuda:1")


# --- randomness and *_like -------------------------------------------------------------------------


def test_manual_seed_reproduces_rand_and_randn():
    opcore.manual_seed(1234)
    r1, n1 = opcore.rand(6).tolist(), opcore.randn(2, 3).tolist()
    opcore.manual_seed(1234)
    r2, n2 = opcore.rand(6).tolist(), opcore.randn(2, 3).tolist()
    assert r1 == r2
    assert n1 == n2
    assert all(0.0 <= v < 1.0 for v in r1)
    opcore.manual_seed(4321)
    assert opcore.rand(6).tolist() != r1
    with pytest.raises(TypeError, match="manual_seed\\(\\): seed must be an int, not str"):
        opcore.manual_seed("1")


def test_num_threads_is_set_checked_and_leaves_results_unchanged():
    saved = opcore.get_num_threads()
    a = opcore.from_numpy(np.arange(300_000, dtype=np.float32) % 1.7)
    try:
        opcore.set_num_threads(1)
        assert opcore.get_num_threads() == 1
        one = (a.exp().tolist(), a.sum().item())
        opcore.set_num_threads(3)
        assert opcore.get_num_threads() == 3
        assert (a.exp().tolist(), a.sum().item()) == one  # the same bits
    finally:
        opcore.set_num_threads(saved)
    with pytest.raises(ValueError, match="expected a positive number of threads, but got 0"):
        opcore.set_num_threads(0)
    with pytest.raises(TypeError, match="expected an int, but got str"):
        opcore.set_num_threads("2")
    with pytest.raises(ValueError, match="too large"):  # a ValueError as for every int argument
        opcore.set_num_threads(2 ** 100)
    with pytest.raises(ValueError, match="but got 4294967296"):
        opcore.set_num_threads(2 ** 32)
    assert opcore.get_num_threads() == saved


def test_like_factories():
    m = opcore.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=opcore.float64)
    i = opcore.tensor([1, 2, 3])
    z = opcore.zeros_like(m)
    assert z.tolist() == [[0.0, 0.0], [0.0, 0.0]] and z.dtype is opcore.float64
    o = opcore.ones_like(i)
    assert o.tolist() == [1, 1, 1] and o.dtype is opcore.int64
    f = opcore.full_like(i, 7)
    assert f.tolist() == [7, 7, 7] and f.dtype is opcore.int64
    r = opcore.rand_like(m)
    assert r.shape == (2, 2) and r.dtype is opcore.float64
    assert opcore.randn_like(m).dtype is opcore.float64
    assert opcore.empty_like(m).shape == (2, 2) and opcore.empty_like(m).dtype is opcore.float64
    assert opcore.zeros_like(m, dtype=opcore.int64).dtype is opcore.int64
    assert opcore.ones_like(i, dtype=opcore.float32).tolist() == [1.0, 1.0, 1.0]
    g = opcore.ones_like(m, requires_grad=True)
    assert g.requires_grad and g.is_leaf
    assert opcore.full_like(m, 2.5).tolist() == [[2.5, 2.5], [2.5, 2.5]]
    assert opcore.zeros_like(m).device == m.device
    assert opcore.zeros_like.__name__ == "zeros_like"


def test_math_functions():
    t = opcore.tensor([0.0, 1.0, 4.0])
    assert opcore.sqrt(t).tolist() == [0.0, 1.0, 2.0]
    assert opcore.exp(t)[1].item() == pytest.approx(math.e)
    assert opcore.log(opcore.tensor([1.0])).tolist() == [0.0]
    assert opcore.tanh(opcore.tensor([0.0])).tolist() == [0.0]
    assert opcore.sigmoid(opcore.tensor([0.0])).tolist() == [0.5]
    assert t.sum().item() == 5.0 and t.mean().item() == pytest.approx(5.0 / 3.0)
    chosen = opcore.where(opcore.tensor([True, False]), opcore.tensor([1.0, 2.0]), opcore.tensor([3.0, 4.0]))
    assert chosen.tolist() == [1.0, 4.0]


# --- in-place operators ----------------------------------------------------------------------------
# Last in the file, and test_tensor.py runs last: should the in-place operator path crash the
# interpreter, no other test's result is lost.


def test_inplace_operators_keep_identity():
    x = opcore.tensor([1.0, 2.0])
    original = x
    x += 1
    assert x is original
    assert x.tolist() == [2.0, 3.0]
    x -= 0.5
    assert x is original
    assert x.tolist() == [1.5, 2.5]
    x *= 2
    assert x is original
    assert x.tolist() == [3.0, 5.0]
    x /= 4
    assert x is original
    assert x.tolist() == [0.75, 1.25]
    x += opcore.tensor([1.0, 1.0])
    assert x is original
    assert x.tolist() == [1.75, 2.25]


def test_inplace_operator_type_errors():
    x = opcore.tensor([1, 2])
    with pytest.raises(TypeError):
        x += "a"
    with pytest.raises(RuntimeError):
        x /= 2  # int64 cannot hold the float result


def test_inplace_operators_write_through_views_and_record_the_graph():
    a = opcore.zeros(2, 2)
    row = a[0]
    row += 1
    assert a.tolist() == [[1.0, 1.0], [0.0, 0.0]]
    x = opcore.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y *= 3
    assert y.grad_fn.name().startswith("MulBackward")
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_bool_of_an_empty_tensor_says_it_has_no_values():
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        bool(opcore.zeros(0))


# --- one Python object per tensor (Note [The Python object of a tensor]) ------------------------

def test_a_tensor_comes_back_to_python_as_the_same_object():
    x = opcore.ones(2, requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad is x.grad
    t = opcore.ones(2, 3)
    assert t.contiguous() is t
    assert t.view(6).contiguous() is not t
    a, b = opcore.ones(2), opcore.ones(2)
    assert a.add_(b) is a
    out = opcore.empty(2)
    assert opcore.add(a, b, out=out) is out
    assert a.requires_grad_(False) is a
    assert t.cpu() is t
    first, second = opcore.ones(2), opcore.ones(2)
    assert first is not second


def test_a_tensor_object_is_freed_when_python_drops_it():
    x = opcore.ones(2, requires_grad=True)
    (x * 2).sum().backward()
    grad = x.grad
    ref = weakref.ref(grad)
    assert sys.getrefcount(grad) == 2  # `grad` and getrefcount's argument: the slot owns nothing
    del grad
    assert ref() is None  # C++ still holds the gradient; its Python object is gone
    assert x.grad.tolist() == [2.0, 2.0]
    alive = weakref.ref(x.grad)() is not None  # outside `assert`: pytest keeps what asserts evaluate
    assert not alive
    t = opcore.ones(3)
    ref = weakref.ref(t)
    del t
    assert ref() is None


def test_dimension_errors_are_index_errors_as_in_torch():
    t = opcore.ones(2, 3)
    for call in (lambda: t.sum(5), lambda: t.size(7), lambda: t.stride(-3), lambda: t.transpose(0, 9),
                 lambda: opcore.ones(2).unsqueeze(3), lambda: t.select(2, 0)):
        with pytest.raises(IndexError, match="dimension out of range"):
            call()
