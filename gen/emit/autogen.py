"""The kernels of the overloads `autogen:` generates (Note [Generated overloads] in
gen/model/autogen.py): C++ statements calling other operators through their `_ops` structs.

    fill.Scalar (from fill_.Scalar):
      Tensor self_copy = detail::makeOutput(detail::specOf(self));
      opcore::_ops::copy_::call(self_copy, self, false);
      _ops::fill__Scalar::call(self_copy, value);
      return self_copy;
    fill.Scalar_out:
      auto result = _ops::fill_Scalar::call(self, value);
      detail::prepareOut("aten::fill.Scalar_out", out, detail::specOf(result), {});
      opcore::_ops::copy_::call(out, result, false);
      return out;
copy_ is always opcore's (an extension's generated kernels copy with it too).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from gen.api import dispatcher
from gen.emit.common import cpp_string_literal, ops_header, schema_comment, wrapper_name
from gen.model.autogen import functional_name, is_functional, mutable_arguments
from gen.model.native_function import ATEN, DispatchKey, NativeFunction
from gen.model.operators import group_name
from gen.model.schema import Argument, FunctionSchema
from gen.model.spec import Spec

KEY = DispatchKey.CompositeExplicitAutograd
_COPY = "opcore::_ops::copy_::call"

# One value of an operator's functional result: ("return", i) is its i-th return (one that
# aliases no argument), ("arg", name) the new value of its mutable argument `name`.
Part = tuple[str, Union[int, str]]


@dataclass(frozen=True)
class GeneratedWrapperView:
    """A generated kernel, registered like the wrappers of hand-written ones."""

    comment: str                 # "aten::fill.Scalar(Tensor self, Scalar value) -> Tensor"
    name: str                    # "wrapper_CompositeExplicitAutograd_fill_Scalar"
    defn: str                    # "Tensor wrapper_CompositeExplicitAutograd_fill_Scalar(...)"
    statements: tuple[str, ...]  # the body, one line each (indented relative to the body)
    op_literal: str              # "\"fill.Scalar\""


def functional_parts(func: FunctionSchema) -> list[Part]:
    """What the functional form of `func` returns, in order (Note [Generated overloads])."""
    if is_functional(func):
        return [("return", i) for i in range(len(func.returns))]
    by_alias = {a.type.alias: a.name for a in mutable_arguments(func)}
    parts: list[Part] = [("arg", by_alias[r.type.alias]) if r.type.alias in by_alias else ("return", i)
                         for i, r in enumerate(func.returns)]
    return parts + [("arg", a.name) for a in mutable_arguments(func) if ("arg", a.name) not in parts]


def _call(func: FunctionSchema, args: dict[str, str]) -> str:
    names = ", ".join(args.get(a.name, a.name) for a in func.arguments)
    return f"_ops::{dispatcher.struct_name(func)}::call({names})"


def _element(results: str, index: int, count: int) -> str:
    return results if count == 1 else f"std::get<{index}>({results})"


def _copies(a: Argument) -> tuple[str, list[str]]:
    """A fresh copy of the mutable argument `a`: its name and the statements making it."""
    name = f"{a.name}_copy"
    if not a.type.suffix:
        return name, [f"Tensor {name} = detail::makeOutput(detail::specOf({a.name}));",
                      f"{_COPY}({name}, {a.name}, false);"]
    return name, [f"std::vector<Tensor> {name};",
                  f"for (const Tensor& t : {a.name}) {{",
                  "  Tensor& copy = " + name + ".emplace_back(detail::makeOutput(detail::specOf(t)));",
                  f"  {_COPY}(copy, t, false);",
                  "}"]


def _run_on_copies(source: FunctionSchema) -> tuple[list[str], list[str]]:
    """Statements running the mutating `source` on copies of its mutable arguments, and the
    C++ expression of each part of its functional result (functional_parts order)."""
    stmts, copies = [], {}
    for a in mutable_arguments(source):
        copies[a.name], made = _copies(a)
        stmts += made
    parts = functional_parts(source)
    returns = [p for p in parts if p[0] == "return"]
    call = _call(source, copies)
    stmts.append(f"auto results = {call};" if returns else f"{call};")
    count = len(source.returns)
    return stmts, [copies[v] if kind == "arg" else _element("results", v, count) for kind, v in parts]


def _functional_result(source: NativeFunction, spec: Spec) -> tuple[list[str], list[str], list[Part]]:
    """Statements computing the functional result of `source` (by calling its functional
    overload in `spec` when there is one), the expression of each part, and what each part is."""
    parts = functional_parts(source.func)
    name = functional_name(source.func)
    functional = source if is_functional(source.func) else spec.by_name.get(str(name))
    if functional is None:
        stmts, exprs = _run_on_copies(source.func)
        return stmts, exprs, parts
    count = len(functional.func.returns)
    return ([f"auto result = {_call(functional.func, {})};"],
            [_element("result", i, count) for i in range(count)], parts)


def _copy_into(op: str, target: Argument, value: str) -> list[str]:
    """Resize `target` like an out= argument and copy `value` into it."""
    if not target.type.suffix:
        return [f"detail::prepareOut({op}, {target.name}, detail::specOf({value}), {{}});",
                f"{_COPY}({target.name}, {value}, false);"]
    return [f"detail::checkOutListSize({op}, {cpp_string_literal(target.name)}, {target.name}.size(), {value}.size());",
            f"for (size_t i = 0; i < {value}.size(); ++i) {{",
            f"  Tensor target = {target.name}[i];",
            f"  detail::prepareOut({op}, target, detail::specOf({value}[i]), {{}});",
            f"  {_COPY}(target, {value}[i], false);",
            "}"]


def _out_targets(f: NativeFunction, source: NativeFunction) -> list[tuple[Argument, Part]]:
    """Each mutable argument of the generated out= overload `f`, and the part of the source's
    functional result it receives."""
    func = source.func
    if func.is_inplace:
        outs: list[Part] = [("arg", func.arguments[0].name)]
    else:
        outs = [("return", i) for i, r in enumerate(func.returns) if r.type.base == "Tensor"]
    out_args = iter(zip(f.func.out_arguments, outs))
    return [next(out_args) if a.kwarg_only else (a, ("arg", a.name)) for a in mutable_arguments(f.func)]


def _out_body(f: NativeFunction, source: NativeFunction, spec: Spec) -> list[str]:
    stmts, exprs, parts = _functional_result(source, spec)
    op = cpp_string_literal(f.qualified_name)
    for target, part in _out_targets(f, source):
        stmts += _copy_into(op, target, exprs[parts.index(part)])
    by_alias = {a.type.alias: a.name for a in mutable_arguments(f.func)}
    values = [by_alias[r.type.alias] if r.type.alias else exprs[parts.index(("return", i))]
              for i, r in enumerate(f.func.returns)]
    if len(values) == 1:
        stmts.append(f"return {values[0]};")
    elif values:
        tie = "std::forward_as_tuple" if all(r.type.alias for r in f.func.returns) else "std::make_tuple"
        stmts.append(f"return {tie}({', '.join(values)});")
    return stmts


def _functional_body(f: NativeFunction, source: NativeFunction) -> list[str]:
    stmts, exprs = _run_on_copies(source.func)
    stmts.append(f"return {exprs[0]};" if len(exprs) == 1 else f"return std::make_tuple({', '.join(exprs)});")
    return stmts


def wrapper_view(f: NativeFunction, spec: Spec) -> GeneratedWrapperView:
    """The kernel of `f`, an overload of `spec` generated from another (`autogen:`)."""
    source = spec.by_name[f.autogen_source]
    body = _out_body(f, source, spec) if f.func.is_out else _functional_body(f, source)
    name = wrapper_name(f, KEY)
    return GeneratedWrapperView(schema_comment(f), name, dispatcher.signature(f.func).defn(name), tuple(body),
                                cpp_string_literal(f.name))


def headers(f: NativeFunction, spec: Spec) -> list[str]:
    """The `_ops` headers the kernel of the generated `f` (of `spec`) calls into."""
    source = spec.by_name[f.autogen_source]
    called = [source]
    functional = spec.by_name.get(str(functional_name(source.func)))
    if functional is not None:
        called.append(functional)
    return [ops_header(ATEN, "copy", "_ops")] + [ops_header(g.namespace, group_name(g), "_ops") for g in called]
