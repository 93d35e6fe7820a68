"""opcore.nn.functional: the operators declared with `python_module: nn` (bound into
opcore._C._nn, re-exported by python/opcore/nn/functional.py)."""
import pytest

import opcore
import opcore.nn.functional as F


def test_python_module_functions_live_in_their_submodule():
    assert F.mse_loss is opcore._C._nn.mse_loss
    assert not hasattr(opcore, "mse_loss")  # not a top-level function, as in torch
    from opcore._C._nn import mse_loss  # importable by name too
    assert mse_loss is F.mse_loss
    assert "mse_loss(input: Tensor, target: Tensor, reduction: int = 1) -> Tensor" in F.mse_loss.__doc__


def test_mse_loss_values_and_reductions():
    a = opcore.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = opcore.tensor([0.0, 4.0])  # broadcast over the rows
    assert F.mse_loss(a, b).item() == pytest.approx((1 + 4 + 9 + 0) / 4)
    assert F.mse_loss(a, b, reduction=2).item() == 14.0
    assert F.mse_loss(a, b, 0).tolist() == [[1.0, 4.0], [9.0, 0.0]]
    with pytest.raises(RuntimeError, match=r"mse_loss\(\): reduction must be 0 \(none\), 1 \(mean\) or 2 \(sum\), got 7"):
        F.mse_loss(a, b, reduction=7)
    with pytest.raises(TypeError, match=r"mse_loss\(\): argument 'target' must be Tensor, not str"):
        F.mse_loss(a, "b")


def test_mse_loss_gradient():
    x = opcore.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=opcore.float64, requires_grad=True)
    y = opcore.tensor([[1.0, 1.0], [1.0, 1.0]], dtype=opcore.float64)
    F.mse_loss(x, y).backward()
    assert x.grad.reshape(-1).tolist() == pytest.approx([2 * (0.5 - 1) / 4, 2 * (-2.0) / 4, 2 * 1.0 / 4, 2 * (-0.75) / 4])
    assert opcore.autograd.gradcheck(lambda t: F.mse_loss(t, y, reduction=2), (x,))


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
