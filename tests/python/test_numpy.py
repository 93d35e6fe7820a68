"""numpy interop (runtime/opcore/python/Numpy.cpp): from_numpy and numpy() share memory,
opcore.tensor() copies and infers dtypes, and each side keeps the shared memory alive."""
import gc

import numpy as np
import pytest

import opcore

DTYPES = [(np.bool_, opcore.bool), (np.uint8, opcore.uint8), (np.int8, opcore.int8), (np.int16, opcore.int16),
          (np.int32, opcore.int32), (np.int64, opcore.int64), (np.float16, opcore.float16),
          (np.float32, opcore.float32), (np.float64, opcore.float64), (np.complex64, opcore.complex64),
          (np.complex128, opcore.complex128)]
DTYPE_IDS = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex64",
             "complex128"]


def address(array):
    return array.__array_interface__["data"][0]


@pytest.mark.parametrize("np_dtype, dtype", DTYPES, ids=DTYPE_IDS)
def test_from_numpy_shares_memory_both_ways(np_dtype, dtype):
    arr = np.array([[1, 0, 1], [0, 1, 0]], dtype=np_dtype)
    t = opcore.from_numpy(arr)
    assert t.dtype is dtype
    assert t.shape == (2, 3)
    assert t.stride() == (3, 1)
    assert t.data_ptr() == address(arr)
    arr[0, 1] = 1  # numpy -> tensor
    assert t.tolist()[0] == np.array([1, 1, 1], dtype=np_dtype).tolist()
    t[1, 0] = 1  # tensor -> numpy
    assert arr[1].tolist() == np.array([1, 1, 0], dtype=np_dtype).tolist()


@pytest.mark.parametrize("np_dtype, dtype", DTYPES, ids=DTYPE_IDS)
def test_numpy_round_trip_shares_memory(np_dtype, dtype):
    arr = np.array([1, 0, 1, 1], dtype=np_dtype)
    back = opcore.from_numpy(arr).numpy()
    assert back.dtype == arr.dtype
    assert np.shares_memory(back, arr)
    assert address(back) == address(arr)
    t = opcore.ones(2, 2, dtype=dtype)
    a = t.numpy()
    assert a.dtype == np.dtype(np_dtype)
    assert a.shape == (2, 2)
    assert address(a) == t.data_ptr()
    a[0, 0] = 0
    assert t.tolist()[0][0] == np.zeros((), dtype=np_dtype).item()
    t2 = opcore.from_numpy(a)
    assert t2.data_ptr() == t.data_ptr()
    assert opcore.tensor(a).dtype is dtype


def test_from_numpy_keeps_strides_of_transposed_arrays():
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = opcore.from_numpy(arr.T)
    assert t.shape == (4, 3)
    assert t.stride() == (1, 4)
    assert t.tolist() == arr.T.tolist()
    assert t.data_ptr() == address(arr)


def test_from_numpy_keeps_strides_of_strided_slices():
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = opcore.from_numpy(arr[:, ::2])
    assert t.shape == (3, 2)
    assert t.stride() == (4, 2)
    assert t.tolist() == arr[:, ::2].tolist()
    t[0, 1] = -1.0
    assert arr[0, 2] == -1.0


def test_from_numpy_of_an_offset_slice():
    arr = np.arange(12, dtype=np.int64).reshape(3, 4)
    t = opcore.from_numpy(arr[1:, 1:])
    assert t.shape == (2, 3)
    assert t.stride() == (4, 1)
    assert t.tolist() == [[5, 6, 7], [9, 10, 11]]
    t[0, 0] = 100
    assert arr[1, 1] == 100


def test_from_numpy_of_a_one_dimensional_step():
    arr = np.arange(10, dtype=np.float64)
    t = opcore.from_numpy(arr[::3])
    assert t.stride() == (3,)
    assert t.tolist() == [0.0, 3.0, 6.0, 9.0]


def test_from_numpy_of_contiguous_tail_slice():
    arr = np.arange(6, dtype=np.float32)
    t = opcore.from_numpy(arr[2:])
    assert t.tolist() == [2.0, 3.0, 4.0, 5.0]
    assert t.data_ptr() == address(arr) + 2 * 4


def test_from_numpy_empty_and_zero_dim():
    assert opcore.from_numpy(np.zeros((0, 3), dtype=np.float32)).shape == (0, 3)
    t = opcore.from_numpy(np.array(5.0))
    assert t.shape == () and t.item() == 5.0


def test_non_writable_arrays_are_refused():
    arr = np.arange(4, dtype=np.float32)
    arr.flags.writeable = False
    with pytest.raises(TypeError, match="writable"):
        opcore.from_numpy(arr)
    # opcore.tensor copies, so it takes them.
    assert opcore.tensor(arr).tolist() == [0.0, 1.0, 2.0, 3.0]


SUPPORTED_BY_TORCH = ("The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, "
                      "int16, int8, uint8, and bool.")


@pytest.mark.parametrize("np_dtype", [np.uint16, np.uint32, np.uint64, np.longdouble, np.clongdouble, np.object_])
def test_unsupported_dtypes_are_refused_in_torchs_words(np_dtype):
    name = np.dtype(np_dtype).type.__name__  # "float128" for np.longdouble on x86-64
    message = f"can't convert np.ndarray of type numpy.{name}. {SUPPORTED_BY_TORCH}"
    with pytest.raises(TypeError) as info:
        opcore.from_numpy(np.zeros(3, dtype=np_dtype))
    assert str(info.value) == f"from_numpy(): {message}"
    with pytest.raises(TypeError) as info:
        opcore.tensor(np.zeros(3, dtype=np_dtype))
    assert str(info.value) == f"opcore.tensor(): {message}"


def test_an_unsupported_buffer_that_is_not_an_array_is_named_by_its_format():
    with pytest.raises(TypeError) as info:
        opcore.from_numpy(memoryview(bytearray(4)).cast("H"))
    assert str(info.value) == f"from_numpy(): can't convert a buffer of format 'H' (itemsize 2). {SUPPORTED_BY_TORCH}"


def test_negative_strides_are_refused():
    arr = np.arange(6, dtype=np.float64).reshape(2, 3)
    with pytest.raises(TypeError, match="negative stride"):
        opcore.from_numpy(arr[::-1])
    with pytest.raises(TypeError, match="negative stride"):
        opcore.from_numpy(arr[:, ::-1])
    assert opcore.from_numpy(arr[::-1].copy()).tolist() == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]


def test_from_numpy_rejects_non_arrays():
    with pytest.raises(TypeError, match="expected a numpy array or an object with the buffer protocol, not list"):
        opcore.from_numpy([1, 2])
    with pytest.raises(TypeError, match="not NoneType"):
        opcore.from_numpy(None)


def test_asarray_shares_memory():
    t = opcore.tensor([[1.0, 2.0], [3.0, 4.0]])
    a = np.asarray(t)
    assert a.dtype == np.float32
    assert a.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert address(a) == t.data_ptr()
    a[1, 1] = 40.0
    assert t[1, 1].item() == 40.0


def test_asarray_keeps_strides():
    t = opcore.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert np.asarray(t.t()).strides == (4, 8)
    assert np.asarray(t.t()).tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert np.asarray(t[:, 1]).strides == (8,)
    assert np.asarray(t[:, 1]).tolist() == [2.0, 4.0]


def test_array_with_dtype_converts():
    t = opcore.tensor([[1.5, 2.0], [3.0, 4.0]])
    a = np.array(t, dtype=np.float64)
    assert a.dtype == np.float64
    assert a.tolist() == [[1.5, 2.0], [3.0, 4.0]]
    i = np.array(t, dtype=np.int64)
    assert i.tolist() == [[1, 2], [3, 4]]
    c = np.array(t)  # copies by default
    c[0, 0] = 0.0
    assert t[0, 0].item() == 1.5


def test_numpy_of_empty_and_zero_dim_tensors():
    assert opcore.zeros(0).numpy().shape == (0,)
    z = opcore.tensor(3.0).numpy()
    assert z.shape == () and z.item() == 3.0


def test_numpy_of_a_tensor_requiring_grad_raises():
    t = opcore.ones(2, requires_grad=True)
    message = r"Can't call numpy\(\) on Tensor that requires grad. Use tensor.detach\(\).numpy\(\) instead."
    with pytest.raises(RuntimeError, match=message):  # torch's type and message
        t.numpy()
    with pytest.raises(RuntimeError, match=message):
        np.asarray(t)
    assert t.detach().numpy().tolist() == [1.0, 1.0]


def test_tensor_from_an_array_copies():
    arr = np.array([1.0, 2.0])
    t = opcore.tensor(arr)
    assert t.dtype is opcore.float64
    assert t.data_ptr() != address(arr)
    arr[0] = 99.0
    assert t.tolist() == [1.0, 2.0]
    t[1] = -1.0
    assert arr.tolist() == [99.0, 2.0]
    assert opcore.tensor(np.array([1, 2], dtype=np.int32)).dtype is opcore.int32
    transposed = np.arange(6, dtype=np.float32).reshape(2, 3).T
    assert opcore.tensor(transposed).tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_tensor_from_a_strided_array_copies():
    arr = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert opcore.tensor(arr[:, ::2]).tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]
    assert opcore.tensor(arr[1:, 1:]).tolist() == [[5.0, 6.0, 7.0], [9.0, 10.0, 11.0]]


def test_tensor_from_a_tensor_copies_and_detaches():
    src = opcore.ones(2, requires_grad=True)
    t = opcore.tensor(src)
    assert not t.requires_grad
    assert t.data_ptr() != src.data_ptr()


@pytest.mark.parametrize("data, dtype, values", [
    ([True, False], opcore.bool, [True, False]),
    ([1, 2], opcore.int64, [1, 2]),
    ([1, 2.5], opcore.float32, [1.0, 2.5]),
    ([[1], [2.0]], opcore.float32, [[1.0], [2.0]]),
    ([True, 2], opcore.int64, [1, 2]),
    ([True, 0.5], opcore.float32, [1.0, 0.5]),
    (3, opcore.int64, 3),
    (3.0, opcore.float32, 3.0),
    (True, opcore.bool, True),
    ([], opcore.float32, []),
    ((1, 2), opcore.int64, [1, 2]),
    (range(3), opcore.int64, [0, 1, 2]),
    ([opcore.tensor(1.0), opcore.tensor(2.0)], opcore.float32, [1.0, 2.0]),
    ([[1, 2], [3, 4]], opcore.int64, [[1, 2], [3, 4]]),
])
def test_tensor_from_nested_sequences_infers_the_dtype(data, dtype, values):
    t = opcore.tensor(data)
    assert t.dtype is dtype
    assert t.tolist() == values


@pytest.mark.parametrize("dtype, values", [
    (opcore.bool, [True, False, True]),
    (opcore.int32, [1, 0, -2]),
    (opcore.int64, [1, 0, -2]),
    (opcore.float32, [1.5, 0.0, -2.0]),
    (opcore.float64, [1.5, 0.0, -2.0]),
])
def test_tensor_with_every_dtype(dtype, values):
    t = opcore.tensor(values, dtype=dtype)
    assert t.dtype is dtype
    assert t.tolist() == values
    assert opcore.tensor([values, values], dtype=dtype).shape == (2, 3)


def test_tensor_with_dtype_converts_each_element():
    assert opcore.tensor([1.7, -2.7], dtype=opcore.int64).tolist() == [1, -2]
    assert opcore.tensor([1, 2], dtype=opcore.float64).tolist() == [1.0, 2.0]
    assert opcore.tensor([0.0, 0.5], dtype=opcore.bool).tolist() == [False, True]
    assert opcore.tensor([[1.5, 2.0]], requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype can require gradients"):
        opcore.tensor([1, 2], requires_grad=True)


def test_ragged_and_bad_nested_data():
    with pytest.raises(ValueError, match="expected a sequence of length 2 at dim 1 \\(got 1\\)"):
        opcore.tensor([[1, 2], [3]])
    with pytest.raises(ValueError, match="the nested sequences do not have the same depth"):
        opcore.tensor([[1, 2], 3])
    with pytest.raises(ValueError, match="the nested sequences do not have the same depth"):
        opcore.tensor([1, [2, 3]])
    with pytest.raises(ValueError, match="only one-element tensors can be elements"):
        opcore.tensor([opcore.ones(2)])
    with pytest.raises(TypeError, match="could not infer a dtype from an element of type str"):
        opcore.tensor(["a"])
    with pytest.raises(TypeError, match="could not infer a dtype from an element of type NoneType"):
        opcore.tensor([None])
    with pytest.raises(ValueError, match="Python int too large"):
        opcore.tensor([2 ** 70])


def test_array_keeps_the_tensor_memory_alive():
    t = opcore.tensor([1.0, 2.0, 3.0])
    arr = t.numpy()
    view = t[1:].numpy()
    del t
    gc.collect()
    assert arr.tolist() == [1.0, 2.0, 3.0]
    assert view.tolist() == [2.0, 3.0]
    arr[2] = 30.0
    assert view.tolist() == [2.0, 30.0]


def test_tensor_keeps_the_array_memory_alive():
    arr = np.array([1.0, 2.0, 3.0])
    t = opcore.from_numpy(arr)
    view = t[1:]
    del arr
    gc.collect()
    assert t.tolist() == [1.0, 2.0, 3.0]
    del t
    gc.collect()
    assert view.tolist() == [2.0, 3.0]
    view[0] = 5.0
    assert view.tolist() == [5.0, 3.0]


def test_round_trip_chain_keeps_everything_alive():
    arr = np.arange(4, dtype=np.int64)
    t = opcore.from_numpy(arr)
    back = t.numpy()
    del arr, t
    gc.collect()
    assert back.tolist() == [0, 1, 2, 3]
    back[0] = 7
    assert back.tolist() == [7, 1, 2, 3]


def test_zero_dim_arrays_are_scalars():
    t = opcore.tensor([1.0, 2.0])
    assert opcore.add(t, np.array(2.5)).tolist() == [3.5, 4.5]   # a 0-d float array: a float
    assert opcore.mul(t, np.array(3)).tolist() == [3.0, 6.0]     # a 0-d int array: an int
    assert opcore.add(t, np.float32(0.5)).tolist() == [1.5, 2.5]
