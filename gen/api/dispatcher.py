"""The dispatcher calling convention: the `_ops::<op>` structs' `call`/`redispatch` and the
function type a kernel is registered and looked up with (`using schema = ...`).

    sig = dispatcher.signature(f.func)
    sig.type()                    # "Tensor(const Tensor&, const Tensor&, const Scalar&)"
    sig.decl("call")              # "Tensor call(const Tensor& self, ...)"
    sig.decl("redispatch", keyset=True)
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from gen.api import per_schema
from gen.api.types import Binding, argument_type, from_global_namespace, returns_type
from gen.model.schema import FunctionSchema

KEYSET = Binding("DispatchKeySet", "dispatch_key_set")


@dataclass(frozen=True)
class DispatcherSignature:
    """Every schema argument in schema order, no defaults."""

    returns: str
    bindings: tuple[Binding, ...]

    def arguments(self, keyset: bool = False) -> tuple[Binding, ...]:
        return ((KEYSET,) if keyset else ()) + self.bindings

    def type(self) -> str:
        return f"{self.returns}({', '.join(b.type for b in self.bindings)})"

    # Every wrapper and kernel of an operator prints these parameters: they are joined once
    # (functools.cached_property stores them in the instance, not in a field).
    @functools.cached_property
    def _parameters(self) -> str:
        return ", ".join(b.decl(with_default=False) for b in self.bindings)

    @functools.cached_property
    def _keyset_parameters(self) -> str:
        return ", ".join(b.decl(with_default=False) for b in self.arguments(keyset=True))

    def decl(self, name: str, keyset: bool = False) -> str:
        params = self._keyset_parameters if keyset else self._parameters
        return f"{self.returns} {name}({params})"

    def defn(self, qualified_name: str, keyset: bool = False) -> str:
        return self.decl(qualified_name, keyset)

    def call_exprs(self, keyset: bool = False) -> tuple[str, ...]:
        return tuple(b.name for b in self.arguments(keyset))


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def api_signature(func: FunctionSchema) -> DispatcherSignature:
    """The dispatcher's parameters and return, with the standard library written `std::`, as
    the C++ API and native kernels write it (they start from these bindings). Raises ApiError
    for types the C++ API does not support."""
    bindings = tuple(Binding(argument_type(a.type), a.name) for a in func.arguments)
    return DispatcherSignature(returns_type(func.returns), bindings)


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def signature(func: FunctionSchema) -> DispatcherSignature:
    """api_signature with `::std::` (see Note [std as an operator name] in gen/api/types.py):
    what the `_ops` structs and the wrappers registered with the dispatcher say."""
    sig = api_signature(func)
    bindings = tuple(Binding(from_global_namespace(b.type), b.name) for b in sig.bindings)
    return DispatcherSignature(from_global_namespace(sig.returns), bindings)


def struct_name(func: FunctionSchema) -> str:
    """`add_Tensor` for add.Tensor, `add__Tensor` for add_.Tensor, `neg` for neg."""
    name = func.name
    return f"{name.base}_{name.overload}" if name.overload else name.base
