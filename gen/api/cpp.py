"""The C++ API calling convention: `opcore::add(...)` (Functions.h), `t.add(...)` (Tensor.h)
and `opcore::redispatch::add(ks, ...)` (ops/<group>.h, next to `opcore::add`).

    sig = cpp.function_signature(f.func)
    sig.decl()      # "Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1)"
    sig.call_exprs()  # ("self", "other", "alpha"): what to pass to _ops::add_Tensor::call

See Note [out= functions] for the two C++ spellings of an out= overload.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from gen.api import dispatcher, per_schema
from gen.api.dispatcher import KEYSET
from gen.api.types import Binding, default_value, trim_defaults
from gen.model.schema import Argument, FunctionSchema
from gen.model.native_function import ATEN, CppApiNames, NativeFunction, Variant, cpp_api_names

# Note [out= functions]
# An out= overload such as add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
# gets two C++ functions, as in ATen:
#   add_out(Tensor& out, self, other, alpha = 1)   outputs first, so defaults still work
#   add_outf(self, other, alpha, Tensor& out)      schema order, no defaults
# Both are named after the base name whatever the overload name (sum.IntList_out -> sum_out);
# C++ overloading tells the overloads apart, and signature_checks.py rejects exact duplicates.


# Note [TensorOptions overloads]
# A factory schema spells its dtype, layout and device as separate keyword-only optionals:
#   empty(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor
# As in ATen, the C++ API then has two overloads of it:
#   empty(IntArrayRef size, TensorOptions options = {})            what users call
#   empty(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device)
# The second, "unpacked", one takes the arguments as the schema has them, without defaults for
# the group (nor before it), so that no call matches both. A trailing `pin_memory` keeps its
# default where a call without it still passes more arguments than the first overload takes
# (`empty(size, dtype, layout, device)`: four, against at most three), so that adding it to a
# factory, as PyTorch's schemas have it, leaves existing calls valid. The group is the run of
# keyword-only `ScalarType? dtype`, `Layout? layout`, `Device? device`, `bool? pin_memory`
# arguments holding at least dtype and device. A factory method (`t.new_zeros(size, options)`)
# has the same two overloads, as ATen's Tensor does. The first overload checks the parts the schema
# has no argument for (a factory without `layout` makes strided tensors) and applies
# `requires_grad` to the result (runtime/opcore/core/TensorOptions.h).
_OPTIONS_PARTS = {"dtype": ("ScalarType?", "options.dtype_opt()"),
                  "layout": ("Layout?", "options.layout_opt()"),
                  "device": ("Device?", "options.device_opt()"),
                  "pin_memory": ("bool?", "options.pinned_memory_opt()")}
OPTIONS = Binding("TensorOptions", "options", "{}")


@dataclass(frozen=True, slots=True)
class CppSignature:
    """A function (or a const Tensor method when `method`) of the C++ API.

    bindings:  C++ parameters in C++ order, with the defaults C++ allows
    call_args: the expressions passed on to `_ops::<op>::call`/`redispatch`, in schema order
    """

    name: str
    returns: str
    bindings: tuple[Binding, ...]
    call_args: tuple[str, ...]
    method: bool = False

    def arguments(self) -> tuple[Binding, ...]:
        return self.bindings

    def parameter_types(self) -> tuple[str, ...]:
        return tuple(b.type for b in self.bindings)

    def decl(self, with_defaults: bool = True) -> str:
        params = ", ".join(b.decl(with_defaults) for b in self.bindings)
        const = " const" if self.method else ""
        return f"{self.returns} {self.name}({params}){const}"

    def defn(self, scope: str = "") -> str:
        """The definition's head; `scope` qualifies the name (`Tensor::`)."""
        params = ", ".join(b.decl(with_default=False) for b in self.bindings)
        const = " const" if self.method else ""
        return f"{self.returns} {scope}{self.name}({params}){const}"

    def call_exprs(self) -> tuple[str, ...]:
        return self.call_args


def _binding(a: Argument, param: Binding, no_defaults: frozenset[str] = frozenset()) -> Binding:
    """`param`: a's dispatcher binding (its C++ type, no default). `no_defaults`: the arguments
    whose default the C++ API drops (`cpp_no_default_args:`)."""
    if a.default is None or a.name in no_defaults:
        return param
    return Binding(param.type, a.name, default_value(a))


def _params(func: FunctionSchema) -> tuple[Binding, ...]:
    """The C++ parameter of each schema argument, without defaults: the dispatcher's, whose
    types are the C++ API's too (see Note [Signature caches] in gen/api/__init__.py)."""
    return dispatcher.api_signature(func).bindings


def _names(func: FunctionSchema) -> tuple[str, ...]:
    return tuple(a.name for a in func.arguments)


_FUNCTION = frozenset({Variant.function})
_METHOD = frozenset({Variant.method})


def _function_names(func: FunctionSchema) -> CppApiNames:
    """The C++ API names of `func` as a `variants: function` overload (Note [C++ API names] in
    gen/model/native_function.py): a signature exists whatever the entry's variants."""
    return cpp_api_names(func, _FUNCTION)


def function_name(func: FunctionSchema) -> str:
    """`add` for add.Tensor; `add_out` for any out= overload of add: the name of its free
    function (when it has one: RUNTIME_TYPE_NAMES), and of its redispatch function (which
    every overload has)."""
    return _function_names(func).out or func.name.base


def tensor_options_group(func: FunctionSchema) -> tuple[Argument, ...]:
    """The arguments a TensorOptions overload packs (Note [TensorOptions overloads]); empty
    when `func` has none."""
    args = func.arguments
    for start, a in enumerate(args):
        if a.name in _OPTIONS_PARTS:
            break
    else:
        return ()
    end = start
    while (end < len(args) and args[end].name in _OPTIONS_PARTS and args[end].kwarg_only
           and str(args[end].type) == _OPTIONS_PARTS[args[end].name][0]):
        end += 1
    group = args[start:end]
    names = {a.name for a in group}
    return group if {"dtype", "device"} <= names and len(names) == len(group) else ()


def _unpacked_without_defaults(func: FunctionSchema) -> frozenset[str]:
    """The arguments of the group that a factory's unpacked overload takes without their
    defaults (Note [TensorOptions overloads]); none for a function without the group."""
    group = tensor_options_group(func)
    required = {a.name for a in group}
    if group and group[-1].name == "pin_memory":
        after = len(func.arguments) - func.arguments.index(group[-1]) - 1
        # An unpacked call without pin_memory passes len(group) - 1 arguments where an options
        # call passes at most 1 + `after`.
        if len(group) - 1 > 1 + after:
            required.discard("pin_memory")
    return frozenset(required)


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def function_signature(func: FunctionSchema, no_defaults: frozenset[str] = frozenset()) -> CppSignature:
    """`opcore::add(self, other, alpha = 1)` for a `variants: function` overload; for a factory,
    its unpacked overload (Note [TensorOptions overloads])."""
    required = no_defaults | _unpacked_without_defaults(func)
    bindings = trim_defaults([_binding(a, p, required) for a, p in zip(func.arguments, _params(func))])
    return CppSignature(function_name(func), dispatcher.api_signature(func).returns, bindings, _names(func))


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def options_signature(func: FunctionSchema, no_defaults: frozenset[str] = frozenset()) -> Optional[CppSignature]:
    """`opcore::empty(size, TensorOptions options = {})` for a factory (Note [TensorOptions
    overloads]); None for a function without the dtype/device group."""
    group = tensor_options_group(func)
    if not group:
        return None
    bindings: list[Binding] = []
    for a, p in zip(func.arguments, _params(func)):
        if a is group[0]:
            bindings.append(OPTIONS)
        elif a not in group:
            bindings.append(_binding(a, p, no_defaults))
    call_args = tuple(_OPTIONS_PARTS[a.name][1] if a in group else a.name for a in func.arguments)
    return CppSignature(function_name(func), dispatcher.api_signature(func).returns, trim_defaults(bindings), call_args)


def options_unused_parts(func: FunctionSchema) -> tuple[bool, bool]:
    """Whether the group of `func` has `layout` and `pin_memory` (the other parts of a
    TensorOptions are checked by detail::checkOptionsWithoutArguments)."""
    names = {a.name for a in tensor_options_group(func)}
    return "layout" in names, "pin_memory" in names


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def out_signature(func: FunctionSchema, no_defaults: frozenset[str] = frozenset()) -> CppSignature:
    """`opcore::add_out(out, self, other, alpha = 1)`; see Note [out= functions]."""
    outs = func.out_arguments
    pairs = list(zip(func.arguments, _params(func)))
    ordered = [(a, p) for a, p in pairs if a in outs] + [(a, p) for a, p in pairs if a not in outs]
    bindings = trim_defaults([_binding(a, p, no_defaults) for a, p in ordered])
    return CppSignature(_function_names(func).out, dispatcher.api_signature(func).returns, bindings, _names(func))


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def outf_signature(func: FunctionSchema) -> CppSignature:
    """`opcore::add_outf(self, other, alpha, out)`; see Note [out= functions]."""
    return CppSignature(_function_names(func).outf, dispatcher.api_signature(func).returns, _params(func), _names(func))


def function_signatures(f: NativeFunction, no_defaults: frozenset[str]) -> tuple[CppSignature, ...]:
    """The free functions of `f`'s C++ API, as Note [C++ API names] names them: `add_out` and
    `add_outf` for an out= overload; `add` for a `variants: function` one, then its TensorOptions
    overload for a factory (Note [TensorOptions overloads]); none otherwise."""
    names = f.cpp_names
    if names.out is not None:
        return out_signature(f.func, no_defaults), outf_signature(f.func)
    if names.function is None:
        return ()
    options = options_signature(f.func, no_defaults)
    return (function_signature(f.func, no_defaults),) + ((options,) if options is not None else ())


def _method_this(func: FunctionSchema) -> tuple[Argument, str]:
    """`func`'s self argument, and the expression a method passes for it."""
    self_arg = func.argument("self")
    assert self_arg is not None, "method without self passed the model checks: generator bug"
    return self_arg, "const_cast<Tensor&>(*this)" if self_arg.type.is_mutable else "*this"


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def method_signature(func: FunctionSchema, no_defaults: frozenset[str] = frozenset()) -> CppSignature:
    """`Tensor::add(other, alpha = 1) const`: `self` is `*this`, wherever it is in the schema;
    for a factory method (`new_zeros`), its unpacked overload (Note [TensorOptions overloads]).

    Precondition: func has a Tensor `self` argument (checked by the model).
    """
    self_arg, this = _method_this(func)
    required = no_defaults | _unpacked_without_defaults(func)
    bindings = trim_defaults([_binding(a, p, required) for a, p in zip(func.arguments, _params(func))
                              if a is not self_arg])
    call_args = tuple(this if a is self_arg else a.name for a in func.arguments)
    return CppSignature(cpp_api_names(func, _METHOD).method, dispatcher.api_signature(func).returns, bindings, call_args, method=True)


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def options_method_signature(func: FunctionSchema, no_defaults: frozenset[str] = frozenset()) -> Optional[CppSignature]:
    """`Tensor::new_zeros(size, TensorOptions options = {}) const` for a factory method (Note
    [TensorOptions overloads]); None for a method without the dtype/device group."""
    options = options_signature(func, no_defaults)
    if options is None:
        return None
    self_arg, this = _method_this(func)
    bindings = tuple(b for b in options.bindings if b.name != self_arg.name)
    call_args = tuple(this if arg == self_arg.name else arg for arg in options.call_args)
    return CppSignature(cpp_api_names(func, _METHOD).method, options.returns, bindings, call_args, method=True)


def method_signatures(f: NativeFunction, no_defaults: frozenset[str]) -> tuple[CppSignature, ...]:
    """The Tensor methods of `f`: `t.add(...)`, and for a factory method its TensorOptions overload."""
    options = options_method_signature(f.func, no_defaults)
    return (method_signature(f.func, no_defaults),) + ((options,) if options is not None else ())


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def redispatch_signature(func: FunctionSchema) -> CppSignature:
    """`opcore::redispatch::add(dispatch_key_set, self, other, alpha)`: schema order, no
    defaults (callers are kernels, which pass everything); out= overloads are `add_out`."""
    call_args = (KEYSET.name,) + _names(func)
    return CppSignature(function_name(func), dispatcher.api_signature(func).returns, (KEYSET,) + _params(func), call_args)


def cpp_namespace(namespace: str) -> str:
    """The C++ namespace, and the directory under the output directory, of the generated code
    of operator namespace `namespace`: opcore's for aten, the namespace itself for an
    extension's (Note [Operator namespaces] in gen/emit/common.py)."""
    return "opcore" if namespace == ATEN else namespace
