"""Signatures: pure functions from model objects to frozen C++ signature objects.

One module per calling convention (cpp, dispatcher, native); type decisions live in types.py.
Signatures are memoized per schema object (Note [Signature caches]).
"""

from __future__ import annotations

import functools
from typing import Callable, TypeVar

_Result = TypeVar("_Result")


# Note [Signature caches]
# The signature functions (cpp.*_signature, dispatcher.signature and api_signature,
# native.signature) are pure functions of a FunctionSchema (and a few hashable arguments), and
# the checks (check.py) and several emitters ask for the same signatures: each is computed once
# per schema object, kept in that object beside its functools.cached_property values
# (per_schema). So the memo tables belong to the parsed spec of one run and go with it: none is
# global, none needs emptying, and a new one cannot be forgotten by a list of caches to clear.
# The C++ API and native signatures start from the dispatcher signature's bindings (the same
# C++ types today, see gen/api/types.py), so each argument's type is worked out once per schema
# and its Binding shared wherever it has no default.
def per_schema(fn: Callable[..., _Result]) -> Callable[..., _Result]:
    """`fn(schema, *args)`, computed once per schema object and arguments (Note [Signature
    caches])."""
    slot = f"_memo {fn.__module__}.{fn.__qualname__}"  # not an identifier: cannot clash with a field

    @functools.wraps(fn)
    def memoized(func, *args, **kwargs):
        memo = func.__dict__.get(slot)
        if memo is None:
            memo = func.__dict__[slot] = {}
        key = args + tuple(kwargs.items()) if kwargs else args
        try:
            return memo[key]
        except KeyError:
            result = memo[key] = fn(func, *args, **kwargs)
            return result
    return memoized
