"""t[index] and t[index] = value (runtime/opcore/python/Indexing.cpp): basic indexing gives
views, tensor indices go through index(), and gradients flow through the views."""
import numpy as np
import pytest

import opcore


def grid():
    return opcore.arange(12).reshape(3, 4)  # [[0..3], [4..7], [8..11]]


def test_integer_indices():
    a = grid()
    assert a[0].tolist() == [0, 1, 2, 3]
    assert a[-1].tolist() == [8, 9, 10, 11]
    assert a[1, 2].item() == 6
    assert a[1, 2].shape == ()
    assert a[-1, -1].item() == 11
    assert a[np.int64(1)].tolist() == [4, 5, 6, 7]

    class Index:
        def __index__(self):
            return 2

    assert a[Index()].tolist() == [8, 9, 10, 11]


def test_slices():
    a = grid()
    assert a[:, 1:3].tolist() == [[1, 2], [5, 6], [9, 10]]
    assert a[::2].tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]
    assert a[1:, ::2].tolist() == [[4, 6], [8, 10]]
    assert a[:, -2:].tolist() == [[2, 3], [6, 7], [10, 11]]
    assert a[10:20].shape == (0, 4)
    assert a[-100:1].tolist() == [[0, 1, 2, 3]]
    assert a[:, 1:3].stride() == (4, 1)
    assert a[::2].stride() == (8, 1)


def test_none_and_ellipsis():
    a = grid()
    assert a[..., None].shape == (3, 4, 1)
    assert a[None].shape == (1, 3, 4)
    assert a[:, None].shape == (3, 1, 4)
    assert a[..., 1].tolist() == [1, 5, 9]
    assert a[...].shape == (3, 4)
    assert a[None, ..., None].shape == (1, 3, 4, 1)
    s = opcore.tensor(5.0)
    assert s[None].shape == (1,)
    assert s[...].shape == ()


def test_bool_scalars_add_a_dimension():
    a = grid()
    assert a[True].shape == (1, 3, 4)
    assert a[False].shape == (0, 3, 4)


def test_tensor_indices():
    a = grid()
    assert a[opcore.tensor([2, 0])].tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]
    assert a[opcore.tensor([2, 0], dtype=opcore.int32)].tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]
    assert a[:, opcore.tensor([0, 3])].tolist() == [[0, 3], [4, 7], [8, 11]]
    assert a[opcore.tensor(1)].tolist() == [4, 5, 6, 7]
    assert opcore.arange(5)[opcore.tensor([4, 0, 4])].tolist() == [4, 0, 4]


def test_bool_mask_indices():
    a = grid()
    assert a[a > 5].tolist() == [6, 7, 8, 9, 10, 11]
    assert a[opcore.tensor([True, False, True])].tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]
    assert a[a > 100].shape == (0,)


def test_chained_indexing():
    a = grid()
    assert a[1][2].item() == 6
    assert a[1:][0][::2].tolist() == [4, 6]
    assert a[:, 1:][1:, :2].tolist() == [[5, 6], [9, 10]]


def test_views_share_memory():
    a = grid()
    row = a[0]
    row[1] = 100
    assert a[0, 1].item() == 100
    assert a[0].data_ptr() == a.data_ptr()
    assert a[1].data_ptr() - a.data_ptr() == 4 * a.element_size()
    column = a[:, 2]
    column.fill_(-1)
    assert a.tolist() == [[0, 100, -1, 3], [4, 5, -1, 7], [8, 9, -1, 11]]
    a[2, 3] = 50
    assert column.tolist() == [-1, -1, -1] and row.tolist() == [0, 100, -1, 3]
    assert a[:, 1:3][2, 1].item() == -1


def test_tensor_indices_copy():
    a = grid()
    picked = a[opcore.tensor([0])]
    picked.fill_(-5)
    assert a[0].tolist() == [0, 1, 2, 3]


def test_out_of_range_is_index_error():
    a = grid()
    with pytest.raises(IndexError) as info:
        a[3]
    assert str(info.value) == "index 3 is out of bounds for dimension 0 with size 3"
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        a[-4]
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 1 with size 4"):
        a[0, 4]
    with pytest.raises(IndexError):
        opcore.tensor(1.0)[0]


def test_out_of_range_tensor_index_is_index_error():
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        grid()[opcore.tensor([5])]


def test_too_many_indices_is_index_error():
    a = grid()
    with pytest.raises(IndexError) as info:
        a[0, 0, 0]
    assert str(info.value) == "too many indices for tensor of dimension 2 (got 3)"
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 0"):
        opcore.tensor(1.0)[0]
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        a[..., ...]


def test_invalid_index_types():
    a = grid()
    with pytest.raises(IndexError, match="only integers, slices .* are valid indices \\(got str\\)"):
        a["x"]
    with pytest.raises(IndexError, match="valid indices \\(got float\\)"):
        a[1.5]
    with pytest.raises(IndexError, match="must be long, int or bool tensors"):
        a[[0.5, 1.0]]
    with pytest.raises(IndexError, match="tensors used as indices must be long, int or bool tensors, not Float"):
        a[opcore.tensor([0.0])]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        a[::-1]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        a[::0]
    with pytest.raises(TypeError, match="slice start must be an int or None, not str"):
        a["a":]
    with pytest.raises(ValueError, match="Python int too large"):
        a[2 ** 70]
    with pytest.raises(ValueError, match="Python int too large"):
        a[1:2 ** 70]


def test_setitem_with_scalars():
    b = opcore.zeros(3, 4)
    b[0] = 5
    b[1, 1] = 2.5
    b[..., 3] = True
    b[2, :2] = -1
    assert b.tolist() == [[5.0, 5.0, 5.0, 1.0], [0.0, 2.5, 0.0, 1.0], [-1.0, -1.0, 0.0, 1.0]]
    b[:] = np.float32(0.5)
    assert b.tolist() == [[0.5] * 4] * 3
    b[0, 0] = opcore.tensor(9.0)
    assert b[0, 0].item() == 9.0


def test_setitem_with_tensors_and_broadcasting():
    b = opcore.zeros(3, 4)
    b[:, 1] = opcore.tensor([1.0, 2.0, 3.0])
    b[1:, 2:] = opcore.tensor([7.0, 8.0])  # broadcast over the rows
    b[0] = opcore.tensor([[9.0, 9.0, 9.0, 9.0]])[0]
    assert b.tolist() == [[9.0, 9.0, 9.0, 9.0], [0.0, 2.0, 7.0, 8.0], [0.0, 3.0, 7.0, 8.0]]
    b[2] = opcore.tensor([1, 2, 3, 4])  # int values into a float tensor
    assert b[2].tolist() == [1.0, 2.0, 3.0, 4.0]


def test_setitem_errors():
    b = opcore.zeros(3, 4)
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        b[0] = opcore.ones(5)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        b[5] = 1
    with pytest.raises(TypeError, match="can only assign a Tensor or a Python number to tensor items, not str"):
        b[0] = "x"
    with pytest.raises(TypeError, match="tensor items cannot be deleted"):
        del b[0]
    with pytest.raises(ValueError, match="Python int too large"):
        b[0] = 2 ** 70
    assert b.tolist() == [[0.0] * 4] * 3


def _torch():
    return pytest.importorskip("torch")


# Every form of t[...] PyTorch accepts, against torch 1.13 (issue #33).
_GET_FORMS = [
    lambda t, T: 1, lambda t, T: -1, lambda t, T: (1, 2), lambda t, T: slice(None, None, 2),
    lambda t, T: (slice(1, None), slice(None, None, 3)), lambda t, T: (None, 0), lambda t, T: (Ellipsis, 1),
    lambda t, T: (Ellipsis, None, slice(0, 2)), lambda t, T: True, lambda t, T: False, lambda t, T: [0, 2],
    lambda t, T: [[0, 1], [1, 2]], lambda t, T: [True, False, True], lambda t, T: [],
    lambda t, T: (slice(None), [3, 0, 3]), lambda t, T: ([2, 0], [1, 3]), lambda t, T: T.tensor([2, 0]),
    lambda t, T: T.tensor([[2], [0]]), lambda t, T: (T.tensor([2, 0]), slice(None, None, 2)),
    lambda t, T: (slice(None), T.tensor([[0, 1], [2, 3]])), lambda t, T: t > 5, lambda t, T: (t > 5)[:, 0],
    lambda t, T: (T.tensor([0, 2]), None, T.tensor([1, 3])), lambda t, T: (Ellipsis, T.tensor([1])),
    lambda t, T: (0, T.tensor([3, 1])), lambda t, T: T.tensor(1), lambda t, T: (T.tensor([1, 2]), T.tensor([[0], [3]])),
    lambda t, T: (True, 1, [0, 3]), lambda t, T: (T.tensor([True, False, True]), slice(1, 3)),
]


@pytest.mark.parametrize("transposed", [False, True], ids=["contiguous", "transposed"])
@pytest.mark.parametrize("form", range(len(_GET_FORMS)))
def test_getitem_matches_torch(form, transposed):
    # transposed: a [3, 4] view of a [4, 3] tensor, whose rows step by 3 elements (index()
    # walks a run of the last dimension by its stride).
    torch = _torch()
    if transposed:
        a, ta = opcore.arange(12).reshape(4, 3).t(), torch.arange(12).reshape(4, 3).t()
    else:
        a, ta = grid(), torch.arange(12).reshape(3, 4)
    expected = ta[_GET_FORMS[form](ta, torch)]
    actual = a[_GET_FORMS[form](a, opcore)]
    assert tuple(actual.shape) == tuple(expected.shape)
    assert actual.tolist() == expected.tolist()


_SET_FORMS = [
    (lambda t, T: T.tensor([0, 2]), lambda T: 7),
    (lambda t, T: T.tensor([0, 2]), lambda T: T.tensor([1, 2, 3, 4])),
    (lambda t, T: (slice(None), T.tensor([3, 0])), lambda T: T.tensor([[1, 2], [3, 4], [5, 6]])),
    (lambda t, T: t > 5, lambda T: -1),
    (lambda t, T: t > 5, lambda T: T.arange(6)),
    (lambda t, T: [1, 1], lambda T: T.tensor([[8, 9, 10, 11]])),
    (lambda t, T: ([0, 2], [1, 3]), lambda T: T.tensor([5, 6])),
    (lambda t, T: (T.tensor([[0], [2]]), T.tensor([1, 3])), lambda T: 4),
    (lambda t, T: (Ellipsis, T.tensor([1])), lambda T: T.tensor([[1], [2], [3]])),
    (lambda t, T: (1, T.tensor([True, False, True, False])), lambda T: 0),
    (lambda t, T: [True, False, True], lambda T: T.tensor([0, 1, 2, 3])),
    (lambda t, T: (T.tensor([0, 2]), slice(1, 3)), lambda T: T.tensor([[1, 2]])),
]


@pytest.mark.parametrize("form", range(len(_SET_FORMS)))
def test_setitem_matches_torch(form):
    torch = _torch()
    a, ta = grid(), torch.arange(12).reshape(3, 4)
    index, value = _SET_FORMS[form]
    ta[index(ta, torch)] = value(torch)
    a[index(a, opcore)] = value(opcore)
    assert a.tolist() == ta.tolist()


def test_setitem_through_tensor_indices_converts_the_value():
    b = opcore.zeros(3, 4)
    b[opcore.tensor([0, 2])] = opcore.tensor([1, 2, 3, 4])  # int64 values into float32 (PyTorch >= 2.0 too)
    b[b > 3] = 2.5
    assert b.tolist() == [[1.0, 2.0, 3.0, 2.5], [0.0] * 4, [1.0, 2.0, 3.0, 2.5]]


def test_setitem_through_tensor_indices_errors():
    b = opcore.zeros(3, 4)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        b[opcore.tensor([0, 5])] = 1.0
    with pytest.raises(IndexError, match="index -4 is out of bounds for dimension 0 with size 3"):
        b[[-4]] = 1.0
    with pytest.raises(RuntimeError, match="shape mismatch: value tensor of shape \\[3\\] cannot be broadcast"):
        b[opcore.tensor([0, 1])] = opcore.ones(3)
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 4"):
        b[:, [4]] = 0.0
    assert b.tolist() == [[0.0] * 4] * 3, "nothing written before the error"


def test_gradient_through_advanced_indexing():
    x = opcore.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    x[[2, 0, 2]].sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]
    y = opcore.zeros(3, 2)
    v = opcore.tensor([1.5, 2.5], requires_grad=True)
    y[opcore.tensor([1])] = v
    (y * y).sum().backward()
    assert v.grad.tolist() == [3.0, 5.0]


def test_gradient_through_slicing():
    x = opcore.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    x[1:3].sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 0.0]


def test_gradient_through_select_and_strided_slices():
    x = opcore.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (x[0, 1] * 3 + x[:, 0].sum()).backward()
    assert x.grad.tolist() == [[1.0, 3.0], [1.0, 0.0]]
    y = opcore.arange(6.0, dtype=opcore.float64).requires_grad_()
    (y[::2] * opcore.tensor([1.0, 2.0, 3.0], dtype=opcore.float64)).sum().backward()
    assert y.grad.tolist() == [1.0, 0.0, 2.0, 0.0, 3.0, 0.0]
    z = opcore.ones(2, 3, requires_grad=True)
    z[None, ..., 1:].sum().backward()
    assert z.grad.tolist() == [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]


def test_views_of_tensors_requiring_grad_keep_the_graph():
    x = opcore.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = x[1:]
    assert v.requires_grad and not v.is_leaf
    assert v.grad_fn is not None


def test_setitem_on_a_leaf_that_requires_grad():
    x = opcore.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError,
                       match="a view of a leaf Variable that requires grad is being used in an in-place operation"):
        x[0] = 2.0
    with opcore.no_grad():
        x[0] = 5.0
    assert x.tolist() == [5.0, 1.0, 1.0]
    assert x.requires_grad and x.is_leaf


def test_gradient_through_setitem():
    w = opcore.tensor(2.0, requires_grad=True)
    z = opcore.zeros(3)
    z[1] = w
    assert z.requires_grad
    assert z.grad_fn.name() == "CopySlices"
    (z * opcore.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert w.grad.item() == 10.0

    x = opcore.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    y[0] = 0.0  # the overwritten element gets no gradient
    (y * y).sum().backward()
    assert x.grad.tolist() == [0.0, 4.0, 6.0]


def test_gradient_through_an_inplace_change_of_a_view():
    x = opcore.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y[1:].mul_(10)
    assert y.tolist() == [2.0, 40.0, 60.0]
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 20.0, 20.0]


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_inplace_scatter_reduce_gradients_match_the_functional_form(reduce, include_self):
    # The in-place form's gradient is derived from scatter_reduce.two's formula, which reads the
    # original self and the result; the functional form's gradient is checked against torch.
    x_values = [0.5, 2.0, 3.0, 1.5, 4.0]
    index = opcore.tensor([0, 1, 1, 3])
    weights = opcore.arange(1.0, 6.0)
    grads = []
    for inplace in (False, True):
        x = opcore.tensor(x_values, requires_grad=True)
        src = opcore.tensor([1.0, 5.0, 2.0, 1.5], requires_grad=True)
        if inplace:
            y = x.clone()
            y.scatter_reduce_(0, index, src, reduce, include_self=include_self)
        else:
            y = x.scatter_reduce(0, index, src, reduce, include_self=include_self)
        (y * weights).sum().backward()
        grads.append((x.grad.tolist(), src.grad.tolist()))
    assert grads[1] == grads[0]
