"""opcore.nn.functional: the operators declared with `python_module: nn` (bound into
opcore._C._nn, re-exported by python/opcore/nn/functional.py)."""
import inspect
import warnings

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


def test_python_module_functions_live_in_their_submodule():
    assert not hasattr(opcore, "mse_loss")  # not a top-level function, as in torch
    from opcore._C._nn import mse_loss  # importable by name too
    assert mse_loss is opcore._C._nn.mse_loss
    assert "mse_loss(input: Tensor, target: Tensor, reduction: int = 1" in mse_loss.__doc__
    # F.mse_loss is torch's Python function (reduction strings) over the operator
    assert F.mse_loss is not mse_loss and "reduction" in inspect.signature(F.mse_loss).parameters


def test_mse_loss_values_and_reductions():
    a = opcore.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = opcore.tensor([[0.0, 4.0], [0.0, 4.0]])
    assert F.mse_loss(a, b).item() == pytest.approx((1 + 4 + 9 + 0) / 4)
    assert F.mse_loss(a, b, reduction="sum").item() == 14.0
    assert F.mse_loss(a, b, reduction="none").tolist() == [[1.0, 4.0], [9.0, 0.0]]
    assert opcore._C._nn.mse_loss(a, b, 2).item() == 14.0  # the operator takes the int
    with pytest.raises(RuntimeError, match=r"mse_loss: reduction must be 0 \(none\), 1 \(mean\) or 2 \(sum\), got 7"):
        opcore._C._nn.mse_loss(a, b, 7)
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        F.mse_loss(a, b, reduction="avg")
    with pytest.raises(TypeError, match=r"mse_loss\(\): argument 'target' must be Tensor, not str"):
        opcore._C._nn.mse_loss(a, "b")


def test_mse_loss_gradient():
    x = opcore.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=opcore.float64, requires_grad=True)
    y = opcore.tensor([[1.0, 1.0], [1.0, 1.0]], dtype=opcore.float64)
    F.mse_loss(x, y).backward()
    assert x.grad.reshape(-1).tolist() == pytest.approx([2 * (0.5 - 1) / 4, 2 * (-2.0) / 4, 2 * 1.0 / 4, 2 * (-0.75) / 4])
    assert opcore.autograd.gradcheck(lambda t: F.mse_loss(t, y, reduction="sum"), (x,))


def test_every_python_module_has_its_package_module():
    import importlib
    for name in ("nn.functional", "fft", "linalg", "special", "sparse", "nested"):
        module = importlib.import_module(f"opcore.{name}")
        bound = getattr(opcore._C, "_" + name.split(".")[0], None)
        public = {n for n in dir(bound) if not n.startswith("_")} if bound else set()
        assert public <= set(dir(module)), name


def test_nll_loss_reduction_strings_legacy_arguments_and_weight_gradient():
    x = opcore.tensor([[-0.5, -1.0, -2.0], [-3.0, -0.25, -1.5]], requires_grad=True)
    t = opcore.tensor([2, 1])
    assert F.nll_loss(x, t).item() == pytest.approx((2.0 + 0.25) / 2)
    assert F.nll_loss(x, t, reduction="sum").item() == pytest.approx(2.25)
    assert F.nll_loss(x, t, reduction="none").tolist() == pytest.approx([2.0, 0.25])
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert F.nll_loss(x, t, size_average=False).item() == pytest.approx(2.25)
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        F.nll_loss(x, t, reduction="avg")
    F.nll_loss(x, t).backward()
    assert x.grad.tolist() == [[0.0, 0.0, -0.5], [0.0, -0.5, 0.0]]
    w = opcore.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="the class weights take no gradient"):
        F.nll_loss(x, t, weight=w).backward()


def test_nll_loss_out_forms_match_the_functional_ones():
    aten = opcore.ops.aten
    x = opcore.tensor([[-0.5, -1.0, -2.0], [-3.0, -0.25, -1.5]])
    t = opcore.tensor([2, 1])
    w = opcore.tensor([0.5, 1.0, 2.0])
    loss, total = aten.nll_loss_forward(x, t, w, 1, -100)
    out, out_total = opcore.empty(5), opcore.empty(2)  # resized to 0-dim, as PyTorch's
    result = aten.nll_loss_forward.output(x, t, w, 1, -100, output=out, total_weight=out_total)
    assert result[0] is out and result[1] is out_total
    assert out.shape == () and out.item() == pytest.approx(loss.item())
    assert out_total.item() == total.item() == 3.0
    with pytest.raises(RuntimeError):  # out= must have the input's dtype exactly
        aten.nll_loss_forward.output(x, t, w, 1, -100, output=opcore.empty(0, dtype=opcore.float64),
                                     total_weight=opcore.empty(0))
    g = opcore.tensor(1.0)
    grad = aten.nll_loss_backward(g, x, t, w, 1, -100, total)
    grad_input = opcore.full((2, 3), 7.0)
    assert aten.nll_loss_backward.grad_input(g, x, t, w, 1, -100, total, grad_input=grad_input) is grad_input
    assert grad_input.tolist() == grad.tolist()
    assert grad.reshape(-1).tolist() == pytest.approx([0.0, 0.0, -2.0 / 3.0, 0.0, -1.0 / 3.0, 0.0])



def test_nll_loss_without_classes_checks_every_target_and_gives_zero_for_ignored_ones():
    # As torch: the loss of an ignored target is 0 (it was left unwritten), and a target is out
    # of bounds of no classes.
    x = opcore.zeros(3, 0)
    assert F.nll_loss(x, opcore.tensor([-100, -100, -100]), reduction="none").tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(IndexError, match="Target 0 is out of bounds"):
        F.nll_loss(x, opcore.tensor([-100, 0, -100]), reduction="none")


# ---- issue 34: the softmax family -------------------------------------------------------------------

def _torch(t):
    return torch.tensor(t.tolist(), dtype=torch.float64)


def _flat(t):
    return t.reshape(-1).tolist()


@pytest.mark.skipif(torch is None, reason="needs torch 1.13")
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_functions_match_torch(name):
    x = opcore.randn(3, 4, 5, dtype=opcore.float64)
    ours, theirs = getattr(F, name), getattr(TF, name)
    for dim in (0, 1, 2, -1):
        assert _flat(ours(x, dim)) == pytest.approx(_flat(theirs(_torch(x), dim)), rel=1e-12, abs=1e-14)
        assert ours(x, dim=dim, dtype=opcore.float32).dtype == opcore.float32
    # dtype= converts first: an int64 input with a floating dtype works, without one it is refused
    i = opcore.arange(6).reshape(2, 3)
    assert _flat(ours(i, 1, dtype=opcore.float64)) == pytest.approx(_flat(theirs(_torch(i), 1)))
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        ours(i, 1)


@pytest.mark.skipif(torch is None, reason="needs torch 1.13")
@pytest.mark.parametrize("shape, implicit", [((), 0), ((4,), 0), ((2, 3), 1), ((2, 3, 4), 0), ((2, 3, 4, 5), 1)])
def test_softmax_without_dim_warns_and_picks_torchs_dimension(shape, implicit):
    x = opcore.randn(list(shape), dtype=opcore.float64)
    for name in ("softmax", "log_softmax", "softmin"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = getattr(F, name)(x)
        assert len(caught) == 1 and f"Implicit dimension choice for {name} has been deprecated" in str(caught[0].message)
        assert caught[0].filename == __file__  # _stacklevel=3: the warning points at the caller
        assert r.tolist() == getattr(F, name)(x, implicit).tolist()
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            expected = getattr(TF, name)(_torch(x))
        assert _flat(r) == pytest.approx(_flat(expected), rel=1e-12, abs=1e-14)


def test_softmax_methods_and_gradients():
    x = opcore.tensor([[1.0, 2.0, 3.0], [0.5, 0.5, -1.0]], dtype=opcore.float64, requires_grad=True)
    y = x.softmax(-1)
    assert y.sum(1).tolist() == pytest.approx([1.0, 1.0])
    assert x.log_softmax(0, dtype=opcore.float32).dtype == opcore.float32
    assert opcore.softmax(x, 1).tolist() == y.tolist()
    assert opcore.autograd.gradcheck(lambda t: F.softmax(t, 0), (x,))
    assert opcore.autograd.gradcheck(lambda t: F.log_softmax(t, 1), (x,))
    # the gradient of softmax's sum is zero; of a weighted sum y * (w - sum(w * y))
    w = opcore.tensor([1.0, -1.0, 2.0], dtype=opcore.float64)
    (F.softmax(x, 1) * w).sum().backward()
    yv = y.detach()
    expected = yv * (w - (yv * w).sum(1, keepdim=True))
    assert _flat(x.grad) == pytest.approx(_flat(expected))


def test_softmax_errors():
    x = opcore.ones(2, 3)
    with pytest.raises(IndexError, match=r"(?i)dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        F.softmax(x, 2)
    with pytest.raises(IndexError):
        x.log_softmax(-3)
    with pytest.raises(RuntimeError, match="Half and BFloat16"):
        opcore._softmax(x, 1, True)
    assert opcore._softmax(x.half(), 1, True).dtype == opcore.float32
    out = opcore.empty(0)
    assert opcore._softmax_backward_data(x, x, 1, opcore.float32, grad_input=out) is out


def test_cross_entropy_is_nll_loss_of_log_softmax_and_trains_its_logits():
    x = opcore.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]], requires_grad=True)
    t = opcore.tensor([0, 2])
    loss = F.cross_entropy(x, t)
    assert loss.item() == pytest.approx(F.nll_loss(F.log_softmax(x.detach(), 1), t).item())
    loss.backward()
    expected = (F.softmax(x.detach(), 1) - opcore.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])) / 2
    assert x.grad.reshape(-1).tolist() == pytest.approx(expected.reshape(-1).tolist())
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        F.cross_entropy(x, t, reduction="avg")


# ---- issue #34, activations: opcore.nn.functional against torch 1.13's torch.nn.functional ----

_VALUES = [-3.0, -1.0, -0.5, -0.0, 0.0, 0.25, 1.0, 2.5, float("inf"), float("-inf"), float("nan")]


def _pair(dtype=opcore.float32):
    x = opcore.tensor(_VALUES, dtype=dtype)
    return x, torch.tensor(_VALUES, dtype=getattr(torch, repr(dtype).removeprefix("opcore.")))


def _same(a, b, rtol=1.3e-6, atol=1e-5):
    np.testing.assert_allclose(np.asarray(a.float().tolist()), b.float().numpy(), rtol=rtol, atol=atol)


@needs_torch
@pytest.mark.parametrize("name", ["relu", "sigmoid", "tanh", "silu", "gelu", "leaky_relu", "hardtanh", "elu"])
def test_activation_values_match_torch(name):
    for dtype in (opcore.float32, opcore.float64):
        x, t = _pair(dtype)
        _same(getattr(F, name)(x), getattr(TF, name)(t))
    x, t = _pair()
    _same(F.gelu(x, approximate="tanh"), TF.gelu(t, approximate="tanh"))
    _same(F.gelu(x, approximate="none"), TF.gelu(t, approximate="none"))


@needs_torch
def test_python_signatures_are_torchs():
    for name in ("relu", "silu", "leaky_relu", "hardtanh", "elu"):
        ours, theirs = inspect.signature(getattr(F, name)), inspect.signature(getattr(TF, name))
        assert [(p.name, p.default) for p in ours.parameters.values()] == \
            [(p.name, p.default) for p in theirs.parameters.values()], name
    for name in ("sigmoid", "tanh"):
        assert list(inspect.signature(getattr(F, name)).parameters) == ["input"]
    # gelu is the generated operator itself, as torch's is a builtin
    assert F.gelu is opcore._C._nn.gelu
    assert "approximate" in F.gelu.__doc__


@needs_torch
@pytest.mark.parametrize("name", ["relu", "silu", "leaky_relu", "hardtanh", "elu"])
def test_inplace_returns_its_input(name):
    x = opcore.tensor([-1.0, 0.5, 2.0])
    expected = getattr(F, name)(x)
    assert expected is not x and x.tolist() == [-1.0, 0.5, 2.0]
    assert getattr(F, name)(x, inplace=True) is x
    assert x.tolist() == expected.tolist()
    y = opcore.tensor([-1.0, 0.5])
    assert opcore._C._nn.gelu_(y, approximate="tanh") is y


@needs_torch
def test_gelu_rejects_an_unknown_approximation_as_torch():
    x = opcore.tensor([1.0])
    with pytest.raises(RuntimeError, match=r"approximate argument must be either none or tanh\."):
        F.gelu(x, approximate="erf")
    with pytest.raises(RuntimeError, match=r"approximate argument must be either none or tanh\."):
        TF.gelu(torch.tensor([1.0]), approximate="erf")


@needs_torch
def test_dtypes_follow_torch():
    for name, dtype in (("gelu", opcore.float16), ("silu", opcore.float16), ("gelu", opcore.int64)):
        with pytest.raises((RuntimeError, NotImplementedError), match="not implemented for"):
            getattr(F, name)(opcore.ones(2, dtype=dtype))
    assert F.gelu(opcore.ones(2, dtype=opcore.bfloat16)).dtype == opcore.bfloat16
    assert F.silu(opcore.ones(2, dtype=opcore.complex64)).dtype == opcore.complex64


@needs_torch
@pytest.mark.parametrize("name, kwargs", [("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}),
                                          ("sigmoid", {}), ("tanh", {})])
def test_activation_gradients(name, kwargs):
    values = [[-2.0, -0.5, 0.3], [0.9, 1.7, -1.1]]
    x = opcore.tensor(values, dtype=opcore.float64, requires_grad=True)
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    getattr(F, name)(x, **kwargs).sum().backward()
    getattr(TF, name)(t, **kwargs).sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad.tolist()), t.grad.numpy(), rtol=1e-12)
    assert opcore.autograd.gradcheck(lambda a: getattr(F, name)(a, **kwargs), (x,))


@needs_torch
def test_backward_operators_match_torch():
    g = opcore.tensor([[0.5, -1.0, 2.0]], dtype=opcore.float64)
    x = opcore.tensor([[-1.5], [0.25]], dtype=opcore.float64)  # broadcast to 2x3
    tg, tx = torch.tensor(g.tolist(), dtype=torch.float64), torch.tensor(x.tolist(), dtype=torch.float64)
    for name, kwargs in (("sigmoid_backward", {}), ("tanh_backward", {}), ("silu_backward", {}),
                         ("gelu_backward", {}), ("gelu_backward", {"approximate": "tanh"})):
        ours = getattr(opcore._C._nn, name)(g, x, **kwargs)
        theirs = getattr(torch.ops.aten, name)(*(a.contiguous() for a in torch.broadcast_tensors(tg, tx)), **kwargs)
        np.testing.assert_allclose(np.asarray(ours.tolist()), theirs.numpy(), rtol=1e-12, err_msg=name)
        out = opcore.empty(0, dtype=opcore.float64)
        assert getattr(opcore._C._nn, name)(g, x, **kwargs, grad_input=out) is out
        assert out.tolist() == ours.tolist()
    assert opcore.sigmoid(x.requires_grad_()).grad_fn.name() == "SigmoidBackward0"


@needs_torch
def test_leaky_relu_hardtanh_elu_arguments_and_errors():
    x, t = _pair()
    _same(F.leaky_relu(x, 0.2), TF.leaky_relu(t, 0.2))
    _same(F.hardtanh(x, -0.5, 2.0), TF.hardtanh(t, -0.5, 2.0))
    _same(F.elu(x, alpha=0.5), TF.elu(t, alpha=0.5))
    assert F.hardtanh(opcore.tensor([-5, 0, 5]), -2, 3).tolist() == [-2, 0, 3]  # integers stay integers
    with pytest.raises(RuntimeError, match="cannot do hardtanh on an unsigned type with negative limits"):
        F.hardtanh(opcore.tensor([1], dtype=opcore.uint8))
    with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
        F.hardtanh(opcore.tensor([True]))
    with pytest.raises(RuntimeError, match="In-place leakyReLu backward calculation is triggered with a negative slope"):
        opcore._C._nn.leaky_relu_backward(x, x, -0.1, True)
    with pytest.raises(RuntimeError, match="In-place elu backward calculation is triggered with a negative slope"):
        opcore._C._nn.elu_backward(x, -1.0, 1.0, 1.0, True, x)
    y = opcore.tensor([-1.0, 0.5, 2.0], dtype=opcore.float64, requires_grad=True)
    for f in (lambda a: F.leaky_relu(a, 0.2), lambda a: F.hardtanh(a, -0.5, 1.0), lambda a: F.elu(a, 0.5)):
        assert opcore.autograd.gradcheck(f, (y,))


# ---- issue 34: normalization ------------------------------------------------------------------------

def _np(t):
    return np.asarray(t.tolist())


def _pair64(*shape, seed=0):
    a = np.random.default_rng(seed).uniform(-2.0, 2.0, shape)
    return opcore.from_numpy(a.copy()), torch.from_numpy(a.copy())


@needs_torch
@pytest.mark.parametrize("shape, normalized", [((8, 16), [16]), ((2, 3, 5), [3, 5]), ((4, 1030), [1030])])
def test_layer_norm_and_its_gradients_match_torch(shape, normalized):
    x, tx = _pair64(*shape)
    w, tw = _pair64(*normalized, seed=1)
    b, tb = _pair64(*normalized, seed=2)
    for v in (x, w, b, tx, tw, tb):
        v.requires_grad_()
    y = F.layer_norm(x, normalized, w, b, eps=1e-3)
    ty = TF.layer_norm(tx, normalized, tw, tb, eps=1e-3)
    np.testing.assert_allclose(_np(y), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    g, tg = _pair64(*shape, seed=3)
    y.backward(g)
    ty.backward(tg)
    for ours, theirs in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(_np(ours.grad), theirs.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert y.grad_fn.name() == "NativeLayerNormBackward0"


@needs_torch
def test_native_layer_norm_statistics_out_form_and_meta():
    x, tx = _pair64(2, 3, 4)
    out, mean, rstd = opcore.native_layer_norm(x, [3, 4], None, None, 1e-5)
    tout, tmean, trstd = torch.native_layer_norm(tx, [3, 4], None, None, 1e-5)
    assert tuple(mean.shape) == tuple(rstd.shape) == (2, 1, 1)
    for ours, theirs in ((out, tout), (mean, tmean), (rstd, trstd)):
        np.testing.assert_allclose(_np(ours), theirs.numpy(), rtol=1e-12)
    x.requires_grad_()
    _, mean, rstd = opcore.native_layer_norm(x, [4], None, None, 1e-5)
    assert not mean.requires_grad and not rstd.requires_grad  # as torch 1.13
    o, m, r = opcore.empty(0, dtype=opcore.float64), opcore.empty(0, dtype=opcore.float64), \
        opcore.empty(0, dtype=opcore.float64)
    result = opcore.ops.aten.native_layer_norm.out(x.detach(), [3, 4], None, None, 1e-5, out0=o, out1=m, out2=r)
    assert result[0] is o and result[2] is r
    assert o.tolist() == out.tolist() and tuple(m.shape) == (2, 1, 1)
    meta = opcore.empty(5, 6, device="meta", dtype=opcore.bfloat16)
    y, m, r = opcore.native_layer_norm(meta, [6], None, None, 1e-5)
    assert y.device.type == "meta" and tuple(y.shape) == (5, 6) and tuple(m.shape) == (5, 1)
    assert y.dtype is m.dtype is opcore.bfloat16


@needs_torch
@pytest.mark.parametrize("mask", [[True, True, True], [True, False, False], [False, True, True], [False, False, True]])
def test_native_layer_norm_backward_matches_torch(mask):
    x, tx = _pair64(6, 10)
    w, tw = _pair64(10, seed=1)
    g, tg = _pair64(6, 10, seed=2)
    _, mean, rstd = opcore.native_layer_norm(x, [10], w, None, 1e-5)
    _, tmean, trstd = torch.native_layer_norm(tx, [10], tw, None, 1e-5)
    ours = opcore.ops.aten.native_layer_norm_backward(g, x, [10], mean, rstd, w, w, mask)
    theirs = torch.ops.aten.native_layer_norm_backward(tg, tx, [10], tmean, trstd, tw, tw, mask)
    for i in range(3):
        assert (ours[i] is None) == (not mask[i])
        if mask[i]:
            np.testing.assert_allclose(_np(ours[i]), theirs[i].numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
def test_layer_norm_double_backward_matches_torch():
    x, tx = _pair64(3, 5)
    w, tw = _pair64(5, seed=1)
    b, tb = _pair64(5, seed=2)
    for v in (x, w, b, tx, tw, tb):
        v.requires_grad_()
    ga = opcore.autograd.grad(F.layer_norm(x, [5], w, b).pow(3).sum(), (x, w, b), create_graph=True)
    tga = torch.autograd.grad(TF.layer_norm(tx, [5], tw, tb).pow(3).sum(), (tx, tw, tb), create_graph=True)
    second = opcore.autograd.grad(sum((g * g).sum() for g in ga), (x, w, b))
    tsecond = torch.autograd.grad(sum((g * g).sum() for g in tga), (tx, tw, tb))
    for ours, theirs in zip(second, tsecond):
        np.testing.assert_allclose(_np(ours), theirs.numpy(), rtol=1e-9, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("dtype, tdtype", [("bfloat16", "bfloat16"), ("float32", "float32")])
def test_layer_norm_reduced_precision_matches_torch(dtype, tdtype):
    x, tx = _pair64(16, 300)
    w, tw = _pair64(300, seed=1)
    x, tx, w, tw = x.to(getattr(opcore, dtype)), tx.to(getattr(torch, tdtype)), w.to(getattr(opcore, dtype)), \
        tw.to(getattr(torch, tdtype))
    y = F.layer_norm(x, [300], w, None)
    ty = TF.layer_norm(tx, [300], tw, None)
    assert y.dtype is getattr(opcore, dtype)
    tol = 1e-2 if dtype == "bfloat16" else 1e-5
    np.testing.assert_allclose(_np(y.to(opcore.float64)), ty.double().numpy(), rtol=tol, atol=tol)
    half = F.layer_norm(x.to(opcore.float16), [300])  # float16 too (torch 1.13's CPU refuses it)
    np.testing.assert_allclose(_np(half.to(opcore.float64)), TF.layer_norm(tx.float(), [300]).double().numpy(),
                               rtol=5e-3, atol=5e-3)


def test_layer_norm_signature_and_errors():
    assert list(inspect.signature(F.layer_norm).parameters) == ["input", "normalized_shape", "weight", "bias", "eps"]
    x = opcore.ones(2, 3)
    assert F.layer_norm(x, [3]).tolist() == [[0.0] * 3] * 2
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[4\], expected input with shape \[\*, 4\], "
                                           r"but got input of size\[2, 3\]"):
        F.layer_norm(x, [4])
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        F.layer_norm(opcore.ones(2, 3, dtype=opcore.int64), [3])


@needs_torch
@pytest.mark.parametrize("shape", [(8, 4), (4, 3, 7), (3, 2, 5, 6)])
def test_batch_norm_training_updates_running_statistics_as_torch(shape):
    x, tx = _pair64(*shape)
    c = shape[1]
    w, tw = _pair64(c, seed=1)
    b, tb = _pair64(c, seed=2)
    rm, trm = _pair64(c, seed=3)
    rv, trv = opcore.ones(c, dtype=opcore.float64) * 1.5, torch.ones(c, dtype=torch.float64) * 1.5
    for v in (x, w, b, tx, tw, tb):
        v.requires_grad_()
    y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.25, eps=1e-3)
    ty = TF.batch_norm(tx, trm, trv, tw, tb, training=True, momentum=0.25, eps=1e-3)
    np.testing.assert_allclose(_np(y), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(rm), trm.numpy(), rtol=1e-12)
    np.testing.assert_allclose(_np(rv), trv.numpy(), rtol=1e-12)  # the unbiased variance
    g, tg = _pair64(*shape, seed=4)
    y.backward(g)
    ty.backward(tg)
    for ours, theirs in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(_np(ours.grad), theirs.grad.numpy(), rtol=1e-9, atol=1e-11)
    assert y.grad_fn.name() == "NativeBatchNormBackward0"


@needs_torch
def test_batch_norm_evaluation_and_its_gradients_match_torch():
    x, tx = _pair64(4, 3, 5)
    w, tw = _pair64(3, seed=1)
    rm, trm = _pair64(3, seed=3)
    rv, trv = opcore.tensor([0.5, 1.0, 2.0], dtype=opcore.float64), torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64)
    x.requires_grad_()
    tx.requires_grad_()
    w.requires_grad_()
    tw.requires_grad_()
    y = F.batch_norm(x, rm, rv, w)
    ty = TF.batch_norm(tx, trm, trv, tw)
    np.testing.assert_allclose(_np(y), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert rv.tolist() == [0.5, 1.0, 2.0]  # evaluation leaves the running statistics alone
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(_np(x.grad), tx.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(_np(w.grad), tw.grad.numpy(), rtol=1e-10)


@needs_torch
@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("mask", [[True, True, True], [True, False, False], [False, True, True]])
def test_native_batch_norm_backward_matches_torch(train, mask):
    x, tx = _pair64(4, 3, 6)
    w, tw = _pair64(3, seed=1)
    g, tg = _pair64(4, 3, 6, seed=2)
    rm, trm = _pair64(3, seed=3)
    rv, trv = opcore.tensor([0.5, 1.0, 2.0], dtype=opcore.float64), torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64)
    _, sm, si = opcore.native_batch_norm(x, w, None, None, None, True, 0.1, 1e-5)
    _, tsm, tsi = torch.native_batch_norm(tx, tw, None, None, None, True, 0.1, 1e-5)
    ours = opcore.ops.aten.native_batch_norm_backward(g, x, w, rm, rv, sm, si, train, 1e-5, mask)
    theirs = torch.ops.aten.native_batch_norm_backward(tg, tx, tw, trm, trv, tsm, tsi, train, 1e-5, mask)
    for i in range(3):
        assert (ours[i] is None) == (not mask[i])
        if mask[i]:
            np.testing.assert_allclose(_np(ours[i]), theirs[i].numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_double_backward_matches_torch(training):
    x, tx = _pair64(3, 2, 4)
    w, tw = _pair64(2, seed=1)
    b, tb = _pair64(2, seed=2)
    rm, trm = _pair64(2, seed=3)
    rv, trv = opcore.tensor([0.5, 2.0], dtype=opcore.float64), torch.tensor([0.5, 2.0], dtype=torch.float64)
    for v in (x, w, b, tx, tw, tb):
        v.requires_grad_()
    ga = opcore.autograd.grad(F.batch_norm(x, rm, rv, w, b, training).pow(3).sum(), (x, w, b), create_graph=True)
    tga = torch.autograd.grad(TF.batch_norm(tx, trm, trv, tw, tb, training).pow(3).sum(), (tx, tw, tb),
                              create_graph=True)
    second = opcore.autograd.grad(sum((g * g).sum() for g in ga), (x, w, b), allow_unused=True)
    tsecond = torch.autograd.grad(sum((g * g).sum() for g in tga), (tx, tw, tb), allow_unused=True)
    for ours, theirs in zip(second, tsecond):
        if theirs is None:
            assert ours is None or not _np(ours).any()
        else:
            np.testing.assert_allclose(_np(ours), theirs.numpy(), rtol=1e-9, atol=1e-10)


@needs_torch
def test_batch_norm_reduced_precision_out_form_and_meta():
    x, tx = _pair64(4, 3, 50)
    bx, tbx = x.to(opcore.bfloat16), tx.to(torch.bfloat16)
    rm, rv = opcore.zeros(3), opcore.ones(3)
    trm, trv = torch.zeros(3), torch.ones(3)
    y, sm, si = opcore.native_batch_norm(bx, None, None, rm, rv, True, 0.1, 1e-5)
    ty, tsm, tsi = torch.native_batch_norm(tbx, None, None, trm, trv, True, 0.1, 1e-5)
    assert y.dtype is opcore.bfloat16 and sm.dtype is si.dtype is opcore.float32  # float statistics, as torch
    np.testing.assert_allclose(_np(y.to(opcore.float64)), ty.double().numpy(), rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(_np(rv), trv.numpy(), rtol=1e-5)
    np.testing.assert_allclose(_np(si), tsi.numpy(), rtol=1e-5)
    o, m, v = opcore.empty(0, dtype=opcore.float64), opcore.empty(0, dtype=opcore.float64), \
        opcore.empty(0, dtype=opcore.float64)
    result = opcore.ops.aten.native_batch_norm.out(x, None, None, None, None, True, 0.1, 1e-5, out0=o, out1=m, out2=v)
    assert result[0] is o
    assert o.tolist() == opcore.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)[0].tolist()
    meta = opcore.empty(5, 6, 7, device="meta")
    y, sm, si = opcore.native_batch_norm(meta, None, None, None, None, True, 0.1, 1e-5)
    assert y.device.type == "meta" and tuple(y.shape) == (5, 6, 7) and tuple(sm.shape) == (6,)


def test_batch_norm_signature_and_errors():
    params = list(inspect.signature(F.batch_norm).parameters)
    assert params == ["input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps"]
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training"):
        F.batch_norm(opcore.ones(1, 3), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(opcore.ones(2, 3), None, None)


@needs_torch
@pytest.mark.parametrize("shape, groups", [((4, 6), 3), ((2, 4, 5), 2), ((3, 6, 2, 3), 1), ((2, 4, 3), 4)])
def test_group_norm_and_its_gradients_match_torch(shape, groups):
    x, tx = _pair64(*shape)
    w, tw = _pair64(shape[1], seed=1)
    b, tb = _pair64(shape[1], seed=2)
    for v in (x, w, b, tx, tw, tb):
        v.requires_grad_()
    y = F.group_norm(x, groups, w, b, eps=1e-3)
    ty = TF.group_norm(tx, groups, tw, tb, eps=1e-3)
    np.testing.assert_allclose(_np(y), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    g, tg = _pair64(*shape, seed=3)
    y.backward(g)
    ty.backward(tg)
    for ours, theirs in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(_np(ours.grad), theirs.grad.numpy(), rtol=1e-9, atol=1e-11)
    ga = opcore.autograd.grad(F.group_norm(x, groups, w, b).pow(3).sum(), (x, w, b), create_graph=True)
    tga = torch.autograd.grad(TF.group_norm(tx, groups, tw, tb).pow(3).sum(), (tx, tw, tb), create_graph=True)
    second = opcore.autograd.grad(sum((v * v).sum() for v in ga), (x, w, b))
    tsecond = torch.autograd.grad(sum((v * v).sum() for v in tga), (tx, tw, tb))
    for ours, theirs in zip(second, tsecond):
        np.testing.assert_allclose(_np(ours), theirs.numpy(), rtol=1e-8, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("mask", [[True, True, True], [False, True, False], [True, False, True]])
def test_native_group_norm_matches_torch(mask):
    x, tx = _pair64(3, 4, 5)
    w, tw = _pair64(4, seed=1)
    g, tg = _pair64(3, 4, 5, seed=2)
    y, mean, rstd = opcore.native_group_norm(x, w, None, 3, 4, 5, 2, 1e-5)
    ty, tmean, trstd = torch.native_group_norm(tx, tw, None, 3, 4, 5, 2, 1e-5)
    assert tuple(mean.shape) == (3, 2)
    for ours, theirs in ((y, ty), (mean, tmean), (rstd, trstd)):
        np.testing.assert_allclose(_np(ours), theirs.numpy(), rtol=1e-12, atol=1e-12)
    ours = opcore.ops.aten.native_group_norm_backward(g, x, mean, rstd, w, 3, 4, 5, 2, mask)
    theirs = torch.ops.aten.native_group_norm_backward(tg, tx, tmean, trstd, tw, 3, 4, 5, 2, mask)
    for i in range(3):
        assert (ours[i] is None) == (not mask[i])
        if mask[i]:
            np.testing.assert_allclose(_np(ours[i]), theirs[i].numpy(), rtol=1e-10, atol=1e-12)
    bf = F.group_norm(x.to(opcore.bfloat16), 2)
    np.testing.assert_allclose(_np(bf.to(opcore.float64)), TF.group_norm(tx.bfloat16(), 2).double().numpy(),
                               rtol=2e-2, atol=2e-2)
    meta = opcore.native_group_norm(opcore.empty(3, 4, 5, device="meta"), None, None, 3, 4, 5, 2, 1e-5)
    assert meta[0].device.type == "meta" and tuple(meta[1].shape) == (3, 2)
# ---- issue 34: pointwise losses ---------------------------------------------------------------------

_POINTWISE_LOSSES = [("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}),
                     ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {}), ("huber_loss", {"delta": 0.5})]


@needs_torch
@pytest.mark.parametrize("name, kwargs", _POINTWISE_LOSSES)
def test_pointwise_losses_and_gradients_match_torch(name, kwargs):
    x = opcore.randn(4, 5, dtype=opcore.float64) * 2
    y = opcore.randn(4, 5, dtype=opcore.float64)
    for reduction in ("none", "mean", "sum"):
        for target in (y, y[0]):  # the same shape, and broadcast (torch warns)
            xs = x.detach().requires_grad_()
            tx, ty = _torch(x).requires_grad_(), _torch(target).requires_grad_()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours = getattr(F, name)(xs, target, reduction=reduction, **kwargs)
                theirs = getattr(TF, name)(tx, ty, reduction=reduction, **kwargs)
            assert np.allclose(np.asarray(ours.detach().tolist()), theirs.detach().numpy(), rtol=1e-12, atol=1e-14)
            ours.sum().backward()
            theirs.sum().backward()
            assert np.allclose(np.asarray(xs.grad.tolist()), tx.grad.numpy(), rtol=1e-12, atol=1e-14), reduction


@needs_torch
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"])
def test_pointwise_loss_signatures_warnings_and_legacy_arguments_are_torchs(name):
    ours, theirs = inspect.signature(getattr(F, name)), inspect.signature(getattr(TF, name))
    assert [(p.name, p.default) for p in ours.parameters.values()] == \
        [(p.name, p.default) for p in theirs.parameters.values()]
    x, y = opcore.ones(2, 3), opcore.zeros(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        getattr(F, name)(x, y)
    assert len(caught) == 1 and "Using a target size ([3]) that is different to the input size ([2, 3])" in \
        str(caught[0].message)
    assert caught[0].filename == __file__
    if "size_average" in ours.parameters:
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            assert getattr(F, name)(x, x + 1, size_average=False).item() == pytest.approx(
                6.0 if name != "smooth_l1_loss" and name != "huber_loss" else 3.0)
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        getattr(F, name)(x, x, reduction="avg")


@needs_torch
def test_pointwise_loss_backward_operators_match_torch():
    g = opcore.randn(3, 4, dtype=opcore.float64)
    x, y = opcore.randn(3, 4, dtype=opcore.float64) * 2, opcore.randn(3, 4, dtype=opcore.float64)
    aten = opcore.ops.aten
    for name, more in (("mse_loss_backward", ()), ("smooth_l1_loss_backward", (0.75,)),
                       ("huber_loss_backward", (1.5,))):
        for reduction in (0, 1, 2):
            grad = g if reduction == 0 else g[0, 0]
            ours = getattr(aten, name)(grad, x, y, reduction, *more)
            theirs = getattr(torch.ops.aten, name)(_torch(grad), _torch(x), _torch(y), reduction, *more)
            assert np.allclose(np.asarray(ours.tolist()), theirs.numpy(), rtol=1e-12, atol=1e-14), (name, reduction)
    with pytest.raises(RuntimeError, match="smooth_l1_loss does not support negative values for beta."):
        F.smooth_l1_loss(x, y, beta=-0.5)
    with pytest.raises(RuntimeError, match="huber_loss does not support non-positive values for delta."):
        F.huber_loss(x, y, delta=0.0)
    with pytest.raises(RuntimeError, match="not implemented for 'Half'"):
        aten.mse_loss_backward(g.half(), x.half(), y.half(), 1)


def test_pointwise_loss_mean_does_not_depend_on_the_thread_count():
    x, y = opcore.randn(1 << 18), opcore.randn(1 << 18)
    threads = opcore.get_num_threads()
    try:
        opcore.set_num_threads(1)
        one = [F.mse_loss(x, y).item(), F.huber_loss(x, y, reduction="sum").item()]
        opcore.set_num_threads(2)
        two = [F.mse_loss(x, y).item(), F.huber_loss(x, y, reduction="sum").item()]
    finally:
        opcore.set_num_threads(threads)
    assert one == two
    expected = ((x.double() - y.double()) ** 2).mean().item()
    assert one[0] == pytest.approx(expected, rel=1e-6)


@needs_torch
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_binary_cross_entropy_functions_and_gradients_match_torch(reduction):
    p = opcore.rand(4, 5, dtype=opcore.float64) * 0.9 + 0.05
    y = opcore.rand(4, 5, dtype=opcore.float64)
    z = opcore.randn(4, 5, dtype=opcore.float64) * 4
    w, pw = opcore.rand(5, dtype=opcore.float64) + 0.5, opcore.rand(5, dtype=opcore.float64) * 3
    cases = [("binary_cross_entropy", p, {}), ("binary_cross_entropy", p, {"weight": w}),
             ("binary_cross_entropy_with_logits", z, {}), ("binary_cross_entropy_with_logits", z, {"weight": w}),
             ("binary_cross_entropy_with_logits", z, {"pos_weight": pw, "weight": w})]
    for name, x, kwargs in cases:
        xs, ys = x.detach().requires_grad_(), y.detach().requires_grad_()
        tx, ty = _torch(x).requires_grad_(), _torch(y).requires_grad_()
        tkwargs = {k: _torch(v) for k, v in kwargs.items()}
        ours = getattr(F, name)(xs, ys, reduction=reduction, **kwargs)
        theirs = getattr(TF, name)(tx, ty, reduction=reduction, **tkwargs)
        assert np.allclose(np.asarray(ours.tolist()), theirs.detach().numpy(), rtol=1e-12, atol=1e-14), (name, kwargs)
        ours.sum().backward()
        theirs.sum().backward()
        assert np.allclose(np.asarray(xs.grad.tolist()), tx.grad.numpy(), rtol=1e-10, atol=1e-12), (name, kwargs)
        assert np.allclose(np.asarray(ys.grad.tolist()), ty.grad.numpy(), rtol=1e-10, atol=1e-12), (name, kwargs)


@needs_torch
def test_binary_cross_entropy_clamps_its_logs_and_checks_its_input_as_torch():
    x = opcore.tensor([0.0, 1.0, 0.0, 1.0], dtype=opcore.float64)
    y = opcore.tensor([0.0, 1.0, 1.0, 0.0], dtype=opcore.float64)
    assert F.binary_cross_entropy(x, y, reduction="none").tolist() == [0.0, 0.0, 100.0, 100.0]
    for bad in (1.5, -0.25, float("nan")):
        with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
            F.binary_cross_entropy(opcore.tensor([0.5, bad]), opcore.tensor([0.5, 0.5]))
    with pytest.raises(ValueError, match=r"Using a target size \(\[3\]\) that is different to the input size "
                                          r"\(\[2, 3\]\) is deprecated"):
        F.binary_cross_entropy(opcore.full((2, 3), 0.5), opcore.full((3,), 0.5))
    with pytest.raises(ValueError, match=r"Target size \(\[3\]\) must be the same as input size \(\[2, 3\]\)"):
        F.binary_cross_entropy_with_logits(opcore.zeros(2, 3), opcore.zeros(3))
    with pytest.raises(RuntimeError, match="not implemented for 'BFloat16'"):
        F.binary_cross_entropy(opcore.full((2,), 0.5, dtype=opcore.bfloat16), opcore.full((2,), 0.5, dtype=opcore.bfloat16))
    # logits far out: the stable form, no overflow (torch gives the same)
    big = opcore.tensor([1000.0, -1000.0, 50.0])
    t = opcore.tensor([0.0, 1.0, 1.0])
    assert F.binary_cross_entropy_with_logits(big, t, reduction="none").tolist() == pytest.approx(
        TF.binary_cross_entropy_with_logits(_torch(big), _torch(t), reduction="none").tolist())
    for name in ("binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"):
        ours, theirs = inspect.signature(getattr(F, name)), inspect.signature(getattr(TF, name))
        assert [(p.name, p.default) for p in ours.parameters.values()] == \
            [(p.name, p.default) for p in theirs.parameters.values()], name


@needs_torch
@pytest.mark.parametrize("reduction", ["none", "mean", "sum", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div_matches_torch(reduction, log_target):
    x = opcore.randn(3, 4, dtype=opcore.float64).log_softmax(1)
    y = opcore.randn(3, 4, dtype=opcore.float64).softmax(1)
    y = y.log() if log_target else opcore.where(y < 0.1, 0.0, y)  # zeros in the target give 0
    xs, tx = x.detach().requires_grad_(), _torch(x).requires_grad_()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = F.kl_div(xs, y, reduction=reduction, log_target=log_target)
    assert (len(caught) == 1) == (reduction == "mean")
    if caught:
        assert "'batchmean' divides only by the batch size" in str(caught[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = TF.kl_div(tx, _torch(y), reduction=reduction, log_target=log_target)
    assert np.allclose(np.asarray(ours.tolist()), theirs.detach().numpy(), rtol=1e-12, atol=1e-14)
    ours.sum().backward()
    theirs.sum().backward()
    assert np.allclose(np.asarray(xs.grad.tolist()), tx.grad.numpy(), rtol=1e-12, atol=1e-14)
    with pytest.raises(RuntimeError, match="kl_div: Integral inputs not supported."):
        F.kl_div(opcore.ones(2, dtype=opcore.int64), opcore.ones(2, dtype=opcore.int64), reduction="sum")


# ---- issue 34: one_hot, normalize, pad ----------------------------------------------------------------

@needs_torch
def test_one_hot_matches_torch():
    t = opcore.tensor([[0, 3], [1, 1]])
    assert F.one_hot(t).tolist() == TF.one_hot(torch.tensor([[0, 3], [1, 1]])).tolist()
    assert F.one_hot(t, 6).tolist() == TF.one_hot(torch.tensor([[0, 3], [1, 1]]), 6).tolist()
    assert F.one_hot(t).dtype == opcore.int64
    assert tuple(F.one_hot(opcore.zeros(0, dtype=opcore.int64), 3).shape) == (0, 3)
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(t, 3)
    assert F.one_hot is opcore._C._nn.one_hot and F.pad is opcore._C._nn.pad  # the operators, as torch's


@needs_torch
@pytest.mark.parametrize("p, dim", [(2.0, 1), (1.0, 0), (3.0, -1), (float("inf"), 1)])
def test_normalize_matches_torch(p, dim):
    x = opcore.randn(3, 4, dtype=opcore.float64)
    x[1] = 0.0  # a zero row: divided by eps, not by 0
    ours, theirs = F.normalize(x, p, dim), TF.normalize(_torch(x), p, dim)
    assert np.allclose(np.asarray(ours.tolist()), theirs.numpy(), rtol=1e-12, atol=1e-14)
    out = opcore.empty(0, dtype=opcore.float64)
    assert F.normalize(x, p, dim, out=out) is out and out.tolist() == ours.tolist()
    xs, tx = x.detach().requires_grad_(), _torch(x).requires_grad_()
    (F.normalize(xs, p, dim) * opcore.arange(12, dtype=opcore.float64).reshape(3, 4)).sum().backward()
    (TF.normalize(tx, p, dim) * torch.arange(12, dtype=torch.float64).reshape(3, 4)).sum().backward()
    assert np.allclose(np.asarray(xs.grad.tolist()), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    ours_sig, theirs_sig = inspect.signature(F.normalize), inspect.signature(TF.normalize)
    assert [(q.name, q.default) for q in ours_sig.parameters.values()] == \
        [(q.name, q.default) for q in theirs_sig.parameters.values()]


@needs_torch
@pytest.mark.parametrize("shape, pad, kwargs", [((2, 3), (1, 2), {}), ((2, 3, 4), (1, 0, 2, 1), {"value": -1.5}),
                                                ((2, 3, 4), (-1, 2), {}), ((1, 2, 3), (1, 2), {"mode": "circular"}),
                                                ((1, 2, 3, 4), (2, 1, 1, 3), {"mode": "circular"}),
                                                ((1, 2, 3, 4), (-1, 1, 0, 2), {"mode": "circular"})])
def test_pad_matches_torch(shape, pad, kwargs):
    x = opcore.randn(list(shape), dtype=opcore.float64)
    xs, tx = x.detach().requires_grad_(), _torch(x).requires_grad_()
    ours, theirs = F.pad(xs, pad, **kwargs), TF.pad(tx, pad, **kwargs)
    assert np.allclose(np.asarray(ours.tolist()), theirs.detach().numpy(), rtol=0, atol=0)
    w = opcore.randn(list(ours.shape), dtype=opcore.float64)
    (ours * w).sum().backward()
    (theirs * _torch(w)).sum().backward()
    assert np.allclose(np.asarray(xs.grad.tolist()), tx.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_pad_errors_are_torchs():
    x = opcore.ones(1, 2, 3)
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode wrap"):
        F.pad(x, (1, 1), "wrap")
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(x, (1,))
    with pytest.raises(RuntimeError, match="Padding mode \"circular\" doesn't take in value argument"):
        F.pad(x, (1, 1), "circular", 2.0)
    with pytest.raises(RuntimeError, match="Padding value causes wrapping around more than once."):
        F.pad(x, (4, 1), "circular")
    with pytest.raises(NotImplementedError, match="Only 2D, 3D, 4D, 5D padding with non-constant padding"):
        F.pad(x, (1, 1, 1, 1, 1, 1), "reflect")


def test_native_batch_norm_legit_forms_match_native_batch_norm():
    aten = opcore.ops.aten
    x = opcore.randn(4, 3, 5, dtype=opcore.float64)
    w, b = opcore.randn(3, dtype=opcore.float64), opcore.randn(3, dtype=opcore.float64)
    rm, rv = opcore.zeros(3, dtype=opcore.float64), opcore.ones(3, dtype=opcore.float64)
    rm2, rv2 = rm.clone(), rv.clone()
    expected = opcore.native_batch_norm(x, w, b, rm2, rv2, True, 0.1, 1e-5)
    got = aten._native_batch_norm_legit(x, w, b, rm, rv, True, 0.1, 1e-5)
    for ours, theirs in zip(got, expected):
        assert ours.tolist() == theirs.tolist()
    assert rm.tolist() == rm2.tolist() and rv.tolist() == rv2.tolist()  # updated in place, as native_batch_norm
    no_stats = aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)
    assert no_stats[0].tolist() == expected[0].tolist()
    o, m, v = (opcore.empty(0, dtype=opcore.float64) for _ in range(3))
    result = aten._native_batch_norm_legit.out(x, w, b, rm, rv, True, 0.1, 1e-5, out=o, save_mean=m, save_invstd=v)
    assert result[0] is o and o.tolist() == expected[0].tolist() and v.tolist() == expected[2].tolist()
    o, m, v = (opcore.empty(0, dtype=opcore.float64) for _ in range(3))
    result = aten._native_batch_norm_legit.no_stats_out(x, w, b, True, 0.1, 1e-5, out=o, save_mean=m, save_invstd=v)
    assert result[1] is m and o.tolist() == no_stats[0].tolist() and m.tolist() == no_stats[1].tolist()
    assert v.tolist() == no_stats[2].tolist() and tuple(v.shape) == (3,)
    with pytest.raises(RuntimeError, match="no_stats_out: expected an out tensor of dtype Double, but got Float"):
        aten._native_batch_norm_legit.no_stats_out(x, w, b, True, 0.1, 1e-5, out=opcore.empty(0), save_mean=m,
                                                   save_invstd=v)
    before = rv.tolist()
    evaluation = aten._native_batch_norm_legit_no_training(x, w, b, rm, rv, 0.1, 1e-5)
    assert rv.tolist() == before  # read, never written
    assert evaluation[0].tolist() == opcore.native_batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5)[0].tolist()
    assert tuple(evaluation[1].shape) == (0,)
    xg = x.clone().requires_grad_()
    aten._native_batch_norm_legit(xg, w, b, rm, rv, True, 0.1, 1e-5)[0].sum().backward()
    assert xg.grad is not None and abs(sum(xg.grad.reshape(-1).tolist())) < 1e-9
    # One batch norm used twice in a forward: the running statistics are buffers autograd does
    # not track (as PyTorch's), so the first call's node still runs after the second wrote them.
    xg.grad = None
    version = rm._version
    first = aten._native_batch_norm_legit(xg, w, b, rm, rv, True, 0.1, 1e-5)[0]
    second = aten._native_batch_norm_legit(first, w, b, rm, rv, True, 0.1, 1e-5)[0]
    (second * x).sum().backward()
    assert rm._version == version and xg.grad is not None


# ---- distances (issue #34) ----------------------------------------------------------------------

def _both(shape, seed, dtype=np.float64):
    values = np.random.default_rng(seed).uniform(-2, 2, shape).astype(dtype)
    return opcore.from_numpy(values.copy()).requires_grad_(), torch.from_numpy(values.copy()).requires_grad_()


@needs_torch
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf")])
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                                  "donot_use_mm_for_euclid_dist"])
@pytest.mark.parametrize("shapes", [((3, 4), (2, 4)), ((2, 1, 30, 3), (4, 5, 3)), ((27, 2), (3, 2))])
def test_cdist_matches_torch_values_and_gradients(p, mode, shapes):
    (a, ta), (b, tb) = _both(shapes[0], 1), _both(shapes[1], 2)
    ours, theirs = opcore.cdist(a, b, p, mode), torch.cdist(ta, tb, p, mode)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9, atol=1e-9)
    g = np.random.default_rng(3).uniform(-1, 1, tuple(theirs.shape))
    ours.backward(opcore.from_numpy(g.copy()))
    theirs.backward(torch.from_numpy(g.copy()))
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-9, atol=1e-9)


@needs_torch
def test_cdist_chooses_the_matrix_product_as_torch_does():
    # The product leaves rounding residue where two rows are equal; the direct kernel gives 0.
    x = np.random.default_rng(4).uniform(-2, 2, (30, 3))
    for mode in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        for rows in (25, 30):
            ours = opcore.cdist(opcore.from_numpy(x[:rows].copy()), opcore.from_numpy(x[:rows].copy()),
                                compute_mode=mode)
            theirs = torch.cdist(torch.from_numpy(x[:rows].copy()), torch.from_numpy(x[:rows].copy()),
                                 compute_mode=mode)
            assert (np.diag(ours.numpy()) == 0).all() == (np.diag(theirs.numpy()) == 0).all(), (mode, rows)
    with pytest.raises(ValueError, match="fast is not a valid value for compute_mode"):
        opcore.cdist(opcore.ones(2, 2), opcore.ones(2, 2), compute_mode="fast")
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        opcore.cdist(opcore.ones(2, 2), opcore.ones(2, 2, dtype=opcore.float64))


@needs_torch
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 2.0, 3.0, float("inf")])
def test_pdist_matches_torch_values_and_gradients(p):
    x, tx = _both((7, 5), 5)
    ours, theirs = F.pdist(x, p), TF.pdist(tx, p)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(6).uniform(-1, 1, tuple(theirs.shape))
    ours.backward(opcore.from_numpy(g.copy()))
    theirs.backward(torch.from_numpy(g.copy()))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert opcore.pdist(x.detach(), p).tolist() == pytest.approx(ours.tolist())


def test_distances_have_no_double_backward():
    # As PyTorch's: the backward operators have no derivatives, so a second backward through them
    # says so (supports_gradgrad: false in derivatives.yaml).
    x1, x2 = opcore.randn(2, 4, 3, dtype=opcore.float64, requires_grad=True), opcore.randn(5, 3, dtype=opcore.float64)
    for y in (opcore._cdist_forward(x1, x2, 3.0, None), opcore.pdist(x1[0], 3.0)):
        first, = opcore.autograd.grad(y, x1, opcore.ones_like(y), create_graph=True)
        with pytest.raises(RuntimeError, match="derivative for aten::_(cdist|pdist)_backward is not implemented"):
            first.sum().backward()


def test_distance_backward_operators_and_out_forms():
    aten = opcore.ops.aten
    x1, x2 = opcore.randn(3, 4), opcore.randn(2, 4)
    d = aten._cdist_forward(x1, x2, 1.0, None)
    out = opcore.empty(0)
    assert aten._cdist_forward.out(x1, x2, 1.0, None, out=out) is out and out.tolist() == d.tolist()
    grad = opcore.ones(3, 2)
    expected = aten._cdist_backward(grad, x1, x2, 1.0, d)
    assert aten._cdist_backward.out(grad, x1, x2, 1.0, d, out=out) is out and out.tolist() == expected.tolist()
    x = opcore.randn(4, 3)
    d = aten._pdist_forward(x, 2.0)
    assert aten._pdist_forward.out(x, 2.0, out=out) is out and out.tolist() == d.tolist()
    expected = aten._pdist_backward(opcore.ones(6), x, 2.0, d)
    assert aten._pdist_backward.out(opcore.ones(6), x, 2.0, d, out=out) is out and out.tolist() == expected.tolist()
    # As PyTorch's, the backward operators take no gradient.
    g = opcore.ones(6, requires_grad=True)
    with pytest.raises(RuntimeError, match="_pdist_backward"):
        aten._pdist_backward(g, x, 2.0, d).sum().backward()


# ---- embedding bags (issue #34) ---------------------------------------------------------------------


def _eb_tensor(t):
    return opcore.tensor(t.detach().numpy())


_EB_BAGS = [([1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6], False),       # an empty bag in the middle
            ([1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 6, 8], True),     # include_last_offset
            ([1, 2, 4, 5, 4, 3, 2, 9], [0, 0, 8], False),          # an empty bag first
            ([], [0, 0], False),                                   # no indices
            ([2, 2, 2, 1], [0, 3], False)]                         # a bag of padding only (padding_idx 2)


@needs_torch
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("bags", range(len(_EB_BAGS)))
@pytest.mark.parametrize("padding_idx", [None, 2, -8])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_embedding_bag_matches_torch_with_its_gradients(mode, bags, padding_idx, dtype):
    indices, offsets, last = _EB_BAGS[bags]
    torch.manual_seed(bags)
    tw = torch.randn(10, 5, dtype=getattr(torch, dtype)).requires_grad_()
    ti, to = torch.tensor(indices, dtype=torch.long), torch.tensor(offsets, dtype=torch.long)
    tout = TF.embedding_bag(ti, tw, to, mode=mode, include_last_offset=last, padding_idx=padding_idx)
    w = _eb_tensor(tw.float()).to(getattr(opcore, dtype)).requires_grad_()
    out = F.embedding_bag(opcore.tensor(indices, dtype=opcore.int64), w, opcore.tensor(offsets, dtype=opcore.int64),
                          mode=mode, include_last_offset=last, padding_idx=padding_idx)
    tol = 2e-3 if dtype == "float16" else 1e-6
    assert out.dtype == w.dtype and tuple(out.shape) == tuple(tout.shape)
    np.testing.assert_allclose(out.float().detach().numpy(), tout.float().detach().numpy(), rtol=tol, atol=tol)
    grad = torch.randn(tout.shape, dtype=tout.dtype)
    tout.backward(grad)
    out.backward(_eb_tensor(grad.float()).to(w.dtype))
    np.testing.assert_allclose(w.grad.float().numpy(), tw.grad.float().numpy(), rtol=tol, atol=tol)


@needs_torch
@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("index_dtype", [("int64", "int64"), ("int32", "int32"), ("int32", "int64")])
def test_embedding_bag_results_match_torch_exactly(mode, index_dtype):
    # All four results of _embedding_bag, in float32 (offset2bag empty in sum mode, torch's fast
    # path) and float64, Int results when indices and offsets both are Int.
    for dtype in ("float32", "float64"):
        for pad in (-1, 4):
            tw = torch.randn(10, 3, dtype=getattr(torch, dtype))
            ti = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9], dtype=getattr(torch, index_dtype[0]))
            to = torch.tensor([0, 3, 3, 6], dtype=getattr(torch, index_dtype[1]))
            expected = torch.ops.aten._embedding_bag(tw, ti, to, False, mode, False, None, False, pad)
            got = opcore._embedding_bag(_eb_tensor(tw), _eb_tensor(ti), _eb_tensor(to), False, mode, False, None,
                                        False, pad)
            np.testing.assert_allclose(got[0].numpy(), expected[0].numpy(), rtol=1e-6)
            for g, e in zip(got[1:], expected[1:]):
                assert str(g.dtype).split(".")[-1] == str(e.dtype).split(".")[-1], (dtype, pad)
                assert g.tolist() == e.tolist(), (dtype, pad)


@needs_torch
def test_embedding_bag_per_sample_weights_and_2d_input_match_torch():
    torch.manual_seed(3)
    tw = torch.randn(7, 4, dtype=torch.float64, requires_grad=True)
    tp = torch.rand(2, 3, dtype=torch.float64, requires_grad=True)
    ti = torch.tensor([[0, 6, 2], [2, 2, 5]])
    tout = TF.embedding_bag(ti, tw, mode="sum", per_sample_weights=tp, padding_idx=5)
    w, p = _eb_tensor(tw).requires_grad_(), _eb_tensor(tp).requires_grad_()
    out = F.embedding_bag(_eb_tensor(ti), w, mode="sum", per_sample_weights=p, padding_idx=5)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    grad = torch.randn(2, 4, dtype=torch.float64)
    tout.backward(grad)
    out.backward(_eb_tensor(grad))
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-12)
    # 2-D input: one bag per row, mean by default
    np.testing.assert_allclose(F.embedding_bag(_eb_tensor(ti), _eb_tensor(tw)).numpy(),
                               TF.embedding_bag(ti, tw.detach()).numpy(), rtol=1e-12)


@needs_torch
def test_embedding_bag_scale_grad_by_freq_divides_by_each_index_count():
    # torch 1.13's CPU backward divides each row by the count of another index (it reads the
    # count at the position of the index among the distinct ones in the sorted indices); opcore
    # divides by the row's own count, as embedding's scale_grad_by_freq: torch's gradient
    # without it, divided by the counts.
    idx = [1, 2, 4, 5, 4, 3, 2, 9]
    for mode in ("sum", "mean"):
        tw = torch.randn(10, 3, dtype=torch.float64, requires_grad=True)
        TF.embedding_bag(torch.tensor(idx), tw, torch.tensor([0, 3, 3, 6]), mode=mode).sum().backward()
        w = _eb_tensor(tw).requires_grad_()
        F.embedding_bag(opcore.tensor(idx), w, opcore.tensor([0, 3, 3, 6]), mode=mode,
                        scale_grad_by_freq=True).sum().backward()
        counts = torch.bincount(torch.tensor(idx), minlength=10).clamp(min=1).double()[:, None]
        np.testing.assert_allclose(w.grad.numpy(), (tw.grad / counts).numpy(), rtol=1e-12)


def test_embedding_bag_without_offsets_and_strided_inputs():
    w = opcore.randn(6, 3)
    idx = opcore.tensor([0, 2, 5, 2])
    # no offsets: no bags, every index of bag -1 (torch 1.13 writes out of bounds here but in its
    # float32 fast path)
    for mode in (0, 1, 2):
        out, bags, sizes, maxima = opcore._embedding_bag(w, idx, opcore.zeros(0, dtype=opcore.int64), False, mode)
        assert tuple(out.shape) == (0, 3) and sizes.tolist() == []
        assert bags.tolist() == ([] if mode == 0 else [-1] * 4)
        assert tuple(maxima.shape) == ((0, 3) if mode == 2 else (0,))
    # weights of other strides, and strided per-sample weights, take no fast path (as torch's)
    wt = opcore.randn(3, 6).t()
    out, bags, _, _ = opcore._embedding_bag(wt, idx, opcore.tensor([0, 2]), False, 0)
    assert bags.tolist() == [0, 0, 1, 1]
    expected = opcore.stack([wt[0] + wt[2], wt[5] + wt[2]])
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)
    psw = opcore.rand(8)[::2]
    out, bags, _, _ = opcore._embedding_bag(w, idx, opcore.tensor([0, 2]), False, 0, False, psw)
    assert bags.tolist() == [0, 0, 1, 1]
    expected = opcore.stack([w[0] * psw[0] + w[2] * psw[1], w[5] * psw[2] + w[2] * psw[3]])
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-6)


def test_embedding_bag_out_form_matches_the_functional_form():
    w = opcore.randn(6, 3)
    idx, off = opcore.tensor([0, 2, 5, 2, 1]), opcore.tensor([0, 2, 2])
    for mode in (0, 1, 2):
        expected = opcore._embedding_bag(w, idx, off, False, mode)
        outs = (opcore.empty(0), opcore.empty(0, dtype=opcore.int64), opcore.empty(0, dtype=opcore.int64),
                opcore.empty(0, dtype=opcore.int64))
        got = opcore._embedding_bag(w, idx, off, False, mode, out=outs)
        for g, o, e in zip(got, outs, expected):
            assert g is o and g.tolist() == e.tolist()


def test_embedding_bag_bfloat16_sums_in_float():
    # 300 rows of 1 + 2^-7: bfloat16 sums rounded at each step would stall at 256
    w = opcore.full((1, 2), 1.0 + 2 ** -7, dtype=opcore.bfloat16)
    idx = opcore.zeros(300, dtype=opcore.int64)
    out = F.embedding_bag(idx, w, opcore.tensor([0]), mode="sum")
    assert out.float().tolist() == [[302.0, 302.0]]
    grad = opcore._embedding_bag_dense_backward(opcore.ones(1, 2, dtype=opcore.bfloat16), idx,
                                                opcore.zeros(300, dtype=opcore.int64), opcore.zeros(1, dtype=opcore.int64),
                                                opcore.zeros(1, dtype=opcore.int64), 1, False, 0, None)
    assert grad.float().tolist() == [[300.0, 300.0]]


def test_embedding_bag_gradient_is_the_same_on_one_and_two_threads():
    opcore.manual_seed(0)
    w = opcore.randn(50, 64)
    idx = opcore.tensor(np.random.default_rng(0).integers(0, 50, 4000))
    off = opcore.arange(0, 4000, 8)
    threads = opcore.get_num_threads()
    try:
        results = []
        for n in (1, 2):
            opcore.set_num_threads(n)
            out, bags, sizes, maxima = opcore._embedding_bag(w, idx, off, False, 1)
            g = opcore._embedding_bag_dense_backward(opcore.ones_like(out), idx, bags, sizes, maxima, 50, False, 1, None)
            results.append((out, g))
        assert results[0][0].tolist() == results[1][0].tolist() and results[0][1].tolist() == results[1][1].tolist()
    finally:
        opcore.set_num_threads(threads)


def test_embedding_bag_errors():
    w = opcore.randn(6, 3)
    idx, off = opcore.tensor([0, 2, 5]), opcore.tensor([0, 2])
    with pytest.raises(RuntimeError, match="padding_idx must be within the number of embeddings, -6 through 5"):
        F.embedding_bag(idx, w, off, padding_idx=-7)
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(idx.view(1, 3), w, off)
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor"):
        F.embedding_bag(idx, w, off.view(1, 2))
    with pytest.raises(ValueError, match="input has to be 1D or 2D Tensor, but got Tensor of dimension 3"):
        F.embedding_bag(idx.view(1, 1, 3), w)
    with pytest.raises(ValueError, match="max mode does not support scaling the gradient by the frequency"):
        F.embedding_bag(idx, w, off, mode="max", scale_grad_by_freq=True)
    with pytest.raises(ValueError, match="max mode does not support sparse weights"):
        F.embedding_bag(idx, w, off, mode="max", sparse=True)
    with pytest.raises(ValueError, match=r"If per_sample_weights \(.*\) is not None, then it must have the same shape"):
        F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=opcore.ones(2))
    with pytest.raises(NotImplementedError, match="sparse=True asks for a sparse gradient"):
        F.embedding_bag(idx, w.requires_grad_(), off, sparse=True).sum().backward()
    with pytest.raises(RuntimeError, match="found idx to be 6"):
        F.embedding_bag(opcore.tensor([6]), w, opcore.tensor([0]))
    with pytest.raises(RuntimeError, match="offsets must not decrease"):
        F.embedding_bag(idx, w, opcore.tensor([0, 2, 1]))
    # as PyTorch's, the backward operators take no gradient
    g = opcore.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="_embedding_bag_dense_backward"):
        opcore._embedding_bag_dense_backward(g, idx, opcore.tensor([0, 0, 1]), opcore.tensor([2, 1]),
                                             opcore.tensor([2, 1]), 6, False, 1, None).sum().backward()


@needs_torch
def test_embedding_bag_signature_and_max_norm_match_torch():
    def parameters(f):
        return [(p.name, p.default) for p in inspect.signature(f).parameters.values()]
    assert parameters(F.embedding_bag) == parameters(TF.embedding_bag)
    tw = torch.randn(6, 3, dtype=torch.float64) * 3
    w = _eb_tensor(tw)
    idx, off = [0, 2, 5, 2], [0, 2]
    expected = TF.embedding_bag(torch.tensor(idx), tw, torch.tensor(off), max_norm=1.5, mode="sum")
    out = F.embedding_bag(opcore.tensor(idx), w, opcore.tensor(off), max_norm=1.5, mode="sum")
    np.testing.assert_allclose(out.numpy(), expected.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.numpy(), tw.numpy(), rtol=1e-12)  # the rows named, renormalized in place
