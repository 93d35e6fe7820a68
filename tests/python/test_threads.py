"""Python threads (issue #32): operators called from several threads, with autograd, while
another thread registers and removes Python kernels, operators and a fallback through
opcore.library; concurrent backward on independent graphs and on one shared graph. Every
result equals the one computed serially. The bindings release the GIL around every kernel and
backward call (callWithoutGil in runtime/opcore/python/Wrap.h), which the first test checks."""
import itertools
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import opcore
from opcore import ops
from opcore.autograd import Function
from opcore.library import Library, custom_op

_names = itertools.count()
_THREADS = 4


def _ns():
    return f"pythreads{next(_names)}"


def test_long_kernels_run_with_the_gil_released():
    """While one thread runs kernels, another runs Python code. With a switch interval of a
    second, a thread holding the GIL through a kernel would keep the main thread out for the
    whole loop; released inside each call, the main thread runs during the kernels."""
    x = opcore.ones(2_000_000)
    state = {"running": False}

    def work():
        state["running"] = True
        for _ in range(20):
            x.exp()
        state["running"] = False

    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    try:
        t = threading.Thread(target=work)
        t.start()
        seen = 0
        while t.is_alive() and seen < 100:
            seen += state["running"]
        t.join()
    finally:
        sys.setswitchinterval(old)
    assert seen == 100, "the main thread did not run while the other thread's kernels ran"


def _work(k, f):
    """Typed calls with autograd, a boxed call with autograd, a long kernel and a Python
    kernel: everything a thread computes for `k`, as plain values."""
    a, b = float(k % 5), float(k % 3 + 1)
    x = opcore.tensor([a, a + 1, a + 2], dtype=opcore.float64, requires_grad=True)
    w = opcore.tensor([b, b, 2 * b], dtype=opcore.float64, requires_grad=True)
    y = ((x + w) * x).sum()
    y.backward()
    z = ops.aten.add.Tensor(x, w, alpha=2)  # boxed, through the dispatcher
    gx, gw = opcore.autograd.grad((z * z).exp().sum(), (x, w))
    long = opcore.full((200_000,), a / 8).exp().sum().item()
    fx = f(opcore.tensor([a, b])).tolist()
    return (y.item(), x.grad.tolist(), w.grad.tolist(), z.tolist(), gx.tolist(), gw.tolist(), long, fx)


def test_threads_calling_operators_with_autograd_equal_serial_while_python_kernels_come_and_go():
    ns = _ns()
    lib = Library(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: x * 2, "CPU")  # a Python kernel: it takes the GIL back to run
    f = getattr(ops, ns).f
    ks = range(40)
    serial = [_work(k, f) for k in ks]
    assert serial[3][7] == [6.0, 2.0]

    stop = threading.Event()
    rounds = []

    def register():
        # New operators with Python kernels, a kernel for f at a key the callers' tensors do not
        # reach (f's table changes under them), and a fallback, each removed again.
        for i in itertools.count():
            if stop.is_set() and i >= 20:
                break
            more = Library(ns, "FRAGMENT")
            more.define(f"h{i}(Tensor x) -> Tensor")
            more.impl(f"h{i}", lambda x, i=i: x + i, "CPU")
            meta = Library(ns, "IMPL", "Meta")
            meta.impl("f", lambda x: x)
            fallback = Library("_", "IMPL", "AutocastPrivateUse1")
            fallback.fallback(lambda op, *args, **kwargs: op(*args, **kwargs))
            h = getattr(getattr(ops, ns), f"h{i}")
            rounds.append(h(opcore.tensor([1.0])).tolist() == [1.0 + i])
            fallback._destroy()
            meta._destroy()
            more._destroy()

    registrar = threading.Thread(target=register)
    registrar.start()
    try:
        with ThreadPoolExecutor(_THREADS) as pool:
            concurrent = list(pool.map(lambda k: _work(k, f), ks))
    finally:
        stop.set()
        registrar.join()
    assert concurrent == serial
    assert len(rounds) >= 20 and all(rounds)
    assert f"{ns}::h0" not in opcore._C._dispatch_get_all_op_names()
    assert f(opcore.tensor([1.0])).tolist() == [2.0]


def _graph(x, w):
    return ((x * w).exp() + x * x).sum()


def test_concurrent_backward_on_independent_graphs_and_a_shared_one_equals_serial():
    w = opcore.tensor([0.5, -0.25, 0.125], dtype=opcore.float64, requires_grad=True)  # shared, like a weight
    xs = [opcore.tensor([1.0 + t, 2.0 - t, 0.5 * t], dtype=opcore.float64, requires_grad=True)
          for t in range(_THREADS)]
    serial = [[g.tolist() for g in opcore.autograd.grad(_graph(x, w), (x, w))] for x in xs]
    shared_x = opcore.tensor([0.75, 1.5, -1.0], dtype=opcore.float64, requires_grad=True)
    shared_y = _graph(shared_x, w)
    (shared_serial,) = opcore.autograd.grad(shared_y, (shared_x,), retain_graph=True)
    rounds = 25

    def work(t):
        same = True
        for _ in range(rounds):
            gs = opcore.autograd.grad(_graph(xs[t], w), (xs[t], w))
            same = same and [g.tolist() for g in gs] == serial[t]
            (g,) = opcore.autograd.grad(shared_y, (shared_x,), retain_graph=True)
            same = same and g.tolist() == shared_serial.tolist()
            shared_y.backward(retain_graph=True)
        return same

    with ThreadPoolExecutor(_THREADS) as pool:
        assert list(pool.map(work, range(_THREADS))) == [True] * _THREADS
    # Every backward() added the same gradient into shared_x.grad: the sum is that of serial
    # additions, whatever their order.
    expected = opcore.zeros(3, dtype=opcore.float64)
    for _ in range(_THREADS * rounds):
        expected += shared_serial
    assert shared_x.grad.tolist() == expected.tolist()


class _Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad):
        g = grad * 3
        time.sleep(0.0005)  # the GIL released before saved_tensors is read: other threads run this node
        (x,) = ctx.saved_tensors
        return g * x * x


def test_concurrent_backward_through_python_nodes_hooks_and_a_custom_op_equals_serial():
    """Python-defined backward code (an autograd.Function, a custom op's registered backward,
    a hook on the leaf, retain_grad) shared by threads that differentiate one retained graph."""
    ns = _ns()

    @custom_op(f"{ns}::square", mutates_args=())
    def square(x: opcore.Tensor) -> opcore.Tensor:
        return x * x

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    square.register_autograd(lambda ctx, grad: grad * 2 * ctx.saved_tensors[0], setup_context=setup_context)

    def build():
        x = opcore.tensor([0.5, -1.5, 2.0], dtype=opcore.float64, requires_grad=True)
        x.register_hook(lambda g: g * 2)  # runs on every backward thread
        h = _Cube.apply(x) + square(x)
        h.retain_grad()
        return x, h, (h * h).sum()

    rounds = 20
    serial_x, serial_h, serial_y = build()
    for _ in range(_THREADS * rounds):
        serial_y.backward(retain_graph=True)
    x, h, y = build()

    def work(_):
        for _ in range(rounds):
            y.backward(retain_graph=True)

    with ThreadPoolExecutor(_THREADS) as pool:
        list(pool.map(work, range(_THREADS)))
    assert x.grad.tolist() == serial_x.grad.tolist()
    assert h.grad.tolist() == serial_h.grad.tolist()
