"""This thread's stack of dispatch modes (TorchDispatchMode objects, innermost last), below
opcore._ops, whose higher-order operators read it (Note [The layers of opcore's Python modules]
in opcore/_ops.py); opcore.utils._python_dispatch pushes and pops the modes. While the stack is
not empty, calls reach the Python key."""
from __future__ import annotations

import contextlib
import threading

from opcore import _C
from opcore._C import DispatchKey

_mode_state = threading.local()


def _mode_stack() -> list:
    if not hasattr(_mode_state, "stack"):
        _mode_state.stack = []
    return _mode_state.stack


def _get_current_dispatch_mode():
    """The innermost mode active on this thread, or None."""
    stack = _mode_stack()
    return stack[-1] if stack else None


def _push_mode(mode) -> None:
    """Makes `mode` the innermost mode on this thread (calls reach the Python key)."""
    _mode_stack().append(mode)
    _C._dispatch_tls_set_dispatch_key_included(DispatchKey.Python, True)


def _pop_mode():
    """Removes and returns the innermost mode on this thread."""
    stack = _mode_stack()
    if not stack:
        raise RuntimeError("no dispatch mode is active on this thread")
    mode = stack.pop()
    if not stack:
        _C._dispatch_tls_set_dispatch_key_included(DispatchKey.Python, False)
    return mode


@contextlib.contextmanager
def _pop_mode_temporarily():
    """The innermost mode, popped for the duration (calls inside go to the modes below it)."""
    mode = _pop_mode()
    try:
        yield mode
    finally:
        _push_mode(mode)
