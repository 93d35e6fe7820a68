"""Grad modes as context managers and decorators: no_grad, enable_grad, set_grad_enabled,
inference_mode (thread-local, as in torch)."""
import functools

from opcore import _C


class _DecoratorContextManager:
    """A context manager that is also a decorator: @no_grad() runs the function inside it."""

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_DecoratorContextManager):
    """Operations inside do not record the graph: their results do not require grad."""

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False


class enable_grad(_DecoratorContextManager):
    """Records the graph again, inside no_grad."""

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False


class set_grad_enabled(_DecoratorContextManager):
    """set_grad_enabled(mode): sets grad mode now (as a function) or for a `with` block."""

    def __init__(self, mode: bool):
        self._prev = _C.is_grad_enabled()
        self.mode = mode
        _C._set_grad_enabled(mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        _C._set_grad_enabled(self._prev)  # as a decorator it must not change the mode now
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


class inference_mode(_DecoratorContextManager):
    """inference_mode(mode=True): no graph, no version counting, no view tracking inside."""

    def __init__(self, mode: bool = True):
        self.mode = mode

    def __enter__(self):
        self._guard = _C._InferenceMode() if self.mode else None
        if self._guard is not None:
            self._guard.__enter__()

    def __exit__(self, *exc):
        if self._guard is not None:
            self._guard.__exit__(*exc)
        return False

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)
        return wrapper
