"""Rules between the keys of one native_functions.yaml entry, checked once it is parsed
(NativeFunction.__post_init__); each error points at the key or value concerned.

Note [Structured kernels]
A structured kernel is written once, for the out= overload (`structured: True`): a meta
function computes the output's shape and dtype (and the `precomputed:` values), an impl
function fills the output. The functional and in-place overloads name it with
`structured_delegate: <op>.out` and get their CPU, CUDA and Meta kernels from it, so they
name no backend kernel themselves (composite kernels are allowed, as in torchgen). The rules
across entries (the delegate exists, is structured, has the same arguments) are in validate.py.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from gen.model.dispatch import BACKEND_KEYS
from gen.model.entry_keys import Variant
from gen.model.errors import SpecError

if TYPE_CHECKING:
    from gen.model.native_function import NativeFunction

# The tag of operators that draw random numbers (declared in tags.yaml).
NONDETERMINISTIC_SEEDED = "nondeterministic_seeded"


def check_entry(f: NativeFunction) -> None:
    """Raises SpecError for the first rule `f` breaks."""
    _check_structured(f)
    _check_delegate_dispatch(f)
    _check_manual_registration(f)
    _check_variants(f)
    _check_autogen(f)
    _check_generator(f)


def _check_structured(f: NativeFunction) -> None:
    at = f.value_loc
    if f.structured and f.structured_delegate is not None:
        raise SpecError(at("structured_delegate"), f"'{f.name}' has both 'structured: True' and "
                                                   "'structured_delegate': an out= overload is structured, "
                                                   "the others delegate to it")
    if f.structured and not f.func.is_out:
        raise SpecError(at("structured"), f"'structured: True' is only for out= overloads, and '{f.name}' "
                                          f"has no out= argument (did you mean 'structured_delegate'?)")
    if f.structured_delegate is not None and f.func.is_out:
        raise SpecError(at("structured_delegate"), f"out= overload '{f.name}' cannot delegate "
                                                   "(did you mean 'structured: True'?)")
    for key, value in (("structured_inherits", f.structured_inherits), ("precomputed", f.precomputed)):
        if value is not None and not f.structured:
            raise SpecError(f.key_loc(key), f"'{key}' is only for structured kernels: "
                                            f"'{f.name}' needs 'structured: True'")
    if not f.device_guard and (f.structured or f.structured_delegate is not None):
        why = f"'{f.name}' is structured" if f.structured else f"'{f.name}' delegates to '{f.structured_delegate}'"
        raise SpecError(at("device_guard"), f"'device_guard: False' is not supported by structured kernels ({why})")


def _check_delegate_dispatch(f: NativeFunction) -> None:
    """See Note [Structured kernels]."""
    if f.structured_delegate is None:
        return
    for k in f.dispatch:
        if k.key in BACKEND_KEYS:
            raise SpecError(k.loc, f"'{f.name}' takes its {k.key.value} kernel from its structured delegate "
                                   f"'{f.structured_delegate}': remove '{k.key.value}' from 'dispatch'")


def _check_manual_registration(f: NativeFunction) -> None:
    if f.manual_kernel_registration and (f.dispatch or f.key_locs.key("dispatch")):
        raise SpecError(f.key_loc("dispatch"), f"'dispatch' has no effect with 'manual_kernel_registration: "
                                               f"True': the kernels of '{f.name}' are registered by hand")


def _check_variants(f: NativeFunction) -> None:
    """out= overloads and operators of a Python submodule are free functions only (torchgen)."""
    if Variant.method not in f.variants:
        return
    if f.func.is_out:
        raise SpecError(f.value_loc("variants"), f"out= overload '{f.name}' cannot be a method: "
                                                 "use 'variants: function'")
    if f.python_module is not None:
        raise SpecError(f.value_loc("variants"), f"'{f.name}' is in python_module '{f.python_module}', "
                                                 "so it cannot be a method")


def _check_autogen(f: NativeFunction) -> None:
    """What each name may be is checked once every entry is parsed (gen/model/autogen.py)."""
    for i, name in enumerate(f.autogen):
        if str(name) == f.name:
            raise SpecError(f.item_loc("autogen", i),
                            f"'{f.name}' cannot generate itself ('autogen' names other overloads)")


def _check_generator(f: NativeFunction) -> None:
    """An operator drawing from a Generator is random; its tag says so to every consumer."""
    for i, a in enumerate(f.func.arguments):
        if a.type.base == "Generator" and NONDETERMINISTIC_SEEDED not in f.tags:
            raise SpecError(f.func_loc.at(f.func.argument_offset(i)),
                            f"'{f.name}' takes a Generator ('{a.name}'), so it must have the tag "
                            f"'{NONDETERMINISTIC_SEEDED}'")
