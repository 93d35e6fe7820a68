"""Structured kernels: the meta function and impl kernels of a `structured: True` out= overload,
and the wrappers generated for it and for the overloads that delegate to it. See Note
[Structured kernels].

    meta = structured.meta_signature(add_out)          # meta::add(self, other, alpha) -> meta::add_out
    impl = structured.impl_signature(add_out, "add_out")  # void add_out(self, other, alpha, const Tensor& out)
"""
from __future__ import annotations

from dataclasses import dataclass

from gen.api.dispatcher import struct_name
from gen.api.types import Binding, argument_type
from gen.model.native_function import NativeFunction
from gen.model.schema import Argument, FunctionSchema

# Note [Structured kernels]
# An out= overload marked `structured: True` is implemented as two hand-written functions:
#   meta::<name>(inputs...) -> meta::<op struct>   checks the inputs and computes, for each
#       out= argument, a TensorSpec (sizes, dtype, device), plus any `precomputed:` values;
#       it lives in kernels/ and runs for every backend;
#   <impl>(inputs..., const Tensor& out...) -> void    the kernel named in `dispatch:`; it
#       computes into outputs that already have the right sizes (their dtype may differ from
#       the spec's when the caller's out= tensor has another one it can be cast to).
# The generator writes, for every backend key of the out= overload:
#   out=        meta, then detail::prepareOut (device and dtype checks, resize), then impl;
#   functional  (structured_delegate) meta, then detail::makeOutput (allocation), then impl;
#   in-place    (structured_delegate) meta, then detail::checkInplace (same sizes, dtype that
#               the result can be cast to), then impl writing into self;
# and a Meta registration of all three that runs meta only, so every structured operator
# works on meta tensors without a Meta kernel. The meta function also decides the result's
# device; the CUDA wrappers check no devices before it (Note [Devices of structured kernels]
# in gen/emit/structured.py).


@dataclass(frozen=True)
class MetaSignature:
    """`meta::add(const Tensor& self, ...)`, returning the struct `meta::add_out`.

    struct_name: the result struct; fields: (C++ type, name) of its members, in order
    """

    name: str
    struct_name: str
    bindings: tuple[Binding, ...]
    fields: tuple[tuple[str, str], ...]

    def decl(self) -> str:
        params = ", ".join(b.decl(with_default=False) for b in self.bindings)
        return f"{self.struct_name} {self.name}({params})"

    def call(self, args: dict[str, str]) -> str:
        """`meta::add(self, other, alpha)`, each argument spelled as `args` maps its name."""
        return f"meta::{self.name}({', '.join(args[b.name] for b in self.bindings)})"


@dataclass(frozen=True)
class ImplSignature:
    """`void add_out(const Tensor& self, ..., const Tensor& out)`: the inputs (with the
    `precomputed:` replacements and additions), then the outputs as `const Tensor&`."""

    name: str
    bindings: tuple[Binding, ...]
    sources: tuple[str, ...]  # per binding: "arg:<name>", "meta:<field>" or "out:<name>"
    returns: str = "void"

    def parameter_types(self) -> tuple[str, ...]:
        return tuple(b.type for b in self.bindings)

    def decl(self) -> str:
        return f"{self.returns} {self.name}({', '.join(b.decl(with_default=False) for b in self.bindings)})"

    def call(self, args: dict[str, str], meta: str, qualifier: str = "native::") -> str:
        """`native::add_out(self, other, alpha, out)`; `args` spells arguments and outputs by
        name, `meta` is the variable holding the meta function's result, `qualifier` the
        kernel's scope."""
        exprs = []
        for source in self.sources:
            kind, _, name = source.partition(":")
            exprs.append(f"{meta}.{name}" if kind == "meta" else args[name])
        return f"{qualifier}{self.name}({', '.join(exprs)})"


def inputs(func: FunctionSchema) -> tuple[Argument, ...]:
    """The arguments of an out= overload that are not out= arguments."""
    outs = func.out_arguments
    return tuple(a for a in func.arguments if a not in outs)


def _input_binding(a: Argument) -> Binding:
    # The in-place overload's self is `Tensor(a!)`; meta and impl only read it.
    t = a.type
    cpp = "const Tensor&" if t.base == "Tensor" and not t.suffix else argument_type(t)
    return Binding(cpp, a.name)


_PRECOMPUTED_CPP = {
    "int": "int64_t", "SymInt": "int64_t", "float": "double", "bool": "bool",
    "ScalarType": "ScalarType", "MemoryFormat": "MemoryFormat", "Layout": "Layout",
    "Device": "Device", "DimVector": "std::vector<int64_t>",
}


def meta_signature(out: NativeFunction) -> MetaSignature:
    """Precondition: `out` is structured (so an out= overload; checked by the model)."""
    fields = [("TensorSpec", a.name) for a in out.func.out_arguments]
    if out.precomputed is not None:
        fields += [(_PRECOMPUTED_CPP[e.type], e.name) for e in out.precomputed.elements()]
    return MetaSignature(out.func.name.base, struct_name(out.func),
                         tuple(_input_binding(a) for a in inputs(out.func)), tuple(fields))


def impl_signature(out: NativeFunction, kernel: str) -> ImplSignature:
    bindings: list[Binding] = []
    sources: list[str] = []
    pre = out.precomputed
    for a in inputs(out.func):
        replaced = pre.replacement(a.name) if pre is not None else None
        if replaced is None:
            bindings.append(_input_binding(a))
            sources.append(f"arg:{a.name}")
        else:
            bindings += [Binding(_PRECOMPUTED_CPP[e.type], e.name) for e in replaced]
            sources += [f"meta:{e.name}" for e in replaced]
    if pre is not None:
        bindings += [Binding(_PRECOMPUTED_CPP[e.type], e.name) for e in pre.add]
        sources += [f"meta:{e.name}" for e in pre.add]
    for a in out.func.out_arguments:
        bindings.append(Binding("const Tensor&", a.name))
        sources.append(f"out:{a.name}")
    return ImplSignature(kernel, tuple(bindings), tuple(sources))
