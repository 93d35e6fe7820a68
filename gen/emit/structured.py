"""The wrappers of structured kernels (Note [Structured kernels] in gen/api/structured.py):
for the out= overload and every overload delegating to it, per backend key of the out=
overload, plus Meta for free. They check no devices themselves: see Note [Devices of
structured kernels]."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from gen.api import dispatcher, structured
from gen.emit.common import DEVICE_GUARD_KEYS, cpp_string_literal, schema_comment, wrapper_name
from gen.model.dispatch import DispatchKey
from gen.model.native_function import NativeFunction
from gen.model.spec import Spec

_META = "meta"  # the local variable holding the meta function's result


@dataclass(frozen=True)
class StructuredWrapperView:
    """A wrapper with the dispatcher signature running meta, output preparation and impl."""

    comment: str                 # "aten::add.Tensor(Tensor self, ...) -> Tensor"
    name: str                    # "wrapper_CPU_add_Tensor"
    defn: str                    # "Tensor wrapper_CPU_add_Tensor(const Tensor& self, ...)"
    meta_call: str               # "meta::add(self, other, alpha)"
    guard: tuple[str, ...]       # after meta (CUDA): "const DeviceGuard device_guard(meta.out.device);"
    prepare: tuple[str, ...]     # statements: "Tensor out = detail::makeOutput(meta.out);"
    impl_call: Optional[str]     # "native::add_out(self, other, alpha, out)"; None on Meta
    result: str                  # "out", "self", "std::make_tuple(values, indices)"
    op_literal: str              # "\"add.Tensor\""
    has_impl: bool


def structured_out(f: NativeFunction, spec: Spec) -> Optional[NativeFunction]:
    """The structured out= overload implementing `f` (of `spec`): f itself, its delegate, or None."""
    if f.structured:
        return f
    if f.structured_delegate is not None:
        return spec.by_name[str(f.structured_delegate)]
    return None


def structured_keys(out: NativeFunction) -> list[tuple[DispatchKey, Optional[str]]]:
    """(key, impl kernel) for every key the structured overload registers: its backend keys,
    then Meta (impl None) unless it names a Meta kernel of its own."""
    keys: list[tuple[DispatchKey, Optional[str]]] = [(k.key, k.kernel) for k in out.dispatch]
    if all(k.key != DispatchKey.Meta for k in out.dispatch):
        keys.append((DispatchKey.Meta, None))
    return keys


# Note [Devices of structured kernels]
# The wrappers of non-structured kernels at CUDA and PrivateUse1 check that every tensor
# argument is on one device (unless `device_check: NoCheck`) and make the first one's device
# current (gen/emit/common.py: device_statements). Structured wrappers do neither, as
# torchgen's don't: the meta function decides the result's device, and may let a 0-dim CPU
# tensor join tensors of another device (a wrapped scalar: `cuda_t + cpu_0dim`, which a strict
# check would reject); prepareOut / checkInplace then hold out= and in-place tensors to that
# device. So the wrapper runs meta first, then opens a DeviceGuard on the first output's
# device, before any output is allocated or the impl runs. `device_check:` is accepted on
# structured entries (PyTorch writes `NoCheck` on them) and has no effect there.


def _guard(out: NativeFunction, key: DispatchKey) -> tuple[str, ...]:
    """The DeviceGuard of a structured wrapper at `key`, on the meta function's first output
    (Note [Devices of structured kernels])."""
    if key not in DEVICE_GUARD_KEYS:
        return ()
    assert out.device_guard, "device_guard: False on a structured kernel passed the model: generator bug"
    return (f"const DeviceGuard device_guard({_META}.{out.func.out_arguments[0].name}.device);",)


def _prepare(f: NativeFunction, out: NativeFunction) -> tuple[list[str], dict[str, str], str]:
    """The statements preparing the outputs, how the impl names each output, and the result."""
    op = cpp_string_literal(f.qualified_name)
    outs = [a.name for a in out.func.out_arguments]
    if f.func.is_out:
        inputs = ", ".join(f"&{a.name}" for a in structured.inputs(f.func) if a.type.is_tensor and not a.type.suffix)
        stmts = [f"detail::prepareOut({op}, {name}, {_META}.{name}, {{{inputs}}});" for name in outs]
        names = {name: name for name in outs}
    elif f.func.is_inplace:
        assert len(outs) == 1, "in-place delegate of a multi-output op passed the model: generator bug"
        stmts = [f"detail::checkInplace({op}, self, {_META}.{outs[0]});"]
        names = {outs[0]: "self"}
    else:
        stmts = [f"Tensor {name} = detail::makeOutput({_META}.{name});" for name in outs]
        names = {name: name for name in outs}
    values = [names[name] for name in outs]
    if len(values) == 1:
        result = values[0]
    elif f.func.is_out:
        result = f"std::forward_as_tuple({', '.join(values)})"
    else:
        result = f"std::make_tuple({', '.join(values)})"
    return stmts, names, result


def wrapper_view(f: NativeFunction, out: NativeFunction, key: DispatchKey,
                 kernel: Optional[str], qualifier: str = "native::") -> StructuredWrapperView:
    """`qualifier`: how the wrapper names the impl's scope (a backend's class: Note [Backend
    YAML] in gen/model/backend_yaml.py)."""
    name = wrapper_name(f, key)
    sig = dispatcher.signature(f.func)
    stmts, out_names, result = _prepare(f, out)
    args = {a.name: a.name for a in f.func.arguments} | out_names
    meta = structured.meta_signature(out)
    impl = structured.impl_signature(out, kernel).call(args, _META, qualifier) if kernel is not None else None
    return StructuredWrapperView(
        comment=schema_comment(f), name=name, defn=sig.defn(name),
        meta_call=meta.call(args), guard=_guard(out, key),
        prepare=tuple(stmts), impl_call=impl, result=result,
        op_literal=cpp_string_literal(f.name), has_impl=impl is not None)


def wrapper_views(f: NativeFunction, spec: Spec, key: DispatchKey) -> list[StructuredWrapperView]:
    """The structured wrapper of `f` at `key`, if f is structured or delegates and `key` is one
    of the structured overload's keys."""
    out = structured_out(f, spec)
    if out is None:
        return []
    return [wrapper_view(f, out, k, kernel) for k, kernel in structured_keys(out) if k == key]
