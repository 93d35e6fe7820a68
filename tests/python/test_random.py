"""randint, randint_like, Tensor.random_, bernoulli and multinomial from Python: the forms torch
accepts, their results' shapes and dtypes against torch's for the same calls, reproducibility
under a seed or a Generator, the values' ranges, and torch's exception types for bad
arguments. opcore draws from its own Philox stream (Note [Philox generator]), so values are
checked by their properties, never against torch's numbers; tests/api/RandomTest.cpp checks
the frequencies."""
import pytest

import opcore

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _keep_the_default_generator():
    state = opcore.get_rng_state()
    yield
    opcore.set_rng_state(state)


def _same_kind(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert repr(ours.dtype).removeprefix("opcore.") == repr(theirs.dtype).removeprefix("torch.")


@pytest.mark.parametrize("args,kwargs", [
    ((10, (3,)), {}),
    ((2, 10, (2, 3)), {}),
    ((10,), {"size": (4,)}),
    ((-5, 5, (6,)), {"dtype": "float64"}),
    ((0, 2, (5,)), {"dtype": "bool"}),
    ((3, (2, 2)), {"dtype": "int8"}),
])
def test_randint_takes_torchs_forms(args, kwargs):
    ours = opcore.randint(*args, **{k: getattr(opcore, v) if k == "dtype" else v for k, v in kwargs.items()})
    theirs = torch.randint(*args, **{k: getattr(torch, v) if k == "dtype" else v for k, v in kwargs.items()})
    _same_kind(ours, theirs)
    low, high = (0, args[0]) if len(args) == 1 or isinstance(args[1], tuple) else args[:2]
    values = ours.to(opcore.int64).flatten().tolist()
    assert all(low <= v < high for v in values)


def test_randint_is_reproducible_and_takes_generator_and_out():
    opcore.manual_seed(3)
    first = opcore.randint(100, (50,)).tolist()
    opcore.manual_seed(3)
    assert opcore.randint(100, (50,)).tolist() == first
    assert len(set(first)) > 20
    g = opcore.Generator().manual_seed(1)
    a = opcore.randint(0, 7, (30,), generator=g).tolist()
    g.manual_seed(1)
    out = opcore.empty(1, dtype=opcore.int32)
    assert opcore.randint(0, 7, (30,), generator=g, out=out) is out
    assert out.dtype == opcore.int32 and out.tolist() == a
    assert set(a) == set(range(7))


def test_randint_like_keeps_the_input_dtype():
    x = opcore.zeros(3, 4, dtype=opcore.float32)
    for ours, theirs in [(opcore.randint_like(x, 10), torch.randint_like(torch.zeros(3, 4), 10)),
                         (opcore.randint_like(x, 5, 10), torch.randint_like(torch.zeros(3, 4), 5, 10))]:
        _same_kind(ours, theirs)
    assert all(5 <= v < 10 for v in opcore.randint_like(x, 5, 10).flatten().tolist())
    assert opcore.randint_like(x, 3, dtype=opcore.int64).dtype == opcore.int64


def test_random_methods_draw_in_the_dtypes_range():
    t = opcore.empty(400, dtype=opcore.uint8)
    assert t.random_() is t and max(t.tolist()) > 200
    assert set(opcore.empty(300, dtype=opcore.int64).random_(4).tolist()) == {0, 1, 2, 3}
    assert set(opcore.empty(300).random_(-2, 2).tolist()) == {-2.0, -1.0, 0.0, 1.0}
    assert set(opcore.empty(100, dtype=opcore.bool).random_().tolist()) == {False, True}
    assert min(opcore.empty(200, dtype=opcore.int8).random_(125, None).tolist()) >= 125
    g = opcore.Generator().manual_seed(2)
    a = opcore.empty(20, dtype=opcore.int64).random_(0, 1000, generator=g).tolist()
    g.manual_seed(2)
    assert opcore.empty(20, dtype=opcore.int64).random_(1000, generator=g).tolist() == a


@pytest.mark.parametrize("call,message", [
    (lambda: opcore.randint(5, 5, (2,)), "random_ expects 'from' to be less than 'to'"),
    (lambda: opcore.randint(0, (2,)), "random_ expects 'from' to be less than 'to'"),
    (lambda: opcore.empty(2, dtype=opcore.uint8).random_(-1, 3), "from=-1 is out of bounds for dtype Byte"),
    (lambda: opcore.empty(2, dtype=opcore.complex64).random_(), "not implemented for 'ComplexFloat'"),
    (lambda: opcore.empty(2).bernoulli_(1.5), r"bernoulli_ expects p to be in \[0, 1\], but got p=1.5"),
    (lambda: opcore.bernoulli(opcore.tensor([0.5, 2.0])), r"every probability must be in \[0, 1\]"),
    (lambda: opcore.multinomial(opcore.tensor([1.0, 2.0]), 3), "cannot sample n_sample > prob_dist.size"),
    (lambda: opcore.multinomial(opcore.tensor([1.0, -2.0]), 1), "element < 0"),
    (lambda: opcore.multinomial(opcore.tensor([1, 2]), 1), "multinomial only supports floating-point dtypes"),
])
def test_bad_arguments_raise_runtime_error_as_torch(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_randint_refuses_a_size_that_is_not_a_sequence_as_torch():
    with pytest.raises(TypeError):
        torch.randint(10, 3)
    with pytest.raises(TypeError):
        opcore.randint(10, 3)


def test_bernoulli_forms():
    p = opcore.tensor([[0.0, 1.0], [1.0, 0.0]])
    tp = torch.tensor([[0.0, 1.0], [1.0, 0.0]])
    for ours, theirs in [(opcore.bernoulli(p), torch.bernoulli(tp)), (p.bernoulli(), tp.bernoulli()),
                         (opcore.bernoulli(p, 0.5), torch.bernoulli(tp, 0.5)), (p.bernoulli(0.5), tp.bernoulli(0.5))]:
        _same_kind(ours, theirs)
    assert opcore.bernoulli(p).tolist() == [[0.0, 1.0], [1.0, 0.0]]
    x = opcore.empty(1000, dtype=opcore.int32)
    assert x.bernoulli_() is x and set(x.tolist()) == {0, 1}, "p=0.5 by default"
    assert x.bernoulli_(opcore.tensor([1.0])).tolist() == [1] * 1000, "a tensor p, broadcast"
    g = opcore.Generator().manual_seed(4)
    a = opcore.bernoulli(opcore.full((50,), 0.5), generator=g).tolist()
    g.manual_seed(4)
    out = opcore.empty(0)
    assert opcore.bernoulli(opcore.full((50,), 0.5), generator=g, out=out) is out and out.tolist() == a
    assert opcore.bernoulli(p.requires_grad_()).requires_grad is False


def test_multinomial_forms():
    w = opcore.tensor([[0.0, 1.0, 2.0], [5.0, 0.0, 1.0]])
    tw = torch.tensor([[0.0, 1.0, 2.0], [5.0, 0.0, 1.0]])
    for ours, theirs in [(opcore.multinomial(w, 2), torch.multinomial(tw, 2)),
                         (w.multinomial(5, replacement=True), tw.multinomial(5, replacement=True)),
                         (opcore.multinomial(w[0], 1), torch.multinomial(tw[0], 1))]:
        _same_kind(ours, theirs)
    s = opcore.multinomial(w, 2).tolist()
    assert sorted(s[0]) == [1, 2] and sorted(s[1]) == [0, 2], "without replacement: the positive weights"
    g = opcore.Generator().manual_seed(6)
    a = w.multinomial(4, True, generator=g).tolist()
    g.manual_seed(6)
    out = opcore.empty(0, dtype=opcore.int64)
    assert opcore.multinomial(w, 4, True, generator=g, out=out) is out and out.tolist() == a
    assert all(k != 0 for k in out[0].tolist()) and all(k != 1 for k in out[1].tolist())
