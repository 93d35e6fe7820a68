"""HigherOrderOperator: a `cond` operator written in Python with CPU, Autograd and Meta
kernels, dispatched on the same keys a C++ call computes (seed 000, section 4.3)."""
import pytest

import opcore
from opcore import DispatchKey, ops
from opcore._ops import HigherOrderOperator, _AutoDispatchBelowAutograd, _compute_keyset
from opcore.utils._python_dispatch import TorchDispatchMode


class Cond(HigherOrderOperator):
    def __init__(self):
        super().__init__("cond_for_tests")

    def __call__(self, pred, true_fn, false_fn, operands):
        return super().__call__(pred, true_fn, false_fn, operands)


cond = Cond()


@cond.py_impl(DispatchKey.CPU)
def cond_cpu(pred, true_fn, false_fn, operands):
    return true_fn(*operands) if pred.item() else false_fn(*operands)


@cond.py_impl(DispatchKey.Meta)
def cond_meta(pred, true_fn, false_fn, operands):
    a, b = true_fn(*operands), false_fn(*operands)
    if a.shape != b.shape or a.dtype != b.dtype:
        raise RuntimeError(f"cond: the branches differ: {a.shape} {a.dtype} vs {b.shape} {b.dtype}")
    return a


class CondAutograd(opcore.autograd.Function):
    @staticmethod
    def forward(ctx, pred, true_fn, false_fn, *operands):
        ctx.branch = true_fn if pred.item() else false_fn
        ctx.save_for_backward(*operands)
        with _AutoDispatchBelowAutograd():
            return cond(pred, true_fn, false_fn, operands)

    @staticmethod
    def backward(ctx, grad):
        inputs = [x.detach().requires_grad_() for x in ctx.saved_tensors]
        with opcore.enable_grad():
            out = ctx.branch(*inputs)
        grads = opcore.autograd.grad(out, inputs, grad)
        return (None, None, None, *grads)


@cond.py_impl(DispatchKey.Autograd)
def cond_autograd(pred, true_fn, false_fn, operands):
    # Every call reaches the Autograd kernel first (every tensor has the key, as in torch);
    # with nothing to differentiate it goes on below autograd, as torch's cond does.
    if not (opcore.is_grad_enabled() and any(x.requires_grad for x in operands)):
        with _AutoDispatchBelowAutograd():
            return cond(pred, true_fn, false_fn, operands)
    return CondAutograd.apply(pred, true_fn, false_fn, *operands)


def double(x):
    return x + x


def square(x):
    return x * x


def test_it_lives_in_the_higher_order_namespace():
    assert ops.higher_order.cond_for_tests is cond
    assert cond.name() == "cond_for_tests" and cond.namespace == "higher_order"
    assert cond.__module__ == "opcore.ops.higher_order"
    assert "cond_for_tests" in list(ops.higher_order)
    with pytest.raises(AttributeError):
        ops.higher_order.no_such_hop


def test_the_base_class_cannot_be_instantiated():
    with pytest.raises(TypeError):  # abstract __call__
        HigherOrderOperator("x")


def test_cpu_kernel_picks_a_branch():
    x = opcore.tensor([3.0])
    assert cond(opcore.tensor(True), double, square, (x,)).tolist() == [6.0]
    assert cond(opcore.tensor(False), double, square, (x,)).tolist() == [9.0]
    assert cond._dispatch_cache[DispatchKey.CPU] is cond_cpu


def test_meta_kernel_checks_the_branches_agree():
    x = opcore.empty(2, device="meta")
    assert cond(opcore.empty((), device="meta"), double, square, (x,)).shape == (2,)
    with pytest.raises(RuntimeError, match="the branches differ"):
        cond(opcore.empty((), device="meta"), double, lambda x: x.sum(), (x,))


def test_autograd_kernel_runs_first_and_differentiates_the_branch_taken():
    x = opcore.tensor([3.0], requires_grad=True)
    y = cond(opcore.tensor(False), double, square, (x,))
    assert y.grad_fn is not None
    y.backward()
    assert x.grad.tolist() == [6.0]


def test_fallthrough_skips_a_key_and_py_impl_restores_it():
    class Plain(HigherOrderOperator):
        def __init__(self):
            super().__init__("plain_for_tests")

        def __call__(self, x):
            return super().__call__(x)
    plain = Plain()
    plain.py_impl(DispatchKey.CPU)(lambda x: x + 1)
    x = opcore.ones(1, requires_grad=True)
    with pytest.raises(NotImplementedError, match="plain_for_tests at dispatch key AutogradCPU"):
        plain(x)
    plain.fallthrough(DispatchKey.AutogradCPU)
    assert plain(x).tolist() == [2.0]
    plain.py_impl(DispatchKey.AutogradCPU)(lambda x: x + 10)
    assert plain.non_fallthrough_keys.has(DispatchKey.AutogradCPU)
    assert plain(x).tolist() == [11.0]
    with pytest.raises(RuntimeError, match="Trying to override a python impl for CPU"):
        plain.py_impl(DispatchKey.CPU)(lambda x: x)


def test_a_mode_needs_a_rule_and_gets_it_with_the_mode_popped():
    class Count(TorchDispatchMode):
        def __init__(self):
            self.calls = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    x = opcore.tensor([2.0])
    with pytest.raises(NotImplementedError, match="no rule registered for HOP cond_for_tests and mode"):
        with Count():
            cond(opcore.tensor(True), double, square, (x,))

    @cond.py_impl(Count)
    def cond_count(mode, pred, true_fn, false_fn, operands):
        mode.calls += 1
        return cond(pred, true_fn, false_fn, operands)  # the mode is popped: this reaches CPU

    with Count() as mode:
        assert cond(opcore.tensor(True), double, square, (x,)).tolist() == [4.0]
    assert mode.calls == 1


def test_the_autograd_kernel_runs_before_the_backend_kernel_as_the_dispatcher_orders_keys():
    order = []

    class Traced(HigherOrderOperator):
        def __init__(self):
            super().__init__("traced_for_tests")

        def __call__(self, x):
            return super().__call__(x)
    traced = Traced()

    @traced.py_impl(DispatchKey.CPU)
    def traced_cpu(x):
        order.append("CPU")
        return x * 2

    @traced.py_impl(DispatchKey.Autograd)
    def traced_autograd(x):
        order.append("Autograd")
        with _AutoDispatchBelowAutograd():
            return traced(x)

    x = opcore.ones(2, requires_grad=True)
    assert traced(x).tolist() == [2.0, 2.0]
    assert order == ["Autograd", "CPU"]
    # The tensor's keys, as torch's, less the keys a higher-order operator falls through (Autocast).
    assert _compute_keyset((x,), {}, traced.non_fallthrough_keys).highestPriorityTypeId() == DispatchKey.AutogradCPU
    order.clear()
    with opcore.no_grad():  # torch too: the Autograd kernel decides; grad mode does not skip it
        traced(x)
    assert order == ["Autograd", "CPU"]
    order.clear()
    with _AutoDispatchBelowAutograd():
        traced(x)
    assert order == ["CPU"]
