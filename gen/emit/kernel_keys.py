"""The CPU kernel of an operator with ExecuTorch's `kernels:` (Note [Kernel keys] in
gen/model/kernel_keys.py): a wrapper that calls the first kernel whose key matches the call.

    if (self.scalar_type() == ScalarType::Float && detail::hasDimOrder(self, {0, 1}) && ...) {
      return ::mylib::native::add_out_2d(self, other, alpha, out);
    }
    return native::add_out(self, other, alpha, out);    // arg_meta: null; else an error
"""
from __future__ import annotations

from gen.api import dispatcher, native
from gen.emit.autogen import GeneratedWrapperView
from gen.emit.common import cpp_namespace, cpp_string_literal, join_args, schema_comment
from gen.model.kernel_keys import KeyedKernel
from gen.model.native_function import NativeFunction
from gen.model.schema import FunctionSchema


def kernel_namespace(namespace: str, k: KeyedKernel) -> str:
    """The C++ namespace whose `native` namespace holds k's function, "" for the library's own
    (whose C++ namespace `kernel_name` may also write)."""
    return "" if k.cpp_namespace == cpp_namespace(namespace) else k.cpp_namespace


def kernel_uses(f: NativeFunction, kernels: tuple[KeyedKernel, ...], namespace: str) -> list[tuple]:
    """The declarations `kernels` need (gen/emit/native_functions.py KernelUse), for a library of `namespace`."""
    return [(kernel_namespace(namespace, k), native.signature(f.func, k.kernel), f.qualified_name, "CPU (kernels:)")
            for k in kernels]


def _kernel(func: FunctionSchema, k: KeyedKernel, namespace: str) -> str:
    """The call of k's C++ function: `native::f(...)` in the library's namespace, else `::ns::native::f(...)`."""
    sig = native.signature(func, k.kernel)
    other = kernel_namespace(namespace, k)
    return f"{f'::{other}::native::' if other else 'native::'}{k.kernel}({join_args(sig.call_exprs())})"


def _key_text(k: KeyedKernel) -> str:
    return ", ".join(f"{m.arg} {m.dtype} (dim order {', '.join(map(str, m.dim_order))})" for m in k.arg_meta or ())


def routing_statements(f: NativeFunction, kernels: tuple[KeyedKernel, ...], namespace: str) -> list[str]:
    """The wrapper's body, in the library of `namespace`: a test per kernel key, in YAML order,
    then the default kernel or the error."""
    statements = []
    for k in kernels:
        if k.arg_meta is None:
            continue
        if not k.matchable:
            statements.append(f"// never matches (opcore has no tensors of some of its dtypes): {_key_text(k)}")
            continue
        test = " && ".join(f"{m.arg}.scalar_type() == ScalarType::{m.dtype} && "
                           f"detail::hasDimOrder({m.arg}, {{{', '.join(map(str, m.dim_order))}}})" for m in k.arg_meta)
        statements += [f"if ({test}) {{", f"  return {_kernel(f.func, k, namespace)};", "}"]
    default = next((k for k in kernels if k.arg_meta is None), None)
    if default is not None:
        return statements + [f"return {_kernel(f.func, default, namespace)};"]
    named = {m.arg for k in kernels for m in k.arg_meta or ()}
    arguments = ", ".join(f'{{"{a.name}", &{a.name}}}' for a in f.func.arguments if a.name in named)
    keys = " | ".join(_key_text(k) for k in kernels)
    return statements + [f"detail::throwNoKernelForKey({cpp_string_literal(f.qualified_name)}, {{{arguments}}}, "
                         f"{cpp_string_literal(keys)});"]


def wrapper_view(f: NativeFunction, kernels: tuple[KeyedKernel, ...], name: str, namespace: str) -> GeneratedWrapperView:
    """The CPU wrapper `name` of `f` routing to `kernels`, in the library of `namespace`."""
    return GeneratedWrapperView(schema_comment(f), name, dispatcher.signature(f.func).defn(name),
                                tuple(routing_statements(f, kernels, namespace)), cpp_string_literal(f.name))
