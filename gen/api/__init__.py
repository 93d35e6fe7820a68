"""Signatures: pure functions from model objects to frozen C++ signature objects.

One module per calling convention (cpp, dispatcher, native); type decisions live in types.py.
The only state is the signature caches (Note [Signature caches]).
"""

# Note [Signature caches]
# The signature functions (cpp.*_signature, dispatcher.signature, native.signature) are pure
# functions of a frozen FunctionSchema, and the checks (check.py) and several emitters ask for
# the same signatures: each is computed once, with functools.lru_cache keyed by value (a schema
# keeps its hash). pipeline._generating() clears them when a run is done: kept, they would hold
# every schema until the process exits, and the exit's final cycle collection over them would
# cost more than they save. The C++ API and native signatures start from the dispatcher
# signature's bindings (the same C++ types today, see gen/api/types.py), so each argument's type
# is worked out once per schema and its Binding shared wherever it has no default.


def clear_caches() -> None:
    """Empties every functools cache of the generator's loaded modules (see Note [Signature
    caches]): found, not listed, so that a new cache cannot be missed."""
    import sys
    for name, module in list(sys.modules.items()):
        if name == "gen" or name.startswith("gen."):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()
