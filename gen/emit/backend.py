"""A backend's own files from its backend YAML (Note [Backend YAML] in
gen/model/backend_yaml.py): <Backend>NativeFunctions.h declares the kernels it defines, as
static members of its class in its C++ namespace; Register<Backend>.cpp wraps them as opcore's
own PrivateUse1 kernels are wrapped (the same wrapper views: device check and guard, or
structured meta, output preparation and impl) and registers them at PrivateUse1, and the
`autograd:` ones at AutogradPrivateUse1, in library `aten`. The registrations are static
OPCORE_LIBRARY_IMPL blocks: loading the backend's library adds them, unloading it removes them."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from gen.api.backend import BackendKernel, kernels
from gen.emit import register, structured
from gen.emit.autogen import GeneratedWrapperView
from gen.emit.common import FileSpec, ops_header
from gen.emit.impls import ImplBlock
from gen.model.backend_yaml import BackendYaml
from gen.model.dispatch import DispatchKey
from gen.model.native_function import NativeFunction
from gen.model.operators import group_name
from gen.model.spec import Spec

AUTOGRAD_KEY = "AutogradPrivateUse1"  # a runtime key, not one `dispatch:` may name


@dataclass(frozen=True, slots=True)
class BackendKernelView:
    """One static member of the backend's class and what it is registered for."""

    comments: tuple[str, ...]  # ("aten::add.out — PrivateUse1, structured impl (also add.Tensor, add_.Tensor)",)
    decl: str                  # "static void add_out(const Tensor& self, ..., const Tensor& out)"


def output_names(backend: str) -> tuple[str, str]:
    """The files a run for backend `backend` (NPU) writes, relative to its output directory:
    NPUNativeFunctions.h, RegisterNPU.cpp."""
    return f"{backend}NativeFunctions.h", f"Register{backend}.cpp"


def _kernel_view(k: BackendKernel) -> BackendKernelView:
    key = AUTOGRAD_KEY if k.autograd else DispatchKey.PrivateUse1.value
    comment = f"{k.function.qualified_name} — {key}"
    if k.structured:  # opcore's meta function runs first
        also = [f.name for f in k.registers if f is not k.function]
        comment += ", structured impl" + (f" (also {', '.join(also)})" if also else "")
    return BackendKernelView((comment,), f"static {k.signature.decl()}")


def _wrappers(k: BackendKernel, qualifier: str) -> list[GeneratedWrapperView]:
    """The wrappers registering `k`: in-tree's PrivateUse1 wrappers, or structured ones."""
    key = DispatchKey.PrivateUse1
    if not k.structured:
        w = register.wrapper_view(k.function, key, k.signature.name, qualifier)
        if k.autograd:  # above the backend's key: no device check or guard, as in-tree autograd kernels
            old, new = f"wrapper_{key.value}_", f"wrapper_{AUTOGRAD_KEY}_"
            w = dataclasses.replace(w, name=w.name.replace(old, new, 1), defn=w.defn.replace(old, new, 1), device=())
        return [GeneratedWrapperView(w.comment, w.name, w.defn, w.device + (f"return {w.body};",), w.op_literal)]
    views = []
    for f in k.registers:
        s = structured.wrapper_view(f, k.function, key, k.signature.name, qualifier)
        statements = (f"const auto meta = {s.meta_call};", *s.guard, *s.prepare, f"{s.impl_call};",
                      f"return {s.result};")
        views.append(GeneratedWrapperView(s.comment, s.name, s.defn, statements, s.op_literal))
    return views


def _groups(functions: list[NativeFunction]) -> list[str]:
    return list(dict.fromkeys(group_name(f) for f in functions))


def emit(backend: BackendYaml, spec: Spec) -> list[FileSpec]:
    """The backend's two files (output_names), for `backend` checked against `spec`, opcore's."""
    found = kernels(backend, spec)
    qualifier = f"::{backend.cpp_namespace}::{backend.class_name}::"
    blocks = []
    for key, autograd in ((DispatchKey.PrivateUse1.value, False), (AUTOGRAD_KEY, True)):
        wrappers = tuple(w for k in found if k.autograd == autograd for w in _wrappers(k, qualifier))
        if wrappers:
            blocks.append(ImplBlock(key, wrappers))
    groups = _groups([f for k in found for f in k.registers])
    header, register_file = output_names(backend.backend)
    context = {"backend": backend.backend, "cpp_namespace": backend.cpp_namespace,
               "class_name": backend.class_name, "yaml_name": backend.path.replace("\\", "/").rsplit("/", 1)[-1]}
    return [
        FileSpec(header, "BackendNativeFunctions.h.j2", context | {
            "includes": [ops_header(spec.namespace, g, "_ops") for g in groups],
            "extra_headers": backend.extra_headers.rstrip("\n"),
            "kernels": [_kernel_view(k) for k in found]}),
        FileSpec(register_file, "RegisterBackend.cpp.j2", context | {
            "header": header, "has_structured": any(k.structured for k in found),
            "includes": [ops_header(spec.namespace, g, "_native") for g in groups],
            "wrappers": [w for b in blocks for w in b.wrappers], "blocks": blocks}),
    ]
