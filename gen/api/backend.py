"""The kernels an out-of-tree backend defines for its backend YAML (Note [Backend YAML] in
gen/model/backend_yaml.py): one per listed operator, a static member of the backend's class
named as gen_backend_stubs names it, with opcore's native signature; for a structured
operator, the impl of its out= overload, which registers the whole group.

    kernels(backend_yaml, spec)  # [BackendKernel(add.out, impl 'void add_out(...)', structured), ...]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from gen.api import native, structured
from gen.api.structured import ImplSignature
from gen.model.backend_yaml import BackendOp, BackendYaml
from gen.model.errors import Loc
from gen.model.native_function import NativeFunction
from gen.model.spec import Spec


@dataclass(frozen=True)
class BackendKernel:
    """A kernel the backend defines, and what it is registered for.

    function: the operator listed (for a structured kernel: its out= overload)
    signature: the kernel's, named as the backend's class member is (`add_out`)
    autograd: registered at AutogradPrivateUse1 rather than PrivateUse1
    registers: the overloads registered with it (a structured out= overload's group), in YAML order
    loc: the item naming it in the backend YAML
    """

    function: NativeFunction
    signature: Union[native.NativeSignature, ImplSignature]
    autograd: bool
    registers: tuple[NativeFunction, ...]
    loc: Loc

    @property
    def structured(self) -> bool:
        return isinstance(self.signature, ImplSignature)


def _name(f: NativeFunction) -> str:
    """gen_backend_stubs' kernel name: the operator's base name, `_out` added for an out=
    overload (`add`, `add_`, `add_out`); overloads share it as C++ overloads."""
    base = f.func.name.base
    return f"{base}_out" if f.func.is_out else base


def _structured_out(f: NativeFunction, spec: Spec) -> Optional[NativeFunction]:
    if f.structured:
        return f
    return spec.by_name[str(f.structured_delegate)] if f.structured_delegate is not None else None


def _delegates(spec: Spec) -> dict[str, list[NativeFunction]]:
    """out= overload name -> the overloads delegating to it, in file order."""
    by_out: dict[str, list[NativeFunction]] = {}
    for f in spec.functions:
        if f.structured_delegate is not None:
            by_out.setdefault(str(f.structured_delegate), []).append(f)
    return by_out


def _kernel(op: BackendOp, spec: Spec, delegates: dict[str, list[NativeFunction]]) -> BackendKernel:
    f = op.function
    out = None if op.autograd else _structured_out(f, spec)
    if out is None:
        return BackendKernel(f, native.signature(f.func, _name(f)), op.autograd, (f,), op.loc)
    group = (out, *delegates.get(out.name, ()))
    return BackendKernel(out, structured.impl_signature(out, _name(out)), False, group, op.loc)


def kernels(backend: BackendYaml, spec: Spec) -> list[BackendKernel]:
    """The kernels of `backend` (checked against `spec`, opcore's), one per operator or
    structured group: the first item naming a member of a group gives its kernel, the others
    add nothing. Two kernels with the same name and parameter types (two overloads that C++
    cannot tell apart) take the overload in their names instead (`sum_dim_IntList`)."""
    delegates = _delegates(spec)
    found: dict[tuple[str, bool], BackendKernel] = {}
    for op in backend.ops:
        k = _kernel(op, spec, delegates)
        found.setdefault((k.function.name, k.autograd), k)
    result = list(found.values())
    seen: dict[tuple, int] = {}
    for k in result:
        key = (k.signature.name, k.signature.parameter_types())
        seen[key] = seen.get(key, 0) + 1
    return [_disambiguated(k) if seen[(k.signature.name, k.signature.parameter_types())] > 1 else k for k in result]


def _disambiguated(k: BackendKernel) -> BackendKernel:
    name = k.function.func.name
    unique = f"{_name(k.function)}_{name.overload}" if name.overload else _name(k.function)
    sig = k.signature
    renamed = (ImplSignature(unique, sig.bindings, sig.sources) if isinstance(sig, ImplSignature)
               else native.NativeSignature(unique, sig.returns, sig.bindings))
    return BackendKernel(k.function, renamed, k.autograd, k.registers, k.loc)
