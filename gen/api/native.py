"""The native calling convention: the hand-written kernels in opcore::native named in
`dispatch:`, e.g. `Tensor& add_out(const Tensor& self, ..., Tensor& out)`.
Same parameter types and order as the dispatcher; the name is the kernel's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from gen.api import dispatcher, per_schema, structured
from gen.api.structured import ImplSignature
from gen.api.types import Binding
from gen.model.native_function import NativeFunction
from gen.model.schema import FunctionSchema


@dataclass(frozen=True, slots=True)
class NativeSignature:
    """Every schema argument in schema order, no defaults."""

    name: str
    returns: str
    bindings: tuple[Binding, ...]

    def arguments(self) -> tuple[Binding, ...]:
        return self.bindings

    def parameter_types(self) -> tuple[str, ...]:
        return tuple(b.type for b in self.bindings)

    def decl(self) -> str:
        params = ", ".join(b.decl(with_default=False) for b in self.bindings)
        return f"{self.returns} {self.name}({params})"

    def defn(self) -> str:
        return self.decl()

    def call_exprs(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.bindings)


@per_schema  # See Note [Signature caches] in gen/api/__init__.py
def signature(func: FunctionSchema, kernel: str) -> NativeSignature:
    """Raises ApiError for types the C++ API does not support. The parameters are the
    dispatcher's (see Note [Signature caches] in gen/api/__init__.py)."""
    sig = dispatcher.api_signature(func)
    return NativeSignature(kernel, sig.returns, sig.bindings)


def kernel_signature(f: NativeFunction, kernel: str) -> Union[NativeSignature, ImplSignature]:
    """The signature of `kernel`, named in f's `dispatch:`: the impl of a structured overload
    (gen/api/structured.py), else a kernel with the dispatcher's parameters."""
    return structured.impl_signature(f, kernel) if f.structured else signature(f.func, kernel)
