"""The C++ API calling convention: `opcore::add(...)` (Functions.h), `t.add(...)` (Tensor.h)
and `opcore::redispatch::add(ks, ...)` (RedispatchFunctions.h).

    sig = cpp.function_signature(f.func)
    sig.decl()      # "Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1)"
    sig.call_exprs()  # ("self", "other", "alpha"): what to pass to _ops::add_Tensor::call

See Note [out= functions] for the two C++ spellings of an out= overload.
"""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import dispatcher, per_schema
from gen.api.dispatcher import KEYSET
from gen.api.types import Binding, default_value, trim_defaults
from gen.model.schema import Argument, FunctionSchema

# Note [out= functions]
# An out= overload such as add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
# gets two C++ functions, as in ATen:
#   add_out(Tensor& out, self, other, alpha = 1)   outputs first, so defaults still work
#   add_outf(self, other, alpha, Tensor& out)      schema order, no defaults
# Both are named after the base name whatever the overload name (sum.IntList_out -> sum_out);
# C++ overloading tells the overloads apart, and check.py rejects exact duplicates.


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


def function_name(func: FunctionSchema) -> str:
    """`add` for add.Tensor; `add_out` for any out= overload of add."""
    return f"{func.name.base}_out" if func.is_out else func.name.base


def outf_name(func: FunctionSchema) -> str:
    """`add_outf` for any out= overload of add (see Note [out= functions])."""
    return f"{func.name.base}_outf"


def method_name(func: FunctionSchema) -> str:
    """`add` for every overload of add, out= ones included."""
    return func.name.base


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def function_signature(func: FunctionSchema, no_defaults: frozenset[str] = frozenset()) -> CppSignature:
    """`opcore::add(self, other, alpha = 1)` for a `variants: function` overload."""
    bindings = trim_defaults([_binding(a, p, no_defaults) for a, p in zip(func.arguments, _params(func))])
    return CppSignature(func.name.base, dispatcher.api_signature(func).returns, bindings, _names(func))


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def out_signature(func: FunctionSchema, no_defaults: frozenset[str] = frozenset()) -> CppSignature:
    """`opcore::add_out(out, self, other, alpha = 1)`; see Note [out= functions]."""
    outs = func.out_arguments
    pairs = list(zip(func.arguments, _params(func)))
    ordered = [(a, p) for a, p in pairs if a in outs] + [(a, p) for a, p in pairs if a not in outs]
    bindings = trim_defaults([_binding(a, p, no_defaults) for a, p in ordered])
    return CppSignature(function_name(func), dispatcher.api_signature(func).returns, bindings, _names(func))


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def outf_signature(func: FunctionSchema) -> CppSignature:
    """`opcore::add_outf(self, other, alpha, out)`; see Note [out= functions]."""
    return CppSignature(outf_name(func), dispatcher.api_signature(func).returns, _params(func), _names(func))


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def method_signature(func: FunctionSchema, no_defaults: frozenset[str] = frozenset()) -> CppSignature:
    """`Tensor::add(other, alpha = 1) const`: `self` is `*this`, wherever it is in the schema.

    Precondition: func has a Tensor `self` argument (checked by the model).
    """
    self_arg = func.argument("self")
    assert self_arg is not None, "method without self passed the model checks: generator bug"
    this = "const_cast<Tensor&>(*this)" if self_arg.type.is_mutable else "*this"
    bindings = trim_defaults([_binding(a, p, no_defaults) for a, p in zip(func.arguments, _params(func))
                              if a is not self_arg])
    call_args = tuple(this if a is self_arg else a.name for a in func.arguments)
    return CppSignature(method_name(func), dispatcher.api_signature(func).returns, bindings, call_args, method=True)


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def redispatch_signature(func: FunctionSchema) -> CppSignature:
    """`opcore::redispatch::add(dispatch_key_set, self, other, alpha)`: schema order, no
    defaults (callers are kernels, which pass everything); out= overloads are `add_out`."""
    call_args = (KEYSET.name,) + _names(func)
    return CppSignature(function_name(func), dispatcher.api_signature(func).returns, (KEYSET,) + _params(func), call_args)
