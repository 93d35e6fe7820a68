"""RegisterSchema.cpp (every schema, `m.def`) and Register<Key>.cpp (one file per dispatch
key: a wrapper per kernel, registered with `m.impl`)."""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import dispatcher, native
from gen.emit.common import FileSpec, cpp_string_literal, join_args, schema_comment
from gen.model.native_function import DispatchKey, NativeFunction


@dataclass(frozen=True)
class WrapperView:
    """A wrapper with the dispatcher signature that forwards to one native kernel."""

    comment: str       # "aten::add.out(Tensor self, ...) -> Tensor(a!)"
    name: str          # "wrapper_CPU_add_out"
    defn: str          # "Tensor& wrapper_CPU_add_out(const Tensor& self, ...)"
    body: str          # "native::add_out(self, other, alpha, out)"
    op_literal: str    # "\"add.out\""


def wrapper_view(f: NativeFunction, key: DispatchKey, kernel: str) -> WrapperView:
    name = f"wrapper_{key.value}_{dispatcher.struct_name(f.func)}"
    sig = dispatcher.signature(f.func)
    kernel_sig = native.signature(f.func, kernel)
    body = f"native::{kernel_sig.name}({join_args(kernel_sig.call_exprs())})"
    return WrapperView(schema_comment(f), name, sig.defn(name), body, cpp_string_literal(f.name))


def register_file(functions: tuple[NativeFunction, ...], key: DispatchKey) -> FileSpec:
    wrappers = [wrapper_view(f, k.key, k.kernel) for f in functions for k in f.dispatch if k.key == key]
    context = {
        "key": key.value,
        "wrappers": wrappers,
        "has_wrappers": bool(wrappers),
    }
    return FileSpec(f"opcore/Register{key.value}.cpp", "RegisterDispatchKey.cpp.j2", context)


def emit(functions: tuple[NativeFunction, ...]) -> list[FileSpec]:
    schemas = [cpp_string_literal(str(f.func)) for f in functions]
    files = [FileSpec("opcore/RegisterSchema.cpp", "RegisterSchema.cpp.j2", {"schemas": schemas})]
    files += [register_file(functions, key) for key in DispatchKey]
    return files
