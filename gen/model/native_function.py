"""yaml/native_functions.yaml: NativeFunction, one operator overload (one entry), and the rules
on one entry that NativeFunction.__post_init__ checks: its schema (schema_checks.py) and the
rules between its keys (here). Parsing is in native_functions_yaml.py; the rules across
entries are in cross_entry_checks.py.

Note [Structured kernels]
A structured kernel is written once, for the out= overload (`structured: True`): a meta
function computes the output's shape and dtype (and the `precomputed:` values), an impl
function fills the output. The functional and in-place overloads name it with
`structured_delegate: <op>.out` and get their CPU, CUDA and Meta kernels from it, so they
name no backend kernel themselves (composite kernels are allowed, as in torchgen). The rules
across entries (the delegate exists, is structured, has the same arguments) are in
cross_entry_checks.py.
"""
from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field
from typing import Optional

from gen.model.dispatch import BACKEND_KEYS, BackendKernel, DispatchKey  # noqa: F401 (DispatchKey re-exported)
from gen.model.errors import Loc, SpecError, TextLoc
from gen.model.kernel_keys import KeyedKernel
from gen.model.precompute import Precompute
from gen.model.schema import FunctionSchema, OperatorName
from gen.model.schema_checks import check_schema

# The namespace of opcore's own operators; a run of the generator may generate another
# (an extension's: Note [Operator namespaces] in gen/emit/common.py).
ATEN = "aten"

# The tag of operators that draw random numbers (declared in tags.yaml).
NONDETERMINISTIC_SEEDED = "nondeterministic_seeded"

# The members of opcore::Tensor that the runtime writes by hand (declared in
# gen/templates/Tensor.h.j2: the autograd ones, defined in runtime/opcore/autograd/TensorMethods.cpp,
# and item<T>()): an operator may not generate a method of one of these names
# (tests/gen/test_api.py compares the lists).
RUNTIME_METHODS = ("requires_grad_", "grad", "mutable_grad", "detach", "detach_", "register_hook", "backward", "item")


class Variant(enum.Enum):
    """`variants:`: a free function `opcore::add(t, ...)` and/or a method `t.add(...)`."""

    function = "function"
    method = "method"


# Note [C++ API names]
# An overload's C++ API is named after its base name, whatever its overload name (ATen's rule;
# C++ overloading tells the overloads apart, gen/api/signature_checks.py rejects collisions):
# - an out= overload: the free functions `add_out` (outputs first) and `add_outf` (schema
#   order), see Note [out= functions] in gen/api/cpp.py; an out= overload is never a method;
# - any other overload: the free function `add` with `variants: function` (unless the name is
#   a runtime type's, RUNTIME_TYPE_NAMES), the method `Tensor::add` with `variants: method`.
# cpp_api_names() is this rule, written once: the signatures (gen/api/cpp.py), the emitters
# (ops/<op>.h and Tensor.h, operators.md, a selective build's scan for calls) and the checks
# (the names formulas may call, colliding declarations) all ask it.
@dataclass(frozen=True, slots=True)
class CppApiNames:
    """The names of one overload's C++ API (Note [C++ API names]); None: it has no such entry."""

    function: Optional[str] = None  # "add": `opcore::add` (variants: function, not out=)
    out: Optional[str] = None       # "add_out": `opcore::add_out(out, self, ...)`
    outf: Optional[str] = None      # "add_outf": `opcore::add_outf(self, ..., out)`
    method: Optional[str] = None    # "add": `Tensor::add` (variants: method)

    @property
    def functions(self) -> tuple[str, ...]:
        """The free functions, as declared: ("add",), ("add_out", "add_outf") or ()."""
        return tuple(name for name in (self.function, self.out, self.outf) if name is not None)


# The element types the runtime declares in namespace opcore (runtime/opcore/core/Complex.h). A
# free function of the same name would make `opcore::complex<float>` ambiguous, so an operator
# named like one (PyTorch's `complex(Tensor real, Tensor imag)`) gets no free function: it is
# called as `opcore::_ops::complex::call(real, imag)` (ATen avoids the clash by declaring the
# type in c10::, apart from the at:: API; opcore has one namespace for both).
RUNTIME_TYPE_NAMES = frozenset({"complex"})


def cpp_api_names(func: FunctionSchema, variants: frozenset[Variant]) -> CppApiNames:
    """The C++ API names of an overload of schema `func` with `variants` (Note [C++ API names])."""
    base = func.name.base
    if func.is_out:
        return CppApiNames(out=f"{base}_out", outf=f"{base}_outf")
    has_function = Variant.function in variants and base not in RUNTIME_TYPE_NAMES
    return CppApiNames(function=base if has_function else None,
                       method=base if Variant.method in variants else None)


class DeviceCheck(enum.Enum):
    """`device_check:`: ExactSame (default): the generated code checks that every tensor
    argument is on the same device; NoCheck: the kernel accepts tensors on several devices."""

    ExactSame = "ExactSame"
    NoCheck = "NoCheck"


@dataclass(frozen=True, slots=True)
class KeyLocs:
    """Where an entry's keys and values are written, for errors about them.

    keys, values: (key, location) pairs; items: (key, one location per list item) for the
    keys whose value is a list of names (`autogen`).
    """

    keys: tuple[tuple[str, Loc], ...] = ()
    values: tuple[tuple[str, Loc], ...] = ()
    items: tuple[tuple[str, tuple[Loc, ...]], ...] = ()

    def key(self, name: str) -> Optional[Loc]:
        return dict(self.keys).get(name)

    def value(self, name: str) -> Optional[Loc]:
        """Where the value of `name` is (the key when the value is empty)."""
        return dict(self.values).get(name)

    def item(self, name: str, index: int) -> Optional[Loc]:
        items = dict(self.items).get(name, ())
        return items[index] if index < len(items) else None


@dataclass(frozen=True)
class NativeFunction:
    """One operator overload. Each field comes from the YAML key of the same name:

    func      <- `func:` (the schema)
    variants  <- `variants:` (default: function)
    dispatch  <- `dispatch:`, one BackendKernel per key, in YAML order; () for an entry that
                 delegates (structured_delegate) or registers its kernels by hand
    tags      <- `tags:` (a string or a list), each declared in tags.yaml
    doc       <- `doc:` (free text, surrounding whitespace stripped; "" when absent)
    structured           <- `structured:` (an out= overload with a structured kernel: meta + impl)
    structured_delegate  <- `structured_delegate:` (the structured out= overload whose kernel
                            this functional or in-place overload uses, e.g. add.out)
    structured_inherits  <- `structured_inherits:` (the C++ base class of the meta struct,
                            e.g. TensorIteratorBase; None: the default)
    precomputed          <- `precomputed:` (values the meta function hands to the impl function)
    device_check         <- `device_check:` (default ExactSame)
    device_guard         <- `device_guard:` (default True: the kernel runs under a device guard
                            for its tensors' device)
    manual_kernel_registration <- `manual_kernel_registration:` (True: no generated
                            registration; the kernels are registered by hand, and `dispatch:`
                            is not allowed)
    manual_cpp_binding   <- `manual_cpp_binding:` (True: the C++ API function and method are
                            written by hand)
    python_module        <- `python_module:` (opcore.nn, opcore.linalg, ...; None: opcore)
    cpp_no_default_args  <- `cpp_no_default_args:` (arguments whose default the C++ API drops)
    autogen              <- `autogen:` (operators generated from this one, e.g. its out= overload)
    dropped_dispatch_keys <- `dispatch:` keys dropped under ParseOptions.ignored_dispatch_keys
    kernels <- `kernels:` (ExecuTorch's CPU kernels per kernel key: Note [Kernel keys] in kernel_keys.py)
    namespace <- the run's operator namespace (`aten`, or an extension's): `func:` may write it
                 (`myops::fused_gelu(...)`), and func itself is kept without it
    autogen_source <- for an overload generated from another entry's `autogen:`, that entry's
                 name (its one kernel is generated too: Note [Generated overloads] in autogen.py)
    loc <- the entry; func_loc <- where the schema text starts (errors point into it);
    key_locs <- where each key and value is
    """

    func: FunctionSchema
    variants: frozenset[Variant]
    dispatch: tuple[BackendKernel, ...]
    tags: tuple[str, ...]
    doc: str
    loc: Loc
    func_loc: TextLoc
    structured: bool = False
    structured_delegate: Optional[OperatorName] = None
    structured_inherits: Optional[str] = None
    precomputed: Optional[Precompute] = None
    device_check: DeviceCheck = DeviceCheck.ExactSame
    device_guard: bool = True
    manual_kernel_registration: bool = False
    manual_cpp_binding: bool = False
    python_module: Optional[str] = None
    cpp_no_default_args: frozenset[str] = frozenset()
    autogen: tuple[OperatorName, ...] = ()
    dropped_dispatch_keys: tuple[str, ...] = ()
    key_locs: KeyLocs = field(default_factory=KeyLocs)
    autogen_source: Optional[str] = None
    namespace: str = ATEN
    kernels: tuple[KeyedKernel, ...] = ()

    def __post_init__(self) -> None:
        check_schema(self.func, self.func_loc)
        if Variant.method in self.variants:
            self_arg = self.func.argument("self")
            if self_arg is None or self_arg.type.base != "Tensor" or self_arg.type.suffix:
                raise SpecError(self.func_loc.at(0), f"operator '{self.func.name}' has 'variants: method' "
                                                     "but no 'Tensor self' argument")
        check_entry(self)

    @functools.cached_property  # asked for often; stored in the instance, not a field
    def name(self) -> str:
        """`add.Tensor`, `neg`: the operator name without namespace."""
        return str(self.func.name)

    @functools.cached_property  # asked for by several emitters and checks
    def cpp_names(self) -> CppApiNames:
        """The names of its C++ API (Note [C++ API names])."""
        return cpp_api_names(self.func, self.variants)

    @property
    def qualified_name(self) -> str:
        """`aten::add.Tensor`: the name the dispatcher knows the overload by."""
        return f"{self.namespace}::{self.name}"

    @property
    def native_kernels(self) -> tuple[BackendKernel, ...]:
        """The `dispatch:` kernels written by hand in opcore::native (a generated overload's
        kernel is generated: Note [Generated overloads] in autogen.py)."""
        return () if self.autogen_source else self.dispatch

    def key_loc(self, key: str) -> Loc:
        """Where `key` is written; the entry for a key it does not have (or an entry made
        without locations, e.g. one the generator derives from another)."""
        return self.key_locs.key(key) or self.loc

    def value_loc(self, key: str) -> Loc:
        """Where the value of `key` is written (see key_loc)."""
        return self.key_locs.value(key) or self.loc

    def item_loc(self, key: str, index: int) -> Loc:
        """Where item `index` of a list-valued key (`autogen`) is written (see key_loc)."""
        return self.key_locs.item(key, index) or self.loc


def check_entry(f: NativeFunction) -> None:
    """Raises SpecError for the first rule `f` breaks."""
    _check_structured(f)
    _check_delegate_dispatch(f)
    _check_manual_registration(f)
    _check_variants(f)
    _check_autogen(f)
    _check_generator(f)
    _check_kernels(f)


def _check_kernels(f: NativeFunction) -> None:
    """`kernels:` gives the CPU kernels: of an operator that has its own (not a structured or
    delegating one, nor one registered by hand), and not twice."""
    if not f.kernels:
        return
    at = f.key_loc("kernels")
    if f.structured or f.structured_delegate is not None or f.manual_kernel_registration:
        why = "structured" if f.structured or f.structured_delegate else "registered by hand"
        raise SpecError(at, f"'kernels:' gives '{f.name}' CPU kernels, but its kernels are {why}")
    cpu = next((k for k in f.dispatch if k.key == DispatchKey.CPU), None)
    if cpu is not None:
        raise SpecError(cpu.loc, f"'{f.name}' has CPU kernels in both 'kernels:' and 'dispatch:': give them in one")


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


@dataclass(frozen=True)
class OperatorImpl:
    """`- op: add.out` (ExecuTorch's form) in an extension's YAML: kernels for an operator
    declared elsewhere, opcore's: `kernels:` at CPU (Note [Kernel keys] in kernel_keys.py)
    and `dispatch:` at any key, such as a backend the extension adds; neither: the operator's
    own kernels (Note [An '- op:' entry's keys] in native_functions_yaml.py).

    function <- the operator `op:` names, as its own YAML declares it
    kernels <- `kernels:` (with `type_alias:`, `dim_order_alias:`)
    dispatch <- `dispatch:`
    loc <- where `op:`'s value is written
    """

    function: NativeFunction
    kernels: tuple[KeyedKernel, ...]
    dispatch: tuple[BackendKernel, ...]
    loc: Loc

    @property
    def own_kernels(self) -> bool:
        """True when the entry gives no kernels: the operator keeps opcore's, and nothing is generated."""
        return not self.kernels and not self.dispatch

