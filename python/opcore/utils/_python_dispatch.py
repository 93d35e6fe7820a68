"""Python dispatch: TorchDispatchMode and tensor subclasses with __torch_dispatch__.

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            print(func)                       # opcore.ops.aten.add.Tensor, an OpOverload
            return func(*args, **(kwargs or {}))

    with Log():
        opcore.ones(2) + 1                    # every operator call reaches the mode

Note [The Python dispatch key]
The dispatcher's Python key sits below autograd and above every backend. A call reaches it
when this thread has an active mode (entering one adds the key to the thread's included
keys) or when an argument is a subclass made by Tensor._make_wrapper_subclass (whose keys
hold it); calls that involve neither never see it, so it costs them nothing. Its one kernel
is the fallback registered below, which hands the call to the innermost mode (popped while it
runs, so that calling `func` inside goes on to the next mode, or to the kernels below), then to
the subclasses' __torch_dispatch__, subclasses before their bases. A rule registered with
op.py_impl(ModeOrSubclass) replaces the mode's or subclass's __torch_dispatch__ for that
operator. The autograd layer has run by then: modes and subclasses see calls below it.
"""
from __future__ import annotations

import contextlib

from opcore import _C
from opcore._C import DispatchKey, DispatchKeySet
from opcore._mode_stack import _get_current_dispatch_mode, _mode_stack, _pop_mode
from opcore._mode_stack import _pop_mode_temporarily  # noqa: F401  with the two above, the stack's API here
from opcore._mode_stack import _push_mode as _push_any_mode
from opcore._ops import _flat_args, _lookup_overload

# This thread's stack of modes lives in opcore._mode_stack (Note [The layers of opcore's Python
# modules] in opcore/_ops.py).


class TorchDispatchMode:
    """Subclass it and define __torch_dispatch__(self, func, types, args=(), kwargs=None); while
    `with mode:` is active on a thread, every operator call there reaches it."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError(f"{type(self).__name__} must define __torch_dispatch__")

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        mode = _pop_mode()
        if mode is not self:
            raise RuntimeError(f"dispatch modes must exit in the reverse order they entered: leaving {self!r} "
                               f"while {mode!r} is innermost")


def _get_current_dispatch_mode_stack() -> list:
    return list(_mode_stack())


def _push_mode(mode: TorchDispatchMode) -> None:
    if not isinstance(mode, TorchDispatchMode):
        raise TypeError(f"expected a TorchDispatchMode, not {type(mode).__name__}")
    _push_any_mode(mode)


@contextlib.contextmanager
def _disable_current_modes():
    """No mode sees calls for the duration."""
    stack = _mode_stack()
    saved = list(stack)
    while stack:
        _pop_mode()
    try:
        yield saved
    finally:
        for mode in saved:
            _push_mode(mode)


def _overloaded_types(args, kwargs) -> list:
    """The classes of the arguments that carry the Python key, subclasses before their bases.
    Only subclasses can (Tensor._make_wrapper_subclass), so opcore.Tensor itself is skipped."""
    types: list = []
    for a in _flat_args(args, kwargs):
        cls = type(a)
        if cls is not _C.Tensor and isinstance(a, _C.Tensor) and cls not in types and \
                _C._dispatch_keys(a).has(DispatchKey.Python):
            types.append(cls)
    return sorted(types, key=lambda t: -len(t.__mro__)) if len(types) > 1 else types


# The keys below the Python key: what a call continues with when the key came from this
# thread's set alone and there is no mode (a caller included it by hand).
_PYTHON_AND_ABOVE = DispatchKeySet([DispatchKey.Python, DispatchKey.ADInplaceOrView, DispatchKey.AutogradOther,
                                    DispatchKey.AutogradFunctionality, DispatchKey.AutocastFunctionality])


def _dispatch_python_key(op_name, overload_name, keyset, *args, **kwargs):
    """The Python key's fallback kernel (Note [The Python dispatch key])."""
    func = _lookup_overload(op_name, overload_name)
    types = _overloaded_types(args, kwargs)
    mode = _get_current_dispatch_mode()
    if mode is not None:
        _pop_mode()  # while the mode runs, calls go to the modes below it (_pop_mode_temporarily)
        try:
            rule = func.python_key_table.get(type(mode))
            result = rule(mode, *args, **kwargs) if rule else mode.__torch_dispatch__(func, tuple(types), args, kwargs)
        finally:
            _push_mode(mode)
        if result is not NotImplemented:
            return result
    for cls in types:
        rule = func.python_key_table.get(cls)
        torch_dispatch = getattr(cls, "__torch_dispatch__", None)
        if rule is None and torch_dispatch is None:
            continue
        result = rule(*args, **kwargs) if rule else torch_dispatch(func, tuple(types), args, kwargs)
        if result is not NotImplemented:
            return result
    if mode is None and not types:
        return func.redispatch(keyset - _PYTHON_AND_ABOVE, *args, **kwargs)
    raise TypeError(f"Multiple dispatch failed for '{func}': every __torch_dispatch__ returned NotImplemented "
                    f"(mode: {mode!r}, subclasses: {[t.__name__ for t in types]})")


_fallback = _C._Library("IMPL", "_", DispatchKey.Python, "_python_dispatch.py")
_fallback.fallback(_dispatch_python_key, DispatchKey.Python, True, "_python_dispatch.py")
