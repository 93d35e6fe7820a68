"""The Python bindings of opcore._C: python/PythonFunctions_<i>.cpp (module functions and
Tensor methods of the operator groups in shard i, as torchgen's python_functions.cpp and
python_variable_methods.cpp) and python/PythonFunctions.h (what the module's init calls).

Each Python name is one C function: it resolves the call against the schemas of its
overloads (opcore::python::PythonArgParser, one routine for every operator), reads the
arguments with the accessor of each type (Note [Python accessors] in gen/api/python.py) and
calls `_ops::<op>::call` with the GIL released.
"""
from __future__ import annotations

from dataclasses import dataclass

from gen.api import dispatcher, python
from gen.emit.common import NUM_SHARDS, FileSpec, cpp_string_literal, ops_header, schema_comment, shard_of
from gen.model.native_function import NativeFunction
from gen.model.operators import group_name
from gen.model.tags import Tag


@dataclass(frozen=True, slots=True)
class OverloadView:
    """One `case` of a binding: read the arguments, call with the GIL released, return."""

    comment: str                 # the schema
    reads: tuple[str, ...]       # "auto&& self = r.toTensor(0);"
    body: tuple[str, ...]        # the call and the return statement


@dataclass(frozen=True, slots=True)
class BindingView:
    """One Python name: `opcore.add` (function) or `Tensor.add` (method)."""

    module: str                  # "" (opcore), "nn" (opcore.nn), ...; "" for methods
    name: str                    # the Python name
    c_name: str                  # the C function: "function_add", "method_add_"
    method: bool
    schemas: tuple[str, ...]     # C++ string literals, in resolution order
    overloads: tuple[OverloadView, ...]
    doc: str                     # C++ string literal: every signature, then the YAML doc


def _overload_view(f: NativeFunction) -> OverloadView:
    func = f.func
    schema = python.python_schema(func)
    reads = tuple(f"auto&& {a.name} = r.{python.accessor(a)}({i});" for i, a in enumerate(schema.arguments))
    outs = python.out_tuple(func)
    names = [f"out[{outs.index(a)}]" if a in outs else a.name for a in func.arguments]
    call = f"_ops::{dispatcher.struct_name(func)}::call({', '.join(names)})"
    returned = [python.returned_argument(func, r) for r in func.returns]
    if outs:
        # Note [Out tuples]: the tensors of the out= tuple, as a named tuple when the returns are named.
        k = next(i for i, a in enumerate(schema.arguments) if a.name == "out")
        named = ""
        if all(r.name for r in func.returns):
            fields = ", ".join(f'"{r.name}"' for r in func.returns)
            named = f'static PyTypeObject* const named = returnType("{func.name.base}_out", {{{fields}}});'
        body = (*([named] if named else []), f"callWithoutGil([&] {{ {call}; }});",
                f"return r.returnItems({k}{', named' if named else ''});")
    elif python.takes_requires_grad(func):
        body = (f"return wrap(callWithoutGil([&] {{ return {call}; }}).requires_grad_(requires_grad));",)
    elif not func.returns:
        body = (f"callWithoutGil([&] {{ {call}; }});", "Py_RETURN_NONE;")
    elif all(j is not None for j in returned):
        # Mutable returns are arguments: return their Python objects (`a.add_(b) is a`).
        body = (f"callWithoutGil([&] {{ {call}; }});", f"return r.returnArguments({{{', '.join(map(str, returned))}}});")
    elif len(func.returns) > 1 and all(r.name for r in func.returns):
        # Named returns: a named tuple, opcore.return_types.<name>, as torch.return_types.
        fields = ", ".join(f'"{r.name}"' for r in func.returns)
        body = (f'static PyTypeObject* const named = returnType("{func.name.base}", {{{fields}}});',
                f"return wrap(callWithoutGil([&] {{ return {call}; }}), named);")
    else:
        body = (f"return wrap(callWithoutGil([&]() -> decltype(auto) {{ return {call}; }}));",)
    return OverloadView(schema_comment(f), reads, body)


def _doc(name: str, fns: tuple[NativeFunction, ...], method: bool) -> str:
    """help(): every overload's Python signature, the YAML `doc:` texts, and the schemas. The
    stubs write the same signatures (gen/emit/python_stubs.py, python.STUB)."""
    lines = [text for f in fns for text in python.signature_texts(f, method)]
    docs = [f.doc for f in fns if f.doc]
    schemas = [f"  aten::{f.func}" for f in fns]
    text = "\n".join(lines) + ("\n\n" + "\n\n".join(dict.fromkeys(docs)) if docs else "") + \
        "\n\nSchemas:\n" + "\n".join(schemas)
    lines = text.split("\n")
    return " ".join(cpp_string_literal(line)[:-1] + ('\\n"' if i + 1 < len(lines) else '"') for i, line in enumerate(lines))


def _binding(module: str, name: str, fns: tuple[NativeFunction, ...], method: bool) -> BindingView:
    prefix = "method" if method else "function" + (f"_{module}" if module else "")
    return BindingView(module, name, f"{prefix}_{name}", method,
                       tuple(cpp_string_literal(f"aten::{python.python_schema(f.func)}") for f in fns),
                       tuple(_overload_view(f) for f in fns), _doc(name, fns, method))


def _unbound(functions: tuple[NativeFunction, ...]) -> list[tuple[NativeFunction, str]]:
    return [(f, reason) for f in functions if (reason := python.unbound_reason(f.func)) is not None]


def emit(functions: tuple[NativeFunction, ...], tags: tuple[Tag, ...]) -> list[FileSpec]:
    shards: list[list[BindingView]] = [[] for _ in range(NUM_SHARDS)]
    includes: list[set[str]] = [set() for _ in range(NUM_SHARDS)]
    for (module, name), fns in python.function_groups(functions).items():
        shard = shard_of(group_name(fns[0]))
        shards[shard].append(_binding(module, name, fns, method=False))
        includes[shard].update(ops_header(f.namespace, group_name(f), "_ops") for f in fns)
    for name, fns in python.method_groups(functions).items():
        shard = shard_of(group_name(fns[0]))
        shards[shard].append(_binding("", name, fns, method=True))
        includes[shard].update(ops_header(f.namespace, group_name(f), "_ops") for f in fns)
    unbound = _unbound(functions)
    files = [FileSpec(f"python/PythonFunctions_{i}.cpp", "PythonFunctions.cpp.j2",
                      {"shard": i, "num_shards": NUM_SHARDS, "includes": sorted(includes[i]), "bindings": shards[i],
                       "unbound": [(schema_comment(f), reason) for f, reason in unbound if shard_of(group_name(f)) == i]})
             for i in range(NUM_SHARDS)]
    tag_rows = [f"{{{cpp_string_literal(t.name)}, {cpp_string_literal(' '.join(t.desc.split()))}}}" for t in tags]
    files.append(FileSpec("python/PythonFunctions.h", "PythonFunctions.h.j2",
                          {"shards": list(range(NUM_SHARDS)), "tags": tag_rows}))
    return files
