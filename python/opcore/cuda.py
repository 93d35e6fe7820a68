"""opcore.cuda: the GPUs, as torch.cuda's functions users reach for.

    if opcore.cuda.is_available():
        x = opcore.ones(1024, device="cuda")      # memory from the caching allocator
        s = opcore.cuda.Stream()
        s.wait_stream(opcore.cuda.current_stream())  # x is ready before s uses it
        with opcore.cuda.stream(s):               # kernels below queue on s
            y = x + 1
        s.synchronize()
        opcore.cuda.memory_allocated()            # bytes held by tensors on the current GPU

On a machine without a GPU (or a build without CUDA) is_available() is False, device_count()
0, the memory counters 0 and empty_cache() does nothing, as torch's before CUDA starts; what
needs a GPU raises RuntimeError saying why.
"""
from opcore import _C
from opcore._C import OutOfMemoryError  # noqa: F401  (a RuntimeError)

__all__ = ["Event", "OutOfMemoryError", "Stream", "current_device", "current_stream", "default_stream", "device",
           "device_count", "empty_cache", "initial_seed", "is_available", "manual_seed", "manual_seed_all",
           "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "memory_stats", "reset_peak_memory_stats",
           "set_device", "set_stream", "stream", "synchronize"]


def is_available():
    """Whether opcore can use a GPU: built with CUDA, and CUDA's driver found one."""
    return device_count() > 0


def device_count():
    """The number of GPUs opcore can use (0 without any)."""
    return _C._device_count("cuda")


def current_device():
    """The index of the calling thread's current GPU."""
    return _C._current_device("cuda")


def _device(device=None):
    """An opcore.device('cuda', index): None is the current GPU; an int, a string or a device
    names one."""
    if device is None:
        return _C.device("cuda", current_device())
    d = device if isinstance(device, _C.device) else _C.device(device if not isinstance(device, int) else f"cuda:{device}")
    if d.type != "cuda":
        raise ValueError(f"expected a cuda device, but got {d}")
    return d if d.index is not None else _C.device("cuda", current_device())


def set_device(device):
    """Makes the GPU current for the calling thread (RuntimeError if it does not exist)."""
    _C._set_device(_device(device))


class device:
    """Context manager making a GPU current for its body: `with opcore.cuda.device(1): ...`."""

    def __init__(self, device):
        self.index = _device(device).index
        self._previous = None

    def __enter__(self):
        self._previous = current_device()
        set_device(self.index)

    def __exit__(self, *exc):
        set_device(self._previous)
        return False


def synchronize(device=None):
    """Waits for all the work queued on the GPU (the current one by default)."""
    _C._synchronize(_device(device))


class Stream:
    """A queue of GPU work, torch.cuda.Stream's surface: `Stream()` hands out one of the GPU's
    pooled streams; kernels launched while it is current (opcore.cuda.stream(s)) queue on it.
    Two Stream objects for the same stream compare equal."""

    def __init__(self, device=None, *, _stream_id=None):
        self.device = _device(device)
        self.stream_id = _C._new_stream(self.device) if _stream_id is None else _stream_id

    def synchronize(self):
        """Waits for the work queued on this stream."""
        _C._synchronize_stream(self.device, self.stream_id)

    def query(self):
        """Whether the work queued on this stream has finished."""
        return _C._stream_query(self.device, self.stream_id)

    def record_event(self, event=None):
        """Records `event` (a new Event when None) after the work queued here so far; returns it."""
        event = Event() if event is None else event
        event.record(self)
        return event

    def wait_event(self, event):
        """Work queued here from now on waits for `event`."""
        event.wait(self)

    def wait_stream(self, stream):
        """Work queued here from now on waits for the work queued on `stream` so far."""
        self.wait_event(stream.record_event())

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.device, self.stream_id) == (other.device, other.stream_id)

    def __hash__(self):
        return hash((self.device, self.stream_id))

    def __repr__(self):
        return f"<opcore.cuda.Stream device={self.device} stream_id={self.stream_id}>"


class Event:
    """A marker in a stream's work, torch.cuda.Event's surface: record() places it after the
    work queued so far, wait() makes a stream's later work wait for it, query() and
    synchronize() ask whether that work has finished or wait for it, elapsed_time(end) gives
    the milliseconds between two events made with enable_timing=True."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if interprocess:
            raise NotImplementedError("opcore.cuda.Event: interprocess events are not supported")
        self.enable_timing = enable_timing
        self._handle = 0
        self._device = None

    def record(self, stream=None):
        """Records the event on `stream` (the current stream by default)."""
        stream = current_stream() if stream is None else stream
        if self._device is not None and self._device != stream.device:
            raise ValueError(f"Event.record: the event was first recorded on {self._device}, not {stream.device}")
        self._handle = _C._event_record(self._handle, stream.device, stream.stream_id, self.enable_timing)
        self._device = stream.device

    def wait(self, stream=None):
        """Makes `stream`'s (the current stream's) later work wait for the event; nothing to wait
        for before the event is recorded."""
        if self._handle:
            stream = current_stream() if stream is None else stream
            _C._event_wait(self._handle, stream.device, stream.stream_id)

    def query(self):
        """Whether the work before the event has finished (True before it is recorded)."""
        return not self._handle or _C._event_query(self._device, self._handle)

    def synchronize(self):
        """Waits for the work before the event."""
        if self._handle:
            _C._event_synchronize(self._device, self._handle)

    def elapsed_time(self, end_event):
        """Milliseconds from this event to `end_event`, both recorded with enable_timing=True."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Event.elapsed_time: both events must be made with enable_timing=True")
        if not (self._handle and end_event._handle):
            raise RuntimeError("Event.elapsed_time: both events must be recorded first")
        return _C._event_elapsed_time(self._device, self._handle, end_event._handle)

    def __del__(self):
        if getattr(self, "_handle", 0):
            _C._event_destroy(self._device, self._handle)

    def __repr__(self):
        return f"<opcore.cuda.Event {'recorded on ' + str(self._device) if self._handle else 'not recorded'}>"


def current_stream(device=None):
    """The calling thread's current stream on the GPU."""
    d = _device(device)
    return Stream(d, _stream_id=_C._current_stream(d))


def default_stream(device=None):
    """The GPU's default stream (what is current until another is set)."""
    return Stream(device, _stream_id=0)


def set_stream(stream):
    """Makes `stream` current on its GPU, and that GPU current, for the calling thread (as
    torch's: the kernels launched next then queue on it)."""
    set_device(stream.device)
    _C._exchange_stream(stream.device, stream.stream_id)


class stream:
    """Context manager making `stream` current on its GPU, and that GPU current, for its body
    (None: no change); both are restored after it."""

    def __init__(self, stream):
        self.stream = stream
        self._previous = None
        self._previous_device = None

    def __enter__(self):
        if self.stream is not None:
            self._previous_device = current_device()
            set_device(self.stream.device)
            self._previous = _C._exchange_stream(self.stream.device, self.stream.stream_id)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            _C._exchange_stream(self.stream.device, self._previous)
            set_device(self._previous_device)
        return False


def _stats_device(device):
    """The device whose counters are asked for: the current GPU by default, and no device at
    all (so zero counters) on a machine without one, as torch before CUDA starts."""
    if device is None and not is_available():
        return None
    return _device(device)


def memory_stats(device=None):
    """The caching allocator's counters for the GPU, a dict with torch's key names
    ('allocated_bytes.all.current', 'reserved_bytes.all.peak', 'num_alloc_retries', 'num_ooms', ...);
    {} without a GPU."""
    d = _stats_device(device)
    return {} if d is None else _C._memory_stats(d)


def memory_allocated(device=None):
    """Bytes held by tensors on the GPU (block sizes: requests rounded up to 512 bytes)."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None):
    """The peak of memory_allocated() since the start or reset_peak_memory_stats()."""
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None):
    """Bytes the caching allocator holds on the GPU, in use or cached for reuse."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None):
    """The peak of memory_reserved() since the start or reset_peak_memory_stats()."""
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device=None):
    """Sets the peaks to the current values."""
    d = _stats_device(device)
    if d is not None:
        _C._reset_peak_memory_stats(d)


def manual_seed(seed):
    """Seeds the CUDA default generator (opcore has one for every GPU, so manual_seed and
    manual_seed_all do the same). Its stream is the CPU's: after opcore.manual_seed(s), or this
    and opcore.default_generator.manual_seed(s), rand on the GPU gives rand's CPU values."""
    _C._manual_seed_type("cuda", int(seed) & 0xFFFFFFFFFFFFFFFF)


def manual_seed_all(seed):
    """As manual_seed: the one CUDA default generator serves every GPU."""
    manual_seed(seed)


def initial_seed():
    """The seed of the CUDA default generator."""
    return _C._initial_seed_type("cuda")


def empty_cache():
    """Gives the cached memory no tensor uses back to every GPU (for other processes, or
    nvidia-smi's figure); tensors keep theirs."""
    _C._empty_cache("cuda")


def _tensor_cuda(self, device=None, non_blocking=False):
    """Tensor.cuda(device=None, non_blocking=False): a copy on the GPU (the current one by
    default), or self when it is already there. With non_blocking=True a copy from pinned
    memory (Tensor.pin_memory()) returns before it has run; from pageable memory it returns
    once CUDA holds the bytes either way, as torch's does."""
    return self.to(_device(device), non_blocking=non_blocking)


def _tensor_record_stream(self, stream):
    """Tensor.record_stream(stream): the tensor's memory, once freed, is reused only after the
    work queued on `stream` by then has finished."""
    if not isinstance(stream, Stream):
        raise TypeError(f"record_stream(): expected an opcore.cuda.Stream, but got {type(stream).__name__}")
    _C._record_stream(self, stream.device, stream.stream_id)


_C._add_tensor_method("cuda", _tensor_cuda)
_C._add_tensor_method("record_stream", _tensor_record_stream)
