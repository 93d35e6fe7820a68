"""empty.memory_format, empty.out, randperm, resize_ (issue #33), the *_like and new_* factories:
the factories and the storage operator whose values cannot be compared with torch's
(uninitialized memory, another random stream), so their opinfo rows are exemptions and their
behaviour is checked here, against torch where torch defines it; and the layouts the *_like
factories give, which the operator table does not compare."""
import pytest

import opcore

torch = pytest.importorskip("torch")

_FORMATS = [(opcore.contiguous_format, torch.contiguous_format), (opcore.channels_last, torch.channels_last)]


@pytest.mark.parametrize("ours,theirs", _FORMATS)
def test_empty_lays_out_each_memory_format_as_torch(ours, theirs):
    t = opcore.empty((2, 3, 4, 5), memory_format=ours)
    assert t.stride() == torch.empty((2, 3, 4, 5), memory_format=theirs).stride()
    assert t.is_contiguous(memory_format=ours)


def test_empty_defaults_and_errors():
    t = opcore.empty(2, 3)
    assert (t.shape, t.dtype, t.device.type, t.is_contiguous()) == ((2, 3), opcore.float32, "cpu", True)
    assert opcore.empty(4, dtype=opcore.int16, layout=opcore.strided).dtype == opcore.int16
    assert opcore.empty(2, device="meta").is_meta
    assert opcore.ops.aten.empty.memory_format([2], dtype=opcore.float64).dtype == opcore.float64
    with pytest.raises(RuntimeError, match="ChannelsLast needs a 4-D tensor"):
        opcore.empty(2, 3, memory_format=opcore.channels_last)
    with pytest.raises(RuntimeError, match="names no layout"):
        opcore.empty(2, memory_format=opcore.preserve_format)
    with pytest.raises(RuntimeError, match="empty: only the strided layout is supported"):
        opcore.empty(2, layout=opcore.sparse_coo)
    with pytest.raises(RuntimeError, match="negative dimension"):
        opcore.empty(2, -1)


def test_empty_out_resizes_out_in_the_memory_format():
    out = opcore.zeros(3)
    result = opcore.ops.aten.empty.out([2, 3, 4, 5], memory_format=opcore.channels_last, out=out)
    assert result is out or result.data_ptr() == out.data_ptr()
    assert out.shape == (2, 3, 4, 5)
    assert out.stride() == torch.empty((2, 3, 4, 5), memory_format=torch.channels_last).stride()
    small = opcore.arange(6.0)
    opcore.ops.aten.empty.out([2, 2], out=small)
    assert small.shape == (2, 2) and small.tolist() == [[0.0, 1.0], [2.0, 3.0]], "shrinking keeps the storage"


_RANDPERM_DTYPES = [opcore.uint8, opcore.int8, opcore.int16, opcore.int32, opcore.int64, opcore.float16,
                    opcore.bfloat16, opcore.float32, opcore.float64]


@pytest.mark.parametrize("dtype", _RANDPERM_DTYPES, ids=str)
def test_randperm_is_a_permutation_in_every_dtype(dtype):
    n = 100
    opcore.manual_seed(7)
    p = opcore.randperm(n, dtype=dtype)
    assert p.dtype == dtype and p.shape == (n,)
    assert sorted(int(v) for v in p.tolist()) == list(range(n))
    opcore.manual_seed(7)
    assert opcore.randperm(n, dtype=dtype).tolist() == p.tolist(), "reproducible under manual_seed"


def test_long_randperm_is_a_permutation_whatever_the_thread_count():
    # Partners are computed a chunk of 65536 at a time, in parallel (Note [randperm]).
    n = 3 * 65536 + 5
    saved = opcore.get_num_threads()
    try:
        perms = []
        for threads in (1, 2):
            opcore.set_num_threads(threads)
            opcore.manual_seed(11)
            perms.append(opcore.randperm(n).tolist())
    finally:
        opcore.set_num_threads(saved)
    assert sorted(perms[0]) == list(range(n))
    assert perms[0] == perms[1]


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_rand_and_randn_out_draw_what_the_functional_form_draws(name):
    fn = getattr(opcore, name)
    opcore.manual_seed(3)
    expected = fn(4, 5, dtype=opcore.float64)
    opcore.manual_seed(3)
    out = opcore.empty(7, dtype=opcore.float64)  # resized
    assert getattr(opcore.ops.aten, name).out([4, 5], out=out) is out
    assert tuple(out.shape) == (4, 5) and out.tolist() == expected.tolist()
    g = opcore.Generator().manual_seed(5)
    first = getattr(opcore.ops.aten, name).out([3], generator=g, out=opcore.empty(0)).tolist()
    g.manual_seed(5)
    assert fn(3, generator=g).tolist() == first


def test_randperm_defaults_out_and_errors():
    opcore.manual_seed(1)
    p = opcore.randperm(1000)
    assert p.dtype == opcore.int64 and p.tolist() != list(range(1000))
    assert sorted(p.tolist()) == list(range(1000))
    opcore.manual_seed(1)
    out = opcore.empty(0, dtype=opcore.int64)
    assert opcore.randperm(1000, out=out).tolist() == p.tolist() and out.tolist() == p.tolist()
    assert opcore.randperm(0).tolist() == [] and opcore.randperm(1).tolist() == [0]
    opcore.manual_seed(2)
    first = opcore.randperm(10).tolist()
    assert opcore.randperm(10).tolist() != first, "the generator moves on"
    assert opcore.randperm(5, device="meta").shape == (5,)
    with pytest.raises(RuntimeError, match="n must be non-negative"):
        opcore.randperm(-1)
    with pytest.raises(RuntimeError, match="too large for a result of dtype Byte"):
        opcore.randperm(257, dtype=opcore.uint8)
    with pytest.raises(RuntimeError, match="not implemented for 'Bool'"):
        opcore.randperm(3, dtype=opcore.bool)
    with pytest.raises(RuntimeError, match="not implemented for 'ComplexFloat'"):
        opcore.randperm(3, dtype=opcore.complex64)


def test_randperm_spreads_every_value_over_every_position():
    # 4000 permutations of 4: each value lands in each position about 1000 times (a biased shuffle,
    # such as swapping with any position, skews these counts far beyond the tolerance).
    opcore.manual_seed(11)
    counts = [[0] * 4 for _ in range(4)]
    for _ in range(4000):
        for position, value in enumerate(opcore.randperm(4).tolist()):
            counts[value][position] += 1
    assert all(850 < c < 1150 for row in counts for c in row), counts


def test_resize_matches_torch():
    for sizes in [(2, 2), (3, 3), (0,), (6,), (1, 2, 3)]:
        ours, theirs = opcore.arange(6.0), torch.arange(6.0)
        ours.resize_(*sizes)
        theirs.resize_(*sizes)
        assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
        kept = min(6, ours.numel())
        assert ours.reshape(-1)[:kept].tolist() == theirs.reshape(-1)[:kept].tolist(), "the old values stay"


def test_resize_keeps_the_storage_offset_and_the_memory_format():
    base = opcore.arange(10.0)
    view = base[4:]
    view.resize_(2, 3)
    assert view.tolist() == [[4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], "a fitting resize reuses the storage at the offset"
    view.resize_(3, 3)
    assert view.reshape(-1)[:6].tolist() == [4.0, 5.0, 6.0, 7.0, 8.0, 9.0], "a grown storage starts with the old bytes"
    t = opcore.empty(0)
    t.resize_(2, 3, 4, 5, memory_format=opcore.channels_last)
    assert t.stride() == torch.empty(0).resize_(2, 3, 4, 5, memory_format=torch.channels_last).stride()


def test_resize_errors():
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        opcore.zeros(2).resize_(-1)
    with pytest.raises(RuntimeError, match="Preserve"):
        opcore.zeros(2).resize_(2, memory_format=opcore.preserve_format)
    leaf = opcore.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        leaf.resize_(3)
    computed = leaf * 2
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        computed.resize_(3)
    assert opcore.empty(2, device="meta").resize_(4, 5).shape == (4, 5)


def _layouts():
    """(opcore tensor, torch tensor) pairs of the same values in layouts *_like must keep or not."""
    base = opcore.arange(24.0).view(2, 3, 4)
    theirs = torch.arange(24.0).view(2, 3, 4)
    return [(base, theirs), (base.transpose(0, 2), theirs.transpose(0, 2)),
            (base.permute(2, 0, 1), theirs.permute(2, 0, 1)),
            (base[:, :, ::2], theirs[:, :, ::2]),  # not dense: contiguous
            (base[:, :1].expand(2, 5, 4), theirs[:, :1].expand(2, 5, 4)),  # overlapping: contiguous
            (opcore.empty((2, 3, 4, 5), memory_format=opcore.channels_last),
             torch.empty((2, 3, 4, 5), memory_format=torch.channels_last))]


_LIKE = ["zeros_like", "ones_like", "rand_like", "randn_like", "empty_like"]


@pytest.mark.parametrize("name", _LIKE)
def test_like_factories_lay_out_their_results_as_torch(name):
    for ours, theirs in _layouts():
        for fmt, torch_fmt in [(None, None), (opcore.contiguous_format, torch.contiguous_format)]:
            kwargs, torch_kwargs = ({}, {}) if fmt is None else ({"memory_format": fmt}, {"memory_format": torch_fmt})
            result = getattr(opcore, name)(ours, **kwargs)
            expected = getattr(torch, name)(theirs, **torch_kwargs)
            assert (result.shape, result.stride()) == (tuple(expected.shape), expected.stride()), (ours.stride(), fmt)
            assert result.dtype == ours.dtype and result.device == ours.device
    with pytest.raises(RuntimeError, match="only the strided layout"):
        getattr(opcore, name)(opcore.zeros(2), layout=opcore.sparse_coo)
    meta = getattr(opcore, name)(opcore.zeros(2, 3, device="meta").t())
    assert meta.is_meta and meta.stride() == (1, 3)


def test_random_like_factories_draw_in_self_s_layout():
    x = opcore.zeros(50, 40, dtype=opcore.float64).t()
    opcore.manual_seed(3)
    r = opcore.rand_like(x)
    assert r.stride() == (1, 40) and r.dtype == opcore.float64
    assert all(0.0 <= v < 1.0 for v in r.flatten().tolist()) and len(set(r.flatten().tolist())) == 2000
    opcore.manual_seed(3)
    assert opcore.rand_like(x).tolist() == r.tolist(), "reproducible under manual_seed"
    assert opcore.randn_like(x, dtype=opcore.float32).dtype == opcore.float32
    with pytest.raises(RuntimeError):
        opcore.rand_like(opcore.zeros(3, dtype=opcore.int64))  # uniform_ is for floating dtypes, as torch's
    low, high = opcore.randint_like(x, 7), opcore.randint_like(x, -3, 4)
    assert low.dtype == opcore.float64 and low.stride() == (1, 40)
    assert set(low.flatten().tolist()) == set(range(7))
    assert set(high.flatten().tolist()) == set(range(-3, 4))
    assert opcore.randint_like(x, 5, dtype=opcore.int8).dtype == opcore.int8
    with pytest.raises(RuntimeError, match="from"):
        opcore.randint_like(x, 4, 4)
    assert opcore.ops.aten.randint_like.low_dtype(x, 0, 2).shape == (40, 50)


def test_random_like_factories_draw_from_a_given_generator():
    x = opcore.zeros(30, 20, dtype=opcore.float64).t()
    for draw in (lambda **kw: opcore.rand_like(x, **kw), lambda **kw: opcore.randn_like(x, **kw),
                 lambda **kw: opcore.randint_like(x, 9, **kw), lambda **kw: opcore.randint_like(x, -4, 5, **kw)):
        g = opcore.Generator().manual_seed(11)
        first = draw(generator=g)
        assert first.stride() == (1, 20) and first.dtype == opcore.float64
        assert draw(generator=g).tolist() != first.tolist(), "the generator's state advanced"
        assert draw(generator=opcore.Generator().manual_seed(11)).tolist() == first.tolist()
        opcore.manual_seed(11)  # the default generator in the same state draws the same numbers
        assert draw(generator=None).tolist() == first.tolist() and draw().tolist() != first.tolist()
    g = opcore.Generator().manual_seed(5)
    assert opcore.rand_like(x, generator=g, dtype=opcore.float32, memory_format=opcore.contiguous_format).stride() == (
        30, 1)
    assert opcore.ops.aten.randint_like.low_generator_dtype(x, 0, 2, generator=g).shape == (20, 30)
    with pytest.raises(TypeError):
        opcore.rand_like(x, generator=3)


# Every factory takes PyTorch's layout and pin_memory: only the strided layout, and pinning only
# where an accelerator is (test_privateuse1.py pins with the example backend).
_FACTORY_CALLS = [("zeros", ((2, 3),)), ("ones", ((2, 3),)), ("full", ((2, 3), 1.5)), ("arange", (5,)),
                  ("arange", (1, 5)), ("arange", (1, 5, 2)), ("eye", (3,)), ("eye", (2, 3)), ("linspace", (0, 1, 5)),
                  ("scalar_tensor", (2.5,)), ("rand", ((2, 3),)), ("randn", ((2, 3),)), ("randint", (5, (2, 3))),
                  ("randint", (1, 5, (2, 3))), ("randperm", (6,)), ("full_like", (opcore.zeros(2, 3), 4))]


@pytest.mark.parametrize("name,args", _FACTORY_CALLS, ids=[f"{n}{len(a)}" for n, a in _FACTORY_CALLS])
def test_every_factory_takes_layout_and_pin_memory_as_torch(name, args):
    factory = getattr(opcore, name)
    strided = factory(*args, layout=opcore.strided, pin_memory=False)
    expected = getattr(torch, name)(*[torch.zeros(2, 3) if isinstance(a, opcore.Tensor) else a for a in args])
    assert strided.shape == tuple(expected.shape) and strided.layout == opcore.strided
    with pytest.raises(RuntimeError, match="only the strided layout is supported, got Sparse"):
        factory(*args, layout=opcore.sparse_coo)
    if not opcore.cuda.is_available():
        with pytest.raises(RuntimeError, match="this machine has none"):
            factory(*args, pin_memory=True)
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        factory(*args, device="meta", pin_memory=True)


def test_new_factories_take_self_s_dtype_and_device_as_torch():
    ours, theirs = opcore.zeros(4, 5, dtype=opcore.int16).t(), torch.zeros(4, 5, dtype=torch.int16).t()
    for name, args in [("new_empty", ((2, 3),)), ("new_zeros", ((2, 3),)), ("new_ones", ((3,),)),
                       ("new_full", ((2, 2), 7)), ("new_empty_strided", ((2, 3), (1, 2)))]:
        result, expected = getattr(ours, name)(*args), getattr(theirs, name)(*args)
        assert (result.shape, result.stride()) == (tuple(expected.shape), expected.stride()), name
        assert result.dtype == opcore.int16 and result.device == ours.device, name
        if name != "new_empty" and name != "new_empty_strided":
            assert result.tolist() == expected.tolist(), name
        other = getattr(ours, name)(*args, dtype=opcore.float64, requires_grad=True)
        assert other.dtype == opcore.float64 and other.requires_grad and other.is_leaf, name
        assert getattr(ours, name)(*args, device="meta").is_meta, name
    assert ours.new_zeros(2, 3).shape == (2, 3), "the sizes as separate numbers, as torch's"
    assert opcore.zeros(2).new_full((2,), 2.5).tolist() == [2.5, 2.5]
    assert ours.new_full((), 3).tolist() == 3 and ours.new_full((), 3).dtype == opcore.int16
    with pytest.raises(RuntimeError, match="negative dimension"):
        ours.new_zeros(2, -1)
    assert not hasattr(opcore, "new_zeros"), "a method only, as torch's"
