"""The Python dispatch key: TorchDispatchMode, tensor subclasses with __torch_dispatch__, and
OpOverload.py_impl (Note [The Python dispatch key] in opcore/utils/_python_dispatch.py)."""
import threading

import pytest

import opcore
from opcore import DispatchKey, ops
from opcore.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode


class Log(TorchDispatchMode):
    def __init__(self, name="log", record=None):
        self.name, self.calls = name, record if record is not None else []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append((self.name, str(func)))
        return func(*args, **(kwargs or {}))


def test_every_call_under_a_mode_reaches_it_with_the_op_overload():
    seen = []

    class Capture(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((func, types, args, kwargs))
            return func(*args, **kwargs)

    a = opcore.tensor([1.0, 2.0])
    with Capture():
        r = opcore.add(a, a, alpha=2)
    assert r.tolist() == [3.0, 6.0]
    (func, types, args, kwargs), = seen
    assert func is ops.aten.add.Tensor
    assert types == () and args[0].tolist() == [1.0, 2.0] and kwargs == {"alpha": 2}


def test_a_mode_can_rewrite_results():
    class Double(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            return func.overloadpacket(out, out) if func is ops.aten.add.Tensor else out

    with Double():
        assert (opcore.ones(1) + opcore.ones(1)).tolist() == [4.0]


def test_a_mode_passes_on_the_undefined_results_of_a_call_as_none():
    # conv2d's backward asks convolution_backward for no gradient of x: that result is
    # undefined, reaches the mode as None, and goes back to the caller as it came (torch's too).
    x, w = opcore.rand(2, 1, 5, 5), opcore.rand(3, 1, 3, 3, requires_grad=True)
    opcore.nn.functional.conv2d(x, w).sum().backward()
    expected, w.grad = w.grad, None
    with Log() as mode:
        opcore.nn.functional.conv2d(x, w).sum().backward()
    assert ("log", "aten.convolution_backward.default") in mode.calls
    assert w.grad.tolist() == expected.tolist()


def test_modes_nest_innermost_first_and_each_calls_the_dispatcher_below_itself():
    calls = []
    with Log("outer", calls), Log("inner", calls):
        opcore.ones(1) * 2
    assert calls == [("inner", "aten.ones.default"), ("outer", "aten.ones.default"),
                     ("inner", "aten.mul.Scalar"), ("outer", "aten.mul.Scalar")]
    assert _get_current_dispatch_mode() is None
    assert not opcore._C._dispatch_tls_is_dispatch_key_included(DispatchKey.Python)


def test_modes_see_calls_below_autograd_and_the_graph_is_recorded_above_them():
    a = opcore.tensor([1.0, 2.0], requires_grad=True)
    with Log() as mode:
        loss = (a * a).sum()
    assert ("log", "aten.mul.Tensor") in mode.calls
    assert loss.grad_fn is not None
    loss.backward()
    assert a.grad.tolist() == [2.0, 4.0]


def test_a_mode_is_per_thread():
    calls, other = [], []
    with Log("main", calls):
        t = threading.Thread(target=lambda: other.append((opcore.ones(1) + 1).tolist()))
        t.start()
        t.join()
    assert other == [[2.0]] and all(name == "main" for name, _ in calls)
    assert ("main", "aten.add.Scalar") not in calls  # the thread's call did not reach the mode


def test_exiting_modes_out_of_order_is_an_error():
    a, b = Log("a"), Log("b")
    a.__enter__()
    b.__enter__()
    with pytest.raises(RuntimeError, match="reverse order"):
        a.__exit__(None, None, None)
    # a was popped by the failed exit; leave the stack empty
    from opcore.utils import _python_dispatch as pd
    while pd._get_current_dispatch_mode() is not None:
        pd._pop_mode()
    assert not opcore._C._dispatch_tls_is_dispatch_key_included(DispatchKey.Python)


def test_an_exception_raised_in_a_mode_propagates_unchanged():
    class Boom(Exception):
        pass

    class Raises(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            raise Boom(str(func))

    with pytest.raises(Boom, match="aten.ones.default") as info:
        with Raises():
            opcore.ones(1)
    assert type(info.value) is Boom
    assert _get_current_dispatch_mode() is None


class Wrapper(opcore.Tensor):
    """A wrapper subclass that logs every operator and runs it on the tensor it wraps."""
    log = []

    @staticmethod
    def __new__(cls, elem):
        r = opcore.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype,
                                                 requires_grad=elem.requires_grad)
        r.elem = elem
        return r

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        cls.log.append(str(func))
        unwrap = lambda x: x.elem if isinstance(x, Wrapper) else x  # noqa: E731
        out = func(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in (kwargs or {}).items()})
        wrap = lambda x: Wrapper(x) if isinstance(x, opcore.Tensor) else x  # noqa: E731
        return tuple(wrap(o) for o in out) if isinstance(out, tuple) else wrap(out)


@pytest.fixture(autouse=True)
def _clear_log():
    Wrapper.log.clear()


def test_a_wrapper_subclass_has_the_metadata_the_python_key_and_no_data():
    w = Wrapper(opcore.ones(2, 3))
    assert type(w) is Wrapper and w.shape == (2, 3) and w.dtype == opcore.float32
    assert opcore._C._dispatch_keys(w).has(DispatchKey.Python)
    assert not opcore._C._dispatch_keys(opcore.ones(1)).has(DispatchKey.Python)
    assert repr(w).startswith("Wrapper(size=(2, 3)")
    with pytest.raises(RuntimeError, match="no data of its own"):
        w.tolist()
    with pytest.raises(TypeError, match="subclass of opcore.Tensor"):
        opcore.Tensor._make_wrapper_subclass(int, (2,))


def test_every_call_on_a_wrapper_reaches_its_torch_dispatch_and_results_stay_subclasses():
    w = Wrapper(opcore.tensor([1.0, 2.0]))
    r = (w + w) * 3
    assert type(r) is Wrapper and r.elem.tolist() == [6.0, 12.0]
    assert Wrapper.log == ["aten.add.Tensor", "aten.mul.Scalar"]
    values, indices = opcore.max(Wrapper(opcore.tensor([[1.0, 4.0]])), 1)
    assert type(values) is Wrapper and values.elem.tolist() == [4.0]


def test_a_wrapper_keeps_its_class_and_attributes_while_only_cpp_holds_it():
    a = Wrapper(opcore.tensor([1.0, 2.0]))
    a.requires_grad_()
    a.note = "kept"
    y = a * 2  # the graph's AccumulateGrad node holds a's tensor
    del a      # the Python object goes; C++ still holds the tensor
    back = y.grad_fn.next_functions[0][0].variable
    assert type(back) is Wrapper and back.note == "kept" and back.elem.tolist() == [1.0, 2.0]
    assert y.grad_fn.next_functions[0][0].variable is back  # one object again while Python holds it
    y.sum().backward()
    assert back.grad.elem.tolist() == [2.0, 2.0]


def test_autograd_runs_on_top_of_a_subclass():
    a = Wrapper(opcore.tensor([1.0, 2.0]))
    a.requires_grad_()
    loss = (a * a).sum()
    assert type(loss) is Wrapper and loss.grad_fn is not None
    loss.backward()
    assert type(a.grad) is Wrapper
    assert a.grad.elem.tolist() == [2.0, 4.0]
    assert "aten.mul.Tensor" in Wrapper.log  # the backward formula's ops reached the subclass too


def test_mode_first_then_subclass():
    calls = []
    w = Wrapper(opcore.ones(1))
    with Log("mode", calls):
        w + w
    assert calls == [("mode", "aten.add.Tensor")]
    assert Wrapper.log == ["aten.add.Tensor"]


def test_py_impl_for_a_mode_or_a_subclass_replaces_its_torch_dispatch_for_that_operator():
    op = ops.aten.sub.Tensor

    class Quiet(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    @op.py_impl(Quiet)
    def sub_under_quiet(mode, a, b, alpha=1):
        return opcore.full(a.shape, 42.0)

    with Quiet():
        assert (opcore.ones(1) - opcore.ones(1)).tolist() == [42.0]
        assert (opcore.ones(1) + opcore.ones(1)).tolist() == [2.0]
    with pytest.raises(RuntimeError, match="already registered"):
        op.py_impl(Quiet)(sub_under_quiet)

    class Other(Wrapper):
        pass

    @op.py_impl(Other)
    def sub_other(a, b, alpha=1):
        return Other(opcore.full(a.shape, 7.0))

    assert (Other(opcore.ones(1)) - Other(opcore.ones(1))).elem.tolist() == [7.0]


def test_the_python_key_included_by_hand_without_a_mode_goes_on_to_the_kernels():
    opcore._C._dispatch_tls_set_dispatch_key_included(DispatchKey.Python, True)
    try:
        assert (opcore.ones(2) * 3).tolist() == [3.0, 3.0]
    finally:
        opcore._C._dispatch_tls_set_dispatch_key_included(DispatchKey.Python, False)


def test_a_subclass_without_torch_dispatch_is_a_clear_error():
    class Bare(opcore.Tensor):
        pass
    b = opcore.Tensor._make_wrapper_subclass(Bare, (2,))
    with pytest.raises(TypeError, match="Multiple dispatch failed for 'aten.add.Tensor'"):
        b + b


def test_a_mode_sees_the_very_objects_the_caller_passed_and_the_caller_gets_the_ones_it_returns():
    seen = []

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append((func, args, kwargs))
            out = func(*args, **(kwargs or {}))
            seen.append(out)
            return out

    a, b, out = opcore.ones(2), opcore.ones(2), opcore.empty(2)
    with Record():
        r = opcore.add(a, b, alpha=2)
        r_out = opcore.add(a, b, out=out)
        r_inplace = a.add_(b)
    (_, args0, _), result0, (_, args1, kwargs1), result1, (_, args2, _), result2 = seen
    assert args0[0] is a and args0[1] is b and result0 is r
    assert args1[0] is a and kwargs1["out"] is out and result1 is out and r_out is out
    assert args2[0] is a and result2 is a and r_inplace is a
