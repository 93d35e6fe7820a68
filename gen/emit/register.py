"""RegisterSchema.cpp (every schema, `m.def`) and Register<Key>_<i>.cpp (per dispatch key,
NUM_SHARDS shards: a wrapper per kernel, registered with `m.impl`; see Note [One-op rebuilds])."""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import dispatcher, native
from gen.emit import autogen, kernel_keys, structured
from gen.emit.common import (DEVICE_GUARD_KEYS, NUM_SHARDS, FileSpec, cpp_string_literal, device_statements,
                             join_args, library_path, ops_header, schema_comment, sharded,
                             wrapper_name)
from gen.model.native_function import DispatchKey, NativeFunction
from gen.model.spec import Spec


KERNEL_KEYS_HEADER = "opcore/core/KernelKeys.h"  # what the wrappers routing by kernel key use


@dataclass(frozen=True, slots=True)
class WrapperView:
    """A wrapper with the dispatcher signature that forwards to one native kernel."""

    comment: str       # "aten::add.out(Tensor self, ...) -> Tensor(a!)"
    name: str          # "wrapper_CPU_add_out"
    device: tuple[str, ...]  # device check and guard statements (CUDA): see device_statements
    defn: str          # "Tensor& wrapper_CPU_add_out(const Tensor& self, ...)"
    body: str          # "native::add_out(self, other, alpha, out)"
    op_literal: str    # "\"add.out\""


def wrapper_view(f: NativeFunction, key: DispatchKey, kernel: str, qualifier: str = "native::") -> WrapperView:
    """`qualifier`: how the wrapper names the kernel's scope (a backend's class: Note [Backend
    YAML] in gen/model/backend_yaml.py)."""
    name = wrapper_name(f, key)
    sig = dispatcher.signature(f.func)
    kernel_sig = native.signature(f.func, kernel)
    body = f"{qualifier}{kernel_sig.name}({join_args(kernel_sig.call_exprs())})"
    return WrapperView(schema_comment(f), name, device_statements(f, key), sig.defn(name), body,
                       cpp_string_literal(f.name))


def register_file(shard: dict[str, tuple[NativeFunction, ...]], key: DispatchKey, index: int, spec: Spec) -> FileSpec:
    """Register<key>_<index>.cpp: the wrappers at `key` of the operators of `shard` (groups of
    `spec`'s functions)."""
    namespace = spec.namespace
    wrappers, structured_wrappers, generated_wrappers, includes = [], [], [], []
    for name, fns in shard.items():
        views = [wrapper_view(f, k.key, k.kernel) for f in fns if not f.structured and not f.autogen_source
                 for k in f.dispatch if k.key == key]
        svs = [v for f in fns for v in structured.wrapper_views(f, spec, key)]
        routed = [kernel_keys.wrapper_view(f, f.kernels, wrapper_name(f, key), namespace) for f in fns
                  if f.kernels and key == DispatchKey.CPU]
        if views or svs or routed:
            wrappers += views
            structured_wrappers += svs
            generated_wrappers += routed
            includes.append(ops_header(namespace, name, "_native"))
        if routed and KERNEL_KEYS_HEADER not in includes:
            includes.insert(0, KERNEL_KEYS_HEADER)
        if key == autogen.KEY:
            generated = [f for f in fns if f.autogen_source]
            generated_wrappers += [autogen.wrapper_view(f, spec) for f in generated]
            includes += [h for f in generated for h in autogen.headers(f, spec) if h not in includes]
    if generated_wrappers:  # the `_ops` headers they call into only declare Tensor
        includes.insert(0, "opcore/Tensor.h")
    context = {
        "key": key.value,
        "shard": index,
        "num_shards": NUM_SHARDS,
        "includes": includes,
        "wrappers": wrappers,
        "structured_wrappers": structured_wrappers,
        "generated_wrappers": generated_wrappers,
        "has_wrappers": bool(wrappers or structured_wrappers or generated_wrappers),
        "has_structured": bool(structured_wrappers or generated_wrappers),
        "has_device_guards": key in DEVICE_GUARD_KEYS,
    }
    return FileSpec(library_path(namespace, f"Register{key.value}_{index}.cpp"), "RegisterDispatchKey.cpp.j2", context)


def def_arguments(f: NativeFunction) -> str:
    """The arguments of `m.def(...)`: the schema and, if the entry has any, its tags."""
    schema = cpp_string_literal(str(f.func))
    if not f.tags:
        return schema
    return schema + ", {" + ", ".join(cpp_string_literal(t) for t in f.tags) + "}"


def emit(spec: Spec, excluded: tuple[str, ...] = (), inference_only: tuple[str, ...] = ()) -> list[FileSpec]:
    """The registrations of `spec`'s functions (a selective build's kept ones). A selective
    build's other operators (Note [Selective builds] in gen/emit/selection.py), by qualified name,
    with its list's `spec.selection_file`: `excluded`, those it leaves out; `inference_only`,
    those it keeps without the Autograd kernel a training build gives them."""
    functions, namespace = spec.functions, spec.namespace
    where = f"{spec.selection_file}, OPCORE_SELECTED_OPERATORS"
    excluded_reason = f"it is not in the operator list of this selective build ({where})"
    inference_reason = (f"this selective build keeps it for inference only ({where}): mark it, or an operator "
                        "that calls it, `is_used_for_training: true` to train through it")
    files = [FileSpec(library_path(namespace, "RegisterSchema.cpp"), "RegisterSchema.cpp.j2",
                      {"defs": [def_arguments(f) for f in functions],
                       "excluded": [cpp_string_literal(name) for name in excluded],
                       "excluded_reason": cpp_string_literal(excluded_reason),
                       "inference_only": [cpp_string_literal(name) for name in inference_only],
                       "inference_reason": cpp_string_literal(inference_reason)})]
    shards = sharded(spec.operator_groups)
    files += [register_file(shard, key, i, spec) for key in DispatchKey for i, shard in enumerate(shards)]
    return files
