"""Autograd from Python: backward() and opcore.autograd.grad, grad modes, hooks, and
opcore.autograd.Function checked by gradcheck (runtime/opcore/python/Autograd.cpp,
python/opcore/autograd/)."""
import threading

import pytest

import opcore
from opcore.autograd import Function, GradcheckError, gradcheck

from isolated import describe, run_python


def leaf(values, dtype=opcore.float32):
    return opcore.tensor(values, dtype=dtype, requires_grad=True)


# --- backward and grad ---------------------------------------------------------------------------


def test_backward_of_a_scalar():
    x = leaf([1.0, 2.0, 3.0])
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    assert x.grad.dtype is opcore.float32
    assert x.grad.requires_grad is False


def test_backward_with_gradient():
    x = leaf([1.0, 2.0, 3.0])
    (x * x).backward(opcore.tensor([1.0, 1.0, 2.0]))
    assert x.grad.tolist() == [2.0, 4.0, 12.0]
    y = leaf([1.0, 2.0])
    (y * 3).backward(gradient=opcore.tensor([1.0, -1.0]))
    assert y.grad.tolist() == [3.0, -3.0]


def test_backward_of_a_non_scalar_needs_a_gradient():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * x).backward()


def test_backward_of_a_tensor_without_graph_raises():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        opcore.ones(2).sum().backward()


def test_backward_argument_errors():
    x = leaf([1.0, 2.0])
    with pytest.raises(TypeError, match="backward\\(\\): gradient must be a Tensor or None"):
        (x * 1).sum().backward(gradient=3)
    with pytest.raises(TypeError, match="backward\\(\\): retain_graph must be a bool or None"):
        (x * 1).sum().backward(retain_graph=1)
    with pytest.raises(TypeError, match="'foo' is an invalid keyword argument for backward\\(\\)"):
        (x * 1).sum().backward(foo=1)


def test_grad_accumulates():
    x = leaf([1.0, 2.0])
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
    x.grad = None
    (x * 4).sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_retain_graph():
    x = leaf([1.0, 2.0, 3.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0, 12.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_create_graph_gives_second_derivatives():
    x = leaf([1.0, 2.0, 3.0])
    (x * x * x).sum().backward(create_graph=True)
    first = x.grad
    assert first.tolist() == [3.0, 12.0, 27.0]
    assert first.requires_grad
    x.grad = None
    first.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0, 18.0]  # d/dx 3x^2


def test_autograd_grad():
    x = leaf([1.0, 2.0, 3.0])
    (g,) = opcore.autograd.grad((x * x * x).sum(), x, create_graph=True)
    assert g.tolist() == [3.0, 12.0, 27.0]
    assert g.requires_grad
    (gg,) = opcore.autograd.grad(g.sum(), [x])
    assert gg.tolist() == [6.0, 12.0, 18.0]
    assert x.grad is None  # grad() does not touch .grad


def test_autograd_grad_with_grad_outputs_and_several_inputs():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    gx, gw = opcore.autograd.grad([x * w], [x, w], [opcore.tensor([1.0, 10.0])])
    assert gx.tolist() == [3.0, 40.0]
    assert gw.tolist() == [1.0, 20.0]
    (gx,) = opcore.autograd.grad([x.sum(), (x * 2).sum()], [x])
    assert gx.tolist() == [3.0, 3.0]


def test_autograd_grad_allow_unused():
    x, unused = leaf([1.0, 2.0]), leaf([1.0])
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        opcore.autograd.grad((x * 2).sum(), [x, unused])
    gx, gu = opcore.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0, 2.0]
    assert gu is None


def test_autograd_backward_function():
    x = leaf([1.0, 2.0])
    opcore.autograd.backward([(x * 2).sum()])
    assert x.grad.tolist() == [2.0, 2.0]
    opcore.autograd.backward(x * 1, opcore.tensor([1.0, 3.0]))
    assert x.grad.tolist() == [3.0, 5.0]
    other = leaf([1.0])
    opcore.autograd.backward((x.sum() * other).sum(), inputs=[other])
    assert other.grad.tolist() == [3.0]
    assert x.grad.tolist() == [3.0, 5.0]
    with pytest.raises(RuntimeError, match="got 2 gradients for 1 tensors"):
        opcore.autograd.backward([x.sum()], [None, None])


def test_backward_inputs():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (x * w).sum().backward(inputs=[x])
    assert x.grad.tolist() == [3.0, 4.0]
    assert w.grad is None


# --- grad modes -----------------------------------------------------------------------------------


def test_no_grad_and_enable_grad_context_managers():
    x = leaf([1.0])
    assert opcore.is_grad_enabled()
    with opcore.no_grad():
        assert not opcore.is_grad_enabled()
        y = x * 2
        assert not y.requires_grad and y.grad_fn is None
        with opcore.enable_grad():
            assert opcore.is_grad_enabled()
            assert (x * 2).requires_grad
        assert not opcore.is_grad_enabled()
    assert opcore.is_grad_enabled()
    assert (x * 2).requires_grad


def test_grad_mode_is_restored_after_an_exception():
    with pytest.raises(KeyError):
        with opcore.no_grad():
            raise KeyError("x")
    assert opcore.is_grad_enabled()


def test_grad_modes_as_decorators():
    x = leaf([1.0])

    @opcore.no_grad()
    def without():
        return opcore.is_grad_enabled(), (x * 2).requires_grad

    @opcore.enable_grad()
    def with_grad():
        return opcore.is_grad_enabled(), (x * 2).requires_grad

    assert without() == (False, False)
    assert opcore.is_grad_enabled()
    with opcore.no_grad():
        assert with_grad() == (True, True)
        assert not opcore.is_grad_enabled()
    assert without.__name__ == "without"


def test_set_grad_enabled():
    x = leaf([1.0])
    opcore.set_grad_enabled(False)
    try:
        assert not opcore.is_grad_enabled()
        assert not (x * 2).requires_grad
    finally:
        opcore.set_grad_enabled(True)
    assert opcore.is_grad_enabled()
    with opcore.set_grad_enabled(False):
        assert not opcore.is_grad_enabled()
    assert opcore.is_grad_enabled()
    with opcore.no_grad():
        with opcore.set_grad_enabled(True):
            assert (x * 2).requires_grad
        assert not opcore.is_grad_enabled()

    @opcore.set_grad_enabled(False)
    def decorated():
        return opcore.is_grad_enabled()

    assert opcore.is_grad_enabled()  # decorating does not change the mode
    assert decorated() is False
    assert opcore.is_grad_enabled()
    with pytest.raises(TypeError, match="mode must be a bool, not int"):
        opcore.set_grad_enabled(1)
    assert opcore.is_grad_enabled()


def test_inference_mode():
    x = leaf([1.0])
    assert not opcore.is_inference_mode_enabled()
    with opcore.inference_mode():
        assert opcore.is_inference_mode_enabled()
        assert not opcore.is_grad_enabled()
        y = x * 2
        assert not y.requires_grad and y.grad_fn is None
    assert not opcore.is_inference_mode_enabled()
    assert opcore.is_grad_enabled()
    with opcore.inference_mode(False):
        assert not opcore.is_inference_mode_enabled()
        assert (x * 2).requires_grad

    @opcore.inference_mode()
    def inside():
        return opcore.is_inference_mode_enabled(), (x * 2).requires_grad

    assert inside() == (True, False)
    assert not opcore.is_inference_mode_enabled()


def test_inference_mode_skips_version_counting():
    t = opcore.zeros(2)
    before = t._version
    with opcore.inference_mode():
        t.add_(1)
        t.mul_(3)
    assert t.tolist() == [3.0, 3.0]
    assert t._version == before
    t.add_(1)
    assert t._version == before + 1


def test_grad_mode_is_thread_local():
    seen = []
    with opcore.no_grad():
        worker = threading.Thread(target=lambda: seen.append(opcore.is_grad_enabled()))
        worker.start()
        worker.join()
    assert seen == [True]


# --- requires_grad_, detach, retain_grad ---------------------------------------------------------


def test_requires_grad_():
    a = opcore.ones(2)
    assert a.requires_grad_() is a
    assert a.requires_grad and a.is_leaf
    assert a.requires_grad_(False) is a
    assert not a.requires_grad
    assert a.requires_grad_(requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype can require gradients"):
        opcore.ones(2, dtype=opcore.int64).requires_grad_()


def test_detach():
    x = leaf([1.0, 2.0])
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    assert d.data_ptr() == y.data_ptr()
    d[0] = 10.0
    assert y[0].item() == 10.0
    assert y.requires_grad


def test_detach_():
    x = leaf([1.0, 2.0])
    y = x * 2
    assert y.detach_() is y
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf


def test_retain_grad():
    x = leaf([1.0, 2.0])
    h = x * 2
    h.retain_grad()
    assert h.retains_grad
    (h * h).sum().backward()
    assert h.grad.tolist() == [4.0, 8.0]
    assert x.grad.tolist() == [8.0, 16.0]
    other = x * 3
    (other * 1).sum().backward()
    assert other.grad is None  # not retained


# --- hooks ---------------------------------------------------------------------------------------


def test_hook_replaces_the_gradient():
    x = leaf([1.0, 2.0, 3.0])
    h = x * 1
    h.register_hook(lambda g: g * 10)
    h.sum().backward()
    assert x.grad.tolist() == [10.0, 10.0, 10.0]


def test_hook_returning_none_keeps_the_gradient():
    x = leaf([1.0, 2.0, 3.0])
    h = x * 2
    seen = []
    h.register_hook(lambda g: seen.append(g.tolist()))
    h.sum().backward()
    assert seen == [[1.0, 1.0, 1.0]]
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_hook_on_a_leaf():
    x = leaf([1.0, 2.0])
    handle = x.register_hook(lambda g: g * 3)
    (x * 1).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    handle.remove()
    x.grad = None
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_hook_handle_remove():
    x = leaf([1.0, 2.0])
    calls = []
    h = x * 1
    handle = h.register_hook(lambda g: calls.append(1))
    handle.remove()
    handle.remove()  # a second remove is harmless
    h.sum().backward()
    assert calls == []
    assert x.grad.tolist() == [1.0, 1.0]


def test_hooks_run_in_registration_order():
    x = leaf([1.0])
    h = x * 1
    h.register_hook(lambda g: g + 1)
    h.register_hook(lambda g: g * 10)
    h.sum().backward()
    assert x.grad.tolist() == [20.0]


def test_hook_that_raises_propagates_and_the_interpreter_keeps_working():
    class HookFailure(Exception):
        pass

    def bad(grad):
        raise HookFailure("boom from hook")

    x = leaf([1.0, 2.0])
    h = x * 1
    h.register_hook(bad)
    with pytest.raises(HookFailure, match="boom from hook"):
        h.sum().backward()
    with pytest.raises(KeyError):
        hk = x * 1
        hk.register_hook(lambda g: {}["missing"])
        hk.sum().backward()
    x.grad = None
    (x * 5).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]
    assert opcore.add(opcore.ones(1), 1).item() == 2.0


def test_hook_returning_a_wrong_value():
    x = leaf([1.0, 2.0, 3.0])
    h = x * 1
    h.register_hook(lambda g: 3)
    with pytest.raises(TypeError, match="a hook returned int \\(expected a Tensor or None\\)"):
        h.sum().backward()
    h2 = x * 1
    h2.register_hook(lambda g: opcore.ones(5))
    with pytest.raises(RuntimeError,
                       match="invalid gradient at index 0 - got \\[5\\] but expected shape compatible with \\[3\\]"):
        h2.sum().backward()


def test_register_hook_errors():
    with pytest.raises(TypeError, match="register_hook\\(\\): hook must be callable, not int"):
        leaf([1.0]).register_hook(3)
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        opcore.ones(2).register_hook(lambda g: g)


# --- opcore.autograd.Function -----------------------------------------------------------------------


class Cube(Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.save_for_backward(x)
        ctx.k = k
        ctx.grad_enabled_in_forward = opcore.is_grad_enabled()
        return x * x * x * k

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        Cube.needs = ctx.needs_input_grad
        return grad * 3 * x * x * ctx.k, None


class MulAdd(Function):
    """(a * b, a + b), saving both inputs."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b, a + b

    @staticmethod
    def backward(ctx, grad_mul, grad_add):
        a, b = ctx.saved_tensors
        MulAdd.needs = ctx.needs_input_grad
        return grad_mul * b + grad_add, grad_mul * a + grad_add


def test_function_forward_and_backward():
    x = leaf([1.0, 2.0], dtype=opcore.float64)
    y = Cube.apply(x, 2.0)
    assert y.tolist() == [2.0, 16.0]
    assert y.requires_grad
    assert y.grad_fn.name() == "CubeBackward"
    assert y.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 24.0]
    assert Cube.needs == (True, False)


def test_function_forward_runs_without_grad():
    x = leaf([1.0], dtype=opcore.float64)
    ctx_probe = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, t):
            ctx_probe.append((opcore.is_grad_enabled(), (t * 2).requires_grad))
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    Probe.apply(x)
    assert ctx_probe == [(False, False)]
    assert opcore.is_grad_enabled()


def test_function_saved_tensors_and_needs_input_grad():
    a = leaf([1.0, 2.0], dtype=opcore.float64)
    b = opcore.tensor([3.0, 4.0], dtype=opcore.float64)
    p, q = MulAdd.apply(a, b)
    assert p.tolist() == [3.0, 8.0] and q.tolist() == [4.0, 6.0]
    assert p.grad_fn == q.grad_fn
    (p.sum() + q.sum()).backward()
    assert MulAdd.needs == (True, False)
    assert a.grad.tolist() == [4.0, 5.0]


def test_function_under_no_grad_records_nothing():
    x = leaf([1.0], dtype=opcore.float64)
    with opcore.no_grad():
        y = Cube.apply(x, 1.0)
    assert not y.requires_grad and y.grad_fn is None


def test_function_returning_its_input():
    class Identity(Function):
        @staticmethod
        def forward(ctx, t):
            return t

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = leaf([1.0, 2.0])
    y = Identity.apply(x)
    assert y is not x
    assert y.grad_fn.name() == "IdentityBackward"
    assert x.is_leaf and x.grad_fn is None
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_gradcheck_passes_for_a_correct_function():
    x = leaf([1.0, 2.0], dtype=opcore.float64)
    assert gradcheck(lambda t: Cube.apply(t, 2.0), (x,)) is True
    a = leaf([1.0, 2.0], dtype=opcore.float64)
    b = leaf([3.0, -4.0], dtype=opcore.float64)
    assert gradcheck(MulAdd.apply, (a, b)) is True
    assert gradcheck(opcore.tanh, (leaf([0.5, -1.0], dtype=opcore.float64),)) is True
    assert gradcheck(lambda u, v: (u @ v).sum(), (leaf([[1.0, 2.0]], dtype=opcore.float64),
                                                 leaf([[3.0], [4.0]], dtype=opcore.float64))) is True


def test_gradcheck_detects_a_wrong_backward():
    class WrongSquare(Function):
        @staticmethod
        def forward(ctx, t):
            return t * t

        @staticmethod
        def backward(ctx, g):
            return g * 3  # should be 2 * t * g

    x = leaf([1.0, 2.0], dtype=opcore.float64)
    with pytest.raises(GradcheckError) as info:
        gradcheck(WrongSquare.apply, (x,))
    assert "Jacobian mismatch for output 0 with respect to input 0" in str(info.value)
    assert "analytical 3.0" in str(info.value)
    assert isinstance(info.value, RuntimeError)
    assert gradcheck(WrongSquare.apply, (x,), raise_exception=False) is False


def test_gradcheck_wants_float64():
    with pytest.raises(GradcheckError, match="input 0 is opcore.float32; use float64 inputs"):
        gradcheck(lambda t: (t * t).sum(), leaf([1.0, 2.0]))


def test_function_backward_returning_too_many_gradients():
    class TooMany(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match="TooManyBackward: backward returned 2 gradients, but forward took 1 input"):
        TooMany.apply(leaf([1.0])).sum().backward()


def test_function_backward_returning_too_few_gradients():
    class TooFew(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="TooFewBackward: backward returned 1 gradient, but forward took 2 inputs"):
        TooFew.apply(x, x).sum().backward()


def test_function_backward_returning_a_gradient_for_a_non_tensor_input():
    class Extra(Function):
        @staticmethod
        def forward(ctx, t, k):
            return t * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match="backward returned a gradient for input 1, which is not a Tensor"):
        Extra.apply(leaf([1.0]), 2.0).sum().backward()


def test_function_backward_that_raises_propagates():
    class Raises(Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            raise ZeroDivisionError("from backward")

    with pytest.raises(ZeroDivisionError, match="from backward"):
        Raises.apply(leaf([1.0])).sum().backward()
    x = leaf([1.0])
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0]


def test_function_forward_returning_a_non_tensor():
    class NotTensor(Function):
        @staticmethod
        def forward(ctx, t):
            return 3

    with pytest.raises(TypeError, match="forward must return a Tensor or a tuple of Tensors, not int"):
        NotTensor.apply(leaf([1.0]))


def test_function_without_forward():
    with pytest.raises(NotImplementedError, match="must define forward"):
        Function.apply(leaf([1.0]))


def test_save_for_backward_takes_tensors_only():
    class SavesJunk(Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t, 3)
            return t

    with pytest.raises(TypeError, match="save_for_backward\\(\\) takes tensors or None, not int"):
        SavesJunk.apply(leaf([1.0]))


def test_function_backward_returning_a_non_tensor_gradient_is_an_error():
    # A malformed backward must raise TypeError, not crash: run it in a child interpreter.
    proc = run_python("""
        import opcore
        from opcore.autograd import Function

        class NotAGradient(Function):
            @staticmethod
            def forward(ctx, t):
                return t * 2

            @staticmethod
            def backward(ctx, g):
                return 3

        x = opcore.ones(2, requires_grad=True)
        try:
            NotAGradient.apply(x).sum().backward()
        except TypeError as e:
            print("TypeError:", e)
        (x * 2).sum().backward()
        print("grad", x.grad.tolist())
    """)
    assert proc.returncode == 0, describe(proc)
    assert "TypeError: NotAGradientBackward: backward returned int as the gradient of input 0" in proc.stdout
    assert "grad [2.0, 2.0]" in proc.stdout


class Exp(Function):
    """exp, saving its output (saved without its grad_fn: Note [Python Function nodes])."""

    @staticmethod
    def forward(ctx, t):
        y = opcore.exp(t)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


def test_function_saving_its_output():
    x = leaf([0.0, 1.0], dtype=opcore.float64)
    assert gradcheck(Exp.apply, (x,)) is True
    y = Exp.apply(x)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx([2.0, 2.0 * 2.718281828459045])


def test_function_backward_twice_without_retain_graph_raises():
    x = leaf([0.0, 1.0], dtype=opcore.float64)
    y = Exp.apply(x)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()


def test_function_with_create_graph():
    class Square(Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * t

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return 2 * t * g

    x = leaf([1.0, 3.0], dtype=opcore.float64)
    (g,) = opcore.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 6.0]
    assert g.requires_grad
    (gg,) = opcore.autograd.grad(g.sum(), x)
    assert gg.tolist() == [2.0, 2.0]


def test_backward_with_hooks_from_several_threads():
    errors = []

    def work():
        try:
            for _ in range(50):
                x = opcore.rand(20, 20, requires_grad=True)
                h = x @ x
                h.register_hook(lambda g: g * 2)
                h.sum().backward()
                assert x.grad.shape == (20, 20)
                with opcore.no_grad():
                    assert not (x * 2).requires_grad
        except Exception as e:  # noqa: BLE001  reported below
            errors.append(repr(e))

    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert errors == []
