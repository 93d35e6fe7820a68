"""The transformer's own layers (issue #34): embedding and its gradient, dropout, and
scaled_dot_product_attention, through opcore.nn.functional, against torch 1.13 where it has
them. The operator table (opinfo.py) checks every dtype and kind of input; these tests check
what it cannot: gradients against torch's, the random mask, in-place forms and the Python
functions' own arguments."""
import math

import numpy as np
import pytest

import opcore
import opcore.nn.functional as F

try:
    import torch
    import torch.nn.functional as TF
except ImportError:  # torch 1.13 (Debian's python3-torch) is the reference of the comparisons, which skip
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is the reference")


def _equal(a, b):
    return tuple(a.shape) == tuple(b.shape) and np.array_equal(a.detach().numpy(), b.detach().numpy())


def _pair(shape, dtype=np.float32, seed=0, requires_grad=False):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return (opcore.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


# --- embedding ------------------------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("padding_idx", [None, 0, 3, -2])
@pytest.mark.parametrize("scale_grad_by_freq", [False, True])
def test_embedding_and_its_gradient_match_torch(padding_idx, scale_grad_by_freq):
    w, tw = _pair((6, 4), np.float64, requires_grad=True)
    idx = np.array([[0, 3, 3, 5], [4, 0, 3, 1]])
    out = F.embedding(opcore.tensor(idx), w, padding_idx, scale_grad_by_freq=scale_grad_by_freq)
    tout = TF.embedding(torch.tensor(idx), tw, padding_idx, scale_grad_by_freq=scale_grad_by_freq)
    assert out.shape == (2, 4, 4)
    np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
    g = np.random.default_rng(1).standard_normal((2, 4, 4))
    out.backward(opcore.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)


def test_embedding_gradient_is_the_same_on_one_and_two_threads():
    # Each thread owns a range of columns; the sums of each element run in index order.
    rng = np.random.default_rng(2)
    idx = opcore.tensor(rng.integers(0, 50, size=20000))
    grad = opcore.tensor(rng.standard_normal((20000, 256)).astype(np.float32))
    threads = opcore.get_num_threads()
    try:
        opcore.set_num_threads(1)
        one = opcore.embedding_dense_backward(grad, idx, 50, -1, False)
        opcore.set_num_threads(2)
        two = opcore.embedding_dense_backward(grad, idx, 50, -1, False)
    finally:
        opcore.set_num_threads(threads)
    assert _equal(one, two)
    expected = np.zeros((50, 256), dtype=np.float64)
    np.add.at(expected, idx.numpy(), grad.numpy().astype(np.float64))
    np.testing.assert_allclose(one.numpy(), expected, rtol=1e-4, atol=1e-4)


def test_embedding_gradient_of_bfloat16_is_accumulated_in_float():
    # 300 additions of 1 + 2^-8: in bfloat16 each sum would stop growing at 256.
    idx = opcore.zeros(300, dtype=opcore.int64)
    grad = opcore.full((300, 2), 1.0, dtype=opcore.bfloat16)
    assert opcore.embedding_dense_backward(grad, idx, 1, -1, False).float().tolist() == [[300.0, 300.0]]


@needs_torch
def test_embedding_max_norm_renormalizes_the_rows_it_reads_in_place():
    w, tw = _pair((5, 3), np.float64)
    w, tw = w * 3, tw * 3
    idx = [[1, 4], [4, 0]]
    out = F.embedding(opcore.tensor(idx), w, max_norm=1.5)
    tout = TF.embedding(torch.tensor(idx), tw, max_norm=1.5)
    np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.numpy(), tw.numpy(), rtol=1e-12)  # rows 0, 1, 4 rescaled, 2 and 3 kept


def test_embedding_errors():
    w = opcore.ones(4, 2, requires_grad=True)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(opcore.tensor([0]), w, padding_idx=4)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(opcore.tensor([0]), w, padding_idx=-5)
    with pytest.raises(IndexError, match="out of bounds"):
        F.embedding(opcore.tensor([4]), w)
    with pytest.raises(NotImplementedError, match="sparse=True asks for a sparse gradient"):
        F.embedding(opcore.tensor([1]), w, sparse=True).sum().backward()


# --- dropout --------------------------------------------------------------------------------------


def test_dropout_keeps_about_one_minus_p_and_scales_by_its_inverse():
    x = opcore.ones(1 << 20)
    out = F.dropout(x, p=0.3)
    kept = (out != 0).sum().item() / x.numel()
    assert abs(kept - 0.7) < 0.005  # 1M Bernoulli(0.7): standard deviation 0.00046
    assert set(np.unique(out.numpy()).tolist()) == {0.0, np.float32(1 / 0.7)}


def test_dropout_is_reproducible_under_manual_seed_whatever_the_dtype():
    x = opcore.arange(1000, dtype=opcore.float64) + 1
    opcore.manual_seed(7)
    a, mask = opcore.native_dropout(x, 0.5, True)
    opcore.manual_seed(7)
    b, _ = opcore.native_dropout(x.float(), 0.5, True)
    opcore.manual_seed(7)
    c = F.dropout(x.t(), 0.5)
    assert _equal(a.float(), b) and _equal(a, c)
    np.testing.assert_array_equal(a.numpy(), np.where(mask.numpy(), x.numpy() * 2, 0))
    assert not _equal(F.dropout(x, 0.5), a)  # the generator moved on


def test_dropout_gradient_is_the_mask_times_the_scale():
    x = opcore.randn(64, 64, dtype=opcore.float64, requires_grad=True)
    out, mask = opcore.native_dropout(x, 0.25, None)  # None trains
    out.backward(opcore.ones_like(out))
    np.testing.assert_array_equal(x.grad.numpy(), mask.numpy() / 0.75)
    y = opcore.randn(8, dtype=opcore.float64, requires_grad=True)
    assert opcore.autograd.gradcheck(lambda t: opcore.native_dropout_backward(t, mask[0, :8], 4.0), (y,))


def test_dropout_outside_training_and_at_the_edges():
    x = opcore.randn(3, 4, requires_grad=True)
    assert F.dropout(x, 0.5, training=False) is x  # the input itself, as torch's
    assert F.dropout(x, 0.0) is x
    assert _equal(F.dropout(x, 1.0), opcore.zeros(3, 4))
    out, mask = opcore.native_dropout(x, 0.9, False)
    assert _equal(out, x) and mask.all().item() and mask.dtype is opcore.bool
    nan = opcore.tensor([math.nan] * 64)
    assert F.dropout(nan, 0.5).isnan().all().item()  # a product: a dropped NaN stays NaN, as torch's
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        F.dropout(x, -0.1)
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1, but got 2"):
        opcore.native_dropout(x, 2.0, True)
    with pytest.raises(NotImplementedError, match="native_dropout.*Long"):
        opcore.native_dropout(opcore.ones(3, dtype=opcore.int64), 0.5, True)


def test_dropout_in_place_multiplies_self_by_the_mask():
    x = opcore.ones(10000)
    opcore.manual_seed(3)
    y = F.dropout(x, 0.5, inplace=True)
    assert y is x and set(np.unique(x.numpy()).tolist()) == {0.0, 2.0}
    opcore.manual_seed(3)
    assert _equal(F.dropout(opcore.ones(10000), 0.5), x)  # the same mask as the functional form


# --- scaled_dot_product_attention ----------------------------------------------------------------


def _torch_attention(q, k, v, mask=None, causal=False, scale=None):
    scores = (q @ k.transpose(-2, -1)) * (1 / math.sqrt(q.size(-1)) if scale is None else scale)
    if causal:
        mask = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf) if mask.dtype == torch.bool else scores + mask
    return scores.softmax(-1) @ v


@needs_torch
@pytest.mark.parametrize("kind", ["plain", "causal", "bool mask", "float mask"])
def test_attention_and_its_gradients_match_the_math_reference(kind):
    (q, tq), (k, tk), (v, tv) = (_pair((2, 3, 6, 8), np.float64, s, True) for s in range(3))
    mask, tmask = None, None
    if kind == "bool mask":  # every query sees itself, so that no row is all -inf
        m = (np.random.default_rng(4).random((6, 6)) > 0.3) | np.eye(6, dtype=bool)
        mask, tmask = opcore.tensor(m), torch.tensor(m)
    elif kind == "float mask":
        mask, tmask = _pair((6, 6), np.float64, 5)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=kind == "causal")
    tout = _torch_attention(tq, tk, tv, tmask, causal=kind == "causal")
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = np.random.default_rng(6).standard_normal(out.shape)
    out.backward(opcore.tensor(g))
    tout.backward(torch.tensor(g))
    for a, b in ((q, tq), (k, tk), (v, tv)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_causal_attention_does_not_look_ahead():
    q, k = opcore.randn(1, 5, 4), opcore.randn(1, 5, 4)
    v = opcore.randn(1, 5, 3)
    full = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    changed = v.clone()
    changed[0, 3:] = 100.0  # the future of rows 0 .. 2
    later = F.scaled_dot_product_attention(q, k, changed, is_causal=True)
    assert _equal(full[0, :3], later[0, :3]) and not _equal(full[0, 3:], later[0, 3:])
    np.testing.assert_allclose(full[0, 0].numpy(), v[0, 0].numpy(), rtol=1e-6)  # row 0 sees key 0 only


def test_attention_dropout_draws_from_the_generator():
    q = opcore.randn(2, 16, 8)
    opcore.manual_seed(1)
    a = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    opcore.manual_seed(1)
    b = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert _equal(a, b) and not _equal(a, F.scaled_dot_product_attention(q, q, q))


# --- convolution and pooling ----------------------------------------------------------------------


# The input's gradient of a convolution (and a transposed one's forward) is computed as a
# convolution where the stride is 1, the padding fits and the output has no more channels than
# the input, by col2im elsewhere (Note [Stride-1 input gradients] in
# kernels/composite/Convolution.cpp): cases of both, 4 input channels, 2 groups, kernel 3 x 2.
CONV2D_CASES = {  # (transposed, output channels, arguments)
    "strided": (False, 6, dict(stride=(2, 1), padding=1, dilation=(1, 2))),
    "stride 1": (False, 4, dict(stride=1, padding=(1, 2), dilation=(1, 2))),
    "stride 1, more output channels": (False, 6, dict(stride=1, padding=(1, 2), dilation=(1, 2))),
    "stride 1, padding wider than the kernel": (False, 4, dict(stride=1, padding=(3, 2))),
    "transposed, strided": (True, 6, dict(stride=2, padding=1, output_padding=1, dilation=(1, 2))),
    "transposed, stride 1": (True, 6, dict(stride=1, padding=(1, 2), dilation=(1, 2))),
    "transposed, stride 1, output padding": (True, 6, dict(stride=1, padding=(1, 0), output_padding=(0, 1),
                                                           dilation=(1, 2))),
}


@needs_torch
@pytest.mark.parametrize("case", list(CONV2D_CASES))
def test_conv2d_gradients_match_torch(case):
    transposed, channels, kwargs = CONV2D_CASES[case]
    (x, tx), (b, tb) = _pair((2, 4, 7, 6), np.float64, 0, True), _pair((channels,), np.float64, 2, True)
    w, tw = _pair((4, channels // 2, 3, 2) if transposed else (channels, 2, 3, 2), np.float64, 1, True)
    conv = F.conv_transpose2d if transposed else F.conv2d
    tconv = TF.conv_transpose2d if transposed else TF.conv2d
    out, tout = conv(x, w, b, groups=2, **kwargs), tconv(tx, tw, tb, groups=2, **kwargs)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = np.random.default_rng(3).standard_normal(tuple(out.shape))
    out.backward(opcore.tensor(g))
    tout.backward(torch.tensor(g))
    for a, t in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("transposed", [False, True])
def test_conv2d_of_a_batch_in_parts_matches_torch(transposed):
    # Columns of more than 4 MB an image (64 channels x 3 x 3 at 48 x 48, float32, on the
    # 64-channel side): the convolution, its input's gradient and its weight's gradient go one
    # image at a time (kColumnBytes in kernels/composite/Convolution.cpp), the parts joined or
    # summed.
    x, tx = _pair((3, 8, 48, 48) if transposed else (3, 64, 48, 48), np.float32, 0, True)
    w, tw = _pair((8, 64, 3, 3), np.float32, 1, True)
    b, tb = _pair((64,) if transposed else (8,), np.float32, 2, True)
    conv = F.conv_transpose2d if transposed else F.conv2d
    tconv = TF.conv_transpose2d if transposed else TF.conv2d
    out, tout = conv(x, w, b, padding=1), tconv(tx, tw, tb, padding=1)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-4, atol=1e-4)
    g = np.random.default_rng(3).standard_normal(tuple(out.shape)).astype(np.float32)
    out.backward(opcore.tensor(g))
    tout.backward(torch.tensor(g))
    for a, t in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-3, atol=1e-3)


def test_max_pool2d_indices_and_out_forms():
    x = opcore.tensor([[[[1.0, 5.0, 2.0], [7.0, 3.0, math.nan], [0.0, 9.0, 4.0]]]])
    values, indices = F.max_pool2d(x, 2, stride=1, return_indices=True)
    # windows of 2x2, stride 1: the NaN at (1, 2) is the maximum of both windows on the right
    assert values[0, 0, :, 0].tolist() == [7.0, 9.0]
    assert math.isnan(values[0, 0, 0, 1].item()) and math.isnan(values[0, 0, 1, 1].item())
    assert indices.tolist() == [[[[3, 5], [7, 5]]]]
    out, where = opcore.empty(0), opcore.empty(0, dtype=opcore.int64)
    opcore._C._nn.max_pool2d_with_indices(x, [2, 2], [1, 1], [0, 0], [1, 1], False, out=(out, where))
    assert _equal(where, indices) and out.shape == (1, 1, 2, 2)
    grad = opcore.empty(0)
    opcore._C._nn.max_pool2d_with_indices_backward(opcore.ones(1, 1, 2, 2), x, [2, 2], [1, 1], [0, 0], [1, 1], False,
                                                  indices, grad_input=grad)
    assert grad.tolist() == [[[[0.0, 0.0, 0.0], [1.0, 0.0, 2.0], [0.0, 1.0, 0.0]]]]


# --- unfold and fold (im2col, col2im) -----------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"dilation": 2, "padding": 1, "stride": (2, 1)}])
def test_unfold_and_fold_and_their_gradients_match_torch(kwargs):
    x, tx = _pair((2, 3, 7, 6), np.float64, requires_grad=True)
    cols, tcols = F.unfold(x, (3, 2), **kwargs), TF.unfold(tx, (3, 2), **kwargs)
    assert np.allclose(cols.detach().numpy(), tcols.detach().numpy())
    image, timage = F.fold(cols, (7, 6), (3, 2), **kwargs), TF.fold(tcols, (7, 6), (3, 2), **kwargs)
    assert np.allclose(image.detach().numpy(), timage.detach().numpy())
    g, tg = _pair(tuple(timage.shape), np.float64, seed=1)
    image.backward(g)
    timage.backward(tg)
    assert np.allclose(x.grad.numpy(), tx.grad.numpy())


def test_fold_sums_overlapping_blocks_and_unfold_is_its_adjoint():
    ones = opcore.ones(1, 1, 3, 3, dtype=opcore.float64)
    counts = F.fold(F.unfold(ones, 2), (3, 3), 2)  # how many 2x2 blocks cover each pixel
    assert counts.reshape(-1).tolist() == [1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0]
    x, y = opcore.randn(2, 2, 5, 4, dtype=opcore.float64), opcore.randn(2, 8, 9, dtype=opcore.float64)
    left = (F.unfold(x, 2, padding=1, stride=2) * y).sum().item()  # <unfold(x), y> = <x, fold(y)>
    right = (x * F.fold(y, (5, 4), 2, padding=1, stride=2)).sum().item()
    assert math.isclose(left, right, rel_tol=1e-12)


def test_unfold_and_fold_refuse_what_torch_refuses():
    with pytest.raises(NotImplementedError, match=r"Only 3D or 4D input Tensors are supported \(got 2D\)"):
        F.unfold(opcore.ones(3, 3), 2)
    with pytest.raises(NotImplementedError, match=r"Only unbatched \(2D\) or batched \(3D\) input Tensors"):
        F.fold(opcore.ones(1, 4, 4, 1), (3, 3), 2)
    with pytest.raises(RuntimeError, match="stride should be greater than zero"):
        F.unfold(opcore.ones(1, 1, 3, 3), 2, stride=0)
    with pytest.raises(RuntimeError, match=r"expected size of input's dimension 2 to match"):
        F.fold(opcore.ones(1, 4, 5), (3, 3), 2)
# --- average pooling ------------------------------------------------------------------------------


_AVG_POOL_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=(3, 2), stride=(2, 1), padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(2, 3), stride=(3, 2), padding=(1, 1), ceil_mode=True, divisor_override=5),
    dict(kernel_size=4, stride=1, padding=2, count_include_pad=False, divisor_override=3),
]


@needs_torch
@pytest.mark.parametrize("case", _AVG_POOL_CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 5, 8)])
def test_avg_pool2d_and_its_gradient_match_torch(case, shape):
    x, tx = _pair(shape, np.float64, 0, True)
    out, tout = F.avg_pool2d(x, **case), TF.avg_pool2d(tx, **case)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-14)
    g = np.random.default_rng(1).standard_normal(tuple(tout.shape))
    out.backward(opcore.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-14)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_avg_pool2d_reduced_precision_sums_in_float(dtype):
    a = np.random.default_rng(2).standard_normal((2, 4, 9, 9)).astype(np.float32)
    x = opcore.tensor(a).to(getattr(opcore, dtype))
    expected = TF.avg_pool2d(torch.tensor(a).to(getattr(torch, dtype)).float(), 3, 2, 1, True)
    out = F.avg_pool2d(x, 3, 2, 1, True)
    assert out.dtype == getattr(opcore, dtype)
    # one rounding of the float result
    np.testing.assert_array_equal(out.float().numpy(), expected.to(getattr(torch, dtype)).float().numpy())


def test_avg_pool2d_int64_rounds_toward_zero_and_out_forms():
    x = opcore.tensor([[[[-7, 2, 5], [1, -1, 4], [3, 3, 3]]]])
    assert F.avg_pool2d(x, 2, 1).tolist() == [[[[-1, 2], [1, 2]]]]
    out = opcore.empty(0, dtype=opcore.float64)
    opcore._C._nn.avg_pool2d(x.double(), [2, 2], [1, 1], [0, 0], False, True, None, out=out)
    assert out.tolist() == [[[[-1.25, 2.5], [1.5, 2.25]]]]
    grad = opcore.empty(0, dtype=opcore.float64)
    opcore._C._nn.avg_pool2d_backward(opcore.ones(1, 1, 2, 2, dtype=opcore.float64), x.double(), [2, 2], [1, 1], [0, 0], False, True, None,
                                      grad_input=grad)
    assert grad.tolist() == [[[[0.25, 0.5, 0.25], [0.5, 1.0, 0.5], [0.25, 0.5, 0.25]]]]


def test_avg_pool2d_is_twice_differentiable():
    # the gradient of avg_pool2d_backward with respect to grad_output is avg_pool2d itself
    x = opcore.tensor(np.random.default_rng(3).standard_normal((1, 2, 5, 5)), requires_grad=True)
    g = opcore.tensor(np.random.default_rng(4).standard_normal((1, 2, 3, 3)), requires_grad=True)

    def grad_of_pool(g):
        with opcore.enable_grad():  # gradcheck's finite differences run under no_grad
            return opcore.autograd.grad(F.avg_pool2d(x, 3, 2, 1, True, False), x, g, create_graph=True)[0]

    assert opcore.autograd.gradcheck(grad_of_pool, (g,))


@needs_torch
@pytest.mark.parametrize("count_include_pad", [False, True])
def test_avg_pool1d_matches_torch(count_include_pad):
    x, tx = _pair((2, 3, 11), np.float64, 5, True)
    out = F.avg_pool1d(x, 3, 2, 1, True, count_include_pad)
    tout = TF.avg_pool1d(tx, 3, 2, 1, True, count_include_pad)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-14)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-14)
    assert tuple(F.avg_pool1d(x[0], 4).shape) == tuple(TF.avg_pool1d(tx[0], 4).shape)


@needs_torch
@pytest.mark.parametrize("output_size", [(3, 4), 1, (1, 1), (None, 2), (2, None), 5, (10, 13), (7, 6)])
@pytest.mark.parametrize("shape", [(2, 3, 7, 6), (3, 5, 8)])
def test_adaptive_avg_pool2d_and_its_gradient_match_torch(output_size, shape):
    x, tx = _pair(shape, np.float64, 6, True)
    out, tout = F.adaptive_avg_pool2d(x, output_size), TF.adaptive_avg_pool2d(tx, output_size)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-14)
    g = np.random.default_rng(7).standard_normal(tuple(tout.shape))
    out.backward(opcore.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-14)


@needs_torch
@pytest.mark.parametrize("output_size", [4, 1, 13])
def test_adaptive_avg_pool1d_matches_torch(output_size):
    x, tx = _pair((2, 3, 9), np.float64, 8, True)
    out, tout = F.adaptive_avg_pool1d(x, output_size), TF.adaptive_avg_pool1d(tx, output_size)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-14)
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_adaptive_avg_pool_arguments_as_torch():
    x = opcore.zeros(2, 3, 4)
    with pytest.raises(ValueError, match="Input dimension should be at least 4"):
        F.adaptive_avg_pool2d(opcore.zeros(2, 3, 4), (None, None, None))
    # a 1 x 1 output is the mean over the last two dimensions, for any rank (PyTorch's shortcut)
    assert tuple(F.adaptive_avg_pool2d(opcore.ones(4, 5), 1).shape) == (1, 1)
    assert tuple(F.adaptive_avg_pool2d(x, (None, 2)).shape) == (2, 3, 2)
    out = opcore.empty(0)
    opcore._adaptive_avg_pool2d(opcore.ones(1, 2, 4, 4), [2, 2], out=out)
    assert out.tolist() == [[[[1.0, 1.0], [1.0, 1.0]], [[1.0, 1.0], [1.0, 1.0]]]]


@needs_torch
def test_average_pooling_signatures_are_torch_functionals():
    import inspect
    for name in ("adaptive_avg_pool2d", "adaptive_avg_pool1d", "avg_pool2d", "avg_pool1d"):
        ours = list(inspect.signature(getattr(F, name)).parameters)
        try:
            theirs = list(inspect.signature(getattr(TF, name)).parameters)
        except ValueError:  # a builtin in torch 1.13: its documented signature
            theirs = {"avg_pool2d": ["input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                                     "divisor_override"],
                      "avg_pool1d": ["input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"],
                      "adaptive_avg_pool1d": ["input", "output_size"]}[name]
        assert ours == theirs, name


def test_average_pooling_on_meta_tensors():
    x = opcore.empty(2, 3, 7, 6, device="meta")
    assert tuple(F.avg_pool2d(x, 3, 2, 1, True).shape) == (2, 3, 4, 4)
    assert tuple(opcore._C._nn.avg_pool2d_backward(opcore.empty(2, 3, 4, 4, device="meta"), x, [3, 3], [2, 2],
                                                   [1, 1], True, True, None).shape) == (2, 3, 7, 6)
    assert tuple(opcore._adaptive_avg_pool2d(x, [3, 4]).shape) == (2, 3, 3, 4)
    assert tuple(opcore._adaptive_avg_pool2d_backward(opcore.empty(2, 3, 3, 4, device="meta"), x).shape) == (2, 3, 7, 6)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool2d(x, 2, divisor_override=0)
# --- reflection and replication padding -----------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape,pad", [((2, 3, 6), (2, 3)), ((3, 6), (-2, 4)), ((2, 3, 5, 6), (1, 2, 3, 0)),
                                       ((3, 5, 6), (0, -1, 2, 4))])
def test_pad_reflect_and_replicate_and_their_gradients_match_torch(mode, shape, pad):
    x, tx = _pair(shape, np.float64, requires_grad=True)
    out, tout = F.pad(x, pad, mode), TF.pad(tx, pad, mode)
    assert _equal(out, tout)
    g = np.random.default_rng(1).standard_normal(tuple(out.shape))
    out.backward(opcore.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("name", ["reflection_pad2d", "replication_pad2d"])
def test_pad_backward_twice_differentiable_and_out_forms(name):
    """The backward's own gradient is the padding (both are linear), and the out= forms write
    their tensors."""
    x, tx = _pair((2, 2, 4, 5), np.float64, requires_grad=True)
    pads = [1, 3, 2, 0]
    out = getattr(F, name)(x, pads)
    (gx,) = opcore.autograd.grad((out * out).sum(), x, create_graph=True)
    tout = getattr(torch.ops.aten, name)(tx, pads)
    (tgx,) = torch.autograd.grad((tout * tout).sum(), tx, create_graph=True)
    np.testing.assert_allclose(gx.detach().numpy(), tgx.detach().numpy(), rtol=1e-12)
    (ggx,) = opcore.autograd.grad(gx.sum(), x)
    (tggx,) = torch.autograd.grad(tgx.sum(), tx)
    np.testing.assert_allclose(ggx.numpy(), tggx.numpy(), rtol=1e-12)
    o = opcore.empty(0, dtype=opcore.float64)
    getattr(opcore._C._nn, name)(x.detach(), pads, out=o)
    assert _equal(o, out)
    gi = opcore.empty(0, dtype=opcore.float64)
    getattr(opcore._C._nn, name + "_backward")(opcore.ones(tuple(out.shape), dtype=opcore.float64), x.detach(), pads,
                                               grad_input=gi)
    tgi = getattr(torch.ops.aten, name + "_backward")(torch.ones(tuple(out.shape), dtype=torch.float64), tx.detach(), pads)
    np.testing.assert_array_equal(gi.numpy(), tgi.numpy())


def test_pad_backward_is_the_same_on_one_and_two_threads():
    g = opcore.tensor(np.random.default_rng(2).standard_normal((8, 16, 40, 40)).astype(np.float32))
    x = opcore.zeros(8, 16, 33, 35)
    results = []
    for n in (1, 2):
        before = opcore.get_num_threads()
        opcore.set_num_threads(n)
        try:
            results.append(opcore._C._nn.reflection_pad2d_backward(g, x, [2, 3, 4, 3]).numpy())
        finally:
            opcore.set_num_threads(before)
    np.testing.assert_array_equal(results[0], results[1])


def test_pad_bfloat16_gradient_is_summed_in_float():
    # 259 ones added into one element: a bfloat16 running sum stops at 256, 259 rounds to 260
    g = opcore.ones(1, 1, 259, dtype=opcore.bfloat16)
    grad = opcore._C._nn.replication_pad1d_backward(g, opcore.zeros(1, 1, 1, dtype=opcore.bfloat16), [129, 129])
    assert grad.to(opcore.float32).item() == 260.0


def test_pad_errors():
    x = opcore.zeros(2, 3, 4)
    with pytest.raises(RuntimeError, match="Padding size should be less than the corresponding input dimension"):
        F.pad(x, [4, 0], "reflect")
    with pytest.raises(NotImplementedError, match="Only 2D, 3D, 4D, 5D padding with non-constant padding"):
        F.pad(opcore.zeros(2, 2, 2), [1, 1, 1, 1, 1, 1], "replicate")  # 3 padded dimensions need 4 or 5
    with pytest.raises(RuntimeError, match="doesn't take in value argument"):
        F.pad(x, [1, 1], "reflect", 1.0)
    with pytest.raises(NotImplementedError, match="Long"):
        F.pad(opcore.zeros(2, 3, 4, dtype=opcore.int64), [1, 1], "replicate")


# --- upsampling -------------------------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("kwargs", [{"size": (7, 9)}, {"scale_factor": 2}, {"scale_factor": (1.7, 0.6)},
                                    {"scale_factor": 1.3, "recompute_scale_factor": True},
                                    {"size": 5, "mode": "bilinear"},
                                    {"size": (3, 11), "mode": "bilinear", "align_corners": True},
                                    {"scale_factor": 2.3, "mode": "bilinear"},
                                    {"scale_factor": (0.7, 1.9), "mode": "bilinear", "recompute_scale_factor": True}])
def test_interpolate_and_its_gradient_match_torch(kwargs):
    x, tx = _pair((2, 3, 5, 6), np.float64, requires_grad=True)
    out, tout = F.interpolate(x, **kwargs), TF.interpolate(tx, **kwargs)
    assert tuple(out.shape) == tuple(tout.shape)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(1).standard_normal(tuple(out.shape))
    out.backward(opcore.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_interpolate_float32_matches_torch_closely(mode):
    # the source indices and weights are PyTorch's, computed in the same precision (the sums'
    # order may differ: a few ulps)
    x, tx = _pair((2, 3, 13, 17), np.float32)
    for size in ((29, 31), (5, 4), (26, 34)):
        out, tout = F.interpolate(x, size=size, mode=mode), TF.interpolate(tx, size=size, mode=mode)
        np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-5, atol=1e-5)


def test_upsample_backward_is_the_same_on_one_and_two_threads():
    g = opcore.tensor(np.random.default_rng(2).standard_normal((8, 16, 45, 37)).astype(np.float32))
    results = []
    before = opcore.get_num_threads()
    try:
        for n in (1, 2):
            opcore.set_num_threads(n)
            results.append(opcore._C._nn.upsample_bilinear2d_backward(g, [45, 37], [8, 16, 20, 15], False).numpy())
    finally:
        opcore.set_num_threads(before)
    np.testing.assert_array_equal(results[0], results[1])


def test_upsample_aliases_and_refused_modes():
    x = opcore.ones(1, 1, 2, 2)
    with pytest.warns(UserWarning, match="upsample_nearest is deprecated"):
        assert F.upsample_nearest(x, scale_factor=2).shape == (1, 1, 4, 4)
    with pytest.warns(UserWarning, match="upsample_bilinear is deprecated"):
        assert F.upsample_bilinear(x, size=3).tolist() == [[[[1.0] * 3] * 3]]
    with pytest.raises(NotImplementedError, match="mode \"nearest\" of a 3D input"):
        F.interpolate(opcore.ones(1, 1, 4), size=3)
    with pytest.raises(NotImplementedError, match="antialias"):
        F.interpolate(x, size=3, mode="bilinear", antialias=True)
    with pytest.raises(ValueError, match="recompute_scale_factor is not meaningful with an explicit size"):
        F.interpolate(x, size=3, recompute_scale_factor=True)


# --- grid sampling ----------------------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_and_its_gradients_match_torch(mode, padding_mode, align_corners):
    rng = np.random.default_rng(3)
    x, grid = rng.standard_normal((2, 3, 5, 6)), rng.uniform(-1.4, 1.4, (2, 4, 7, 2))
    go = rng.standard_normal((2, 3, 4, 7))
    tx, tg = torch.tensor(x, requires_grad=True), torch.tensor(grid, requires_grad=True)
    expected = torch.nn.functional.grid_sample(tx, tg, mode, padding_mode, align_corners)
    expected.backward(torch.tensor(go))
    ox, og = opcore.tensor(x).requires_grad_(), opcore.tensor(grid).requires_grad_()
    result = F.grid_sample(ox, og, mode, padding_mode, align_corners)
    result.backward(opcore.tensor(go))
    np.testing.assert_allclose(result.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(og.grad.numpy(), tg.grad.numpy(), rtol=1e-12, atol=1e-12)
    # the backward operator itself, without the input's gradient (output_mask [False, True])
    modes = {"bilinear": 0, "nearest": 1, "bicubic": 2}
    paddings = {"zeros": 0, "border": 1, "reflection": 2}
    grad_input, grad_grid = opcore.ops.aten.grid_sampler_2d_backward(opcore.tensor(go), opcore.tensor(x), opcore.tensor(grid),
                                                            modes[mode], paddings[padding_mode], align_corners,
                                                            [False, True])
    assert grad_input is None
    np.testing.assert_allclose(grad_grid.numpy(), tg.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_grid_sample_backward_is_deterministic_across_threads():
    rng = np.random.default_rng(4)
    x, grid = opcore.tensor(rng.standard_normal((4, 3, 5, 6))), opcore.tensor(rng.uniform(-1, 1, (4, 30, 30, 2)))
    go = opcore.tensor(rng.standard_normal((4, 3, 30, 30)))
    results = []
    for n in (1, 2):
        before = opcore.get_num_threads()
        opcore.set_num_threads(n)
        try:
            results.append([t.numpy() for t in opcore.ops.aten.grid_sampler_2d_backward(go, x, grid, 0, 0, False, [True, True])])
        finally:
            opcore.set_num_threads(before)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_grid_sample_arguments():
    x, grid = opcore.zeros(1, 1, 2, 2), opcore.zeros(1, 1, 1, 2)
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior has changed"):
        F.grid_sample(x, grid)
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'area'"):
        F.grid_sample(x, grid, mode="area", align_corners=False)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or 'reflection'"):
        F.grid_sample(x, grid, padding_mode="circular", align_corners=False)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(opcore.zeros(1, 1, 2, 2, 2), opcore.zeros(1, 1, 1, 1, 3), mode="bicubic", align_corners=False)
    with pytest.raises(NotImplementedError, match="needs grid_sampler_3d"):
        F.grid_sample(opcore.zeros(1, 1, 2, 2, 2), opcore.zeros(1, 1, 1, 1, 3), align_corners=False)
    with pytest.raises(RuntimeError, match="expected input and grid to have same dtype"):
        F.grid_sample(x, grid.double(), align_corners=False)



@needs_torch
def test_grid_sample_points_that_are_not_finite():
    # NaN reads 0 in every mode (as PyTorch's CUDA kernel; its CPU kernel gives NaN or an edge
    # element); an infinite point reads 0 outside the input (zeros padding) and is clamped to the
    # edge by border padding, as both of PyTorch's kernels do.
    x = np.random.default_rng(5).standard_normal((1, 2, 3, 4)).astype(np.float32)
    nan, inf = float("nan"), float("inf")
    grid = np.array([[[[nan, 0.2], [0.1, nan]]]], dtype=np.float32)
    for mode in ("bilinear", "nearest", "bicubic"):
        for padding in ("zeros", "border", "reflection"):
            out = F.grid_sample(opcore.tensor(x), opcore.tensor(grid), mode, padding, False).numpy()
            assert (out == 0).all(), (mode, padding, out)
    far = np.array([[[[inf, 0.2], [-inf, -0.4], [0.3, 1e30]]]], dtype=np.float32)
    assert (F.grid_sample(opcore.tensor(x), opcore.tensor(far), align_corners=False).numpy() == 0).all()
    border = F.grid_sample(opcore.tensor(x), opcore.tensor(far), padding_mode="border", align_corners=False).numpy()
    expected = torch.nn.functional.grid_sample(torch.tensor(x), torch.tensor(far), padding_mode="border",
                                               align_corners=False).numpy()
    np.testing.assert_allclose(border, expected, rtol=1e-6, atol=1e-6)

# --- 3-d pooling (issue #34) ----------------------------------------------------------------------


_AVG_POOL3D_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=(2, 3, 2), stride=(1, 2, 1), padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(3, 2, 3), stride=(2, 3, 2), padding=(1, 1, 1), ceil_mode=True, divisor_override=5),
    dict(kernel_size=(1, 4, 4), stride=1, padding=(0, 2, 2), count_include_pad=False, divisor_override=3),
]


@needs_torch
@pytest.mark.parametrize("case", _AVG_POOL3D_CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("shape", [(2, 3, 5, 7, 6), (3, 4, 5, 8)])
def test_avg_pool3d_and_its_gradient_match_torch(case, shape):
    x, tx = _pair(shape, np.float64, 10, True)
    out, tout = F.avg_pool3d(x, **case), TF.avg_pool3d(tx, **case)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-14)
    g = np.random.default_rng(11).standard_normal(tuple(tout.shape))
    out.backward(opcore.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-14)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_avg_pool3d_reduced_precision_sums_in_float(dtype):
    # torch 1.13's CPU avg_pool3d has float32 (summed in float, as ours); the 16-bit ones are
    # PyTorch 2's: one rounding of the float result
    a = np.random.default_rng(12).standard_normal((2, 3, 7, 9, 9)).astype(np.float32)
    x = opcore.tensor(a).to(getattr(opcore, dtype))
    expected = TF.avg_pool3d(torch.tensor(a).to(getattr(torch, dtype)).float(), 3, 2, 1, True)
    out = F.avg_pool3d(x, 3, 2, 1, True)
    assert out.dtype == getattr(opcore, dtype)
    np.testing.assert_array_equal(out.float().numpy(), expected.to(getattr(torch, dtype)).float().numpy())


def test_avg_pool3d_int64_rounds_toward_zero_and_out_forms():
    x = opcore.tensor([[[[[-7, 2], [1, -1]], [[3, 3], [0, 4]]]]])
    assert F.avg_pool3d(x, 2).tolist() == [[[[[0]]]]]
    assert F.avg_pool3d(x, (2, 1, 1)).tolist() == [[[[[-2, 2], [0, 1]]]]]
    out = opcore.empty(0, dtype=opcore.float64)
    opcore._C._nn.avg_pool3d(x.double(), [2, 1, 1], [1, 1, 1], [0, 0, 0], False, True, None, out=out)
    assert out.tolist() == [[[[[-2.0, 2.5], [0.5, 1.5]]]]]
    grad = opcore.empty(0, dtype=opcore.float64)
    opcore._C._nn.avg_pool3d_backward(opcore.ones(1, 1, 1, 1, 1, dtype=opcore.float64), x.double(), [2, 2, 2], [],
                                      [0, 0, 0], False, True, None, grad_input=grad)
    assert grad.tolist() == [[[[[0.125] * 2] * 2] * 2]]


def test_avg_pool3d_is_twice_differentiable():
    x = opcore.tensor(np.random.default_rng(13).standard_normal((1, 2, 4, 5, 5)), requires_grad=True)
    g = opcore.tensor(np.random.default_rng(14).standard_normal((1, 2, 3, 3, 3)), requires_grad=True)

    def grad_of_pool(g):
        with opcore.enable_grad():  # gradcheck's finite differences run under no_grad
            return opcore.autograd.grad(F.avg_pool3d(x, 3, 2, 1, True, False), x, g, create_graph=True)[0]

    assert opcore.autograd.gradcheck(grad_of_pool, (g,))


@needs_torch
@pytest.mark.parametrize("output_size", [(3, 3, 4), 1, (1, 1, 1), (None, 2, None), (2, None, 3), 5, (6, 10, 13),
                                         (5, 7, 6)])
@pytest.mark.parametrize("shape", [(2, 3, 5, 7, 6), (3, 4, 5, 8)])
def test_adaptive_avg_pool3d_and_its_gradient_match_torch(output_size, shape):
    x, tx = _pair(shape, np.float64, 15, True)
    out, tout = F.adaptive_avg_pool3d(x, output_size), TF.adaptive_avg_pool3d(tx, output_size)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12, atol=1e-14)
    g = np.random.default_rng(16).standard_normal(tuple(tout.shape))
    out.backward(opcore.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-14)


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_adaptive_avg_pool3d_reduced_precision_sums_in_float(dtype):
    # float32 as torch's bit for bit (the sum divided by each extent in turn); the 16-bit ones
    # one rounding of the float result
    a = np.random.default_rng(17).standard_normal((2, 3, 5, 9, 7)).astype(np.float32)
    out = F.adaptive_avg_pool3d(opcore.tensor(a).to(getattr(opcore, dtype)), (2, 4, 3))
    expected = TF.adaptive_avg_pool3d(torch.tensor(a).to(getattr(torch, dtype)).float(), (2, 4, 3))
    assert out.dtype == getattr(opcore, dtype)
    np.testing.assert_array_equal(out.float().numpy(), expected.to(getattr(torch, dtype)).float().numpy())


@needs_torch
@pytest.mark.parametrize("output_size", [(5, 4), (3, 7), (6, 6)])
def test_adaptive_avg_pool2d_float32_is_torchs_bit_for_bit(output_size):
    # the shared kernel divides by each extent in turn, as torch's (before: by their product)
    a = np.random.default_rng(20).standard_normal((2, 3, 13, 11)).astype(np.float32)
    out = F.adaptive_avg_pool2d(opcore.tensor(a), output_size)
    np.testing.assert_array_equal(out.numpy(), TF.adaptive_avg_pool2d(torch.tensor(a), output_size).numpy())


def test_adaptive_avg_pool3d_out_forms_and_arguments():
    x = opcore.arange(2 * 4 * 4 * 4, dtype=opcore.float64).reshape(2, 4, 4, 4)
    out = opcore.empty(0, dtype=opcore.float64)
    assert opcore._C._nn.adaptive_avg_pool3d(x, [1, 1, 1], out=out) is out
    assert out.tolist() == [[[[31.5]]], [[[95.5]]]]
    grad = opcore.empty(0, dtype=opcore.float64)
    opcore._C._nn.adaptive_avg_pool3d_backward(opcore.ones(2, 1, 1, 1, dtype=opcore.float64), x, grad_input=grad)
    assert tuple(grad.shape) == (2, 4, 4, 4) and set(grad.flatten().tolist()) == {1 / 64}
    with pytest.raises(ValueError, match="Input dimension should be at least 4"):
        F.adaptive_avg_pool3d(opcore.zeros(2, 3, 4), (None, None, None))
    with pytest.raises(RuntimeError, match="adaptive_avg_pool3d: output_size must be 3"):
        F.adaptive_avg_pool3d(x, (2, 2))
    assert tuple(F.adaptive_avg_pool3d(x, (None, 2, None)).shape) == (2, 4, 2, 4)


_MAX_POOL3D_CASES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=(2, 3, 2), stride=(1, 2, 1), padding=1, dilation=(2, 1, 2), ceil_mode=True),
    dict(kernel_size=(1, 2, 3), stride=(1, 1, 2), padding=(0, 1, 1), dilation=2),
]


@needs_torch
@pytest.mark.parametrize("case", _MAX_POOL3D_CASES, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
@pytest.mark.parametrize("shape", [(2, 3, 5, 7, 6), (3, 4, 5, 8)])
def test_max_pool3d_indices_and_gradient_match_torch(case, shape):
    x, tx = _pair(shape, np.float64, 18, True)
    (out, where), (tout, twhere) = (F.max_pool3d(x, **case, return_indices=True),
                                    TF.max_pool3d(tx, **case, return_indices=True))
    assert _equal(out, tout) and where.tolist() == twhere.tolist()
    g = np.random.default_rng(19).standard_normal(tuple(tout.shape))
    out.backward(opcore.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-14)
    assert _equal(F.max_pool3d(x, **case), tout)


def test_max_pool3d_nan_wins_and_out_forms():
    x = opcore.tensor([[[[[1.0, 5.0], [7.0, 3.0]], [[0.0, math.nan], [9.0, 4.0]]]]])
    values, indices = F.max_pool3d(x, (1, 2, 2), return_indices=True)
    assert values[0, 0, 0].tolist() == [[7.0]] and math.isnan(values[0, 0, 1, 0, 0].item())
    assert indices.tolist() == [[[[[2]], [[5]]]]]
    out, where = opcore.empty(0), opcore.empty(0, dtype=opcore.int64)
    opcore._C._nn.max_pool3d_with_indices(x, [2, 2, 2], [], [0, 0, 0], [1, 1, 1], False, out=(out, where))
    assert where.tolist() == [[[[[5]]]]] and out.shape == (1, 1, 1, 1, 1)
    grad = opcore.empty(0)
    opcore._C._nn.max_pool3d_with_indices_backward(opcore.ones(1, 1, 2, 1, 1), x, [1, 2, 2], [], [0, 0, 0],
                                                  [1, 1, 1], False, indices, grad_input=grad)
    assert grad.flatten().tolist() == [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0]


@needs_torch
def test_3d_pooling_signatures_are_torch_functionals():
    import inspect
    theirs = {"avg_pool3d": ["input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                             "divisor_override"],
              "adaptive_avg_pool3d": list(inspect.signature(TF.adaptive_avg_pool3d).parameters),
              # torch's is a boolean_dispatch of max_pool3d_with_indices's arguments
              "max_pool3d": list(inspect.signature(TF.max_pool3d_with_indices).parameters)}
    for name in theirs:
        assert list(inspect.signature(getattr(F, name)).parameters) == theirs[name], name


def test_3d_pooling_on_meta_tensors():
    x = opcore.empty(2, 3, 5, 7, 6, device="meta")
    assert tuple(F.avg_pool3d(x, 3, 2, 1, True).shape) == (2, 3, 3, 4, 4)
    assert tuple(opcore._C._nn.avg_pool3d_backward(opcore.empty(2, 3, 3, 4, 4, device="meta"), x, [3, 3, 3],
                                                   [2, 2, 2], [1, 1, 1], True, True, None).shape) == (2, 3, 5, 7, 6)
    assert tuple(opcore._adaptive_avg_pool3d(x, [3, 4, 2]).shape) == (2, 3, 3, 4, 2)
    assert tuple(opcore._C._nn._adaptive_avg_pool3d_backward(opcore.empty(2, 3, 3, 4, 2, device="meta"),
                                                             x).shape) == (2, 3, 5, 7, 6)
    out, grad = opcore.empty(0, device="meta"), opcore.empty(0, device="meta")
    assert opcore._C._nn.adaptive_avg_pool3d(x, [3, 4, 2], out=out) is out and tuple(out.shape) == (2, 3, 3, 4, 2)
    opcore._C._nn.adaptive_avg_pool3d_backward(out, x, grad_input=grad)
    assert tuple(grad.shape) == (2, 3, 5, 7, 6)
    values, indices = F.max_pool3d(x, 3, 2, 1, 1, True, return_indices=True)
    assert tuple(values.shape) == tuple(indices.shape) == (2, 3, 3, 4, 4) and indices.dtype == opcore.int64
    assert tuple(opcore._C._nn.max_pool3d_with_indices_backward(values, x, [3, 3, 3], [2, 2, 2], [1, 1, 1],
                                                                [1, 1, 1], True, indices).shape) == (2, 3, 5, 7, 6)
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool3d(x, 2, divisor_override=0)
    with pytest.raises(RuntimeError, match=r"input image \(T: 5 H: 7 W: 6\) smaller than kernel size"):
        F.avg_pool3d(x, 6)


# --- the stubs (python/opcore/nn/functional.pyi) ----------------------------------------------------


def test_the_stubs_declare_every_function_with_its_parameters_and_defaults():
    """Each Python function of opcore.nn.functional has one stub with its parameters, kinds and
    defaults; the stub's imports name every other operator the module re-exports (the generated
    ones of opcore._C._nn it does not override, and the convolutions it finds in opcore)."""
    import ast
    import inspect
    from pathlib import Path

    tree = ast.parse((Path(F.__file__).parent / "functional.pyi").read_text(encoding="utf-8"))
    stubs = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    functions = {name: f for name, f in vars(F).items()
                 if inspect.isfunction(f) and f.__module__ == F.__name__ and not name.startswith("_")}
    assert sorted(stubs) == sorted(functions)
    for name, f in functions.items():
        args = stubs[name].args
        declared = [(a.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD) for a in args.args]
        declared += [(a.arg, inspect.Parameter.KEYWORD_ONLY) for a in args.kwonlyargs]
        params = inspect.signature(f).parameters.values()
        assert declared == [(p.name, p.kind) for p in params], name
        defaults = [ast.literal_eval(d) for d in args.defaults] + [ast.literal_eval(d) for d in args.kw_defaults if d]
        assert defaults == [p.default for p in params if p.default is not inspect.Parameter.empty], name
    imported = {alias.name for node in tree.body if isinstance(node, ast.ImportFrom) and node.module != "typing"
                for alias in node.names} - {"Tensor", "dtype"}
    generated = {name for name in dir(opcore._C._nn) if not name.startswith("__")}
    assert imported == (generated - set(functions)) | set(F._FROM_OPCORE)
