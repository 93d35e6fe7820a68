"""opcore.cuda (issue 35): the GPU runtime's Python surface. The tests marked needs_gpu run
where a GPU is lent (scripts/gpu_check.sh) and skip elsewhere, saying so; the others check
what a machine without a GPU gives, as torch does there, and the parts that need no device."""
import pytest

import opcore

gpu = opcore.cuda.is_available()
needs_gpu = pytest.mark.skipif(not gpu, reason="needs a GPU: opcore.cuda.is_available() is False here")
without_gpu = pytest.mark.skipif(gpu, reason="checks a machine without a GPU")


def test_out_of_memory_error_is_a_runtime_error_exported_twice():
    assert issubclass(opcore.cuda.OutOfMemoryError, RuntimeError)
    assert opcore.OutOfMemoryError is opcore.cuda.OutOfMemoryError
    assert opcore.cuda.OutOfMemoryError.__module__ == "opcore.cuda"


@without_gpu
def test_without_a_gpu_counts_are_zero_and_gpu_calls_say_why():
    assert opcore.cuda.is_available() is False
    assert opcore.cuda.device_count() == 0
    assert opcore.cuda.memory_stats() == {}
    assert opcore.cuda.memory_allocated() == opcore.cuda.max_memory_allocated() == 0
    assert opcore.cuda.memory_reserved() == opcore.cuda.max_memory_reserved() == 0
    opcore.cuda.empty_cache()
    opcore.cuda.reset_peak_memory_stats()
    # In a build without CUDA (the sanitizer builds) the runtime says so, and operators have no
    # CUDA kernels (NotImplementedError, a RuntimeError).
    why = "no CUDA device is available on this machine|built without cuda support|no kernel is registered for dispatch key CUDA"
    for call in (opcore.cuda.current_device, opcore.cuda.synchronize, opcore.cuda.Stream,
                 opcore.cuda.current_stream, lambda: opcore.ones(2).cuda(),
                 lambda: opcore.ones(2, device="cuda"), lambda: opcore.ones(2).to("cuda:1")):
        with pytest.raises(RuntimeError, match=why):
            call()
    with pytest.raises(RuntimeError, match="cuda:0 does not exist|built without cuda support"):
        opcore.cuda.set_device(0)


def test_numpy_refuses_a_tensor_off_the_cpu_as_torch_does():
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy. Use Tensor.cpu()"):
        opcore.ones(2, device="meta").numpy()


@needs_gpu
def test_numpy_refuses_a_gpu_tensor():
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
        opcore.ones(2, device="cuda:0").numpy()


def test_devices_and_streams_are_checked_before_any_gpu_call():
    with pytest.raises(ValueError, match="expected a cuda device, but got cpu"):
        opcore.cuda.set_device("cpu")
    with pytest.raises(TypeError, match="expected an opcore.cuda.Stream, but got NoneType"):
        opcore.ones(2).record_stream(None)
    with opcore.cuda.stream(None) as s:  # torch's no-op form
        assert s is None
    e = opcore.cuda.Event(enable_timing=True)
    assert e.query() is True and "not recorded" in repr(e)  # nothing before it yet
    e.synchronize()
    e.wait()
    with pytest.raises(RuntimeError, match="both events must be recorded first"):
        e.elapsed_time(opcore.cuda.Event(enable_timing=True))
    with pytest.raises(RuntimeError, match="made with enable_timing=True"):
        e.elapsed_time(opcore.cuda.Event())
    with pytest.raises(NotImplementedError, match="interprocess"):
        opcore.cuda.Event(interprocess=True)


@needs_gpu
def test_tensors_go_to_the_gpu_and_back():
    x = opcore.arange(6, dtype=opcore.float32)
    g = x.cuda()
    assert g.is_cuda and g.device == opcore.device("cuda", opcore.cuda.current_device())
    assert g.cuda() is g or g.cuda().device == g.device
    assert (g + g).cpu().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    assert opcore.ones(3, device="cuda").to("cpu").tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match=f"cuda:{opcore.cuda.device_count()} does not exist"):
        opcore.ones(2, device=f"cuda:{opcore.cuda.device_count()}")


@needs_gpu
def test_pinned_memory_makes_copies_asynchronous_on_their_stream():
    a = opcore.arange(1 << 20, dtype=opcore.float32)
    p = a.pin_memory()
    assert p.is_pinned() and p.is_pinned("cuda") and not a.is_pinned() and p.tolist() == a.tolist()
    assert opcore.empty(4, pin_memory=True).is_pinned()
    assert not opcore.ones(2, device="cuda").is_pinned()
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        opcore.empty(2, device="cuda", pin_memory=True)
    s = opcore.cuda.Stream()
    with opcore.cuda.stream(s):
        g = p.cuda(non_blocking=True)
        back = (g * 2).to("cpu", non_blocking=True)
    assert back.is_pinned()
    s.synchronize()
    assert back.tolist() == (a * 2).tolist()
    assert not g.to("cpu").is_pinned()


@without_gpu
def test_without_a_gpu_nothing_is_pinned_and_pinning_says_why():
    a = opcore.ones(3)
    assert not a.is_pinned()
    for call in (a.pin_memory, lambda: opcore.empty(2, pin_memory=True), lambda: a.pin_memory("cuda")):
        with pytest.raises(RuntimeError, match="cannot pin memory"):
            call()
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned, not a tensor on meta"):
        opcore.empty(2, device="meta", pin_memory=True)
    assert a.to("cpu", non_blocking=True).data_ptr() == a.data_ptr()  # nothing to copy


@needs_gpu
def test_the_caching_allocator_counts_blocks_and_keeps_them_until_empty_cache():
    opcore.cuda.synchronize()
    opcore.cuda.empty_cache()
    before = opcore.cuda.memory_allocated()
    x = opcore.empty(250, dtype=opcore.float32, device="cuda")  # 1000 bytes: a 1024-byte block
    assert opcore.cuda.memory_allocated() == before + 1024
    assert opcore.cuda.memory_reserved() >= 2 << 20
    del x
    assert opcore.cuda.memory_allocated() == before
    reserved = opcore.cuda.memory_reserved()
    y = opcore.empty(250, dtype=opcore.float32, device="cuda")
    assert opcore.cuda.memory_reserved() == reserved, "the freed block is reused"
    del y
    opcore.cuda.reset_peak_memory_stats()
    assert opcore.cuda.max_memory_allocated() == opcore.cuda.memory_allocated()
    opcore.cuda.empty_cache()
    assert opcore.cuda.memory_reserved() < reserved or before > 0


@needs_gpu
def test_out_of_memory_is_a_catchable_error_that_says_what_was_asked():
    ooms = opcore.cuda.memory_stats()["num_ooms"]
    with pytest.raises(opcore.cuda.OutOfMemoryError, match="out of memory: tried to allocate 32.00 TiB"):
        opcore.empty(1 << 45, dtype=opcore.uint8, device="cuda")
    assert opcore.cuda.memory_stats()["num_ooms"] == ooms + 1
    assert opcore.ones(4, device="cuda").cpu().tolist() == [1.0] * 4


@needs_gpu
def test_kernels_queue_on_the_current_stream():
    default = opcore.cuda.current_stream()
    assert default == opcore.cuda.default_stream() and default.stream_id == 0
    s = opcore.cuda.Stream()
    assert s.stream_id != 0
    x = opcore.arange(1 << 20, dtype=opcore.float32).cuda()
    s.wait_stream(default)  # x's copy is queued on the default stream
    with opcore.cuda.stream(s) as entered:
        assert entered is s and opcore.cuda.current_stream() == s
        assert opcore.cuda.current_device() == s.device.index
        y = x * 2
        y.record_stream(s)
    assert opcore.cuda.current_stream() == default
    s.synchronize()
    assert s.query()
    assert y.cpu()[-1].item() == 2.0 * ((1 << 20) - 1)
    opcore.cuda.synchronize()


@pytest.mark.skipif(opcore.cuda.device_count() < 2, reason="needs two GPUs")
def test_a_stream_on_another_gpu_makes_that_gpu_current_as_torch():
    assert opcore.cuda.current_device() == 0
    other = opcore.cuda.Stream("cuda:1")
    with opcore.cuda.stream(other):
        assert opcore.cuda.current_device() == 1 and opcore.cuda.current_stream() == other
        assert (opcore.ones(2, device="cuda") + 1).device == opcore.device("cuda:1")
    assert opcore.cuda.current_device() == 0
    assert opcore.cuda.current_stream("cuda:1") == opcore.cuda.default_stream("cuda:1")
    opcore.cuda.set_stream(other)
    assert opcore.cuda.current_device() == 1
    opcore.cuda.set_stream(opcore.cuda.default_stream("cuda:1"))
    opcore.cuda.set_device(0)


@needs_gpu
def test_events_order_streams_and_time_work():
    start, end = opcore.cuda.Event(enable_timing=True), opcore.cuda.Event(enable_timing=True)
    x = opcore.ones(1 << 24, device="cuda")
    start.record()
    for _ in range(10):
        x = x * 1.0001
    end.record()
    end.synchronize()
    assert end.query() and "recorded on cuda" in repr(end)
    assert start.elapsed_time(end) > 0.0
    s = opcore.cuda.Stream()
    done = opcore.cuda.current_stream().record_event()
    s.wait_event(done)
    with opcore.cuda.stream(s):
        y = x + 1
    s.synchronize()
    assert abs(y.cpu()[0].item() - (1.0001 ** 10 + 1)) < 1e-4


@needs_gpu
def test_device_context_restores_the_current_gpu():
    start = opcore.cuda.current_device()
    with opcore.cuda.device(opcore.cuda.device_count() - 1):
        assert opcore.cuda.current_device() == opcore.cuda.device_count() - 1
    assert opcore.cuda.current_device() == start
