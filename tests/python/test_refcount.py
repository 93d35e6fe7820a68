"""Reference counting of the bindings: 100,000 calls of the hot paths leave the inputs' reference
counts, the number of live Python objects and Python's traced memory where they were."""
import gc
import sys
import tracemalloc
import weakref

import pytest

import opcore

CALLS = 100_000

a = opcore.ones(3)
b = opcore.ones(3)
out = opcore.empty(3)
target = opcore.zeros(3)
leaf = opcore.ones(3, requires_grad=True)
(leaf * 2).sum().backward()

CASES = {
    "opcore.add(a, b)": lambda: opcore.add(a, b),
    "a + b": lambda: a + b,
    "a.add_(b)": lambda: target.add_(b),
    "a[0]": lambda: a[0],
    "opcore.ones(1)": lambda: opcore.ones(1),
    "opcore.add(a, b, alpha=2, out=out)": lambda: opcore.add(a, b, alpha=2, out=out),
    "2 - a": lambda: 2 - a,
    "a.sum(0)": lambda: a.sum(0),
    "a.view(3, 1)": lambda: a.view(3, 1),
    "a == b": lambda: a == b,
    # The tensor's one object comes back (Note [The Python object of a tensor]).
    "a.contiguous()": lambda: a.contiguous(),
    "leaf.grad": lambda: leaf.grad,
}


def references():
    return {name: sys.getrefcount(obj)
            for name, obj in (("a", a), ("b", b), ("out", out), ("target", target), ("leaf", leaf))}


@pytest.mark.parametrize("call", list(CASES.values()), ids=list(CASES))
def test_no_leak(call):
    for _ in range(1000):  # warm up: caches, interned names, static parsers
        call()
    gc.collect()
    refs_before = references()
    objects_before = len(gc.get_objects())
    tracemalloc.start()
    try:
        memory_before = tracemalloc.get_traced_memory()[0]
        for _ in range(CALLS):
            call()
        gc.collect()
        memory_growth = tracemalloc.get_traced_memory()[0] - memory_before
    finally:
        tracemalloc.stop()
    assert references() == refs_before
    assert len(gc.get_objects()) - objects_before <= 10
    # A leaked Tensor object per call would be ~5 MB of traced memory.
    assert memory_growth < 64 * 1024


def test_no_leak_in_error_paths():
    def bad_type():
        try:
            opcore.add(a, "x")
        except TypeError:
            pass

    def bad_index():
        try:
            a[5]
        except IndexError:
            pass

    def cpp_error():
        try:
            opcore.mm(a.view(3, 1), a.view(3, 1))
        except RuntimeError:
            pass

    for call in (bad_type, bad_index, cpp_error):
        for _ in range(100):
            call()
        gc.collect()
        refs_before = references()
        objects_before = len(gc.get_objects())
        for _ in range(20_000):
            call()
        gc.collect()
        assert references() == refs_before
        assert len(gc.get_objects()) - objects_before <= 10


def test_results_are_released():
    # The result of a call is the only reference to its tensor: refcount 2 inside getrefcount.
    r = opcore.add(a, b)
    assert sys.getrefcount(r) == 2
    r = a[0]
    assert sys.getrefcount(r) == 2
    before = sys.getrefcount(target)
    result = target.add_(b)
    assert result is target
    assert sys.getrefcount(target) == before + 1  # exactly one new reference: `result`
    del result
    assert sys.getrefcount(target) == before


def test_every_object_is_freed_when_python_drops_it():
    """The tensor's slot does not own its object: results, and objects of tensors C++ still holds
    (a grad), die with their last Python reference."""
    refs = [weakref.ref(opcore.add(a, b)) for _ in range(1000)]
    refs += [weakref.ref(leaf.grad) for _ in range(1000)]
    refs += [weakref.ref(a.view(3)) for _ in range(1000)]
    assert [r for r in refs if r() is not None] == []
    grad = leaf.grad
    assert sys.getrefcount(grad) == 2
    same = leaf.grad is grad  # outside `assert`, which keeps what it evaluates alive
    assert same
    assert sys.getrefcount(grad) == 2
